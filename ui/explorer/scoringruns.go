package explorer

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"fyne.io/fyne/v2/dialog"

	"github.com/agentdesk/agentdesk/engine/odyssey"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Saved scoring runs: listed by split and file, reopened with their own split and file, deleted.

// runLabel names a saved run in the list: number, model, setting, mode, numbers, time.
func runLabel(r odyssey.SavedRun) string {
	var info struct{ AMS, SR json.Number }
	json.Unmarshal(r.Info, &info)
	name := r.Name
	if name == "" {
		name = filepath.Base(r.PredictionsPath)
	}
	return fmt.Sprintf("#%d %s · %s · %s · AMS %s SR %s · %s", r.ID, name, odyssey.DatasetName(r.Level, r.Split), r.Mode,
		info.AMS, info.SR, r.CreatedAt.Local().Format("2006-01-02 15:04"))
}

// refreshRuns lists the saved runs, newest first, keeping the one selected (or selecting the
// newest).
func (s *explorerScoring) refreshRuns(newest bool) { s.listRuns(newest, 0) }

// refreshRunsSelecting lists the saved runs and selects the one with this id (the run just
// scored; 0: the newest).
func (s *explorerScoring) refreshRunsSelecting(id int64) { s.listRuns(true, id) }

func (s *explorerScoring) listRuns(newest bool, id int64) {
	st := s.x.st
	var runs []odyssey.SavedRun
	var err error
	workspace.Run(s.x.host, nil, func(context.Context) {
		runs, err = st.SavedOdysseyRuns(context.Background())
	}, func() {
		if err != nil {
			s.details.SetText("Cannot list the saved runs: " + err.Error())
			return
		}
		s.runs = runs
		cur := s.runSel.Selected
		s.runSel.Options = nil
		for _, r := range runs {
			s.runSel.Options = append(s.runSel.Options, runLabel(r))
		}
		s.runSel.ClearSelected()
		for i, o := range s.runSel.Options {
			if o == cur && !newest || id != 0 && runs[i].ID == id {
				s.runSel.SetSelected(o)
			}
		}
		if s.runSel.Selected == "" && len(runs) > 0 {
			s.runSel.SetSelected(s.runSel.Options[0])
		}
		s.runSel.Refresh()
		s.refreshRunButtons()
		if s.result == nil && len(runs) > 0 {
			s.openRun() // nothing on show yet: the newest run's numbers rather than an empty page
		}
	})
}

func (s *explorerScoring) selectedRun() (odyssey.SavedRun, bool) {
	i := s.runSel.SelectedIndex()
	if i < 0 || i >= len(s.runs) {
		return odyssey.SavedRun{}, false
	}
	return s.runs[i], true
}

func (s *explorerScoring) refreshRunButtons() {
	if s.compareB != nil {
		if len(s.runs) >= 2 {
			s.compareB.Enable()
		} else {
			s.compareB.Disable()
		}
	}
	if _, ok := s.selectedRun(); ok {
		s.openRunB.Enable()
		s.delRunB.Enable()
	} else {
		s.openRunB.Disable()
		s.delRunB.Disable()
	}
}

// openRun shows the selected saved run again: its numbers, breakdowns and failing steps.
func (s *explorerScoring) openRun() {
	run, ok := s.selectedRun()
	if !ok {
		return
	}
	st := s.x.st
	var res *odyssey.Result
	var groups map[string][]odyssey.Group
	var fails []odyssey.Failure
	var err error
	workspace.Run(s.x.host, nil, func(context.Context) {
		res, groups, fails, run, err = st.OpenSavedRun(context.Background(), run.ID)
	}, func() {
		if err != nil {
			s.headline.SetText("")
			s.details.SetText("Cannot open the run: " + err.Error())
			return
		}
		note := fmt.Sprintf("Saved run #%d: %s scored %s.", run.ID, run.PredictionsPath, run.CreatedAt.Local().Format("2006-01-02 15:04"))
		s.showRunChoices(run)
		s.show(res, groups, fails, []string{note}, nil, run.Split, run.Mode)
	})
}

// showRunChoices sets the file, split, prompt level and mode choices to the opened run's, so
// that what is shown above the numbers is what they were scored with (the choices kept the
// last ones made, so a reopened run showed another split and file).
func (s *explorerScoring) showRunChoices(run odyssey.SavedRun) {
	if run.PredictionsPath != "" {
		s.path = run.PredictionsPath
		s.pathL.SetText(run.PredictionsPath)
	}
	for _, o := range s.split.Options {
		if o == run.Split {
			s.split.SetSelected(o)
		}
	}
	if run.Level != "" {
		s.level.SetSelected(run.Level)
	}
	for _, m := range scoringModes {
		if m.mode == run.Mode {
			s.mode.SetSelected(m.label)
		}
	}
	s.refreshScoreButton()
}

// deleteRunDialog asks before deleting the selected saved run.
func (s *explorerScoring) deleteRunDialog() {
	run, ok := s.selectedRun()
	if !ok {
		return
	}
	if s.x.host.Window() == nil {
		s.deleteRun(run.ID)
		return
	}
	dialog.ShowConfirm("Delete saved run", fmt.Sprintf("Delete %s? The prediction file is not touched.", runLabel(run)),
		func(yes bool) {
			if yes {
				s.deleteRun(run.ID)
			}
		}, s.x.host.Window())
}

func (s *explorerScoring) deleteRun(id int64) {
	if err := s.x.st.DeleteOdysseyRun(context.Background(), id); err != nil {
		s.details.SetText("Cannot delete the run: " + err.Error())
	}
	s.refreshRuns(false)
}
