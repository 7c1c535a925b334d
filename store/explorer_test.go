package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentdesk/agentdesk/engine/episode"
)

// explorerFixture is a store with 400 synthetic Odyssey episodes, two gridworld episodes, one
// official split and what the brute-force oracle needs: every episode loaded in full.
type explorerFixture struct {
	s      *Store
	all    []*episode.Episode
	splits map[string]episode.Split // read once by the oracle
}

func newExplorerFixture(t *testing.T) *explorerFixture {
	t.Helper()
	ctx := context.Background()
	s := openTemp(t)
	fillSynthetic(t, s, 400, 7)
	for i, n := range []int{3, 12} {
		e := &episode.Episode{Source: episode.SourceGridworld, ExternalID: fmt.Sprint("g", i), Task: "tower"}
		for j := 0; j < n; j++ {
			e.Steps = append(e.Steps, episode.Step{Index: j, Reward: 0.5, Action: episode.Action{Kind: "forward"}})
		}
		if err := s.SaveEpisode(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	sp := episode.Split{Name: "random", Kind: episode.SplitOfficial, Parts: map[string][]episode.Key{}}
	for i := 0; i < 400; i++ {
		part := "train"
		if i%4 == 0 {
			part = "test"
		}
		sp.Parts[part] = append(sp.Parts[part], episode.Key{Source: episode.SourceOdyssey, ExternalID: fmt.Sprintf("%016d", uint64(i)*7919+1_000_000_000)})
	}
	if err := s.SaveSplit(ctx, sp); err != nil {
		t.Fatal(err)
	}
	fx := &explorerFixture{s: s}
	var sums []episode.Summary
	sums, err := s.Episodes(ctx, episode.Query{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sum := range sums {
		e, err := s.Episode(ctx, sum.ID)
		if err != nil {
			t.Fatal(err)
		}
		e.CreatedAt = sum.CreatedAt
		fx.all = append(fx.all, e)
	}
	sort.Slice(fx.all, func(i, j int) bool { return fx.all[i].ID < fx.all[j].ID })
	return fx
}

// matches is the oracle: what the filter means, written directly over loaded episodes.
func (fx *explorerFixture) matches(t *testing.T, e *episode.Episode, f episode.Filter) bool {
	if f.Source != "" && e.Source != f.Source {
		return false
	}
	if f.Split != "" {
		sp, ok := fx.splits[f.Split]
		if !ok {
			var err error
			if sp, err = fx.s.Split(context.Background(), f.Split); err != nil {
				t.Fatal(err)
			}
			if fx.splits == nil {
				fx.splits = map[string]episode.Split{}
			}
			fx.splits[f.Split] = sp
		}
		in := false
		for part, keys := range sp.Parts {
			if f.Part != "" && part != f.Part {
				continue
			}
			in = in || slices.Contains(keys, episode.Key{Source: e.Source, ExternalID: e.ExternalID})
		}
		if !in {
			return false
		}
	}
	for facet, values := range f.Facets {
		var have []string
		if facet == episode.FacetAction {
			for _, s := range e.Steps {
				have = append(have, s.Action.Kind)
			}
		} else {
			have = e.Facets[facet]
		}
		if len(values) > 0 && !slices.ContainsFunc(values, func(v string) bool { return slices.Contains(have, v) }) {
			return false
		}
	}
	if f.MinSteps > 0 && len(e.Steps) < f.MinSteps || f.MaxSteps > 0 && len(e.Steps) > f.MaxSteps {
		return false
	}
	if f.Text != "" {
		text := strings.ToLower(e.Task + " " + e.Instruction)
		words := strings.Fields(strings.ToLower(f.Text))
		for i, w := range words {
			if i == len(words)-1 { // prefix
				if !slices.ContainsFunc(strings.FieldsFunc(text, notWord), func(x string) bool { return strings.HasPrefix(x, w) }) {
					return false
				}
			} else if !slices.Contains(strings.FieldsFunc(text, notWord), w) {
				return false
			}
		}
	}
	return true
}

func notWord(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
}

var explorerFilters = []episode.Filter{
	{},
	{Source: episode.SourceGridworld},
	{Source: episode.SourceOdyssey, MinSteps: 10, MaxSteps: 14},
	{Split: "random"},
	{Split: "random", Part: "test"},
	{Facets: map[string][]string{episode.FacetCategory: {"Web_Shopping"}}},
	{Facets: map[string][]string{episode.FacetCategory: {"Web_Shopping", "Multi_Apps"}, episode.FacetDevice: {"Pixel Fold"}}},
	{Facets: map[string][]string{episode.FacetApp: {"App000"}}},
	{Facets: map[string][]string{episode.FacetAction: {"long_press"}}},
	{Facets: map[string][]string{episode.FacetAction: {"forward"}}},
	{Text: "tokyo"},
	{Text: "banana bre"},
	{Text: "Recipe", Split: "random", Part: "train", MaxSteps: 12},
	{Text: "zzznothing"},
	{MinSteps: 20},
	{Source: "nosuch"},
	{Split: "random", Part: "validation"},
	{Facets: map[string][]string{episode.FacetCategory: {"NoSuchCategory"}}},
	{MaxSteps: 8, Facets: map[string][]string{episode.FacetDevice: {"Pixel Fold"}}},
}

func TestExplorerCountAndPagesAgreeWithOracle(t *testing.T) {
	skipUnderRace(t, "oracle checks of a synthetic store in one goroutine")
	fx := newExplorerFixture(t)
	t.Run("sql", func(t *testing.T) { checkExplorerAgainstOracle(t, fx) })
	t.Run("memory index", func(t *testing.T) {
		if err := fx.s.PrepareExplorer(context.Background()); err != nil {
			t.Fatal(err)
		}
		if fx.s.explorerIndex(context.Background()) == nil {
			t.Fatal("no memory index after PrepareExplorer")
		}
		checkExplorerAgainstOracle(t, fx)
	})
}

// The memory index follows the store: a change made through this Store, or by another process,
// drops it (queries go to SQL until it is made again), and the answers stay the oracle's.
func TestExplorerIndexFollowsChanges(t *testing.T) {
	fx := newExplorerFixture(t)
	ctx := context.Background()
	if err := fx.s.PrepareExplorer(ctx); err != nil {
		t.Fatal(err)
	}
	before, err := fx.s.CountMatching(ctx, episode.Filter{Text: "tower"})
	if err != nil {
		t.Fatal(err)
	}
	e := &episode.Episode{Source: episode.SourceGridworld, ExternalID: "late", Task: "tower of late blocks"}
	e.Steps = []episode.Step{{Index: 0, Action: episode.Action{Kind: "forward"}}}
	if err := fx.s.SaveEpisode(ctx, e); err != nil {
		t.Fatal(err)
	}
	if fx.s.explorerIndex(ctx) != nil {
		t.Fatal("the memory index outlived a write of this store")
	}
	after, err := fx.s.CountMatching(ctx, episode.Filter{Text: "tower"})
	if err != nil || after != before+1 {
		t.Fatalf("count after a new episode: %d (%v), want %d", after, err, before+1)
	}
	if err := fx.s.PrepareExplorer(ctx); err != nil {
		t.Fatal(err)
	}
	// Another process (another Store on the same file) makes a split.
	other, err := Open(fx.s.path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.CreateSplitFromFilter(ctx, "towers", "all", episode.Filter{Text: "tower"}); err != nil {
		t.Fatal(err)
	}
	other.Close()
	if fx.s.explorerIndex(ctx) != nil {
		t.Fatal("the memory index outlived another process's write")
	}
	if err := fx.s.PrepareExplorer(ctx); err != nil {
		t.Fatal(err)
	}
	n, err := fx.s.CountMatching(ctx, episode.Filter{Split: "towers"})
	if err != nil || n != after {
		t.Fatalf("split made by another process: %d members (%v), want %d", n, err, after)
	}
	fx.all = nil
	sums, err := fx.s.Episodes(ctx, episode.Query{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sum := range sums {
		e, err := fx.s.Episode(ctx, sum.ID)
		if err != nil {
			t.Fatal(err)
		}
		e.CreatedAt = sum.CreatedAt
		fx.all = append(fx.all, e)
	}
	sort.Slice(fx.all, func(i, j int) bool { return fx.all[i].ID < fx.all[j].ID })
	checkExplorerAgainstOracle(t, fx)
}

func checkExplorerAgainstOracle(t *testing.T, fx *explorerFixture) {
	ctx := context.Background()
	sorts := []episode.Sort{{Key: episode.SortID}, {Key: episode.SortSteps, Desc: true}, {Key: episode.SortReward},
		{Key: episode.SortSource, Desc: true}, {Key: episode.SortCreated}, {Key: episode.SortEpisode, Desc: true}, {Key: episode.SortTask}}
	for _, f := range explorerFilters {
		var want []*episode.Episode
		for _, e := range fx.all {
			if fx.matches(t, e, f) {
				want = append(want, e)
			}
		}
		n, err := fx.s.CountMatching(ctx, f)
		if err != nil {
			t.Fatalf("%s: %v", f.Describe(), err)
		}
		if n != len(want) {
			t.Errorf("%s: count %d, oracle %d", f.Describe(), n, len(want))
			continue
		}
		for _, srt := range sorts {
			sorted := slices.Clone(want)
			sort.SliceStable(sorted, func(i, j int) bool { return oracleLess(sorted[i], sorted[j], srt) })
			// Read in pages of 7 so the page boundaries are exercised.
			var got []int64
			for off := 0; ; off += 7 {
				rows, err := fx.s.MatchingPage(ctx, f, srt, off, 7)
				if err != nil {
					t.Fatalf("%s sorted by %v: %v", f.Describe(), srt, err)
				}
				for _, r := range rows {
					got = append(got, r.ID)
				}
				if len(rows) < 7 {
					break
				}
			}
			var wantIDs []int64
			for _, e := range sorted {
				wantIDs = append(wantIDs, e.ID)
			}
			if !slices.Equal(got, wantIDs) {
				t.Errorf("%s sorted by %v: %d ids, oracle %d; first %v vs %v", f.Describe(), srt, len(got), len(wantIDs),
					got[:min(5, len(got))], wantIDs[:min(5, len(wantIDs))])
			}
			// The whole order at once, and pages read by id from it, give the same listing.
			order, err := fx.s.SortedIDs(ctx, f, srt)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(order, wantIDs) {
				t.Errorf("%s sorted by %v: order of %d ids, oracle %d", f.Describe(), srt, len(order), len(wantIDs))
			}
			if len(order) > 7 {
				rows, err := fx.s.EpisodeRows(ctx, order[7:min(14, len(order))], f.Text)
				if err != nil {
					t.Fatal(err)
				}
				page, _ := fx.s.MatchingPage(ctx, f, srt, 7, 7)
				if !reflect.DeepEqual(rows, page) {
					t.Errorf("%s sorted by %v: rows by id differ from the page", f.Describe(), srt)
				}
			}
		}
	}
}

func oracleLess(a, b *episode.Episode, s episode.Sort) bool {
	cmp := 0
	switch s.Key {
	case episode.SortSource:
		cmp = strings.Compare(a.Source, b.Source)
	case episode.SortSteps:
		cmp = len(a.Steps) - len(b.Steps)
	case episode.SortReward:
		if ra, rb := a.TotalReward(), b.TotalReward(); ra != rb {
			cmp = map[bool]int{true: -1, false: 1}[ra < rb]
		}
	case episode.SortCreated:
		cmp = a.CreatedAt.Compare(b.CreatedAt)
	case episode.SortEpisode:
		cmp = strings.Compare(a.ExternalID, b.ExternalID)
	case episode.SortTask: // SQLite's NOCASE folds ASCII letters only
		cmp = strings.Compare(asciiLower(a.Task), asciiLower(b.Task))
	}
	if cmp == 0 {
		cmp = int(a.ID - b.ID)
	}
	if s.Desc {
		return cmp > 0
	}
	return cmp < 0
}

func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

func TestExplorerPageCarriesFacetsAndMarksMatches(t *testing.T) {
	skipUnderRace(t, "checks of a synthetic store in one goroutine")
	fx := newExplorerFixture(t)
	ctx := context.Background()
	rows, err := fx.s.MatchingPage(ctx, episode.Filter{Text: "tokyo weath"}, episode.Sort{Key: episode.SortRelevance}, 0, 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("no match for tokyo weath")
	}
	for _, r := range rows {
		var matched []string
		for _, sp := range episode.SplitMarked(r.TaskMarked) {
			if sp.Match {
				matched = append(matched, strings.ToLower(sp.Text))
			}
		}
		if !slices.Contains(matched, "tokyo") || !slices.Contains(matched, "weather") {
			t.Fatalf("task %q marked %q: matches %v", r.Task, r.TaskMarked, matched)
		}
		if strings.NewReplacer(episode.MatchStart, "", episode.MatchEnd, "").Replace(r.TaskMarked) != r.Task {
			t.Fatalf("marking changed the text: %q vs %q", r.TaskMarked, r.Task)
		}
		if len(r.Facets[episode.FacetCategory]) != 1 || len(r.Facets[episode.FacetDevice]) != 1 || len(r.Facets[episode.FacetApp]) == 0 {
			t.Fatalf("row facets %v", r.Facets)
		}
	}
	plain, err := fx.s.MatchingPage(ctx, episode.Filter{}, episode.Sort{}, 0, 3)
	if err != nil || len(plain) != 3 || plain[0].TaskMarked != "" {
		t.Fatalf("plain page %+v, %v", plain, err)
	}
	// Whatever a user types is a valid query, with SQL alone and with the memory index.
	for _, index := range []bool{false, true} {
		if index {
			if err := fx.s.PrepareExplorer(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for _, q := range []string{`"`, `a AND`, `(`, `*`, `NEAR(`, `-x`, `tok'yo`, `tok''yo'`, `: ^`, `ü`} {
			if _, err := fx.s.CountMatching(ctx, episode.Filter{Text: q}); err != nil {
				t.Errorf("text %q (index %v): %v", q, index, err)
			}
			if _, err := fx.s.MatchingPage(ctx, episode.Filter{Text: q}, episode.Sort{Key: episode.SortRelevance}, 0, 5); err != nil {
				t.Errorf("text %q page (index %v): %v", q, index, err)
			}
		}
	}
}

// The memory index's searches (common terms' sets, rare terms and prefixes through FTS5, words
// that are not plain ASCII through FTS5 as a whole) match what FTS5 matches, whichever terms are
// common.
func TestExplorerIndexSearchesMatchFTS5(t *testing.T) {
	skipUnderRace(t, "checks of a synthetic store in one goroutine")
	fx := newExplorerFixture(t)
	ctx := context.Background()
	texts := []string{"ü", "Café", "zzz", "tokyo wea", "the ", "tok'yo", "a", "Recipe bre", "x9"}
	seen := map[string]bool{}
	for _, e := range fx.all[:25] {
		for _, w := range strings.FieldsFunc(e.Task+" "+e.Instruction, notWord) {
			for _, t := range []string{w, w + " ", w[:max(1, len(w)/2)], strings.ToUpper(w[:1])} {
				if !seen[t] {
					seen[t] = true
					texts = append(texts, t)
				}
			}
		}
	}
	defer func(a, b, c int) { frequentTerm, frequentTerms, rareTermsAtOnce = a, b, c }(frequentTerm, frequentTerms, rareTermsAtOnce)
	for _, cfg := range [][3]int{{32, 1024, 256}, {1, 1 << 20, 256}, {1 << 30, 1024, 256}, {8, 5, 2}} {
		frequentTerm, frequentTerms, rareTermsAtOnce = cfg[0], cfg[1], cfg[2]
		fx.s.explorer.close()
		if err := fx.s.PrepareExplorer(ctx); err != nil {
			t.Fatal(err)
		}
		idx := fx.s.explorerIndex(ctx)
		if idx == nil || len(idx.vocab) == 0 {
			t.Fatalf("%v: no index or no vocabulary", cfg)
		}
		t.Logf("%v: %d terms, %d kept as sets; %d searches", cfg, len(idx.vocab), len(idx.frequent), len(texts))
		for _, text := range texts {
			want, err := fx.s.reader.CountMatching(ctx, episode.Filter{Text: text})
			if err != nil {
				t.Fatal(err)
			}
			got, err := fx.s.CountMatching(ctx, episode.Filter{Text: text})
			if err != nil || got != want {
				t.Fatalf("%v: search %q: %d (%v), FTS5 %d", cfg, text, got, err, want)
			}
		}
	}
}

// The Explorer's way (StartExplorerIndex): the index is made in the background, and a sort
// order is read the first time it is used, SQL answering that query; the listings agree.
func TestExplorerIndexReadsSortOrdersWhenUsed(t *testing.T) {
	skipUnderRace(t, "checks of a synthetic store in one goroutine")
	fx := newExplorerFixture(t)
	ctx := context.Background()
	fx.s.StartExplorerIndex()
	var idx *explorerIndex
	for deadline := time.Now().Add(30 * time.Second); idx == nil; time.Sleep(5 * time.Millisecond) {
		if idx = fx.s.explorerIndex(ctx); idx == nil && time.Now().After(deadline) {
			t.Fatal("no index after 30 s")
		}
	}
	loaded := func(k episode.SortKey) bool {
		idx.ordersMu.Lock()
		defer idx.ordersMu.Unlock()
		_, ok := idx.orders[k]
		return ok
	}
	if !loaded(episode.SortSteps) || loaded(episode.SortTask) {
		t.Fatal("the steps order is made with the index, the others when used")
	}
	f := episode.Filter{Split: "random", Part: "train"}
	srt := episode.Sort{Key: episode.SortTask, Desc: true}
	want, err := fx.s.reader.SortedIDs(ctx, f, srt)
	if err != nil {
		t.Fatal(err)
	}
	first, err := fx.s.SortedIDs(ctx, f, srt)
	if err != nil || !slices.Equal(first, want) {
		t.Fatalf("first listing by task (from SQL): %d ids (%v), want %d", len(first), err, len(want))
	}
	for deadline := time.Now().Add(30 * time.Second); !loaded(episode.SortTask); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the task order was not read")
		}
	}
	again, err := fx.s.SortedIDs(ctx, f, srt)
	if err != nil || !slices.Equal(again, want) {
		t.Fatalf("listing by task from the index: %d ids (%v), want %d", len(again), err, len(want))
	}
}

// A store opened read-only has a memory index too (without the vocabulary, which needs a
// temporary table: its searches go to FTS5), and it answers as SQL does.
func TestExplorerIndexOnAReadOnlyStore(t *testing.T) {
	fx := newExplorerFixture(t)
	ctx := context.Background()
	ro, err := OpenWith(fx.s.path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := ro.PrepareExplorer(ctx); err != nil {
		t.Fatal(err)
	}
	idx := ro.explorerIndex(ctx)
	if idx == nil || len(idx.ids) != len(fx.all) {
		t.Fatalf("read-only store: index %v", idx)
	}
	t.Logf("read-only store: %d terms in the index's vocabulary", len(idx.vocab))
	for _, f := range explorerFilters {
		want, err := fx.s.reader.CountMatching(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ro.CountMatching(ctx, f)
		if err != nil || got != want {
			t.Fatalf("%s: read-only count %d (%v), SQL %d", f.Describe(), got, err, want)
		}
	}
}

// A search with more matches (times its words) than RelevanceLimit is listed in store order when relevance is
// asked for (and RelevanceRanked says so); one with fewer is ranked by FTS5.
func TestExplorerRelevanceLimit(t *testing.T) {
	skipUnderRace(t, "checks of a synthetic store in one goroutine")
	fx := newExplorerFixture(t)
	ctx := context.Background()
	defer func(n int) { RelevanceLimit = n }(RelevanceLimit)
	ranked := func(f episode.Filter) []int64 { // FTS5's ranking, unbounded (the reader's own)
		rows, err := fx.s.reader.MatchingPage(ctx, f, episode.Sort{Key: episode.SortRelevance}, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, r := range rows {
			ids = append(ids, r.ID)
		}
		return ids
	}
	f := episode.Filter{Text: "tokyo"}
	all := ranked(f)
	if len(all) < 4 || slices.IsSorted(all) {
		t.Fatalf("the fixture's matches of tokyo (%d) are too few, or ranked in store order", len(all))
	}
	for _, index := range []bool{false, true} {
		if index {
			if err := fx.s.PrepareExplorer(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for _, limit := range []int{len(all), len(all) - 1} {
			RelevanceLimit = limit
			ok, n, err := fx.s.RelevanceRanked(ctx, f)
			if err != nil || n != len(all) || ok != (limit >= len(all)) {
				t.Fatalf("limit %d (index %v): RelevanceRanked %v %d %v", limit, index, ok, n, err)
			}
			want := all
			if !ok {
				want = slices.Sorted(slices.Values(all))
			}
			got, err := fx.s.SortedIDs(ctx, f, episode.Sort{Key: episode.SortRelevance})
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("limit %d (index %v): listing %v (%v), want %v", limit, index, got, err, want)
			}
			page, err := fx.s.MatchingPage(ctx, f, episode.Sort{Key: episode.SortRelevance}, 1, 2)
			if err != nil || len(page) != 2 || page[0].ID != want[1] || page[1].ID != want[2] {
				t.Fatalf("limit %d (index %v): page %+v (%v)", limit, index, page, err)
			}
		}
	}
	// Ranked listings with other conditions, both directions, as SQL ranks them.
	RelevanceLimit = 10000
	for _, g := range []episode.Filter{{Text: "tokyo", Split: "random", Part: "train"}, {Text: "Recipe", MaxSteps: 12},
		{Text: "banana bre", Facets: map[string][]string{episode.FacetCategory: {"Web_Shopping", "Multi_Apps"}}}} {
		for _, desc := range []bool{false, true} {
			srt := episode.Sort{Key: episode.SortRelevance, Desc: desc}
			want, err := fx.s.reader.SortedIDs(ctx, g, srt)
			if err != nil {
				t.Fatal(err)
			}
			got, err := fx.s.SortedIDs(ctx, g, srt)
			if err != nil || !slices.Equal(got, want) || len(want) < 2 {
				t.Fatalf("%s by relevance (desc %v): %v (%v), SQL %v", g.Describe(), desc, got, err, want)
			}
			page, err := fx.s.MatchingPage(ctx, g, srt, 1, 3)
			if err != nil || len(page) == 0 || page[0].ID != want[1] {
				t.Fatalf("%s by relevance (desc %v), page from 1: %+v (%v)", g.Describe(), desc, page, err)
			}
		}
	}
	if ok, n, err := fx.s.RelevanceRanked(ctx, episode.Filter{Source: "odyssey"}); ok || n != 0 || err != nil {
		t.Fatalf("no text: %v %d %v", ok, n, err)
	}
}

func TestExplorerStatsAgreeWithOracle(t *testing.T) {
	skipUnderRace(t, "oracle checks of a synthetic store in one goroutine")
	fx := newExplorerFixture(t)
	t.Run("sql", func(t *testing.T) { checkStatsAgainstOracle(t, fx) })
	t.Run("memory index", func(t *testing.T) {
		if err := fx.s.PrepareExplorer(context.Background()); err != nil {
			t.Fatal(err)
		}
		checkStatsAgainstOracle(t, fx)
		if fx.s.explorerIndex(context.Background()).actionSteps == nil {
			t.Fatal("the statistics did not come from the memory index")
		}
	})
}

func checkStatsAgainstOracle(t *testing.T, fx *explorerFixture) {
	ctx := context.Background()
	for _, f := range explorerFilters {
		st, err := fx.s.MatchingStats(ctx, f)
		if err != nil {
			t.Fatalf("%s: %v", f.Describe(), err)
		}
		lengths := map[int]int{}
		actions := map[string]int{}
		facets := map[string]map[string]int{}
		splits := map[string]int{}
		episodes, steps := 0, 0
		sp, _ := fx.s.Split(ctx, "random")
		for _, e := range fx.all {
			if !fx.matches(t, e, f) {
				continue
			}
			episodes++
			steps += len(e.Steps)
			lengths[len(e.Steps)]++
			for _, s := range e.Steps {
				actions[s.Action.Kind]++
			}
			for _, facet := range descriptiveFacets {
				for _, v := range e.Facets[facet] {
					if facets[facet] == nil {
						facets[facet] = map[string]int{}
					}
					facets[facet][v]++
				}
			}
			for part, keys := range sp.Parts {
				if slices.Contains(keys, episode.Key{Source: e.Source, ExternalID: e.ExternalID}) {
					splits["random/"+part]++
				}
			}
		}
		if st.Episodes != episodes || st.Steps != steps {
			t.Errorf("%s: %d episodes %d steps, oracle %d %d", f.Describe(), st.Episodes, st.Steps, episodes, steps)
		}
		got := map[int]int{}
		for _, l := range st.Lengths {
			got[l.Steps] = l.Episodes
		}
		if fmt.Sprint(got) != fmt.Sprint(lengths) {
			t.Errorf("%s: lengths %v, oracle %v", f.Describe(), got, lengths)
		}
		gotA := map[string]int{}
		for i, c := range st.Actions {
			gotA[c.Value] = c.N
			if i > 0 && c.N > st.Actions[i-1].N {
				t.Errorf("%s: actions not most frequent first: %v", f.Describe(), st.Actions)
			}
		}
		if fmt.Sprint(gotA) != fmt.Sprint(actions) {
			t.Errorf("%s: actions %v, oracle %v", f.Describe(), gotA, actions)
		}
		gotF := map[string]map[string]int{}
		for facet, cs := range st.Facets {
			gotF[facet] = map[string]int{}
			for _, c := range cs {
				gotF[facet][c.Value] = c.N
			}
		}
		if fmt.Sprint(gotF) != fmt.Sprint(facets) {
			t.Errorf("%s: facets differ from the oracle", f.Describe())
		}
		gotS := map[string]int{}
		for _, c := range st.Splits {
			gotS[c.Split+"/"+c.Part] = c.N
		}
		if fmt.Sprint(gotS) != fmt.Sprint(splits) {
			t.Errorf("%s: splits %v, oracle %v", f.Describe(), gotS, splits)
		}
	}
}

func TestExplorerFacetValuesAndSources(t *testing.T) {
	skipUnderRace(t, "checks of a synthetic store in one goroutine")
	fx := newExplorerFixture(t)
	ctx := context.Background()
	cats, err := fx.s.FacetValues(ctx, episode.FacetCategory)
	if err != nil || len(cats) != 6 {
		t.Fatalf("categories %v %v", cats, err)
	}
	total := 0
	for _, c := range cats {
		total += c.N
	}
	if total != 400 {
		t.Fatalf("category counts sum to %d", total)
	}
	acts, _ := fx.s.FacetValues(ctx, episode.FacetAction)
	if !slices.ContainsFunc(acts, func(c episode.Count) bool { return c.Value == "forward" && c.N == 2 }) {
		t.Fatalf("action values %v", acts)
	}
	srcs, _ := fx.s.SourceCounts(ctx)
	if fmt.Sprint(srcs) != "[{gridworld 2} {odyssey 400}]" {
		t.Fatalf("sources %v", srcs)
	}
}

func TestExplorerSplits(t *testing.T) {
	skipUnderRace(t, "oracle checks of a synthetic store in one goroutine")
	fx := newExplorerFixture(t)
	ctx := context.Background()
	f := episode.Filter{Facets: map[string][]string{episode.FacetCategory: {"Web_Shopping"}}}
	want, _ := fx.s.CountMatching(ctx, f)
	n, err := fx.s.CreateSplitFromFilter(ctx, "shopping", "test", f)
	if err != nil || n != want {
		t.Fatalf("split from filter: %d (want %d), %v", n, want, err)
	}
	if got, _ := fx.s.CountMatching(ctx, episode.Filter{Split: "shopping", Part: "test"}); got != want {
		t.Fatalf("filtering by the new split gives %d", got)
	}
	if _, err := fx.s.CreateSplitFromFilter(ctx, "random", "test", f); !errors.Is(err, ErrSplitExists) {
		t.Fatalf("taking an official split's name: %v", err)
	}
	if sp, _ := fx.s.Split(ctx, "random"); sp.Kind != episode.SplitOfficial || sp.Size() != 400 {
		t.Fatalf("official split changed: %s %d", sp.Kind, sp.Size())
	}
	if _, err := fx.s.CreateSplitFromFilter(ctx, "none", "test", episode.Filter{Text: "zzznothing"}); err == nil {
		t.Fatal("empty split created")
	}

	odyssey := episode.Filter{Source: episode.SourceOdyssey}
	tr, te, err := fx.s.CreateRandomSplit(ctx, "r80", odyssey, 0.8, 42)
	if err != nil || tr != 320 || te != 80 {
		t.Fatalf("random split %d/%d %v", tr, te, err)
	}
	tr2, te2, err := fx.s.CreateRandomSplit(ctx, "r80-again", odyssey, 0.8, 42)
	if err != nil || tr2 != tr || te2 != te {
		t.Fatal(err)
	}
	a, _ := fx.s.Split(ctx, "r80")
	b, _ := fx.s.Split(ctx, "r80-again")
	if !slices.Equal(a.Parts["test"], b.Parts["test"]) {
		t.Fatal("same seed, different split")
	}
	fx.s.CreateRandomSplit(ctx, "r80-seed7", odyssey, 0.8, 7)
	c, _ := fx.s.Split(ctx, "r80-seed7")
	if slices.Equal(a.Parts["test"], c.Parts["test"]) {
		t.Fatal("another seed gave the same split")
	}

	sums, err := fx.s.SplitSummaries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, s := range sums {
		lines = append(lines, fmt.Sprintf("%s %s %v", s.Name, s.Kind, s.Parts))
	}
	if lines[0] != "r80 user [{train 320} {test 80}]" || lines[3] != "random official [{train 300} {test 100}]" {
		t.Fatalf("summaries %q", lines)
	}
	if err := fx.s.DeleteUserSplit(ctx, "random"); err == nil {
		t.Fatal("official split deleted")
	}
	if err := fx.s.DeleteUserSplit(ctx, "r80"); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.s.Split(ctx, "r80"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted split still there: %v", err)
	}
}

func TestExplorerIDsWalksInPages(t *testing.T) {
	skipUnderRace(t, "oracle checks of a synthetic store in one goroutine")
	s := openTemp(t)
	fillSynthetic(t, s, 1203, 3)
	var pages []int
	var all []int64
	err := s.ForEachMatchingID(context.Background(), episode.Filter{}, func(ids []int64) error {
		pages = append(pages, len(ids))
		all = append(all, ids...)
		return nil
	})
	if err != nil || fmt.Sprint(pages) != "[500 500 203]" || !slices.IsSorted(all) || len(all) != 1203 {
		t.Fatalf("pages %v sorted=%v %v", pages, slices.IsSorted(all), err)
	}
	stop := errors.New("stop")
	if err := s.ForEachMatchingID(context.Background(), episode.Filter{}, func([]int64) error { return stop }); err != stop {
		t.Fatalf("walk did not stop: %v", err)
	}
}

// TestExplorerQueriesUseIndexes checks every query shape's plan: no table is scanned without
// an index, except episodes in rowid order (the id listing, which stops at its LIMIT), and no
// listing of the whole store is sorted in a temporary tree.
func TestExplorerQueriesUseIndexes(t *testing.T) {
	skipUnderRace(t, "checks of a synthetic store in one goroutine")
	s := openTemp(t)
	fillSynthetic(t, s, 300, 1)
	s.SaveSplit(context.Background(), episode.Split{Name: "random", Parts: map[string][]episode.Key{
		"test": {{Source: episode.SourceOdyssey, ExternalID: fmt.Sprintf("%016d", 1_000_000_000)}}}})
	if _, err := s.db.Exec(`ANALYZE`); err != nil {
		t.Fatal(err)
	}
	type query struct {
		name   string
		sql    string
		args   []any
		sortOK bool // a temporary sort over a filtered selection is fine
	}
	var queries []query
	for _, f := range explorerFilters {
		sel, args := selectionSQL(f, true)
		if sel != "" {
			queries = append(queries, query{"count " + f.Describe(), `SELECT count(*) FROM (` + sel + `)`, args, true})
		}
		for _, k := range []episode.SortKey{episode.SortID, episode.SortSource, episode.SortSteps, episode.SortReward, episode.SortCreated,
			episode.SortEpisode, episode.SortTask, episode.SortRelevance} {
			for _, desc := range []bool{false, true} {
				q, args := explorerPageSQL(f, episode.Sort{Key: k, Desc: desc})
				queries = append(queries, query{fmt.Sprintf("page %s by %v desc=%v", f.Describe(), k, desc), q,
					append(args, 200, 400), !f.IsZero() || k == episode.SortRelevance})
			}
		}
	}
	queries = append(queries,
		query{"facet values", `SELECT value, count(*) FROM episode_facets WHERE facet = ? GROUP BY value ORDER BY value`, []any{"app"}, false},
		query{"sources", `SELECT source, count(*) FROM episodes GROUP BY source ORDER BY source`, nil, false},
		query{"page facets", `SELECT episode_id, facet, value FROM episode_facets WHERE episode_id IN (?, ?) AND facet IN (?, ?, ?)`,
			[]any{1, 2, "category", "app", "device"}, false},
	)
	for _, f := range explorerFilters {
		sel, args := selectionSQL(f, true)
		in := ""
		if sel != "" {
			in = ` AND episode_id IN (` + sel + `)`
		}
		queries = append(queries,
			query{"stats lengths " + f.Describe(), `SELECT num_steps, count(*) FROM episodes INDEXED BY episodes_by_steps WHERE 1` + strings.ReplaceAll(in, "episode_id", "id") + ` GROUP BY num_steps`, args, true},
			query{"stats actions " + f.Describe(), `SELECT action_kind, count(*) FROM steps INDEXED BY steps_by_action_kind WHERE action_kind <> ''` + in + ` GROUP BY action_kind`, args, true},
			query{"stats actions (small selection) " + f.Describe(), `SELECT action_kind, count(*) FROM steps WHERE action_kind <> ''` + in + ` GROUP BY action_kind`, args, true},
			query{"stats facets " + f.Describe(), `SELECT facet, value, count(*) FROM episode_facets WHERE facet IN ('category', 'app', 'device')` + in + ` GROUP BY facet, value`, args, true},
		)
	}
	for _, q := range queries {
		rows, err := s.db.Query(`EXPLAIN QUERY PLAN `+q.sql, q.args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", q.name, err, q.sql)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			rows.Scan(&id, &parent, &unused, &detail)
			plan = append(plan, detail)
		}
		rows.Close()
		for _, d := range plan {
			fullScan := strings.HasPrefix(d, "SCAN ") && !strings.Contains(d, " USING ") && !strings.Contains(d, "VIRTUAL TABLE") &&
				!strings.HasPrefix(d, "SCAN (") // a subquery's own rows
			// The rowid b-tree read in output order stops at the page's LIMIT.
			rowidOrder := d == "SCAN e" && strings.Contains(q.sql, " LIMIT ") &&
				!slices.ContainsFunc(plan, func(d string) bool { return strings.Contains(d, "TEMP B-TREE FOR ORDER BY") })
			if fullScan && !rowidOrder {
				t.Errorf("%s scans a table without an index: %q\n%s", q.name, d, strings.Join(plan, "\n"))
			}
			if strings.Contains(d, "TEMP B-TREE FOR ORDER BY") && !q.sortOK {
				t.Errorf("%s sorts the whole store: %s", q.name, strings.Join(plan, "\n"))
			}
		}
	}
}

// The marks ignore accents as the search does (unicode61 remove_diacritics): "cafe gene" finds
// "café à Genève" and marks both words, and an accented query marks the plain spelling.
func TestExplorerMarksIgnoreAccents(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	for i, task := range []string{"Réserver un café à Genève", "Find a cafe in Geneva", "Book a CAFÉ near GENÈVE"} {
		e := &episode.Episode{Source: "test", ExternalID: fmt.Sprint(i), Task: task}
		if err := s.SaveEpisode(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	marked := func(q string) []string {
		t.Helper()
		rows, err := s.MatchingPage(ctx, episode.Filter{Text: q}, episode.Sort{Key: episode.SortID}, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			var words []string
			for _, sp := range episode.SplitMarked(r.TaskMarked) {
				if sp.Match {
					words = append(words, sp.Text)
				}
			}
			out = append(out, strings.Join(words, "+"))
		}
		return out
	}
	if got := marked("cafe gene"); !slices.Equal(got, []string{"café+Genève", "cafe+Geneva", "CAFÉ+GENÈVE"}) {
		t.Fatalf("cafe gene marks %q", got)
	}
	if got := marked("Café genève "); !slices.Equal(got, []string{"café+Genève", "CAFÉ+GENÈVE"}) {
		t.Fatalf("Café genève marks %q", got)
	}
}

// Rows of episodes deleted after their ids were listed are left out, the rest keep their order.
func TestExplorerRowsSkipDeletedEpisodes(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	var ids []int64
	for i := range 5 {
		e := &episode.Episode{Source: "test", ExternalID: fmt.Sprint(i), Task: fmt.Sprint("task ", i)}
		if err := s.SaveEpisode(ctx, e); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	if _, err := s.db.Exec(`DELETE FROM episodes WHERE id = ?`, ids[2]); err != nil {
		t.Fatal(err)
	}
	rows, err := s.EpisodeRows(ctx, []int64{ids[4], ids[2], ids[0]}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].ID != ids[4] || rows[1].ID != ids[0] || rows[1].Task != "task 0" {
		t.Fatalf("rows %+v", rows)
	}
}
