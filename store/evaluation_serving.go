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
	err := s.db.QueryRowContext(ctx, `SELECT secret, study_generation FROM eval_serving WHERE project_id = ?`, projectID).
		Scan(&out.Secret, &out.StudyGeneration)
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
	err = s.db.QueryRowContext(ctx, `SELECT secret, study_generation FROM eval_serving WHERE project_id = ?`, projectID).
		Scan(&out.Secret, &out.StudyGeneration)
	return out, err
}

// RevokeEvalStudyLink makes the project's study link stop working (a new one is signed for
// the next generation); participants who came through it keep their sessions.
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
	err := s.db.QueryRowContext(ctx, `SELECT generation, browser FROM eval_links WHERE project_id = ? AND participant = ?`,
		projectID, participant).Scan(&l.Generation, &l.Browser)
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
