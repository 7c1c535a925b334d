package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// PredictRun is one run of a model over a split's test records (odyssey predict). Its key
// (OutPath, Split, Level, URL, Model, HisLen, Temperature, MaxTokens) decides its answers:
// starting a run with the same key resumes it.
type PredictRun struct {
	ID          int64
	OutPath     string
	Split       string
	Level       string
	URL         string
	Model       string
	HisLen      int
	Temperature float64
	MaxTokens   int
	Total       int
	Created     string
	Finished    string
	// Answered is how many records have an answer (filled by reads).
	Answered int
}

// PredictAnswer is a record's answer.
type PredictAnswer struct {
	Idx              int
	RecordID         string
	Pred             string
	PromptTokens     int
	CompletionTokens int
	LatencyMS        float64
	Attempts         int
}

// PredictRequest is one HTTP request of a run.
type PredictRequest struct {
	Idx              int
	Try              int
	Status           int
	LatencyMS        float64
	PromptTokens     int
	CompletionTokens int
	Error            string
}

// StartPredictRun finds the run of r's key, or creates it, and returns it with its ID and the
// number of records answered so far. A run found with another record count is an error (the
// split changed since): the caller must start over with another output file.
func (s *Store) StartPredictRun(ctx context.Context, r PredictRun) (PredictRun, error) {
	err := s.Update(ctx, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx, `INSERT INTO odyssey_predict_runs (out_path, split, level, url, model, his_len,
			temperature, max_tokens, total, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (out_path, split, level, url, model, his_len, temperature, max_tokens) DO NOTHING`,
			r.OutPath, r.Split, r.Level, r.URL, r.Model, r.HisLen, r.Temperature, r.MaxTokens, r.Total,
			time.Now().UTC().Format(time.RFC3339))
		return err
	})
	if err != nil {
		return r, err
	}
	got, err := s.predictRun(ctx, `WHERE out_path = ? AND split = ? AND level = ? AND url = ? AND model = ? AND his_len = ?
		AND temperature = ? AND max_tokens = ?`, r.OutPath, r.Split, r.Level, r.URL, r.Model, r.HisLen, r.Temperature, r.MaxTokens)
	if err != nil {
		return r, err
	}
	return got, nil
}

func (r reader) predictRun(ctx context.Context, where string, args ...any) (PredictRun, error) {
	var p PredictRun
	var fin sql.NullString
	err := r.q.QueryRowContext(ctx, `SELECT id, out_path, split, level, url, model, his_len, temperature, max_tokens, total,
		created_at, finished_at, (SELECT count(*) FROM odyssey_predict_answers a WHERE a.run_id = odyssey_predict_runs.id)
		FROM odyssey_predict_runs `+where, args...).Scan(&p.ID, &p.OutPath, &p.Split, &p.Level, &p.URL, &p.Model, &p.HisLen,
		&p.Temperature, &p.MaxTokens, &p.Total, &p.Created, &fin, &p.Answered)
	if errors.Is(err, sql.ErrNoRows) {
		return p, ErrNotFound
	}
	p.Finished = fin.String
	return p, err
}

// PredictRuns lists the runs, newest first.
func (r reader) PredictRuns(ctx context.Context) ([]PredictRun, error) {
	var ids []int64
	err := scanRows(ctx, r.q, `SELECT id FROM odyssey_predict_runs ORDER BY id DESC`, func(rows *sql.Rows) error {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]PredictRun, 0, len(ids))
	for _, id := range ids {
		p, err := r.predictRun(ctx, `WHERE id = ?`, id)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// PredictAnswers are a run's answers, by record index.
func (r reader) PredictAnswers(ctx context.Context, runID int64) (map[int]PredictAnswer, error) {
	out := map[int]PredictAnswer{}
	err := scanRows(ctx, r.q, `SELECT idx, record_id, pred, prompt_tokens, completion_tokens, latency_ms, attempts
		FROM odyssey_predict_answers WHERE run_id = ?`, func(rows *sql.Rows) error {
		var a PredictAnswer
		if err := rows.Scan(&a.Idx, &a.RecordID, &a.Pred, &a.PromptTokens, &a.CompletionTokens, &a.LatencyMS, &a.Attempts); err != nil {
			return err
		}
		out[a.Idx] = a
		return nil
	}, runID)
	return out, err
}

// PredictRequestStats sums a run's requests: how many, how many failed, tokens, latency.
type PredictRequestStats struct {
	Requests         int
	Failed           int
	PromptTokens     int64
	CompletionTokens int64
	LatencyMS        float64
}

// PredictRequests sums the requests of a run.
func (r reader) PredictRequests(ctx context.Context, runID int64) (PredictRequestStats, error) {
	var s PredictRequestStats
	err := r.q.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE error != ''), coalesce(sum(prompt_tokens), 0),
		coalesce(sum(completion_tokens), 0), coalesce(sum(latency_ms), 0) FROM odyssey_predict_requests WHERE run_id = ?`, runID).
		Scan(&s.Requests, &s.Failed, &s.PromptTokens, &s.CompletionTokens, &s.LatencyMS)
	return s, err
}

// SavePredictions stores answers and requests of a run in one transaction. An answer for a
// record that has one already is ignored (the first stays).
func (s *Store) SavePredictions(ctx context.Context, runID int64, answers []PredictAnswer, requests []PredictRequest) error {
	return s.Update(ctx, func(tx *Tx) error {
		if len(answers) > 0 {
			st, err := tx.tx.PrepareContext(ctx, `INSERT INTO odyssey_predict_answers (run_id, idx, record_id, pred, prompt_tokens,
				completion_tokens, latency_ms, attempts) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`)
			if err != nil {
				return err
			}
			defer st.Close()
			for _, a := range answers {
				if _, err := st.ExecContext(ctx, runID, a.Idx, a.RecordID, a.Pred, a.PromptTokens, a.CompletionTokens, a.LatencyMS, a.Attempts); err != nil {
					return err
				}
			}
		}
		if len(requests) > 0 {
			st, err := tx.tx.PrepareContext(ctx, `INSERT INTO odyssey_predict_requests (run_id, idx, try, status, latency_ms,
				prompt_tokens, completion_tokens, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
			if err != nil {
				return err
			}
			defer st.Close()
			for _, q := range requests {
				if _, err := st.ExecContext(ctx, runID, q.Idx, q.Try, q.Status, q.LatencyMS, q.PromptTokens, q.CompletionTokens, q.Error); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// FinishPredictRun marks a run finished (its file written whole).
func (s *Store) FinishPredictRun(ctx context.Context, runID int64) error {
	_, err := s.exec(ctx, `UPDATE odyssey_predict_runs SET finished_at = ? WHERE id = ?`, time.Now().UTC().Format(time.RFC3339), runID)
	return err
}
