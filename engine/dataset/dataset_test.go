package dataset

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestImageSizeReadsPNGAndJPEGHeaders(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 37, 21))
	var p, j bytes.Buffer
	png.Encode(&p, img)
	jpeg.Encode(&j, img, nil)
	for _, c := range []struct {
		b   []byte
		ext string
	}{{p.Bytes(), "png"}, {j.Bytes(), "jpg"}} {
		if ImageExt(c.b) != c.ext {
			t.Fatalf("ext %q, want %q", ImageExt(c.b), c.ext)
		}
		if w, h, ok := ImageSize(c.b); !ok || w != 37 || h != 21 {
			t.Fatalf("%s: %dx%d %v", c.ext, w, h, ok)
		}
	}
	if _, _, ok := ImageSize([]byte("GIF89a")); ok {
		t.Fatal("a GIF read as PNG or JPEG")
	}
}

// Shards are named as the Hub names them, the card names every config's splits and types the
// image column as the datasets Image feature, and the rows read back in order.
func TestExporterShardsNamesAndCard(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "ds")
	x, err := NewExporter(dest, Options{ShardBytes: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		split := "train"
		if i%3 == 0 {
			split = "test"
		}
		id := strings.Repeat("0", 3) + string(rune('a'+i%26))
		if err := x.Episode(split, &EpisodeRow{EpisodeID: id, Source: "gridworld", Task: strings.Repeat("task ", 20), NumSteps: 1, Facets: "{}", Metadata: "{}"}); err != nil {
			t.Fatal(err)
		}
		if err := x.Step(split, &StepRow{EpisodeID: id, Source: "gridworld", Step: int64(i), Observation: []byte("\x89PNG\r\n\x1a\n" + strings.Repeat("x", 100))}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(dest); err == nil {
		t.Fatal("the destination exists before Commit")
	}
	sum, err := x.Commit([]string{ConfigEpisodes, ConfigSteps, ConfigAnnotations})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows[ConfigEpisodes] != 300 || sum.Rows[ConfigSteps] != 300 || sum.Rows[ConfigAnnotations] != 0 {
		t.Fatalf("rows %v", sum.Rows)
	}
	steps := sum.Files[ConfigSteps]
	if len(steps) < 4 {
		t.Fatalf("steps in %v: a 4 KB shard size should cut them", steps)
	}
	for _, f := range steps {
		base := filepath.Base(f)
		if !(strings.HasPrefix(base, "test-") || strings.HasPrefix(base, "train-")) || !strings.Contains(base, "-of-") {
			t.Fatalf("file %s", f)
		}
	}
	card, _ := os.ReadFile(filepath.Join(dest, "README.md"))
	for _, want := range []string{"- config_name: steps\n  data_files:\n  - split: test\n    path: \"steps/test-*.parquet\"\n  - split: train",
		"  - name: image\n    dtype: image\n", "  - name: apps\n    sequence: string\n", "- config_name: annotations",
		"  - name: test\n    num_bytes: ", "    num_examples: 100\n  - name: train\n", "    num_examples: 200\n"} {
		if !strings.Contains(string(card), want) {
			t.Fatalf("card lacks %q:\n%s", want, card)
		}
	}
	var ids []int64
	err = ReadSteps(context.Background(), dest, func(file string, row int64, r *StepRow) error {
		if r.Image == nil || ImageExt(r.Image.Bytes) != "png" || !strings.HasSuffix(r.Image.Path, ".png") {
			t.Fatalf("%s row %d: image %+v", file, row, r.Image)
		}
		ids = append(ids, r.Step)
		return nil
	})
	if err != nil || len(ids) != 300 || ids[0] != 0 || ids[1] != 3 {
		t.Fatalf("read back %d steps (%v), first %v", len(ids), err, ids[:2])
	}
	// an aborted export leaves an earlier one as it was
	y, err := NewExporter(dest, Options{})
	if err != nil {
		t.Fatal(err)
	}
	y.Episode("train", &EpisodeRow{EpisodeID: "z", Source: "x"})
	y.Abort()
	if n, err := CountRows(dest, ConfigEpisodes); err != nil || n != 300 {
		t.Fatalf("after an aborted export: %d episodes (%v)", n, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dest))
	if len(entries) != 1 {
		t.Fatalf("left %d entries beside the dataset", len(entries))
	}
}
