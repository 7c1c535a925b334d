//go:build ignore

// icon_gen draws Agentdesk's icon: an isometric stack of voxels in four of the building
// colours on a rounded slate tile, with a small chart line across the front, for "building and
// judging agent data". Run `go run icon_gen.go` in this folder to regenerate icon.png.
package main

import (
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
)

const size = 512
const ss = 4 // supersampling per axis

type vec struct{ x, y float64 }

// canvas accumulates coverage-weighted colour at ss x ss sub-pixels.
type canvas struct {
	w, h int
	px   []color.NRGBA
}

func newCanvas(w, h int) *canvas { return &canvas{w: w, h: h, px: make([]color.NRGBA, w*h)} }

func (c *canvas) blend(x, y int, col color.NRGBA) {
	if x < 0 || y < 0 || x >= c.w || y >= c.h {
		return
	}
	d := &c.px[y*c.w+x]
	a := float64(col.A) / 255
	da := float64(d.A) / 255
	oa := a + da*(1-a)
	if oa == 0 {
		return
	}
	mix := func(s, t uint8) uint8 {
		return uint8(math.Round((float64(s)*a + float64(t)*da*(1-a)) / oa))
	}
	*d = color.NRGBA{mix(col.R, d.R), mix(col.G, d.G), mix(col.B, d.B), uint8(math.Round(oa * 255))}
}

// fillPolygon fills a convex or concave polygon given in output pixel units (even-odd rule).
func (c *canvas) fillPolygon(pts []vec, col color.NRGBA) {
	minY, maxY := math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		minY = math.Min(minY, p.y*ss)
		maxY = math.Max(maxY, p.y*ss)
	}
	for sy := int(math.Floor(minY)); sy <= int(math.Ceil(maxY)); sy++ {
		y := float64(sy) + 0.5
		var xs []float64
		for i := range pts {
			a, b := pts[i], pts[(i+1)%len(pts)]
			ay, by := a.y*ss, b.y*ss
			if (ay <= y) != (by <= y) {
				xs = append(xs, a.x*ss+(y-ay)/(by-ay)*(b.x*ss-a.x*ss))
			}
		}
		for i := 0; i < len(xs); i++ {
			for j := i + 1; j < len(xs); j++ {
				if xs[j] < xs[i] {
					xs[i], xs[j] = xs[j], xs[i]
				}
			}
		}
		for i := 0; i+1 < len(xs); i += 2 {
			for sx := int(math.Ceil(xs[i] - 0.5)); float64(sx)+0.5 < xs[i+1]; sx++ {
				c.blend(sx, sy, col)
			}
		}
	}
}

func (c *canvas) downsample() *image.NRGBA {
	out := image.NewNRGBA(image.Rect(0, 0, c.w/ss, c.h/ss))
	for y := 0; y < c.h/ss; y++ {
		for x := 0; x < c.w/ss; x++ {
			var r, g, b, a float64
			for dy := 0; dy < ss; dy++ {
				for dx := 0; dx < ss; dx++ {
					p := c.px[(y*ss+dy)*c.w+x*ss+dx]
					pa := float64(p.A)
					r += float64(p.R) * pa
					g += float64(p.G) * pa
					b += float64(p.B) * pa
					a += pa
				}
			}
			if a > 0 {
				out.SetNRGBA(x, y, color.NRGBA{uint8(r / a), uint8(g / a), uint8(b / a), uint8(a / (ss * ss))})
			}
		}
	}
	return out
}

func roundedRect(x0, y0, x1, y1, r float64) []vec {
	var pts []vec
	corner := func(cx, cy, start float64) {
		for i := 0; i <= 12; i++ {
			t := start + float64(i)/12*math.Pi/2
			pts = append(pts, vec{cx + r*math.Cos(t), cy + r*math.Sin(t)})
		}
	}
	corner(x1-r, y0+r, -math.Pi/2)
	corner(x1-r, y1-r, 0)
	corner(x0+r, y1-r, math.Pi/2)
	corner(x0+r, y0+r, math.Pi)
	return pts
}

func shade(c color.NRGBA, f float64) color.NRGBA {
	s := func(v uint8) uint8 { return uint8(math.Min(255, float64(v)*f)) }
	return color.NRGBA{s(c.R), s(c.G), s(c.B), c.A}
}

func main() {
	c := newCanvas(size*ss, size*ss)
	// background tile: slate with a lighter top band
	c.fillPolygon(roundedRect(24, 24, 488, 488, 96), color.NRGBA{0x1f, 0x29, 0x37, 0xff})
	c.fillPolygon(roundedRect(24, 24, 488, 300, 96), color.NRGBA{0x2b, 0x38, 0x4b, 0x90})

	// isometric voxels: unit u, origin at the bottom centre of the stack
	const u = 62.0
	origin := vec{256, 372}
	iso := func(x, y, z float64) vec { // x to the right-down, z to the left-down, y up
		return vec{origin.x + (x-z)*u*0.866, origin.y + (x+z)*u*0.5 - y*u}
	}
	blue := color.NRGBA{0x3b, 0x82, 0xf6, 0xff}
	green := color.NRGBA{0x22, 0xc5, 0x5e, 0xff}
	orange := color.NRGBA{0xf9, 0x73, 0x16, 0xff}
	yellow := color.NRGBA{0xfa, 0xcc, 0x15, 0xff}
	cube := func(x, y, z float64, col color.NRGBA) {
		top := []vec{iso(x, y+1, z), iso(x+1, y+1, z), iso(x+1, y+1, z+1), iso(x, y+1, z+1)}
		right := []vec{iso(x+1, y, z), iso(x+1, y+1, z), iso(x+1, y+1, z+1), iso(x+1, y, z+1)}
		left := []vec{iso(x, y, z+1), iso(x+1, y, z+1), iso(x+1, y+1, z+1), iso(x, y+1, z+1)}
		c.fillPolygon(top, shade(col, 1.18))
		c.fillPolygon(right, shade(col, 0.78))
		c.fillPolygon(left, shade(col, 0.95))
	}
	// painter's order: back to front, bottom to top
	type v struct {
		x, y, z float64
		c       color.NRGBA
	}
	voxels := []v{
		{-1, 0, -1, blue}, {0, 0, -1, blue}, {-1, 0, 0, green},
		{0, 0, 0, green}, {-1, 1, -1, orange}, {0, 1, -1, yellow}, {-1, 2, -1, orange},
	}
	for _, vx := range voxels {
		cube(vx.x, vx.y, vx.z, vx.c)
	}
	// a rising chart line with dots across the lower part: judging the data
	line := []vec{{92, 420}, {180, 392}, {262, 404}, {350, 352}, {420, 330}}
	white := color.NRGBA{0xf8, 0xfa, 0xfc, 0xff}
	for i := 0; i+1 < len(line); i++ {
		a, b := line[i], line[i+1]
		dx, dy := b.x-a.x, b.y-a.y
		l := math.Hypot(dx, dy)
		nx, ny := -dy/l*7, dx/l*7
		c.fillPolygon([]vec{{a.x + nx, a.y + ny}, {b.x + nx, b.y + ny}, {b.x - nx, b.y - ny}, {a.x - nx, a.y - ny}}, white)
	}
	for _, p := range line {
		var circle []vec
		for i := 0; i < 32; i++ {
			t := float64(i) / 32 * 2 * math.Pi
			circle = append(circle, vec{p.x + 15*math.Cos(t), p.y + 15*math.Sin(t)})
		}
		c.fillPolygon(circle, white)
	}
	f, err := os.Create("icon.png")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, c.downsample()); err != nil {
		log.Fatal(err)
	}
}
