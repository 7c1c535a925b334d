package explorer

import (
	"errors"
	"fmt"
	"strings"

	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/odyssey"
)

// A scoring run's result: the summary, the breakdown table and its cells.

// show puts a scored prediction set on the tab.
func (s *explorerScoring) show(res *odyssey.Result, groups map[string][]odyssey.Group, fails []odyssey.Failure, notes []string, abortErr error, split, mode string) {
	s.result, s.breakdowns, s.failures = res, groups, fails
	s.mu.Lock()
	s.episodes = map[string]*episode.Episode{}
	s.mu.Unlock()
	branch := res.Branch
	label := branch.Label()
	if branch == odyssey.BranchMicro {
		label += " over the six categories"
	} else {
		label += " over all steps"
	}
	var d strings.Builder
	var abort *odyssey.AbortError
	switch {
	case errors.As(abortErr, &abort):
		s.headline.SetText("The official evaluation aborts")
		fmt.Fprintf(&d, "%s\n%s\nScore again in lenient mode for non-official numbers.", abort.Exception, abort.Detail)
	default:
		official := "official"
		if mode != "official" || res.Abort != nil {
			official = "NOT official (" + mode + " mode)"
		}
		s.headline.SetText(fmt.Sprintf("AMS %s · SR %s", res.Info.AMS, res.Info.SR))
		whose := "the " + split + " split's metric"
		if branch != odyssey.BranchForSplit(split) {
			whose = "chosen for " + split
		}
		fmt.Fprintf(&d, "%s (%s), %s.\n", label, whose, official)
		fmt.Fprintf(&d, "%d samples · action type %s · text %s · %d of %d episodes fully correct",
			res.Info.Total, res.Info.ActionType, res.Info.Text, res.EpisodesSucceeded, res.EpisodesScored)
		if res.Abort != nil {
			fmt.Fprintf(&d, "\nThe official evaluation would abort: %s", res.Abort.Detail)
		}
		for _, line := range res.PrintedCategories() {
			d.WriteString("\n" + line)
		}
	}
	for _, n := range notes {
		d.WriteString("\n" + n)
	}
	s.details.SetText(d.String())
	s.showBreakdown()
	s.failL.SetText(fmt.Sprintf("Failing steps: %d of %d", len(fails), len(res.Samples)))
	s.failList.UnselectAll()
	s.failList.Refresh()
	ep := &episode.Episode{Source: "scoring", ExternalID: "failures"}
	for i, f := range fails {
		ep.Steps = append(ep.Steps, episode.Step{Index: i, Action: f.GTAction,
			Instruction: fmt.Sprintf("%s step %d · %s · predicted %q · true %q", f.EpisodeID, f.Step+1, f.Info, f.Pred, f.GT)})
	}
	s.viewer.SetEpisode(ep, s.failureFrames(fails))
}

func (s *explorerScoring) showBreakdown() {
	s.groups = nil
	for _, d := range breakdownDims {
		if d.label == s.dim.Selected {
			s.groups = s.breakdowns[d.dim]
		}
	}
	s.table.Refresh()
}

func (s *explorerScoring) breakdownCell(id widget.TableCellID) string {
	if id.Row >= len(s.groups) {
		return ""
	}
	g := s.groups[id.Row]
	switch s.columns.Index(id.Col) {
	case 0:
		if g.Value == "" {
			return "(unknown)"
		}
		return g.Value
	case 1:
		return fmt.Sprint(g.Steps)
	case 2:
		return fmt.Sprint(g.Correct)
	case 3:
		return fmt.Sprintf("%.2f", g.AMS)
	case 4:
		return fmt.Sprint(g.Episodes)
	case 5:
		return g.SR.String()
	case 6:
		return fmt.Sprint(g.ActionFail)
	case 7:
		return fmt.Sprint(g.Invalid)
	}
	return ""
}
