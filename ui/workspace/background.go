package workspace

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

// Task is background work started by Start. Its result is applied on the UI goroutine unless
// the task was cancelled (or superseded, see Latest) first: a stale result is dropped.
type Task struct {
	cancel  context.CancelFunc
	dropped atomic.Bool
}

// Cancel cancels the work's context and drops its result. It is safe to call more than once,
// and on a nil Task.
func (t *Task) Cancel() {
	if t == nil {
		return
	}
	t.dropped.Store(true)
	t.cancel()
}

// Stop cancels the work's context and keeps its result: apply still runs, with whatever the
// work returns once it notices (an agent run reports the episodes it finished).
func (t *Task) Stop() {
	if t != nil {
		t.cancel()
	}
}

// Latest keeps the newest of a series of tasks (a query per filter change, a reload): starting
// one through it cancels the one before, whose result is dropped. The zero value is ready.
type Latest struct {
	mu  sync.Mutex
	cur *Task
}

// Cancel cancels the current task, if any.
func (l *Latest) Cancel() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cur.Cancel()
	l.cur = nil
}

func (l *Latest) replace(t *Task) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cur.Cancel()
	l.cur = t
}

// Start runs work off the UI goroutine (through h.Go) and then apply on the UI goroutine with
// its result, unless the task was cancelled. latest, when not nil, cancels the task it held.
//
// When work has finished by the time h.Go returns (tests run it at once), apply runs before
// Start returns, on the calling goroutine; otherwise through fyne.Do. So apply never goes
// through fyne.Do from the UI goroutine, and a test sees the result as soon as Start returns.
func Start[T any](h Host, latest *Latest, work func(ctx context.Context) (T, error), apply func(T, error)) *Task {
	ctx, cancel := context.WithCancel(context.Background())
	t := &Task{cancel: cancel}
	if latest != nil {
		latest.replace(t)
	}
	var res T
	var err error
	var state atomic.Int32 // 0 running, 1 finished before Start looked, 2 Start returned first
	finish := func() {
		cancel()
		if !t.dropped.Load() {
			apply(res, err)
		}
	}
	h.Go(func() {
		res, err = work(ctx)
		if !state.CompareAndSwap(0, 1) {
			fyne.Do(finish)
		}
	})
	if !state.CompareAndSwap(0, 2) {
		finish()
	}
	return t
}

// Progress reports how far work is: fraction in [0, 1] (negative: unknown) and a line of text.
// It may be called from any goroutine, as often as wanted.
type Progress = func(fraction float64, text string)

// StartWithProgress runs work as Start does, behind a modal dialog titled title with a progress
// bar, a line of text and a Cancel button (which cancels the work's context). When it ends, the
// dialog goes, an error is shown (a cancellation as "Cancelled"), and apply runs whatever the
// outcome, on the UI goroutine.
func StartWithProgress[T any](h Host, title string, work func(ctx context.Context, report Progress) (T, error), apply func(T, error)) *Task {
	bar, label := widget.NewProgressBar(), widget.NewLabel("Starting…")
	label.Wrapping = fyne.TextWrapWord
	var dlg *dialog.CustomDialog
	var task *Task
	if w := h.Window(); w != nil {
		dlg = dialog.NewCustomWithoutButtons(title, container.NewGridWrap(fyne.NewSize(460, 110), container.NewVBox(label, bar)), w)
		cancelB := widget.NewButton("Cancel", func() {
			label.SetText("Cancelling…")
			task.Stop() // the result still arrives, as a cancellation
		})
		dlg.SetButtons([]fyne.CanvasObject{cancelB})
		dlg.Show()
	}
	var pending atomic.Pointer[[2]any]
	report := func(frac float64, text string) {
		// the latest report wins; one h.Do at a time carries it
		if pending.Swap(&[2]any{frac, text}) == nil {
			h.Do(func() {
				p := pending.Swap(nil)
				if p == nil {
					return
				}
				if f := p[0].(float64); f >= 0 {
					bar.SetValue(min(f, 1))
				}
				label.SetText(p[1].(string))
			})
		}
	}
	task = Start(h, nil, func(ctx context.Context) (T, error) { return work(ctx, report) }, func(res T, err error) {
		if dlg != nil {
			dlg.Hide()
		}
		if w := h.Window(); w != nil && err != nil {
			if errors.Is(err, context.Canceled) {
				dialog.ShowInformation(title, "Cancelled. Nothing was changed.", w)
			} else {
				ShowError(w, err)
			}
		}
		apply(res, err)
	})
	return task
}

// ShowError shows err in a dialog on w: the one way the UI shows an error. Call it on the UI
// goroutine (background work returns its errors to Start's apply). A nil w (tests) or err
// shows nothing.
func ShowError(w fyne.Window, err error) {
	if w == nil || err == nil {
		return
	}
	dialog.ShowError(err, w)
}

// Errorf is ShowError of a formatted error.
func Errorf(w fyne.Window, format string, args ...any) {
	ShowError(w, fmt.Errorf(format, args...))
}

// BusyBar shows inline that work runs: an activity bar and a Cancel button beside it, for
// work a workspace waits for without a modal dialog (opening a large file). Put Content in the
// layout; it is hidden while idle.
type BusyBar struct {
	Content  *fyne.Container
	activity *widget.ProgressBarInfinite
	token    *int
	task     *Task
	// OnChange runs when work starts and ends (busy true, then false): turn controls off and on.
	OnChange func(busy bool)
	// OnCancel runs after the user cancelled the work (its result is dropped).
	OnCancel func()
}

// NewBusyBar returns an idle bar.
func NewBusyBar() *BusyBar {
	b := &BusyBar{activity: widget.NewProgressBarInfinite()}
	b.activity.Stop()
	cancel := widget.NewButton("Cancel", b.Cancel)
	b.Content = container.NewBorder(nil, nil, nil, cancel, b.activity)
	b.Content.Hide()
	return b
}

// Busy reports whether work runs.
func (b *BusyBar) Busy() bool { return b.token != nil }

// Cancel drops the running work's result (the work is told through its context).
func (b *BusyBar) Cancel() {
	if b.token == nil {
		return
	}
	b.task.Cancel()
	b.stop()
	if b.OnCancel != nil {
		b.OnCancel()
	}
}

func (b *BusyBar) stop() {
	b.token, b.task = nil, nil
	b.activity.Stop()
	b.Content.Hide()
	if b.OnChange != nil {
		b.OnChange(false)
	}
}

// StartBusy runs work as Start does with b shown until it ends; Cancel on the bar drops the
// result. Call it on the UI goroutine while b is idle.
func StartBusy[T any](h Host, b *BusyBar, work func(ctx context.Context) (T, error), apply func(T, error)) *Task {
	token := new(int)
	b.token = token
	b.Content.Show()
	b.activity.Start()
	if b.OnChange != nil {
		b.OnChange(true)
	}
	t := Start(h, nil, work, func(res T, err error) {
		if b.token != token {
			return // cancelled
		}
		b.stop()
		apply(res, err)
	})
	if b.token == token {
		b.task = t
	}
	return t
}

// Run is Start for work that leaves its results in the caller's variables: work runs off the UI
// goroutine, then apply on it (not when the task was cancelled).
func Run(h Host, latest *Latest, work func(ctx context.Context), apply func()) *Task {
	return Start(h, latest, func(ctx context.Context) (struct{}, error) {
		work(ctx)
		return struct{}{}, nil
	}, func(struct{}, error) { apply() })
}
