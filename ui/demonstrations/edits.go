package demonstrations

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentdesk/agentdesk/engine/mobileenv"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Edits: pending edits in the original file's coordinates, applied off the UI goroutine; undo
// and redo; the equivalent modifier string.

// applyEdits applies pending edits to the file as opened: the parsed result and its bytes
// (what Save writes). It touches no widget: it runs off the UI goroutine.
func applyEdits(path string, data []byte, pending []mobileenv.PendingEdit, trajLens []int, options []any) (*mobileenv.File, []byte, error) {
	mods, err := mobileenv.ModifiersFor(pending, trajLens)
	if err != nil {
		return nil, nil, err
	}
	f, err := mobileenv.Parse(path, data) // a private copy to edit
	if err != nil {
		return nil, nil, err
	}
	parsed, err := mobileenv.ParseModifiers(mods)
	if err != nil {
		return nil, nil, err
	}
	if err := mobileenv.ApplyModifiers(trajectoriesOf(f), parsed, options); err != nil {
		return nil, nil, err
	}
	edited, err := mobileenv.Encode(f.Root)
	if err != nil {
		return nil, nil, err
	}
	cur, err := mobileenv.Parse(path, edited)
	if err != nil {
		return nil, nil, err
	}
	return cur, edited, nil
}

// rebuild applies d.pending to the file as opened off the UI goroutine (the activity bar on,
// the controls off) and shows the result; done receives the outcome on the UI goroutine (on
// an error nothing changed but d.pending, which done may take back). It returns the outcome
// when the work finished before it returns (a synchronous deps.Run, as in tests).
func (d *Workspace) rebuild(done func(error)) error {
	if d.orig == nil {
		return nil
	}
	if len(d.pending) == 0 { // the file as opened: nothing to compute
		d.show(d.orig, d.data)
		if done != nil {
			done(nil)
		}
		return nil
	}
	path, data, trajLens, options := d.path, d.data, d.trajLens, d.options
	pending := append([]mobileenv.PendingEdit(nil), d.pending...)
	d.setStatus(fmt.Sprintf("Applying %s…", widgets.Plural(len(pending), "edit")))
	d.cancelled = func() {
		if done != nil {
			done(errors.New("cancelled"))
		}
	}
	type applied struct {
		cur    *mobileenv.File
		edited []byte
	}
	var result error
	workspace.StartBusy(d.host, d.busy, func(context.Context) (applied, error) {
		cur, edited, err := applyEdits(path, data, pending, trajLens, options)
		return applied{cur, edited}, err
	}, func(a applied, err error) {
		d.cancelled = nil
		if err == nil {
			d.show(a.cur, a.edited)
		}
		result = err
		if done != nil {
			done(err)
		}
	})
	return result
}

// edit adds pending edits (in original coordinates) and applies them (off the UI goroutine);
// rejected edits are taken back. then runs once they are applied.
func (d *Workspace) edit(es ...mobileenv.PendingEdit) error { return d.editThen(nil, es...) }

func (d *Workspace) editThen(then func(), es ...mobileenv.PendingEdit) error {
	if d.busy.Busy() {
		d.setStatus(errBusy.Error())
		return errBusy
	}
	n := len(d.pending)
	d.pending = append(d.pending, es...)
	return d.rebuild(func(err error) {
		if err != nil {
			d.pending = d.pending[:n]
			d.setStatus("Edit refused: " + err.Error())
			return
		}
		d.redo = nil
		d.refreshButtons()
		ops := make([]string, len(es))
		for i, e := range es {
			ops[i] = e.Op
		}
		d.setStatus(fmt.Sprintf("%s: %s", strings.Join(ops, ", "), d.modLabel.Text))
		if then != nil {
			then()
		}
	})
}

func (d *Workspace) current() (traj, rec int, ok bool) {
	if d.cur == nil || d.sel < 0 || d.sel >= len(d.curTraj) || d.viewer.Len() == 0 {
		return 0, 0, false
	}
	return d.curTraj[d.sel], d.curRec[d.sel][d.viewer.Index()], true
}

func (d *Workspace) deleteRange() error {
	if d.cur == nil || d.sel < 0 {
		return errors.New("no trajectory selected")
	}
	a, b := min(d.markA, d.viewer.Index()), max(d.markA, d.viewer.Index())
	recs := d.curRec[d.sel]
	// Contiguous runs of original records, deleted from the last so indices stay valid, applied
	// together.
	var es []mobileenv.PendingEdit
	for j := b; j >= a; {
		end := recs[j] + 1
		k := j
		for k > a && recs[k-1] == recs[k]-1 {
			k--
		}
		es = append(es, mobileenv.PendingEdit{Op: "delete", Traj: d.curTraj[d.sel], Start: recs[k], End: end})
		j = k - 1
	}
	return d.editThen(func() { d.markA = min(a, max(d.viewer.Len()-1, 0)) }, es...)
}

func (d *Workspace) setInstruction(option int) error {
	t, r, ok := d.current()
	if !ok {
		return errors.New("no step selected")
	}
	if option == -1 && !d.recordHasInstruction() {
		d.setStatus("This step has no instruction of its own to clear.")
		return errors.New("nothing to clear")
	}
	if option < -1 || option >= len(d.options) {
		d.setStatus("Choose one of the task definition's instruction options first.")
		return errors.New("no instruction option chosen")
	}
	return d.edit(mobileenv.PendingEdit{Op: "instructionize", Traj: t, Start: r, Option: option})
}

func (d *Workspace) setReward(text string) error {
	t, r, ok := d.current()
	if !ok {
		return errors.New("no step selected")
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil {
		d.setStatus("The reward must be a number.")
		return err
	}
	delta := v - d.viewer.Episode().Steps[d.viewer.Index()].Reward
	if delta == 0 {
		return nil
	}
	return d.edit(mobileenv.PendingEdit{Op: "rewardize", Traj: t, Start: r, Delta: delta})
}

func (d *Workspace) removeTrajectory() error {
	if d.cur == nil || d.sel < 0 {
		return errors.New("no trajectory selected")
	}
	return d.edit(mobileenv.PendingEdit{Op: "remove", Traj: d.curTraj[d.sel]})
}

func (d *Workspace) undo() {
	if len(d.pending) == 0 && len(d.saves) == 0 {
		return
	}
	if d.busy.Busy() {
		d.setStatus(errBusy.Error())
		return
	}
	if len(d.pending) == 0 {
		d.undoSave()
		return
	}
	last := d.pending[len(d.pending)-1]
	d.pending = d.pending[:len(d.pending)-1]
	d.rebuild(func(err error) {
		if err != nil { // cancelled, or the edits before it no longer apply: keep it
			d.pending = append(d.pending, last)
			return
		}
		d.redo = append(d.redo, last)
		d.refreshButtons()
		d.setStatus("Undone: " + last.Op)
	})
}

// undoSave undoes the last edit saved: the edits apply to the file as it was before that save
// again, all of them but the last (the file on disk stays as saved until the next Save).
func (d *Workspace) undoSave() {
	top := d.saves[len(d.saves)-1]
	now := savedBase{data: d.data, orig: d.orig, trajLens: d.trajLens, pending: d.pending, redo: d.redo}
	last := top.pending[len(top.pending)-1]
	d.saves = d.saves[:len(d.saves)-1]
	d.data, d.orig, d.trajLens = top.data, top.orig, top.trajLens
	d.pending = append([]mobileenv.PendingEdit(nil), top.pending[:len(top.pending)-1]...)
	d.rebuild(func(err error) {
		if err != nil { // cancelled: back to the file as saved
			d.saves = append(d.saves, top)
			d.data, d.orig, d.trajLens, d.pending, d.redo = now.data, now.orig, now.trajLens, now.pending, now.redo
			return
		}
		d.redo = append(append([]mobileenv.PendingEdit(nil), top.redo...), last)
		d.refreshButtons()
		d.setStatus("Undone: " + last.Op + " (saved before: Save writes the file without it)")
	})
}

func (d *Workspace) redoOne() {
	if len(d.redo) == 0 {
		return
	}
	e := d.redo[len(d.redo)-1]
	redo := d.redo[:len(d.redo)-1]
	d.editThen(func() { d.redo = redo; d.refreshButtons() }, e)
}

// Modifiers is the modifier string equivalent to the pending edits.
func (d *Workspace) Modifiers() (string, error) {
	return mobileenv.ModifiersFor(d.pending, d.trajLens)
}
