package gridworld

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"

	"github.com/agentdesk/agentdesk/ui/widgets"
)

// meter is a thin track in the separator colour, filled in the primary colour up to Value
// (0..1): at 0 it is a grey line, not the solid block fyne's progress bar is at that height.
// Both follow a theme switch (widgets.ThemeFill).
type meter struct {
	*fyne.Container
	Value float64
	fill  *widgets.ThemeFill
}

func newMeter() *meter {
	m := &meter{fill: widgets.NewThemeFill(theme.ColorNamePrimary, 2)}
	track := widgets.NewThemeFill(theme.ColorNameSeparator, 2)
	m.Container = container.New(meterLayout{m}, track, m.fill)
	return m
}

// SetValue sets how much of the track is filled.
func (m *meter) SetValue(v float64) {
	m.Value = min(max(v, 0), 1)
	m.Container.Refresh()
}

type meterLayout struct{ m *meter }

func (meterLayout) MinSize([]fyne.CanvasObject) fyne.Size {
	return fyne.NewSize(0, theme.Padding())
}

func (l meterLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.Position{})
	objs[0].Resize(size)
	objs[1].Move(fyne.Position{})
	objs[1].Resize(fyne.NewSize(size.Width*float32(l.m.Value), size.Height))
}
