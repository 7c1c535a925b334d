package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
)

// Bundled samples (engine/samples) are files in one folder; what they put into a store is what
// was read from that folder: episodes of files imported from it (with their imports), scoring
// runs of prediction files in it, evaluation projects loaded from it, template folders and
// recent files in it, and the splits that came with the sample dataset. That is how the samples
// are told from the user's own data (nothing else is marked), and how they are removed.

// SampleContents counts what a samples folder put into the store.
type SampleContents struct {
	Episodes, Splits, Runs, Projects, Folders int
}

// Empty reports whether nothing of the samples is in the store.
func (c SampleContents) Empty() bool {
	return c.Episodes+c.Splits+c.Runs+c.Projects+c.Folders == 0
}

// underSQL matches a path column against dir and everything inside it.
func underSQL(col string) string {
	return "(" + col + " = ? OR " + col + ` LIKE ? ESCAPE '\')`
}

func underArgs(dir string) []any {
	dir = filepath.Clean(dir)
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(dir + string(filepath.Separator))
	return []any{dir, esc + "%"}
}

// SampleContents counts what was read from the samples folder dir; splits are the sample
// dataset's split names (counted when they exist and hold only sample episodes).
func (r reader) SampleContents(ctx context.Context, dir string, splits []string) (SampleContents, error) {
	var c SampleContents
	a := underArgs(dir)
	count := func(dst *int, query string, args ...any) error {
		return r.q.QueryRowContext(ctx, query, args...).Scan(dst)
	}
	if err := count(&c.Episodes, `SELECT count(*) FROM episodes WHERE file_id IN
		(SELECT id FROM imported_files WHERE `+underSQL("path")+`)`, a...); err != nil {
		return c, err
	}
	if err := count(&c.Runs, `SELECT count(*) FROM odyssey_runs WHERE `+underSQL("predictions_path"), a...); err != nil {
		return c, err
	}
	if err := count(&c.Projects, `SELECT count(*) FROM eval_projects WHERE `+underSQL("source"), a...); err != nil {
		return c, err
	}
	if err := count(&c.Folders, `SELECT count(*) FROM template_folders WHERE `+underSQL("path"), a...); err != nil {
		return c, err
	}
	for _, name := range splits {
		ok, err := sampleOnlySplit(ctx, r.q, name, a)
		if err != nil {
			return c, err
		}
		if ok {
			c.Splits++
		}
	}
	return c, nil
}

// sampleOnlySplit: the split exists and every member episode was imported from the folder.
func sampleOnlySplit(ctx context.Context, q querier, name string, under []any) (bool, error) {
	var id int64
	err := q.QueryRowContext(ctx, `SELECT id FROM splits WHERE name = ?`, name).Scan(&id)
	if err == sql.ErrNoRows {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var others int
	err = q.QueryRowContext(ctx, `SELECT count(*) FROM split_members m JOIN episodes e ON e.id = m.episode_id
		WHERE m.split_id = ? AND (e.file_id IS NULL OR e.file_id NOT IN
			(SELECT id FROM imported_files WHERE `+underSQL("path")+`))`, append([]any{id}, under...)...).Scan(&others)
	return others == 0, err
}

// RemoveSamples removes, in one transaction, everything the samples folder dir put into the
// store (see SampleContents) and returns what it removed. The user's own data is not touched: a
// split of the sample's name that also holds other episodes stays.
func (s *Store) RemoveSamples(ctx context.Context, dir string, splits []string) (SampleContents, error) {
	var c SampleContents
	err := s.Update(ctx, func(tx *Tx) error {
		var err error
		if c, err = (reader{q: tx.tx}).SampleContents(ctx, dir, splits); err != nil {
			return err
		}
		a := underArgs(dir)
		for _, name := range splits {
			ok, err := sampleOnlySplit(ctx, tx.tx, name, a)
			if err != nil {
				return err
			}
			if ok {
				if err := tx.DeleteSplit(ctx, name); err != nil {
					return err
				}
			}
		}
		for _, q := range []string{
			`DELETE FROM episodes WHERE file_id IN (SELECT id FROM imported_files WHERE ` + underSQL("path") + `)`,
			`DELETE FROM odyssey_runs WHERE ` + underSQL("predictions_path"),
			`DELETE FROM eval_projects WHERE ` + underSQL("source"),
			`DELETE FROM template_folders WHERE ` + underSQL("path"),
			`DELETE FROM recent_files WHERE ` + underSQL("path"),
			`DELETE FROM odyssey_imports WHERE ` + underSQL("root"),
			`DELETE FROM imported_files WHERE ` + underSQL("path"),
		} {
			if _, err := tx.tx.ExecContext(ctx, q, a...); err != nil {
				return err
			}
		}
		return nil
	})
	return c, err
}
