package evaluation

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/conformance"
)

// exampleProject is the repository's copy of the public example project; the tests that
// check its exact contents read it there even when AGENTDESK_CONFORMANCE points elsewhere
// (TestConformanceExampleProjects reads every project of the conformance folder).
func exampleProject(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "conformance", area, "example-project")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("example project: %v", err)
	}
	return dir
}

// TestConformanceExampleProjects imports every project folder of the conformance area with
// each of its configurations: the import succeeds, its report accounts for every file of the
// folder, and the project survives an export to the original layout and back.
func TestConformanceExampleProjects(t *testing.T) {
	dir := conformance.Dir(t, area)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		root := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, "task_config")); err != nil {
			continue
		}
		confs, err := OriginalConfigs(root)
		if err != nil {
			t.Fatal(err)
		}
		if len(confs) == 0 {
			confs = []string{""}
		}
		for _, conf := range confs {
			n++
			p, rep, err := ImportOriginal(root, ImportOptions{Config: conf})
			if err != nil {
				t.Errorf("%s (%s): %v", e.Name(), conf, err)
				continue
			}
			checkEveryFile(t, root, rep)
			out := t.TempDir()
			if _, err := ExportOriginal(p, out); err != nil {
				t.Errorf("%s (%s): export: %v", e.Name(), conf, err)
				continue
			}
			q, _, err := ImportOriginal(out, ImportOptions{})
			if err != nil {
				t.Errorf("%s (%s): re-import: %v", e.Name(), conf, err)
				continue
			}
			if q.Settings.ConversationsNeeded == "none:0" && p.Settings.ConversationsNeeded == "" {
				q.Settings.ConversationsNeeded = ""
			}
			projectsEqual(t, p, q)
		}
	}
	conformance.Report(t, "example project import", n)
}

func importExample(t *testing.T, conf string) (*Project, *ImportReport) {
	t.Helper()
	p, rep, err := ImportOriginal(exampleProject(t), ImportOptions{Config: conf})
	if err != nil {
		t.Fatal(err)
	}
	return p, rep
}

// hasItem reports whether the report has an item of that severity in file whose where and
// message contain the given texts.
func hasItem(rep *ImportReport, sev Severity, file, text string) bool {
	for _, it := range rep.Filter(sev) {
		if it.File == file && strings.Contains(it.Where+" "+it.Message, text) {
			return true
		}
	}
	// an ignored file is in the files' accounting
	if sev == Ignored {
		for _, e := range rep.FilesWith(FileIgnored) {
			if e.Path == file && strings.Contains(e.Note, text) {
				return true
			}
		}
	}
	return false
}

func TestImportExampleStatic(t *testing.T) {
	p, rep := importExample(t, "flags")
	if p.Name != "demo" || p.Settings.TaskName != "demo" {
		t.Errorf("name %q", p.Name)
	}
	var names []string
	for _, ty := range p.Types {
		names = append(names, ty.Name)
	}
	want := []string{"answering", "facts", "flags", "mood", "labels", "clarity_turn", "clarity_dialogue", "clarity_compare", "scores_grid"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("types %v, want %v (file order)", names, want)
	}
	facts := p.Type("facts")
	if len(facts.Flow) != 1 || !facts.Flow[0].Checkbox || facts.Flow[0].Text != "fact_q" ||
		facts.Flow[0].Answers[0].Sub[0].Answers[2].Sub[0].Text != "Look the facts up. What did you find?" {
		t.Errorf("facts flow parsed wrong: %+v", facts.Flow)
	}
	labels := p.Type("labels")
	if len(labels.Choices) != 3 || labels.Choices[2].Speaker == nil || *labels.Choices[2].Speaker != 1 || labels.LabelsKey() != "labels_labels" {
		t.Errorf("labels choices %+v", labels.Choices)
	}
	if p.Type("clarity_dialogue").LabelDetails["5"] != "completely" || len(p.Type("clarity_compare").Comparisons) != 3 {
		t.Error("likert/comparative options")
	}
	if len(p.Bundles) != 4 || len(p.Bundles[3].Datapoints) != 2 || p.Bundles[2].Datapoints[0].Turns2 == nil {
		t.Fatalf("bundles %d", len(p.Bundles))
	}
	if p.Bundles[0].Datapoints[0].OriginWorkerID != "worker-07" || p.Bundles[0].Datapoints[0].Turns[1].AgentIdx() != 1 {
		t.Error("datapoint fields")
	}
	if !reflect.DeepEqual(p.Units, map[string]int{"assignment_0": 1, "assignment_1": 2, "assignment_2": 1, "assignment_3": 0}) {
		t.Errorf("units %v", p.Units)
	}
	tr := p.Training
	if tr == nil || tr.TypeName != "flags" || len(tr.Dialogues) != 3 || tr.Dialogues[2].PassCriteria != 1 || tr.Dialogues[1].Remaining != 1 {
		t.Fatalf("training %+v", tr)
	}
	if e := tr.Dialogues[0].Turns[3].Truth.Entries; len(e) != 2 || e[0].Key != "rude_q" || e[1].Value != "" {
		t.Errorf("truth order/values %+v", e)
	}
	if len(p.Gold) != 1 || p.Gold[0].Datapoints[0].Turns[3].Truth == nil || p.Gold[0].Datapoints[0].Turns[3].Explanation != nil {
		t.Error("gold: graded turns with null explanation")
	}
	if p.Bots["botB"].Options != "--model internal:examplebot" || p.Bots["botA"].Kind != BotParlAI {
		t.Errorf("bots %+v", p.Bots)
	}
	s := p.Settings
	if !s.UseScreening || s.UseGolds || s.AllowedGoldMistakes != 1 || s.AnnotationDurationSeconds != 3600 || s.AllowedConcurrent != 3 ||
		s.PassedQualification != "flags_screen" || s.BlockQualification != "flags_block" || s.MaxScreeningUnits != 100 ||
		s.CollectDialogue || !s.ExternalAnnotations || s.RandomSeed != 42 || s.Grading != Compatible {
		t.Errorf("settings %+v", s)
	}
	conf := "hydra_configs/conf/flags.yaml"
	for _, c := range []struct {
		sev        Severity
		file, text string
	}{
		{Understood, "task_config/annotation_buckets.json", "9 annotation types"},
		{Understood, "task_config/task_data/demo.jsonl", "4 bundles, 5 datapoints (1 comparative pair)"},
		{Understood, "task_config/task_data/demo_units.json", "bundle skipped (assignment_3)"},
		{Understood, "task_config/onboarding_data/flags.json", "12 graded turns, pass criteria 1"},
		{Understood, "task_config/gold_data/flags.jsonl", "kept (use_golds is off)"},
		{Understood, "task_config/model_opts.yaml", "2 models (botA, botB)"},
		{Understood, conf, "mephisto.blueprint.data_jsonl (line 27)"},
		{Ignored, conf, "mephisto.architect"},
		{Ignored, conf, "mephisto.task.task_reward"},
		{Ignored, conf, "monitoring_log_rate"},
		{Ignored, conf, "conversations_needed_string"},
	} {
		if !hasItem(rep, c.sev, c.file, c.text) {
			t.Errorf("report lacks %s %s %q:\n%s", c.sev, c.file, c.text, rep)
		}
	}
	if e := fileEntry(rep, "hydra_configs/conf/collect.yaml"); e == nil || e.Status != FileOtherConfig || !reflect.DeepEqual(e.Configs, []string{"collect"}) {
		t.Errorf("the other configuration: %+v", e)
	}
	if len(rep.Filter(Warning)) != 0 {
		t.Errorf("unexpected warnings: %v", rep.Filter(Warning))
	}
	if !strings.Contains(rep.String(), "Understood (") || !strings.Contains(rep.String(), "Ignored (") {
		t.Error("printed report")
	}
}

func TestImportExampleCollection(t *testing.T) {
	p, rep := importExample(t, "collect.yaml")
	s := p.Settings
	if !s.CollectDialogue || s.ExternalAnnotations || s.NumBots != 2 || s.NumTurns != 6 || s.MaxResponseSeconds != 600 ||
		s.ConversationsNeeded != "botA|botB:2" || len(s.OfflineAnnotations) != 2 || len(s.OfflineAnnotations[1]) != 3 {
		t.Errorf("settings %+v", s)
	}
	if len(p.Bundles) != 0 || p.Training != nil {
		t.Error("a collection config reads no data or training")
	}
	conf := "hydra_configs/conf/collect.yaml"
	if !hasItem(rep, Warning, conf, `"flags" contains neither`) {
		t.Errorf("no warning on the dropped offline type:\n%s", rep)
	}
	if !hasItem(rep, Understood, conf, "1 condition, 2 sessions") {
		t.Errorf("conditions not reported:\n%s", rep)
	}
	if e := fileEntry(rep, "task_config/task_data/demo.jsonl"); e == nil || e.Status != FileOtherConfig ||
		!reflect.DeepEqual(e.Configs, []string{"flags"}) || e.Note != "data_jsonl of flags" {
		t.Errorf("the other configuration's data: %+v\n%s", e, rep)
	}
}

func TestImportNeedsAConfigChoice(t *testing.T) {
	_, _, err := ImportOriginal(exampleProject(t), ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "collect, flags") {
		t.Fatalf("err %v", err)
	}
	names, err := OriginalConfigs(exampleProject(t))
	if err != nil || !reflect.DeepEqual(names, []string{"collect", "flags"}) {
		t.Fatalf("configs %v %v", names, err)
	}
	// a configuration file path works as the root too
	p, _, err := ImportOriginal(filepath.Join(exampleProject(t), "hydra_configs", "conf", "flags.yaml"), ImportOptions{})
	if err != nil || p.Settings.TaskName != "demo" {
		t.Fatalf("import by config path: %v", err)
	}
}

// copyTree copies the example project so a test can break one file.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	conformance.CopyTree(t, src, dst)
	return dst
}

func TestImportBadInputNamesThePlace(t *testing.T) {
	cases := []struct {
		name, file, content string
		want                []string
	}{
		{"jsonl syntax", "task_config/task_data/demo.jsonl",
			"{\"data\": [{\"dialogue_id\": \"a\", \"group_id\": \"assignment_0\", \"annotation_tasks\": [], \"turns\": []}]}\n{\"data\": [}\n",
			[]string{"demo.jsonl:2:", "invalid character"}},
		{"three-element turn", "task_config/task_data/demo.jsonl",
			`{"data": [{"dialogue_id": "a", "group_id": "assignment_0", "annotation_tasks": ["flags"], "turns": [["user", "hi", {}]]}]}`,
			[]string{"demo.jsonl:1:", "turns[0]", "found 3"}},
		{"unknown type", "task_config/task_data/demo.jsonl",
			`{"data": [{"dialogue_id": "a", "group_id": "assignment_0", "annotation_tasks": ["nope"], "turns": []}]}`,
			[]string{"demo.jsonl:1:", `"nope" is not defined`}},
		{"missing units", "task_config/task_data/demo_units.json", `{"assignment_0": 1}`,
			[]string{"demo_units.json", `"assignment_1"`}},
		{"bad units", "task_config/task_data/demo_units.json", "{\"assignment_0\": 1,\n \"assignment_1\": \"two\"}",
			[]string{"demo_units.json:2:", `group "assignment_1"`}},
		{"type file syntax", "task_config/annotation_buckets.json", "{\"config\": {\n  \"a\": {\"task_title\": \"a\",,}}}",
			[]string{"annotation_buckets.json:2:", "invalid character"}},
		{"type file wrapper", "task_config/annotation_buckets.json", `{"flags": {}}`,
			[]string{"annotation_buckets.json", `no "config" key`}},
		{"unknown config", "task_config/annotation_buckets.json", "{\"config\": {\n  \"ok\": {\"task_title\": \"a\", \"config\": \"comparative\", \"indices\": \"odd\", \"options\": []},\n\n  \"a\": {\"task_title\": \"a\", \"config\": \"sliders\", \"indices\": \"odd\", \"options\": []}}}",
			[]string{"annotation_buckets.json:4:", `type "a": unknown config "sliders"`}},
		{"training dialogue", "task_config/onboarding_data/flags.json", "{\"a\": {},\n \"b\": {},\n \"c\": {}}",
			[]string{"flags.json:1:", `dialogue "a": "dialogue_id" is missing`}},
		{"training count", "task_config/onboarding_data/flags.json", `{"a": {}}`,
			[]string{"flags.json", "exactly three dialogues"}},
		{"yaml", "hydra_configs/conf/flags.yaml", "mephisto:\n  blueprint:\n    num_turns: many\n",
			[]string{"flags.yaml:3:", "num_turns"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyTree(t, exampleProject(t))
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(c.file)), []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			p, rep, err := ImportOriginal(dir, ImportOptions{Config: "flags"})
			if err == nil {
				t.Fatalf("imported bad input")
			}
			if p != nil || rep != nil {
				t.Error("a failed import returned a partial project")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Errorf("error %T is not a FileError", err)
			}
		})
	}
}

func TestReadBundlesTolerance(t *testing.T) {
	in := "\ufeff" + `{"data": [{"dialogue_id": "a", "group_id": "g", "annotation_tasks": ["x"], "turns": [["user", "hi"], ["system", "yo", {"k": "v"}, null]], "extra": 1}]}` +
		"\n\n" + `{"data": [{"dialogue_id": "b", "group_id": "g2", "annotation_tasks": [], "turns": []}]}`
	bs, err := ReadBundles(strings.NewReader(in), "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2 || bs[0].Datapoints[0].Turns[1].Truth == nil || bs[0].Datapoints[0].Turns[1].Explanation != nil || bs[1].GroupID() != "g2" {
		t.Fatalf("%+v", bs)
	}
}

// projectsEqual compares projects through their TOML encoding, which covers every field.
func projectsEqual(t *testing.T, a, b *Project) {
	t.Helper()
	ab, err := MarshalProject(a)
	if err != nil {
		t.Fatal(err)
	}
	bb, err := MarshalProject(b)
	if err != nil {
		t.Fatal(err)
	}
	if string(ab) != string(bb) {
		al, bl := strings.Split(string(ab), "\n"), strings.Split(string(bb), "\n")
		for i := 0; i < len(al) && i < len(bl); i++ {
			if al[i] != bl[i] {
				t.Fatalf("projects differ at line %d:\n%s\n%s", i+1, al[i], bl[i])
			}
		}
		t.Fatalf("projects differ in length: %d vs %d lines", len(al), len(bl))
	}
}

func TestExportOriginalRoundTrip(t *testing.T) {
	for _, conf := range []string{"flags", "collect"} {
		p, _ := importExample(t, conf)
		dir := t.TempDir()
		files, err := ExportOriginal(p, dir)
		if err != nil {
			t.Fatal(err)
		}
		if conf == "flags" && len(files) != 7 {
			t.Errorf("%s: wrote %v", conf, files)
		}
		q, rep, err := ImportOriginal(dir, ImportOptions{})
		if err != nil {
			t.Fatalf("%s: re-import: %v", conf, err)
		}
		if hasItem(rep, Ignored, "", "unknown") {
			t.Errorf("%s: export wrote keys the importer does not know:\n%s", conf, rep)
		}
		projectsEqual(t, p, q)
	}
	// the type file is byte-for-byte the same JSON value as the original's
	orig, _ := os.ReadFile(filepath.Join(exampleProject(t), "task_config", "annotation_buckets.json"))
	p, _ := importExample(t, "flags")
	mine, _ := MarshalTypeFile(p.Types)
	if string(mine) != string(orig) && !jsonSame(t, mine, orig) {
		t.Errorf("type file differs:\n%s", mine)
	}
}

func jsonSame(t *testing.T, a, b []byte) bool {
	t.Helper()
	return jsonEqual(t, jsonAny(t, a), b)
}

func jsonAny(t *testing.T, b []byte) any {
	var v any
	if err := jsonUnmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestProjectTOMLRoundTrip(t *testing.T) {
	for _, conf := range []string{"flags", "collect"} {
		p, _ := importExample(t, conf)
		if conf == "collect" {
			p.Bots["botA"] = BotSpec{Kind: BotHTTP, URL: "http://localhost:1/v1/chat/completions", Model: "m", Temperature: 0.5, TimeoutSeconds: 9}
		}
		path := filepath.Join(t.TempDir(), "p.toml")
		if err := SaveProject(path, p); err != nil {
			t.Fatal(err)
		}
		q, err := LoadProject(path)
		if err != nil {
			t.Fatal(err)
		}
		projectsEqual(t, p, q)
		if !reflect.DeepEqual(p.Type("facts").Flow, q.Type("facts").Flow) || !reflect.DeepEqual(p.Settings, q.Settings) {
			t.Error("flow or settings changed")
		}
	}
}

func TestLoadProjectErrors(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct{ content, want string }{
		"syntax":  {"format = 1\nname = \n", "p.toml:2:"},
		"unknown": {"format = 1\nnmae = \"x\"\n", "unknown key nmae"},
		"newer":   {"format = 99\n", "newer"},
		"types":   {"format = 1\n[[bundle]]\n[[bundle.datapoint]]\ndialogue_id = \"a\"\ngroup_id = \"g\"\nannotation_tasks = [\"x\"]\n", `"x" is not defined`},
	} {
		path := filepath.Join(dir, "p.toml")
		os.WriteFile(path, []byte(c.content), 0o644)
		_, err := LoadProject(path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", name, err, c.want)
		}
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func TestImportInterpolation(t *testing.T) {
	dir := copyTree(t, exampleProject(t))
	conf := filepath.Join(dir, "hydra_configs", "conf", "flags.yaml")
	b, _ := os.ReadFile(conf)
	s := strings.Replace(string(b), "${task_dir}/task_config/task_data/demo.jsonl", "${task_dir}/task_config/task_data/${mephisto.task.task_name}.jsonl", 1)
	s = strings.Replace(s, "block_qualification: flags_block", "block_qualification: ${mephisto.task.task_name}_block", 1)
	os.WriteFile(conf, []byte(s), 0o644)
	p, _, err := ImportOriginal(dir, ImportOptions{Config: "flags"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Settings.BlockQualification != "demo_block" || len(p.Bundles) != 4 {
		t.Fatalf("interpolated: %q, %d bundles", p.Settings.BlockQualification, len(p.Bundles))
	}
	os.WriteFile(conf, []byte(strings.Replace(s, "${mephisto.task.task_name}_block", "${nowhere.key}", 1)), 0o644)
	if _, _, err := ImportOriginal(dir, ImportOptions{Config: "flags"}); err == nil || !strings.Contains(err.Error(), "${nowhere.key}") {
		t.Fatalf("unresolvable: %v", err)
	}
}

// An original collection configuration carries leftovers of static projects and crowd
// settings; they are reported, not fatal.
func TestImportToleratesOriginalLeftovers(t *testing.T) {
	dir := copyTree(t, exampleProject(t))
	conf := filepath.Join(dir, "hydra_configs", "conf", "collect.yaml")
	b, _ := os.ReadFile(conf)
	s := strings.Replace(string(b), "  blueprint:\n", "  log_level: 'debug'\n  blueprint:\n    units_per_assignment: 10\n    data_jsonl: ${task_dir}/task_config/pilot3.jsonl\n    worker_blocklist_paths: ${task_dir}/task_config/blocked_workers.txt\n", 1)
	s += "mturk:\n  worker_blocklist_paths: null\n"
	os.WriteFile(conf, []byte(s), 0o644)
	static := filepath.Join(dir, "hydra_configs", "conf", "flags.yaml")
	b, _ = os.ReadFile(static)
	os.WriteFile(static, []byte(strings.Replace(string(b), "task_config/model_opts.yaml", "task_config/missing_opts.yaml", 1)), 0o644)
	_, rep, err := ImportOriginal(dir, ImportOptions{Config: "collect"})
	if err != nil {
		t.Fatal(err)
	}
	rel := "hydra_configs/conf/collect.yaml"
	for _, c := range []struct {
		sev  Severity
		text string
	}{{Ignored, "mephisto.log_level"}, {Ignored, "units_per_assignment"}, {Ignored, "worker_blocklist_paths"}, {Ignored, "mturk"},
		{Warning, "pilot3.jsonl"}} {
		if !hasItem(rep, c.sev, rel, c.text) {
			t.Errorf("report lacks %s %q:\n%s", c.sev, c.text, rep)
		}
	}
	// a static project does not need the model options
	if _, rep, err := ImportOriginal(dir, ImportOptions{Config: "flags"}); err != nil || !hasItem(rep, Warning, "hydra_configs/conf/flags.yaml", "missing_opts.yaml") {
		t.Fatalf("static project with missing model options: %v\n%v", err, rep)
	}
}

// TestImportReportAccountsForEveryFile: every file of the folder appears in the report, read,
// named by the other configuration, or ignored with what it is; the printed report folds a
// folder of many ignored files of one kind into one line; hidden folders are one entry.
func TestImportReportAccountsForEveryFile(t *testing.T) {
	dir := copyTree(t, exampleProject(t))
	extra := map[string]string{
		"analysis/agreement.csv": "a,b\n", "analysis/summary.tsv": "x\ty\n", "results/final_scores.json": "{}",
		"README.md": "# notes", "run.sh": "echo", "screens/page.png": "png",
		"task_config/notes.txt": "notes", "task_config/old_buckets.bak": "x", ".git/HEAD": "ref", ".git/objects/ab": "x",
	}
	for i := 0; i < 15; i++ {
		extra[fmt.Sprintf("frontend/components/c%02d.jsx", i)] = "export default 1"
	}
	for rel, body := range extra {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, rep, err := ImportOriginal(dir, ImportOptions{Config: "flags"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, text string }{
		{"analysis/agreement.csv", "analysis table"},
		{"analysis/summary.tsv", "analysis table"},
		{"results/final_scores.json", "analysis table"},
		{"README.md", "documentation"},
		{"run.sh", "the original's code"},
		{"screens/page.png", "an image"},
		{"task_config/notes.txt", "documentation"},
		{"task_config/old_buckets.bak", "named by no configuration"},
		{"frontend/components/c07.jsx", "the original's code"},
		{".git/", "version control"},
	} {
		if !hasItem(rep, Ignored, c.file, c.text) {
			t.Errorf("report lacks ignored %q %q:\n%s", c.file, c.text, rep)
		}
	}
	checkEveryFile(t, dir, rep)
	text := rep.String()
	for _, line := range []string{"  frontend/components/* (15 files): the original's code", "  .git/ (2 files): version control",
		"  hydra_configs/conf/collect.yaml: the configuration collect", "  task_config/task_data/demo.jsonl: dialogues to annotate"} {
		if !strings.Contains(text, line) {
			t.Errorf("the printed report lacks %q:\n%s", line, text)
		}
	}
	if strings.Contains(text, "c07.jsx") {
		t.Errorf("15 ignored files of one kind are not folded:\n%s", text)
	}
}
