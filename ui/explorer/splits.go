package explorer

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// explorerSplits is the Splits tab: every split with its part sizes; make a user split from
// the current filter or a seeded random train/test split of it; export a split in the official
// split-file format; show a split's episodes; delete splits made here.
type explorerSplits struct {
	x      *Workspace
	list   []episode.SplitSummary
	sel    int
	table  *widget.List
	status *widget.Label
	// note is the outcome of the last action, kept above the list's summary.
	note    string
	export  *widget.Button
	show    *widget.Button
	del     *widget.Button
	content fyne.CanvasObject
}

func newExplorerSplits(x *Workspace) *explorerSplits {
	s := &explorerSplits{x: x, sel: -1, status: widget.NewLabel("")}
	s.status.Wrapping = fyne.TextWrapWord
	s.table = widget.NewList(
		func() int { return len(s.list) },
		func() fyne.CanvasObject {
			name := widget.NewLabelWithStyle("random_split", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
			parts := widget.NewLabel("train 0 · test 0")
			desc := widget.NewLabel("")
			desc.Truncation = fyne.TextTruncateEllipsis
			desc.TextStyle.Italic = true
			return container.NewBorder(nil, nil, container.NewHBox(widgets.Sized(name, 180), widgets.Sized(parts, 260)), nil, desc)
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			c := o.(*fyne.Container)
			left := c.Objects[1].(*fyne.Container)
			sp := s.list[i]
			left.Objects[0].(*fyne.Container).Objects[0].(*widget.Label).SetText(sp.Name)
			var parts []string
			for _, p := range sp.Parts {
				parts = append(parts, fmt.Sprintf("%s %d", p.Value, p.N))
			}
			left.Objects[1].(*fyne.Container).Objects[0].(*widget.Label).SetText(strings.Join(parts, " · "))
			desc := sp.Kind
			if sp.Description != "" {
				desc += ": " + sp.Description
			}
			c.Objects[0].(*widget.Label).SetText(desc)
		},
	)
	s.table.OnSelected = func(i widget.ListItemID) { s.sel = i; s.refreshButtons() }
	s.table.OnUnselected = func(widget.ListItemID) { s.sel = -1; s.refreshButtons() }
	fromFilter := widget.NewButtonWithIcon("New split from filter…", theme.ContentAddIcon(), s.fromFilterDialog)
	random := widget.NewButtonWithIcon("Random train/test split…", theme.ViewRefreshIcon(), s.randomDialog)
	s.show = widget.NewButtonWithIcon("Show episodes", theme.SearchIcon(), func() {
		if sp, ok := s.selected(); ok {
			f := episode.Filter{Split: sp.Name}
			x.setFilter(f)
			x.tabs.SelectIndex(0)
		}
	})
	s.export = widget.NewButtonWithIcon("Export split file…", theme.DocumentSaveIcon(), s.exportDialog)
	s.del = widget.NewButtonWithIcon("Delete", theme.DeleteIcon(), s.deleteSelected)
	bar := widgets.NewFlow(fromFilter, random, s.show, s.export, s.del)
	s.content = container.NewBorder(container.NewVBox(bar, s.status), nil, nil, nil, s.table)
	s.refreshButtons()
	return s
}

func (s *explorerSplits) selected() (episode.SplitSummary, bool) {
	if s.sel < 0 || s.sel >= len(s.list) {
		return episode.SplitSummary{}, false
	}
	return s.list[s.sel], true
}

func (s *explorerSplits) refreshButtons() {
	sp, ok := s.selected()
	for _, b := range []*widget.Button{s.show, s.export} {
		if ok {
			b.Enable()
		} else {
			b.Disable()
		}
	}
	if ok && sp.Kind == episode.SplitUser {
		s.del.Enable()
	} else {
		s.del.Disable()
	}
}

func (s *explorerSplits) reload() {
	st := s.x.st
	var list []episode.SplitSummary
	var err error
	workspace.Run(s.x.host, nil, func(context.Context) {
		list, err = st.SplitSummaries(context.Background())
	}, func() {
		if err != nil {
			s.status.SetText("Cannot read the splits: " + err.Error())
			return
		}
		s.list = list
		s.sel = -1
		s.table.UnselectAll()
		s.table.Refresh()
		s.refreshButtons()
		summary := "No split yet. Import a GUI Odyssey folder for its official splits, or make one from the current filter."
		if len(list) > 0 {
			summary = fmt.Sprintf("%s. The current filter selects %s (%s).", widgets.Plural(len(list), "split"), widgets.Plural(s.x.count, "episode"), s.x.filter.Describe())
		}
		if s.note != "" {
			summary = s.note + " " + summary
			s.note = ""
		}
		s.status.SetText(summary)
	})
}

// createFromFilter stores a user split holding the current selection in one part. The work
// runs off the UI goroutine; its error is also returned when it finished at once (tests).
func (s *explorerSplits) createFromFilter(name, part string) error {
	st, f := s.x.st, s.x.filter
	var n int
	return s.create(name, func() (err error) {
		n, err = st.CreateSplitFromFilter(context.Background(), name, part, f)
		return err
	}, func() string {
		return fmt.Sprintf("Split %s made: %s in part %s.", name, widgets.Plural(n, "episode"), part)
	})
}

// createRandom stores a seeded random train/test split of the current selection.
func (s *explorerSplits) createRandom(name string, trainRatio float64, seed uint64) error {
	st, f := s.x.st, s.x.filter
	var tr, te int
	return s.create(name, func() (err error) {
		tr, te, err = st.CreateRandomSplit(context.Background(), name, f, trainRatio, seed)
		return err
	}, func() string { return fmt.Sprintf("Split %s made: %d train, %d test (seed %d).", name, tr, te, seed) })
}

func (s *explorerSplits) create(name string, work func() error, done func() string) error {
	s.status.SetText("Making split " + name + "…")
	var err, inlineErr error
	returned := false
	workspace.Run(s.x.host, nil, func(context.Context) { err = work() }, func() {
		if !returned {
			inlineErr = err
		}
		if err != nil {
			s.status.SetText("Cannot make the split: " + err.Error())
			return
		}
		s.note = done()
		s.x.storeChanged()
	})
	returned = true
	return inlineErr
}

func (s *explorerSplits) fromFilterDialog() {
	w := s.x.host.Window()
	if w == nil {
		return
	}
	name := widget.NewEntry()
	name.SetPlaceHolder("my_split")
	name.Validator = workspace.NotEmpty("a name")
	part := widget.NewSelectEntry([]string{"test", "train", "all"})
	part.SetText("test")
	part.Validator = workspace.NotEmpty("a part")
	items := []*widget.FormItem{
		widget.NewFormItem("Name", name),
		widget.NewFormItem("Part", part),
		widget.NewFormItem("Episodes", widget.NewLabel(fmt.Sprintf("%s (%s)", widgets.Plural(s.x.count, "episode"), s.x.filter.Describe()))),
	}
	workspace.ShowForm(w, "New split from the filter", "Create", items, func() { s.createFromFilter(name.Text, part.Text) })
}

func (s *explorerSplits) randomDialog() {
	w := s.x.host.Window()
	if w == nil {
		return
	}
	name := widget.NewEntry()
	name.SetPlaceHolder("my_random_split")
	name.Validator = workspace.NotEmpty("a name")
	ratio := widget.NewEntry()
	ratio.SetText("80")
	ratio.Validator = func(t string) error {
		if r, err := parsePercent(t); err != nil || r < 0 || r > 100 {
			return fmt.Errorf("a percentage from 0 to 100")
		}
		return nil
	}
	seed := widget.NewEntry()
	seed.SetText("0")
	seed.Validator = workspace.IntAtLeast(0)
	items := []*widget.FormItem{
		widget.NewFormItem("Name", name),
		widget.NewFormItem("Train %", ratio),
		widget.NewFormItem("Seed", seed),
		widget.NewFormItem("Of", widget.NewLabel(fmt.Sprintf("%s (%s)", widgets.Plural(s.x.count, "episode"), s.x.filter.Describe()))),
	}
	workspace.ShowForm(w, "Random train/test split of the filter", "Create", items, func() {
		r, _ := parsePercent(ratio.Text)
		sd, _ := strconv.ParseUint(strings.TrimSpace(seed.Text), 10, 64)
		s.createRandom(name.Text, r/100, sd)
	})
}

// parsePercent reads "80" or "80%".
func parsePercent(t string) (float64, error) {
	return strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(t), "%"), 64)
}

func (s *explorerSplits) exportDialog() {
	sp, ok := s.selected()
	w := s.x.host.Window()
	if !ok || w == nil {
		return
	}
	d := dialog.NewFileSave(func(u fyne.URIWriteCloser, err error) {
		if err != nil || u == nil {
			return
		}
		u.Close()
		path := u.URI().Path()
		if err := s.x.st.ExportSplitFile(context.Background(), sp.Name, path); err != nil {
			dialog.ShowError(err, w)
			return
		}
		s.status.SetText(fmt.Sprintf("Wrote split %s (%d episodes) to %s.", sp.Name, sp.Size(), path))
	}, w)
	name := sp.Name
	if !strings.HasSuffix(name, "_split") {
		name += "_split"
	}
	d.SetFileName(name + ".json")
	d.SetFilter(storage.NewExtensionFileFilter([]string{".json"}))
	d.Show()
}

func (s *explorerSplits) deleteSelected() {
	sp, ok := s.selected()
	if !ok || sp.Kind != episode.SplitUser {
		return
	}
	if w := s.x.host.Window(); w != nil {
		dialog.ShowConfirm("Delete split", fmt.Sprintf("Delete split %s (%d episodes)? The episodes stay in the store.", sp.Name, sp.Size()),
			func(yes bool) {
				if yes {
					s.deleteSplit(sp.Name)
				}
			}, w)
		return
	}
	s.deleteSplit(sp.Name)
}

// deleteSplit removes a user split; a filter on it is dropped.
func (s *explorerSplits) deleteSplit(name string) error {
	if err := s.x.st.DeleteUserSplit(context.Background(), name); err != nil {
		s.status.SetText("Cannot delete: " + err.Error())
		return err
	}
	if s.x.filter.Split == name {
		f := s.x.filter
		f.Split, f.Part = "", ""
		s.x.setFilter(f)
	}
	s.note = "Deleted split " + name + " (its episodes stay in the store)."
	s.x.storeChanged()
	return nil
}
