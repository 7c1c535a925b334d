package evaluation

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/evaluation/annotate"
	"github.com/agentdesk/agentdesk/engine/evaluation/annotate/annotatetest"
	"github.com/agentdesk/agentdesk/engine/modelclient"
	"github.com/agentdesk/agentdesk/engine/modelclient/fakeserver"
	"github.com/agentdesk/agentdesk/engine/samples"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

// sampleWithPeople opens the Evaluation sample with its two people's answers.
func sampleWithPeople(t *testing.T) (*Workspace, fyne.Window) {
	t.Helper()
	w, win, st := evalTestWS(t)
	ctx := context.Background()
	p, err := samples.EvaluationProject()
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.SaveEvalProject(ctx, p.Name, "created", "", p, "")
	if err != nil {
		t.Fatal(err)
	}
	saved, err := st.EvalProject(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	attempts, err := samples.EvalAnswers(saved, saved.Settings.PassedQualification)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ImportEvalAttempts(ctx, id, attempts); err != nil {
		t.Fatal(err)
	}
	w.openProject(id)
	w.tabs.SelectIndex(1) // Results
	win.Resize(fyne.NewSize(1024, 700))
	return w, win
}

// fillModelForm taps "Annotate with a model…", fills the form and taps Start.
func fillModelForm(t *testing.T, w *Workspace, win fyne.Window, url, units string) {
	t.Helper()
	uitest.TapButton(t, w.dash.root, "Annotate with a model…")
	overlay := win.Canvas().Overlays().Top()
	if overlay == nil {
		t.Fatal("no form")
	}
	m := w.dash.model
	test.Type(m.url, url)
	test.Type(m.model, "fake-1")
	test.Type(m.units, units)
	uitest.TapButton(t, overlay, "Start")
}

// The Results tab's "Annotate with a model…" runs the model over the sample's units against
// the fake server: the model passes screening, answers every unit left, is listed beside the
// people, and the agreement table compares it with them.
func TestAnnotateWithAModel(t *testing.T) {
	t.Setenv("AGENTDESK_API_KEY", "")
	w, win := sampleWithPeople(t)
	o := annotatetest.Oracle{Project: w.open.p}
	srv := fakeserver.New(fakeserver.Options{Answer: func(r fakeserver.Request) string { return o.Answer(r.Text()) }})
	defer srv.Close()
	uitest.InView(t, win, "Annotate with a model…", w.dash.model.btn)
	fillModelForm(t, w, win, srv.URL, "")
	d := w.dash
	if !strings.Contains(d.model.status.Text, "Done: model:fake-1: 7 units") || !strings.Contains(d.model.status.Text, "screening passed") {
		t.Fatalf("status %q", d.model.status.Text)
	}
	found := false
	for r := 1; r <= len(d.participants); r++ {
		if d.peopleCell(widget.TableCellID{Row: r, Col: 0}) == "model:fake-1 (model fake-1)" && d.peopleCell(widget.TableCellID{Row: r, Col: 1}) == "7" {
			found = true
		}
	}
	if !found {
		t.Fatal("the model is not among the participants with its 7 units")
	}
	if d.stats == nil {
		t.Fatalf("no statistics: %s", d.statsStatus.Text)
	}
	groups := 0
	for r := 1; r <= len(d.rows); r++ {
		if strings.Contains(d.agreementCell(widget.TableCellID{Row: r, Col: 0}), "↳ models and people") {
			groups++
		}
	}
	if groups != len(d.stats.Labels) || !strings.Contains(d.statsStatus.Text, "compare models with people") {
		t.Fatalf("%d rows comparing models with people for %d labels; %s", groups, len(d.stats.Labels), d.statsStatus.Text)
	}
}

// Cancel stops a run part-way: the answers given are kept, the status says so, and starting
// again continues with the units not yet answered.
func TestAnnotateWithAModelCancel(t *testing.T) {
	t.Setenv("AGENTDESK_API_KEY", "")
	w, win := sampleWithPeople(t)
	o := annotatetest.Oracle{Project: w.open.p}
	reached := make(chan struct{})
	var n atomic.Int64
	srv := fakeserver.New(fakeserver.Options{Answer: func(r fakeserver.Request) string {
		if n.Add(1) == 20 {
			close(reached)
		}
		return o.Answer(r.Text())
	}})
	defer srv.Close()
	host := w.host.(*uitest.Host)
	done := make(chan annotate.Result, 1)
	var background sync.WaitGroup // the run, and what its end starts (the statistics)
	host.Run = func(f func()) {
		background.Add(1)
		go func() {
			defer background.Done()
			f()
		}()
	}
	// The run's progress comes to this goroutine, the test's UI goroutine, and the run waits
	// until it is shown, as fyne.Do orders it with the UI in the app.
	type shown struct {
		f    func()
		done chan struct{}
	}
	progress := make(chan shown)
	host.UI = func(f func()) {
		s := shown{f, make(chan struct{})}
		progress <- s
		<-s.done
	}
	t.Cleanup(func() { host.UI = nil })
	w.dash.model.onDone = func(res annotate.Result, err error) { done <- res }
	fillModelForm(t, w, win, srv.URL, "")
	for waiting := true; waiting; {
		select {
		case <-reached:
			waiting = false
		case s := <-progress:
			s.f()
			close(s.done)
		}
	}
	if !w.dash.model.cancel.Visible() {
		t.Fatal("no Cancel while the model runs")
	}
	test.Tap(w.dash.model.cancel)
	var res annotate.Result
	for waiting := true; waiting; {
		select {
		case res = <-done:
			waiting = false
		case s := <-progress:
			s.f()
			close(s.done)
		}
	}
	background.Wait() // the statistics the run's end started are shown
	host.UI = nil
	if !strings.Contains(w.dash.model.status.Text, "Cancelled. Kept:") || res.Units >= 7 {
		t.Fatalf("status %q, %+v", w.dash.model.status.Text, res)
	}
	host.Run = nil
	w.dash.model.onDone = nil
	uitest.TapButton(t, w.dash.root, "Annotate with a model…")
	uitest.TapButton(t, win.Canvas().Overlays().Top(), "Start")
	if want := "Done: model:fake-1: " + string(rune('0'+7-res.Units)) + " units"; !strings.Contains(w.dash.model.status.Text, want) {
		t.Fatalf("status %q, want %q", w.dash.model.status.Text, want)
	}
}

// The form can take the API key from the OS keyring (a MemoryKeyring here): the server that
// wants that key gets it, and a server that wants another refuses the run, which says so.
func TestAnnotateWithAModelKeyFromKeyring(t *testing.T) {
	t.Setenv("AGENTDESK_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	ring := &modelclient.MemoryKeyring{}
	if err := ring.Set(modelclient.KeyringService, "lab", "sk-from-ring"); err != nil {
		t.Fatal(err)
	}
	old := annotateKeyring
	annotateKeyring = ring
	t.Cleanup(func() { annotateKeyring = old })
	w, win := sampleWithPeople(t)
	o := annotatetest.Oracle{Project: w.open.p}
	srv := fakeserver.New(fakeserver.Options{Key: "sk-from-ring", Answer: func(r fakeserver.Request) string { return o.Answer(r.Text()) }})
	defer srv.Close()
	m := w.dash.model
	uitest.TapButton(t, w.dash.root, "Annotate with a model…")
	overlay := win.Canvas().Overlays().Top()
	if overlay == nil {
		t.Fatal("no form")
	}
	if !m.account.Disabled() {
		t.Fatal("the keyring account is editable while the key comes from the environment")
	}
	m.key.SetSelected(annotateKeyKeyring)
	if m.account.Disabled() {
		t.Fatal("the keyring account cannot be edited")
	}
	m.account.SetText("lab")
	if sz := overlay.MinSize(); sz.Height > 700 || sz.Width > 1024 {
		t.Fatalf("the form needs %v, more than a 1024x700 window", sz)
	}
	test.Type(m.url, srv.URL)
	test.Type(m.model, "fake-1")
	test.Type(m.units, "1")
	uitest.TapButton(t, overlay, "Start")
	if !strings.Contains(m.status.Text, "Done: model:fake-1: 1 unit") {
		t.Fatalf("with the keyring's key: %q", m.status.Text)
	}
	// the same form against a server that wants another key
	other := fakeserver.New(fakeserver.Options{Key: "sk-other", Answer: func(r fakeserver.Request) string { return o.Answer(r.Text()) }})
	defer other.Close()
	uitest.TapButton(t, w.dash.root, "Annotate with a model…")
	overlay = win.Canvas().Overlays().Top()
	m.url.SetText(other.URL)
	uitest.TapButton(t, overlay, "Start")
	if !strings.Contains(m.status.Text, "Stopped") || !strings.Contains(m.status.Text, "401") || strings.Contains(m.status.Text, "sk-from-ring") {
		t.Fatalf("with a key the server refuses: %q", m.status.Text)
	}
}
