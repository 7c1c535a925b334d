package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentdesk/agentdesk/engine/episode"
)

const timeLayout = "2006-01-02T15:04:05.000Z"

func parseTime(s string) time.Time {
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

func marshalObject(m map[string]any) (string, error) {
	if len(m) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(m)
	return string(b), err
}

func unmarshalObject(s string) (map[string]any, error) {
	if s == "" || s == "{}" {
		return nil, nil
	}
	var m map[string]any
	err := json.Unmarshal([]byte(s), &m)
	return m, err
}

// SaveEpisode stores e with its steps in the transaction and sets e.ID. An episode with the
// same source and external id is replaced, keeping its id, so split memberships survive.
func (t *Tx) SaveEpisode(ctx context.Context, e *episode.Episode) error {
	return t.saveEpisode(ctx, e, 0)
}

// SaveEpisodeFromFile is SaveEpisode for an episode read from an imported file (see
// RecordImportedFile), so that the episode can be traced back to it.
func (t *Tx) SaveEpisodeFromFile(ctx context.Context, e *episode.Episode, fileID int64) error {
	return t.saveEpisode(ctx, e, fileID)
}

func (t *Tx) saveEpisode(ctx context.Context, e *episode.Episode, fileID int64) error {
	if err := e.Validate(); err != nil {
		return err
	}
	meta, err := marshalObject(e.Metadata)
	if err != nil {
		return fmt.Errorf("episode %s/%s metadata: %w", e.Source, e.ExternalID, err)
	}
	var file any
	if fileID != 0 {
		file = fileID
	}
	err = t.tx.QueryRowContext(ctx, `
		INSERT INTO episodes (source, external_id, task, instruction, meta_task, num_steps, total_reward, metadata, file_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (source, external_id) DO UPDATE SET
			task = excluded.task, instruction = excluded.instruction, meta_task = excluded.meta_task,
			num_steps = excluded.num_steps, total_reward = excluded.total_reward, metadata = excluded.metadata,
			file_id = excluded.file_id
		RETURNING id, created_at`,
		e.Source, e.ExternalID, e.Task, e.Instruction, e.MetaTask, len(e.Steps), e.TotalReward(), meta, file,
	).Scan(&e.ID, new(string))
	if err != nil {
		return fmt.Errorf("save episode %s/%s: %w", e.Source, e.ExternalID, err)
	}
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM steps WHERE episode_id = ?`, e.ID); err != nil {
		return err
	}
	if err := t.saveFacets(ctx, e); err != nil {
		return err
	}
	if len(e.Steps) == 0 {
		return nil
	}
	stmt, err := t.tx.PrepareContext(ctx, `INSERT INTO steps
		(episode_id, idx, action, action_kind, reward, instruction, observation_ref, observation, extra)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for i := range e.Steps {
		s := &e.Steps[i]
		action, err := json.Marshal(s.Action)
		if err != nil {
			return fmt.Errorf("episode %s/%s step %d action: %w", e.Source, e.ExternalID, i, err)
		}
		extra, err := marshalObject(s.Extra)
		if err != nil {
			return fmt.Errorf("episode %s/%s step %d extra: %w", e.Source, e.ExternalID, i, err)
		}
		if _, err := stmt.ExecContext(ctx, e.ID, s.Index, string(action), s.Action.Kind, s.Reward,
			s.Instruction, s.ObservationRef, s.Observation, extra); err != nil {
			return fmt.Errorf("episode %s/%s step %d: %w", e.Source, e.ExternalID, i, err)
		}
	}
	return nil
}

// DeleteEpisode removes an episode, its steps and its split memberships.
func (t *Tx) DeleteEpisode(ctx context.Context, id int64) error {
	res, err := t.tx.ExecContext(ctx, `DELETE FROM episodes WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("episode %d: %w", id, ErrNotFound)
	}
	return nil
}

// SaveEpisode stores one episode in its own transaction; see Tx.SaveEpisode.
func (s *Store) SaveEpisode(ctx context.Context, e *episode.Episode) error {
	return s.Update(ctx, func(tx *Tx) error { return tx.SaveEpisode(ctx, e) })
}

// DeleteEpisode removes one episode in its own transaction.
func (s *Store) DeleteEpisode(ctx context.Context, id int64) error {
	return s.Update(ctx, func(tx *Tx) error { return tx.DeleteEpisode(ctx, id) })
}

const summaryColumns = `id, source, external_id, task, instruction, meta_task, num_steps, total_reward, created_at`

func scanSummary(sc interface{ Scan(...any) error }) (episode.Summary, error) {
	var s episode.Summary
	var created string
	err := sc.Scan(&s.ID, &s.Source, &s.ExternalID, &s.Task, &s.Instruction, &s.MetaTask, &s.NumSteps, &s.TotalReward, &created)
	s.CreatedAt = parseTime(created)
	return s, err
}

// Episode loads an episode with all its steps.
func (r reader) Episode(ctx context.Context, id int64) (*episode.Episode, error) {
	row := r.q.QueryRowContext(ctx, `SELECT source, external_id, task, instruction, meta_task, metadata, created_at
		FROM episodes WHERE id = ?`, id)
	e := &episode.Episode{ID: id}
	var meta, created string
	if err := row.Scan(&e.Source, &e.ExternalID, &e.Task, &e.Instruction, &e.MetaTask, &meta, &created); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("episode %d: %w", id, ErrNotFound)
		}
		return nil, err
	}
	e.CreatedAt = parseTime(created)
	var err error
	if e.Metadata, err = unmarshalObject(meta); err != nil {
		return nil, fmt.Errorf("episode %d metadata: %w", id, err)
	}
	if e.Facets, err = r.facets(ctx, id); err != nil {
		return nil, err
	}
	rows, err := r.q.QueryContext(ctx, `SELECT idx, action, reward, instruction, observation_ref, observation, extra
		FROM steps WHERE episode_id = ? ORDER BY idx`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var s episode.Step
		var action, extra string
		if err := rows.Scan(&s.Index, &action, &s.Reward, &s.Instruction, &s.ObservationRef, &s.Observation, &extra); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(action), &s.Action); err != nil {
			return nil, fmt.Errorf("episode %d step %d action: %w", id, s.Index, err)
		}
		if s.Extra, err = unmarshalObject(extra); err != nil {
			return nil, fmt.Errorf("episode %d step %d extra: %w", id, s.Index, err)
		}
		e.Steps = append(e.Steps, s)
	}
	return e, rows.Err()
}

// EpisodeID finds the store id of an episode by its source and external id.
func (r reader) EpisodeID(ctx context.Context, key episode.Key) (int64, error) {
	var id int64
	err := r.q.QueryRowContext(ctx, `SELECT id FROM episodes WHERE source = ? AND external_id = ?`,
		key.Source, key.ExternalID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("episode %s/%s: %w", key.Source, key.ExternalID, ErrNotFound)
	}
	return id, err
}

// CountEpisodes counts the episodes a query selects (ignoring Limit and Offset).
func (r reader) CountEpisodes(ctx context.Context, q episode.Query) (int, error) {
	query := `SELECT count(*) FROM episodes`
	var args []any
	if q.Source != "" {
		query += ` WHERE source = ?`
		args = append(args, q.Source)
	}
	var n int
	err := r.q.QueryRowContext(ctx, query, args...).Scan(&n)
	return n, err
}

// Episodes lists episode summaries, newest first.
func (r reader) Episodes(ctx context.Context, q episode.Query) ([]episode.Summary, error) {
	query := `SELECT ` + summaryColumns + ` FROM episodes`
	var args []any
	if q.Source != "" {
		query += ` WHERE source = ?`
		args = append(args, q.Source)
	}
	query += ` ORDER BY id DESC`
	if q.Limit > 0 {
		query += ` LIMIT ? OFFSET ?`
		args = append(args, q.Limit, q.Offset)
	}
	rows, err := r.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []episode.Summary
	for rows.Next() {
		s, err := scanSummary(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// saveFacets replaces the facet rows of a stored episode: its own Facets, one "action" row
// per distinct action kind of its steps and a "meta_task" row for its MetaTask.
func (t *Tx) saveFacets(ctx context.Context, e *episode.Episode) error {
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM episode_facets WHERE episode_id = ?`, e.ID); err != nil {
		return err
	}
	rows := map[[2]string]bool{}
	for facet, values := range e.Facets {
		for _, v := range values {
			rows[[2]string{facet, v}] = true
		}
	}
	for _, s := range e.Steps {
		if s.Action.Kind != "" {
			rows[[2]string{episode.FacetAction, s.Action.Kind}] = true
		}
	}
	if e.MetaTask != "" {
		rows[[2]string{episode.FacetMetaTask, e.MetaTask}] = true
	}
	if len(rows) == 0 {
		return nil
	}
	stmt, err := t.tx.PrepareContext(ctx, `INSERT INTO episode_facets (episode_id, facet, value) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for r := range rows {
		if _, err := stmt.ExecContext(ctx, e.ID, r[0], r[1]); err != nil {
			return fmt.Errorf("episode %s/%s facet %s=%q: %w", e.Source, e.ExternalID, r[0], r[1], err)
		}
	}
	return nil
}

// facets reads the facets of an episode other than the action kinds (which its steps show)
// and the meta-task (its MetaTask).
func (r reader) facets(ctx context.Context, id int64) (map[string][]string, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT facet, value FROM episode_facets
		WHERE episode_id = ? AND facet NOT IN (?, ?) ORDER BY facet, value`, id, episode.FacetAction, episode.FacetMetaTask)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out map[string][]string
	for rows.Next() {
		var f, v string
		if err := rows.Scan(&f, &v); err != nil {
			return nil, err
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[f] = append(out[f], v)
	}
	return out, rows.Err()
}
