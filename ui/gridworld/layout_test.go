package gridworld

import (
	"context"
	"image/color"
	"math"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/gridworld"
	"github.com/agentdesk/agentdesk/ui/uitest"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// projectingSpy is the spy renderer that can also place points on its pictures (as the app's
// OpenGL renderer does), by the map's projection.
type projectingSpy struct{ spyRenderer }

func (p *projectingSpy) Project(v WorldView, pt gridworld.Vec3) (x, y float64, ok bool) {
	if !v.FirstPerson {
		return MapRenderer{}.Project(v, pt)
	}
	// a pinhole camera at the agent's eye looking along its sight, 90° high (as the pov)
	eye := v.Agent.Position
	f := gridworld.NewState(nil, eye, v.Agent.Yaw, v.Agent.Pitch).Sight()
	d := [3]float64{pt[0] - eye[0], pt[1] - eye[1], pt[2] - eye[2]}
	r := [3]float64{-f[2], 0, f[0]} // f × up
	n := math.Hypot(r[0], r[2])
	r = [3]float64{r[0] / n, 0, r[2] / n}
	u := [3]float64{r[1]*f[2] - r[2]*f[1], r[2]*f[0] - r[0]*f[2], r[0]*f[1] - r[1]*f[0]}
	dot := func(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
	z := dot(d, [3]float64(f))
	if z <= 0 {
		return 0, 0, false
	}
	half := float64(v.Height) / 2
	return float64(v.Width)/2 + half*dot(d, r)/z, half - half*dot(d, u)/z, true
}

func openAt(t *testing.T, size fyne.Size) (*Workspace, fyne.Window) {
	t.Helper()
	test.NewTempApp(t)
	st := uitest.SeededStore(t)
	spy := &projectingSpy{}
	h := uitest.NewHost(t, size.Width, size.Height)
	g := New(h, Deps{Store: func() Store { return st }, World: func() (WorldRenderer, error) { return spy, nil }})
	h.Put(g)
	g.selectTask("tower")
	g.render()
	return g, h.Win
}

// absPos is where o is under root (from root's top left), or ok false when o is not on show
// under root.
func absPos(root, o fyne.CanvasObject) (fyne.Position, bool) {
	r, _, ok := uitest.LocateIn(root, o)
	return r.Pos.Subtract(root.Position()), ok
}

// TestGridworldTasksInView: the play task's view and reward overlay are wholly in view at
// 1024x670, 1366x738 and 1920x1050, and in the room the shell leaves at 1024x670 (its
// navigation expanded, its one-line header), the task starting from a replay too.
func TestGridworldTasksInView(t *testing.T) {
	for _, size := range []fyne.Size{uitest.Laptop, fyne.NewSize(830, 630), fyne.NewSize(1366, 738), fyne.NewSize(1920, 1050)} {
		g, w := openAt(t, size)
		var tasks workspace.Tasks = g
		if names := tasks.TaskNames(); len(names) != 1 || names[0] != "gridworld.play" {
			t.Fatalf("tasks %v", names)
		}
		typeKeys(w, g, fyne.KeyW)
		g.reset()
		list, _ := g.store.Episodes(context.Background(), episode.Query{Source: episode.SourceGridworld, Limit: 1})
		if err := g.startReplay(list[0].ID); err != nil {
			t.Fatal(err)
		}
		if err := tasks.StartTask("gridworld.play"); err != nil {
			t.Fatal(err)
		}
		if g.replay != nil || g.env == nil || w.Canvas().Focused() != g.view {
			t.Fatalf("%v: StartTask did not bring up playing with the view focused", size)
		}
		tv, err := tasks.TaskView("gridworld.play")
		if err != nil {
			t.Fatal(err)
		}
		if len(tv.Widgets) != 2 || tv.Widgets["view"] != g.view || tv.Widgets["reward-overlay"] == nil {
			t.Fatalf("task widgets %v", tv.Widgets)
		}
		for name, o := range tv.Widgets {
			if r, why := uitest.Why(w, w.Content(), o); why != "" {
				t.Errorf("%v: %s at %v size %v is %s", size, name, r.Pos, r.Size, why)
			}
		}
		// the 3D view gets the room: most of the window's height and width
		vs := g.view.Size()
		if vs.Height < size.Height-130 || vs.Width < size.Width*0.65 {
			t.Errorf("%v: the 3D view is only %v", size, vs)
		}
		// on a large screen the target's picture grows with the side panel
		if ph := g.preview.Size().Height; size.Width >= 1900 && ph < 250 {
			t.Errorf("%v: the target's picture is only %v tall", size, ph)
		}
		if err := tasks.StartTask("gridworld.nothing"); err == nil {
			t.Error("an unknown task started")
		}
	}
}

// TestGridworldToolbarIsOneLine: the play controls are one line, as tall as a button, and fit
// the room a workspace has beside the shell's navigation on a 1024-pixel screen.
func TestGridworldToolbarIsOneLine(t *testing.T) {
	g, _ := openAt(t, uitest.Laptop)
	line := g.more.MinSize().Height
	if h := g.bars.Size().Height; h > line+1 {
		t.Fatalf("toolbar %v tall, a button %v", h, line)
	}
	if m := g.playBar.MinSize(); m.Width > uitest.Workspace.Width {
		t.Fatalf("the play controls need %v, the workspace has %v", m.Width, uitest.Workspace.Width)
	}
	if m := g.replayBar.MinSize(); m.Height > line+1 {
		t.Fatalf("replay controls %v tall", m.Height)
	}
	// the ⋯ menu holds the rest, and its action-space choice plays a new episode in that space
	test.Tap(g.more)
	if g.host.Window().Canvas().Overlays().Top() == nil {
		t.Fatal("the ⋯ menu did not open")
	}
	g.host.Window().Canvas().Overlays().Top().Hide()
	g.setSpace(spaceFlying)
	if g.env.ActionKind() != gridworld.KindFly || !strings.Contains(g.status.Text, "Flying") {
		t.Fatalf("flying not chosen (status %q)", g.status.Text)
	}
}

// TestGridworldCrosshair: the crosshair is at the centre of the first-person view (the agent's
// line of sight) and at the agent's aim point in the orbit view, follows the aim, is drawn over
// the 3D view in white with a dark rim in both themes, and moves nothing else.
func TestGridworldCrosshair(t *testing.T) {
	for _, th := range []fyne.Theme{theme.LightTheme(), theme.DarkTheme()} {
		g, w := openAt(t, uitest.Laptop)
		fyne.CurrentApp().Settings().SetTheme(th)
		typeKeys(w, g, fyne.KeyW, fyne.KeyW, fyne.KeyW) // the agent lands
		root := w.Content()
		before := map[string]fyne.Position{}
		for name, o := range map[string]fyne.CanvasObject{"step": g.stepText, "aim": g.aimText, "instr": g.instr, "view": g.view} {
			before[name], _ = absPos(root, o)
		}
		g.camera.SetSelected("First person")
		vs := g.view.Size()
		if !g.cross.shown || abs32(g.cross.at.X-vs.Width/2) > 1 || abs32(g.cross.at.Y-vs.Height/2) > 1 {
			t.Fatalf("first person: crosshair at %v (shown %v), the view is %v", g.cross.at, g.cross.shown, vs)
		}
		checkDrawn(t, w, g)
		g.camera.SetSelected("Orbit")
		typeKeys(w, g, fyne.KeyDown, fyne.KeyDown, fyne.KeyDown, fyne.KeyDown, fyne.KeyDown, fyne.KeyDown)
		st := g.env.State()
		a := aimOf(st)
		if !a.focus.HasHit {
			t.Fatal("looking down 30°, the agent aims at nothing")
		}
		v, _ := g.currentView(int(vs.Width), int(vs.Height))
		x, y, _ := MapRenderer{}.Project(v, a.point)
		if !g.cross.shown || g.cross.faint || abs32(g.cross.at.X-float32(x)) > 1 || abs32(g.cross.at.Y-float32(y)) > 1 {
			t.Fatalf("orbit: crosshair at %v (shown %v, faint %v), the aim point is at %.0f,%.0f", g.cross.at, g.cross.shown, g.cross.faint, x, y)
		}
		checkDrawn(t, w, g)
		for name, o := range map[string]fyne.CanvasObject{"step": g.stepText, "aim": g.aimText, "instr": g.instr, "view": g.view} {
			if p, _ := absPos(root, o); p != before[name] {
				t.Fatalf("%s moved from %v to %v", name, before[name], p)
			}
		}
		// clicks go through the crosshair to the view
		uitest.Walk(root, func(o fyne.CanvasObject) {
			if _, ok := o.(fyne.Tappable); ok && o != fyne.CanvasObject(g.view) && isOver(root, o, g) {
				t.Fatalf("%T lies over the crosshair", o)
			}
		})
	}
}

func isOver(root, o fyne.CanvasObject, g *Workspace) bool {
	p, ok := absPos(root, o)
	if !ok {
		return false
	}
	vp, _ := absPos(root, g.view)
	c := vp.Add(g.cross.at)
	s := o.Size()
	return c.X >= p.X && c.Y >= p.Y && c.X <= p.X+s.Width && c.Y <= p.Y+s.Height
}

// checkDrawn: the window's pixels at the crosshair are white at its centre and dark on its rim.
func checkDrawn(t *testing.T, w fyne.Window, g *Workspace) {
	t.Helper()
	img := w.Canvas().Capture()
	vp, _ := absPos(w.Content(), g.view)
	c := vp.Add(g.cross.at)
	sc := w.Canvas().Scale()
	at := func(dx, dy float32) color.NRGBA {
		return color.NRGBAModel.Convert(img.At(int((c.X+dx)*sc), int((c.Y+dy)*sc))).(color.NRGBA)
	}
	if p := at(crossArm-3, 0); p.R < 230 || p.G < 230 || p.B < 230 {
		t.Fatalf("crosshair arm is %v, not white", p)
	}
	if p := at(crossArm-3, crossWidth/2+1); int(p.R)+int(p.G)+int(p.B) > 3*90 {
		t.Fatalf("crosshair rim is %v, not dark", p)
	}
}

func abs32(f float32) float32 {
	if f < 0 {
		return -f
	}
	return f
}

// TestGridworldPlaceThatDoesNothing: E and Q that would change nothing are not spent, and the
// aim line says why in words fit for the view on show, in a line that moves nothing; a place
// that does something is spent and places.
func TestGridworldPlaceThatDoesNothing(t *testing.T) {
	g, w := openAt(t, uitest.Laptop)
	typeKeys(w, g, fyne.KeyW, fyne.KeyW, fyne.KeyW) // the agent lands, looking ahead
	root := w.Content()
	aimAt, _ := absPos(root, g.aimText)
	instrAt, _ := absPos(root, g.instr)
	aimH := g.aimText.Size().Height

	typeKeys(w, g, fyne.KeyE)
	if g.env.StepCount() != 3 || !strings.Contains(g.aimText.Text, "Nothing placed") || !strings.Contains(g.aimText.Text, "agent aims at no block") {
		t.Fatalf("orbit E at nothing: %d steps, %q", g.env.StepCount(), g.aimText.Text)
	}
	g.camera.SetSelected("First person")
	typeKeys(w, g, fyne.KeyE)
	if g.env.StepCount() != 3 || !strings.Contains(g.aimText.Text, "no block face under the crosshair") {
		t.Fatalf("first-person E at nothing: %d steps, %q", g.env.StepCount(), g.aimText.Text)
	}
	typeKeys(w, g, fyne.KeyQ)
	if g.env.StepCount() != 3 || !strings.Contains(g.aimText.Text, "Nothing broken") {
		t.Fatalf("Q at nothing: %d steps, %q", g.env.StepCount(), g.aimText.Text)
	}
	if p, _ := absPos(root, g.aimText); p != aimAt || g.aimText.Size().Height != aimH {
		t.Fatalf("the reason moved the aim line from %v to %v", aimAt, p)
	}
	if p, _ := absPos(root, g.instr); p != instrAt {
		t.Fatalf("the reason moved the instruction from %v to %v", instrAt, p)
	}
	for range 6 {
		typeKeys(w, g, fyne.KeyDown)
	}
	if !strings.Contains(g.aimText.Text, "Aim: ground") || !strings.Contains(g.aimText.Text, "E puts blue") {
		t.Fatalf("aim line looking at the ground: %q", g.aimText.Text)
	}
	typeKeys(w, g, fyne.KeyQ)
	if g.env.StepCount() != 9 || !strings.Contains(g.aimText.Text, "the ground cannot be broken") {
		t.Fatalf("Q at the ground: %d steps, %q", g.env.StepCount(), g.aimText.Text)
	}
	typeKeys(w, g, fyne.KeyE)
	if g.env.StepCount() != 10 || g.env.State().GridRef().Count() != 1 || !strings.Contains(g.aimText.Text, "Q breaks it") {
		t.Fatalf("E at the ground: %d steps, %d blocks, %q", g.env.StepCount(), g.env.State().GridRef().Count(), g.aimText.Text)
	}
	// out of blue blocks
	st := g.env.State()
	st.SetInventory([gridworld.NumColors]int{0, 20, 20, 20, 20, 20}, 1)
	typeKeys(w, g, fyne.KeyE)
	if g.env.StepCount() != 10 || !strings.Contains(g.aimText.Text, "no blue blocks left") {
		t.Fatalf("E without blue blocks: %d steps, %q", g.env.StepCount(), g.aimText.Text)
	}
	if n := g.rec.Len(); n != 10 {
		t.Fatalf("recorded %d steps, the env counted 10", n)
	}
}

// TestGridworldRewardFlashMovesNothing: the reward flash has its own slot: the "Step N" line
// stays where it was, inside its panel, and the panel keeps its size.
func TestGridworldRewardFlashMovesNothing(t *testing.T) {
	g, w := openAt(t, uitest.Laptop)
	root := w.Content()
	g.updateOverlay()
	stepAt, _ := absPos(root, g.stepText)
	panelAt, _ := absPos(root, g.rewardPanel)
	panel := g.rewardPanel.Size()
	for _, r := range []float64{1, -0.1, -12.5} {
		g.flash(r)
		g.cumulative += r
		g.updateOverlay()
		w.Content().Refresh() // lays everything out again, as a paint would
		if !g.rewardText.Visible() {
			t.Fatal("the flash is not shown")
		}
		p, _ := absPos(root, g.stepText)
		pp, _ := absPos(root, g.rewardPanel)
		if p != stepAt || pp != panelAt || g.rewardPanel.Size() != panel {
			t.Fatalf("flash %+.2f: step line %v -> %v, panel %v %v -> %v %v", r, stepAt, p, panelAt, panel, pp, g.rewardPanel.Size())
		}
		s := g.stepText.Size()
		if p.Y+s.Height > panelAt.Y+panel.Height || p.X+s.Width > panelAt.X+panel.Width {
			t.Fatalf("the step line %v %v leaves its panel %v %v", p, s, panelAt, panel)
		}
		if f, _ := absPos(root, g.rewardText); f.X < panelAt.X || f.Y < panelAt.Y ||
			f.Y+g.rewardText.MinSize().Height > panelAt.Y+panel.Height+1 {
			t.Fatalf("the flash at %v lies outside its panel %v %v", f, panelAt, panel)
		}
	}
}

// TestGridworldReplayLayout: replaying at 1024x670, the world starts right under the controls
// (no empty band), keeps the main area, and the viewer's first-person frame is a useful size.
func TestGridworldReplayLayout(t *testing.T) {
	g, w := openAt(t, uitest.Laptop)
	typeKeys(w, g, fyne.KeyW, fyne.KeyA)
	g.reset()
	root := w.Content()
	playView, _ := absPos(root, g.view)
	list, _ := g.store.Episodes(context.Background(), episode.Query{Source: episode.SourceGridworld, Limit: 1})
	if err := g.startReplay(list[0].ID); err != nil {
		t.Fatal(err)
	}
	view, ok := absPos(root, g.view)
	if !ok || view != playView || view.Y > g.bars.Size().Height+2*theme.Padding() {
		t.Fatalf("replaying, the view is at %v (playing: %v; the controls are %v tall)", view, playView, g.bars.Size().Height)
	}
	var frame fyne.CanvasObject
	uitest.Walk(g.viewer, func(o fyne.CanvasObject) {
		if img, ok := o.(*canvas.Image); ok && frame == nil && img.Image == g.viewer.Frame() {
			frame = img
		}
	})
	if frame == nil {
		t.Fatal("no frame in the viewer")
	}
	if fs := frame.Size(); fs.Height < 150 || fs.Width < 150 {
		t.Fatalf("the replay's frame is %v", fs)
	}
	if r, why := uitest.Why(w, w.Content(), frame); why != "" {
		t.Fatalf("the replay's frame at %v is %s", r.Pos, why)
	}
	if vs := g.view.Size(); vs.Height < 450 || vs.Width < 600 {
		t.Fatalf("replaying, the 3D view is only %v", vs)
	}
	// the bottom panel holds the instruction and the aim line, with no empty inventory between
	ip, _ := absPos(root, g.instr)
	ap, _ := absPos(root, g.aimText)
	if gap := ap.Y - (ip.Y + g.instr.Size().Height); gap > 2*theme.Padding() {
		t.Fatalf("replaying, %v between the instruction and the aim line", gap)
	}
	g.exitReplay()
	if !g.inventory.Visible() || uitest.Find(g.inventory, func(*fyne.Container) bool { return true }) == nil {
		t.Fatal("back to playing, no inventory")
	}
}
