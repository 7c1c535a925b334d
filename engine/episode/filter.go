package episode

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Filter selects episodes for the Explorer. The zero Filter selects every episode. Conditions
// combine with AND; the values of one facet combine with OR (an episode of category A or B).
type Filter struct {
	// Source limits to one source ("" = all).
	Source string
	// Split limits to the members of a split, and Part to one of its parts ("" = all parts).
	Split string
	Part  string
	// Facets maps a facet (FacetCategory, FacetApp, FacetDevice, FacetAction, ...) to the values
	// accepted for it. An empty list is no condition.
	Facets map[string][]string
	// MinSteps and MaxSteps bound the episode length, inclusive; 0 means no bound.
	MinSteps int
	MaxSteps int
	// Text is a full-text search over task, meta-task and instruction, as the user typed it (see
	// TextQuery); "" means no search.
	Text string
}

// IsZero reports whether f selects everything.
func (f Filter) IsZero() bool {
	if f.Source != "" || f.Split != "" || f.MinSteps > 0 || f.MaxSteps > 0 || TextQuery(f.Text) != "" {
		return false
	}
	for _, vs := range f.Facets {
		if len(vs) > 0 {
			return false
		}
	}
	return true
}

// WithFacet returns a copy of f whose facet accepts exactly values (none: no condition).
func (f Filter) WithFacet(facet string, values ...string) Filter {
	m := make(map[string][]string, len(f.Facets)+1)
	for k, v := range f.Facets {
		m[k] = v
	}
	if len(values) == 0 {
		delete(m, facet)
	} else {
		m[facet] = values
	}
	f.Facets = m
	return f
}

// FacetNames lists the facets f constrains, sorted, so that queries are built the same way
// every time.
func (f Filter) FacetNames() []string {
	var names []string
	for k, vs := range f.Facets {
		if len(vs) > 0 {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names
}

// Describe says in words what f selects, for status lines and split descriptions.
func (f Filter) Describe() string {
	var parts []string
	if f.Source != "" {
		parts = append(parts, "source "+f.Source)
	}
	if f.Split != "" {
		s := "split " + f.Split
		if f.Part != "" {
			s += "/" + f.Part
		}
		parts = append(parts, s)
	}
	for _, k := range f.FacetNames() {
		parts = append(parts, k+" "+strings.Join(f.Facets[k], " or "))
	}
	switch {
	case f.MinSteps > 0 && f.MaxSteps > 0:
		parts = append(parts, fmt.Sprintf("%d–%d steps", f.MinSteps, f.MaxSteps))
	case f.MinSteps > 0:
		parts = append(parts, fmt.Sprintf("≥ %d steps", f.MinSteps))
	case f.MaxSteps > 0:
		parts = append(parts, fmt.Sprintf("≤ %d steps", f.MaxSteps))
	}
	if q := strings.TrimSpace(f.Text); q != "" {
		parts = append(parts, fmt.Sprintf("text %q", q))
	}
	if len(parts) == 0 {
		return "all episodes"
	}
	return strings.Join(parts, ", ")
}

// TextQuery turns what a user typed into an FTS5 query that cannot be a syntax error: every
// word becomes a quoted phrase (all must match), and the last word matches as a prefix, so
// results follow the typing. Punctuation separates words, as FTS5's unicode61 tokenizer does.
// It returns "" when there is no word.
func TextQuery(s string) string {
	words, prefix := TextWords(s)
	if len(words) == 0 {
		return ""
	}
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(`"` + w + `"`)
		if i == len(words)-1 && prefix {
			b.WriteByte('*')
		}
	}
	return b.String()
}

// TextWords splits what a user typed into the words TextQuery searches for (each must occur),
// and whether the last one is a prefix (it is unless the text ends with a space).
func TextWords(s string) (words []string, lastIsPrefix bool) {
	words = strings.FieldsFunc(s, notWordRune)
	return words, len(words) > 0 && !endsWithSpace(s)
}

func endsWithSpace(s string) bool {
	return s != "" && unicode.IsSpace(rune(s[len(s)-1]))
}

// SortKey is a column the Explorer's listing can be ordered by. Every key is backed by an
// index of the store, so a sorted page is read without sorting the whole selection.
type SortKey int

const (
	SortID SortKey = iota // store order: the order episodes were first stored
	SortSource
	SortSteps
	SortReward
	SortCreated
	// SortRelevance orders a text search by its rank (best first); without a search it is SortID.
	SortRelevance
	// SortEpisode orders by the episode's external id (its id in its source).
	SortEpisode
	// SortTask orders by the task text, case ignored.
	SortTask
)

var sortNames = [...]string{"id", "source", "steps", "reward", "stored", "relevance", "episode", "task"}

func (k SortKey) String() string {
	if int(k) < len(sortNames) {
		return sortNames[k]
	}
	return fmt.Sprintf("SortKey(%d)", int(k))
}

// Sort is an ordering of the listing. Ties are broken by id in the same direction, so pages
// never overlap.
type Sort struct {
	Key  SortKey
	Desc bool
}

// Row is one line of the Explorer's listing: an episode summary, its descriptive facets, and
// the task, instruction and meta-task with the search matches marked (MatchStart ... MatchEnd)
// when the listing is a text search.
type Row struct {
	Summary
	Facets map[string][]string
	// TaskMarked, InstructionMarked and MetaTaskMarked are set only for a text search.
	TaskMarked        string
	InstructionMarked string
	MetaTaskMarked    string
}

// Match markers in Row.TaskMarked, Row.InstructionMarked and Row.MetaTaskMarked. They are
// control characters that never occur in task text.
const (
	MatchStart = "\x02"
	MatchEnd   = "\x03"
)

// Span is a piece of marked text; Match is true for the text of a search match.
type Span struct {
	Text  string
	Match bool
}

// SplitMarked cuts a marked string (see Row.TaskMarked) into plain and matching spans.
func SplitMarked(s string) []Span {
	var out []Span
	for s != "" {
		i := strings.Index(s, MatchStart)
		if i < 0 {
			out = append(out, Span{Text: s})
			break
		}
		if i > 0 {
			out = append(out, Span{Text: s[:i]})
		}
		s = s[i+len(MatchStart):]
		j := strings.Index(s, MatchEnd)
		if j < 0 {
			j = len(s)
		}
		if j > 0 {
			out = append(out, Span{Text: s[:j], Match: true})
		}
		s = strings.TrimPrefix(s[j:], MatchEnd)
	}
	return out
}

// Count is how many episodes (or steps) have a value.
type Count struct {
	Value string
	N     int
}

// LengthCount is how many episodes have exactly Steps steps.
type LengthCount struct {
	Steps    int
	Episodes int
}

// SplitCount is how many selected episodes are in one part of a split.
type SplitCount struct {
	Split string
	Part  string
	N     int
}

// Stats describes the episodes a filter selects.
type Stats struct {
	Episodes int
	Steps    int
	// Lengths lists the episode lengths that occur, shortest first.
	Lengths []LengthCount
	// Actions counts steps per action kind, most frequent first.
	Actions []Count
	// Facets counts episodes per value of each descriptive facet (category, app, device), most
	// frequent first. An episode with several apps counts once for each.
	Facets map[string][]Count
	// Splits counts selected episodes per split and part, by split name then part.
	Splits []SplitCount
}

// Bin is one bar of a length histogram: episodes with Lo to Hi steps, inclusive.
type Bin struct {
	Lo, Hi   int
	Episodes int
}

// LengthHistogram groups lengths into at most n bins of equal integer width covering the
// shortest to the longest episode. Each length falls into exactly one bin.
func LengthHistogram(lengths []LengthCount, n int) []Bin {
	if len(lengths) == 0 || n <= 0 {
		return nil
	}
	lo, hi := lengths[0].Steps, lengths[0].Steps
	for _, l := range lengths {
		lo, hi = min(lo, l.Steps), max(hi, l.Steps)
	}
	width := (hi - lo + n) / n // ceil((hi-lo+1)/n)
	bins := make([]Bin, (hi-lo)/width+1)
	for i := range bins {
		bins[i] = Bin{Lo: lo + i*width, Hi: lo + (i+1)*width - 1}
	}
	for _, l := range lengths {
		bins[(l.Steps-lo)/width].Episodes += l.Episodes
	}
	return bins
}

// TopCounts keeps the n largest counts and sums the rest into one "other (k)" entry.
func TopCounts(cs []Count, n int) []Count {
	if len(cs) <= n {
		return cs
	}
	out := append([]Count(nil), cs[:n]...)
	rest := Count{}
	for _, c := range cs[n:] {
		rest.N += c.N
	}
	rest.Value = fmt.Sprintf("%d others", len(cs)-n)
	return append(out, rest)
}

// RandomParts deals ids into a "train" and a "test" part: a seeded shuffle (the same ids, ratio
// and seed always give the same parts), then the first round(ratio·n) ids go to train. Each part
// keeps the ids' original order, so positions inside a part are stable.
func RandomParts(ids []int64, trainRatio float64, seed uint64) (train, test []int64) {
	if trainRatio < 0 || trainRatio > 1 {
		trainRatio = max(0, min(trainRatio, 1))
	}
	perm := rand.New(rand.NewPCG(seed, 0x41474453)).Perm(len(ids))
	nTrain := int(trainRatio*float64(len(ids)) + 0.5)
	inTrain := make([]bool, len(ids))
	for _, p := range perm[:nTrain] {
		inTrain[p] = true
	}
	for i, id := range ids {
		if inTrain[i] {
			train = append(train, id)
		} else {
			test = append(test, id)
		}
	}
	return train, test
}

// SplitSummary describes a split without its membership: the size of each part, by part name.
type SplitSummary struct {
	Name        string
	Kind        string // SplitOfficial or SplitUser
	Description string
	Parts       []Count
}

// Size is the number of episodes over all parts.
func (s SplitSummary) Size() int {
	n := 0
	for _, p := range s.Parts {
		n += p.N
	}
	return n
}

// PartBefore orders split parts as people and the split files expect them: train before test
// before any other part, the rest by name.
func PartBefore(a, b string) bool {
	rank := func(p string) int {
		switch p {
		case "train":
			return 0
		case "test":
			return 1
		}
		return 2
	}
	if rank(a) != rank(b) {
		return rank(a) < rank(b)
	}
	return a < b
}

// MarkMatches marks (MatchStart ... MatchEnd) the words of text that a search typed as query
// matches, the way the store's full-text index does: whole words, case and accents ignored
// (unicode61 with remove_diacritics), the last word also as a prefix (see TextQuery). Only the text on show is marked, so a search costs the
// same whatever the number of matches.
func MarkMatches(text, query string) string {
	words := strings.FieldsFunc(foldWord(query), notWordRune)
	if len(words) == 0 {
		return ""
	}
	prefix := ""
	if !endsWithSpace(query) {
		prefix = words[len(words)-1]
	}
	var b strings.Builder
	rest := text
	for rest != "" {
		i := strings.IndexFunc(rest, func(r rune) bool { return !notWordRune(r) })
		if i < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		rest = rest[i:]
		j := strings.IndexFunc(rest, notWordRune)
		if j < 0 {
			j = len(rest)
		}
		w := rest[:j]
		lw := foldWord(w)
		hit := prefix != "" && strings.HasPrefix(lw, prefix)
		for _, q := range words {
			hit = hit || lw == q
		}
		if hit {
			b.WriteString(MatchStart + w + MatchEnd)
		} else {
			b.WriteString(w)
		}
		rest = rest[j:]
	}
	return b.String()
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }

// foldWord lower-cases s and drops its diacritics (é, è, ê and e all become e; ß and ø stay),
// as the store's tokenizer does before comparing words.
func foldWord(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
