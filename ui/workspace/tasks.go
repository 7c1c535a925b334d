package workspace

import "fyne.io/fyne/v2"

// A workspace's main tasks (rating a page in Evaluation, stepping through an episode in the
// Explorer) are what a person opens it for; the UI tour checks that what each task needs is in
// view without scrolling, at every screen size it tours. Workspaces name those widgets here.

// TaskView is what a person needs in view to do one task.
type TaskView struct {
	// Widgets are the task's widgets by the names the tour reports ("next", "dialogue",
	// "frame", "step-controls", ...).
	Widgets map[string]fyne.CanvasObject
	// Targets, when set, are objects a person clicks one after another (the answers of a rating
	// page); Choose chooses the i-th. The tour records every target's bounds before and after
	// each choice: nothing may move under the pointer.
	Targets []fyne.CanvasObject
	Choose  func(i int)
}

// Tasks is implemented by workspaces whose tasks the UI tour checks.
type Tasks interface {
	// TaskNames lists the workspace's tasks, as "<workspace>.<task>" ("evaluation.annotate").
	TaskNames() []string
	// StartTask brings the workspace to the task, opening the sample item it needs (the sample
	// data is loaded before the tour asks). It runs on the UI goroutine; the tour lets the
	// screen settle, then calls TaskView. An error says why the task cannot be reached.
	StartTask(name string) error
	// TaskView names the widgets of the task on show now.
	TaskView(name string) (TaskView, error)
}
