package gridworld

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/ui/widgets"
)

// meter is a thin track in the separator colour, filled in the primary colour up to Value
// (0..1): at 0 it is a grey line, not the solid block fyne's progress bar is at that height.
// Both follow a theme switch (widgets.ThemeFill).
type meter struct {
	widget.BaseWidget
	Value       float64
	track, fill *widgets.ThemeFill
}

func newMeter() *meter {
	m := &meter{track: widgets.NewThemeFill(theme.ColorNameSeparator, 2), fill: widgets.NewThemeFill(theme.ColorNamePrimary, 2)}
	m.ExtendBaseWidget(m)
	return m
}

// SetValue sets how much of the track is filled.
func (m *meter) SetValue(v float64) {
	m.Value = min(max(v, 0), 1)
	m.Refresh()
}

func (m *meter) CreateRenderer() fyne.WidgetRenderer { return &meterRenderer{m} }

type meterRenderer struct{ m *meter }

func (r *meterRenderer) MinSize() fyne.Size { return fyne.NewSize(0, theme.Padding()) }

func (r *meterRenderer) Layout(size fyne.Size) {
	r.m.track.Move(fyne.Position{})
	r.m.track.Resize(size)
	r.m.fill.Move(fyne.Position{})
	r.m.fill.Resize(fyne.NewSize(size.Width*float32(r.m.Value), size.Height))
	r.m.fill.Hidden = r.m.Value == 0 // rounded corners of nothing still draw a dot
}

func (r *meterRenderer) Refresh() {
	r.Layout(r.m.Size())
	r.m.track.Refresh()
	r.m.fill.Refresh()
}

func (r *meterRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.m.track, r.m.fill}
}
func (r *meterRenderer) Destroy() {}
