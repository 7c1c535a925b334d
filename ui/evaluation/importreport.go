package evaluation

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// importReportList shows an import report as one scrolling list: what was imported, the
// warnings, every file of the folder grouped as read (into what), of other configurations
// (which) and ignored (why), then the configuration's settings understood and ignored.
func importReportList(rep *ev.ImportReport) *container.Scroll {
	box := container.NewVBox()
	line := func(text string) {
		l := widget.NewLabel(text)
		l.Wrapping = fyne.TextWrapWord
		box.Add(l)
	}
	head := func(text string) {
		l := widget.NewLabelWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		l.Wrapping = fyne.TextWrapWord
		box.Add(l)
	}
	if rep == nil {
		line("No import report.")
		return container.NewVScroll(box)
	}
	from := "From " + rep.Folder
	switch {
	case rep.Project != "" && rep.Config != "":
		from += fmt.Sprintf(" (project folder %s), configuration %s", rep.Project, rep.Config)
	case rep.Config != "":
		from += ", configuration " + rep.Config
	}
	line(from)
	if len(rep.Files) > 0 {
		line(fmt.Sprintf("Every file of the folder, %d in all: %d read, %d of other configurations, %d ignored.",
			rep.FileCount(""), rep.FileCount(ev.FileRead), rep.FileCount(ev.FileOtherConfig), rep.FileCount(ev.FileIgnored)))
	}
	items := func(title string, sev ev.Severity) {
		its := rep.Filter(sev)
		if len(its) == 0 {
			return
		}
		head(fmt.Sprintf("%s (%d)", title, len(its)))
		for _, it := range its {
			var parts []string
			for _, p := range []string{it.File, it.Where, it.Message} {
				if p != "" {
					parts = append(parts, p)
				}
			}
			line(strings.Join(parts, " — "))
		}
	}
	items("Warnings", ev.Warning)
	titles, groups := rep.FileSections()
	for i, es := range groups {
		n := 0
		for _, e := range es {
			n += e.Files
		}
		head(fmt.Sprintf("%s (%d)", titles[i], n))
		for _, e := range es {
			path := e.Path
			if e.Files > 1 || strings.HasSuffix(path, "/") {
				path = fmt.Sprintf("%s (%d files)", path, e.Files)
			}
			line(path + " — " + e.Note)
		}
	}
	items("Settings understood", ev.Understood)
	items("Settings ignored", ev.Ignored)
	return container.NewVScroll(box)
}
