package evaluation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/conformance"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

// originalRepo copies the engine's folder in the layout of the original's repository (a
// project folder with three configurations) and adds a stray .DS_Store.
func originalRepo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	conformance.CopyTree(t, filepath.Join("..", "..", "engine", "evaluation", "testdata", "original-repo"), dir)
	if err := os.WriteFile(filepath.Join(dir, ".DS_Store"), []byte("Bud1"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestImportDialogListsEveryFile: importing the original's whole repository at the desk asks
// which configuration (saying what each is), and the import dialog shows the report as one
// scrolling list with every file of the folder under read, other configurations or ignored.
func TestImportDialogListsEveryFile(t *testing.T) {
	w, win, _ := evalTestWS(t)
	repo := originalRepo(t)

	w.chooseConfig(repo)
	ask := uitest.DialogFits(t, "Which configuration?", win)
	radio := uitest.Find(ask, func(r *widget.RadioGroup) bool { return true })
	if radio == nil || strings.Join(radio.Options, ",") != "chat,labels,pairs" {
		t.Fatalf("the configurations offered: %v\n%s", radio, uitest.Texts(ask))
	}
	radio.SetSelected("pairs")
	if texts := uitest.Texts(ask); !strings.Contains(texts, `static annotation of study/task_config/task_data/pairs.jsonl: "Compare two conversations"`) {
		t.Errorf("the chosen configuration is not described:\n%s", texts)
	}
	win.Canvas().Overlays().Remove(win.Canvas().Overlays().Top())

	var imp *evalImport
	w.importFolder(repo, "labels", func(i *evalImport, err error) {
		if err != nil {
			t.Fatal(err)
		}
		imp = i
	})
	imp.showForm()
	d := uitest.DialogFits(t, "Import", win)
	list := uitest.Find(d, func(s *container.Scroll) bool {
		box, ok := s.Content.(*fyne.Container)
		if !ok || len(box.Objects) == 0 {
			return false
		}
		first, ok := box.Objects[0].(*widget.Label)
		return ok && strings.HasPrefix(first.Text, "From ")
	})
	if list == nil {
		t.Fatalf("no scrolling list of the files:\n%s", uitest.Texts(d))
	}
	texts := uitest.Texts(list.Content)
	var order []int
	for _, head := range []string{"Files read (7)", "Files of other configurations (5)", "Files ignored ("} {
		i := strings.Index(texts, head)
		if i < 0 {
			t.Errorf("the list has no group %q:\n%s", head, texts)
		}
		order = append(order, i)
	}
	if len(order) == 3 && !(order[0] < order[1] && order[1] < order[2]) {
		t.Errorf("groups out of order: %v", order)
	}
	for _, e := range imp.report.Files {
		if !strings.Contains(texts, e.Path) {
			t.Errorf("%s (%s) is not in the list", e.Path, e.Status)
		}
	}
	for _, line := range []string{"study/task_config/task_data/pairs.jsonl — data_jsonl of pairs", ".DS_Store — macOS Finder"} {
		if !strings.Contains(texts, line) {
			t.Errorf("the list lacks %q:\n%s", line, texts)
		}
	}
	// the list scrolls within the dialog rather than growing it
	if list.MinSize().Height > win.Canvas().Size().Height || list.Content.MinSize().Height <= list.Size().Height {
		t.Errorf("the list does not scroll: %v in %v", list.Content.MinSize(), list.Size())
	}
}
