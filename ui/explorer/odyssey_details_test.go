package explorer

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

// What the Explorer shows of a GUI Odyssey episode besides task and instruction: its
// meta-task (listed, filtered by and searched), the device, the annotators' remarks, and a
// scroll's recorded finger path over the frame.

// openByMetaTask filters the imported sample by the meta-task whose option starts with prefix
// and opens the first episode listed.
func openByMetaTask(t *testing.T, x *Workspace, prefix string) {
	t.Helper()
	selectPrefix(t, x.facets[episode.FacetMetaTask], prefix)
	if x.count == 0 {
		t.Fatalf("meta-task %q lists nothing", prefix)
	}
	x.table.Select(widget.TableCellID{Row: 0, Col: 0})
}

func TestExplorerShowsMetaTaskDeviceAndNotes(t *testing.T) {
	x, w := importSample(t)
	w.Resize(uitest.Laptop)
	openByMetaTask(t, x, "Translate the phrase")
	if x.count != 1 {
		t.Fatalf("%d episodes of the meta-task", x.count)
	}
	text := x.detail.text.String()
	if got := x.detail.device.Text; !x.detail.device.Visible() || got != "Device: Pixel 7 Pro · product sdk_gphone64_x86_64 · release 14 · SDK 34 · 1440 × 3120 px" {
		t.Errorf("device line %q", got)
	}
	for _, want := range []string{
		"Meta-task: Translate the phrase '{}' into Spanish and save the result in a note.",
		"Annotator's note (step 12, INCOMPLETE): The app asked for a login the annotator did not have.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the details lack %q:\n%s", want, text)
		}
	}
	// The listing has a Meta-task column.
	r, _ := x.row(0)
	if got := explorerCell(r, colMetaTask); got != "Translate the phrase '{}' into Spanish and save the result in a note." {
		t.Errorf("meta-task cell %q", got)
	}
	uitest.Fits(t, "the Explorer with an episode's details", x.Content())

	// An episode whose annotators left no remark shows none; every odyssey episode its device.
	x.setFilter(episode.Filter{})
	openByMetaTask(t, x, "Search for the next")
	text = x.detail.text.String()
	if strings.Contains(text, "Annotator's note") || x.detail.device.Text != "Device: Pixel Tablet · product sdk_gphone64_x86_64 · release 14 · SDK 34 · 2560 × 1600 px" {
		t.Errorf("details %q:\n%s", x.detail.device.Text, text)
	}
	// The device line is on show, above the scrolling band of texts.
	if !strings.Contains(uitest.Texts(x.detail.content), "Device: Pixel Tablet") {
		t.Errorf("the device line is not on show:\n%s", uitest.Texts(x.detail.content))
	}
	// Other sources have no device line nor meta-task.
	x.setFilter(episode.Filter{Source: episode.SourceGridworld})
	x.table.Select(widget.TableCellID{Row: 0, Col: 0})
	if text := x.detail.text.String(); x.detail.device.Visible() || strings.Contains(text, "Meta-task:") {
		t.Errorf("a gridworld episode's details %q:\n%s", x.detail.device.Text, text)
	}
}

func TestExplorerFiltersAndSearchesByMetaTask(t *testing.T) {
	x, _ := importSample(t)
	sel := x.facets[episode.FacetMetaTask]
	if len(sel.Options) != 9 || sel.Options[0] != "Any meta-task" || sel.Selected != "Any meta-task" {
		t.Fatalf("meta-task options %q, selected %q", sel.Options, sel.Selected)
	}
	// Long meta-tasks are shortened in the middle, with their count.
	label := ""
	for _, o := range sel.Options {
		if strings.HasPrefix(o, "Share a photo") {
			label = o
		}
	}
	if label != "Share a photo of {} t…d on WhatsApp. (2)" {
		t.Fatalf("option %q", label)
	}
	sel.SetSelected(label)
	shared := "Share a photo of {} to Instagram and send the link to a friend on WhatsApp."
	if got := x.filter.Facets[episode.FacetMetaTask]; len(got) != 1 || got[0] != shared || x.count != 2 {
		t.Fatalf("filter %+v, %d rows", x.filter, x.count)
	}
	for i := 0; i < x.count; i++ {
		if r, _ := x.row(i); r.MetaTask != shared {
			t.Fatalf("row %d: %q", i, r.MetaTask)
		}
	}
	if !strings.Contains(x.status.Text, "2 episodes match (meta_task "+shared+")") {
		t.Fatalf("status %q", x.status.Text)
	}
	// It combines with the other filters, and is remembered.
	selectPrefix(t, x.facets[episode.FacetDevice], "Small Phone")
	if x.count != 0 {
		t.Fatalf("Small Phone and the meta-task: %d", x.count)
	}
	selectPrefix(t, x.facets[episode.FacetDevice], "Pixel Tablet")
	if x.count != 2 {
		t.Fatalf("Pixel Tablet and the meta-task: %d", x.count)
	}
	again := New(x.host, x.st)
	if again.count != 2 || again.facets[episode.FacetMetaTask].Selected != label {
		t.Fatalf("reopened: %d rows, meta-task %q", again.count, again.facets[episode.FacetMetaTask].Selected)
	}
	x.facets[episode.FacetMetaTask].SetSelected("Any meta-task")
	if x.filter.Facets[episode.FacetMetaTask] != nil || x.count != 4 { // the Pixel Tablet episodes
		t.Fatalf("any meta-task: %+v, %d", x.filter, x.count)
	}

	// The search reads the meta-task too, and marks it in the details. The sample's tasks
	// fill the "{}", so a word of the template finds both; the store test checks a word of the
	// meta-task alone.
	x.setFilter(episode.Filter{})
	x.search.OnSubmitted("whatsapp")
	if x.count != 2 {
		t.Fatalf("search whatsapp: %d", x.count)
	}
	r, _ := x.row(0)
	if !strings.Contains(r.MetaTaskMarked, episode.MatchStart+"WhatsApp"+episode.MatchEnd) {
		t.Fatalf("meta-task marks %q", r.MetaTaskMarked)
	}
	x.table.Select(widget.TableCellID{Row: 0, Col: 0})
	bold := 0
	for _, seg := range x.detail.text.Segments {
		if ts, ok := seg.(*widget.TextSegment); ok && ts.Text == "WhatsApp" && ts.Style.TextStyle.Bold {
			bold++
		}
	}
	if bold < 2 { // in the task and in the meta-task
		t.Fatalf("%d bold matches in the details", bold)
	}
}

// fixedVariant is fyne's default theme in one variant, as Settings' light and dark choices.
type fixedVariant struct {
	fyne.Theme
	v fyne.ThemeVariant
}

func (f fixedVariant) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return f.Theme.Color(n, f.v)
}

func solidPNG(c color.Color, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

// pathMarks finds what the viewer draws in the accent colour: lines, rings (stroked circles)
// and dots, and the container they are drawn in.
func pathMarks(v fyne.CanvasObject) (lines []*canvas.Line, rings, dots int, in *fyne.Container) {
	accent := theme.Color(theme.ColorNamePrimary)
	uitest.Walk(v, func(o fyne.CanvasObject) {
		c, ok := o.(*fyne.Container)
		if !ok {
			return
		}
		for _, m := range c.Objects {
			switch m := m.(type) {
			case *canvas.Line:
				if m.StrokeColor == accent {
					lines, in = append(lines, m), c
				}
			case *canvas.Circle:
				if m.StrokeWidth > 0 && m.StrokeColor == accent {
					rings++
				} else if m.StrokeWidth == 0 && m.FillColor == accent {
					dots++
				}
			}
		}
	})
	return
}

// A scroll step draws the finger path it recorded (here an L: right, then up) instead of a
// straight arrow, with a dot where it starts and an arrowhead, no ring as a tap has; the path
// reads on a white and on a black screenshot in the light and the dark theme.
func TestExplorerDrawsAScrollsRecordedPath(t *testing.T) {
	for _, variant := range []fyne.ThemeVariant{theme.VariantLight, theme.VariantDark} {
		for _, bg := range []color.Color{color.White, color.Black} {
			test.NewTempApp(t)
			fyne.CurrentApp().Settings().SetTheme(fixedVariant{theme.DefaultTheme(), variant})
			st := uitest.OpenStore(t)
			shot := solidPNG(bg, 200, 400)
			e := &episode.Episode{Source: episode.SourceOdyssey, ExternalID: "0000000000000001", Task: "Scroll around",
				Steps: []episode.Step{
					{Index: 0, Observation: shot, Action: episode.Action{Kind: "scroll", Text: "UP",
						Points: []episode.Point{{X: 0.2, Y: 0.8}, {X: 0.8, Y: 0.2}}},
						Extra: map[string]any{"action": "SCROLL", "ps": "[(200, 800), (500, 800), (800, 800), (800, 500), (800, 200)]"}},
					{Index: 1, Observation: shot, Action: episode.Action{Kind: "click", Points: []episode.Point{{X: 0.5, Y: 0.5}}},
						Extra: map[string]any{"action": "CLICK", "ps": "[(500, 500)]"}},
				}}
			if err := st.SaveEpisode(context.Background(), e); err != nil {
				t.Fatal(err)
			}
			_, x, w := openExplorer(t, wf(st))
			x.table.Select(widget.TableCellID{Row: 0, Col: 0})
			v := x.detail.viewer
			w.Canvas().Refresh(v)
			lines, rings, dots, marks := pathMarks(v)
			// Two legs (the points 300 units apart stay) and the arrowhead's two strokes.
			if len(lines) != 6 || rings != 0 || dots != 1 {
				t.Fatalf("scroll: %d lines, %d rings, %d dots", len(lines), rings, dots)
			}
			info, _ := v.Captions()
			if !strings.Contains(info, "along a finger path of 5 points") {
				t.Fatalf("caption %q", info)
			}
			// The path goes through the corner (0.8, 0.8): the first legs end there.
			origin := lines[0].Position1
			corner := lines[1].Position2
			end := lines[3].Position2
			size := fyne.NewSize((corner.X-origin.X)/0.6, (corner.Y-end.Y)/0.6)
			if size.Width < 50 || absf(corner.Y-origin.Y) > 1 || absf(corner.X-end.X) > 1 || end.Y >= corner.Y {
				t.Fatalf("path from %v through %v to %v", origin, corner, end)
			}
			// On screen: the legs are drawn in a colour far from the screenshot's; the straight
			// line from start to end (through the frame's centre) is not drawn.
			img := w.Canvas().Capture()
			scale := float32(img.Bounds().Dx()) / w.Canvas().Size().Width
			abs := fyne.CurrentApp().Driver().AbsolutePositionForObject(marks)
			lum := func(p fyne.Position) int {
				r, g, b, _ := img.At(int((abs.X+p.X)*scale), int((abs.Y+p.Y)*scale)).RGBA()
				return int((299*r + 587*g + 114*b) / 1000 >> 8)
			}
			mid := func(a, b fyne.Position) fyne.Position { return fyne.NewPos((a.X+b.X)/2, (a.Y+b.Y)/2) }
			base := lum(mid(origin, end))
			if want := lum(fyne.NewPos(origin.X-size.Width*0.1, origin.Y-size.Height*0.1)); absInt(base-want) > 10 {
				t.Fatalf("the frame's centre (%d) is not the screenshot (%d): a straight arrow is drawn", base, want)
			}
			for _, p := range []fyne.Position{mid(origin, corner), mid(corner, end)} {
				best := 0
				for d := float32(-6); d <= 6; d++ { // across the line and its halo
					best = max(best, absInt(lum(p.AddXY(0, d))-base), absInt(lum(p.AddXY(d, 0))-base))
				}
				if best < 100 {
					t.Errorf("variant %v on %v: the path at %v differs from the screenshot by %d at most", variant, bg, p, best)
				}
			}
			// A tap is still a ring, with no path.
			v.Seek(1)
			if lines, rings, _, _ := pathMarks(v); len(lines) != 0 || rings != 1 {
				t.Fatalf("click: %d lines, %d rings", len(lines), rings)
			}
		}
	}
}

func absf(f float32) float32 {
	if f < 0 {
		return -f
	}
	return f
}

func absInt(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// A scroll of the sample (a path of 8 points) is drawn through its points; the Explorer fits a
// laptop screen with it on show.
func TestExplorerDrawsTheSampleScrollPath(t *testing.T) {
	x, w := importSample(t)
	w.Resize(uitest.Laptop)
	openByMetaTask(t, x, "Listen to a podcast")
	v := x.detail.viewer
	v.Seek(4) // SCROLL [[548, 854], [540, 426]] with an 8-point ps
	info, _ := v.Captions()
	lines, rings, dots, _ := pathMarks(v)
	if !strings.Contains(info, "scroll") || !strings.Contains(info, "finger path of 8 points") || len(lines) < 3 || rings != 0 || dots != 1 {
		t.Fatalf("%q: %d lines, %d rings, %d dots", info, len(lines), rings, dots)
	}
	uitest.Fits(t, "the Explorer on a scroll", x.Content())
}
