package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/agentdesk/agentdesk/engine/episode"
)

// The Explorer's queries answered from the memory index (explorer_index.go): a filter is its
// conditions' sets ANDed, a count their popcount, a sorted page a walk along the key's order.

// selection is the set f selects, or nil when f selects every episode (its search through the
// cache of recent searches).
func (idx *explorerIndex) selection(ctx context.Context, q querier, f episode.Filter) (bitset, error) {
	n := len(idx.ids)
	var sel bitset
	and := func(b bitset) { // b is not changed: it may be a cached search's set
		if sel == nil {
			sel = slices.Clone(b)
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
	if episode.TextQuery(f.Text) != "" {
		b, err := idx.textSet(ctx, q, f.Text)
		if err != nil {
			return nil, err
		}
		and(b)
	}
	return sel, nil
}

// count counts a selection.
func (idx *explorerIndex) count(sel bitset) int {
	if sel == nil {
		return len(idx.ids)
	}
	return sel.count()
}

// listing is the ids of the selection in the order of positions order (nil: the store order),
// walked backwards when desc, from offset, at most limit of them (limit < 0: all).
func (idx *explorerIndex) listing(sel bitset, order []int32, desc bool, offset, limit int) []int64 {
	n := len(idx.ids)
	if order != nil {
		n = len(order)
	}
	var out []int64
	if limit > 0 {
		out = make([]int64, 0, limit)
	}
	for k := 0; k < n; k++ {
		i := k
		if desc {
			i = n - 1 - k
		}
		p := int32(i)
		if order != nil {
			p = order[i]
		}
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
		sel, err := idx.selection(ctx, s.db, f)
		if err == nil {
			return idx.count(sel), nil
		}
		if ctx.Err() != nil {
			return 0, fmt.Errorf("count episodes (%s): %w", f.Describe(), err)
		}
	}
	return s.reader.CountMatching(ctx, f)
}

// MatchingPage reads a page of the listing of f in order s (see reader.MatchingPage); the ids
// come from the memory index when it is ready.
func (s *Store) MatchingPage(ctx context.Context, f episode.Filter, srt episode.Sort, offset, limit int) ([]episode.Row, error) {
	ids, srt, err := s.indexedListing(ctx, f, srt, offset, limit)
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
	ids, srt, err := s.indexedListing(ctx, f, srt, 0, -1)
	if err == errNoIndex {
		return s.reader.SortedIDs(ctx, f, srt)
	}
	if err != nil {
		return nil, fmt.Errorf("list episodes (%s): %w", f.Describe(), err)
	}
	return ids, nil
}

// indexedListing reads a listing from the memory index, with the order it was read in
// (relevance becomes store order for too common a search: RelevanceLimit); errNoIndex when SQL
// is to answer in that order.
func (s *Store) indexedListing(ctx context.Context, f episode.Filter, srt episode.Sort, offset, limit int) ([]int64, episode.Sort, error) {
	idx := s.explorerIndex(ctx) // one freshness check for the whole listing
	srt, err := s.relevanceOrder(ctx, idx, f, srt)
	if err != nil {
		return nil, srt, err
	}
	if idx == nil {
		return nil, srt, errNoIndex
	}
	var order []int32
	desc := srt.Desc
	if srt.Key == episode.SortRelevance {
		if order, err = idx.ranked(ctx, s.db, f.Text, srt.Desc); err != nil {
			return nil, srt, err
		}
		desc = false // ranked is in the order asked for
	} else {
		var ok bool
		if order, ok = s.sortOrder(idx, srt.Key); !ok {
			return nil, srt, errNoIndex // read in the background; SQL answers this one
		}
	}
	sel, err := idx.selection(ctx, s.db, f)
	if err != nil {
		return nil, srt, err
	}
	return idx.listing(sel, order, desc, offset, limit), srt, nil
}
