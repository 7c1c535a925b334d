package mobileenv

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The exports' progress and cancellation (VisualizeContext, Video's ctx, Resave's Progress):
// what the Demonstrations workspace's export dialogs drive.

const exportInputs = "../../testdata/conformance/mobileenv/pickles/inputs"

// repeatedTrajectories is synthetic_visual.pkl with its trajectories repeated to n of them: enough
// frames for a cancellation to land in the middle.
func repeatedTrajectories(t *testing.T, n int) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(exportInputs, "synthetic_visual.pkl"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse("synthetic_visual.pkl", data)
	if err != nil {
		t.Fatal(err)
	}
	tv, _ := f.Root.(*Dict).Get("trajectories")
	l := tv.(*List)
	orig := append([]any(nil), l.Items...)
	for len(l.Items) < n {
		l.Items = append(l.Items, orig[len(l.Items)%len(orig)])
	}
	out, err := Encode(f.Root)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tree lists the files under dir with their content, by relative path.
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		if e.IsDir() {
			out[rel+"/"] = nil
			return nil
		}
		b, _ := os.ReadFile(p)
		out[rel] = b
		return nil
	})
	return out
}

func sameTree(t *testing.T, got, want string) {
	t.Helper()
	g, w := tree(t, got), tree(t, want)
	if len(g) != len(w) {
		t.Fatalf("%d entries, want %d", len(g), len(w))
	}
	for k, b := range w {
		if gb, ok := g[k]; !ok || !bytes.Equal(gb, b) {
			t.Fatalf("%s differs (present %v)", k, ok)
		}
	}
}

// framesExpected is the frame count a folder named <tid>:<i>%<n>#<L> must hold.
func framesExpected(t *testing.T, name string) int {
	t.Helper()
	i := strings.LastIndex(name, "#")
	l, err := strconv.Atoi(name[i+1:])
	if i < 0 || err != nil {
		t.Fatalf("folder name %q", name)
	}
	return max(l-1, 0)
}

func TestVisualizeDataAndProgress(t *testing.T) {
	data := repeatedTrajectories(t, 6)
	dir := t.TempDir()
	pkl := filepath.Join(dir, "many.pkl")
	os.WriteFile(pkl, data, 0o644)

	want := filepath.Join(dir, "from-file")
	if _, err := Visualize(pkl, want, VisualizeOptions{}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var calls [][2]int
	got := filepath.Join(dir, "from-data")
	folders, err := VisualizeContext(context.Background(), "not-read.pkl", got, VisualizeOptions{Data: data, Progress: func(done, total int) {
		mu.Lock()
		calls = append(calls, [2]int{done, total})
		mu.Unlock()
	}})
	if err != nil || len(folders) != 6 {
		t.Fatalf("%d folders, %v", len(folders), err)
	}
	sameTree(t, got, want)
	total := 0
	for _, f := range folders {
		total += framesExpected(t, filepath.Base(f))
	}
	if len(calls) != total || calls[len(calls)-1] != [2]int{total, total} {
		t.Fatalf("progress %v, want 1..%d of %d", calls, total, total)
	}
	for i, c := range calls {
		if c[0] != i+1 {
			t.Fatalf("progress call %d: %v", i, c)
		}
	}
}

// TestVisualizeContextCancel: cancelled after a few frames, the export stops, returns the
// context's error and leaves only folders holding every frame of their trajectory.
func TestVisualizeContextCancel(t *testing.T) {
	data := repeatedTrajectories(t, 40)
	out := filepath.Join(t.TempDir(), "frames")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	total := 0
	folders, err := VisualizeContext(ctx, "many.pkl", out, VisualizeOptions{Data: data, Workers: 2, Progress: func(done, n int) {
		total = n
		if done == 3 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != len(folders) {
		t.Fatalf("%d folders on disk, %d returned", len(entries), len(folders))
	}
	written := 0
	for _, e := range entries {
		frames, _ := os.ReadDir(filepath.Join(out, e.Name()))
		if len(frames) != framesExpected(t, e.Name()) {
			t.Fatalf("%s holds %d frames, want %d: a partial folder was left", e.Name(), len(frames), framesExpected(t, e.Name()))
		}
		written += len(frames)
	}
	if written >= total/2 {
		t.Fatalf("%d of %d frames left: the export did not stop promptly", written, total)
	}
}

// TestVideoCancelLeavesCompleteVideos: a cancel between videos keeps the finished ones, and a
// cancel before the start writes nothing.
func TestVideoCancelLeavesCompleteVideos(t *testing.T) {
	data := repeatedTrajectories(t, 6)
	out := filepath.Join(t.TempDir(), "videos")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	files, err := Video(ctx, "many.pkl", out, VideoOptions{VisualizeOptions: VisualizeOptions{Data: data}, Format: "gif", VideoProgress: func(done, total int) {
		if done == 2 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || len(files) != 2 {
		t.Fatalf("%v, %v", files, err)
	}
	gifs, _ := filepath.Glob(filepath.Join(out, "*.gif"))
	sort.Strings(gifs)
	if len(gifs) != 2 || gifs[0] != files[0] || gifs[1] != files[1] {
		t.Fatalf("on disk %v, returned %v", gifs, files)
	}

	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	out2 := filepath.Join(t.TempDir(), "none")
	if files, err := Video(ctx2, "many.pkl", out2, VideoOptions{VisualizeOptions: VisualizeOptions{Data: data}, Format: "gif"}); !errors.Is(err, context.Canceled) || len(files) != 0 {
		t.Fatalf("cancelled before the start: %v, %v", files, err)
	}
	if entries, _ := os.ReadDir(out2); len(entries) != 0 {
		t.Fatalf("cancelled before the start, left %d entries", len(entries))
	}
}

func TestResaveProgress(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "resaved")
	os.MkdirAll(out, 0o755)
	var calls [][2]int
	_, err := Resave(context.Background(), filepath.Join(exportInputs, "web-dumps", "anno.%d.pkl")+":0:4", out, filepath.Join(exportInputs, "textprotos"),
		ResaveOptions{Progress: func(done, total int) { calls = append(calls, [2]int{done, total}) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 6 || calls[0] != [2]int{0, 5} || calls[5] != [2]int{5, 5} {
		t.Fatalf("progress %v", calls)
	}
}
