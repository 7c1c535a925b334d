package render

// A few OpenGL entry points that g3n's gls wrapper does not expose (framebuffer and
// renderbuffer objects, a read-back into caller memory). They are resolved at run time with
// glfwGetProcAddress while the renderer's context is current, and called through tiny C
// trampolines, so nothing here depends on how g3n or the system links libGL.

/*
#include <stddef.h>

typedef unsigned int adk_enum;
typedef unsigned int adk_uint;
typedef int adk_int;
typedef int adk_sizei;

typedef void (*adk_gen_fn)(adk_sizei, adk_uint*);
typedef void (*adk_bind_fn)(adk_enum, adk_uint);
typedef void (*adk_storage_fn)(adk_enum, adk_enum, adk_sizei, adk_sizei);
typedef void (*adk_attach_fn)(adk_enum, adk_enum, adk_enum, adk_uint);
typedef adk_enum (*adk_status_fn)(adk_enum);
typedef void (*adk_read_fn)(adk_int, adk_int, adk_sizei, adk_sizei, adk_enum, adk_enum, void*);
typedef adk_enum (*adk_geterror_fn)(void);
typedef void (*adk_pixelstore_fn)(adk_enum, adk_int);
typedef void (*adk_void_fn)(void);

static void adk_gen(void *f, adk_sizei n, adk_uint *ids) { ((adk_gen_fn)f)(n, ids); }
static void adk_del(void *f, adk_sizei n, adk_uint *ids) { ((adk_gen_fn)f)(n, ids); }
static void adk_bind(void *f, adk_enum t, adk_uint id) { ((adk_bind_fn)f)(t, id); }
static void adk_storage(void *f, adk_enum t, adk_enum fmt, adk_sizei w, adk_sizei h) { ((adk_storage_fn)f)(t, fmt, w, h); }
static void adk_attach(void *f, adk_enum t, adk_enum a, adk_enum rt, adk_uint id) { ((adk_attach_fn)f)(t, a, rt, id); }
static adk_enum adk_status(void *f, adk_enum t) { return ((adk_status_fn)f)(t); }
static void adk_read(void *f, adk_int x, adk_int y, adk_sizei w, adk_sizei h, adk_enum fmt, adk_enum typ, void *dst) { ((adk_read_fn)f)(x, y, w, h, fmt, typ, dst); }
static adk_enum adk_geterror(void *f) { return ((adk_geterror_fn)f)(); }
static void adk_pixelstore(void *f, adk_enum p, adk_int v) { ((adk_pixelstore_fn)f)(p, v); }
static void adk_void(void *f) { ((adk_void_fn)f)(); }
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/go-gl/glfw/v3.3/glfw"
)

const (
	glFramebuffer         = 0x8D40
	glRenderbuffer        = 0x8D41
	glColorAttachment0    = 0x8CE0
	glDepthAttachment     = 0x8D00
	glFramebufferComplete = 0x8CD5
	glRGBA8               = 0x8058
	glDepthComponent24    = 0x81A6
	glRGBA                = 0x1908
	glUnsignedByte        = 0x1401
	glPackAlignment       = 0x0D05
	glNoError             = 0
)

// glExt holds the resolved entry points; valid for the context they were loaded in (and any
// context of the same driver).
type glExt struct {
	genFramebuffers, deleteFramebuffers, bindFramebuffer        unsafe.Pointer
	genRenderbuffers, deleteRenderbuffers, bindRenderbuffer     unsafe.Pointer
	renderbufferStorage, framebufferRenderbuffer, checkFBStatus unsafe.Pointer
	readPixels, getError, pixelStorei, finish                   unsafe.Pointer
}

// loadGLExt resolves the entry points; the renderer's context must be current.
func loadGLExt() (*glExt, error) {
	e := &glExt{}
	for _, p := range []struct {
		dst  *unsafe.Pointer
		name string
	}{
		{&e.genFramebuffers, "glGenFramebuffers"},
		{&e.deleteFramebuffers, "glDeleteFramebuffers"},
		{&e.bindFramebuffer, "glBindFramebuffer"},
		{&e.genRenderbuffers, "glGenRenderbuffers"},
		{&e.deleteRenderbuffers, "glDeleteRenderbuffers"},
		{&e.bindRenderbuffer, "glBindRenderbuffer"},
		{&e.renderbufferStorage, "glRenderbufferStorage"},
		{&e.framebufferRenderbuffer, "glFramebufferRenderbuffer"},
		{&e.checkFBStatus, "glCheckFramebufferStatus"},
		{&e.readPixels, "glReadPixels"},
		{&e.getError, "glGetError"},
		{&e.pixelStorei, "glPixelStorei"},
		{&e.finish, "glFinish"},
	} {
		*p.dst = glfw.GetProcAddress(p.name)
		if *p.dst == nil {
			return nil, fmt.Errorf("render: OpenGL function %s not available", p.name)
		}
	}
	return e, nil
}

func (e *glExt) drainErrors() uint32 {
	var first uint32
	for i := 0; i < 16; i++ {
		c := uint32(C.adk_geterror(e.getError))
		if c == glNoError {
			break
		}
		if first == 0 {
			first = c
		}
	}
	return first
}

// fbo is an off-screen framebuffer with an RGBA8 colour and a 24-bit depth renderbuffer.
type fbo struct {
	w, h             int
	fb, color, depth C.adk_uint
}

func (e *glExt) newFBO(w, h int) (*fbo, error) {
	f := &fbo{w: w, h: h}
	C.adk_gen(e.genFramebuffers, 1, &f.fb)
	C.adk_gen(e.genRenderbuffers, 1, &f.color)
	C.adk_gen(e.genRenderbuffers, 1, &f.depth)
	C.adk_bind(e.bindRenderbuffer, glRenderbuffer, f.color)
	C.adk_storage(e.renderbufferStorage, glRenderbuffer, glRGBA8, C.adk_sizei(w), C.adk_sizei(h))
	C.adk_bind(e.bindRenderbuffer, glRenderbuffer, f.depth)
	C.adk_storage(e.renderbufferStorage, glRenderbuffer, glDepthComponent24, C.adk_sizei(w), C.adk_sizei(h))
	C.adk_bind(e.bindRenderbuffer, glRenderbuffer, 0)
	C.adk_bind(e.bindFramebuffer, glFramebuffer, f.fb)
	C.adk_attach(e.framebufferRenderbuffer, glFramebuffer, glColorAttachment0, glRenderbuffer, f.color)
	C.adk_attach(e.framebufferRenderbuffer, glFramebuffer, glDepthAttachment, glRenderbuffer, f.depth)
	st := uint32(C.adk_status(e.checkFBStatus, glFramebuffer))
	if st != glFramebufferComplete {
		e.deleteFBO(f)
		return nil, fmt.Errorf("render: framebuffer %dx%d incomplete (status 0x%x)", w, h, st)
	}
	if err := e.drainErrors(); err != 0 {
		e.deleteFBO(f)
		return nil, fmt.Errorf("render: creating framebuffer %dx%d: GL error 0x%x", w, h, err)
	}
	return f, nil
}

func (e *glExt) bindFBO(f *fbo) {
	if f == nil {
		C.adk_bind(e.bindFramebuffer, glFramebuffer, 0)
		return
	}
	C.adk_bind(e.bindFramebuffer, glFramebuffer, f.fb)
}

func (e *glExt) deleteFBO(f *fbo) {
	C.adk_bind(e.bindFramebuffer, glFramebuffer, 0)
	C.adk_del(e.deleteFramebuffers, 1, &f.fb)
	C.adk_del(e.deleteRenderbuffers, 1, &f.color)
	C.adk_del(e.deleteRenderbuffers, 1, &f.depth)
}

// readRGBA reads the bound framebuffer's w×h pixels (bottom row first) into dst.
func (e *glExt) readRGBA(w, h int, dst []byte) {
	C.adk_pixelstore(e.pixelStorei, glPackAlignment, 1)
	C.adk_read(e.readPixels, 0, 0, C.adk_sizei(w), C.adk_sizei(h), glRGBA, glUnsignedByte, unsafe.Pointer(&dst[0]))
}
