package evaluation

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/agentdesk/agentdesk/ui/uitest"
)

// The Project tab edits each type's instructions and reads them from the original's
// task_descriptions.jsx; participants see them beside the type's pages.
func TestEvalTypeInstructionsEditedAndShown(t *testing.T) {
	w, win, st := evalTestWS(t)
	imp := readExample(t, w, "flags")
	imp.project.Settings.UseScreening = false
	w.create("demo", "imported", evalExample, imp.project, "", nil)
	win.Resize(uitest.Laptop)

	// read a task_descriptions.jsx: every type named in it gets its text
	jsx := filepath.Join(t.TempDir(), "task_descriptions.jsx")
	os.WriteFile(jsx, []byte(`export function getTaskDescription(task_title, speakerLabel) {
    switch (task_title) {
        case "flags":
            return (<div><h4>Flags</h4>Tick what {speakerLabel} did wrong:<ul><li>rude</li><li>off-topic</li></ul></div>)
        case "labels":
            return "Choose the labels " + 'of every reply.'
        case "nothere":
            return "x"
    }
}`), 0o644)
	var msg string
	w.readDescriptions(jsx, func(m string, err error) {
		if err != nil {
			t.Fatal(err)
		}
		msg = m
	})
	if !strings.Contains(msg, "2 types (flags, labels)") || !strings.Contains(msg, "Not in this project: nothere") {
		t.Fatalf("message %q", msg)
	}
	if got := w.open.p.Type("flags").Description; got != "Flags\nTick what Alex did wrong:\n• rude\n• off-topic" {
		t.Fatalf("flags %q", got)
	}
	win.Canvas().Overlays().Remove(win.Canvas().Overlays().Top()) // the "read" note

	// edit one by hand, in a dialog that fits the laptop window
	w.editDescription("labels")
	uitest.DialogFits(t, "Instructions of labels", win)
	f := w.descForm
	if f == nil || f.entry.Text != "Choose the labels of every reply." {
		t.Fatalf("editor %+v", f)
	}
	f.entry.SetText("Repeat: the reply says again what was said.\nOther <b>labels</b> & more.\n")
	f.save()
	win.Canvas().Overlays().Remove(win.Canvas().Overlays().Top())
	stored, err := st.EvalProject(context.Background(), w.open.info.ID)
	if err != nil || stored.Type("labels").Description != "Repeat: the reply says again what was said.\nOther <b>labels</b> & more." {
		t.Fatalf("stored %q %v", stored.Type("labels").Description, err)
	}
	var tab string
	for _, item := range w.tabs.Items {
		if item.Text == "Project" {
			w.tabs.Select(item)
			tab = uitest.Texts(item.Content)
		}
	}
	if !strings.Contains(tab, "Repeat: the reply says again what was said. (2 lines)") {
		t.Fatalf("the Project tab shows the old text: %s", tab)
	}
	uitest.Fits(t, "Project tab", w.projectTab())

	// a participant sees the instructions of the type on show
	w.tabs.SelectIndex(0)
	s := w.session
	s.signIn("ann")
	seen := map[string]bool{}
	for guard := 0; guard < 6 && s.page != nil; guard++ {
		text := uitest.Texts(s.root)
		switch s.page.typ.Name {
		case "flags":
			seen["flags"] = strings.Contains(text, "Tick what Alex did wrong:\n• rude")
		case "labels":
			seen["labels"] = strings.Contains(text, "Other <b>labels</b> & more.")
		}
		if seen["flags"] && seen["labels"] {
			break
		}
		answerPage(t, s, false)
		test.Tap(s.next)
	}
	if !seen["flags"] || !seen["labels"] {
		t.Fatalf("instructions not shown beside the pages: %v", seen)
	}
}
