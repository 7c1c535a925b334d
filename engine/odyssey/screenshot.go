package odyssey

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/agentdesk/agentdesk/engine/limits"
)

// Screenshot references (episode.Step.ObservationRef of GUI Odyssey steps) take two forms:
//
//	/abs/path/to/screenshots/data_3/0141354101910412_0.png    a file
//	zip:/abs/path/to/screenshots.zip!data/0141354101910412_0.png    a member of a zip archive
//
// A zip archive split into numbered parts (screenshots.zip.001, .002, ...; joined by
// concatenation) is named by its first part. OpenScreenshot reads either form.

// ZipRefPrefix starts a reference to a member of a zip archive.
const ZipRefPrefix = "zip:"

// ZipRef makes the reference to a member of a zip archive.
func ZipRef(archive, member string) string { return ZipRefPrefix + archive + "!" + member }

// ParseZipRef splits a zip reference into the archive and the member.
func ParseZipRef(ref string) (archive, member string, ok bool) {
	if !strings.HasPrefix(ref, ZipRefPrefix) {
		return "", "", false
	}
	rest := ref[len(ZipRefPrefix):]
	i := strings.LastIndexByte(rest, '!')
	if i < 0 {
		return "", "", false
	}
	return rest[:i], rest[i+1:], true
}

// ScreenshotIndex finds screenshots by base name ("<episode_id>_<step>.png") wherever they
// are under a dataset: in folders at any depth (v1's data_0 … data_N) or inside zip archives.
type ScreenshotIndex struct {
	refs map[string]string
	// Archives are the zip archives indexed; Duplicates counts base names found twice (the
	// first one found is kept).
	Archives   []string
	Duplicates int
}

// Len is the number of screenshots indexed.
func (x *ScreenshotIndex) Len() int { return len(x.refs) }

// Ref returns the reference of a screenshot by its base name, or "" when it is missing.
func (x *ScreenshotIndex) Ref(name string) string {
	if x == nil {
		return ""
	}
	return x.refs[path.Base(filepath.ToSlash(name))]
}

func (x *ScreenshotIndex) add(name, ref string) {
	if _, dup := x.refs[name]; dup {
		x.Duplicates++
		return
	}
	x.refs[name] = ref
}

var partSuffix = regexp.MustCompile(`\.zip\.(\d+)$`)

func isImage(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".png", ".jpg", ".jpeg", ".webp":
		return true
	}
	return false
}

// IndexScreenshots indexes root/screenshots (folders at any depth, and zip archives in it)
// and zip archives directly in root.
func IndexScreenshots(root string) (*ScreenshotIndex, error) {
	x := &ScreenshotIndex{refs: map[string]string{}}
	var archives []string
	shots := filepath.Join(root, "screenshots")
	if resolved, err := filepath.EvalSymlinks(shots); err == nil {
		shots = resolved // a linked screenshots folder is walked too
	}
	err := walkFiles(shots, func(p string, d fs.DirEntry) {
		name := d.Name()
		switch {
		case isImage(name):
			x.add(name, p)
		case isArchive(p):
			archives = append(archives, p)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("index screenshots: %w", err)
	}
	if entries, err := os.ReadDir(root); err == nil {
		for _, e := range entries {
			if !e.IsDir() && isArchive(filepath.Join(root, e.Name())) {
				archives = append(archives, filepath.Join(root, e.Name()))
			}
		}
	}
	sort.Strings(archives)
	for _, a := range archives {
		if err := x.indexArchive(a); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// isArchive accepts p.zip and the first part of a split archive (p.zip.000, or p.zip.001 when
// there is no .000).
func isArchive(p string) bool {
	if strings.HasSuffix(strings.ToLower(p), ".zip") {
		return true
	}
	m := partSuffix.FindStringSubmatch(p)
	if m == nil {
		return false
	}
	n, _ := strconv.Atoi(m[1])
	return n == 0 || n == 1 && !hasPart(p, 0)
}

// hasPart is true when the split archive of name also has a part numbered n (a part .000
// makes .000 the first part instead of .001).
func hasPart(name string, n int) bool {
	m := partSuffix.FindStringSubmatchIndex(name)
	if m == nil {
		return false
	}
	width := m[3] - m[2]
	_, err := os.Stat(name[:m[2]] + fmt.Sprintf("%0*d", width, n))
	return err == nil
}

func (x *ScreenshotIndex) indexArchive(p string) error {
	r, err := openArchive(p)
	if err != nil {
		return fmt.Errorf("screenshot archive %s: %w", p, err)
	}
	defer r.Close()
	x.Archives = append(x.Archives, p)
	for i := range r.index.Len() {
		name := r.index.name(i)
		if bytes.HasSuffix(name, []byte("/")) || !isImage(string(name)) {
			continue
		}
		member := string(name)
		x.add(path.Base(member), ZipRef(p, member))
	}
	return nil
}

// archive is an open zip archive (possibly split into parts) with its compact member index.
type archive struct {
	ra    io.ReaderAt
	files []*os.File
	index *zipIndex
}

func (a *archive) Close() error {
	var first error
	for _, f := range a.files {
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// openArchive opens a zip file, or all parts of a split one named by its first part.
func openArchive(p string) (*archive, error) {
	paths := []string{p}
	if m := partSuffix.FindStringSubmatchIndex(p); m != nil {
		width := m[3] - m[2]
		first, _ := strconv.Atoi(p[m[2]:m[3]])
		for n := first + 1; ; n++ {
			next := p[:m[2]] + fmt.Sprintf("%0*d", width, n)
			if _, err := os.Stat(next); err != nil {
				break
			}
			paths = append(paths, next)
		}
	}
	a := &archive{}
	var readers []sizedReaderAt
	var total int64
	for _, q := range paths {
		if _, err := limits.Regular(q); err != nil {
			a.Close()
			return nil, err
		}
		f, err := os.Open(q)
		if err != nil {
			a.Close()
			return nil, err
		}
		a.files = append(a.files, f)
		st, err := f.Stat()
		if err != nil {
			a.Close()
			return nil, err
		}
		readers = append(readers, sizedReaderAt{f, st.Size()})
		total += st.Size()
	}
	var ra io.ReaderAt = readers[0].r
	if len(readers) > 1 {
		ra = multiReaderAt(readers)
	}
	index, err := readZipIndex(ra, total)
	if err != nil {
		a.Close()
		return nil, err
	}
	a.ra, a.index = ra, index
	return a, nil
}

type sizedReaderAt struct {
	r    io.ReaderAt
	size int64
}

// multiReaderAt reads consecutive parts as one.
type multiReaderAt []sizedReaderAt

func (m multiReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for _, part := range m {
		if off >= part.size {
			off -= part.size
			continue
		}
		k, err := part.r.ReadAt(p[n:min(len(p), n+int(part.size-off))], off)
		n += k
		if err != nil && !errors.Is(err, io.EOF) {
			return n, err
		}
		off = 0
		if n == len(p) {
			return n, nil
		}
	}
	return n, io.EOF
}

// Screenshots opens screenshot references, keeping a few zip archives open so that stepping
// through an episode does not re-read an archive's central directory for every frame. It is
// safe for concurrent use.
type Screenshots struct {
	mu    sync.Mutex
	open  map[string]*archive
	order []string
	max   int
}

// NewScreenshots makes a reader that keeps up to maxOpen archives open.
func NewScreenshots(maxOpen int) *Screenshots {
	return &Screenshots{open: map[string]*archive{}, max: max(1, maxOpen)}
}

var defaultScreenshots = NewScreenshots(4)

// ReadScreenshot reads a whole screenshot (a file path or a zip:ARCHIVE!MEMBER reference) with a
// package-wide reader; see Screenshots.Open.
func ReadScreenshot(ref string) ([]byte, error) { return defaultScreenshots.read(ref) }

// read reads a whole screenshot (or other member) reference.
func (s *Screenshots) read(ref string) ([]byte, error) {
	if ref == "" {
		return nil, fmt.Errorf("no screenshot: %w", fs.ErrNotExist)
	}
	arch, member, ok := ParseZipRef(ref)
	if !ok {
		return limits.ReadFile(ref, limits.Screenshot)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a, err := s.archive(arch)
	if err != nil {
		return nil, err
	}
	data, err := a.index.readMember(a.ra, member)
	if err != nil {
		return nil, fmt.Errorf("%s!%s: %w", arch, member, err)
	}
	return data, nil
}

// Open opens a screenshot reference. A missing file or member is an error wrapping
// fs.ErrNotExist.
func (s *Screenshots) Open(ref string) (io.ReadCloser, error) {
	if _, _, ok := ParseZipRef(ref); !ok && ref != "" {
		f, _, err := limits.Open(ref, limits.Screenshot)
		return f, err
	}
	// A member is read whole: the archive may be closed by a later Open evicting it.
	data, err := s.read(ref)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

func (s *Screenshots) archive(p string) (*archive, error) {
	if a := s.open[p]; a != nil {
		return a, nil
	}
	a, err := openArchive(p)
	if err != nil {
		return nil, err
	}
	if len(s.order) >= s.max {
		old := s.order[0]
		s.order = s.order[1:]
		s.open[old].Close()
		delete(s.open, old)
	}
	s.open[p] = a
	s.order = append(s.order, p)
	return a, nil
}

// Close closes the archives kept open.
func (s *Screenshots) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.open {
		a.Close()
	}
	s.open, s.order = map[string]*archive{}, nil
	return nil
}
