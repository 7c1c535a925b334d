package store

import (
	"context"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// evalLastAnswers returns, per unit of a project, the newest answer log row of each place
// (dialogue, turn, question): when and on which page each answer was last given, for the
// exports' time columns. One query for the whole project.
func (r reader) evalLastAnswers(ctx context.Context, projectID int64) (map[int64][]ev.LastAnswer, error) {
	// SQLite takes the bare columns of an aggregate query from the row max() chose.
	rows, err := r.q.QueryContext(ctx, `SELECT a.unit_id, a.dialogue_pos, a.type_pos, a.turn, a.question, a.answered_at, max(a.id)
		FROM eval_answers a JOIN eval_units u ON u.id = a.unit_id
		WHERE u.project_id = ? GROUP BY a.unit_id, a.dialogue_pos, a.turn, a.question`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64][]ev.LastAnswer{}
	for rows.Next() {
		var unit, id int64
		var la ev.LastAnswer
		var at string
		if err := rows.Scan(&unit, &la.Dialogue, &la.TypePos, &la.Turn, &la.Key, &at, &id); err != nil {
			return nil, err
		}
		la.At = parseTime(at)
		out[unit] = append(out[unit], la)
	}
	return out, rows.Err()
}
