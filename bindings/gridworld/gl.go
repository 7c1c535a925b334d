//go:build agdgl

package main

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	gw "github.com/agentdesk/agentdesk/engine/gridworld"
	"github.com/agentdesk/agentdesk/engine/render"
)

// This file is in libagentdesk_gridworld_gl.so only (go build -tags agdgl): the OpenGL pov
// renderer on a thread of its own. Python's threads come and go; OpenGL wants every call on
// the thread that made its context current, so one goroutine locked to one OS thread owns
// GLFW and the renderer for the life of the process, and handles that render send it their
// whole call (a step of all their environments) as one piece of work.

func init() { openRenderHost = glHost }

type glThread struct {
	work chan func()
	r    *render.Renderer
}

var (
	glMu   sync.Mutex
	glLive *glThread
)

// glHost starts the OpenGL thread on first use. A failure (no display) is returned and not
// kept: a later environment tries again, e.g. once Xvfb runs.
func glHost() (renderHost, error) {
	glMu.Lock()
	defer glMu.Unlock()
	if glLive != nil {
		return glLive, nil
	}
	t := &glThread{work: make(chan func())}
	ready := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread belongs to OpenGL
		r, err := render.New(render.Options{Width: 64, Height: 64, OwnGLFW: true})
		if err != nil {
			ready <- err
			return
		}
		t.r = r
		ready <- nil
		for f := range t.work {
			f()
		}
	}()
	if err := <-ready; err != nil {
		if errors.Is(err, render.ErrNoDisplay) {
			return nil, fmt.Errorf("%w (or pass render=False)", err)
		}
		return nil, err
	}
	glLive = t
	return t, nil
}

func (t *glThread) Do(f func() error) (err error) {
	done := make(chan struct{})
	t.work <- func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("internal error: %v", r)
			}
		}()
		err = f()
	}
	<-done
	return err
}

func (t *glThread) POV() gw.POVRenderer { return t.r.POV() }
