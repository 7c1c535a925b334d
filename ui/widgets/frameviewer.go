package widgets

import (
	"bytes"
	"fmt"
	"image"
	_ "image/jpeg" // observations may be JPEG
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/limits"
)

// FrameLoader decodes the frame of a step: its Observation bytes, or the file its
// ObservationRef names. Sources with frames elsewhere (a pickle in memory) provide their own.
type FrameLoader func(step *episode.Step) (image.Image, error)

// LoadStepFrame is the default FrameLoader.
func LoadStepFrame(step *episode.Step) (image.Image, error) {
	data := step.Observation
	if len(data) == 0 {
		if step.ObservationRef == "" {
			return nil, fmt.Errorf("step %d has no frame", step.Index)
		}
		var err error
		if data, err = limits.ReadFile(step.ObservationRef, limits.Screenshot); err != nil {
			return nil, err
		}
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("step %d frame: %w", step.Index, err)
	}
	return img, nil
}

// FrameViewer shows an episode frame by frame with the action drawn over the frame (touch
// point, long press, scroll arrow, typed text), the step's reward and instruction, a timeline
// with markers for rewards and instruction changes, and playback at 0.25x to 8x.
// Keyboard: Left/Right one step, Shift+Left/Right ten, Home/End, Space plays.
type FrameViewer struct {
	widget.BaseWidget

	ep    *episode.Episode
	load  FrameLoader
	cache *frameCache
	index int
	speed float64
	play  chan struct{} // closed to stop playback; nil when paused
	// playDone is closed when the last playback's goroutine has ended
	playDone <-chan struct{}
	run      func(func()) // runs decoding off the UI goroutine
	shift    bool
	onStep   func(i int)
	// initial: the first frame is the state before any action, and frame i the state after
	// action i (Gridworld replays)
	initial bool
	// minFrame is the smallest the frame is drawn (SetMinFrameSize)
	minFrame fyne.Size
	// trajectory gives the finger path a step recorded (SetTrajectory); nil: none
	trajectory func(step *episode.Step) []episode.Point

	image     *canvas.Image
	marks     *fyne.Container // action overlay, laid out over the image
	info      *widget.Label
	instr     *widget.Label
	timeline  *timeline
	playBtn   *TipButton
	position  *widget.Label
	hierarchy *widget.Entry
	noHier    *widget.Label
	// The view hierarchy (XML) is a pane beside the frame only when asked for (xmlBtn): beside
	// a phone frame on a laptop screen it took half the width and still showed clipped lines.
	xmlBtn   *TipButton
	hasXML   bool // the episode recorded view hierarchies
	showXML  bool // the pane is asked for (kept across episodes)
	frame    fyne.CanvasObject
	controls fyne.CanvasObject // the step buttons, speed and position
	bottom   *fyne.Container   // timeline, controls and (unless set apart) the captions
	captions *fyne.Container   // the step's action, reward and instruction
	split    *container.Split
	body     *fyne.Container // the frame alone, or beside the view hierarchy
	xmlCache map[int]string  // indented view hierarchies by step
	content  fyne.CanvasObject
	imgSize  image.Point // of the frame on show (the display copy may be smaller)
	full     image.Image // the frame on show, as decoded

	// The frame is handed to fyne already scaled to the image area's pixel size: fyne would
	// otherwise resample a phone screenshot (1080x2400) with Catmull-Rom on the UI goroutine for
	// every frame shown, hundreds of milliseconds each.
	dispMu     sync.Mutex
	dispTarget image.Point // the image area in pixels
	disp       *frameCache // display copies, valid while their size is dispTarget
}

// NewFrameViewer returns an empty viewer; SetEpisode fills it.
func NewFrameViewer() *FrameViewer {
	v := &FrameViewer{speed: 1, load: LoadStepFrame, cache: newFrameCache(frameCacheBytes), disp: newFrameCache(displayCacheBytes), run: func(f func()) { go f() }}
	v.image = canvas.NewImageFromImage(image.NewRGBA(image.Rect(0, 0, 1, 1)))
	v.image.FillMode = canvas.ImageFillContain
	v.image.ScaleMode = canvas.ImageScaleSmooth
	v.marks = container.NewWithoutLayout()
	v.info = widget.NewLabel("")
	v.instr = widget.NewLabel("")
	v.instr.Wrapping = fyne.TextWrapWord
	v.position = widget.NewLabel("")
	v.timeline = newTimeline(func(i int) { v.Seek(i) })
	v.playBtn = NewTipButton("Play / pause (Space)", theme.MediaPlayIcon(), v.TogglePlay)
	speed := widget.NewSelect(replaySpeeds, func(s string) { v.speed = parseSpeed(s) })
	speed.SetSelected("1x")
	v.hierarchy = widget.NewMultiLineEntry()
	v.hierarchy.TextStyle.Monospace = true
	v.hierarchy.Hide()
	v.noHier = widget.NewLabel("No view hierarchy recorded for this step.")
	v.noHier.Wrapping = fyne.TextWrapWord
	v.noHier.Hide()
	v.xmlBtn = NewTipTextButton("XML", "Show the view hierarchy beside the frame", nil, func() { v.ShowHierarchy(!v.showXML) })
	v.xmlBtn.Hide()
	v.controls = NewFlow(container.NewHBox(
		NewTipButton("First step (Home)", theme.MediaSkipPreviousIcon(), func() { v.Seek(0) }),
		NewTipButton("Previous step (Left)", theme.NavigateBackIcon(), func() { v.Seek(v.index - 1) }),
		v.playBtn,
		NewTipButton("Next step (Right)", theme.NavigateNextIcon(), func() { v.Seek(v.index + 1) }),
		NewTipButton("Last step (End)", theme.MediaSkipNextIcon(), func() { v.Seek(v.Len() - 1) })),
		speedFits(speed), v.position, v.xmlBtn)
	v.frame = container.New(&frameAreaLayout{v}, v.image, v.marks)
	v.split = container.NewHSplit(container.NewStack(), container.NewStack(v.hierarchy, container.NewVBox(v.noHier)))
	v.split.Offset = 0.5
	v.body = container.NewStack(v.frame)
	v.captions = container.NewVBox(v.info, v.instr)
	v.bottom = container.NewVBox(v.timeline, v.controls, v.captions)
	v.content = container.NewBorder(nil, v.bottom, nil, nil, v.body)
	v.ExtendBaseWidget(v)
	return v
}

// speedFits gives the speed choice the width of its longest option (its placeholder made it
// wider), so the step controls keep to one row beside a phone frame.
func speedFits(s *widget.Select) fyne.CanvasObject {
	w := float32(0)
	for _, o := range s.Options {
		w = max(w, fyne.MeasureText(o, theme.TextSize(), fyne.TextStyle{}).Width)
	}
	return Sized(s, w+theme.IconInlineSize()+4*theme.InnerPadding()+2*theme.Padding())
}

// FrameArea is the area the frame is drawn in (with the action over it).
func (v *FrameViewer) FrameArea() fyne.CanvasObject { return v.frame }

// StepControls are the controls that step through the episode: first, previous, play, next,
// last, the speed and the position.
func (v *FrameViewer) StepControls() fyne.CanvasObject { return v.controls }

// SetCaptionsApart takes the step's captions (its action and reward, its instruction) out from
// under the frame and returns them, for the caller to place beside the frame: on a short
// window every line under the frame is a line less of the frame.
func (v *FrameViewer) SetCaptionsApart() fyne.CanvasObject {
	v.info.Wrapping = fyne.TextWrapWord // in a column: a long action wraps instead of widening it
	v.bottom.Objects = []fyne.CanvasObject{v.timeline, v.controls}
	v.bottom.Refresh()
	return v.captions
}

// SetEpisode shows e from its first step, decoding frames with load (nil: LoadStepFrame); an
// episode without steps (or nil) empties the viewer.
func (v *FrameViewer) SetEpisode(e *episode.Episode, load FrameLoader) {
	if e == nil {
		e = &episode.Episode{}
	}
	v.Pause()
	if load == nil {
		load = LoadStepFrame
	}
	v.ep, v.load, v.cache, v.index = e, load, newFrameCache(frameCacheBytes), -1
	v.dispMu.Lock()
	v.disp = newFrameCache(displayCacheBytes)
	v.dispMu.Unlock()
	v.xmlCache = map[int]string{}
	v.timeline.set(e)
	// The view hierarchy pane is there only for episodes that recorded one.
	v.hasXML = false
	for i := range e.Steps {
		if xml, ok := e.Steps[i].Extra["view_hierarchy"].(string); ok && xml != "" {
			v.hasXML = true
			break
		}
	}
	v.layoutBody()
	if len(e.Steps) == 0 { // nothing to step through: no controls either
		v.bottom.Hide()
		v.content.Refresh()
		v.setImage(nil)
		v.info.SetText("")
		v.instr.SetText("")
		v.position.SetText("")
		v.layoutMarks()
		return
	}
	if !v.bottom.Visible() {
		v.bottom.Show()
		v.content.Refresh()
	}
	v.Seek(0)
}

// ShowHierarchy shows (or hides) the view hierarchy pane beside the frame, for episodes that
// recorded view hierarchies; by default the frame has the width alone.
func (v *FrameViewer) ShowHierarchy(on bool) {
	v.showXML = on
	v.layoutBody()
}

// HierarchyShown reports whether the view hierarchy pane is beside the frame.
func (v *FrameViewer) HierarchyShown() bool { return v.hasXML && v.showXML }

// layoutBody puts the frame alone or beside the view hierarchy.
func (v *FrameViewer) layoutBody() {
	if v.hasXML {
		v.xmlBtn.Show()
	} else {
		v.xmlBtn.Hide()
	}
	if v.HierarchyShown() {
		v.split.Leading = v.frame
		v.body.Objects = []fyne.CanvasObject{v.split}
		v.xmlBtn.Importance = widget.HighImportance
		v.xmlBtn.Tip = "Hide the view hierarchy"
	} else {
		v.split.Leading = container.NewStack()
		v.body.Objects = []fyne.CanvasObject{v.frame}
		v.xmlBtn.Importance = widget.MediumImportance
		v.xmlBtn.Tip = "Show the view hierarchy beside the frame"
	}
	v.xmlBtn.Refresh()
	v.body.Refresh()
	v.controls.Refresh()
}

// SetTrajectory gives the viewer the finger path each step recorded, as fractions of the frame
// in the order the finger moved (nil or fewer than two points: none). A step with a path has
// it drawn as a line through every point, from a dot where the finger went down to an
// arrowhead where it lifted, instead of the action's straight start-to-end arrow; the Explorer
// gives GUI Odyssey scrolls' recorded paths. Call it before SetEpisode.
func (v *FrameViewer) SetTrajectory(f func(step *episode.Step) []episode.Point) { v.trajectory = f }

func (v *FrameViewer) pathOf(step *episode.Step) []episode.Point {
	if v.trajectory == nil {
		return nil
	}
	return v.trajectory(step)
}

// CountFromInitial says the episode's first frame is the state before any action: the viewer
// then shows "start" there and "step i / n" for the state after action i of n, as the
// Gridworld overlay counts.
func (v *FrameViewer) CountFromInitial(on bool) { v.initial = on }

// PositionText is the position shown under the frame ("step 3 / 25").
func (v *FrameViewer) PositionText() string { return v.position.Text }

func (v *FrameViewer) positionText(i, n int) string {
	switch {
	case !v.initial:
		return fmt.Sprintf("step %d / %d", i+1, n)
	case i == 0:
		return fmt.Sprintf("start / %d", n-1)
	}
	return fmt.Sprintf("step %d / %d", i, n-1)
}

// OnStep sets a function called whenever the shown step changes.
func (v *FrameViewer) OnStep(f func(i int)) { v.onStep = f }

// SetRun sets how frames are decoded off the UI goroutine (default: go f()).
func (v *FrameViewer) SetRun(run func(func())) { v.run = run }

// Episode is the episode on show (nil before SetEpisode).
func (v *FrameViewer) Episode() *episode.Episode { return v.ep }

// Frame is the image on show (scaled for display).
func (v *FrameViewer) Frame() image.Image { return v.image.Image }

// Captions are the texts under the frame: the step's action and reward, and its instruction.
func (v *FrameViewer) Captions() (info, instruction string) { return v.info.Text, v.instr.Text }

// SetSpeed sets the playback speed (1 is five steps a second).
func (v *FrameViewer) SetSpeed(x float64) { v.speed = x }

// Len is the number of steps.
func (v *FrameViewer) Len() int {
	if v.ep == nil {
		return 0
	}
	return len(v.ep.Steps)
}

// Index is the step on show.
func (v *FrameViewer) Index() int { return v.index }

// Seek displays step i (clamped to the episode).
func (v *FrameViewer) Seek(i int) {
	n := v.Len()
	if n == 0 {
		return
	}
	i = max(0, min(i, n-1))
	changed := i != v.index
	v.index = i
	step := &v.ep.Steps[i]
	if img, ok := v.cache.get(i); ok {
		v.showFrame(i, img)
	} else if img, err := v.load(step); err == nil { // the frame on show is decoded at once
		v.cache.put(i, img)
		v.showFrame(i, img)
	} else {
		v.setImage(image.NewRGBA(image.Rect(0, 0, 1, 1)))
		v.info.SetText(err.Error())
	}
	v.prefetch(i + 1)
	v.position.SetText(v.positionText(i, n))
	desc := describeAction(step.Action)
	if path := v.pathOf(step); len(path) >= 2 {
		desc += fmt.Sprintf(" along a finger path of %d points", len(path))
	}
	v.info.SetText(fmt.Sprintf("%s · reward %s", desc, formatReward(step.Reward)))
	if step.Instruction != "" {
		v.instr.SetText("Instruction: " + step.Instruction)
	} else {
		v.instr.SetText("")
	}
	if xml, ok := step.Extra["view_hierarchy"].(string); ok && xml != "" {
		pretty, ok := v.xmlCache[i]
		if !ok {
			pretty = indentXML(xml)
			v.xmlCache[i] = pretty
		}
		v.hierarchy.SetText(pretty)
		v.hierarchy.Show()
		v.noHier.Hide()
	} else {
		v.hierarchy.Hide()
		v.noHier.Show()
	}
	v.timeline.setIndex(i)
	v.layoutMarks()
	if changed && v.onStep != nil {
		v.onStep(i)
	}
}

// prefetch decodes the next few frames in the background.
func (v *FrameViewer) prefetch(from int) {
	ep, load, cache := v.ep, v.load, v.cache
	for i := from; i < min(from+4, len(ep.Steps)); i++ {
		if !cache.claim(i) {
			continue
		}
		v.run(func() {
			img, err := load(&ep.Steps[i])
			if err != nil {
				cache.put(i, nil)
				return
			}
			cache.put(i, img)
			v.dispMu.Lock()
			target, disp := v.dispTarget, v.disp
			v.dispMu.Unlock()
			if d := displayCopy(img, target); d != nil {
				disp.put(i, d)
			}
		})
	}
}

func (v *FrameViewer) setImage(img image.Image) {
	if img == nil {
		img = image.NewRGBA(image.Rect(0, 0, 1, 1))
	}
	v.full = nil
	v.image.Image = img
	v.imgSize = img.Bounds().Size()
	v.image.Refresh()
}

// showFrame shows step i's decoded frame, through a display copy of the image area's size when
// the frame is larger than the area.
func (v *FrameViewer) showFrame(i int, img image.Image) {
	if img == nil {
		v.setImage(nil)
		return
	}
	v.dispMu.Lock()
	target, disp := v.dispTarget, v.disp
	v.dispMu.Unlock()
	shown := img
	if d, ok := disp.get(i); ok && d != nil && d.Bounds().Size() == target {
		shown = d
	} else if d := displayCopy(img, target); d != nil {
		disp.put(i, d)
		shown = d
	}
	v.full = img
	v.image.Image = shown
	v.imgSize = img.Bounds().Size()
	v.image.Refresh()
}

// areaResized is called when the image area changes size: display copies are made again.
func (v *FrameViewer) areaResized(size fyne.Size) {
	scale := float32(1)
	if c := fyne.CurrentApp().Driver().CanvasForObject(v); c != nil {
		scale = c.Scale()
	}
	target := image.Pt(int(size.Width*scale+0.5), int(size.Height*scale+0.5))
	v.dispMu.Lock()
	changed := target != v.dispTarget
	if changed {
		v.dispTarget = target
		v.disp = newFrameCache(displayCacheBytes)
	}
	v.dispMu.Unlock()
	if changed && v.full != nil {
		v.showFrame(v.index, v.full)
	}
	v.layoutMarks()
}

// frameAreaLayout stacks the frame and its marks and tells the viewer the area's size (the
// viewer's own layout does not see a split being dragged).
type frameAreaLayout struct{ v *FrameViewer }

func (l *frameAreaLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.Position{})
		o.Resize(size)
	}
	l.v.areaResized(size)
}

func (l *frameAreaLayout) MinSize([]fyne.CanvasObject) fyne.Size {
	return fyne.NewSize(max(l.v.minFrame.Width, 1), max(l.v.minFrame.Height, 1))
}

// SetMinFrameSize keeps the frame at least this large: a viewer in a scrolling panel then
// makes the panel scroll instead of squeezing the frame to a sliver under its controls.
func (v *FrameViewer) SetMinFrameSize(s fyne.Size) {
	v.minFrame = s
	v.content.Refresh()
}

type frameViewerRenderer struct{ v *FrameViewer }

func (r *frameViewerRenderer) Layout(s fyne.Size) {
	r.v.content.Resize(s) // the frame area's layout places the marks
}
func (r *frameViewerRenderer) MinSize() fyne.Size           { return r.v.content.MinSize() }
func (r *frameViewerRenderer) Refresh()                     { r.v.content.Refresh() }
func (r *frameViewerRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.v.content} }
func (r *frameViewerRenderer) Destroy()                     { r.v.Pause() }
