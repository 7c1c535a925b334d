package store

import (
	"context"
	"database/sql"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// MaxEvalCrowdIDs bounds the sets of sites' ids kept per participant (a participant making up
// ids on their own link cannot grow the store without end); later sets are not kept.
const MaxEvalCrowdIDs = 16

// RecordEvalCrowd keeps the crowdsourcing site's ids a participant's link carried (migration
// 8): a new row for ids not seen with this participant before, else the row's last_seen (and
// a submit_to the row lacked). Empty ids record nothing; beyond MaxEvalCrowdIDs sets nothing
// more is kept.
func (s *Store) RecordEvalCrowd(ctx context.Context, participantID int64, c ev.CrowdIDs) error {
	if c.Empty() {
		return nil
	}
	now := time.Now().UTC().Format(timeLayout)
	return s.UpdateGrouped(ctx, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx, `INSERT INTO eval_crowd_ids (participant_id, site, study_id, session_id, hit_id,
			assignment_id, submit_to, first_seen, last_seen) SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?
			WHERE (SELECT count(*) FROM eval_crowd_ids WHERE participant_id = ?) < ?
			ON CONFLICT (participant_id, site, study_id, session_id, hit_id, assignment_id) DO UPDATE SET
			last_seen = excluded.last_seen, submit_to = CASE WHEN excluded.submit_to <> '' THEN excluded.submit_to ELSE submit_to END`,
			participantID, c.Site, c.StudyID, c.SessionID, c.HitID, c.AssignmentID, c.SubmitTo, now, now, participantID, MaxEvalCrowdIDs)
		return err
	})
}

// EvalCrowdIDs returns the sites' ids of a project's participants, by participant id, each
// participant's in the order they were first seen.
func (r reader) EvalCrowdIDs(ctx context.Context, projectID int64) (map[int64][]ev.CrowdIDs, error) {
	out := map[int64][]ev.CrowdIDs{}
	err := r.crowdRows(ctx, `SELECT c.participant_id, c.site, c.study_id, c.session_id, c.hit_id, c.assignment_id, c.submit_to,
		c.first_seen, c.last_seen FROM eval_crowd_ids c JOIN eval_participants w ON w.id = c.participant_id
		WHERE w.project_id = ? ORDER BY c.participant_id, c.first_seen, c.id`, out, projectID)
	return out, err
}

// EvalCrowdIDsOf returns one participant's sites' ids in the order they were first seen.
func (r reader) EvalCrowdIDsOf(ctx context.Context, participantID int64) ([]ev.CrowdIDs, error) {
	out := map[int64][]ev.CrowdIDs{}
	err := r.crowdRows(ctx, `SELECT participant_id, site, study_id, session_id, hit_id, assignment_id, submit_to,
		first_seen, last_seen FROM eval_crowd_ids WHERE participant_id = ? ORDER BY first_seen, id`, out, participantID)
	return out[participantID], err
}

func (r reader) crowdRows(ctx context.Context, query string, out map[int64][]ev.CrowdIDs, args ...any) error {
	return scanRows(ctx, r.q, query, func(rows *sql.Rows) error {
		var id int64
		var c ev.CrowdIDs
		var first, last string
		if err := rows.Scan(&id, &c.Site, &c.StudyID, &c.SessionID, &c.HitID, &c.AssignmentID, &c.SubmitTo, &first, &last); err != nil {
			return err
		}
		c.FirstSeen, c.LastSeen = parseTime(first), parseTime(last)
		out[id] = append(out[id], c)
		return nil
	}, args...)
}
