package gridworld

import (
	"encoding/json"
	"fmt"
	"math"
	"unsafe"
)

// Dimensions of the build zone grid, in the [y][x][z] index order of the original.
const (
	SizeY = 9
	SizeX = 11
	SizeZ = 11
	// NumCells is the number of cells of a Grid.
	NumCells = SizeY * SizeX * SizeZ
)

// Block ids.
const (
	White  = -1 // ground inside the build footprint
	Grey   = 0  // ground outside the footprint; also "air" in grids
	Air    = 0
	Blue   = 1
	Green  = 2
	Red    = 3
	Orange = 4
	Purple = 5
	Yellow = 6
	// NumColors is the number of buildable colours (ids 1..6).
	NumColors = 6
	// InitialInventory is the number of blocks of each colour the agent starts with.
	InitialInventory = 20
)

// ColorNames maps a block id (-1..6) to its upstream name.
var ColorNames = map[int]string{-1: "white", 0: "grey", 1: "blue", 2: "green", 3: "red", 4: "orange", 5: "purple", 6: "yellow"}

// Grid is the dense build-zone grid, indexed [y+1][x+5][z+5] for world block (x, y, z).
// Values are block ids (0 = air). Synthetic grids (target minus starting grid) may hold
// negative values. A Grid is a plain value: assignment copies it.
type Grid [SizeY][SizeX][SizeZ]int8

// Block is one block in world coordinates (y up). It marshals to and from the JSON
// form [x, y, z, id] used by the IGLU data.
type Block struct {
	X, Y, Z int
	ID      int
}

// MarshalJSON writes the block as [x, y, z, id].
func (b Block) MarshalJSON() ([]byte, error) {
	return json.Marshal([4]int{b.X, b.Y, b.Z, b.ID})
}

// UnmarshalJSON reads [x, y, z, id] (integers; integral floats are accepted).
func (b *Block) UnmarshalJSON(data []byte) error {
	var v []float64
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("block: %w", err)
	}
	if len(v) != 4 {
		return fmt.Errorf("block: want [x, y, z, id], got %d numbers", len(v))
	}
	var out [4]int
	for i, f := range v {
		if f != math.Trunc(f) || math.Abs(f) > 1<<30 {
			return fmt.Errorf("block: element %d (%v) is not an integer", i, f)
		}
		out[i] = int(f)
	}
	*b = Block{out[0], out[1], out[2], out[3]}
	return nil
}

// InZone reports whether the integer block (x, y, z) lies inside the build zone
// (x, z in [-5, 5], y in [-1, 7]).
func InZone(x, y, z int) bool {
	return x >= -5 && x <= 5 && z >= -5 && z <= 5 && y >= -1 && y < 8
}

// inZonePad is the continuous zone test of the original with a padding (spec §2.3).
func inZonePad(x, y, z, pad float64) bool {
	return -5-pad <= x && x <= 5+pad && -5-pad <= z && z <= 5+pad && -1-pad <= y && y < 8+pad
}

// At returns the value stored for world block (x, y, z), 0 outside the zone.
func (g *Grid) At(x, y, z int) int {
	if !InZone(x, y, z) {
		return 0
	}
	return int(g[y+1][x+5][z+5])
}

// Set stores id for world block (x, y, z); it reports false (and does nothing) outside the zone.
func (g *Grid) Set(x, y, z, id int) bool {
	if !InZone(x, y, z) {
		return false
	}
	g[y+1][x+5][z+5] = int8(id)
	return true
}

// Count returns the number of non-zero cells.
func (g *Grid) Count() int {
	n := 0
	for i := range g {
		for j := range g[i] {
			for _, v := range g[i][j] {
				if v != 0 {
					n++
				}
			}
		}
	}
	return n
}

// Sub returns g - o element-wise (used for the synthetic task of spec §7.3).
func (g *Grid) Sub(o *Grid) Grid {
	var r Grid
	for y := range g {
		for x := range g[y] {
			for z := range g[y][x] {
				r[y][x][z] = g[y][x][z] - o[y][x][z]
			}
		}
	}
	return r
}

// Rotate returns the grid turned a quarter around the vertical axis by the rule
// new[y][z][10-x] = old[y][x][z] (spec §8.1).
func (g *Grid) Rotate() Grid {
	var r Grid
	for y := range g {
		for x := range g[y] {
			for z := range g[y][x] {
				r[y][z][SizeX-1-x] = g[y][x][z]
			}
		}
	}
	return r
}

// Rotations returns the four quarter-turn rotations; [0] is g itself.
func (g *Grid) Rotations() [4]Grid {
	var r [4]Grid
	r[0] = *g
	for k := 1; k < 4; k++ {
		r[k] = r[k-1].Rotate()
	}
	return r
}

// Sparse returns the non-zero cells as [x, y, z, id] blocks in row-major order (y, x, z).
// This is the corrected form of the original's dense-to-sparse helper.
func (g *Grid) Sparse() []Block {
	out := make([]Block, 0, 16)
	for y := range g {
		for x := range g[y] {
			for z, v := range g[y][x] {
				if v != 0 {
					out = append(out, Block{x - 5, y - 1, z - 5, int(v)})
				}
			}
		}
	}
	return out
}

// SparseOriginalBug reproduces the original helper's axis-swapped output
// [yi-5, xi-1, zi-5, id] for bug-compatibility checks only. Do not use it for data.
func (g *Grid) SparseOriginalBug() []Block {
	out := make([]Block, 0, 16)
	for y := range g {
		for x := range g[y] {
			for z, v := range g[y][x] {
				if v != 0 {
					out = append(out, Block{y - 5, x - 1, z - 5, int(v)})
				}
			}
		}
	}
	return out
}

// DenseFromSparse builds a grid from a block list. Blocks outside the build zone and ids
// that do not fit a grid cell are rejected with an error naming the entry (spec §2.5 fix).
// Later entries overwrite earlier ones at the same position.
func DenseFromSparse(blocks []Block) (Grid, error) {
	var g Grid
	for i, b := range blocks {
		if !InZone(b.X, b.Y, b.Z) {
			return g, fmt.Errorf("block %d [%d,%d,%d,%d]: outside the build zone (x,z in [-5,5], y in [-1,7])", i, b.X, b.Y, b.Z, b.ID)
		}
		if b.ID < -127 || b.ID > 127 {
			return g, fmt.Errorf("block %d [%d,%d,%d,%d]: id out of range", i, b.X, b.Y, b.Z, b.ID)
		}
		g[b.Y+1][b.X+5][b.Z+5] = int8(b.ID)
	}
	return g, nil
}

// DenseFromSparseCompat reproduces the original's unchecked indexing: negative indices wrap
// around to the other end of the axis (a block at y = -2 lands in the top layer), indices that
// are too large (or below -size) are an error, as in the original.
func DenseFromSparseCompat(blocks []Block) (Grid, error) {
	var g Grid
	wrap := func(i, n int) (int, bool) {
		if i < -n || i >= n {
			return 0, false
		}
		if i < 0 {
			i += n
		}
		return i, true
	}
	for i, b := range blocks {
		y, ok1 := wrap(b.Y+1, SizeY)
		x, ok2 := wrap(b.X+5, SizeX)
		z, ok3 := wrap(b.Z+5, SizeZ)
		if !ok1 || !ok2 || !ok3 {
			return g, fmt.Errorf("block %d [%d,%d,%d,%d]: index out of bounds for a 9x11x11 grid", i, b.X, b.Y, b.Z, b.ID)
		}
		if b.ID < -127 || b.ID > 127 {
			return g, fmt.Errorf("block %d [%d,%d,%d,%d]: id out of range", i, b.X, b.Y, b.Z, b.ID)
		}
		g[y][x][z] = int8(b.ID)
	}
	return g, nil
}

// flat returns the grid as a flat array view (index = (y*11+x)*11+z).
func (g *Grid) flat() *[NumCells]int8 {
	return (*[NumCells]int8)(unsafe.Pointer(g))
}

// BlockOf returns the block containing a continuous point: each coordinate is rounded
// half-to-even (spec §2.1).
func BlockOf(x, y, z float64) (int, int, int) {
	return int(math.RoundToEven(x)), int(math.RoundToEven(y)), int(math.RoundToEven(z))
}
