package render

import (
	"testing"

	"github.com/agentdesk/agentdesk/engine/gridworld"
)

// TestProjectLandsOnTheBlock: the pixel Project gives for a block's top centre shows that
// block's top colour, in orbit and first-person views of several sizes; a point behind the
// camera does not project.
func TestProjectLandsOnTheBlock(t *testing.T) {
	r := testRenderer(t)
	var g gridworld.Grid
	g.Set(2, 0, -1, gridworld.Red)
	top := gridworld.Vec3{2, 0.5, -1}
	st := gridworld.NewState(g.Sparse(), gridworld.Vec3{2, 2.5, 2}, 0, -60)
	for _, tc := range []struct {
		name string
		cam  Camera
		w, h int
	}{
		{"orbit 640x480", OrbitCamera(gridworld.Vec3{0, 1, 0}, 16, 30, 32), 640, 480},
		{"orbit 300x500", OrbitCamera(gridworld.Vec3{0, 1, 0}, 12, 200, 60), 300, 500},
		{"first person 400x300", POVCamera(st), 400, 300},
	} {
		grid := g
		img := render(t, r, Scene{Grid: &grid, Camera: tc.cam, Width: tc.w, Height: tc.h})
		x, y, ok := tc.cam.Project(top, tc.w, tc.h)
		if !ok || x < 0 || y < 0 || x >= float64(tc.w) || y >= float64(tc.h) {
			t.Fatalf("%s: top centre projects to %.1f,%.1f (ok %v)", tc.name, x, y, ok)
		}
		c := img.RGBAAt(int(x), int(y))
		if c.R < 200 || c.G > 60 || c.B > 60 {
			t.Fatalf("%s: pixel %.0f,%.0f is %v, not the red block's top", tc.name, x, y, c)
		}
	}
	if _, _, ok := POVCamera(st).Project(gridworld.Vec3{2, 2.5, 10}, 64, 64); ok {
		t.Fatal("a point behind the first-person camera projected")
	}
}
