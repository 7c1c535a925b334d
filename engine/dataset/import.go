package dataset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/parquet-go/parquet-go"
)

// Files lists a config's Parquet files in a dataset folder, by name (so by split, then
// shard). A folder without the config gives none.
func Files(dir, config string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, config, "*.parquet"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	return files, nil
}

// CheckFolder says whether dir looks like an exported dataset: a card and at least one
// config with files.
func CheckFolder(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		return fmt.Errorf("%s: not a dataset folder (no README.md dataset card)", dir)
	}
	for _, c := range Configs {
		if fs, _ := Files(dir, c); len(fs) > 0 {
			return nil
		}
	}
	return fmt.Errorf("%s: no Parquet file under %s/, %s/ or %s/", dir, ConfigEpisodes, ConfigSteps, ConfigAnnotations)
}

// ReadEpisodes calls fn with every row of the episodes config, file by file, a batch at a
// time (the rows are reused after fn returns).
func ReadEpisodes(ctx context.Context, dir string, fn func(file string, row int64, r *EpisodeRow) error) error {
	return readConfig(ctx, dir, ConfigEpisodes, fn)
}

// ReadSteps calls fn with every row of the steps config.
func ReadSteps(ctx context.Context, dir string, fn func(file string, row int64, r *StepRow) error) error {
	return readConfig(ctx, dir, ConfigSteps, fn)
}

// ReadAnnotations calls fn with every row of the annotations config.
func ReadAnnotations(ctx context.Context, dir string, fn func(file string, row int64, r *AnnotationRow) error) error {
	return readConfig(ctx, dir, ConfigAnnotations, fn)
}

// CountRows counts a config's rows from the files' footers.
func CountRows(dir, config string) (int64, error) {
	files, err := Files(dir, config)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return 0, err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return 0, err
		}
		pf, err := parquet.OpenFile(f, fi.Size())
		if err != nil {
			f.Close()
			return 0, fmt.Errorf("%s: %w", path, err)
		}
		n += pf.NumRows()
		f.Close()
	}
	return n, nil
}

// readBatch is how many rows a reader decodes at a time: small, since a steps row carries its
// frame.
const readBatch = 64

func readConfig[T any](ctx context.Context, dir, config string, fn func(file string, row int64, r *T) error) error {
	files, err := Files(dir, config)
	if err != nil {
		return err
	}
	for _, path := range files {
		if err := readFile(ctx, path, fn); err != nil {
			return err
		}
	}
	return nil
}

func readFile[T any](ctx context.Context, path string, fn func(file string, row int64, r *T) error) (err error) {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		return fmt.Errorf("%s: not a Parquet file: %w", path, err)
	}
	if err := checkSchema[T](pf.Schema()); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	r := parquet.NewGenericReader[T](f)
	defer r.Close()
	buf := make([]T, readBatch)
	var pos int64
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := r.Read(buf)
		for i := 0; i < n; i++ {
			if e := fn(path, pos, &buf[i]); e != nil {
				return e
			}
			pos++
		}
		clear(buf[:n])
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: row %d: %w", path, pos, err)
		}
	}
}

// checkSchema refuses a file whose columns lack one of T's (a file of another config, or of
// another tool): reading it would silently give empty values.
func checkSchema[T any](got *parquet.Schema) error {
	want := parquet.SchemaOf(new(T))
	have := map[string]bool{}
	for _, f := range got.Fields() {
		have[f.Name()] = true
	}
	var missing []string
	for _, f := range want.Fields() {
		if !have[f.Name()] {
			missing = append(missing, f.Name())
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing columns %v", missing)
	}
	return nil
}
