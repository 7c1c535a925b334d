package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Screen is one entry of the navigation: Home, a workspace, Settings or About.
type Screen struct {
	ID    string
	Title string
	Icon  fyne.Resource
	// Intro says in a line what the screen is for: beside its title in the header line, and
	// in the navigation entry's tooltip.
	Intro string
	// View builds the shell's own screens (Home, Settings, About) each time they are shown.
	View func(s *Shell) fyne.CanvasObject
	// Workspace describes a workspace's screen; the shell creates the workspace once and keeps it.
	Workspace *workspace.Registration
}

// Ids of the shell's own screens; the workspaces' ids are in package workspace.
const (
	ScreenHome     = "home"
	ScreenSettings = "settings"
	ScreenAbout    = "about"
)

// screens is the navigation: Home, the workspaces in the order given, Settings, About.
func screens(regs []workspace.Registration) []*Screen {
	out := []*Screen{{ID: ScreenHome, Title: "Home", Icon: theme.HomeIcon(),
		Intro: "What this store holds, and where to go next.", View: homeView}}
	for i := range regs {
		r := &regs[i]
		out = append(out, &Screen{ID: r.ID, Title: r.Title, Icon: r.Icon, Intro: r.Intro, Workspace: r})
	}
	return append(out,
		&Screen{ID: ScreenSettings, Title: "Settings", Icon: theme.SettingsIcon(),
			Intro: "Appearance and where your data lives.", View: settingsView},
		&Screen{ID: ScreenAbout, Title: "About", Icon: theme.InfoIcon(),
			Intro: "Version and the licences of the software Agentdesk is built from.", View: aboutView})
}
