// Command uitour drives the real desktop app (GLFW, on an X display: Xvfb in `make ui-tour`)
// through every screen, tab and dialog in both themes, saving a screenshot of each, and fails
// when the window is larger than the screen, a screen needs more room than the window has, or
// a dialog is taller or wider than the window. scripts/ui-tour.sh runs it once per screen size
// and also fails on any fyne warning in its log (thread misuse included).
//
//	uitour -out DIR -label 1024x700 [-themes light,dark] [-store PATH]
//
// It is a development tool: it is not part of the shipped app.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/agentdesk/agentdesk/app"
	"github.com/agentdesk/agentdesk/app/desktop"
)

func init() { runtime.LockOSThread() } // GLFW runs on the main thread

func main() {
	out := flag.String("out", "ui-tour", "folder for the screenshots and the report")
	label := flag.String("label", "", "screen size label for file names (e.g. 1024x700)")
	themes := flag.String("themes", "light,dark", "themes to tour, in order")
	storePath := flag.String("store", "", "store to open (default: the data folder's)")
	study := flag.String("study", "", "after the tour, serve the sample evaluation project and have two participants work in this `CHROMIUM` while the roster is shot")
	onlyStudy := flag.Bool("only-study", false, "load the sample data and run the study step only")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "uitour:", err)
		os.Exit(2)
	}
	t := &tour{out: *out, label: *label, themes: strings.Split(*themes, ","), chromium: *study, onlyStudy: *onlyStudy,
		seenTasks: map[string]bool{}}
	code := desktop.RunWith(app.GUIOptions{StorePath: *storePath, Screen: "home"}, t.run)
	if code != 0 {
		t.failf("the app exited with status %d", code)
	}
	os.Exit(t.finish())
}
