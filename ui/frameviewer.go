package ui

import (
	"bytes"
	"container/list"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	_ "image/jpeg" // observations may be JPEG
	"image/png"
	"io"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
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

// frameCache keeps recently decoded frames (large phone screenshots take milliseconds to
// decode) and decodes the next ones ahead of playback. It is bounded by the bytes its images
// hold, not by their number: one decoded 1080x2400 screenshot is 10 MB, so a count that suits
// small frames would hold half a gigabyte of phone frames. The most recent frame is kept
// whatever its size.
type frameCache struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	order    *list.List // of int, most recent first
	items    map[int]*list.Element
	imgs     map[int]image.Image
	busy     map[int]bool
}

// Byte budgets of the viewer's caches: decoded frames (the current one, the ones just seen and
// the four decoded ahead) and display-sized copies of them.
const (
	frameCacheBytes   = 64 << 20
	displayCacheBytes = 32 << 20
)

func newFrameCache(maxBytes int) *frameCache {
	return &frameCache{maxBytes: maxBytes, order: list.New(), items: map[int]*list.Element{},
		imgs: map[int]image.Image{}, busy: map[int]bool{}}
}

// imageBytes is the memory an image's pixels take.
func imageBytes(img image.Image) int {
	switch m := img.(type) {
	case nil:
		return 0
	case *image.RGBA:
		return len(m.Pix)
	case *image.NRGBA:
		return len(m.Pix)
	case *image.YCbCr:
		return len(m.Y) + len(m.Cb) + len(m.Cr)
	case *image.Gray:
		return len(m.Pix)
	case *image.Paletted:
		return len(m.Pix) + 4*len(m.Palette)
	}
	b := img.Bounds()
	return 4 * b.Dx() * b.Dy()
}

func (c *frameCache) get(i int) (image.Image, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[i]; ok {
		c.order.MoveToFront(e)
		return c.imgs[i], true
	}
	return nil, false
}

func (c *frameCache) put(i int, img image.Image) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.busy, i)
	if e, ok := c.items[i]; ok {
		c.order.MoveToFront(e)
		c.bytes -= imageBytes(c.imgs[i])
	} else {
		c.items[i] = c.order.PushFront(i)
	}
	c.imgs[i] = img
	c.bytes += imageBytes(img)
	for c.bytes > c.maxBytes && c.order.Len() > 1 {
		last := c.order.Back()
		j := last.Value.(int)
		c.order.Remove(last)
		c.bytes -= imageBytes(c.imgs[j])
		delete(c.items, j)
		delete(c.imgs, j)
	}
}

// claim marks i as being decoded; false when it is cached or already in progress.
func (c *frameCache) claim(i int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[i]; ok || c.busy[i] {
		return false
	}
	c.busy[i] = true
	return true
}

// FrameViewer shows an episode frame by frame with the action drawn over the frame (touch
// point, long press, scroll arrow, typed text), the step's reward and instruction, a timeline
// with markers for rewards and instruction changes, and playback at 0.25x to 8x.
// Keyboard: Left/Right one step, Shift+Left/Right ten, Home/End, Space plays.
type FrameViewer struct {
	widget.BaseWidget

	ep     *episode.Episode
	load   FrameLoader
	cache  *frameCache
	index  int
	speed  float64
	play   chan struct{} // closed to stop playback; nil when paused
	run    func(func())  // runs decoding off the UI goroutine
	shift  bool
	onStep func(i int)

	image     *canvas.Image
	marks     *fyne.Container // action overlay, laid out over the image
	info      *widget.Label
	instr     *widget.Label
	timeline  *timeline
	playBtn   *widget.Button
	position  *widget.Label
	hierarchy *widget.Entry
	noHier    *widget.Label
	frame     fyne.CanvasObject
	split     *container.Split
	body      *fyne.Container // the frame alone, or beside the view hierarchy
	xmlCache  map[int]string  // indented view hierarchies by step
	content   fyne.CanvasObject
	imgSize   image.Point // of the frame on show (the display copy may be smaller)
	full      image.Image // the frame on show, as decoded

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
	v.playBtn = widget.NewButtonWithIcon("", theme.MediaPlayIcon(), v.TogglePlay)
	speed := widget.NewSelect(replaySpeeds, func(s string) { v.speed = parseSpeed(s) })
	speed.SetSelected("1x")
	v.hierarchy = widget.NewMultiLineEntry()
	v.hierarchy.TextStyle.Monospace = true
	v.hierarchy.Hide()
	v.noHier = widget.NewLabel("No view hierarchy recorded for this step.")
	v.noHier.Wrapping = fyne.TextWrapWord
	v.noHier.Hide()
	controls := container.NewHBox(
		widget.NewButtonWithIcon("", theme.MediaSkipPreviousIcon(), func() { v.Seek(0) }),
		widget.NewButtonWithIcon("", theme.NavigateBackIcon(), func() { v.Seek(v.index - 1) }),
		v.playBtn,
		widget.NewButtonWithIcon("", theme.NavigateNextIcon(), func() { v.Seek(v.index + 1) }),
		widget.NewButtonWithIcon("", theme.MediaSkipNextIcon(), func() { v.Seek(v.Len() - 1) }),
		speed, v.position)
	v.frame = container.New(&frameAreaLayout{v}, v.image, v.marks)
	v.split = container.NewHSplit(container.NewStack(), container.NewStack(v.hierarchy, container.NewVBox(v.noHier)))
	v.split.Offset = 0.6
	v.body = container.NewStack(v.frame)
	bottom := container.NewVBox(v.timeline, controls, v.info, v.instr)
	v.content = container.NewBorder(nil, bottom, nil, nil, v.body)
	v.ExtendBaseWidget(v)
	return v
}

// SetEpisode shows e from its first step, decoding frames with load (nil: LoadStepFrame).
func (v *FrameViewer) SetEpisode(e *episode.Episode, load FrameLoader) {
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
	hasXML := false
	for i := range e.Steps {
		if xml, ok := e.Steps[i].Extra["view_hierarchy"].(string); ok && xml != "" {
			hasXML = true
			break
		}
	}
	if hasXML {
		v.split.Leading = v.frame
		v.body.Objects = []fyne.CanvasObject{v.split}
	} else {
		v.split.Leading = container.NewStack()
		v.body.Objects = []fyne.CanvasObject{v.frame}
	}
	v.body.Refresh()
	v.Seek(0)
}

// OnStep sets a function called whenever the shown step changes.
func (v *FrameViewer) OnStep(f func(i int)) { v.onStep = f }

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
	v.position.SetText(fmt.Sprintf("step %d / %d", i+1, n))
	v.info.SetText(fmt.Sprintf("%s · reward %s", describeAction(step.Action), formatReward(step.Reward)))
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

func (l *frameAreaLayout) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.NewSize(1, 1) }

// displayCopy is img scaled to fit (aspect kept, centred, transparent around it) into an image
// of exactly target's size, so fyne shows it without resampling; nil when img is not larger
// than the area (fyne then scales it up on the GPU) or the area is unknown.
func displayCopy(img image.Image, target image.Point) *image.RGBA {
	b := img.Bounds()
	if target.X <= 0 || target.Y <= 0 || b.Dx() <= 0 || b.Dy() <= 0 || (b.Dx() <= target.X && b.Dy() <= target.Y) {
		return nil
	}
	scale := min(float64(target.X)/float64(b.Dx()), float64(target.Y)/float64(b.Dy()))
	w, h := max(1, int(float64(b.Dx())*scale+0.5)), max(1, int(float64(b.Dy())*scale+0.5))
	out := image.NewRGBA(image.Rectangle{Max: target})
	at := image.Pt((target.X-w)/2, (target.Y-h)/2)
	boxScale(out, image.Rectangle{Min: at, Max: at.Add(image.Pt(w, h))}, img)
	return out
}

// boxScale shrinks src into dst's rectangle r, each pixel the mean of the source pixels it
// covers (a box filter: no aliasing on text). Rows of a band are summed first (one pass over
// the source), then columns.
func boxScale(dst *image.RGBA, r image.Rectangle, src image.Image) {
	rgba, ok := src.(*image.RGBA)
	if !ok {
		rgba = image.NewRGBA(image.Rectangle{Max: src.Bounds().Size()})
		draw.Draw(rgba, rgba.Rect, src, src.Bounds().Min, draw.Src)
	}
	sw, sh := rgba.Rect.Dx(), rgba.Rect.Dy()
	w, h := r.Dx(), r.Dy()
	xs := make([]int, w+1) // output column x covers source columns xs[x] to xs[x+1]-1
	for x := 0; x <= w; x++ {
		xs[x] = x * sw / w
	}
	acc := make([]uint32, sw*4)
	for y := 0; y < h; y++ {
		y0, y1 := y*sh/h, max((y+1)*sh/h, y*sh/h+1)
		clear(acc)
		for sy := y0; sy < y1; sy++ {
			row := rgba.Pix[sy*rgba.Stride : sy*rgba.Stride+sw*4]
			acc := acc[:len(row)]
			for i, v := range row {
				acc[i] += uint32(v)
			}
		}
		out := dst.Pix[dst.PixOffset(r.Min.X, r.Min.Y+y):]
		out = out[:w*4]
		for x := 0; x < w; x++ {
			a, b := xs[x], max(xs[x+1], xs[x]+1)
			var s0, s1, s2, s3 uint32
			p := acc[a*4 : b*4]
			for i := 0; i+3 < len(p); i += 4 {
				s0 += p[i]
				s1 += p[i+1]
				s2 += p[i+2]
				s3 += p[i+3]
			}
			n := uint32((b - a) * (y1 - y0))
			out[x*4] = uint8((s0 + n/2) / n)
			out[x*4+1] = uint8((s1 + n/2) / n)
			out[x*4+2] = uint8((s2 + n/2) / n)
			out[x*4+3] = uint8((s3 + n/2) / n)
		}
	}
}

// imageRect is where the frame is drawn inside the image area (contain fit).
func (v *FrameViewer) imageRect() (pos fyne.Position, size fyne.Size) {
	area := v.image.Size()
	if v.imgSize.X == 0 || v.imgSize.Y == 0 || area.Width == 0 || area.Height == 0 {
		return fyne.Position{}, area
	}
	scale := min(area.Width/float32(v.imgSize.X), area.Height/float32(v.imgSize.Y))
	size = fyne.NewSize(float32(v.imgSize.X)*scale, float32(v.imgSize.Y)*scale)
	return fyne.NewPos((area.Width-size.Width)/2, (area.Height-size.Height)/2), size
}

// layoutMarks draws the action of the step on show over the frame.
func (v *FrameViewer) layoutMarks() {
	v.marks.Objects = nil
	if v.Len() == 0 || v.index < 0 || v.index >= v.Len() {
		v.marks.Refresh()
		return
	}
	a := v.ep.Steps[v.index].Action
	origin, size := v.imageRect()
	at := func(p episode.Point) fyne.Position {
		return fyne.NewPos(origin.X+float32(p.X)*size.Width, origin.Y+float32(p.Y)*size.Height)
	}
	accent := theme.Color(theme.ColorNamePrimary)
	for i, p := range a.Points {
		c := canvas.NewCircle(nil)
		c.StrokeColor = accent
		c.StrokeWidth = 3
		r := float32(14)
		if a.Kind == "long_press" {
			r = 22
		}
		pos := at(p)
		c.Move(fyne.NewPos(pos.X-r, pos.Y-r))
		c.Resize(fyne.NewSize(2*r, 2*r))
		v.addMark(c)
		if i > 0 { // a swipe or scroll: an arrow from the previous point
			prev := at(a.Points[i-1])
			l := canvas.NewLine(accent)
			l.StrokeWidth = 4
			l.Position1, l.Position2 = prev, pos
			v.addMark(l)
			head := canvas.NewCircle(accent)
			head.Move(fyne.NewPos(pos.X-6, pos.Y-6))
			head.Resize(fyne.NewSize(12, 12))
			v.addMark(head)
		}
	}
	if a.Kind == "lift" && len(a.Points) == 0 {
		// Mobile-Env records a lift without a position: mark where the last touch was.
		if p, ok := v.lastTouch(v.index); ok {
			pos := at(p)
			r := float32(22)
			c := canvas.NewCircle(nil)
			c.StrokeColor = accent
			c.StrokeWidth = 2
			c.Move(fyne.NewPos(pos.X-r, pos.Y-r))
			c.Resize(fyne.NewSize(2*r, 2*r))
			v.addMark(c)
			v.addBadge("lift", fyne.NewPos(pos.X+r+4, pos.Y-10), theme.Color(theme.ColorNameForeground), origin, size)
		}
	}
	if a.Text != "" {
		v.addBadge("Typed: "+a.Text, fyne.NewPos(origin.X+8, origin.Y+size.Height-38), theme.Color(theme.ColorNameForeground), origin, size)
	}
	step := v.ep.Steps[v.index]
	if step.Reward != 0 {
		c := theme.Color(theme.ColorNameSuccess)
		if step.Reward < 0 {
			c = theme.Color(theme.ColorNameError)
		}
		text := "reward " + formatReward(step.Reward)
		w := fyne.MeasureText(text, 18, fyne.TextStyle{Bold: true}).Width
		v.addBadge(text, fyne.NewPos(origin.X+size.Width-w-14, origin.Y+8), c, origin, size)
	}
	if step.Instruction != "" && (v.index == 0 || v.ep.Steps[v.index-1].Instruction != step.Instruction) {
		v.addBadge("Instruction: "+step.Instruction, fyne.NewPos(origin.X+8, origin.Y+42), theme.Color(theme.ColorNameHyperlink), origin, size)
	}
	v.marks.Refresh()
}

// Every ring, arrow and dot is drawn over a halo, a light band edged in dark and wider than the
// mark, so that a mark in the accent colour reads on any screenshot (a blue ring on a blue
// screen too).
var (
	haloLight = color.NRGBA{255, 255, 255, 0xe0}
	haloDark  = color.NRGBA{0, 0, 0, 0xb0}
)

// addMark adds a ring (stroked circle), a dot (filled circle) or a line to the marks over its
// halo; the halo is one nested container, so the marks list holds the marks themselves.
func (v *FrameViewer) addMark(o fyne.CanvasObject) {
	halo := container.NewWithoutLayout()
	for _, band := range []struct {
		c     color.Color
		extra float32
	}{{haloDark, 8}, {haloLight, 4}} {
		switch m := o.(type) {
		case *canvas.Circle:
			h := canvas.NewCircle(nil)
			if m.StrokeWidth > 0 {
				h.StrokeColor, h.StrokeWidth = band.c, m.StrokeWidth+band.extra
				h.Move(m.Position())
				h.Resize(m.Size())
			} else { // a dot: a larger disc under it
				h.FillColor = band.c
				h.Move(m.Position().SubtractXY(band.extra/2, band.extra/2))
				h.Resize(m.Size().AddWidthHeight(band.extra, band.extra))
			}
			halo.Add(h)
		case *canvas.Line:
			h := canvas.NewLine(band.c)
			h.StrokeWidth = m.StrokeWidth + band.extra
			h.Position1, h.Position2 = m.Position1, m.Position2
			halo.Add(h)
		}
	}
	v.marks.Add(halo)
	v.marks.Add(o)
}

// lastTouch is the position of the last touch at or before step i (a lift's position).
func (v *FrameViewer) lastTouch(i int) (episode.Point, bool) {
	for j := i; j >= 0 && j > i-100; j-- {
		if a := v.ep.Steps[j].Action; len(a.Points) > 0 {
			return a.Points[len(a.Points)-1], true
		}
	}
	return episode.Point{}, false
}

// addBadge draws text on a translucent box over the frame, cut to the frame's width.
func (v *FrameViewer) addBadge(text string, pos fyne.Position, c color.Color, origin fyne.Position, size fyne.Size) {
	style := fyne.TextStyle{Bold: true}
	room := origin.X + size.Width - pos.X - 12
	if room < 20 {
		return
	}
	if fyne.MeasureText(text, 18, style).Width > room { // the longest prefix that fits, with "…"
		runes := []rune(text)
		lo, hi := 0, len(runes)
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if fyne.MeasureText(string(runes[:mid])+"…", 18, style).Width <= room {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		text = string(runes[:lo]) + "…"
	}
	t := canvas.NewText(text, c)
	t.TextSize = 18
	t.TextStyle = style
	bg := canvas.NewRectangle(overlayBackground())
	ts := t.MinSize()
	bg.Move(pos.SubtractXY(6, 4))
	bg.Resize(ts.AddWidthHeight(12, 8))
	t.Move(pos)
	v.marks.Add(bg)
	v.marks.Add(t)
}

// indentXML lays a one-line view hierarchy out one element per line; text that does not parse
// as XML is shown as it is.
func indentXML(s string) string {
	dec := xml.NewDecoder(strings.NewReader(s))
	dec.Strict = false
	var b strings.Builder
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return s
		}
		if cd, ok := tok.(xml.CharData); ok && len(bytes.TrimSpace(cd)) == 0 {
			continue
		}
		if err := enc.EncodeToken(xml.CopyToken(tok)); err != nil {
			return s
		}
	}
	if err := enc.Flush(); err != nil {
		return s
	}
	return b.String()
}

// TogglePlay starts or pauses playback.
func (v *FrameViewer) TogglePlay() {
	if v.play != nil {
		v.Pause()
		return
	}
	if v.Len() == 0 {
		return
	}
	if v.index >= v.Len()-1 {
		v.Seek(0)
	}
	v.play = make(chan struct{})
	v.playBtn.SetIcon(theme.MediaPauseIcon())
	playback(v.play, func() float64 { return v.speed }, func() bool {
		if v.index >= v.Len()-1 {
			v.Pause()
			return false
		}
		v.Seek(v.index + 1)
		return true
	})
}

// Pause stops playback.
func (v *FrameViewer) Pause() {
	if v.play != nil {
		close(v.play)
		v.play = nil
		v.playBtn.SetIcon(theme.MediaPlayIcon())
	}
}

// Playing reports whether playback runs.
func (v *FrameViewer) Playing() bool { return v.play != nil }

func (v *FrameViewer) CreateRenderer() fyne.WidgetRenderer {
	return &frameViewerRenderer{v: v}
}

type frameViewerRenderer struct{ v *FrameViewer }

func (r *frameViewerRenderer) Layout(s fyne.Size) {
	r.v.content.Resize(s) // the frame area's layout places the marks
}
func (r *frameViewerRenderer) MinSize() fyne.Size           { return r.v.content.MinSize() }
func (r *frameViewerRenderer) Refresh()                     { r.v.content.Refresh() }
func (r *frameViewerRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.v.content} }
func (r *frameViewerRenderer) Destroy()                     { r.v.Pause() }

// Keyboard: the viewer takes the focus when tapped.
func (v *FrameViewer) Tapped(*fyne.PointEvent) {
	if c := fyne.CurrentApp().Driver().CanvasForObject(v); c != nil {
		c.Focus(v)
	}
}
func (v *FrameViewer) FocusGained()   {}
func (v *FrameViewer) FocusLost()     {}
func (v *FrameViewer) TypedRune(rune) {}
func (v *FrameViewer) TypedKey(ev *fyne.KeyEvent) {
	jump := 1
	if v.shift {
		jump = 10
	}
	switch ev.Name {
	case fyne.KeyLeft:
		v.Seek(v.index - jump)
	case fyne.KeyRight:
		v.Seek(v.index + jump)
	case fyne.KeyHome:
		v.Seek(0)
	case fyne.KeyEnd:
		v.Seek(v.Len() - 1)
	case fyne.KeySpace:
		v.TogglePlay()
	}
}

// KeyDown and KeyUp track Shift for the ten-step jumps.
func (v *FrameViewer) KeyDown(ev *fyne.KeyEvent) {
	if ev.Name == desktop.KeyShiftLeft || ev.Name == desktop.KeyShiftRight {
		v.shift = true
	}
}
func (v *FrameViewer) KeyUp(ev *fyne.KeyEvent) {
	if ev.Name == desktop.KeyShiftLeft || ev.Name == desktop.KeyShiftRight {
		v.shift = false
	}
}

func describeAction(a episode.Action) string {
	s := a.Kind
	if s == "" {
		s = "no action"
	}
	if len(a.Points) > 0 {
		s += fmt.Sprintf(" at (%.2f, %.2f)", a.Points[0].X, a.Points[0].Y)
	}
	if len(a.Points) > 1 {
		last := a.Points[len(a.Points)-1]
		s += fmt.Sprintf(" to (%.2f, %.2f)", last.X, last.Y)
	}
	if a.Text != "" {
		s += fmt.Sprintf(" %q", a.Text)
	}
	return s
}

func formatReward(r float64) string {
	if r == 0 {
		return "0"
	}
	return fmt.Sprintf("%+.3g", r)
}

// timeline is the scrub bar: a track with a tick per rewarded step (green up, red down) and
// per instruction change (blue), and the current position. Tap or drag to seek.
type timeline struct {
	widget.BaseWidget
	n       int
	index   int
	rewards []float64
	instrAt []int
	seek    func(i int)
}

func newTimeline(seek func(int)) *timeline {
	t := &timeline{seek: seek}
	t.ExtendBaseWidget(t)
	return t
}

func (t *timeline) set(e *episode.Episode) {
	t.n, t.rewards, t.instrAt = len(e.Steps), nil, nil
	last := ""
	for i, s := range e.Steps {
		t.rewards = append(t.rewards, s.Reward)
		if s.Instruction != last {
			t.instrAt = append(t.instrAt, i)
			last = s.Instruction
		}
	}
	t.Refresh()
}

func (t *timeline) setIndex(i int) { t.index = i; t.Refresh() }

func (t *timeline) seekTo(x float32) {
	if t.n == 0 || t.seek == nil {
		return
	}
	w := t.Size().Width
	t.seek(int(x / max(w, 1) * float32(t.n)))
}

func (t *timeline) Tapped(ev *fyne.PointEvent) { t.seekTo(ev.Position.X) }
func (t *timeline) Dragged(ev *fyne.DragEvent) { t.seekTo(ev.Position.X) }
func (t *timeline) DragEnd()                   {}

func (t *timeline) CreateRenderer() fyne.WidgetRenderer {
	return &timelineRenderer{t: t, track: canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground)),
		cursor: canvas.NewRectangle(theme.Color(theme.ColorNamePrimary))}
}

type timelineRenderer struct {
	t      *timeline
	track  *canvas.Rectangle
	cursor *canvas.Rectangle
	ticks  []fyne.CanvasObject
}

func (r *timelineRenderer) x(i int, w float32) float32 {
	if r.t.n <= 1 {
		return 0
	}
	return float32(i) / float32(r.t.n-1) * (w - 3)
}

func (r *timelineRenderer) Layout(s fyne.Size) {
	r.track.Move(fyne.NewPos(0, s.Height/2-3))
	r.track.Resize(fyne.NewSize(s.Width, 6))
	r.ticks = r.ticks[:0]
	for i, rw := range r.t.rewards {
		if rw == 0 {
			continue
		}
		c := theme.Color(theme.ColorNameSuccess)
		y, h := float32(0), s.Height/2
		if rw < 0 {
			c, y = theme.Color(theme.ColorNameError), s.Height/2
		}
		tick := canvas.NewRectangle(c)
		tick.Move(fyne.NewPos(r.x(i, s.Width), y))
		tick.Resize(fyne.NewSize(2, h))
		r.ticks = append(r.ticks, tick)
	}
	for _, i := range r.t.instrAt {
		tick := canvas.NewRectangle(theme.Color(theme.ColorNameHyperlink))
		tick.Move(fyne.NewPos(r.x(i, s.Width), s.Height/2-6))
		tick.Resize(fyne.NewSize(3, 12))
		r.ticks = append(r.ticks, tick)
	}
	r.cursor.Move(fyne.NewPos(r.x(r.t.index, s.Width)-1, 0))
	r.cursor.Resize(fyne.NewSize(4, s.Height))
}
func (r *timelineRenderer) MinSize() fyne.Size { return fyne.NewSize(100, 22) }
func (r *timelineRenderer) Refresh()           { r.Layout(r.t.Size()); canvas.Refresh(r.t) }
func (r *timelineRenderer) Objects() []fyne.CanvasObject {
	return append(append([]fyne.CanvasObject{r.track}, r.ticks...), r.cursor)
}
func (r *timelineRenderer) Destroy() {}

// encodePNG is used by tests and exporters that need a frame as bytes.
func encodePNG(img image.Image) []byte {
	var buf bytes.Buffer
	png.Encode(&buf, img)
	return buf.Bytes()
}

var (
	_ fyne.Focusable  = (*FrameViewer)(nil)
	_ desktop.Keyable = (*FrameViewer)(nil)
	_ fyne.Tappable   = (*FrameViewer)(nil)
	_ fyne.Draggable  = (*timeline)(nil)
)
