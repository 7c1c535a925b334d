package widgets

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"fyne.io/fyne/v2/theme"
)

// Colours and raster helpers shared by the workspaces' overlays, maps and charts.

// Tint is c with the given alpha.
func Tint(c color.Color, alpha uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: alpha}
}

// OverlayBackground is the theme's background, translucent, behind text drawn over a frame or
// the 3D view.
func OverlayBackground() color.Color {
	return Tint(theme.Color(theme.ColorNameBackground), OverlayAlpha)
}

// OverlayAlpha is how opaque overlay panels are: enough that body text on them keeps 4.5:1
// over the darkest or lightest picture behind them in either theme.
const OverlayAlpha = 0xe0

// Fill paints the rectangle r of img (clipped to it) with c.
func Fill(img *image.RGBA, r image.Rectangle, c color.Color) {
	draw.Draw(img, r.Intersect(img.Bounds()), &image.Uniform{c}, image.Point{}, draw.Src)
}

// Outline paints a frame of thickness t just inside r.
func Outline(img *image.RGBA, r image.Rectangle, c color.Color, t int) {
	Fill(img, image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+t), c)
	Fill(img, image.Rect(r.Min.X, r.Max.Y-t, r.Max.X, r.Max.Y), c)
	Fill(img, image.Rect(r.Min.X, r.Min.Y, r.Min.X+t, r.Max.Y), c)
	Fill(img, image.Rect(r.Max.X-t, r.Min.Y, r.Max.X, r.Max.Y), c)
}

// Arrow fills a triangle at (x, y) pointing along (dx, dy).
func Arrow(img *image.RGBA, x, y, dx, dy, size float64, c color.Color) {
	tip := [2]float64{x + dx*size, y + dy*size}
	l := [2]float64{x - dx*size*0.6 - dy*size*0.5, y - dy*size*0.6 + dx*size*0.5}
	r := [2]float64{x - dx*size*0.6 + dy*size*0.5, y - dy*size*0.6 - dx*size*0.5}
	minX, maxX := math.Min(tip[0], math.Min(l[0], r[0])), math.Max(tip[0], math.Max(l[0], r[0]))
	minY, maxY := math.Min(tip[1], math.Min(l[1], r[1])), math.Max(tip[1], math.Max(l[1], r[1]))
	side := func(a, b [2]float64, px, py float64) float64 {
		return (b[0]-a[0])*(py-a[1]) - (b[1]-a[1])*(px-a[0])
	}
	for py := int(minY); py <= int(maxY); py++ {
		for px := int(minX); px <= int(maxX); px++ {
			fx, fy := float64(px)+0.5, float64(py)+0.5
			s1, s2, s3 := side(tip, l, fx, fy), side(l, r, fx, fy), side(r, tip, fx, fy)
			if (s1 >= 0 && s2 >= 0 && s3 >= 0) || (s1 <= 0 && s2 <= 0 && s3 <= 0) {
				if image.Pt(px, py).In(img.Bounds()) {
					img.Set(px, py, c)
				}
			}
		}
	}
}
