package gridworld

import (
	"context"
	"image"
	"math"
	"path/filepath"
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
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Action spaces offered by the workspace.
const (
	spaceWalking     = "Walking · discrete"
	spaceWalkingDict = "Walking · dictionary"
	spaceFlying      = "Flying"
)

// Workspace is the Gridworld workspace: play a task in the 3D world with the reward overlay,
// record the episode to the store, replay stored episodes, run agents.
type Workspace struct {
	host     workspace.Host
	deps     Deps
	store    Store // nil when no store is open
	renderer WorldRenderer
	resolved bool   // Deps.World has given its final answer
	glNote   string // why the 3D view fell back to the map, "" when it did not

	env        *gridworld.Env
	envOpts    EnvOptions
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

	// agent run in progress, and the form that starts one
	agentCancel func()
	agentForm   dialog.Dialog

	view     *worldCanvas
	cross    *crosshair
	aimLayer *fyne.Container
	aimText  *widget.Label
	// why says why the last place or break did nothing ("" when it did something); the aim
	// line shows it until the next input
	why         string
	rewardPanel *widgets.Panel
	bottomPanel *widgets.Panel
	overlay     *fyne.Container
	camera      *widget.RadioGroup
	more        *widgets.TipButton
	bars        *fyne.Container // the play controls or the replay's, one line
	side        *fyne.Container // sidePlay, or sideReplay while replaying
	sidePlay    fyne.CanvasObject
	sideReplay  *container.Split
	rewardText  *canvas.Text
	totalText   *widget.Label
	stepText    *widget.Label
	progress    *meter
	progressL   *widget.Label
	instr       *widget.Label
	inventory   *fyne.Container
	status      *widget.Label
	preview     *canvas.Image
	dialogText  *widget.Label
	playBar     *fyne.Container
	replayBar   *fyne.Container
	replayName  *widget.Label
	center      *fyne.Container // the world, or the world beside the replay's frame viewer
	world       fyne.CanvasObject
	// totalsPlot shows an agent run's reward per finished episode, episodePlot the running
	// episode's cumulative reward per step.
	totalsPlot  *widgets.Plot
	episodePlot *widgets.Plot
	chartNote   *widget.Label
	taskSelect  *widget.Select
	// taskSpecs maps the Task list's labels to task specs.
	taskSpecs map[string]string
	flashID   int
	content   fyne.CanvasObject

	mu sync.Mutex // guards the agent-run chart data, written from the runner goroutine
}

// New builds the workspace on the task deps.Task names ("samples" when empty).
func New(h workspace.Host, deps Deps) *Workspace {
	g := &Workspace{host: h, deps: deps, space: spaceWalking, ghost: true, recording: true, orbit: DefaultOrbit,
		envOpts: loadEnvOptions()}
	g.store = workspace.Value(deps.Store)
	if deps.Sources == nil {
		g.deps.Sources = &Sources{}
	}
	g.renderer = MapRenderer{}
	if deps.World == nil {
		g.glNote = "3D view unavailable in this build; showing a top-down map instead."
		g.resolved = true
	}
	g.build()
	task := deps.Task
	if task == "" {
		task = "samples"
	}
	g.selectTask(task)
	if deps.WorldReady != nil {
		go func() {
			<-deps.WorldReady
			fyne.Do(func() {
				g.ensureRenderer()
				g.render()
			})
		}()
	}
	return g
}

// Do implements workspace.Commands: Open opens an IGLU dataset, Save stores the recording.
func (g *Workspace) Do(c workspace.Command) bool {
	switch c {
	case workspace.Open:
		g.openDataset()
	case workspace.Save:
		g.saveRecording()
	default:
		return false
	}
	return true
}

// Content implements workspace.Workspace.
func (g *Workspace) Content() fyne.CanvasObject { return g.content }

// Close stops the replay's playback and an agent run, and stores the recording in progress.
func (g *Workspace) Close() {
	g.stopPlaying()
	if g.agentCancel != nil {
		g.agentCancel()
	}
	g.saveRecordingNow()
}

func (g *Workspace) build() {
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

	// The overlay's lines keep their places: the reward flash has a slot of its own beside the
	// totals (showing it moves nothing), and each text is one line.
	g.rewardText = canvas.NewText("", theme.Color(theme.ColorNameForeground))
	g.rewardText.TextSize = 22
	g.rewardText.TextStyle.Bold = true
	g.rewardText.Hide() // shown while a step's reward flashes
	g.totalText = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	g.stepText = widget.NewLabel("")
	g.progress = newMeter()
	g.progressL = widget.NewLabel("")
	// one line over the world (the whole dialog is in the side panel): the 3D view keeps its room
	g.instr = widget.NewLabel("")
	g.instr.Truncation = fyne.TextTruncateEllipsis
	g.aimText = widget.NewLabel("")
	g.aimText.Truncation = fyne.TextTruncateEllipsis
	g.inventory = widgets.NewFlow()
	g.status = widget.NewLabel(g.glNote)
	g.status.Truncation = fyne.TextTruncateEllipsis

	pad := 2 * theme.InnerPadding()
	totalsW := fyne.MeasureText("Total reward -00.00", theme.TextSize(), fyne.TextStyle{Bold: true}).Width + pad
	flash := fyne.MeasureText("+00.00", g.rewardText.TextSize, g.rewardText.TextStyle)
	flashSlot := container.New(fixedSize{fyne.NewSize(flash.Width+pad, flash.Height)}, container.NewCenter(g.rewardText))
	g.rewardPanel = widgets.NewPanel(container.NewBorder(nil, nil, nil, container.NewCenter(flashSlot),
		container.New(atLeast{fyne.NewSize(totalsW, 0)}, container.NewVBox(g.totalText, g.stepText))))
	// a thin track under the count: at 0 fyne's bar read as a solid block
	topRight := container.New(atLeast{fyne.NewSize(220, 0)}, widgets.NewPanel(g.progressL, g.progress))
	g.bottomPanel = widgets.NewPanel(g.instr, g.inventory, g.aimText)
	g.overlay = container.NewBorder(
		container.NewBorder(nil, nil, container.NewVBox(g.rewardPanel), container.NewVBox(topRight)),
		g.bottomPanel, nil, nil)
	g.cross = newCrosshair()
	g.aimLayer = container.New(g.cross, g.cross.objs...)
	world := container.NewStack(g.view, g.aimLayer, container.NewPadded(g.overlay))

	// play controls: one line; the settings one changes once in a while are in the ⋯ menu
	g.taskSelect = widget.NewSelect(nil, func(label string) { g.selectTask(g.taskSpecs[label]) })
	g.refreshTaskList()
	reset := widget.NewButtonWithIcon("Reset", theme.ViewRefreshIcon(), func() { g.reset() })
	g.camera = widget.NewRadioGroup([]string{"First person", "Orbit"}, func(v string) {
		g.firstPerson = v == "First person"
		g.why = ""
		g.render()
	})
	g.camera.Horizontal = true
	g.camera.SetSelected("Orbit")
	replayBtn := widget.NewButtonWithIcon("Replay…", theme.MediaPlayIcon(), g.chooseReplay)
	agentBtn := widget.NewButtonWithIcon("Run agent…", theme.ComputerIcon(), g.chooseAgent)
	g.more = widgets.NewTipButton("More: IGLU dataset, save, action space, target ghost, recording, environment", theme.MoreHorizontalIcon(), nil)
	g.more.OnTapped = g.showMore
	g.playBar = container.NewHBox(widget.NewLabel("Task"), widgets.Sized(g.taskSelect, 170), reset, g.camera,
		replayBtn, agentBtn, g.more)

	// replay: the frame viewer steps and plays; the world follows it
	g.viewer = widgets.NewFrameViewer()
	g.viewer.SetRun(g.host.Go)
	g.viewer.CountFromInitial(true) // frame 0 is the initial state, as the overlay counts
	g.viewer.OnStep(g.followViewer)
	g.viewer.SetMinFrameSize(fyne.NewSize(128, 128))
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
	g.totalsPlot = widgets.NewPlot("Reward per episode", "episode", true, 1)
	g.totalsPlot.Hide()
	g.episodePlot = widgets.NewPlot("This episode: cumulative reward", "step", false, 0)
	g.episodePlot.Hide()
	g.chartNote = widget.NewLabel("")
	g.chartNote.Wrapping = fyne.TextWrapWord
	g.chartNote.Hide()
	help := widget.NewLabel("Click the world to play. W A S D move · Space jump (up) · C down (flying) · " +
		"arrows or drag look · 1-6 colour · Q or click break · E or right click place, where the " +
		"crosshair is (in the orbit view it marks where the agent aims) · wheel zooms the orbit camera.")
	help.Wrapping = fyne.TextWrapWord
	previewBox := &aspectBox{min: fyne.NewSize(220, 165), ratio: 0.75, maxH: 340}
	preview := container.New(previewBox, g.preview)
	sideScroll := container.NewVScroll(container.NewVBox(
		widget.NewLabelWithStyle("Target", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), preview,
		widget.NewLabelWithStyle("Dialog", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), g.dialogText,
		g.totalsPlot, g.episodePlot, g.chartNote, widget.NewSeparator(), help))
	previewBox.relayout = func() { sideScroll.Content.Refresh(); sideScroll.Refresh() }
	// replaying, the viewer (its step's first-person frame, timeline and playback) heads the
	// side panel; the world keeps the main area
	g.sideReplay = container.NewVSplit(g.viewer, sideScroll)
	g.sideReplay.Offset = 0.85
	g.side = container.NewStack(sideScroll)
	g.sidePlay = sideScroll
	g.world = world
	g.center = container.NewStack(world)
	main := container.NewBorder(nil, g.status, nil, nil, g.center)
	split := container.NewHSplit(main, g.side)
	split.Offset = 0.74
	g.bars = container.NewStack(g.playBar, g.replayBar)
	g.content = container.NewBorder(g.bars, nil, nil, nil, split)
}

// showMore opens the ⋯ menu: the dataset, saving, the action space, the ghost, recording and
// the environment's rules.
func (g *Workspace) showMore() {
	c := fyne.CurrentApp().Driver().CanvasForObject(g.more)
	if c == nil {
		return
	}
	var spaces []*fyne.MenuItem
	for _, sp := range []string{spaceWalking, spaceWalkingDict, spaceFlying} {
		it := fyne.NewMenuItem(sp, func() { g.setSpace(sp) })
		it.Checked = g.space == sp
		spaces = append(spaces, it)
	}
	space := fyne.NewMenuItem("Action space: "+g.space, nil)
	space.ChildMenu = fyne.NewMenu("", spaces...)
	ghost := fyne.NewMenuItem("Show the target as a ghost", func() { g.ghost = !g.ghost; g.render() })
	ghost.Checked = g.ghost
	record := fyne.NewMenuItem("Record to the store", func() { g.recording = !g.recording })
	record.Checked = g.recording
	menu := fyne.NewMenu("",
		fyne.NewMenuItem("Open an IGLU dataset…", g.openDataset),
		fyne.NewMenuItem("Save the recording now", g.saveRecording),
		fyne.NewMenuItemSeparator(),
		space, ghost, record,
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Environment settings…", g.showEnvSettings))
	widget.ShowPopUpMenuAtRelativePosition(menu, c, fyne.NewPos(0, g.more.Size().Height), g.more)
}

// setSpace plays a new episode with the action space sp.
func (g *Workspace) setSpace(sp string) {
	g.space = sp
	g.reset()
	if g.env != nil {
		g.setStatus("New episode with the " + sp + " action space.")
	}
}

// refreshTaskList offers the built-in samples one by one, all samples, random structures and
// the IGLU datasets opened in this session.
// The list shows names people read (taskLabel); taskSpecs maps them back to the task specs
// the engine and the command line take ("samples", "tower", "random", "iglu:DIR").
func (g *Workspace) refreshTaskList() {
	specs := []string{"samples"}
	for _, nt := range gridworld.SampleTasks() {
		specs = append(specs, nt.Name)
	}
	specs = append(specs, "random")
	for _, src := range g.deps.Sources.list() {
		specs = append(specs, src.Name)
	}
	g.taskSpecs = map[string]string{}
	var opts []string
	for _, spec := range specs {
		l := taskLabel(spec)
		g.taskSpecs[l] = spec
		opts = append(opts, l)
	}
	g.taskSelect.Options = opts
	g.taskSelect.Refresh()
}

// taskLabel is how the Task list names a task spec.
func taskLabel(spec string) string {
	switch {
	case spec == "samples":
		return "Random sample"
	case spec == "random":
		return "Random structures"
	case strings.HasPrefix(spec, "iglu:"):
		return "IGLU " + filepath.Base(strings.TrimPrefix(spec, "iglu:"))
	}
	for _, nt := range gridworld.SampleTasks() {
		if nt.Name == spec {
			name := strings.ReplaceAll(nt.Name, "-", " ")
			return strings.ToUpper(name[:1]) + name[1:] // Small house, L wall
		}
	}
	return spec
}

func (g *Workspace) selectTask(name string) {
	if name == g.taskName && g.env != nil {
		return
	}
	src, label, err := gridworld.ResolveTaskSpec(name)
	if err != nil {
		g.setStatus(err.Error())
		return
	}
	g.source, g.taskName = src, label
	if l := taskLabel(name); g.taskSelect.Selected != l {
		if _, listed := g.taskSpecs[l]; !listed { // a spec given on the command line
			g.taskSpecs[l] = name
			g.taskSelect.Options = append(g.taskSelect.Options, l)
		}
		g.taskSelect.SetSelected(l) // calls selectTask again, which returns early
	}
	g.reset()
}

func (g *Workspace) openDataset() {
	if g.host.Window() == nil {
		return
	}
	dialog.ShowFolderOpen(func(l fyne.ListableURI, err error) {
		if err != nil || l == nil {
			return
		}
		g.loadDataset(l.Path())
	}, g.host.Window())
}

// loadDataset opens an IGLU dataset folder as a task source.
func (g *Workspace) loadDataset(dir string) {
	spec := "iglu:" + dir
	src, _, err := gridworld.ResolveTaskSpec(spec)
	if err != nil {
		g.setStatus("Cannot open the dataset: " + err.Error())
		if g.host.Window() != nil {
			dialog.ShowError(err, g.host.Window())
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
	g.deps.Sources.add(TaskSource{Name: spec, Tasks: tasks})
	if st := g.store; st != nil {
		st.TouchRecent(context.Background(), dir, "gridworld-tasks")
	}
	g.refreshTaskList()
	g.selectTask(spec)
}

func (g *Workspace) config() gridworld.Config {
	cfg := gridworld.EnvDefaults()
	cfg.Render = false // the workspace renders the view itself; pov thumbnails come from it too
	g.envOpts.apply(&cfg)
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
func (g *Workspace) reset() {
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
	g.why = ""
	g.rec = gridworld.NewRecorder(env, gridworld.RecordMeta{TaskName: g.taskName, Agent: "human"})
	g.rewardText.Text = ""
	g.rewardText.Refresh()
	g.renderPreview()
	g.updateOverlay()
	g.render()
}

func (g *Workspace) setStatus(s string) { g.status.SetText(s) }
