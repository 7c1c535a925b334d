package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// A theme switch restyles only what is on the window at that moment, and the shell keeps each
// open workspace's view off the window while another screen is shown: a workspace left in the
// light theme came back in the dark one with light fills and bright table lines. So a view
// coming back after a theme change is restyled the way fyne restyles the window.

// styleForTheme restyles view when the theme changed since workspace id was last shown.
func (s *Shell) styleForTheme(id string, view fyne.CanvasObject) {
	gen := s.themeGen.Load()
	last, shown := s.styledIn[id]
	s.styledIn[id] = gen
	if shown && last != gen {
		restyle(view)
	}
}

// restyle refreshes every widget under o and lays every container out again (a theme can
// change sizes), children first, as fyne does to a window's content on a theme change.
func restyle(o fyne.CanvasObject) {
	switch c := o.(type) {
	case fyne.Widget:
		r := test.WidgetRenderer(c) // (fyne's renderer cache; no other public way)
		for _, ch := range r.Objects() {
			restyle(ch)
		}
		r.Layout(c.Size())
	case *fyne.Container:
		for _, ch := range c.Objects {
			restyle(ch)
		}
		if c.Layout != nil {
			c.Layout.Layout(c.Objects, c.Size())
		}
	}
	o.Refresh()
}
