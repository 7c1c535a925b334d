package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/app/desktop"
	"github.com/agentdesk/agentdesk/ui"
)

// tour is one run over the app at one screen size.
type tour struct {
	out, label string
	themes     []string
	// chromium, when set, runs the study step (study.go) with this browser; onlyStudy leaves
	// the rest of the tour out
	chromium  string
	onlyStudy bool

	d        desktop.Started
	mu       sync.Mutex
	failures []string
	shots    []string
	// seen are the dialogs opened so far (by screen and button), each toured once per theme
	seen map[string]bool
	// checks are the visibility checks of the tasks (visibility.go); seenTasks the tasks offered
	checks    []visibilityCheck
	seenTasks map[string]bool
}

// settle is how long the tour lets a screen draw and its background reads finish.
const settle = 900 * time.Millisecond

func (t *tour) failf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	msg := fmt.Sprintf(format, args...)
	t.failures = append(t.failures, msg)
	fmt.Fprintln(os.Stderr, "uitour: FAIL:", msg)
}

func (t *tour) logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "uitour: "+format+"\n", args...)
}

// onUI runs f on the UI goroutine and waits for it.
func onUI(f func()) { fyne.DoAndWait(f) }

func (t *tour) run(d desktop.Started) {
	t.d = d
	defer func() {
		if r := recover(); r != nil {
			t.failf("tour panicked: %v", r)
		}
		time.Sleep(settle)
		onUI(func() { d.Shell.Close(); d.Window.Close() })
	}()
	time.Sleep(2 * settle)
	t.logf("screen %v, window %v", d.Screen, t.windowSize())
	t.checkWindow("start")
	onUI(func() { ui.SetTheme(d.App, t.themes[0]) })
	t.firstLaunch(t.themes[0])
	if t.onlyStudy {
		t.study(t.themes[0], t.chromium)
		return
	}
	t.closeAsks(t.themes[0])
	for _, th := range t.themes {
		onUI(func() { ui.SetTheme(d.App, th) })
		t.seen = map[string]bool{}
		var ids []string
		onUI(func() { ids = d.Shell.ScreenIDs() })
		for _, id := range ids {
			t.screen(th, id)
		}
		t.menuDialogs(th)
	}
	t.checkTasksSeen()
	if t.chromium != "" {
		t.study(t.themes[len(t.themes)-1], t.chromium)
	}
}

func (t *tour) windowSize() (s fyne.Size) {
	onUI(func() { s = t.d.Window.Canvas().Size() })
	return s
}

// checkWindow: the window is no larger than the screen, and its content fits in it.
func (t *tour) checkWindow(where string) {
	var size, min fyne.Size
	var title string
	onUI(func() {
		size = t.d.Window.Canvas().Size()
		min = t.d.Window.Content().MinSize()
		title = t.d.Window.Title()
	})
	if title != "Agentdesk" { // checks and window managers find the window by it
		t.failf("%s: the window's title is %q, not Agentdesk", where, title)
	}
	if sc := t.d.Screen; sc.Width > 0 && (size.Width > sc.Width+0.5 || size.Height > sc.Height+0.5) {
		t.failf("%s: window %vx%v is larger than the %vx%v screen", where, size.Width, size.Height, sc.Width, sc.Height)
	}
	if min.Width > size.Width+0.5 || min.Height > size.Height+0.5 {
		t.failf("%s: the screen needs %vx%v, the window has %vx%v", where, min.Width, min.Height, size.Width, size.Height)
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9]+`)

func fileName(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p = strings.Trim(unsafeName.ReplaceAllString(strings.ToLower(p), "-"), "-"); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "_") + ".png"
}

// shot saves the whole X screen.
func (t *tour) shot(parts ...string) {
	name := fileName(append([]string{t.label}, parts...)...)
	path := filepath.Join(t.out, name)
	cmd := exec.Command("sh", "-c", `xwd -root -silent | convert xwd:- png:"$1"`, "sh", path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.failf("screenshot %s: %v %s", name, err, out)
		return
	}
	t.shots = append(t.shots, name)
}

// screen shows one screen, each of its tabs, and each dialog its buttons open; then, where the
// screen opens something (a template folder, an evaluation project, an episode), that too.
func (t *tour) screen(th, id string) {
	onUI(func() { t.d.Shell.Show(id) })
	time.Sleep(settle)
	t.visit(th, id)
	if t.openSomething(id) {
		time.Sleep(2 * settle)
		t.visit(th, id+"-open")
	}
	t.tasks(th, id)
}

// openSomething opens the first thing the screen lists: the first recent template folder,
// the first evaluation project, the first episode.
func (t *tour) openSomething(id string) (opened bool) {
	onUI(func() {
		view := t.d.Shell.View()
		switch id {
		case "templates":
			for _, c := range findAll[*widget.Card](view) {
				if c.Title == "Recent folders" {
					for _, b := range findAll[*widget.Button](c) {
						if b.OnTapped != nil {
							b.OnTapped()
							opened = true
							return
						}
					}
				}
			}
		case "evaluation":
			if lists := findAll[*widget.List](view); len(lists) > 0 && lists[0].Length() > 0 {
				lists[0].Select(0)
				opened = true
			}
		case "explorer":
			if tables := findAll[*widget.Table](view); len(tables) > 0 {
				tables[0].Select(widget.TableCellID{Row: 0, Col: 1})
				opened = true
			}
		}
	})
	return opened
}

// visit checks and shoots what is on screen, its tabs and the dialogs its buttons open.
func (t *tour) visit(th, id string) {
	t.checkWindow(th + "/" + id)
	t.shot(th, id)
	t.dialogs(th, id, "")
	var tabs []*container.AppTabs
	onUI(func() { tabs = findAll[*container.AppTabs](t.d.Shell.View()) })
	for ti, at := range tabs {
		var n int
		onUI(func() { n = len(at.Items) })
		for i := 0; i < n; i++ {
			var title string
			onUI(func() {
				if i < len(at.Items) && at.Visible() {
					at.SelectIndex(i)
					title = at.Items[i].Text
				}
			})
			if title == "" {
				continue
			}
			time.Sleep(settle)
			where := fmt.Sprintf("%s/%s/%s", th, id, title)
			t.checkWindow(where)
			t.shot(th, id, fmt.Sprint(ti), title)
			t.dialogs(th, id, title)
		}
		onUI(func() {
			if len(at.Items) > 0 {
				at.SelectIndex(0)
			}
		})
	}
}

// findAll lists the visible objects of type T under o (not inside other T).
func findAll[T fyne.CanvasObject](o fyne.CanvasObject) []T {
	var out []T
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if o == nil || !o.Visible() {
			return
		}
		if v, ok := o.(T); ok {
			out = append(out, v)
			return
		}
		switch c := o.(type) {
		case *fyne.Container:
			for _, ch := range c.Objects {
				walk(ch)
			}
		case fyne.Widget:
			for _, ch := range test.WidgetRenderer(c).Objects() {
				walk(ch)
			}
		}
	}
	walk(o)
	return out
}

// dialogs taps every visible, enabled button of the current screen whose label ends in "…"
// (the app's convention for "opens a dialog"), checks and shoots the dialog, and closes it.
func (t *tour) dialogs(th, id, tab string) {
	var labels []string
	onUI(func() {
		for _, b := range findAll[*widget.Button](t.d.Shell.View()) {
			if strings.HasSuffix(b.Text, "…") && !b.Disabled() {
				labels = append(labels, b.Text)
			}
		}
	})
	for _, label := range labels {
		key := id + "/" + label
		if t.seen[key] {
			continue
		}
		t.seen[key] = true
		tapped := false
		onUI(func() {
			for _, b := range findAll[*widget.Button](t.d.Shell.View()) {
				if b.Text == label && !b.Disabled() && b.OnTapped != nil {
					b.OnTapped()
					tapped = true
					return
				}
			}
		})
		if !tapped {
			continue
		}
		time.Sleep(settle)
		t.dialog(th, id, tab, label)
	}
}

// dialog checks the top overlay (the dialog a tap opened), shoots it and closes it.
func (t *tour) dialog(th, id, tab, label string) {
	where := strings.Join([]string{th, id, tab, label}, "/")
	var opened bool
	var content, win fyne.Size
	onUI(func() {
		top := t.d.Window.Canvas().Overlays().Top()
		if top == nil {
			return
		}
		opened = true
		win = t.d.Window.Canvas().Size()
		if p, ok := top.(*widget.PopUp); ok && p.Content != nil {
			content = p.Content.MinSize()
		} else {
			content = top.MinSize()
		}
	})
	if !opened {
		t.logf("%s: no dialog", where)
		return
	}
	if content.Width > win.Width+0.5 || content.Height > win.Height+0.5 {
		t.failf("%s: the dialog needs %vx%v, the window is %vx%v", where, content.Width, content.Height, win.Width, win.Height)
	}
	t.checkWindow(where)
	t.shot(th, id, tab, "dialog", label)
	t.closeOverlays()
}

// closeOverlays hides every overlay (dialogs, pop-ups) the tour opened.
func (t *tour) closeOverlays() {
	onUI(func() {
		ov := t.d.Window.Canvas().Overlays()
		for top := ov.Top(); top != nil; top = ov.Top() {
			top.Hide()
			if ov.Top() == top {
				ov.Remove(top)
			}
		}
	})
	time.Sleep(settle / 3)
}

// menuDialogs opens what the main menu opens that no button does: the shortcut list.
func (t *tour) menuDialogs(th string) {
	var item *fyne.MenuItem
	onUI(func() {
		if mm := t.d.Window.MainMenu(); mm != nil {
			for _, m := range mm.Items {
				for _, it := range m.Items {
					if it.Label == "Keyboard shortcuts" {
						item = it
					}
				}
			}
		}
	})
	if item == nil {
		t.failf("no Keyboard shortcuts item in the main menu")
		return
	}
	onUI(item.Action)
	time.Sleep(settle)
	t.dialog(th, "menu", "", "keyboard shortcuts")
}

// firstLaunch: Home and an empty workspace offer the sample data; loading it from the
// Demonstrations screen opens its demonstrations there.
func (t *tour) firstLaunch(th string) {
	onUI(func() { t.d.Shell.Show("home") })
	time.Sleep(settle)
	t.shot(th, "first-launch", "home")
	if !t.hasButton("Load sample data") {
		t.failf("first launch: Home does not offer the sample data")
	}
	onUI(func() { t.d.Shell.Show("demonstrations") })
	time.Sleep(settle)
	t.shot(th, "first-launch", "demonstrations")
	if !t.tapButton("Load sample data") {
		t.failf("first launch: the empty Demonstrations screen does not offer the sample data")
		return
	}
	if !t.waitFor(60*time.Second, func() bool { return strings.Contains(t.overlayText(), "Sample data loaded") }) {
		t.failf("loading the sample data: no summary after 60 s (overlay: %q)", t.overlayText())
		return
	}
	time.Sleep(settle / 2) // let the window draw what is now on it
	t.shot(th, "first-launch", "samples-loaded")
	t.closeOverlays()
	time.Sleep(settle)
	t.checkWindow(th + "/demonstrations with the sample")
	t.shot(th, "first-launch", "demonstrations-sample")
}

// closeAsks: with an unsaved edit (a trajectory removed in Demonstrations), closing the window
// the way a window manager does (WM_DELETE_WINDOW, wmctrl -c) asks instead of quitting; Cancel
// keeps the app and the edit.
func (t *tour) closeAsks(th string) {
	onUI(func() {
		t.d.Shell.Show("demonstrations")
		if lists := findAll[*widget.List](t.d.Shell.View()); len(lists) > 0 {
			lists[0].Select(0)
		}
	})
	time.Sleep(settle)
	if !t.tapButton("Remove trajectory") {
		t.failf("close: no enabled Remove trajectory button to make an unsaved edit")
		return
	}
	time.Sleep(settle)
	if out, err := exec.Command("wmctrl", "-c", "Agentdesk").CombinedOutput(); err != nil {
		t.failf("wmctrl -c Agentdesk: %v %s", err, out)
		return
	}
	if !t.waitFor(10*time.Second, func() bool { return strings.Contains(t.overlayText(), "drops it unless you save it") }) {
		t.failf("closing the window with an unsaved edit did not ask (overlay: %q)", t.overlayText())
		return
	}
	time.Sleep(settle / 2)
	t.shot(th, "close-asks")
	if !t.tapButton("Cancel") {
		t.failf("close: no Cancel in the question")
		return
	}
	time.Sleep(settle)
	if t.windowSize().Width == 0 || !strings.Contains(t.contentText(), "not saved") {
		t.failf("Cancel did not keep the window and the edit")
	}
}

// hasButton, tapButton: an enabled, visible button whose text starts with prefix, in the top
// overlay when there is one, else in the window.
func (t *tour) findButton(prefix string) (b *widget.Button) {
	root := t.d.Window.Content()
	if top := t.d.Window.Canvas().Overlays().Top(); top != nil {
		root = top
	}
	for _, c := range findAll[*widget.Button](root) {
		if strings.HasPrefix(c.Text, prefix) && !c.Disabled() {
			return c
		}
	}
	return nil
}

func (t *tour) hasButton(prefix string) (ok bool) {
	onUI(func() { ok = t.findButton(prefix) != nil })
	return ok
}

func (t *tour) tapButton(prefix string) (ok bool) {
	onUI(func() {
		if b := t.findButton(prefix); b != nil && b.OnTapped != nil {
			b.OnTapped()
			ok = true
		}
	})
	return ok
}

func (t *tour) overlayText() (s string) {
	onUI(func() {
		if top := t.d.Window.Canvas().Overlays().Top(); top != nil {
			s = texts(top)
		}
	})
	return s
}

func (t *tour) contentText() (s string) {
	onUI(func() { s = texts(t.d.Window.Content()) })
	return s
}

// texts joins the visible labels' texts under o.
func texts(o fyne.CanvasObject) string {
	var b strings.Builder
	for _, l := range findAll[*widget.Label](o) {
		b.WriteString(l.Text + "\n")
	}
	for _, e := range findAll[*widget.Entry](o) {
		b.WriteString(e.Text + "\n")
	}
	return b.String()
}

// waitFor polls cond until it holds or d passes.
func (t *tour) waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}

// finish writes the report and returns the exit status.
func (t *tour) finish() int {
	if err := t.writeVisibility(); err != nil {
		t.failf("writing visibility.json: %v", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	report := fmt.Sprintf("%s: %d screenshots, %d failures\n", t.label, len(t.shots), len(t.failures))
	for _, f := range t.failures {
		report += "FAIL " + f + "\n"
	}
	for _, s := range t.shots {
		report += "shot " + s + "\n"
	}
	_ = os.WriteFile(filepath.Join(t.out, "report-"+t.label+".txt"), []byte(report), 0o644)
	fmt.Fprint(os.Stderr, report)
	if len(t.failures) > 0 || len(t.shots) == 0 {
		return 1
	}
	return 0
}
