package evaluation

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeFiles writes name → text under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// hydraExample is the example project with composed configurations: a blueprint preset in
// its config group, a shared base next to the configurations, nested defaults, and _self_ at
// both ends.
func hydraExample(t *testing.T) string {
	dir := copyExample(t)
	writeFiles(t, dir, map[string]string{
		// a preset of the blueprint group: lands at mephisto.blueprint
		"hydra_configs/mephisto/blueprint/chat_preset.yaml": "num_bots: 2\nnum_turns: 8\nmax_resp_time: 900\ninclude_persona: false\n" +
			"conversations_needed_string: \"botA|botB:2\"\n",
		// a base next to the configurations, global by its header, with its own defaults
		"hydra_configs/conf/base.yaml":   "# @package _global_\ndefaults:\n  - common\nmephisto:\n  task:\n    task_name: from_base\n    allowed_concurrent: 2\n",
		"hydra_configs/conf/common.yaml": "mephisto:\n  blueprint:\n    random_seed: 7\n    annotation_duration_in_seconds: 111\n",
		// own content last (no _self_): it wins over the base and the preset
		"hydra_configs/conf/composed.yaml": "#@package _global_\ndefaults:\n  - /mephisto/blueprint: chat_preset\n  - /mephisto/architect: local\n  - base\n" +
			"mephisto:\n  blueprint:\n    annotations_config_path: ${task_dir}/task_config/annotation_buckets.json\n" +
			"    model_opt_path: ${task_dir}/task_config/model_opts.yaml\n    block_qualification: composed_block\n" +
			"    do_collect_dialogue: true\n    do_external_annotations: false\n    num_turns: 4\n" +
			"    do_interactive_offline_annotations: [[\"clarity_dialogue\"]]\n  task:\n    task_name: composed\n",
		// _self_ first: the later entries win over the own content
		"hydra_configs/conf/selffirst.yaml": "defaults:\n  - _self_\n  - /mephisto/blueprint: chat_preset\n  - base\n" +
			"mephisto:\n  blueprint:\n    do_collect_dialogue: true\n    do_external_annotations: false\n    num_turns: 4\n" +
			"    block_qualification: b\n  task:\n    task_name: selffirst\n",
	})
	return dir
}

func TestHydraDefaultsCompose(t *testing.T) {
	dir := hydraExample(t)
	p, rep, err := ImportOriginal(dir, ImportOptions{Config: "composed"})
	if err != nil {
		t.Fatal(err)
	}
	s := p.Settings
	if s.NumBots != 2 || s.MaxResponseSeconds != 900 || s.NumTurns != 4 || s.TaskName != "composed" ||
		s.AllowedConcurrent != 2 || s.RandomSeed != 7 || s.AnnotationDurationSeconds != 111 || s.ConversationsNeeded != "botA|botB:2" {
		t.Fatalf("composed settings %+v", s)
	}
	for _, want := range []string{
		"defaults (line 3): mephisto/blueprint: chat_preset: composed hydra_configs/mephisto/blueprint/chat_preset.yaml at mephisto.blueprint",
		"defaults (line 5): base: composed hydra_configs/conf/base.yaml at the root",
		"defaults (line 3): common: composed hydra_configs/conf/common.yaml at the root",
	} {
		found := false
		for _, it := range rep.Filter(Understood) {
			found = found || strings.Contains(it.Where+": "+it.Message, want)
		}
		if !found {
			t.Errorf("report lacks %q\n%s", want, rep)
		}
	}
	if !hasItem(rep, Ignored, "hydra_configs/conf/composed.yaml", "mephisto/architect: local Mephisto's built-in configuration") ||
		!hasItem(rep, Understood, "hydra_configs/conf/composed.yaml", "mephisto.blueprint.max_resp_time (hydra_configs/mephisto/blueprint/chat_preset.yaml line 3)") {
		t.Errorf("report:\n%s", rep)
	}
	if hasItem(rep, Ignored, "hydra_configs/conf/base.yaml", "") || hasItem(rep, Ignored, "hydra_configs/mephisto/blueprint/chat_preset.yaml", "") {
		t.Errorf("composed files listed as unread:\n%s", rep)
	}

	// _self_ first: the preset and the base win over the configuration's own values
	p, _, err = ImportOriginal(dir, ImportOptions{Config: "selffirst"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Settings.NumTurns != 8 || p.Settings.TaskName != "from_base" {
		t.Fatalf("_self_ first: num_turns %d, task %q", p.Settings.NumTurns, p.Settings.TaskName)
	}
}

func TestHydraDefaultsErrors(t *testing.T) {
	dir := hydraExample(t)
	writeFiles(t, dir, map[string]string{
		"hydra_configs/conf/missing.yaml":  "defaults:\n  - /study: none\n",
		"hydra_configs/conf/optional.yaml": "defaults:\n  - optional /study: none\n  - composed\n",
		"hydra_configs/conf/loop.yaml":     "defaults:\n  - loop2\n",
		"hydra_configs/conf/loop2.yaml":    "defaults:\n  - loop\n",
		"hydra_configs/conf/notalist.yaml": "defaults: base\n",
	})
	for conf, want := range map[string]string{
		"missing":  "no configuration study: none (looked for hydra_configs/study/none.yaml)",
		"loop":     "defaults refer back",
		"notalist": "defaults must be a list",
	} {
		if _, _, err := ImportOriginal(dir, ImportOptions{Config: conf}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", conf, err, want)
		}
	}
	p, rep, err := ImportOriginal(dir, ImportOptions{Config: "optional"})
	if err != nil || p.Settings.TaskName != "composed" || !hasItem(rep, Ignored, "hydra_configs/conf/optional.yaml", "optional, and no such configuration") {
		t.Fatalf("optional: %v\n%s", err, rep)
	}
}

func TestHydraOverrides(t *testing.T) {
	dir := hydraExample(t)
	p, rep, err := ImportOriginal(dir, ImportOptions{Overrides: []string{
		"conf=composed",
		"mephisto.blueprint.num_turns=10",
		"max_resp_time=30",
		"++mephisto.blueprint.include_persona=true",
		"+mephisto.blueprint.check_acceptability=false",
		"++mephisto.task.task_title='A study: round 2'",
		"~mephisto.task.allowed_concurrent",
		"mephisto.blueprint.do_interactive_offline_annotations=[[clarity_dialogue, clarity_compare]]",
	}})
	if err != nil {
		t.Fatal(err)
	}
	s := p.Settings
	if s.NumTurns != 10 || s.MaxResponseSeconds != 30 || !s.IncludePersona || s.TaskTitle != "A study: round 2" || s.AllowedConcurrent != 0 ||
		!reflect.DeepEqual(s.OfflineAnnotations, [][]string{{"clarity_dialogue", "clarity_compare"}}) {
		t.Fatalf("settings after overrides %+v", s)
	}
	for _, want := range []string{
		"conf=composed: configuration chosen",
		"mephisto.blueprint.num_turns=10: set on the command line (was 4)",
		"max_resp_time=30: set on the command line (was 900); max_resp_time taken as mephisto.blueprint.max_resp_time",
		"++mephisto.blueprint.include_persona=true: set on the command line (was false)",
		"+mephisto.blueprint.check_acceptability=false: added on the command line",
		"~mephisto.task.allowed_concurrent: deleted on the command line (was 2)",
	} {
		if !reportHas(rep, Understood, "command line", want) {
			t.Errorf("report lacks %q\n%s", want, rep)
		}
	}
	if !hasItem(rep, Understood, "hydra_configs/conf/composed.yaml", "mephisto.blueprint.num_turns (command line)") {
		t.Errorf("the setting does not say it came from the command line:\n%s", rep)
	}

	// a group override changes the defaults list
	writeFiles(t, dir, map[string]string{"hydra_configs/mephisto/blueprint/long_chat.yaml": "num_bots: 2\nnum_turns: 20\nconversations_needed_string: \"botA|botB:5\"\n"})
	p, rep, err = ImportOriginal(dir, ImportOptions{Config: "selffirst", Overrides: []string{"mephisto/blueprint=long_chat", "{a:1}=x"}})
	if err == nil {
		t.Fatal("a key that is not a key")
	}
	p, rep, err = ImportOriginal(dir, ImportOptions{Config: "selffirst", Overrides: []string{"mephisto/blueprint=long_chat"}})
	if err != nil || p.Settings.NumTurns != 20 || p.Settings.ConversationsNeeded != "botA|botB:5" ||
		!reportHas(rep, Understood, "command line", "mephisto/blueprint=long_chat: defaults list of the configuration changed") {
		t.Fatalf("group override: %v %+v\n%s", err, p.Settings, rep)
	}

	for _, c := range []struct {
		ovs  []string
		want string
	}{
		{[]string{"mephisto.blueprint.nope=1"}, "has no mephisto.blueprint.nope (use +mephisto.blueprint.nope=… to add it)"},
		{[]string{"+mephisto.blueprint.num_turns=3"}, "already in the configuration (4)"},
		{[]string{"~mephisto.blueprint.nope"}, "no mephisto.blueprint.nope to delete"},
		{[]string{"~mephisto.blueprint.num_turns=5"}, "is 4, not 5"},
		{[]string{"mephisto.blueprint.num_turns.x=5"}, "is not a mapping"},
		{[]string{"mephisto.blueprint.num_turns=[unclosed"}, "the value is not valid"},
		{[]string{"mephisto/nothing=x"}, "has no group mephisto/nothing"},
		{[]string{"num_turns"}, "want key=value"},
		{[]string{"conf=flags"}, "choose one"},
	} {
		_, _, err := ImportOriginal(dir, ImportOptions{Config: "composed", Overrides: c.ovs})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.ovs, err, c.want)
		}
	}
	// the settings read after the overrides are checked as any: a cap that is not a number
	if _, _, err := ImportOriginal(dir, ImportOptions{Config: "composed", Overrides: []string{"num_turns=many"}}); err == nil ||
		!strings.Contains(err.Error(), "num_turns") {
		t.Errorf("a bad value: %v", err)
	}
}

func TestParseOverride(t *testing.T) {
	for in, want := range map[string]Override{
		"a.b=1":     {Key: "a.b", Value: "1", HasValue: true},
		"+a=x=y":    {Op: "+", Key: "a", Value: "x=y", HasValue: true},
		"++a.b=":    {Op: "++", Key: "a.b", Value: "", HasValue: true},
		"~a.b":      {Op: "~", Key: "a.b"},
		"group/x=y": {Key: "group/x", Value: "y", HasValue: true},
	} {
		got, err := ParseOverride(in)
		if err != nil || got != want {
			t.Errorf("%q: %+v %v", in, got, err)
		}
		if got.String() != in {
			t.Errorf("%q written back as %q", in, got.String())
		}
	}
	for _, arg := range []string{"./folder", "/abs/path", "dir", "x.toml"} {
		if IsOverride(arg) {
			t.Errorf("%q is a path", arg)
		}
	}
	for _, arg := range []string{"a=1", "+a.b=2", "~a", "conf=flags"} {
		if !IsOverride(arg) {
			t.Errorf("%q is an override", arg)
		}
	}
}

// reportHas is hasItem with the place and the message joined as the report prints them.
func reportHas(rep *ImportReport, sev Severity, file, text string) bool {
	for _, it := range rep.Filter(sev) {
		if it.File == file && strings.Contains(it.Where+": "+it.Message, text) {
			return true
		}
	}
	return false
}
