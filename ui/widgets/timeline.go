package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
)

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

// Refresh lays the ticks out again and reads the track's and cursor's colours again (fyne
// refreshes every widget when the theme changes).
func (r *timelineRenderer) Refresh() {
	r.track.FillColor = theme.Color(theme.ColorNameInputBackground)
	r.cursor.FillColor = theme.Color(theme.ColorNamePrimary)
	r.Layout(r.t.Size())
	canvas.Refresh(r.t)
}
func (r *timelineRenderer) Objects() []fyne.CanvasObject {
	return append(append([]fyne.CanvasObject{r.track}, r.ticks...), r.cursor)
}
func (r *timelineRenderer) Destroy() {}
