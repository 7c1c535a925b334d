package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
	"github.com/agentdesk/agentdesk/engine/odyssey"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Options tune an export.
type Options struct {
	// ShardBytes is the size at which a split's file is closed and the next begun
	// (DefaultShardBytes when 0).
	ShardBytes int64
	// NoImages leaves the image column empty (the frames are neither read nor written).
	NoImages bool
	// Card is the dataset card's prose, written below its YAML header; a default when "".
	Card string
	// StoreSplit names the store's split whose parts are the dataset's splits (none when
	// ""): the card records it, and an import makes the split again.
	StoreSplit string
}

// rowGroupBytes bounds the rows a writer holds before it writes a row group: memory stays
// bounded whatever the size of the export (a row group is buffered whole by the writer).
const rowGroupBytes = 16 << 20

// Exporter writes one dataset folder. Rows are streamed in with Episode, Step and Annotation;
// Commit closes the files, names the shards, writes the card and moves the folder to its
// destination; Abort removes what was written. Nothing appears at the destination before
// Commit, and a destination replaced by Commit is replaced whole.
type Exporter struct {
	dest, tmp string
	opts      Options
	episodes  map[string]*shardWriter[EpisodeRow]
	steps     map[string]*shardWriter[StepRow]
	notes     map[string]*shardWriter[AnnotationRow]
	// Without images, episodes and steps are written from pages (pageShards): those the
	// store keeps (EpisodePages), and those encoded here from rows a batch at a time (the
	// pending rows, all of pendSplit).
	epPages, stPages map[string]*pageShards
	enc              *PageEncoder
	pendEps          []EpisodeRow
	pendSteps        []StepRow
	pendSplit        string
	spliced          int64 // episodes added as stored pages
	// MissingImages counts steps whose frame file could not be read.
	MissingImages int
}

// Summary says what an export wrote.
type Summary struct {
	Dest  string
	Rows  map[string]int64    // by config
	Files map[string][]string // by config, relative to Dest
	// SplitRows and SplitBytes count each config's rows and file bytes by split (the card's
	// splits: the datasets library checks num_examples against what it reads).
	SplitRows, SplitBytes map[string]map[string]int64
	// MissingImages counts steps whose frame file named by the store was missing.
	MissingImages int
	// SplicedEpisodes counts the episodes written from pages the store keeps encoded
	// (EpisodePages) rather than from their rows.
	SplicedEpisodes int64
}

// NewExporter starts an export to dest, writing into a temporary folder beside it. dest must
// not exist, or be a dataset folder (holding a README.md) that Commit replaces.
func NewExporter(dest string, opts Options) (*Exporter, error) {
	if opts.ShardBytes <= 0 {
		opts.ShardBytes = DefaultShardBytes
	}
	tmp, err := tempBeside(dest, FormatParquet)
	if err != nil {
		return nil, err
	}
	return &Exporter{dest: dest, tmp: tmp, opts: opts,
		episodes: map[string]*shardWriter[EpisodeRow]{},
		steps:    map[string]*shardWriter[StepRow]{},
		notes:    map[string]*shardWriter[AnnotationRow]{},
		epPages:  map[string]*pageShards{},
		stPages:  map[string]*pageShards{},
	}, nil
}

// The formats of a folder export, and the file that marks a folder as one.
const (
	FormatParquet  = "parquet"  // a Hugging Face dataset: Parquet files and their card
	FormatShareGPT = "sharegpt" // training chats: JSON files, their frames, dataset_info.json
)

// markerOf is the file that says a folder holds an export of format.
func markerOf(format string) string {
	if format == FormatShareGPT {
		return "dataset_info.json"
	}
	return "README.md"
}

// Replaceable says whether an export of format may be written to dir: dir does not exist, is
// an empty folder, or holds an earlier export of that format (which the export replaces
// whole); otherwise the error says why not.
func Replaceable(dir, format string) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: exists and is not a folder", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, markerOf(format))); err != nil {
		return fmt.Errorf("%s: a folder that is not an export (no %s): choose another destination", dir, markerOf(format))
	}
	return nil
}

// tempBeside checks that dest may take an export of format (Replaceable), and makes the
// temporary folder beside it that the export is written into.
func tempBeside(dest, format string) (string, error) {
	if err := Replaceable(dest, format); err != nil {
		return "", err
	}
	parent := filepath.Dir(filepath.Clean(dest))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	return os.MkdirTemp(parent, "."+filepath.Base(dest)+".tmp-")
}

func writerFor[T any](x *Exporter, m map[string]*shardWriter[T], config, split string, size func(*T) int64) *shardWriter[T] {
	w := m[split]
	if w == nil {
		w = &shardWriter[T]{dir: filepath.Join(x.tmp, config), split: split, shardBytes: x.opts.ShardBytes, size: size}
		m[split] = w
	}
	return w
}

// Episode adds an episode row to split.
func (x *Exporter) Episode(split string, r *EpisodeRow) error {
	if x.opts.NoImages {
		if err := x.pendFor(split); err != nil {
			return err
		}
		x.pendEps = append(x.pendEps, *r)
		if len(x.pendEps) >= maxPendingEpisodes {
			return x.flushEpisodes()
		}
		return nil
	}
	return writerFor(x, x.episodes, ConfigEpisodes, split, episodeSize).write(r)
}

// Step adds a step row to split; r.Observation may be a buffer the caller reuses after the
// call returns (the frame is copied before Step returns). Its image is the stored frame (Observation) or the file (or
// zip archive member, "zip:ARCHIVE!MEMBER") ObservationRef names; a step with neither, or with a file that is missing, has none.
func (x *Exporter) Step(split string, r *StepRow) error {
	r.Image = nil
	if x.opts.NoImages {
		if err := x.pendFor(split); err != nil {
			return err
		}
		r.Observation = nil
		x.pendSteps = append(x.pendSteps, *r)
		if len(x.pendSteps) >= maxPendingSteps {
			return x.flushSteps()
		}
		return nil
	}
	b, err := frameOf(r, &x.MissingImages)
	if err != nil {
		return err
	}
	if b != nil {
		r.Image = &Image{Bytes: b, Path: imagePath(r, b)}
	}
	w := writerFor(x, x.steps, ConfigSteps, split, stepSize)
	err = w.write(r)
	if err == nil && r.Image != nil && w.w != nil {
		// the writer copies the frame now: Observation may be the caller's buffer, valid
		// only during this call (see Step)
		err = w.drain()
	}
	r.Observation = nil
	return err
}

// EpisodePages adds one episode to split, after those added before: its row and its steps
// encoded by a PageEncoder (steps nil for an episode without steps). It is for exports
// without images (Options.NoImages); the pages are kept until their row group is written and
// must not be changed.
func (x *Exporter) EpisodePages(split string, episode, steps []byte) error {
	if !x.opts.NoImages {
		return errors.New("stored pages are for exports without images")
	}
	if err := x.flushPending(); err != nil {
		return err
	}
	n, err := pagesFor(x, x.epPages, ConfigEpisodes, split, episodeTemplate).add(episode)
	if err != nil {
		return fmt.Errorf("episodes pages: %w", err)
	}
	x.spliced += n
	if len(steps) == 0 {
		return nil
	}
	if _, err := pagesFor(x, x.stPages, ConfigSteps, split, stepTemplate).add(steps); err != nil {
		return fmt.Errorf("steps pages: %w", err)
	}
	return nil
}

func pagesFor(x *Exporter, m map[string]*pageShards, config, split string, tmpl func() (*format.FileMetaData, error)) *pageShards {
	p := m[split]
	if p == nil {
		p = &pageShards{tmpl: tmpl, dir: filepath.Join(x.tmp, config), split: split, shardBytes: x.opts.ShardBytes,
			groupBytes: groupLimit(x.opts.ShardBytes)}
		m[split] = p
	}
	return p
}

// The rows held to be encoded together: a batch of episodes' (bigger pages compress better).
const (
	maxPendingEpisodes = 512
	maxPendingSteps    = 2048
)

// pendFor flushes the pending rows when the next row is of another split.
func (x *Exporter) pendFor(split string) error {
	if split != x.pendSplit {
		if err := x.flushPending(); err != nil {
			return err
		}
		x.pendSplit = split
	}
	return nil
}

// flushPending encodes the pending rows and adds them.
func (x *Exporter) flushPending() error {
	if err := x.flushEpisodes(); err != nil {
		return err
	}
	return x.flushSteps()
}

func (x *Exporter) flushEpisodes() error {
	return flushRows(x, &x.pendEps, (*PageEncoder).Episodes, x.epPages, ConfigEpisodes, episodeTemplate,
		func(r *EpisodeRow) string { return "episode " + r.Source + "/" + r.EpisodeID })
}

func (x *Exporter) flushSteps() error {
	return flushRows(x, &x.pendSteps, (*PageEncoder).Steps, x.stPages, ConfigSteps, stepTemplate,
		func(r *StepRow) string { return "episode " + r.Source + "/" + r.EpisodeID + " steps" })
}

// flushRows encodes a config's pending rows (*pend, emptied) and adds their pages to the
// pending split's files; name says what the first row is, for an error.
func flushRows[T any](x *Exporter, pend *[]T, encode func(*PageEncoder, []byte, []T) ([]byte, error),
	m map[string]*pageShards, config string, tmpl func() (*format.FileMetaData, error), name func(*T) string) error {
	rows := *pend
	if len(rows) == 0 {
		return nil
	}
	if x.enc == nil {
		x.enc = NewPageEncoder()
	}
	b, err := encode(x.enc, nil, rows)
	if err != nil {
		return fmt.Errorf("%s: %w", name(&rows[0]), err)
	}
	clear(rows)
	*pend = rows[:0]
	_, err = pagesFor(x, m, config, x.pendSplit, tmpl).add(b)
	return err
}

// frameOf is a step's frame: the one kept in the store (Observation), or the file or zip
// member ("zip:ARCHIVE!MEMBER") ObservationRef names as the Odyssey import names them; nil
// for a step with neither, or whose file is missing (counted in *missing).
func frameOf(r *StepRow, missing *int) ([]byte, error) {
	if r.Observation != nil || r.ObservationRef == "" {
		return r.Observation, nil
	}
	b, err := odyssey.ReadScreenshot(r.ObservationRef)
	if errors.Is(err, os.ErrNotExist) {
		*missing++
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("episode %s step %d frame: %w", r.EpisodeID, r.Step, err)
	}
	return b, nil
}

// imagePath names a frame in the Image feature's path: the stored file's name, or one made of
// the episode and step.
func imagePath(r *StepRow, b []byte) string {
	if r.ObservationRef != "" {
		return filepath.Base(r.ObservationRef)
	}
	ext := ImageExt(b)
	if ext == "" {
		ext = "bin"
	}
	return fmt.Sprintf("%s_%s_%05d.%s", r.Source, r.EpisodeID, r.Step, ext)
}

// Annotation adds an evaluation answer to split.
func (x *Exporter) Annotation(split string, r *AnnotationRow) error {
	return writerFor(x, x.notes, ConfigAnnotations, split, annotationSize).write(r)
}

func episodeSize(r *EpisodeRow) int64 {
	n := len(r.EpisodeID) + len(r.Source) + len(r.Task) + len(r.Instruction) + len(r.MetaTask) +
		len(r.Category) + len(r.Device) + len(r.Facets) + len(r.Metadata) + 64
	for _, a := range r.Apps {
		n += len(a) + 8
	}
	return int64(n)
}

func stepSize(r *StepRow) int64 {
	n := len(r.EpisodeID) + len(r.Source) + len(r.ActionKind) + len(r.ActionText) + len(r.Action) +
		len(r.ActionJSON) + len(r.Instruction) + len(r.ObservationRef) + len(r.Extra) + 80
	if r.Image != nil {
		n += len(r.Image.Bytes) + len(r.Image.Path)
	}
	return int64(n)
}

func annotationSize(r *AnnotationRow) int64 {
	return int64(len(r.Project) + len(r.Participant) + len(r.UnitKind) + len(r.TypeName) + len(r.Question) + len(r.Value) + 80)
}

// Abort removes the temporary folder; the destination is untouched.
func (x *Exporter) Abort() {
	for _, w := range x.episodes {
		w.abort()
	}
	for _, w := range x.steps {
		w.abort()
	}
	for _, w := range x.notes {
		w.abort()
	}
	for _, p := range x.epPages {
		p.abort()
	}
	for _, p := range x.stPages {
		p.abort()
	}
	os.RemoveAll(x.tmp)
}

// Commit finishes the export: every config that received rows gets its files (each split's
// shards named <split>-NNNNN-of-MMMMM.parquet) and the card names them; the folder then takes
// the destination's place. configs lists the configs exported even when empty (an empty
// split file is written so that the card's configs always point at files).
func (x *Exporter) Commit(configs []string) (Summary, error) {
	sum := Summary{Dest: x.dest, Rows: map[string]int64{}, Files: map[string][]string{}, MissingImages: x.MissingImages,
		SplitRows: map[string]map[string]int64{}, SplitBytes: map[string]map[string]int64{}, SplicedEpisodes: x.spliced}
	want := map[string]bool{}
	for _, c := range configs {
		want[c] = true
	}
	var err error
	finish := func(config string, splits []string, close func(split string) ([]string, int64, error)) {
		if err != nil {
			return
		}
		if len(splits) == 0 && want[config] {
			splits = []string{DefaultSplit}
		}
		sort.Strings(splits)
		for _, s := range splits {
			files, rows, e := close(s)
			if e != nil {
				err = e
				return
			}
			sum.Rows[config] += rows
			sum.Files[config] = append(sum.Files[config], files...)
			if sum.SplitRows[config] == nil {
				sum.SplitRows[config], sum.SplitBytes[config] = map[string]int64{}, map[string]int64{}
			}
			sum.SplitRows[config][s] += rows
			for _, f := range files {
				if fi, e := os.Stat(filepath.Join(x.tmp, f)); e == nil {
					sum.SplitBytes[config][s] += fi.Size()
				}
			}
		}
	}
	if x.opts.NoImages {
		if err == nil {
			err = x.flushPending()
		}
		finish(ConfigEpisodes, keys(x.epPages), func(s string) ([]string, int64, error) {
			return pagesFor(x, x.epPages, ConfigEpisodes, s, episodeTemplate).finish(x.tmp)
		})
		finish(ConfigSteps, keys(x.stPages), func(s string) ([]string, int64, error) {
			return pagesFor(x, x.stPages, ConfigSteps, s, stepTemplate).finish(x.tmp)
		})
	} else {
		finish(ConfigEpisodes, keys(x.episodes), func(s string) ([]string, int64, error) {
			return writerFor(x, x.episodes, ConfigEpisodes, s, episodeSize).finish(x.tmp)
		})
		finish(ConfigSteps, keys(x.steps), func(s string) ([]string, int64, error) {
			return writerFor(x, x.steps, ConfigSteps, s, stepSize).finish(x.tmp)
		})
	}
	finish(ConfigAnnotations, keys(x.notes), func(s string) ([]string, int64, error) {
		return writerFor(x, x.notes, ConfigAnnotations, s, annotationSize).finish(x.tmp)
	})
	if err == nil {
		err = atomicfile.Write(filepath.Join(x.tmp, "README.md"), []byte(card(sum, x.opts.Card, x.opts.StoreSplit)), 0o644)
	}
	if err == nil {
		err = swapIn(x.tmp, x.dest)
	}
	if err != nil {
		x.Abort()
		return sum, err
	}
	return sum, nil
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// swapIn moves a finished folder to the destination, replacing an earlier export whole.
func swapIn(tmp, dest string) error {
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := os.Rename(tmp, dest); err == nil {
		atomicfile.SyncDir(filepath.Dir(dest))
		return nil
	}
	old := tmp + ".old"
	if err := os.Rename(dest, old); err != nil {
		return fmt.Errorf("%s: %w", dest, err)
	}
	if err := os.Rename(tmp, dest); err != nil {
		os.Rename(old, dest)
		return fmt.Errorf("%s: %w", dest, err)
	}
	os.RemoveAll(old)
	atomicfile.SyncDir(filepath.Dir(dest))
	return nil
}

// shardWriter writes one split of one config as numbered shards.
type shardWriter[T any] struct {
	dir, split string
	shardBytes int64
	size       func(*T) int64

	f        *os.File
	w        *parquet.GenericWriter[T]
	buf      []T
	bufBytes int64
	grpBytes int64
	shards   []string // temporary paths, in order
	rows     int64
}

func (s *shardWriter[T]) open() error {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(s.dir, fmt.Sprintf("%s-%05d.parquet.part", s.split, len(s.shards)))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	s.f = f
	s.shards = append(s.shards, path)
	// every config is written with the steps' settings (the image column's apply to steps alone)
	s.w = parquet.NewGenericWriter[T](f, writerOptions()...)
	return nil
}

func (s *shardWriter[T]) write(r *T) error {
	if s.w == nil {
		if err := s.open(); err != nil {
			return err
		}
	}
	s.buf = append(s.buf, *r)
	n := s.size(r)
	s.bufBytes += n
	if len(s.buf) >= 512 || s.bufBytes >= min(8<<20, groupLimit(s.shardBytes)) {
		return s.drain()
	}
	return nil
}

// drain hands the buffered rows to the Parquet writer, ends the row group when it is large
// enough, and starts the next shard when this one has reached its size.
func (s *shardWriter[T]) drain() error {
	if len(s.buf) > 0 {
		if _, err := s.w.Write(s.buf); err != nil {
			return fmt.Errorf("%s: %w", s.shards[len(s.shards)-1], err)
		}
		s.rows += int64(len(s.buf))
		s.grpBytes += s.bufBytes
		clear(s.buf)
		s.buf, s.bufBytes = s.buf[:0], 0
	}
	if s.grpBytes < groupLimit(s.shardBytes) {
		return nil
	}
	if err := s.w.Flush(); err != nil {
		return err
	}
	s.grpBytes = 0
	if s.w.Size() >= s.shardBytes { // the file so far (written and buffered)
		if err := s.closeShard(); err != nil {
			return err
		}
	}
	return nil
}

// groupLimit is the size of a row group: rowGroupBytes, or less so that a shard holds a few.
func groupLimit(shardBytes int64) int64 {
	return max(min(rowGroupBytes, shardBytes/4), 1)
}

func (s *shardWriter[T]) closeShard() error {
	if s.w == nil {
		return nil
	}
	path := s.shards[len(s.shards)-1]
	err := s.w.Close()
	if err == nil {
		err = s.f.Sync()
	}
	if e := s.f.Close(); err == nil {
		err = e
	}
	s.w, s.f = nil, nil
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// finish closes the split's last shard and names every shard as the Hub does; it returns the
// files relative to root and the rows written.
func (s *shardWriter[T]) finish(root string) ([]string, int64, error) {
	if s.w == nil && (len(s.buf) > 0 || len(s.shards) == 0) {
		if err := s.open(); err != nil {
			return nil, 0, err
		}
	}
	if s.w != nil {
		if len(s.buf) > 0 {
			if _, err := s.w.Write(s.buf); err != nil {
				return nil, 0, err
			}
			s.rows += int64(len(s.buf))
			s.buf = nil
		}
		if err := s.closeShard(); err != nil {
			return nil, 0, err
		}
	}
	return nameShards(root, s.dir, s.split, s.shards, s.rows)
}

// nameShards renames a split's shards (temporary paths, in order) as the Hub names them and
// returns them relative to root, with rows.
func nameShards(root, dir, split string, shards []string, rows int64) ([]string, int64, error) {
	var out []string
	for i, p := range shards {
		name := fmt.Sprintf("%s-%05d-of-%05d.parquet", split, i, len(shards))
		final := filepath.Join(dir, name)
		if err := os.Rename(p, final); err != nil {
			return nil, 0, err
		}
		rel, _ := filepath.Rel(root, final)
		out = append(out, filepath.ToSlash(rel))
	}
	return out, rows, nil
}

func (s *shardWriter[T]) abort() {
	if s.f != nil {
		s.f.Close()
		s.w, s.f = nil, nil
	}
}

// card writes the dataset card: the YAML header the Hub and the datasets library read
// (configs with their data files, features with their types), then prose.
func card(sum Summary, prose, storeSplit string) string {
	var b strings.Builder
	b.WriteString("---\n")
	if storeSplit != "" {
		q, _ := json.Marshal(storeSplit) // a JSON string is a YAML double-quoted scalar
		fmt.Fprintf(&b, "%s: %s\n", cardStoreSplit, q)
	}
	b.WriteString("configs:\n")
	for _, c := range Configs {
		files := sum.Files[c]
		if len(files) == 0 {
			continue
		}
		fmt.Fprintf(&b, "- config_name: %s\n  data_files:\n", c)
		for _, split := range splitsOf(files) {
			fmt.Fprintf(&b, "  - split: %s\n    path: \"%s/%s-*.parquet\"\n", split, c, split)
		}
	}
	b.WriteString("dataset_info:\n")
	for _, c := range Configs {
		if len(sum.Files[c]) == 0 {
			continue
		}
		fmt.Fprintf(&b, "- config_name: %s\n  features:\n", c)
		for _, f := range features[c] {
			fmt.Fprintf(&b, "  - name: %s\n", f.name)
			if elem, ok := strings.CutPrefix(f.dtype, "list:"); ok {
				fmt.Fprintf(&b, "    sequence: %s\n", elem)
			} else {
				fmt.Fprintf(&b, "    dtype: %s\n", yamlScalar(f.dtype))
			}
		}
		b.WriteString("  splits:\n")
		var size int64
		for _, split := range splitsOf(sum.Files[c]) {
			fmt.Fprintf(&b, "  - name: %s\n    num_bytes: %d\n    num_examples: %d\n", split, sum.SplitBytes[c][split], sum.SplitRows[c][split])
			size += sum.SplitBytes[c][split]
		}
		fmt.Fprintf(&b, "  download_size: %d\n  dataset_size: %d\n", size, size)
	}
	b.WriteString("---\n\n")
	if prose == "" {
		prose = defaultProse(sum)
	}
	b.WriteString(prose)
	return b.String()
}

// cardStoreSplit is the card's key for Options.StoreSplit (the Hub keeps keys it does not
// know).
const cardStoreSplit = "agentdesk_split"

// StoreSplitOf reads the store split a dataset folder's card records (Options.StoreSplit), ""
// when none.
func StoreSplitOf(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		return "", err
	}
	text := string(b)
	if !strings.HasPrefix(text, "---\n") {
		return "", nil
	}
	header, _, _ := strings.Cut(text[4:], "\n---\n")
	for _, line := range strings.Split(header, "\n") {
		if v, ok := strings.CutPrefix(line, cardStoreSplit+": "); ok {
			var name string
			if err := json.Unmarshal([]byte(strings.TrimSpace(v)), &name); err != nil {
				return "", fmt.Errorf("%s: %s: %w", filepath.Join(dir, "README.md"), cardStoreSplit, err)
			}
			return name, nil
		}
	}
	return "", nil
}

// SplitOfFile names the dataset split of a config's file (<split>-NNNNN-of-MMMMM.parquet).
func SplitOfFile(file string) string {
	if s := splitsOf([]string{file}); len(s) == 1 {
		return s[0]
	}
	return ""
}

func yamlScalar(s string) string {
	if strings.ContainsAny(s, "[]:,") {
		return `"` + s + `"`
	}
	return s
}

// splitsOf lists the splits of a config's files (named <split>-NNNNN-of-MMMMM.parquet).
func splitsOf(files []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		base := filepath.Base(f)
		i := strings.LastIndex(strings.TrimSuffix(base, ".parquet"), "-of-")
		if i < 0 {
			continue
		}
		split := base[:i]
		split = split[:strings.LastIndex(split, "-")]
		if !seen[split] {
			seen[split] = true
			out = append(out, split)
		}
	}
	return out
}

func defaultProse(sum Summary) string {
	var b strings.Builder
	b.WriteString("# Agentdesk export\n\nExported by `agentdesk export --format parquet`.\n\n")
	b.WriteString("| config | rows | files |\n|---|---|---|\n")
	for _, c := range Configs {
		if len(sum.Files[c]) > 0 {
			fmt.Fprintf(&b, "| %s | %d | %d |\n", c, sum.Rows[c], len(sum.Files[c]))
		}
	}
	b.WriteString(`
- episodes: one row per episode; episode_id is the source's own id.
- steps: one row per step; image is the frame (datasets Image feature: {bytes, path}).
- annotations: one row per evaluation answer; participants are pseudonyms unless exported with names.

Load with ` + "`datasets.load_dataset(\"path/to/this/folder\", \"steps\")`" + ` or query with DuckDB:
` + "`SELECT source, count(*) FROM 'episodes/*.parquet' GROUP BY source`" + `.
`)
	return b.String()
}
