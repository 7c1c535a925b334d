package explorer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/agentdesk/agentdesk/engine/dataset"
	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

// The selection leaves as a Hugging Face dataset and as training chats, every source, and the
// dataset comes back through the import dialog's folder into another store.
func TestExplorerExportsAndImportsAHuggingFaceDataset(t *testing.T) {
	x, _ := importSample(t)
	x.setFilter(episode.Filter{})
	all := x.count
	if all <= 13 {
		t.Fatalf("the seeded store with the sample lists %d episodes", all)
	}
	parent := t.TempDir()
	os.WriteFile(filepath.Join(parent, "notes.txt"), []byte("mine"), 0o644)
	dest := exportFolder(formatParquet, parent)
	if dest != filepath.Join(parent, "agentdesk-dataset") {
		t.Fatalf("a folder holding other files: the export goes to %s", dest)
	}
	x.exportTo(formatParquet, dest, true)
	if exportFolder(formatParquet, dest) != dest {
		t.Fatal("an earlier export is not replaced in place")
	}
	n, err := dataset.CountRows(dest, dataset.ConfigEpisodes)
	if err != nil || n != int64(all) {
		t.Fatalf("the dataset holds %d episodes of %d (%v)", n, all, err)
	}
	if b, _ := os.ReadFile(filepath.Join(parent, "notes.txt")); string(b) != "mine" {
		t.Fatal("the chosen folder's file changed")
	}

	// without frames: every image null, the same rows
	bare := filepath.Join(t.TempDir(), "bare")
	x.exportTo(formatParquet, bare, false)
	framed, withFrames := 0, 0
	if err := dataset.ReadSteps(context.Background(), bare, func(_ string, _ int64, r *dataset.StepRow) error {
		if r.Image != nil {
			framed++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	dataset.ReadSteps(context.Background(), dest, func(_ string, _ int64, r *dataset.StepRow) error {
		if r.Image != nil {
			withFrames++
		}
		return nil
	})
	if n, err := dataset.CountRows(bare, dataset.ConfigEpisodes); err != nil || n != int64(all) || framed != 0 || withFrames == 0 {
		t.Fatalf("without frames: %d episodes of %d (%v), %d steps with a frame (%d with them)", n, all, err, framed, withFrames)
	}

	chats := filepath.Join(t.TempDir(), "chats")
	x.setFilter(episode.Filter{Source: episode.SourceOdyssey})
	x.exportTo(formatShareGPT, chats, true)
	if b, err := os.ReadFile(filepath.Join(chats, "train.json")); err != nil || !strings.Contains(string(b), `"<image>Task: `) {
		t.Fatalf("training chats: %v", err)
	}

	test.NewTempApp(t)
	st := uitest.OpenStore(t)
	_, y, _ := openExplorer(t, wf(st))
	y.importFolder(dest)
	y.setFilter(episode.Filter{})
	if y.count != all {
		t.Fatalf("after importing the dataset the Explorer lists %d episodes, want %d", y.count, all)
	}
	steps, err := dataset.CountRows(dest, dataset.ConfigSteps)
	if err != nil {
		t.Fatal(err)
	}
	var got int64
	st.DB().QueryRowContext(context.Background(), `SELECT count(*) FROM steps`).Scan(&got)
	if got != steps {
		t.Fatalf("%d steps imported of %d", got, steps)
	}
}
