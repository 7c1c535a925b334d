package explorer

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"

	xdraw "golang.org/x/image/draw"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/odyssey"
	"github.com/agentdesk/agentdesk/ui/widgets"
)

// The failing steps of a scoring run: each one's screenshot with the predicted action drawn over
// it (a cross with a white edge, readable on any screenshot).

// predictedColour marks the predicted action drawn into a failing step's screenshot; the true
// action is the frame viewer's own overlay in the theme's primary colour.
var predictedColour = color.NRGBA{235, 70, 40, 255}

// failureFrames is the frame viewer's loader for the failing steps: step i shows failure i's
// screenshot with the predicted action drawn into it (the viewer draws the true action over
// it). It runs on the viewer's decoding goroutines too, so it keeps its own list.
func (s *explorerScoring) failureFrames(fails []odyssey.Failure) widgets.FrameLoader {
	return func(step *episode.Step) (image.Image, error) {
		if step.Index >= len(fails) {
			return nil, fmt.Errorf("no failing step %d", step.Index+1)
		}
		return s.failureFrame(fails[step.Index])
	}
}

func (s *explorerScoring) failureFrame(f odyssey.Failure) (image.Image, error) {
	ep, err := s.episode(f.EpisodeID)
	if err != nil {
		return nil, err
	}
	if f.Step < 0 || f.Step >= len(ep.Steps) {
		return nil, fmt.Errorf("episode %s has no step %d", f.EpisodeID, f.Step+1)
	}
	img, err := s.x.frames.fitted(&ep.Steps[f.Step])
	if err != nil {
		return nil, err
	}
	return drawPrediction(img, f.PredAction), nil
}

// episode loads (and keeps) a failing step's episode.
func (s *explorerScoring) episode(ext string) (*episode.Episode, error) {
	s.mu.Lock()
	ep, ok := s.episodes[ext]
	s.mu.Unlock()
	if ok {
		return ep, nil
	}
	ctx := context.Background()
	id, err := s.x.st.EpisodeID(ctx, episode.Key{Source: episode.SourceOdyssey, ExternalID: ext})
	if err != nil {
		return nil, err
	}
	if ep, err = s.x.st.Episode(ctx, id); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(s.episodes) > 32 { // keep the few episodes being walked through
		s.episodes = map[string]*episode.Episode{}
	}
	s.episodes[ext] = ep
	s.mu.Unlock()
	return ep, nil
}

// predictionMinSide is the least long side of a screenshot a prediction is drawn on.
const predictionMinSide = 480

// drawPrediction copies img and draws a predicted action on it: a cross at each point, an arrow
// from the first to the last point of a scroll, in red over a white edge (so the cross reads on
// a red screenshot too, as the viewer's halo does for the true action).
//
// A small screenshot (the synthetic datasets' are a few pixels) is first enlarged, pixels kept
// square, to predictionMinSide on its long side, so the cross marks a point instead of
// covering the frame.
func drawPrediction(img image.Image, a episode.Action) image.Image {
	b := img.Bounds()
	scale := 1
	if long := max(b.Dx(), b.Dy()); long > 0 && long < predictionMinSide {
		scale = (predictionMinSide + long - 1) / long
	}
	out := image.NewRGBA(image.Rect(0, 0, b.Dx()*scale, b.Dy()*scale))
	if scale == 1 {
		draw.Draw(out, out.Bounds(), img, b.Min, draw.Src)
	} else {
		xdraw.NearestNeighbor.Scale(out, out.Bounds(), img, b, xdraw.Src, nil)
	}
	w, h := out.Bounds().Dx(), out.Bounds().Dy()
	size := max(6, min(w, h)/30)
	at := func(p episode.Point) (int, int) { return int(p.X * float64(w)), int(p.Y * float64(h)) }
	edge := color.NRGBA{255, 255, 255, 255}
	for _, stroke := range []struct {
		c    color.Color
		half int
	}{{edge, 3}, {predictedColour, 1}} { // 3-6 px red strokes in 7-10 px white ones
		for i, p := range a.Points {
			x, y := at(p)
			for d := -stroke.half; d <= stroke.half; d++ {
				widgets.Line(out, x-size, y-size+d, x+size, y+size+d, stroke.c)
				widgets.Line(out, x-size, y+size+d, x+size, y-size+d, stroke.c)
			}
			if i > 0 {
				px, py := at(a.Points[i-1])
				for d := -stroke.half; d <= stroke.half; d++ {
					widgets.Line(out, px+d, py, x+d, y, stroke.c)
				}
			}
		}
	}
	return out
}
