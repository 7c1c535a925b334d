package mobileenv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/conformance"
)

// checkImageRule applies the project's image rule for visualiser frames (spec §D): at least
// 95 % of pixels within 8/255 on every channel and a PSNR of at least 30 dB.
func checkImageRule(t *testing.T, name string, within, psnr float64) {
	t.Helper()
	msg := fmt.Sprintf("%s: %.2f%% of pixels within 8/255, PSNR %.1f dB", name, 100*within, psnr)
	if within >= 0.95 && psnr >= 30 {
		t.Log(msg)
		return
	}
	t.Errorf("%s: below the image rule (95%%, 30 dB)", msg)
}

// compareImages applies the project's image rule: same size, ≥ 95 % of pixels within 8/255 on
// every channel, PSNR ≥ 30 dB.
func compareImages(got, want image.Image) (within, psnr float64, err error) {
	if got.Bounds().Size() != want.Bounds().Size() {
		return 0, 0, fmt.Errorf("size %v, want %v", got.Bounds().Size(), want.Bounds().Size())
	}
	gb, wb := got.Bounds(), want.Bounds()
	n, ok := 0, 0
	var se float64
	for y := 0; y < gb.Dy(); y++ {
		for x := 0; x < gb.Dx(); x++ {
			r1, g1, b1, _ := got.At(gb.Min.X+x, gb.Min.Y+y).RGBA()
			r2, g2, b2, _ := want.At(wb.Min.X+x, wb.Min.Y+y).RGBA()
			d := []float64{float64(r1>>8) - float64(r2>>8), float64(g1>>8) - float64(g2>>8), float64(b1>>8) - float64(b2>>8)}
			good := true
			for _, v := range d {
				se += v * v
				if math.Abs(v) > 8 {
					good = false
				}
			}
			n++
			if good {
				ok++
			}
		}
	}
	mse := se / float64(3*n)
	psnr = math.Inf(1)
	if mse > 0 {
		psnr = 10 * math.Log10(255*255/mse)
	}
	return float64(ok) / float64(n), psnr, nil
}

func decodeFile(t *testing.T, path string) image.Image {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

var _ = jpeg.Decode
var _ = png.Decode

type vizCmd struct {
	Argv []string `json:"argv"`
	RC   int      `json:"rc"`
	// Python is the version whose str() of the action enum the expected frames follow ("3.8"
	// to "3.10": ActionType.LIFT; "3.11" and later: 1). Default "3.11".
	Python string `json:"python"`
}

// numericLabels is NumericLabels for a case's version ("" is the default, 3.11).
func numericLabels(t *testing.T, version string) bool {
	if version == "" {
		return true
	}
	n, err := NumericLabels(version)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// stageInput copies a case's input (a path relative to the area folder, as the original was
// run from there) into work at the same relative path, so that the command sees the path as
// given.
func stageInput(t *testing.T, area, work, rel string) {
	t.Helper()
	if filepath.IsAbs(rel) {
		return
	}
	data, err := os.ReadFile(filepath.Join(area, rel))
	if err != nil {
		return // a case about a missing input: the command reports it
	}
	dst := filepath.Join(work, rel)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestConformanceVisualize runs the visualiser cases: printed folders, frames (JPEG decoded,
// compared with the image rule), the failing second run and the help text.
func TestConformanceVisualize(t *testing.T) {
	area := areaDir(t)
	cmds := conformance.Files(t, "mobileenv", "pickles/visualize/*/cmd.json")
	n, frames := 0, 0
	for _, cmdPath := range cmds {
		caseDir := filepath.Dir(cmdPath)
		t.Run(filepath.Base(caseDir), func(t *testing.T) {
			var cmd vizCmd
			if err := json.Unmarshal(mustRead(t, cmdPath), &cmd); err != nil {
				t.Fatal(err)
			}
			opts := VisualizeOptions{FrameOptions: FrameOptions{NumericLabels: numericLabels(t, cmd.Python)}}
			var pos []string
			help := false
			for _, a := range cmd.Argv {
				switch a {
				case "--no-marks":
					opts.NoMarks = true
				case "--no-descp":
					opts.NoDescp = true
				case "-h", "--help":
					help = true
				default:
					pos = append(pos, a)
				}
			}
			wantOut, _ := os.ReadFile(filepath.Join(caseDir, "expected/stdout.txt"))
			if help {
				if VisualizeUsage != string(wantOut) {
					t.Fatalf("help text %q, want %q", VisualizeUsage, wantOut)
				}
				return
			}
			if len(pos) != 2 {
				t.Fatalf("argv %q: want PKL_PATH and the frames folder", cmd.Argv)
			}
			// Run as the original was: from a folder where the input sits at the path given.
			work := t.TempDir()
			stageInput(t, area, work, pos[0])
			t.Chdir(work)
			var stdout bytes.Buffer
			opts.Stdout = &stdout
			folders, err := Visualize(pos[0], pos[1], opts)
			if (err != nil) != (cmd.RC != 0) {
				t.Fatalf("err %v, rc %d", err, cmd.RC)
			}
			if stdout.String() != string(wantOut) {
				t.Errorf("stdout %q, want %q", stdout.String(), wantOut)
			}
			var listing struct {
				Folders map[string]string `json:"folder_names"`
				Frames  []struct {
					File     string `json:"file"`
					Original string `json:"original_path"`
					Size     []int  `json:"size_wh"`
				} `json:"frames"`
			}
			if data, err := os.ReadFile(filepath.Join(caseDir, "expected/frames_listing.json")); err == nil {
				if err := json.Unmarshal(data, &listing); err != nil {
					t.Fatal(err)
				}
			}
			// Every frame written must be expected (a mode or a failure that writes none writes none).
			want := map[string]bool{}
			for _, fr := range listing.Frames {
				want[filepath.Clean(fr.Original)] = true
			}
			filepath.WalkDir(pos[1], func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && !want[filepath.Clean(p)] {
					t.Errorf("unexpected output file %s", p)
				}
				return nil
			})
			worstWithin, worstPSNR := 1.0, math.Inf(1)
			for _, fr := range listing.Frames {
				got := decodeFile(t, fr.Original)
				if ycc, ok := got.(*image.YCbCr); ok && ycc.SubsampleRatio == image.YCbCrSubsampleRatio420 {
					got = FancyRGB(ycc) // decode like the reference (Pillow/libjpeg)
				}
				want := decodeFile(t, filepath.Join(caseDir, "expected", fr.File))
				within, psnr, err := compareImages(got, want)
				if err != nil {
					t.Errorf("%s: %v", fr.Original, err)
					continue
				}
				worstWithin, worstPSNR = math.Min(worstWithin, within), math.Min(worstPSNR, psnr)
				checkImageRule(t, fr.Original, within, psnr)
				frames++
			}
			t.Logf("%d frames, worst: %.2f%% within tolerance, PSNR %.1f dB; folders %v", len(listing.Frames), 100*worstWithin, worstPSNR, folders)
			if _, err := os.Stat(filepath.Join(caseDir, "expected/second_run_same_dumpdir.txt")); err == nil {
				_, err := Visualize(pos[0], pos[1], opts)
				want := string(mustRead(t, filepath.Join(caseDir, "expected/second_run_same_dumpdir.txt")))
				if err == nil || !strings.Contains(want, err.Error()) {
					t.Errorf("second run: %v, want the error in %q", err, want)
				}
			}
		})
		n++
	}
	conformance.Report(t, "visualize", n)
	conformance.Report(t, "visualize frame", frames)
}

type layoutEntry struct {
	Frame       string    `json:"frame"`
	H           int       `json:"H"`
	W           int       `json:"W"`
	TitleAnchor []int     `json:"title_anchor"`
	TitleBox    []int     `json:"title_bbox"`
	ActionText  string    `json:"action_text"`
	ActionAnch  []int     `json:"action_anchor"`
	ActionBox   []int     `json:"action_bbox"`
	InstrText   string    `json:"instruction_text"`
	InstrAnch   []int     `json:"instruction_anchor"`
	InstrBox    []int     `json:"instruction_bbox"`
	RewardText  string    `json:"reward_text"`
	RewardAnch  []int     `json:"reward_anchor"`
	Outer       []float64 `json:"touch_outer_ellipse"`
	Inner       []float64 `json:"touch_inner_ellipse"`
	MarkRect    []float64 `json:"text_mark_rect"`
	MarkCenter  []float64 `json:"text_mark_center_mm"`
	MarkBox     []float64 `json:"text_mark_bbox_mm"`
}

// TestConformancePNGRenders compares single-frame renders (lossless, Python ≥ 3.11 labels)
// with the image rule, checks the layout numbers (anchors and shape boxes exactly, text boxes
// within ±2 px on every edge), and checks that screens without text are pixel-identical (exact
// geometry).
func TestConformancePNGRenders(t *testing.T) {
	area := areaDir(t)
	layouts := conformance.Files(t, "mobileenv", "pickles/visualize/*/layout.json")
	n := 0
	re := regexp.MustCompile(`^traj(\d+)_step(\d+)(_nomarks|_nodescp)?\.png$`)
	verRE := regexp.MustCompile(`^png_renders_(py\d+)`)
	for _, lp := range layouts {
		dir := filepath.Dir(lp)
		// The folder's name says whose labels the renders show (png_renders_py38: 3.8's
		// ActionType.LIFT, png_renders_py311: 3.11's 1); a cmd.json may say it, and name the
		// input, too (the visualiser cases' input by default).
		numeric := true
		if m := verRE.FindStringSubmatch(filepath.Base(dir)); m != nil {
			numeric = numericLabels(t, m[1])
		}
		input := "pickles/inputs/synthetic_visual.pkl"
		if data, err := os.ReadFile(filepath.Join(dir, "cmd.json")); err == nil {
			var c struct {
				vizCmd
				Input string `json:"input"`
			}
			if err := json.Unmarshal(data, &c); err != nil {
				t.Fatalf("%s: %v", filepath.Join(dir, "cmd.json"), err)
			}
			if c.Python != "" {
				numeric = numericLabels(t, c.Python)
			}
			if c.Input != "" {
				input = c.Input
			} else if len(c.Argv) > 0 && strings.HasSuffix(c.Argv[0], ".pkl") {
				input = c.Argv[0]
			}
		}
		var entries []layoutEntry
		if err := json.Unmarshal(mustRead(t, lp), &entries); err != nil {
			t.Fatal(err)
		}
		byFrame := map[string]layoutEntry{}
		for _, e := range entries {
			byFrame[e.Frame] = e
		}
		f, err := Open(filepath.Join(area, input))
		if err != nil {
			t.Fatal(err)
		}
		pngs, _ := filepath.Glob(filepath.Join(dir, "*.png"))
		for _, p := range pngs {
			m := re.FindStringSubmatch(filepath.Base(p))
			if m == nil {
				continue
			}
			ti, _ := strconv.Atoi(m[1])
			sj, _ := strconv.Atoi(m[2])
			rec, err := f.Record(ti, sj)
			if err != nil {
				t.Fatal(err)
			}
			opts := FrameOptions{NumericLabels: numeric, NoMarks: m[3] == "_nomarks", NoDescp: m[3] == "_nodescp"}
			img, lay, err := RenderFrame(f.DefinitionID(), rec, opts)
			if err != nil {
				t.Fatal(err)
			}
			want := decodeFile(t, p)
			within, psnr, err := compareImages(img, want)
			if err != nil {
				t.Errorf("%s: %v", filepath.Base(p), err)
				continue
			}
			isText := false
			if a, _ := rec.Get("action_type"); a == int64(ActionText) {
				isText = true
			}
			checkImageRule(t, filepath.Base(p), within, psnr)
			n++
			if opts.NoDescp && !isText {
				w, _, _ := compareImages(img, want)
				if w != 1 || !pixelsEqual(img, want) {
					t.Errorf("%s: screen without text is not pixel-identical", filepath.Base(p))
				}
			}
			e, ok := byFrame[strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(filepath.Base(p), ".png"), "_nomarks"), "_nodescp")]
			if !ok || m[3] != "" {
				continue
			}
			checkLayout(t, e, lay)
		}
	}
	conformance.Report(t, "png render", n)
}

func pixelsEqual(a, b image.Image) bool {
	ab, bb := a.Bounds(), b.Bounds()
	for y := 0; y < ab.Dy(); y++ {
		for x := 0; x < ab.Dx(); x++ {
			r1, g1, b1, _ := a.At(ab.Min.X+x, ab.Min.Y+y).RGBA()
			r2, g2, b2, _ := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
			if r1>>8 != r2>>8 || g1>>8 != g2>>8 || b1>>8 != b2>>8 {
				return false
			}
		}
	}
	return true
}

func checkLayout(t *testing.T, e layoutEntry, lay FrameLayout) {
	t.Helper()
	if lay.H != e.H {
		t.Errorf("%s: H %d, want %d", e.Frame, lay.H, e.H)
	}
	if lay.Action != e.ActionText {
		t.Errorf("%s: action %q, want %q", e.Frame, lay.Action, e.ActionText)
	}
	pt := func(what string, got image.Point, want []int) {
		if len(want) == 2 && (got.X != want[0] || got.Y != want[1]) {
			t.Errorf("%s: %s anchor %v, want %v", e.Frame, what, got, want)
		}
	}
	box := func(what string, got Box, want []int) {
		if len(want) != 4 {
			return
		}
		for i := range want {
			if d := got[i] - want[i]; d < -2 || d > 2 {
				t.Errorf("%s: %s box %v, want %v (±2)", e.Frame, what, got, want)
				return
			}
		}
	}
	shape := func(what string, got *Box, want []float64) {
		if len(want) != 4 {
			return
		}
		if got == nil {
			t.Errorf("%s: no %s drawn", e.Frame, what)
			return
		}
		for i := range want {
			if got[i] != int(want[i]) {
				t.Errorf("%s: %s %v, want %v", e.Frame, what, *got, want)
				return
			}
		}
	}
	pt("title", lay.Lines[0].Anchor, e.TitleAnchor)
	box("title", lay.Lines[0].Box, e.TitleBox)
	pt("action", lay.Lines[1].Anchor, e.ActionAnch)
	box("action", lay.Lines[1].Box, e.ActionBox)
	li := 2
	if e.InstrText != "" {
		if lay.Lines[li].Text != e.InstrText {
			t.Errorf("%s: instruction %q, want %q", e.Frame, lay.Lines[li].Text, e.InstrText)
		}
		pt("instruction", lay.Lines[li].Anchor, e.InstrAnch)
		box("instruction", lay.Lines[li].Box, e.InstrBox)
		li++
	}
	if e.RewardText != "" {
		if lay.Lines[li].Text != e.RewardText {
			t.Errorf("%s: reward %q, want %q", e.Frame, lay.Lines[li].Text, e.RewardText)
		}
		pt("reward", lay.Lines[li].Anchor, e.RewardAnch)
		li++
	}
	if li != len(lay.Lines) {
		t.Errorf("%s: %d lines, want %d", e.Frame, len(lay.Lines), li)
	}
	shape("outer ellipse", lay.TouchOuter, e.Outer)
	shape("inner ellipse", lay.TouchInner, e.Inner)
	shape("text mark", lay.TextMarkRect, e.MarkRect)
	if lay.TextMarkText != nil {
		mb := make([]int, len(e.MarkBox))
		for i, v := range e.MarkBox {
			mb[i] = int(v)
		}
		box("text mark text", lay.TextMarkText.Box, mb)
	}
}

// FancyRGB converts a 4:2:0 YCbCr image to RGB with libjpeg's "fancy" (triangle-filter) chroma
// upsampling, as Pillow decodes JPEG files, so that our frames and the reference frames are
// decoded the same way.
func FancyRGB(src *image.YCbCr) *image.RGBA {
	b := src.Bounds()
	out := image.NewRGBA(b)
	cw := (b.Dx() + 1) / 2
	ch := (b.Dy() + 1) / 2
	chroma := func(plane []byte, cx, cy int) float64 {
		cx = max(0, min(cw-1, cx))
		cy = max(0, min(ch-1, cy))
		return float64(plane[cy*src.CStride+cx])
	}
	up := func(plane []byte, x, y int) float64 {
		// nearest chroma sample and its neighbours at 3/4, 1/4 weights in each direction
		cx, cy := x/2, y/2
		nx, ny := cx-1, cy-1
		if x%2 == 1 {
			nx = cx + 1
		}
		if y%2 == 1 {
			ny = cy + 1
		}
		v := 9*chroma(plane, cx, cy) + 3*chroma(plane, nx, cy) + 3*chroma(plane, cx, ny) + chroma(plane, nx, ny)
		return v / 16
	}
	clamp := func(v float64) uint8 {
		if v < 0 {
			return 0
		}
		if v > 255 {
			return 255
		}
		return uint8(v + 0.5)
	}
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			yy := float64(src.Y[y*src.YStride+x])
			cb := up(src.Cb, x, y) - 128
			cr := up(src.Cr, x, y) - 128
			o := out.PixOffset(b.Min.X+x, b.Min.Y+y)
			out.Pix[o] = clamp(yy + 1.402*cr)
			out.Pix[o+1] = clamp(yy - 0.344136*cb - 0.714136*cr)
			out.Pix[o+2] = clamp(yy + 1.772*cb)
			out.Pix[o+3] = 255
		}
	}
	return out
}

// TestVisualizeParallelMatchesSequential: frames drawn on several cores are the very files a
// one-at-a-time export writes, and a failure is the one of the lowest failing record.
func TestVisualizeParallelMatchesSequential(t *testing.T) {
	f, err := Open(filepath.Join(areaDir(t), "pickles/inputs/synthetic_visual.pkl"))
	if err != nil {
		t.Fatal(err)
	}
	traj := trajectoriesOfRoot(t, f.Root).Items[0].(*List)
	for len(traj.Items) < 14 { // 13 frames: more than any worker count below
		traj.Items = append(traj.Items, traj.Items[1+len(traj.Items)%4])
	}
	dir := t.TempDir()
	pkl := filepath.Join(dir, "in.pkl")
	data, err := Encode(f.Root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pkl, data, 0o644); err != nil {
		t.Fatal(err)
	}
	export := func(name string, workers int) map[string][]byte {
		out := filepath.Join(dir, name)
		if _, err := Visualize(pkl, out, VisualizeOptions{Workers: workers}); err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(out, p)
				files[rel], _ = os.ReadFile(p)
			}
			return nil
		})
		return files
	}
	seq, par := export("seq", 1), export("par", 4)
	if len(seq) != 13+1 || len(par) != len(seq) {
		t.Fatalf("%d frames one at a time, %d in parallel, want 14", len(seq), len(par))
	}
	for name, b := range seq {
		if !bytes.Equal(par[name], b) {
			t.Errorf("%s differs between the sequential and the parallel export", name)
		}
	}

	// records 5 and 9 cannot be drawn: the error names record 5 whatever the schedule
	bad := *traj.Items[5].(*Dict)
	bad.Vals = append([]any(nil), bad.Vals...)
	for k, key := range bad.Keys {
		if s, _ := AsString(key); s == "observation" {
			bad.Vals[k] = NewStr("not an image")
		}
	}
	traj.Items[5], traj.Items[9] = &bad, &bad
	if data, err = Encode(f.Root); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(pkl, data, 0o644)
	for _, w := range []int{1, 2, 4} {
		_, err := Visualize(pkl, filepath.Join(dir, fmt.Sprintf("bad%d", w)), VisualizeOptions{Workers: w})
		if err == nil || !strings.Contains(err.Error(), "record 5:") {
			t.Errorf("workers %d: error %v, want one about record 5", w, err)
		}
	}
}

func trajectoriesOfRoot(t *testing.T, root any) *List {
	t.Helper()
	d, ok := root.(*Dict)
	if !ok {
		t.Fatalf("root is %s", TypeName(root))
	}
	tl, _ := d.Get("trajectories")
	l, ok := tl.(*List)
	if !ok {
		t.Fatal("no trajectories")
	}
	return l
}
