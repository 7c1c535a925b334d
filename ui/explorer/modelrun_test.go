package explorer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/agentdesk/agentdesk/engine/modelclient"
	"github.com/agentdesk/agentdesk/engine/modelclient/fakeserver"
	"github.com/agentdesk/agentdesk/engine/odyssey/predict"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

// TestExplorerRunsAModel: Run a model… with a key from the (fake) OS keyring sends each test
// record of the split to the fake server, writes the predictions, scores them and saves the
// run, selected; the form refuses a bad URL in place; Compare… then shows the model's run
// beside the sample's, per action kind and category, with the episodes where they differ.
func TestExplorerRunsAModel(t *testing.T) {
	test.NewTempApp(t)
	st, set := sampleStore(t)
	_, x, w := openExplorer(t, wf(st))
	w.Resize(uitest.Laptop)
	x.tabs.SelectIndex(3)
	sc := x.scoring
	sc.split.SetSelected(set.OdysseySplit)
	const key = "sk-ui-test-77aa"
	ring := &modelclient.MemoryKeyring{}
	ring.Set(modelclient.KeyringService, "hosted", key)
	old := keyringFor
	keyringFor = ring
	t.Cleanup(func() { keyringFor = old })
	srv := fakeserver.New(fakeserver.Options{Key: key, Answer: func(r fakeserver.Request) string {
		if len(r.Images()) > 1 {
			return "PRESS_BACK"
		}
		return "COMPLETE"
	}})
	defer srv.Close()
	records, err := st.OdysseyTestRecords(context.Background(), set.OdysseySplit, "high")
	if err != nil || len(records) == 0 {
		t.Fatalf("%d records, %v", len(records), err)
	}

	uitest.InView(t, w, "Run a model…", sc.modelB)
	sc.modelDialog()
	f := sc.lastForm
	uitest.DialogFits(t, "Run a model", w)
	f.url.SetText("localhost:1/v1") // no scheme
	f.model.SetText("fake-agent")
	test.Tap(sc.modelRunB)
	if srv.Count() != 0 || sc.lastForm != f {
		t.Fatal("a bad URL was run")
	}
	out := filepath.Join(t.TempDir(), "preds.json")
	f.url.SetText(srv.URL)
	f.key.SetSelected(keyKeyring)
	f.account.SetText("hosted")
	f.out.SetText(out)
	before := len(sc.runs)
	test.Tap(sc.modelRunB)
	if srv.Count() != len(records) {
		t.Fatalf("%d requests for %d records", srv.Count(), len(records))
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
	run, ok := sc.selectedRun()
	if len(sc.runs) != before+1 || !ok || run.PredictionsPath != out {
		t.Fatalf("runs %d (was %d), selected %+v", len(sc.runs), before, run)
	}
	if !strings.Contains(sc.outcome.Text, "Saved as run #") {
		t.Fatalf("outcome %q", sc.outcome.Text)
	}
	data, _ := os.ReadFile(st.Path())
	if strings.Contains(string(data), key) {
		t.Fatal("the key is in the store")
	}

	// Compare the model's run with the sample's.
	sc.compareDialog()
	c := sc.comparison
	if c == nil || c.A.ID == c.B.ID {
		t.Fatalf("comparison %+v", c)
	}
	text := sc.compareOut.Text
	for _, want := range []string{"Per action kind", "Per category", "Episodes where the runs differ"} {
		if !strings.Contains(text, want) {
			t.Fatalf("comparison lacks %q:\n%s", want, text)
		}
	}
	if len(c.Episodes) == 0 {
		t.Fatalf("a model answering COMPLETE and PRESS_BACK differs from the sample predictions nowhere:\n%s", text)
	}
	var kinds, cats int
	for _, r := range c.Rows {
		if r.Dim == "action" {
			kinds++
		} else {
			cats++
		}
	}
	if kinds == 0 || cats == 0 {
		t.Fatalf("rows %+v", c.Rows)
	}
}

// TestExplorerModelRunCancels: Cancel stops a run whose server does not answer; the tab says
// that the answers are kept and that running again resumes; no file is written.
func TestExplorerModelRunCancels(t *testing.T) {
	test.NewTempApp(t)
	st, set := sampleStore(t)
	h, x, _ := openExplorer(t, wf(st))
	sc := x.scoring
	arrived := make(chan struct{}, 64)
	srv := fakeserver.New(fakeserver.Options{Behave: func(fakeserver.Call) fakeserver.Reply {
		arrived <- struct{}{}
		return fakeserver.Reply{Kind: fakeserver.Hang}
	}})
	defer srv.Close()
	done := make(chan struct{})
	h.Run = func(f func()) { go func() { f(); close(done) }() }
	out := filepath.Join(t.TempDir(), "p.json")
	task := sc.runModel(modelclient.Config{BaseURL: srv.URL, Model: "m", Concurrency: 2, Key: modelclient.KeySource{Env: []string{}}},
		set.OdysseySplit, "high", predict.DefaultHisLen, out)
	<-arrived
	task.Stop()
	<-done
	if !strings.Contains(sc.outcome.Text, "Cancelled") || !strings.Contains(sc.outcome.Text, "resumes") {
		t.Fatalf("outcome %q", sc.outcome.Text)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a cancelled run wrote its file")
	}
}
