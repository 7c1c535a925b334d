package samples

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentdesk/agentdesk/engine/odyssey"
)

// The Explorer sample: a small GUI Odyssey style dataset made by engine/odyssey's generator,
// its episodes renamed "Sample-NN" and its splits "Sample_<kind>_split" (so that they cannot
// replace a real dataset's in the same store), with screenshots drawn here, and a prediction
// file for the test part of one split.

const (
	odysseyEpisodes = 15
	// odysseySeed is chosen so that the test part of odysseySplitKind is small (3 episodes, 22
	// steps) and has TYPE steps, which the evaluator's text score divides by.
	odysseySeed      = 21
	odysseySplitKind = "app_split"
	// odysseyShotSide is the longer side of the drawn screenshots, in pixels.
	odysseyShotSide = 240
)

// odysseySplit is the name of the split the predictions are for.
const odysseySplit = Marker + "_" + odysseySplitKind

// odysseyPredictionsName is the prediction file's name: it names its split, so the Explorer's
// scoring page picks the split when the file is chosen.
const odysseyPredictionsName = Marker + "_predictions_" + odyssey.LevelHigh + "_" + odysseySplit + ".json"

// writeOdyssey generates the dataset into dir (which must not exist or be empty).
func writeOdyssey(ctx context.Context, dir string) error {
	if _, err := odyssey.Generate(ctx, dir, odyssey.GenerateOptions{Episodes: odysseyEpisodes, Seed: odysseySeed,
		Schema: odyssey.SchemaV2, Screenshots: "none"}); err != nil {
		return err
	}
	annDir := filepath.Join(dir, "annotations")
	files, err := filepath.Glob(filepath.Join(annDir, "*.json"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	rename := map[string]string{}
	var eps []*odyssey.Annotation
	for i, f := range files {
		old := strings.TrimSuffix(filepath.Base(f), ".json")
		id := fmt.Sprintf("%s-%02d", Marker, i+1)
		rename[old] = id
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		// The id appears as the episode_id and at the start of every screenshot name.
		n := bytes.Count(data, []byte(`"`+old))
		data = bytes.ReplaceAll(data, []byte(`"`+old), []byte(`"`+id))
		target := filepath.Join(annDir, id+".json")
		a, err := odyssey.ParseAnnotation(target, data)
		if err != nil {
			return err
		}
		if a.EpisodeID != id || n != 1+len(a.Steps) {
			return fmt.Errorf("episode %s: renaming to %s changed %d places, want %d", old, id, n, 1+len(a.Steps))
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return err
		}
		if err := os.Remove(f); err != nil {
			return err
		}
		eps = append(eps, a)
	}
	splits, err := filepath.Glob(filepath.Join(dir, "splits", "*.json"))
	if err != nil {
		return err
	}
	for _, f := range splits {
		sf, err := odyssey.ReadSplitFile(f)
		if err != nil {
			return err
		}
		for i := range sf.Parts {
			for j, id := range sf.Parts[i].IDs {
				sf.Parts[i].IDs[j] = rename[id]
			}
		}
		data, err := odyssey.WriteSplitJSON(sf.Parts)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "splits", Marker+"_"+sf.Name+".json"), data, 0o644); err != nil {
			return err
		}
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	return writeScreenshots(filepath.Join(dir, "screenshots", "screenshots.zip"), eps)
}

// writeScreenshots draws every step's screenshot into one zip archive (members
// screenshots/<name>, stored, no time stamps), as the v2 release ships them.
func writeScreenshots(path string, eps []*odyssey.Annotation) error {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, a := range eps {
		for i := range a.Steps {
			img := drawOdysseyStep(a, i)
			var b bytes.Buffer
			if err := png.Encode(&b, img); err != nil {
				return err
			}
			w, err := zw.CreateHeader(&zip.FileHeader{Name: "screenshots/" + a.Steps[i].Screenshot, Method: zip.Store})
			if err != nil {
				return err
			}
			if _, err := w.Write(b.Bytes()); err != nil {
				return err
			}
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// shotPalette holds every colour the screenshots use, so they can be stored as paletted PNGs.
var shotPalette = color.Palette{colWhite, colInk, colGrey, colLine, colPage, colStatus, colHeader, colAccent,
	colFocus, colGreen, colKeyboard, colKey, colToast, colChip, colTarget, colTargetInk}

// drawOdysseyStep draws the screen before step i of an episode: the app the step is in, and
// where the action happens (the element around a tap, the field and keyboard of a typing step,
// a long list for a scroll, the navigation key pressed).
func drawOdysseyStep(a *odyssey.Annotation, i int) image.Image {
	dw, dh := int(a.Device.W), int(a.Device.H)
	if dw <= 0 || dh <= 0 {
		dw, dh = 1080, 2400
	}
	w, h := odysseyShotSide, odysseyShotSide
	if dw > dh {
		h = int(math.Round(float64(odysseyShotSide) * float64(dh) / float64(dw)))
	} else {
		w = int(math.Round(float64(odysseyShotSide) * float64(dw) / float64(dh)))
	}
	c := newCanvas(w, h, colPage)
	px := func(v float64) int { return int(math.Round(v * float64(w) / 1000)) }
	py := func(v float64) int { return int(math.Round(v * float64(h) / 1000)) }
	c.fill(image.Rect(0, 0, w, 12), colStatus)
	apps := a.Task.App
	app := "Home screen"
	if len(apps) > 0 {
		app = apps[min(i*len(apps)/max(len(a.Steps), 1), len(apps)-1)]
	}
	c.fill(image.Rect(0, 12, w, 34), colHeader)
	c.text(6, 16, app, colWhite, w-4)
	navY := h - 16
	// placeholder content: a few rows of text bars
	for k, y := 0, 42; y+14 < navY-4; k, y = k+1, y+20 {
		c.fill(image.Rect(6, y, w-6, y+16), colWhite)
		c.fill(image.Rect(10, y+5, 10+(w-20)*(40+(k*37+i*11)%55)/100, y+11), colLine)
	}
	// the navigation bar: back, home, recent apps
	c.fill(image.Rect(0, navY, w, h), colStatus)
	keys := []string{"KEY_BACK", "KEY_HOME", "KEY_APPSELECT"}
	keyRect := func(k int) image.Rectangle {
		x := w*(2*k+1)/6 - 8
		return image.Rect(x, navY+2, x+16, h-2)
	}
	for k, lbl := range []string{"<", "o", "#"} {
		c.centred(keyRect(k), lbl, colWhite)
	}
	s := a.Steps[i]
	var info any
	json.Unmarshal(s.Info, &info)
	switch s.Action {
	case "CLICK", "LONG_PRESS":
		if key, ok := info.(string); ok {
			for k, name := range keys {
				if name == key {
					r := keyRect(k)
					c.round(r, colTarget)
					c.centred(r, []string{"<", "o", "#"}[k], colTargetInk)
				}
			}
			break
		}
		var box []float64
		json.Unmarshal(s.Sam2Bbox, &box)
		if len(box) == 4 {
			r := image.Rect(px(box[0]), py(box[1]), px(box[2]), py(box[3]))
			if r.Dx() < 6 {
				r.Max.X = r.Min.X + 6
			}
			if r.Dy() < 6 {
				r.Max.Y = r.Min.Y + 6
			}
			c.round(r, colTarget)
			c.frame(r, colTargetInk)
			lbl := "Tap"
			if s.Action == "LONG_PRESS" {
				lbl = "Hold"
			}
			if r.Dx() >= len(lbl)*glyphW+2 && r.Dy() >= glyphH {
				c.centred(r, lbl, colTargetInk)
			}
		}
	case "TEXT":
		field := image.Rect(6, 40, w-6, 58)
		c.fill(field, colFocus)
		c.frame(field, colAccent)
		c.fill(image.Rect(field.Min.X+4, field.Min.Y+3, field.Min.X+5, field.Max.Y-3), colAccent)
		kb := image.Rect(0, navY-h*3/10, w, navY)
		c.fill(kb, colKeyboard)
		for row := 0; row < 3; row++ {
			y := kb.Min.Y + 4 + row*(kb.Dy()-8)/3
			for x := 4; x+12 <= w-4; x += 14 {
				c.round(image.Rect(x, y, x+12, y+(kb.Dy()-8)/3-3), colKey)
			}
		}
	case "SCROLL":
		c.fill(image.Rect(w-5, 40, w-2, navY-4), colLine)
		c.fill(image.Rect(w-5, 40+(navY-44)/3, w-2, 40+(navY-44)/2), colGrey)
	case "COMPLETE", "INCOMPLETE":
		r := image.Rect(w/2-40, h/2-14, w/2+40, h/2+14)
		col, lbl := colGreen, "Done"
		if s.Action == "INCOMPLETE" {
			col, lbl = colToast, "Error"
		}
		c.round(r, col)
		c.centred(r, lbl, colWhite)
	}
	return paletted(c)
}

// paletted converts a canvas drawn in shotPalette's colours to a paletted image (exact).
func paletted(c canvas) *image.Paletted {
	p := image.NewPaletted(c.Bounds(), shotPalette)
	idx := map[color.RGBA]uint8{}
	for i, col := range shotPalette {
		idx[col.(color.RGBA)] = uint8(i)
	}
	b := c.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			o := c.PixOffset(x, y)
			col := color.RGBA{c.Pix[o], c.Pix[o+1], c.Pix[o+2], c.Pix[o+3]}
			k, ok := idx[col]
			if !ok {
				k = uint8(shotPalette.Index(col))
			}
			p.Pix[p.PixOffset(x, y)] = k
		}
	}
	return p
}

// predictionRecord is one sample of a prediction file, in the official evaluator's input format.
type predictionRecord struct {
	Question string         `json:"question"`
	Pred     string         `json:"pred"`
	GT       string         `json:"gt"`
	MoreInfo predictionInfo `json:"more_info"`
}

type predictionInfo struct {
	Category   string          `json:"category"`
	StepLength int             `json:"step_length"`
	Sam2Bbox   json.RawMessage `json:"sam2_bbox,omitempty"`
}

// predictionKind is what a made-up prediction does on a step.
type predictionKind int

const (
	predExact       predictionKind = iota // the ground truth itself
	predVariant                           // right, but not a copy of the ground truth
	predWrongAction                       // another action type
	predOffTarget                         // a click far from the element
	predWrongText                         // other text typed
	predWrongScroll                       // the opposite scroll direction
	predWrongKey                          // another navigation key (another action type too)
)

// writeOdysseyPredictions writes predictions for the test part of odysseySplit of the dataset
// in datasetDir, at the high level: one episode entirely right, the others with mistakes of
// every kind, about two thirds of the steps right.
func writeOdysseyPredictions(datasetDir, path string) error {
	ds, err := odyssey.OpenDataset(datasetDir)
	if err != nil {
		return err
	}
	byID := map[string]*odyssey.Annotation{}
	for _, f := range ds.AnnotationFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		a, err := odyssey.ParseAnnotation(f, data)
		if err != nil {
			return err
		}
		byID[a.EpisodeID] = a
	}
	sf, err := odyssey.ReadSplitFile(filepath.Join(datasetDir, "splits", odysseySplit+".json"))
	if err != nil {
		return err
	}
	var eps []*odyssey.Annotation
	for _, id := range sf.Part("test") {
		a, ok := byID[id]
		if !ok {
			return fmt.Errorf("split %s names episode %s, which the dataset lacks", odysseySplit, id)
		}
		eps = append(eps, a)
	}
	if len(eps) < 2 {
		return fmt.Errorf("split %s has %d test episodes; the sample needs at least two", odysseySplit, len(eps))
	}
	recs, err := odyssey.TestRecords(odysseySplit, odyssey.LevelHigh, eps, func(name string) string { return "screenshots/" + name })
	if err != nil {
		return err
	}
	kinds := planPredictions(recs, eps)
	out := make([]predictionRecord, len(recs))
	for i := range recs {
		r := &recs[i]
		box := boxOf(r.Sam2Bbox)
		pred := makePrediction(r.Answer, box, kinds[i], i)
		v, err := odyssey.MatchStep(pred, r.Answer, box)
		if err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
		if want := kinds[i] == predExact || kinds[i] == predVariant; v.Correct() != want {
			// the made-up mistake happens to be right (or the variant wrong): fall back
			if want {
				pred = r.Answer
			} else {
				pred = otherAction(r.Answer)
			}
		}
		out[i] = predictionRecord{Question: r.Prompt(), Pred: pred, GT: r.Answer,
			MoreInfo: predictionInfo{Category: r.Category, StepLength: r.StepLength, Sam2Bbox: r.Sam2Bbox}}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func boxOf(raw json.RawMessage) odyssey.Box {
	if len(raw) == 0 || string(raw) == "null" {
		return odyssey.Box{}
	}
	var vals []float64
	json.Unmarshal(raw, &vals)
	if vals == nil {
		vals = []float64{}
	}
	return odyssey.Box{Present: true, Values: vals}
}

// planPredictions decides what each record's prediction does. The shortest test episode is
// predicted entirely right. In the others, the first typing, tap (with its element's box),
// scroll and key step are got wrong in their own way, and further steps get a wrong action
// type until about a third of all steps are wrong; two right steps are predicted with a
// different tap point inside the element and with part of the text, which still count.
func planPredictions(recs []odyssey.TestRecord, eps []*odyssey.Annotation) []predictionKind {
	shortest := eps[0]
	for _, a := range eps[1:] {
		if len(a.Steps) < len(shortest.Steps) {
			shortest = a
		}
	}
	perfect := shortest.EpisodeID
	kinds := make([]predictionKind, len(recs))
	target := int(math.Round(float64(len(recs)) * 0.32))
	wrong := 0
	used := map[predictionKind]bool{}
	var candidates []int // steps of the other episodes not yet chosen
	for i, r := range recs {
		if r.EpisodeID == perfect {
			continue
		}
		cmd, _ := odyssey.ParseCommand(r.Answer)
		k := predExact
		switch {
		case cmd.Action == odyssey.CmdType:
			k = predWrongText
		case cmd.Action == odyssey.CmdClick && len(boxOf(r.Sam2Bbox).Values) == 4:
			k = predOffTarget
		case cmd.Action == odyssey.CmdScroll:
			k = predWrongScroll
		case strings.HasPrefix(cmd.Action, "PRESS_"):
			k = predWrongKey
		}
		if k != predExact && !used[k] && wrong < target {
			kinds[i], used[k] = k, true
			wrong++
			continue
		}
		candidates = append(candidates, i)
	}
	// spread the remaining mistakes evenly over the candidates
	if rest := target - wrong; rest > 0 && len(candidates) > 0 {
		for j := 0; j < rest && j < len(candidates); j++ {
			kinds[candidates[j*len(candidates)/rest]] = predWrongAction
		}
	}
	// two right answers that are not copies of the ground truth
	near, partial := false, false
	for i, r := range recs {
		if kinds[i] != predExact {
			continue
		}
		cmd, _ := odyssey.ParseCommand(r.Answer)
		switch {
		case !near && cmd.Action == odyssey.CmdClick && len(boxOf(r.Sam2Bbox).Values) == 4:
			kinds[i], near = predVariant, true
		case !partial && cmd.Action == odyssey.CmdType && strings.Contains(strings.TrimSpace(cmd.Text), " "):
			kinds[i], partial = predVariant, true
		}
	}
	return kinds
}

// makePrediction writes the prediction of the given kind for a ground truth.
func makePrediction(gt string, box odyssey.Box, k predictionKind, i int) string {
	cmd, _ := odyssey.ParseCommand(gt)
	switch k {
	case predVariant:
		if cmd.Action == odyssey.CmdType {
			// the first word of the text: a substring of the ground truth counts as right
			return "TYPE: " + strings.Fields(cmd.Text)[0]
		}
		if len(box.Values) == 4 {
			x := int(math.Ceil(box.Values[0])) + 1
			y := int(math.Floor(box.Values[3])) - 1
			return fmt.Sprintf("CLICK: (%d, %d)", x, y)
		}
	case predWrongAction:
		return otherAction(gt)
	case predOffTarget:
		if len(box.Values) == 4 {
			// the mirror image of the element's centre, far from it
			cx, cy := (box.Values[0]+box.Values[2])/2, (box.Values[1]+box.Values[3])/2
			x, y := 1000-cx, 1000-cy
			if math.Hypot(x-cx, y-cy) < 300 {
				x, y = math.Mod(cx+500, 1000), math.Mod(cy+500, 1000)
			}
			return fmt.Sprintf("CLICK: (%d, %d)", int(x), int(y))
		}
	case predWrongText:
		wrong := []string{"weather tomorrow", "set an alarm", "zzz"}
		return "TYPE: " + wrong[i%len(wrong)]
	case predWrongScroll:
		opposite := map[string]string{"UP": "DOWN", "DOWN": "UP", "LEFT": "RIGHT", "RIGHT": "LEFT"}
		if o, ok := opposite[strings.ToUpper(cmd.Text)]; ok {
			return "SCROLL: " + o
		}
	case predWrongKey:
		if cmd.Action == odyssey.CmdPressBack {
			return odyssey.CmdPressHome
		}
		return odyssey.CmdPressBack
	}
	return gt
}

// otherAction is a prediction of another action type than the ground truth's.
func otherAction(gt string) string {
	cmd, _ := odyssey.ParseCommand(gt)
	switch cmd.Action {
	case odyssey.CmdClick, odyssey.CmdLongPress:
		return "SCROLL: DOWN"
	case odyssey.CmdScroll:
		return "CLICK: (500, 500)"
	case odyssey.CmdType:
		return "CLICK: (500, 120)"
	case odyssey.CmdComplete:
		return odyssey.CmdPressBack
	}
	return odyssey.CmdComplete
}
