package annotate_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/agreement"
	"github.com/agentdesk/agentdesk/engine/evaluation/annotate"
	"github.com/agentdesk/agentdesk/engine/evaluation/annotate/annotatetest"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/engine/modelclient/fakeserver"
	"github.com/agentdesk/agentdesk/engine/samples"
	"github.com/agentdesk/agentdesk/store"
)

func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// Two models annotate the sample beside its two people: each label's agreement is the people's
// alone (as if the models had not annotated), and its groups compare models with people,
// models with each other, and each model with people.
func TestStatsKeepModelsApart(t *testing.T) {
	ctx := context.Background()
	p, err := samples.EvaluationProject()
	if err != nil {
		t.Fatal(err)
	}
	for k := range p.Units {
		p.Units[k] = 4 // two people, two models
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "stats.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id, err := st.SaveEvalProject(ctx, p.Name, "created", "", p, "")
	if err != nil {
		t.Fatal(err)
	}
	def, err := st.EvalProject(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	o := annotatetest.Oracle{Project: def}
	srv := fakeserver.New(fakeserver.Options{Answer: func(r fakeserver.Request) string { return o.Answer(r.Text()) }})
	defer srv.Close()
	sp := session.NewProject(id, def.Name, def)
	for _, m := range []string{"fake-1", "fake-2"} {
		if _, err := annotate.Run(ctx, st, sp, client(t, srv.URL), annotate.Options{Model: m, URL: srv.URL}); err != nil {
			t.Fatal(err)
		}
	}
	// the people's answers come after the models' (the models hold the first units)
	people, err := samples.EvalAnswers(def, def.Settings.PassedQualification)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ImportEvalAttempts(ctx, id, people); err != nil {
		t.Fatal(err)
	}
	_, results, err := st.EvalResults(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]string{"model:fake-1": "fake-1", "model:fake-2": "fake-2"}
	got, err := ev.ComputeStatsWithModels(ctx, def, results, agreement.Ordinal, models, nil)
	if err != nil {
		t.Fatal(err)
	}
	var peopleOnly []ev.AssignmentResult
	for _, as := range results {
		c := as
		c.Attempts = nil
		for _, a := range as.Attempts {
			if _, ok := models[a.Participant]; !ok {
				c.Attempts = append(c.Attempts, a)
			}
		}
		peopleOnly = append(peopleOnly, c)
	}
	want, err := ev.ComputeStats(ctx, def, peopleOnly, agreement.Ordinal, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Labels) != len(want.Labels) || len(got.Annotators) != 4 || got.Annotators[2].Model != "fake-1" || got.Annotators[0].Model != "" {
		t.Fatalf("%d labels, want %d; annotators %+v", len(got.Labels), len(want.Labels), got.Annotators)
	}
	for i, l := range got.Labels {
		w := want.Labels[i]
		if l.Label != w.Label || l.Items != w.Items || !same(l.Alpha, w.Alpha) || !same(l.Low, w.Low) {
			t.Errorf("%s: people's agreement %d items α %v, without the models %d items α %v", l.Label, l.Items, l.Alpha, w.Items, w.Alpha)
		}
		names := map[string]int{}
		for _, g := range l.Groups {
			names[g.Group] = g.Items
		}
		// every item has both models and both people
		if len(names) != 4 || names["models and people"] != w.Items || names["models"] != w.Items ||
			names["model:fake-1 and people"] != w.Items || names["model:fake-2 and people"] != w.Items {
			t.Errorf("%s: groups %v (people compared %d items)", l.Label, names, w.Items)
		}
		// the two models answer alike (the same stand-in): where they vary, they agree fully
		for _, g := range l.Groups {
			if g.Group == "models" && !math.IsNaN(g.Alpha) && g.Alpha != 1 {
				t.Errorf("%s: two identical models have α %v", l.Label, g.Alpha)
			}
		}
	}
}
