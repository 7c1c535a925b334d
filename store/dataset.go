package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentdesk/agentdesk/engine/dataset"
	"github.com/agentdesk/agentdesk/engine/episode"
)

// Episodes, steps and evaluation answers as rows of a Hugging Face dataset (engine/dataset):
// read a page of episodes at a time, so an export never holds the store, and read back in one
// transaction.

// DatasetRows calls episodeFn with every episode f selects and then stepFn with each of its
// steps, in store order, reading a page of episodes at a time. A step's Observation is valid
// only during the call (it is the driver's buffer, not a copy: frames are most of the bytes). Without images the steps' stored
// frames are not read.
func (r reader) DatasetRows(ctx context.Context, f episode.Filter, images bool,
	episodeFn func(*dataset.EpisodeRow) error, stepFn func(*dataset.StepRow) error) error {
	return r.datasetRows(ctx, f, images, episodeFn, stepFn, nil)
}

// storedPages are a block of episodes as the store keeps them encoded (dataset_blocks).
type storedPages struct {
	episode, steps []byte
	numSteps       int64
}

// datasetRows is DatasetRows; without images and with pagesFn, the episodes of a block the
// store keeps encoded (dataset_blocks) are given to pagesFn instead when f selects every
// episode of the block, in their place in the order, and their rows are not read. The pages
// are the caller's.
func (r reader) datasetRows(ctx context.Context, f episode.Filter, images bool,
	episodeFn func(*dataset.EpisodeRow) error, stepFn func(*dataset.StepRow) error,
	pagesFn func(storedPages) error) error {
	if images || pagesFn == nil {
		return r.ForEachMatchingID(ctx, f, func(ids []int64) error {
			return r.datasetPage(ctx, ids, images, episodeFn, stepFn)
		})
	}
	// the selected ids of one block are gathered (ids come in order), then the block goes out
	// whole from its pages, or from its rows
	block := int64(-1)
	var ids []int64
	flush := func() error {
		if len(ids) == 0 {
			return nil
		}
		var p storedPages
		err := r.q.QueryRowContext(ctx, `SELECT num_steps, episode, steps FROM dataset_blocks
			WHERE block = ? AND layout = ? AND episodes = ?`, block, dataset.PagesLayout, len(ids)).
			Scan(&p.numSteps, &p.episode, &p.steps)
		switch {
		case err == nil:
			ids = ids[:0]
			return pagesFn(p)
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		for start := 0; start < len(ids); start += 500 {
			if err := r.datasetPage(ctx, ids[start:min(start+500, len(ids))], false, episodeFn, stepFn); err != nil {
				return err
			}
		}
		ids = ids[:0]
		return nil
	}
	err := r.ForEachMatchingID(ctx, f, func(page []int64) error {
		for _, id := range page {
			if b := id >> blockShift; b != block {
				if err := flush(); err != nil {
					return err
				}
				block = b
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// datasetPage is DatasetRows for one page of episode ids, in id order.
func (r reader) datasetPage(ctx context.Context, ids []int64, images bool,
	episodeFn func(*dataset.EpisodeRow) error, stepFn func(*dataset.StepRow) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	rows, err := r.episodeRows(ctx, ids)
	if err != nil {
		return err
	}
	// each episode goes out in id order, just before its steps
	next := 0
	var cur *dataset.EpisodeRow
	var curID int64
	upTo := func(id int64) error {
		for next < len(ids) && ids[next] <= id {
			curID = ids[next]
			next++
			if cur = rows[curID]; cur == nil {
				continue // removed from the store since it was selected
			}
			if err := episodeFn(cur); err != nil {
				return err
			}
		}
		return nil
	}
	// without images, no frame column: each column read costs the driver a call and a lock
	cols := `episode_id, idx, action, action_kind, reward, instruction, observation_ref, extra`
	if images {
		cols += `, observation`
	}
	err = scanRows(ctx, r.q, `SELECT `+cols+`
		FROM steps WHERE episode_id IN (`+placeholders(len(ids))+`) ORDER BY episode_id, idx`, func(rows *sql.Rows) error {
		var id int64
		var s dataset.StepRow
		// the frame is not copied out of the driver: the sinks use it before the next row
		var frame sql.RawBytes
		dest := []any{&id, &s.Step, &s.ActionJSON, &s.ActionKind, &s.Reward, &s.Instruction,
			&s.ObservationRef, &s.Extra, &frame}
		if !images {
			dest = dest[:8]
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if frame != nil {
			s.Observation = []byte(frame)
		}
		if err := upTo(id); err != nil {
			return err
		}
		if cur == nil || curID != id {
			return fmt.Errorf("episode %d: removed from the store during the export", id)
		}
		s.Source, s.EpisodeID = cur.Source, cur.EpisodeID
		if err := typedAction(&s); err != nil {
			return fmt.Errorf("episode %s/%s step %d action: %w", s.Source, s.EpisodeID, s.Step, err)
		}
		return stepFn(&s)
	}, int64Args(ids)...)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return nil
	}
	return upTo(ids[len(ids)-1])
}

func int64Args(ids []int64) []any {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return args
}

// episodeRows reads the episodes config's rows of the episodes ids, by id.
func (r reader) episodeRows(ctx context.Context, ids []int64) (map[int64]*dataset.EpisodeRow, error) {
	in := `(` + placeholders(len(ids)) + `)`
	args := int64Args(ids)
	facets := map[int64]map[string][]string{}
	err := scanRows(ctx, r.q, `SELECT episode_id, facet, value FROM episode_facets
		WHERE episode_id IN `+in+` AND facet NOT IN ('action', 'meta_task') ORDER BY episode_id, facet, value`,
		func(rows *sql.Rows) error {
			var id int64
			var facet, value string
			if err := rows.Scan(&id, &facet, &value); err != nil {
				return err
			}
			if facets[id] == nil {
				facets[id] = map[string][]string{}
			}
			facets[id][facet] = append(facets[id][facet], value)
			return nil
		}, args...)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]*dataset.EpisodeRow, len(ids))
	err = scanRows(ctx, r.q, `SELECT id, source, external_id, task, instruction, meta_task, num_steps, total_reward, metadata
		FROM episodes WHERE id IN `+in, func(rows *sql.Rows) error {
		var id int64
		e := new(dataset.EpisodeRow)
		var reward float64
		if err := rows.Scan(&id, &e.Source, &e.EpisodeID, &e.Task, &e.Instruction, &e.MetaTask, &e.NumSteps, &reward, &e.Metadata); err != nil {
			return err
		}
		if e.Source != episode.SourceOdyssey { // GUI Odyssey episodes have no reward
			e.Reward = &reward
		}
		fs := facets[id]
		if v := fs[episode.FacetCategory]; len(v) > 0 {
			e.Category = v[0]
		}
		if v := fs[episode.FacetDevice]; len(v) > 0 {
			e.Device = v[0]
		}
		e.Apps = fs[episode.FacetApp]
		if fs == nil {
			fs = map[string][]string{}
		}
		b, err := json.Marshal(fs)
		if err != nil {
			return err
		}
		e.Facets = string(b)
		out[id] = e
		return nil
	}, args...)
	return out, err
}

// typedAction fills a step row's typed action columns from the stored action.
func typedAction(s *dataset.StepRow) error {
	a, ok := quickAction(s.ActionJSON)
	if !ok {
		if err := json.Unmarshal([]byte(s.ActionJSON), &a); err != nil {
			return err
		}
	}
	if len(a.Points) > 0 {
		p := a.Points[0]
		s.ActionX, s.ActionY = &p.X, &p.Y
		if len(a.Points) > 1 {
			q := a.Points[len(a.Points)-1]
			s.ActionX2, s.ActionY2 = &q.X, &q.Y
		}
	}
	s.ActionText = a.Text
	switch {
	case len(a.Raw) > 0 && a.Raw[0] == '"':
		var text string
		if json.Unmarshal(a.Raw, &text) == nil {
			s.Action = text
		} else {
			s.Action = string(a.Raw)
		}
	case len(a.Raw) > 0:
		s.Action = string(a.Raw)
	default:
		s.Action = s.ActionJSON
	}
	return nil
}

// quickAction reads an action as the store writes it (json.Marshal of episode.Action: kind,
// then points, text and raw when present, no spaces) without encoding/json, which took a
// fifth of an export; anything else (an escaped string, another shape) says !ok and is read
// by encoding/json.
func quickAction(s string) (a episode.Action, ok bool) {
	rest, ok := strings.CutPrefix(s, `{"kind":`)
	if !ok {
		return a, false
	}
	if a.Kind, rest, ok = quickString(rest); !ok {
		return a, false
	}
	if r, found := strings.CutPrefix(rest, `,"points":[`); found {
		rest = r
		for {
			var p episode.Point
			if rest, ok = strings.CutPrefix(rest, `{"x":`); !ok {
				return a, false
			}
			i := strings.IndexByte(rest, ',')
			if i < 0 {
				return a, false
			}
			x, err := strconv.ParseFloat(rest[:i], 64)
			if err != nil {
				return a, false
			}
			if rest, ok = strings.CutPrefix(rest[i:], `,"y":`); !ok {
				return a, false
			}
			i = strings.IndexByte(rest, '}')
			if i < 0 {
				return a, false
			}
			y, err := strconv.ParseFloat(rest[:i], 64)
			if err != nil {
				return a, false
			}
			p.X, p.Y = x, y
			a.Points = append(a.Points, p)
			rest = rest[i+1:]
			if r, more := strings.CutPrefix(rest, ","); more {
				rest = r
				continue
			}
			if rest, ok = strings.CutPrefix(rest, "]"); !ok {
				return a, false
			}
			break
		}
	}
	if r, found := strings.CutPrefix(rest, `,"text":`); found {
		if a.Text, rest, ok = quickString(r); !ok {
			return a, false
		}
	}
	if r, found := strings.CutPrefix(rest, `,"raw":`); found {
		raw, ok := strings.CutSuffix(r, "}")
		if !ok || raw == "" {
			return a, false
		}
		a.Raw = json.RawMessage(raw)
		return a, true
	}
	return a, rest == "}"
}

// quickString reads a JSON string without escapes at the start of s.
func quickString(s string) (string, string, bool) {
	if len(s) < 2 || s[0] != '"' {
		return "", s, false
	}
	end := strings.IndexByte(s[1:], '"')
	if end < 0 || strings.IndexByte(s[1:1+end], '\\') >= 0 {
		return "", s, false
	}
	return s[1 : 1+end], s[2+end:], true
}

// DatasetAnnotations calls fn with every evaluation answer, in the order given. Participants
// are named "p" and their store number unless names is set.
func (r reader) DatasetAnnotations(ctx context.Context, names bool, fn func(*dataset.AnnotationRow) error) error {
	return scanRows(ctx, r.q, `SELECT p.name, a.id, a.participant_id, pt.name, a.unit_id, u.unit_index, u.kind,
			coalesce(asg.position, -1), a.dialogue_pos, a.type_pos, a.type_name, a.turn, a.question, a.value,
			a.answered_at, a.page_shown_at, a.time_spent_ms
		FROM eval_answers a
		JOIN eval_units u ON u.id = a.unit_id
		JOIN eval_projects p ON p.id = u.project_id
		JOIN eval_participants pt ON pt.id = a.participant_id
		LEFT JOIN eval_assignments asg ON asg.id = u.assignment_id
		ORDER BY a.id`, func(rows *sql.Rows) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		var a dataset.AnnotationRow
		var pid int64
		var name, answered, shown string
		if err := rows.Scan(&a.Project, &a.AnswerID, &pid, &name, &a.UnitID, &a.UnitIndex, &a.UnitKind,
			&a.Assignment, &a.DialoguePos, &a.TypePos, &a.TypeName, &a.Turn, &a.Question, &a.Value,
			&answered, &shown, &a.TimeOnPage); err != nil {
			return err
		}
		a.Participant = fmt.Sprintf("p%d", pid)
		if names {
			a.Participant = name
		}
		a.AnsweredAt, a.PageShownAt = parseTime(answered).UTC(), parseTime(shown).UTC()
		return fn(&a)
	})
}

// DatasetExport says what ExportDataset writes.
type DatasetExport struct {
	// Filter selects the episodes (with Episodes set). With Parts, each part of Filter.Split
	// is the dataset split of that name; without, every episode goes to split "train".
	Filter   episode.Filter
	Parts    []string
	Episodes bool
	// Annotations writes the evaluation answers; Names with participants' names instead of
	// pseudonyms.
	Annotations, Names bool
	Options            dataset.Options
	// Progress, when set, is called after each episode and each answer (after each block of
	// episodes copied from their encoded pages) with the rows written so far.
	Progress func(episodes, steps, answers int64)
}

// ExportDataset writes the episodes, steps and answers x selects as a dataset folder at dest
// (engine/dataset): nothing appears at dest unless the whole export succeeds.
func (s *Store) ExportDataset(ctx context.Context, dest string, x DatasetExport) (dataset.Summary, error) {
	if x.Episodes && x.Filter.Split != "" && len(x.Parts) > 0 {
		x.Options.StoreSplit = x.Filter.Split // its parts are the dataset's splits
	}
	out, err := dataset.NewExporter(dest, x.Options)
	if err != nil {
		return dataset.Summary{}, err
	}
	var configs []string
	if x.Episodes {
		configs = append(configs, dataset.ConfigEpisodes, dataset.ConfigSteps)
	}
	if x.Annotations {
		configs = append(configs, dataset.ConfigAnnotations)
	}
	err = s.exportRows(ctx, x, out, out.Annotation)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		out.Abort()
		return dataset.Summary{}, err
	}
	return out.Commit(configs)
}

// ExportShareGPT writes the episodes x selects as training chats (engine/dataset's ShareGPT
// layout) at dest, atomically; it returns the files written (relative to dest) and the
// records. Answers are not chats: x.Annotations is ignored.
func (s *Store) ExportShareGPT(ctx context.Context, dest string, x DatasetExport) (files []string, records int64, missing int, err error) {
	out, err := dataset.NewShareGPTExporter(dest, x.Options.NoImages)
	if err != nil {
		return nil, 0, 0, err
	}
	x.Annotations, x.Episodes = false, true
	err = s.exportRows(ctx, x, out, nil)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		out.Abort()
		return nil, 0, 0, err
	}
	files, err = out.Commit()
	return files, out.Records, out.Missing, err
}

// rowSink is where exportRows sends rows: a Parquet or a ShareGPT exporter.
type rowSink interface {
	Episode(split string, r *dataset.EpisodeRow) error
	Step(split string, r *dataset.StepRow) error
}

// pageSink is a rowSink that takes an episode as the store keeps it encoded (the Parquet
// exporter without images).
type pageSink interface {
	EpisodePages(split string, episode, steps []byte) error
}

// PhaseEncodingForExports is the last phase of an import's progress: the blocks of episodes
// encoded for exports (RefreshDatasetBlocks), counted in blocks.
const PhaseEncodingForExports = "encoding for exports"

// encodingWarning words an import's failed encoding for exports.
func encodingWarning(err error) string {
	return fmt.Sprintf("episodes not encoded for exports (they export from their rows): %v", err)
}

// Episodes are kept encoded a block at a time: ids id>>blockShift (dataset_blocks).
const blockShift = 10

// importedSplitName names the split an import makes again: its own name, unless the store
// has a split of that name with other members ("NAME (imported)", then numbered).
// same says the store already has that split with these members (then left as it is).
func importedSplitName(ctx context.Context, tx *Tx, name string, parts map[string][]episode.Key) (_ string, same bool, _ error) {
	equal := func(sp episode.Split) bool {
		if len(sp.Parts) != len(parts) {
			return false
		}
		for p, keys := range parts {
			have := map[episode.Key]bool{}
			for _, k := range sp.Parts[p] {
				have[k] = true
			}
			if len(have) != len(keys) {
				return false
			}
			for _, k := range keys {
				if !have[k] {
					return false
				}
			}
		}
		return true
	}
	for i := 1; ; i++ {
		candidate := name
		switch {
		case i == 2:
			candidate = name + " (imported)"
		case i > 2:
			candidate = fmt.Sprintf("%s (imported %d)", name, i-1)
		}
		sp, err := tx.Split(ctx, candidate)
		if errors.Is(err, ErrNotFound) {
			return candidate, false, nil
		}
		if err != nil {
			return "", false, err
		}
		if equal(sp) {
			return candidate, true, nil
		}
	}
}

// blockPart is the episodes of a block encoded at a time.
const blockPart = 256

// maxBlockSteps bounds the steps of a block kept encoded: encoding holds the block's rows, and
// a block of longer episodes than the sources' real ones is exported from its rows.
const maxBlockSteps = 1 << 17

// RefreshDatasetBlocks encodes every block of episodes that has no encoding (new episodes, or
// one dropped by a change), for exports without frames to splice, a few blocks per
// transaction; it returns the blocks encoded. progress, when set, is called after each block
// with the blocks done and to do. Stopped (ctx), it keeps what it encoded: the rest is
// exported from its rows.
func (s *Store) RefreshDatasetBlocks(ctx context.Context, progress func(done, total int)) (int, error) {
	var stale []int64
	err := scanRows(ctx, s.q, fmt.Sprintf(`SELECT DISTINCT id >> %[1]d FROM episodes
		WHERE (id >> %[1]d) NOT IN (SELECT block FROM dataset_blocks WHERE layout = ?) ORDER BY 1`, blockShift),
		func(rows *sql.Rows) error {
			var b int64
			if err := rows.Scan(&b); err != nil {
				return err
			}
			stale = append(stale, b)
			return nil
		}, dataset.PagesLayout)
	if err != nil || len(stale) == 0 {
		return 0, err
	}
	enc := dataset.NewPageEncoder()
	done := 0
	for len(stale) > 0 {
		n := min(len(stale), 8)
		err := s.Update(ctx, func(tx *Tx) error {
			for _, b := range stale[:n] {
				if err := encodeBlock(ctx, tx.tx, enc, b); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return done, err
		}
		done += n
		stale = stale[n:]
		if progress != nil {
			progress(done, done+len(stale))
		}
	}
	return done, nil
}

// encodeBlock encodes the episodes of block b and their steps and keeps the encoding.
func encodeBlock(ctx context.Context, q querier, enc *dataset.PageEncoder, b int64) error {
	var ids []int64
	var total int64
	err := scanRows(ctx, q, `SELECT id, num_steps FROM episodes WHERE id >= ? AND id < ? ORDER BY id`, func(rows *sql.Rows) error {
		var id, n int64
		if err := rows.Scan(&id, &n); err != nil {
			return err
		}
		ids = append(ids, id)
		total += n
		return nil
	}, b<<blockShift, (b+1)<<blockShift)
	if err != nil {
		return err
	}
	if len(ids) == 0 || total > maxBlockSteps {
		_, err := q.ExecContext(ctx, `DELETE FROM dataset_blocks WHERE block = ?`, b)
		return err
	}
	// encoded a part at a time (the block's pages are the parts' one after the other): the
	// rows held stay a few MB
	var epPages, stepPages []byte
	var eps []dataset.EpisodeRow
	var steps []dataset.StepRow
	var numSteps int
	r := reader{q}
	for start := 0; start < len(ids); start += blockPart {
		err := r.datasetPage(ctx, ids[start:min(start+blockPart, len(ids))], false, func(e *dataset.EpisodeRow) error {
			eps = append(eps, *e)
			return nil
		}, func(s *dataset.StepRow) error {
			steps = append(steps, *s)
			return nil
		})
		if err != nil {
			return err
		}
		if len(eps) != min(blockPart, len(ids)-start) {
			return fmt.Errorf("block %d: episodes changed while it was encoded", b)
		}
		if epPages, err = enc.Episodes(epPages, eps); err != nil {
			return fmt.Errorf("episodes %s/%s to %s/%s: %w", eps[0].Source, eps[0].EpisodeID, eps[len(eps)-1].Source, eps[len(eps)-1].EpisodeID, err)
		}
		if stepPages, err = enc.Steps(stepPages, steps); err != nil {
			return fmt.Errorf("steps of episodes %s/%s to %s/%s: %w", eps[0].Source, eps[0].EpisodeID, eps[len(eps)-1].Source, eps[len(eps)-1].EpisodeID, err)
		}
		numSteps += len(steps)
		clear(eps)
		clear(steps)
		eps, steps = eps[:0], steps[:0]
	}
	var stepsArg any
	if len(stepPages) > 0 {
		stepsArg = stepPages
	}
	_, err = q.ExecContext(ctx, `INSERT OR REPLACE INTO dataset_blocks (block, layout, episodes, num_steps, episode, steps)
		VALUES (?, ?, ?, ?, ?, ?)`, b, dataset.PagesLayout, len(ids), numSteps, epPages, stepsArg)
	return err
}

func (s *Store) exportRows(ctx context.Context, x DatasetExport, out rowSink, note func(string, *dataset.AnnotationRow) error) error {
	var eps, steps, notes int64
	progress := func() {
		if x.Progress != nil {
			x.Progress(eps, steps, notes)
		}
	}
	if x.Episodes {
		parts := x.Parts
		if len(parts) == 0 {
			parts = []string{""}
		}
		for _, p := range parts {
			f := x.Filter
			split := dataset.DefaultSplit
			if p != "" {
				f.Part, split = p, p
			}
			episodeFn := func(r *dataset.EpisodeRow) error {
				eps++
				progress()
				return out.Episode(split, r)
			}
			stepFn := func(r *dataset.StepRow) error {
				steps++
				return out.Step(split, r)
			}
			var pagesFn func(storedPages) error
			if ps, ok := out.(pageSink); ok {
				pagesFn = func(p storedPages) error {
					eps++
					steps += p.numSteps
					progress()
					return ps.EpisodePages(split, p.episode, p.steps)
				}
			}
			err := s.datasetRows(ctx, f, !x.Options.NoImages, episodeFn, stepFn, pagesFn)
			if err != nil {
				return err
			}
		}
	}
	if x.Annotations && note != nil {
		return s.DatasetAnnotations(ctx, x.Names, func(r *dataset.AnnotationRow) error {
			notes++
			progress()
			return note(dataset.DefaultSplit, r)
		})
	}
	return nil
}

// DatasetImportResult says what ImportDataset stored.
type DatasetImportResult struct {
	Episodes, Steps, Images int
	// Annotations counts the answers the folder holds, which are not imported (an answer
	// belongs to a study, its units and participants, which a dataset does not carry).
	Annotations int64
	// Split is the store split made again from the dataset's splits, when the card records
	// the one it was exported from (named as it was, or with " (imported)" when the store
	// has another split of that name).
	Split string
	// Warnings are what went wrong after the import, which stands (the episodes' encoding
	// for exports).
	Warnings []string
}

// ImportDataset stores the episodes and steps of an exported dataset folder (engine/dataset)
// in one transaction: episodes already in the store (same source and id) are replaced, so an
// export imported into the store it came from leaves it as it was. Frames are stored in the
// store. progress is called now and then with the phase ("episodes", "steps") and the rows
// read.
func (s *Store) ImportDataset(ctx context.Context, dir string, progress func(phase string, done int)) (DatasetImportResult, error) {
	var res DatasetImportResult
	if err := dataset.CheckFolder(dir); err != nil {
		return res, err
	}
	n, err := dataset.CountRows(dir, dataset.ConfigAnnotations)
	if err != nil {
		return res, err
	}
	res.Annotations = n
	storeSplit, err := dataset.StoreSplitOf(dir)
	if err != nil {
		return res, err
	}
	parts := map[string][]episode.Key{}
	err = s.Update(ctx, func(tx *Tx) error {
		q := tx.tx
		epStmt, err := q.PrepareContext(ctx, `
			INSERT INTO episodes (source, external_id, task, instruction, meta_task, num_steps, total_reward, metadata)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (source, external_id) DO UPDATE SET
				task = excluded.task, instruction = excluded.instruction, meta_task = excluded.meta_task,
				num_steps = excluded.num_steps, total_reward = excluded.total_reward, metadata = excluded.metadata,
				file_id = NULL
			RETURNING id`)
		if err != nil {
			return err
		}
		defer epStmt.Close()
		delSteps, err := q.PrepareContext(ctx, `DELETE FROM steps WHERE episode_id = ?`)
		if err != nil {
			return err
		}
		defer delSteps.Close()
		delFacets, err := q.PrepareContext(ctx, `DELETE FROM episode_facets WHERE episode_id = ?`)
		if err != nil {
			return err
		}
		defer delFacets.Close()
		facetStmt, err := q.PrepareContext(ctx, `INSERT OR IGNORE INTO episode_facets (episode_id, facet, value) VALUES (?, ?, ?)`)
		if err != nil {
			return err
		}
		defer facetStmt.Close()
		type want struct {
			id           int64
			steps, found int64
		}
		ids := map[string]*want{}
		err = dataset.ReadEpisodes(ctx, dir, func(file string, row int64, e *dataset.EpisodeRow) error {
			at := func(err error) error {
				return fmt.Errorf("%s: row %d (episode %s/%s): %w", file, row, e.Source, e.EpisodeID, err)
			}
			if e.Source == "" || e.EpisodeID == "" {
				return at(fmt.Errorf("no source or episode_id"))
			}
			k := e.Source + "\x00" + e.EpisodeID
			if ids[k] != nil {
				return at(fmt.Errorf("the episode is in the dataset twice"))
			}
			meta := e.Metadata
			if meta == "" {
				meta = "{}"
			}
			if !json.Valid([]byte(meta)) {
				return at(fmt.Errorf("metadata is not JSON"))
			}
			var facets map[string][]string
			if e.Facets != "" {
				if err := json.Unmarshal([]byte(e.Facets), &facets); err != nil {
					return at(fmt.Errorf("facets: %w", err))
				}
			}
			var reward float64
			if e.Reward != nil {
				reward = *e.Reward
			}
			var id int64
			if err := epStmt.QueryRowContext(ctx, e.Source, e.EpisodeID, e.Task, e.Instruction, e.MetaTask,
				e.NumSteps, reward, meta).Scan(&id); err != nil {
				return at(err)
			}
			if _, err := delSteps.ExecContext(ctx, id); err != nil {
				return at(err)
			}
			if _, err := delFacets.ExecContext(ctx, id); err != nil {
				return at(err)
			}
			for facet, values := range facets {
				for _, v := range values {
					if _, err := facetStmt.ExecContext(ctx, id, facet, v); err != nil {
						return at(err)
					}
				}
			}
			if e.MetaTask != "" {
				if _, err := facetStmt.ExecContext(ctx, id, episode.FacetMetaTask, e.MetaTask); err != nil {
					return at(err)
				}
			}
			ids[k] = &want{id: id, steps: e.NumSteps}
			if part := dataset.SplitOfFile(file); storeSplit != "" && part != "" {
				parts[part] = append(parts[part], episode.Key{Source: e.Source, ExternalID: e.EpisodeID})
			}
			res.Episodes++
			if progress != nil && res.Episodes%1000 == 0 {
				progress("episodes", res.Episodes)
			}
			return nil
		})
		if err != nil {
			return err
		}
		stepStmt, err := q.PrepareContext(ctx, `INSERT INTO steps
			(episode_id, idx, action, action_kind, reward, instruction, observation_ref, observation, extra)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stepStmt.Close()
		var lastID int64 = -1
		var lastKinds map[string]bool
		err = dataset.ReadSteps(ctx, dir, func(file string, row int64, st *dataset.StepRow) error {
			at := func(err error) error {
				return fmt.Errorf("%s: row %d (episode %s/%s step %d): %w", file, row, st.Source, st.EpisodeID, st.Step, err)
			}
			w := ids[st.Source+"\x00"+st.EpisodeID]
			if w == nil {
				return at(fmt.Errorf("the episode is not in the episodes config"))
			}
			action := st.ActionJSON
			if action == "" {
				b, err := json.Marshal(episode.Action{Kind: st.ActionKind, Text: st.ActionText})
				if err != nil {
					return at(err)
				}
				action = string(b)
			} else if !json.Valid([]byte(action)) {
				return at(fmt.Errorf("action_json is not JSON"))
			}
			extra := st.Extra
			if extra == "" {
				extra = "{}"
			} else if !json.Valid([]byte(extra)) {
				return at(fmt.Errorf("extra is not JSON"))
			}
			var blob []byte
			if st.Image != nil && st.Image.Bytes != nil {
				blob = st.Image.Bytes
				res.Images++
			}
			if _, err := stepStmt.ExecContext(ctx, w.id, st.Step, action, st.ActionKind, st.Reward, st.Instruction,
				st.ObservationRef, blob, extra); err != nil {
				return at(err)
			}
			if w.id != lastID {
				lastID, lastKinds = w.id, map[string]bool{}
			}
			if st.ActionKind != "" && !lastKinds[st.ActionKind] {
				lastKinds[st.ActionKind] = true
				if _, err := facetStmt.ExecContext(ctx, w.id, episode.FacetAction, st.ActionKind); err != nil {
					return at(err)
				}
			}
			w.found++
			res.Steps++
			if progress != nil && res.Steps%1000 == 0 {
				progress("steps", res.Steps)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for k, w := range ids {
			if w.found != w.steps {
				src, ext, _ := strings.Cut(k, "\x00")
				return fmt.Errorf("%s: episode %s/%s has num_steps %d but the steps config holds %d of its steps",
					dir, src, ext, w.steps, w.found)
			}
		}
		if storeSplit != "" && len(parts) > 0 {
			name, same, err := importedSplitName(ctx, tx, storeSplit, parts)
			if err != nil {
				return err
			}
			if !same {
				if err := tx.SaveSplit(ctx, episode.Split{Name: name, Kind: episode.SplitUser, Parts: parts,
					Description: "imported from " + dir}); err != nil {
					return err
				}
			}
			res.Split = name
		}
		return nil
	})
	if err == nil {
		// the episodes encoded for exports, after the import (which stands without it)
		_, rerr := s.RefreshDatasetBlocks(ctx, func(done, total int) {
			if progress != nil {
				progress(PhaseEncodingForExports, done)
			}
		})
		if rerr != nil && ctx.Err() == nil {
			res.Warnings = append(res.Warnings, encodingWarning(rerr))
		}
	}
	return res, err
}
