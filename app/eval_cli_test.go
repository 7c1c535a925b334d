package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/conformance"
	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/store"
)

const evalExample = "../testdata/conformance/evaluation/example-project"

// copyDir copies a folder tree (for corrupting a copy of the example).
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	conformance.CopyTree(t, from, to)
}

func TestEvalImportProjectsAndErrors(t *testing.T) {
	dir := isolate(t)
	db := filepath.Join(dir, "eval.db")
	// Several configurations: one must be chosen.
	if r := runCLI(t, "--store", db, "eval", "import", evalExample); r.code != 1 || !strings.Contains(r.stderr, "--config NAME or conf=NAME") ||
		!strings.Contains(r.stderr, "  collect  dialogue collection") || !strings.Contains(r.stderr, "  flags    static annotation of task_config/task_data/demo.jsonl") {
		t.Fatalf("import without --config: %+v", r)
	}
	r := runCLI(t, "--store", db, "eval", "import", "--config", "flags", evalExample)
	if r.code != 0 || !strings.Contains(r.stdout, "Understood (") || !strings.Contains(r.stdout, "Ignored (") ||
		!strings.Contains(r.stdout, `imported project "demo"`) || !strings.Contains(r.stdout, "4 units") {
		t.Fatalf("import: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "import", "--config", "flags", evalExample); r.code != 1 || !strings.Contains(r.stderr, "already exists") {
		t.Fatalf("second import under the same name: %+v", r)
	}
	r = runCLI(t, "--store", db, "eval", "import", "--config", "collect", "--name", "chat", evalExample)
	if r.code != 0 || !strings.Contains(r.stdout, "2 units") {
		t.Fatalf("collection import: %+v", r)
	}
	// A malformed data line names the file and line, and imports nothing.
	bad := filepath.Join(dir, "bad")
	copyDir(t, evalExample, bad)
	data := filepath.Join(bad, "task_config", "task_data", "demo.jsonl")
	b, _ := os.ReadFile(data)
	lines := strings.Split(string(b), "\n")
	lines[2] = `{"data": [{"dialogue_id": "x", "turns": [["user"]]`
	os.WriteFile(data, []byte(strings.Join(lines, "\n")), 0o644)
	r = runCLI(t, "--store", db, "eval", "import", "--config", "flags", "--name", "bad", bad)
	if r.code != 1 || !strings.Contains(r.stderr, "demo.jsonl") || !strings.Contains(r.stderr, "3") || !strings.Contains(r.stderr, "nothing was imported") {
		t.Fatalf("malformed import: %+v", r)
	}
	r = runCLI(t, "--store", db, "eval", "projects")
	if r.code != 0 || !strings.Contains(r.stdout, "demo") || !strings.Contains(r.stdout, "0/4") || !strings.Contains(r.stdout, "chat") || strings.Contains(r.stdout, "bad") {
		t.Fatalf("projects: %+v", r)
	}
	for _, args := range [][]string{
		{"eval", "export", "demo", "--format", "xml", "--out", "x"},
		{"eval", "export", "demo", "--format", "csv"},
		{"eval", "stats"},
		{"eval", "import"},
	} {
		if r := runCLI(t, append([]string{"--store", db}, args...)...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, r.code, r.stderr)
		}
	}
	if r := runCLI(t, "--store", db, "eval", "stats", "nope"); r.code != 1 || !strings.Contains(r.stderr, `no evaluation project "nope"`) {
		t.Errorf("unknown project: %+v", r)
	}
	// Project definition round trip: save as TOML, import it again under another name.
	toml := filepath.Join(dir, "demo.toml")
	if r := runCLI(t, "--store", db, "eval", "save", "demo", toml); r.code != 0 {
		t.Fatalf("save: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "import", "--name", "demo2", toml); r.code != 0 || !strings.Contains(r.stdout, "4 units") {
		t.Fatalf("import of a project file: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "save", "demo", filepath.Join(dir, "orig")); r.code != 0 {
		t.Fatalf("save in the original layout: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "import", "--name", "demo3", filepath.Join(dir, "orig")); r.code != 0 {
		t.Fatalf("re-import of the original layout: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "delete", "demo3"); r.code != 0 {
		t.Fatalf("delete: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "bot", "chat", "botA", "--kind", "echo"); r.code != 0 || !strings.Contains(r.stdout, "echo") {
		t.Fatalf("bot: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "bot", "chat", "botB", "--kind", "http", "--url", "http://localhost:9/v1/chat/completions",
		"--model", "small", "--system-prompt", "Be brief.", "--temperature", "0.3", "--timeout", "12"); r.code != 0 {
		t.Fatalf("http bot: %+v", r)
	}
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := st.EvalProjectByName(context.Background(), "chat")
	p, err := st.EvalProject(context.Background(), info.ID)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if b := p.Bots["botB"]; b.Kind != ev.BotHTTP || b.Model != "small" || b.SystemPrompt != "Be brief." || b.Temperature != 0.3 || b.TimeoutSeconds != 12 {
		t.Fatalf("stored http bot %+v", b)
	}
	if r := runCLI(t, "--store", db, "eval", "bot", "chat", "botZ", "--kind", "echo"); r.code != 1 || !strings.Contains(r.stderr, "botA, botB") {
		t.Fatalf("unknown bot: %+v", r)
	}
	if r := runCLI(t, "eval", "open"); !r.guiOpened || r.gui.Screen != "evaluation" {
		t.Fatalf("open: %+v", r)
	}
}

func mustProject(t *testing.T, st *store.Store, id int64) *ev.Project {
	t.Helper()
	p, err := st.EvalProject(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Two participants annotate the same dialogues of a catalogue project; stats prints the
// agreement table and the exports write the three formats.
func TestEvalCreateStatsExport(t *testing.T) {
	dir := isolate(t)
	db := filepath.Join(dir, "eval.db")
	data := filepath.Join(evalExample, "task_config", "task_data", "demo.jsonl")
	r := runCLI(t, "--store", db, "eval", "create", "--data", data, "-k", "2", "cat")
	if r.code != 0 || !strings.Contains(r.stdout, "10 units") {
		t.Fatalf("create: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "stats", "cat"); r.code != 0 || !strings.Contains(r.stdout, "no submitted answers") {
		t.Fatalf("stats before any answer: %+v", r)
	}
	// Both participants label every chatbot turn of every dialogue: they agree on some turns.
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	info, _ := st.EvalProjectByName(ctx, "cat")
	units, _ := st.EvalUnits(ctx, info.ID)
	for i, u := range units {
		who := []string{"ann", "bob"}[u.Index]
		w, _ := st.EvalSignIn(ctx, info.ID, who)
		turns := map[string]any{}
		for p := 1; p < 8; p += 2 {
			entry := map[string]any{"turn_idx": p, "text": "t", "agent_idx": 1}
			if (p+i)%3 == 0 || (who == "ann" && p == 1) {
				entry["uninterpretable_q"] = "I cannot make sense of this reply."
			}
			turns[fmt.Sprint(p)] = entry
		}
		state, _ := json.Marshal(map[string]any{"workerId": who, "lastIndex": 0, "lastAnnot": 0,
			"0": map[string]any{"subtask_index": 0, "data": turns}})
		if _, err := st.EvalAssign(ctx, info.ID, w.ID, u.ID, ev.UnitTask, u.Index, nil, state); err != nil {
			t.Fatal(err)
		}
		if err := st.CompleteEvalUnit(ctx, u.ID, state, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	r = runCLI(t, "--store", db, "eval", "stats", "cat")
	if r.code != 0 || !strings.Contains(r.stdout, "uninterpretable (!Int)") || !strings.Contains(r.stdout, "ALPHA") || !strings.Contains(r.stdout, "botA") {
		t.Fatalf("stats: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "stats", "--level", "ratio", "cat"); r.code != 2 || !strings.Contains(r.stderr, "nominal, ordinal or interval") {
		t.Fatalf("stats --level ratio: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "stats", "--level", "nominal", "cat"); r.code != 0 || !strings.Contains(r.stdout, "ALPHA") {
		t.Fatalf("stats --level nominal: %+v", r)
	}
	r = runCLI(t, "--store", db, "eval", "stats", "--json", "cat")
	var js struct {
		Labels []struct {
			Label string   `json:"label"`
			Items int      `json:"items"`
			Alpha *float64 `json:"alpha"`
		} `json:"labels"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &js) != nil {
		t.Fatalf("stats --json: %+v", r)
	}
	found := false
	for _, l := range js.Labels {
		if l.Label == "uninterpretable (!Int)" {
			found = l.Items == 20 && l.Alpha != nil
		}
	}
	if !found {
		t.Fatalf("uninterpretable not computed over 20 turns: %s", r.stdout)
	}
	// A unit left open goes back to the pool.
	st, _ = store.Open(db)
	fresh, _ := st.SaveEvalProject(ctx, "spare", "created", "", mustProject(t, st, info.ID), "")
	spare, _ := st.EvalUnits(ctx, fresh)
	w, _ := st.EvalSignIn(ctx, fresh, "carl")
	st.EvalAssign(ctx, fresh, w.ID, spare[0].ID, ev.UnitTask, 0, nil, nil)
	st.Close()
	if r := runCLI(t, "--store", db, "eval", "return", "spare", "carl"); r.code != 0 || !strings.Contains(r.stdout, "back to the pool") {
		t.Fatalf("return: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "return", "spare", "carl"); r.code != 0 || !strings.Contains(r.stdout, "no open unit") {
		t.Fatalf("second return: %+v", r)
	}
	r = runCLI(t, "--store", db, "eval", "participants", "cat")
	if r.code != 0 || !strings.Contains(r.stdout, "ann") || !strings.Contains(r.stdout, "bob") {
		t.Fatalf("participants: %+v", r)
	}
	for _, f := range []string{"csv", "jsonl"} {
		out := filepath.Join(dir, "answers."+f)
		if r := runCLI(t, "--store", db, "eval", "export", "cat", "--format", f, "--out", out, "--pseudonymise"); r.code != 0 {
			t.Fatalf("export %s: %+v", f, r)
		}
		b, _ := os.ReadFile(out)
		if !strings.Contains(string(b), "worker-01") || strings.Contains(string(b), "bob") {
			t.Fatalf("%s export: %s", f, b)
		}
	}
	out := filepath.Join(dir, "results")
	if r := runCLI(t, "--store", db, "eval", "export", "cat", "--format", "original", "--out", out); r.code != 0 || !strings.Contains(r.stdout, "wrote 15 files") {
		t.Fatalf("export original: %+v", r) // 5 assignments: assign_data.json + 2 state.json each
	}
	// The original's result files come back into a fresh project over the same dialogues, with
	// the same statistics.
	if r := runCLI(t, "--store", db, "eval", "create", "--data", data, "-k", "2", "cat2"); r.code != 0 {
		t.Fatalf("create: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "import-results", "cat2", out); r.code != 0 || !strings.Contains(r.stdout, "imported 10 finished attempts") {
		t.Fatalf("import-results: %+v", r)
	}
	before := runCLI(t, "--store", db, "eval", "stats", "--json", "cat").stdout
	after := runCLI(t, "--store", db, "eval", "stats", "--json", "cat2").stdout
	if before != after {
		t.Fatalf("statistics differ after a round trip through the original's files:\n%s\n%s", before, after)
	}
	// All slots are taken now: importing again fails and stores nothing.
	if r := runCLI(t, "--store", db, "eval", "import-results", "cat2", out); r.code != 1 || !strings.Contains(r.stderr, "nothing was imported") {
		t.Fatalf("second import-results: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "projects"); !strings.Contains(r.stdout, "10/10") {
		t.Fatalf("projects after import: %s", r.stdout)
	}
}

// A project without answers: stats say so, and --json gives an empty list (not null) for
// tools; the exports say how many files they wrote.
func TestEvalStatsAndExportOfAnEmptyProject(t *testing.T) {
	dir := isolate(t)
	db := filepath.Join(dir, "eval.db")
	if r := runCLI(t, "--store", db, "eval", "import", "--config", "flags", evalExample); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "stats", "demo"); r.code != 0 || !strings.Contains(r.stdout, "no submitted answers yet") {
		t.Fatalf("stats: %+v", r)
	}
	r := runCLI(t, "--store", db, "eval", "stats", "--json", "demo")
	var got struct {
		Labels []any `json:"labels"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil || got.Labels == nil || strings.Contains(r.stdout, "null") {
		t.Fatalf("stats --json: %+v", r)
	}
	out := filepath.Join(dir, "answers.csv")
	if r := runCLI(t, "--store", db, "eval", "export", "demo", "--format", "csv", "--out", out); r.code != 0 || !strings.Contains(r.stdout, "wrote 1 file to") {
		t.Fatalf("export: %+v", r)
	}
}

// TestEvalImportWholeRepository: eval import on the original's repository root (the project
// folder inside it, several configurations): without a configuration it lists them and imports
// nothing; with conf=NAME it imports that study and prints every file of the folder, grouped.
func TestEvalImportWholeRepository(t *testing.T) {
	dir := isolate(t)
	db := filepath.Join(dir, "eval.db")
	repo := filepath.Join(dir, "repo")
	copyDir(t, filepath.Join("..", "engine", "evaluation", "testdata", "original-repo"), repo)
	os.WriteFile(filepath.Join(repo, ".DS_Store"), []byte("Bud1"), 0o644)
	r := runCLI(t, "--store", db, "eval", "import", repo)
	if r.code != 1 || !strings.Contains(r.stderr, "3 configurations (study/hydra_configs/conf)") || !strings.Contains(r.stderr, "conf=chat") ||
		!strings.Contains(r.stderr, "  labels  static annotation of study/task_config/task_data/labels.jsonl: \"Label the replies\"") ||
		!strings.Contains(r.stderr, "  chat    dialogue collection") || !strings.Contains(r.stderr, "nothing was imported") {
		t.Fatalf("import of the repository without a configuration: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "projects"); r.code != 0 || !strings.Contains(r.stdout, "no evaluation projects") {
		t.Fatalf("a refused import stored something: %+v", r)
	}
	r = runCLI(t, "--store", db, "eval", "import", repo, "conf=pairs")
	if r.code != 0 || !strings.Contains(r.stdout, `imported project "pairs_local"`) {
		t.Fatalf("import conf=pairs: %+v", r)
	}
	for _, line := range []string{
		"(project folder study, configuration study/hydra_configs/conf/pairs.yaml)",
		"Files read (", "  study/task_config/task_data/pairs.jsonl: dialogues to annotate",
		"Files of other configurations (", "  study/task_config/task_data/labels.jsonl: data_jsonl of labels",
		"  study/hydra_configs/conf/chat.yaml: the configuration chat",
		"Files ignored (", "  .DS_Store: macOS Finder", "  README.md: documentation",
	} {
		if !strings.Contains(r.stdout, line) {
			t.Errorf("the report lacks %q:\n%s", line, r.stdout)
		}
	}
	// --config names the same; the project folder itself works as well
	r = runCLI(t, "--store", db, "eval", "import", "--config", "labels", filepath.Join(repo, "study"))
	if r.code != 0 || !strings.Contains(r.stdout, "  hydra_configs/conf/pairs.yaml: the configuration pairs") {
		t.Fatalf("import --config labels of the project folder: %+v", r)
	}
}
