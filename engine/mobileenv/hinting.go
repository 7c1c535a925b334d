package mobileenv

import (
	"image"
	"image/draw"
	"math"
	"sort"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// A small vertical "hinting" pass for the embedded CFF font. FreeType (which the original's
// Pillow uses) grid-fits CFF glyphs vertically: horizontal edges — baseline, x-height, cap
// height, the tops and bottoms of bars and bowls — land on pixel boundaries, which makes them
// crisp. x/image rasterises outlines as they are. drawHinted snaps every horizontal edge of the
// outline to the nearest pixel row and moves the points between edges proportionally, then
// rasterises the outline with its origin on the pixel grid; horizontal positions are left
// unhinted (as FreeType's CFF engine does).

// hintedGlyph rasterises rune ch of f at ppem with its origin at (x, baseline) (integers) into
// dst (coverage added with "over"). It reports false when the font has no glyph for ch.
func hintedGlyph(dst *image.Alpha, f *sfnt.Font, buf *sfnt.Buffer, ch rune, ppem fixed.Int26_6, x, baseline int) bool {
	idx, err := f.GlyphIndex(buf, ch)
	if err != nil || idx == 0 {
		return false
	}
	segs, err := f.LoadGlyph(buf, idx, ppem, nil)
	if err != nil {
		return false
	}
	if len(segs) == 0 {
		return true // a space
	}
	// collect horizontal edges: on-curve points with a horizontal tangent
	var edges []float64
	var cur fixed.Point26_6
	for _, s := range segs {
		switch s.Op {
		case sfnt.SegmentOpMoveTo:
			cur = s.Args[0]
		case sfnt.SegmentOpLineTo:
			if s.Args[0].Y == cur.Y {
				edges = append(edges, float64(cur.Y)/64)
			}
			cur = s.Args[0]
		case sfnt.SegmentOpQuadTo:
			if s.Args[0].Y == cur.Y {
				edges = append(edges, float64(cur.Y)/64)
			}
			if s.Args[0].Y == s.Args[1].Y {
				edges = append(edges, float64(s.Args[1].Y)/64)
			}
			cur = s.Args[1]
		case sfnt.SegmentOpCubeTo:
			if s.Args[0].Y == cur.Y {
				edges = append(edges, float64(cur.Y)/64)
			}
			if s.Args[1].Y == s.Args[2].Y {
				edges = append(edges, float64(s.Args[2].Y)/64)
			}
			cur = s.Args[2]
		}
	}
	sort.Float64s(edges)
	uniq := edges[:0]
	for i, e := range edges {
		if i == 0 || e-uniq[len(uniq)-1] > 1e-9 {
			uniq = append(uniq, e)
		}
	}
	edges = uniq
	snapped := make([]float64, len(edges))
	for i, e := range edges {
		snapped[i] = math.Round(e)
	}
	// keep the order of edges (two edges closer than a pixel may round apart or together)
	for i := 1; i < len(snapped); i++ {
		if snapped[i] < snapped[i-1] {
			snapped[i] = snapped[i-1]
		}
	}
	mapY := func(y fixed.Int26_6) float32 {
		v := float64(y) / 64
		n := len(edges)
		switch {
		case n == 0:
			return float32(v)
		case v <= edges[0]:
			return float32(v + snapped[0] - edges[0])
		case v >= edges[n-1]:
			return float32(v + snapped[n-1] - edges[n-1])
		}
		i := sort.SearchFloat64s(edges, v)
		if edges[i] == v {
			return float32(snapped[i])
		}
		a, b := edges[i-1], edges[i]
		t := (v - a) / (b - a)
		return float32(snapped[i-1] + t*(snapped[i]-snapped[i-1]))
	}
	mapX := func(xx fixed.Int26_6) float32 { return float32(xx) / 64 }
	// bounds of the transformed outline
	minX, minY, maxX, maxY := float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Inf(-1))
	visit := func(p fixed.Point26_6) {
		px, py := mapX(p.X), mapY(p.Y)
		minX, maxX = min(minX, px), max(maxX, px)
		minY, maxY = min(minY, py), max(maxY, py)
	}
	for _, s := range segs {
		n := 1
		switch s.Op {
		case sfnt.SegmentOpQuadTo:
			n = 2
		case sfnt.SegmentOpCubeTo:
			n = 3
		}
		for k := 0; k < n; k++ {
			visit(s.Args[k])
		}
	}
	x0, y0 := int(math.Floor(float64(minX)))-1, int(math.Floor(float64(minY)))-1
	x1, y1 := int(math.Ceil(float64(maxX)))+1, int(math.Ceil(float64(maxY)))+1
	w, h := x1-x0, y1-y0
	if w <= 0 || h <= 0 || w > 4096 || h > 4096 {
		return true
	}
	var z vector.Rasterizer
	z.Reset(w, h)
	ox, oy := float32(-x0), float32(-y0)
	for _, s := range segs {
		switch s.Op {
		case sfnt.SegmentOpMoveTo:
			z.MoveTo(mapX(s.Args[0].X)+ox, mapY(s.Args[0].Y)+oy)
		case sfnt.SegmentOpLineTo:
			z.LineTo(mapX(s.Args[0].X)+ox, mapY(s.Args[0].Y)+oy)
		case sfnt.SegmentOpQuadTo:
			z.QuadTo(mapX(s.Args[0].X)+ox, mapY(s.Args[0].Y)+oy, mapX(s.Args[1].X)+ox, mapY(s.Args[1].Y)+oy)
		case sfnt.SegmentOpCubeTo:
			z.CubeTo(mapX(s.Args[0].X)+ox, mapY(s.Args[0].Y)+oy, mapX(s.Args[1].X)+ox, mapY(s.Args[1].Y)+oy, mapX(s.Args[2].X)+ox, mapY(s.Args[2].Y)+oy)
		}
	}
	z.ClosePath()
	glyph := image.NewAlpha(image.Rect(0, 0, w, h))
	z.Draw(glyph, glyph.Bounds(), image.Opaque, image.Point{})
	r := image.Rect(x+x0, baseline+y0, x+x1, baseline+y1)
	draw.DrawMask(dst, r, image.Opaque, image.Point{}, glyph, image.Point{}, draw.Over)
	return true
}
