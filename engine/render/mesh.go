package render

import (
	"github.com/agentdesk/agentdesk/engine/gridworld"
)

// meshData is an indexed triangle list with interleaved vertices [x, y, z, u, v].
type meshData struct {
	verts []float32
	idx   []uint32
}

func (m *meshData) reset() { m.verts, m.idx = m.verts[:0], m.idx[:0] }

// quads returns the number of quads in the mesh.
func (m *meshData) quads() int { return len(m.idx) / 6 }

// quad appends one quad: the four corners p[i] get texture corners (u0,v0), (u1,v0), (u1,v1),
// (u0,v1) in that order (spec §10.6); the triangles are (0,1,2) and (0,2,3), counter-clockwise
// when seen from the front.
func (m *meshData) quad(p [4][3]float32, u0, v0, u1, v1 float32) {
	base := uint32(len(m.verts) / 5)
	uv := [4][2]float32{{u0, v0}, {u1, v0}, {u1, v1}, {u0, v1}}
	for i := range p {
		m.verts = append(m.verts, p[i][0], p[i][1], p[i][2], uv[i][0], uv[i][1])
	}
	m.idx = append(m.idx, base, base+1, base+2, base, base+2, base+3)
}

// Face indices in the order of spec §10.6.
const (
	faceTop = iota
	faceBottom
	faceNegX
	facePosX
	facePosZ
	faceNegZ
)

// faceCorners are the unit-cube corners of each face (multiples of ±1; scaled by the half
// size), in the vertex order of spec §10.6.
var faceCorners = [6][4][3]float32{
	faceTop:    {{-1, 1, -1}, {-1, 1, 1}, {1, 1, 1}, {1, 1, -1}},
	faceBottom: {{-1, -1, -1}, {1, -1, -1}, {1, -1, 1}, {-1, -1, 1}},
	faceNegX:   {{-1, -1, -1}, {-1, -1, 1}, {-1, 1, 1}, {-1, 1, -1}},
	facePosX:   {{1, -1, 1}, {1, -1, -1}, {1, 1, -1}, {1, 1, 1}},
	facePosZ:   {{-1, -1, 1}, {1, -1, 1}, {1, 1, 1}, {-1, 1, 1}},
	faceNegZ:   {{1, -1, -1}, {-1, -1, -1}, {-1, 1, -1}, {1, 1, -1}},
}

// faceNormal gives the outward neighbour offset of each face.
var faceNormal = [6][3]int{
	faceTop: {0, 1, 0}, faceBottom: {0, -1, 0}, faceNegX: {-1, 0, 0},
	facePosX: {1, 0, 0}, facePosZ: {0, 0, 1}, faceNegZ: {0, 0, -1},
}

// faceQuadrant is the atlas quadrant offset (in 16-px units) of each face (spec §3.2):
// top → Q1 (0,1), bottom → Q2 (1,0), ±x → Q0 (0,0), ±z → Q3 (1,1).
var faceQuadrant = [6][2]int{
	faceTop: {0, 1}, faceBottom: {1, 0}, faceNegX: {0, 0}, facePosX: {0, 0}, facePosZ: {1, 1}, faceNegZ: {1, 1},
}

// box appends the faces of an axis-aligned box centred on c with half extents h, textured
// with tile id's quadrants. skip, when non-nil, suppresses faces.
func (m *meshData) box(c [3]float32, h [3]float32, id int, skip func(face int) bool) {
	col, row := tileOf(id)
	for f := 0; f < 6; f++ {
		if skip != nil && skip(f) {
			continue
		}
		var p [4][3]float32
		for i, k := range faceCorners[f] {
			p[i] = [3]float32{c[0] + k[0]*h[0], c[1] + k[1]*h[1], c[2] + k[2]*h[2]}
		}
		u0 := float32(col*tilePx+faceQuadrant[f][0]*quadPx) / atlasSize
		v0 := float32(row*tilePx+faceQuadrant[f][1]*quadPx) / atlasSize
		m.quad(p, u0, v0, u0+float32(quadPx)/atlasSize, v0+float32(quadPx)/atlasSize)
	}
}

// groundRect is a rectangle of ground blocks [x0, x1] × [z0, z1] (inclusive block
// coordinates) of one id.
type groundRect struct {
	x0, x1, z0, z1, id int
	merged             bool // a rectangle of merged blocks (false: one block on its own)
}

// groundLayout chooses how to draw the ground plate for a view. Only the plate's silhouette
// against the sky must rasterise exactly like the original's per-block quads: the outer edge of
// the plate and the line where the far plane clips it. So blocks on the outer ring and blocks
// the far plane passes through are drawn one quad each (the same edge endpoints as the
// original); all other blocks are merged into rectangles of one colour (their shared edges
// never show sky); blocks entirely beyond the far plane are left out. pv is the
// projection·view matrix; the clip w of a ground point is its eye-space distance along the view
// axis, which decides the classes. (Blocks outside the side planes are drawn anyway: leaving
// them out makes the layout change with every camera turn, and re-uploading the ground costs
// more than drawing the ring of blocks, measured with llvmpipe.)
func groundLayout(dst []groundRect, pv *mat4, far float64) []groundRect {
	return newGroundWork().layout(dst, pv, far)
}

const groundN = 2*gridworld.GroundHalfExtent + 1

// groundWork is the scratch memory of groundLayout (kept by the Renderer: no allocation per
// frame).
type groundWork struct {
	d              [groundN + 1][groundN + 1]float64
	class          [groundN][groundN]uint8
	openRuns, next []groundRun
}

type groundRun struct{ x0, x1, id, z0 int }

func newGroundWork() *groundWork {
	return &groundWork{openRuns: make([]groundRun, 0, groundN), next: make([]groundRun, 0, groundN)}
}

func (w *groundWork) layout(dst []groundRect, pv *mat4, far float64) []groundRect {
	const e = gridworld.GroundHalfExtent
	const n = groundN
	const margin = 0.5 // > the backing's growth (buildGround) times √2
	d := &w.d
	const y = float64(gridworld.GroundY) + 0.5
	r3 := pv[3]
	for i := 0; i <= n; i++ {
		x := float64(i-e) - 0.5
		bx3 := r3[0]*x + r3[1]*y + r3[3]
		for k := 0; k <= n; k++ {
			z := float64(k-e) - 0.5
			d[i][k] = bx3 + r3[2]*z
		}
	}
	const (
		skip = iota
		single
		merge
	)
	class := &w.class // [x][z]
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			a, b, c, f := d[i][k], d[i+1][k], d[i][k+1], d[i+1][k+1]
			lo, hi := min(a, b, c, f), max(a, b, c, f)
			switch {
			case lo > far+margin:
				class[i][k] = skip
			case i == 0 || k == 0 || i == n-1 || k == n-1 || hi > far-margin:
				class[i][k] = single
			default:
				class[i][k] = merge
			}
		}
	}
	idOf := func(x, z int) int {
		if x >= -5 && x <= 5 && z >= -5 && z <= 5 {
			return gridworld.White
		}
		return gridworld.Grey
	}
	// runs along x in each row z, merged with identical runs of the previous rows
	openRuns, next := w.openRuns[:0], w.next[:0]
	for k := 0; k <= n; k++ {
		z := k - e
		next = next[:0]
		if k < n {
			for i := 0; i < n; {
				x := i - e
				switch class[i][k] {
				case skip:
					i++
				case single:
					dst = append(dst, groundRect{x, x, z, z, idOf(x, z), false})
					i++
				default:
					id := idOf(x, z)
					j := i
					for j+1 < n && class[j+1][k] == merge && idOf(j+1-e, z) == id {
						j++
					}
					next = append(next, groundRun{x, j - e, id, z})
					i = j + 1
				}
			}
		}
		// continue open runs that reappear unchanged; close the others
		for _, o := range openRuns {
			cont := false
			for b := range next {
				if next[b].x0 == o.x0 && next[b].x1 == o.x1 && next[b].id == o.id {
					next[b].z0 = o.z0
					cont = true
					break
				}
			}
			if !cont {
				dst = append(dst, groundRect{o.x0, o.x1, o.z0, z - 1, o.id, true})
			}
		}
		openRuns, next = next, openRuns
	}
	w.openRuns, w.next = openRuns, next
	return dst
}

// buildGround fills m (stride 8: x, y, z, tile u0, v0, size, tu, tv) with the rectangles of
// the ground plate's top surface (spec §2.2). The ground shader repeats the whole-tile texture
// once per block with fract() of the tile-space coordinates (tu, tv), which equal what
// per-block quads with the corner order of spec §10.6 interpolate: within each block u runs
// along +z and v along +x.
//
// Merged rectangles meet single blocks in T-junctions, where the rasteriser may leave
// sub-pixel cracks. A backing copy of every merged rectangle, grown by 0.3 and 0.002 below the
// surface, fills them with the same texels (at grazing angles a crack can be wider than the
// growth looks, so it grows by 0.3 blocks into the neighbouring single blocks); it stays inside the plate and in front of the far
// plane, so the silhouette is untouched.
func buildGround(m *meshData, rects []groundRect) {
	m.reset()
	const top = float32(gridworld.GroundY) + 0.5
	for pass := 0; pass < 2; pass++ {
		for _, r := range rects {
			if pass == 1 && !r.merged {
				continue
			}
			y, grow := top, float32(0)
			if pass == 1 {
				y, grow = top-0.002, 0.3
			}
			groundQuad(m, r, y, grow)
		}
	}
}

func groundQuad(m *meshData, r groundRect, y, grow float32) {
	{
		x0, x1 := float32(r.x0)-0.5-grow, float32(r.x1)+0.5+grow
		z0, z1 := float32(r.z0)-0.5-grow, float32(r.z1)+0.5+grow
		col, row := tileOf(r.id)
		u0, v0, size := float32(col*tilePx)/atlasSize, float32(row*tilePx)/atlasSize, float32(tilePx)/atlasSize
		base := uint32(len(m.verts) / groundStride)
		for _, c := range [4][2]float32{{x0, z0}, {x0, z1}, {x1, z1}, {x1, z0}} {
			m.verts = append(m.verts, c[0], y, c[1], u0, v0, size, c[1]+0.5, c[0]+0.5)
		}
		m.idx = append(m.idx, base, base+1, base+2, base, base+2, base+3)
	}
}

// groundStride is the number of floats per ground vertex.
const groundStride = 8

// blockSet is a set of coloured blocks for meshing.
type blockSet map[[3]int]int

// buildBlocks fills m with every coloured block of set (ids 1..6; other ids are skipped).
// Faces shared by two blocks of the set are left out: they can never be seen, and dropping
// them keeps a full 9×11×11 grid at 638 quads. All colours share the atlas, so the whole set
// is one mesh (one draw call). scale < 1 shrinks each cube about its centre (ghost blocks).
func buildBlocks(m *meshData, set blockSet, order []gridworld.Block, scale float32) {
	m.reset()
	h := 0.5 * scale
	for _, b := range order {
		if b.ID < 1 || b.ID > gridworld.NumColors {
			continue
		}
		skip := func(f int) bool {
			d := faceNormal[f]
			_, ok := set[[3]int{b.X + d[0], b.Y + d[1], b.Z + d[2]}]
			return ok
		}
		m.box([3]float32{float32(b.X), float32(b.Y), float32(b.Z)}, [3]float32{h, h, h}, b.ID, skip)
	}
}

// blocksOfGrid lists the coloured cells of a grid in (y, x, z) order, skipping cells for which
// exclude returns true.
func blocksOfGrid(g *gridworld.Grid, dst []gridworld.Block, exclude func(x, y, z int) bool) []gridworld.Block {
	for yi := range g {
		for xi := range g[yi] {
			for zi, v := range g[yi][xi] {
				if v < 1 || int(v) > gridworld.NumColors {
					continue
				}
				x, y, z := xi-5, yi-1, zi-5
				if exclude != nil && exclude(x, y, z) {
					continue
				}
				dst = append(dst, gridworld.Block{X: x, Y: y, Z: z, ID: int(v)})
			}
		}
	}
	return dst
}

// buildMarker fills m with the agent marker in local coordinates: the eye at the origin,
// looking along -z (yaw 0); a body box down to the feet and a nose box pointing forward.
func buildMarker(m *meshData) {
	m.reset()
	// body: from the feet (eye - 1.25 = ground level) to just above the eye
	m.box([3]float32{0, -0.6, 0}, [3]float32{0.25, 0.65, 0.25}, tileMarkerBody, nil)
	// nose: a small box in front of the eye
	m.box([3]float32{0, 0, -0.38}, [3]float32{0.08, 0.08, 0.13}, tileMarkerNose, nil)
}
