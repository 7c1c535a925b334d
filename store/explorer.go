package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentdesk/agentdesk/engine/episode"
)

// The Explorer's queries. A filter becomes the intersection of index-only id sets (see
// selectionSQL); counts count it, pages scan the sort key's index in order against it, and
// statistics group covering indexes by it, so no query reads an episode row it does not return
// and none brings the selection into Go memory. At GUI Odyssey's full size (8,334 episodes) a
// count or a page costs a few milliseconds (BENCHMARKS.md). explorer_test.go checks every query
// shape's plan with EXPLAIN QUERY PLAN. These are the reader's queries (and a Store's until its
// memory index is ready); at hundreds of thousands of episodes a Store answers the Explorer
// from that index instead (explorer_index.go).

// descriptiveFacets are the facets shown in the listing and counted in the statistics.
var descriptiveFacets = []string{episode.FacetCategory, episode.FacetApp, episode.FacetDevice}

// selectionSQL is a query of the ids of the episodes f selects, or "" when f selects every
// episode: one index-only SELECT per condition (the source and length indexes of episodes, the
// facet, split-member and full-text indexes), intersected. No condition reads an episode's row,
// whose text and metadata would cost a page read per episode. The text condition is left out
// when withText is false (the relevance listing drives from the full-text index instead).
func selectionSQL(f episode.Filter, withText bool) (string, []any) {
	var sels []string
	var args []any
	if f.Source != "" {
		sels = append(sels, `SELECT id FROM episodes INDEXED BY episodes_by_source WHERE source = ?`)
		args = append(args, f.Source)
	}
	if f.MinSteps > 0 || f.MaxSteps > 0 {
		lo, hi := f.MinSteps, f.MaxSteps
		if hi <= 0 {
			hi = 1 << 31
		}
		sels = append(sels, `SELECT id FROM episodes INDEXED BY episodes_by_steps WHERE num_steps >= ? AND num_steps <= ?`)
		args = append(args, lo, hi)
	}
	if f.Split != "" {
		q := `SELECT episode_id AS id FROM split_members WHERE split_id = (SELECT id FROM splits WHERE name = ?)`
		args = append(args, f.Split)
		if f.Part != "" {
			q += ` AND part = ?`
			args = append(args, f.Part)
		}
		sels = append(sels, q)
	}
	for _, facet := range f.FacetNames() {
		values := f.Facets[facet]
		sels = append(sels, `SELECT episode_id AS id FROM episode_facets WHERE facet = ? AND value IN (`+placeholders(len(values))+`)`)
		args = append(args, facet)
		for _, v := range values {
			args = append(args, v)
		}
	}
	if q := episode.TextQuery(f.Text); q != "" && withText {
		sels = append(sels, `SELECT rowid AS id FROM episode_text WHERE episode_text MATCH ?`)
		args = append(args, q)
	}
	return strings.Join(sels, " INTERSECT "), args
}

// filterSQL is a WHERE condition (without the keyword; "1" when f selects everything) on the
// episodes aliased e, with its arguments; see selectionSQL.
func filterSQL(f episode.Filter, withText bool) (string, []any) {
	sel, args := selectionSQL(f, withText)
	if sel == "" {
		return "1", nil
	}
	return `e.id IN (` + sel + `)`, args
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// orderSQL is the ORDER BY clause of a listing by an episodes column; each key has an index
// that also holds the id, so the ordered ids are read from the index alone.
func orderSQL(s episode.Sort) string {
	dir := " ASC"
	if s.Desc {
		dir = " DESC"
	}
	switch s.Key {
	case episode.SortSource:
		return `e.source` + dir + `, e.id` + dir
	case episode.SortSteps:
		return `e.num_steps` + dir + `, e.id` + dir
	case episode.SortReward:
		return `e.total_reward` + dir + `, e.id` + dir
	case episode.SortCreated:
		return `e.created_at` + dir + `, e.id` + dir
	case episode.SortEpisode:
		return `e.external_id` + dir + `, e.id` + dir
	case episode.SortTask:
		return `e.task COLLATE NOCASE` + dir + `, e.id` + dir
	}
	return `e.id` + dir
}

// CountMatching counts the episodes f selects.
func (r reader) CountMatching(ctx context.Context, f episode.Filter) (int, error) {
	sel, args := selectionSQL(f, true)
	q := `SELECT count(*) FROM episodes`
	if sel != "" {
		q = `SELECT count(*) FROM (` + sel + `)`
	}
	var n int
	if err := r.q.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count episodes (%s): %w", f.Describe(), err)
	}
	return n, nil
}

// explorerPageSQL is the first half of a page: the ids of the page's episodes, in order, read
// from indexes only; the rows are read by id afterwards.
func explorerPageSQL(f episode.Filter, s episode.Sort) (string, []any) {
	dir := ""
	if s.Desc {
		dir = " DESC"
	}
	if q := episode.TextQuery(f.Text); q != "" && s.Key == episode.SortRelevance {
		// Best matches first (rank ascending); ties in store order.
		sel, args := selectionSQL(f, false)
		in := ""
		if sel != "" {
			// "+rowid": a test on each match, not a rowid lookup into the index per selected
			// id (which FTS5 would answer by running the whole query again for each).
			in = ` AND +rowid IN (` + sel + `)`
		}
		return `SELECT rowid FROM episode_text WHERE episode_text MATCH ?` + in + ` ORDER BY rank` + dir + `, rowid LIMIT ? OFFSET ?`,
			append([]any{q}, args...)
	}
	sel, args := selectionSQL(f, true)
	switch {
	case sel == "":
		return `SELECT e.id FROM episodes e ORDER BY ` + orderSQL(s) + ` LIMIT ? OFFSET ?`, nil
	case s.Key == episode.SortID || s.Key == episode.SortRelevance:
		return `SELECT id FROM (` + sel + `) ORDER BY id` + dir + ` LIMIT ? OFFSET ?`, args
	}
	// Read the sort key's index in order (it holds the key and the id: no episode row is read)
	// and test each id against the selection, stopping at the page. Left to itself the planner
	// would look every selected episode up by id (a page read each) and sort them: 40 times
	// slower for a split part of 7k episodes. For a small selection the ordered scan costs one
	// pass over an index of numbers, about a millisecond per 10k episodes.
	return `SELECT e.id FROM episodes e INDEXED BY ` + sortIndex[s.Key] + ` WHERE +e.id IN (` + sel + `) ORDER BY ` +
		orderSQL(s) + ` LIMIT ? OFFSET ?`, args
}

// sortIndex names the index of each sort key of the episodes table (migration 2).
var sortIndex = map[episode.SortKey]string{
	episode.SortSource:  "episodes_by_source",
	episode.SortSteps:   "episodes_by_steps",
	episode.SortReward:  "episodes_by_reward",
	episode.SortCreated: "episodes_by_created",
	episode.SortEpisode: "episodes_by_external_id",
	episode.SortTask:    "episodes_by_task",
}

// MatchingPage reads limit rows of the listing of f in order s, starting at offset, with each
// row's category, app and device facets, and its search matches marked when f has a text.
func (r reader) MatchingPage(ctx context.Context, f episode.Filter, s episode.Sort, offset, limit int) ([]episode.Row, error) {
	query, args := explorerPageSQL(f, s)
	ids, err := r.ids(ctx, query, append(args, limit, offset)...)
	if err != nil {
		return nil, fmt.Errorf("list episodes (%s): %w", f.Describe(), err)
	}
	return r.EpisodeRows(ctx, ids, f.Text)
}

// SortedIDs lists the ids of every episode f selects in order s: the whole listing, 8 bytes
// an episode, read with the same index-only query as a page. The Explorer reads it once per
// filter and sort and then reads each page by id (EpisodeRows), so that scrolling a filtered
// listing does not build the selection again for every page (at 100k episodes that made a page
// of a category take 27 ms at the median).
func (r reader) SortedIDs(ctx context.Context, f episode.Filter, s episode.Sort) ([]int64, error) {
	query, args := explorerPageSQL(f, s)
	ids, err := r.ids(ctx, query, append(args, -1, 0)...) // LIMIT -1: no limit
	if err != nil {
		return nil, fmt.Errorf("list episodes (%s): %w", f.Describe(), err)
	}
	return ids, nil
}

func (r reader) ids(ctx context.Context, query string, args ...any) ([]int64, error) {
	var ids []int64
	err := scanRows(ctx, r.q, query, func(rows *sql.Rows) error {
		var id int64
		err := rows.Scan(&id)
		ids = append(ids, id)
		return err
	}, args...)
	return ids, err
}

// EpisodeRows reads the listing rows of episodes by id, in the order given, with each row's
// category, app and device facets, and the matches of a search typed as text marked. Ids of
// episodes no longer stored are left out.
func (r reader) EpisodeRows(ctx context.Context, idList []int64, text string) ([]episode.Row, error) {
	ids := make([]any, len(idList))
	at := make(map[int64]int, len(idList))
	for i, id := range idList {
		ids[i] = id
		at[id] = i
	}
	out := make([]episode.Row, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	in := placeholders(len(ids))

	rows, err := r.q.QueryContext(ctx, `SELECT `+summaryColumns+` FROM episodes WHERE id IN (`+in+`)`, ids...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := 0
	for rows.Next() {
		sum, err := scanSummary(rows)
		if err != nil {
			return nil, err
		}
		out[at[sum.ID]].Summary = sum
		found++
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()

	if episode.TextQuery(text) != "" {
		for i := range out {
			out[i].TaskMarked = episode.MarkMatches(out[i].Task, text)
			out[i].InstructionMarked = episode.MarkMatches(out[i].Instruction, text)
			out[i].MetaTaskMarked = episode.MarkMatches(out[i].MetaTask, text)
		}
	}

	fargs := append([]any(nil), ids...)
	for _, f := range descriptiveFacets {
		fargs = append(fargs, f)
	}
	frows, err := r.q.QueryContext(ctx, `SELECT episode_id, facet, value FROM episode_facets
		WHERE episode_id IN (`+in+`) AND facet IN (`+placeholders(len(descriptiveFacets))+`)`, fargs...)
	if err != nil {
		return nil, err
	}
	defer frows.Close()
	for frows.Next() {
		var id int64
		var facet, value string
		if err := frows.Scan(&id, &facet, &value); err != nil {
			return nil, err
		}
		row := &out[at[id]]
		if row.Facets == nil {
			row.Facets = map[string][]string{}
		}
		row.Facets[facet] = append(row.Facets[facet], value)
	}
	if err := frows.Err(); err != nil {
		return nil, err
	}
	if found < len(out) { // deleted since the ids were listed
		out = slices.DeleteFunc(out, func(r episode.Row) bool { return r.ID == 0 })
	}
	return out, nil
}

// ForEachMatchingID calls fn with the ids of the episodes f selects, in store order, a page at a
// time, so exporting a large selection never holds it all. fn's error stops the walk.
func (r reader) ForEachMatchingID(ctx context.Context, f episode.Filter, fn func(ids []int64) error) error {
	where, args := filterSQL(f, true)
	const page = 500
	var last int64 = -1 << 62
	for {
		rows, err := r.q.QueryContext(ctx, `SELECT e.id FROM episodes e WHERE e.id > ? AND `+where+
			` ORDER BY e.id LIMIT ?`, append(append([]any{last}, args...), page)...)
		if err != nil {
			return err
		}
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		if err := fn(ids); err != nil {
			return err
		}
		if len(ids) < page {
			return nil
		}
		last = ids[len(ids)-1]
	}
}

// FacetValues lists the values a facet takes over the whole store with their episode counts,
// by value.
func (r reader) FacetValues(ctx context.Context, facet string) ([]episode.Count, error) {
	return r.counts(ctx, `SELECT value, count(*) FROM episode_facets WHERE facet = ? GROUP BY value ORDER BY value`, facet)
}

// SourceCounts lists the sources with their episode counts, by name.
func (r reader) SourceCounts(ctx context.Context) ([]episode.Count, error) {
	return r.counts(ctx, `SELECT source, count(*) FROM episodes GROUP BY source ORDER BY source`)
}

func (r reader) counts(ctx context.Context, query string, args ...any) ([]episode.Count, error) {
	rows, err := r.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []episode.Count
	for rows.Next() {
		var c episode.Count
		if err := rows.Scan(&c.Value, &c.N); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// MatchingStats describes the episodes f selects: their number and steps, the length
// distribution, steps per action kind, episodes per category, app and device, and how many
// are in each split part. It reads grouped counts only.
func (r reader) MatchingStats(ctx context.Context, f episode.Filter) (episode.Stats, error) {
	st := episode.Stats{Facets: map[string][]episode.Count{}}
	sel, args := selectionSQL(f, true)
	// in restricts a table's episode column to the selection; nothing when f is zero.
	in := func(col string) string {
		if sel == "" {
			return ""
		}
		return ` AND ` + col + ` IN (` + sel + `)`
	}
	withArgs := func(extra ...any) []any { return append(extra, args...) }

	// Each count reads one index that holds the episode id: lengths from episodes by length,
	// actions from steps by action kind, facets from their primary key.
	rows, err := r.q.QueryContext(ctx, `SELECT num_steps, count(*) FROM episodes INDEXED BY episodes_by_steps
		WHERE 1`+in("id")+` GROUP BY num_steps ORDER BY num_steps`, withArgs()...)
	if err != nil {
		return st, fmt.Errorf("statistics (%s): %w", f.Describe(), err)
	}
	for rows.Next() {
		var l episode.LengthCount
		if err := rows.Scan(&l.Steps, &l.Episodes); err != nil {
			rows.Close()
			return st, err
		}
		st.Lengths = append(st.Lengths, l)
		st.Episodes += l.Episodes
		st.Steps += l.Steps * l.Episodes
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return st, err
	}
	if st.Episodes == 0 {
		return st, nil
	}

	// A large selection's steps are counted by a pass over the action-kind index (kind and
	// episode id, no step row read); a small one's by looking its episodes' steps up.
	steps := `steps INDEXED BY steps_by_action_kind`
	if sel != "" && st.Steps < 20000 {
		steps = `steps`
	}
	if st.Actions, err = r.counts(ctx, `SELECT action_kind, count(*) FROM `+steps+`
		WHERE action_kind <> ''`+in("episode_id")+` GROUP BY action_kind`, withArgs()...); err != nil {
		return st, err
	}
	byCount(st.Actions)

	fargs := make([]any, 0, len(descriptiveFacets))
	for _, f := range descriptiveFacets {
		fargs = append(fargs, f)
	}
	rows, err = r.q.QueryContext(ctx, `SELECT facet, value, count(*) FROM episode_facets
		WHERE facet IN (`+placeholders(len(descriptiveFacets))+`)`+in("episode_id")+` GROUP BY facet, value`, withArgs(fargs...)...)
	if err != nil {
		return st, err
	}
	for rows.Next() {
		var facet string
		var c episode.Count
		if err := rows.Scan(&facet, &c.Value, &c.N); err != nil {
			rows.Close()
			return st, err
		}
		st.Facets[facet] = append(st.Facets[facet], c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return st, err
	}
	for _, cs := range st.Facets {
		byCount(cs)
	}

	rows, err = r.q.QueryContext(ctx, `SELECT s.name, m.part, count(*) FROM split_members m
		JOIN splits s ON s.id = m.split_id WHERE 1`+in("m.episode_id")+` GROUP BY m.split_id, m.part ORDER BY s.name, m.part`, withArgs()...)
	if err != nil {
		return st, err
	}
	defer rows.Close()
	for rows.Next() {
		var c episode.SplitCount
		if err := rows.Scan(&c.Split, &c.Part, &c.N); err != nil {
			return st, err
		}
		st.Splits = append(st.Splits, c)
	}
	return st, rows.Err()
}

// byCount orders counts most frequent first, then by value.
func byCount(cs []episode.Count) {
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].N != cs[j].N {
			return cs[i].N > cs[j].N
		}
		return cs[i].Value < cs[j].Value
	})
}

// SplitSummaries lists every split with the size of each part, by name.
func (r reader) SplitSummaries(ctx context.Context) ([]episode.SplitSummary, error) {
	infos, err := r.Splits(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]episode.SplitSummary, 0, len(infos))
	for _, in := range infos {
		s := episode.SplitSummary{Name: in.Name, Kind: in.Kind, Description: in.Description}
		for part, n := range in.PartSizes {
			s.Parts = append(s.Parts, episode.Count{Value: part, N: n})
		}
		sort.Slice(s.Parts, func(i, j int) bool { return episode.PartBefore(s.Parts[i].Value, s.Parts[j].Value) })
		out = append(out, s)
	}
	return out, nil
}

// ErrSplitExists is returned when a new split would take the name of an existing one.
var ErrSplitExists = errors.New("a split of that name exists")

// CreateSplitFromFilter stores a new user split whose part holds the episodes f selects, in
// store order, and returns their number. The membership is copied inside SQLite, so no
// episode is read into memory. An existing split of the same name is left alone
// (ErrSplitExists); a filter that selects nothing creates nothing.
func (s *Store) CreateSplitFromFilter(ctx context.Context, name, part string, f episode.Filter) (int, error) {
	name, part = strings.TrimSpace(name), strings.TrimSpace(part)
	if name == "" || part == "" {
		return 0, errors.New("a split needs a name and a part name")
	}
	var n int
	err := s.Update(ctx, func(tx *Tx) error {
		id, err := tx.newUserSplit(ctx, name, "from the Explorer filter: "+f.Describe())
		if err != nil {
			return err
		}
		where, args := filterSQL(f, true)
		res, err := tx.tx.ExecContext(ctx, `INSERT INTO split_members (split_id, episode_id, part, position)
			SELECT ?, id, ?, row_number() OVER (ORDER BY id) - 1 FROM (SELECT e.id FROM episodes e WHERE `+where+`)`,
			append([]any{id, part}, args...)...)
		if err != nil {
			return err
		}
		n64, _ := res.RowsAffected()
		if n = int(n64); n == 0 {
			return fmt.Errorf("split %q: the filter (%s) selects no episode", name, f.Describe())
		}
		return nil
	})
	return n, err
}

// CreateRandomSplit stores a new user split of the episodes f selects into "train" and "test"
// parts: a seeded shuffle puts round(ratio·n) of them in train (episode.RandomParts), so the
// same selection, ratio and seed always give the same split. It returns the part sizes.
func (s *Store) CreateRandomSplit(ctx context.Context, name string, f episode.Filter, trainRatio float64, seed uint64) (train, test int, err error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return 0, 0, errors.New("a split needs a name")
	}
	if trainRatio < 0 || trainRatio > 1 {
		return 0, 0, fmt.Errorf("train ratio %g is not between 0 and 1", trainRatio)
	}
	err = s.Update(ctx, func(tx *Tx) error {
		var ids []int64 // ids only: 8 bytes an episode
		if err := tx.ForEachMatchingID(ctx, f, func(page []int64) error { ids = append(ids, page...); return nil }); err != nil {
			return err
		}
		if len(ids) == 0 {
			return fmt.Errorf("split %q: the filter (%s) selects no episode", name, f.Describe())
		}
		desc := fmt.Sprintf("random %.0f:%.0f split (seed %d) of %s", trainRatio*100, (1-trainRatio)*100, seed, f.Describe())
		id, err := tx.newUserSplit(ctx, name, desc)
		if err != nil {
			return err
		}
		trainIDs, testIDs := episode.RandomParts(ids, trainRatio, seed)
		train, test = len(trainIDs), len(testIDs)
		stmt, err := tx.tx.PrepareContext(ctx, `INSERT INTO split_members (split_id, episode_id, part, position) VALUES (?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for part, ids := range map[string][]int64{"train": trainIDs, "test": testIDs} {
			for pos, eid := range ids {
				if _, err := stmt.ExecContext(ctx, id, eid, part, pos); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return train, test, err
}

func (t *Tx) newUserSplit(ctx context.Context, name, desc string) (int64, error) {
	var id int64
	err := t.tx.QueryRowContext(ctx, `INSERT INTO splits (name, kind, description) VALUES (?, ?, ?)
		ON CONFLICT (name) DO NOTHING RETURNING id`, name, episode.SplitUser, desc).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("split %q: %w", name, ErrSplitExists)
	}
	return id, err
}

// DeleteUserSplit removes a split made in the app. Official splits (imported with a dataset)
// are refused: they are re-created only by importing the dataset again.
func (s *Store) DeleteUserSplit(ctx context.Context, name string) error {
	return s.Update(ctx, func(tx *Tx) error {
		var kind string
		err := tx.tx.QueryRowContext(ctx, `SELECT kind FROM splits WHERE name = ?`, name).Scan(&kind)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("split %q: %w", name, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if kind != episode.SplitUser {
			return fmt.Errorf("split %q came with a dataset; only splits made here can be deleted", name)
		}
		return tx.DeleteSplit(ctx, name)
	})
}

// OptimizeQueries refreshes the statistics SQLite's planner uses to pick an index (ANALYZE,
// sampled, only where tables changed a lot since the last time). Without them a filter such as
// "source = odyssey" looks selective when it selects everything, and the listing sorts what an
// index would have read in order. Cheap when nothing changed; the Explorer calls it when it opens
// and after an import.
func (s *Store) OptimizeQueries(ctx context.Context) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA analysis_limit = 2000`); err != nil {
		return err
	}
	var analyzed int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_stat1'`).Scan(&analyzed); err != nil {
		return err
	}
	stmt := `PRAGMA optimize = 0x10002` // every table, not only the ones this connection used
	if analyzed == 0 {
		stmt = `ANALYZE` // never analyzed: optimize would not look at tables without statistics
	}
	_, err = conn.ExecContext(ctx, stmt)
	conn.ExecContext(ctx, `PRAGMA analysis_limit = 0`)
	return err
}
