package odyssey

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/agentdesk/agentdesk/engine/limits"
)

// Names of the one-file variant: v1 and v2 releases spell it differently.
var allFileNames = []string{"all_annot.json", "all_anno.json"}

// Dataset is a GUI Odyssey folder, found but not yet read:
//
//	<root>/annotations/<episode_id>.json    (or <root>/all_anno.json | all_annot.json)
//	<root>/splits/*_split.json
//	<root>/screenshots/**/<episode_id>_<step>.png, or zip archives of them
type Dataset struct {
	Root string
	// AnnotationFiles are the per-episode files, sorted by name; empty when the one-file
	// variant AllFile is used instead.
	AnnotationFiles []string
	AllFile         string
	// SpareAllFile is a one-file variant found next to per-episode files. It is read only when
	// FillFromAllFile is set, for the episodes the per-episode files lack (downloads with an
	// incomplete annotations/ folder).
	SpareAllFile    string
	FillFromAllFile bool
	SplitFiles      []string
	Screenshots     *ScreenshotIndex
	// Warnings are problems found while looking at the folder.
	Warnings []string
}

// OpenDataset looks at a dataset folder: which annotation layout it uses, its split files,
// and an index of its screenshots (folders walked, zip central directories read). It reads no
// annotation yet.
func OpenDataset(root string) (*Dataset, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a folder (a GUI Odyssey dataset is a folder with annotations/, splits/ and screenshots/)", root)
	}
	d := &Dataset{Root: abs}
	annDir := filepath.Join(abs, "annotations")
	if entries, err := os.ReadDir(annDir); err == nil {
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
				d.AnnotationFiles = append(d.AnnotationFiles, filepath.Join(annDir, e.Name()))
			}
		}
		sort.Strings(d.AnnotationFiles)
	}
	if len(d.AnnotationFiles) == 0 {
		// The v2 release ships its annotations zipped; so do users whose folder is incomplete.
		if d.AnnotationFiles, err = zippedAnnotations(abs); err != nil {
			return nil, err
		}
	}
	for _, name := range allFileNames {
		p := filepath.Join(abs, name)
		if _, err := os.Stat(p); err == nil {
			if len(d.AnnotationFiles) > 0 {
				if d.SpareAllFile == "" {
					d.SpareAllFile = p
				}
				continue
			}
			if d.AllFile == "" {
				d.AllFile = p
			}
		}
	}
	if err := limits.Episodes.Check(root, int64(len(d.AnnotationFiles))); err != nil {
		return nil, err
	}
	if len(d.AnnotationFiles) == 0 && d.AllFile == "" {
		return nil, fmt.Errorf("%s: no annotations: expected annotations/<episode_id>.json files, a zip archive of them (annotations.zip), or all_annot.json / all_anno.json", root)
	}
	if entries, err := os.ReadDir(filepath.Join(abs, "splits")); err == nil {
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
				d.SplitFiles = append(d.SplitFiles, filepath.Join(abs, "splits", e.Name()))
			}
		}
		sort.Strings(d.SplitFiles)
	} else {
		d.Warnings = append(d.Warnings, "no splits/ folder: no official split imported")
	}
	d.Screenshots, err = IndexScreenshots(abs)
	if err != nil {
		return nil, err
	}
	if d.Screenshots.Len() == 0 {
		d.Warnings = append(d.Warnings, "no screenshots found (screenshots/ folder or zip archives)")
	}
	return d, nil
}

// zippedAnnotations lists the per-episode files inside annotation archives: zip archives in root
// whose name mentions annotations (annotations.zip, GUI-Odyssey-annotations.zip, split parts
// too) and archives inside annotations/. The references are zip:ARCHIVE!MEMBER.
func zippedAnnotations(root string) ([]string, error) {
	var archives []string
	for _, dir := range []string{root, filepath.Join(root, "annotations")} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if e.IsDir() || !isArchive(p) || dir == root && !strings.Contains(strings.ToLower(e.Name()), "anno") {
				continue
			}
			archives = append(archives, p)
		}
	}
	var refs []string
	for _, p := range archives {
		a, err := openArchive(p)
		if err != nil {
			return nil, fmt.Errorf("annotation archive %s: %w", p, err)
		}
		for i := range a.index.Len() {
			name := string(a.index.name(i))
			base := path.Base(name)
			if strings.HasSuffix(name, "/") || !strings.HasSuffix(base, ".json") || strings.HasPrefix(base, ".") ||
				strings.HasPrefix(name, "__MACOSX/") || slices.Contains(allFileNames, base) {
				continue
			}
			refs = append(refs, ZipRef(p, name))
		}
		a.Close()
	}
	sort.Slice(refs, func(i, j int) bool { return path.Base(refs[i]) < path.Base(refs[j]) })
	return refs, nil
}

// SourceFile identifies a file's content.
type SourceFile struct {
	Path   string
	SHA256 string
	Size   int64
}

// SumBytes identifies data read from path.
func SumBytes(path string, data []byte) SourceFile {
	h := sha256.Sum256(data)
	return SourceFile{Path: path, SHA256: hex.EncodeToString(h[:]), Size: int64(len(data))}
}

// EpisodeOptions tune Dataset.Episodes.
type EpisodeOptions struct {
	// Skip, when set, is asked (from several goroutines) about each per-episode file before it
	// is parsed; a true answer leaves it out (an unchanged file already imported). For the
	// one-file variant it is asked once about that file.
	Skip func(SourceFile) bool
	// OnSkip is called, in order, for each file left out.
	OnSkip func(SourceFile)
	// Workers parse files in parallel (default: GOMAXPROCS, at most 4).
	Workers int
	// ReadAhead is how many parsed episodes may wait for fn (default: 4 per worker). A caller
	// whose fn works in batches, as a store import does, lets the workers read a batch or two
	// ahead, so that they parse while fn writes instead of waiting for it.
	ReadAhead int
	// StreamSteps, when positive, reads an episode of more steps than this streamed: its steps
	// are checked and counted, and left in the file's bytes until Annotation.StepBatches reads
	// them a batch at a time (Steps is nil). A 300k-step episode then costs its file's bytes
	// instead of about a kilobyte a step.
	StreamSteps int
	// OnCount, when set, is told how many episodes a one-file variant holds once it has been
	// scanned (before they are parsed), for progress bars.
	OnCount func(n int)
}

// NumSources is the number of annotation files Episodes reads.
func (d *Dataset) NumSources() int {
	if d.AllFile != "" {
		return 1
	}
	return len(d.AnnotationFiles)
}

// Episodes reads every episode, in file-name order (or the one-file variant's order), and calls
// fn with each and the file it came from. fn is called from one goroutine at a time. Reading
// stops at the first error (a *PosError for bad content) or when ctx is cancelled.
func (d *Dataset) Episodes(ctx context.Context, opts EpisodeOptions, fn func(*Annotation, SourceFile) error) error {
	if d.AllFile != "" {
		return d.listEpisodes(ctx, d.AllFile, opts, nil, fn)
	}
	if !d.FillFromAllFile || d.SpareAllFile == "" {
		return d.fileEpisodes(ctx, opts, fn)
	}
	seen := map[string]bool{}
	err := d.fileEpisodes(ctx, opts, func(a *Annotation, src SourceFile) error {
		seen[a.EpisodeID] = true
		return fn(a, src)
	})
	if err != nil {
		return err
	}
	// Ids of skipped (unchanged) files are not known here; their stems are.
	for _, p := range d.AnnotationFiles {
		seen[strings.TrimSuffix(p[strings.LastIndexAny(p, `/\!`)+1:], ".json")] = true
	}
	return d.listEpisodes(ctx, d.SpareAllFile, opts, seen, fn)
}

// listEpisodes reads a one-file variant, leaving out the episodes in except: a quick pass finds
// where each episode's object is, then the objects are parsed on several goroutines.
func (d *Dataset) listEpisodes(ctx context.Context, file string, opts EpisodeOptions, except map[string]bool, fn func(*Annotation, SourceFile) error) error {
	data, err := limits.ReadFile(file, limits.AllAnnotations)
	if err != nil {
		return err
	}
	src := SumBytes(file, data)
	if opts.Skip != nil && opts.Skip(src) {
		if opts.OnSkip != nil {
			opts.OnSkip(src)
		}
		return nil
	}
	starts, err := listElements(file, data)
	if err != nil {
		return err
	}
	if err := limits.Episodes.Check(file, int64(len(starts))); err != nil {
		return err
	}
	if opts.OnCount != nil {
		opts.OnCount(len(starts))
	}
	return inOrder(ctx, len(starts), opts.Workers, opts.ReadAhead, func(ctx context.Context, i int) (*Annotation, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s := &scanner{file: file, data: data, i: starts[i], streamAbove: opts.StreamSteps}
		a, err := s.episode()
		if err != nil {
			return nil, err
		}
		a.Prepare()
		return a, nil
	}, func(a *Annotation) error {
		if except[a.EpisodeID] {
			return nil
		}
		return fn(a, src)
	})
}

// listElements finds where each element of a top-level JSON list starts, checking the list's
// own punctuation (the elements are checked when parsed).
func listElements(file string, data []byte) ([]int, error) {
	s := &scanner{file: file, data: data, i: bomLen(data)}
	if err := s.expect('[', "", "a list of episodes"); err != nil {
		return nil, err
	}
	var starts []int
	if s.peek() == ']' {
		s.i++
		return starts, s.end()
	}
	for {
		where := fmt.Sprintf("episode %d of the list", len(starts))
		_, off, err := s.value(where)
		if err != nil {
			return nil, err
		}
		starts = append(starts, off)
		switch c := s.peek(); c {
		case ',':
			s.i++
		case ']':
			s.i++
			return starts, s.end()
		case 0:
			return nil, s.errAt(s.i, where, "unexpected end of file, expected ',' or ']'")
		default:
			return nil, s.errAt(s.i, where, "expected ',' or ']' after the episode, found %s", describeByte(c))
		}
	}
}

// fileEpisodes reads the per-episode files on several goroutines, in order.
func (d *Dataset) fileEpisodes(ctx context.Context, opts EpisodeOptions, fn func(*Annotation, SourceFile) error) error {
	archives := NewScreenshots(2) // zipped annotations
	defer archives.Close()
	type read struct {
		a    *Annotation
		src  SourceFile
		skip bool
	}
	return inOrder(ctx, len(d.AnnotationFiles), opts.Workers, opts.ReadAhead, func(ctx context.Context, i int) (read, error) {
		a, src, skip, err := readEpisodeFile(ctx, archives, d.AnnotationFiles[i], opts.Skip, opts.StreamSteps)
		return read{a, src, skip}, err
	}, func(r read) error {
		if r.skip {
			if opts.OnSkip != nil {
				opts.OnSkip(r.src)
			}
			return nil
		}
		return fn(r.a, r.src)
	})
}

// inOrder runs work for 0..n-1 on a few goroutines (default GOMAXPROCS, at most 4) and hands
// the results to deliver in order, from the calling goroutine. A window of pending results
// (ahead; default 4 per worker) lets the workers run ahead of a slow deliver. The first error
// (of work or deliver) stops it.
func inOrder[T any](ctx context.Context, n, workers, ahead int, work func(context.Context, int) (T, error), deliver func(T) error) error {
	if workers <= 0 {
		workers = min(runtime.GOMAXPROCS(0), 4)
	}
	type result struct {
		v    T
		err  error
		done chan struct{}
	}
	type job struct {
		i int
		r *result
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if ahead <= 0 {
		ahead = workers * 4
	}
	queue := make(chan *result, ahead)
	jobs := make(chan job, workers*4)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				j.r.v, j.r.err = work(ctx, j.i)
				close(j.r.done)
			}
		}()
	}
	go func() {
		defer close(jobs)
		defer close(queue)
		for i := 0; i < n; i++ {
			r := &result{done: make(chan struct{})}
			select {
			case queue <- r:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- job{i, r}:
			case <-ctx.Done():
				r.err = ctx.Err()
				close(r.done)
				return
			}
		}
	}()
	var err error
	for r := range queue {
		<-r.done
		if err != nil {
			continue
		}
		if err = r.err; err == nil {
			err = deliver(r.v)
		}
		if err != nil {
			cancel()
		}
	}
	wg.Wait()
	if err == nil {
		err = ctx.Err()
	}
	return err
}

func readEpisodeFile(ctx context.Context, archives *Screenshots, path string, skip func(SourceFile) bool, streamAbove int) (*Annotation, SourceFile, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, SourceFile{}, false, err
	}
	var data []byte
	var err error
	if _, _, zipped := ParseZipRef(path); zipped {
		data, err = archives.read(path)
	} else {
		data, err = limits.ReadFile(path, limits.Annotation)
	}
	if err != nil {
		return nil, SourceFile{}, false, err
	}
	src := SumBytes(path, data)
	if skip != nil && skip(src) {
		return nil, src, true, nil
	}
	a, err := parseAnnotation(path, data, streamAbove)
	if err != nil {
		return nil, src, false, err
	}
	base := path[strings.LastIndexAny(path, `/\!`)+1:]
	if stem := strings.TrimSuffix(base, ".json"); stem != a.EpisodeID {
		a.Warnings = append(a.Warnings, fmt.Sprintf("file name %s does not match episode_id %s", base, a.EpisodeID))
	}
	a.Prepare()
	return a, src, false, nil
}

// SplitFile is an official split file: {"train": [...], "test": [...]}.
type SplitFile struct {
	// Name is the file's stem, e.g. "random_split".
	Name string
	// Parts are the file's lists in file order (normally train then test), with episode ids
	// (a ".json" suffix removed).
	Parts  []SplitPart
	Source SourceFile
}

// SplitPart is one list of a split file.
type SplitPart struct {
	Name string
	IDs  []string
}

// Part returns the ids of a part (nil when absent).
func (s *SplitFile) Part(name string) []string {
	for _, p := range s.Parts {
		if p.Name == name {
			return p.IDs
		}
	}
	return nil
}

// ReadSplitFile reads a split file; errors name the file, line and column.
func ReadSplitFile(path string) (*SplitFile, error) {
	data, err := limits.ReadFile(path, limits.SplitFile)
	if err != nil {
		return nil, err
	}
	return ParseSplitFile(path, data)
}

// ParseSplitFile parses a split file's content.
func ParseSplitFile(path string, data []byte) (*SplitFile, error) {
	sf := &SplitFile{Name: strings.TrimSuffix(filepath.Base(path), ".json"), Source: SumBytes(path, data)}
	t := newTokenReader(path, data)
	if err := t.delim('{', "", "a split file"); err != nil {
		return nil, err
	}
	seen := map[string]string{}
	for {
		key, ok, err := t.key("")
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		var entries []string
		off, err := t.value(&entries, "part "+key)
		if err != nil {
			return nil, err
		}
		part := SplitPart{Name: key, IDs: make([]string, 0, len(entries))}
		for i, e := range entries {
			id := strings.TrimSuffix(strings.TrimSpace(e), ".json")
			if id == "" {
				return nil, t.errorf(off, fmt.Sprintf("part %s entry %d", key, i), "empty episode name")
			}
			if prev, dup := seen[id]; dup {
				return nil, t.errorf(off, fmt.Sprintf("part %s entry %d", key, i), "episode %s is already in part %s", id, prev)
			}
			seen[id] = key
			part.IDs = append(part.IDs, id)
		}
		sf.Parts = append(sf.Parts, part)
	}
	if err := t.end(); err != nil {
		return nil, err
	}
	if len(sf.Parts) == 0 {
		return nil, posError(path, data, 0, "", errors.New(`a split file needs "train" and "test" lists`))
	}
	return sf, nil
}

// Splits reads every split file of the dataset.
func (d *Dataset) Splits() ([]*SplitFile, error) {
	var out []*SplitFile
	for _, p := range d.SplitFiles {
		sf, err := ReadSplitFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, sf)
	}
	return out, nil
}

// WriteSplitJSON writes a split in the official split-file format: {"train": [...], "test":
// [...]}, entries "<episode_id>.json", parts in the given order, indented like the originals.
func WriteSplitJSON(parts []SplitPart) ([]byte, error) {
	var b strings.Builder
	b.WriteString("{")
	for i, p := range parts {
		if i > 0 {
			b.WriteString(",")
		}
		k, _ := json.Marshal(p.Name)
		b.WriteString("\n    " + string(k) + ": [")
		for j, id := range p.IDs {
			if j > 0 {
				b.WriteString(",")
			}
			q, _ := json.Marshal(id + ".json")
			b.WriteString("\n        " + string(q))
		}
		if len(p.IDs) > 0 {
			b.WriteString("\n    ")
		}
		b.WriteString("]")
	}
	b.WriteString("\n}")
	return []byte(b.String()), nil
}

// walkFiles lists regular files under dir (following no symlinked folders).
func walkFiles(dir string, fn func(path string, d fs.DirEntry)) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir
			}
			return err
		}
		if !d.IsDir() {
			fn(path, d)
		}
		return nil
	})
}
