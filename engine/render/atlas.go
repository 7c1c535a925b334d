package render

import (
	"image"
	"image/color"
)

// The block atlas is this package's own procedurally drawn 128×128 texture with the layout of
// spec §3.2 (4×4 tiles of 32 px, tile (column, row) counted from the bottom, v = 0 is the
// bottom row). The colours reproduce the measured interior colours of the original; the
// texture itself (frames, speckle pattern, grey noise, the marker tiles) is our own design.
const (
	atlasSize = 128
	tilePx    = 32
	quadPx    = 16
)

// Face shades of the coloured blocks (spec §3.2): top, ±z sides, ±x sides, bottom.
type faceShades struct{ Top, SideZ, SideX, Bottom color.RGBA }

func rgb(r, g, b uint8) color.RGBA { return color.RGBA{r, g, b, 255} }

// BlockShades maps block ids 1..6 to the colours a renderer draws on their faces.
var BlockShades = map[int]faceShades{
	1: {rgb(0, 162, 232), rgb(0, 113, 162), rgb(0, 81, 116), rgb(0, 32, 46)},
	2: {rgb(34, 177, 76), rgb(23, 123, 53), rgb(17, 88, 38), rgb(6, 35, 15)},
	3: {rgb(237, 28, 36), rgb(165, 19, 25), rgb(118, 14, 18), rgb(47, 5, 7)},
	4: {rgb(255, 127, 39), rgb(178, 88, 27), rgb(127, 63, 19), rgb(51, 25, 7)},
	5: {rgb(163, 73, 164), rgb(114, 51, 114), rgb(81, 36, 82), rgb(32, 14, 32)},
	6: {rgb(255, 242, 0), rgb(178, 169, 0), rgb(127, 121, 0), rgb(51, 48, 0)},
}

// blockFrames are the colours of the 1-px frame of each top quadrant (the measured frames of
// the original are more saturated than the interiors, not just darker); the side and bottom
// frames are scaled like the interiors (0.7, 0.5, 0.2).
var blockFrames = map[int]color.RGBA{
	1: rgb(0, 114, 152),
	2: rgb(13, 142, 10),
	3: rgb(174, 27, 1),
	4: rgb(204, 92, 28),
	5: rgb(122, 26, 151),
	6: rgb(196, 188, 0),
}

// Marker tiles (not part of the original's atlas): the agent's body and its nose.
const (
	tileMarkerBody = 10 // id used only inside this package
	tileMarkerNose = 11
)

var markerShades = map[int]faceShades{
	tileMarkerBody: shadesOf(rgb(72, 84, 110)),
	tileMarkerNose: shadesOf(rgb(255, 250, 235)),
}

func shadesOf(top color.RGBA) faceShades {
	return faceShades{top, scaled(top, 0.7), scaled(top, 0.5), scaled(top, 0.2)}
}

// tileOf returns the (column, row-from-bottom) of a block id's tile.
func tileOf(id int) (col, row int) {
	switch id {
	case -1:
		return 0, 0
	case 0:
		return 1, 0
	case 1:
		return 2, 0
	case 2:
		return 3, 0
	case 3:
		return 0, 1
	case 4:
		return 1, 1
	case 5:
		return 2, 1
	case 6:
		return 3, 1
	case tileMarkerBody:
		return 0, 2
	case tileMarkerNose:
		return 1, 2
	}
	return 3, 3 // unused tile (magenta: makes a wrong id visible)
}

// hash2 is a small integer hash for deterministic texel noise.
func hash2(x, y, salt int) uint32 {
	h := uint32(x)*0x9E3779B1 ^ uint32(y)*0x85EBCA77 ^ uint32(salt)*0xC2B2AE3D
	h ^= h >> 15
	h *= 0x2C1B3C6D
	h ^= h >> 12
	h *= 0x297A2D39
	h ^= h >> 15
	return h
}

func clamp8(v int) uint8 {
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return uint8(v)
}

// speckle darkens a colour slightly (0..2 levels, a fine grain) so faces do not look flat
// while staying well inside the 8/255 tolerance of the pov comparison.
func speckle(c color.RGBA, x, y, salt int) color.RGBA {
	h := hash2(x, y, salt)
	d := int(h%3) - 1 // -1..1
	if h>>8%7 == 0 {  // sparse slightly darker grains
		d -= 2
	}
	return color.RGBA{clamp8(int(c.R) + d*int(c.R)/128), clamp8(int(c.G) + d*int(c.G)/128), clamp8(int(c.B) + d*int(c.B)/128), 255}
}

func scaled(c color.RGBA, f float64) color.RGBA {
	return rgb(uint8(float64(c.R)*f+0.5), uint8(float64(c.G)*f+0.5), uint8(float64(c.B)*f+0.5))
}

// frameShades returns the frame colour of every face group of id.
func frameShades(id int, sh faceShades) faceShades {
	top, ok := blockFrames[id]
	if !ok {
		top = scaled(sh.Top, 0.68)
	}
	return faceShades{top, scaled(top, 0.7), scaled(top, 0.5), scaled(top, 0.2)}
}

// Atlas returns the 128×128 block texture in texture orientation: row 0 of the returned image
// is v = 0, the bottom of the texture (flip it vertically to view it as a picture).
func Atlas() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, atlasSize, atlasSize))
	set := func(x, y int, c color.RGBA) { img.SetRGBA(x, y, c) }
	// unused tiles: magenta
	for y := 0; y < atlasSize; y++ {
		for x := 0; x < atlasSize; x++ {
			set(x, y, rgb(255, 0, 255))
		}
	}
	// white ground (0,0): white interior, grey 1-px frame (the visible grid lines)
	for y := 0; y < tilePx; y++ {
		for x := 0; x < tilePx; x++ {
			c := rgb(255, 255, 255)
			if x == 0 || y == 0 || x == tilePx-1 || y == tilePx-1 {
				c = rgb(171, 171, 171)
			} else if hash2(x, y, 7)%11 == 0 {
				c = rgb(251, 251, 250) // faint grain
			}
			set(x, y, c)
		}
	}
	// grey ground (1,0): noisy grey, black frame
	for y := 0; y < tilePx; y++ {
		for x := 0; x < tilePx; x++ {
			px, py := tilePx+x, y
			if x == 0 || y == 0 || x == tilePx-1 || y == tilePx-1 {
				set(px, py, rgb(0, 0, 0))
				continue
			}
			// triangular noise around 80 (77..83), slightly blue: (v, v+2, v+6)
			h := hash2(x, y, 3)
			v := 80 + int(h%4) - 1 + int(h>>8%4) - 2
			set(px, py, rgb(uint8(v), uint8(v+2), uint8(v+6)))
		}
	}
	// coloured and marker tiles: four 16-px quadrants, one shade per face group
	paint := func(id int, sh faceShades) {
		col, row := tileOf(id)
		fs := frameShades(id, sh)
		quads := [4]struct {
			qx, qy int
			c, fr  color.RGBA
		}{
			{0, 0, sh.SideX, fs.SideX},   // Q0: ±x sides
			{0, 1, sh.Top, fs.Top},       // Q1: top
			{1, 0, sh.Bottom, fs.Bottom}, // Q2: bottom
			{1, 1, sh.SideZ, fs.SideZ},   // Q3: ±z sides
		}
		for qi, q := range quads {
			fr := q.fr
			for y := 0; y < quadPx; y++ {
				for x := 0; x < quadPx; x++ {
					c := speckle(q.c, x, y, id*4+qi)
					if x == 0 || y == 0 || x == quadPx-1 || y == quadPx-1 {
						c = fr
					}
					set(col*tilePx+q.qx*quadPx+x, row*tilePx+q.qy*quadPx+y, c)
				}
			}
		}
	}
	for id := 1; id <= 6; id++ {
		paint(id, BlockShades[id])
	}
	for id, sh := range markerShades {
		paint(id, sh)
	}
	return img
}
