package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/agreement"
	"github.com/agentdesk/agentdesk/store"
)

// evalCommands is the eval group: local human-evaluation sessions.
func evalCommands() *command {
	return &command{name: "eval", summary: "local human-evaluation sessions", sub: []*command{
		&command{name: "import", args: "DIR|FILE.toml [conf=NAME] [key=value ...]",
			summary: "import one configuration of a ChatEvaluationPlatform project folder or its whole repository (or an Agentdesk project file); print what was understood, and every file: read, of other configurations, or ignored",
			setup:   interspersed(evalImportSetup), raw: true},
		&command{name: "create", args: "--data FILE.jsonl NAME",
			summary: "create a project over your dialogues from the built-in ABC-Eval catalogue",
			setup:   interspersed(evalCreateSetup), raw: true},
		&command{name: "projects", summary: "list the evaluation projects with their progress", setup: noFlags(evalProjects)},
		&command{name: "participants", args: "PROJECT",
			summary: "list a project's participants: units done, in progress, screening outcome",
			setup:   noFlags(evalParticipants)},
		&command{name: "unblock", args: "PROJECT PARTICIPANT",
			summary: "lift a participant's block (failed screening or gold checks)",
			setup:   noFlags(evalUnblock)},
		&command{name: "return", args: "PROJECT PARTICIPANT",
			summary: "give a participant's open unit back to the pool (the original's timeout; its answers are dropped)",
			setup:   noFlags(evalReturn)},
		&command{name: "annotate", args: "--url URL --model NAME [--units N] [--concurrency N] PROJECT",
			summary: "let a model annotate the project beside people: the same units, screening and gold checks, its answers marked as a model's; run again to continue",
			setup:   evalAnnotate},
		&command{name: "stats", args: "PROJECT",
			summary: "per-label agreement (Krippendorff's alpha with bootstrap CI, Fleiss' kappa) and rates per bot",
			setup:   interspersed(evalStatsSetup), raw: true},
		&command{name: "export", args: "PROJECT --format original|csv|jsonl --out PATH",
			summary: "export the results: the original's runs/ layout, or answer rows as CSV or JSON lines",
			setup:   interspersed(evalExportSetup), raw: true},
		&command{name: "codes", args: "PROJECT [--verify CODE] [--out FILE.csv]",
			summary: "list the participants' own completion codes with their crowd-site ids, or check a code a participant sent (--verify)",
			setup:   interspersed(evalCodesSetup), raw: true},
		&command{name: "payouts", args: "PROJECT --site prolific|mturk --out DIR [--bonus-per-unit AMOUNT]",
			summary: "write who to approve, reject or bonus in the files Prolific's and MTurk's bulk tools read",
			setup:   interspersed(evalPayoutsSetup), raw: true},
		&command{name: "save", args: "PROJECT FILE.toml|DIR",
			summary: "write a project's definition as an Agentdesk project file, or in the original's folder layout (DIR)",
			setup:   noFlags(evalSave)},
		&command{name: "import-results", args: "PROJECT DIR",
			summary: "import finished attempts from result files in the original's layout (runs/…/state.json)",
			setup:   noFlags(evalImportResults)},
		&command{name: "bot", args: "PROJECT MODEL --kind echo|exec|http [--command CMD] [--url URL --model NAME]",
			summary: "define how a bot of a collection project is run (the original's model_opts.yaml entry)",
			setup:   interspersed(evalBotSetup), raw: true},
		&command{name: "serve", args: "PROJECT [--addr HOST:PORT] [--participants ID,…]",
			summary: "serve the study to participants' own browsers: one link per participant (the original's localhost:3008 links)",
			setup:   interspersed(evalServeSetup), raw: true},
		&command{name: "links", args: "PROJECT --participants ID,ID,… [--addr HOST:PORT]",
			summary: "print each participant's link (with their next assignment); --study for crowdsourcing sites (--close, --open recruitment, --evict everyone), --revoke ID",
			setup:   interspersed(evalLinksSetup), raw: true},
		&command{name: "bench-serve", args: "[--participants N] [--duration D] [--kill]",
			summary: "load test of eval serve: N participants over loopback, answers/s, latencies, memory, nothing acknowledged lost",
			setup:   interspersed(evalBenchServeSetup), raw: true},
		&command{name: "delete", args: "PROJECT", summary: "delete a project with its participants and answers",
			setup: noFlags(evalDelete)},
		&command{name: "open", args: "[DIR [conf=NAME] [key=value ...]]",
			summary: "open the Evaluation workspace in the app (the original's welcome.py), importing a project folder first when given",
			setup:   interspersed(evalOpenSetup), raw: true},
	}}
}

// interspersed lets a command take its flags before or after its arguments
// (`eval export PROJECT --format csv --out F`): the command is raw, and the returned run parses
// the arguments itself, resuming after each positional one.
func interspersed(setup func(*flag.FlagSet) runFunc) func(*flag.FlagSet) runFunc {
	return func(fs *flag.FlagSet) runFunc {
		run := setup(fs)
		return func(e *env, args []string) error {
			var pos []string
			for {
				if err := fs.Parse(args); err != nil {
					return usageErrorf("%v", err)
				}
				args = fs.Args()
				if len(args) == 0 {
					break
				}
				if args[0] == "--" {
					pos = append(pos, args[1:]...)
					break
				}
				pos, args = append(pos, args[0]), args[1:]
			}
			return run(e, pos)
		}
	}
}

// openEvalProject checks that a command got its n arguments (usage says which), then opens the
// store and finds the project args[0] (a name or an id) in it; the caller closes the store.
func (e *env) openEvalProject(ctx context.Context, args []string, n int, usage string) (*store.Store, ev.ProjectSummary, error) {
	st, err := e.openStoreFor(args, n, usage)
	if err != nil {
		return nil, ev.ProjectSummary{}, err
	}
	p, err := st.EvalProjectByName(ctx, args[0])
	if errors.Is(err, store.ErrNotFound) {
		err = fmt.Errorf("no evaluation project %q (agentdesk eval projects lists them)", args[0])
	}
	if err != nil {
		st.Close()
		return nil, p, err
	}
	return st, p, nil
}

// openEvalProjectDef is openEvalProject that also reads the project's definition.
func (e *env) openEvalProjectDef(ctx context.Context, args []string, n int, usage string) (*store.Store, ev.ProjectSummary, *ev.Project, error) {
	st, info, err := e.openEvalProject(ctx, args, n, usage)
	if err != nil {
		return nil, info, nil, err
	}
	p, err := st.EvalProject(ctx, info.ID)
	if err != nil {
		st.Close()
		return nil, info, nil, err
	}
	return st, info, p, nil
}

// evalParticipant finds a participant of a project by name.
func evalParticipant(ctx context.Context, st *store.Store, info ev.ProjectSummary, name string) (ev.ParticipantSummary, error) {
	ws, err := st.EvalParticipants(ctx, info.ID)
	if err != nil {
		return ev.ParticipantSummary{}, err
	}
	for _, w := range ws {
		if w.Name == name {
			return w, nil
		}
	}
	return ev.ParticipantSummary{}, fmt.Errorf("project %q has no participant %q", info.Name, name)
}

// evalImportFlags are the options of eval import (and of eval open with a folder).
type evalImportFlags struct {
	config, name, personas, descriptions *string
	noScreen                             *bool
}

func newEvalImportFlags(fs *flag.FlagSet) evalImportFlags {
	return evalImportFlags{
		config:       fs.String("config", "", "the configuration to use when the folder has several (a `NAME` in hydra_configs/conf; also conf=NAME)"),
		name:         fs.String("name", "", "the project's `NAME` (default: the configuration's task_name)"),
		noScreen:     fs.Bool("no-screening", false, "do not screen participants even when the project has training dialogues"),
		personas:     fs.String("personas", "", "persona sets for include_persona, a `FILE` (one sentence per line, a blank line between sets, or JSON lists)"),
		descriptions: fs.String("descriptions", "", "the participants' instructions of each type, the original's task_descriptions.jsx at `PATH` (default: found in the folder)"),
	}
}

// splitOverrides separates hydra overrides (key=value, +key=value, ~key) from the other
// arguments; an argument naming an existing file or folder is never an override.
func splitOverrides(args []string) (rest, overrides []string) {
	for _, a := range args {
		if _, err := os.Stat(a); err != nil && ev.IsOverride(a) {
			overrides = append(overrides, a)
		} else {
			rest = append(rest, a)
		}
	}
	return rest, overrides
}

// run imports the folder or project file args[0] with the hydra overrides, prints the
// report and stores the project.
func (f evalImportFlags) run(e *env, path string, overrides []string) (ev.ProjectSummary, error) {
	var p *ev.Project
	var report string
	var err error
	if strings.HasSuffix(strings.ToLower(path), ".toml") {
		if len(overrides) > 0 {
			return ev.ProjectSummary{}, usageErrorf("overrides (%s) apply to the original's hydra configurations, not to a project file", overrides[0])
		}
		if p, err = ev.LoadProject(path); err != nil {
			return ev.ProjectSummary{}, err
		}
		if err := applyProjectExtras(p, *f.personas, *f.descriptions, e.stdout); err != nil {
			return ev.ProjectSummary{}, err
		}
	} else {
		var rep *ev.ImportReport
		p, rep, err = ev.ImportOriginal(path, ev.ImportOptions{Config: *f.config, Personas: *f.personas,
			Descriptions: *f.descriptions, Overrides: overrides})
		var choice *ev.ConfigChoiceError
		if errors.As(err, &choice) {
			return ev.ProjectSummary{}, configChoiceError(path, choice)
		}
		if err != nil {
			return ev.ProjectSummary{}, fmt.Errorf("%w (nothing was imported)", err)
		}
		report = rep.String()
		fmt.Fprint(e.stdout, report)
	}
	if *f.noScreen {
		p.Settings.UseScreening = false
	}
	n := cmp.Or(*f.name, p.Settings.TaskName, p.Name, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	src, _ := filepath.Abs(path)
	info, err := e.saveEvalProject(n, "imported", src, p, report)
	if err != nil {
		return info, err
	}
	fmt.Fprintf(e.stdout, "imported project %q (id %d): %d units\n", info.Name, info.ID, info.Units)
	return info, nil
}

// configChoiceError says that the folder at path has several configurations and none was
// named: it lists them, one a line with what each study is, and how to choose one.
func configChoiceError(path string, choice *ev.ConfigChoiceError) error {
	var b strings.Builder
	where := "hydra_configs/conf"
	if choice.Project != "" {
		where = choice.Project + "/" + where
	}
	fmt.Fprintf(&b, "%s has %d configurations (%s), one per study; nothing was imported.\n", path, len(choice.Names), where)
	fmt.Fprintf(&b, "Choose one with --config NAME or conf=NAME (as the original's welcome.py conf=NAME), e.g.\n")
	fmt.Fprintf(&b, "  agentdesk eval import %s conf=%s\n", path, choice.Names[0])
	b.WriteString("The configurations:\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for i, n := range choice.Names {
		what := ""
		if i < len(choice.Configs) {
			what = choice.Configs[i].String()
		}
		fmt.Fprintf(tw, "  %s\t%s\n", n, what)
	}
	tw.Flush()
	return errors.New(strings.TrimRight(b.String(), "\n"))
}

func evalImportSetup(fs *flag.FlagSet) runFunc {
	f := newEvalImportFlags(fs)
	return func(e *env, args []string) error {
		paths, overrides := splitOverrides(args)
		if len(paths) != 1 {
			return usageErrorf("give one project folder or project file (and hydra overrides as key=value)")
		}
		_, err := f.run(e, paths[0], overrides)
		return err
	}
}

// evalOpenSetup opens the Evaluation workspace; with a project folder (and hydra overrides,
// as the original's `python welcome.py conf=NAME key=value`) it imports it first.
func evalOpenSetup(fs *flag.FlagSet) runFunc {
	f := newEvalImportFlags(fs)
	return func(e *env, args []string) error {
		paths, overrides := splitOverrides(args)
		if len(paths) > 1 {
			return usageErrorf("give at most one project folder (and hydra overrides as key=value)")
		}
		if len(paths) == 0 && (len(overrides) > 0 || *f.config != "" || *f.name != "") {
			return usageErrorf("overrides and --config apply to a project folder: give it (eval open DIR conf=NAME key=value)")
		}
		if len(paths) == 1 {
			if _, err := f.run(e, paths[0], overrides); err != nil {
				return err
			}
		}
		if code := e.gui(GUIOptions{StorePath: e.storePath, Screen: screenEvaluation}); code != 0 {
			return fmt.Errorf("the app exited with status %d", code)
		}
		return nil
	}
}

// applyProjectExtras gives a project read from an Agentdesk project file the persona sets and
// the task_descriptions.jsx instructions named on the command line.
func applyProjectExtras(p *ev.Project, personas, descriptions string, out io.Writer) error {
	if personas != "" {
		var err error
		if p.Settings.Personas, err = ev.ReadPersonas(personas); err != nil {
			return err
		}
		fmt.Fprintf(out, "%d persona sets from %s\n", len(p.Settings.Personas), personas)
	}
	if descriptions != "" {
		d, err := ev.ReadTaskDescriptions(descriptions, p.Settings.CollectDialogue)
		if err != nil {
			return err
		}
		used, _, _ := ev.ApplyTaskDescriptions(p.Types, d, true)
		fmt.Fprintf(out, "instructions of %d types from %s\n", len(used), descriptions)
		for _, n := range d.Notes {
			fmt.Fprintf(out, "  left out: %s\n", n)
		}
	}
	return nil
}

// saveEvalProject stores a new project and reads back its summary.
func (e *env) saveEvalProject(name, origin, source string, p *ev.Project, report string) (ev.ProjectSummary, error) {
	st, err := e.openStore()
	if err != nil {
		return ev.ProjectSummary{}, err
	}
	defer st.Close()
	ctx := e.context()
	id, err := st.SaveEvalProject(ctx, name, origin, source, p, report)
	if err != nil {
		return ev.ProjectSummary{}, err
	}
	return st.EvalProjectInfo(ctx, id)
}

func evalCreateSetup(fs *flag.FlagSet) runFunc {
	data := fs.String("data", "", "the dialogues, a `FILE` in the original's JSONL data layout")
	behaviours := fs.Bool("behaviours", true, "ask the behaviour labels on every chatbot turn")
	dialogue := fs.Bool("dialogue-likert", false, "ask 1-5 dialogue ratings per quality dimension")
	turn := fs.Bool("turn-likert", false, "ask 1-5 turn ratings per quality dimension")
	compare := fs.Bool("compare", false, "compare consecutive dialogues (1 with 2, 3 with 4, ...)")
	k := fs.Int("k", 2, "annotators per item")
	training := fs.String("training", "", "a training `FILE` (three dialogues with ground truth); turns screening on")
	return func(e *env, args []string) error {
		if len(args) != 1 || *data == "" {
			return usageErrorf("give --data and the project's name")
		}
		if *k < 1 {
			return usageErrorf("-k must be at least 1")
		}
		p, err := ev.CatalogueChoice{Name: args[0], DataFile: *data, TrainingFile: *training,
			Behaviours: *behaviours, DialogueLikert: *dialogue, TurnLikert: *turn, CompareConsecutive: *compare, Annotators: *k}.Project()
		if err != nil {
			return err
		}
		info, err := e.saveEvalProject(args[0], "created", "", p, "")
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "created project %q (id %d): %d annotation types, %d units\n", info.Name, info.ID, len(p.Types), info.Units)
		return nil
	}
}

func evalProjects(e *env, args []string) error {
	st, err := e.openStoreFor(args, 0, "projects takes no arguments")
	if err != nil {
		return err
	}
	defer st.Close()
	ps, err := st.EvalProjects(e.context())
	if err != nil {
		return err
	}
	if len(ps) == 0 {
		fmt.Fprintln(e.stdout, "no evaluation projects (agentdesk eval import DIR)")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tUNITS DONE\tIN PROGRESS\tPARTICIPANTS\tORIGIN\tSOURCE")
	for _, p := range ps {
		fmt.Fprintf(tw, "%d\t%s\t%d/%d\t%d\t%d\t%s\t%s\n", p.ID, p.Name, p.Done, p.Units, p.Assigned, p.Participants, p.Origin, p.Source)
	}
	return tw.Flush()
}

func evalParticipants(e *env, args []string) error {
	ctx := e.context()
	st, p, err := e.openEvalProject(ctx, args, 1, "give the project")
	if err != nil {
		return err
	}
	defer st.Close()
	ws, err := st.EvalParticipants(ctx, p.ID)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PARTICIPANT\tUNITS DONE\tIN PROGRESS\tSCREENING\tQUALIFICATIONS")
	for _, w := range ws {
		var qs []string
		for k, v := range w.Qualifications {
			q := fmt.Sprintf("%s=%d", k, v)
			if from := w.QualificationsFrom[k]; from != "" {
				q += "(from " + from + ")"
			}
			qs = append(qs, q)
		}
		screening := w.Screening
		if screening == "" {
			screening = "-"
		}
		sort.Strings(qs)
		name := w.Name
		if w.IsModel() {
			name += " (model " + w.Model + ")"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", name, w.Done, w.Assigned, screening, strings.Join(qs, ","))
	}
	return tw.Flush()
}

func evalUnblock(e *env, args []string) error {
	ctx := e.context()
	st, info, p, err := e.openEvalProjectDef(ctx, args, 2, "give the project and the participant")
	if err != nil {
		return err
	}
	defer st.Close()
	w, err := evalParticipant(ctx, st, info, args[1])
	if err != nil {
		return err
	}
	_, block := p.Settings.QualificationNames(info.Name)
	if w.Qualifications[block] == 0 {
		fmt.Fprintf(e.stdout, "%s is not blocked\n", w.Name)
		return nil
	}
	if err := st.RevokeEvalQualification(ctx, w.ID, block); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "lifted the block of %s (%s, in every project that uses the name)\n", w.Name, block)
	return nil
}

func evalReturn(e *env, args []string) error {
	ctx := e.context()
	st, info, err := e.openEvalProject(ctx, args, 2, "give the project and the participant")
	if err != nil {
		return err
	}
	defer st.Close()
	w, err := evalParticipant(ctx, st, info, args[1])
	if err != nil {
		return err
	}
	u, ok, err := st.EvalOpenUnit(ctx, w.ID)
	if err != nil {
		return err
	}
	if !ok || u.Index < 0 {
		fmt.Fprintf(e.stdout, "%s holds no open unit\n", w.Name)
		return nil
	}
	if err := st.EvalReturnUnit(ctx, u.ID); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "gave unit %d of bundle %d back to the pool\n", u.Index, u.Position+1)
	return nil
}

func evalStatsSetup(fs *flag.FlagSet) runFunc {
	asJSON := fs.Bool("json", false, "print the statistics as JSON")
	levelName := fs.String("level", "ordinal", "alpha's level of measurement: nominal, ordinal (the ABC-Eval analysis) or interval")
	return func(e *env, args []string) error {
		level, err := agreement.ParseLevel(*levelName)
		if err != nil || level == agreement.Ratio {
			return usageErrorf("--level takes nominal, ordinal or interval, not %q", *levelName)
		}
		ctx, stop := e.interruptible()
		defer stop()
		st, info, err := e.openEvalProject(ctx, args, 1, "give the project")
		if err != nil {
			return err
		}
		defer st.Close()
		p, results, err := st.EvalResults(ctx, info.ID)
		if err != nil {
			return err
		}
		ws, err := st.EvalParticipants(ctx, info.ID)
		if err != nil {
			return err
		}
		models := map[string]string{}
		for _, w := range ws {
			if w.IsModel() {
				models[w.Name] = w.Model
			}
		}
		stats, err := ev.ComputeStatsWithModels(ctx, p, results, level, models, nil)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(e.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(jsonStats(stats))
		}
		if len(stats.Labels) == 0 {
			fmt.Fprintln(e.stdout, "no submitted answers yet")
			return nil
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		greek := strings.NewReplacer("α", "alpha", "κ", "kappa")
		fmt.Fprintln(tw, strings.ToUpper(greek.Replace(strings.Join(ev.StatsColumns, "\t"))))
		for _, l := range stats.Labels {
			cells := make([]string, len(ev.StatsColumns))
			for c := range cells {
				cells[c] = l.Cell(c)
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		tw.Flush()
		if len(models) > 0 {
			fmt.Fprintf(e.stdout, "\nThe agreement above is between people only. Annotators: %s.\n", annotatorList(stats.Annotators))
			fmt.Fprintln(e.stdout, "Agreement involving models (alpha, 95% interval, items):")
			tw = tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "LABEL\tBETWEEN\tITEMS\tALPHA\t95% CI\tNOTE")
			for _, l := range stats.Labels {
				for _, g := range l.Groups {
					fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", l.Label, g.Group, g.Items, numText(g.Alpha), interval(g.Low, g.High), g.Note)
				}
			}
			tw.Flush()
		}
		fmt.Fprintln(e.stdout, "\nRates per bot (one annotation per item; binary: share, scale: mean, comparison: win share; 95% interval):")
		tw = tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "LABEL\tBOT\tN\tVALUE\t95% CI")
		for _, l := range stats.Labels {
			for _, r := range l.Rates {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%s\n", l.Label, r.Bot, r.N, r.Value, interval(r.Low, r.High))
			}
		}
		return tw.Flush()
	}
}

func numText(v float64) string {
	if v != v {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

// annotatorList names the annotators, people first, models with their model.
func annotatorList(as []ev.Annotator) string {
	var out []string
	for _, a := range as {
		if a.Model != "" {
			out = append(out, fmt.Sprintf("%s (model %s)", a.Name, a.Model))
		} else {
			out = append(out, a.Name)
		}
	}
	return strings.Join(out, ", ")
}

func interval(lo, hi float64) string {
	if lo != lo {
		return "-"
	}
	return fmt.Sprintf("[%.3f, %.3f]", lo, hi)
}

// jsonStats replaces NaN (undefined coefficients) with null for JSON.
func jsonStats(s ev.Stats) any {
	num := func(v float64) any {
		if v != v {
			return nil
		}
		return v
	}
	labels := []map[string]any{}
	for _, l := range s.Labels {
		var rates []map[string]any
		for _, r := range l.Rates {
			rates = append(rates, map[string]any{"bot": r.Bot, "n": r.N, "value": num(r.Value), "low": num(r.Low), "high": num(r.High)})
		}
		row := map[string]any{"label": l.Label, "kind": l.Kind, "items": l.Items, "alpha": num(l.Alpha),
			"alpha_low": num(l.Low), "alpha_high": num(l.High), "fleiss_kappa": num(l.FleissKappa), "cohen_kappa": num(l.CohenKappa), "percent_agreement": num(l.PercentAgreement), "note": l.Note, "rates": rates}
		if len(l.Groups) > 0 {
			row["agreement_of"] = "people"
			var groups []map[string]any
			for _, g := range l.Groups {
				groups = append(groups, map[string]any{"between": g.Group, "items": g.Items, "alpha": num(g.Alpha), "alpha_low": num(g.Low),
					"alpha_high": num(g.High), "fleiss_kappa": num(g.FleissKappa), "note": g.Note})
			}
			row["groups"] = groups
		}
		labels = append(labels, row)
	}
	annotators := []map[string]any{}
	for _, a := range s.Annotators {
		kind := "person"
		if a.Model != "" {
			kind = "model"
		}
		annotators = append(annotators, map[string]any{"name": a.Name, "kind": kind, "model": a.Model, "annotations": a.Annotations})
	}
	return map[string]any{"labels": labels, "annotators": annotators}
}

func evalExportSetup(fs *flag.FlagSet) runFunc {
	format := fs.String("format", "", "original, csv or jsonl")
	out := fs.String("out", "", "where to write: a folder for original, a file for csv and jsonl")
	pseudo := fs.Bool("pseudonymise", false, "replace participant names by worker-01, worker-02, ...")
	return func(e *env, args []string) error {
		switch *format {
		case "original", "csv", "jsonl":
		default:
			return usageErrorf("--format must be original, csv or jsonl")
		}
		if *out == "" {
			return usageErrorf("--out is required")
		}
		ctx := e.context()
		st, info, err := e.openEvalProject(ctx, args, 1, "give the project")
		if err != nil {
			return err
		}
		defer st.Close()
		p, results, err := st.EvalResults(ctx, info.ID)
		if err != nil {
			return err
		}
		files, err := ev.ExportResults(p, results, *format, *out, *pseudo)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %s to %s\n", pluralWord(len(files), "file"), *out)
		return nil
	}
}

func evalSave(e *env, args []string) error {
	ctx := e.context()
	st, _, p, err := e.openEvalProjectDef(ctx, args, 2, "give the project and where to write it")
	if err != nil {
		return err
	}
	defer st.Close()
	if strings.HasSuffix(strings.ToLower(args[1]), ".toml") {
		if err := ev.SaveProject(args[1], p); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %s\n", args[1])
		return nil
	}
	files, err := ev.ExportOriginal(p, args[1])
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s to %s\n", pluralWord(len(files), "file"), args[1])
	return nil
}

func evalBotSetup(fs *flag.FlagSet) runFunc {
	kind := fs.String("kind", "", "echo, exec or http")
	command := fs.String("command", "", "exec: the program and its arguments (split at spaces)")
	url := fs.String("url", "", "http: an OpenAI-compatible chat-completions URL")
	model := fs.String("model", "", "http: the model name to send")
	prompt := fs.String("system-prompt", "", "http: the system prompt")
	keyEnv := fs.String("api-key-env", "", "http: the environment variable holding the API key")
	temperature := fs.Float64("temperature", 0, "http: the sampling temperature (0: the server's default)")
	timeout := fs.Int("timeout", 0, "seconds to wait for one reply (default 60)")
	return func(e *env, args []string) error {
		spec := ev.BotSpec{Kind: ev.BotKind(*kind), Command: strings.Fields(*command), URL: *url, Model: *model,
			SystemPrompt: *prompt, Temperature: *temperature, APIKeyEnv: *keyEnv, TimeoutSeconds: *timeout}
		switch spec.Kind {
		case ev.BotEcho, ev.BotExec, ev.BotHTTP:
		default:
			return usageErrorf("--kind must be echo, exec or http")
		}
		ctx := e.context()
		st, info, p, err := e.openEvalProjectDef(ctx, args, 2, "give the project and the bot's model key")
		if err != nil {
			return err
		}
		defer st.Close()
		old, ok := p.Bots[args[1]]
		if !ok {
			return fmt.Errorf("project %q has no bot %q (its bots: %s)", info.Name, args[1], strings.Join(slices.Sorted(maps.Keys(p.Bots)), ", "))
		}
		spec.Options = old.Options
		b, err := ev.NewBot(args[1], spec)
		if err != nil {
			return err
		}
		ev.CloseBot(b)
		p.Bots[args[1]] = spec
		config, err := ev.MarshalDefinition(p)
		if err != nil {
			return err
		}
		if err := st.SetEvalProjectConfig(ctx, info.ID, string(config)); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "bot %s of %s: %s\n", args[1], info.Name, spec.Kind)
		return nil
	}
}

func evalDelete(e *env, args []string) error {
	ctx := e.context()
	st, info, err := e.openEvalProject(ctx, args, 1, "give the project")
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.DeleteEvalProject(ctx, info.ID); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "deleted project %q with %s\n", info.Name, pluralWord(info.Participants, "participant"))
	return nil
}

func pluralWord(n int, w string) string {
	if n == 1 {
		return "1 " + w
	}
	return fmt.Sprintf("%d %ss", n, w)
}

// evalImportResults reads every state.json under a folder (the original's
// runs/NO_PROJECT/<run>/<assignment>/<attempt>/state.json, or Agentdesk's export) and stores the
// finished attempts in the project, each matched to its bundle by the dialogues it showed.
func evalImportResults(e *env, args []string) error {
	ctx := e.context()
	st, info, p, err := e.openEvalProjectDef(ctx, args, 2, "give the project and the results folder")
	if err != nil {
		return err
	}
	defer st.Close()
	attempts, skipped, err := ev.ReadResults(p, info.Name, args[1])
	if err != nil {
		return err
	}
	n, err := st.ImportEvalAttempts(ctx, info.ID, attempts)
	if err != nil {
		return fmt.Errorf("%w (nothing was imported)", err)
	}
	fmt.Fprintf(e.stdout, "imported %d finished attempts into %q; skipped %d (unfinished or gold)\n", n, info.Name, skipped)
	return nil
}
