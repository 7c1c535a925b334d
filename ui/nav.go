package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/ui/widgets"
)

// The navigation is an activity bar in the manner of VS Code's: a column of the screens'
// icons on the window's left edge, with their names beside them when there is room. It
// collapses to the icons alone below navAutoWidth (a 1024 or 1280 px laptop screen: the
// workspaces need the width more than the names, which the icons' tooltips still give), or
// always, or never, as the user chooses (Settings, or the button at its top).

// Navigation modes (preference prefNav).
const (
	NavAuto   = "auto"   // icons alone below navAutoWidth, names beside them above it
	NavIcons  = "icons"  // always the icons alone
	NavLabels = "labels" // always icons and names
)

// navAutoWidth is the window width below which the automatic navigation shows icons alone.
const navAutoWidth = 1200

// navRail is the navigation column.
type navRail struct {
	shell     *Shell
	toggle    *widgets.TipButton
	entries   []*widgets.TipButton
	selected  int
	collapsed bool
	box       *fyne.Container
}

func newNavRail(s *Shell) *navRail {
	n := &navRail{shell: s, selected: -1}
	n.toggle = widgets.NewTipButton("", theme.MenuIcon(), n.toggled)
	n.toggle.Importance = widget.LowImportance
	objs := []fyne.CanvasObject{n.toggle, widget.NewSeparator()}
	for i, sc := range s.screens {
		tip := sc.Title
		if sc.Intro != "" {
			tip += ": " + sc.Intro
		}
		b := widgets.NewTipTextButton(sc.Title, tip, sc.Icon, func() { n.Select(i) })
		b.Alignment = widget.ButtonAlignLeading
		b.Importance = widget.LowImportance
		n.entries = append(n.entries, b)
		objs = append(objs, b)
	}
	n.box = container.NewVBox(objs...)
	n.setCollapsed(false)
	return n
}

// Select shows the i-th screen, as a click on its entry does.
func (n *navRail) Select(i int) {
	if i < 0 || i >= len(n.entries) {
		return
	}
	n.shell.Show(n.shell.screens[i].ID)
}

// mark highlights the i-th entry.
func (n *navRail) mark(i int) {
	if n.selected == i {
		return
	}
	if n.selected >= 0 {
		n.entries[n.selected].Importance = widget.LowImportance
		n.entries[n.selected].Refresh()
	}
	n.selected = i
	n.entries[i].Importance = widget.HighImportance
	n.entries[i].Refresh()
}

// setCollapsed shows the icons alone (true) or with the screens' names.
func (n *navRail) setCollapsed(c bool) {
	n.collapsed = c
	for i, b := range n.entries {
		if c {
			b.Text = ""
		} else {
			b.Text = n.shell.screens[i].Title
		}
		b.Refresh()
	}
	if c {
		n.toggle.Tip = "Show the screens' names in the navigation"
	} else {
		n.toggle.Tip = "Show the navigation as icons only"
	}
	n.box.Refresh()
}

// toggled is the button at the top: it fixes the mode opposite to what is shown now.
func (n *navRail) toggled() {
	mode := NavIcons
	if n.collapsed {
		mode = NavLabels
	}
	n.shell.SetNavigation(mode)
}

// shellLayout places the navigation at the left, as wide as it needs, and the screen in the
// rest; it collapses the navigation as its mode and the window's width say.
type shellLayout struct{ s *Shell }

func (l shellLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	nav, main := objs[0], objs[1]
	if c := l.s.navCollapsed(size.Width); c != l.s.nav.collapsed {
		l.s.nav.setCollapsed(c)
	}
	w := nav.MinSize().Width
	nav.Move(fyne.NewPos(0, 0))
	nav.Resize(fyne.NewSize(w, size.Height))
	main.Move(fyne.NewPos(w, 0))
	main.Resize(fyne.NewSize(size.Width-w, size.Height))
}

func (l shellLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	nav, main := objs[0].MinSize(), objs[1].MinSize()
	return fyne.NewSize(nav.Width+main.Width, max(nav.Height, main.Height))
}

// navCollapsed says whether the navigation shows icons alone in a window width wide.
func (s *Shell) navCollapsed(width float32) bool {
	switch s.navMode() {
	case NavIcons:
		return true
	case NavLabels:
		return false
	}
	return width < navAutoWidth
}

func (s *Shell) navMode() string {
	return fyne.CurrentApp().Preferences().StringWithFallback(prefNav, NavAuto)
}

// SetNavigation sets the navigation's mode (NavAuto, NavIcons, NavLabels) and remembers it.
func (s *Shell) SetNavigation(mode string) {
	if s.navMode() == mode {
		return
	}
	fyne.CurrentApp().Preferences().SetString(prefNav, mode)
	s.root.Refresh() // lays the shell out again, which applies the mode
	if s.onNavChange != nil {
		s.onNavChange(mode)
	}
}
