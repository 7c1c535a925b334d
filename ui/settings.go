package ui

import (
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"
)

var themeLabels = map[string]string{ThemeSystem: "Follow the system", ThemeLight: "Light", ThemeDark: "Dark"}

var navLabels = map[string]string{NavAuto: "Names when there is room", NavIcons: "Icons only", NavLabels: "Icons and names"}

func settingsView(s *Shell) fyne.CanvasObject {
	a := fyne.CurrentApp()
	choices := []string{themeLabels[ThemeSystem], themeLabels[ThemeLight], themeLabels[ThemeDark]}
	themeRadio := widget.NewRadioGroup(choices, nil)
	// one theme is always in use: tapping the chosen one again (a double click) must not
	// leave none shown as chosen
	themeRadio.Required = true
	themeRadio.SetSelected(themeLabels[a.Preferences().StringWithFallback(prefTheme, ThemeSystem)])
	themeRadio.OnChanged = func(label string) {
		for id, l := range themeLabels {
			if l == label {
				SetTheme(a, id)
			}
		}
	}

	density := widget.NewCheck("Compact: less space around controls (the text keeps its size)", func(on bool) {
		if on {
			SetDensity(a, DensityCompact)
		} else {
			SetDensity(a, DensityNormal)
		}
	})
	density.Checked = a.Preferences().StringWithFallback(prefDensity, DensityNormal) == DensityCompact

	navChoices := []string{navLabels[NavAuto], navLabels[NavIcons], navLabels[NavLabels]}
	navRadio := widget.NewRadioGroup(navChoices, nil)
	navRadio.Required = true
	navRadio.SetSelected(navLabels[s.navMode()])
	navRadio.OnChanged = func(label string) {
		for id, l := range navLabels {
			if l == label {
				s.SetNavigation(id)
			}
		}
	}
	s.onNavChange = func(mode string) { navRadio.SetSelected(navLabels[mode]) }

	storePath := s.deps.StorePath
	storeLabel := widget.NewLabel(storePath)
	storeLabel.Wrapping = fyne.TextWrapBreak
	if s.deps.Store == nil {
		storeLabel.SetText(storePath + " (not open)")
	}
	openStore := widget.NewButton("Open or create another store…", func() {
		d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
			if err != nil || w == nil {
				return
			}
			path := w.URI().Path()
			w.Close() // the dialog creates an empty file; the store adopts it
			if err := s.switchStore(path); err != nil {
				dialog.ShowError(err, s.win)
			}
		}, s.win)
		d.SetFileName("agentdesk.db")
		d.SetFilter(storage.NewExtensionFileFilter([]string{".db", ".sqlite", ".sqlite3"}))
		if dir := s.deps.DataFolder; dir != "" {
			if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
				d.SetLocation(l)
			}
		}
		d.Show()
	})
	openStore.Disable()
	if s.deps.OpenStore != nil && s.win != nil {
		openStore.Enable()
	}

	recent := container.NewVBox()
	for _, p := range a.Preferences().StringList(prefRecentStores) {
		if p == storePath {
			continue
		}
		recent.Add(widget.NewButton(p, func() {
			if err := s.switchStore(p); err != nil && s.win != nil {
				dialog.ShowError(err, s.win)
			}
		}))
	}

	folder := widget.NewEntry()
	folder.SetText(s.deps.DataFolder)
	folderNote := widget.NewLabel("The default store is " + filepath.Join("<data folder>", "agentdesk.db") +
		". A new folder applies from the next start and to the command line at once.")
	folderNote.Wrapping = fyne.TextWrapWord
	saveFolder := widget.NewButton("Use this data folder", func() {
		if s.deps.SetDataFolder == nil {
			return
		}
		if err := s.deps.SetDataFolder(folder.Text); err != nil {
			if s.win != nil {
				dialog.ShowError(err, s.win)
			}
			return
		}
		s.deps.DataFolder = folder.Text
		folderNote.SetText("Saved: the default store will be " + filepath.Join(folder.Text, "agentdesk.db") + " from the next start.")
	})
	browse := widget.NewButton("Browse…", func() {
		dialog.ShowFolderOpen(func(l fyne.ListableURI, err error) {
			if err == nil && l != nil {
				folder.SetText(l.Path())
			}
		}, s.win)
	})
	if s.win == nil {
		browse.Disable()
	}
	if s.deps.SetDataFolder == nil {
		saveFolder.Disable()
	}

	// The list is in Help › Keyboard shortcuts too; here a button opens the same list rather
	// than repeat it on the page (which then scrolled at 1024x700).
	shortcuts := widget.NewButton("Keyboard shortcuts…", s.showShortcuts)
	shortcutsNote := widget.NewLabel("Also in Help › Keyboard shortcuts; the menus show each command's keys.")
	shortcutsNote.Wrapping = fyne.TextWrapWord

	// Radio groups stand one option a line: fyne's horizontal group gives each option the
	// width of the longest, which left gaps that split the groups into misaligned columns.
	form := widget.NewForm(
		widget.NewFormItem("Theme", themeRadio),
		widget.NewFormItem("Density", density),
		widget.NewFormItem("Navigation", navRadio),
		widget.NewFormItem("Store in use", container.NewVBox(storeLabel, container.NewHBox(openStore), recent)),
		widget.NewFormItem("Data folder", container.NewVBox(
			container.NewBorder(nil, nil, nil, container.NewHBox(browse, saveFolder), folder), folderNote)),
		widget.NewFormItem("Shortcuts", container.NewBorder(nil, nil, shortcuts, nil, shortcutsNote)),
	)
	return container.NewVScroll(form)
}
