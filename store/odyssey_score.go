package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/odyssey"
)

// Scoring modes.
const (
	// ScoreOfficial scores exactly what the original evaluator scores: the predictions given,
	// in their order, with their own ground truth; an abort of the original is an error.
	ScoreOfficial = "official"
	// ScoreLenient is ScoreOfficial that still computes numbers when the original aborts
	// (labelled non-official).
	ScoreLenient = "lenient"
	// ScoreStrict scores every test step of the split, in split order, with the stored ground
	// truth; a step without a prediction counts as wrong. Not official.
	ScoreStrict = "strict"
)

// OdysseyScoreOptions say what a prediction set is scored against.
type OdysseyScoreOptions struct {
	// Split names the split (e.g. "random_split"; "random" works too). Its name decides the
	// official branch unless Branch is set; its test part is what strict mode scores.
	Split string
	// Branch overrides the split's official branch (for user splits).
	Branch odyssey.Branch
	// Mode is ScoreOfficial (default), ScoreLenient or ScoreStrict.
	Mode string
	// Level ("high", "low" or "") and Name (the model) label a saved run.
	Level, Name string
	// Save stores the run and its scored samples (see OdysseyRuns). Saving the same prediction
	// file (Source) for the same split, mode and level again returns the run saved before.
	Save   bool
	Source odyssey.SourceFile
}

// OdysseyScore is a scored prediction set with Agentdesk's diagnostics.
type OdysseyScore struct {
	*odyssey.Result
	Split, Mode string
	// RunID is the saved run (0 when not saved).
	RunID int64
	// Breakdowns by odyssey.ByCategory, ByApp, ByDevice and ByAction.
	Breakdowns map[string][]odyssey.Group
	// Failures are the steps scored wrong, with both actions drawable.
	Failures []odyssey.Failure
	// UnknownEpisodes counts samples whose episode is not in the store; OutsideSplit samples
	// whose episode is not in the split's test part; GTMismatches samples whose ground truth
	// differs from the stored one; Missing test steps of the split without a prediction.
	UnknownEpisodes, OutsideSplit, GTMismatches, Missing int
}

// Official reports whether the numbers are the original evaluator's: official mode and no
// abort.
func (sc *OdysseyScore) Official() bool { return sc.Mode == ScoreOfficial && sc.Abort == nil }

// ResolveSplitName finds a split by its name or by the official split's short name ("random"
// for "random_split").
func (r reader) ResolveSplitName(ctx context.Context, name string) (string, error) {
	infos, err := r.Splits(ctx)
	if err != nil {
		return "", err
	}
	var names []string
	for _, in := range infos {
		if in.Name == name {
			return name, nil
		}
		names = append(names, in.Name)
	}
	for _, in := range infos {
		if in.Name == name+"_split" {
			return in.Name, nil
		}
	}
	if len(names) == 0 {
		return "", fmt.Errorf("split %q: %w (the store has no split; import a dataset with its splits/ folder first)", name, ErrNotFound)
	}
	return "", fmt.Errorf("split %q: %w (the store has %s)", name, ErrNotFound, strings.Join(names, ", "))
}

type stepFacts struct {
	action episode.Action
	gt     string
	hasGT  bool
	box    odyssey.Box
}

type epFacts struct {
	id         int64
	facts      odyssey.EpisodeFacts
	category   string
	stepLength int
	steps      []stepFacts
}

// loadEpisodeFacts reads what scoring needs of the named odyssey episodes.
func (r reader) loadEpisodeFacts(ctx context.Context, ids []string) (map[string]*epFacts, error) {
	epStmt, err := r.q.PrepareContext(ctx, `SELECT id,
		coalesce(json_extract(metadata, '$.device_info.device_name'), ''),
		coalesce(json_extract(metadata, '$.task_info.category'), ''),
		coalesce(metadata -> '$.task_info.app', '[]'),
		coalesce(json_extract(metadata, '$.step_length'), num_steps)
		FROM episodes WHERE source = ? AND external_id = ?`)
	if err != nil {
		return nil, err
	}
	defer epStmt.Close()
	stepStmt, err := r.q.PrepareContext(ctx, `SELECT action, json_extract(extra, '$.gt_command'), extra -> '$.sam2_bbox'
		FROM steps WHERE episode_id = ? ORDER BY idx`)
	if err != nil {
		return nil, err
	}
	defer stepStmt.Close()
	out := map[string]*epFacts{}
	for _, ext := range ids {
		if _, done := out[ext]; done {
			continue
		}
		f := &epFacts{}
		var apps string
		err := epStmt.QueryRowContext(ctx, episode.SourceOdyssey, ext).Scan(&f.id, &f.facts.Device, &f.category, &apps, &f.stepLength)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		json.Unmarshal([]byte(apps), &f.facts.Apps)
		rows, err := stepStmt.QueryContext(ctx, f.id)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var action string
			var gt, box sql.NullString
			if err := rows.Scan(&action, &gt, &box); err != nil {
				rows.Close()
				return nil, err
			}
			var sf stepFacts
			json.Unmarshal([]byte(action), &sf.action)
			sf.gt, sf.hasGT = gt.String, gt.Valid
			if box.Valid {
				var vals []float64
				if json.Unmarshal([]byte(box.String), &vals) == nil {
					sf.box = odyssey.Box{Present: true, Values: append([]float64{}, vals...)}
				}
			}
			f.steps = append(f.steps, sf)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		out[ext] = f
	}
	return out, nil
}

// ScoreOdyssey scores predictions (odyssey.ReadPredictions) against a split of the store as
// opts say, adds breakdowns by category, app, device and action and the list of failures, and
// saves the run when asked. In official mode, when the original evaluation would abort, the
// error is an *odyssey.AbortError and the score holds the verdicts only.
func (s *Store) ScoreOdyssey(ctx context.Context, samples []odyssey.Sample, opts OdysseyScoreOptions) (*OdysseyScore, error) {
	split, err := s.ResolveSplitName(ctx, opts.Split)
	if err != nil {
		return nil, err
	}
	mode := opts.Mode
	if mode == "" {
		mode = ScoreOfficial
	}
	if mode != ScoreOfficial && mode != ScoreLenient && mode != ScoreStrict {
		return nil, fmt.Errorf("unknown scoring mode %q (official, lenient or strict)", mode)
	}
	branch := opts.Branch
	if branch == "" {
		branch = odyssey.BranchForSplit(split)
	}
	if branch != odyssey.BranchMicro && branch != odyssey.BranchMacro {
		return nil, fmt.Errorf("unknown branch %q (micro or macro)", branch)
	}
	sp, err := s.Split(ctx, split)
	if err != nil {
		return nil, err
	}
	var testIDs []string
	inTest := map[string]bool{}
	for _, k := range sp.Parts["test"] {
		if k.Source == episode.SourceOdyssey {
			testIDs = append(testIDs, k.ExternalID)
			inTest[k.ExternalID] = true
		}
	}
	ids := append([]string{}, testIDs...)
	for _, sm := range samples {
		ids = append(ids, sm.EpisodeID)
	}
	facts, err := s.loadEpisodeFacts(ctx, ids)
	if err != nil {
		return nil, err
	}
	sc := &OdysseyScore{Split: split, Mode: mode}
	for _, sm := range samples {
		f := facts[sm.EpisodeID]
		switch {
		case f == nil:
			sc.UnknownEpisodes++
		case sm.Step >= 0 && sm.Step < len(f.steps) && f.steps[sm.Step].hasGT && f.steps[sm.Step].gt != sm.GT:
			sc.GTMismatches++
		}
		if !inTest[sm.EpisodeID] {
			sc.OutsideSplit++
		}
	}
	scored := samples
	if mode == ScoreStrict {
		scored = strictSamples(samples, testIDs, facts, &sc.Missing)
	}
	res, evalErr := odyssey.Evaluate(scored, branch, odyssey.Options{Lenient: mode != ScoreOfficial})
	if mode != ScoreOfficial {
		evalErr = nil // the abort is kept in res.Abort; the numbers are labelled non-official
	}
	sc.Result = res
	sc.diagnose(facts)
	if opts.Save && evalErr == nil {
		if sc.RunID, err = s.saveRun(ctx, sc, opts, facts); err != nil {
			return sc, err
		}
	}
	return sc, evalErr
}

// diagnose adds the breakdowns and the failing steps to a scored set.
func (sc *OdysseyScore) diagnose(facts map[string]*epFacts) {
	sc.Breakdowns = odyssey.Breakdowns(sc.Result, func(id string) (odyssey.EpisodeFacts, bool) {
		if f := facts[id]; f != nil {
			return f.facts, true
		}
		return odyssey.EpisodeFacts{}, false
	})
	sc.Failures = odyssey.Failures(sc.Result, func(id string, step int) (episode.Action, bool) {
		if f := facts[id]; f != nil && step >= 0 && step < len(f.steps) {
			return f.steps[step].action, true
		}
		return episode.Action{}, false
	})
}

// OpenOdysseyRun scores a saved run's samples again (the same verdicts and numbers as when it
// was saved) with its breakdowns and failing steps against the store's episodes as they are now.
// The samples come without their prompts (Question), which only result files need.
func (s *Store) OpenOdysseyRun(ctx context.Context, runID int64) (*OdysseyScore, OdysseyRun, error) {
	var run OdysseyRun
	runs, err := s.odysseyRuns(ctx, `WHERE r.id = ?`, runID)
	if err != nil {
		return nil, run, err
	}
	if len(runs) == 0 {
		return nil, run, fmt.Errorf("run %d: %w", runID, ErrNotFound)
	}
	run = runs[0]
	samples, err := s.odysseyRunSamples(ctx, runID, "''")
	if err != nil {
		return nil, run, err
	}
	ids := make([]string, len(samples))
	for i, sm := range samples {
		ids[i] = sm.EpisodeID
	}
	facts, err := s.loadEpisodeFacts(ctx, ids)
	if err != nil {
		return nil, run, err
	}
	// Strict runs were saved as the samples strict mode scored: score them as they are.
	res, _ := odyssey.Evaluate(samples, run.Branch, odyssey.Options{Lenient: run.Mode != ScoreOfficial})
	sc := &OdysseyScore{Result: res, Split: run.Split, Mode: run.Mode, RunID: run.ID}
	sc.diagnose(facts)
	return sc, run, nil
}

// strictSamples are the split's test steps in order, each with its prediction or an empty one.
func strictSamples(samples []odyssey.Sample, testIDs []string, facts map[string]*epFacts, missing *int) []odyssey.Sample {
	type key struct {
		ep   string
		step int
	}
	byStep := make(map[key]odyssey.Sample, len(samples))
	for _, sm := range samples {
		byStep[key{sm.EpisodeID, sm.Step}] = sm
	}
	var out []odyssey.Sample
	for _, id := range testIDs {
		f := facts[id]
		if f == nil {
			continue
		}
		for i, st := range f.steps {
			if !st.hasGT {
				continue // the official converter rejects the step: it has no ground truth
			}
			sm := odyssey.Sample{GT: st.gt, Category: f.category, StepLength: len(f.steps), Box: st.box, EpisodeID: id, Step: i}
			if p, ok := byStep[key{id, i}]; ok {
				sm.Question, sm.Pred = p.Question, p.Pred
			} else {
				*missing++
			}
			out = append(out, sm)
		}
	}
	return out
}

func (s *Store) saveRun(ctx context.Context, sc *OdysseyScore, opts OdysseyScoreOptions, facts map[string]*epFacts) (int64, error) {
	var runID int64
	err := s.Update(ctx, func(tx *Tx) error {
		var fileID any
		if opts.Source.SHA256 != "" {
			var existing int64
			err := tx.tx.QueryRowContext(ctx, `SELECT r.id FROM odyssey_runs r JOIN imported_files f ON f.id = r.file_id
				WHERE f.kind = ? AND f.sha256 = ? AND r.split = ? AND r.mode = ? AND r.level = ? AND r.branch = ?`,
				KindOdysseyPredictions, opts.Source.SHA256, sc.Split, sc.Mode, opts.Level, string(sc.Branch)).Scan(&existing)
			if err == nil {
				runID = existing
				return nil
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			f, _, err := tx.RecordImportedFile(ctx, KindOdysseyPredictions, opts.Source.Path,
				FileSum{SHA256: opts.Source.SHA256, Size: opts.Source.Size})
			if err != nil {
				return err
			}
			fileID = f.ID
		}
		info, _ := json.Marshal(sc.Info)
		cats, _ := json.Marshal(sc.PrintedCategories())
		abort := ""
		if sc.Abort != nil {
			abort = sc.Abort.Error()
		}
		err := tx.tx.QueryRowContext(ctx, `INSERT INTO odyssey_runs (name, split, level, branch, mode, predictions_path, file_id, info, categories, abort)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, opts.Name, sc.Split, opts.Level, string(sc.Branch), sc.Mode,
			opts.Source.Path, fileID, string(info), string(cats), abort).Scan(&runID)
		if err != nil {
			return err
		}
		stmt, err := tx.tx.PrepareContext(ctx, `INSERT INTO odyssey_predictions (run_id, pos, episode_id, external_id, step,
			category, step_length, question, pred, gt, sam2_bbox, is_correct, info) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i, sm := range sc.Samples {
			var epID, box any
			if f := facts[sm.EpisodeID]; f != nil {
				epID = f.id
			}
			if sm.Box.Present {
				b, _ := json.Marshal(sm.Box.Values)
				box = string(b)
			}
			if _, err := stmt.ExecContext(ctx, runID, i, epID, sm.EpisodeID, sm.Step, sm.Category, sm.StepLength,
				sm.Question, sm.Pred, sm.GT, box, sm.IsCorrect, sm.Info); err != nil {
				return fmt.Errorf("save sample %d: %w", i, err)
			}
		}
		return nil
	})
	return runID, err
}

// OdysseyRun is a saved scoring run.
type OdysseyRun = odyssey.SavedRun

// OdysseyRuns lists saved runs, newest first; split "" lists all.
func (r reader) OdysseyRuns(ctx context.Context, split string) ([]OdysseyRun, error) {
	if split != "" {
		return r.odysseyRuns(ctx, `WHERE r.split = ?`, split)
	}
	return r.odysseyRuns(ctx, "")
}

// SavedOdysseyRuns lists every saved run, newest first (the Explorer's Scoring tab).
func (r reader) SavedOdysseyRuns(ctx context.Context) ([]odyssey.SavedRun, error) {
	return r.odysseyRuns(ctx, "")
}

func (r reader) odysseyRuns(ctx context.Context, where string, args ...any) ([]OdysseyRun, error) {
	q := `SELECT r.id, r.name, r.split, r.level, r.branch, r.mode, r.predictions_path, r.info, r.categories, r.abort,
		(SELECT count(*) FROM odyssey_predictions p WHERE p.run_id = r.id), r.created_at FROM odyssey_runs r ` + where
	rows, err := r.q.QueryContext(ctx, q+` ORDER BY r.id DESC`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []OdysseyRun
	for rows.Next() {
		var run OdysseyRun
		var info, cats, at, branch string
		if err := rows.Scan(&run.ID, &run.Name, &run.Split, &run.Level, &branch, &run.Mode, &run.PredictionsPath,
			&info, &cats, &run.Abort, &run.Samples, &at); err != nil {
			return nil, err
		}
		run.Branch = odyssey.Branch(branch)
		run.Info = json.RawMessage(info)
		json.Unmarshal([]byte(cats), &run.Categories)
		run.CreatedAt = parseTime(at)
		out = append(out, run)
	}
	return out, rows.Err()
}

// OdysseyRunSamples loads a saved run's samples in order, for re-scoring (ScoreOdyssey) or
// listing.
func (r reader) OdysseyRunSamples(ctx context.Context, runID int64) ([]odyssey.Sample, error) {
	return r.odysseyRunSamples(ctx, runID, "question")
}

// odysseyRunSamples loads a run's samples; question is the SQL expression read into
// Sample.Question: the column, or an empty string literal to leave the prompts out (only result
// files need them, and a large run's take tens of megabytes).
func (r reader) odysseyRunSamples(ctx context.Context, runID int64, question string) ([]odyssey.Sample, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT external_id, step, category, step_length, `+question+`, pred, gt, sam2_bbox
		FROM odyssey_predictions WHERE run_id = ? ORDER BY pos`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []odyssey.Sample
	for rows.Next() {
		var sm odyssey.Sample
		var box sql.NullString
		if err := rows.Scan(&sm.EpisodeID, &sm.Step, &sm.Category, &sm.StepLength, &sm.Question, &sm.Pred, &sm.GT, &box); err != nil {
			return nil, err
		}
		if box.Valid {
			sm.Box.Present = true
			if err := json.Unmarshal([]byte(box.String), &sm.Box.Values); err != nil {
				return nil, err
			}
			if sm.Box.Values == nil {
				sm.Box.Values = []float64{}
			}
		}
		out = append(out, sm)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if out == nil {
		var n int
		if err := r.q.QueryRowContext(ctx, `SELECT count(*) FROM odyssey_runs WHERE id = ?`, runID).Scan(&n); err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, fmt.Errorf("run %d: %w", runID, ErrNotFound)
		}
	}
	return out, nil
}

// DeleteOdysseyRun removes a saved run and its samples.
func (s *Store) DeleteOdysseyRun(ctx context.Context, runID int64) error {
	res, err := s.exec(ctx, `DELETE FROM odyssey_runs WHERE id = ?`, runID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("run %d: %w", runID, ErrNotFound)
	}
	return nil
}

// OdysseyTestRecords builds the official test records of a split (odyssey.TestRecords) from
// the store, with image paths as the screenshots' references.
func (r reader) OdysseyTestRecords(ctx context.Context, split, level string) ([]odyssey.TestRecord, error) {
	part, err := r.OdysseySplitPart(ctx, split, "test")
	if err != nil {
		return nil, err
	}
	return odyssey.TestRecords(part.Split, level, part.Episodes, part.ImagePath)
}
