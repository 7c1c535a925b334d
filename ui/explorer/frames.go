package explorer

import (
	"bytes"
	"fmt"
	"image"
	"io"
	"sync"
	"time"

	xdraw "golang.org/x/image/draw"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/odyssey"
)

// Frames of the episode on show: read from the screenshot archives (closed after a while idle), fitted and thumbnailed.

// fitFrame scales img down so that its longer side is at most n pixels.
func fitFrame(img image.Image, n int) image.Image {
	b := img.Bounds()
	if b.Dx() <= n && b.Dy() <= n {
		return img
	}
	w, h := n, max(1, b.Dy()*n/b.Dx())
	if b.Dy() > b.Dx() {
		w, h = max(1, b.Dx()*n/b.Dy()), n
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, xdraw.Src, nil)
	return dst
}

// thumbnail scales img to height h (keeping its aspect ratio).
func thumbnail(img image.Image, h int) image.Image {
	b := img.Bounds()
	if b.Dy() <= h {
		return img
	}
	w := max(1, b.Dx()*h/b.Dy())
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, xdraw.Src, nil)
	return dst
}

// frameSource reads the Explorer's frames: from the store, a screenshot file or a member of a
// zipped screenshot archive (GUI Odyssey's references). The archives stay open while frames are
// being read and are closed after a while without reads: the index of a full-size dataset's
// archive (129k members) takes about 40 MB, and browsing the table needs no frame.
type frameSource struct {
	shots *odyssey.Screenshots
	idle  time.Duration
	mu    sync.Mutex
	timer *time.Timer
}

func newFrameSource(idle time.Duration) *frameSource {
	return &frameSource{shots: odyssey.NewScreenshots(2), idle: idle}
}

// load decodes a step's frame at its own size.
func (f *frameSource) load(step *episode.Step) (image.Image, error) {
	data := step.Observation
	if len(data) == 0 {
		if step.ObservationRef == "" {
			return nil, fmt.Errorf("step %d has no frame", step.Index+1)
		}
		f.touch()
		r, err := f.shots.Open(step.ObservationRef)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", step.Index+1, err)
		}
		data, err = io.ReadAll(r)
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", step.Index+1, err)
		}
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("step %d frame: %w", step.Index+1, err)
	}
	return img, nil
}

// fitted is the viewers' frame loader: the step's frame, scaled down to frameMaxSide.
func (f *frameSource) fitted(step *episode.Step) (image.Image, error) {
	img, err := f.load(step)
	if err != nil {
		return nil, err
	}
	return fitFrame(img, frameMaxSide), nil
}

// touch restarts the idle countdown after which the archives are closed (a later read opens
// them again).
func (f *frameSource) touch() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.timer == nil {
		f.timer = time.AfterFunc(f.idle, func() { f.shots.Close() })
		return
	}
	f.timer.Reset(f.idle)
}

// close lets the archives go now.
func (f *frameSource) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.timer != nil {
		f.timer.Stop()
	}
	f.shots.Close()
}
