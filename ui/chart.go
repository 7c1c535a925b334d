package ui

import (
	"image"
	"image/color"
	"image/draw"
	"math"
)

// rewardChart draws an agent run: each finished episode's total reward as a bar, and the
// running episode's cumulative reward as a line over the same scale, with a zero line.
func rewardChart(totals, current []float64, w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), &image.Uniform{color.NRGBA{250, 250, 252, 255}}, image.Point{}, draw.Src)
	lo, hi := 0.0, 0.0
	for _, v := range append(append([]float64(nil), totals...), current...) {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if hi-lo < 1e-9 {
		hi = lo + 1
	}
	pad := 8
	y := func(v float64) int { return pad + int(float64(h-2*pad)*(hi-v)/(hi-lo)) }
	zero := y(0)
	fill(img, image.Rect(pad, zero, w-pad, zero+1), color.NRGBA{160, 160, 170, 255})
	if n := len(totals); n > 0 {
		bw := max((w-2*pad)/max(n, 10), 2)
		for i, v := range totals {
			x0 := pad + i*bw
			top, bottom := y(v), zero
			if top > bottom {
				top, bottom = bottom, top
			}
			c := color.NRGBA{34, 150, 80, 255}
			if v < 0 {
				c = color.NRGBA{200, 50, 50, 255}
			}
			fill(img, image.Rect(x0+1, top, x0+bw-1, max(bottom, top+1)), c)
		}
	}
	if n := len(current); n > 1 {
		for i := 1; i < n; i++ {
			x0 := pad + (i-1)*(w-2*pad)/(n-1)
			x1 := pad + i*(w-2*pad)/(n-1)
			line(img, x0, y(current[i-1]), x1, y(current[i]), color.NRGBA{30, 90, 200, 255})
		}
	}
	return img
}

// line draws a 2-pixel line (Bresenham).
func line(img *image.RGBA, x0, y0, x1, y1 int, c color.Color) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := sign(x1-x0), sign(y1-y0)
	err := dx + dy
	for {
		img.Set(x0, y0, c)
		img.Set(x0, y0+1, c)
		if x0 == x1 && y0 == y1 {
			return
		}
		if e2 := 2 * err; e2 >= dy {
			err += dy
			x0 += sx
		} else {
			err += dx
			y0 += sy
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func sign(v int) int {
	switch {
	case v < 0:
		return -1
	case v > 0:
		return 1
	}
	return 0
}
