package mobileenv

import (
	"bytes"
	"encoding/binary"
	"image"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentdesk/agentdesk/engine/cputime"
)

// makeLargeResaved builds a resaved file like the recorder's: trajectories of records with
// 320×180 RGB uint8 observations (172,800 bytes each), float64 touch positions, int64
// orientation scalars, view hierarchies, rewards, instructions. records=1800 gives ~311 MB.
func makeLargeResaved(trajs, recs int) *Dict {
	u1, _ := NewDType("u1")
	f8, _ := NewDType("f8")
	i8, _ := NewDType("i8")
	keys := map[string]*Str{}
	key := func(s string) *Str {
		if k, ok := keys[s]; ok {
			return k
		}
		keys[s] = NewStr(s)
		return keys[s]
	}
	vh := NewStr(`<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0"><node index="0" text="Search" bounds="[0,0][1080,1920]"/></hierarchy>`)
	all := &List{}
	seed := byte(1)
	for t := 0; t < trajs; t++ {
		traj := &List{}
		for j := 0; j < recs; j++ {
			obs := make([]byte, 320*180*3)
			for i := range obs {
				obs[i] = seed + byte(i>>7)
			}
			seed++
			d := &Dict{}
			add := func(k string, v any) {
				d.Keys = append(d.Keys, key(k))
				d.Vals = append(d.Vals, v)
			}
			if j == 0 {
				add("task_id", NewStr("demo_task-1"))
				add("task", NewStr("Demo Task"))
				add("command", &List{Items: []any{NewStr("Search an article.")}})
			} else {
				add("action_type", int64(j%4))
				if j%4 == 0 {
					add("touch_position", &NDArray{DType: f8, Shape: []int{2}, Data: make([]byte, 16)})
				}
				add("reward", int64(0))
			}
			add("observation", &NDArray{DType: u1, Shape: []int{320, 180, 3}, Data: obs})
			add("view_hierarchy", vh)
			add("orientation", &Scalar{DType: i8, Raw: make([]byte, 8)})
			traj.Items = append(traj.Items, d)
		}
		all.Items = append(all.Items, traj)
	}
	meta := &Dict{}
	meta.Set("otask_id", NewStr("demo_task-1"))
	meta.Set("otask_name", NewStr("Demo Task"))
	meta.Set("task_definition_id", NewStr("demo_task"))
	root := &Dict{}
	root.Set("meta", meta)
	root.Set("trajectories", all)
	return root
}

var (
	largeOnce sync.Once
	largePath string
	largeSize int64
)

// largeFile writes the ~311 MB benchmark file once per process (into a temporary folder that
// is removed when the process ends via the benchmark's cleanup).
func largeFile(b *testing.B) string {
	largeOnce.Do(func() {
		data, err := Encode(makeLargeResaved(60, 30)) // 1800 records
		if err != nil {
			b.Fatal(err)
		}
		if keep := os.Getenv("MOBILEENV_BENCH_FILE"); keep != "" {
			// keep the file (e.g. to time Python's pickle.load on it)
			if err := os.WriteFile(keep, data, 0o644); err != nil {
				b.Fatal(err)
			}
			largePath, largeSize = keep, int64(len(data))
			return
		}
		dir, err := os.MkdirTemp("", "mobileenv-bench")
		if err != nil {
			b.Fatal(err)
		}
		largePath = filepath.Join(dir, "large.pkl")
		if err := os.WriteFile(largePath, data, 0o644); err != nil {
			b.Fatal(err)
		}
		largeSize = int64(len(data))
	})
	if largePath == "" {
		b.Fatal("no benchmark file")
	}
	return largePath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if largePath != "" && os.Getenv("MOBILEENV_BENCH_FILE") == "" {
		os.RemoveAll(filepath.Dir(largePath))
	}
	os.Exit(code)
}

// BenchmarkOpenLargeResaved opens (reads + decodes + classifies) a ~311 MB resaved file.
func BenchmarkOpenLargeResaved(b *testing.B) {
	path := largeFile(b)
	b.SetBytes(largeSize)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if len(f.Trajectories) != 60 {
			b.Fatal("wrong file")
		}
	}
}

// BenchmarkEncodeLargeResaved writes the same structure (in memory).
func BenchmarkEncodeLargeResaved(b *testing.B) {
	root := makeLargeResaved(60, 30)
	data, _ := Encode(root)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Encode(root); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderFrame renders one annotated frame (TEXT with its mark, description of four
// lines: title, action, instruction, reward).
func BenchmarkRenderFrame(b *testing.B) {
	f, err := Open(filepath.Join(areaDir(b), "pickles/inputs/synthetic_visual.pkl"))
	if err != nil {
		b.Fatal(err)
	}
	rec, _ := f.Record(0, 2)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := RenderFrame("demo_task", rec, FrameOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVisualizeExport measures the frame export rate (render + JPEG + file) over the
// visual test file; frames/s = 5 / (ns/op · 1e-9).
func BenchmarkVisualizeExport(b *testing.B) {
	pkl := filepath.Join(areaDir(b), "pickles/inputs/synthetic_visual.pkl")
	dir := b.TempDir()
	b.ResetTimer()
	cpu := cputime.Process()
	for i := 0; i < b.N; i++ {
		out := filepath.Join(dir, "run", string(rune('a'+i%26))+filepath.Base(dir)+itoa(i))
		if _, err := Visualize(pkl, out, VisualizeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	reportFrameRates(b, 5*b.N, cputime.Process()-cpu)
}

// reportFrameRates reports frames per wall-clock second and per CPU second (the process's user
// and system time; comparable with the Pillow reference's on a loaded machine).
func reportFrameRates(b *testing.B, frames int, cpu time.Duration) {
	b.Logf("JPEG encoder: %s", jpegEncoder)
	b.ReportMetric(float64(frames)/b.Elapsed().Seconds(), "frames/s")
	if cpu > 0 {
		b.ReportMetric(float64(frames)/cpu.Seconds(), "frames/CPU-s")
	}
}

// largeTrajectory is the one trajectory of largeFrames(b, n), read back.
func largeTrajectory(b *testing.B, n int) *List {
	p, err := ReadFirst(largeFrames(b, n))
	if err != nil {
		b.Fatal(err)
	}
	trajs, _ := p.Value.(*Dict).Get("trajectories")
	return trajs.(*List).Items[0].(*List)
}

// largeFrames writes a resaved file of n steps with 1080×2400 screens (TOUCH, LIFT and TEXT
// with a reward and an instruction in turn), the frames of
// testdata/bench/pillow_reference.py --make-large.
func largeFrames(b *testing.B, n int) string {
	u1, _ := NewDType("u1")
	f8, _ := NewDType("f8")
	i8, _ := NewDType("i8")
	const w, h = 1080, 2400
	traj := &List{}
	for j := 0; j <= n; j++ {
		obs := make([]byte, w*h*3)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				o := (y*w + x) * 3
				obs[o], obs[o+1], obs[o+2] = byte(x*255/w+j*7), byte(y*255/h+j*13), byte(x+y+j*29)
			}
		}
		d := &Dict{}
		if j == 0 {
			d.Set("task_id", NewStr("demo_task-1"))
			d.Set("task", NewStr("Demo Task"))
			d.Set("command", &List{Items: []any{NewStr("Search an article.")}})
		} else {
			kind := j % 3
			d.Set("action_type", []int64{ActionTouch, ActionLift, ActionText}[kind])
			switch kind {
			case 0:
				pos := make([]byte, 16)
				binary.LittleEndian.PutUint64(pos, math.Float64bits(0.25+0.01*float64(j%50)))
				binary.LittleEndian.PutUint64(pos[8:], math.Float64bits(0.5))
				d.Set("touch_position", &NDArray{DType: f8, Shape: []int{2}, Data: pos})
				d.Set("reward", int64(0))
			case 1:
				d.Set("reward", int64(0))
			case 2:
				d.Set("input_token", NewStr("lobster"))
				d.Set("reward", 1.0)
				d.Set("instruction", &List{Items: []any{NewStr("Access the article"), NewStr(`"How to Bake"`)}})
			}
		}
		d.Set("observation", &NDArray{DType: u1, Shape: []int{h, w, 3}, Data: obs})
		d.Set("view_hierarchy", NewStr("<hierarchy/>"))
		d.Set("orientation", &Scalar{DType: i8, Raw: make([]byte, 8)})
		traj.Items = append(traj.Items, d)
	}
	meta := &Dict{}
	meta.Set("otask_id", NewStr("demo_task-1"))
	meta.Set("otask_name", NewStr("Demo Task"))
	meta.Set("task_definition_id", NewStr("demo_task"))
	root := &Dict{}
	root.Set("meta", meta)
	root.Set("trajectories", &List{Items: []any{traj}})
	data, err := Encode(root)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "large-frames.pkl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkVisualizeExport1080x2400 exports 12 phone-sized frames (read the file, draw, JPEG,
// write) on every core and on one.
func BenchmarkVisualizeExport1080x2400(b *testing.B) {
	const n = 12
	pkl := largeFrames(b, n)
	for _, workers := range []int{0, 1} {
		name := "cores"
		if workers == 1 {
			name = "one-core"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			i := 0
			cpu := cputime.Process()
			for b.Loop() {
				if _, err := Visualize(pkl, filepath.Join(dir, itoa(i)), VisualizeOptions{Workers: workers}); err != nil {
					b.Fatal(err)
				}
				i++
			}
			reportFrameRates(b, n*b.N, cputime.Process()-cpu)
		})
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	s := ""
	for i > 0 {
		s = string(rune('0'+i%10)) + s
		i /= 10
	}
	return s
}

// BenchmarkExportFrames1080x2400 times what the Pillow reference script times: drawing, JPEG
// and file writes of 30 phone-sized frames, the file read and decoded once beforehand.
func BenchmarkExportFrames1080x2400(b *testing.B) {
	const n = 30
	traj := largeTrajectory(b, n)
	for _, workers := range []int{0, 1} {
		name := "cores"
		if workers == 1 {
			name = "one-core"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			i := 0
			cpu := cputime.Process()
			for b.Loop() {
				folder := filepath.Join(dir, itoa(i))
				if err := os.Mkdir(folder, 0o755); err != nil {
					b.Fatal(err)
				}
				x := newFrameExport("demo_task", io.Discard, VisualizeOptions{Workers: workers})
				x.add(0, folder, traj)
				if _, err := x.finish(); err != nil {
					b.Fatal(err)
				}
				i++
			}
			reportFrameRates(b, n*b.N, cputime.Process()-cpu)
		})
	}
}

// BenchmarkEncodeFrames1080x2400 is the encode-only floor of BenchmarkExportFrames1080x2400:
// the same 30 frames, drawn beforehand, encoded to JPEG in memory one after another on one
// goroutine, in frames per CPU second (the export's rate per CPU second is compared with it).
func BenchmarkEncodeFrames1080x2400(b *testing.B) {
	const n = 30
	traj := largeTrajectory(b, n)
	var imgs []*image.RGBA
	for j := 1; j < len(traj.Items); j++ {
		img, _, err := RenderFrame("demo_task", traj.Items[j].(*Dict), FrameOptions{})
		if err != nil {
			b.Fatal(err)
		}
		imgs = append(imgs, img)
	}
	var buf bytes.Buffer
	cpu := cputime.Process()
	for b.Loop() {
		for _, img := range imgs {
			buf.Reset()
			if err := encodeJPEG(&buf, img, 75); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportFrameRates(b, len(imgs)*b.N, cputime.Process()-cpu)
}

// BenchmarkEncodeBands1080x2400 is the export's own encoding of the same 30 frames (the
// screen rows straight from the observation, the marked band and the description drawn
// beforehand), in memory, for comparison with BenchmarkEncodeFrames1080x2400.
func BenchmarkEncodeBands1080x2400(b *testing.B) {
	const n = 30
	traj := largeTrajectory(b, n)
	var frames []*frameBands
	for j := 1; j < len(traj.Items); j++ {
		f, ok := renderFrameBands("demo_task", traj.Items[j].(*Dict), FrameOptions{}, nil, nil)
		if !ok {
			b.Fatal("no bands")
		}
		frames = append(frames, f)
	}
	var buf bytes.Buffer
	cpu := cputime.Process()
	for b.Loop() {
		for _, f := range frames {
			buf.Reset()
			if err := encodeFrameBands(&buf, f, 75); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportFrameRates(b, len(frames)*b.N, cputime.Process()-cpu)
}

// BenchmarkEncodeJPEG1080x2800 is the JPEG encoding of one phone-sized frame alone (the
// export's floor: Pillow pays the same libjpeg-turbo call).
func BenchmarkEncodeJPEG1080x2800(b *testing.B) {
	p, err := ReadFirst(largeFrames(b, 1))
	if err != nil {
		b.Fatal(err)
	}
	trajs, _ := p.Value.(*Dict).Get("trajectories")
	img, _, err := RenderFrame("demo_task", trajs.(*List).Items[0].(*List).Items[1].(*Dict), FrameOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("JPEG encoder: %s", jpegEncoder)
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := encodeJPEG(&buf, img, 75); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeJPEG180x720 is the same for a conformance-sized frame.
func BenchmarkEncodeJPEG180x720(b *testing.B) {
	f, err := Open(filepath.Join(areaDir(b), "pickles/inputs/synthetic_visual.pkl"))
	if err != nil {
		b.Fatal(err)
	}
	rec, _ := f.Record(0, 2)
	img, _, err := RenderFrame("demo_task", rec, FrameOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := encodeJPEG(&buf, img, 75); err != nil {
			b.Fatal(err)
		}
	}
}
