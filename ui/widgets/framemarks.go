package widgets

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"

	"github.com/agentdesk/agentdesk/engine/episode"
)

// What the frame viewer draws over a frame: the action's marks, badges and the captions.

// imageRect is where the frame is drawn inside the image area (contain fit).
func (v *FrameViewer) imageRect() (pos fyne.Position, size fyne.Size) {
	area := v.image.Size()
	if v.imgSize.X == 0 || v.imgSize.Y == 0 || area.Width == 0 || area.Height == 0 {
		return fyne.Position{}, area
	}
	scale := min(area.Width/float32(v.imgSize.X), area.Height/float32(v.imgSize.Y))
	size = fyne.NewSize(float32(v.imgSize.X)*scale, float32(v.imgSize.Y)*scale)
	return fyne.NewPos((area.Width-size.Width)/2, (area.Height-size.Height)/2), size
}

// layoutMarks draws the action of the step on show over the frame.
func (v *FrameViewer) layoutMarks() {
	v.marks.Objects = nil
	if v.Len() == 0 || v.index < 0 || v.index >= v.Len() {
		v.marks.Refresh()
		return
	}
	a := v.ep.Steps[v.index].Action
	origin, size := v.imageRect()
	at := func(p episode.Point) fyne.Position {
		return fyne.NewPos(origin.X+float32(p.X)*size.Width, origin.Y+float32(p.Y)*size.Height)
	}
	accent := theme.Color(theme.ColorNamePrimary)
	points := a.Points
	if path := v.pathOf(&v.ep.Steps[v.index]); len(path) >= 2 {
		v.addPath(path, at, accent)
		points = nil // the path replaces the rings and the straight arrow
	}
	for i, p := range points {
		c := canvas.NewCircle(nil)
		c.StrokeColor = accent
		c.StrokeWidth = 3
		r := float32(14)
		if a.Kind == "long_press" {
			r = 22
		}
		pos := at(p)
		c.Move(fyne.NewPos(pos.X-r, pos.Y-r))
		c.Resize(fyne.NewSize(2*r, 2*r))
		v.addMark(c)
		if i > 0 { // a swipe or scroll: an arrow from the previous point
			prev := at(a.Points[i-1])
			l := canvas.NewLine(accent)
			l.StrokeWidth = 4
			l.Position1, l.Position2 = prev, pos
			v.addMark(l)
			head := canvas.NewCircle(accent)
			head.Move(fyne.NewPos(pos.X-6, pos.Y-6))
			head.Resize(fyne.NewSize(12, 12))
			v.addMark(head)
		}
	}
	if a.Kind == "lift" && len(a.Points) == 0 {
		// Mobile-Env records a lift without a position: mark where the last touch was.
		if p, ok := v.lastTouch(v.index); ok {
			pos := at(p)
			r := float32(22)
			c := canvas.NewCircle(nil)
			c.StrokeColor = accent
			c.StrokeWidth = 2
			c.Move(fyne.NewPos(pos.X-r, pos.Y-r))
			c.Resize(fyne.NewSize(2*r, 2*r))
			v.addMark(c)
			v.addBadge("lift", fyne.NewPos(pos.X+r+4, pos.Y-10), theme.Color(theme.ColorNameForeground), origin, size)
		}
	}
	if a.Text != "" {
		v.addBadge(actionTextBadge(a), fyne.NewPos(origin.X+8, origin.Y+size.Height-38), theme.Color(theme.ColorNameForeground), origin, size)
	}
	step := v.ep.Steps[v.index]
	if step.Reward != 0 {
		c := theme.Color(theme.ColorNameSuccess)
		if step.Reward < 0 {
			c = theme.Color(theme.ColorNameError)
		}
		text := "reward " + formatReward(step.Reward)
		w := fyne.MeasureText(text, 18, fyne.TextStyle{Bold: true}).Width
		v.addBadge(text, fyne.NewPos(origin.X+size.Width-w-14, origin.Y+8), c, origin, size)
	}
	// (the instruction is in the captions under the frame: over it, it hid the screen's top and
	// the action drawn there)
	v.marks.Refresh()
}

// Every ring, arrow and dot is drawn over a halo, a light band edged in dark and wider than the
// mark, so that a mark in the accent colour reads on any screenshot (a blue ring on a blue
// screen too).
var (
	haloLight = color.NRGBA{255, 255, 255, 0xe0}
	haloDark  = color.NRGBA{0, 0, 0, 0xb0}
)

// addMark adds a ring (stroked circle), a dot (filled circle) or a line to the marks over its
// halo; the halo is one nested container, so the marks list holds the marks themselves.
func (v *FrameViewer) addMark(o fyne.CanvasObject) {
	halo := container.NewWithoutLayout()
	for _, band := range []struct {
		c     color.Color
		extra float32
	}{{haloDark, 8}, {haloLight, 4}} {
		switch m := o.(type) {
		case *canvas.Circle:
			h := canvas.NewCircle(nil)
			if m.StrokeWidth > 0 {
				h.StrokeColor, h.StrokeWidth = band.c, m.StrokeWidth+band.extra
				h.Move(m.Position())
				h.Resize(m.Size())
			} else { // a dot: a larger disc under it
				h.FillColor = band.c
				h.Move(m.Position().SubtractXY(band.extra/2, band.extra/2))
				h.Resize(m.Size().AddWidthHeight(band.extra, band.extra))
			}
			halo.Add(h)
		case *canvas.Line:
			h := canvas.NewLine(band.c)
			h.StrokeWidth = m.StrokeWidth + band.extra
			h.Position1, h.Position2 = m.Position1, m.Position2
			halo.Add(h)
		}
	}
	v.marks.Add(halo)
	v.marks.Add(o)
}

// pathWidth is the stroke of a finger path: thinner than a scroll's straight arrow, so that
// the screen under a path that winds stays visible.
const pathWidth = 3

// addPath draws a recorded finger path: a line through its points (the points closer than a
// few pixels to the previous one left out), a dot where the finger went down and an open
// arrowhead where it lifted; no ring, which marks a tap. The halos of all its pieces are drawn
// under all of them, so that where two segments meet no halo covers the line.
func (v *FrameViewer) addPath(path []episode.Point, at func(episode.Point) fyne.Position, c color.Color) {
	pts := []fyne.Position{at(path[0])}
	for _, p := range path[1:] {
		q := at(p)
		if last := pts[len(pts)-1]; math.Hypot(float64(q.X-last.X), float64(q.Y-last.Y)) >= 3 {
			pts = append(pts, q)
		} else if p == path[len(path)-1] && len(pts) > 1 {
			pts[len(pts)-1] = q // the end is where the finger lifted, exactly
		}
	}
	var marks []fyne.CanvasObject
	line := func(a, b fyne.Position) {
		l := canvas.NewLine(c)
		l.StrokeWidth = pathWidth
		l.Position1, l.Position2 = a, b
		marks = append(marks, l)
	}
	for i := 1; i < len(pts); i++ {
		line(pts[i-1], pts[i])
	}
	start := canvas.NewCircle(c)
	start.Move(pts[0].SubtractXY(6, 6))
	start.Resize(fyne.NewSize(12, 12))
	marks = append(marks, start)
	if len(pts) > 1 {
		// The arrowhead points along the path's last 16 pixels or so.
		end := pts[len(pts)-1]
		from := pts[0]
		for i := len(pts) - 2; i >= 0; i-- {
			from = pts[i]
			if math.Hypot(float64(end.X-from.X), float64(end.Y-from.Y)) >= 16 {
				break
			}
		}
		dx, dy := float64(end.X-from.X), float64(end.Y-from.Y)
		if n := math.Hypot(dx, dy); n > 0 {
			dx, dy = dx/n, dy/n
			for _, side := range []float64{-1, 1} {
				// 16 pixels back from the tip, turned 30 degrees to either side
				cos, sin := math.Cos(math.Pi/6), side*math.Sin(math.Pi/6)
				bx, by := -(dx*cos - dy*sin), -(dx*sin + dy*cos)
				line(end, end.AddXY(float32(16*bx), float32(16*by)))
			}
		}
	}
	halo := container.NewWithoutLayout()
	for _, band := range []struct {
		c     color.Color
		extra float32
	}{{haloDark, 8}, {haloLight, 4}} {
		for _, o := range marks {
			switch m := o.(type) {
			case *canvas.Line:
				h := canvas.NewLine(band.c)
				h.StrokeWidth = m.StrokeWidth + band.extra
				h.Position1, h.Position2 = m.Position1, m.Position2
				halo.Add(h)
			case *canvas.Circle:
				h := canvas.NewCircle(band.c)
				h.Move(m.Position().SubtractXY(band.extra/2, band.extra/2))
				h.Resize(m.Size().AddWidthHeight(band.extra, band.extra))
				halo.Add(h)
			}
		}
	}
	v.marks.Add(halo)
	for _, o := range marks {
		v.marks.Add(o)
	}
}

// lastTouch is the position of the last touch at or before step i (a lift's position).
func (v *FrameViewer) lastTouch(i int) (episode.Point, bool) {
	for j := i; j >= 0 && j > i-100; j-- {
		if a := v.ep.Steps[j].Action; len(a.Points) > 0 {
			return a.Points[len(a.Points)-1], true
		}
	}
	return episode.Point{}, false
}

// addBadge draws text on a translucent box over the frame, cut to the frame's width.
func (v *FrameViewer) addBadge(text string, pos fyne.Position, c color.Color, origin fyne.Position, size fyne.Size) {
	style := fyne.TextStyle{Bold: true}
	room := origin.X + size.Width - pos.X - 12
	if room < 20 {
		return
	}
	text = cutToWidth(text, 18, style, room)
	t := canvas.NewText(text, c)
	t.TextSize = 18
	t.TextStyle = style
	bg := canvas.NewRectangle(OverlayBackground())
	ts := t.MinSize()
	bg.Move(pos.SubtractXY(6, 4))
	bg.Resize(ts.AddWidthHeight(12, 8))
	t.Move(pos)
	v.marks.Add(bg)
	v.marks.Add(t)
}

// actionTextBadge names the text an action carries after what the action is: typed text for
// typing, the direction of a scroll, the key of a key press (it said "Typed" for all).
func actionTextBadge(a episode.Action) string {
	switch strings.ToLower(a.Kind) {
	case "type", "text", "input", "input_text":
		return "Typed: " + a.Text
	case "":
		return a.Text
	}
	return strings.ReplaceAll(a.Kind, "_", " ") + ": " + a.Text
}

// indentXML lays a one-line view hierarchy out one element per line; text that does not parse
// as XML is shown as it is.
func indentXML(s string) string {
	dec := xml.NewDecoder(strings.NewReader(s))
	dec.Strict = false
	var b strings.Builder
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return s
		}
		if cd, ok := tok.(xml.CharData); ok && len(bytes.TrimSpace(cd)) == 0 {
			continue
		}
		if err := enc.EncodeToken(xml.CopyToken(tok)); err != nil {
			return s
		}
	}
	if err := enc.Flush(); err != nil {
		return s
	}
	return b.String()
}

func describeAction(a episode.Action) string {
	s := a.Kind
	if s == "" {
		s = "no action"
	}
	if len(a.Points) > 0 {
		s += fmt.Sprintf(" at (%.2f, %.2f)", a.Points[0].X, a.Points[0].Y)
	}
	if len(a.Points) > 1 {
		last := a.Points[len(a.Points)-1]
		s += fmt.Sprintf(" to (%.2f, %.2f)", last.X, last.Y)
	}
	if a.Text != "" {
		s += fmt.Sprintf(" %q", a.Text)
	}
	return s
}

func formatReward(r float64) string {
	if r == 0 {
		return "0"
	}
	return fmt.Sprintf("%+.3g", r)
}
