package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/ui/workspace"
)

// The main menu holds the standard shortcuts. fyne gives the window's main menu the first say
// over every key combination, before the focused widget, so Ctrl+S, Ctrl+Q and Alt+1..8 work
// inside a text field too; undo and redo go on to the focused field when the workspace does not
// take them.

var (
	ctrl      = fyne.KeyModifierShortcutDefault
	ctrlShift = fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift
)

// menuCommand is a standard command with its menu label and shortcuts.
type menuCommand struct {
	cmd   workspace.Command
	label string
	keys  []fyne.Shortcut
}

var fileCommands = []menuCommand{
	{workspace.Open, "Open…", []fyne.Shortcut{&desktop.CustomShortcut{KeyName: fyne.KeyO, Modifier: ctrl}}},
	{workspace.Save, "Save", []fyne.Shortcut{&desktop.CustomShortcut{KeyName: fyne.KeyS, Modifier: ctrl}}},
	{workspace.SaveAs, "Save as…", []fyne.Shortcut{&desktop.CustomShortcut{KeyName: fyne.KeyS, Modifier: ctrlShift}}},
}

var editCommands = []menuCommand{
	{workspace.Undo, "Undo", []fyne.Shortcut{&fyne.ShortcutUndo{}}},
	{workspace.Redo, "Redo", []fyne.Shortcut{&desktop.CustomShortcut{KeyName: fyne.KeyZ, Modifier: ctrlShift}, &fyne.ShortcutRedo{}}},
	{workspace.Find, "Find", []fyne.Shortcut{&desktop.CustomShortcut{KeyName: fyne.KeyF, Modifier: ctrl}}},
}

var quitShortcut = &desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: ctrl}

// screenKeys are Alt+1 to Alt+8, the screens in navigation order.
var screenKeys = []fyne.KeyName{fyne.Key1, fyne.Key2, fyne.Key3, fyne.Key4, fyne.Key5, fyne.Key6, fyne.Key7, fyne.Key8}

// MainMenu is the window's menu: File (open, save, save as, quit), Edit (undo, redo, find),
// Go (every screen) and Help (shortcuts, about). quit ends the app; it runs once every
// workspace's unsaved work is settled.
func (s *Shell) MainMenu(quit func()) *fyne.MainMenu {
	// a command with a second shortcut (Redo: Ctrl+Shift+Z and Ctrl+Y) gets a second entry
	// naming it, as fyne's menu items have one shortcut each
	item := func(label string, run func(), keys ...fyne.Shortcut) []*fyne.MenuItem {
		var items []*fyne.MenuItem
		for i, k := range keys {
			it := fyne.NewMenuItem(label, run)
			if i > 0 {
				it.Label += " (" + shortcutText(k) + ")"
			}
			it.Shortcut = k
			items = append(items, it)
		}
		return items
	}
	var file, edit, goItems []*fyne.MenuItem
	for _, c := range fileCommands {
		file = append(file, item(c.label, s.command(c.cmd), c.keys...)...)
	}
	file = append(file, fyne.NewMenuItemSeparator())
	q := fyne.NewMenuItem("Quit", func() { s.Quit(quit) })
	q.Shortcut = quitShortcut
	q.IsQuit = true
	file = append(file, q)
	for _, c := range editCommands {
		edit = append(edit, item(c.label, s.command(c.cmd), c.keys...)...)
	}
	for i, sc := range s.screens {
		it := fyne.NewMenuItem(sc.Title, func() { s.Show(sc.ID) })
		if i < len(screenKeys) {
			it.Shortcut = &desktop.CustomShortcut{KeyName: screenKeys[i], Modifier: fyne.KeyModifierAlt}
		}
		goItems = append(goItems, it)
	}
	help := []*fyne.MenuItem{
		fyne.NewMenuItem("Keyboard shortcuts", s.showShortcuts),
		fyne.NewMenuItem("About Agentdesk", func() { s.Show(ScreenAbout) }),
	}
	return fyne.NewMainMenu(
		fyne.NewMenu("File", file...),
		fyne.NewMenu("Edit", edit...),
		fyne.NewMenu("Go", goItems...),
		fyne.NewMenu("Help", help...),
	)
}

// command runs c in the workspace on show; undo and redo it does not take go to the focused
// text field, as its own shortcut would.
func (s *Shell) command(c workspace.Command) func() {
	return func() {
		if s.current != nil && s.current.Workspace != nil {
			if cmds, ok := s.open[s.current.ID].(workspace.Commands); ok && cmds.Do(c) {
				return
			}
		}
		if s.win == nil {
			return
		}
		focused, ok := s.win.Canvas().Focused().(fyne.Shortcutable)
		if !ok {
			return
		}
		switch c {
		case workspace.Undo:
			focused.TypedShortcut(&fyne.ShortcutUndo{})
		case workspace.Redo:
			focused.TypedShortcut(&fyne.ShortcutRedo{})
		}
	}
}

// Shortcuts lists the app's keyboard shortcuts, a line each: the keys, a tab, what they do.
func (s *Shell) Shortcuts() []string {
	var out []string
	for _, group := range [][]menuCommand{fileCommands, editCommands} {
		for _, c := range group {
			keys := make([]string, len(c.keys))
			for i, k := range c.keys {
				keys[i] = shortcutText(k)
			}
			out = append(out, strings.Join(keys, " or ")+"\t"+strings.TrimSuffix(c.label, "…"))
		}
	}
	out = append(out, shortcutText(quitShortcut)+"\tQuit (asks about unsaved work first)",
		"Esc\tClose the dialog on top (as its Cancel or Close does)")
	for i, sc := range s.screens {
		if i < len(screenKeys) {
			out = append(out, fmt.Sprintf("Alt+%d\t%s", i+1, sc.Title))
		}
	}
	return append(out,
		"Left, Right\tthe frame viewer: previous, next step (Shift: ten steps); Home, End; Space plays",
		"1-9, arrows, Enter\tEvaluation pages: answer the focused turn, move between turns, go on",
		"W A S D, Space, C, arrows, 1-6, Q, E\tGridworld: move, jump, down, look, colour, break, place")
}

// shortcutText writes a shortcut as people read it: "Ctrl+Shift+S".
func shortcutText(sc fyne.Shortcut) string {
	switch k := sc.(type) {
	case *desktop.CustomShortcut:
		var parts []string
		if k.Modifier&(fyne.KeyModifierControl|fyne.KeyModifierSuper) != 0 {
			parts = append(parts, "Ctrl")
		}
		if k.Modifier&fyne.KeyModifierAlt != 0 {
			parts = append(parts, "Alt")
		}
		if k.Modifier&fyne.KeyModifierShift != 0 {
			parts = append(parts, "Shift")
		}
		return strings.Join(append(parts, string(k.KeyName)), "+")
	case *fyne.ShortcutUndo:
		return "Ctrl+Z"
	case *fyne.ShortcutRedo:
		return "Ctrl+Y"
	}
	return sc.ShortcutName()
}

// shortcutsView is the list of shortcuts, for Help (and Settings' button).
func (s *Shell) shortcutsView() fyne.CanvasObject {
	lines := s.Shortcuts()
	grid := container.New(&columnsLayout{}, nil...)
	for _, l := range lines {
		keys, what, _ := strings.Cut(l, "\t")
		k := widget.NewLabelWithStyle(keys, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		w := widget.NewLabel(what)
		w.Wrapping = fyne.TextWrapWord
		grid.Add(k)
		grid.Add(w)
	}
	return grid
}

func (s *Shell) showShortcuts() {
	if s.win == nil {
		return
	}
	d := dialog.NewCustom("Keyboard shortcuts", "Close", workspace.Scrolled(s.win, s.shortcutsView()), s.win)
	workspace.Resize(d, s.win, fyne.NewSize(640, 560))
	d.Show()
}

// columnsLayout lays pairs of objects out as two columns: the first as wide as its widest
// object, the second taking the rest and wrapping.
type columnsLayout struct{}

func (columnsLayout) keyWidth(objs []fyne.CanvasObject) float32 {
	w := float32(0)
	for i := 0; i < len(objs); i += 2 {
		w = max(w, objs[i].MinSize().Width)
	}
	return min(w, 260)
}

func (c columnsLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	kw, y := c.keyWidth(objs), float32(0)
	for i := 0; i+1 < len(objs); i += 2 {
		objs[i+1].Resize(fyne.NewSize(size.Width-kw, objs[i+1].MinSize().Height))
		h := max(objs[i].MinSize().Height, objs[i+1].MinSize().Height)
		objs[i].Move(fyne.NewPos(0, y))
		objs[i].Resize(fyne.NewSize(kw, h))
		objs[i+1].Move(fyne.NewPos(kw, y))
		objs[i+1].Resize(fyne.NewSize(size.Width-kw, h))
		y += h
	}
}

func (c columnsLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	kw, h, w := c.keyWidth(objs), float32(0), float32(0)
	for i := 0; i+1 < len(objs); i += 2 {
		h += max(objs[i].MinSize().Height, objs[i+1].MinSize().Height)
		w = max(w, objs[i+1].MinSize().Width)
	}
	return fyne.NewSize(kw+w, h)
}
