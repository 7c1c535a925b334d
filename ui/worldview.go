package ui

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"github.com/agentdesk/agentdesk/engine/gridworld"
)

// WorldView is what the Gridworld workspace asks a renderer to draw.
type WorldView struct {
	Grid gridworld.Grid
	// Target is drawn as a translucent ghost when non-nil.
	Target *gridworld.Grid
	Agent  gridworld.Pose
	// FirstPerson draws the agent's own view (the env's pov camera); otherwise an orbit camera
	// looks at the build zone's centre.
	FirstPerson bool
	Orbit       Orbit
	// ShowAgent draws a marker at the agent (orbit camera only).
	ShowAgent     bool
	Width, Height int
}

// Orbit is an orbit camera around the build zone: angles in degrees, distance in blocks.
type Orbit struct {
	Azimuth, Elevation, Distance float64
}

// DefaultOrbit looks at the build zone from the front-right, slightly above (azimuth 0 puts
// the camera on the +z side, 90 on the +x side).
var DefaultOrbit = Orbit{Azimuth: 30, Elevation: 32, Distance: 16}

// WorldRenderer draws a world view. The app provides the OpenGL one (engine/render); MapRenderer
// is the fallback without OpenGL and the renderer of headless tests.
type WorldRenderer interface {
	RenderWorld(v WorldView) (image.Image, error)
}

// MapRenderer draws a top-down map of the build zone: each column shows its highest block,
// lighter the higher it is; target cells are outlined; the agent is an arrow pointing where it
// looks.
type MapRenderer struct{}

func (MapRenderer) RenderWorld(v WorldView) (image.Image, error) {
	w, h := max(v.Width, 64), max(v.Height, 64)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), &image.Uniform{color.NRGBA{128, 176, 255, 255}}, image.Point{}, draw.Src)
	cell := min(w, h) / (gridworld.SizeX + 2)
	ox, oy := (w-cell*gridworld.SizeX)/2, (h-cell*gridworld.SizeZ)/2
	ground := color.NRGBA{245, 245, 245, 255}
	line := color.NRGBA{171, 171, 171, 255}
	for xi := 0; xi < gridworld.SizeX; xi++ {
		for zi := 0; zi < gridworld.SizeZ; zi++ {
			r := image.Rect(ox+xi*cell, oy+zi*cell, ox+(xi+1)*cell, oy+(zi+1)*cell)
			fill(img, r, line)
			inner := r.Inset(1)
			fill(img, inner, ground)
			for yi := gridworld.SizeY - 1; yi >= 0; yi-- {
				if id := v.Grid[yi][xi][zi]; id > 0 && int(id) <= gridworld.NumColors {
					c := blockColors[id-1]
					shade := 0.55 + 0.45*float64(yi+1)/gridworld.SizeY
					fill(img, inner, color.NRGBA{uint8(float64(c.R) * shade), uint8(float64(c.G) * shade), uint8(float64(c.B) * shade), 255})
					break
				}
			}
			if v.Target != nil {
				for yi := gridworld.SizeY - 1; yi >= 0; yi-- {
					if id := v.Target[yi][xi][zi]; id > 0 && int(id) <= gridworld.NumColors {
						outline(img, inner.Inset(cell/6), blockColors[id-1], max(cell/10, 1))
						break
					}
				}
			}
		}
	}
	if !v.ShowAgent {
		return img, nil
	}
	// The agent: world x, z to map pixels (block centres at integer coordinates).
	px := float64(ox) + (v.Agent.Position[0]+5+0.5)*float64(cell)
	pz := float64(oy) + (v.Agent.Position[2]+5+0.5)*float64(cell)
	yaw := v.Agent.Yaw * math.Pi / 180 // yaw 0 faces -z (up on the map), 90 faces +x
	dx, dz := math.Sin(yaw), -math.Cos(yaw)
	size := float64(cell) * 0.6
	arrow(img, px, pz, dx, dz, size, color.NRGBA{20, 20, 20, 255})
	return img, nil
}

func fill(img *image.RGBA, r image.Rectangle, c color.Color) {
	draw.Draw(img, r.Intersect(img.Bounds()), &image.Uniform{c}, image.Point{}, draw.Src)
}

func outline(img *image.RGBA, r image.Rectangle, c color.Color, t int) {
	fill(img, image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+t), c)
	fill(img, image.Rect(r.Min.X, r.Max.Y-t, r.Max.X, r.Max.Y), c)
	fill(img, image.Rect(r.Min.X, r.Min.Y, r.Min.X+t, r.Max.Y), c)
	fill(img, image.Rect(r.Max.X-t, r.Min.Y, r.Max.X, r.Max.Y), c)
}

// arrow fills a triangle at (x, y) pointing along (dx, dy).
func arrow(img *image.RGBA, x, y, dx, dy, size float64, c color.Color) {
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
