package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unsafe"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// SaveEvalProject stores an evaluation project (imported or built from the catalogue) in one
// transaction: its definition in the engine's TOML format, the import report, and one
// assignment per bundle with the project's number of units, or, for dialogue collection, one
// assignment holding a unit per needed session.
func (s *Store) SaveEvalProject(ctx context.Context, name, origin, source string, p *ev.Project, report string) (int64, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return 0, errors.New("the project needs a name")
	}
	p.Name = name
	// The definition does not carry the bundles that become assignments (each is stored once,
	// as its assignment's JSON; EvalProject reads them from there). Stores made before hold
	// them in the definition too, and are read as they are.
	config, err := ev.MarshalDefinition(p)
	if err != nil {
		return 0, err
	}
	var as []ev.NewAssignment
	if p.Settings.CollectDialogue {
		cs, err := ev.ParseConditions(p.Settings.ConversationsNeeded)
		if err != nil {
			return 0, fmt.Errorf("conversations needed: %w", err)
		}
		as = append(as, ev.NewAssignment{GroupID: "collection", Units: cs.Total()})
	} else {
		for i, b := range p.Bundles {
			n, err := p.UnitsFor(b)
			if err != nil {
				return 0, fmt.Errorf("bundle %d: %w", i+1, err)
			}
			// the data file's line as WriteBundles writes it, written a part at a time
			as = append(as, ev.NewAssignment{GroupID: b.GroupID(), Data: &p.Bundles[i], Units: n})
		}
	}
	// bound without a copy in Go (config is not reused)
	return s.CreateEvalProject(ctx, name, origin, source, unsafe.String(unsafe.SliceData(config), len(config)), report, as)
}

// EvalProject reads a project's definition back.
func (r reader) EvalProject(ctx context.Context, id int64) (*ev.Project, error) {
	// Only the name and the definition: the summary's unit counts are not needed here.
	var name, cfg string
	err := r.q.QueryRowContext(ctx, `SELECT name, config FROM eval_projects WHERE id = ?`, id).Scan(&name, &cfg)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("evaluation project %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	p, err := ev.UnmarshalProject([]byte(cfg), name)
	if err != nil {
		return nil, fmt.Errorf("evaluation project %q: %w", name, err)
	}
	if len(p.Bundles) == 0 && !p.Settings.CollectDialogue {
		if p.Bundles, err = r.assignmentBundles(ctx, id); err != nil {
			return nil, fmt.Errorf("evaluation project %q: %w", name, err)
		}
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("evaluation project %q: %w", name, err)
		}
	}
	return p, nil
}

// assignmentBundles reads a project's bundles from its assignments, in data-file order (the
// definitions stored since migration 10 do not carry them).
func (r reader) assignmentBundles(ctx context.Context, projectID int64) ([]ev.Bundle, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT a.position, `+assignmentBundle+` FROM eval_assignments a
		WHERE a.project_id = ? ORDER BY a.position`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ev.Bundle
	for rows.Next() {
		var pos int
		var raw []byte
		if err := rows.Scan(&pos, &raw); err != nil {
			return nil, err
		}
		if string(raw) == "[]" { // a collection's assignment
			continue
		}
		if pos != len(out) {
			return nil, fmt.Errorf("assignment %d: found where assignment %d belongs", pos, len(out))
		}
		bs, err := ev.ReadBundlesFrom(raw, fmt.Sprintf("assignment %d", pos))
		if err != nil {
			return nil, fmt.Errorf("stored bundle: %w", err)
		}
		if len(bs) != 1 {
			return nil, fmt.Errorf("assignment %d: stored bundle: %d bundles", pos, len(bs))
		}
		out = append(out, bs[0])
	}
	return out, rows.Err()
}

// EvalResults returns a project with every assignment and the attempts made on it (task,
// screening, gold and collection units), in the engine's result types, for the exports and
// the statistics. Units nobody took are counted but have no attempt.
func (r reader) EvalResults(ctx context.Context, projectID int64) (*ev.Project, []ev.AssignmentResult, error) {
	p, err := r.EvalProject(ctx, projectID)
	if err != nil {
		return nil, nil, err
	}
	// the units without their bundles: each is p.Bundles[position] (a 100 MB bundle was read
	// and decoded again for each of its units)
	units, err := r.unitRows(ctx, strings.Replace(unitQuery, assignmentBundle, `'[]'`, 1)+
		` WHERE u.project_id = ? ORDER BY coalesce(a.position, -1), u.unit_index, u.id`, projectID)
	if err != nil {
		return nil, nil, err
	}
	last, err := r.evalLastAnswers(ctx, projectID)
	if err != nil {
		return nil, nil, err
	}
	var out []ev.AssignmentResult
	byAssignment := map[int64]int{}
	special := map[string]int{}
	for _, u := range units {
		key, bundle := "", ev.Bundle{}
		switch {
		case u.AssignmentID != 0:
			if _, ok := byAssignment[u.AssignmentID]; !ok {
				if u.Kind == ev.UnitTask {
					if u.Position < 0 || u.Position >= len(p.Bundles) {
						return nil, nil, fmt.Errorf("assignment %d: the project has %d bundles", u.Position, len(p.Bundles))
					}
					bundle = p.Bundles[u.Position]
				}
				byAssignment[u.AssignmentID] = len(out)
				out = append(out, ev.AssignmentResult{AssignmentID: fmt.Sprintf("assignment_%d", u.Position), Bundle: bundle})
			}
			out[byAssignment[u.AssignmentID]].Units++
		default:
			key = u.Kind
			if _, ok := special[key]; !ok {
				special[key] = len(out)
				out = append(out, ev.AssignmentResult{AssignmentID: key})
			}
		}
		at := &out[byAssignment[u.AssignmentID]]
		if key != "" {
			at = &out[special[key]]
			at.Units++
		}
		if u.ParticipantID == 0 {
			continue
		}
		a, err := r.attempt(ctx, p, u, at.Bundle)
		if err != nil {
			return nil, nil, err
		}
		a.LastAnswers = last[u.ID]
		at.Attempts = append(at.Attempts, a)
	}
	return p, out, nil
}

// attempt converts one taken unit.
func (r reader) attempt(ctx context.Context, p *ev.Project, u ev.UnitRecord, bundle ev.Bundle) (ev.AttemptResult, error) {
	a := ev.AttemptResult{AttemptID: fmt.Sprintf("%d-%d", u.Index, u.ID), Participant: u.Participant}
	var state ev.AnswerState
	if err := json.Unmarshal(u.State, &state); err != nil {
		return a, fmt.Errorf("unit %d: answer state: %w", u.ID, err)
	}
	order, err := ev.ReadUnitOrder(u.Shown)
	if err != nil {
		return a, fmt.Errorf("unit %d: shown order: %w", u.ID, err)
	}
	var result struct {
		Mistakes     [][]int `json:"mistakes"`
		Success      bool    `json:"success"`
		GoldMistakes int     `json:"gold_mistakes"`
	}
	if err := json.Unmarshal(u.Result, &result); err != nil {
		return a, fmt.Errorf("unit %d: result: %w", u.ID, err)
	}
	switch u.Kind {
	case ev.UnitTask:
		a.Kind = ev.AttemptUnit
		if order.Datapoints == nil {
			plain := ev.NewUnitOrder(bundle, 0, false)
			order.Datapoints, order.Tasks = plain.Datapoints, plain.Tasks
		}
		a.Shown = order.Apply(bundle)
	case ev.UnitGold:
		a.Kind = ev.AttemptGold
		if order.Gold != nil && *order.Gold >= 0 && *order.Gold < len(p.Gold) {
			a.Shown = order.Apply(p.Gold[*order.Gold])
		}
		a.GoldMistakes = result.GoldMistakes
	case ev.UnitScreening:
		a.Kind = ev.AttemptScreening
		a.Training = p.Training
		a.TrainingMistakes, a.TrainingPassed = result.Mistakes, result.Success
	case ev.UnitCollection:
		a.Kind = ev.AttemptCollection
		chat, shown, err := r.collectedChat(ctx, p, u)
		if err != nil {
			return a, err
		}
		a.Chat, a.Shown = chat, shown
	}
	snap := ev.Snapshot{Time: u.UpdatedAt, State: &state, Completed: u.Status == ev.UnitCompleted}
	if u.Kind == ev.UnitScreening && result.Mistakes != nil {
		snap.Mistakes = result.Mistakes
	}
	a.Snapshots = []ev.Snapshot{snap}
	a.TimedOut = state.IsTimedOut()
	if u.Status == ev.UnitCompleted {
		a.Final, a.FinalTime = &state, u.CompletedAt
	}
	return a, nil
}

// collectedChat rebuilds a collection unit's session from its stored conversations, and the
// conversations as the dialogues its offline ratings were given on.
func (r reader) collectedChat(ctx context.Context, p *ev.Project, u ev.UnitRecord) (*ev.Chat, []ev.Datapoint, error) {
	convs, err := r.EvalConversations(ctx, u.ID)
	if err != nil || len(convs) == 0 {
		return nil, nil, err
	}
	chat := &ev.Chat{Condition: ev.Condition{Key: convs[0].Condition, Count: 1}, Cap: p.Settings.NumTurns}
	var shown []ev.Datapoint
	for _, c := range convs {
		conv := &ev.Conversation{Model: c.Model, Ended: !c.EndedAt.IsZero()}
		for _, t := range c.Turns {
			conv.Messages = append(conv.Messages, ev.ChatMessage{Text: t.Text, AgentIdx: t.AgentIdx, FakeStart: t.FakeStart, Time: t.SentAt})
		}
		chat.Condition.Models = append(chat.Condition.Models, c.Model)
		chat.Conversations = append(chat.Conversations, conv)
		shown = append(shown, ev.Datapoint{DialogueID: fmt.Sprintf("unit%d-conversation%d-%s", u.ID, c.Position, c.Model), Turns: conv.Turns()})
	}
	return chat, shown, nil
}

// ImportEvalAttempts stores finished attempts in one transaction: each task attempt takes the
// lowest open unit of its bundle, completed by its participant with its answers; screening
// attempts become completed screening units. Nothing is stored when one fails. It returns the
// number of attempts stored.
func (s *Store) ImportEvalAttempts(ctx context.Context, projectID int64, attempts []ev.ImportedAttempt) (int, error) {
	err := s.Update(ctx, func(tx *Tx) error {
		for _, a := range attempts {
			if strings.TrimSpace(a.Participant) == "" {
				return fmt.Errorf("%s: no participant (workerId)", a.File)
			}
			var who int64
			if err := tx.tx.QueryRowContext(ctx, `INSERT INTO eval_participants (project_id, name) VALUES (?, ?)
				ON CONFLICT (project_id, name) DO UPDATE SET name = excluded.name RETURNING id`, projectID, a.Participant).Scan(&who); err != nil {
				return fmt.Errorf("%s: %w", a.File, err)
			}
			at := a.CompletedAt.UTC().Format(timeLayout)
			switch a.Kind {
			case ev.UnitTask:
				var unit int64
				err := tx.tx.QueryRowContext(ctx, `SELECT u.id FROM eval_units u JOIN eval_assignments x ON x.id = u.assignment_id
					WHERE u.project_id = ? AND x.position = ? AND u.status = 'open' ORDER BY u.unit_index LIMIT 1`,
					projectID, a.Position).Scan(&unit)
				if errors.Is(err, sql.ErrNoRows) {
					return fmt.Errorf("%s: bundle %d of the data file has no open unit left for this attempt", a.File, a.Position+1)
				}
				if err != nil {
					return err
				}
				if _, err := tx.tx.ExecContext(ctx, `UPDATE eval_units SET status = 'completed', participant_id = ?, shown = ?,
					state = ?, result = ?, assigned_at = ?, completed_at = ?, updated_at = ? WHERE id = ?`,
					who, rawOr(a.Shown, "null"), rawOr(a.State, "{}"), rawOr(a.Result, "{}"), at, at, at, unit); err != nil {
					return fmt.Errorf("%s: %w", a.File, err)
				}
			case ev.UnitScreening:
				if _, err := tx.tx.ExecContext(ctx, `INSERT INTO eval_units (project_id, unit_index, kind, status, participant_id,
					shown, state, result, assigned_at, completed_at, updated_at) VALUES (?, -1, 'screening', 'completed', ?, 'null', ?, ?, ?, ?, ?)`,
					projectID, who, rawOr(a.State, "{}"), rawOr(a.Result, "{}"), at, at, at); err != nil {
					return fmt.Errorf("%s: %w", a.File, err)
				}
			default:
				return fmt.Errorf("%s: attempts of kind %q cannot be imported", a.File, a.Kind)
			}
			for name, v := range a.Grant {
				if _, err := tx.tx.ExecContext(ctx, `INSERT INTO eval_qualifications (participant_id, name, value, granted_at)
					VALUES (?, ?, ?, ?) ON CONFLICT (participant_id, name) DO UPDATE SET value = excluded.value`, who, name, v, at); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return len(attempts), nil
}
