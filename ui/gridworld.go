package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/gridworld"
	"github.com/agentdesk/agentdesk/ui/widgets"
)

// Action spaces offered by the workspace.
const (
	spaceWalking     = "Walking · discrete"
	spaceWalkingDict = "Walking · dictionary"
	spaceFlying      = "Flying"
)

// gridworldWS is the Gridworld workspace: play a task in the 3D world with the reward overlay,
// record the episode to the store, replay stored episodes, run agents.
type gridworldWS struct {
	shell    *Shell
	renderer WorldRenderer
	resolved bool   // Deps.World has given its final answer
	glNote   string // why the 3D view fell back to the map, "" when it did not

	env        *gridworld.Env
	space      string
	taskName   string
	source     gridworld.TaskSource
	rec        *gridworld.Recorder
	cumulative float64
	done       bool

	firstPerson bool
	ghost       bool
	recording   bool
	orbit       Orbit

	// replay state; replay != nil means replay mode. The shared frame viewer plays the episode
	// (its first-person thumbnails, timeline, keyboard and speeds) and the 3D world follows the
	// viewer's step: one playback loop, the viewer's.
	replay   *gridworld.Replay
	replayEp *episode.Episode
	frame    int
	viewer   *widgets.FrameViewer

	// agent run in progress
	agentCancel context.CancelFunc

	view       *worldCanvas
	rewardText *canvas.Text
	totalText  *widget.Label
	stepText   *widget.Label
	progress   *widget.ProgressBar
	progressL  *widget.Label
	instr      *widget.Label
	inventory  *fyne.Container
	status     *widget.Label
	preview    *canvas.Image
	dialogText *widget.Label
	playBar    *fyne.Container
	replayBar  *fyne.Container
	replayName *widget.Label
	center     *fyne.Container // the world, or the world beside the replay's frame viewer
	world      fyne.CanvasObject
	chart      *canvas.Image
	chartNote  *widget.Label
	taskSelect *widget.Select
	flashID    int
	content    fyne.CanvasObject

	mu sync.Mutex // guards the agent-run chart data, written from the runner goroutine
}

func gridworldView(s *Shell) fyne.CanvasObject {
	if s.gridworld == nil {
		s.gridworld = newGridworldWS(s)
	}
	return s.gridworld.content
}

func newGridworldWS(s *Shell) *gridworldWS {
	g := &gridworldWS{shell: s, space: spaceWalking, ghost: true, recording: true, orbit: DefaultOrbit}
	g.renderer = MapRenderer{}
	if s.deps.World == nil {
		g.glNote = "3D view unavailable in this build; showing a top-down map instead."
		g.resolved = true
	}
	g.build()
	g.selectTask("samples")
	return g
}

func (g *gridworldWS) build() {
	g.view = newWorldCanvas()
	g.view.onKey = g.key
	g.view.onClick = func(secondary bool) {
		if g.replay != nil {
			return
		}
		if secondary {
			g.input(InputPlace)
		} else {
			g.input(InputBreak)
		}
	}
	g.view.onDrag = g.drag
	g.view.onScroll = func(dy float32) {
		if !g.firstPerson || g.replay != nil {
			g.orbit.Distance = math.Min(40, math.Max(6, g.orbit.Distance-float64(dy)/40))
			g.render()
		}
	}
	// Layout runs while fyne paints, with fyne's GL context current: the 3D view (another
	// context) is drawn after the paint, not inside it (inside, fyne's text and images came out
	// black when the replay's frame viewer resized the view)
	g.view.onResize = func(fyne.Size) { fyne.Do(g.render) }

	g.rewardText = canvas.NewText("", theme.Color(theme.ColorNameForeground))
	g.rewardText.TextSize = 22
	g.rewardText.TextStyle.Bold = true
	g.totalText = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	g.stepText = widget.NewLabel("")
	g.progress = widget.NewProgressBar()
	g.progress.TextFormatter = func() string { return "" }
	g.progressL = widget.NewLabel("")
	g.instr = widget.NewLabel("")
	g.instr.Wrapping = fyne.TextWrapWord
	g.inventory = container.NewHBox()
	g.status = widget.NewLabel(g.glNote)
	g.status.Wrapping = fyne.TextWrapWord

	panel := func(o ...fyne.CanvasObject) fyne.CanvasObject {
		bg := canvas.NewRectangle(widgets.OverlayBackground())
		bg.CornerRadius = 6
		return container.NewStack(bg, container.NewPadded(container.NewVBox(o...)))
	}
	topLeft := panel(g.rewardText, g.totalText, g.stepText)
	topRight := container.NewGridWrap(fyne.NewSize(220, 70), panel(g.progressL, g.progress))
	bottom := panel(g.instr, g.inventory)
	overlay := container.NewBorder(
		container.NewBorder(nil, nil, topLeft, topRight),
		bottom, nil, nil)
	world := container.NewStack(g.view, container.NewPadded(overlay))

	// play controls
	g.taskSelect = widget.NewSelect(nil, func(name string) { g.selectTask(name) })
	g.refreshTaskList()
	openDataset := widget.NewButtonWithIcon("IGLU dataset…", theme.FolderOpenIcon(), g.openDataset)
	reset := widget.NewButtonWithIcon("Reset", theme.ViewRefreshIcon(), func() { g.reset() })
	spaceSel := widget.NewSelect([]string{spaceWalking, spaceWalkingDict, spaceFlying}, nil)
	spaceSel.SetSelected(g.space)
	spaceSel.OnChanged = func(sp string) { g.space = sp; g.reset() }
	ghost := widget.NewCheck("Target ghost", func(on bool) { g.ghost = on; g.render() })
	ghost.SetChecked(g.ghost)
	camera := widget.NewRadioGroup([]string{"First person", "Orbit"}, func(v string) {
		g.firstPerson = v == "First person"
		g.render()
	})
	camera.Horizontal = true
	camera.SetSelected("Orbit")
	record := widget.NewCheck("Record to store", func(on bool) { g.recording = on })
	record.SetChecked(g.recording)
	save := widget.NewButtonWithIcon("Save now", theme.DocumentSaveIcon(), func() { g.saveRecording() })
	replayBtn := widget.NewButtonWithIcon("Replay…", theme.MediaPlayIcon(), g.chooseReplay)
	agentBtn := widget.NewButtonWithIcon("Run agent…", theme.ComputerIcon(), g.chooseAgent)
	g.playBar = container.NewVBox(
		container.NewHBox(widget.NewLabel("Task"), g.taskSelect, openDataset, reset, spaceSel),
		container.NewHBox(ghost, camera, record, save, replayBtn, agentBtn),
	)

	// replay: the frame viewer steps and plays; the world follows it
	g.viewer = widgets.NewFrameViewer()
	g.viewer.SetRun(g.shell.deps.Run)
	g.viewer.OnStep(g.followViewer)
	g.replayName = widget.NewLabel("")
	g.replayName.Truncation = fyne.TextTruncateEllipsis
	g.replayBar = container.NewBorder(nil, nil, nil,
		widget.NewButtonWithIcon("Back to playing", theme.CancelIcon(), g.exitReplay), g.replayName)
	g.replayBar.Hide()

	// side panel: the target's own small view, the dialog, agent runs, help
	g.preview = canvas.NewImageFromImage(image.NewRGBA(image.Rect(0, 0, 1, 1)))
	g.preview.FillMode = canvas.ImageFillContain
	g.preview.SetMinSize(fyne.NewSize(220, 165))
	g.dialogText = widget.NewLabel("")
	g.dialogText.Wrapping = fyne.TextWrapWord
	g.chart = canvas.NewImageFromImage(image.NewRGBA(image.Rect(0, 0, 1, 1)))
	g.chart.FillMode = canvas.ImageFillContain
	g.chart.SetMinSize(fyne.NewSize(220, 120))
	g.chart.Hide()
	g.chartNote = widget.NewLabel("")
	g.chartNote.Wrapping = fyne.TextWrapWord
	g.chartNote.Hide()
	help := widget.NewLabel("Click the world to play. W A S D move · Space jump (up) · C down (flying) · " +
		"arrows or drag look · 1-6 colour · Q or click break · E or right click place · wheel zooms the orbit camera.")
	help.Wrapping = fyne.TextWrapWord
	side := container.NewVScroll(container.NewVBox(
		widget.NewLabelWithStyle("Target", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), g.preview,
		widget.NewLabelWithStyle("Dialog", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), g.dialogText,
		g.chart, g.chartNote, widget.NewSeparator(), help))
	g.world = world
	g.center = container.NewStack(world)
	main := container.NewBorder(container.NewVBox(g.playBar, g.replayBar), g.status, nil, nil, g.center)
	split := container.NewHSplit(main, side)
	split.Offset = 0.74
	g.content = split
}

// refreshTaskList offers the built-in samples one by one, all samples, random structures and
// the IGLU datasets opened in this session.
func (g *gridworldWS) refreshTaskList() {
	opts := []string{"samples"}
	for _, nt := range gridworld.SampleTasks() {
		opts = append(opts, nt.Name)
	}
	opts = append(opts, "random")
	for _, src := range g.shell.taskSources {
		opts = append(opts, src.Name)
	}
	g.taskSelect.Options = opts
	g.taskSelect.Refresh()
}

func (g *gridworldWS) selectTask(name string) {
	if name == g.taskName && g.env != nil {
		return
	}
	src, label, err := gridworld.ResolveTaskSpec(name)
	if err != nil {
		g.setStatus(err.Error())
		return
	}
	g.source, g.taskName = src, label
	if g.taskSelect.Selected != name {
		g.taskSelect.SetSelected(name) // calls selectTask again, which returns early
	}
	g.reset()
}

func (g *gridworldWS) openDataset() {
	if g.shell.win == nil {
		return
	}
	dialog.ShowFolderOpen(func(l fyne.ListableURI, err error) {
		if err != nil || l == nil {
			return
		}
		g.loadDataset(l.Path())
	}, g.shell.win)
}

// loadDataset opens an IGLU dataset folder as a task source.
func (g *gridworldWS) loadDataset(dir string) {
	spec := "iglu:" + dir
	src, _, err := gridworld.ResolveTaskSpec(spec)
	if err != nil {
		g.setStatus("Cannot open the dataset: " + err.Error())
		if g.shell.win != nil {
			dialog.ShowError(err, g.shell.win)
		}
		return
	}
	ds := src.(*gridworld.Dataset)
	tasks := 0
	for _, ss := range ds.Sessions {
		for _, sess := range ss {
			tasks += sess.Len()
		}
	}
	g.shell.taskSources = append(g.shell.taskSources, TaskSource{Name: spec, Tasks: tasks})
	if st := g.shell.deps.Store; st != nil {
		st.TouchRecent(context.Background(), dir, "gridworld-tasks")
	}
	g.refreshTaskList()
	g.selectTask(spec)
}

func (g *gridworldWS) config() gridworld.Config {
	cfg := gridworld.EnvDefaults()
	cfg.Render = false // the workspace renders the view itself; pov thumbnails come from it too
	cfg.MaxSteps = 1000
	cfg.Seed = uint64(time.Now().UnixNano())
	switch g.space {
	case spaceFlying:
		cfg.ActionSpace = gridworld.Flying
	case spaceWalkingDict:
		cfg.Discretize = false
	default:
		cfg.Discretize = true
	}
	return cfg
}

// reset saves the episode being recorded and starts a new one on the current task source.
func (g *gridworldWS) reset() {
	g.setStatus(g.glNote)
	g.saveRecording()
	env, err := gridworld.New(g.config())
	if err != nil {
		g.setStatus(err.Error())
		return
	}
	env.SetTaskSource(g.source)
	if _, err := env.Reset(); err != nil {
		g.setStatus("Reset failed: " + err.Error())
		return
	}
	g.env, g.cumulative, g.done = env, 0, false
	g.rec = gridworld.NewRecorder(env, gridworld.RecordMeta{TaskName: g.taskName, Agent: "human"})
	g.rewardText.Text = ""
	g.rewardText.Refresh()
	g.renderPreview()
	g.updateOverlay()
	g.render()
}

func (g *gridworldWS) key(k fyne.KeyName) {
	if g.replay != nil {
		// the world's keys while replaying are the viewer's (Left/Right, Home/End, Space)
		g.viewer.TypedKey(&fyne.KeyEvent{Name: k})
		return
	}
	if in, ok := keyInputs[k]; ok {
		g.input(in)
	}
}

// drag looks around (first person: one camera action per 12 px) or turns the orbit camera.
func (g *gridworldWS) drag(dx, dy float32) {
	if g.firstPerson && g.replay == nil {
		switch {
		case dx <= -12:
			g.input(InputYawLeft)
		case dx >= 12:
			g.input(InputYawRight)
		case dy <= -12:
			g.input(InputPitchUp)
		case dy >= 12:
			g.input(InputPitchDown)
		}
		return
	}
	g.orbit.Azimuth = math.Mod(g.orbit.Azimuth-float64(dx)*0.5, 360)
	g.orbit.Elevation = math.Min(85, math.Max(-10, g.orbit.Elevation+float64(dy)*0.3))
	g.render()
}

// input plays one action.
func (g *gridworldWS) input(in Input) {
	if g.env == nil || g.replay != nil {
		return
	}
	if g.done {
		g.setStatus("The episode has ended: press Reset to play again.")
		return
	}
	a, ok := ActionFor(in, g.env.ActionKind())
	if !ok {
		return
	}
	g.step(a)
}

func (g *gridworldWS) step(a gridworld.Action) {
	_, reward, done, err := g.env.Step(a)
	if err != nil {
		g.setStatus("Step failed: " + err.Error())
		return
	}
	g.cumulative += reward
	g.done = done
	if g.recording {
		if err := g.rec.Record(g.env, a, reward, g.thumbnail()); err != nil {
			g.setStatus("Recording failed: " + err.Error())
		}
	}
	g.flash(reward)
	g.updateOverlay()
	g.render()
	if done {
		info := g.env.Info()
		if info.Completed {
			g.setStatus(fmt.Sprintf("Task complete in %d steps, reward %.2f.", info.Step, g.cumulative))
		} else {
			g.setStatus(fmt.Sprintf("Out of steps (%d), reward %.2f.", info.Step, g.cumulative))
		}
		g.saveRecording()
	}
}

// flash shows the step reward, green when positive and red when negative, for a moment.
func (g *gridworldWS) flash(reward float64) {
	if reward == 0 {
		return
	}
	g.flashID++
	id := g.flashID
	g.rewardText.Text = fmt.Sprintf("%+.2f", reward)
	g.rewardText.Color = theme.Color(theme.ColorNameSuccess)
	if reward < 0 {
		g.rewardText.Color = theme.Color(theme.ColorNameError)
	}
	g.rewardText.Refresh()
	time.AfterFunc(900*time.Millisecond, func() {
		fyne.Do(func() {
			if g.flashID == id {
				g.rewardText.Text = ""
				g.rewardText.Refresh()
			}
		})
	})
}

// overlayState is what the overlay shows, from the live env or a replay frame.
type overlayState struct {
	step, maxSteps, maxInt, targetSize int
	cumulative                         float64
	instruction                        string
	inventory                          [gridworld.NumColors]int
	selected                           int
}

func (g *gridworldWS) updateOverlay() {
	var o overlayState
	if g.replay != nil {
		f := g.replay.Frames[g.frame]
		o = overlayState{step: g.frame, maxSteps: len(g.replay.Frames) - 1, maxInt: f.MaxInt, targetSize: f.TargetSize,
			cumulative: f.Cumulative, instruction: f.Instruction}
	} else if g.env != nil {
		info := g.env.Info()
		st := g.env.State()
		o = overlayState{step: g.env.StepCount(), maxSteps: g.env.Config().MaxSteps, maxInt: info.MaxInt,
			targetSize: info.TargetSize, cumulative: g.cumulative, inventory: st.Inventory(), selected: st.ActiveBlock()}
		if t := g.env.Task(); t != nil {
			o.instruction = t.LastInstruction
			if o.instruction == "" {
				o.instruction = t.Chat
			}
			g.dialogText.SetText(t.Chat)
		}
	}
	g.totalText.SetText(fmt.Sprintf("Total reward %.2f", o.cumulative))
	g.stepText.SetText(fmt.Sprintf("Step %d / %d", o.step, o.maxSteps))
	if o.targetSize > 0 {
		g.progress.SetValue(float64(o.maxInt) / float64(o.targetSize))
	} else {
		g.progress.SetValue(0)
	}
	g.progressL.SetText(fmt.Sprintf("Built %d / %d of the target", o.maxInt, o.targetSize))
	g.instr.SetText(o.instruction)
	g.inventory.Objects = nil
	if g.replay == nil {
		for i := 0; i < gridworld.NumColors; i++ {
			sw := canvas.NewRectangle(blockColors[i])
			sw.SetMinSize(fyne.NewSize(18, 18))
			sw.CornerRadius = 3
			if i+1 == o.selected {
				sw.StrokeColor = theme.Color(theme.ColorNameForeground)
				sw.StrokeWidth = 3
			}
			label := widget.NewLabel(fmt.Sprintf("%d %s %d", i+1, blockNames[i], o.inventory[i]))
			g.inventory.Add(container.NewHBox(container.NewCenter(sw), label))
		}
	}
	g.inventory.Refresh()
}

// currentView is what the 3D view shows now.
func (g *gridworldWS) currentView(w, h int) (WorldView, bool) {
	v := WorldView{FirstPerson: g.firstPerson, Orbit: g.orbit, ShowAgent: true, Width: w, Height: h}
	switch {
	case g.replay != nil:
		f := g.replay.Frames[g.frame]
		v.Grid, v.Agent = f.Grid, f.Pose
		if g.ghost {
			t := g.replay.Target
			v.Target = &t
		}
	case g.env != nil:
		st := g.env.State()
		v.Grid = st.Grid()
		v.Agent = gridworld.Pose{Position: st.Position(), Yaw: st.Yaw(), Pitch: st.Pitch()}
		if g.ghost && g.env.Task() != nil {
			t := g.env.Task().Target
			v.Target = &t
		}
	default:
		return v, false
	}
	return v, true
}

// ErrRendererNotReady is what Deps.World returns before the app runs; the workspace shows the
// map meanwhile and asks again at the next frame.
var ErrRendererNotReady = errors.New("the 3D renderer is not ready yet")

// ensureRenderer asks Deps.World for the 3D renderer until it has a final answer.
func (g *gridworldWS) ensureRenderer() {
	if g.resolved {
		return
	}
	r, err := g.shell.deps.World()
	if errors.Is(err, ErrRendererNotReady) {
		return
	}
	g.resolved = true
	if err != nil || r == nil {
		if err == nil {
			err = errors.New("no renderer")
		}
		g.glNote = fmt.Sprintf("3D view unavailable (%v); showing a top-down map instead.", err)
		g.setStatus(g.glNote)
		return
	}
	g.renderer = r
	g.renderPreview()
}

// render draws the view at the widget's size in device pixels. It runs only when something
// changed (a step, a camera move, a resize), so an idle world costs nothing.
func (g *gridworldWS) render() {
	size := g.view.Size()
	scale := float32(1)
	if c := fyne.CurrentApp().Driver().CanvasForObject(g.view); c != nil {
		scale = c.Scale()
	}
	w, h := int(size.Width*scale), int(size.Height*scale)
	if w < 16 || h < 16 {
		return
	}
	v, ok := g.currentView(w, h)
	if !ok {
		return
	}
	g.ensureRenderer()
	img, err := g.renderer.RenderWorld(v)
	if err != nil {
		g.setStatus("Rendering failed: " + err.Error())
		return
	}
	g.view.setImage(img)
}

// thumbnail renders the agent's 64x64 first-person view as PNG for the recording.
func (g *gridworldWS) thumbnail() []byte {
	v, ok := g.currentView(64, 64)
	if !ok {
		return nil
	}
	v.FirstPerson, v.Target, v.ShowAgent = true, nil, false
	g.ensureRenderer()
	img, err := g.renderer.RenderWorld(v)
	if err != nil {
		return nil
	}
	var buf bytes.Buffer
	if png.Encode(&buf, img) != nil {
		return nil
	}
	return buf.Bytes()
}

// renderPreview draws the target structure alone in the side panel.
func (g *gridworldWS) renderPreview() {
	var target gridworld.Grid
	switch {
	case g.replay != nil:
		target = g.replay.Target
	case g.env != nil && g.env.Task() != nil:
		target = g.env.Task().Target
	}
	g.ensureRenderer()
	img, err := g.renderer.RenderWorld(WorldView{Grid: target, Orbit: DefaultOrbit, Width: 320, Height: 240})
	if err == nil {
		g.preview.Image = img
		g.preview.Refresh()
	}
}

func (g *gridworldWS) setStatus(s string) { g.status.SetText(s) }

// saveRecording stores the episode played so far, if recording and anything was played.
func (g *gridworldWS) saveRecording() { g.save(g.shell.deps.Run) }

// saveRecordingNow is saveRecording waiting for the store, for shutting down.
func (g *gridworldWS) saveRecordingNow() { g.save(func(f func()) { f() }) }

func (g *gridworldWS) save(run func(func())) {
	if g.rec == nil || g.rec.Len() == 0 || !g.recording {
		return
	}
	ep := g.rec.Episode()
	g.rec = nil
	st := g.shell.deps.Store
	if st == nil {
		g.setStatus("Not saved: no store is open.")
		return
	}
	run(func() {
		err := st.SaveEpisode(context.Background(), ep)
		fyne.Do(func() {
			if err != nil {
				g.setStatus("Saving the recording failed: " + err.Error())
				return
			}
			g.setStatus(fmt.Sprintf("Saved %d steps as %s/%s.", len(ep.Steps), ep.Source, ep.ExternalID))
		})
	})
}

// chooseReplay lists the stored gridworld episodes to pick one for replay.
func (g *gridworldWS) chooseReplay() {
	st := g.shell.deps.Store
	if st == nil || g.shell.win == nil {
		return
	}
	list, err := st.Episodes(context.Background(), episode.Query{Source: episode.SourceGridworld, Limit: 500})
	if err != nil {
		dialog.ShowError(err, g.shell.win)
		return
	}
	if len(list) == 0 {
		dialog.ShowInformation("Replay", "No gridworld episodes are stored yet: play one with recording on, or run an agent.", g.shell.win)
		return
	}
	var d dialog.Dialog
	l := widget.NewList(func() int { return len(list) },
		func() fyne.CanvasObject {
			return widget.NewLabel("run-00000000-000000-000000-xxxxxx · tower · 1000 steps · 10.00")
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			e := list[i]
			o.(*widget.Label).SetText(fmt.Sprintf("%s · %s · %d steps · reward %.2f", e.ExternalID, e.Task, e.NumSteps, e.TotalReward))
		})
	l.OnSelected = func(i widget.ListItemID) {
		d.Hide()
		g.startReplay(list[i].ID)
	}
	d = dialog.NewCustom("Replay a stored episode", "Cancel", container.NewGridWrap(fyne.NewSize(620, 360), l), g.shell.win)
	d.Show()
}

// startReplay loads a stored episode and shows it in the frame viewer from its first step.
func (g *gridworldWS) startReplay(id int64) error {
	st := g.shell.deps.Store
	e, err := st.Episode(context.Background(), id)
	if err == nil {
		var rp *gridworld.Replay
		if rp, err = gridworld.LoadReplay(e); err == nil {
			g.saveRecording()
			g.viewer.Pause()
			g.replay, g.replayEp, g.frame = rp, e, 0
			g.playBar.Hide()
			g.replayName.SetText(fmt.Sprintf("Replaying %s · %s · %d steps", e.ExternalID, e.Task, len(e.Steps)))
			g.replayBar.Show()
			split := container.NewHSplit(g.world, g.viewer)
			split.Offset = 0.58
			g.center.Objects = []fyne.CanvasObject{split}
			g.center.Refresh()
			g.renderPreview()
			g.dialogText.SetText(rp.Chat)
			// the viewer's step i is the replay's frame i: the initial state first, then a step
			// per action
			g.viewer.SetEpisode(replayEpisode(e, g.initialThumbnail()), replayFrameLoader(rp))
			g.followViewer(g.viewer.Index())
			g.setStatus(fmt.Sprintf("Replaying %s/%s (%d steps).", e.Source, e.ExternalID, len(e.Steps)))
			return nil
		}
	}
	g.setStatus("Cannot replay: " + err.Error())
	return err
}

// replayEpisode is e as the frame viewer plays it: a first step for the initial state (with
// its first-person thumbnail, the recording has none), then the recorded steps.
func replayEpisode(e *episode.Episode, initial []byte) *episode.Episode {
	v := *e
	v.Steps = make([]episode.Step, 0, len(e.Steps)+1)
	v.Steps = append(v.Steps, episode.Step{Action: episode.Action{Kind: "initial"}, Instruction: e.Instruction, Observation: initial})
	for i, st := range e.Steps {
		st.Index = i + 1
		v.Steps = append(v.Steps, st)
	}
	return &v
}

// replayFrameLoader gives the viewer a step's recorded thumbnail, or for episodes recorded
// without one (agent runs from the command line) the top-down map of the step's world, drawn
// off the UI goroutine like any frame the viewer decodes ahead.
func replayFrameLoader(rp *gridworld.Replay) widgets.FrameLoader {
	return func(st *episode.Step) (image.Image, error) {
		if len(st.Observation) > 0 || st.ObservationRef != "" {
			return widgets.LoadStepFrame(st)
		}
		if st.Index < 0 || st.Index >= len(rp.Frames) {
			return nil, fmt.Errorf("step %d: no recorded state", st.Index)
		}
		f := &rp.Frames[st.Index]
		target := rp.Target
		return MapRenderer{}.RenderWorld(WorldView{Grid: f.Grid, Agent: f.Pose, Target: &target, Width: 128, Height: 128})
	}
}

// initialThumbnail draws the replay's first frame as the recorder draws a step's thumbnail.
func (g *gridworldWS) initialThumbnail() []byte {
	saved := g.frame
	g.frame = 0
	defer func() { g.frame = saved }()
	return g.thumbnail()
}

// followViewer shows replay frame i in the world and the overlay: called by the frame viewer
// whenever its step changes (keys, timeline, its buttons, playback).
func (g *gridworldWS) followViewer(i int) {
	if g.replay == nil {
		return
	}
	i = max(0, min(i, len(g.replay.Frames)-1))
	prev := g.frame
	g.frame = i
	if i == prev+1 {
		g.flash(g.replay.Frames[i].Reward)
	}
	g.updateOverlay()
	g.render()
}

func (g *gridworldWS) togglePlay() {
	if g.replay != nil {
		g.viewer.TogglePlay()
	}
}

// stopPlaying pauses the replay's playback.
func (g *gridworldWS) stopPlaying() { g.viewer.Pause() }

func (g *gridworldWS) exitReplay() {
	g.viewer.Pause()
	g.replay, g.replayEp, g.frame = nil, nil, 0
	g.replayBar.Hide()
	g.center.Objects = []fyne.CanvasObject{g.world}
	g.center.Refresh()
	g.playBar.Show()
	g.renderPreview()
	g.updateOverlay()
	g.render()
	g.setStatus("")
}

// chooseAgent asks which agent to run and for how many episodes.
func (g *gridworldWS) chooseAgent() {
	if g.shell.win == nil {
		return
	}
	if g.agentCancel != nil {
		g.agentCancel()
		return
	}
	cmd := widget.NewEntry()
	cmd.SetPlaceHolder("random, or a command speaking the JSON-lines agent protocol")
	cmd.SetText("random")
	episodes := widget.NewEntry()
	episodes.SetText("5")
	maxSteps := widget.NewEntry()
	maxSteps.SetText("300")
	dialog.ShowForm("Run an agent", "Run", "Cancel", []*widget.FormItem{
		widget.NewFormItem("Agent", cmd),
		widget.NewFormItem("Episodes", episodes),
		widget.NewFormItem("Steps per episode", maxSteps),
	}, func(ok bool) {
		if !ok {
			return
		}
		var n, steps int
		if _, err := fmt.Sscanf(episodes.Text, "%d", &n); err != nil || n < 1 {
			dialog.ShowError(fmt.Errorf("episodes: want a number of at least 1"), g.shell.win)
			return
		}
		if _, err := fmt.Sscanf(maxSteps.Text, "%d", &steps); err != nil || steps < 1 {
			dialog.ShowError(fmt.Errorf("steps per episode: want a number of at least 1"), g.shell.win)
			return
		}
		g.runAgent(strings.TrimSpace(cmd.Text), n, steps)
	}, g.shell.win)
}

// runAgent lets an agent play n episodes in a separate environment on the current task
// source, plotting the rewards live and storing every episode.
func (g *gridworldWS) runAgent(command string, n, maxSteps int) error {
	cfg := g.config()
	cfg.MaxSteps = maxSteps
	env, err := gridworld.New(cfg)
	if err != nil {
		return err
	}
	env.SetTaskSource(g.source)
	var agent gridworld.Agent
	if command == "random" {
		agent = gridworld.NewRandomAgent(env, cfg.Seed)
	} else {
		pa, err := gridworld.StartProcessAgent(command, env, nil, 30*time.Second)
		if err != nil {
			g.setStatus(err.Error())
			return err
		}
		agent = pa
	}
	ctx, cancel := context.WithCancel(context.Background())
	g.agentCancel = cancel
	g.chart.Show()
	g.chartNote.Show()
	var totals, curve []float64
	st := g.shell.deps.Store
	update := func(note string) {
		g.mu.Lock()
		img := widgets.RewardChart(totals, curve, 440, 240)
		g.mu.Unlock()
		fyne.Do(func() {
			g.chart.Image = img
			g.chart.Refresh()
			g.chartNote.SetText(note)
		})
	}
	update(fmt.Sprintf("Agent %q: starting…", command))
	var stored int
	g.shell.deps.Run(func() {
		defer agent.Close()
		prefix := gridworld.UniqueID("agent")
		_, err := gridworld.RunEpisodes(ctx, env, agent, gridworld.RunOptions{
			Episodes: n, TaskName: g.taskName, Agent: command, IDPrefix: prefix,
			OnStep: func(ep, step int, r, cum float64) {
				g.mu.Lock()
				curve = append(curve, cum)
				g.mu.Unlock()
				if step%25 == 0 {
					update(fmt.Sprintf("Episode %d/%d, step %d, reward %.2f", ep+1, n, step, cum))
				}
			},
			OnEpisode: func(r gridworld.EpisodeResult) error {
				g.mu.Lock()
				totals = append(totals, r.Reward)
				curve = curve[:0]
				g.mu.Unlock()
				if st != nil {
					if err := st.SaveEpisode(ctx, r.Episode); err != nil {
						return err
					}
					stored++
				}
				update(fmt.Sprintf("Episode %d/%d done: reward %.2f", r.Index+1, n, r.Reward))
				return nil
			},
		})
		mean := 0.0
		for _, t := range totals {
			mean += t
		}
		if len(totals) > 0 {
			mean /= float64(len(totals))
		}
		note := fmt.Sprintf("Agent %q: %d episodes, mean reward %.2f, %d stored.", command, len(totals), mean, stored)
		if err != nil {
			note += " Stopped: " + err.Error()
		}
		update(note)
		fyne.Do(func() { g.agentCancel = nil })
	})
	return nil
}
