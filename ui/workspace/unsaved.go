package workspace

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Question is a question about unsaved work on show; tests answer it through its buttons.
type Question struct {
	Dialog                *dialog.CustomDialog
	Save, Discard, Cancel *widget.Button
	answered              bool
}

// Pending reports whether the question is still on show, unanswered (false for nil).
func (q *Question) Pending() bool { return q != nil && !q.answered }

// AskUnsaved asks what to do with unsaved work before an action. what says what is not saved
// (Unsaved.UnsavedWork), action is a short phrase ("Open other.pkl", "Quitting"). Save runs save
// and goes on, unless saving failed (then the error is shown and the work stays); Discard runs
// discard and goes on; Cancel leaves everything as it is. Going on is then, on the UI goroutine.
// With no window (tests of a workspace alone) nothing is asked and nothing happens.
func AskUnsaved(w fyne.Window, what, action string, save func() error, discard func(), then func()) *Question {
	if w == nil {
		return nil
	}
	msg := widget.NewLabel(fmt.Sprintf("%s.\n%s drops it unless you save it first.", what, action))
	msg.Wrapping = fyne.TextWrapWord
	q := &Question{}
	answer := func(f func()) func() {
		return func() {
			q.answered = true
			q.Dialog.Hide()
			f()
		}
	}
	q.Save = widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), answer(func() {
		if err := save(); err != nil {
			ShowError(w, fmt.Errorf("nothing was saved, so nothing was dropped: %w", err))
			return
		}
		then()
	}))
	q.Save.Importance = widget.HighImportance
	q.Discard = widget.NewButtonWithIcon("Discard", theme.DeleteIcon(), answer(func() {
		if discard != nil {
			discard()
		}
		then()
	}))
	q.Cancel = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), answer(func() {}))
	q.Dialog = dialog.NewCustomWithoutButtons("Unsaved work", container.NewGridWrap(fyne.NewSize(460, 90), msg), w)
	q.Dialog.SetButtons([]fyne.CanvasObject{q.Cancel, q.Discard, q.Save})
	q.Dialog.Show()
	return q
}
