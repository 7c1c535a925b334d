package render

import (
	"fmt"
	"image"
	"time"

	"github.com/agentdesk/agentdesk/engine/gridworld"
)

// povRenderer adapts a Renderer to gridworld.POVRenderer; it reuses one image per size.
type povRenderer struct {
	r   *Renderer
	img *image.RGBA
}

// POV returns a gridworld.POVRenderer (for gridworld.Config.Renderer) drawing the
// first-person view of spec §10. The returned image is reused by the next call. The thread
// rules of Renderer apply: an Env using it must be stepped on the main thread (not in a
// gridworld.Batch, whose workers run on other threads).
func (r *Renderer) POV() gridworld.POVRenderer { return &povRenderer{r: r} }

func (p *povRenderer) RenderPOV(s *gridworld.State, w, h int) (*image.RGBA, error) {
	img, err := p.r.RenderInto(Scene{State: s, Camera: POVCamera(s), Width: w, Height: h}, p.img)
	if err != nil {
		return nil, err
	}
	p.img = img
	return img, nil
}

// DefaultPOVBenchSteps is the number of steps BenchPOV runs when cfg.Steps is 0.
const DefaultPOVBenchSteps = 20000

// BenchPOV measures the environment with the pov observation rendered on every step and every
// reset, at width×height (64×64 is the environment's default), and returns the same JSON keys
// as gridworld.RunBench: steps_per_second (random actions of cfg.ActionSpace, 250-step
// episodes on the bench tasks, automatic resets, cfg.Steps steps in total, default
// DefaultPOVBenchSteps), resets_per_second (one env drawing a new task on every reset,
// including the reset's pov) and intersection_us (the maximal intersection alone, as in
// RunBench). cfg.Envs environments are stepped round-robin on the calling thread: OpenGL is
// single-threaded, so they do not run in parallel.
//
// BenchPOV initialises and terminates GLFW itself (OwnGLFW), so it must not run while fyne or
// another GLFW user is active, and it must be called on the process's main OS thread: in
// package main add
//
//	func init() { runtime.LockOSThread() }
//
// and call BenchPOV from the main goroutine (e.g. directly from the CLI command's handler when
// the CLI runs on the main goroutine). Without a display it returns an error wrapping
// ErrNoDisplay.
func BenchPOV(cfg gridworld.BenchConfig, width, height int) (gridworld.BenchResult, error) {
	var res gridworld.BenchResult
	if width <= 0 || height <= 0 {
		width, height = 64, 64
	}
	if cfg.Envs <= 0 {
		cfg.Envs = 1
	}
	if cfg.Steps <= 0 {
		cfg.Steps = DefaultPOVBenchSteps
	}
	r, err := New(Options{Width: width, Height: height, OwnGLFW: true})
	if err != nil {
		return res, err
	}
	defer r.Close()

	ec, err := gridworld.BenchEnvConfig(cfg)
	if err != nil {
		return res, err
	}
	ec.Render = true
	ec.RenderSize = [2]int{width, height}
	ec.Renderer = r.POV()
	tasks := gridworld.BenchTasks(cfg.Seed)
	envs := make([]*gridworld.Env, cfg.Envs)
	for i := range envs {
		c := ec
		c.Seed = cfg.Seed + uint64(i)
		e, err := gridworld.New(c)
		if err != nil {
			return res, err
		}
		e.SetTask(tasks[i%len(tasks)].Task)
		if _, err := e.Reset(); err != nil {
			return res, err
		}
		envs[i] = e
	}
	start := time.Now()
	for s := 0; s < cfg.Steps; s++ {
		e := envs[s%len(envs)]
		_, _, done, err := e.Step(e.SampleAction())
		if err != nil {
			return res, fmt.Errorf("render: bench step %d: %w", s, err)
		}
		if done {
			if _, err := e.Reset(); err != nil {
				return res, err
			}
		}
	}
	res.StepsPerSecond = float64(cfg.Steps) / time.Since(start).Seconds()

	// resets with pov: one environment cycling through the bench tasks
	e := envs[0]
	nReset := 500
	start = time.Now()
	for i := 0; i < nReset; i++ {
		e.SetTask(tasks[i%len(tasks)].Task)
		if _, err := e.Reset(); err != nil {
			return res, err
		}
	}
	res.ResetsPerSecond = float64(nReset) / time.Since(start).Seconds()

	res.IntersectionUS = gridworld.BenchIntersectionUS(cfg.Seed)
	return res, nil
}
