package fonts

import (
	"bytes"
	"testing"
	"time"

	"fyne.io/fyne/v2/theme"
	gofont "github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
)

// TestSystemFallback: the system's CJK font (make test installs one; the .deb depends on one)
// is found and turned into a single font fyne can read, which has the CJK characters, not the
// Latin ones fyne's font has, keeps the space, and has fyne's font's line metrics.
func TestSystemFallback(t *testing.T) {
	start := time.Now()
	fb, err := Find(Families("en-US"))
	if err != nil || fb == nil {
		t.Fatalf("no CJK font found (install fonts-noto-cjk or fonts-wqy-microhei): %v", err)
	}
	t.Logf("%s prepared in %v (regular %d bytes, bold %d bytes)", fb.Family, time.Since(start), len(fb.Regular.Content()), len(fb.Bold.Content()))
	face, err := gofont.ParseTTF(bytes.NewReader(fb.Regular.Content()))
	if err != nil {
		t.Fatalf("fyne cannot read the prepared font: %v", err)
	}
	for _, r := range "中文日本語한국어、。" {
		if _, ok := face.NominalGlyph(r); !ok {
			t.Errorf("%q missing from the prepared font", r)
		}
	}
	for _, r := range "Aa1,é" {
		if _, ok := face.NominalGlyph(r); ok {
			t.Errorf("%q kept although fyne's font has it", r)
		}
	}
	if _, ok := face.NominalGlyph(' '); !ok {
		t.Error("the space was dropped: a space after CJK text would be a missing glyph")
	}
	base, err := gofont.ParseTTF(bytes.NewReader(theme.DefaultTextFont().Content()))
	if err != nil {
		t.Fatal(err)
	}
	be, _ := base.FontHExtents()
	fe, _ := face.FontHExtents()
	bu, fu := float32(base.Upem()), float32(face.Upem())
	for _, pair := range [][2]float32{{be.Ascender / bu, fe.Ascender / fu}, {be.Descender / bu, fe.Descender / fu}, {be.LineGap / bu, fe.LineGap / fu}} {
		if d := pair[0] - pair[1]; d > 0.002 || d < -0.002 {
			t.Errorf("line metrics differ: fyne's %v per em, prepared %v per em", pair[0], pair[1])
		}
	}
}

// TestWithoutDropsWhatBaseHas: a font prepared against itself keeps only spaces and other
// characters the shaper attaches to their neighbour.
func TestWithoutDropsWhatBaseHas(t *testing.T) {
	ld, err := ot.NewLoader(bytes.NewReader(theme.DefaultTextBoldFont().Content()))
	if err != nil {
		t.Fatal(err)
	}
	base, err := ot.NewLoader(bytes.NewReader(theme.DefaultTextFont().Content()))
	if err != nil {
		t.Fatal(err)
	}
	data, n, err := Without(ld, base)
	if err != nil {
		t.Fatal(err)
	}
	face, err := gofont.ParseTTF(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := face.NominalGlyph('A'); ok {
		t.Error("A kept")
	}
	if _, ok := face.NominalGlyph(' '); !ok {
		t.Error("space dropped")
	}
	if n == 0 || n > 40 {
		t.Errorf("kept %d characters, want the spaces and controls only", n)
	}
}

func TestFamiliesPutTheRegionFirst(t *testing.T) {
	for loc, want := range map[string]string{"ja-JP": "Noto Sans CJK JP", "ko": "Noto Sans CJK KR", "zh_TW": "Noto Sans CJK TC", "en": "Noto Sans CJK SC", "zh-CN": "Noto Sans CJK SC"} {
		if got := Families(loc)[0]; got != want {
			t.Errorf("%s: first family %q, want %q", loc, got, want)
		}
	}
}

// BenchmarkFind is the app's start-up cost of CJK text: finding the system's CJK font and
// preparing its faces (done once per run, when text is first drawn).
func BenchmarkFind(b *testing.B) {
	for b.Loop() {
		if fb, err := Find(Families("en")); err != nil || fb == nil {
			b.Fatalf("no CJK font: %v", err)
		}
	}
}

// TestFacesAreLetGoAndMadeAgain: a prepared face's bytes are let go once fyne has read them and
// made again, the same, when asked for; a face whose file went away gives fyne's own font.
func TestFacesAreLetGoAndMadeAgain(t *testing.T) {
	old := faceKeep
	faceKeep = 50 * time.Millisecond
	defer func() { faceKeep = old }()
	fb, err := Find(Families("en-US"))
	if err != nil || fb == nil {
		t.Fatalf("no CJK font found (install fonts-noto-cjk or fonts-wqy-microhei): %v", err)
	}
	f := fb.Regular.(*face)
	first := bytes.Clone(f.Content())
	deadline := time.Now().Add(5 * time.Second)
	for f.held() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if f.held() {
		t.Fatal("the face's bytes are still held after it was read")
	}
	if again := f.Content(); !bytes.Equal(again, first) {
		t.Fatalf("made again: %d bytes, differ from the first %d", len(again), len(first))
	}
	if !f.held() {
		t.Fatal("the face made again is not kept for the next parse")
	}
	gone := &face{name: "gone", loc: f.loc, base: theme.DefaultTextFont()}
	gone.loc.File = t.TempDir() + "/removed.ttc"
	if got := gone.Content(); !bytes.Equal(got, theme.DefaultTextFont().Content()) {
		t.Fatalf("a face whose file is gone gave %d bytes, not fyne's font", len(got))
	}
}
