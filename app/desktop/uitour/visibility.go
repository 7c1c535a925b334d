package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/ui/workspace"
)

// The tour checks that a person can see and reach what they came to do, not only that screens
// fit: each workspace brings itself to its main tasks (workspace.Tasks) and names the widgets
// a task needs; every one must lie wholly inside the window and inside the viewport of every
// scroll container around it, without scrolling. Each check is a line of visibility.json.

// requiredTasks are the tasks the tour checks and the widgets each must show; a workspace
// that does not offer one fails the tour.
var requiredTasks = map[string][]string{
	"evaluation.annotate": {"next", "dialogue", "choices"},
	"evaluation.serve":    {"serve-button", "links-table"},
	"evaluation.results":  {"agreement-table"},
	"explorer.episode":    {"frame", "step-controls"},
	"demonstrations.edit": {"frame", "step-controls", "save"},
	"templates.edit":      {"editor", "preview"},
	"gridworld.play":      {"view", "reward-overlay"},
}

// minHeights are the heights some widgets need at the smallest size toured (1024x700): the
// frame a person annotates or steps through is no thumbnail.
var minHeights = map[string]float32{
	"explorer.episode/frame":    300,
	"demonstrations.edit/frame": 300,
}

// visibilityCheck is one line of visibility.json.
type visibilityCheck struct {
	Size    string     `json:"size"`
	Theme   string     `json:"theme"`
	Task    string     `json:"task"`
	Widget  string     `json:"widget"`
	Visible bool       `json:"visible"`
	Bounds  [4]float32 `json:"bounds"` // x, y, w, h in window pixels
	// Why says what hides it, when it is not visible.
	Why string `json:"why,omitempty"`
}

// rect is a rectangle in the window's coordinates (fyne units).
type rect struct{ x, y, w, h float32 }

func (r rect) contains(o rect) bool {
	const eps = 0.5
	return o.x >= r.x-eps && o.y >= r.y-eps && o.x+o.w <= r.x+r.w+eps && o.y+o.h <= r.y+r.h+eps
}

func (r rect) intersect(o rect) rect {
	x0, y0 := max(r.x, o.x), max(r.y, o.y)
	x1, y1 := min(r.x+r.w, o.x+o.w), min(r.y+r.h, o.y+o.h)
	return rect{x0, y0, max(0, x1-x0), max(0, y1-y0)}
}

// placement is where an object is drawn, and the viewports of the scroll containers around it.
type placement struct {
	at    rect
	clips []rect
}

// locate finds target under root (following only visible objects) and returns where it is
// drawn; false when it is not part of what is shown.
func locate(root, target fyne.CanvasObject) (placement, bool) {
	var found placement
	var ok bool
	var walk func(o fyne.CanvasObject, origin fyne.Position, clips []rect) bool
	walk = func(o fyne.CanvasObject, origin fyne.Position, clips []rect) bool {
		if o == nil || !o.Visible() {
			return false
		}
		pos := origin.Add(o.Position())
		here := rect{pos.X, pos.Y, o.Size().Width, o.Size().Height}
		if o == target {
			found, ok = placement{at: here, clips: slices.Clone(clips)}, true
			return true
		}
		if _, scroll := o.(*container.Scroll); scroll {
			clips = append(clips, here)
		}
		var children []fyne.CanvasObject
		switch c := o.(type) {
		case *fyne.Container:
			children = c.Objects
		case fyne.Widget:
			children = cachedRenderer(c)
		}
		for _, ch := range children {
			if walk(ch, pos, clips) {
				return true
			}
		}
		return false
	}
	walk(root, fyne.NewPos(-root.Position().X, -root.Position().Y), nil)
	return found, ok
}

// cachedRenderer is a widget's rendered children (fyne's renderer cache, as findAll reads it).
func cachedRenderer(w fyne.Widget) []fyne.CanvasObject { return test.WidgetRenderer(w).Objects() }

// checkVisible decides whether o is visible without scrolling in a window of size win.
func checkVisible(root fyne.CanvasObject, win fyne.Size, o fyne.CanvasObject) (rect, bool, string) {
	if o == nil {
		return rect{}, false, "the workspace named no widget"
	}
	p, ok := locate(root, o)
	if !ok {
		return rect{}, false, "not on show (hidden, or not in the window's content)"
	}
	window := rect{0, 0, win.Width, win.Height}
	if p.at.w < 1 || p.at.h < 1 {
		return p.at, false, fmt.Sprintf("drawn %.0fx%.0f", p.at.w, p.at.h)
	}
	if !window.contains(p.at) {
		return p.at, false, fmt.Sprintf("outside the %.0fx%.0f window", win.Width, win.Height)
	}
	view := window
	for _, c := range p.clips {
		if !c.contains(p.at) {
			return p.at, false, fmt.Sprintf("outside a scroll container's viewport %v", c)
		}
		view = view.intersect(c)
	}
	if t, isTable := o.(*widget.Table); isTable {
		if why := tableRowsInView(t, p.at.intersect(view)); why != "" {
			return p.at, false, why
		}
	}
	return p.at, true, ""
}

// tableRowsInView: a table is in view when at least one of its rows is, under its header.
func tableRowsInView(t *widget.Table, shown rect) string {
	rows, _ := t.Length()
	if rows == 0 {
		return "the table has no rows"
	}
	rowH := t.CreateCell().MinSize().Height
	need := rowH
	if t.ShowHeaderRow {
		header := rowH
		if t.CreateHeader != nil {
			header = t.CreateHeader().MinSize().Height
		}
		need += header
	}
	if shown.h+0.5 < need {
		return fmt.Sprintf("no row in view: the table shows %.0f px, a row needs %.0f", shown.h, need)
	}
	return ""
}

// tasks brings the workspace on show to each of its tasks and checks what each needs.
func (t *tour) tasks(th, id string) {
	var ws workspace.Workspace
	onUI(func() { ws = t.d.Shell.Workspace(id) })
	tw, ok := ws.(workspace.Tasks)
	if !ok {
		return
	}
	var names []string
	onUI(func() { names = tw.TaskNames() })
	for _, name := range names {
		var err error
		onUI(func() { err = tw.StartTask(name) })
		if err != nil {
			t.failf("%s/%s: %s: %v", th, id, name, err)
			continue
		}
		t.seenTasks[name] = true
		var tv workspace.TaskView
		// background reads (a page of episodes, a frame) may take a moment: give them up to
		// a few seconds to bring every widget into view
		for range 6 {
			time.Sleep(settle)
			onUI(func() { tv, err = tw.TaskView(name) })
			if err == nil && t.allVisible(name, tv) {
				break
			}
		}
		if err != nil {
			t.failf("%s/%s: %s: %v", th, id, name, err)
			continue
		}
		t.shot(th, "task", name)
		t.recordTask(th, name, tv)
		t.stableTargets(th, name, tv)
	}
}

// allVisible reports whether every required widget of the task is visible now.
func (t *tour) allVisible(task string, tv workspace.TaskView) bool {
	ok := true
	onUI(func() {
		root, win := t.d.Window.Content(), t.d.Window.Canvas().Size()
		for _, w := range requiredTasks[task] {
			if _, vis, _ := checkVisible(root, win, tv.Widgets[w]); !vis {
				ok = false
			}
		}
	})
	return ok
}

// recordTask checks each widget the task requires and records the result.
func (t *tour) recordTask(th, task string, tv workspace.TaskView) {
	want := requiredTasks[task]
	if want == nil {
		for w := range tv.Widgets {
			want = append(want, w)
		}
		slices.Sort(want)
	}
	onUI(func() {
		root, win := t.d.Window.Content(), t.d.Window.Canvas().Size()
		scale := t.d.Window.Canvas().Scale()
		for _, w := range want {
			r, vis, why := checkVisible(root, win, tv.Widgets[w])
			if min := minHeights[task+"/"+w]; vis && min > 0 && t.smallest() && r.h+0.5 < min {
				vis, why = false, fmt.Sprintf("%.0f px tall, needs %.0f", r.h, min)
			}
			c := visibilityCheck{Size: t.label, Theme: th, Task: task, Widget: w, Visible: vis, Why: why,
				Bounds: [4]float32{px(r.x, scale), px(r.y, scale), px(r.w, scale), px(r.h, scale)}}
			t.checks = append(t.checks, c)
			if !vis {
				t.failf("%s/%s: %s is not visible: %s (bounds %v)", th, task, w, why, c.Bounds)
			}
		}
	})
}

func px(v, scale float32) float32 { return float32(math.Round(float64(v * scale))) }

// smallest reports whether this run is at the 1024x700 screen the minimum heights are for.
func (t *tour) smallest() bool { return t.label == "1024x700" }

// stableTargets chooses each target in turn and fails when any target moved by more than a
// pixel: the next click would land on something else.
func (t *tour) stableTargets(th, task string, tv workspace.TaskView) {
	if len(tv.Targets) == 0 || tv.Choose == nil {
		return
	}
	bounds := func() []rect {
		var out []rect
		onUI(func() {
			root := t.d.Window.Content()
			for _, o := range tv.Targets {
				p, _ := locate(root, o)
				out = append(out, p.at)
			}
		})
		return out
	}
	before := bounds()
	moved := 0
	for i := range tv.Targets {
		onUI(func() { tv.Choose(i) })
		time.Sleep(settle / 3)
		after := bounds()
		for j := range after {
			dx, dy := after[j].x-before[j].x, after[j].y-before[j].y
			if math.Abs(float64(dx)) > 1 || math.Abs(float64(dy)) > 1 {
				moved++
				t.failf("%s/%s: choosing answer %d moved answer %d by (%.0f, %.0f)", th, task, i, j, dx, dy)
			}
		}
		before = after
	}
	t.logf("%s/%s: %d answers chosen in turn, %d moves", th, task, len(tv.Targets), moved)
}

// checkTasksSeen fails when a required task was never offered by its workspace.
func (t *tour) checkTasksSeen() {
	var missing []string
	for name := range requiredTasks {
		if !t.seenTasks[name] {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.failf("tasks no workspace offered: %s", strings.Join(missing, ", "))
	}
}

// writeVisibility writes the checks as visibility-<size>.json in the output folder.
func (t *tour) writeVisibility() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	checks := t.checks
	if checks == nil {
		checks = []visibilityCheck{}
	}
	b, err := json.MarshalIndent(checks, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(t.out, "visibility-"+t.label+".json"), append(b, '\n'), 0o644)
}
