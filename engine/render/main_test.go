package render

import (
	"image"
	"os"
	"runtime"
	"sync"
	"testing"
)

// GLFW and the GL context must stay on the main OS thread: TestMain keeps the main goroutine
// locked there and runs GL work sent through onMain while the tests run in other goroutines.

func init() { runtime.LockOSThread() }

var mainq = make(chan func())

func TestMain(m *testing.M) {
	done := make(chan int)
	go func() { done <- m.Run() }()
	for {
		select {
		case f := <-mainq:
			f()
		case code := <-done:
			closeShared()
			os.Exit(code)
		}
	}
}

// onMain runs f on the main thread and waits for it.
func onMain(f func()) {
	d := make(chan struct{})
	mainq <- func() {
		defer close(d)
		f()
	}
	<-d
}

var (
	sharedOnce sync.Once
	shared     *Renderer
	sharedErr  error
)

// testRenderer returns the renderer shared by the tests. Without a display (DISPLAY unset) the
// test is skipped; with a display, failing to create the renderer fails the test.
func testRenderer(t testing.TB) *Renderer {
	t.Helper()
	if runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		t.Skip("no display (DISPLAY unset): OpenGL tests need one; run them with `xvfb-run -a go test ./engine/render/`")
	}
	sharedOnce.Do(func() {
		onMain(func() { shared, sharedErr = New(Options{Width: 64, Height: 64, OwnGLFW: true}) })
	})
	if sharedErr != nil {
		t.Fatalf("creating the renderer with DISPLAY=%q: %v", os.Getenv("DISPLAY"), sharedErr)
	}
	return shared
}

func closeShared() {
	if shared != nil {
		shared.Close()
	}
}

// render renders on the main thread.
func render(t testing.TB, r *Renderer, s Scene) *image.RGBA {
	t.Helper()
	var img *image.RGBA
	var err error
	onMain(func() { img, err = r.Render(s) })
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	return img
}
