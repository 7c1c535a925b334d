package app

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/store"
)

// Crowdsourcing sites on the command line: the participants' own completion codes (eval
// codes) and the files the sites' bulk tools read (eval payouts).

// crowdParticipant is one participant with their progress, standing and sites' ids.
type crowdParticipant struct {
	ev.ParticipantSummary
	Code     string
	IDs      []ev.CrowdIDs
	Decision string // approve, reject, review, screened-out or none
	Reason   string
}

// latest is the participant's newest ids of a site ("" for any).
func (c crowdParticipant) latest(site string) ev.CrowdIDs {
	for i := len(c.IDs) - 1; i >= 0; i-- {
		if site == "" || c.IDs[i].Site == site {
			return c.IDs[i]
		}
	}
	return ev.CrowdIDs{}
}

func (c crowdParticipant) from(site string) bool {
	for _, id := range c.IDs {
		if id.Site == site {
			return true
		}
	}
	return false
}

// crowdParticipants reads a project's participants with their codes, ids and the payout
// decision: approve (units done, not blocked), reject (units done, then failed the gold
// checks), review (units done, then blocked), screened-out (blocked with no unit done) or
// none (nothing done).
func crowdParticipants(ctx context.Context, st *store.Store, info ev.ProjectSummary, p *ev.Project) ([]crowdParticipant, error) {
	sv, err := st.EvalServing(ctx, info.ID)
	if err != nil {
		return nil, err
	}
	ws, err := st.EvalParticipants(ctx, info.ID)
	if err != nil {
		return nil, err
	}
	ids, err := st.EvalCrowdIDs(ctx, info.ID)
	if err != nil {
		return nil, err
	}
	sp := session.NewProject(info.ID, info.Name, p)
	block, wrong := sp.BlockName(), sp.GoldBase()+session.GoldWrongSuffix
	var out []crowdParticipant
	for _, w := range ws {
		c := crowdParticipant{ParticipantSummary: w, Code: ev.CompletionCode(sv.Secret, info.ID, w.Name), IDs: ids[w.ID]}
		goldFailed := p.Settings.UseGolds && w.Qualifications[wrong] > p.Settings.MaxIncorrectGolds
		blocked := w.Qualifications[block] > 0
		switch {
		case w.Done > 0 && goldFailed:
			c.Decision, c.Reason = "reject", fmt.Sprintf("failed the gold checks (%d wrong, at most %d allowed)", w.Qualifications[wrong], p.Settings.MaxIncorrectGolds)
		case w.Done > 0 && blocked:
			c.Decision, c.Reason = "review", "blocked after doing work"
		case w.Done > 0:
			c.Decision = "approve"
		case blocked:
			c.Decision, c.Reason = "screened-out", "failed screening"
		default:
			c.Decision, c.Reason = "none", "no unit finished"
		}
		out = append(out, c)
	}
	return out, nil
}

func evalCodesSetup(fs *flag.FlagSet) runFunc {
	verify := fs.String("verify", "", "check a completion `CODE` a participant sent: whose it is")
	out := fs.String("out", "", "write the list as CSV to `FILE` instead of printing it")
	return func(e *env, args []string) error {
		ctx := context.Background()
		st, info, p, err := e.openEvalProjectDef(ctx, args, 1, "give the project")
		if err != nil {
			return err
		}
		defer st.Close()
		ps, err := crowdParticipants(ctx, st, info, p)
		if err != nil {
			return err
		}
		if *verify != "" {
			sv, err := st.EvalServing(ctx, info.ID)
			if err != nil {
				return err
			}
			for _, c := range ps {
				if !ev.VerifyCompletionCode(sv.Secret, info.ID, c.Name, *verify) {
					continue
				}
				if c.Done == 0 {
					return fmt.Errorf("%s is the code of %s, who finished no unit: the study never showed it to them", *verify, c.Name)
				}
				fmt.Fprintf(e.stdout, "%s is the completion code of %s (units done %d)\n", *verify, c.Name, c.Done)
				return nil
			}
			return fmt.Errorf("%s is no participant's completion code in %q", *verify, info.Name)
		}
		header := []string{"participant", "units_done", "completion_code", "site", "study_id", "session_id", "hit_id", "assignment_id", "first_seen"}
		var rows [][]string
		for _, c := range ps {
			if c.Done == 0 {
				continue
			}
			id := c.latest("")
			first := ""
			if !id.FirstSeen.IsZero() {
				first = id.FirstSeen.UTC().Format("2006-01-02T15:04:05Z07:00")
			}
			rows = append(rows, []string{c.Name, strconv.Itoa(c.Done), c.Code, id.Site, id.StudyID, id.SessionID, id.HitID, id.AssignmentID, first})
		}
		if *out != "" {
			if err := writeSafeCSV(*out, header, rows); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "wrote the codes of %s to %s\n", pluralWord(len(rows), "participant"), *out)
			return nil
		}
		if len(rows) == 0 {
			fmt.Fprintln(e.stdout, "nobody has finished a unit yet")
			return nil
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, strings.ToUpper(strings.Join(header[:4], "\t"))+"\tSITE IDS")
		for _, r := range rows {
			var site []string
			for _, v := range r[4:8] {
				if v != "" {
					site = append(site, v)
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r[0], r[1], r[2], orDash(r[3]), orDash(strings.Join(site, " ")))
		}
		return tw.Flush()
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeSafeCSV writes a CSV file atomically, every cell neutralised for spreadsheets.
func writeSafeCSV(path string, header []string, rows [][]string) error {
	var buf bytes.Buffer
	w := ev.NewSafeCSVWriter(&buf)
	if header != nil {
		w.Write(header)
	}
	for _, r := range rows {
		w.Write(r)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return atomicfile.Write(path, buf.Bytes(), 0o644)
}

var moneyRe = regexp.MustCompile(`^[0-9]{1,6}(\.[0-9]{1,2})?$`)

// parseCents reads an amount such as 0.50 in cents.
func parseCents(s string) (int64, error) {
	if !moneyRe.MatchString(s) {
		return 0, fmt.Errorf("%q is not an amount such as 0.50", s)
	}
	whole, frac, _ := strings.Cut(s, ".")
	for len(frac) < 2 {
		frac += "0"
	}
	w, _ := strconv.ParseInt(whole, 10, 64)
	f, _ := strconv.ParseInt(frac, 10, 64)
	return w*100 + f, nil
}

func cents(c int64) string { return fmt.Sprintf("%d.%02d", c/100, c%100) }

func evalPayoutsSetup(fs *flag.FlagSet) runFunc {
	site := fs.String("site", "", "the crowdsourcing site: prolific or mturk")
	out := fs.String("out", "", "the folder to write the files to (`DIR`)")
	bonus := fs.String("bonus-per-unit", "", "also write a bonus file: this `AMOUNT` (such as 0.50, the study's currency) per unit done, for approved participants")
	return func(e *env, args []string) error {
		if *site != ev.SiteProlific && *site != ev.SiteMTurk {
			return usageErrorf("--site must be prolific or mturk")
		}
		if *out == "" {
			return usageErrorf("--out is required")
		}
		var perUnit int64 = -1
		if *bonus != "" {
			c, err := parseCents(*bonus)
			if err != nil {
				return usageErrorf("--bonus-per-unit: %v", err)
			}
			perUnit = c
		}
		ctx := context.Background()
		st, info, p, err := e.openEvalProjectDef(ctx, args, 1, "give the project")
		if err != nil {
			return err
		}
		defer st.Close()
		all, err := crowdParticipants(ctx, st, info, p)
		if err != nil {
			return err
		}
		var ps []crowdParticipant
		for _, c := range all {
			if c.from(*site) {
				ps = append(ps, c)
			}
		}
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
		var written []string
		write := func(name string, header []string, rows [][]string) error {
			path := filepath.Join(*out, name)
			if err := writeSafeCSV(path, header, rows); err != nil {
				return err
			}
			written = append(written, path)
			return nil
		}
		var decisions [][]string
		count := map[string]int{}
		for _, c := range ps {
			id := c.latest(*site)
			decisions = append(decisions, []string{c.Name, *site, strconv.Itoa(c.Done), c.Decision, c.Reason, c.Code,
				id.StudyID, id.SessionID, id.HitID, id.AssignmentID})
			count[c.Decision]++
		}
		if err := write("decisions.csv", []string{"participant", "site", "units_done", "decision", "reason", "completion_code",
			"study_id", "session_id", "hit_id", "assignment_id"}, decisions); err != nil {
			return err
		}
		missing := 0
		switch *site {
		case ev.SiteProlific:
			var approve, reject, bonuses [][]string
			for _, c := range ps {
				switch c.Decision {
				case "approve":
					approve = append(approve, []string{c.Name})
					if perUnit > 0 {
						bonuses = append(bonuses, []string{c.Name, cents(perUnit * int64(c.Done))})
					}
				case "reject":
					reject = append(reject, []string{c.Name})
				}
			}
			if err := write("prolific-approve.txt", nil, approve); err != nil {
				return err
			}
			if err := write("prolific-reject.txt", nil, reject); err != nil {
				return err
			}
			if perUnit >= 0 {
				if err := write("prolific-bonus.csv", nil, bonuses); err != nil {
					return err
				}
			}
		case ev.SiteMTurk:
			var review, bonuses [][]string
			for _, c := range ps {
				if c.Decision != "approve" && c.Decision != "reject" {
					continue
				}
				var assignments []string
				for _, id := range c.IDs {
					if id.Site == ev.SiteMTurk && id.AssignmentID != "" {
						assignments = append(assignments, id.AssignmentID)
					}
				}
				if len(assignments) == 0 {
					missing++
					continue
				}
				for _, a := range assignments {
					if c.Decision == "approve" {
						review = append(review, []string{a, c.Name, "x", ""})
					} else {
						review = append(review, []string{a, c.Name, "", c.Reason})
					}
				}
				if c.Decision == "approve" && perUnit > 0 {
					bonuses = append(bonuses, []string{c.Name, assignments[len(assignments)-1], cents(perUnit * int64(c.Done)),
						fmt.Sprintf("%s for %s", cents(perUnit), pluralWord(c.Done, "unit"))})
				}
			}
			if err := write("mturk-approve-reject.csv", []string{"AssignmentId", "WorkerId", "Approve", "Reject"}, review); err != nil {
				return err
			}
			if perUnit >= 0 {
				if err := write("mturk-bonus.csv", []string{"WorkerId", "AssignmentId", "BonusAmount", "Reason"}, bonuses); err != nil {
					return err
				}
			}
		}
		fmt.Fprintf(e.stdout, "%s from %s: %d to approve, %d to reject, %d to review, %d screened out, %d with nothing done\n",
			pluralWord(len(ps), "participant"), *site, count["approve"], count["reject"], count["review"], count["screened-out"], count["none"])
		if missing > 0 {
			fmt.Fprintf(e.stdout, "%s came without an MTurk assignmentId: see decisions.csv\n", pluralWord(missing, "participant"))
		}
		if n := len(all) - len(ps); n > 0 {
			fmt.Fprintf(e.stdout, "%s did not come from %s and are left out\n", pluralWord(n, "participant"), *site)
		}
		for _, f := range written {
			fmt.Fprintf(e.stdout, "wrote %s\n", f)
		}
		return nil
	}
}
