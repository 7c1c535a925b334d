// Package workspace is what the shell and the workspaces (Gridworld, Demonstrations, Templates,
// Evaluation, Explorer) agree on: the lifecycle every workspace implements, the host the shell
// gives it, and the one way the UI runs work off the UI goroutine. It imports no workspace and
// no shell, so both sides import it.
//
// # Lifecycle
//
// The GUI entry registers each workspace with the shell as a Registration. The shell calls New
// the first time the workspace's screen is shown and keeps what it returns: switching to another
// screen and back shows the same Content in the same state (the open file, the page of a
// session, the scoring tab). Only two things end a workspace, and both call Close first:
//
//   - the window closes (or the app quits), and
//   - the store changes (Settings): the shell drops every workspace and creates each again,
//     on the new store, when it is next shown.
//
// Before either, and before a workspace's own Open replaces what it holds, unsaved work is asked
// about: the shell asks every workspace that implements Unsaved, one after the other (Save,
// Discard or Cancel; Cancel stops the whole action). Workspaces that open files implement
// Opener; the shell routes files given on the command line or dropped on the window to the
// first one that takes them. Workspaces reach each other only through the Host (Show,
// OpenFile), never directly.
package workspace

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
)

// Workspace is one workspace as the shell drives it.
type Workspace interface {
	// Content is the workspace's view, built once and kept.
	Content() fyne.CanvasObject
	// Close stops the workspace's background work (playback, bots, timers, agent runs) and
	// keeps what must be kept (a recording in progress is stored). It is called once.
	Close()
}

// Unsaved is implemented by workspaces that can hold work not saved yet.
type Unsaved interface {
	// UnsavedWork says what is not saved, as the start of a sentence ("demo.pkl has 2 edits
	// not saved (0:delete:1:3)"); "" when everything is saved.
	UnsavedWork() string
	// SaveWork saves it; the error says why it could not.
	SaveWork() error
	// DiscardWork drops it (the user chose Discard).
	DiscardWork()
}

// Opener is implemented by workspaces that open files.
type Opener interface {
	// Opens reports whether the workspace opens path (by its kind: a pickle, a dataset folder).
	Opens(path string) bool
	// Open opens path, asking about unsaved work first. at, when >= 0, is the item to show
	// first (a trajectory of a pickle).
	Open(path string, at int) error
}

// Host is what the shell gives a workspace.
type Host interface {
	// Window is the main window (nil in tests without one).
	Window() fyne.Window
	// Go runs f off the UI goroutine; tests run it at once. Prefer Start, which applies the
	// result on the UI goroutine.
	Go(f func())
	// Do runs f on the UI goroutine, from any goroutine (fyne.Do in the app); for work's
	// reports while it runs.
	Do(f func())
	// Show shows the screen with this id; false when there is none.
	Show(id string) bool
	// OpenFile opens path in the workspace that opens it (see Opener), showing that workspace.
	OpenFile(path string, at int) error
	// LoadSamples loads the bundled sample data into the store (asking about unsaved work
	// first: the workspaces are made again on the new data) and shows the calling screen's
	// sample; empty workspaces offer it.
	LoadSamples()
}

// Registration describes a workspace to the shell.
type Registration struct {
	ID    string // screen id: "gridworld", "demonstrations", ...
	Title string
	Icon  fyne.Resource
	// Intro says in a line what the workspace is for: beside its title in the shell's header
	// line, and in the navigation entry's tooltip.
	Intro string
	// New creates the workspace. It is called on the UI goroutine, the first time the
	// workspace is shown after the start or a store change.
	New func(h Host) Workspace
	// Summary is the workspace's line on Home, from the store's overview (nil: the title alone).
	Summary func(o episode.Overview) string
}

// Screen ids of the workspaces, in navigation order.
const (
	Gridworld      = "gridworld"
	Demonstrations = "demonstrations"
	Templates      = "templates"
	Evaluation     = "evaluation"
	Explorer       = "explorer"
)

// Value is f(), or the zero value when f is nil (a registration made without a store).
func Value[T any](f func() T) T {
	var zero T
	if f == nil {
		return zero
	}
	return f()
}

// Command is one of the standard commands of the app's menu and shortcuts.
type Command string

// The standard commands; a workspace answers those that mean something in it.
const (
	Open   Command = "open"    // Ctrl+O: open a file or folder
	Save   Command = "save"    // Ctrl+S
	SaveAs Command = "save-as" // Ctrl+Shift+S
	Undo   Command = "undo"    // Ctrl+Z
	Redo   Command = "redo"    // Ctrl+Shift+Z or Ctrl+Y
	Find   Command = "find"    // Ctrl+F: the search field
)

// Commands is implemented by workspaces that answer standard commands.
type Commands interface {
	// Do runs c and reports whether the workspace has it (false: the shell passes undo and
	// redo on to the focused text field).
	Do(c Command) bool
}

// SampleButton is the one action an empty workspace offers a newcomer: load the bundled
// sample data (Host.LoadSamples) and see the workspace working.
func SampleButton(h Host) *widget.Button {
	b := widget.NewButtonWithIcon("Load sample data", theme.DownloadIcon(), h.LoadSamples)
	b.Importance = widget.HighImportance
	return b
}

// Focus gives obj the keyboard when it is part of the window's content or of a dialog on it;
// otherwise (a screen not on show, a view replaced meanwhile) it does nothing, where fyne
// would log an error.
func Focus(w fyne.Window, obj fyne.Focusable) {
	if w == nil || obj == nil {
		return
	}
	target, ok := obj.(fyne.CanvasObject)
	if !ok {
		return
	}
	roots := []fyne.CanvasObject{w.Content()}
	roots = append(roots, w.Canvas().Overlays().List()...)
	for _, r := range roots {
		if r != nil && contains(r, target) {
			w.Canvas().Focus(obj)
			return
		}
	}
}

// contains reports whether target is o or inside it.
func contains(o, target fyne.CanvasObject) bool {
	if o == target {
		return true
	}
	switch c := o.(type) {
	case *fyne.Container:
		for _, ch := range c.Objects {
			if contains(ch, target) {
				return true
			}
		}
	case fyne.Widget:
		for _, ch := range test.WidgetRenderer(c).Objects() { // (fyne's renderer cache; no other public way)
			if contains(ch, target) {
				return true
			}
		}
	}
	return false
}

// Running is implemented by workspaces whose background work other people depend on (a study
// served to participants' browsers): quitting stops it, so the shell asks first.
type Running interface {
	// RunningWork says what quitting would stop, as a sentence ("Study “Sample chats” is
	// served to participants: quitting stops serving it."); "" when nothing runs.
	RunningWork() string
}
