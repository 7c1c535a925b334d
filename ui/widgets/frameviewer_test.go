package widgets

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

// frameOf is a solid frame whose red channel encodes i.
func frameOf(i, w, h int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	c := color.RGBA{uint8(i), 100, 200, 255}
	for p := 0; p < len(img.Pix); p += 4 {
		img.Pix[p], img.Pix[p+1], img.Pix[p+2], img.Pix[p+3] = c.R, c.G, c.B, c.A
	}
	return img
}

func viewerEpisode(n, w, h int) *episode.Episode {
	e := &episode.Episode{Source: "test", ExternalID: "viewer"}
	for i := 0; i < n; i++ {
		s := episode.Step{Index: i, Observation: encodePNG(frameOf(i, w, h)),
			Action: episode.Action{Kind: "click", Points: []episode.Point{{X: 0.25, Y: 0.5}}}}
		switch i % 3 {
		case 1:
			s.Action = episode.Action{Kind: "scroll", Points: []episode.Point{{X: 0.5, Y: 0.8}, {X: 0.5, Y: 0.2}}}
		case 2:
			s.Action = episode.Action{Kind: "type", Text: "hello"}
		}
		if i%7 == 6 {
			s.Reward = 1
		}
		if i >= n/2 {
			s.Instruction = "second half"
		}
		e.Steps = append(e.Steps, s)
	}
	return e
}

func shownRed(v *FrameViewer) uint8 {
	img := v.image.Image
	if v.full != nil { // the frame itself, not its display copy
		img = v.full
	}
	r, _, _, _ := img.At(0, 0).RGBA()
	return uint8(r >> 8)
}

func newTestViewer(t *testing.T, e *episode.Episode) (*FrameViewer, fyne.Window) {
	t.Helper()
	test.NewTempApp(t)
	v := NewFrameViewer()
	v.run = uitest.SyncRun
	w := test.NewWindow(v)
	w.Resize(fyne.NewSize(900, 700))
	t.Cleanup(w.Close)
	v.SetEpisode(e, nil)
	w.Canvas().Focus(v)
	return v, w
}

func TestFrameViewerKeyboard(t *testing.T) {
	v, w := newTestViewer(t, viewerEpisode(30, 40, 80))
	key := func(k fyne.KeyName) { w.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: k}) }
	if v.Index() != 0 || shownRed(v) != 0 {
		t.Fatalf("start: index %d, frame %d", v.Index(), shownRed(v))
	}
	key(fyne.KeyRight)
	if v.Index() != 1 || shownRed(v) != 1 {
		t.Fatalf("Right: index %d, frame %d", v.Index(), shownRed(v))
	}
	v.KeyDown(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
	key(fyne.KeyRight)
	v.KeyUp(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
	if v.Index() != 11 || shownRed(v) != 11 {
		t.Fatalf("Shift+Right: index %d", v.Index())
	}
	key(fyne.KeyEnd)
	if v.Index() != 29 {
		t.Fatalf("End: %d", v.Index())
	}
	key(fyne.KeyRight) // stays at the end
	key(fyne.KeyHome)
	key(fyne.KeyLeft) // stays at the start
	if v.Index() != 0 || !strings.Contains(v.position.Text, "step 1 / 30") {
		t.Fatalf("Home: %d %q", v.Index(), v.position.Text)
	}
}

func TestFrameViewerOverlays(t *testing.T) {
	v, _ := newTestViewer(t, viewerEpisode(30, 40, 80))
	count := func() (circles, lines, texts int, text string) {
		for _, o := range v.marks.Objects {
			switch o := o.(type) {
			case *canvas.Circle:
				circles++
			case *canvas.Line:
				lines++
			case *canvas.Text:
				texts++
				text = o.Text
			}
		}
		return
	}
	if c, l, _, _ := count(); c != 1 || l != 0 || !strings.Contains(v.info.Text, "click at (0.25, 0.50)") {
		t.Fatalf("click: %d circles %d lines, %q", c, l, v.info.Text)
	}
	// The touch point sits at its fraction of the drawn frame (contain fit, centred).
	origin, size := v.imageRect()
	circle := v.marks.Objects[1].(*canvas.Circle) // over its halo (Objects[0])
	cx := circle.Position().X + circle.Size().Width/2
	if want := origin.X + 0.25*size.Width; cx < want-1 || cx > want+1 {
		t.Fatalf("touch marker at x=%v, want %v", cx, want)
	}
	v.Seek(1)
	if _, l, _, _ := count(); l != 1 || !strings.Contains(v.info.Text, "scroll at (0.50, 0.80) to (0.50, 0.20)") {
		t.Fatalf("scroll: %d lines, %q", l, v.info.Text)
	}
	v.Seek(2)
	if _, _, n, text := count(); n != 1 || !strings.Contains(text, "hello") {
		t.Fatalf("type: %d texts %q", n, text)
	}
	v.Seek(6)
	if !strings.Contains(v.info.Text, "reward +1") {
		t.Fatalf("reward: %q", v.info.Text)
	}
	v.Seek(20)
	if !strings.Contains(v.instr.Text, "second half") {
		t.Fatalf("instruction: %q", v.instr.Text)
	}
}

// A ring in the accent colour stays visible on any screenshot, its own colour included: its
// halo puts pixels far lighter or darker than the screenshot around it.
func TestFrameViewerMarksReadOnAnyBackground(t *testing.T) {
	test.NewTempApp(t)
	accent := color.NRGBAModel.Convert(theme.Color(theme.ColorNamePrimary)).(color.NRGBA)
	for _, bg := range []color.NRGBA{accent, {255, 255, 255, 255}, {0, 0, 0, 255}} {
		img := image.NewNRGBA(image.Rect(0, 0, 200, 200))
		for p := 0; p < len(img.Pix); p += 4 {
			img.Pix[p], img.Pix[p+1], img.Pix[p+2], img.Pix[p+3] = bg.R, bg.G, bg.B, 255
		}
		e := &episode.Episode{Source: "test", ExternalID: "bg", Steps: []episode.Step{{Observation: encodePNG(img),
			Action: episode.Action{Kind: "click", Points: []episode.Point{{X: 0.5, Y: 0.5}}}}}}
		v, w := newTestViewer(t, e)
		shot := w.Canvas().Capture()
		origin, size := v.imageRect()
		scale := float32(shot.Bounds().Dx()) / w.Canvas().Size().Width
		abs := fyne.CurrentApp().Driver().AbsolutePositionForObject(v.image)
		cx, cy := (abs.X+origin.X+size.Width/2)*scale, (abs.Y+origin.Y+size.Height/2)*scale
		lum := func(c color.Color) int {
			r, g, b, _ := c.RGBA()
			return int((299*r + 587*g + 114*b) / 1000 >> 8)
		}
		base, contrast := lum(bg), 0
		for d := float32(0); d < 30*scale; d++ { // outward from the click point, across the ring
			contrast = max(contrast, absInt(lum(shot.At(int(cx+d), int(cy)))-base))
		}
		if contrast < 100 {
			t.Errorf("ring on %v: the most contrasting pixel differs by %d in luminance", bg, contrast)
		}
	}
}

func absInt(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func TestFrameViewerTimeline(t *testing.T) {
	v, _ := newTestViewer(t, viewerEpisode(30, 40, 80))
	if got := len(v.timeline.instrAt); got != 1 { // one change to "second half" (the first steps have none)
		t.Fatalf("instruction markers %d", got)
	}
	rewards := 0
	for _, r := range v.timeline.rewards {
		if r != 0 {
			rewards++
		}
	}
	if rewards != 4 {
		t.Fatalf("reward markers %d", rewards)
	}
	test.TapAt(v.timeline, fyne.NewPos(v.timeline.Size().Width/2, 5))
	if v.Index() < 13 || v.Index() > 16 {
		t.Fatalf("tapping the middle of the timeline went to %d", v.Index())
	}
}

func TestFrameViewerFilesAndErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.png")
	os.WriteFile(path, encodePNG(frameOf(77, 10, 10)), 0o644)
	e := &episode.Episode{Steps: []episode.Step{{Index: 0, ObservationRef: path}, {Index: 1, ObservationRef: filepath.Join(dir, "missing.png")}, {Index: 2}}}
	v, _ := newTestViewer(t, e)
	if shownRed(v) != 77 {
		t.Fatalf("frame from file: %d", shownRed(v))
	}
	v.Seek(1)
	v.Seek(2) // a step without a frame shows an empty frame, no panic
	if v.Index() != 2 {
		t.Fatal("could not step past missing frames")
	}
}

func TestFrameViewerPlayback(t *testing.T) {
	v, _ := newTestViewer(t, viewerEpisode(30, 8, 8))
	v.speed = 8 // 40 steps a second
	// The test driver has no UI goroutine: playback steps on its own goroutine, so the step on
	// show is observed through OnStep, the pause comes from OnStep (on the goroutine that steps,
	// as a click would come from the UI goroutine), and the viewer is read here only once the
	// playback goroutine has ended.
	var shown atomic.Int64
	v.OnStep(func(i int) {
		shown.Store(int64(i))
		if i == 3 {
			v.Pause()
		}
	})
	v.TogglePlay()
	select {
	case <-v.PlaybackDone():
	case <-time.After(3 * time.Second):
		t.Fatalf("playback did not stop at step 3: step %d", shown.Load())
	}
	time.Sleep(150 * time.Millisecond) // six steps' time at 8x
	if at := shown.Load(); at != 3 || v.Playing() || v.Index() != 3 {
		t.Fatalf("after pausing at step 3: step %d, index %d, playing %v", at, v.Index(), v.Playing())
	}
}

// BenchmarkFrameViewerStep steps through 1080x2400 frames the way a user holding the Right key
// does: the next frame was prefetched while the current one was on show.
func BenchmarkFrameViewerStep(b *testing.B) {
	test.NewTempApp(b)
	e := viewerEpisode(8, 1080, 2400)
	v := NewFrameViewer()
	w := test.NewWindow(v)
	defer w.Close()
	w.Resize(fyne.NewSize(600, 1000))
	v.run = func(f func()) { f() } // prefetch completes before the next step, as it does at human pace
	v.SetEpisode(e, nil)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		v.Seek((i + 1) % len(e.Steps))
	}
}

// BenchmarkDecodeFrame1080x2400 is the cost a cache miss pays.
func BenchmarkDecodeFrame1080x2400(b *testing.B) {
	s := &episode.Step{Observation: encodePNG(frameOf(1, 1080, 2400))}
	for b.Loop() {
		if _, err := LoadStepFrame(s); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFrameViewerMobileEnvOverlays: a lift is marked where the last touch was, the reward and a
// new instruction are drawn over the frame, typed text is spelled out, and the view hierarchy
// is shown indented (and its pane only for episodes that have one).
func TestFrameViewerMobileEnvOverlays(t *testing.T) {
	e := &episode.Episode{Steps: []episode.Step{
		{Index: 0, Observation: encodePNG(frameOf(0, 40, 80)), Action: episode.Action{Kind: "initial"}},
		{Index: 1, Observation: encodePNG(frameOf(1, 40, 80)), Action: episode.Action{Kind: "touch", Points: []episode.Point{{X: 0.5, Y: 0.25}}}},
		{Index: 2, Observation: encodePNG(frameOf(2, 40, 80)), Action: episode.Action{Kind: "lift"}, Reward: 1, Instruction: "Open the article",
			Extra: map[string]any{"view_hierarchy": `<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0"><node text="Search"><node text="Go"/></node></hierarchy>`}},
		{Index: 3, Observation: encodePNG(frameOf(3, 40, 80)), Action: episode.Action{Kind: "text", Text: "lobster"}, Instruction: "Open the article"},
	}}
	v, _ := newTestViewer(t, e)
	texts := func() (out []string, circles []*canvas.Circle) {
		for _, o := range v.marks.Objects {
			switch o := o.(type) {
			case *canvas.Text:
				out = append(out, o.Text)
			case *canvas.Circle:
				circles = append(circles, o)
			}
		}
		return
	}
	// the frame alone until the hierarchy is asked for
	if v.body.Objects[0] != v.frame || v.xmlBtn.Hidden {
		t.Fatal("an episode with view hierarchies: the frame should be alone, with the XML button to show them")
	}
	test.Tap(v.xmlBtn)
	if v.body.Objects[0] != v.split || !v.HierarchyShown() {
		t.Fatal("the XML button did not show the hierarchy pane")
	}
	v.Seek(2)
	got, circles := texts()
	joined := strings.Join(got, "|")
	if len(circles) != 1 || !strings.Contains(joined, "lift") || !strings.Contains(joined, "reward +1") || strings.Contains(joined, "Instruction") {
		t.Fatalf("lift step: %d circles, texts %q (the instruction goes under the frame, not over it)", len(circles), got)
	}
	if _, instr := v.Captions(); !strings.Contains(instr, "Instruction: Open") {
		t.Fatalf("the instruction is not under the frame: %q", instr)
	}
	origin, size := v.imageRect()
	c := circles[0]
	if cx, cy := c.Position().X+c.Size().Width/2, c.Position().Y+c.Size().Height/2; abs32(cx-(origin.X+0.5*size.Width)) > 1 || abs32(cy-(origin.Y+0.25*size.Height)) > 1 {
		t.Fatalf("lift marked at (%v, %v), want the touch point", cx, cy)
	}
	if !strings.Contains(v.hierarchy.Text, "\n  <node text=\"Search\">\n    <node text=\"Go\">") || v.hierarchy.Hidden {
		t.Fatalf("view hierarchy not indented: %q", v.hierarchy.Text)
	}
	v.Seek(3)
	got, _ = texts()
	joined = strings.Join(got, "|")
	if !strings.Contains(joined, "Typed: lobster") || strings.Contains(joined, "Instruction:") || strings.Contains(joined, "reward") {
		t.Fatalf("text step (instruction unchanged, no reward): %q", got)
	}
	if !v.hierarchy.Hidden || v.noHier.Hidden {
		t.Fatal("a step without a view hierarchy still shows one")
	}

	// no step with a hierarchy: the frame alone
	v.SetEpisode(viewerEpisode(3, 8, 8), nil)
	if v.body.Objects[0] != v.frame || !v.xmlBtn.Hidden {
		t.Fatal("the hierarchy pane (or its button) is shown for an episode without hierarchies")
	}
}

func abs32(f float32) float32 {
	if f < 0 {
		return -f
	}
	return f
}

// TestFrameViewerDisplayCopy: a frame larger than the image area reaches fyne already scaled to
// the area's pixel size (fyne would otherwise resample it with Catmull-Rom on every frame
// shown), aspect kept and centred, made again when the area changes size.
func TestFrameViewerDisplayCopy(t *testing.T) {
	e := viewerEpisode(3, 1080, 2400)
	v, w := newTestViewer(t, e)
	w.Resize(fyne.NewSize(500, 900))
	v.Seek(1)
	area := v.image.Size()
	shown := v.image.Image.Bounds().Size()
	if shown.X != int(area.Width+0.5) || shown.Y != int(area.Height+0.5) {
		t.Fatalf("image handed to fyne is %v, the area %v", shown, area)
	}
	if v.imgSize != image.Pt(1080, 2400) || shownRed(v) != 1 {
		t.Fatalf("frame size %v, red %d", v.imgSize, shownRed(v))
	}
	// the frame's centre has the frame's colour, the letterbox is transparent
	c := v.image.Image.At(shown.X/2, shown.Y/2).(color.RGBA)
	if c.R != 1 || c.G != 100 || c.B != 200 || c.A != 255 {
		t.Fatalf("centre %v", c)
	}
	origin, size := v.imageRect()
	if origin.X > 1 { // a tall frame in a wider area: bars left and right
		if _, _, _, a := v.image.Image.At(0, shown.Y/2).RGBA(); a != 0 {
			t.Fatal("letterbox not transparent")
		}
	}
	if size.Height < area.Height-1 && size.Width < area.Width-1 {
		t.Fatalf("frame %v does not fill the area %v in either direction", size, area)
	}
	w.Resize(fyne.NewSize(400, 700))
	if got, area := v.image.Image.Bounds().Size(), v.image.Size(); got.X != int(area.Width+0.5) || got.Y != int(area.Height+0.5) {
		t.Fatalf("after a resize: image %v, area %v", got, area)
	}
	// a frame smaller than the area is handed over as it is (the GPU scales it up)
	v.SetEpisode(viewerEpisode(2, 20, 30), nil)
	if v.image.Image.Bounds().Size() != image.Pt(20, 30) {
		t.Fatalf("small frame shown as %v", v.image.Image.Bounds())
	}
}

func TestBoxScaleMeans(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 4, 2))
	for x := 0; x < 4; x++ {
		for y := 0; y < 2; y++ {
			src.SetRGBA(x, y, color.RGBA{uint8(x * 40), uint8(y * 100), 7, 255})
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, 2, 1))
	boxScale(dst, dst.Rect, src)
	// left pixel: x 0,1 (0, 40) y 0,1 (0, 100) → R 20, G 50
	if got := dst.RGBAAt(0, 0); got != (color.RGBA{20, 50, 7, 255}) {
		t.Fatalf("left %v", got)
	}
	if got := dst.RGBAAt(1, 0); got != (color.RGBA{100, 50, 7, 255}) {
		t.Fatalf("right %v", got)
	}
}

func TestFrameCacheIsBoundedByBytes(t *testing.T) {
	// Phone screenshots decode to 10 MB each: the cache keeps as many as its byte budget holds,
	// most recently used first, and always the frame just put.
	c := newFrameCache(frameCacheBytes)
	phone := func() image.Image { return image.NewRGBA(image.Rect(0, 0, 1080, 2400)) }
	for i := 0; i < 40; i++ {
		c.put(i, phone())
		c.get(0) // frame 0 stays in use
	}
	perFrame := 1080 * 2400 * 4
	if c.bytes > frameCacheBytes || c.order.Len() != frameCacheBytes/perFrame {
		t.Fatalf("cache holds %d frames, %d bytes (budget %d bytes = %d frames)", c.order.Len(), c.bytes, frameCacheBytes, frameCacheBytes/perFrame)
	}
	if _, ok := c.get(0); !ok {
		t.Fatal("the frame in use was evicted")
	}
	if _, ok := c.get(39); !ok {
		t.Fatal("the newest frame was evicted")
	}
	if _, ok := c.get(1); ok {
		t.Fatal("an old frame survived")
	}
	// Small frames: many fit.
	small := newFrameCache(frameCacheBytes)
	for i := 0; i < 200; i++ {
		small.put(i, image.NewRGBA(image.Rect(0, 0, 64, 64)))
	}
	if small.order.Len() != 200 {
		t.Fatalf("small frames kept: %d of 200", small.order.Len())
	}
	// A frame larger than the whole budget is still kept while it is the newest.
	tiny := newFrameCache(1 << 20)
	tiny.put(0, phone())
	tiny.put(1, phone())
	if _, ok := tiny.get(1); !ok || tiny.order.Len() != 1 {
		t.Fatalf("over-budget newest frame: kept=%v, %d frames", ok, tiny.order.Len())
	}
	// Replacing a frame accounts for the old image's bytes.
	tiny.put(1, image.NewRGBA(image.Rect(0, 0, 10, 10)))
	if tiny.bytes != 400 {
		t.Fatalf("bytes after replacing a frame = %d, want 400", tiny.bytes)
	}
	// Decoded JPEGs (YCbCr) count their planes.
	ycc := image.NewYCbCr(image.Rect(0, 0, 100, 100), image.YCbCrSubsampleRatio420)
	if got, want := imageBytes(ycc), 100*100+2*50*50; got != want {
		t.Fatalf("imageBytes(YCbCr 4:2:0 100x100) = %d, want %d", got, want)
	}
}

// encodePNG encodes a test frame.
func encodePNG(img image.Image) []byte {
	var buf bytes.Buffer
	png.Encode(&buf, img)
	return buf.Bytes()
}

func TestActionTextBadge(t *testing.T) {
	for _, c := range []struct {
		a    episode.Action
		want string
	}{
		{episode.Action{Kind: "type", Text: "pancakes"}, "Typed: pancakes"},
		{episode.Action{Kind: "scroll", Text: "up"}, "scroll: up"},
		{episode.Action{Kind: "press_key", Text: "enter"}, "press key: enter"},
	} {
		if got := actionTextBadge(c.a); got != c.want {
			t.Errorf("%+v: %q, want %q", c.a, got, c.want)
		}
	}
}
