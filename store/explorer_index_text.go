package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentdesk/agentdesk/engine/episode"
)

// Searches on the Explorer's memory index (explorer_index.go): a search is split into its words
// as FTS5's query would be (episode.TextWords); a common term is the index's set, a rare one an
// exact FTS5 lookup, the last word (a prefix) the sets of its common completions ORed with one
// FTS5 query of the rare ones. Listings by relevance are FTS5's ranking, read once per search.

type vocabTerm struct {
	term string
	docs int
}

// frequentTerm is the share of episodes a term must occur in for the index to keep its set
// (one bit an episode; the least common kept term costs no more than a list of its ids would),
// and frequentTerms and frequentTermBytes bound how many are kept (the most common first): at
// most 32 MB of sets, 256 terms at a million episodes.
var (
	frequentTerm      = 32
	frequentTerms     = 1024
	frequentTermBytes = 32 << 20
)

// rareTermsAtOnce bounds the rare terms of a prefix searched in one FTS5 query ("t1" OR "t2"
// ...); a prefix with more is searched as the prefix.
var rareTermsAtOnce = 256

type textSet struct {
	query      string
	set        bitset
	ranked     []int32 // by relevance, once asked for (explorerIndex.ranked)
	rankedDesc bool
}

const textSetsKept = 8

// readVocabulary reads the full-text index's terms and the sets of its most common ones. A
// store opened read-only cannot make the fts5vocab table (query_only): its searches go to FTS5.
func (idx *explorerIndex) readVocabulary(ctx context.Context, q querier) error {
	if _, err := q.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.episode_vocab USING fts5vocab(main, episode_text, row)`); err != nil {
		return nil
	}
	if err := scanRows(ctx, q, `SELECT term, doc FROM temp.episode_vocab`, func(rows *sql.Rows) error {
		var t vocabTerm
		if err := rows.Scan(&t.term, &t.docs); err != nil {
			return err
		}
		idx.vocab = append(idx.vocab, t)
		return nil
	}); err != nil {
		return err
	}
	slices.SortFunc(idx.vocab, func(a, b vocabTerm) int { return strings.Compare(a.term, b.term) })
	common := slices.Clone(idx.vocab)
	slices.SortFunc(common, func(a, b vocabTerm) int { return b.docs - a.docs })
	idx.frequent = map[string]bitset{}
	keep := min(len(common), frequentTerms, frequentTermBytes/max(1, len(idx.ids)/8))
	for _, t := range common[:keep] {
		if t.docs < max(1, len(idx.ids)/frequentTerm) {
			break
		}
		b, err := idx.matchSet(ctx, q, ftsPhrase(t.term))
		if err != nil {
			return err
		}
		idx.frequent[t.term] = b
	}
	return nil
}

// ftsPhrase quotes a term as an FTS5 string.
func ftsPhrase(term string) string { return `"` + strings.ReplaceAll(term, `"`, `""`) + `"` }

// matchSet reads the episodes an FTS5 query matches into a new set.
func (idx *explorerIndex) matchSet(ctx context.Context, q querier, query string) (bitset, error) {
	b := newBitset(len(idx.ids))
	next := 0 // rowids come in ascending order: walk the ids along with them
	err := scanRows(ctx, q, `SELECT rowid FROM episode_text WHERE episode_text MATCH ?`, func(rows *sql.Rows) error {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		for next < len(idx.ids) && idx.ids[next] < id {
			next++
		}
		if next < len(idx.ids) && idx.ids[next] == id {
			b.set(int32(next))
		}
		return nil
	}, query)
	return b, err
}

// searchSet is the set of episodes a search as typed matches (what FTS5 matches for
// episode.TextQuery(text)): each word's set from the vocabulary, ANDed. Words that are not
// plain ASCII (whose folding is the tokenizer's to do), or a store without a vocabulary, go to
// FTS5 as a whole.
func (idx *explorerIndex) searchSet(ctx context.Context, q querier, text string) (bitset, error) {
	words, prefix := episode.TextWords(text)
	if idx.vocab == nil || slices.ContainsFunc(words, func(w string) bool { return !isASCIIWord(w) }) {
		return idx.matchSet(ctx, q, episode.TextQuery(text))
	}
	var sel bitset
	for i, w := range words {
		w = strings.ToLower(w)
		var b bitset
		var err error
		if i == len(words)-1 && prefix {
			b, err = idx.prefixSet(ctx, q, w)
		} else {
			b, err = idx.termSet(ctx, q, w)
		}
		if err != nil {
			return nil, err
		}
		if sel == nil {
			sel = slices.Clone(b) // b may be the index's own set
		} else {
			sel.and(b)
		}
	}
	return sel, nil
}

func isASCIIWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// termSet is the set of the episodes holding a term (the caller does not change it).
func (idx *explorerIndex) termSet(ctx context.Context, q querier, term string) (bitset, error) {
	if b, ok := idx.frequent[term]; ok {
		return b, nil
	}
	if _, ok := slices.BinarySearchFunc(idx.vocab, term, func(t vocabTerm, s string) int { return strings.Compare(t.term, s) }); !ok {
		return newBitset(len(idx.ids)), nil
	}
	return idx.matchSet(ctx, q, ftsPhrase(term))
}

// prefixSet is the set of the episodes holding a term that starts with prefix: the sets of its
// common terms ORed, and one FTS5 query for the rest.
func (idx *explorerIndex) prefixSet(ctx context.Context, q querier, prefix string) (bitset, error) {
	i, _ := slices.BinarySearchFunc(idx.vocab, prefix, func(t vocabTerm, s string) int { return strings.Compare(t.term, s) })
	out := newBitset(len(idx.ids))
	var rare []string
	for ; i < len(idx.vocab) && strings.HasPrefix(idx.vocab[i].term, prefix); i++ {
		if b, ok := idx.frequent[idx.vocab[i].term]; ok {
			out.or(b)
		} else {
			rare = append(rare, ftsPhrase(idx.vocab[i].term))
		}
	}
	if len(rare) == 0 {
		return out, nil
	}
	query := strings.Join(rare, " OR ")
	if len(rare) > rareTermsAtOnce {
		query = ftsPhrase(prefix) + "*"
	}
	b, err := idx.matchSet(ctx, q, query)
	if err != nil {
		return nil, err
	}
	out.or(b)
	return out, nil
}

// textSet is the set of episodes a search as typed matches (episode.TextQuery), from the cache
// of recent searches or made by searchSet.
func (idx *explorerIndex) textSet(ctx context.Context, q querier, text string) (bitset, error) {
	t, err := idx.search(ctx, q, text)
	if err != nil {
		return nil, err
	}
	return t.set, nil
}

// search is the cache entry of a search as typed, made (by searchSet) when it is not among the
// recent ones; the newest is kept last.
func (idx *explorerIndex) search(ctx context.Context, q querier, text string) (*textSet, error) {
	query := episode.TextQuery(text)
	idx.textMu.Lock()
	defer idx.textMu.Unlock()
	for i, t := range idx.texts {
		if t.query == query {
			idx.texts = append(slices.Delete(idx.texts, i, i+1), t)
			return t, nil
		}
	}
	b, err := idx.searchSet(ctx, q, text)
	if err != nil {
		return nil, err
	}
	if len(idx.texts) == textSetsKept {
		idx.texts = slices.Delete(idx.texts, 0, 1)
	}
	t := &textSet{query: query, set: b}
	idx.texts = append(idx.texts, t)
	return t, nil
}

// RelevanceLimit bounds the work of ranking a search by relevance: its matches times the words
// searched (FTS5's bm25 reads each word's positions in each match: about 1.4 us a match for
// one word and 4.5 us for two under modernc's SQLite, so 160,000 matches of a common word took
// 230 ms for a first page, and a word that common hardly ranks: its weight goes to nothing when
// more than half the episodes hold it). A search over the limit is listed in store order;
// RelevanceRanked tells the Explorer, which says so. 12,000: a first ranked page within about
// 20 ms at 200k episodes (BENCHMARKS.md).
var RelevanceLimit = 12000

// RelevanceRanked reports whether a listing of f by relevance is ranked (see RelevanceLimit),
// with the number of episodes the search alone matches. A filter without text is not ranked.
func (s *Store) RelevanceRanked(ctx context.Context, f episode.Filter) (bool, int, error) {
	return s.relevanceRanked(ctx, s.explorerIndex(ctx), f)
}

// relevanceRanked is RelevanceRanked with the memory index (nil: none) already looked up; the
// search's matches are counted by the index's cache of recent searches, or by FTS5.
func (s *Store) relevanceRanked(ctx context.Context, idx *explorerIndex, f episode.Filter) (bool, int, error) {
	words, _ := episode.TextWords(f.Text)
	if len(words) == 0 {
		return false, 0, nil
	}
	n := -1
	if idx != nil {
		if b, err := idx.textSet(ctx, s.db, f.Text); err == nil {
			n = b.count()
		}
	}
	if n < 0 {
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM episode_text WHERE episode_text MATCH ?`, episode.TextQuery(f.Text)).Scan(&n); err != nil {
			return false, 0, fmt.Errorf("search %q: %w", f.Text, err)
		}
	}
	return n*len(words) <= RelevanceLimit, n, nil
}

// relevanceOrder is the order a listing of f in order srt is read in: relevance becomes store
// order when the search is too common to rank (RelevanceLimit), or when there is no search.
func (s *Store) relevanceOrder(ctx context.Context, idx *explorerIndex, f episode.Filter, srt episode.Sort) (episode.Sort, error) {
	if srt.Key != episode.SortRelevance {
		return srt, nil
	}
	if episode.TextQuery(f.Text) == "" {
		return episode.Sort{Key: episode.SortID, Desc: srt.Desc}, nil
	}
	ranked, _, err := s.relevanceRanked(ctx, idx, f)
	if err != nil || ranked {
		return srt, err
	}
	return episode.Sort{Key: episode.SortID}, nil
}

// ranked lists every match of a search by FTS5's rank (best first; descending: worst first),
// ties in store order, as positions; kept with the search's set. The filter is applied to this
// list, so FTS5 ranks the search's matches once, whatever the filter (SQL would test each
// match against the filter's id sets, built again for every page).
func (idx *explorerIndex) ranked(ctx context.Context, q querier, text string, desc bool) ([]int32, error) {
	t, err := idx.search(ctx, q, text) // the entry the ranking is kept in
	if err != nil {
		return nil, err
	}
	idx.textMu.Lock()
	defer idx.textMu.Unlock()
	if t.ranked != nil && t.rankedDesc == desc {
		return t.ranked, nil
	}
	type hit struct {
		p    int32
		rank float64
	}
	var hits []hit
	err = scanRows(ctx, q, `SELECT rowid, rank FROM episode_text WHERE episode_text MATCH ? ORDER BY rank, rowid`, func(rows *sql.Rows) error {
		var id int64
		var h hit
		if err := rows.Scan(&id, &h.rank); err != nil {
			return err
		}
		p, ok := idx.position(id)
		if ok {
			h.p = p
			hits = append(hits, h)
		}
		return nil
	}, t.query)
	if err != nil {
		return nil, err
	}
	if desc { // rank descending, ties still in store order (as SQL's ORDER BY rank DESC, rowid)
		sort.SliceStable(hits, func(i, j int) bool { return hits[i].rank > hits[j].rank })
	}
	out := make([]int32, len(hits))
	for i, h := range hits {
		out[i] = h.p
	}
	t.ranked, t.rankedDesc = out, desc
	return out, nil
}
