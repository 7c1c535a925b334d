// Package ui is the main window's shell: the navigation, Home, Settings, About, the theme and
// the registry of screens. The workspaces live in their own packages (ui/gridworld,
// ui/demonstrations, ui/templates, ui/evaluation, ui/explorer) and reach the shell only through
// ui/workspace; the GUI entry registers them with the shell, which imports none of them. It
// never imports fyne's app package, g3n or the store, so every screen can be tested headless
// with fyne's test driver.
package ui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/resources"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Store is what the shell reads from the store: where it is and what it holds (Home). The
// workspaces declare what they need in their own packages; the GUI entry gives it to them.
type Store interface {
	Path() string
	Overview(ctx context.Context) (episode.Overview, error)
}

// Deps is what the GUI entry hands the shell.
type Deps struct {
	// Store is the open store; nil when none could be opened (StoreErr says why).
	Store    Store
	StoreErr error
	// StorePath is the store file in use or requested.
	StorePath string
	// DataFolder is where the default store lives.
	DataFolder string
	Version    string
	Licenses   []resources.License
	Icon       fyne.Resource
	// OpenStore closes the current store and opens (or creates) the one at path. The shell
	// closes and drops every workspace afterwards (each is created again, on the new store,
	// when next shown). Nil when switching is not supported.
	OpenStore func(path string) (Store, error)
	// SetDataFolder records a new data folder for the default store; it applies from the next
	// start (and to the command line at once).
	SetDataFolder func(dir string) error
	// Run runs long work off the UI goroutine; nil means `go f()`. Tests pass a synchronous one.
	Run func(f func())
	// Workspaces are the workspaces, in navigation order, between Home and Settings.
	Workspaces []workspace.Registration
	// Samples loads and removes the bundled sample data; nil: not offered.
	Samples SampleData
}

// Preference keys.
const (
	prefLastScreen   = "ui.lastScreen"
	prefTheme        = "ui.theme"
	prefWindowWidth  = "ui.windowWidth"
	prefWindowHeight = "ui.windowHeight"
	prefRecentStores = "ui.recentStores"
	prefNav          = "ui.navigation"
	prefDensity      = "ui.density"
	// prefWindowScreen* are the screen's size when the window's size was saved
	prefWindowScreenWidth  = "ui.windowScreenWidth"
	prefWindowScreenHeight = "ui.windowScreenHeight"
)

// Shell is the main window's content: the navigation column on the left (nav.go) and the
// selected screen on the right under a one-line header. It is the workspaces' host (workspace.Host): it creates each workspace the
// first time it is shown and keeps it until the window closes or the store changes.
type Shell struct {
	win     fyne.Window
	deps    Deps
	screens []*Screen
	nav     *navRail
	title   *widget.Label
	intro   *widget.Label
	body    *fyne.Container
	current *Screen
	root    fyne.CanvasObject
	// open holds the workspaces created so far, by screen id.
	open map[string]workspace.Workspace
	// themeGen counts theme changes; styledIn is the count each open workspace's view was last
	// on the window in (restyle.go)
	themeGen atomic.Int64
	styledIn map[string]int64
	// notice says what the app waits for (another process writing to the store); it goes when
	// no new notice came for a while
	notice    *widget.Label
	noticeBar *fyne.Container
	noticeGen int
	// noticeTimer hides the bar noticeLinger after the latest notice
	noticeTimer *time.Timer
	header      *fyne.Container
	// onNavChange tells Settings (when on show) that the navigation's mode changed
	onNavChange func(mode string)
}

// noticeLinger is how long a notice stays after the last one.
const noticeLinger = 2500 * time.Millisecond

// Notice shows text in a bar under the screen's title until no new notice has come for a
// moment: a write waiting for another Agentdesk process says so here, with how long it has
// waited, instead of looking stuck. Call it on the UI goroutine.
func (s *Shell) Notice(text string) {
	s.noticeGen++
	gen := s.noticeGen
	s.notice.SetText(text)
	s.noticeBar.Show()
	s.header.Refresh() // a container's Show only marks it: its parent lays it out
	if s.noticeTimer != nil {
		s.noticeTimer.Stop()
	}
	s.noticeTimer = time.AfterFunc(noticeLinger, func() { fyne.Do(func() { s.noticeExpired(gen) }) })
}

// stopNotice hides the notice now and stops its timer, so that nothing runs later.
func (s *Shell) stopNotice() {
	if s.noticeTimer != nil {
		s.noticeTimer.Stop()
		s.noticeTimer = nil
	}
	s.noticeExpired(s.noticeGen)
}

// noticeExpired hides the notice bar if notice gen is still the latest.
func (s *Shell) noticeExpired(gen int) {
	if s.noticeGen == gen {
		s.noticeBar.Hide()
		s.header.Refresh()
	}
}

// NewShell builds the main window's content and shows the screen used last.
func NewShell(win fyne.Window, deps Deps) *Shell {
	if deps.Run == nil {
		deps.Run = func(f func()) { go f() }
	}
	s := &Shell{win: win, deps: deps, open: map[string]workspace.Workspace{}, styledIn: map[string]int64{}}
	fyne.CurrentApp().Settings().AddListener(func(fyne.Settings) { s.themeGen.Add(1) })
	s.screens = screens(deps.Workspaces)
	// the header is one line: the screen's name, then what it is for (cut to the room left)
	s.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	s.intro = widget.NewLabel("")
	s.intro.Truncation = fyne.TextTruncateEllipsis
	s.intro.Importance = widget.LowImportance
	s.body = container.NewStack()
	s.nav = newNavRail(s)
	s.notice = widget.NewLabel("")
	s.notice.Wrapping = fyne.TextWrapWord
	s.notice.Importance = widget.WarningImportance
	s.noticeBar = container.NewBorder(nil, nil, widget.NewIcon(theme.WarningIcon()), nil, s.notice)
	s.noticeBar.Hide()
	header := container.NewVBox(container.NewBorder(nil, nil, s.title, nil, s.intro), s.noticeBar, widget.NewSeparator())
	s.header = header
	main := container.NewBorder(header, nil, nil, nil, s.body)
	navSide := container.NewBorder(nil, nil, nil, widget.NewSeparator(), s.nav.box)
	s.root = widgets.WithTips(container.New(shellLayout{s}, navSide, container.NewPadded(main)))
	if win != nil {
		win.Canvas().SetOnTypedKey(s.typedKey)
	}

	last := fyne.CurrentApp().Preferences().StringWithFallback(prefLastScreen, "home")
	if s.screen(last) == nil {
		last = "home"
	}
	s.Show(last)
	if deps.StoreErr != nil {
		s.ShowStoreError(deps.StoreErr)
	}
	return s
}

// Content is the shell's root object, to set as the window's content.
func (s *Shell) Content() fyne.CanvasObject { return s.root }

// Current is the id of the screen on show.
func (s *Shell) Current() string {
	if s.current == nil {
		return ""
	}
	return s.current.ID
}

// View is the screen on show (without the navigation and the title).
func (s *Shell) View() fyne.CanvasObject {
	if len(s.body.Objects) == 0 {
		return nil
	}
	return s.body.Objects[0]
}

// ScreenIDs are the navigation's screens, in order.
func (s *Shell) ScreenIDs() []string {
	ids := make([]string, len(s.screens))
	for i, sc := range s.screens {
		ids[i] = sc.ID
	}
	return ids
}

// Show selects the screen with the given id ("home", "gridworld", ..., "settings", "about").
// It returns false for an unknown id.
func (s *Shell) Show(id string) bool {
	for i, sc := range s.screens {
		if sc.ID == id {
			s.nav.mark(i)
			if s.current != sc {
				s.show(sc)
			}
			return true
		}
	}
	return false
}

func (s *Shell) screen(id string) *Screen {
	for _, sc := range s.screens {
		if sc.ID == id {
			return sc
		}
	}
	return nil
}

func (s *Shell) show(sc *Screen) {
	s.current = sc
	s.title.SetText(sc.Title)
	s.intro.SetText(sc.Intro)
	var view fyne.CanvasObject
	if sc.Workspace != nil {
		view = s.workspace(sc).Content()
		s.styleForTheme(sc.ID, view)
	} else {
		view = sc.View(s)
	}
	s.body.Objects = []fyne.CanvasObject{view}
	s.body.Refresh()
	if prefs := fyne.CurrentApp().Preferences(); prefs.StringWithFallback(prefLastScreen, ScreenHome) != sc.ID {
		prefs.SetString(prefLastScreen, sc.ID)
	}
}

// Workspace is the workspace of the screen with this id, created if it was not yet; nil when
// the id is not a workspace's.
func (s *Shell) Workspace(id string) workspace.Workspace {
	sc := s.screen(id)
	if sc == nil || sc.Workspace == nil {
		return nil
	}
	return s.workspace(sc)
}

// workspace returns the workspace of sc, creating it the first time.
func (s *Shell) workspace(sc *Screen) workspace.Workspace {
	ws := s.open[sc.ID]
	if ws == nil {
		ws = sc.Workspace.New(s)
		s.open[sc.ID] = ws
	}
	return ws
}

// Close closes every workspace (stopping their background work: replays, agent runs, bots,
// timers) and drops them; call it before the window closes. Unsaved work is not asked about:
// see Quit.
func (s *Shell) Close() {
	for _, sc := range s.screens { // in navigation order, for predictable shutdowns
		if ws := s.open[sc.ID]; ws != nil {
			ws.Close()
		}
	}
	s.open = map[string]workspace.Workspace{}
	s.styledIn = map[string]int64{}
}

// Quit asks about unsaved work in every workspace (Save, Discard or Cancel each) and, when a
// workspace runs work that others depend on (a study served to participants), whether to stop
// it (Quit or Cancel); then it closes them and runs then. Cancel keeps everything as it is and
// then never runs.
func (s *Shell) Quit(then func()) {
	s.whenSettled("Quitting", func() {
		s.whenStopped(func() {
			s.Close()
			then()
		})
	})
}

// whenStopped runs then at once when no workspace runs work others depend on, else after the
// user agreed to stop it.
func (s *Shell) whenStopped(then func()) {
	var running []string
	for _, sc := range s.screens {
		if r, ok := s.open[sc.ID].(workspace.Running); ok {
			if what := r.RunningWork(); what != "" {
				running = append(running, what)
			}
		}
	}
	if len(running) == 0 || s.win == nil {
		then()
		return
	}
	msg := widget.NewLabel(strings.Join(running, "\n") + "\n\nQuit anyway?")
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm("Quit Agentdesk?", "Quit", "Cancel", msg, func(ok bool) {
		if ok {
			then()
		}
	}, s.win)
	workspace.Resize(d, s.win, fyne.NewSize(460, 220))
	d.Show()
}

// Window implements workspace.Host.
func (s *Shell) Window() fyne.Window { return s.win }

// Go implements workspace.Host.
func (s *Shell) Go(f func()) { s.deps.Run(f) }

// Do implements workspace.Host.
func (s *Shell) Do(f func()) { fyne.Do(f) }

// OpenFile implements workspace.Host: path opens in the first workspace that takes it, which is
// shown first.
func (s *Shell) OpenFile(path string, at int) error {
	for _, sc := range s.screens {
		if sc.Workspace == nil {
			continue
		}
		if o, ok := s.workspace(sc).(workspace.Opener); ok && o.Opens(path) {
			s.Show(sc.ID)
			return o.Open(path, at)
		}
	}
	return fmt.Errorf("%s: Agentdesk does not know what to do with %q files", path, strings.ToLower(filepath.Ext(path)))
}

// OpenFiles opens files given on the command line or dropped on the window in the workspaces
// that handle them (annotation pickles: Demonstrations; GUI Odyssey dataset folders and
// annotation zips: the Explorer's import). It shows what it could not open.
func (s *Shell) OpenFiles(paths []string) error {
	var errs []error
	for _, p := range paths {
		errs = append(errs, s.OpenFile(p, -1))
	}
	err := errors.Join(errs...)
	workspace.ShowError(s.win, err)
	return err
}

// Reload closes and drops every workspace, after the store changed. Unsaved work is asked
// about first (Save / Discard / Cancel, as opening another file does): Cancel keeps every
// workspace as it is.
func (s *Shell) Reload() { s.whenSettled("Reloading the workspaces", s.reload) }

func (s *Shell) reload() {
	s.Close()
	if s.current != nil {
		s.show(s.current)
	}
}

// whenSettled runs then at once when no workspace holds unsaved work, else once each
// workspace's work is saved or the user chose to drop it, asking one workspace after the
// other (never after Cancel).
func (s *Shell) whenSettled(action string, then func()) {
	for _, sc := range s.screens {
		u, ok := s.open[sc.ID].(workspace.Unsaved)
		if !ok || s.win == nil {
			continue
		}
		if what := u.UnsavedWork(); what != "" {
			s.Show(sc.ID)
			workspace.AskUnsaved(s.win, what, action, u.SaveWork, u.DiscardWork, func() { s.whenSettled(action, then) })
			return
		}
	}
	then()
}

// ShowStoreError tells the user why the store could not be opened and offers another one.
func (s *Shell) ShowStoreError(err error) {
	if s.win == nil {
		return
	}
	msg := widget.NewLabel(fmt.Sprintf("%v\n\nAgentdesk did not change the file. You can open or create another store in Settings.", err))
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom("Cannot open the store", "OK", container.NewGridWrap(fyne.NewSize(460, 160), msg), s.win)
	d.Show()
}

// switchStore opens another store and rebuilds the workspaces around it, asking about unsaved
// work first (so that Cancel keeps the store too).
func (s *Shell) switchStore(path string) error {
	if s.deps.OpenStore == nil {
		return fmt.Errorf("switching stores is not available")
	}
	var err error
	asked := false
	s.whenSettled("Switching to "+filepath.Base(path), func() {
		if err = s.openStore(path); err != nil && asked {
			workspace.ShowError(s.win, err)
		}
	})
	asked = true
	return err
}

// openStore opens the store at path and rebuilds the screens around it.
func (s *Shell) openStore(path string) error {
	st, err := s.deps.OpenStore(path)
	if err != nil {
		return err
	}
	s.deps.Store, s.deps.StoreErr, s.deps.StorePath = st, nil, st.Path()
	rememberStore(st.Path())
	s.reload()
	return nil
}

// rememberStore keeps the last few stores opened for Settings' quick list.
func rememberStore(path string) {
	prefs := fyne.CurrentApp().Preferences()
	list := []string{path}
	for _, p := range prefs.StringList(prefRecentStores) {
		if p != path && len(list) < 6 {
			list = append(list, p)
		}
	}
	prefs.SetStringList(prefRecentStores, list)
}

// typedKey gets the keys no widget has taken (nothing has the keyboard): Escape closes the
// dialog on top. (The GUI entry also sends Escape to DismissDialog before the widget with the
// keyboard sees it, so that it works from a dialog's text field too.)
func (s *Shell) typedKey(e *fyne.KeyEvent) {
	if e.Name == fyne.KeyEscape {
		s.DismissDialog()
	}
}

// DismissDialog closes the dialog on top of the window as Escape does (workspace.DismissTop)
// and reports whether there was one to close. Call it on the UI goroutine.
func (s *Shell) DismissDialog() bool {
	if s.win == nil {
		return false
	}
	return workspace.DismissTop(s.win.Canvas())
}
