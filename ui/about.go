package ui

import (
	"fmt"
	"runtime"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

func aboutView(s *Shell) fyne.CanvasObject {
	var logo fyne.CanvasObject = widget.NewLabel("")
	if s.deps.Icon != nil {
		img := canvas.NewImageFromResource(s.deps.Icon)
		img.FillMode = canvas.ImageFillContain
		img.SetMinSize(fyne.NewSize(96, 96))
		logo = img
	}
	name := widget.NewLabelWithStyle("Agentdesk", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	version := widget.NewLabel(fmt.Sprintf("Version %s · built with %s for %s/%s",
		s.deps.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH))
	blurb := widget.NewLabel("A desktop workbench for people who make and judge data for AI agents: " +
		"voxel building, demonstrations, task templates, human evaluation and episode datasets over one local store.")
	blurb.Wrapping = fyne.TextWrapWord

	lic := s.deps.Licenses
	text := widget.NewLabel("")
	text.Wrapping = fyne.TextWrapWord
	text.TextStyle = fyne.TextStyle{Monospace: true}
	list := widget.NewList(
		func() int { return len(lic) },
		func() fyne.CanvasObject { return widget.NewLabel("github.com/example/module v0.0.0 · BSD-3-Clause") },
		func(id widget.ListItemID, o fyne.CanvasObject) {
			o.(*widget.Label).SetText(fmt.Sprintf("%s %s · %s", lic[id].Module, lic[id].Version, lic[id].Name))
		},
	)
	list.OnSelected = func(id widget.ListItemID) { text.SetText(lic[id].Text) }
	if len(lic) > 0 {
		list.Select(0)
	}
	heading := widget.NewLabel(fmt.Sprintf("Agentdesk is built from these %d modules; select one to read its licence:", len(lic)))
	licences := container.NewHSplit(list, container.NewVScroll(text))
	licences.Offset = 0.45
	top := container.NewBorder(nil, nil, logo, nil, container.NewVBox(name, version, blurb))
	return container.NewBorder(container.NewVBox(top, widget.NewSeparator(), heading), nil, nil, nil, licences)
}
