package template

import (
	"io/fs"
	"strings"
	"testing"
)

func TestExamplesInstantiate(t *testing.T) {
	tasks := ExampleTasks()
	if len(tasks) < 3 || len(ExampleTemplates()) < 3 {
		t.Fatalf("examples missing: %v %v", tasks, ExampleTemplates())
	}
	for _, task := range tasks {
		res, err := Expand(FSReader(Examples()), task, "templates", Options{})
		if err != nil {
			t.Errorf("%s: %v", task, err)
			continue
		}
		for _, w := range res.Warnings {
			t.Errorf("%s: warning %v", task, w)
		}
		if slots, _ := ParseSlots(res.Text); len(slots) > 0 {
			t.Errorf("%s: unreplaced slot %s", task, slots[0].String())
		}
		// the output is a valid task in canonical form
		if again, err := FormatTextproto(res.Text); err != nil || again != res.Text {
			t.Errorf("%s: output is not canonical: %v", task, err)
		}
		t.Logf("%s: %d tokens, %d bytes", task, len(res.Tokens), len(res.Text))
	}
	for _, tmpl := range ExampleTemplates() {
		data, _ := fs.ReadFile(Examples(), tmpl)
		if _, errs := ParseSlots(string(data)); len(errs) > 0 {
			t.Errorf("%s: %v", tmpl, errs)
		}
		if ic := InitConf(string(data)); !strings.Contains(ic, ": <VALUE>\n") {
			t.Errorf("%s: init conf %q", tmpl, ic)
		}
	}
}
