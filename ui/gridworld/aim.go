package gridworld

import (
	"fmt"
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"

	"github.com/agentdesk/agentdesk/engine/gridworld"
)

// Where the agent aims: place and break act on the block the env's ray cast finds along the
// agent's sight (spec §6.5), in the orbit view as in the first-person one. The crosshair marks
// that point over the 3D view, and a line of the overlay says what E and Q would do there, or
// why the last one did nothing.

// Projector is a WorldRenderer that can say where a world point appears in a picture it draws
// of v, in pixels from the picture's top-left corner (ok false: not in front of the camera).
type Projector interface {
	Project(v WorldView, p gridworld.Vec3) (x, y float64, ok bool)
}

// Project places p on the map as RenderWorld draws it (the top-down map has no camera).
func (MapRenderer) Project(v WorldView, p gridworld.Vec3) (x, y float64, ok bool) {
	w, h := max(v.Width, 64), max(v.Height, 64)
	cell := min(w, h) / (gridworld.SizeX + 2)
	ox, oy := (w-cell*gridworld.SizeX)/2, (h-cell*gridworld.SizeZ)/2
	return float64(ox) + (p[0]+5+0.5)*float64(cell), float64(oy) + (p[2]+5+0.5)*float64(cell), true
}

// aim is what the agent's sight meets.
type aim struct {
	focus gridworld.Focus
	hitID int            // the id of the block hit (ground: -1 or 0)
	point gridworld.Vec3 // where the sight enters that block, or the end of its reach
}

// reach is how far the ray cast looks: its last sample is at 7.8 blocks.
const reach = gridworld.HitDistance - 0.2

func aimOf(s *gridworld.State) aim {
	a := aim{focus: s.Focus()}
	eye, d := s.Position(), s.Sight()
	a.point = gridworld.Vec3{eye[0] + d[0]*reach, eye[1] + d[1]*reach, eye[2] + d[2]*reach}
	if !a.focus.HasHit {
		return a
	}
	h := a.focus.Hit
	a.hitID, _ = s.BlockAt(h[0], h[1], h[2])
	// the sight's entry into the block's cube (slab method); the cube's centre if the sampled
	// ray cast and the exact line disagree at a corner
	tmin, tmax := 0.0, math.Inf(1)
	for i := 0; i < 3; i++ {
		lo, hi := float64(h[i])-0.5, float64(h[i])+0.5
		if math.Abs(d[i]) < 1e-12 {
			if eye[i] < lo || eye[i] > hi {
				tmin, tmax = 1, 0
			}
			continue
		}
		t1, t2 := (lo-eye[i])/d[i], (hi-eye[i])/d[i]
		if t1 > t2 {
			t1, t2 = t2, t1
		}
		tmin, tmax = math.Max(tmin, t1), math.Min(tmax, t2)
	}
	if tmin <= tmax {
		a.point = gridworld.Vec3{eye[0] + d[0]*tmin, eye[1] + d[1]*tmin, eye[2] + d[2]*tmin}
	} else {
		a.point = gridworld.Vec3{float64(h[0]), float64(h[1]), float64(h[2])}
	}
	return a
}

// tryAction plays a place (or a break) on a copy of s with the env's own rules: acts says
// whether it would add (remove) a block; idle that the step would change nothing at all (no
// block, and the agent at rest: the physics update would not move it either).
func tryAction(s *gridworld.State, place bool) (acts, idle bool) {
	c := s.Clone()
	c.PlaceOrBreak(place, !place)
	acts = c.Version() != s.Version()
	c.Update()
	idle = !acts && c.Position() == s.Position() && c.VerticalSpeed() == s.VerticalSpeed() && c.SubSteps() == s.SubSteps()
	return acts, idle
}

func cellText(k [3]int) string { return fmt.Sprintf("(%d, %d, %d)", k[0], k[1], k[2]) }

func blockName(id int) string {
	if id >= 1 && id <= gridworld.NumColors {
		return blockNames[id-1] + " block"
	}
	return "ground"
}

// whyNot says why a place (or break) from s adds (removes) nothing; firstPerson words it for
// the view on show (the orbit view does not show the agent's crosshair at its centre).
func whyNot(s *gridworld.State, a aim, place, firstPerson bool) string {
	verb := "Nothing broken"
	if place {
		verb = "Nothing placed"
	}
	noFace := "no block under the crosshair"
	if place {
		noFace = "no block face under the crosshair"
	}
	look := "look down (↓) at one"
	if !firstPerson {
		noFace = "the agent aims at no block in reach"
		look = "↓ turns it down"
	}
	f := a.focus
	switch {
	case !f.HasHit:
		return fmt.Sprintf("%s: %s; %s.", verb, noFace, look)
	case !place && a.hitID <= 0:
		return verb + ": the ground cannot be broken."
	case !place:
		return verb + "."
	case !f.HasBefore:
		return verb + ": the agent's eye is inside a block; step back."
	}
	inv, active := s.Inventory(), s.ActiveBlock()
	switch b := f.Before; {
	case inv[active-1] <= 0:
		return fmt.Sprintf("%s: no %s blocks left; break one (Q) or choose another colour (1-6).", verb, blockNames[active-1])
	case !gridworld.InZone(b[0], b[1], b[2]):
		return fmt.Sprintf("%s: %s is outside the build zone.", verb, cellText(b))
	default:
		return fmt.Sprintf("%s: the agent stands at %s.", verb, cellText(b))
	}
}

// aimLine says what the agent aims at and what E and Q would do there.
func aimLine(s *gridworld.State, a aim, firstPerson bool) string {
	f := a.focus
	if !f.HasHit {
		if firstPerson {
			return "Aim: nothing within 8 blocks · look down (↓) to build"
		}
		return "Agent aims at nothing within 8 blocks · ↓ turns it down"
	}
	line := fmt.Sprintf("Aim: %s at %s", blockName(a.hitID), cellText(f.Hit))
	if !firstPerson {
		line = "Agent a" + line[1:]
	}
	if ok, _ := tryAction(s, true); ok {
		line += fmt.Sprintf(" · E puts %s at %s", blockNames[s.ActiveBlock()-1], cellText(f.Before))
	}
	if ok, _ := tryAction(s, false); ok {
		line += " · Q breaks it"
	}
	return line
}

// crosshair is the aim mark drawn over the 3D view: white arms with a dark rim, readable on
// the sky, the white build zone and the grey ground, whatever the app's theme. It is canvas
// objects only: clicks go through to the view.
type crosshair struct {
	rims, arms [2]*canvas.Rectangle
	objs       []fyne.CanvasObject
	at         fyne.Position // centre, in the view's coordinates
	shown      bool
	faint      bool // orbit view, the aim meets nothing: the mark shows the end of the reach
}

const crossArm, crossWidth = 11, 2

func newCrosshair() *crosshair {
	c := &crosshair{}
	for i := range c.arms {
		c.rims[i] = canvas.NewRectangle(color.NRGBA{0, 0, 0, 200})
		c.arms[i] = canvas.NewRectangle(color.NRGBA{255, 255, 255, 255})
		c.objs = append(c.objs, c.rims[i])
	}
	for i := range c.arms {
		c.objs = append(c.objs, c.arms[i])
	}
	return c
}

func (c *crosshair) Layout(_ []fyne.CanvasObject, _ fyne.Size) {
	for i := range c.arms {
		c.arms[i].Hidden, c.rims[i].Hidden = !c.shown, !c.shown
	}
	if !c.shown {
		return
	}
	alpha := uint8(255)
	if c.faint {
		alpha = 130
	}
	x, y := c.at.X, c.at.Y
	place := func(r *canvas.Rectangle, px, py, w, h float32) {
		r.Move(fyne.NewPos(px, py))
		r.Resize(fyne.NewSize(w, h))
	}
	const a, t = crossArm, crossWidth
	const m = 2 // the rim
	place(c.rims[0], x-a-m, y-t/2-m, 2*a+2*m, t+2*m)
	place(c.rims[1], x-t/2-m, y-a-m, t+2*m, 2*a+2*m)
	place(c.arms[0], x-a, y-t/2, 2*a, t)
	place(c.arms[1], x-t/2, y-a, t, 2*a)
	for i := range c.arms {
		c.arms[i].FillColor = color.NRGBA{255, 255, 255, alpha}
		c.rims[i].FillColor = color.NRGBA{0, 0, 0, uint8(int(alpha) * 200 / 255)}
	}
}

func (c *crosshair) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.Size{} }

// updateAim places the crosshair for view v, drawn at size (device pixels = size·scale), and
// sets the overlay's aim line unless it is telling why the last action did nothing.
func (g *Workspace) updateAim(v WorldView, size fyne.Size, scale float32) {
	st := g.aimState()
	if st == nil {
		g.cross.shown = false
		g.aimLayer.Refresh()
		return
	}
	a := aimOf(st)
	g.cross.faint = !a.focus.HasHit && !v.FirstPerson // (the first-person one marks the sight line)
	g.cross.shown = true
	if p, ok := g.renderer.(Projector); ok {
		x, y, in := p.Project(v, a.point)
		g.cross.at = fyne.NewPos(float32(math.Round(x/float64(scale))), float32(math.Round(y/float64(scale))))
		g.cross.shown = in && g.cross.at.X >= 0 && g.cross.at.Y >= 0 && g.cross.at.X <= size.Width && g.cross.at.Y <= size.Height
	} else if v.FirstPerson {
		g.cross.at = fyne.NewPos(float32(math.Round(float64(size.Width/2))), float32(math.Round(float64(size.Height/2))))
	} else {
		g.cross.shown = false
	}
	g.aimLayer.Layout.Layout(nil, size)
	g.aimLayer.Refresh()
	if g.why != "" {
		g.aimText.SetText(g.why)
		return
	}
	if g.replay != nil { // (a replay frame has no inventory: what E would do is not known)
		line := "Aim: nothing within 8 blocks"
		if a.focus.HasHit {
			line = fmt.Sprintf("Aim: %s at %s", blockName(a.hitID), cellText(a.focus.Hit))
		}
		g.aimText.SetText(line)
		return
	}
	g.aimText.SetText(aimLine(st, a, v.FirstPerson))
}

// aimState is the world the crosshair aims in: the env's, or the replay frame's.
func (g *Workspace) aimState() *gridworld.State {
	switch {
	case g.replay != nil:
		f := g.replay.Frames[g.frame]
		return gridworld.NewState(f.Grid.Sparse(), f.Pose.Position, f.Pose.Yaw, f.Pose.Pitch)
	case g.env != nil:
		return g.env.State()
	}
	return nil
}
