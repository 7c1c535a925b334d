package desktop

import (
	"image"
	"sync"

	"github.com/agentdesk/agentdesk/engine/gridworld"
	"github.com/agentdesk/agentdesk/engine/render"
	ugw "github.com/agentdesk/agentdesk/ui/gridworld"
)

// orbitTarget is the point the orbit camera circles: the middle of the build zone's lower part,
// where structures stand.
var orbitTarget = gridworld.Vec3{0, 1, 0}

// worldRenderer draws the Gridworld workspace's views with the OpenGL renderer. The workspace
// calls it on fyne's main goroutine (input callbacks, or fyne.DoAndWait from playback), which
// is the main OS thread that owns GLFW, as engine/render requires.
type worldRenderer struct{ r *render.Renderer }

func (w worldRenderer) RenderWorld(v ugw.WorldView) (image.Image, error) {
	grid := v.Grid
	scene := render.Scene{Grid: &grid, Target: v.Target, ShowTarget: v.Target != nil, Width: v.Width, Height: v.Height,
		Camera: viewCamera(v)}
	if !v.FirstPerson && v.ShowAgent {
		scene.Agent = &render.Pose{Position: v.Agent.Position, Yaw: v.Agent.Yaw, Pitch: v.Agent.Pitch}
	}
	return w.r.Render(scene)
}

// viewCamera is the camera RenderWorld draws v with.
func viewCamera(v ugw.WorldView) render.Camera {
	if v.FirstPerson {
		return render.Camera{Kind: render.FirstPerson, Eye: v.Agent.Position, Yaw: v.Agent.Yaw, Pitch: v.Agent.Pitch}
	}
	return render.OrbitCamera(orbitTarget, v.Orbit.Distance, v.Orbit.Azimuth, v.Orbit.Elevation)
}

// Project says where p appears in the picture RenderWorld draws of v (ugw.Projector).
func (w worldRenderer) Project(v ugw.WorldView, p gridworld.Vec3) (x, y float64, ok bool) {
	return viewCamera(v).Project(p, v.Width, v.Height)
}

// POV draws the exact first-person pov of a world state (ugw.POVSource) on the UI thread.
func (w worldRenderer) POV() gridworld.POVRenderer { return w.r.POV() }

// glWorld creates the OpenGL renderer on first use (only when the Gridworld workspace opens),
// after the app has started (fyne owns GLFW), and closes it before fyne terminates GLFW.
type glWorld struct {
	mu      sync.Mutex
	started bool
	r       *render.Renderer
	err     error
}

func (g *glWorld) start() {
	g.mu.Lock()
	g.started = true
	g.mu.Unlock()
}

// get is gridworld.Deps.World; it runs on the main goroutine.
func (g *glWorld) get() (ugw.WorldRenderer, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.started {
		return nil, ugw.ErrRendererNotReady
	}
	if g.r == nil && g.err == nil {
		g.r, g.err = render.New(render.Options{Width: 640, Height: 480})
	}
	if g.err != nil {
		return nil, g.err
	}
	return worldRenderer{g.r}, nil
}

// close releases the renderer; call it from the window's on-closed hook.
func (g *glWorld) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.r != nil {
		g.r.Close()
		g.r = nil
	}
	g.started = false
	g.err = ugw.ErrRendererNotReady
}
