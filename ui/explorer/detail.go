package explorer

import (
	"context"
	"fmt"
	"image"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/odyssey"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// thumbHeight is the height of a step thumbnail; frames are scaled down once, off the UI
// goroutine, so a 2400-pixel screenshot costs a few kilobytes while it is listed.
const thumbHeight = 84

// explorerDetail shows the selected episode: what it is, its steps as thumbnails, and the
// shared frame viewer with the actions drawn over the frames.
type explorerDetail struct {
	x   *Workspace
	ep  *episode.Episode
	row episode.Row
	// gen counts the episodes opened; work for an earlier one is dropped.
	gen     atomic.Int64
	title   *widget.Label
	device  *widget.Label   // a GUI Odyssey episode's device_info, under the title
	head    *fyne.Container // the title line
	page    *fyne.Container // head over the viewer and, beside it, the texts and the thumbnails
	empty   *fyne.Container // what the pane says while no episode is selected (page hidden)
	side    *fyne.Container // the texts over the thumbnails, beside the frame
	text    *widget.RichText
	viewer  *widgets.FrameViewer
	thumbs  *widget.GridWrap
	demoBtn *widget.Button
	content fyne.CanvasObject

	mu     sync.Mutex
	images map[int]image.Image // thumbnails by step, of the episode on show
}

func newExplorerDetail(x *Workspace) *explorerDetail {
	d := &explorerDetail{x: x, images: map[int]image.Image{}}
	d.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	d.title.Truncation = fyne.TextTruncateEllipsis // one line: the frame gets the height
	d.device = widget.NewLabel("")
	d.device.Wrapping = fyne.TextWrapWord
	d.device.Hide()
	d.text = widget.NewRichText()
	d.text.Wrapping = fyne.TextWrapWord
	d.viewer = widgets.NewFrameViewer()
	d.viewer.SetRun(x.host.Go)
	d.viewer.SetTrajectory(func(s *episode.Step) []episode.Point {
		if d.ep == nil || d.ep.Source != episode.SourceOdyssey {
			return nil
		}
		return odyssey.PathOf(s) // a scroll's recorded finger path
	})
	d.viewer.OnStep(func(i int) {
		d.thumbs.Select(i)
		d.thumbs.ScrollTo(i)
		d.relayoutSide() // the step's captions came with another height
	})
	d.thumbs = widget.NewGridWrap(
		func() int {
			if d.ep == nil {
				return 0
			}
			return len(d.ep.Steps)
		},
		func() fyne.CanvasObject {
			img := canvas.NewImageFromImage(image.NewRGBA(image.Rect(0, 0, 1, 1)))
			img.FillMode = canvas.ImageFillContain
			img.SetMinSize(fyne.NewSize(thumbWidth(), thumbHeight))
			// two lines, the step's number over its action, as wide as the longest action
			// kind: on one line "1 long_press" was cut to "1 lon…"
			l := widget.NewLabel("00\n" + longestActionKind)
			l.Truncation = fyne.TextTruncateEllipsis
			l.SizeName = theme.SizeNameCaptionText
			return container.NewBorder(nil, l, nil, nil, img)
		},
		func(i widget.GridWrapItemID, o fyne.CanvasObject) {
			c := o.(*fyne.Container)
			img := c.Objects[0].(*canvas.Image)
			l := c.Objects[1].(*widget.Label)
			if d.ep == nil || i >= len(d.ep.Steps) {
				return
			}
			l.SetText(thumbCaption(i, d.ep.Steps[i].Action.Kind))
			d.mu.Lock()
			th, ok := d.images[i]
			d.mu.Unlock()
			if !ok {
				th = image.NewRGBA(image.Rect(0, 0, 1, 1))
			}
			if img.Image != th {
				img.Image = th
				img.Refresh()
			}
		},
	)
	d.thumbs.OnSelected = func(i widget.GridWrapItemID) {
		if i != d.viewer.Index() {
			d.viewer.Seek(i)
		}
	}
	d.demoBtn = widget.NewButtonWithIcon("Open in Demonstrations", theme.MediaVideoIcon(), d.openInDemonstrations)
	d.demoBtn.Hide()
	// The frame takes the pane's height, its step controls under it (the layout of CVAT's and
	// Rerun's viewers: the picture in the middle, the time line and the player under it, what
	// describes it in a column beside). Beside the frame: the step's captions, the episode's
	// device, task, meta-task, notes and instruction (scrolling), and the step thumbnails.
	captions := d.viewer.SetCaptionsApart()
	facts := container.NewVBox(captions, widget.NewSeparator(), d.device, d.text)
	// the texts take the height they need (wrapped to the column), scrolling only past what
	// leaves the thumbnails a row; a splitter at half the height cut them mid-sentence
	d.side = container.New(&factsOverThumbs{}, container.NewVScroll(facts), widget.NewSeparator(), d.thumbs)
	body := container.NewHSplit(d.viewer, d.side)
	body.Offset = 0.64
	d.viewer.SetMinFrameSize(fyne.NewSize(120, 160))
	d.viewer.SetEpisode(nil, nil) // empty, without controls, until an episode is selected
	d.head = container.NewBorder(nil, nil, nil, d.demoBtn, d.title)
	d.page = container.NewBorder(d.head, nil, nil, nil, body)
	d.page.Hide()
	// with nothing selected: what to do, instead of empty panes and stray splitter handles
	hint := widget.NewLabel(noEpisode)
	hint.Wrapping = fyne.TextWrapWord
	hint.Alignment = fyne.TextAlignCenter
	keys := widget.NewLabel("Its frames show here with the actions drawn over them; Left and Right step through them, Space plays.")
	keys.Wrapping = fyne.TextWrapWord
	keys.Alignment = fyne.TextAlignCenter
	keys.Importance = widget.LowImportance
	d.empty = container.NewVBox(layout.NewSpacer(), hint, keys, layout.NewSpacer())
	d.content = container.NewStack(d.page, container.NewPadded(d.empty))
	return d
}

// noEpisode is what the pane says while no episode is selected.
const noEpisode = "Select an episode in the list to see its steps."

// longestActionKind is the longest action kind a thumbnail's caption names (GUI Odyssey's).
const longestActionKind = "long_press"

// thumbWidth is a thumbnail's width: the longest action kind's caption fits under it.
func thumbWidth() float32 {
	text := fyne.MeasureText(longestActionKind, theme.CaptionTextSize(), fyne.TextStyle{})
	return max(52, float32(math.Ceil(float64(text.Width+2*theme.InnerPadding()))))
}

// thumbCaption is a step thumbnail's caption: its number (from 1) over its action.
func thumbCaption(i int, kind string) string { return fmt.Sprintf("%d\n%s", i+1, kind) }

// relayoutSide gives the texts beside the frame the height they now need (a scroll does not
// pass its content's growth on).
func (d *explorerDetail) relayoutSide() {
	if d.side != nil {
		d.side.Layout.Layout(d.side.Objects, d.side.Size())
	}
}

// setEmpty shows the empty state (no episode) or the episode's page.
func (d *explorerDetail) setEmpty(empty bool) {
	if empty {
		d.page.Hide()
		d.empty.Show()
	} else {
		d.empty.Hide()
		d.page.Show()
	}
}

// factsOverThumbs lays the side column out: the episode's texts (a scroll) at the height they
// need, up to what leaves the thumbnails at least a row, a separator, the thumbnails under.
type factsOverThumbs struct{}

func (factsOverThumbs) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	facts, sep, thumbs := objs[0].(*container.Scroll), objs[1], objs[2]
	pad := theme.Padding()
	need := facts.Content.MinSize().Height
	if w := size.Width; w > 0 { // the texts wrap at the column's width: measure them there
		facts.Content.Resize(fyne.NewSize(w, need))
		need = facts.Content.MinSize().Height
	}
	room := size.Height - thumbs.MinSize().Height - 2*pad - sep.MinSize().Height
	h := max(min(need, room), min(size.Height/3, need))
	facts.Move(fyne.Position{})
	facts.Resize(fyne.NewSize(size.Width, h))
	sep.Move(fyne.NewPos(0, h+pad))
	sep.Resize(fyne.NewSize(size.Width, sep.MinSize().Height))
	y := h + 2*pad + sep.MinSize().Height
	thumbs.Move(fyne.NewPos(0, y))
	thumbs.Resize(fyne.NewSize(size.Width, max(size.Height-y, 0)))
}

func (factsOverThumbs) MinSize(objs []fyne.CanvasObject) fyne.Size {
	w := max(objs[0].MinSize().Width, objs[2].MinSize().Width)
	return fyne.NewSize(w, objs[0].MinSize().Height+objs[2].MinSize().Height+2*theme.Padding())
}

// clear empties the pane: no episode is selected (any more).
func (d *explorerDetail) clear() {
	d.gen.Add(1) // an episode still loading is not shown
	d.ep, d.row = nil, episode.Row{}
	d.mu.Lock()
	d.images = map[int]image.Image{}
	d.mu.Unlock()
	d.title.SetText("")
	d.setEmpty(true)
	d.device.Hide()
	d.text.Segments = nil
	d.text.Refresh()
	d.demoBtn.Hide()
	d.viewer.SetEpisode(nil, nil)
	d.thumbs.UnselectAll()
	d.thumbs.Refresh()
}

// showing reports whether the pane shows (or is loading) the episode with this id.
func (d *explorerDetail) showing(id int64) bool { return d.row.ID == id && id != 0 }

// open loads an episode off the UI goroutine and shows it.
func (d *explorerDetail) open(r episode.Row) {
	gen, st := d.gen.Add(1), d.x.st
	d.row = r
	d.setEmpty(false)
	d.title.SetText(fmt.Sprintf("Loading %s/%s…", r.Source, r.ExternalID))
	var e *episode.Episode
	var err error
	workspace.Run(d.x.host, nil, func(context.Context) {
		e, err = st.Episode(context.Background(), r.ID)
	}, func() {
		if gen != d.gen.Load() {
			return
		}
		if err != nil {
			d.title.SetText("Cannot open the episode: " + err.Error())
			return
		}
		d.show(e, r)
	})
}

func (d *explorerDetail) show(e *episode.Episode, r episode.Row) {
	d.ep = e
	d.setEmpty(false)
	d.mu.Lock()
	d.images = map[int]image.Image{}
	d.mu.Unlock()
	var facts []string
	for _, f := range []string{episode.FacetCategory, episode.FacetDevice, episode.FacetApp} {
		if vs := e.Facets[f]; len(vs) > 0 {
			facts = append(facts, strings.Join(vs, ", "))
		}
	}
	facts = append(facts, widgets.Plural(len(e.Steps), "step"))
	if rw := e.TotalReward(); rw != 0 {
		facts = append(facts, fmt.Sprintf("reward %.3g", rw))
	}
	d.title.SetText(fmt.Sprintf("%s/%s · %s", e.Source, e.ExternalID, strings.Join(facts, " · ")))
	var segs []widget.RichTextSegment
	addText := func(label, plain, marked string) {
		if plain == "" {
			return
		}
		segs = append(segs, &widget.TextSegment{Text: label + ": ", Style: widget.RichTextStyle{Inline: true, TextStyle: fyne.TextStyle{Bold: true}}})
		if marked == "" {
			marked = plain
		}
		segs = append(segs, markedSegments(marked, true)...)
		segs = append(segs, &widget.TextSegment{Text: "", Style: widget.RichTextStyleParagraph})
	}
	addText("Task", e.Task, r.TaskMarked)
	addText("Meta-task", e.MetaTask, r.MetaTaskMarked)
	if e.Source == episode.SourceOdyssey {
		// GUI Odyssey's only annotator remarks: the ps of a COMPLETE or INCOMPLETE step
		for _, n := range odyssey.NotesOf(e.Steps) {
			addText(fmt.Sprintf("Annotator's note (step %d, %s)", n.Step+1, n.Action), n.Text, "")
		}
	}
	if e.Instruction != e.Task {
		addText("Instruction", e.Instruction, r.InstructionMarked)
	}
	if dev, ok := odyssey.DeviceOf(e.Metadata); ok && e.Source == episode.SourceOdyssey {
		d.device.SetText("Device: " + describeDevice(dev))
		d.device.Show()
	} else {
		d.device.Hide()
	}
	d.text.Segments = segs
	d.text.Refresh()
	d.demoBtn.Hidden = !d.canOpenInDemonstrations()
	d.demoBtn.Refresh()
	d.viewer.SetEpisode(e, d.x.frames.fitted)
	d.page.Refresh() // the texts came with another height: lay the page out again
	d.relayoutSide()
	d.thumbs.UnselectAll()
	d.thumbs.Refresh()
	d.thumbs.ScrollToTop()
	d.makeThumbnails(e)
}

// describeDevice says what device_info records: "Pixel 7 Pro · product sdk_gphone64_x86_64 ·
// release 14 · SDK 34 · 1440 × 3120 px", leaving out what is not recorded.
func describeDevice(d odyssey.Device) string {
	var parts []string
	if d.Name != "" {
		parts = append(parts, d.Name)
	}
	if d.Product != "" {
		parts = append(parts, "product "+d.Product)
	}
	if d.Release != "" {
		parts = append(parts, "release "+d.Release)
	}
	if d.SDK != "" {
		parts = append(parts, "SDK "+d.SDK)
	}
	if d.W > 0 && d.H > 0 {
		parts = append(parts, fmt.Sprintf("%d × %d px", d.W, d.H))
	}
	return strings.Join(parts, " · ")
}

// makeThumbnails decodes and scales down every frame in the background, refreshing the strip
// as they come.
func (d *explorerDetail) makeThumbnails(e *episode.Episode) {
	gen := d.gen.Load()
	d.x.host.Go(func() {
		for i := range e.Steps {
			if gen != d.gen.Load() {
				return
			}
			img, err := d.x.frames.load(&e.Steps[i])
			if err != nil {
				continue
			}
			th := thumbnail(img, thumbHeight)
			d.mu.Lock()
			if gen == d.gen.Load() {
				d.images[i] = th
			}
			d.mu.Unlock()
			if i%6 == 5 || i == len(e.Steps)-1 {
				fyne.Do(func() {
					if gen == d.gen.Load() {
						d.thumbs.Refresh()
					}
				})
			}
		}
	})
}

// frameMaxSide bounds the frames the viewers keep: a phone screenshot (1080x2400, 10 MB
// decoded) is drawn a few hundred pixels tall, and the viewer keeps dozens of frames.
const frameMaxSide = 1200

// pickleSource is the annotation file and trajectory a Mobile-Env episode came from.
func pickleSource(e *episode.Episode) (path string, traj int, ok bool) {
	if e == nil || e.Source != episode.SourceMobileEnv {
		return "", 0, false
	}
	path, _ = e.Metadata["file"].(string)
	// The external id ends in the trajectory's index in the file as saved ("demo.pkl#3"); the
	// metadata's index counts the trajectories shown when it was imported, which differs when
	// some were removed in the editor before importing.
	if i := strings.LastIndexByte(e.ExternalID, '#'); i >= 0 {
		if n, err := strconv.Atoi(e.ExternalID[i+1:]); err == nil {
			return path, n, path != ""
		}
	}
	switch t := e.Metadata["trajectory"].(type) {
	case float64:
		traj = int(t)
	case int:
		traj = t
	default:
		return "", 0, false
	}
	return path, traj, path != ""
}

func (d *explorerDetail) canOpenInDemonstrations() bool {
	_, _, ok := pickleSource(d.ep)
	return ok
}

// openInDemonstrations opens the episode's source pickle in the Demonstrations editor at its
// trajectory.
func (d *explorerDetail) openInDemonstrations() {
	path, traj, ok := pickleSource(d.ep)
	if !ok {
		return
	}
	// the Demonstrations workspace asks about its own unsaved edits first
	if err := d.x.host.OpenFile(path, traj); err != nil {
		workspace.Errorf(d.x.host.Window(), "cannot open %s: %w", path, err)
	}
}
