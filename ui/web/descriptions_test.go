package web

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// The instructions read from the original's task_descriptions.jsx reach the participants'
// pages, line breaks kept and markup shown as text.
func TestInstructionsFromTaskDescriptionsOnThePage(t *testing.T) {
	jsx := filepath.Join(t.TempDir(), "task_descriptions.jsx")
	os.WriteFile(jsx, []byte(`export function getTaskDescription(task_title, speakerLabel) {
    switch (task_title) {
        case "flags":
        case "labels":
            return (<div><h4>What to mark</h4>Mark what {speakerLabel} did:<ul><li>rude &lt;script&gt;alert(1)&lt;/script&gt;</li><li>off-topic</li></ul></div>)
    }
}`), 0o644)
	h := serveExample(t, "flags", func(p *ev.Project) {
		noScreening(p)
		d, err := ev.ReadTaskDescriptions(jsx, false)
		if err != nil {
			t.Fatal(err)
		}
		ev.ApplyTaskDescriptions(p.Types, d, true)
	})
	page := h.participant("ann").open()
	want := "What to mark\nMark what Alex did:\n• rude &lt;script&gt;alert(1)&lt;/script&gt;\n• off-topic"
	if !strings.Contains(page, `<p class="text">`+want+`</p>`) {
		t.Fatalf("the instructions are not on the page:\n%s", page)
	}
	if strings.Contains(page, "<script>alert") {
		t.Fatal("markup from the instructions reached the page")
	}
}

// In a real browser the instructions read as lines, and their markup stays text.
func TestInstructionsInABrowser(t *testing.T) {
	jsx := filepath.Join(t.TempDir(), "task_descriptions.jsx")
	os.WriteFile(jsx, []byte(`export default {
  flags: () => (<div><h4>What to mark</h4>Mark what {'Alex'} did:<ul><li>rude &lt;img src=x onerror=alert(1)&gt;</li><li>off-topic</li></ul></div>),
  labels: "Choose " + "the labels.",
}`), 0o644)
	h := serveExample(t, "flags", func(p *ev.Project) {
		noScreening(p)
		d, err := ev.ReadTaskDescriptions(jsx, false)
		if err != nil {
			t.Fatal(err)
		}
		ev.ApplyTaskDescriptions(p.Types, d, true)
	})
	link, _ := h.srv.Link(context.Background(), "reader", "")
	p := newPage(t, 1280, 900)
	p.begin(link)
	got := eval[string](p, `document.querySelector(".describe .description p.text").innerText`)
	if got != "What to mark\nMark what Alex did:\n• rude <img src=x onerror=alert(1)>\n• off-topic" && got != "Choose the labels." {
		t.Fatalf("instructions in the browser: %q", got)
	}
	if n := eval[int](p, `document.querySelectorAll(".describe img").length`); n != 0 {
		t.Fatal("markup in the instructions became an element")
	}
}
