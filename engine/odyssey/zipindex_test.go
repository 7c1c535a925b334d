package odyssey

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// makeZip writes n members named like GUI Odyssey screenshots, every third one stored rather
// than deflated, each holding its own name repeated.
func makeZip(t testing.TB, n int, prefix []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	buf.Write(prefix)
	zw := zip.NewWriter(&buf)
	zw.SetOffset(int64(len(prefix)))
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("shots/data_%d/%016d_%d.png", i%3, 141354101910412+i/16, i%16)
		method := zip.Deflate
		if i%3 == 0 {
			method = zip.Store
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(bytes.Repeat([]byte(name), 1+i%4))
	}
	zw.Create("shots/empty/")
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkAgainstArchiveZip compares the compact index with archive/zip: same members, same bytes.
func checkAgainstArchiveZip(t *testing.T, data []byte) {
	t.Helper()
	r := bytes.NewReader(data)
	zr, err := zip.NewReader(r, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	x, err := readZipIndex(r, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if x.Len() != len(zr.File) {
		t.Fatalf("%d members, archive/zip %d", x.Len(), len(zr.File))
	}
	for i, f := range zr.File {
		if i%97 != 0 && i != len(zr.File)-1 {
			continue // a sample is enough for large archives
		}
		got, err := x.readMember(r, f.Name)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		rc, _ := f.Open()
		want, _ := io.ReadAll(rc)
		rc.Close()
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: %q, archive/zip %q", f.Name, got, want)
		}
	}
	if _, err := x.readMember(r, "shots/nothing.png"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing member: %v", err)
	}
}

func TestZipIndexAgreesWithArchiveZip(t *testing.T) {
	skipUnderRace(t, "70,000-member archives read in one goroutine")
	t.Run("small", func(t *testing.T) { checkAgainstArchiveZip(t, makeZip(t, 50, nil)) })
	t.Run("prefixed", func(t *testing.T) { checkAgainstArchiveZip(t, makeZip(t, 20, []byte("#!/bin/sh\nexit 0\n"))) })
	// More than 65,535 members: the zip64 end records (as a full-size screenshot archive).
	t.Run("zip64", func(t *testing.T) { checkAgainstArchiveZip(t, makeZip(t, 70000, nil)) })
}

func TestZipIndexRefusesDamage(t *testing.T) {
	data := makeZip(t, 10, nil)
	r := bytes.NewReader(data)
	x, err := readZipIndex(r, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	name := string(x.name(1))
	i := bytes.Index(data, bytes.Repeat([]byte(name), 2)) // a stored member's data
	if i < 0 {
		name = string(x.name(0))
		i = bytes.Index(data, []byte(name+name))
	}
	bad := bytes.Clone(data)
	bad[i+len(name)+len(name)/2] ^= 0xff
	if _, err := x.readMember(bytes.NewReader(bad), name); err == nil {
		t.Fatal("a damaged member reads without error")
	}
	for _, cut := range []int{0, 10, len(data) / 2, len(data) - 30} {
		if _, err := readZipIndex(bytes.NewReader(data[:cut]), int64(cut)); err == nil {
			t.Fatalf("archive cut at %d opens", cut)
		}
	}
}

// The screenshot reader holds an open archive's member index compactly: well under 100 bytes
// a member (archive/zip's File list and a map by name took about 300).
func TestScreenshotsIndexIsCompact(t *testing.T) {
	skipUnderRace(t, "70,000-member archives read in one goroutine")
	const n = 40000
	p := filepath.Join(t.TempDir(), "shots.zip")
	func() { // the archive's bytes are garbage once written
		if err := os.WriteFile(p, makeZip(t, n, nil), 0o644); err != nil {
			t.Fatal(err)
		}
	}()
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	s := NewScreenshots(1)
	before := heap()
	member := fmt.Sprintf("shots/data_%d/%016d_%d.png", 5%3, 141354101910412+5/16, 5)
	if _, err := s.read(ZipRef(p, member)); err != nil {
		t.Fatal(err)
	}
	held := int64(heap()) - int64(before)
	runtime.KeepAlive(s)
	t.Logf("%d bytes a member", held/n)
	if per := held / n; per > 100 {
		t.Fatalf("an open archive holds %d bytes a member (%d in all)", per, held)
	}
	s.Close()
}

// FuzzZipIndex: any bytes either open and read without panicking, or give an error.
func FuzzZipIndex(f *testing.F) {
	f.Add(makeZip(f, 3, nil))
	f.Add(makeZip(f, 2, []byte("stub")))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		x, err := readZipIndex(r, int64(len(data)))
		if err != nil {
			return
		}
		for i := range min(x.Len(), 8) {
			x.read(r, i)
		}
	})
}
