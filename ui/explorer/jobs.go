package explorer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/dataset"
	"github.com/agentdesk/agentdesk/engine/odyssey"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// runJob runs long work of the Explorer (an import, an export, scoring) behind a progress
// dialog with Cancel; work returns the message shown when it succeeds, and done, when set,
// runs on the UI goroutine afterwards whatever the outcome.
func (x *Workspace) runJob(title string, work func(ctx context.Context, report workspace.Progress) (string, error), done func(msg string, err error)) *workspace.Task {
	return workspace.StartWithProgress(x.host, title, work, func(msg string, err error) {
		if err == nil && msg != "" {
			widgets.ShowMessage(title, msg, x.host.Window())
		}
		if done != nil {
			done(msg, err)
		}
	})
}

// importDialog asks for a GUI Odyssey folder, or a Hugging Face dataset folder an export
// wrote, and imports it.
func (x *Workspace) importDialog() {
	if x.host.Window() == nil {
		return
	}
	dialog.ShowFolderOpen(func(l fyne.ListableURI, err error) {
		if err != nil || l == nil {
			return
		}
		x.importFolder(l.Path())
	}, x.host.Window())
}

var firstZipPart = regexp.MustCompile(`(?i)\.zip\.0*[01]$`)

// odysseyDropTarget is the dataset folder to import when path is dropped on the window: a
// folder itself, or the folder holding a dropped zip archive (zipped annotations or
// screenshots, or the first part of a split archive), which the importer finds there.
func odysseyDropTarget(path string) (string, bool) {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return "", false
	case st.IsDir():
		return path, true
	case strings.HasSuffix(strings.ToLower(path), ".zip") || firstZipPart.MatchString(path):
		return filepath.Dir(path), true
	}
	return "", false
}

// Opens reports whether path is a GUI Odyssey dataset to import: a folder, or a zip archive
// in one (zipped annotations or screenshots, or the first part of a split archive).
func (x *Workspace) Opens(path string) bool {
	_, ok := odysseyDropTarget(path)
	return ok
}

// Open imports the dataset path belongs to, with the progress dialog and Cancel (a folder or
// zip dropped on the window).
func (x *Workspace) Open(path string, _ int) error {
	dir, ok := odysseyDropTarget(path)
	if !ok {
		return fmt.Errorf("%s is not a GUI Odyssey dataset folder", path)
	}
	if x.st == nil {
		return fmt.Errorf("%s: no store is open to import the dataset into", dir)
	}
	x.tabs.SelectIndex(0)
	x.importFolder(dir)
	return nil
}

// importFolder imports a GUI Odyssey dataset folder, or a Hugging Face dataset folder written
// by Export… (its dataset card and Parquet files), with a progress dialog.
func (x *Workspace) importFolder(dir string) *workspace.Task {
	st := x.st
	if dataset.CheckFolder(dir) == nil {
		return x.runJob("Import "+filepath.Base(dir), func(ctx context.Context, report func(float64, string)) (string, error) {
			return st.ImportDatasetFolder(ctx, dir, func(phase string, done int) {
				if phase == "encoding for exports" { // store.PhaseEncodingForExports: blocks, after the rows
					report(-1, fmt.Sprintf("%s: %d blocks", phase, done))
					return
				}
				report(-1, fmt.Sprintf("%s: %d read", phase, done))
			})
		}, func(string, error) { x.storeChanged() })
	}
	return x.runJob("Import "+filepath.Base(dir), func(ctx context.Context, report func(float64, string)) (string, error) {
		summary, warnings, err := st.ImportOdysseyFolder(ctx, dir, func(phase string, done, total int) {
			frac := -1.0
			text := phase + "…"
			if total > 0 {
				frac = float64(done) / float64(total)
				text = fmt.Sprintf("%s: %d of %d", phase, done, total)
			}
			report(frac, text)
		})
		if err != nil {
			return "", err
		}
		if len(warnings) > 0 {
			summary += fmt.Sprintf("\n\n%s:\n%s", widgets.Plural(len(warnings), "warning"), strings.Join(warnings, "\n"))
		}
		return summary, nil
	}, func(string, error) { x.storeChanged() })
}

// Export formats of the whole selection, every source (beside the GUI Odyssey ones).
const (
	formatParquet  = dataset.FormatParquet
	formatShareGPT = dataset.FormatShareGPT
)

// exportFormats are the choices of "Export selection".
var exportFormats = []struct{ label, format string }{
	{"JSON Lines (one file, one episode a line)", odyssey.FormatJSONL},
	{"Original per-episode JSON files (annotations/<id>.json in a folder)", odyssey.FormatJSON},
	{"Hugging Face dataset (Parquet files and a dataset card in a folder; every source)", formatParquet},
	{"LLaMA-Factory training chats (ShareGPT JSON and frames; every source)", formatShareGPT},
}

// exportDialog asks for a format and a destination, then exports the selection.
func (x *Workspace) exportDialog() {
	w := x.host.Window()
	if w == nil {
		return
	}
	labels := make([]string, len(exportFormats))
	for i, f := range exportFormats {
		labels[i] = f.label
	}
	// frames go with the Hugging Face dataset and the chats unless left out: without them the
	// dataset is a fraction of the size and is copied from the pages the store keeps encoded
	frames := widget.NewCheck("Leave the steps' frames out (smaller, and much faster to write)", nil)
	choice := widget.NewRadioGroup(labels, func(label string) {
		for _, f := range exportFormats {
			if f.label == label && (f.format == formatParquet || f.format == formatShareGPT) {
				frames.Enable()
				return
			}
		}
		frames.Disable()
	})
	choice.SetSelected(labels[0])
	info := widget.NewLabel(fmt.Sprintf("Exports the selection (%s; %s): its GUI Odyssey episodes in the original annotation format, or every episode as a Hugging Face dataset or as training chats.",
		x.filter.Describe(), widgets.Plural(x.count, "episode")))
	info.Wrapping = fyne.TextWrapWord
	dialog.ShowCustomConfirm("Export selection", "Choose destination…", "Cancel",
		container.NewGridWrap(fyne.NewSize(560, 250), container.NewVBox(info, choice, frames)), func(ok bool) {
			if !ok {
				return
			}
			format := exportFormats[0].format
			for _, f := range exportFormats {
				if f.label == choice.Selected {
					format = f.format
				}
			}
			if format != odyssey.FormatJSONL {
				dialog.ShowFolderOpen(func(l fyne.ListableURI, err error) {
					if err == nil && l != nil {
						x.exportTo(format, exportFolder(format, l.Path()), !frames.Checked)
					}
				}, w)
				return
			}
			d := dialog.NewFileSave(func(u fyne.URIWriteCloser, err error) {
				if err != nil || u == nil {
					return
				}
				u.Close()
				x.exportTo(format, u.URI().Path(), true)
			}, w)
			d.SetFileName("episodes.jsonl")
			d.SetFilter(storage.NewExtensionFileFilter([]string{".jsonl"}))
			d.Show()
		}, w)
}

// exportFolder is where a folder export goes when the user chose dir: dir itself when it is
// empty or holds an earlier export of the format (which the export replaces whole), else a
// new folder in it.
func exportFolder(format, dir string) string {
	sub := map[string]string{formatParquet: "agentdesk-dataset", formatShareGPT: "agentdesk-chats"}[format]
	if sub == "" || dataset.Replaceable(dir, format) == nil {
		return dir
	}
	return filepath.Join(dir, sub)
}

// exportTo exports the selection with a progress dialog; frames says whether a Hugging Face
// dataset or training chats take the steps' frames.
func (x *Workspace) exportTo(format, dest string, frames bool) *workspace.Task {
	st, f := x.st, x.filter
	return x.runJob("Export selection", func(ctx context.Context, report func(float64, string)) (string, error) {
		progress := func(done, total int) {
			report(float64(done)/float64(max(total, 1)), fmt.Sprintf("%d of %d episodes", done, total))
		}
		if format == formatParquet || format == formatShareGPT {
			return st.ExportDatasetFolder(ctx, f, format, dest, frames, progress)
		}
		n, skipped, err := st.ExportEpisodes(ctx, f, format, dest, progress)
		if err != nil {
			return "", err
		}
		msg := fmt.Sprintf("Exported %s to %s.", widgets.Plural(n, "episode"), dest)
		if skipped > 0 {
			msg += fmt.Sprintf(" %s of other sources were left out: the GUI Odyssey formats hold GUI Odyssey episodes only.", widgets.Plural(skipped, "episode"))
		}
		return msg, nil
	}, nil)
}
