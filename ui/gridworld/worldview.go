package gridworld

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"github.com/agentdesk/agentdesk/engine/gridworld"
	"github.com/agentdesk/agentdesk/ui/widgets"
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
			widgets.Fill(img, r, line)
			inner := r.Inset(1)
			widgets.Fill(img, inner, ground)
			for yi := gridworld.SizeY - 1; yi >= 0; yi-- {
				if id := v.Grid[yi][xi][zi]; id > 0 && int(id) <= gridworld.NumColors {
					c := blockColors[id-1]
					shade := 0.55 + 0.45*float64(yi+1)/gridworld.SizeY
					widgets.Fill(img, inner, color.NRGBA{uint8(float64(c.R) * shade), uint8(float64(c.G) * shade), uint8(float64(c.B) * shade), 255})
					break
				}
			}
			if v.Target != nil {
				for yi := gridworld.SizeY - 1; yi >= 0; yi-- {
					if id := v.Target[yi][xi][zi]; id > 0 && int(id) <= gridworld.NumColors {
						widgets.Outline(img, inner.Inset(cell/6), blockColors[id-1], max(cell/10, 1))
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
	widgets.Arrow(img, px, pz, dx, dz, size, color.NRGBA{20, 20, 20, 255})
	return img, nil
}
