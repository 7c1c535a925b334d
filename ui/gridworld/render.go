package gridworld

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"

	"fyne.io/fyne/v2"

	"github.com/agentdesk/agentdesk/engine/gridworld"
)

// Drawing the world: the 3D renderer when there is one (the map until then), the first-person
// thumbnails of recordings and the preview of the target.

// currentView is what the 3D view shows now.
func (g *Workspace) currentView(w, h int) (WorldView, bool) {
	v := WorldView{FirstPerson: g.firstPerson, Orbit: g.orbit, ShowAgent: true, Width: w, Height: h}
	switch {
	case g.replay != nil:
		f := g.replay.Frames[g.frame]
		v.Grid, v.Agent = f.Grid, f.Pose
		if g.ghost {
			t := g.replay.Target
			v.Target = &t
		}
	case g.env != nil:
		st := g.env.State()
		v.Grid = st.Grid()
		v.Agent = gridworld.Pose{Position: st.Position(), Yaw: st.Yaw(), Pitch: st.Pitch()}
		if g.ghost && g.env.Task() != nil {
			t := g.env.Task().Target
			v.Target = &t
		}
	default:
		return v, false
	}
	return v, true
}

// ErrRendererNotReady is what Deps.World returns before the app runs; the workspace shows the
// map meanwhile and asks again at the next frame.
var ErrRendererNotReady = errors.New("the 3D renderer is not ready yet")

// ensureRenderer asks Deps.World for the 3D renderer until it has a final answer.
func (g *Workspace) ensureRenderer() {
	if g.resolved {
		return
	}
	r, err := g.deps.World()
	if errors.Is(err, ErrRendererNotReady) {
		return
	}
	g.resolved = true
	if err != nil || r == nil {
		if err == nil {
			err = errors.New("no renderer")
		}
		g.glNote = fmt.Sprintf("3D view unavailable (%v); showing a top-down map instead.", err)
		g.setStatus(g.glNote)
		return
	}
	g.renderer = r
	g.renderPreview()
}

// render draws the view at the widget's size in device pixels. It runs only when something
// changed (a step, a camera move, a resize), so an idle world costs nothing.
func (g *Workspace) render() {
	size := g.view.Size()
	scale := float32(1)
	if c := fyne.CurrentApp().Driver().CanvasForObject(g.view); c != nil {
		scale = c.Scale()
	}
	w, h := int(size.Width*scale), int(size.Height*scale)
	if w < 16 || h < 16 {
		return
	}
	v, ok := g.currentView(w, h)
	if !ok {
		return
	}
	g.ensureRenderer()
	img, err := g.renderer.RenderWorld(v)
	if err != nil {
		g.setStatus("Rendering failed: " + err.Error())
		return
	}
	g.view.setImage(img)
	g.updateAim(v, size, scale)
}

// thumbnail renders the agent's 64x64 first-person view as PNG for the recording.
func (g *Workspace) thumbnail() []byte {
	v, ok := g.currentView(64, 64)
	if !ok {
		return nil
	}
	v.FirstPerson, v.Target, v.ShowAgent = true, nil, false
	g.ensureRenderer()
	img, err := g.renderer.RenderWorld(v)
	if err != nil {
		return nil
	}
	var buf bytes.Buffer
	if png.Encode(&buf, img) != nil {
		return nil
	}
	return buf.Bytes()
}

// renderPreview draws the target structure alone in the side panel.
func (g *Workspace) renderPreview() {
	var target gridworld.Grid
	switch {
	case g.replay != nil:
		target = g.replay.Target
	case g.env != nil && g.env.Task() != nil:
		target = g.env.Task().Target
	}
	g.ensureRenderer()
	img, err := g.renderer.RenderWorld(WorldView{Grid: target, Orbit: DefaultOrbit, Width: 320, Height: 240})
	if err == nil {
		g.preview.Image = img
		g.preview.Refresh()
	}
}
