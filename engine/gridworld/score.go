package gridworld

import (
	"encoding/binary"
	"sync"
	"unsafe"
)

// Maximal intersection (spec §8.1-8.2).
//
// count(k, dx, dz) counts pairs (target cell t of rotation k, grid cell g) with the same y and
// the same value and (t.x-g.x, t.z-g.z) = (dx, dz). The scorer therefore keeps, per (y, value)
// bucket, the packed histogram offsets of the target cells of all four rotations, and a full
// computation increments one histogram slot per matching pair. Inadmissible (k, dx, dz) slots
// start very negative so that they never win; the maximum is tracked while counting. The cost
// is O(matching pairs) plus a 3.5 KB template copy, independent of the number of admissible
// shifts. The environment uses the same layout incrementally (one block change = one bucket).

const (
	shiftN    = 21 // dx, dz in -10..10
	rotSlots  = shiftN * shiftN
	histSlots = 4 * rotSlots
	inadm     = -30000
)

// Scorer holds the precomputed rotations of one task target. It is immutable after
// construction and safe for concurrent use.
type Scorer struct {
	invariant  bool
	targetSize int
	fullSize   int
	nAdm       [4]int
	// admissible rectangles per rotation: dx in [dxLo, dxHi], dz in [dzLo, dzHi]
	dxLo, dxHi, dzLo, dzHi [4]int
	template               [histSlots]int16
	// bucketOf[y][v+128] = bucket index + 1 (0 = none)
	bucketOf [SizeY][256]uint16
	// offsets of bucket b: offs[bStart[b]:bStart[b+1]], each k*441 + (xt+10)*21 + (zt+10)
	bStart []int32
	offs   []int16
	target Grid
	// cell tables for flat grid indices
}

var (
	cellY   [NumCells]uint8
	cellOff [NumCells]int16 // x*21 + z
)

func init() {
	for i := 0; i < NumCells; i++ {
		y := i / (SizeX * SizeZ)
		x := (i / SizeZ) % SizeX
		z := i % SizeZ
		cellY[i] = uint8(y)
		cellOff[i] = int16(x*shiftN + z)
	}
}

// NewScorer precomputes a scorer for a target grid, an optional full grid (which decides the
// admissible shifts when given) and the invariance flag.
func NewScorer(target *Grid, full *Grid, invariant bool) *Scorer {
	s := &Scorer{invariant: invariant, target: *target}
	type cellT struct {
		y, x, z int8
		v       int8
	}
	var cellsBuf [128]cellT
	cells := cellsBuf[:0]
	tf := target.flat()
	for i, v := range tf {
		if v != 0 {
			cells = append(cells, cellT{int8(cellY[i]), int8(i / SizeZ % SizeX), int8(i % SizeZ), v})
		}
	}
	s.targetSize = len(cells)
	s.fullSize = s.targetSize
	// bounding box of the grid deciding admissibility
	xmin, xmax, zmin, zmax := SizeX, -1, SizeZ, -1
	box := func(x, z int) {
		xmin, xmax = min(xmin, x), max(xmax, x)
		zmin, zmax = min(zmin, z), max(zmax, z)
	}
	if full != nil {
		n := 0
		for i, v := range full.flat() {
			if v != 0 {
				n++
				box(i/SizeZ%SizeX, i%SizeZ)
			}
		}
		s.fullSize = n
	} else {
		for _, c := range cells {
			box(int(c.x), int(c.z))
		}
	}
	for i := range s.template {
		s.template[i] = inadm
	}
	const e = SizeX - 1
	for k := 0; k < 4; k++ {
		if !invariant {
			if k == 0 {
				s.nAdm[0] = 1
			} else {
				s.dxLo[k], s.dxHi[k], s.dzLo[k], s.dzHi[k] = 1, 0, 1, 0
			}
		} else if xmax < 0 { // empty: every shift
			s.dxLo[k], s.dxHi[k], s.dzLo[k], s.dzHi[k] = -10, 10, -10, 10
		} else {
			// bounding box of rotation k: (x, z) -> (z, 10-x) per quarter turn
			var ax0, ax1, az0, az1 int
			switch k {
			case 0:
				ax0, ax1, az0, az1 = xmin, xmax, zmin, zmax
			case 1:
				ax0, ax1, az0, az1 = zmin, zmax, e-xmax, e-xmin
			case 2:
				ax0, ax1, az0, az1 = e-xmax, e-xmin, e-zmax, e-zmin
			case 3:
				ax0, ax1, az0, az1 = e-zmax, e-zmin, xmin, xmax
			}
			s.dxLo[k], s.dxHi[k] = max(ax1-10, -10), min(ax0, 10)
			s.dzLo[k], s.dzHi[k] = max(az1-10, -10), min(az0, 10)
		}
		if s.dxLo[k] <= s.dxHi[k] && s.dzLo[k] <= s.dzHi[k] {
			s.nAdm[k] = (s.dxHi[k] - s.dxLo[k] + 1) * (s.dzHi[k] - s.dzLo[k] + 1)
		}
		for dx := s.dxLo[k]; dx <= s.dxHi[k]; dx++ {
			row := s.template[k*rotSlots+(dx+10)*shiftN:]
			for dz := s.dzLo[k]; dz <= s.dzHi[k]; dz++ {
				row[dz+10] = 0
			}
		}
	}
	// buckets (y, value)
	var counts []int32
	for _, c := range cells {
		b := &s.bucketOf[c.y][int(c.v)+128]
		if *b == 0 {
			counts = append(counts, 0)
			*b = uint16(len(counts))
		}
		counts[*b-1] += 4
	}
	s.bStart = make([]int32, len(counts)+1)
	for b, n := range counts {
		s.bStart[b+1] = s.bStart[b] + n
	}
	s.offs = make([]int16, s.bStart[len(counts)])
	fill := counts // reuse as write cursors
	copy(fill, s.bStart)
	for _, c := range cells {
		b := s.bucketOf[c.y][int(c.v)+128] - 1
		x, z := int(c.x), int(c.z)
		for k := 0; k < 4; k++ {
			s.offs[fill[b]] = int16(k*rotSlots + (x+10)*shiftN + z + 10)
			fill[b]++
			x, z = z, e-x
		}
	}
	return s
}

// TargetSize returns the number of non-zero target cells.
func (s *Scorer) TargetSize() int { return s.targetSize }

// FullSize returns the number of non-zero cells of the full grid (TargetSize without one).
func (s *Scorer) FullSize() int { return s.fullSize }

// Invariant reports whether rotations and shifts are considered.
func (s *Scorer) Invariant() bool { return s.invariant }

// Admissible returns the number of admissible (dx, dz) shifts per rotation.
func (s *Scorer) Admissible() [4]int { return s.nAdm }

// scorers shares scorers between resets and environments: a batch drawing its tasks from a
// set resets onto the same targets again and again, and building a scorer costs more than a
// hundred steps. Scorers are immutable, so one serves every environment. The cache is keyed by
// content (a task's fields may change between resets) and is emptied when it holds
// maxCachedScorers (a task generator makes new targets without end).
var scorers struct {
	sync.Mutex
	m map[scorerKey]*Scorer
}

type scorerKey struct {
	target, full       Grid
	hasFull, invariant bool
}

const maxCachedScorers = 256

// cachedScorer is NewScorer through the cache.
func cachedScorer(target, full *Grid, invariant bool) *Scorer {
	k := scorerKey{target: *target, hasFull: full != nil, invariant: invariant}
	if full != nil {
		k.full = *full
	}
	scorers.Lock()
	sc := scorers.m[k]
	scorers.Unlock()
	if sc != nil {
		return sc
	}
	sc = NewScorer(target, full, invariant)
	scorers.Lock()
	if scorers.m == nil || len(scorers.m) >= maxCachedScorers {
		scorers.m = make(map[scorerKey]*Scorer)
	}
	scorers.m[k] = sc
	scorers.Unlock()
	return sc
}

// Target returns the (unrotated) target grid.
func (s *Scorer) Target() Grid { return s.target }

// bucketOffs returns the target offsets matching value v on layer y.
func (s *Scorer) bucketOffs(y int, v int8) []int16 {
	b := s.bucketOf[y][int(v)+128]
	if b == 0 {
		return nil
	}
	return s.offs[s.bStart[b-1]:s.bStart[b]]
}

// fill accumulates the pair histogram of grid g into h (which must hold the template) and
// returns the maximum slot value (at least 0).
func (s *Scorer) fill(g *Grid, h *[histSlots]int16) int {
	m := int16(0)
	flat := (*[NumCells]byte)(unsafe.Pointer(g))
	i := 0
	for ; i+8 <= NumCells; i += 8 {
		if binary.LittleEndian.Uint64(flat[i:i+8]) == 0 {
			continue
		}
		for j := i; j < i+8; j++ {
			if v := int8(flat[j]); v != 0 {
				m = s.addCell(h, j, v, m)
			}
		}
	}
	for ; i < NumCells; i++ {
		if v := int8(flat[i]); v != 0 {
			m = s.addCell(h, i, v, m)
		}
	}
	return int(m)
}

func (s *Scorer) addCell(h *[histSlots]int16, i int, v int8, m int16) int16 {
	b := s.bucketOf[cellY[i]][int(v)+128]
	if b == 0 {
		return m
	}
	off := int(cellOff[i])
	for _, t := range s.offs[s.bStart[b-1]:s.bStart[b]] {
		j := int(t) - off
		c := h[j] + 1
		h[j] = c
		if c > m {
			m = c
		}
	}
	return m
}

// MaximalIntersection returns the largest number of target cells matched by the grid over the
// admissible rotations and horizontal shifts (spec §8.2).
func (s *Scorer) MaximalIntersection(g *Grid) int {
	if !s.invariant {
		return s.direct(g)
	}
	h := s.template
	return s.fill(g, &h)
}

// direct counts the matches of rotation 0 without a shift.
func (s *Scorer) direct(g *Grid) int {
	n := 0
	t := s.target.flat()
	f := g.flat()
	for i, v := range t {
		if v != 0 && f[i] == v {
			n++
		}
	}
	return n
}

// Argmax returns the maximal intersection and the first strict maximum (dx, dz, rotation) in the
// order rotation, dx, dz; (0, 0, 0) when the maximum is 0.
func (s *Scorer) Argmax(g *Grid) (best, dx, dz, rot int) {
	h := s.template
	s.fill(g, &h)
	for k := 0; k < 4; k++ {
		for x := -10; x <= 10; x++ {
			for z := -10; z <= 10; z++ {
				if c := int(h[k*rotSlots+(x+10)*shiftN+z+10]); c > best {
					best, dx, dz, rot = c, x, z, k
				}
			}
		}
	}
	return
}

// Count returns count(k, dx, dz) for one rotation and shift (for analysis views); it does not
// check admissibility.
func (s *Scorer) Count(g *Grid, rot, dx, dz int) int {
	rots := s.target.Rotations()
	t := &rots[rot&3]
	n := 0
	for y := range t {
		for x := range t[y] {
			for z, v := range t[y][x] {
				gx, gz := x-dx, z-dz
				if v != 0 && gx >= 0 && gx < SizeX && gz >= 0 && gz < SizeZ && g[y][gx][gz] == v {
					n++
				}
			}
		}
	}
	return n
}

// incScorer keeps the pair histogram of a changing grid up to date one cell at a time and
// tracks its maximum (used by the environment for the synthetic task).
type incScorer struct {
	sc     *Scorer
	h      [histSlots]int16
	g      Grid // current scored grid
	size   int
	max    int16
	nAtMax int
}

func (c *incScorer) reset(sc *Scorer) {
	c.sc = sc
	c.h = sc.template
	c.g = Grid{}
	c.size = 0
	c.max = 0
	c.nAtMax = 0
	for k := 0; k < 4; k++ {
		c.nAtMax += sc.nAdm[k]
	}
	if !sc.invariant {
		c.nAtMax = 1
	}
}

// set changes the scored value of one flat cell.
func (c *incScorer) set(i int, v int8) {
	f := c.g.flat()
	old := f[i]
	if old == v {
		return
	}
	f[i] = v
	y := int(cellY[i])
	off := int(cellOff[i])
	if old != 0 {
		c.size--
		rescan := false
		for _, t := range c.sc.bucketOffs(y, old) {
			j := int(t) - off
			if h := c.h[j]; h == c.max {
				c.nAtMax--
				rescan = c.nAtMax == 0
			}
			c.h[j]--
		}
		if rescan {
			c.rescan()
		}
	}
	if v != 0 {
		c.size++
		for _, t := range c.sc.bucketOffs(y, v) {
			j := int(t) - off
			h := c.h[j] + 1
			c.h[j] = h
			if h > c.max {
				c.max, c.nAtMax = h, 1
			} else if h == c.max {
				c.nAtMax++
			}
		}
	}
}

func (c *incScorer) rescan() {
	m, n := int16(-1), 0
	for _, h := range c.h {
		if h > m {
			m, n = h, 1
		} else if h == m {
			n++
		}
	}
	c.max, c.nAtMax = m, n
}

// maxInt returns the current maximal intersection.
func (c *incScorer) maxInt() int {
	if c.max < 0 {
		return 0
	}
	return int(c.max)
}
