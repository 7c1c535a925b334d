package mobileenv

import (
	_ "embed"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// Frame drawing (spec §B.2). The original draws with Pillow and Noto Sans CJK Bold (face 0,
// the JP variant) at 50 px. The package embeds a Latin subset of that very font (fonts/, SIL
// Open Font License) so that glyph shapes, widths and ink boxes match the original; characters
// outside the subset fall back to Go Bold (golang.org/x/image/font/gofont). For CJK text pass
// the full font in FrameOptions.Font (a .otf/.ttf, or a .ttc whose first face is used).

//go:embed fonts/NotoSansCJKjp-Bold-Latin.otf
var notoLatinOTF []byte

const (
	notoSize      = 50.0  // the original's font size in pixels
	notoAscender  = 1.16  // Noto Sans CJK hhea ascender, em (Pillow's "a" anchor)
	notoDescender = 0.288 // Noto Sans CJK hhea descender, em
)

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
	// Font replaces the embedded Noto Sans CJK Bold Latin subset: TrueType/OpenType data or a
	// collection (first face), e.g. the full NotoSansCJK-Bold.ttc for CJK text. Its own
	// ascender and descender are then used for the anchors.
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

type textRenderer struct {
	sf   *opentype.Font // primary font (outlines for the hinting pass)
	ppem fixed.Int26_6
	mu   sync.Mutex
	buf  sfnt.Buffer
	face font.Face
	asc  float64 // ascender in pixels (anchor "la": baseline = y + asc)
	desc float64 // descender in pixels
}

var (
	rendererMu    sync.Mutex
	rendererCache = map[string]*textRenderer{}
)

func parseFont(data []byte) (*opentype.Font, error) {
	f, err := opentype.Parse(data)
	if err == nil {
		return f, nil
	}
	c, cerr := opentype.ParseCollection(data)
	if cerr != nil {
		return nil, err
	}
	return c.Font(0)
}

func newTextRenderer(opts FrameOptions) (*textRenderer, error) {
	data := opts.Font
	key := "noto-latin"
	if data != nil {
		key = fmt.Sprintf("%p/%d/%v", &data[0], len(data), opts.Size)
	} else {
		data = notoLatinOTF
	}
	rendererMu.Lock()
	defer rendererMu.Unlock()
	if r, ok := rendererCache[key]; ok {
		return r, nil
	}
	size := notoSize
	if opts.Size > 0 {
		size = opts.Size
	}
	f, err := parseFont(data)
	if err != nil {
		return nil, fmt.Errorf("frame font: %w", err)
	}
	primary, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return nil, err
	}
	gb, err := goBold()
	if err != nil {
		return nil, err
	}
	fallback, err := opentype.NewFace(gb, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return nil, err
	}
	var buf sfnt.Buffer
	upm := float64(f.UnitsPerEm())
	asc, desc := notoAscender*size, notoDescender*size
	if hhea, err := f.Metrics(&buf, fixed.Int26_6(upm*64), font.HintingNone); err == nil && opts.Font != nil {
		// a custom font: its own ascender/descender (the metrics at size=upm are in units)
		asc = float64(hhea.Ascent) / 64 / upm * size
		desc = float64(hhea.Descent) / 64 / upm * size
	}
	r := &textRenderer{sf: f, ppem: fixed.Int26_6(size * 64), face: &fallbackFace{primary: primary, fallback: fallback, font: f}, asc: asc, desc: desc}
	rendererCache[key] = r
	return r, nil
}

var (
	goBoldOnce sync.Once
	goBoldFont *opentype.Font
	goBoldErr  error
)

func goBold() (*opentype.Font, error) {
	goBoldOnce.Do(func() { goBoldFont, goBoldErr = opentype.Parse(gobold.TTF) })
	return goBoldFont, goBoldErr
}

// fallbackFace draws a rune with the primary face when the font has a glyph for it, otherwise
// with the fallback face.
type fallbackFace struct {
	primary, fallback font.Face
	font              *opentype.Font
	mu                sync.Mutex
	buf               sfnt.Buffer
	has               map[rune]bool
}

func (f *fallbackFace) pick(r rune) font.Face {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.has == nil {
		f.has = map[rune]bool{}
	}
	h, ok := f.has[r]
	if !ok {
		idx, err := f.font.GlyphIndex(&f.buf, r)
		h = err == nil && idx != 0
		f.has[r] = h
	}
	if h {
		return f.primary
	}
	return f.fallback
}

func (f *fallbackFace) Close() error { return nil }

func (f *fallbackFace) Glyph(dot fixed.Point26_6, r rune) (image.Rectangle, image.Image, image.Point, fixed.Int26_6, bool) {
	return f.pick(r).Glyph(dot, r)
}

func (f *fallbackFace) GlyphBounds(r rune) (fixed.Rectangle26_6, fixed.Int26_6, bool) {
	return f.pick(r).GlyphBounds(r)
}

func (f *fallbackFace) GlyphAdvance(r rune) (fixed.Int26_6, bool) { return f.pick(r).GlyphAdvance(r) }

// Kern applies the font's pair kerning (Pillow with libraqm applies GPOS kerning; the frames
// match the originals better with it).
func (f *fallbackFace) Kern(r0, r1 rune) fixed.Int26_6 {
	a, b := f.pick(r0), f.pick(r1)
	if a != b {
		return 0
	}
	return a.Kern(r0, r1)
}

func (f *fallbackFace) Metrics() font.Metrics { return f.primary.Metrics() }

// blend is Pillow's alpha blend of one channel: ((v+128)>>8 + (v+128))>>8, v = dst(255−a)+src·a.
func blend(dst, src, a uint8) uint8 {
	v := int(dst)*(255-int(a)) + int(src)*int(a)
	return uint8(((v+128)>>8 + (v + 128)) >> 8)
}

func blendPixel(img *image.RGBA, x, y int, c color.RGBA, a uint8) {
	if !(image.Point{x, y}.In(img.Rect)) || a == 0 {
		return
	}
	o := img.PixOffset(x, y)
	img.Pix[o] = blend(img.Pix[o], c.R, a)
	img.Pix[o+1] = blend(img.Pix[o+1], c.G, a)
	img.Pix[o+2] = blend(img.Pix[o+2], c.B, a)
}

func fillRect(img *image.RGBA, b Box, c color.RGBA) {
	for y := b[1]; y <= b[3]; y++ {
		for x := b[0]; x <= b[2]; x++ {
			blendPixel(img, x, y, c, c.A)
		}
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
	hline := func(xa, y, xb int) {
		for x := xa; x <= xb; x++ {
			blendPixel(img, x, y, c, c.A)
		}
	}
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

// measure returns the ink box of a line drawn with its baseline at (x, baseline), as Pillow's
// textbbox reports it: left = min(anchor, ink left), right = max(advance, ink right), top and
// bottom = the ink extent.
func (r *textRenderer) measure(s string, x, baseline int) (Box, fixed.Int26_6) {
	r.mu.Lock() // x/image faces are not safe for concurrent use
	defer r.mu.Unlock()
	bounds, adv := font.BoundString(r.face, s)
	if s == "" || bounds.Empty() {
		return Box{x, baseline, x + adv.Ceil(), baseline}, adv
	}
	x0 := x + min(0, bounds.Min.X.Floor())
	x1 := x + max(adv.Ceil(), bounds.Max.X.Ceil())
	return Box{x0, baseline + bounds.Min.Y.Floor(), x1, baseline + inkBottom(bounds.Max.Y)}, adv
}

// inkBottom rounds the ink's lowest point to the nearest pixel, which reproduces the bottoms
// of Pillow's (grid-fitted) ink boxes on the conformance frames; the next line's anchor
// depends on it.
func inkBottom(y fixed.Int26_6) int { return (y + 32).Floor() }

// hinted draws ch with the vertical grid-fitting pass of hinting.go when the primary font has
// it (false: the caller draws it with the fallback face).
func (r *textRenderer) hinted(dst *image.Alpha, ch rune, x, baseline int) bool {
	return hintedGlyph(dst, r.sf, &r.buf, ch, r.ppem, x, baseline)
}

// drawText draws s with its baseline at (x, baseline) in c, blending coverage × alpha.
func (r *textRenderer) drawText(img *image.RGBA, s string, x, baseline int, c color.RGBA) {
	r.mu.Lock()
	defer r.mu.Unlock()
	bounds, _ := font.BoundString(r.face, s)
	rect := image.Rect(x+bounds.Min.X.Floor()-1, baseline+bounds.Min.Y.Floor()-1, x+bounds.Max.X.Ceil()+1, baseline+bounds.Max.Y.Ceil()+1)
	rect = rect.Intersect(img.Rect)
	if rect.Empty() {
		return
	}
	mask := image.NewAlpha(rect)
	// Like Pillow/FreeType, every glyph is rasterised with its origin on the pixel grid (the
	// pen position truncated: measured closest to the original frames), the pen itself
	// advancing by the exact advances plus kerning.
	dot := fixed.P(x, baseline)
	prev := rune(-1)
	for _, ch := range s {
		if prev >= 0 {
			dot.X += r.face.Kern(prev, ch)
		}
		origin := fixed.Point26_6{X: fixed.I(dot.X.Floor()), Y: dot.Y}
		adv, _ := r.face.GlyphAdvance(ch)
		if !r.hinted(mask, ch, dot.X.Floor(), baseline) {
			dr, gm, mp, _, ok := r.face.Glyph(origin, ch)
			if ok {
				draw.DrawMask(mask, dr, image.Opaque, image.Point{}, gm, mp, draw.Over)
			}
		}
		dot.X += adv
		prev = ch
	}
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		for xx := rect.Min.X; xx < rect.Max.X; xx++ {
			cov := mask.AlphaAt(xx, y).A
			if cov == 0 {
				continue
			}
			a := uint8((int(cov)*int(c.A) + 127) / 255)
			blendPixel(img, xx, y, c, a)
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
	var lay FrameLayout
	obs, ok := rec.Get("observation")
	if !ok {
		return nil, lay, &PyError{"KeyError", "'observation'"}
	}
	if arr, ok := obs.(*NDArray); opts.Strict && (!ok || arr.DType.Kind != 'u' || arr.DType.Size != 1 || len(arr.Shape) != 3 || arr.Shape[2] != 3) {
		return nil, lay, fmt.Errorf("observation is not a uint8 H×W×3 array (the original visualiser rejects it)")
	}
	screenImg, err := ObservationImage(obs)
	if err != nil {
		return nil, lay, err
	}
	sb := screenImg.Bounds()
	w, h := sb.Dx(), sb.Dy()
	lay.W, lay.H = w, h
	screen := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(screen, screen.Rect, screenImg, sb.Min, draw.Src)
	for i := 3; i < len(screen.Pix); i += 4 {
		screen.Pix[i] = 255
	}
	tr, err := newTextRenderer(opts)
	if err != nil {
		return nil, lay, err
	}
	label, err := ActionLabel(rec, w, h, opts.NumericLabels)
	if err != nil {
		return nil, lay, err
	}
	lay.Action = label
	at, _ := rec.Get("action_type")
	a, _ := AsInt(at)
	if !opts.NoMarks {
		switch a {
		case ActionText:
			fw, fh := float64(w), float64(h)
			r := Box{int(fw / 5), int(0.75 * fh), int(0.8 * fw), int(0.9375 * fh)}
			fillRect(screen, r, color.RGBA{135, 135, 135, 127})
			lay.TextMarkRect = &r
			tok, _ := rec.Get("input_token")
			s := valueText(tok)
			cx, cy := fw/2, 0.84375*fh
			_, adv := tr.measure(s, 0, 0)
			x := int(math.Round(cx - float64(adv)/64/2))
			base := int(math.Round(cy - (tr.asc+tr.desc)/2 + tr.asc))
			tr.drawText(screen, s, x, base, color.RGBA{0, 0, 0, 229})
			box, _ := tr.measure(s, x, base)
			lay.TextMarkText = &TextLine{Text: s, Anchor: image.Pt(int(cx), int(cy)), Box: box, Color: color.RGBA{0, 0, 0, 229}}
		case ActionTouch:
			x, y, _ := touchPixels(rec, w, h)
			outer := Box{int(x - 50), int(y - 50), int(x + 50), int(y + 50)}
			inner := Box{int(x - 20), int(y - 20), int(x + 20), int(y + 20)}
			fillEllipse(screen, outer, color.RGBA{255, 175, 175, 76})
			fillEllipse(screen, inner, color.RGBA{255, 175, 175, 153})
			lay.TouchOuter, lay.TouchInner = &outer, &inner
		}
	}
	if opts.NoDescp {
		return screen, lay, nil
	}
	canvas := image.NewRGBA(image.Rect(0, 0, w, h+400))
	draw.Draw(canvas, canvas.Rect, image.White, image.Point{}, draw.Src)
	draw.Draw(canvas, screen.Rect, screen, image.Point{}, draw.Src)
	lines := []TextLine{{Text: tid, Color: color.RGBA{0, 0, 0, 255}}, {Text: label, Color: color.RGBA{0, 0, 0, 255}}}
	if in, ok := rec.Get("instruction"); ok {
		lines = append(lines, TextLine{Text: InstructionText(in), Color: color.RGBA{255, 0, 0, 255}})
	}
	if rv, ok := rec.Get("reward"); ok {
		if r, ok := AsFloat(rv); ok && r > 0 {
			lines = append(lines, TextLine{Text: "Reward: +" + pyFormatFixed1(r), Color: color.RGBA{0, 255, 0, 255}})
		}
	}
	y := h + 10
	for i := range lines {
		ln := &lines[i]
		ln.Anchor = image.Pt(10, y)
		base := y + int(math.Round(tr.asc))
		tr.drawText(canvas, ln.Text, 10, base, ln.Color)
		ln.Box, _ = tr.measure(ln.Text, 10, base)
		y = ln.Box[3] + 10
	}
	lay.Lines = lines
	return canvas, lay, nil
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
	p, err := ReadFirst(pklPath)
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
		return nil, &PyError{"KeyError", "'meta'"}
	}
	tid := str(meta, "task_definition_id")
	tv, _ := root.Get("trajectories")
	trajs, ok := tv.(*List)
	if !ok {
		return nil, &PyError{"KeyError", "'trajectories'"}
	}
	out := opts.Stdout
	if out == nil {
		out = io.Discard
	}
	var folders []string
	for i, t := range trajs.Items {
		traj, ok := t.(*List)
		if !ok {
			return folders, fmt.Errorf("trajectory %d is %s", i, TypeName(t))
		}
		name := FolderName(tid, i, len(trajs.Items), len(traj.Items), opts.SafeNames)
		folder := joinPy(videoPath, name)
		if err := os.MkdirAll(videoPath, 0o755); err != nil {
			return folders, err
		}
		if err := os.Mkdir(folder, 0o755); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return folders, &PyError{"FileExistsError", fmt.Sprintf("[Errno 17] File exists: %s", pyQuote(folder))}
			}
			return folders, err
		}
		fmt.Fprintln(out, folder)
		folders = append(folders, folder)
		for j := 1; j < len(traj.Items); j++ {
			rec, ok := traj.Items[j].(*Dict)
			if !ok {
				return folders, fmt.Errorf("trajectory %d record %d is %s", i, j, TypeName(traj.Items[j]))
			}
			img, _, err := RenderFrame(tid, rec, opts.FrameOptions)
			if err != nil {
				return folders, fmt.Errorf("trajectory %d record %d: %w", i, j, err)
			}
			if err := saveFrame(img, filepath.Join(folder, fmt.Sprintf("%d", j)), opts.PNG); err != nil {
				return folders, err
			}
		}
	}
	return folders, nil
}

// joinPy is os.path.join(a, b) for a relative b (keeps the folder as the user wrote it).
func joinPy(a, b string) string {
	if a == "" || strings.HasSuffix(a, "/") || strings.HasSuffix(a, string(filepath.Separator)) {
		return a + b
	}
	return a + string(filepath.Separator) + b
}

func saveFrame(img image.Image, base string, asPNG bool) error {
	var path string
	if asPNG {
		path = base + ".png"
	} else {
		path = base + ".jpg"
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if asPNG {
		err = png.Encode(f, img)
	} else {
		err = jpeg.Encode(f, img, &jpeg.Options{Quality: 75})
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
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
