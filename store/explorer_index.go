package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"github.com/agentdesk/agentdesk/engine/episode"
)

// The Explorer's memory index. At the size of the largest GUI-agent datasets (hundreds of
// thousands of episodes) SQL answers a filter by building each condition's id set in a temporary
// B-tree and a sorted page by walking the sort key's index against it: 84 ms at p95 at 200k
// episodes, and a search's last word, a prefix, costs FTS5 a merge of every matching term's
// list. The index holds what the Explorer filters, sorts and searches by, read once from the
// store's own indexes (no episode row is read): the episode ids and lengths, a set per source,
// facet value and split part, the order of each sort key (read when first used), and the
// full-text vocabulary with the episodes of its most common terms. A count is then a popcount
// of ANDed bit sets and a sorted page a walk along the key's order testing bits: 2 ms at p95 at
// 200k, 5 ms at a million (BENCHMARKS.md). It takes 11 to 15 MB at 200k episodes and up to 72 MB at a million.
//
// The index is used only while it describes the store: every query first reads SQLite's
// data_version on a connection of its own, which changes when any other connection (this
// process's writers, another process) commits; then the index is dropped and made again in the
// background, and queries go to SQL until it is ready.
//
// This file holds the index and how it is made; explorer_index_query.go answers the Explorer's
// queries from it, and explorer_index_text.go its searches.

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

// setIn is m's set for key, added empty when m has none.
func setIn(m map[string]*posSet, key string) *posSet {
	s := m[key]
	if s == nil {
		s = &posSet{}
		m[key] = s
	}
	return s
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
	// orders holds positions by a sort key ascending, ties by id ascending: the steps order
	// from the start, the others once used (Store.sortOrder); loading marks those being read.
	ordersMu sync.Mutex
	orders   map[episode.SortKey][]int32
	loading  map[episode.SortKey]bool

	// The full-text index's vocabulary (by term), and the episodes of its most common terms
	// (see frequentTerm): a search for a word that most episodes hold is a bit set here rather
	// than a walk over its long list in FTS5 (a prefix query, as every search's last word is,
	// reads 160k matches in 40 ms; 60 ms more to hand their ids to Go).
	vocab    []vocabTerm
	frequent map[string]bitset

	textMu sync.Mutex
	texts  []*textSet // the last searches, newest last

	// actionSteps counts steps per action kind and episode, read when the statistics are
	// first asked for (explorer_index_stats.go).
	actionsMu   sync.Mutex
	actionSteps map[string][]posCount
}

// explorerIndexer makes and hands out the index of one Store.
type explorerIndexer struct {
	mu       sync.Mutex
	enabled  bool
	conn     *sql.Conn // reads data_version; never writes
	index    *explorerIndex
	building bool
	done     chan struct{} // closed when the running build ends
	lastErr  error

	// The background work (builds, sort orders read when first used) runs under ctx, which
	// close cancels before waiting for it (bg).
	bg     sync.WaitGroup
	ctx    context.Context
	cancel context.CancelFunc
}

// goBackground runs fn on its own goroutine under the indexer's context, unless the indexer is
// closed (x.mu held).
func (x *explorerIndexer) goBackground(fn func(ctx context.Context)) bool {
	if !x.enabled {
		return false
	}
	if x.ctx == nil {
		x.ctx, x.cancel = context.WithCancel(context.Background())
	}
	ctx := x.ctx
	x.bg.Add(1)
	go func() {
		defer x.bg.Done()
		fn(ctx)
	}()
	return true
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
			// every sort order now, as the Explorer reads each when first used
			for key := range sortIndex {
				if err := s.readOrderNow(ctx, idx, key); err != nil {
					return err
				}
			}
			return nil
		}
		// no index: a build runs (or reading data_version failed, or the store is closing)
		x.mu.Lock()
		done, err := x.done, x.lastErr
		x.mu.Unlock()
		if err != nil {
			return err
		}
		if done == nil {
			return errors.New("explorer index: the store is closed")
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
		done := make(chan struct{})
		x.building, x.lastErr, x.done = true, nil, done
		x.goBackground(func(bctx context.Context) {
			defer close(done)
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
		})
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

// close stops the background work and releases the connection (before the pool is closed).
func (x *explorerIndexer) close() {
	x.mu.Lock()
	x.enabled = false
	if x.cancel != nil {
		x.cancel()
		x.ctx, x.cancel = nil, nil
	}
	x.mu.Unlock()
	x.bg.Wait()
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
		splits: map[string]map[string]*posSet{}, orders: map[episode.SortKey][]int32{}, loading: map[episode.SortKey]bool{}}

	// Ids and sources from the source index (it holds the id); each source's name once.
	type idSource struct {
		id  int64
		src uint32
	}
	var all []idSource
	var names []string
	nameAt := map[string]uint32{}
	if err := scanRows(ctx, tx, `SELECT id, source FROM episodes INDEXED BY episodes_by_source`, func(rows *sql.Rows) error {
		var r idSource
		var name sql.RawBytes
		if err := rows.Scan(&r.id, &name); err != nil {
			return err
		}
		at, ok := nameAt[string(name)]
		if !ok {
			at = uint32(len(names))
			names = append(names, string(name))
			nameAt[names[at]] = at
		}
		r.src = at
		all = append(all, r)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("explorer index: sources: %w", err)
	}
	slices.SortFunc(all, func(a, b idSource) int { return cmp.Compare(a.id, b.id) })
	n := len(all)
	idx.ids = make([]int64, n)
	for i, r := range all {
		idx.ids[i] = r.id
		setIn(idx.sources, names[r.src]).add(int32(i))
	}
	all = nil
	for _, b := range idx.sources {
		b.settle(n)
	}

	// The lengths, with their order; the other sort orders are read when first used
	// (Store.sortOrder).
	idx.steps = make([]int32, n)
	order, err := idx.readOrder(ctx, tx, episode.SortSteps, func(p, steps int32) { idx.steps[p] = steps })
	if err != nil {
		return nil, err
	}
	idx.orders[episode.SortSteps] = order

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
			cur = setIn(m, value)
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
		if p, ok := idx.position(id); ok { // in episode id order within a split: its primary key's
			setIn(m, part).add(p)
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

// sortOrder is the order of a sort key when it has been read (nil for the store order, which
// is the positions themselves); when it has not, it starts reading it in the background and
// reports false (the query goes to SQL meanwhile).
func (s *Store) sortOrder(idx *explorerIndex, key episode.SortKey) ([]int32, bool) {
	if _, ok := sortIndex[key]; !ok {
		return nil, true
	}
	idx.ordersMu.Lock()
	order, ok := idx.orders[key]
	if ok || idx.loading[key] {
		idx.ordersMu.Unlock()
		return order, ok
	}
	idx.loading[key] = true
	idx.ordersMu.Unlock()

	x := &s.explorer
	x.mu.Lock()
	defer x.mu.Unlock()
	x.goBackground(func(ctx context.Context) {
		// an error is not kept: the next query with this key tries again, SQL answering
		s.readOrderNow(ctx, idx, key)
		idx.ordersMu.Lock()
		delete(idx.loading, key)
		idx.ordersMu.Unlock()
	})
	return nil, false
}

// readOrderNow reads a sort key's order into idx unless it is there, keeping it only when the
// store has not changed since idx was made.
func (s *Store) readOrderNow(ctx context.Context, idx *explorerIndex, key episode.SortKey) error {
	idx.ordersMu.Lock()
	_, ok := idx.orders[key]
	idx.ordersMu.Unlock()
	if ok {
		return nil
	}
	order, err := idx.readOrder(ctx, s.db, key, nil)
	if err != nil {
		return err
	}
	if s.explorerIndex(ctx) != idx {
		return nil // changed while it was read: made again with the index
	}
	idx.ordersMu.Lock()
	idx.orders[key] = order
	idx.ordersMu.Unlock()
	return nil
}

// readOrder reads the positions in the order of a sort key's index (ascending, ties by id),
// calling steps with each episode's length when the key is SortSteps.
func (idx *explorerIndex) readOrder(ctx context.Context, q querier, key episode.SortKey, steps func(p, steps int32)) ([]int32, error) {
	index := sortIndex[key]
	order := make([]int32, 0, len(idx.ids))
	err := scanRows(ctx, q, `SELECT e.id, e.num_steps FROM episodes e INDEXED BY `+index+` ORDER BY `+orderSQL(episode.Sort{Key: key}), func(rows *sql.Rows) error {
		var id int64
		var n int32
		if err := rows.Scan(&id, &n); err != nil {
			return err
		}
		p, ok := idx.position(id)
		if !ok {
			return fmt.Errorf("episode %d is in %s but not in the index", id, index)
		}
		order = append(order, p)
		if steps != nil {
			steps(p, n)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("explorer index: order by %s: %w", index, err)
	}
	if len(order) != len(idx.ids) {
		return nil, fmt.Errorf("explorer index: %s has %d episodes, the index %d", index, len(order), len(idx.ids))
	}
	return order, nil
}

// position finds an episode id's position.
func (idx *explorerIndex) position(id int64) (int32, bool) {
	i, ok := slices.BinarySearch(idx.ids, id)
	return int32(i), ok
}
