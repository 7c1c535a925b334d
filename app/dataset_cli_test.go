package app

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentdesk/agentdesk/engine/dataset"
	"github.com/agentdesk/agentdesk/engine/episode"
	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/store"
)

// duckdbDir is where scripts/duckdb-deps.sh installs DuckDB's Node.js client (read before
// isolate moves HOME).
var duckdbDir = func() string {
	if d := os.Getenv("AGENTDESK_DUCKDB_DIR"); d != "" {
		return d
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "agentdesk", "duckdb")
}()

func encodeFrame(t *testing.T, w, h int, jpg bool) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	var b bytes.Buffer
	var err error
	if jpg {
		err = jpeg.Encode(&b, img, nil)
	} else {
		err = png.Encode(&b, img)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sampleDatasetStore is the sample data (GUI Odyssey episodes with screenshots in a zip, an
// evaluation study) with a recorded gridworld build (PNG frames) and a demonstration (JPEG
// frames) beside it.
func sampleDatasetStore(t *testing.T, dir string) string {
	t.Helper()
	db := filepath.Join(dir, "s.db")
	if r := runCLI(t, "--store", db, "samples", "load"); r.code != 0 {
		t.Fatalf("samples load: %s%s", r.stdout, r.stderr)
	}
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g := &episode.Episode{Source: episode.SourceGridworld, ExternalID: "007", Task: "c1", Instruction: "build",
		Steps: []episode.Step{{Index: 0, Action: episode.Action{Kind: "forward"}, Reward: 0.5, Observation: encodeFrame(t, 64, 48, false)},
			{Index: 1, Action: episode.Action{Kind: "place"}, Reward: 1, Observation: encodeFrame(t, 64, 48, false)}}}
	m := &episode.Episode{Source: episode.SourceMobileEnv, ExternalID: "a.pkl#0", Instruction: "search",
		Steps: []episode.Step{{Index: 0, Action: episode.Action{Kind: "touch", Points: []episode.Point{{X: 0.5, Y: 0.25}}}, Observation: encodeFrame(t, 20, 30, true)}}}
	ctx := context.Background()
	for _, e := range []*episode.Episode{g, m} {
		if err := st.SaveEpisode(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	// two answers of a study (the sample study's answers are its units' states, not a log)
	pid, err := st.CreateEvalProject(ctx, "answers", "created", "", "", "",
		[]ev.NewAssignment{{GroupID: "g0", Bundle: json.RawMessage(`[{"dialogue_id":"d0"}]`), Units: 1}})
	if err != nil {
		t.Fatal(err)
	}
	w, err := st.EvalSignIn(ctx, pid, "worker-1")
	if err != nil {
		t.Fatal(err)
	}
	us, _ := st.EvalUnits(ctx, pid)
	u, err := st.EvalAssign(ctx, pid, w.ID, us[0].ID, ev.UnitTask, 0, json.RawMessage(`[[0,[0]]]`), json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	shown := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for turn := 0; turn < 2; turn++ {
		a := ev.AnswerRecord{UnitID: u.ID, ParticipantID: w.ID, TypeName: "flags", Turn: turn, Question: "q", Value: "yes",
			PageShownAt: shown, AnsweredAt: shown.Add(time.Duration(turn+1) * time.Second)}
		if err := st.SaveEvalAnswer(ctx, a, json.RawMessage(`{}`), ev.Position{}); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func countSQL(t *testing.T, db, q string) int64 {
	t.Helper()
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var n int64
	if err := st.DB().QueryRow(q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestParquetExportReadByDuckDB reads the exported sample dataset with DuckDB: row counts are
// the store's, every frame decodes, columns have the card's types and the card's configs
// point at files. Skipped where DuckDB's client is not installed, except under CI.
func TestParquetExportReadByDuckDB(t *testing.T) {
	node, err := exec.LookPath("node")
	module := filepath.Join(duckdbDir, "node_modules", "@duckdb", "node-api")
	if _, statErr := os.Stat(module); err != nil || statErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("DuckDB's Node.js client is not installed (%s; node: %v): make test installs it with scripts/duckdb-deps.sh", module, err)
		}
		t.Skipf("DuckDB's Node.js client is not installed in %s: run scripts/duckdb-deps.sh", duckdbDir)
	}
	script := mustAbs(t, "../scripts/duckdb-check.cjs")
	dir := isolate(t)
	db := sampleDatasetStore(t, dir)
	out := filepath.Join(dir, "ds")
	r := runCLI(t, "--store", db, "export", "--format", "parquet", "--shard-mb", "0.05", out)
	if r.code != 0 {
		t.Fatalf("export: %s%s", r.stdout, r.stderr)
	}
	t.Log(strings.TrimSpace(r.stdout))
	cmd := exec.Command(node, script, duckdbDir, out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("duckdb check: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	var got struct {
		Rows    map[string]int64
		Values  map[string]map[string]int64
		Images  int64
		Checked []string
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("duckdb check printed %q: %v", stdout.String(), err)
	}
	t.Logf("DuckDB read %v, %d images (%s)", got.Rows, got.Images, strings.Join(got.Checked, "; "))
	want := map[string]int64{
		dataset.ConfigEpisodes:    countSQL(t, db, `SELECT count(*) FROM episodes`),
		dataset.ConfigSteps:       countSQL(t, db, `SELECT count(*) FROM steps`),
		dataset.ConfigAnnotations: countSQL(t, db, `SELECT count(*) FROM eval_answers`),
	}
	for c, n := range want {
		if got.Rows[c] != n {
			t.Errorf("DuckDB reads %d %s rows, the store holds %d", got.Rows[c], c, n)
		}
	}
	if want[dataset.ConfigEpisodes] < 17 || want[dataset.ConfigSteps] == 0 || want[dataset.ConfigAnnotations] != 2 {
		t.Fatalf("the sample store is smaller than expected: %v", want)
	}
	// every step of the sample has a frame (in the store or in the screenshots' zip)
	if got.Images != want[dataset.ConfigSteps] {
		t.Errorf("%d images decode, want one per step (%d)", got.Images, want[dataset.ConfigSteps])
	}
	if n := len(got.Checked); n < 3 {
		t.Errorf("checked %v", got.Checked)
	}

	// without frames, from the pages the store keeps encoded (spliced, with their own footer)
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	n, err := st.RefreshDatasetBlocks(context.Background(), nil)
	st.Close()
	if err != nil || n == 0 {
		t.Fatalf("encoded %d blocks: %v", n, err)
	}
	spliced := filepath.Join(dir, "spliced")
	if r := runCLI(t, "--store", db, "export", "--format", "parquet", "--no-images", spliced); r.code != 0 {
		t.Fatalf("export --no-images: %s%s", r.stdout, r.stderr)
	}
	stdout.Reset()
	stderr.Reset()
	cmd = exec.Command(node, script, duckdbDir, spliced)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("duckdb check of the spliced export: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	values := got.Values
	got.Rows, got.Values, got.Images, got.Checked = nil, nil, 0, nil
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("duckdb check printed %q: %v", stdout.String(), err)
	}
	t.Logf("DuckDB read the spliced export: %v (%s)", got.Rows, strings.Join(got.Checked, "; "))
	for c, n := range want {
		if got.Rows[c] != n {
			t.Errorf("spliced: DuckDB reads %d %s rows, the store holds %d", got.Rows[c], c, n)
		}
	}
	if got.Images != 0 || len(got.Checked) < 3 {
		t.Errorf("spliced: %d images, checked %v", got.Images, got.Checked)
	}
	// DuckDB finds the same nulls in both (each column but the frames, which this one has not)
	for c, cols := range values {
		for col, n := range cols {
			if col != "image" && got.Values[c][col] != n {
				t.Errorf("%s.%s: DuckDB reads %d values in the spliced export, %d in the other", c, col, got.Values[c][col], n)
			}
		}
	}
	if values[dataset.ConfigSteps]["action_x2"] == 0 || values[dataset.ConfigSteps]["action_x2"] == want[dataset.ConfigSteps] {
		t.Errorf("the sample's steps should have some drags or scrolls and some other actions: %v", values[dataset.ConfigSteps])
	}
}

func TestExportImportCommands(t *testing.T) {
	dir := isolate(t)
	db := sampleDatasetStore(t, dir)
	out := filepath.Join(dir, "ds")
	for _, args := range [][]string{
		{"export", out},
		{"export", "--format", "csv", out},
		{"export", "--format", "parquet", "--source", "pickles", out},
		{"export", "--format", "parquet"},
		{"export", "--format", "sharegpt", "--source", "evaluation", out},
		{"import", out},
		{"import", "--format", "parquet"},
	} {
		if r := runCLI(t, append([]string{"--store", db}, args...)...); r.code != exitUsage {
			t.Errorf("%v: exit %d, want %d (usage)\n%s", args, r.code, exitUsage, r.stderr)
		}
	}
	// a folder that is not an export is left alone
	other := filepath.Join(dir, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644)
	if r := runCLI(t, "--store", db, "export", "--format", "parquet", other); r.code == 0 || !strings.Contains(r.stderr, other) {
		t.Fatalf("export into a foreign folder: %d %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(other, "notes.txt")); string(b) != "mine" {
		t.Fatal("the foreign folder changed")
	}

	r := runCLI(t, "--store", db, "export", "--format", "parquet", "--source", "gridworld", out)
	if r.code != 0 || !strings.Contains(r.stdout, "wrote 1 episodes rows in 1 files, 2 steps rows") {
		t.Fatalf("export gridworld: %d %s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "annotations")); err == nil {
		t.Fatal("--source gridworld wrote the annotations config")
	}
	// a second export replaces the first whole
	r = runCLI(t, "--store", db, "export", "--format", "parquet", "--split", "Sample_random_split", out)
	if r.code != 0 {
		t.Fatalf("export --split: %d %s%s", r.code, r.stdout, r.stderr)
	}
	files, _ := dataset.Files(out, dataset.ConfigEpisodes)
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if strings.Join(names, " ") != "test-00000-of-00001.parquet train-00000-of-00001.parquet" {
		t.Fatalf("episodes files after --split: %v", names)
	}
	card, _ := os.ReadFile(filepath.Join(out, "README.md"))
	if !strings.Contains(string(card), "- split: test\n    path: \"episodes/test-*.parquet\"") {
		t.Fatalf("card:\n%s", card)
	}

	// training chats of the same split, one per step, the frames beside them
	chats := filepath.Join(dir, "chats")
	r = runCLI(t, "--store", db, "export", "--format", "sharegpt", "--split", "Sample_random_split", chats)
	if r.code != 0 || !strings.Contains(r.stdout, "(dataset_info.json, test.json, train.json)") {
		t.Fatalf("export --format sharegpt: %d %s%s", r.code, r.stdout, r.stderr)
	}
	shots, _ := filepath.Glob(filepath.Join(chats, "images", "odyssey", "*", "*.png"))
	if odySteps := countSQL(t, db, `SELECT count(*) FROM steps s JOIN episodes e ON e.id = s.episode_id WHERE e.source = 'odyssey'`); int64(len(shots)) != odySteps {
		t.Fatalf("%d frames beside the chats, want %d", len(shots), odySteps)
	}

	// everything out, into a fresh store, and the same again
	r = runCLI(t, "--store", db, "export", "--format", "parquet", out)
	if r.code != 0 {
		t.Fatalf("export: %d %s%s", r.code, r.stdout, r.stderr)
	}
	fresh := filepath.Join(dir, "fresh.db")
	r = runCLI(t, "--store", fresh, "import", "--format", "parquet", out)
	steps := countSQL(t, db, `SELECT count(*) FROM steps`)
	if r.code != 0 || !strings.Contains(r.stdout, "imported 17 episodes") {
		t.Fatalf("import: %d %s%s", r.code, r.stdout, r.stderr)
	}
	if n := countSQL(t, fresh, `SELECT count(*) FROM steps WHERE observation IS NOT NULL`); n != steps {
		t.Fatalf("%d steps with their frame after the import, want %d", n, steps)
	}
	again := filepath.Join(dir, "again")
	if r = runCLI(t, "--store", fresh, "export", "--format", "parquet", "--source", "odyssey", again); r.code != 0 {
		t.Fatalf("export of the imported store: %s%s", r.stdout, r.stderr)
	}
	if r = runCLI(t, "--store", db, "export", "--format", "parquet", "--source", "odyssey", out); r.code != 0 {
		t.Fatal(r.stderr)
	}
	a, _ := os.ReadFile(filepath.Join(out, "episodes", "train-00000-of-00001.parquet"))
	b, _ := os.ReadFile(filepath.Join(again, "episodes", "train-00000-of-00001.parquet"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("the episodes exported after a round trip differ (%d and %d bytes)", len(a), len(b))
	}
}
