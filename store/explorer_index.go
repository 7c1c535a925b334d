package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/agentdesk/agentdesk/engine/episode"
)

// The Explorer's memory index. At the size of the largest GUI-agent datasets (hundreds of
// thousands of episodes) SQL answers a filter by building each condition's id set in a temporary
// B-tree and a sorted page by walking the sort key's index against it: 50 to 150 ms at 200k
// episodes for a selective filter. The index holds what the Explorer filters and sorts by, read
// once from the store's own indexes (no episode row is read): the episode ids, their lengths,
// one bit set per source, facet value and split part, and the order of every sort key. A count
// is then a popcount of ANDed bit sets and a sorted page a walk along the key's order testing
// bits (well under a millisecond at 200k). It costs about 6 bytes an episode a sort key and one
// bit an episode per value: about 12 MB at 200k episodes.
//
// The index is used only while it describes the store: every query first reads SQLite's
// data_version on a connection of its own, which changes when any other connection (this
// process's writers, another process) commits; then the index is dropped and made again in the
// background, and queries go to SQL until it is ready. Full-text conditions come from FTS5 (the
// matching ids become a bit set, kept for the last few searches), and a listing by relevance
// is ranked by FTS5 as before.

// bitset is a set of episode positions (indexes into explorerIndex.ids).
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) set(p int32)      { b[p>>6] |= 1 << (uint(p) & 63) }
func (b bitset) has(p int32) bool { return b[p>>6]&(1<<(uint(p)&63)) != 0 }

func (b bitset) and(o bitset) {
	for i := range b {
		b[i] &= o[i]
	}
}

func (b bitset) or(o bitset) {
	for i := range b {
		b[i] |= o[i]
	}
}

func (b bitset) count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// posSet is a set of positions kept as a bit set when it is large and as a sorted list when it
// holds fewer than one position in 32 (where the list is the smaller): at 200k episodes a
// facet's hundreds of rare values would otherwise cost 25 KB each.
type posSet struct {
	bits bitset
	list []int32
}

// add adds p, which is larger than every position added before.
func (s *posSet) add(p int32) {
	if s.bits != nil {
		s.bits.set(p)
		return
	}
	s.list = append(s.list, p)
}

// settle turns the list into a bit set when that is smaller, for a set of n positions.
func (s *posSet) settle(n int) {
	if s.bits == nil && len(s.list) >= n/32 {
		s.bits = newBitset(n)
		for _, p := range s.list {
			s.bits.set(p)
		}
		s.list = nil
	} else if s.list != nil {
		s.list = slices.Clip(s.list)
	}
}

// orInto adds the set's positions to b.
func (s *posSet) orInto(b bitset) {
	if s == nil {
		return
	}
	if s.bits != nil {
		b.or(s.bits)
		return
	}
	for _, p := range s.list {
		b.set(p)
	}
}

// explorerIndex is one consistent copy (see the comment above).
type explorerIndex struct {
	version int64   // the data_version it was read at
	ids     []int64 // every episode id, ascending: a position is an index here
	steps   []int32 // num_steps by position
	sources map[string]*posSet
	facets  map[string]map[string]*posSet // facet → value → episodes
	splits  map[string]map[string]*posSet // split → part → members; "" → every member
	orders  map[episode.SortKey][]int32   // positions by the key ascending, ties by id ascending

	// The full-text index's vocabulary (by term), and the episodes of its most common terms
	// (see frequentTerm): a search for a word that most episodes hold is a bit set here rather
	// than a walk over its long list in FTS5 (a prefix query, as every search's last word is,
	// reads 160k matches in 40 ms; 60 ms more to hand their ids to Go).
	vocab    []vocabTerm
	frequent map[string]bitset

	textMu sync.Mutex
	texts  []textSet // the last searches, newest last
}

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

// explorerIndexer makes and hands out the index of one Store.
type explorerIndexer struct {
	mu       sync.Mutex
	enabled  bool
	conn     *sql.Conn // reads data_version; never writes
	index    *explorerIndex
	building bool
	done     chan struct{} // closed when the running build ends
	stop     context.CancelFunc
	lastErr  error
}

// PrepareExplorer makes the Explorer's memory index now and keeps it up to date from then on
// (in the background after changes). The Explorer calls StartExplorerIndex instead, which does
// not wait; tests and benchmarks call this one to measure the queries themselves.
func (s *Store) PrepareExplorer(ctx context.Context) error {
	x := &s.explorer
	x.mu.Lock()
	x.enabled = true
	x.mu.Unlock()
	for {
		if idx := s.explorerIndex(ctx); idx != nil {
			return nil
		}
		x.mu.Lock()
		done, err := x.done, x.lastErr
		x.mu.Unlock()
		if done == nil {
			if err != nil {
				return err
			}
			continue
		}
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
		x.mu.Lock()
		err = x.lastErr
		x.mu.Unlock()
		if err != nil {
			return err
		}
	}
}

// StartExplorerIndex turns the memory index on and starts making it in the background; until it
// is ready, and while it is made again after a change, queries are answered by SQL.
func (s *Store) StartExplorerIndex() {
	x := &s.explorer
	x.mu.Lock()
	x.enabled = true
	x.mu.Unlock()
	s.explorerIndex(context.Background())
}

// explorerIndex returns the index when it is enabled and describes the store as it is now, or
// nil (starting a build when none runs).
func (s *Store) explorerIndex(ctx context.Context) *explorerIndex {
	x := &s.explorer
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.enabled {
		return nil
	}
	v, err := x.dataVersion(ctx, s.db)
	if err != nil {
		x.lastErr = err
		return nil
	}
	if x.index != nil && x.index.version == v {
		return x.index
	}
	x.index = nil
	if !x.building {
		x.building, x.lastErr = true, nil
		done := make(chan struct{})
		bctx, cancel := context.WithCancel(context.Background())
		x.done, x.stop = done, cancel
		go func() {
			defer close(done)
			defer cancel()
			idx, err := s.buildExplorerIndex(bctx, v)
			x.mu.Lock()
			defer x.mu.Unlock()
			x.building = false
			x.lastErr = err
			if err != nil {
				return
			}
			if now, verr := x.dataVersion(bctx, s.db); verr == nil && now == v {
				x.index = idx
			} // else changed while it was read: the next query makes it again
		}()
	}
	return nil
}

// dataVersion reads PRAGMA data_version on the indexer's own connection (x.mu held).
func (x *explorerIndexer) dataVersion(ctx context.Context, db *sql.DB) (int64, error) {
	if x.conn == nil {
		c, err := db.Conn(ctx)
		if err != nil {
			return 0, err
		}
		x.conn = c
	}
	var v int64
	err := x.conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v)
	return v, err
}

// close stops a running build and releases the connection (before the pool is closed).
func (x *explorerIndexer) close() {
	x.mu.Lock()
	stop, done := x.stop, x.done
	x.enabled = false
	x.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.conn != nil {
		x.conn.Close()
		x.conn = nil
	}
	x.index = nil
}

// buildExplorerIndex reads the index from the store's indexes, all in one read transaction so
// that its parts agree.
func (s *Store) buildExplorerIndex(ctx context.Context, version int64) (*explorerIndex, error) {
	// A deferred transaction of its own (the pool's BEGIN takes the write lock: _txlock).
	tx, err := s.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Close()
	if _, err := tx.ExecContext(ctx, `BEGIN`); err != nil {
		return nil, err
	}
	defer tx.ExecContext(context.Background(), `ROLLBACK`)
	idx := &explorerIndex{version: version, sources: map[string]*posSet{}, facets: map[string]map[string]*posSet{},
		splits: map[string]map[string]*posSet{}, orders: map[episode.SortKey][]int32{}}

	// Ids and sources from the source index (it holds the id).
	type idSource struct {
		id     int64
		source string
	}
	var all []idSource
	if err := scanRows(ctx, tx, `SELECT id, source FROM episodes INDEXED BY episodes_by_source`, func(rows *sql.Rows) error {
		var r idSource
		if err := rows.Scan(&r.id, &r.source); err != nil {
			return err
		}
		all = append(all, r)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("explorer index: sources: %w", err)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].id < all[j].id })
	n := len(all)
	idx.ids = make([]int64, n)
	for i, r := range all {
		idx.ids[i] = r.id
		b := idx.sources[r.source]
		if b == nil {
			b = &posSet{}
			idx.sources[r.source] = b
		}
		b.add(int32(i))
	}
	all = nil
	for _, b := range idx.sources {
		b.settle(n)
	}

	// Every sort order, from the key's index; the steps order also gives the lengths.
	idx.steps = make([]int32, n)
	for key, index := range sortIndex {
		order := make([]int32, 0, n)
		q := `SELECT e.id, e.num_steps FROM episodes e INDEXED BY ` + index + ` ORDER BY ` + orderSQL(episode.Sort{Key: key})
		if key != episode.SortSteps {
			q = `SELECT e.id, 0 FROM episodes e INDEXED BY ` + index + ` ORDER BY ` + orderSQL(episode.Sort{Key: key})
		}
		if err := scanRows(ctx, tx, q, func(rows *sql.Rows) error {
			var id int64
			var steps int32
			if err := rows.Scan(&id, &steps); err != nil {
				return err
			}
			p, ok := idx.position(id)
			if !ok {
				return fmt.Errorf("episode %d is in %s but not in episodes_by_source", id, index)
			}
			order = append(order, p)
			if key == episode.SortSteps {
				idx.steps[p] = steps
			}
			return nil
		}); err != nil {
			return nil, fmt.Errorf("explorer index: order by %s: %w", index, err)
		}
		if len(order) != n {
			return nil, fmt.Errorf("explorer index: %s has %d episodes, episodes_by_source %d", index, len(order), n)
		}
		idx.orders[key] = order
	}

	// Facets, from their primary key (facet, value, episode_id).
	var curFacet, curValue string
	var cur *posSet
	if err := scanRows(ctx, tx, `SELECT facet, value, episode_id FROM episode_facets`, func(rows *sql.Rows) error {
		var facet, value string
		var id int64
		if err := rows.Scan(&facet, &value, &id); err != nil {
			return err
		}
		if cur == nil || facet != curFacet || value != curValue {
			curFacet, curValue = facet, value
			if cur != nil {
				cur.settle(n)
			}
			m := idx.facets[facet]
			if m == nil {
				m = map[string]*posSet{}
				idx.facets[facet] = m
			}
			if cur = m[value]; cur == nil {
				cur = &posSet{}
				m[value] = cur
			}
		}
		if p, ok := idx.position(id); ok {
			cur.add(p) // in episode id order: the primary key's
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("explorer index: facets: %w", err)
	}
	if cur != nil {
		cur.settle(n)
	}

	// Split parts.
	if err := scanRows(ctx, tx, `SELECT s.name, m.part, m.episode_id FROM split_members m JOIN splits s ON s.id = m.split_id`, func(rows *sql.Rows) error {
		var name, part string
		var id int64
		if err := rows.Scan(&name, &part, &id); err != nil {
			return err
		}
		m := idx.splits[name]
		if m == nil {
			m = map[string]*posSet{"": {}}
			idx.splits[name] = m
		}
		b := m[part]
		if b == nil {
			b = &posSet{}
			m[part] = b
		}
		if p, ok := idx.position(id); ok { // in episode id order within a split: its primary key's
			b.add(p)
			m[""].add(p)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("explorer index: splits: %w", err)
	}
	for _, m := range idx.splits {
		for _, b := range m {
			b.settle(n)
		}
	}
	if err := idx.readVocabulary(ctx, tx); err != nil {
		return nil, fmt.Errorf("explorer index: vocabulary: %w", err)
	}
	return idx, nil
}

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
	if !slices.IsSortedFunc(idx.vocab, func(a, b vocabTerm) int { return strings.Compare(a.term, b.term) }) {
		slices.SortFunc(idx.vocab, func(a, b vocabTerm) int { return strings.Compare(a.term, b.term) })
	}
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
	err := scanRows(ctx, q, `SELECT rowid FROM episode_text WHERE episode_text MATCH '`+sqlQuote(query)+`'`, func(rows *sql.Rows) error {
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
	})
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
			sel = newBitset(len(idx.ids))
			copy(sel, b)
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

func scanRows(ctx context.Context, q querier, query string, fn func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// position finds an episode id's position.
func (idx *explorerIndex) position(id int64) (int32, bool) {
	i, ok := slices64Search(idx.ids, id)
	return int32(i), ok
}

func slices64Search(xs []int64, x int64) (int, bool) {
	i := sort.Search(len(xs), func(i int) bool { return xs[i] >= x })
	return i, i < len(xs) && xs[i] == x
}

// selection is the set f selects, or nil when f selects every episode. The full-text condition
// is included when withText is set (from FTS5, through the cache of recent searches).
func (idx *explorerIndex) selection(ctx context.Context, q querier, f episode.Filter, withText bool) (bitset, error) {
	n := len(idx.ids)
	var sel bitset
	and := func(b bitset) {
		if sel == nil {
			sel = b
			return
		}
		sel.and(b)
	}
	one := func(s *posSet) bitset { // a copy as a bit set; an unknown value (nil): nothing
		b := newBitset(n)
		s.orInto(b)
		return b
	}
	if f.Source != "" {
		and(one(idx.sources[f.Source]))
	}
	if f.Split != "" {
		and(one(idx.splits[f.Split][f.Part]))
	}
	for _, facet := range f.FacetNames() {
		u := newBitset(n)
		for _, v := range f.Facets[facet] {
			idx.facets[facet][v].orInto(u)
		}
		and(u)
	}
	if f.MinSteps > 0 || f.MaxSteps > 0 {
		lo, hi := int32(f.MinSteps), int32(f.MaxSteps)
		if f.MaxSteps <= 0 || f.MaxSteps > 1<<31-1 {
			hi = 1<<31 - 1
		}
		b := newBitset(n)
		for p, s := range idx.steps {
			if s >= lo && s <= hi {
				b.set(int32(p))
			}
		}
		and(b)
	}
	if episode.TextQuery(f.Text) != "" && withText {
		b, err := idx.textSet(ctx, q, f.Text)
		if err != nil {
			return nil, err
		}
		if sel == nil {
			sel = newBitset(n)
			copy(sel, b) // the cached set stays as it is
		} else {
			sel.and(b)
		}
	}
	return sel, nil
}

// textSet is the set of episodes a search as typed matches (episode.TextQuery), from the cache
// of recent searches or made by searchSet.
func (idx *explorerIndex) textSet(ctx context.Context, q querier, text string) (bitset, error) {
	query := episode.TextQuery(text)
	idx.textMu.Lock()
	defer idx.textMu.Unlock()
	for i, t := range idx.texts {
		if t.query == query {
			idx.texts = append(append(idx.texts[:i:i], idx.texts[i+1:]...), t)
			return t.set, nil
		}
	}
	b, err := idx.searchSet(ctx, q, text)
	if err != nil {
		return nil, err
	}
	if len(idx.texts) == textSetsKept {
		idx.texts = idx.texts[1:]
	}
	idx.texts = append(idx.texts, textSet{query: query, set: b})
	return b, nil
}

// sqlQuote doubles the single quotes of s for a string literal.
func sqlQuote(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		out = append(out, s[i])
		if s[i] == '\'' {
			out = append(out, '\'')
		}
	}
	return string(out)
}

// count counts a selection.
func (idx *explorerIndex) count(sel bitset) int {
	if sel == nil {
		return len(idx.ids)
	}
	return sel.count()
}

// listing is the ids of the selection in order s from offset, at most limit of them (limit < 0:
// all). Relevance is not an order of the index (see MatchingPage).
func (idx *explorerIndex) listing(sel bitset, s episode.Sort, offset, limit int) []int64 {
	n := len(idx.ids)
	order := idx.orders[s.Key] // nil for the store order
	at := func(i int) int32 {
		if order == nil {
			return int32(i)
		}
		return order[i]
	}
	var out []int64
	if limit > 0 {
		out = make([]int64, 0, limit)
	}
	for k := 0; k < n; k++ {
		i := k
		if s.Desc {
			i = n - 1 - k
		}
		p := at(i)
		if sel != nil && !sel.has(p) {
			continue
		}
		if offset > 0 {
			offset--
			continue
		}
		out = append(out, idx.ids[p])
		if limit >= 0 && len(out) == limit {
			break
		}
	}
	return out
}

// errNoIndex: the memory index is not there (not enabled, being made); SQL answers instead.
var errNoIndex = errors.New("no explorer index")

// CountMatching counts the episodes f selects (the memory index when it is ready, else SQL).
func (s *Store) CountMatching(ctx context.Context, f episode.Filter) (int, error) {
	if idx := s.explorerIndex(ctx); idx != nil {
		sel, err := idx.selection(ctx, s.db, f, true)
		if err == nil {
			return idx.count(sel), nil
		}
		if ctx.Err() != nil {
			return 0, fmt.Errorf("count episodes (%s): %w", f.Describe(), err)
		}
	}
	return s.reader.CountMatching(ctx, f)
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
	tq := episode.TextQuery(f.Text)
	if tq == "" {
		return false, 0, nil
	}
	n, err := s.textMatches(ctx, f.Text)
	if err != nil {
		return false, 0, fmt.Errorf("search %q: %w", f.Text, err)
	}
	words, _ := episode.TextWords(f.Text)
	return n*len(words) <= RelevanceLimit, n, nil
}

// textMatches counts the episodes an FTS5 query matches (from the memory index's cache of
// recent searches when it is ready).
func (s *Store) textMatches(ctx context.Context, text string) (int, error) {
	if idx := s.explorerIndex(ctx); idx != nil {
		if b, err := idx.textSet(ctx, s.db, text); err == nil {
			return b.count(), nil
		}
	}
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM episode_text WHERE episode_text MATCH ?`, episode.TextQuery(text)).Scan(&n)
	return n, err
}

// relevanceOrder is the order a listing of f in order srt is read in: relevance becomes store
// order when the search is too common to rank (RelevanceLimit).
func (s *Store) relevanceOrder(ctx context.Context, f episode.Filter, srt episode.Sort) (episode.Sort, error) {
	if srt.Key != episode.SortRelevance || episode.TextQuery(f.Text) == "" {
		return srt, nil
	}
	ranked, _, err := s.RelevanceRanked(ctx, f)
	if err != nil || ranked {
		return srt, err
	}
	return episode.Sort{Key: episode.SortID}, nil
}

// MatchingPage reads a page of the listing of f in order s (see reader.MatchingPage); the ids
// come from the memory index when it is ready, except for a search listed by relevance.
func (s *Store) MatchingPage(ctx context.Context, f episode.Filter, srt episode.Sort, offset, limit int) ([]episode.Row, error) {
	srt, err := s.relevanceOrder(ctx, f, srt)
	if err != nil {
		return nil, err
	}
	ids, err := s.indexedListing(ctx, f, srt, offset, limit)
	if err == errNoIndex {
		return s.reader.MatchingPage(ctx, f, srt, offset, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("list episodes (%s): %w", f.Describe(), err)
	}
	return s.EpisodeRows(ctx, ids, f.Text)
}

// SortedIDs lists the whole listing of f in order s (see reader.SortedIDs).
func (s *Store) SortedIDs(ctx context.Context, f episode.Filter, srt episode.Sort) ([]int64, error) {
	srt, err := s.relevanceOrder(ctx, f, srt)
	if err != nil {
		return nil, err
	}
	ids, err := s.indexedListing(ctx, f, srt, 0, -1)
	if err == errNoIndex {
		return s.reader.SortedIDs(ctx, f, srt)
	}
	if err != nil {
		return nil, fmt.Errorf("list episodes (%s): %w", f.Describe(), err)
	}
	return ids, nil
}

func (s *Store) indexedListing(ctx context.Context, f episode.Filter, srt episode.Sort, offset, limit int) ([]int64, error) {
	search := episode.TextQuery(f.Text) != ""
	if srt.Key == episode.SortRelevance && !search {
		srt.Key = episode.SortID
	}
	idx := s.explorerIndex(ctx)
	if idx == nil {
		return nil, errNoIndex
	}
	sel, err := idx.selection(ctx, s.db, f, true)
	if err != nil {
		return nil, err
	}
	if srt.Key == episode.SortRelevance {
		ranked, err := idx.ranked(ctx, s.db, f.Text, srt.Desc)
		if err != nil {
			return nil, err
		}
		var out []int64
		for _, p := range ranked {
			if sel != nil && !sel.has(p) {
				continue
			}
			if offset > 0 {
				offset--
				continue
			}
			out = append(out, idx.ids[p])
			if limit >= 0 && len(out) == limit {
				break
			}
		}
		return out, nil
	}
	return idx.listing(sel, srt, offset, limit), nil
}

// ranked lists every match of a search by FTS5's rank (best first; descending: worst first),
// ties in store order, as positions; kept with the search's set. The filter is applied to this
// list, so FTS5 ranks the search's matches once, whatever the filter (SQL would test each
// match against the filter's id sets, built again for every page).
func (idx *explorerIndex) ranked(ctx context.Context, q querier, text string, desc bool) ([]int32, error) {
	if _, err := idx.textSet(ctx, q, text); err != nil { // the entry the ranking is kept in
		return nil, err
	}
	query := episode.TextQuery(text)
	idx.textMu.Lock()
	defer idx.textMu.Unlock()
	var t *textSet
	for i := range idx.texts {
		if idx.texts[i].query == query {
			t = &idx.texts[i]
		}
	}
	if t != nil && t.rankedDesc == desc && t.ranked != nil {
		return t.ranked, nil
	}
	type hit struct {
		p    int32
		rank float64
	}
	var hits []hit
	err := scanRows(ctx, q, `SELECT rowid, rank FROM episode_text WHERE episode_text MATCH '`+sqlQuote(query)+`' ORDER BY rank, rowid`, func(rows *sql.Rows) error {
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
	})
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
	if t != nil {
		t.ranked, t.rankedDesc = out, desc
	}
	return out, nil
}
