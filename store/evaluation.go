package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unsafe"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// ErrEvalProjectExists is returned when a project of the same name is already in the store.
var ErrEvalProjectExists = errors.New("an evaluation project of this name already exists")

// EvalProjectKind is the recent-files kind of an imported evaluation project folder.
const EvalProjectKind = "eval-project"

func timeOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(timeLayout)
}

func nullTime(s sql.NullString) time.Time {
	if !s.Valid {
		return time.Time{}
	}
	return parseTime(s.String)
}

func rawOr(b json.RawMessage, empty string) string {
	if len(b) == 0 {
		return empty
	}
	return string(b)
}

// CreateEvalProject stores a project in one transaction: its definition (config, the engine's
// TOML project text), the import report, its assignments with their units, in data-file order.
// Bundles with zero units are stored without units (the original skips them). Collection
// projects give one assignment per session with Bundle "[]". The id is returned.
func (s *Store) CreateEvalProject(ctx context.Context, name, origin, source, config, report string, assignments []ev.NewAssignment) (int64, error) {
	if strings.TrimSpace(name) == "" {
		return 0, fmt.Errorf("evaluation project: empty name")
	}
	var id int64
	err := s.Update(ctx, func(tx *Tx) error {
		var n int
		if err := tx.tx.QueryRowContext(ctx, `SELECT count(*) FROM eval_projects WHERE name = ?`, name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("%w: %q", ErrEvalProjectExists, name)
		}
		if err := tx.tx.QueryRowContext(ctx, `INSERT INTO eval_projects (name, origin, source, config, import_report)
			VALUES (?, ?, ?, ?, ?) RETURNING id`, name, origin, source, config, report).Scan(&id); err != nil {
			return fmt.Errorf("create evaluation project %q: %w", name, err)
		}
		insA, err := tx.tx.PrepareContext(ctx, `INSERT INTO eval_assignments (project_id, position, group_id, bundle)
			VALUES (?, ?, ?, ?) RETURNING id`)
		if err != nil {
			return err
		}
		defer insA.Close()
		insU, err := tx.tx.PrepareContext(ctx, `INSERT INTO eval_units (project_id, assignment_id, unit_index, kind)
			VALUES (?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer insU.Close()
		var insP *sql.Stmt // the parts of large bundles, prepared for the first
		for pos, a := range assignments {
			if a.Units < 0 {
				return fmt.Errorf("assignment %d (%s): negative number of units", pos, a.GroupID)
			}
			kind := ev.UnitTask
			var aid int64
			if a.Data != nil {
				if insP == nil {
					if insP, err = tx.tx.PrepareContext(ctx, `INSERT INTO eval_bundle_parts (assignment_id, seq, part) VALUES (?, ?, ?)`); err != nil {
						return err
					}
					defer insP.Close()
				}
				pw := &bundlePartWriter{ctx: ctx, insA: insA, insP: insP, project: id, pos: pos, group: a.GroupID}
				if err := ev.WriteBundleJSON(pw, *a.Data, ev.BundlePartSize); err != nil {
					return fmt.Errorf("assignment %d (%s): %w", pos, a.GroupID, err)
				}
				if aid, err = pw.close(); err != nil {
					return fmt.Errorf("assignment %d (%s): %w", pos, a.GroupID, err)
				}
			} else {
				// The bundle is bound as text without a copy in Go (the driver copies it for SQLite).
				bundle := "[]"
				if len(a.Bundle) > 0 {
					bundle = unsafe.String(&a.Bundle[0], len(a.Bundle))
				}
				if bundle == "[]" {
					kind = ev.UnitCollection
				}
				if err := insA.QueryRowContext(ctx, id, pos, a.GroupID, bundle).Scan(&aid); err != nil {
					return fmt.Errorf("assignment %d (%s): %w", pos, a.GroupID, err)
				}
			}
			for u := 0; u < a.Units; u++ {
				if _, err := insU.ExecContext(ctx, id, aid, u, kind); err != nil {
					return err
				}
			}
		}
		if source != "" {
			err = touchRecent(ctx, tx.tx, source, EvalProjectKind)
		}
		return err
	})
	return id, err
}

// bundlePartWriter stores a bundle's JSON as WriteBundleJSON hands it over: a bundle of one
// part goes in the assignment's bundle column; a larger one leaves 'null' there and goes in
// eval_bundle_parts, a part a row. A part is kept until the next comes (or the end), to know
// which; each is bound without a copy in Go, so no more than about two parts are held.
type bundlePartWriter struct {
	ctx        context.Context
	insA, insP *sql.Stmt
	project    int64
	pos        int
	group      string
	pending    []byte
	aid        int64
	seq        int
}

func (w *bundlePartWriter) Write(p []byte) (int, error) {
	if w.pending != nil {
		if err := w.flush(); err != nil {
			return 0, err
		}
	}
	w.pending = append(w.pending[:0], p...)
	return len(p), nil
}

// flush stores the pending part as a part row, the assignment's row first.
func (w *bundlePartWriter) flush() error {
	if w.aid == 0 {
		if err := w.insA.QueryRowContext(w.ctx, w.project, w.pos, w.group, "null").Scan(&w.aid); err != nil {
			return err
		}
	}
	if _, err := w.insP.ExecContext(w.ctx, w.aid, w.seq, unsafe.String(unsafe.SliceData(w.pending), len(w.pending))); err != nil {
		return err
	}
	w.seq++
	return nil
}

// close stores what is pending and returns the assignment's id.
func (w *bundlePartWriter) close() (int64, error) {
	if w.aid == 0 {
		err := w.insA.QueryRowContext(w.ctx, w.project, w.pos, w.group, unsafe.String(unsafe.SliceData(w.pending), len(w.pending))).Scan(&w.aid)
		return w.aid, err
	}
	return w.aid, w.flush()
}

// DeleteEvalProject removes a project with its participants, units, answers and
// conversations.
func (s *Store) DeleteEvalProject(ctx context.Context, id int64) error {
	res, err := s.exec(ctx, `DELETE FROM eval_projects WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("evaluation project %d: %w", id, ErrNotFound)
	}
	return nil
}

const projectInfoQuery = `SELECT p.id, p.name, p.origin, p.source, p.import_report, p.created_at,
	(SELECT count(*) FROM eval_units u WHERE u.project_id = p.id AND u.unit_index >= 0),
	(SELECT count(*) FROM eval_units u WHERE u.project_id = p.id AND u.unit_index >= 0 AND u.status = 'completed'),
	(SELECT count(*) FROM eval_units u WHERE u.project_id = p.id AND u.unit_index >= 0 AND u.status = 'assigned'),
	(SELECT count(*) FROM eval_participants w WHERE w.project_id = p.id)
	FROM eval_projects p`

func scanProjectInfo(sc interface{ Scan(...any) error }) (ev.ProjectSummary, error) {
	var p ev.ProjectSummary
	var at string
	err := sc.Scan(&p.ID, &p.Name, &p.Origin, &p.Source, &p.Report, &at, &p.Units, &p.Done, &p.Assigned, &p.Participants)
	p.CreatedAt = parseTime(at)
	return p, err
}

// EvalProjects lists the evaluation projects, newest first.
func (r reader) EvalProjects(ctx context.Context) ([]ev.ProjectSummary, error) {
	rows, err := r.q.QueryContext(ctx, projectInfoQuery+` ORDER BY p.created_at DESC, p.id DESC`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ev.ProjectSummary
	for rows.Next() {
		p, err := scanProjectInfo(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// EvalProjectInfo returns one project's summary.
func (r reader) EvalProjectInfo(ctx context.Context, id int64) (ev.ProjectSummary, error) {
	p, err := scanProjectInfo(r.q.QueryRowContext(ctx, projectInfoQuery+` WHERE p.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("evaluation project %d: %w", id, ErrNotFound)
	}
	return p, err
}

// EvalProjectByName finds a project by name or, when ref is a number, by id.
func (r reader) EvalProjectByName(ctx context.Context, ref string) (ev.ProjectSummary, error) {
	var id int64
	err := r.q.QueryRowContext(ctx, `SELECT id FROM eval_projects WHERE name = ?
		UNION ALL SELECT id FROM eval_projects WHERE CAST(id AS TEXT) = ? LIMIT 1`, ref, ref).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return ev.ProjectSummary{}, fmt.Errorf("no evaluation project %q: %w", ref, ErrNotFound)
	}
	if err != nil {
		return ev.ProjectSummary{}, err
	}
	return r.EvalProjectInfo(ctx, id)
}

// EvalProjectConfig returns a project's definition (the engine's TOML project text).
func (r reader) EvalProjectConfig(ctx context.Context, id int64) (string, error) {
	var config string
	err := r.q.QueryRowContext(ctx, `SELECT config FROM eval_projects WHERE id = ?`, id).Scan(&config)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("evaluation project %d: %w", id, ErrNotFound)
	}
	return config, err
}

// SetEvalProjectConfig replaces a project's definition (for example after editing its bots);
// its assignments and answers are kept.
func (s *Store) SetEvalProjectConfig(ctx context.Context, id int64, config string) error {
	res, err := s.exec(ctx, `UPDATE eval_projects SET config = ? WHERE id = ?`, config, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("evaluation project %d: %w", id, ErrNotFound)
	}
	return nil
}

// EvalSignIn returns the participant of this name in the project, adding them when new.
func (s *Store) EvalSignIn(ctx context.Context, projectID int64, name string) (ev.ParticipantSummary, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return ev.ParticipantSummary{}, fmt.Errorf("sign in: enter a participant id")
	}
	var id int64
	var kind string
	err := s.Update(ctx, func(tx *Tx) error {
		return tx.tx.QueryRowContext(ctx, `INSERT INTO eval_participants (project_id, name) VALUES (?, ?)
			ON CONFLICT (project_id, name) DO UPDATE SET name = excluded.name RETURNING id, kind`, projectID, name).Scan(&id, &kind)
	})
	if err == nil && kind == "model" {
		err = ErrModelParticipant
	}
	if err != nil {
		return ev.ParticipantSummary{}, fmt.Errorf("sign in %q: %w", name, err)
	}
	return s.EvalParticipant(ctx, projectID, id)
}

// EvalParticipant returns one participant of a project with their progress.
func (r reader) EvalParticipant(ctx context.Context, projectID, id int64) (ev.ParticipantSummary, error) {
	ps, err := r.evalParticipants(ctx, projectID, id)
	if err != nil {
		return ev.ParticipantSummary{}, err
	}
	if id == 0 || len(ps) == 0 { // id 0 lists every participant
		return ev.ParticipantSummary{}, fmt.Errorf("project %d has no participant %d", projectID, id)
	}
	return ps[0], nil
}

// EvalParticipants lists a project's participants in sign-up order with their progress.
func (r reader) EvalParticipants(ctx context.Context, projectID int64) ([]ev.ParticipantSummary, error) {
	return r.evalParticipants(ctx, projectID, 0)
}

func (r reader) evalParticipants(ctx context.Context, projectID, only int64) ([]ev.ParticipantSummary, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT w.id, w.name, w.created_at,
		(SELECT count(*) FROM eval_units u WHERE u.participant_id = w.id AND u.unit_index >= 0 AND u.status = 'assigned'),
		(SELECT count(*) FROM eval_units u WHERE u.participant_id = w.id AND u.unit_index >= 0 AND u.status = 'completed'),
		(SELECT CASE u.status WHEN 'completed' THEN CASE json_extract(u.result, '$.success') WHEN 1 THEN 'passed' ELSE 'failed' END ELSE 'open' END
			FROM eval_units u WHERE u.participant_id = w.id AND u.kind = 'screening' ORDER BY u.id DESC LIMIT 1),
		CASE w.kind WHEN 'model' THEN w.model ELSE '' END, w.model_url
		FROM eval_participants w WHERE w.project_id = ? AND (? = 0 OR w.id = ?) ORDER BY w.id`, projectID, only, only)
	if err != nil {
		return nil, err
	}
	var out []ev.ParticipantSummary
	for rows.Next() {
		var p ev.ParticipantSummary
		var at string
		var screening sql.NullString
		if err := rows.Scan(&p.ID, &p.Name, &at, &p.Assigned, &p.Done, &screening, &p.Model, &p.ModelURL); err != nil {
			rows.Close()
			return nil, err
		}
		p.CreatedAt, p.Screening = parseTime(at), screening.String
		p.Qualifications = map[string]int{}
		out = append(out, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := r.evalParticipantQualifications(ctx, projectID, only, out); err != nil {
		return nil, err
	}
	if only != 0 && len(out) == 0 {
		return nil, fmt.Errorf("participant %d: %w", only, ErrNotFound)
	}
	return out, nil
}

// evalParticipantQualifications fills the qualifications of the participants ps (as
// evalParticipants selected them) in one query. Qualifications are shared by name across
// projects, as the original's (Mephisto's) are global: a participant holds every qualification
// granted to a participant of the same name in any project, the latest grant winning. The join
// on the name uses eval_participants_by_name (migration 7).
func (r reader) evalParticipantQualifications(ctx context.Context, projectID, only int64, ps []ev.ParticipantSummary) error {
	if len(ps) == 0 {
		return nil
	}
	at := make(map[int64]int, len(ps))
	for i, p := range ps {
		at[p.ID] = i
	}
	rows, err := r.q.QueryContext(ctx, `SELECT me.id, q.name, q.value, other.project_id, pr.name
		FROM eval_participants me
		JOIN eval_participants other ON other.name = me.name
		JOIN eval_qualifications q ON q.participant_id = other.id
		JOIN eval_projects pr ON pr.id = other.project_id
		WHERE me.project_id = ? AND (? = 0 OR me.id = ?)
		ORDER BY q.granted_at, other.id`, projectID, only, only)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, from int64
		var n, fromName string
		var v int
		if err := rows.Scan(&id, &n, &v, &from, &fromName); err != nil {
			return err
		}
		i, ok := at[id]
		if !ok {
			continue
		}
		ps[i].Qualifications[n] = v
		if from == projectID {
			delete(ps[i].QualificationsFrom, n)
		} else {
			if ps[i].QualificationsFrom == nil {
				ps[i].QualificationsFrom = map[string]string{}
			}
			ps[i].QualificationsFrom[n] = fromName
		}
	}
	return rows.Err()
}

// EvalQualifications returns a participant's qualifications: theirs and, shared by name,
// those of the participants of the same name in other projects (the latest grant wins).
func (r reader) EvalQualifications(ctx context.Context, participantID int64) (map[string]int, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT q.name, q.value FROM eval_participants me
		JOIN eval_participants other ON other.name = me.name
		JOIN eval_qualifications q ON q.participant_id = other.id
		WHERE me.id = ? ORDER BY q.granted_at, other.id`, participantID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var n string
		var v int
		if err := rows.Scan(&n, &v); err != nil {
			return nil, err
		}
		out[n] = v
	}
	return out, rows.Err()
}

// SetEvalQualification grants (or changes) a qualification; RevokeEvalQualification lifts it
// (the administrator action that unblocks a participant).
func (s *Store) SetEvalQualification(ctx context.Context, participantID int64, name string, value int) error {
	_, err := s.exec(ctx, `INSERT INTO eval_qualifications (participant_id, name, value, granted_at)
		VALUES (?, ?, ?, ?) ON CONFLICT (participant_id, name) DO UPDATE SET value = excluded.value, granted_at = excluded.granted_at`,
		participantID, name, value, time.Now().UTC().Format(timeLayout))
	return err
}

// RevokeEvalQualification removes a qualification from the participant and, since
// qualifications are shared by name, from the participants of the same name in every project.
func (s *Store) RevokeEvalQualification(ctx context.Context, participantID int64, name string) error {
	_, err := s.exec(ctx, `DELETE FROM eval_qualifications WHERE name = ? AND participant_id IN
		(SELECT other.id FROM eval_participants me JOIN eval_participants other ON other.name = me.name WHERE me.id = ?)`,
		name, participantID)
	return err
}

// assignmentBundle is the JSON of assignment a's bundle: its column, or its parts joined in
// order when the column holds 'null' (a large bundle); '[]' where there is no assignment.
const assignmentBundle = `CASE WHEN a.bundle = 'null' THEN coalesce((SELECT group_concat(bp.part, '' ORDER BY bp.seq)
	FROM eval_bundle_parts bp WHERE bp.assignment_id = a.id), 'null') ELSE coalesce(a.bundle, '[]') END`

const unitQuery = `SELECT u.id, u.project_id, coalesce(u.assignment_id, 0), coalesce(a.position, -1), u.unit_index,
	coalesce(a.group_id, ''), u.kind, u.status, coalesce(u.participant_id, 0), coalesce(w.name, ''),
	` + assignmentBundle + `, u.shown, u.state, u.result, u.last_index, u.last_annot, u.last_turn,
	u.assigned_at, u.completed_at, u.updated_at
	FROM eval_units u LEFT JOIN eval_assignments a ON a.id = u.assignment_id
	LEFT JOIN eval_participants w ON w.id = u.participant_id`

func scanUnit(sc interface{ Scan(...any) error }) (ev.UnitRecord, error) {
	var u ev.UnitRecord
	var bundle, shown, state, result string
	var assigned, completed, updated sql.NullString
	err := sc.Scan(&u.ID, &u.ProjectID, &u.AssignmentID, &u.Position, &u.Index, &u.GroupID, &u.Kind, &u.Status,
		&u.ParticipantID, &u.Participant, &bundle, &shown, &state, &result, &u.LastIndex, &u.LastAnnot, &u.LastTurn,
		&assigned, &completed, &updated)
	u.Bundle, u.Shown, u.State, u.Result = json.RawMessage(bundle), json.RawMessage(shown), json.RawMessage(state), json.RawMessage(result)
	u.AssignedAt, u.CompletedAt, u.UpdatedAt = nullTime(assigned), nullTime(completed), nullTime(updated)
	return u, err
}

func (r reader) units(ctx context.Context, where string, args ...any) ([]ev.UnitRecord, error) {
	return r.unitRows(ctx, unitQuery+" WHERE "+where+" ORDER BY coalesce(a.position, -1), u.unit_index, u.id", args...)
}

// unitRows runs a query of unitQuery's columns and scans its units.
func (r reader) unitRows(ctx context.Context, query string, args ...any) ([]ev.UnitRecord, error) {
	rows, err := r.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ev.UnitRecord
	for rows.Next() {
		u, err := scanUnit(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// EvalUnit returns one unit.
func (r reader) EvalUnit(ctx context.Context, id int64) (ev.UnitRecord, error) {
	u, err := scanUnit(r.q.QueryRowContext(ctx, unitQuery+` WHERE u.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return u, fmt.Errorf("evaluation unit %d: %w", id, ErrNotFound)
	}
	return u, err
}

// EvalUnits lists every unit of a project, screening and gold units included, in creation
// order (data-file order, then unit index; special units last by id).
func (r reader) EvalUnits(ctx context.Context, projectID int64) ([]ev.UnitRecord, error) {
	return r.units(ctx, `u.project_id = ?`, projectID)
}

// EvalHeldUnits lists the units of a project that participants hold or completed, as
// EvalUnits does but without bundles, shown orders, answer states and results: what handing
// out units needs (the open ones are the project's definition), read fast while hundreds of
// participants answer.
func (r reader) EvalHeldUnits(ctx context.Context, projectID int64) ([]ev.UnitRecord, error) {
	q := strings.Replace(unitQuery, assignmentBundle+`, u.shown, u.state, u.result`, `'[]', 'null', '{}', '{}'`, 1)
	return r.unitRows(ctx, q+` WHERE u.project_id = ? AND u.status IN ('assigned', 'completed')
		ORDER BY coalesce(a.position, -1), u.unit_index, u.id`, projectID)
}

// EvalUnitAt returns a task or collection unit by its place: the assignment's position in the
// data file (collection units: any) and the unit's index.
func (r reader) EvalUnitAt(ctx context.Context, projectID int64, kind string, position, index int) (ev.UnitRecord, error) {
	var us []ev.UnitRecord
	var err error
	if kind == ev.UnitCollection {
		us, err = r.units(ctx, `u.project_id = ? AND u.kind = ? AND u.unit_index = ?`, projectID, kind, index)
	} else {
		us, err = r.units(ctx, `u.assignment_id = (SELECT id FROM eval_assignments WHERE project_id = ? AND position = ?)
			AND u.unit_index = ? AND u.kind = ?`, projectID, position, index, kind)
	}
	if err != nil {
		return ev.UnitRecord{}, err
	}
	if len(us) == 0 {
		return ev.UnitRecord{}, fmt.Errorf("unit %d of assignment %d: %w", index, position, ErrNotFound)
	}
	return us[0], nil
}

// EvalOpenUnit returns the unit a participant holds and has not completed (the session to
// resume), preferring screening and gold units; ok is false when there is none.
func (r reader) EvalOpenUnit(ctx context.Context, participantID int64) (u ev.UnitRecord, ok bool, err error) {
	us, err := r.units(ctx, `u.participant_id = ? AND u.status = 'assigned'`, participantID)
	if err != nil || len(us) == 0 {
		return ev.UnitRecord{}, false, err
	}
	return us[0], true, nil // special units (position -1) sort first
}

// EvalAssign reserves a unit for a participant: an open task or collection unit (unitID), or,
// when unitID is 0, a new special unit of kind ("screening", "gold") and index (-1, -2). It
// records the shown order and the initial answer state. Reserving a unit that is no longer
// open fails, so two sessions cannot take the same slot.
func (s *Store) EvalAssign(ctx context.Context, projectID, participantID, unitID int64, kind string, index int, shown, state json.RawMessage) (ev.UnitRecord, error) {
	now := time.Now().UTC().Format(timeLayout)
	var id int64
	err := s.Update(ctx, func(tx *Tx) error {
		if unitID == 0 {
			if index >= 0 {
				return fmt.Errorf("a special unit needs a negative index")
			}
			return tx.tx.QueryRowContext(ctx, `INSERT INTO eval_units (project_id, unit_index, kind, status, participant_id,
				shown, state, assigned_at, updated_at) VALUES (?, ?, ?, 'assigned', ?, ?, ?, ?, ?) RETURNING id`,
				projectID, index, kind, participantID, rawOr(shown, "null"), rawOr(state, "{}"), now, now).Scan(&id)
		}
		res, err := tx.tx.ExecContext(ctx, `UPDATE eval_units SET status = 'assigned', participant_id = ?, shown = ?,
			state = ?, result = '{}', last_index = 0, last_annot = 0, last_turn = -1, assigned_at = ?, updated_at = ?
			WHERE id = ? AND project_id = ? AND status = 'open'`,
			participantID, rawOr(shown, "null"), rawOr(state, "{}"), now, now, unitID, projectID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("unit %d is no longer open", unitID)
		}
		id = unitID
		return nil
	})
	if err != nil {
		return ev.UnitRecord{}, err
	}
	return s.EvalUnit(ctx, id)
}

// EvalReturnUnit gives an assigned unit back to the pool (the original's timeout or
// disconnect): its answers are dropped, the answer log is kept; a collection unit's
// conversations are dropped too, so that the next participant starts fresh ones.
func (s *Store) EvalReturnUnit(ctx context.Context, unitID int64) error {
	return s.Update(ctx, func(tx *Tx) error {
		res, err := tx.tx.ExecContext(ctx, `UPDATE eval_units SET status = 'open', participant_id = NULL, shown = 'null',
			state = '{}', last_index = 0, last_annot = 0, last_turn = -1, assigned_at = NULL, updated_at = ?
			WHERE id = ? AND status = 'assigned' AND unit_index >= 0`, time.Now().UTC().Format(timeLayout), unitID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		_, err = tx.tx.ExecContext(ctx, `DELETE FROM eval_conversations WHERE unit_id = ?`, unitID)
		return err
	})
}

// SaveEvalAnswer records one answer at once, in one transaction: the answer log row (who,
// which unit and page, when, time spent on the page) and the unit's new answer state and
// position. A crash after it returns loses nothing.
func (s *Store) SaveEvalAnswer(ctx context.Context, a ev.AnswerRecord, state json.RawMessage, pos ev.Position) error {
	value, err := json.Marshal(a.Value)
	if err != nil {
		return fmt.Errorf("answer %q: %w", a.Question, err)
	}
	if a.AnsweredAt.IsZero() {
		a.AnsweredAt = time.Now()
	}
	if a.PageShownAt.IsZero() || a.PageShownAt.After(a.AnsweredAt) {
		a.PageShownAt = a.AnsweredAt
	}
	spent := a.AnsweredAt.Sub(a.PageShownAt).Milliseconds()
	return s.UpdateGrouped(ctx, func(tx *Tx) error {
		if err := tx.saveState(ctx, a.UnitID, state, pos, a.AnsweredAt); err != nil {
			return err
		}
		_, err := tx.tx.ExecContext(ctx, `INSERT INTO eval_answers (unit_id, participant_id, dialogue_pos, type_pos,
			type_name, turn, question, value, answered_at, page_shown_at, time_spent_ms)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			a.UnitID, a.ParticipantID, a.DialoguePos, a.TypePos, a.TypeName, a.Turn, a.Question, string(value),
			a.AnsweredAt.UTC().Format(timeLayout), a.PageShownAt.UTC().Format(timeLayout), spent)
		return err
	})
}

// SaveEvalProgress records a unit's answer state and position without a new answer (a page
// turned, a turn focused, a page's duration closed).
func (s *Store) SaveEvalProgress(ctx context.Context, unitID int64, state json.RawMessage, pos ev.Position) error {
	return s.UpdateGrouped(ctx, func(tx *Tx) error { return tx.saveState(ctx, unitID, state, pos, time.Now()) })
}

func (t *Tx) saveState(ctx context.Context, unitID int64, state json.RawMessage, pos ev.Position, at time.Time) error {
	if len(state) > 0 && !json.Valid(state) {
		return fmt.Errorf("unit %d: answer state is not valid JSON", unitID)
	}
	res, err := t.tx.ExecContext(ctx, `UPDATE eval_units SET state = coalesce(?, state), last_index = ?, last_annot = ?,
		last_turn = ?, updated_at = ? WHERE id = ? AND status = 'assigned'`,
		nullRaw(state), pos.Index, pos.Annot, pos.Turn, at.UTC().Format(timeLayout), unitID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("unit %d is not open for answers (completed, returned or missing)", unitID)
	}
	return nil
}

func nullRaw(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}

// CompleteEvalUnit submits a unit: its final answer state and result (graded outcome of a
// screening or gold unit, JSON), and the qualifications the outcome grants, in one
// transaction.
func (s *Store) CompleteEvalUnit(ctx context.Context, unitID int64, state, result json.RawMessage, grant map[string]int) error {
	now := time.Now().UTC().Format(timeLayout)
	return s.Update(ctx, func(tx *Tx) error {
		var participant int64
		err := tx.tx.QueryRowContext(ctx, `UPDATE eval_units SET status = 'completed', state = coalesce(?, state),
			result = coalesce(?, result), completed_at = ?, updated_at = ? WHERE id = ? AND status = 'assigned'
			RETURNING participant_id`, nullRaw(state), nullRaw(result), now, now, unitID).Scan(&participant)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("unit %d is not open (already submitted or returned)", unitID)
		}
		if err != nil {
			return err
		}
		for name, v := range grant {
			if _, err := tx.tx.ExecContext(ctx, `INSERT INTO eval_qualifications (participant_id, name, value, granted_at)
				VALUES (?, ?, ?, ?) ON CONFLICT (participant_id, name) DO UPDATE SET value = excluded.value,
				granted_at = excluded.granted_at`, participant, name, v, now); err != nil {
				return err
			}
		}
		return nil
	})
}

// EvalAnswers returns a unit's answer log in the order given.
func (r reader) EvalAnswers(ctx context.Context, unitID int64) ([]ev.AnswerRecord, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT unit_id, participant_id, dialogue_pos, type_pos, type_name, turn,
		question, value, answered_at, page_shown_at FROM eval_answers WHERE unit_id = ? ORDER BY id`, unitID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ev.AnswerRecord
	for rows.Next() {
		var a ev.AnswerRecord
		var value, at, shown string
		if err := rows.Scan(&a.UnitID, &a.ParticipantID, &a.DialoguePos, &a.TypePos, &a.TypeName, &a.Turn,
			&a.Question, &value, &at, &shown); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(value), &a.Value); err != nil {
			return nil, err
		}
		a.AnsweredAt, a.PageShownAt = parseTime(at), parseTime(shown)
		out = append(out, a)
	}
	return out, rows.Err()
}

// EvalStartConversation opens (or returns, when it exists) conversation position of a
// collection unit with one bot.
func (s *Store) EvalStartConversation(ctx context.Context, unitID int64, position int, condition, model string) (int64, error) {
	var id int64
	err := s.Update(ctx, func(tx *Tx) error {
		return tx.tx.QueryRowContext(ctx, `INSERT INTO eval_conversations (unit_id, position, condition, model, started_at)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (unit_id, position) DO UPDATE SET position = excluded.position RETURNING id`,
			unitID, position, condition, model, time.Now().UTC().Format(timeLayout)).Scan(&id)
	})
	return id, err
}

// EvalAddTurn appends a message to a conversation at once.
func (s *Store) EvalAddTurn(ctx context.Context, conversationID int64, t ev.TurnRecord) error {
	if t.SentAt.IsZero() {
		t.SentAt = time.Now()
	}
	_, err := s.exec(ctx, `INSERT INTO eval_turns (conversation_id, idx, agent_idx, text, fake_start, sent_at, latency_ms)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, conversationID, t.Idx, t.AgentIdx, t.Text, t.FakeStart,
		t.SentAt.UTC().Format(timeLayout), t.Latency.Milliseconds())
	if err != nil {
		return fmt.Errorf("conversation %d message %d: %w", conversationID, t.Idx, err)
	}
	return nil
}

// EvalAddBotError records a bot's failure to reply at message turn.
func (s *Store) EvalAddBotError(ctx context.Context, conversationID int64, turn int, message string) error {
	_, err := s.exec(ctx, `INSERT INTO eval_bot_errors (conversation_id, turn, message, at) VALUES (?, ?, ?, ?)`,
		conversationID, turn, message, time.Now().UTC().Format(timeLayout))
	return err
}

// EvalEndConversation marks a conversation finished (the participant pressed END).
func (s *Store) EvalEndConversation(ctx context.Context, conversationID int64) error {
	_, err := s.exec(ctx, `UPDATE eval_conversations SET ended_at = coalesce(ended_at, ?) WHERE id = ?`,
		time.Now().UTC().Format(timeLayout), conversationID)
	return err
}

// EvalConversations returns a unit's conversations in order with their messages and errors.
func (r reader) EvalConversations(ctx context.Context, unitID int64) ([]ev.ConversationRecord, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT id, unit_id, position, condition, model, started_at, ended_at
		FROM eval_conversations WHERE unit_id = ? ORDER BY position`, unitID)
	if err != nil {
		return nil, err
	}
	var out []ev.ConversationRecord
	for rows.Next() {
		var c ev.ConversationRecord
		var started string
		var ended sql.NullString
		if err := rows.Scan(&c.ID, &c.UnitID, &c.Position, &c.Condition, &c.Model, &started, &ended); err != nil {
			rows.Close()
			return nil, err
		}
		c.StartedAt, c.EndedAt = parseTime(started), nullTime(ended)
		out = append(out, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].Turns, err = r.evalTurns(ctx, out[i].ID); err != nil {
			return nil, err
		}
		if out[i].Errors, err = r.evalBotErrors(ctx, out[i].ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (r reader) evalTurns(ctx context.Context, conversationID int64) ([]ev.TurnRecord, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT idx, agent_idx, text, fake_start, sent_at, latency_ms
		FROM eval_turns WHERE conversation_id = ? ORDER BY idx`, conversationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ev.TurnRecord
	for rows.Next() {
		var t ev.TurnRecord
		var at string
		var ms int64
		if err := rows.Scan(&t.Idx, &t.AgentIdx, &t.Text, &t.FakeStart, &at, &ms); err != nil {
			return nil, err
		}
		t.SentAt, t.Latency = parseTime(at), time.Duration(ms)*time.Millisecond
		out = append(out, t)
	}
	return out, rows.Err()
}

func (r reader) evalBotErrors(ctx context.Context, conversationID int64) ([]ev.BotFailure, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT turn, message, at FROM eval_bot_errors WHERE conversation_id = ? ORDER BY id`, conversationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ev.BotFailure
	for rows.Next() {
		var e ev.BotFailure
		var at string
		if err := rows.Scan(&e.Turn, &e.Message, &at); err != nil {
			return nil, err
		}
		e.At = parseTime(at)
		out = append(out, e)
	}
	return out, rows.Err()
}

// EvalChatCounts counts, per participant name and condition, the collection units completed
// (the original's workers_to_chatbots table), for choosing the next condition.
func (r reader) EvalChatCounts(ctx context.Context, projectID int64) (map[string]map[string]int, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT w.name, c.condition, count(DISTINCT u.id)
		FROM eval_units u JOIN eval_participants w ON w.id = u.participant_id
		JOIN eval_conversations c ON c.unit_id = u.id
		WHERE u.project_id = ? AND u.kind = 'collection' AND u.status = 'completed'
		GROUP BY w.name, c.condition`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]map[string]int{}
	for rows.Next() {
		var name, cond string
		var n int
		if err := rows.Scan(&name, &cond, &n); err != nil {
			return nil, err
		}
		if out[name] == nil {
			out[name] = map[string]int{}
		}
		out[name][cond] = n
	}
	return out, rows.Err()
}

// ErrModelParticipant is returned when a person signs in under the name of a model annotator:
// a model's answers are never mixed with a person's.
var ErrModelParticipant = errors.New("this participant id is a model annotator's")

// EvalSignInModel signs a model annotator in (eval annotate): the participant name, created
// on first sign-in marked as a model (the model and server recorded, never a key). A person of
// that name is refused, so that people and models never share a participant.
func (s *Store) EvalSignInModel(ctx context.Context, projectID int64, name, model, url string) (ev.ParticipantSummary, error) {
	name = strings.TrimSpace(name)
	if name == "" || strings.TrimSpace(model) == "" {
		return ev.ParticipantSummary{}, fmt.Errorf("sign in a model: give its participant name and model")
	}
	var id int64
	var kind, had string
	err := s.Update(ctx, func(tx *Tx) error {
		err := tx.tx.QueryRowContext(ctx, `INSERT INTO eval_participants (project_id, name, kind, model, model_url) VALUES (?, ?, 'model', ?, ?)
			ON CONFLICT (project_id, name) DO UPDATE SET model_url = CASE kind WHEN 'model' THEN excluded.model_url ELSE model_url END
			RETURNING id, kind, model`, projectID, name, model, url).Scan(&id, &kind, &had)
		switch {
		case err != nil:
			return err
		case kind != "model":
			return fmt.Errorf("%q is a person's participant id; a model annotator needs its own", name)
		case had != model:
			// its answers are filed under its model: another model's would be credited to it
			return fmt.Errorf("%q annotated as model %q; model %q needs its own participant id", name, had, model)
		}
		return nil
	})
	if err != nil {
		return ev.ParticipantSummary{}, fmt.Errorf("%s: sign in model %q: %w", s.Path(), name, err)
	}
	return s.EvalParticipant(ctx, projectID, id)
}

// ModelError is a page a model annotator left unanswered (eval_model_errors).
type ModelError = ev.ModelError

// AddEvalModelError records a page a model annotator could not answer.
func (s *Store) AddEvalModelError(ctx context.Context, participantID int64, e ModelError) error {
	err := s.Update(ctx, func(tx *Tx) error {
		var unit any
		if e.UnitID != 0 {
			unit = e.UnitID
		}
		_, err := tx.tx.ExecContext(ctx, `INSERT INTO eval_model_errors (participant_id, unit_id, dialogue_pos, type_name, asks, message, reply, at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, participantID, unit, e.DialoguePos, e.TypeName, e.Asks, e.Message, e.Reply, e.At.UTC().Format(timeLayout))
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: record a model annotator's error: %w", s.Path(), err)
	}
	return nil
}

// EvalModelErrors lists the pages a participant (a model annotator) left unanswered, oldest first.
func (r reader) EvalModelErrors(ctx context.Context, participantID int64) ([]ModelError, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT coalesce(unit_id, 0), dialogue_pos, type_name, asks, message, reply, at
		FROM eval_model_errors WHERE participant_id = ? ORDER BY id`, participantID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ModelError
	for rows.Next() {
		var e ModelError
		var at string
		if err := rows.Scan(&e.UnitID, &e.DialoguePos, &e.TypeName, &e.Asks, &e.Message, &e.Reply, &at); err != nil {
			return nil, err
		}
		e.At = parseTime(at)
		out = append(out, e)
	}
	return out, rows.Err()
}
