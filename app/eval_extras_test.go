package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/store"
)

// eval import --descriptions and --personas: the instructions of the original's
// task_descriptions.jsx and the persona sets reach the stored project, also from a project file.
func TestEvalImportDescriptionsAndPersonas(t *testing.T) {
	dir := isolate(t)
	db := filepath.Join(dir, "eval.db")
	jsx := filepath.Join(dir, "task_descriptions.jsx")
	os.WriteFile(jsx, []byte(`switch (task_title) { case "flags": return (<div>Tick <b>what</b> {speakerLabel} did wrong.</div>) }`), 0o644)
	personas := filepath.Join(dir, "personas.txt")
	os.WriteFile(personas, []byte("i like cats.\n\ni ski.\n"), 0o644)
	r := runCLI(t, "--store", db, "eval", "import", "--config", "flags", "--descriptions", jsx, evalExample)
	if r.code != 0 || !strings.Contains(r.stdout, "participant instructions of 1 type (flags)") {
		t.Fatalf("import: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "import", "--config", "flags", "--name", "x", "--descriptions", filepath.Join(dir, "none.jsx"), evalExample); r.code != 1 {
		t.Fatalf("a descriptions file that is not there: %+v", r)
	}
	toml := filepath.Join(dir, "demo.toml")
	if r := runCLI(t, "--store", db, "eval", "save", "demo", toml); r.code != 0 {
		t.Fatalf("save: %+v", r)
	}
	os.WriteFile(jsx, []byte(`export default { labels: "Choose the labels." }`), 0o644)
	r = runCLI(t, "--store", db, "eval", "import", "--name", "demo2", "--descriptions", jsx, "--personas", personas, toml)
	if r.code != 0 || !strings.Contains(r.stdout, "instructions of 1 types") || !strings.Contains(r.stdout, "2 persona sets") {
		t.Fatalf("import of a project file: %+v", r)
	}
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	for name, want := range map[string][2]string{"demo": {"Tick what Alex did wrong.", ""}, "demo2": {"Tick what Alex did wrong.", "Choose the labels."}} {
		info, err := st.EvalProjectByName(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		p := mustProject(t, st, info.ID)
		if p.Type("flags").Description != want[0] || p.Type("labels").Description != want[1] {
			t.Errorf("%s: %q %q", name, p.Type("flags").Description, p.Type("labels").Description)
		}
		if name == "demo2" && len(p.Settings.Personas) != 2 {
			t.Errorf("personas %q", p.Settings.Personas)
		}
	}
}

// Hydra overrides on eval import and eval open: conf=NAME chooses the configuration as the
// original's welcome.py did, key=value changes a setting before the import reads it, and the
// report says so.
func TestEvalImportAndOpenWithOverrides(t *testing.T) {
	dir := isolate(t)
	db := filepath.Join(dir, "eval.db")
	r := runCLI(t, "--store", db, "eval", "import", evalExample, "conf=collect", "num_turns=4", "mephisto.task.task_name=chat4", "--name", "chat")
	if r.code != 0 || !strings.Contains(r.stdout, "num_turns=4: set on the command line (was 6)") ||
		!strings.Contains(r.stdout, "conf=collect: configuration chosen") {
		t.Fatalf("import with overrides: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "import", evalExample, "conf=collect", "mephisto.blueprint.nope=1", "--name", "x"); r.code != 1 ||
		!strings.Contains(r.stderr, "use +mephisto.blueprint.nope") {
		t.Fatalf("unknown key: %+v", r)
	}
	r = runCLI(t, "--store", db, "eval", "open", evalExample, "conf=flags", "mephisto.blueprint.min_golds=2", "--name", "flags2")
	if r.code != 0 || !r.guiOpened || r.gui.Screen != "evaluation" || !strings.Contains(r.stdout, `imported project "flags2"`) {
		t.Fatalf("open with a folder: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "open", "num_turns=4"); r.code != 2 || r.guiOpened {
		t.Fatalf("overrides without a folder: %+v", r)
	}
	toml := filepath.Join(dir, "chat.toml")
	if r := runCLI(t, "--store", db, "eval", "save", "chat", toml); r.code != 0 {
		t.Fatalf("save: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "import", toml, "num_turns=5", "--name", "y"); r.code != 2 {
		t.Fatalf("overrides on a project file: %+v", r)
	}
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	info, _ := st.EvalProjectByName(ctx, "chat")
	if p := mustProject(t, st, info.ID); p.Settings.NumTurns != 4 || p.Settings.TaskName != "chat4" || !p.Settings.CollectDialogue {
		t.Fatalf("stored settings %+v", p.Settings)
	}
	info, _ = st.EvalProjectByName(ctx, "flags2")
	if p := mustProject(t, st, info.ID); p.Settings.MinGolds != 2 || p.Settings.CollectDialogue {
		t.Fatalf("stored settings %+v", p.Settings)
	}
}
