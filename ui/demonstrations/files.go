package demonstrations

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
	"github.com/agentdesk/agentdesk/engine/limits"
	"github.com/agentdesk/agentdesk/engine/mobileenv"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Files: saving (in place with a backup, or as a new file), importing into the store, the
// file dialogs, and the task definitions' folder the instruction options come from.

// loadOptions reads the instruction options from the task definition of the file.
func (d *Workspace) loadOptions() {
	d.options, d.labels = nil, nil
	dir := d.definitionsFolder()
	d.optsDir = dir
	if d.orig == nil || dir == "" {
		d.instr.Options = nil
		d.instr.Refresh()
		return
	}
	var err error
	if d.options, err = mobileenv.LoadInstructionOptions(dir, d.orig.DefinitionID()); err != nil {
		d.setStatus("No instruction options: " + err.Error())
	}
	for i, o := range d.options {
		if str, ok := o.(*mobileenv.Str); ok {
			// a plain string, not a list: the original joins it letter by letter ("a p l a i n")
			d.labels = append(d.labels, fmt.Sprintf("%d: %q (a string, not a list)", i, str.S))
			continue
		}
		d.labels = append(d.labels, fmt.Sprintf("%d: %s", i, mobileenv.InstructionText(o)))
	}
	d.instr.Options = d.labels
	d.instr.ClearSelected()
	d.instr.Refresh()
}

// definitionsFolder is where the open file's task definition is read from: the folder chosen
// with "Task definitions…" when it holds <task_definition_id>.textproto, else a textprotos
// folder next to the file, or the file's own folder, when one of them does (the layout the
// original tools are run in); the chosen folder otherwise, for its error message.
func (d *Workspace) definitionsFolder() string {
	if d.orig == nil {
		return d.defDir
	}
	name := d.orig.DefinitionID() + ".textproto"
	near := filepath.Dir(d.path)
	for _, dir := range []string{d.defDir, filepath.Join(near, "textprotos"), near} {
		if dir == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return dir
		}
	}
	return d.defDir
}

// save writes the file with the pending edits to path: the very bytes `agentdesk pickle edit`
// writes with the equivalent modifier string. Saving in place keeps the previous version as
// .old (an older .old as .old.N) and refuses when the file changed on disk since it was opened
// (the edits were made against what was opened); another path is written atomically, an
// existing file there kept as .old.
func (d *Workspace) save(path string) error {
	if d.orig == nil {
		return errors.New("nothing open")
	}
	mods, err := d.Modifiers()
	if err != nil {
		d.setStatus("Cannot save: " + err.Error())
		return err
	}
	fail := func(err error) error {
		d.setStatus("Cannot save: " + err.Error())
		return err
	}
	if path == d.path {
		if !d.dirty {
			return nil
		}
		disk, err := limits.ReadFile(path, limits.Pickle)
		if err != nil {
			return fail(err)
		}
		if !bytes.Equal(disk, d.disk) {
			return fail(fmt.Errorf("%s changed on disk since it was opened; use Save as…, or open it again (your edits: %s)", filepath.Base(path), mods))
		}
	}
	backup := ""
	if _, err := os.Stat(path); err == nil {
		discarded, err := mobileenv.ReplaceWithBackup(path, d.edited)
		if err != nil {
			return fail(err)
		}
		backup = fmt.Sprintf("; the previous version is kept as %s.old", filepath.Base(path))
		if len(discarded) > 0 {
			backup += fmt.Sprintf("; removed %d temporary file(s) an interrupted save had left", len(discarded))
		}
	} else if err := atomicfile.Write(path, d.edited, 0o644); err != nil {
		return fail(err)
	}
	d.savedAs(path)
	d.setStatus(fmt.Sprintf("Saved %s (modifiers %q%s).", filepath.Base(path), mods, backup))
	return nil
}

// savedBase is a file edits applied to before a save, with those edits and the redo list.
type savedBase struct {
	data     []byte
	orig     *mobileenv.File
	trajLens []int
	pending  []mobileenv.PendingEdit
	redo     []mobileenv.PendingEdit
}

// savedAs makes the file just written to path (the edited bytes, already parsed) the one edits
// apply to, under its new name after Save as… (episodes name their file). What is on show
// stays: the trajectory and the step, and the undo history (undo goes back across the save).
func (d *Workspace) savedAs(path string) {
	if len(d.pending) > 0 {
		d.saves = append(d.saves, savedBase{data: d.data, orig: d.orig, trajLens: d.trajLens,
			pending: d.pending, redo: d.redo})
	}
	saved := *d.cur
	saved.Path, saved.Size = path, int64(len(d.edited))
	if path != d.path {
		if st := d.store; st != nil {
			st.TouchRecent(context.Background(), path, "pickle")
		}
	}
	d.path, d.data, d.orig, d.trajLens = path, d.edited, &saved, trajectoryLengths(&saved)
	d.disk, d.diskFile, d.saved = d.edited, &saved, true
	d.pending, d.redo = nil, nil
	d.show(&saved, d.edited)
}

// importAll stores every trajectory (as shown, with pending edits) as an episode.
func (d *Workspace) importAll() error {
	st := d.store
	if d.cur == nil || st == nil {
		return errors.New("nothing to import")
	}
	f, path, curTraj := d.cur, d.path, d.curTraj
	n := len(f.Trajectories)
	d.setStatus(fmt.Sprintf("Importing %s…", widgets.Plural(n, "trajectory")))
	var result error
	workspace.Start(d.host, nil, func(ctx context.Context) (struct{}, error) {
		for i := 0; i < n; i++ {
			ep, err := f.Episode(i, mobileenv.EpisodeOptions{EncodePNG: true})
			if err != nil {
				return struct{}{}, err
			}
			ep.ExternalID = mobileenv.ExternalID(path, curTraj[i])
			if err := st.SaveEpisode(ctx, &ep); err != nil {
				return struct{}{}, err
			}
		}
		return struct{}{}, nil
	}, func(_ struct{}, err error) {
		result = err
		if err != nil {
			d.setStatus("Import failed: " + err.Error())
			return
		}
		d.setStatus(fmt.Sprintf("Imported %s into the store; they are in the Explorer.", widgets.Plural(n, "trajectory")))
	})
	return result
}

func (d *Workspace) openDialog() {
	if d.host.Window() == nil {
		return
	}
	fd := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			return
		}
		r.Close()
		d.Open(r.URI().Path(), -1)
	}, d.host.Window())
	fd.SetFilter(storage.NewExtensionFileFilter([]string{".pkl", ".pickle", ".pkl.old"}))
	fd.Show()
}

func (d *Workspace) saveAsDialog() {
	if d.host.Window() == nil || d.orig == nil {
		return
	}
	fd := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			return
		}
		w.Close()
		d.saveAs(w.URI().Path())
	}, d.host.Window())
	fd.SetFileName(strings.TrimSuffix(filepath.Base(d.path), ".pkl") + "-edited.pkl")
	fd.Show()
}

// saveAs saves to the path chosen in the save dialog. fyne's save dialog creates the file it
// returns: an empty file is that one (or holds nothing worth keeping), not a previous version
// to back up as PATH.old (which Save as used to leave, 0 bytes, beside the new file).
func (d *Workspace) saveAs(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Size() == 0 && path != d.path {
		_ = os.Remove(path)
	}
	return d.save(path)
}

func (d *Workspace) chooseDefDir() {
	if d.host.Window() == nil {
		return
	}
	dialog.ShowFolderOpen(func(l fyne.ListableURI, err error) {
		if err != nil || l == nil {
			return
		}
		d.setDefDir(l.Path())
	}, d.host.Window())
}

func (d *Workspace) setDefDir(dir string) {
	d.defDir = dir
	fyne.CurrentApp().Preferences().SetString(prefDefDir, dir)
	d.loadOptions()
	d.refreshButtons()
}
