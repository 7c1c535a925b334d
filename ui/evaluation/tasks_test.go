package evaluation

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/samples"
	"github.com/agentdesk/agentdesk/store"
	"github.com/agentdesk/agentdesk/ui/uitest"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

var (
	_ workspace.Tasks   = (*Workspace)(nil)
	_ workspace.Running = (*Workspace)(nil)
)

// loadSample stores the sample evaluation project as the sample data does (its source is the
// samples' project file) and returns its id.
func loadSample(t *testing.T, st *store.Store) int64 {
	t.Helper()
	p, file := sampleDef(t)
	id, err := st.SaveEvalProject(context.Background(), p.Name, "imported", file, p, "")
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// sampleDef is the sample evaluation project as its file defines it, and the file.
func sampleDef(t *testing.T) (*ev.Project, string) {
	t.Helper()
	set, err := samples.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(set.Evaluation, samples.EvaluationFile)
	p, err := ev.LoadProject(file)
	if err != nil {
		t.Fatal(err)
	}
	return p, file
}

// sampleWS is the workspace on a store with the sample project, in a window of the given size.
func sampleWS(t *testing.T, size fyne.Size) (*Workspace, fyne.Window, *store.Store) {
	t.Helper()
	test.NewTempApp(t)
	st := uitest.OpenStore(t)
	loadSample(t, st)
	h := uitest.NewHost(t, size.Width, size.Height)
	w := New(h, st)
	w.every = func(time.Duration, func()) func() { return func() {} }
	h.Put(w)
	return w, h.Win, st
}

// inView is the tour's rule (uitest.Why), a table also showing its header and a row.
func inView(win fyne.Window, obj fyne.CanvasObject) string {
	r, why := uitest.Why(win, win.Content(), obj)
	if tb, ok := obj.(*widget.Table); ok && why == "" {
		why = uitest.TableShowsRows(tb, r, 2)
	}
	return why
}

// The sizes a workspace has: the room on a 1024x700 screen beside the shell's navigation and
// title today, the whole window content at 1024x700, and a large screen.
var taskSizes = []fyne.Size{uitest.Workspace, fyne.NewSize(1024, 670), fyne.NewSize(1700, 1000)}

// Every task of the workspace brings what it needs into view without scrolling, at every size.
func TestEvaluationTasksInView(t *testing.T) {
	for _, size := range taskSizes {
		w, win, st := sampleWS(t, size)
		addTwoAnnotators(t, w, st)
		for _, name := range w.TaskNames() {
			if err := w.StartTask(name); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			v, err := w.TaskView(name)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want := map[string][]string{TaskAnnotate: {"next", "dialogue", "choices"}, TaskServe: {"serve-button", "links-table"},
				TaskResults: {"agreement-table"}}[name]
			for _, widgetName := range want {
				if why := inView(win, v.Widgets[widgetName]); why != "" {
					t.Errorf("%.0fx%.0f %s %s: %s", size.Width, size.Height, name, widgetName, why)
				}
			}
			if name == TaskAnnotate && len(v.Targets) == 0 {
				t.Errorf("%s: no answers to choose", name)
			}
			// from 1024 px on, the progress line beside the tab's buttons is read whole, not cut
			// ("3 participa…")
			if s := w.dash.summary; name == TaskResults && size.Width >= 1024 {
				need := fyne.MeasureText(s.Text, theme.TextSize(), s.TextStyle).Width + 2*theme.InnerPadding()
				if s.Size().Width < need {
					t.Errorf("%.0fx%.0f: the summary %q gets %.0f px of the %.0f it needs", size.Width, size.Height, s.Text, s.Size().Width, need)
				}
			}
		}
		if m := w.Content().MinSize(); m.Width > size.Width || m.Height > size.Height {
			t.Errorf("at %.0fx%.0f the workspace needs %.0fx%.0f: the window would grow", size.Width, size.Height, m.Width, m.Height)
		}
	}
}

// addTwoAnnotators stores finished units of the sample's six chats from two annotators (as
// imported results), so that Results has agreement rows.
func addTwoAnnotators(t *testing.T, w *Workspace, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	id, err := w.sampleProject()
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.EvalProject(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	cons := p.Type("consistency")
	var attempts []ev.ImportedAttempt
	for k, who := range []string{"ann", "bob"} {
		for b, bundle := range p.Bundles {
			if len(bundle.Datapoints[0].Turns2) > 0 {
				continue // the pair
			}
			state := ev.NewAnswerState(who)
			a := state.Dialogue(0)
			a.Likert = map[string]string{}
			for _, sc := range p.Type("dialogue_ratings").Scales {
				a.Likert[sc.Label] = []string{"2", "4", "3", "5", "1", "4"}[(b+k*(b%2))%6]
			}
			a.Data = map[string]ev.TurnAnswers{}
			dp := bundle.Datapoints[0]
			for _, pos := range cons.Positions(len(dp.Turns)) {
				ta := ev.NewTurnAnswers(pos, dp.Turns[pos])
				var labels []string
				if (pos+b+k*(pos%3))%3 == 0 {
					labels = []string{"redundant"}
				}
				ta[cons.LabelsKey()] = labels
				a.Data[strconv.Itoa(pos)] = ta
			}
			raw, err := json.Marshal(state)
			if err != nil {
				t.Fatal(err)
			}
			attempts = append(attempts, ev.ImportedAttempt{File: who, Participant: who, Kind: ev.UnitTask, Position: b,
				State: raw, Result: json.RawMessage(`{"completed":true}`), CompletedAt: time.Now()})
		}
	}
	if _, err := st.ImportEvalAttempts(ctx, id, attempts); err != nil {
		t.Fatal(err)
	}
}

// Pages speak the project's words: the speakers' names in the instructions (no SPEAKER_Y),
// type names as headings (no "dialogue_ratings", "Begin consistency").
func TestEvaluationWordsForPeople(t *testing.T) {
	w, _, _ := sampleWS(t, fyne.NewSize(1024, 670))
	if err := w.StartTask(TaskResults); err != nil { // opens the sample project
		t.Fatal(err)
	}
	w.tabs.SelectIndex(0)
	s := w.session
	s.signIn("reader")
	intro := uitest.Texts(s.root)
	if !strings.Contains(intro, "Begin Consistency") || strings.Contains(intro, "Begin consistency") {
		t.Fatalf("training intro:\n%s", intro)
	}
	s.act(s.core.Next(context.Background()))
	page := uitest.Texts(s.root)
	if s.page == nil || strings.Contains(page, "SPEAKER_") || !strings.Contains(page, "what Sam said") {
		t.Fatalf("the rating page:\n%s", page)
	}
	p, _ := sampleDef(t)
	for _, ty := range p.Types {
		if h := ev.DisplayName(ty.Title); strings.Contains(h, "_") {
			t.Errorf("heading %q", h)
		}
	}
}

// The tables' headers are drawn whole ("units done", not "units d…") at every size, down to a
// narrow window (where the optional columns make way).
func TestEvaluationTableHeadersWhole(t *testing.T) {
	for _, size := range append(taskSizes, fyne.NewSize(600, 520)) {
		w, _, st := sampleWS(t, size)
		addTwoAnnotators(t, w, st)
		for _, c := range []struct {
			task  string
			view  int
			table func() *widget.Table
			heads []string
		}{
			{TaskResults, 0, func() *widget.Table { return w.dash.agreement }, ev.StatsColumns},
			{TaskResults, 1, func() *widget.Table { return w.dash.people }, peopleColumns},
			{TaskServe, -1, func() *widget.Table { return w.serve.table }, []string{"participant", "assignment", "link"}},
		} {
			if err := w.StartTask(c.task); err != nil {
				t.Fatal(err)
			}
			if c.view >= 0 {
				w.dash.views.SelectIndex(c.view)
			}
			heads := map[string]bool{}
			for _, h := range c.heads {
				heads[h] = true
			}
			seen := 0
			uitest.Walk(c.table(), func(o fyne.CanvasObject) {
				l, ok := o.(*widget.Label)
				if !ok || !heads[l.Text] {
					return
				}
				seen++
				need := fyne.MeasureText(l.Text, theme.TextSize(), l.TextStyle).Width + 2*theme.InnerPadding()
				if l.Size().Width+0.5 < need {
					t.Errorf("%.0fx%.0f: header %q is %.0f px wide, its text needs %.0f", size.Width, size.Height, l.Text, l.Size().Width, need)
				}
			})
			if seen < 2 {
				t.Errorf("%.0fx%.0f %s: only %d headers drawn", size.Width, size.Height, c.task, seen)
			}
		}
	}
}

// fitTitles widens a column to its title (in the theme's text), never narrows one.
func TestFitTitles(t *testing.T) {
	test.NewTempApp(t)
	cols := fitTitles([]widgets.Column{{Title: "units done", Min: 10}, {Title: "x", Min: 300}})
	need := fyne.MeasureText("units done", theme.TextSize(), fyne.TextStyle{}).Width + 2*theme.InnerPadding()
	if cols[0].Min < need || cols[1].Min != 300 {
		t.Fatalf("widths %v, %v (the title needs %.0f)", cols[0].Min, cols[1].Min, need)
	}
}

// An open project's way back and name sit at the end of its tab bar where they fit (the tabs'
// content gets the row), and in a row of their own on a narrow window.
func TestProjectHeadingBesideTheTabs(t *testing.T) {
	for _, c := range []struct {
		width  float32
		beside bool
	}{{1024, true}, {uitest.Workspace.Width, true}, {480, false}} {
		w, win, _ := sampleWS(t, fyne.NewSize(c.width, 520))
		if err := w.StartTask(TaskResults); err != nil {
			t.Fatal(err)
		}
		back := uitest.Find(w.Content(), func(b *widget.Button) bool { return b.Text == "Projects" })
		tabs, _, _ := uitest.Locate(win, w.tabs)
		b, _, _ := uitest.Locate(win, back)
		tabsY, backY := tabs.Pos.Y, b.Pos.Y
		if beside := abs(tabsY-backY) < 1; beside != c.beside {
			t.Errorf("width %.0f: tabs at y %.0f, Projects at y %.0f (beside: want %v)", c.width, tabsY, backY, c.beside)
		}
		if why := inView(win, back); why != "" {
			t.Errorf("width %.0f: Projects %s", c.width, why)
		}
	}
}

// The Project tab heads each type with the name participants see (the project file's keys
// after it, quieter) and previews the instructions as participants read them: no SPEAKER_Y.
// The agreement table names the types the same way.
func TestEvaluationProjectTabWordsForPeople(t *testing.T) {
	w, _, _ := sampleWS(t, fyne.NewSize(1024, 670))
	if err := w.StartTask(TaskResults); err != nil { // opens the sample project
		t.Fatal(err)
	}
	types := w.typesEditor()
	text := uitest.Texts(types)
	if strings.Contains(text, "SPEAKER_") {
		t.Errorf("the Project tab shows a placeholder:\n%s", text)
	}
	p, _ := sampleDef(t)
	bold := map[string]bool{}
	uitest.Walk(types, func(o fyne.CanvasObject) {
		if l, ok := o.(*widget.Label); ok && l.TextStyle.Bold {
			bold[l.Text] = true
		}
	})
	for _, ty := range p.Types {
		if h := ev.DisplayName(ty.Title); !bold[h] {
			t.Errorf("no heading %q for type %s (bold labels: %v)", h, ty.Name, bold)
		}
		if bold[ty.Title] && ty.Title != ev.DisplayName(ty.Title) {
			t.Errorf("the internal name %q is a heading", ty.Title)
		}
	}
	if got := readableLabel("dialogue_ratings: Consistent"); got != "Dialogue ratings: Consistent" {
		t.Errorf("agreement label %q", got)
	}
}
