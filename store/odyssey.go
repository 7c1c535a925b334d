package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/odyssey"
)

// Kinds of imported_files rows written by the GUI Odyssey importer.
const (
	KindOdysseyAnnotation  = "odyssey-annotation"  // a per-episode file, or the one-file variant
	KindOdysseySplit       = "odyssey-split"       // a split file
	KindOdysseyPredictions = "odyssey-predictions" // a prediction file scored
)

// OdysseyImportOptions tune ImportOdyssey.
type OdysseyImportOptions struct {
	// CopyScreenshots stores each step's screenshot bytes in the store (steps.observation);
	// by default screenshots stay where they are and steps reference them (ObservationRef).
	CopyScreenshots bool
	// Force re-imports files whose content was imported before (for instance after moving the
	// screenshots); by default such files are left alone, so re-importing is a no-op.
	Force bool
	// Progress, when set, is called from the importing goroutine as the import advances.
	Progress func(OdysseyProgress)
	// ChunkEpisodes is how many episodes one transaction stores (0: DefaultChunkEpisodes;
	// negative: the whole import in one transaction). A dataset of that size or less is one
	// transaction either way. A larger one commits a chunk at a time, so the write-ahead log
	// stays bounded; when such an import stops (cancelled, a malformed file), the chunks
	// before stay stored and the same import run again resumes: it skips the files, or the
	// episodes of a one-file variant, that were stored. Splits are stored with the last chunk.
	ChunkEpisodes int
}

// PartialImportError is the error of a chunked import that stopped after storing some
// chunks: those stay, and importing the same folder again resumes after them.
type PartialImportError struct {
	Err      error
	Episodes int // stored by the committed chunks
	Chunks   int
	Root     string
}

func (e *PartialImportError) Error() string {
	return fmt.Sprintf("%v (%d episodes were stored in %d earlier transactions and stay; importing %s again resumes after them)",
		e.Err, e.Episodes, e.Chunks, e.Root)
}

func (e *PartialImportError) Unwrap() error { return e.Err }

// DefaultChunkEpisodes is the episodes a transaction of a large GUI Odyssey import stores
// (about 300 MB of store, a write-ahead log of the same order).
const DefaultChunkEpisodes = 20000

// OdysseyProgress reports how far an import is. Phases run in this order: "annotations"
// (Done/Total count annotation files), "splits" (split files), "commit", then "encoding for exports" (blocks
// of 1,024 episodes encoded for exports, after the import has committed).
type OdysseyProgress struct {
	Phase       string
	Done, Total int
}

// OdysseyImportResult says what an import did.
type OdysseyImportResult struct {
	ImportID int64
	Root     string
	Layout   string // "annotations" or the one-file variant's name
	Schema   string // "v1", "v2" or "v1+v2"
	// Episodes and Steps were stored by this import; Unchanged files had been imported before
	// and were left alone (0 episodes and Unchanged > 0: nothing to do); Resumed episodes of a
	// one-file variant had been stored by an interrupted import of it and were kept.
	Episodes, Steps, Unchanged, Resumed int
	// Chunks is the number of transactions the import committed (1 unless it was chunked).
	Chunks int
	// Screenshots found for the stored steps, MissingScreenshots not found, Copied into the store.
	Screenshots, MissingScreenshots, CopiedScreenshots int
	// Splits stored, with their part sizes; MissingSplitEpisodes counts split entries naming an
	// episode that is not in the store (left out, with a warning).
	Splits               []SplitInfo
	MissingSplitEpisodes int
	Warnings             []string
	Duration             time.Duration
}

// bulkCacheKiB is the page cache of a bulk import's connection (SQLite's default is 2 MiB).
// It was 256 MiB, to keep a whole import's pages in memory until its one commit; since imports
// commit in chunks it bought nothing (200k episodes: 79.6 s with 32 MiB, 81.8 s with 256) and
// cost three times its size in resident memory, each 4 KiB page taking about 8 KiB from
// modernc's allocator (peak RSS at 200k episodes: 331 MB with 32 MiB, 969 MB with 256).
const bulkCacheKiB = 32 << 10

// bulkConn runs fn on a dedicated connection with a large page cache and, for the rows it
// writes itself, no CHECK constraint evaluation (the importer's JSON columns are produced by
// encoding/json and checked when read back: parsing 13 KB of metadata per episode again in
// SQLite cost more than a tenth of an import); both are restored afterwards.
func (s *Store) bulkConn(ctx context.Context, fn func(conn *sql.Conn) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var old int64
	if err := conn.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&old); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = %d`, -bulkCacheKiB)); err != nil {
		return err
	}
	// Restore with a fresh context: the import's may be cancelled by now.
	defer conn.ExecContext(context.Background(), fmt.Sprintf(`PRAGMA cache_size = %d`, old))
	if _, err := conn.ExecContext(ctx, `PRAGMA ignore_check_constraints = ON`); err != nil {
		return err
	}
	defer conn.ExecContext(context.Background(), `PRAGMA ignore_check_constraints = OFF`)
	// A bulk import commits in chunks and resumes after an interruption, so its commits need
	// not reach the disk before it goes on: NORMAL syncs at checkpoints only (in WAL mode a
	// crash loses the last chunks, never the store).
	if _, err := conn.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
		return err
	}
	defer conn.ExecContext(context.Background(), `PRAGMA synchronous = FULL`)
	return fn(conn)
}

// maxWarnings bounds the warnings kept per import; the rest are counted.
const maxWarnings = 200

type importer struct {
	tx   *sql.Tx
	ctx  context.Context
	opts OdysseyImportOptions
	res  *OdysseyImportResult
	// chunk commits the transaction and starts the next (nil: one transaction); pending counts
	// the episodes stored since the last commit.
	chunk   func() error
	pending int
	// expected is how many episodes the import reads (files, or a one-file variant's count);
	// indexDecided is set once the first batch has decided about the action-kind index.
	expected     int
	indexDecided bool
	// resumed are the episodes a previous, interrupted import of a one-file variant stored
	// (their file's row is marked partial until the import completes).
	resumed map[string]bool

	known   map[string]bool  // sha256 of annotation files imported before
	ids     map[string]int64 // external id -> episode id, odyssey episodes
	fileIDs map[string]int64 // sha256 -> imported_files id
	schemas map[string]bool
	dropped int // warnings beyond maxWarnings
	batch   []pending
	stmts   map[string]*sql.Stmt // multi-row inserts by statement and row count
}

func (im *importer) warn(format string, args ...any) {
	if len(im.res.Warnings) >= maxWarnings {
		im.dropped++
		return
	}
	im.res.Warnings = append(im.res.Warnings, fmt.Sprintf(format, args...))
}

// ImportOdyssey imports a GUI Odyssey dataset folder (see odyssey.OpenDataset): every episode
// with its steps and facets, and the official splits, in one transaction, or in chunks when the
// dataset is larger than opts.ChunkEpisodes. Episodes
// already in the store (same id) are replaced, keeping their store id, so splits and scores
// that name them survive. Files whose content was imported before are skipped unless
// opts.Force, so importing the same folder twice changes nothing. When ctx is cancelled or a
// file is malformed, the store is left as it was before the current transaction (a chunked
// import keeps its earlier chunks: a *PartialImportError) and the error says where (a
// *odyssey.PosError for bad content).
func (s *Store) ImportOdyssey(ctx context.Context, ds *odyssey.Dataset, opts OdysseyImportOptions) (OdysseyImportResult, error) {
	start := time.Now()
	res := OdysseyImportResult{Root: ds.Root, Layout: "annotations"}
	if ds.AllFile != "" {
		res.Layout = filepath.Base(ds.AllFile)
	}
	res.Warnings = append(res.Warnings, ds.Warnings...)
	if ds.SpareAllFile != "" && !ds.FillFromAllFile {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s not read: the per-episode files are used; reading it too adds the episodes they lack (agentdesk odyssey import --fill-from-all-file)",
			filepath.Base(ds.SpareAllFile)))
	}
	committed := 0 // episodes in committed chunks
	err := s.bulkConn(ctx, func(conn *sql.Conn) error {
		tx, err := s.beginWrite(ctx, conn.BeginTx)
		if err != nil {
			return err
		}
		im := &importer{tx: tx, ctx: ctx, opts: opts, res: &res, fileIDs: map[string]int64{}, schemas: map[string]bool{}}
		defer func() {
			im.close()
			if im.tx != nil {
				im.tx.Rollback()
			}
		}()
		if opts.ChunkEpisodes >= 0 {
			im.chunk = func() error {
				im.close()
				if err := im.tx.Commit(); err != nil {
					im.tx = nil
					return s.damage(err)
				}
				im.tx = nil
				res.Chunks++
				committed = res.Episodes
				im.pending = 0
				next, err := s.beginWrite(ctx, conn.BeginTx)
				if err != nil {
					return err
				}
				im.tx = next
				return nil
			}
		}
		if err := im.prepare(); err != nil {
			return err
		}
		if err := im.episodes(ds); err != nil {
			return err
		}
		if err := im.splits(ds); err != nil {
			return err
		}
		if err := im.record(ds); err != nil {
			return err
		}
		im.close()
		err = im.tx.Commit()
		im.tx = nil
		if err != nil {
			return s.damage(err)
		}
		res.Chunks++
		return nil
	})
	res.Duration = time.Since(start)
	if err != nil {
		err = s.explain(err)
		if res.Chunks > 0 {
			err = &PartialImportError{Err: err, Episodes: committed, Chunks: res.Chunks, Root: ds.Root}
		}
		return OdysseyImportResult{Root: ds.Root, Layout: res.Layout, Duration: res.Duration, Chunks: res.Chunks}, err
	}
	// the episodes encoded for exports, after the import (which stands without it)
	_, err = s.RefreshDatasetBlocks(ctx, func(done, total int) {
		if opts.Progress != nil {
			opts.Progress(OdysseyProgress{Phase: PhaseEncodingForExports, Done: done, Total: total})
		}
	})
	if err != nil && ctx.Err() == nil {
		res.Warnings = append(res.Warnings, encodingWarning(err))
	}
	res.Duration = time.Since(start)
	return res, nil
}

func (im *importer) prepare() (err error) {
	ctx, tx := im.ctx, im.tx
	im.known = map[string]bool{}
	if !im.opts.Force {
		rows, err := tx.QueryContext(ctx, `SELECT sha256, id FROM imported_files WHERE kind = ?`, KindOdysseyAnnotation)
		if err != nil {
			return err
		}
		for rows.Next() {
			var sum string
			var id int64
			if err := rows.Scan(&sum, &id); err != nil {
				rows.Close()
				return err
			}
			if real, ok := strings.CutPrefix(sum, partialPrefix); ok {
				im.fileIDs[real] = id // an interrupted import of a one-file variant: resume it
				continue
			}
			im.known[sum] = true
			im.fileIDs[sum] = id
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		// The episodes an interrupted import of a one-file variant stored are kept.
		im.resumed = map[string]bool{}
		rows, err = tx.QueryContext(ctx, `SELECT e.external_id FROM episodes e JOIN imported_files f ON f.id = e.file_id
			WHERE f.kind = ? AND f.sha256 LIKE ? AND e.source = ?`, KindOdysseyAnnotation, partialPrefix+"%", episode.SourceOdyssey)
		if err != nil {
			return err
		}
		for rows.Next() {
			var ext string
			if err := rows.Scan(&ext); err != nil {
				rows.Close()
				return err
			}
			im.resumed[ext] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	if im.ids, err = odysseyEpisodeIDs(ctx, tx); err != nil {
		return err
	}
	im.stmts = map[string]*sql.Stmt{}
	return nil
}

func (im *importer) close() {
	for _, st := range im.stmts {
		st.Close()
	}
	im.stmts = map[string]*sql.Stmt{}
}

// partialPrefix marks the imported_files row of a one-file variant while its import is not
// complete: an interrupted import of it did not import the file, only some of its episodes.
const partialPrefix = "partial:"

func odysseyEpisodeIDs(ctx context.Context, q querier) (map[string]int64, error) {
	rows, err := q.QueryContext(ctx, `SELECT external_id, id FROM episodes WHERE source = ?`, episode.SourceOdyssey)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := map[string]int64{}
	for rows.Next() {
		var ext string
		var id int64
		if err := rows.Scan(&ext, &id); err != nil {
			return nil, err
		}
		ids[ext] = id
	}
	return ids, rows.Err()
}

func (im *importer) progress(phase string, done, total int) {
	if im.opts.Progress != nil {
		im.opts.Progress(OdysseyProgress{Phase: phase, Done: done, Total: total})
	}
}

func (im *importer) episodes(ds *odyssey.Dataset) error {
	total := ds.NumSources()
	im.expected = total
	done := 0
	im.progress("annotations", 0, total)
	seen := map[string]string{} // episode id -> file, within this import
	tick := func() {
		done++
		total = max(total, done) // episodes filled in from a one-file variant come on top
		if done == total || done%64 == 0 {
			im.progress("annotations", done, total)
		}
	}
	err := ds.Episodes(im.ctx, odyssey.EpisodeOptions{
		// Two batches: the readers parse the next batch while one is written. With the default
		// window (8 episodes on two cores) they waited for each write and the import ran on
		// little more than one core: 20k episodes in 8.2 s, 6.2 s with this (28 MB more).
		ReadAhead:   2 * episodeBatch,
		StreamSteps: streamAbove,
		Skip:        func(src odyssey.SourceFile) bool { return im.known[src.SHA256] },
		OnSkip: func(odyssey.SourceFile) {
			im.res.Unchanged++
			tick()
		},
		OnCount: func(n int) {
			im.expected = n
			if ds.AllFile != "" {
				total = n // progress in episodes rather than the one file
				im.progress("annotations", done, total)
			}
		},
	}, func(a *odyssey.Annotation, src odyssey.SourceFile) error {
		if prev, dup := seen[a.EpisodeID]; dup {
			return fmt.Errorf("%s (byte %d): episode %s is also in %s", a.File, a.Offset, a.EpisodeID, prev)
		}
		seen[a.EpisodeID] = a.File
		if im.resumed[a.EpisodeID] {
			im.res.Resumed++ // stored by the interrupted import this one resumes
			tick()
			return nil
		}
		if err := im.add(ds, a, src); err != nil {
			return err
		}
		tick()
		return nil
	})
	if err == nil {
		err = im.flush(ds)
	}
	if err != nil {
		return err
	}
	if done < total { // an empty one-file variant
		im.progress("annotations", total, total)
	}
	return nil
}

// Episodes are written in batches with multi-row statements: besides saving per-statement
// overhead, this matters because every statement that needs a statement journal (an insert
// that fires the full-text trigger, an upsert) makes SQLite flush the FTS5 index's pending
// terms; one such statement per batch instead of per episode keeps that flush rare.
const (
	episodeBatch = 128 // episodes per batch (7 parameters each)
	stepRows     = 120 // steps per INSERT (8 parameters each)
	facetRows    = 300 // facet rows per INSERT (3 parameters each)

	// Steps of an episode read streamed are written this many at a time.
	streamedStepBatch = 4 * stepRows
)

// An episode of more steps than streamAbove is read streamed (odyssey.EpisodeOptions.
// StreamSteps) and its steps written streamedStepBatch at a time: a 300k-step episode
// otherwise held about 2.4 KB a step until written (727 MB peak RSS for a 31 MB file). A
// variable for the test that compares with the steps read whole.
var streamAbove = 4096

type pending struct {
	a   *odyssey.Annotation
	src odyssey.SourceFile
}

// add queues an episode and writes the batch when it is full.
func (im *importer) add(ds *odyssey.Dataset, a *odyssey.Annotation, src odyssey.SourceFile) error {
	im.schemas[a.Schema()] = true
	for _, w := range a.Warnings {
		im.warn("%s: episode %s: %s", a.File, a.EpisodeID, w)
	}
	im.batch = append(im.batch, pending{a, src})
	if len(im.batch) >= episodeBatch {
		return im.flush(ds)
	}
	return nil
}

// multiInsert runs "head VALUES (row),(row)..." over args, rows of width parameters, at most
// per rows a statement; statements are prepared once per row count and kept.
func (im *importer) multiInsert(head, row string, width, per int, args []any) error {
	for len(args) > 0 {
		n := min(per, len(args)/width)
		key := fmt.Sprintf("%s|%d", head, n)
		st := im.stmts[key]
		if st == nil {
			q := head + " VALUES " + strings.TrimSuffix(strings.Repeat(row+",", n), ",")
			var err error
			if st, err = im.tx.PrepareContext(im.ctx, q); err != nil {
				return err
			}
			im.stmts[key] = st
		}
		if _, err := st.ExecContext(im.ctx, args[:n*width]...); err != nil {
			return err
		}
		args = args[n*width:]
	}
	return nil
}

// flush writes the queued episodes.
func (im *importer) flush(ds *odyssey.Dataset) error {
	if len(im.batch) == 0 {
		return nil
	}
	ctx := im.ctx
	// A large import into a store smaller than itself writes its steps without their
	// action-kind index and builds it once at the end (record): keeping it up to date row by
	// row cost a seventh of the import, building it afterwards a few hundred milliseconds.
	// Decided at the first batch written, so an import that writes nothing leaves it alone.
	if !im.indexDecided {
		im.indexDecided = true
		if im.expected >= 5000 && im.expected >= len(im.ids) {
			if _, err := im.tx.ExecContext(ctx, `DROP INDEX IF EXISTS steps_by_action_kind`); err != nil {
				return err
			}
		}
	}
	batch := im.batch
	im.batch = im.batch[:0]
	// Imported files, new ones first (one row for all episodes of the one-file variant).
	var fileArgs []any
	queued := map[string]bool{}
	for _, p := range batch {
		if _, ok := im.fileIDs[p.src.SHA256]; !ok && !queued[p.src.SHA256] {
			queued[p.src.SHA256] = true
			sum := p.src.SHA256
			if p.src.Path == ds.AllFile || p.src.Path == ds.SpareAllFile {
				sum = partialPrefix + sum // made whole by record, in the last transaction
			}
			fileArgs = append(fileArgs, KindOdysseyAnnotation, p.src.Path, sum, p.src.Size)
		}
	}
	if len(fileArgs) > 0 {
		q := `INSERT INTO imported_files (kind, path, sha256, size) VALUES ` +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?),", len(fileArgs)/4), ",") +
			` ON CONFLICT (kind, sha256) DO UPDATE SET path = excluded.path RETURNING id, sha256`
		if err := im.scanPairs(q, fileArgs, func(id int64, sum string) { im.fileIDs[strings.TrimPrefix(sum, partialPrefix)] = id }); err != nil {
			return fmt.Errorf("record imported files: %w", err)
		}
	}
	// Episodes: one upsert for the batch; ids come back with their external ids.
	epArgs := make([]any, 0, len(batch)*7)
	var replaced []any
	for _, p := range batch {
		a := p.a
		if _, existed := im.ids[a.EpisodeID]; existed {
			replaced = append(replaced, im.ids[a.EpisodeID])
		}
		epArgs = append(epArgs, a.EpisodeID, a.Task.Task, a.Task.Instruction, a.Task.MetaTask, a.NumSteps(), string(a.MetadataJSON()), im.fileIDs[p.src.SHA256])
	}
	q := `INSERT INTO episodes (source, external_id, task, instruction, meta_task, num_steps, total_reward, metadata, file_id) VALUES ` +
		strings.TrimSuffix(strings.Repeat("('odyssey', ?, ?, ?, ?, ?, 0, ?, ?),", len(batch)), ",") +
		` ON CONFLICT (source, external_id) DO UPDATE SET
			task = excluded.task, instruction = excluded.instruction, meta_task = excluded.meta_task,
			num_steps = excluded.num_steps, total_reward = 0, metadata = excluded.metadata, file_id = excluded.file_id
		RETURNING id, external_id`
	if err := im.scanPairs(q, epArgs, func(id int64, ext string) { im.ids[ext] = id }); err != nil {
		return fmt.Errorf("store episodes %s to %s: %w", batch[0].a.EpisodeID, batch[len(batch)-1].a.EpisodeID, err)
	}
	if len(replaced) > 0 {
		in := strings.TrimSuffix(strings.Repeat("?,", len(replaced)), ",")
		if _, err := im.tx.ExecContext(ctx, `DELETE FROM steps WHERE episode_id IN (`+in+`)`, replaced...); err != nil {
			return err
		}
		if _, err := im.tx.ExecContext(ctx, `DELETE FROM episode_facets WHERE episode_id IN (`+in+`)`, replaced...); err != nil {
			return err
		}
	}
	var stepArgs, facetArgs []any
	writeSteps := func() error {
		err := im.multiInsert(`INSERT INTO steps (episode_id, idx, action, action_kind, instruction, observation_ref, observation, extra)`,
			"(?, ?, ?, ?, ?, ?, ?, ?)", 8, stepRows, stepArgs)
		if err != nil {
			return fmt.Errorf("store steps of episodes %s to %s: %w", batch[0].a.EpisodeID, batch[len(batch)-1].a.EpisodeID, err)
		}
		clear(stepArgs)
		stepArgs = stepArgs[:0]
		return nil
	}
	for _, p := range batch {
		a := p.a
		id := im.ids[a.EpisodeID]
		for facet, values := range a.Facets() {
			for _, v := range values {
				facetArgs = append(facetArgs, id, facet, v)
			}
		}
		missing := 0
		// An episode read streamed comes a batch of steps at a time, each batch written before
		// the next is read (the steps before it first, so rows keep their order).
		if a.Streamed() {
			if err := writeSteps(); err != nil {
				return err
			}
		}
		err := a.StepBatches(streamedStepBatch, func(first int, steps []odyssey.StepAnnotation) error {
			for j := range steps {
				st, i := &steps[j], first+j
				ref := ds.Screenshots.Ref(st.Screenshot)
				var blob []byte
				var err error
				if ref == "" {
					missing++
				} else {
					im.res.Screenshots++
					if im.opts.CopyScreenshots {
						if blob, err = odyssey.ReadScreenshot(ref); err != nil {
							return fmt.Errorf("copy screenshot of episode %s step %d: %w", a.EpisodeID, i, err)
						}
						im.res.CopiedScreenshots++
					}
				}
				action, extra := st.Stored()
				stepArgs = append(stepArgs, id, i, action, st.Kind(), st.LowLevelInstruction, ref, blob, extra)
			}
			if a.Streamed() {
				return writeSteps()
			}
			return nil
		})
		if err != nil {
			return err
		}
		if missing > 0 {
			im.res.MissingScreenshots += missing
			im.warn("episode %s: %d of %d screenshots missing", a.EpisodeID, missing, a.NumSteps())
		}
		im.res.Episodes++
		im.res.Steps += a.NumSteps()
	}
	if err := writeSteps(); err != nil {
		return err
	}
	if err := im.multiInsert(`INSERT OR IGNORE INTO episode_facets (episode_id, facet, value)`,
		"(?, ?, ?)", 3, facetRows, facetArgs); err != nil {
		return fmt.Errorf("store facets: %w", err)
	}
	im.pending += len(batch)
	if im.chunk != nil {
		size := im.opts.ChunkEpisodes
		if size == 0 {
			size = DefaultChunkEpisodes
		}
		// the last episodes are committed with the splits instead: a dataset of one chunk's
		// size is one transaction, as a smaller one is (expected is exact for a folder of files
		// and for a one-file variant; when a one-file variant fills in a folder's missing
		// episodes the count is passed on the way, and a chunk then waits for the next batch)
		last := im.res.Episodes+im.res.Unchanged+im.res.Resumed == im.expected
		if im.pending >= size && !last {
			return im.chunk()
		}
	}
	return nil
}

// scanPairs runs a statement returning (id, text) rows.
func (im *importer) scanPairs(q string, args []any, fn func(int64, string)) error {
	rows, err := im.tx.QueryContext(im.ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var s string
		if err := rows.Scan(&id, &s); err != nil {
			return err
		}
		fn(id, s)
	}
	return rows.Err()
}

func (im *importer) splits(ds *odyssey.Dataset) error {
	ctx := im.ctx
	im.progress("splits", 0, len(ds.SplitFiles))
	for i, path := range ds.SplitFiles {
		if err := ctx.Err(); err != nil {
			return err
		}
		sf, err := odyssey.ReadSplitFile(path)
		if err != nil {
			return err
		}
		var known int
		err = im.tx.QueryRowContext(ctx, `SELECT count(*) FROM imported_files f JOIN splits s ON s.name = ?
			WHERE f.kind = ? AND f.sha256 = ?`, sf.Name, KindOdysseySplit, sf.Source.SHA256).Scan(&known)
		if err != nil {
			return err
		}
		if known > 0 && !im.opts.Force && im.res.Episodes == 0 {
			im.progress("splits", i+1, len(ds.SplitFiles))
			continue // the same split over the same episodes: nothing to do
		}
		if _, err := im.tx.ExecContext(ctx, `INSERT INTO imported_files (kind, path, sha256, size) VALUES (?, ?, ?, ?)
			ON CONFLICT (kind, sha256) DO UPDATE SET path = excluded.path`, KindOdysseySplit, path, sf.Source.SHA256, sf.Source.Size); err != nil {
			return err
		}
		desc := fmt.Sprintf("GUI Odyssey official %s (%s)", strings.ReplaceAll(sf.Name, "_", " "), path)
		missing, err := saveSplitParts(ctx, im.tx, sf.Name, episode.SplitOfficial, desc, sf.Parts, im.ids)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if missing > 0 {
			im.res.MissingSplitEpisodes += missing
			im.warn("%s: %d entries name episodes that are not in the store; left out", path, missing)
		}
		im.progress("splits", i+1, len(ds.SplitFiles))
	}
	return nil
}

// saveSplitParts replaces a split's membership with parts (positions in list order). Episodes
// not in ids are left out and counted.
func saveSplitParts(ctx context.Context, tx *sql.Tx, name, kind, desc string, parts []odyssey.SplitPart, ids map[string]int64) (missing int, err error) {
	var splitID int64
	err = tx.QueryRowContext(ctx, `INSERT INTO splits (name, kind, description) VALUES (?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, description = excluded.description
		RETURNING id`, name, kind, desc).Scan(&splitID)
	if err != nil {
		return 0, fmt.Errorf("save split %q: %w", name, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM split_members WHERE split_id = ?`, splitID); err != nil {
		return 0, err
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO split_members (split_id, episode_id, part, position) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return 0, err
	}
	defer stmt.Close()
	for _, p := range parts {
		pos := 0
		for _, ext := range p.IDs {
			id, ok := ids[ext]
			if !ok {
				missing++
				continue
			}
			if _, err := stmt.ExecContext(ctx, splitID, id, p.Name, pos); err != nil {
				return missing, fmt.Errorf("split %q part %q episode %s: %w", name, p.Name, ext, err)
			}
			pos++
		}
	}
	return missing, nil
}

func (im *importer) record(ds *odyssey.Dataset) error {
	ctx := im.ctx
	im.progress("commit", 0, 1)
	// (re)built here when a large import went without it, or an interrupted one left it out
	if _, err := im.tx.ExecContext(ctx, `CREATE INDEX IF NOT EXISTS steps_by_action_kind ON steps (action_kind)`); err != nil {
		return err
	}
	// A one-file variant read to its end is imported: its row loses the partial mark (an
	// older row of the same content, from an earlier import, gives way).
	for _, f := range []string{ds.AllFile, ds.SpareAllFile} {
		if f == "" {
			continue
		}
		rows, err := im.tx.QueryContext(ctx, `SELECT id, sha256 FROM imported_files WHERE kind = ? AND path = ? AND sha256 LIKE ?`,
			KindOdysseyAnnotation, f, partialPrefix+"%")
		if err != nil {
			return err
		}
		type fix struct {
			id  int64
			sum string
		}
		var fixes []fix
		for rows.Next() {
			var x fix
			if err := rows.Scan(&x.id, &x.sum); err != nil {
				rows.Close()
				return err
			}
			fixes = append(fixes, x)
		}
		rows.Close()
		for _, x := range fixes {
			real := strings.TrimPrefix(x.sum, partialPrefix)
			if _, err := im.tx.ExecContext(ctx, `DELETE FROM imported_files WHERE kind = ? AND sha256 = ?`, KindOdysseyAnnotation, real); err != nil {
				return err
			}
			if _, err := im.tx.ExecContext(ctx, `UPDATE imported_files SET sha256 = ? WHERE id = ?`, real, x.id); err != nil {
				return err
			}
		}
	}
	var schemas []string
	for s := range im.schemas {
		schemas = append(schemas, s)
	}
	sort.Strings(schemas)
	im.res.Schema = strings.Join(schemas, "+")
	if im.dropped > 0 {
		im.res.Warnings = append(im.res.Warnings, fmt.Sprintf("… and %d more warnings", im.dropped))
	}
	warnings, err := json.Marshal(im.res.Warnings)
	if err != nil {
		return err
	}
	if warnings == nil || string(warnings) == "null" {
		warnings = []byte("[]")
	}
	err = im.tx.QueryRowContext(ctx, `INSERT INTO odyssey_imports (root, layout, schema, episodes, unchanged, steps,
		screenshots_missing, screenshots_copied, warnings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		ds.Root, im.res.Layout, im.res.Schema, im.res.Episodes, im.res.Unchanged, im.res.Steps,
		im.res.MissingScreenshots, im.res.CopiedScreenshots, string(warnings)).Scan(&im.res.ImportID)
	if err != nil {
		return err
	}
	if err := touchRecent(ctx, im.tx, ds.Root, "odyssey"); err != nil {
		return err
	}
	infos, err := (reader{q: im.tx}).Splits(ctx)
	if err != nil {
		return err
	}
	for _, sf := range ds.SplitFiles {
		name := strings.TrimSuffix(filepath.Base(sf), ".json")
		for _, in := range infos {
			if in.Name == name {
				im.res.Splits = append(im.res.Splits, in)
			}
		}
	}
	return nil
}

// SaveOdysseySplit stores a user split of GUI Odyssey episodes: parts in order (e.g. train then
// test) of episode ids. Every id must be an odyssey episode in the store and appear once.
// An existing split of the same name is replaced only when replace is set; official splits are
// never replaced this way.
func (s *Store) SaveOdysseySplit(ctx context.Context, name, description string, parts []odyssey.SplitPart, replace bool) (SplitInfo, error) {
	var info SplitInfo
	if name == "" {
		return info, errors.New("a split needs a name")
	}
	err := s.Update(ctx, func(tx *Tx) error {
		var kind string
		err := tx.tx.QueryRowContext(ctx, `SELECT kind FROM splits WHERE name = ?`, name).Scan(&kind)
		switch {
		case err == nil && kind == episode.SplitOfficial:
			return fmt.Errorf("split %q is an official split; choose another name", name)
		case err == nil && !replace:
			return fmt.Errorf("split %q: %w", name, ErrSplitExists)
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return err
		}
		ids, err := odysseyEpisodeIDs(ctx, tx.tx)
		if err != nil {
			return err
		}
		seen := map[string]string{}
		for _, p := range parts {
			if p.Name == "" {
				return errors.New("a split part needs a name")
			}
			for _, id := range p.IDs {
				if _, ok := ids[id]; !ok {
					return fmt.Errorf("split %q part %q: episode %s is not in the store: %w", name, p.Name, id, ErrNotFound)
				}
				if prev, dup := seen[id]; dup {
					return fmt.Errorf("split %q: episode %s is in parts %q and %q", name, id, prev, p.Name)
				}
				seen[id] = p.Name
			}
		}
		if _, err := saveSplitParts(ctx, tx.tx, name, episode.SplitUser, description, parts, ids); err != nil {
			return err
		}
		infos, err := tx.Splits(ctx)
		for _, in := range infos {
			if in.Name == name {
				info = in
			}
		}
		return err
	})
	return info, err
}

// OdysseyEpisodeIDs lists the ids of all GUI Odyssey episodes in the store, in import order.
func (r reader) OdysseyEpisodeIDs(ctx context.Context) ([]string, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT external_id FROM episodes WHERE source = ? ORDER BY id`, episode.SourceOdyssey)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// OdysseySplitParts loads a split as split-file parts (train, test, then any other part by
// name), ready for odyssey.WriteSplitJSON.
func (r reader) OdysseySplitParts(ctx context.Context, name string) ([]odyssey.SplitPart, error) {
	sp, err := r.Split(ctx, name)
	if err != nil {
		return nil, err
	}
	return odyssey.PartsOf(sp), nil
}

// OdysseyRecords calls fn with the stored form of each GUI Odyssey episode named (all of them,
// in import order, when ids is nil), for odyssey.EncodeAnnotation and the exporters.
func (r reader) OdysseyRecords(ctx context.Context, ids []string, fn func(odyssey.Record) error) error {
	if ids == nil {
		var err error
		if ids, err = r.OdysseyEpisodeIDs(ctx); err != nil {
			return err
		}
	}
	keys := make([]any, len(ids))
	for i, id := range ids {
		keys[i] = id
	}
	return r.odysseyRecords(ctx, "external_id", keys, fn)
}

// odysseyRecords calls fn with the stored form of the GUI Odyssey episode whose column (id or
// external_id) is each of keys, in order.
func (r reader) odysseyRecords(ctx context.Context, column string, keys []any, fn func(odyssey.Record) error) error {
	epStmt, err := r.q.PrepareContext(ctx, `SELECT id, external_id, metadata FROM episodes WHERE source = ? AND `+column+` = ?`)
	if err != nil {
		return err
	}
	defer epStmt.Close()
	stepStmt, err := r.q.PrepareContext(ctx, `SELECT extra FROM steps WHERE episode_id = ? ORDER BY idx`)
	if err != nil {
		return err
	}
	defer stepStmt.Close()
	for _, key := range keys {
		if err := ctx.Err(); err != nil {
			return err
		}
		var rec odyssey.Record
		var id int64
		var meta string
		if err := epStmt.QueryRowContext(ctx, episode.SourceOdyssey, key).Scan(&id, &rec.ExternalID, &meta); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("episode odyssey/%v: %w", key, ErrNotFound)
			}
			return err
		}
		rec.Metadata = json.RawMessage(meta)
		rows, err := stepStmt.QueryContext(ctx, id)
		if err != nil {
			return err
		}
		for rows.Next() {
			var extra string
			if err := rows.Scan(&extra); err != nil {
				rows.Close()
				return err
			}
			rec.Steps = append(rec.Steps, json.RawMessage(extra))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
	return nil
}
