package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"

	"github.com/agentdesk/agentdesk/engine/episode"
)

// SaveSplit stores a split, replacing the membership of a split of the same name. Every
// episode it names must already be in the store.
func (t *Tx) SaveSplit(ctx context.Context, sp episode.Split) error {
	if sp.Name == "" {
		return errors.New("split has no name")
	}
	kind := sp.Kind
	if kind == "" {
		kind = episode.SplitUser
	}
	var id int64
	err := t.tx.QueryRowContext(ctx, `INSERT INTO splits (name, kind, description) VALUES (?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, description = excluded.description
		RETURNING id`, sp.Name, kind, sp.Description).Scan(&id)
	if err != nil {
		return fmt.Errorf("save split %q: %w", sp.Name, err)
	}
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM split_members WHERE split_id = ?`, id); err != nil {
		return err
	}
	stmt, err := t.tx.PrepareContext(ctx, `INSERT INTO split_members (split_id, episode_id, part, position)
		SELECT ?, id, ?, ? FROM episodes WHERE source = ? AND external_id = ?`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	parts := make([]string, 0, len(sp.Parts))
	for p := range sp.Parts {
		parts = append(parts, p)
	}
	sort.Strings(parts)
	for _, part := range parts {
		for pos, key := range sp.Parts[part] {
			res, err := stmt.ExecContext(ctx, id, part, pos, key.Source, key.ExternalID)
			if err != nil {
				return fmt.Errorf("split %q part %q: episode %s/%s: %w", sp.Name, part, key.Source, key.ExternalID, err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return fmt.Errorf("split %q part %q: episode %s/%s: %w", sp.Name, part, key.Source, key.ExternalID, ErrNotFound)
			}
		}
	}
	return nil
}

// DeleteSplit removes a split (not its episodes).
func (t *Tx) DeleteSplit(ctx context.Context, name string) error {
	res, err := t.tx.ExecContext(ctx, `DELETE FROM splits WHERE name = ?`, name)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("split %q: %w", name, ErrNotFound)
	}
	return nil
}

// SaveSplit stores one split in its own transaction; see Tx.SaveSplit.
func (s *Store) SaveSplit(ctx context.Context, sp episode.Split) error {
	return s.Update(ctx, func(tx *Tx) error { return tx.SaveSplit(ctx, sp) })
}

// Split loads a split with its membership.
func (r reader) Split(ctx context.Context, name string) (episode.Split, error) {
	sp := episode.Split{Name: name, Parts: map[string][]episode.Key{}}
	var id int64
	err := r.q.QueryRowContext(ctx, `SELECT id, kind, description FROM splits WHERE name = ?`, name).
		Scan(&id, &sp.Kind, &sp.Description)
	if errors.Is(err, sql.ErrNoRows) {
		return sp, fmt.Errorf("split %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return sp, err
	}
	rows, err := r.q.QueryContext(ctx, `SELECT m.part, e.source, e.external_id FROM split_members m
		JOIN episodes e ON e.id = m.episode_id WHERE m.split_id = ? ORDER BY m.part, m.position`, id)
	if err != nil {
		return sp, err
	}
	defer rows.Close()
	for rows.Next() {
		var part string
		var k episode.Key
		if err := rows.Scan(&part, &k.Source, &k.ExternalID); err != nil {
			return sp, err
		}
		sp.Parts[part] = append(sp.Parts[part], k)
	}
	return sp, rows.Err()
}

// SplitInfo describes a split without its membership.
type SplitInfo struct {
	Name        string
	Kind        string
	Description string
	PartSizes   map[string]int
}

// Splits lists all splits with the size of each part, by name.
func (r reader) Splits(ctx context.Context) ([]SplitInfo, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT s.name, s.kind, s.description, m.part, count(m.episode_id)
		FROM splits s LEFT JOIN split_members m ON m.split_id = s.id
		GROUP BY s.id, m.part ORDER BY s.name, m.part`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SplitInfo
	for rows.Next() {
		var info SplitInfo
		var part sql.NullString
		var n int
		if err := rows.Scan(&info.Name, &info.Kind, &info.Description, &part, &n); err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].Name != info.Name {
			info.PartSizes = map[string]int{}
			out = append(out, info)
		}
		if part.Valid {
			out[len(out)-1].PartSizes[part.String] = n
		}
	}
	return out, rows.Err()
}
