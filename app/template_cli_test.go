package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTemplateParseAndInit(t *testing.T) {
	dir := isolate(t)
	examples, _ := filepath.Abs("../engine/template/examples")
	out := filepath.Join(dir, "out", "task.textproto")
	r := runCLI(t, "template", "parse", "--task", filepath.Join(examples, "tasks", "buy_headphones.task"),
		"-p", filepath.Join(examples, "templates"), "-o", out)
	if r.code != 0 {
		t.Fatalf("parse: %+v", r)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), "setup_steps") {
		t.Fatalf("output %q, %v", b, err)
	}
	// Without -o the definition goes to standard output, identical to the file.
	r = runCLI(t, "template", "parse", "--task="+filepath.Join(examples, "tasks", "buy_headphones.task"),
		"--template-path", filepath.Join(examples, "templates"))
	if r.code != 0 || r.stdout != string(b) {
		t.Fatalf("parse to stdout differs (exit %d): %s", r.code, r.stderr)
	}
	tpl, _ := filepath.Glob(filepath.Join(examples, "templates", "*.textproto.template"))
	if len(tpl) == 0 {
		t.Fatal("no example template")
	}
	r = runCLI(t, "template", "init", tpl[0], "mystep", filepath.Join(dir, "confs"))
	if r.code != 0 || !strings.HasSuffix(strings.TrimSpace(r.stdout), "-mystep.conf") {
		t.Fatalf("init: %+v", r)
	}
	conf, _ := os.ReadFile(strings.TrimSpace(r.stdout))
	if !strings.Contains(string(conf), ": ") {
		t.Fatalf("blank conf %q", conf)
	}
	for _, args := range [][]string{
		{"template", "parse"},
		{"template", "parse", "--tsk", "x"},
		{"template", "init", "only-one"},
	} {
		if r := runCLI(t, args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, r.code, r.stderr)
		}
	}
	if r := runCLI(t, "template", "parse", "--task", filepath.Join(dir, "missing.task")); r.code != 1 || !strings.Contains(r.stderr, "missing.task") {
		t.Errorf("missing task file: %+v", r)
	}
	if r := runCLI(t, "template", "parse", "--help"); r.code != 0 || !strings.Contains(r.stdout, "--task TASKFILE") {
		t.Errorf("help: %+v", r)
	}
}
