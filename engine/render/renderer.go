package render

import (
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"

	"github.com/agentdesk/agentdesk/engine/gridworld"
	"github.com/g3n/engine/core"
	"github.com/g3n/engine/geometry"
	"github.com/g3n/engine/gls"
	"github.com/g3n/engine/graphic"
	"github.com/g3n/engine/material"
	g3nrenderer "github.com/g3n/engine/renderer"
	"github.com/g3n/engine/texture"
	"github.com/go-gl/glfw/v3.3/glfw"
)

// ErrNoDisplay is returned by New when there is no display to open an OpenGL context on
// (DISPLAY unset on Linux, or GLFW cannot initialise). Tests skip on it.
var ErrNoDisplay = errors.New("render: no display available for OpenGL (DISPLAY is unset or GLFW cannot initialise; run under xvfb-run)")

// ErrClosed is returned when a closed Renderer is used.
var ErrClosed = errors.New("render: renderer is closed")

// MaxSize bounds the width and height of a rendered image.
const MaxSize = 8192

// Options configure New.
type Options struct {
	// Width and Height size the first framebuffer (default 64×64). Scenes may ask for other
	// sizes; the renderer keeps a few framebuffers, one per size in use.
	Width, Height int
	// OwnGLFW makes the renderer initialise GLFW in New and terminate it in Close (command-line
	// use, no fyne; several such renderers share one initialisation, the last Close
	// terminates). With OwnGLFW false, GLFW must already be initialised (fyne started) and
	// the renderer detaches its context after every call, leaving no context current.
	OwnGLFW bool
}

// Pose is an agent pose for the marker drawn in orbit views.
type Pose struct {
	Position   gridworld.Vec3 // the eye, as gridworld.State.Position
	Yaw, Pitch float64        // degrees, as gridworld.State
}

// Scene is what one Render draws. The world's blocks come from State when it is set (every
// placed block, also outside the build zone; meshes are cached on the State pointer and its
// Version), otherwise from Grid (cached on the grid's contents). The ground plate is always
// drawn.
type Scene struct {
	State *gridworld.State
	Grid  *gridworld.Grid
	// Target is drawn as translucent "ghost" blocks when ShowTarget is set, except in cells
	// that hold a built block.
	Target     *gridworld.Grid
	ShowTarget bool
	// Agent, when non-nil, draws a marker (body and a nose pointing along the yaw).
	Agent  *Pose
	Camera Camera
	// Width and Height of the image; zero means the Options' size.
	Width, Height int
}

// Stats counts work done by a Renderer (for tests and diagnostics).
type Stats struct {
	Frames int // frames rendered
	// MeshBuilds counts rebuilds of the block and ghost meshes (camera changes never rebuild
	// them). The ground's few hundred vertices are re-laid out only when the far plane moves
	// across the plate (high flying views); that is not counted.
	MeshBuilds int
	DrawCalls  int // draw calls of the last frame (≤ 4: ground, blocks, ghost, marker)
	Quads      int // quads of the last frame's meshes
}

// Renderer draws gridworld scenes off screen with g3n into an OpenGL framebuffer and reads
// the pixels back into an image.RGBA.
//
// Thread rules: New, Render, RenderInto, POV().RenderPOV and Close must all run on the OS
// thread that owns GLFW — the process's main thread (GLFW requires it for window creation;
// the OpenGL context is made current on the calling thread). In a fyne app that means inside
// fyne.DoAndWait (or a lifecycle hook, which fyne runs on the main thread). In a command-line
// program, lock the main goroutine to the main thread with runtime.LockOSThread in an init
// function of package main and call the renderer from the main goroutine. A Renderer is
// guarded by a mutex, but calls from another thread would still break GLFW's rules.
type Renderer struct {
	mu     sync.Mutex
	opts   Options
	win    *glfw.Window
	gs     *gls.GLS
	rend   *g3nrenderer.Renderer
	ext    *glExt
	fbos   []*fbo
	atlas  *texture.Texture2D
	scene  *core.Node
	closed bool

	ground, blocks, ghost, marker  *voxMesh
	opaqueMat, ghostMat, groundMat *voxMaterial
	lastKind                       CameraKind
	blocksMD, ghostMD, groundMD    meshData
	groundRects, groundScratch     []groundRect
	groundWork                     *groundWork

	// world cache
	worldValid    bool
	worldState    *gridworld.State
	worldVersion  uint64
	worldGrid     gridworld.Grid
	worldGen      uint64
	worldSet      blockSet
	worldList     []gridworld.Block
	ghostValid    bool
	ghostTarget   gridworld.Grid
	ghostWorldGen uint64
	ghostList     []gridworld.Block

	buf   []byte
	cam   fixedCamera
	stats Stats
}

// New creates the renderer: a hidden 16×16 GLFW window with an OpenGL 3.3 core,
// forward-compatible context, g3n's GL state and shader manager, the atlas texture, the
// meshes and a framebuffer. It must be called on the main thread (see Renderer). It returns
// an error, never panics, when there is no display or no suitable OpenGL.
func New(opts Options) (r *Renderer, err error) {
	if opts.Width <= 0 || opts.Height <= 0 {
		opts.Width, opts.Height = 64, 64
	}
	if opts.Width > MaxSize || opts.Height > MaxSize {
		return nil, fmt.Errorf("render: size %dx%d exceeds %d", opts.Width, opts.Height, MaxSize)
	}
	if runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return nil, ErrNoDisplay
	}
	r = &Renderer{opts: opts, lastKind: CameraKind(-1)} // the first RenderInto sets the camera kind's state
	// The error returns below set the result r to nil before this cleanup runs: keep our own
	// reference so that a half-made renderer (its window, its framebuffers) is destroyed.
	self := r
	initialised := false
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", ErrNoDisplay, p)
		}
		if err != nil {
			self.destroy()
			if opts.OwnGLFW && initialised {
				glfwRelease()
			}
			r = nil
		}
	}()
	if opts.OwnGLFW {
		if err := glfwAcquire(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNoDisplay, err)
		}
		initialised = true
	}
	glfw.WindowHint(glfw.Visible, glfw.False)
	glfw.WindowHint(glfw.Focused, glfw.False)
	glfw.WindowHint(glfw.Resizable, glfw.False)
	glfw.WindowHint(glfw.ContextVersionMajor, 3)
	glfw.WindowHint(glfw.ContextVersionMinor, 3)
	glfw.WindowHint(glfw.OpenGLProfile, glfw.OpenGLCoreProfile)
	glfw.WindowHint(glfw.OpenGLForwardCompatible, glfw.True)
	win, werr := glfw.CreateWindow(16, 16, "agentdesk render", nil, nil)
	glfw.DefaultWindowHints() // do not leak our hints into fyne's windows
	if werr != nil {
		return nil, fmt.Errorf("render: creating the hidden OpenGL 3.3 window: %w", werr)
	}
	r.win = win
	win.MakeContextCurrent()
	defer r.release()

	gs, gerr := gls.New()
	if gerr != nil {
		return nil, fmt.Errorf("render: loading OpenGL: %w", gerr)
	}
	// g3n's error checking would exit(1) the process on a GL error; errors are checked with
	// glGetError at the end of every frame instead.
	gs.SetCheckErrors(false)
	r.gs = gs
	if r.ext, err = loadGLExt(); err != nil {
		return nil, err
	}
	r.rend = g3nrenderer.NewRenderer(gs)
	if err := r.rend.AddDefaultShaders(); err != nil {
		return nil, fmt.Errorf("render: registering shaders: %w", err)
	}
	r.rend.AddShader(shaderVertexName, voxelVertexShader)
	r.rend.AddShader(shaderFragmentName, voxelFragmentShader)
	r.rend.AddProgram(shaderProgramName, shaderVertexName, shaderFragmentName)
	r.rend.AddShader(groundVertexName, groundVertexShader)
	r.rend.AddShader(groundFragmentName, groundFragmentShader)
	r.rend.AddProgram(groundProgramName, groundVertexName, groundFragmentName)
	r.rend.SetObjectSorting(true)

	r.atlas = texture.NewTexture2DFromRGBA(Atlas())
	r.atlas.SetMagFilter(gls.NEAREST)
	r.atlas.SetWrapS(gls.CLAMP_TO_EDGE)
	r.atlas.SetWrapT(gls.CLAMP_TO_EDGE)

	r.opaqueMat = newVoxMaterial(r.atlas, [4]float32{1, 1, 1, 1}, false)
	r.groundMat = newVoxMaterial(r.atlas, [4]float32{1, 1, 1, 1}, false)
	r.groundMat.SetShader(groundProgramName)
	r.ghostMat = newVoxMaterial(r.atlas, [4]float32{1.15, 1.15, 1.15, 0.42}, true)

	r.scene = core.NewNode()
	var markerMD meshData
	buildMarker(&markerMD)
	r.ground = newVoxMesh(&meshData{}, r.groundMat)
	r.blocks = newVoxMesh(&meshData{}, r.opaqueMat)
	r.ghost = newVoxMesh(&meshData{}, r.ghostMat)
	r.marker = newVoxMesh(&markerMD, r.opaqueMat)
	r.ghost.SetRenderOrder(1)
	for _, m := range []*voxMesh{r.ground, r.blocks, r.ghost, r.marker} {
		r.scene.Add(m)
	}
	if _, err := r.fboFor(opts.Width, opts.Height); err != nil {
		return nil, err
	}
	if e := r.ext.drainErrors(); e != 0 {
		return nil, fmt.Errorf("render: OpenGL error 0x%x during setup", e)
	}
	return r, nil
}

// makeCurrent makes the renderer's context current on the calling thread.
func (r *Renderer) makeCurrent() {
	if glfw.GetCurrentContext() != r.win {
		r.win.MakeContextCurrent()
	}
}

// release detaches the context unless the renderer owns GLFW (then nobody else uses GL on this
// thread and keeping it current saves a context switch per frame).
func (r *Renderer) release() {
	if !r.opts.OwnGLFW && r.win != nil {
		glfw.DetachCurrentContext()
	}
}

// fboFor returns (and binds) a framebuffer of the given size, keeping the four most recent.
func (r *Renderer) fboFor(w, h int) (*fbo, error) {
	for i, f := range r.fbos {
		if f.w == w && f.h == h {
			if i != 0 { // move to front
				copy(r.fbos[1:i+1], r.fbos[:i])
				r.fbos[0] = f
			}
			r.ext.bindFBO(f)
			return f, nil
		}
	}
	f, err := r.ext.newFBO(w, h)
	if err != nil {
		return nil, err
	}
	r.fbos = append([]*fbo{f}, r.fbos...)
	if len(r.fbos) > 4 {
		r.ext.deleteFBO(r.fbos[4])
		r.fbos = r.fbos[:4]
	}
	r.ext.bindFBO(f)
	return f, nil
}

// Render draws the scene into a new image (row 0 = top). See Renderer for the thread rules.
func (r *Renderer) Render(s Scene) (*image.RGBA, error) { return r.RenderInto(s, nil) }

// RenderInto draws the scene into dst when dst has the scene's size (otherwise into a new
// image) and returns the image written.
func (r *Renderer) RenderInto(s Scene, dst *image.RGBA) (img *image.RGBA, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrClosed
	}
	w, h := s.Width, s.Height
	if w == 0 && h == 0 {
		w, h = r.opts.Width, r.opts.Height
	}
	if w <= 0 || h <= 0 || w > MaxSize || h > MaxSize {
		return nil, fmt.Errorf("render: bad image size %dx%d", w, h)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("render: %v", p)
			img = nil
		}
	}()
	r.makeCurrent()
	defer r.release()

	if _, err := r.fboFor(w, h); err != nil {
		return nil, err
	}
	r.gs.Viewport(0, 0, int32(w), int32(h))
	if s.Camera.Kind != r.lastKind {
		// first person: nearest texels as the original (spec §10.7); orbit views: mipmapped
		// minification, so the distant ground does not shimmer in the UI
		// First person: block faces are drawn from both sides. From outside a block this
		// changes nothing (the depth test hides the far faces), but the camera can stand inside
		// a block (the original's body test lets a block be placed into the head's cell while
		// the eye is a little inside it), and there the original shows the block's faces
		// around the camera, where culling back faces showed the world behind them.
		if s.Camera.Kind == FirstPerson {
			r.atlas.SetMinFilter(gls.NEAREST)
			r.opaqueMat.SetSide(material.SideDouble)
		} else {
			r.atlas.SetMinFilter(gls.LINEAR_MIPMAP_LINEAR)
			r.opaqueMat.SetSide(material.SideFront)
		}
		r.lastKind = s.Camera.Kind
	}
	r.updateWorld(&s)
	r.updateGhost(&s)
	if s.Agent != nil {
		r.marker.SetVisible(true)
		p := s.Agent.Position
		r.marker.SetPosition(float32(p[0]), float32(p[1]), float32(p[2]))
		r.marker.SetRotationY(float32(-s.Agent.Yaw * math.Pi / 180))
	} else {
		r.marker.SetVisible(false)
	}
	view := s.Camera.view()
	view.toM32(&r.cam.view)
	s.Camera.proj(float64(w) / float64(h)).toM32(&r.cam.proj)
	r.updateGround(&s.Camera, s.Camera.proj(float64(w)/float64(h)).mul(view))

	sky := gridworld.SkyColor
	r.gs.ClearColor(float32(sky[0])/255, float32(sky[1])/255, float32(sky[2])/255, 1)
	r.gs.DepthMask(true)
	r.gs.Clear(gls.COLOR_BUFFER_BIT | gls.DEPTH_BUFFER_BIT)
	if err := r.rend.Render(r.scene, &r.cam); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	n := w * h * 4
	if cap(r.buf) < n {
		r.buf = make([]byte, n)
	}
	r.buf = r.buf[:n]
	r.ext.readRGBA(w, h, r.buf)
	if e := r.ext.drainErrors(); e != 0 {
		return nil, fmt.Errorf("render: OpenGL error 0x%x", e)
	}
	if dst == nil || dst.Rect.Dx() != w || dst.Rect.Dy() != h {
		dst = image.NewRGBA(image.Rect(0, 0, w, h))
	}
	row := w * 4
	for y := 0; y < h; y++ {
		d := dst.Pix[y*dst.Stride : y*dst.Stride+row]
		copy(d, r.buf[(h-1-y)*row:(h-y)*row])
		for i := 3; i < row; i += 4 {
			d[i] = 255
		}
	}
	r.stats.Frames++
	r.stats.DrawCalls, r.stats.Quads = 0, 0
	for _, m := range []*voxMesh{r.ground, r.blocks, r.ghost, r.marker} {
		if m.Visible() && m.quads > 0 {
			r.stats.DrawCalls++
			r.stats.Quads += m.quads
		}
	}
	return dst, nil
}

// updateWorld rebuilds the block mesh when the world changed.
func (r *Renderer) updateWorld(s *Scene) {
	if s.State != nil {
		if r.worldValid && r.worldState == s.State && r.worldVersion == s.State.Version() {
			return
		}
		r.worldList = s.State.AppendBlocks(r.worldList[:0], false)
		r.worldState, r.worldVersion = s.State, s.State.Version()
	} else {
		var empty gridworld.Grid
		g := &empty
		if s.Grid != nil {
			g = s.Grid
		}
		if r.worldValid && r.worldState == nil && r.worldGrid == *g {
			return
		}
		r.worldGrid = *g
		r.worldState = nil
		r.worldList = blocksOfGrid(g, r.worldList[:0], nil)
	}
	r.worldValid = true
	r.worldGen++
	if r.worldSet == nil {
		r.worldSet = make(blockSet)
	}
	clear(r.worldSet)
	for _, b := range r.worldList {
		if b.ID >= 1 && b.ID <= gridworld.NumColors {
			r.worldSet[[3]int{b.X, b.Y, b.Z}] = b.ID
		}
	}
	buildBlocks(&r.blocksMD, r.worldSet, r.worldList, 1)
	r.blocks.setData(&r.blocksMD)
	r.stats.MeshBuilds++
}

// updateGround lays the ground plate out for this view (see groundLayout); the mesh is
// re-uploaded only when the layout changed.
func (r *Renderer) updateGround(c *Camera, pv mat4) {
	_, _, far := c.params()
	if r.groundWork == nil {
		r.groundWork = newGroundWork()
	}
	r.groundScratch = r.groundWork.layout(r.groundScratch[:0], &pv, far)
	if slices.Equal(r.groundScratch, r.groundRects) && r.ground.quads > 0 {
		return
	}
	r.groundRects, r.groundScratch = r.groundScratch, r.groundRects
	buildGround(&r.groundMD, r.groundRects)
	r.ground.setData(&r.groundMD)
}

// updateGhost rebuilds the translucent target mesh when the target or the world changed.
func (r *Renderer) updateGhost(s *Scene) {
	if !s.ShowTarget || s.Target == nil {
		r.ghost.SetVisible(false)
		return
	}
	if !(r.ghostValid && r.ghostWorldGen == r.worldGen && r.ghostTarget == *s.Target) {
		r.ghostTarget = *s.Target
		r.ghostWorldGen = r.worldGen
		r.ghostValid = true
		r.ghostList = blocksOfGrid(s.Target, r.ghostList[:0], func(x, y, z int) bool {
			_, built := r.worldSet[[3]int{x, y, z}]
			return built
		})
		set := make(blockSet, len(r.ghostList))
		for _, b := range r.ghostList {
			set[[3]int{b.X, b.Y, b.Z}] = b.ID
		}
		buildBlocks(&r.ghostMD, set, r.ghostList, 1)
		r.ghost.setData(&r.ghostMD)
		r.stats.MeshBuilds++
	}
	r.ghost.SetVisible(r.ghost.quads > 0)
}

// Stats returns the renderer's counters.
func (r *Renderer) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

// Close releases the GL objects, destroys the hidden window and, with OwnGLFW, terminates
// GLFW. Call it on the main thread before GLFW is terminated — in fyne, from the main
// window's close hook (SetOnClosed / SetCloseIntercept), not from the app's OnStopped, which
// runs after fyne terminated GLFW. Close is idempotent.
func (r *Renderer) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.closed = true
	func() {
		defer func() { _ = recover() }()
		r.destroy()
	}()
	if r.opts.OwnGLFW {
		glfwRelease()
	}
}

// GLFW initialisation shared by the renderers created with OwnGLFW: the first initialises
// GLFW, the last one closed terminates it.
var (
	glfwMu    sync.Mutex
	glfwUsers int
)

func glfwAcquire() error {
	glfwMu.Lock()
	defer glfwMu.Unlock()
	if glfwUsers == 0 {
		if err := glfw.Init(); err != nil {
			return err
		}
	}
	glfwUsers++
	return nil
}

func glfwRelease() {
	glfwMu.Lock()
	defer glfwMu.Unlock()
	glfwUsers--
	if glfwUsers == 0 {
		func() {
			defer func() { _ = recover() }()
			glfw.Terminate()
		}()
	}
}

func (r *Renderer) destroy() {
	if r.win == nil {
		return
	}
	func() {
		defer func() { _ = recover() }()
		r.win.MakeContextCurrent()
		if r.ext != nil {
			for _, f := range r.fbos {
				r.ext.deleteFBO(f)
			}
		}
		r.fbos = nil
		if r.gs != nil {
			for _, m := range []*voxMesh{r.ground, r.blocks, r.ghost, r.marker} {
				if m != nil {
					m.GetGeometry().Dispose()
				}
			}
			if r.atlas != nil {
				r.atlas.Dispose()
			}
		}
		glfw.DetachCurrentContext()
	}()
	r.win.Destroy()
	r.win = nil
}

// ---- g3n glue: a mesh and a material for the voxel shader ----

const (
	shaderProgramName  = "agentdeskVoxel"
	shaderVertexName   = "agentdeskVoxelVertex"
	shaderFragmentName = "agentdeskVoxelFragment"
	groundProgramName  = "agentdeskGround"
	groundVertexName   = "agentdeskGroundVertex"
	groundFragmentName = "agentdeskGroundFragment"
)

// The voxel shader: the texel is the pixel colour (no lighting, no fog), times a per-material
// tint (1 for opaque blocks, so colours are exact; translucent for ghosts).
const voxelVertexShader = `
layout(location = 0) in vec3 VertexPosition;
layout(location = 3) in vec2 VertexTexcoord;
uniform mat4 MVP;
out vec2 Texcoord;
void main() {
    Texcoord = VertexTexcoord;
    gl_Position = MVP * vec4(VertexPosition, 1.0);
}
`

const voxelFragmentShader = `
precision highp float;
in vec2 Texcoord;
uniform sampler2D MatTexture;
uniform vec2 MatTexinfo[3];
uniform vec4 Tint;
out vec4 FragColor;
void main() {
    vec4 t = texture(MatTexture, Texcoord * MatTexinfo[1] + MatTexinfo[0]);
    FragColor = vec4(min(t.rgb * Tint.rgb, vec3(1.0)), t.a * Tint.a);
}
`

// The ground shader repeats a whole atlas tile once per block: Tile holds tile-space
// coordinates (integers on block edges), Origin the tile's corner and size in texture units.
// The gradients of the continuous Tile select the mip level (orbit views) without seams.
const groundVertexShader = `
layout(location = 0) in vec3 VertexPosition;
layout(location = 2) in vec3 VertexColor;
layout(location = 3) in vec2 VertexTexcoord;
uniform mat4 MVP;
out vec2 Tile;
flat out vec3 Origin;
void main() {
    Tile = VertexTexcoord;
    Origin = VertexColor;
    gl_Position = MVP * vec4(VertexPosition, 1.0);
}
`

const groundFragmentShader = `
precision highp float;
in vec2 Tile;
flat in vec3 Origin;
uniform sampler2D MatTexture;
uniform vec2 MatTexinfo[3];
uniform vec4 Tint;
out vec4 FragColor;
void main() {
    vec2 uv = (Origin.xy + fract(Tile) * Origin.z) * MatTexinfo[1] + MatTexinfo[0];
    vec4 t = textureGrad(MatTexture, uv, dFdx(Tile) * Origin.z, dFdy(Tile) * Origin.z);
    FragColor = vec4(min(t.rgb * Tint.rgb, vec3(1.0)), t.a * Tint.a);
}
`

// voxMaterial is a g3n material for the voxel shader with a tint uniform.
type voxMaterial struct {
	material.Material
	tint    [4]float32
	uniTint gls.Uniform
}

func newVoxMaterial(atlas *texture.Texture2D, tint [4]float32, translucent bool) *voxMaterial {
	m := &voxMaterial{tint: tint}
	m.Material.Init()
	m.SetShader(shaderProgramName)
	m.SetUseLights(material.UseLightNone)
	m.SetSide(material.SideFront)
	m.AddTexture(atlas)
	if translucent {
		m.SetTransparent(true)
		m.SetBlending(material.BlendNormal)
		m.SetDepthMask(false)
	} else {
		m.SetBlending(material.BlendNone)
	}
	m.uniTint.Init("Tint")
	return m
}

// RenderSetup sets GL state and textures (embedded material) and the tint.
func (m *voxMaterial) RenderSetup(gs *gls.GLS) {
	m.Material.RenderSetup(gs)
	gs.Uniform4f(m.uniTint.Location(gs), m.tint[0], m.tint[1], m.tint[2], m.tint[3])
}

// voxMesh is a g3n graphic drawing an indexed triangle list with the voxel shader; it only
// transfers the MVP matrix.
type voxMesh struct {
	graphic.Graphic
	geom   *geometry.Geometry
	vbo    *gls.VBO
	uniMVP gls.Uniform
	quads  int
}

func newVoxMesh(md *meshData, mat *voxMaterial) *voxMesh {
	m := &voxMesh{geom: geometry.NewGeometry()}
	if mat.Shader() == groundProgramName {
		m.vbo = gls.NewVBO(nil).AddAttrib(gls.VertexPosition).AddAttrib(gls.VertexColor).AddAttrib(gls.VertexTexcoord)
	} else {
		m.vbo = gls.NewVBO(nil).AddAttrib(gls.VertexPosition).AddAttrib(gls.VertexTexcoord)
	}
	m.geom.AddVBO(m.vbo)
	m.Graphic.Init(m, m.geom, gls.TRIANGLES)
	m.AddMaterial(m, mat, 0, 0)
	m.SetCullable(false)
	m.uniMVP.Init("MVP")
	m.setData(md)
	return m
}

// setData replaces the mesh's vertices and indices (uploaded at the next draw).
func (m *voxMesh) setData(md *meshData) {
	m.vbo.SetBuffer(append([]float32(nil), md.verts...))
	m.geom.SetIndices(append([]uint32(nil), md.idx...))
	m.quads = md.quads()
	m.SetVisible(m.quads > 0)
}

// RenderSetup transfers the model-view-projection matrix.
func (m *voxMesh) RenderSetup(gs *gls.GLS, rinfo *core.RenderInfo) {
	mvp := m.ModelViewProjectionMatrix()
	gs.UniformMatrix4fv(m.uniMVP.Location(gs), 1, false, &mvp[0])
}
