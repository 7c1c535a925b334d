package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// EvalServing returns a project's serving secret and study link generation, making the secret
// (32 random bytes) on first use.
func (s *Store) EvalServing(ctx context.Context, projectID int64) (ev.Serving, error) {
	var out ev.Serving
	const q = `SELECT secret, study_generation, recruiting, study_floor FROM eval_serving WHERE project_id = ?`
	err := s.db.QueryRowContext(ctx, q, projectID).Scan(&out.Secret, &out.StudyGeneration, &out.Recruiting, &out.StudyFloor)
	if err == nil {
		return out, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return out, err
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return out, err
	}
	err = s.Update(ctx, func(tx *Tx) error {
		var n int
		if err := tx.tx.QueryRowContext(ctx, `SELECT count(*) FROM eval_projects WHERE id = ?`, projectID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("evaluation project %d: %w", projectID, ErrNotFound)
		}
		_, err := tx.tx.ExecContext(ctx, `INSERT INTO eval_serving (project_id, secret) VALUES (?, ?) ON CONFLICT DO NOTHING`, projectID, secret)
		return err
	})
	if err != nil {
		return out, err
	}
	err = s.db.QueryRowContext(ctx, q, projectID).Scan(&out.Secret, &out.StudyGeneration, &out.Recruiting, &out.StudyFloor)
	return out, err
}

// RevokeEvalStudyLink makes the project's study link stop working for new ids (a new one is
// signed for the next generation); participants who came in through it go on with the old one.
func (s *Store) RevokeEvalStudyLink(ctx context.Context, projectID int64) (int, error) {
	if _, err := s.EvalServing(ctx, projectID); err != nil {
		return 0, err
	}
	var gen int
	err := s.Update(ctx, func(tx *Tx) error {
		return tx.tx.QueryRowContext(ctx, `UPDATE eval_serving SET study_generation = study_generation + 1
			WHERE project_id = ? RETURNING study_generation`, projectID).Scan(&gen)
	})
	return gen, err
}

// EvalLink returns a participant's link record (generation 0 and no browser when none).
func (s *Store) EvalLink(ctx context.Context, projectID int64, participant string) (ev.LinkRecord, error) {
	var l ev.LinkRecord
	err := s.db.QueryRowContext(ctx, `SELECT generation, browser, personal FROM eval_links WHERE project_id = ? AND participant = ?`,
		projectID, participant).Scan(&l.Generation, &l.Browser, &l.Personal)
	if errors.Is(err, sql.ErrNoRows) {
		return ev.LinkRecord{}, nil
	}
	return l, err
}

// RevokeEvalLinks makes a participant's links stop working (and unbinds their browser); the
// next link made for them carries the new generation. Their answers are kept.
func (s *Store) RevokeEvalLinks(ctx context.Context, projectID int64, participant string) (int, error) {
	if participant == "" {
		return 0, fmt.Errorf("no participant id")
	}
	var gen int
	err := s.Update(ctx, func(tx *Tx) error {
		return tx.tx.QueryRowContext(ctx, `INSERT INTO eval_links (project_id, participant, generation) VALUES (?, ?, 1)
			ON CONFLICT (project_id, participant) DO UPDATE SET generation = generation + 1, browser = ''
			RETURNING generation`, projectID, participant).Scan(&gen)
	})
	return gen, err
}

// BindEvalBrowser binds a participant who came through the study link to a browser (a hash
// of its cookie) and reports whether browser is the one they are bound to: the first browser
// to present an id keeps it.
func (s *Store) BindEvalBrowser(ctx context.Context, projectID int64, participant, browser string) (bool, error) {
	if participant == "" || browser == "" {
		return false, fmt.Errorf("no participant or browser")
	}
	if l, err := s.EvalLink(ctx, projectID, participant); err != nil || l.Browser != "" {
		return l.Browser == browser, err
	}
	var bound string
	err := s.Update(ctx, func(tx *Tx) error {
		return tx.tx.QueryRowContext(ctx, `INSERT INTO eval_links (project_id, participant, browser) VALUES (?, ?, ?)
			ON CONFLICT (project_id, participant) DO UPDATE SET browser = CASE WHEN browser = '' THEN excluded.browser ELSE browser END
			RETURNING browser`, projectID, participant, browser).Scan(&bound)
	})
	return bound == browser, err
}

// MarkEvalPersonalLink records that a personal link was made for a participant id: from then
// on the id is usable only through it (never through the study link).
func (s *Store) MarkEvalPersonalLink(ctx context.Context, projectID int64, participant string) error {
	if participant == "" {
		return fmt.Errorf("no participant id")
	}
	return s.Update(ctx, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx, `INSERT INTO eval_links (project_id, participant, personal) VALUES (?, ?, 1)
			ON CONFLICT (project_id, participant) DO UPDATE SET personal = 1 WHERE personal = 0`, projectID, participant)
		return err
	})
}

// SetEvalRecruiting opens or closes recruitment through the study link: closed, the link
// admits no new ids, and participants in progress finish.
func (s *Store) SetEvalRecruiting(ctx context.Context, projectID int64, open bool) error {
	if _, err := s.EvalServing(ctx, projectID); err != nil {
		return err
	}
	return s.Update(ctx, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx, `UPDATE eval_serving SET recruiting = ? WHERE project_id = ?`, open, projectID)
		return err
	})
}

// EvictEvalStudy ends the study link for everyone: a new link is signed, no older one is
// honoured even for participants in progress, their browsers are unbound and the units they
// hold go back to the pool. Participants with personal links are not affected.
func (s *Store) EvictEvalStudy(ctx context.Context, projectID int64) (ev.Eviction, error) {
	var out ev.Eviction
	if _, err := s.EvalServing(ctx, projectID); err != nil {
		return out, err
	}
	var units []int64
	err := s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.tx.ExecContext(ctx, `UPDATE eval_serving SET study_generation = study_generation + 1,
			study_floor = study_generation + 1 WHERE project_id = ?`, projectID); err != nil {
			return err
		}
		res, err := tx.tx.ExecContext(ctx, `UPDATE eval_links SET browser = '' WHERE project_id = ? AND personal = 0 AND browser <> ''`, projectID)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		out.Participants = int(n)
		rows, err := tx.tx.QueryContext(ctx, `SELECT u.id FROM eval_units u JOIN eval_participants p ON p.id = u.participant_id
			WHERE u.project_id = ? AND u.status = 'assigned' AND u.unit_index >= 0
			AND p.name IN (SELECT participant FROM eval_links WHERE project_id = ? AND personal = 0)`, projectID, projectID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			units = append(units, id)
		}
		return rows.Err()
	})
	if err != nil {
		return out, err
	}
	for _, id := range units {
		if err := s.EvalReturnUnit(ctx, id); err != nil {
			return out, err
		}
	}
	out.Units = len(units)
	return out, nil
}

// EvalAssignedUnits lists a project's units held and not completed, answer states included:
// what the server reads to reclaim units whose time limit passed while nobody was looking.
func (s *Store) EvalAssignedUnits(ctx context.Context, projectID int64) ([]ev.UnitRecord, error) {
	return s.units(ctx, `u.project_id = ? AND u.status = 'assigned'`, projectID)
}
