package samples

import (
	"image"
	"image/color"
	"image/draw"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Drawing helpers for the made-up phone screens of the samples: flat rectangles and a fixed
// 7×13 bitmap font, so that every run draws the same pixels on every platform.

// Colours of the sample screens.
var (
	colWhite     = color.RGBA{255, 255, 255, 255}
	colInk       = color.RGBA{33, 33, 33, 255}
	colGrey      = color.RGBA{140, 140, 140, 255}
	colLine      = color.RGBA{222, 222, 222, 255}
	colPage      = color.RGBA{246, 245, 242, 255}
	colStatus    = color.RGBA{52, 40, 34, 255}
	colHeader    = color.RGBA{214, 96, 44, 255}
	colAccent    = color.RGBA{36, 110, 185, 255}
	colFocus     = color.RGBA{225, 238, 252, 255}
	colGreen     = color.RGBA{46, 142, 80, 255}
	colKeyboard  = color.RGBA{208, 211, 216, 255}
	colKey       = color.RGBA{250, 250, 250, 255}
	colToast     = color.RGBA{60, 60, 60, 255}
	colChip      = color.RGBA{250, 226, 208, 255}
	colChipOn    = color.RGBA{214, 96, 44, 255}
	colTarget    = color.RGBA{255, 214, 102, 255}
	colTargetInk = color.RGBA{120, 80, 0, 255}
)

const (
	glyphW = 7  // advance of the bitmap font
	glyphH = 13 // line height of the bitmap font
	ascent = 11
)

// canvas is an RGBA image with the drawing operations the sample screens use.
type canvas struct{ *image.RGBA }

func newCanvas(w, h int, bg color.RGBA) canvas {
	c := canvas{image.NewRGBA(image.Rect(0, 0, w, h))}
	c.fill(c.Bounds(), bg)
	return c
}

// fill paints r (clipped to the canvas).
func (c canvas) fill(r image.Rectangle, col color.RGBA) {
	draw.Draw(c.RGBA, r.Intersect(c.Bounds()), image.NewUniform(col), image.Point{}, draw.Src)
}

// frame draws a one-pixel border just inside r.
func (c canvas) frame(r image.Rectangle, col color.RGBA) {
	c.fill(image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+1), col)
	c.fill(image.Rect(r.Min.X, r.Max.Y-1, r.Max.X, r.Max.Y), col)
	c.fill(image.Rect(r.Min.X, r.Min.Y, r.Min.X+1, r.Max.Y), col)
	c.fill(image.Rect(r.Max.X-1, r.Min.Y, r.Max.X, r.Max.Y), col)
}

// round paints r with its corners cut by one pixel (a rounded look at this size).
func (c canvas) round(r image.Rectangle, col color.RGBA) {
	c.fill(image.Rect(r.Min.X+1, r.Min.Y, r.Max.X-1, r.Max.Y), col)
	c.fill(image.Rect(r.Min.X, r.Min.Y+1, r.Max.X, r.Max.Y-1), col)
}

// text draws s with its top-left corner at (x, y), cut to the characters that fit before
// maxX (0: the canvas edge).
func (c canvas) text(x, y int, s string, col color.RGBA, maxX int) {
	if maxX <= 0 {
		maxX = c.Bounds().Max.X
	}
	if n := (maxX - x) / glyphW; n < len(s) {
		if n <= 0 {
			return
		}
		s = s[:n]
	}
	d := font.Drawer{Dst: c.RGBA, Src: image.NewUniform(col), Face: basicfont.Face7x13,
		Dot: fixed.P(x, y+ascent)}
	d.DrawString(s)
}

// centred draws s centred in r (vertically by the font's line height).
func (c canvas) centred(r image.Rectangle, s string, col color.RGBA) {
	if n := r.Dx() / glyphW; n < len(s) {
		s = s[:max(n, 0)]
	}
	x := r.Min.X + (r.Dx()-len(s)*glyphW)/2
	y := r.Min.Y + (r.Dy()-glyphH)/2
	c.text(x, y, s, col, r.Max.X)
}

// rgb returns the canvas as packed 8-bit RGB rows (a numpy uint8 H×W×3 array's bytes).
func (c canvas) rgb() []byte {
	b := c.Bounds()
	out := make([]byte, 0, b.Dx()*b.Dy()*3)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := c.Pix[(y-b.Min.Y)*c.Stride:]
		for x := 0; x < b.Dx(); x++ {
			out = append(out, row[4*x], row[4*x+1], row[4*x+2])
		}
	}
	return out
}
