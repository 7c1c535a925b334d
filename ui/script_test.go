package ui

import (
	"image"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// TestTextInOtherScriptsRenders: characters the theme's font lacks (Chinese, Japanese, Korean,
// as in a task path or an instruction) are drawn from the system's fonts, not as the
// missing-glyph box. With the box, every character paints the same pixels. `make test`
// installs a CJK font (scripts/deps.sh); the .deb depends on one.
func TestTextInOtherScriptsRenders(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(ThemeFor(ThemeLight))
	render := func(s string) *image.NRGBA {
		txt := canvas.NewText(s, theme.Color(theme.ColorNameForeground))
		txt.TextSize = 24
		w := test.NewTempWindow(t, txt)
		w.Resize(fyne.NewSize(80, 50))
		img := w.Canvas().Capture()
		out := image.NewNRGBA(img.Bounds())
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
			for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
				out.Set(x, y, img.At(x, y))
			}
		}
		return out
	}
	for _, pair := range [][2]string{{"中", "文"}, {"日", "本"}, {"한", "국"}} {
		a, b := render(pair[0]), render(pair[1])
		same := true
		for i := range a.Pix {
			if a.Pix[i] != b.Pix[i] {
				same = false
				break
			}
		}
		if same {
			t.Errorf("%q and %q paint the same pixels: drawn as missing-glyph boxes (is a CJK font installed? fonts-noto-cjk or fonts-wqy-microhei)", pair[0], pair[1])
		}
	}
}
