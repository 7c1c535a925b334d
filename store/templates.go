package store

import (
	"context"
	"fmt"
	"time"

	"github.com/agentdesk/agentdesk/engine/episode"
)

// TemplateFolderKind is the recent-files kind of a template folder.
const TemplateFolderKind = "template-folder"

// AddTemplateFolder remembers that a template folder was opened now (adding it, or updating
// its name and time when it is known) and records it among the recent files.
func (s *Store) AddTemplateFolder(ctx context.Context, path, name string) error {
	if path == "" {
		return fmt.Errorf("template folder: empty path")
	}
	return s.Update(ctx, func(tx *Tx) error {
		// Opened-at times order the list: keep them strictly increasing even within one
		// millisecond (compared at the millisecond precision they are stored with).
		t := time.Now().UTC().Truncate(time.Millisecond)
		var last string
		if err := tx.tx.QueryRowContext(ctx, `SELECT coalesce(max(opened_at), '') FROM template_folders`).Scan(&last); err != nil {
			return err
		}
		if l := parseTime(last); last != "" && !t.After(l) {
			t = l.Add(time.Millisecond)
		}
		now := t.Format(timeLayout)
		if _, err := tx.tx.ExecContext(ctx, `INSERT INTO template_folders (path, name, opened_at) VALUES (?, ?, ?)
			ON CONFLICT (path) DO UPDATE SET name = excluded.name, opened_at = excluded.opened_at`,
			path, name, now); err != nil {
			return fmt.Errorf("add template folder %s: %w", path, err)
		}
		return touchRecent(ctx, tx.tx, path, TemplateFolderKind)
	})
}

// RemoveTemplateFolder forgets a template folder (the files on disk are not touched).
func (s *Store) RemoveTemplateFolder(ctx context.Context, path string) error {
	_, err := s.exec(ctx, `DELETE FROM template_folders WHERE path = ?`, path)
	return err
}

// TemplateFolders lists the remembered template folders, most recently opened first (Kind is
// TemplateFolderKind).
func (r reader) TemplateFolders(ctx context.Context) ([]episode.RecentFile, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT path, opened_at FROM template_folders
		ORDER BY opened_at DESC, id DESC`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []episode.RecentFile
	for rows.Next() {
		f := episode.RecentFile{Kind: TemplateFolderKind}
		var at string
		if err := rows.Scan(&f.Path, &at); err != nil {
			return nil, err
		}
		f.OpenedAt = parseTime(at)
		out = append(out, f)
	}
	return out, rows.Err()
}
