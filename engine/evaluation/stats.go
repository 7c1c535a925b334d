package evaluation

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/agentdesk/agentdesk/engine/evaluation/agreement"
)

// Stats are a project's results by label: agreement between annotators (items annotated
// at least twice, first two annotations) and rates per bot (one annotation per item), by the
// ABC-Eval analysis method (spec §15).
type Stats struct {
	Labels []LabelStats
	// Annotators are the participants whose answers count, people and models apart (a
	// model annotator's Model is set). With models among them, each label's agreement and
	// rates are the people's, and Groups hold the agreements that involve models.
	Annotators []Annotator
}

// Annotator is one participant of the results: their name, the model a model annotator asks
// ("" for a person), and the annotations (label values) they gave.
type Annotator struct {
	Name        string
	Model       string
	Annotations int
}

// GroupAgreement is a label's agreement within or between groups of annotators: "models and
// people" (each item's first model annotation against its first person's), and with several
// models "models" (between model annotators) and "<participant> and people" (one model
// against people). Items are the items compared; Alpha has its bootstrap interval.
type GroupAgreement struct {
	Group       string
	Items       int
	Alpha       float64
	Low, High   float64
	FleissKappa float64
	Note        string
}

// LabelStats is one label: a binary behaviour ("type: answer", 1 when given), a 1-5 scale, or a
// comparison (+1 first dialogue preferred, 0 no difference, -1 second).
type LabelStats struct {
	Label string
	// Kind is "binary", "scale" or "comparison".
	Kind string
	// Items is the number of items compared for agreement (annotated at least twice).
	Items       int
	Alpha       float64
	Low, High   float64
	FleissKappa float64
	// CohenKappa (unweighted) and PercentAgreement (a share, 0 to 1) compare the same two
	// annotations per item.
	CohenKappa, PercentAgreement float64
	// Note says why a coefficient is missing.
	Note string
	// Rates are the label's rate (binary), mean (scale) or win share (comparison) per bot.
	Rates []BotRate
	// Groups are the agreements involving model annotators (none without them).
	Groups []GroupAgreement
}

// BotRate is a label's value for one bot with its 95% interval and the number of items.
type BotRate struct {
	Bot       string
	N         int
	Value     float64
	Low, High float64
}

// labelItems collects, per label, the annotations of each item in the order they were made.
type labelItems struct {
	kind  string
	items map[string][]float64 // item key -> values
	who   map[string][]string  // item key -> who gave each value
	bots  map[string]string    // item key -> bot
	order []string             // item keys in first-seen order
	// cur is the participant whose answers are being added.
	cur string
}

func (l *labelItems) add(item, bot string, v float64) {
	if _, ok := l.items[item]; !ok {
		l.order = append(l.order, item)
		l.bots[item] = bot
	}
	l.items[item] = append(l.items[item], v)
	l.who[item] = append(l.who[item], l.cur)
}

// pick is the label's items with only the values of the participants keep takes (items left
// with none are dropped), in the same order.
func (l *labelItems) pick(keep func(who string) bool) *labelItems {
	out := &labelItems{kind: l.kind, items: map[string][]float64{}, who: map[string][]string{}, bots: l.bots}
	for _, key := range l.order {
		for i, w := range l.who[key] {
			if keep(w) {
				if _, ok := out.items[key]; !ok {
					out.order = append(out.order, key)
				}
				out.items[key] = append(out.items[key], l.items[key][i])
				out.who[key] = append(out.who[key], w)
			}
		}
	}
	return out
}

// between is, per item, the first value of a participant a takes against the first of one b
// takes, for items that have both.
func (l *labelItems) between(a, b func(who string) bool) [][]float64 {
	var out [][]float64
	for _, key := range l.order {
		ia, ib := -1, -1
		for i, w := range l.who[key] {
			if ia < 0 && a(w) {
				ia = i
			} else if ib < 0 && b(w) {
				ib = i
			}
		}
		if ia >= 0 && ib >= 0 {
			out = append(out, []float64{l.items[key][ia], l.items[key][ib]})
		}
	}
	return out
}

func (l *labelItems) values() [][]float64 {
	items := make([][]float64, len(l.order))
	for i, key := range l.order {
		items[i] = l.items[key]
	}
	return items
}

// botOf names the bot of a dialogue: the model of a collected conversation, else the part of
// the dialogue id after its last underscore (ABC-Eval style ids end in the bot's name).
func botOf(dp Datapoint, collection bool) string {
	id := dp.DialogueID
	if collection {
		if i := strings.LastIndex(id, "-"); i >= 0 {
			return id[i+1:]
		}
		return id
	}
	if i := strings.LastIndex(id, "_"); i >= 0 && i+1 < len(id) {
		return id[i+1:]
	}
	return "all"
}

// collectLabels turns the submitted answers of real units (screening and gold excluded) into
// label values per item.
func collectLabels(p *Project, results []AssignmentResult) map[string]*labelItems {
	labels := map[string]*labelItems{}
	who := ""
	get := func(name, kind string) *labelItems {
		l := labels[name]
		if l == nil {
			l = &labelItems{kind: kind, items: map[string][]float64{}, who: map[string][]string{}, bots: map[string]string{}}
			labels[name] = l
		}
		l.cur = who
		return l
	}
	for _, as := range results {
		for _, a := range as.Attempts {
			if a.Final == nil || (a.Kind != AttemptUnit && a.Kind != AttemptCollection) {
				continue
			}
			who = a.Participant
			collection := a.Kind == AttemptCollection
			for i, dp := range a.Shown {
				ans := a.Final.Dialogues[i]
				if ans == nil {
					continue
				}
				types := dp.AnnotationTasks
				if collection {
					types = answeredTypes(p, ans)
				}
				bot := botOf(dp, collection)
				for _, name := range types {
					t := p.Type(name)
					if t == nil {
						continue
					}
					if t.Display == Comparative {
						addComparison(get, t, dp, ans, comparedBots(a.Shown, i, collection))
						continue
					}
					addTypeLabels(get, t, dp, ans, bot)
				}
			}
		}
	}
	return labels
}

// answeredTypes guesses which dialogue-level types a collected conversation was rated with
// (its shown datapoints carry no type list): those with an answer in the object.
func answeredTypes(p *Project, ans *Answers) []string {
	var out []string
	for _, t := range p.Types {
		switch t.Display {
		case LikertDialogue:
			for _, sc := range t.Scales {
				if ans.Likert[sc.Label] != "" {
					out = append(out, t.Name)
					break
				}
			}
		case Comparative:
			if ans.Comparative[t.Question] != "" {
				out = append(out, t.Name)
			}
		}
	}
	return out
}

func addTypeLabels(get func(string, string) *labelItems, t *AnnotationType, dp Datapoint, ans *Answers, bot string) {
	dlg := dp.DialogueID
	if bs := catalogueBehaviours(t); len(bs) > 0 && t.Display.TurnLevel() {
		// A type of the built-in catalogue: its ABC-Eval behaviour labels.
		for _, pos := range t.Positions(len(dp.Turns)) {
			item := dlg + "#" + strconv.Itoa(pos)
			for _, b := range bs {
				get(fmt.Sprintf("%s (%s)", b.Label, b.Abbr), "binary").add(item, bot, boolValue(b.Holds(ans.TurnAt(pos))))
			}
		}
		return
	}
	switch {
	case t.Display.IsFlow():
		for _, pos := range t.Positions(len(dp.Turns)) {
			item := dlg + "#" + strconv.Itoa(pos)
			entry := ans.TurnAt(pos)
			addFlowLabels(get, t, t.Flow, entry, item, bot)
		}
	case t.Display == Multiselect:
		for _, pos := range t.Positions(len(dp.Turns)) {
			item := dlg + "#" + strconv.Itoa(pos)
			chosen := map[string]bool{}
			for _, v := range ans.TurnAt(pos).List(t.LabelsKey()) {
				chosen[v] = true
			}
			for _, c := range t.Choices {
				if c.Speaker != nil && *c.Speaker != dp.Turns[pos].AgentIdx() {
					continue
				}
				get(t.Name+": "+c.Label, "binary").add(item, bot, boolValue(chosen[c.Value]))
			}
		}
	case t.Display == LikertTurn:
		for _, pos := range t.Positions(len(dp.Turns)) {
			item := dlg + "#" + strconv.Itoa(pos)
			for _, sc := range t.Scales {
				if v, err := strconv.Atoi(ans.TurnAt(pos).String(sc.Label)); err == nil {
					get(t.Name+": "+sc.Label, "scale").add(item, bot, float64(v))
				}
			}
		}
	case t.Display == LikertDialogue:
		for _, sc := range t.Scales {
			if v, err := strconv.Atoi(ans.Likert[sc.Label]); err == nil {
				get(t.Name+": "+sc.Label, "scale").add(dlg, bot, float64(v))
			}
		}
	case t.Display == ForeachSelectDialogue:
		for _, c := range t.Choices {
			if v, err := strconv.Atoi(ans.Ratings[c.Label]); err == nil {
				get(t.Name+": "+c.Label, "scale").add(dlg, bot, float64(v))
			}
		}
	}
}

// comparedBots names the two bots a comparison of shown datapoint i puts side by side, "left vs
// right": a static pair's dialogue ids ("<left id>|<right id>"), or in a collection session the
// previous conversation (left) against this one.
func comparedBots(shown []Datapoint, i int, collection bool) string {
	dp := shown[i]
	if collection {
		if i == 0 {
			return botOf(dp, true)
		}
		return botOf(shown[i-1], true) + " vs " + botOf(dp, true)
	}
	if left, right, ok := strings.Cut(dp.DialogueID, "|"); ok {
		return botOf(Datapoint{DialogueID: left}, false) + " vs " + botOf(Datapoint{DialogueID: right}, false)
	}
	return botOf(dp, false)
}

// addComparison records a comparison's outcome for the pair of bots: +1 when the left (first)
// dialogue is preferred, -1 the right, 0 no difference (the options in that order), so the
// pair's rate is the left bot's win share against the right one.
func addComparison(get func(string, string) *labelItems, t *AnnotationType, dp Datapoint, ans *Answers, pair string) {
	choice := ans.Comparative[t.Question]
	for k, opt := range t.Comparisons {
		if opt == choice {
			v := map[int]float64{0: agreement.Win, 1: agreement.Lose}[k]
			get(t.Name, "comparison").add(dp.DialogueID, pair, v)
		}
	}
}

// catalogueBehaviours are the built-in catalogue's behaviour labels read from type t.
func catalogueBehaviours(t *AnnotationType) []Behaviour {
	c, err := Catalogue()
	if err != nil {
		return nil
	}
	var out []Behaviour
	for _, b := range c.Behaviours {
		// the type must also ask the question the label reads (an imported type may share
		// a catalogue type's name but not its questions)
		if b.Type == t.Name && (t.Flow.Find(b.Key) != nil || b.Key == t.LabelsKey()) {
			out = append(out, b)
		}
	}
	return out
}

// addFlowLabels makes one binary label per (question, answer): 1 when that answer was given on
// the turn. A checkbox left unticked counts 0; an unanswered radio question counts nothing.
func addFlowLabels(get func(string, string) *labelItems, t *AnnotationType, flow Flow, entry TurnAnswers, item, bot string) {
	for _, q := range flow {
		given := entry.String(q.Text)
		if given == "" && !q.Checkbox {
			continue
		}
		for _, a := range q.Answers {
			name := t.Name + ": " + a.Text
			if !q.Checkbox {
				name = t.Name + ": " + a.Text + " — " + q.Text
			}
			get(name, "binary").add(item, bot, boolValue(given == a.Text))
			if given == a.Text && len(a.Sub) > 0 {
				addFlowLabels(get, t, a.Sub, entry, item, bot)
			}
		}
	}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// ComputeStats computes agreement (alpha at the given level of measurement, with a
// 1000-resample bootstrap interval, and Fleiss' kappa) and per-bot rates for every label. The
// ABC-Eval authors used agreement.Ordinal for every label. progress, when not nil, is called
// after each label. The bootstrap is seeded with the project's random seed, so results repeat.
func ComputeStats(ctx context.Context, p *Project, results []AssignmentResult, level agreement.Level, progress func(done, total int)) (Stats, error) {
	return ComputeStatsWithModels(ctx, p, results, level, nil, progress)
}

// ComputeStatsWithModels is ComputeStats with model annotators kept apart: models maps the
// participant names of model annotators to their model. Each label's agreement and rates are
// then the people's alone, and its Groups give the agreement between models, between models
// and people, and (with several models) between each model and people. Stats.Annotators lists
// everyone whose answers count.
func ComputeStatsWithModels(ctx context.Context, p *Project, results []AssignmentResult, level agreement.Level, models map[string]string, progress func(done, total int)) (Stats, error) {
	labels := collectLabels(p, results)
	isModel := func(w string) bool { _, ok := models[w]; return ok }
	isPerson := func(w string) bool { return !isModel(w) }
	counts := map[string]int{}
	for _, l := range labels {
		for _, ws := range l.who {
			for _, w := range ws {
				counts[w]++
			}
		}
	}
	names := make([]string, 0, len(labels))
	for n := range labels {
		names = append(names, n)
	}
	sort.Strings(names)
	var out Stats
	for k, name := range names {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		all := labels[name]
		l := all
		if len(models) > 0 {
			l = all.pick(isPerson)
		}
		row := LabelStats{Label: name, Kind: l.kind, Alpha: math.NaN(), Low: math.NaN(), High: math.NaN(), FleissKappa: math.NaN(),
			CohenKappa: math.NaN(), PercentAgreement: math.NaN()}
		items := l.values()
		opt := agreement.ABCEvalBootstrap(uint64(p.Settings.RandomSeed))
		la, err := agreement.AgreementOnLabelAt(ctx, items, level, opt)
		row.Items, row.FleissKappa = la.Items, la.FleissKappa
		row.Alpha, row.Low, row.High = la.Alpha.Estimate, la.Alpha.CI.Low, la.Alpha.CI.High
		if pairs, _, e := agreement.FirstTwoAnnotations(items); e == nil {
			if k, e := agreement.CohenKappa(pairs, agreement.Unweighted); e == nil {
				row.CohenKappa = k
			}
			if a, e := agreement.PercentAgreement(pairs); e == nil {
				row.PercentAgreement = a
			}
		}
		if row.Note, err = agreementNote(err); err != nil {
			return out, err
		}
		row.Rates = botRates(l, uint64(p.Settings.RandomSeed))
		if len(models) > 0 {
			groups := []struct {
				name  string
				items [][]float64
			}{{"models and people", all.between(isModel, isPerson)}}
			if len(models) > 1 {
				groups = append(groups, struct {
					name  string
					items [][]float64
				}{"models", all.pick(isModel).values()})
				for _, m := range slices.Sorted(maps.Keys(models)) {
					one := func(w string) bool { return w == m }
					groups = append(groups, struct {
						name  string
						items [][]float64
					}{m + " and people", all.between(one, isPerson)})
				}
			}
			for _, g := range groups {
				ga, err := agreement.AgreementOnLabelAt(ctx, g.items, level, opt)
				r := GroupAgreement{Group: g.name, Items: ga.Items, Alpha: ga.Alpha.Estimate, Low: ga.Alpha.CI.Low, High: ga.Alpha.CI.High, FleissKappa: ga.FleissKappa}
				if r.Note, err = agreementNote(err); err != nil {
					return out, err
				}
				row.Groups = append(row.Groups, r)
			}
		}
		out.Labels = append(out.Labels, row)
		if progress != nil {
			progress(k+1, len(names))
		}
	}
	for _, w := range slices.Sorted(maps.Keys(counts)) {
		out.Annotators = append(out.Annotators, Annotator{Name: w, Model: models[w], Annotations: counts[w]})
	}
	slices.SortStableFunc(out.Annotators, func(a, b Annotator) int { return boolCmp(a.Model != "", b.Model != "") })
	return out, nil
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// agreementNote says why a coefficient is missing; a cancellation is returned as the error.
func agreementNote(err error) (string, error) {
	switch {
	case err == nil:
		return "", nil
	case errors.Is(err, agreement.ErrNoPairableUnits):
		return "no item annotated twice", nil
	case errors.Is(err, agreement.ErrNoVariation):
		return "all annotations equal", nil
	case errors.Is(err, agreement.ErrDegenerateInterval):
		return "interval undefined", nil
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "", err
	}
	return err.Error(), nil
}

// botRates picks one annotation per item (seeded) and summarises it per bot.
func botRates(l *labelItems, seed uint64) []BotRate {
	byBot := map[string][][]float64{}
	for _, key := range l.order {
		byBot[l.bots[key]] = append(byBot[l.bots[key]], l.items[key])
	}
	var out []BotRate
	for _, bot := range slices.Sorted(maps.Keys(byBot)) {
		values, _, err := agreement.PickOneAnnotation(byBot[bot], seed)
		if err != nil || len(values) == 0 {
			continue
		}
		r := BotRate{Bot: bot, N: len(values), Low: math.NaN(), High: math.NaN()}
		switch l.kind {
		case "binary":
			if p, err := agreement.BehaviourRate(values, 0.95); err == nil {
				r.Value, r.Low, r.High = p.Value, p.CI.Low, p.CI.High
			}
		case "scale":
			if m, err := agreement.MeanCI(values, 0.95); err == nil {
				r.Value, r.Low, r.High = m.Value, m.CI.Low, m.CI.High
			} else {
				r.Value = mean(values)
			}
		case "comparison":
			if w, err := agreement.WinRatesOf(values, 0.95); err == nil {
				r.Value, r.Low, r.High = w.Win.Value, w.Win.CI.Low, w.Win.CI.High
			}
		}
		out = append(out, r)
	}
	return out
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Cell is the text of column col of the agreement table: label, items, alpha, interval, Fleiss' kappa, note.
// StatsColumns are the agreement table's column headings, for LabelStats.Cell.
var StatsColumns = []string{"label", "items", "α", "95% CI", "Fleiss κ", "Cohen κ", "agreement", "note"}

func (r LabelStats) Cell(col int) string {
	switch col {
	case 0:
		return r.Label
	case 1:
		return fmt.Sprint(r.Items)
	case 2:
		return num(r.Alpha)
	case 3:
		if math.IsNaN(r.Low) {
			return "—"
		}
		return fmt.Sprintf("[%s, %s]", num(r.Low), num(r.High))
	case 4:
		return num(r.FleissKappa)
	case 5:
		return num(r.CohenKappa)
	case 6:
		if math.IsNaN(r.PercentAgreement) {
			return "—"
		}
		return fmt.Sprintf("%.1f %%", 100*r.PercentAgreement)
	}
	return r.Note
}

// Text is the rate as the dashboard and the command line show it: the value and the items.
func (r BotRate) Text() string { return fmt.Sprintf("%s (n=%d)", num(r.Value), r.N) }

func num(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.3f", v)
}
