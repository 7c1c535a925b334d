package render

import (
	"errors"
	"flag"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/gridworld"
)

var update = flag.Bool("update", false, "rewrite the golden images in testdata/")

func fullGrid() *gridworld.Grid {
	var g gridworld.Grid
	for y := range g {
		for x := range g[y] {
			for z := range g[y][x] {
				g[y][x][z] = int8(1 + (x+y+z)%gridworld.NumColors)
			}
		}
	}
	return &g
}

// lookScene is a small built structure, a target to finish as ghosts and the agent.
func lookScene() (built, target gridworld.Grid) {
	put := func(g *gridworld.Grid, x, y, z, id int) { g.Set(x, y, z, id) }
	for x := -2; x <= 2; x++ {
		for z := -1; z <= 1; z++ {
			put(&target, x, -1, z, gridworld.Blue)
		}
	}
	for x := -2; x <= 2; x += 2 {
		put(&target, x, 0, 0, gridworld.Red)
		put(&target, x, 1, 0, gridworld.Yellow)
	}
	put(&target, 0, 2, 0, gridworld.Purple)
	put(&target, -1, 2, 0, gridworld.Green)
	put(&target, 1, 2, 0, gridworld.Orange)
	// built: the base and part of the pillars
	for x := -2; x <= 2; x++ {
		for z := -1; z <= 1; z++ {
			put(&built, x, -1, z, gridworld.Blue)
		}
	}
	put(&built, -2, 0, 0, gridworld.Red)
	put(&built, 0, 0, 0, gridworld.Red)
	put(&built, -2, 1, 0, gridworld.Yellow)
	put(&built, 3, -1, 3, gridworld.Green) // a wrong block
	return
}

func TestAtlasColours(t *testing.T) {
	a := Atlas()
	at := func(x, y int) [3]int {
		c := a.RGBAAt(x, y)
		return [3]int{int(c.R), int(c.G), int(c.B)}
	}
	near := func(got [3]int, want [3]uint8, tol int) bool {
		for i := range got {
			if abs(got[i]-int(want[i])) > tol {
				return false
			}
		}
		return true
	}
	for id := 1; id <= gridworld.NumColors; id++ {
		col, row := tileOf(id)
		sh := BlockShades[id]
		for _, q := range []struct {
			qx, qy int
			want   [3]uint8
			name   string
		}{{0, 1, [3]uint8{sh.Top.R, sh.Top.G, sh.Top.B}, "top"}, {1, 1, [3]uint8{sh.SideZ.R, sh.SideZ.G, sh.SideZ.B}, "±z"},
			{0, 0, [3]uint8{sh.SideX.R, sh.SideX.G, sh.SideX.B}, "±x"}, {1, 0, [3]uint8{sh.Bottom.R, sh.Bottom.G, sh.Bottom.B}, "bottom"}} {
			x0, y0 := col*tilePx+q.qx*quadPx, row*tilePx+q.qy*quadPx
			for y := 1; y < quadPx-1; y++ {
				for x := 1; x < quadPx-1; x++ {
					if got := at(x0+x, y0+y); !near(got, q.want, 5) {
						t.Fatalf("id %d %s interior texel (%d,%d) = %v, want %v ±5", id, q.name, x, y, got, q.want)
					}
				}
			}
		}
	}
	if got := at(5, 5); !near(got, [3]uint8{255, 255, 255}, 4) {
		t.Errorf("white ground interior %v", got)
	}
	if got := at(0, 5); got != [3]int{171, 171, 171} {
		t.Errorf("white ground frame %v", got)
	}
	if got := at(32, 5); got != [3]int{0, 0, 0} {
		t.Errorf("grey ground frame %v", got)
	}
	if got := at(40, 9); got[0] < 76 || got[0] > 85 || got[2] < got[0] {
		t.Errorf("grey ground interior %v", got)
	}
}

func TestMeshFullGridIsSmall(t *testing.T) {
	g := fullGrid()
	list := blocksOfGrid(g, nil, nil)
	set := blockSet{}
	for _, b := range list {
		set[[3]int{b.X, b.Y, b.Z}] = b.ID
	}
	var md meshData
	buildBlocks(&md, set, list, 1)
	// only the outer shell: 2·11·11 + 4·9·11 faces
	if want := 2*11*11 + 4*9*11; md.quads() != want {
		t.Errorf("full grid: %d quads, want %d", md.quads(), want)
	}
	// ground seen from far away with no far plane: the outer ring of single blocks plus a few
	// merged rectangles
	rects := groundLayout(nil, &mat4{3: {0, 0, 0, 100}}, 1000)
	cells := 0
	for _, r := range rects {
		cells += (r.x1 - r.x0 + 1) * (r.z1 - r.z0 + 1)
	}
	if cells != 37*37 || len(rects) > 4*36+10 {
		t.Errorf("ground layout: %d rectangles covering %d blocks", len(rects), cells)
	}
	// a far plane through the plate: the blocks it crosses are single, those beyond left out
	rects = groundLayout(nil, &mat4{3: {0, 0, -1, 20}}, 30)
	for _, r := range rects {
		if r.z0 <= -10 && r.z1 >= -10 && r.x0 != r.x1 {
			t.Errorf("merged rectangle %+v across the far plane", r)
		}
		if r.z1 < -11 {
			t.Errorf("rectangle %+v beyond the far plane", r)
		}
	}
}

func TestFullGridDrawCalls(t *testing.T) {
	r := testRenderer(t)
	_, target := lookScene()
	img := render(t, r, Scene{Grid: fullGrid(), Target: &target, ShowTarget: true,
		Agent: &Pose{Position: gridworld.Vec3{7, -0.25, 7}, Yaw: 225}, Camera: DefaultOrbit(), Width: 160, Height: 120})
	st := r.Stats()
	// ground, blocks, marker (the ghost is empty: every target cell is built)
	if st.DrawCalls > 4 || st.DrawCalls < 3 {
		t.Errorf("full grid: %d draw calls, want 3-4 (one mesh for all blocks)", st.DrawCalls)
	}
	t.Logf("full 9x11x11 grid: %d draw calls, %d quads", st.DrawCalls, st.Quads)
	if img.Bounds().Dx() != 160 || img.Bounds().Dy() != 120 {
		t.Errorf("size %v", img.Bounds())
	}
}

func TestCameraChangeDoesNotRebuild(t *testing.T) {
	r := testRenderer(t)
	st := gridworld.NewState([]gridworld.Block{{X: 0, Y: -1, Z: -3, ID: 1}}, gridworld.Vec3{0, -0.25, 0}, 0, -20)
	pov := r.POV()
	var err error
	onMain(func() { _, err = pov.RenderPOV(st, 64, 64) })
	if err != nil {
		t.Fatal(err)
	}
	before := r.Stats().MeshBuilds
	for i := 0; i < 10; i++ {
		st.SetPose(gridworld.Vec3{float64(i) * 0.1, -0.25, 0}, float64(i*10), -20)
		onMain(func() { _, err = pov.RenderPOV(st, 64, 64) })
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := r.Stats().MeshBuilds; got != before {
		t.Errorf("camera-only changes rebuilt meshes %d times", got-before)
	}
	st.SetPose(gridworld.Vec3{0, -0.25, 0}, 0, -30)
	st.PlaceOrBreak(true, false) // place a block in front
	onMain(func() { _, err = pov.RenderPOV(st, 64, 64) })
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Stats().MeshBuilds; got != before+1 {
		t.Errorf("a placed block caused %d rebuilds, want 1", got-before)
	}
	// grids: same contents, different pointer → no rebuild
	g1, g2 := fullGrid(), fullGrid()
	render(t, r, Scene{Grid: g1, Camera: DefaultOrbit()})
	b := r.Stats().MeshBuilds
	render(t, r, Scene{Grid: g2, Camera: OrbitCamera(gridworld.Vec3{}, 10, 80, 10)})
	if r.Stats().MeshBuilds != b {
		t.Errorf("equal grid contents rebuilt the mesh")
	}
}

func TestRenderSizesAndReuse(t *testing.T) {
	r := testRenderer(t)
	for _, sz := range [][2]int{{64, 64}, {640, 480}, {33, 17}, {64, 64}} {
		img := render(t, r, Scene{Camera: DefaultOrbit(), Width: sz[0], Height: sz[1]})
		if img.Bounds() != image.Rect(0, 0, sz[0], sz[1]) {
			t.Errorf("asked %v, got %v", sz, img.Bounds())
		}
		// top-left is sky in the default orbit view (row 0 = top)
		if c := img.RGBAAt(0, 0); c.R != 128 || c.G != 176 || c.B != 255 || c.A != 255 {
			t.Errorf("%v: top-left pixel %v, want sky", sz, c)
		}
	}
	var err error
	onMain(func() { _, err = r.Render(Scene{Width: -1, Height: 5}) })
	if err == nil {
		t.Error("negative size accepted")
	}
	dst := image.NewRGBA(image.Rect(0, 0, 64, 64))
	var got *image.RGBA
	onMain(func() { got, err = r.RenderInto(Scene{Camera: DefaultOrbit()}, dst) })
	if err != nil || got != dst {
		t.Errorf("RenderInto did not reuse dst (err %v)", err)
	}
}

func TestEnvWithPOV(t *testing.T) {
	r := testRenderer(t)
	cfg := gridworld.EnvDefaults()
	cfg.Renderer = r.POV()
	env, err := gridworld.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	env.SetTask(gridworld.BenchTasks(1)[0].Task)
	onMain(func() {
		var obs *gridworld.Observation
		if obs, err = env.Reset(); err != nil {
			return
		}
		for i := 0; i < 20 && err == nil; i++ {
			obs, _, _, err = env.Step(env.SampleAction())
		}
		if err == nil && (obs.POV == nil || obs.POV.Bounds().Dx() != 64) {
			err = errors.New("no 64x64 pov in the observation")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOrbitGolden renders a built structure with the target ghost and the agent from the orbit
// camera and compares it with testdata/orbit_ghost.png (-update rewrites it).
func TestOrbitGolden(t *testing.T) {
	r := testRenderer(t)
	built, target := lookScene()
	img := render(t, r, Scene{Grid: &built, Target: &target, ShowTarget: true,
		Agent:  &Pose{Position: gridworld.Vec3{3, -0.25, 4}, Yaw: 315},
		Camera: DefaultOrbit(), Width: 320, Height: 240})
	golden := filepath.Join("testdata", "orbit_ghost.png")
	if *update {
		writePNG(t, golden, img)
		t.Logf("wrote %s", golden)
		return
	}
	ref := readPNG(t, golden)
	d := compare(ref, img, 8)
	t.Logf("orbit golden: %s", d)
	if d.Within < 0.99 {
		out := filepath.Join("testdata", "failed", "orbit_ghost.png")
		writePNG(t, out, sideBySide(ref, img, 8))
		t.Errorf("orbit view differs from %s: %s (see %s)", golden, d, out)
	}
}

// TestNoDisplay runs New in child processes without a usable display: it must return an
// error (wrapping ErrNoDisplay), not crash.
func TestNoDisplay(t *testing.T) {
	if os.Getenv("RENDER_TEST_CHILD") == "nodisplay" {
		var r *Renderer
		var err error
		onMain(func() { r, err = New(Options{OwnGLFW: true}) })
		if err == nil {
			r.Close()
			t.Fatalf("New succeeded with DISPLAY=%q", os.Getenv("DISPLAY"))
		}
		if !errors.Is(err, ErrNoDisplay) {
			t.Fatalf("error does not wrap ErrNoDisplay: %v", err)
		}
		t.Logf("New: %v", err)
		return
	}
	for _, display := range []string{"", ":4077"} { // unset; set but no server there
		cmd := exec.Command(os.Args[0], "-test.run=^TestNoDisplay$", "-test.v")
		var env []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
				env = append(env, kv)
			}
		}
		env = append(env, "RENDER_TEST_CHILD=nodisplay")
		if display != "" {
			env = append(env, "DISPLAY="+display)
		}
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("DISPLAY=%q: child failed: %v\n%s", display, err, out)
			continue
		}
		if !strings.Contains(string(out), "New: ") {
			t.Errorf("DISPLAY=%q: child did not exercise New:\n%s", display, out)
		}
	}
}

// TestBenchPOV runs BenchPOV (its own GLFW initialisation) briefly.
func TestBenchPOV(t *testing.T) {
	testRenderer(t) // skip without a display
	var res gridworld.BenchResult
	var err error
	onMain(func() { res, err = BenchPOV(gridworld.BenchConfig{Steps: 2000, Seed: 1}, 64, 64) })
	if err != nil {
		t.Fatal(err)
	}
	if res.StepsPerSecond <= 0 || res.ResetsPerSecond <= 0 || res.IntersectionUS <= 0 {
		t.Errorf("bad result %+v", res)
	}
	t.Logf("BenchPOV 64x64: %+v", res)
}

// TestNoOpenGL33 runs New in a child process whose Mesa offers only OpenGL 2.1 (enough for
// fyne, not for the renderer): it must return an error and clean up, not crash.
func TestNoOpenGL33(t *testing.T) {
	if os.Getenv("RENDER_TEST_CHILD") == "nogl33" {
		var r *Renderer
		var err error
		onMain(func() { r, err = New(Options{OwnGLFW: true}) })
		if err == nil {
			r.Close()
			t.Skip("this OpenGL offers 3.3 despite the override")
		}
		t.Logf("New: %v", err)
		return
	}
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no display: run under xvfb-run")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoOpenGL33$", "-test.v")
	cmd.Env = append(os.Environ(), "RENDER_TEST_CHILD=nogl33", "MESA_GL_VERSION_OVERRIDE=2.1", "MESA_GLSL_VERSION_OVERRIDE=120")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child crashed or failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "New: ") && !strings.Contains(string(out), "SKIP") {
		t.Fatalf("child did not exercise New:\n%s", out)
	}
	t.Logf("%s", out)
}
