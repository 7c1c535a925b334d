// Package desktop is the GUI entry: the only code that starts fyne. Run opens the main window
// on a store, registers the workspaces with the shell (ui/registry), starts the 3D renderer of
// the Gridworld workspace once the app runs (world.go), asks the workspaces about unsaved work
// when the window closes, and closes the store last.
package desktop

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"github.com/agentdesk/agentdesk/app"
	_ "github.com/agentdesk/agentdesk/app/internal/plainlocale" // must initialise before fyne's lang
	"github.com/agentdesk/agentdesk/app/workflow"
	"github.com/agentdesk/agentdesk/resources"
	"github.com/agentdesk/agentdesk/store"
	"github.com/agentdesk/agentdesk/ui"
	"github.com/agentdesk/agentdesk/ui/registry"
)

// ReadyLine is printed to stderr once the main window is on screen (the packaging smoke test
// waits for it).
const ReadyLine = "agentdesk: main window shown"

// Run opens the desktop app on the store at opts.StorePath, or on the default store: the
// command line calls it (app.Main) when there is no command, or for commands that open the app.
func Run(opts app.GUIOptions) int { return RunWith(opts, nil) }

// Started is what RunWith's caller gets once the main window is on screen.
type Started struct {
	App    fyne.App
	Window fyne.Window
	Shell  *ui.Shell
	// Screen is the primary monitor's size in fyne units (zero when unknown).
	Screen fyne.Size
}

// RunWith is Run, calling started on a goroutine of its own once the main window is on screen
// (the UI tour drives the real app through it; it must reach the UI through fyne.Do).
func RunWith(opts app.GUIOptions, started func(Started)) int {
	setMemoryLimit()
	storePath, storeGiven := opts.StorePath, opts.StorePath != ""
	a := newApp()
	icon := fyne.NewStaticResource("agentdesk.png", resources.IconPNG)
	a.SetIcon(icon)
	ui.ApplyTheme(a)

	dataFolder, folderErr := app.DataFolder()
	if !storeGiven {
		if folderErr != nil {
			fmt.Fprintf(os.Stderr, "agentdesk: %v\n", folderErr)
		} else {
			storePath = filepath.Join(dataFolder, app.StoreFileName)
		}
	}

	// The open store may change while the app runs (Settings); close whichever is open last.
	var mu sync.Mutex
	var current *store.Store
	// a write that waits for another process says so in the window (the shell exists once the
	// store is open: notices before that are dropped)
	var shellRef atomic.Pointer[ui.Shell]
	notify := func(n store.Notice) {
		fyne.Do(func() {
			if sh := shellRef.Load(); sh != nil {
				// the window's own Cancel gives up, not Ctrl-C
				sh.Notice("Waiting: " + strings.Replace(n.Text, " (Ctrl-C to give up)", "", 1))
			}
		})
	}
	open := func(path string) (ui.Store, error) {
		st, err := store.OpenWith(path, store.Options{Notify: notify})
		if err != nil {
			return nil, err
		}
		mu.Lock()
		old := current
		current = st
		mu.Unlock()
		if old != nil {
			old.Close()
		}
		return st, nil
	}
	// the workspaces read the store when they are created (after the start, after a switch)
	currentStore := func() registry.Store {
		mu.Lock()
		defer mu.Unlock()
		if current == nil {
			return nil
		}
		return workflow.Workflows{Store: current}
	}
	world := &glWorld{}
	worldReady := make(chan struct{})
	deps := ui.Deps{
		StorePath:     storePath,
		DataFolder:    dataFolder,
		Version:       app.Version,
		Icon:          icon,
		Licenses:      licenses(),
		OpenStore:     open,
		SetDataFolder: app.SetDataFolder,
		Workspaces: registry.Workspaces(currentStore, registry.Options{
			World: world.get, WorldReady: worldReady, Task: opts.Task}),
	}
	if dataFolder != "" {
		deps.Samples = sampleData{dir: filepath.Join(dataFolder, workflow.SamplesFolder), store: func() *store.Store {
			mu.Lock()
			defer mu.Unlock()
			return current
		}}
	}
	if storePath == "" {
		deps.StoreErr = folderErr
	} else if st, err := open(storePath); err != nil {
		fmt.Fprintf(os.Stderr, "agentdesk: %v\n", err)
		deps.StoreErr = err
	} else {
		deps.Store = st
	}

	w := a.NewWindow("Agentdesk")
	w.SetIcon(icon)
	w.SetMaster()
	shell := ui.NewShell(w, deps)
	shellRef.Store(shell)
	if opts.Screen != "" {
		shell.Show(opts.Screen)
	}
	w.SetContent(shell.Content())
	w.SetOnDropped(func(_ fyne.Position, uris []fyne.URI) {
		paths := make([]string, len(uris))
		for i, u := range uris {
			paths[i] = u.Path()
		}
		shell.OpenFiles(paths)
	})
	w.Resize(ui.WindowSize(a.Preferences(), fyne.Size{}))
	quit := func() {
		ui.SaveWindowSize(a.Preferences(), w.Canvas().Size(), screenSize(w))
		w.Close()
	}
	// the menu's shortcuts work even inside text fields; Quit (Ctrl+Q) asks as closing does
	w.SetMainMenu(shell.MainMenu(quit))
	w.SetCloseIntercept(closeRequest(shell, quit))
	// fyne terminates GLFW before the app's on-stopped hook: the renderer goes with the window.
	w.SetOnClosed(world.close)
	a.Lifecycle().SetOnStarted(func() {
		// now that GLFW runs, the screen's size is known: the window never opens larger
		if screen := screenSize(w); screen.Width > 0 {
			if size := ui.WindowSize(a.Preferences(), screen); size != w.Canvas().Size() {
				w.Resize(size)
			}
		}
		// Escape closes the dialog on top even when a text field in it has the keyboard
		hookEscape(w, shell.DismissDialog)
		world.start()
		close(worldReady) // the Gridworld workspace draws its 3D view now
		fmt.Fprintf(os.Stderr, "%s (store %s)\n", ReadyLine, storePath)
		if started != nil {
			go started(Started{App: a, Window: w, Shell: shell, Screen: screenSize(w)})
		}
		if opts.Open != "" {
			// agentdesk FILE.pkl: opened once the window is up, so a slow file or an error
			// dialog has a window to show in
			shell.OpenFiles([]string{opts.Open})
		}
	})
	w.ShowAndRun()
	if err := a.prefs.Save(); err != nil {
		fmt.Fprintf(os.Stderr, "agentdesk: saving preferences: %v\n", err)
	}

	mu.Lock()
	defer mu.Unlock()
	if current != nil {
		if err := current.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "agentdesk: closing the store: %v\n", err)
			return 1
		}
	}
	return 0
}

// newApp starts fyne with the app's own preferences (filePrefs): fyne is given no app id, so
// it neither saves nor watches a preferences file of its own.
func newApp() *prefsApp {
	// no id (a FyneApp.toml found beside the binary during development would give one)
	fyneapp.SetMetadata(fyne.AppMetadata{Name: "Agentdesk", Version: app.Release})
	fa := fyneapp.NewWithID("")
	path, err := app.PreferencesPath()
	legacy := ""
	if dir, err := os.UserConfigDir(); err == nil {
		legacy = filepath.Join(dir, "fyne", app.AppID, "preferences.json")
	}
	var prefs *filePrefs
	if err == nil {
		prefs, err = loadPrefs(path, legacy)
	}
	if prefs == nil { // no config folder: preferences last as long as the app
		prefs = &filePrefs{values: map[string]any{}}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentdesk: preferences: %v\n", err)
	}
	a := &prefsApp{App: fa, prefs: prefs, id: app.AppID}
	fyne.SetCurrentApp(a)
	return a
}

// licenses lists the linked modules' licences for About; a broken list shows none rather
// than keeping the app from starting.
func licenses() []resources.License {
	ls, err := resources.Licenses()
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentdesk: licence list: %v\n", err)
	}
	return ls
}

// The app's default soft memory limit follows what is live: a quarter more than the live heap
// plus memoryHeadroom, and never below memoryFloor. A fixed limit (96 MiB before) sits below
// the live heap as soon as CJK fonts are installed (they keep about 80 MB live) or a large
// store's Explorer index is made, and then the collector runs without pause: 500 collections
// in the first 5 s on a store of 200,000 episodes. No limit lets the heap double.
const (
	memoryFloor    = 128 << 20
	memoryHeadroom = 24 << 20
)

// setMemoryLimit applies AGENTDESK_MEMORY_LIMIT (e.g. "256MiB", "300MB", a number of bytes, or
// "off") as a fixed soft memory limit, or else the limit that follows the live heap, unless
// GOMEMLIMIT is set (the runtime applied that already).
func setMemoryLimit() {
	limit, err := memoryLimit(os.Getenv("AGENTDESK_MEMORY_LIMIT"))
	switch {
	case err != nil:
		fmt.Fprintf(os.Stderr, "agentdesk: %v; the limit follows the live heap\n", err)
	case limit > 0:
		debug.SetMemoryLimit(limit)
		return
	case limit < 0 || os.Getenv("GOMEMLIMIT") != "":
		return
	}
	debug.SetMemoryLimit(memoryFloor)
	go func() {
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for range time.Tick(time.Second) {
			metrics.Read(live)
			if live[0].Value.Kind() == metrics.KindUint64 {
				debug.SetMemoryLimit(followingLimit(int64(live[0].Value.Uint64())))
			}
		}
	}()
}

// followingLimit is the soft memory limit for a live heap of live bytes.
func followingLimit(live int64) int64 { return max(memoryFloor, live+live/4+memoryHeadroom) }

// memoryLimit reads a memory limit setting: 0 means the default (one that follows the live
// heap), -1 none ("off").
func memoryLimit(value string) (int64, error) {
	value = strings.TrimSpace(value)
	switch {
	case value == "":
		return 0, nil
	case strings.EqualFold(value, "off"):
		return -1, nil
	}
	num := strings.TrimRightFunc(value, func(r rune) bool { return r < '0' || r > '9' })
	unit := strings.TrimSpace(value[len(num):])
	scale, ok := map[string]int64{"": 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[unit]
	n, err := strconv.ParseInt(num, 10, 64)
	if !ok || err != nil || n <= 0 || n > (1<<62)/scale {
		return 0, fmt.Errorf("AGENTDESK_MEMORY_LIMIT=%q is not a size such as 256MiB, 300MB or off", value)
	}
	return n * scale, nil
}

// closeRequest is what closing the window does (its close button, the window manager's close,
// WM_DELETE_WINDOW): unsaved work in any workspace is asked about first, and Cancel keeps the
// window open; otherwise quit runs.
func closeRequest(shell *ui.Shell, quit func()) func() {
	return func() { shell.Quit(quit) }
}
