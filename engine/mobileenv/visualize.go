package mobileenv

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Frame drawing (spec §B.2). The original draws with Pillow 9.4 and Noto Sans CJK Bold (face 0,
// the JP variant) at 50 px. The package embeds a subset of that very font (fonts/, SIL Open Font
// License: Latin, Latin-1, Latin Extended-A and common punctuation, with its hinting and its
// kerning and ligature tables, so FreeType renders it exactly as the full font); text is laid
// out and rasterised like Pillow in textrender.go. Characters outside the subset fall back to Go
// Bold (golang.org/x/image/font/gofont). For CJK text pass the full font in FrameOptions.Font
// (a .otf/.ttf, or a .ttc whose first face is used).

//go:embed fonts/NotoSansCJKjp-Bold-Latin.otf
var notoLatinOTF []byte

const notoSize = 50.0 // the original's font size in pixels

// FrameOptions tunes frame drawing.
type FrameOptions struct {
	NoMarks bool // --no-marks: no touch ellipses or text box on the screen
	NoDescp bool // --no-descp: the bare W×H screen, no text below
	// NumericLabels prints LIFT/REPEAT/ADB as "1", "2", "4" (Python ≥ 3.11) instead of
	// "ActionType.LIFT" (Python ≤ 3.10, the tool as deployed).
	NumericLabels bool
	// Strict rejects observations that are not uint8 RGB (as the original does); otherwise
	// float observations are converted.
	Strict bool
	// Font replaces the embedded Noto Sans CJK Bold subset: TrueType/OpenType data or a
	// collection (first face), e.g. the full NotoSansCJK-Bold.ttc for CJK text.
	Font []byte
	// Size is the font size in pixels (0: 50, the original's).
	Size float64
}

// Box is an inclusive pixel box (x0, y0, x1, y1) as Pillow reports it.
type Box [4]int

// TextLine is one line of the description.
type TextLine struct {
	Text   string
	Anchor image.Point
	Box    Box // ink box used for the next line's placement
	Color  color.RGBA
}

// FrameLayout reports what RenderFrame drew, for tests and the frame viewer.
type FrameLayout struct {
	W, H         int
	Lines        []TextLine // title, action, [instruction], [reward]
	Action       string
	TouchOuter   *Box
	TouchInner   *Box
	TextMarkRect *Box
	TextMarkText *TextLine
}

// rendererKey names a text renderer: the font's bytes (by address and length: the caller's
// FrameOptions.Font, or the embedded font) and the size.
type rendererKey struct {
	font *byte
	n    int
	size float64
}

var (
	rendererMu    sync.Mutex
	rendererCache = map[rendererKey]*textRenderer{}
)

// newTextRenderer returns the (shared) text renderer for the options' font and size.
func newTextRenderer(opts FrameOptions) (*textRenderer, error) {
	data := opts.Font
	size := notoSize
	if opts.Size > 0 {
		size = opts.Size
	}
	if data == nil {
		data = notoLatinOTF
	}
	key := rendererKey{n: len(data), size: size}
	if len(data) > 0 { // an empty font has no address; newPillowText refuses it
		key.font = &data[0]
	}
	rendererMu.Lock()
	defer rendererMu.Unlock()
	if r, ok := rendererCache[key]; ok {
		return r, nil
	}
	r, err := newPillowText(data, size)
	if err != nil {
		return nil, fmt.Errorf("frame font: %w", err)
	}
	rendererCache[key] = r
	return r, nil
}

// blend is Pillow's alpha blend of one channel: ((v+128)>>8 + (v+128))>>8, v = dst(255−a)+src·a.
func blend(dst, src, a uint8) uint8 {
	v := int(dst)*(255-int(a)) + int(src)*int(a)
	return uint8(((v+128)>>8 + (v + 128)) >> 8)
}

func fillRect(img *image.RGBA, b Box, c color.RGBA) {
	if c.A == 0 {
		return
	}
	t := newBlendTable(c, c.A)
	for y := b[1]; y <= b[3]; y++ {
		t.span(img, b[0], b[2], y)
	}
}

// blendTable blends one colour at one alpha: per channel, the result for every destination
// value (the same arithmetic as blend, looked up instead of computed per pixel).
type blendTable struct{ r, g, b [256]uint8 }

func newBlendTable(c color.RGBA, a uint8) *blendTable {
	t := &blendTable{}
	for v := 0; v < 256; v++ {
		t.r[v] = blend(uint8(v), c.R, a)
		t.g[v] = blend(uint8(v), c.G, a)
		t.b[v] = blend(uint8(v), c.B, a)
	}
	return t
}

// span blends pixels x0..x1 (inclusive) of row y, clipped to the image.
func (t *blendTable) span(img *image.RGBA, x0, x1, y int) {
	r := img.Rect
	if y < r.Min.Y || y >= r.Max.Y {
		return
	}
	x0, x1 = max(x0, r.Min.X), min(x1, r.Max.X-1)
	if x0 > x1 {
		return
	}
	o := img.PixOffset(x0, y)
	row := img.Pix[o : o+4*(x1-x0+1)]
	for i := 0; i+3 < len(row); i += 4 {
		p := row[i : i+3 : i+3]
		p[0], p[1], p[2] = t.r[p[0]], t.g[p[1]], t.b[p[2]]
	}
}

// fillEllipse fills the ellipse inscribed in the inclusive box like Pillow ≥ 8.2: a quarter of
// the ellipse is traced in doubled coordinates with a Bresenham-like walk and mirrored.
func fillEllipse(img *image.RGBA, b Box, c color.RGBA) {
	x0, y0 := b[0], b[1]
	a, bb := b[2]-b[0], b[3]-b[1]
	if a < 0 || bb < 0 {
		return
	}
	a2, b2 := int64(a)*int64(a), int64(bb)*int64(bb)
	a2b2 := a2 * b2
	delta := func(x, y int64) int64 {
		d := a2*y*y + b2*x*x - a2b2
		if d < 0 {
			return -d
		}
		return d
	}
	// walk from (a, b%2) to (a%2, b)
	cx, cy := a, bb%2
	ex, ey := a%2, bb
	rows := map[int]int{} // doubled y → first (largest) doubled x
	var order []int
	for {
		if _, ok := rows[cy]; !ok {
			rows[cy] = cx
			order = append(order, cy)
		}
		if cx == ex && cy == ey {
			break
		}
		nx, ny := cx, cy+2
		nd := delta(int64(nx), int64(ny))
		if nx > 1 {
			if d := delta(int64(cx-2), int64(cy+2)); nd > d {
				nx, ny, nd = cx-2, cy+2, d
			}
			if d := delta(int64(cx-2), int64(cy)); nd > d {
				nx, ny = cx-2, cy
			}
		}
		cx, cy = nx, ny
	}
	if c.A == 0 {
		return
	}
	t := newBlendTable(c, c.A)
	hline := func(xa, y, xb int) { t.span(img, xa, xb, y) }
	for _, y := range order {
		r := rows[y]
		left := x0 + (a-r)/2
		right := x0 + (a+r)/2
		hline(left, y0+(bb+y)/2, right)
		if y > 0 {
			hline(left, y0+(bb-y)/2, right)
		}
	}
}

// ActionLabel is the label of a record's action as the visualiser prints it.
func ActionLabel(rec *Dict, w, h int, numeric bool) (string, error) {
	at, ok := rec.Get("action_type")
	if !ok {
		return "", &PyError{"KeyError", "'action_type'"}
	}
	a, ok := AsInt(at)
	if !ok {
		return "", fmt.Errorf("action_type is %s", TypeName(at))
	}
	switch a {
	case ActionText:
		tok, _ := rec.Get("input_token")
		return "TEXT(" + valueText(tok) + ")", nil
	case ActionTouch:
		x, y, err := touchPixels(rec, w, h)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("TOUCH(%.2f, %.2f)", x, y), nil
	}
	if numeric {
		return fmt.Sprint(a), nil
	}
	if n, ok := actionNames[a]; ok {
		return "ActionType." + n, nil
	}
	return "", &PyError{"ValueError", fmt.Sprintf("%d is not a valid ActionType", a)}
}

func touchPixels(rec *Dict, w, h int) (float64, float64, error) {
	tp, ok := rec.Get("touch_position")
	if !ok {
		return 0, 0, &PyError{"KeyError", "'touch_position'"}
	}
	arr, ok := tp.(*NDArray)
	if !ok || arr.Len() < 2 {
		return 0, 0, fmt.Errorf("touch_position is %s", TypeName(tp))
	}
	xy := arr.Floats()
	return xy[0] * float64(w), xy[1] * float64(h), nil
}

// RenderFrame draws one step record like the original visualiser: the observation with the
// action marks and, below it, the task definition id, the action label, the instruction (red)
// and a positive reward (green).
func RenderFrame(tid string, rec *Dict, opts FrameOptions) (*image.RGBA, FrameLayout, error) {
	return renderFrame(tid, rec, opts, nil)
}

// renderFrame is RenderFrame drawing into buf's memory when it is large enough (the export
// reuses one buffer per worker: a phone-sized frame is 12 MB, and a new one costs clearing it).
// The screen is written straight into the top of the canvas, and the marks are drawn on that
// part alone (clipped to the screen, as the original draws them on the screen image before
// pasting it).
func renderFrame(tid string, rec *Dict, opts FrameOptions, buf []byte) (*image.RGBA, FrameLayout, error) {
	var lay FrameLayout
	obs, ok := rec.Get("observation")
	if !ok {
		return nil, lay, &PyError{"KeyError", "'observation'"}
	}
	if opts.Strict {
		if err := PillowObservationError(obs); err != nil {
			return nil, lay, err
		}
	}
	arr, h, w, err := observationArray(obs)
	if err != nil {
		return nil, lay, err
	}
	lay.W, lay.H = w, h
	ch := h
	if !opts.NoDescp {
		ch = h + 400
	}
	canvas := rgbaIn(buf, image.Rect(0, 0, w, ch))
	if err := putObservation(canvas, arr, true); err != nil {
		return nil, lay, err
	}
	screen := canvas.SubImage(image.Rect(0, 0, w, h)).(*image.RGBA)
	tr, err := newTextRenderer(opts)
	if err != nil {
		return nil, lay, err
	}
	label, err := ActionLabel(rec, w, h, opts.NumericLabels)
	if err != nil {
		return nil, lay, err
	}
	lay.Action = label
	if !opts.NoMarks {
		if err := drawMarks(screen, rec, w, h, tr, &lay); err != nil {
			return nil, lay, err
		}
	}
	if opts.NoDescp {
		return canvas, lay, nil
	}
	fillWhite(canvas.Pix[4*w*h:])
	if lay.Lines, err = drawDescription(canvas, tid, label, rec, h, tr); err != nil {
		return nil, lay, err
	}
	return canvas, lay, nil
}

// textMarkGeometry is the TEXT action's mark on a w×h screen: the grey box, where the token is
// centred, the token.
func textMarkGeometry(rec *Dict, w, h int) (Box, [2]float64, string) {
	fw, fh := float64(w), float64(h)
	tok, _ := rec.Get("input_token")
	return Box{int(fw / 5), int(0.75 * fh), int(0.8 * fw), int(0.9375 * fh)}, [2]float64{fw / 2, 0.84375 * fh}, valueText(tok)
}

// touchMarkGeometry is the TOUCH action's two ellipses.
func touchMarkGeometry(rec *Dict, w, h int) (outer, inner Box) {
	x, y, _ := touchPixels(rec, w, h)
	return Box{int(x - 50), int(y - 50), int(x + 50), int(y + 50)}, Box{int(x - 20), int(y - 20), int(x + 20), int(y + 20)}
}

// drawMarks draws the action's marks on the screen (or on the band of it that holds the rows
// they touch: drawing clips to screen's rectangle).
func drawMarks(screen *image.RGBA, rec *Dict, w, h int, tr *textRenderer, lay *FrameLayout) error {
	at, _ := rec.Get("action_type")
	a, _ := AsInt(at)
	switch a {
	case ActionText:
		r, center, s := textMarkGeometry(rec, w, h)
		fillRect(screen, r, color.RGBA{135, 135, 135, 127})
		lay.TextMarkRect = &r
		// ImageDraw.text((W/2, 0.84375H), token, fill=(0, 0, 0, 229), anchor="mm")
		ink := color.RGBA{0, 0, 0, 229}
		box, err := tr.drawText(screen, center, s, "mm", ink)
		if err != nil {
			return err
		}
		lay.TextMarkText = &TextLine{Text: s, Anchor: image.Pt(int(center[0]), int(center[1])), Box: box, Color: ink}
	case ActionTouch:
		outer, inner := touchMarkGeometry(rec, w, h)
		fillEllipse(screen, outer, color.RGBA{255, 175, 175, 76})
		fillEllipse(screen, inner, color.RGBA{255, 175, 175, 153})
		lay.TouchOuter, lay.TouchInner = &outer, &inner
	}
	return nil
}

// drawDescription draws the text lines below an h-row screen on canvas (white there).
func drawDescription(canvas *image.RGBA, tid, label string, rec *Dict, h int, tr *textRenderer) ([]TextLine, error) {
	lines := []TextLine{{Text: tid, Color: color.RGBA{0, 0, 0, 255}}, {Text: label, Color: color.RGBA{0, 0, 0, 255}}}
	if in, ok := rec.Get("instruction"); ok {
		lines = append(lines, TextLine{Text: InstructionText(in), Color: color.RGBA{255, 0, 0, 255}})
	}
	if rv, ok := rec.Get("reward"); ok {
		if r, ok := AsFloat(rv); ok && r > 0 {
			lines = append(lines, TextLine{Text: "Reward: +" + pyFormatFixed1(r), Color: color.RGBA{0, 255, 0, 255}})
		}
	}
	// each line at (10, y) with the default "la" anchor, the next one 10 px below the bottom
	// of its textbbox
	y := h + 10
	for i := range lines {
		ln := &lines[i]
		ln.Anchor = image.Pt(10, y)
		box, err := tr.drawText(canvas, [2]float64{10, float64(y)}, ln.Text, "la", ln.Color)
		if err != nil {
			return nil, err
		}
		ln.Box = box
		y = ln.Box[3] + 10
	}
	return lines, nil
}

// frameBands is an annotated frame kept in parts for the JPEG encoder: the observation's rows
// as recorded (packed RGB), band the screen rows the marks are drawn on, desc the description
// below the screen. A phone screen is mostly rows no mark touches: they are encoded straight
// from the pickle's array, never copied or converted.
type frameBands struct {
	w, h int
	obs  []byte
	band *image.RGBA // rows band.Rect.Min.Y to Max.Y of the screen, or nil
	desc *image.RGBA // rows h to h+400
}

// renderFrameBands draws rec as renderFrame does, into parts (reusing bandBuf and descBuf);
// ok is false, and nothing is drawn, for frames the whole-canvas path draws (not a C-order
// uint8 H×W×3 observation, no description, a record renderFrame reports an error for, text
// reaching above the description area).
func renderFrameBands(tid string, rec *Dict, opts FrameOptions, bandBuf, descBuf []byte) (f *frameBands, ok bool) {
	obs, _ := rec.Get("observation")
	arr, isArr := obs.(*NDArray)
	if !isArr || opts.NoDescp || arr.Fortran || arr.DType.Kind != 'u' || arr.DType.Size != 1 || len(arr.Shape) != 3 || arr.Shape[2] != 3 {
		return nil, false
	}
	h, w := arr.Shape[0], arr.Shape[1]
	if w <= 0 || h <= 0 || len(arr.Data) < h*w*3 {
		return nil, false
	}
	tr, err := newTextRenderer(opts)
	if err != nil {
		return nil, false
	}
	label, err := ActionLabel(rec, w, h, opts.NumericLabels)
	if err != nil {
		return nil, false
	}
	f = &frameBands{w: w, h: h, obs: arr.Data[:h*w*3]}
	// the screen rows the marks can touch, with a margin for the text's ink
	y0, y1 := 0, 0
	if !opts.NoMarks {
		at, _ := rec.Get("action_type")
		a, _ := AsInt(at)
		switch a {
		case ActionText:
			r, center, s := textMarkGeometry(rec, w, h)
			tb, err := tr.textBBox(center, s, "mm")
			if err != nil {
				return nil, false
			}
			y0, y1 = min(r[1], tb[1])-4, max(r[3], tb[3])+5
		case ActionTouch:
			outer, _ := touchMarkGeometry(rec, w, h)
			y0, y1 = outer[1], outer[3]+1
		}
	}
	y0, y1 = max(y0, 0), min(y1, h)
	var lay FrameLayout
	if y1 > y0 {
		f.band = rgbaIn(bandBuf, image.Rect(0, y0, w, y1))
		rgbToRGBA(f.band.Pix, f.obs[y0*w*3:y1*w*3])
		if err := drawMarks(f.band, rec, w, h, tr, &lay); err != nil {
			return nil, false
		}
	}
	f.desc = rgbaIn(descBuf, image.Rect(0, h, w, h+400))
	fillWhite(f.desc.Pix)
	lines, err := drawDescription(f.desc, tid, label, rec, h, tr)
	if err != nil {
		return nil, false
	}
	for _, ln := range lines {
		if ln.Box[1] < h {
			return nil, false
		}
	}
	return f, true
}

// rgbaIn is an RGBA image of rectangle r in buf's memory when it is large enough.
func rgbaIn(buf []byte, r image.Rectangle) *image.RGBA {
	if n := 4 * r.Dx() * r.Dy(); cap(buf) >= n {
		return &image.RGBA{Pix: buf[:n], Stride: 4 * r.Dx(), Rect: r}
	}
	return image.NewRGBA(r)
}

// fillWhite sets every byte of p to 255, doubling the copied part (memmove speed).
func fillWhite(p []byte) {
	if len(p) == 0 {
		return
	}
	p[0] = 255
	for n := 1; n < len(p); n *= 2 {
		copy(p[n:], p[:n])
	}
}

// pyFormatFixed1 is Python's f"{x:.1f}" (correctly rounded, half to even on the exact value).
func pyFormatFixed1(x float64) string { return fmt.Sprintf("%.1f", x) }

// VisualizeOptions tunes Visualize and Video.
type VisualizeOptions struct {
	FrameOptions
	// SafeNames names trajectory folders "<tid>_<i>of<n>_len<L>" instead of the original
	// "<tid>:<i>%<n>#<L>" (whose characters are not portable to Windows).
	SafeNames bool
	// PNG writes lossless <j>.png frames instead of the original JPEG (quality 75, 4:2:0).
	PNG bool
	// Stdout receives the folder paths as the original prints them (nil: discarded).
	Stdout io.Writer
	// Workers is how many frames are drawn and encoded at once (0: one per core).
	Workers int
	// Warn receives warnings (nil: discarded): observations the original would reject (not
	// uint8 RGB) are converted, and said so once.
	Warn io.Writer
	// Data, when not nil, is the file's content, used instead of reading pklPath (which then
	// only names it in messages): an editor exports the file as it shows it, unsaved edits
	// included, and gets what the command line gives once they are saved.
	Data []byte
	// Progress, when not nil, is told after each frame is written: the frames written so far
	// and the file's total (the records after the first of every trajectory). Calls come from
	// the drawing goroutines one at a time, done growing by one each call; it must not block.
	Progress func(done, total int)
}

// PillowObservationError is the error the original visualiser raises for an observation it
// cannot turn into an image (`height, width, _ = obs.shape`, then Pillow's Image.fromarray,
// which takes only uint8 arrays with 2 to 4 channels), nil for one it takes.
func PillowObservationError(obs any) error {
	a, ok := obs.(*NDArray)
	if !ok {
		return &PyError{"AttributeError", fmt.Sprintf("'%s' object has no attribute 'shape'", TypeName(obs))}
	}
	switch n := len(a.Shape); {
	case n < 3:
		return &PyError{"ValueError", fmt.Sprintf("not enough values to unpack (expected 3, got %d)", n)}
	case n > 3:
		return &PyError{"ValueError", "too many values to unpack (expected 3)"}
	}
	if a.DType.Kind == 'u' && a.DType.Size == 1 && a.Shape[2] >= 2 && a.Shape[2] <= 4 {
		return nil
	}
	return &PyError{"TypeError", fmt.Sprintf("Cannot handle this data type: (1, 1, %d), %s", a.Shape[2], numpyTypestr(a.DType))}
}

// numpyTypestr is numpy's __array_interface__ typestr of a dtype: byte order ('|' for one
// byte, else '<' or '>'), kind and size, e.g. "<f4", "|u1".
func numpyTypestr(d *DType) string {
	order := byte('<')
	switch {
	case d.Size == 1:
		order = '|'
	case d.Endian == '>':
		order = '>'
	}
	return fmt.Sprintf("%c%c%d", order, d.Kind, d.Size)
}

// NumericLabels says whether a Python version ("3.11", "3.8", or as in folder names "py311",
// "py38") prints the action enum as its number, as 3.11 and later do (FrameOptions.NumericLabels).
func NumericLabels(version string) (bool, error) {
	v := strings.TrimPrefix(strings.TrimSpace(version), "py")
	var major, minor int
	if a, b, ok := strings.Cut(v, "."); ok {
		major, _ = strconv.Atoi(a)
		minor, _ = strconv.Atoi(b)
	} else if len(v) >= 2 {
		major, _ = strconv.Atoi(v[:1])
		minor, _ = strconv.Atoi(v[1:])
	}
	if major < 3 {
		return false, fmt.Errorf("python version %q: want a Python 3 version such as 3.8 or 3.11", version)
	}
	return major > 3 || minor >= 11, nil
}

// FolderName is the folder of trajectory i of n with L records.
func FolderName(tid string, i, n, l int, safe bool) string {
	if safe {
		return fmt.Sprintf("%s_%dof%d_len%d", tid, i, n, l)
	}
	return fmt.Sprintf("%s:%d%%%d#%d", tid, i, n, l)
}

// Visualize exports every trajectory of a resaved file as annotated frames (the original
// `visualize_pickle.py [--no-marks] [--no-descp] PKL_PATH VIDEO_PATH`). Only the first pickle
// is read; each trajectory gets a new folder under videoPath (created with parents; an
// existing folder is an error, FileExistsError in the original); record j ≥ 1 is saved as
// <j>.jpg. It returns the folders in order.
func Visualize(pklPath, videoPath string, opts VisualizeOptions) ([]string, error) {
	return VisualizeContext(context.Background(), pklPath, videoPath, opts)
}

// VisualizeContext is Visualize stopped by ctx: once ctx is done no further frame is started
// (frames being written are finished), the folders of the trajectories not written completely
// are removed again, and it returns the complete folders, in order, with ctx's error. So
// every folder a cancelled export leaves holds all its trajectory's frames.
func VisualizeContext(ctx context.Context, pklPath, videoPath string, opts VisualizeOptions) ([]string, error) {
	var p Pickle
	var err error
	if opts.Data != nil {
		p, _, err = decodeOne(pklPath, opts.Data, 0)
	} else {
		p, err = ReadFirst(pklPath)
	}
	if err != nil {
		return nil, pyOSError(err)
	}
	root, ok := p.Value.(*Dict)
	if !ok {
		return nil, fmt.Errorf("%s: not a resaved annotation file", pklPath)
	}
	metaV, _ := root.Get("meta")
	meta, ok := metaV.(*Dict)
	if !ok {
		return nil, fmt.Errorf("%s: %w (the file's top-level dict has no \"meta\" dict)", pklPath, &PyError{"KeyError", "'meta'"})
	}
	tid := str(meta, "task_definition_id")
	tv, _ := root.Get("trajectories")
	trajs, ok := tv.(*List)
	if !ok {
		return nil, fmt.Errorf("%s: %w (the file's top-level dict has no \"trajectories\" list)", pklPath, &PyError{"KeyError", "'trajectories'"})
	}
	out := opts.Stdout
	if out == nil {
		out = io.Discard
	}
	x := newFrameExportContext(ctx, tid, out, opts)
	for _, t := range trajs.Items {
		if traj, ok := t.(*List); ok {
			x.total += max(len(traj.Items)-1, 0)
		}
	}
	for i, t := range trajs.Items {
		traj, ok := t.(*List)
		if !ok {
			x.stop(fmt.Errorf("trajectory %d is %s", i, TypeName(t)))
			break
		}
		if x.failed() {
			break
		}
		if err := ctx.Err(); err != nil {
			x.cancelled(err)
			break
		}
		name := FolderName(tid, i, len(trajs.Items), len(traj.Items), opts.SafeNames)
		folder := joinPy(videoPath, name)
		if err := os.MkdirAll(videoPath, 0o755); err != nil {
			x.stop(err)
			break
		}
		if err := os.Mkdir(folder, 0o755); err != nil {
			if errors.Is(err, fs.ErrExist) {
				err = &PyError{"FileExistsError", fmt.Sprintf("[Errno 17] File exists: %s", pyQuote(folder))}
			}
			x.stop(err)
			break
		}
		x.add(i, folder, traj)
	}
	return x.finish()
}

// frameExport draws and saves the frames of every trajectory on one pool of workers (one per
// core): frames are independent, and a file of many short trajectories keeps every core busy
// while the next folder is made (the original does one frame after another). What it leaves is
// what the original leaves: folders are printed in order, each once the trajectory before it
// is written; when a record cannot be drawn the error is the one of the first such record in
// the original's order, frames after it are not started, and folders made ahead for later
// trajectories are removed again.
type frameExport struct {
	ctx   context.Context
	tid   string
	out   io.Writer
	opts  VisualizeOptions
	jobs  chan frameJob
	wg    sync.WaitGroup
	total int // frames of the file, for opts.Progress

	mu      sync.Mutex
	folders []string // made, in order
	left    []int    // frames still to write, per trajectory
	records []int    // records per trajectory
	printed int      // folders printed
	failAt  [2]int   // first failing (trajectory, record) in the original's order
	failErr error
	stopErr error // a trajectory could not be started (its folder, or not a list): why
	stopAt  int   // that trajectory
	warned  atomic.Bool
	done    int // frames written
	// cancelErr is ctx's error once a frame or trajectory was skipped because ctx was done
	cancelErr error
}

// warnObservation says once that observations the original rejects are being converted.
func (x *frameExport) warnObservation(rec *Dict) {
	if x.opts.Warn == nil || x.opts.Strict || x.warned.Load() {
		return // said once is enough: no check on every later frame
	}
	obs, _ := rec.Get("observation")
	if err := PillowObservationError(obs); err != nil && x.warned.CompareAndSwap(false, true) {
		what := TypeName(obs)
		if a, ok := obs.(*NDArray); ok {
			what = fmt.Sprintf("%s arrays of shape %v", numpyTypestr(a.DType), a.Shape)
		}
		fmt.Fprintf(x.opts.Warn, "warning: the observations are %s, which the original visualiser rejects (%s); converted to 8-bit RGB (--compat refuses them as it does)\n", what, PyErrorLine(err))
	}
}

type frameJob struct {
	traj, rec int
	item      any
	folder    string
}

func newFrameExport(tid string, out io.Writer, opts VisualizeOptions) *frameExport {
	return newFrameExportContext(context.Background(), tid, out, opts)
}

// newFrameExportContext is newFrameExport stopped by ctx (see VisualizeContext).
func newFrameExportContext(ctx context.Context, tid string, out io.Writer, opts VisualizeOptions) *frameExport {
	workers := max(1, runtime.GOMAXPROCS(0))
	if opts.Workers > 0 {
		workers = opts.Workers
	}
	x := &frameExport{ctx: ctx, tid: tid, out: out, opts: opts, jobs: make(chan frameJob, 2*workers), failAt: [2]int{math.MaxInt, math.MaxInt}}
	for w := 0; w < workers; w++ {
		x.wg.Add(1)
		go x.work()
	}
	return x
}

// before reports whether (t, j) comes before the first failing record (under x.mu).
func (x *frameExport) before(t, j int) bool {
	return t < x.failAt[0] || (t == x.failAt[0] && j < x.failAt[1])
}

func (x *frameExport) failed() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.failErr != nil
}

// add hands trajectory i's frames (its folder made) to the workers.
func (x *frameExport) add(i int, folder string, traj *List) {
	x.mu.Lock()
	x.folders = append(x.folders, folder)
	x.left = append(x.left, max(len(traj.Items)-1, 0))
	x.records = append(x.records, len(traj.Items))
	x.flush()
	x.mu.Unlock()
	for j := 1; j < len(traj.Items); j++ {
		x.mu.Lock()
		ok := x.before(i, j)
		x.mu.Unlock()
		if !ok {
			return
		}
		select {
		case x.jobs <- frameJob{traj: i, rec: j, item: traj.Items[j], folder: folder}:
		case <-x.ctx.Done():
			x.cancelled(x.ctx.Err())
			return
		}
	}
}

// cancelled records that work was skipped because the context is done.
func (x *frameExport) cancelled(err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.cancelErr == nil {
		x.cancelErr = err
	}
}

// stop ends the export before trajectory len(folders).
func (x *frameExport) stop(err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.stopErr, x.stopAt = err, len(x.folders)
}

// flush prints, in order, the folders whose previous trajectory is written (under x.mu).
func (x *frameExport) flush() {
	for x.printed < len(x.folders) && x.printed <= x.failAt[0] && (x.printed == 0 || x.left[x.printed-1] == 0) {
		fmt.Fprintln(x.out, x.folders[x.printed])
		x.printed++
	}
}

func (x *frameExport) work() {
	defer x.wg.Done()
	var buf, bandBuf, descBuf []byte // this worker's frame memory, reused frame after frame
	for job := range x.jobs {
		x.mu.Lock()
		skip := !x.before(job.traj, job.rec)
		x.mu.Unlock()
		if skip {
			continue
		}
		if err := x.ctx.Err(); err != nil {
			x.cancelled(err)
			continue
		}
		err := func() (err error) {
			defer recoverAs(&err, "trajectory %d record %d", job.traj, job.rec)
			rec, ok := job.item.(*Dict)
			if !ok {
				return fmt.Errorf("trajectory %d record %d is %s", job.traj, job.rec, TypeName(job.item))
			}
			base := filepath.Join(job.folder, fmt.Sprintf("%d", job.rec))
			x.warnObservation(rec)
			if bandsEncoder && !x.opts.PNG {
				if f, ok := renderFrameBands(x.tid, rec, x.opts.FrameOptions, bandBuf, descBuf); ok {
					if f.band != nil {
						bandBuf = f.band.Pix
					}
					descBuf = f.desc.Pix
					return writeFile(base+".jpg", func(w io.Writer) error { return encodeFrameBands(w, f, 75) })
				}
			}
			img, _, err := renderFrame(x.tid, rec, x.opts.FrameOptions, buf)
			if err != nil {
				return fmt.Errorf("trajectory %d record %d: %w", job.traj, job.rec, err)
			}
			buf = img.Pix
			return saveFrame(img, base, x.opts.PNG)
		}()
		x.mu.Lock()
		if err != nil {
			if x.before(job.traj, job.rec) {
				x.failAt, x.failErr = [2]int{job.traj, job.rec}, err
			}
		} else {
			x.left[job.traj]--
			x.flush()
			x.done++
			if x.opts.Progress != nil {
				x.opts.Progress(x.done, x.total)
			}
		}
		x.mu.Unlock()
	}
}

// finish waits for the workers and returns the folders as the original leaves them.
func (x *frameExport) finish() ([]string, error) {
	close(x.jobs)
	x.wg.Wait()
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.failErr != nil && (x.stopErr == nil || x.failAt[0] < x.stopAt) {
		// the original stops at the failing record: folders made ahead for later
		// trajectories were made by this run, and go again
		keep := x.failAt[0] + 1
		for _, f := range x.folders[keep:] {
			os.RemoveAll(f)
		}
		// and frames after the failing record, drawn at the same time on other cores
		ext := ".jpg"
		if x.opts.PNG {
			ext = ".png"
		}
		for j := x.failAt[1] + 1; j < x.records[x.failAt[0]]; j++ {
			os.Remove(filepath.Join(x.folders[x.failAt[0]], fmt.Sprintf("%d%s", j, ext)))
		}
		x.folders = x.folders[:keep]
		return x.folders, x.failErr
	}
	if x.cancelErr != nil {
		// a cancelled export leaves only complete folders: one with some of its frames would
		// pass for the whole trajectory
		var kept []string
		for t, f := range x.folders {
			if x.left[t] == 0 {
				kept = append(kept, f)
			} else {
				os.RemoveAll(f)
			}
		}
		x.folders = kept
		return kept, x.cancelErr
	}
	x.flush()
	return x.folders, x.stopErr
}

// PanicError is an error that stands for a panic caught in a worker goroutine (a panic there
// would end the whole process with whatever it had half written). It is a bug: the fuzz tests
// fail on it.
type PanicError struct {
	Where string
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("internal error at %s: %v (please report this with the file)", e.Where, e.Value)
}

// recoverAs turns a panic in the calling function into a *PanicError in *err. Call it deferred.
func recoverAs(err *error, format string, args ...any) {
	if r := recover(); r != nil {
		*err = &PanicError{Where: fmt.Sprintf(format, args...), Value: r, Stack: debug.Stack()}
	}
}

// joinPy is os.path.join(a, b) for a relative b (keeps the folder as the user wrote it).
func joinPy(a, b string) string {
	if a == "" || strings.HasSuffix(a, "/") || strings.HasSuffix(a, string(filepath.Separator)) {
		return a + b
	}
	return a + string(filepath.Separator) + b
}

func saveFrame(img image.Image, base string, asPNG bool) error {
	if asPNG {
		return writeFile(base+".png", func(w io.Writer) error { return png.Encode(w, img) })
	}
	return writeFile(base+".jpg", func(w io.Writer) error { return encodeJPEG(w, img, 75) })
}

// writeFile creates path and writes it with write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func encodeJPEGGo(w io.Writer, img image.Image, quality int) error {
	return jpeg.Encode(w, img, &jpeg.Options{Quality: quality})
}

// VisualizeUsage is the original visualiser's help text (argparse, Python ≥ 3.10).
const VisualizeUsage = `usage: visualize_pickle.py [-h] [--no-marks] [--no-descp] pkl_path video_path

positional arguments:
  pkl_path
  video_path

options:
  -h, --help  show this help message and exit
  --no-marks
  --no-descp
`
