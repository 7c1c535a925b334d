package render

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentdesk/agentdesk/engine/gridworld"
)

// TestLook writes pictures for a human to look at when RENDER_LOOK_DIR is set: the orbit
// view of a structure with its target ghost and the agent, and pov frames next to their
// references (reference | rendered | difference).
func TestLook(t *testing.T) {
	dir := os.Getenv("RENDER_LOOK_DIR")
	if dir == "" {
		t.Skip("set RENDER_LOOK_DIR to write look images")
	}
	r := testRenderer(t)
	built, target := lookScene()
	for i, cam := range []Camera{DefaultOrbit(), OrbitCamera(gridworld.Vec3{0, 0, 0}, 9, 200, 20), OrbitCamera(gridworld.Vec3{0, 0, 0}, 25, 0, 90)} {
		img := render(t, r, Scene{Grid: &built, Target: &target, ShowTarget: true,
			Agent: &Pose{Position: gridworld.Vec3{3, -0.25, 4}, Yaw: 315}, Camera: cam, Width: 640, Height: 480})
		writePNG(t, filepath.Join(dir, "orbit_"+string(rune('a'+i))+".png"), img)
	}
	pdir := "../../testdata/conformance/gridworld/pov"
	idx := loadIdx(t, pdir)
	for _, name := range []string{"walk_starting_grid_t041.png", "fly_mixed_t061.png", "walk_scripted_t061.png"} {
		fr := idx[name]
		ref := readPNG(t, filepath.Join(pdir, name))
		st := gridworld.NewState(fr.Blocks, gridworld.Vec3(fr.Position), fr.Rotation[0], fr.Rotation[1])
		got := render(t, r, Scene{State: st, Camera: POVCamera(st), Width: 64, Height: 64})
		writePNG(t, filepath.Join(dir, "pov_"+name), sideBySide(ref, got, 8))
	}
}
