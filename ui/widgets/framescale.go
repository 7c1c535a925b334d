package widgets

import (
	"image"
	"image/draw"
)

// displayCopy is img scaled to fit (aspect kept, centred, transparent around it) into an image
// of exactly target's size, so fyne shows it without resampling; nil when img is not larger
// than the area (fyne then scales it up on the GPU) or the area is unknown.
func displayCopy(img image.Image, target image.Point) *image.RGBA {
	b := img.Bounds()
	if target.X <= 0 || target.Y <= 0 || b.Dx() <= 0 || b.Dy() <= 0 || (b.Dx() <= target.X && b.Dy() <= target.Y) {
		return nil
	}
	scale := min(float64(target.X)/float64(b.Dx()), float64(target.Y)/float64(b.Dy()))
	w, h := max(1, int(float64(b.Dx())*scale+0.5)), max(1, int(float64(b.Dy())*scale+0.5))
	out := image.NewRGBA(image.Rectangle{Max: target})
	at := image.Pt((target.X-w)/2, (target.Y-h)/2)
	boxScale(out, image.Rectangle{Min: at, Max: at.Add(image.Pt(w, h))}, img)
	return out
}

// boxScale shrinks src into dst's rectangle r, each pixel the mean of the source pixels it
// covers (a box filter: no aliasing on text). Rows of a band are summed first (one pass over
// the source), then columns.
func boxScale(dst *image.RGBA, r image.Rectangle, src image.Image) {
	rgba, ok := src.(*image.RGBA)
	if !ok {
		rgba = image.NewRGBA(image.Rectangle{Max: src.Bounds().Size()})
		draw.Draw(rgba, rgba.Rect, src, src.Bounds().Min, draw.Src)
	}
	sw, sh := rgba.Rect.Dx(), rgba.Rect.Dy()
	w, h := r.Dx(), r.Dy()
	xs := make([]int, w+1) // output column x covers source columns xs[x] to xs[x+1]-1
	for x := 0; x <= w; x++ {
		xs[x] = x * sw / w
	}
	acc := make([]uint32, sw*4)
	for y := 0; y < h; y++ {
		y0, y1 := y*sh/h, max((y+1)*sh/h, y*sh/h+1)
		clear(acc)
		for sy := y0; sy < y1; sy++ {
			row := rgba.Pix[sy*rgba.Stride : sy*rgba.Stride+sw*4]
			acc := acc[:len(row)]
			for i, v := range row {
				acc[i] += uint32(v)
			}
		}
		out := dst.Pix[dst.PixOffset(r.Min.X, r.Min.Y+y):]
		out = out[:w*4]
		for x := 0; x < w; x++ {
			a, b := xs[x], max(xs[x+1], xs[x]+1)
			var s0, s1, s2, s3 uint32
			p := acc[a*4 : b*4]
			for i := 0; i+3 < len(p); i += 4 {
				s0 += p[i]
				s1 += p[i+1]
				s2 += p[i+2]
				s3 += p[i+3]
			}
			n := uint32((b - a) * (y1 - y0))
			out[x*4] = uint8((s0 + n/2) / n)
			out[x*4+1] = uint8((s1 + n/2) / n)
			out[x*4+2] = uint8((s2 + n/2) / n)
			out[x*4+3] = uint8((s3 + n/2) / n)
		}
	}
}
