// Package render draws gridworld scenes with g3n and OpenGL, off screen, into image.RGBA
// values. It is the only package of the app that touches g3n, GLFW or OpenGL; the UI shows
// the images in a canvas.Image.
//
// What it draws: the ground plate (white inside the 11×11 footprint with grey grid lines,
// noisy grey outside, out to 37×37), the built blocks (one merged mesh for all colours:
// a full 9×11×11 grid is one draw call), optionally the target as translucent ghost blocks and
// an agent marker, seen from the exact first-person camera of specs/gridworld.md §10 (POVCamera;
// the pov observation) or from an orbit camera (OrbitCamera, DefaultOrbit) for the UI. The
// block texture is this package's own procedural atlas (Atlas) with the layout and colours of
// spec §3.2. There is no lighting and no fog; the sky is gridworld.SkyColor.
//
// # Threads
//
// GLFW and the renderer's OpenGL context live on the main OS thread. Every call — New, Render,
// RenderInto, POV().RenderPOV, Close — must run there. Each call makes the renderer's context
// current, draws into a framebuffer object, reads the pixels back (row 0 = top) and, unless the
// renderer owns GLFW, detaches the context again so that fyne's own context handling is not
// disturbed. Meshes are cached: the block mesh is rebuilt only when the world changes (State
// pointer and Version, or Grid contents), the ghost mesh only when the target or the world
// changes; moving the camera never rebuilds geometry.
//
// # Wiring inside the fyne app
//
//	var rdr *render.Renderer
//	a.Lifecycle().SetOnStarted(func() {      // fyne runs lifecycle hooks on the main thread
//		var err error
//		rdr, err = render.New(render.Options{Width: 640, Height: 480}) // OwnGLFW: false
//		if err != nil { /* show "3D view unavailable: " + err.Error(); keep rdr nil */ }
//	})
//	// each frame (from a ticker goroutine, ~30 fps, or after each env step):
//	fyne.DoAndWait(func() {
//		if rdr == nil { return }
//		img, err := rdr.Render(render.Scene{State: env.State(), Target: &target, ShowTarget: true,
//			Agent: &render.Pose{Position: st.Position(), Yaw: st.Yaw()},
//			Camera: render.OrbitCamera(gridworld.Vec3{0, 1, 0}, dist, az, el), Width: w, Height: h})
//		if err == nil { image.Image = img; image.Refresh() }
//	})
//	win.SetOnClosed(func() { rdr.Close() }) // stop the ticker first; before fyne terminates GLFW
//
// The app's OnStopped hook is too late for Close (fyne has terminated GLFW by then). Render
// returns a fresh image per call, so a canvas.Image may keep showing it; RenderInto reuses one.
// An environment stepped in the UI can use rdr.POV() as gridworld.Config.Renderer as long as
// it is stepped inside fyne.DoAndWait too.
//
// # Command line
//
// Without fyne, create the renderer with Options{OwnGLFW: true} (it initialises and later
// terminates GLFW) from the main goroutine locked to the main thread:
//
//	func init() { runtime.LockOSThread() } // in package main
//
// BenchPOV does exactly that internally for `gridworld bench --pov`. Without a display
// (DISPLAY unset, no Xvfb) New returns an error wrapping ErrNoDisplay instead of crashing; run
// headless with `xvfb-run -a`.
package render
