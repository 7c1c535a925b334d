package gridworld

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/gridworld"
	"github.com/agentdesk/agentdesk/store"
	"github.com/agentdesk/agentdesk/ui/uitest"
	"github.com/agentdesk/agentdesk/ui/widgets"
)

// spyRenderer draws the map and remembers what it was asked to draw.
type spyRenderer struct {
	mu    sync.Mutex // fyne's test driver runs fyne.Do on the calling goroutine, not the test's
	views []WorldView
}

func (r *spyRenderer) RenderWorld(v WorldView) (image.Image, error) {
	r.mu.Lock()
	r.views = append(r.views, v)
	r.mu.Unlock()
	return MapRenderer{}.RenderWorld(v)
}

func (r *spyRenderer) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.views)
}

func (r *spyRenderer) last(t *testing.T) WorldView {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.views) - 1; i >= 0; i-- {
		if r.views[i].Width != 64 && r.views[i].Width != 320 { // not a thumbnail or the preview
			return r.views[i]
		}
	}
	t.Fatal("nothing rendered")
	return WorldView{}
}

func openGridworld(t *testing.T) (*store.Store, *Workspace, *spyRenderer, fyne.Window) {
	laterMu.Lock()
	laterQueue = nil // timers of an earlier test's workspace
	laterMu.Unlock()
	t.Helper()
	test.NewTempApp(t)
	st := uitest.SeededStore(t)
	spy := &spyRenderer{}
	h := uitest.NewHost(t, 1100, 750)
	g := New(h, Deps{Store: func() Store { return st }, World: func() (WorldRenderer, error) { return spy, nil }})
	h.Put(g)
	g.selectTask("tower")
	return st, g, spy, h.Win
}

func typeKeys(w fyne.Window, g *Workspace, keys ...fyne.KeyName) {
	w.Canvas().Focus(g.view)
	for _, k := range keys {
		w.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: k})
	}
}

func TestGridworldKeysPlayAndRecord(t *testing.T) {
	s, g, spy, w := openGridworld(t)
	if g.env.ActionKind() != gridworld.KindDiscrete {
		t.Fatalf("default action form %v", g.env.ActionKind())
	}
	// (looking down 30°, the agent aims at the ground: E places there and Q breaks it again)
	typeKeys(w, g, fyne.KeyW, fyne.KeyW, fyne.Key3, fyne.KeyDown, fyne.KeyDown, fyne.KeyDown, fyne.KeyDown,
		fyne.KeyDown, fyne.KeyDown, fyne.KeyE)
	if g.env.State().GridRef().Count() != 1 {
		t.Fatal("E placed nothing")
	}
	typeKeys(w, g, fyne.KeyQ, fyne.KeyLeft, fyne.KeySpace)
	if g.env.StepCount() != 13 || g.rec.Len() != 13 {
		t.Fatalf("13 keys: %d steps, %d recorded", g.env.StepCount(), g.rec.Len())
	}
	if g.env.State().ActiveBlock() != 3 {
		t.Fatalf("key 3 selected colour %d", g.env.State().ActiveBlock())
	}
	if !strings.Contains(g.stepText.Text, "Step 13 / 1000") || !strings.Contains(g.progressL.Text, "of the target") {
		t.Fatalf("overlay: %q %q", g.stepText.Text, g.progressL.Text)
	}
	if len(spy.views) == 0 || spy.last(t).Grid != g.env.State().Grid() {
		t.Fatal("the view does not show the env's grid")
	}
	// The recording holds exactly the env actions the keys map to.
	want := []int{1, 1, 8, 14, 14, 14, 14, 14, 14, 17, 16, 12, 5}
	for i, st := range g.rec.Episode().Steps {
		a, err := gridworld.DecodeAction(st.Action.Raw, gridworld.Walking, true)
		if err != nil || a.Discrete != want[i] {
			t.Fatalf("step %d recorded %s, want action %d", i, st.Action.Raw, want[i])
		}
		if _, err := png.Decode(bytes.NewReader(st.Observation)); err != nil {
			t.Fatalf("step %d has no pov thumbnail: %v", i, err)
		}
	}
	// Reset stores the episode.
	g.reset()
	list, err := s.Episodes(context.Background(), episode.Query{Source: episode.SourceGridworld})
	if err != nil || len(list) != 3 || list[0].NumSteps != 13 || list[0].Task != "tower" { // 2 seeded + 1
		t.Fatalf("stored: %+v %v", list, err)
	}
	if !strings.Contains(g.status.Text, "Saved 13 steps") {
		t.Fatalf("status after reset: %q", g.status.Text)
	}
}

func TestGridworldFlyingAndDictForms(t *testing.T) {
	_, g, _, w := openGridworld(t)
	for _, c := range []struct {
		space string
		kind  gridworld.ActionKind
	}{{spaceFlying, gridworld.KindFly}, {spaceWalkingDict, gridworld.KindWalkDict}} {
		g.space = c.space
		g.reset()
		if g.env.ActionKind() != c.kind {
			t.Fatalf("%s: env form %v", c.space, g.env.ActionKind())
		}
		typeKeys(w, g, fyne.KeyW, fyne.KeySpace, fyne.KeyC, fyne.Key6, fyne.KeyE)
		// E aims at nothing (the agent looks ahead) and, the agent standing still by then,
		// would change nothing: it is not spent; walking has no "down"
		wantSteps := 4
		if c.kind == gridworld.KindWalkDict {
			wantSteps = 3
		}
		if g.env.StepCount() != wantSteps {
			t.Fatalf("%s: %d steps", c.space, g.env.StepCount())
		}
	}
}

func TestGridworldCameraGhostAndMouse(t *testing.T) {
	_, g, spy, w := openGridworld(t)
	if v := spy.last(t); v.FirstPerson || v.Target == nil {
		t.Fatalf("default view: first person %v, ghost %v", v.FirstPerson, v.Target != nil)
	}
	g.ghost = false
	g.render()
	if spy.last(t).Target != nil {
		t.Fatal("ghost still drawn when off")
	}
	// Orbit: dragging turns the camera without stepping the env.
	az := g.orbit.Azimuth
	g.view.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DX: 40}})
	if g.orbit.Azimuth == az || g.env.StepCount() != 0 {
		t.Fatalf("orbit drag: azimuth %v -> %v, steps %d", az, g.orbit.Azimuth, g.env.StepCount())
	}
	g.view.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: 120}})
	if g.orbit.Distance >= DefaultOrbit.Distance {
		t.Fatal("wheel did not zoom in")
	}
	// First person: dragging looks around with camera actions; clicks break and place.
	g.firstPerson = true
	g.view.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DX: 30}})
	w.Canvas().Unfocus()
	test.Tap(g.view) // the first click only takes the keyboard focus
	if g.env.StepCount() != 1 || w.Canvas().Focused() != g.view {
		t.Fatalf("focusing click: %d steps, focused %v", g.env.StepCount(), w.Canvas().Focused())
	}
	test.Tap(g.view)
	test.TapSecondary(g.view)
	if g.env.StepCount() != 3 || !spy.last(t).FirstPerson {
		t.Fatalf("first person: %d steps", g.env.StepCount())
	}
	acts := g.rec.Episode().Steps
	if acts[0].Action.Kind != "yaw-right" || acts[1].Action.Kind != "break" || acts[2].Action.Kind != "place" {
		t.Fatalf("mouse actions: %s %s %s", acts[0].Action.Kind, acts[1].Action.Kind, acts[2].Action.Kind)
	}
}

func TestGridworldRewardFlash(t *testing.T) {
	_, g, _, _ := openGridworld(t)
	g.flash(0.5)
	if g.rewardText.Text != "+0.50" {
		t.Fatalf("flash %q", g.rewardText.Text)
	}
	g.flash(-0.1)
	if g.rewardText.Text != "-0.10" {
		t.Fatalf("flash %q", g.rewardText.Text)
	}
	runLater(t, 1) // the first flash's timer finds a newer flash on show and leaves it
	if !g.rewardText.Visible() || g.rewardText.Text != "-0.10" {
		t.Fatalf("the first flash's end hid the second: %q", g.rewardText.Text)
	}
	runLater(t, 1)
	if g.rewardText.Visible() || g.rewardText.Text != "" {
		t.Fatalf("the flash stays: %q", g.rewardText.Text)
	}
}

// Timers under test: later queues its functions, and runLater runs the first n on the test's
// goroutine (a real timer would call into the widgets from its own goroutine).
var (
	laterMu    sync.Mutex
	laterQueue []func()
)

func init() {
	later = func(_ time.Duration, f func()) {
		laterMu.Lock()
		defer laterMu.Unlock()
		laterQueue = append(laterQueue, f)
	}
}

func runLater(t *testing.T, n int) {
	t.Helper()
	laterMu.Lock()
	defer laterMu.Unlock()
	if len(laterQueue) < n {
		t.Fatalf("%d timers pending, want %d", len(laterQueue), n)
	}
	for _, f := range laterQueue[:n] {
		f()
	}
	laterQueue = laterQueue[n:]
}

func TestGridworldReplay(t *testing.T) {
	s, g, spy, w := openGridworld(t)
	typeKeys(w, g, fyne.KeyW, fyne.KeyA, fyne.KeyW, fyne.KeyLeft)
	played := g.env.State().Grid()
	pos := g.env.State().Position()
	g.reset()
	list, _ := s.Episodes(context.Background(), episode.Query{Source: episode.SourceGridworld, Limit: 1})
	if err := g.startReplay(list[0].ID); err != nil {
		t.Fatal(err)
	}
	if !g.replayBar.Visible() || g.playBar.Visible() {
		t.Fatal("replay controls not shown")
	}
	typeKeys(w, g, fyne.KeyEnd)
	if g.frame != 4 || !strings.Contains(g.stepText.Text, "Step 4 / 4") {
		t.Fatalf("End: frame %d, %q", g.frame, g.stepText.Text)
	}
	v := spy.last(t)
	if v.Grid != played || v.Agent.Position != pos {
		t.Fatal("last replay frame differs from the played end state")
	}
	typeKeys(w, g, fyne.KeyLeft, fyne.KeyHome, fyne.KeyRight)
	if g.frame != 1 {
		t.Fatalf("frame %d after Left, Home, Right", g.frame)
	}
	steps := g.env.StepCount()
	typeKeys(w, g, fyne.KeyW) // keys do not play while replaying
	if g.env.StepCount() != steps {
		t.Fatal("replay keys stepped the env")
	}
	g.exitReplay()
	if g.replay != nil || !g.playBar.Visible() {
		t.Fatal("did not leave replay")
	}
	if err := g.startReplay(99999); err == nil {
		t.Fatal("replaying a missing episode succeeded")
	}
}

func TestGridworldAgentRun(t *testing.T) {
	s, g, _, _ := openGridworld(t)
	if err := g.runAgent("random", 3, 20); err != nil {
		t.Fatal(err)
	}
	if !g.totalsPlot.Visible() || len(g.totalsPlot.Values()) != 3 || !strings.Contains(g.chartNote.Text, "3 episodes") || !strings.Contains(g.chartNote.Text, "3 stored") {
		t.Fatalf("agent note %q", g.chartNote.Text)
	}
	o, _ := s.Overview(context.Background())
	if o.EpisodesBySource[episode.SourceGridworld] != 5 {
		t.Fatalf("gridworld episodes after the run: %d", o.EpisodesBySource[episode.SourceGridworld])
	}
	if err := g.runAgent("exit 3", 1, 5); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(g.chartNote.Text, "Stopped") {
		t.Fatalf("failing agent: %q", g.chartNote.Text)
	}
}

func TestGridworldWithoutOpenGL(t *testing.T) {
	test.NewTempApp(t)
	h := uitest.NewHost(t, 1100, 750)
	g := New(h, Deps{World: func() (WorldRenderer, error) { return nil, errors.New("no OpenGL 3.3 context") }})
	h.Put(g)
	if !strings.Contains(g.status.Text, "no OpenGL 3.3 context") || !strings.Contains(g.status.Text, "top-down map") {
		t.Fatalf("status %q", g.status.Text)
	}
	if _, ok := g.renderer.(MapRenderer); !ok {
		t.Fatal("no map fallback")
	}
	// (that the rest of the app still works is the desktop package's TestWorkspacesWithoutOpenGL)
}

func TestGridworldWaitsForTheRenderer(t *testing.T) {
	test.NewTempApp(t)
	spy := &spyRenderer{}
	var ready atomic.Bool
	world := func() (WorldRenderer, error) {
		if !ready.Load() {
			return nil, ErrRendererNotReady
		}
		return spy, nil
	}
	ch := make(chan struct{})
	h := uitest.NewHost(t, 1100, 750)
	g := New(h, Deps{World: world, WorldReady: ch})
	h.Put(g)
	if spy.count() != 0 || g.glNote != "" {
		t.Fatal("rendered or gave up before the renderer was ready")
	}
	ready.Store(true)
	close(ch) // the app has started: the view is drawn in 3D without any input
	deadline := time.Now().Add(5 * time.Second)
	for spy.count() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if spy.count() == 0 {
		t.Fatal("the view was not drawn when the renderer became ready")
	}
}

func TestGridworldDatasetTaskSource(t *testing.T) {
	_, g, _, _ := openGridworld(t)
	g.loadDataset("/nonexistent")
	if !strings.Contains(g.status.Text, "Cannot open the dataset") {
		t.Fatalf("status %q", g.status.Text)
	}
	g.selectTask("random")
	if g.taskName != "random" || g.env.Task() == nil {
		t.Fatal("random task not selected")
	}
}

// TestGridworldReplayFrameViewer: a replay shows the episode in the shared frame viewer (a
// first-person thumbnail per step, the initial state first) and the 3D world follows the
// viewer's step, whether it moves by key, by Seek or by playback.
func TestGridworldReplayFrameViewer(t *testing.T) {
	s, g, spy, w := openGridworld(t)
	typeKeys(w, g, fyne.KeyDown, fyne.KeyDown, fyne.KeyDown, fyne.KeyE, fyne.KeyLeft)
	if g.env.State().GridRef().Count() != 1 {
		t.Fatal("E placed nothing")
	}
	g.reset()
	list, _ := s.Episodes(context.Background(), episode.Query{Source: episode.SourceGridworld, Limit: 1})
	if err := g.startReplay(list[0].ID); err != nil {
		t.Fatal(err)
	}
	if !g.viewer.Visible() || g.viewer.Size().Width == 0 {
		t.Fatal("the frame viewer is not shown")
	}
	if g.viewer.Len() != len(g.replay.Frames) || g.viewer.Len() != 6 {
		t.Fatalf("viewer has %d steps, replay %d frames", g.viewer.Len(), len(g.replay.Frames))
	}
	for i := range g.viewer.Episode().Steps {
		img, err := widgets.LoadStepFrame(&g.viewer.Episode().Steps[i])
		if err != nil || img.Bounds().Dx() != 64 || img.Bounds().Dy() != 64 {
			t.Fatalf("step %d thumbnail: %v", i, err)
		}
	}
	if g.viewer.Episode().Steps[0].Action.Kind != "initial" || g.viewer.Episode().Steps[4].Action.Kind != "place" {
		t.Fatalf("viewer steps: %s ... %s", g.viewer.Episode().Steps[0].Action.Kind, g.viewer.Episode().Steps[4].Action.Kind)
	}
	g.viewer.Seek(3)
	if g.frame != 3 || spy.last(t).Grid != g.replay.Frames[3].Grid || spy.last(t).Agent != g.replay.Frames[3].Pose {
		t.Fatalf("the world did not follow the viewer to step 3 (frame %d)", g.frame)
	}
	if !strings.Contains(g.stepText.Text, "Step 3 / 5") || g.viewer.PositionText() != "step 3 / 5" {
		t.Fatalf("overlay %q, viewer %q: they count steps alike", g.stepText.Text, g.viewer.PositionText())
	}
	g.viewer.Seek(0)
	if !strings.Contains(g.stepText.Text, "Step 0 / 5") || g.viewer.PositionText() != "start / 5" {
		t.Fatalf("overlay %q, viewer %q at the initial state", g.stepText.Text, g.viewer.PositionText())
	}
	g.viewer.Seek(3)
	typeKeys(w, g, fyne.KeyEnd) // the world's keys drive the viewer
	if g.viewer.Index() != 5 || g.frame != 5 {
		t.Fatalf("End: viewer %d, world %d", g.viewer.Index(), g.frame)
	}
	// playback: the viewer's loop moves the world (observed from the viewer's callback, which
	// playback runs on its own goroutine under the test driver)
	var shown, followed atomic.Int64
	shown.Store(-1)
	g.viewer.OnStep(func(i int) {
		g.followViewer(i)
		if v := spy.views[len(spy.views)-1]; v.Grid == g.replay.Frames[i].Grid && g.frame == i {
			followed.Add(1)
		}
		shown.Store(int64(i))
	})
	g.viewer.Seek(0)
	g.viewer.SetSpeed(8)
	g.togglePlay()
	select { // playback pauses itself at the last step
	case <-g.viewer.PlaybackDone():
	case <-time.After(3 * time.Second):
		t.Fatalf("playback did not reach the end: step %d", shown.Load())
	}
	if shown.Load() != 5 || followed.Load() != 6 || g.viewer.Playing() {
		t.Fatalf("playback reached step %d, the world followed %d of 6 steps", shown.Load(), followed.Load())
	}
	g.exitReplay()
	if g.viewer.Playing() || g.side.Objects[0] != g.sidePlay {
		t.Fatal("leaving the replay left the viewer on")
	}
}

// TestGridworldReplayWithoutThumbnails: an episode recorded without thumbnails (an agent run
// from the command line) shows each step's top-down map in the viewer.
func TestGridworldReplayWithoutThumbnails(t *testing.T) {
	s, g, _, w := openGridworld(t)
	typeKeys(w, g, fyne.KeyW, fyne.KeyA)
	g.reset()
	list, _ := s.Episodes(context.Background(), episode.Query{Source: episode.SourceGridworld, Limit: 1})
	e, err := s.Episode(context.Background(), list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := gridworld.LoadReplay(e)
	if err != nil {
		t.Fatal(err)
	}
	for i := range e.Steps {
		e.Steps[i].Observation = nil
	}
	ve := replayEpisode(e, nil)
	load := replayFrameLoader(rp)
	for i := range ve.Steps {
		img, err := load(&ve.Steps[i])
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		want, _ := MapRenderer{}.RenderWorld(WorldView{Grid: rp.Frames[i].Grid, Agent: rp.Frames[i].Pose, Target: &rp.Target, Width: 128, Height: 128})
		if !bytes.Equal(img.(*image.RGBA).Pix, want.(*image.RGBA).Pix) {
			t.Fatalf("step %d is not the map of replay frame %d", i, i)
		}
	}
}

// TestGridworldFitsALaptop: playing and replaying fit a 1024x700 screen.
func TestGridworldFitsALaptop(t *testing.T) {
	s, g, _, w := openGridworld(t)
	uitest.Fits(t, "Gridworld, playing", g.Content())
	typeKeys(w, g, fyne.KeyW)
	g.reset()
	list, _ := s.Episodes(context.Background(), episode.Query{Source: episode.SourceGridworld, Limit: 1})
	if err := g.startReplay(list[0].ID); err != nil {
		t.Fatal(err)
	}
	uitest.Fits(t, "Gridworld, replaying", g.Content())
}

// TestGridworldAgentFormKeepsItsInput: the Run agent form fits the window with fields wide
// enough to read, and refuses a bad number by keeping Run off (the form stays, input kept).
func TestGridworldAgentFormKeepsItsInput(t *testing.T) {
	_, g, _, w := openGridworld(t)
	w.Resize(uitest.Laptop)
	g.chooseAgent()
	top := uitest.DialogFits(t, "Run an agent", w)
	var entries []*widget.Entry
	uitest.Walk(top, func(o fyne.CanvasObject) {
		if e, ok := o.(*widget.Entry); ok {
			entries = append(entries, e)
		}
	})
	if len(entries) != 3 || entries[0].Size().Width < 200 {
		t.Fatalf("%d fields, the first %.0f px wide", len(entries), entries[0].Size().Width)
	}
	run := uitest.Find(top, func(b *widget.Button) bool { return b.Text == "Run" })
	test.Type(entries[1], "x")
	if !run.Disabled() {
		t.Fatal("Run is on with episodes \"5x\"")
	}
	if w.Canvas().Overlays().Top() == nil || !strings.Contains(entries[1].Text, "x") {
		t.Fatal("the form or its input went")
	}
}

// TestGridworldRecordingIsUnsavedWork: a recording not stored yet is asked about on quitting;
// Save stores it, Discard drops it.
func TestGridworldRecordingIsUnsavedWork(t *testing.T) {
	s, g, _, w := openGridworld(t)
	if g.UnsavedWork() != "" {
		t.Fatalf("unsaved work before playing: %q", g.UnsavedWork())
	}
	typeKeys(w, g, fyne.KeyW, fyne.KeyW)
	if !strings.Contains(g.UnsavedWork(), "2 steps") {
		t.Fatalf("unsaved work: %q", g.UnsavedWork())
	}
	before, _ := s.Overview(context.Background())
	if err := g.SaveWork(); err != nil {
		t.Fatal(err)
	}
	after, _ := s.Overview(context.Background())
	if after.EpisodesBySource[episode.SourceGridworld] != before.EpisodesBySource[episode.SourceGridworld]+1 || g.UnsavedWork() != "" {
		t.Fatal("Save did not store the recording")
	}
	typeKeys(w, g, fyne.KeyW)
	g.DiscardWork()
	g.Close()
	again, _ := s.Overview(context.Background())
	if again.EpisodesBySource[episode.SourceGridworld] != after.EpisodesBySource[episode.SourceGridworld] {
		t.Fatal("a discarded recording was stored on closing")
	}
}

// TestGridworldPanelsChangeWhileInputArrives: the sequence that once crashed the app (play,
// replay an episode, back to playing, run an agent, then use the action-space choice, in a
// SIGSEGV in fyne's pop-up menu with no canvas) repeated, with keys and taps arriving between
// the panel changes: every control tapped is on the window's canvas (the panels are kept and
// shown again, never rebuilt behind a control the user can still reach) and nothing panics.
func TestGridworldPanelsChangeWhileInputArrives(t *testing.T) {
	s, g, _, w := openGridworld(t)
	space := g.more // the action space is chosen in the ⋯ menu
	tapChoice := func(round int, where string) {
		t.Helper()
		if uitest.Find(w.Content(), func(b *widgets.TipButton) bool { return b == space }) == nil || !space.Visible() {
			t.Fatalf("round %d, %s: the menu button the user sees is not the one on the window", round, where)
		}
		test.Tap(space) // opens its pop-up menu, which needs the canvas
		if w.Canvas().Overlays().Top() == nil {
			t.Fatalf("round %d, %s: the choice's menu did not open", round, where)
		}
		w.Canvas().Overlays().Top().Hide()
	}
	for round := 0; round < 3; round++ {
		typeKeys(w, g, fyne.KeyW, fyne.KeyE)
		g.reset()
		list, err := s.Episodes(context.Background(), episode.Query{Source: episode.SourceGridworld, Limit: 1})
		if err != nil || len(list) == 0 {
			t.Fatalf("no episode to replay: %v", err)
		}
		if err := g.startReplay(list[0].ID); err != nil {
			t.Fatal(err)
		}
		typeKeys(w, g, fyne.KeyRight, fyne.KeyEnd) // keys while the replay's panels are up
		g.exitReplay()
		tapChoice(round, "after leaving the replay")
		if err := g.runAgent("random", 1, 10); err != nil {
			t.Fatal(err)
		}
		tapChoice(round, "after an agent run")
		typeKeys(w, g, fyne.KeyA)
	}
}

// povSpy is a renderer with a pov (as the app's OpenGL one): a flat colour per call.
type povSpy struct {
	spyRenderer
	calls atomic.Int32
}

func (p *povSpy) POV() gridworld.POVRenderer { return p }

func (p *povSpy) RenderPOV(s *gridworld.State, w, h int) (*image.RGBA, error) {
	p.calls.Add(1)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 200
	}
	return img, nil
}

// TestGridworldEnvironmentSettings: the Environment dialog fits a laptop, its rules reach play
// (a new episode with them) and are kept in the preferences; its observation options reach
// agent runs, the pov included when the renderer can draw one.
func TestGridworldEnvironmentSettings(t *testing.T) {
	_, g, _, w := openGridworld(t)
	w.Resize(uitest.Laptop)
	g.showEnvSettings()
	top := uitest.DialogFits(t, "Environment settings", w)
	var entries []*widget.Entry
	var checks []*widget.Check
	uitest.Walk(top, func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *widget.Entry:
			entries = append(entries, x)
		case *widget.Check:
			checks = append(checks, x)
		}
	})
	if len(entries) != 4 || len(checks) != 5 {
		t.Fatalf("%d entries, %d checks", len(entries), len(checks))
	}
	entries[0].SetText("7")
	checks[0].SetChecked(true) // select and place
	checks[3].SetChecked(true) // target grid
	apply := uitest.Find(top, func(b *widget.Button) bool { return b.Text == "Apply" })
	test.Tap(apply)
	if c := g.env.Config(); c.MaxSteps != 7 || !c.SelectAndPlace {
		t.Fatalf("play config after Apply: max_steps %d, select_and_place %v", c.MaxSteps, c.SelectAndPlace)
	}
	if o := loadEnvOptions(); o.MaxSteps != 7 || !o.TargetInObs {
		t.Fatalf("preferences: %+v", o)
	}

	// pov without a renderer that can draw it: a clear error, nothing run
	o := g.envOpts
	o.POV, o.POVWidth, o.POVHeight, o.POVFormat = true, 16, 8, "list"
	g.setEnvOptions(o)
	if err := g.runAgent("cat >/dev/null", 1, 3); err == nil || !strings.Contains(err.Error(), "needs the 3D renderer") {
		t.Fatalf("pov with the map renderer: %v", err)
	}
	// with one: the agent gets the target grid and the pov, in the chosen form and size
	spy := &povSpy{}
	g.renderer = spy
	log := t.TempDir() + "/agent.jsonl"
	agent := `while IFS= read -r l; do printf '%s\n' "$l" >> '` + log + `'; case "$l" in *'"type":"done"'*) ;; *) echo 1 ;; esac; done`
	if err := g.runAgent(agent, 1, 3); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for g.agentCancel != nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d agent messages: %s", len(lines), data)
	}
	var m gridworld.AgentMessage
	if err := json.Unmarshal([]byte(lines[1]), &m); err != nil {
		t.Fatal(err)
	}
	pov, ok := m.Observation["pov"].([]any)
	if !ok || len(pov) != 8 || len(pov[0].([]any)) != 16 {
		t.Fatalf("pov sent: %T %v", m.Observation["pov"], m.Observation["pov"])
	}
	if _, ok := m.Observation["target_grid"]; !ok {
		t.Fatal("no target grid sent")
	}
	if spy.calls.Load() < 4 {
		t.Fatalf("pov rendered %d times", spy.calls.Load())
	}
}
