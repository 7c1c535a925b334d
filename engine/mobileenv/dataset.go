package mobileenv

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/limits"
	"github.com/agentdesk/agentdesk/engine/pyfmt"
)

// Action types of the recorder (spec §A.1).
const (
	ActionTouch  = 0
	ActionLift   = 1
	ActionRepeat = 2
	ActionText   = 3
	ActionADB    = 4
)

var actionNames = map[int64]string{0: "TOUCH", 1: "LIFT", 2: "REPEAT", 3: "TEXT", 4: "ADB"}

// ActionName returns the enum name of an action type ("TOUCH", ...) or its number as text.
func ActionName(t int64) string {
	if n, ok := actionNames[t]; ok {
		return n
	}
	return fmt.Sprint(t)
}

// Kind of annotation file.
type Kind string

const (
	// KindRaw is a raw dump of the web tool: one or more trajectory lists back to back.
	KindRaw Kind = "raw"
	// KindResaved is a resaved file: one {"meta", "trajectories"} dict.
	KindResaved Kind = "resaved"
	// KindTemp is a resave temporary file: a meta dict followed by trajectory lists.
	KindTemp Kind = "resave-temp"
)

// File is a decoded annotation file.
type File struct {
	Path     string
	Kind     Kind
	Protocol int
	Size     int64
	// Pickles are all pickles of the file, in order.
	Pickles []Pickle
	// Root is the first pickle's value (the dict of a resaved file).
	Root any
	// Meta is the meta dict of a resaved or temporary file (nil for raw dumps).
	Meta *Dict
	// Trajectories are the trajectory lists (each a list of record dicts).
	Trajectories []*List
}

// Open reads and classifies an annotation file. A resaved file is taken from its first pickle
// only (as the original tools do); a raw dump contributes one trajectory per pickle.
func Open(path string) (*File, error) {
	data, err := limits.ReadFile(path, limits.Pickle)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse classifies decoded annotation data; name is used in messages.
func Parse(name string, data []byte) (*File, error) {
	f, err := parse(name, data)
	if err != nil {
		return nil, err
	}
	if err := limits.Trajectories.Check(name, int64(len(f.Trajectories))); err != nil {
		return nil, err
	}
	for i, t := range f.Trajectories {
		if err := limits.Steps.Check(fmt.Sprintf("%s: trajectory %d", name, i), int64(len(t.Items))); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func parse(name string, data []byte) (*File, error) {
	ps, err := DecodeAll(name, data)
	if err != nil {
		return nil, err
	}
	f := &File{Path: name, Pickles: ps, Protocol: ps[0].Protocol, Root: ps[0].Value, Size: int64(len(data))}
	if d, ok := ps[0].Value.(*Dict); ok {
		if d.Has("trajectories") {
			f.Kind = KindResaved
			if m, ok := d.Get("meta"); ok {
				f.Meta, _ = m.(*Dict)
			}
			tv, _ := d.Get("trajectories")
			tl, ok := tv.(*List)
			if !ok {
				return nil, fmt.Errorf("%s: \"trajectories\" is %s, not list", name, TypeName(tv))
			}
			for i, t := range tl.Items {
				l, ok := t.(*List)
				if !ok {
					return nil, fmt.Errorf("%s: trajectory %d is %s, not list", name, i, TypeName(t))
				}
				f.Trajectories = append(f.Trajectories, l)
			}
			return f, nil
		}
		if d.Has("task_definition_id") || d.Has("otask_id") {
			f.Kind = KindTemp
			f.Meta = d
			for i, p := range ps[1:] {
				l, ok := p.Value.(*List)
				if !ok {
					return nil, fmt.Errorf("%s: pickle %d (byte %d) is %s, not a trajectory list", name, i+1, p.Offset, TypeName(p.Value))
				}
				f.Trajectories = append(f.Trajectories, l)
			}
			return f, nil
		}
		return nil, fmt.Errorf("%s: a dict without \"trajectories\" is not an annotation file", name)
	}
	f.Kind = KindRaw
	for i, p := range ps {
		l, ok := p.Value.(*List)
		if !ok {
			return nil, fmt.Errorf("%s: pickle %d (byte %d) is %s, not a trajectory list", name, i, p.Offset, TypeName(p.Value))
		}
		f.Trajectories = append(f.Trajectories, l)
	}
	return f, nil
}

// DefinitionID is meta.task_definition_id of a resaved file ("" when absent).
func (f *File) DefinitionID() string {
	if f.Meta == nil {
		return ""
	}
	v, _ := f.Meta.Get("task_definition_id")
	s, _ := AsString(v)
	return s
}

// Record returns record j of trajectory i as a dict.
func (f *File) Record(i, j int) (*Dict, error) {
	if i < 0 || i >= len(f.Trajectories) {
		return nil, fmt.Errorf("trajectory %d out of range (0..%d)", i, len(f.Trajectories)-1)
	}
	t := f.Trajectories[i]
	if j < 0 || j >= len(t.Items) {
		return nil, fmt.Errorf("record %d of trajectory %d out of range (0..%d)", j, i, len(t.Items)-1)
	}
	d, ok := t.Items[j].(*Dict)
	if !ok {
		return nil, fmt.Errorf("record %d of trajectory %d is %s, not dict", j, i, TypeName(t.Items[j]))
	}
	return d, nil
}

// Summary describes an annotation file for `pickle info`.
type Summary struct {
	Path         string            `json:"path"`
	Kind         Kind              `json:"kind"`
	Protocol     int               `json:"protocol"`
	Pickles      int               `json:"pickles"`
	Bytes        int64             `json:"bytes"`
	Meta         map[string]string `json:"meta,omitempty"`
	Trajectories []TrajSummary     `json:"trajectories"`
	Records      int               `json:"records"`
	Steps        int               `json:"steps"`
	TotalReward  Number            `json:"total_reward"`
	// Observations counts "dtype shape" descriptions, e.g. "|u1 (48, 27, 3)": 12.
	Observations map[string]int `json:"observations"`
}

// Number is a float that is written to JSON as a number when finite, and as Python's repr
// ("inf", "-inf", "nan") otherwise: a reward of float('inf') is valid in a pickle, and JSON has
// no such number.
type Number float64

// MarshalJSON implements json.Marshaler.
func (n Number) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return []byte(`"` + pyfmt.FloatRepr(f) + `"`), nil
	}
	return json.Marshal(f)
}

// TrajSummary describes one trajectory.
type TrajSummary struct {
	Index        int            `json:"index"`
	TaskID       string         `json:"task_id,omitempty"`
	Task         string         `json:"task,omitempty"`
	Records      int            `json:"records"`
	Steps        int            `json:"steps"`
	Actions      map[string]int `json:"actions"`
	Rewarded     int            `json:"rewarded_steps"`
	TotalReward  Number         `json:"total_reward"`
	Instructions []string       `json:"instructions,omitempty"`
	InputTokens  []string       `json:"input_tokens,omitempty"`
}

// Info summarises an annotation file: kind, protocol, trajectories, steps, rewards,
// instructions, observation shapes and dtypes.
func Info(path string) (Summary, error) {
	f, err := Open(path)
	if err != nil {
		return Summary{}, err
	}
	return f.Summary(), nil
}

// Summary computes the file's summary.
func (f *File) Summary() Summary {
	s := Summary{Path: f.Path, Kind: f.Kind, Protocol: f.Protocol, Pickles: len(f.Pickles), Bytes: f.Size, Observations: map[string]int{}}
	if f.Meta != nil {
		s.Meta = map[string]string{}
		for i, k := range f.Meta.Keys {
			ks, _ := AsString(k)
			s.Meta[ks] = valueText(f.Meta.Vals[i])
		}
	}
	for i, t := range f.Trajectories {
		ts := TrajSummary{Index: i, Records: len(t.Items), Actions: map[string]int{}}
		if len(t.Items) > 1 {
			ts.Steps = len(t.Items) - 1
		}
		for j, it := range t.Items {
			d, ok := it.(*Dict)
			if !ok {
				continue
			}
			if j == 0 {
				ts.TaskID = str(d, "task_id")
				ts.Task = str(d, "task")
			}
			if v, ok := d.Get("action_type"); ok {
				a, _ := AsInt(v)
				ts.Actions[ActionName(a)]++
			}
			if v, ok := d.Get("reward"); ok {
				r, _ := AsFloat(v)
				ts.TotalReward += Number(r)
				if r != 0 { // a reward event, positive or negative
					ts.Rewarded++
				}
			}
			if v, ok := d.Get("instruction"); ok {
				ts.Instructions = append(ts.Instructions, InstructionText(v))
			}
			if v, ok := d.Get("input_token"); ok {
				ts.InputTokens = append(ts.InputTokens, valueText(v))
			}
			if v, ok := d.Get("observation"); ok {
				s.Observations[shapeText(v)]++
			}
		}
		s.Records += ts.Records
		s.Steps += ts.Steps
		s.TotalReward += ts.TotalReward
		s.Trajectories = append(s.Trajectories, ts)
	}
	return s
}

// Text renders the summary for a terminal.
func (s Summary) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s annotation file, pickle protocol %d, %d pickle(s), %d bytes\n", s.Path, s.Kind, s.Protocol, s.Pickles, s.Bytes)
	if len(s.Meta) > 0 {
		keys := make([]string, 0, len(s.Meta))
		for k := range s.Meta {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "  meta.%s: %s\n", k, s.Meta[k])
		}
	}
	fmt.Fprintf(&b, "  %d trajectories, %d records, %d steps, total reward %s\n", len(s.Trajectories), s.Records, s.Steps, pyfmt.FloatRepr(float64(s.TotalReward)))
	obs := make([]string, 0, len(s.Observations))
	for k := range s.Observations {
		obs = append(obs, k)
	}
	sort.Strings(obs)
	for _, k := range obs {
		fmt.Fprintf(&b, "  observations %s: %d\n", k, s.Observations[k])
	}
	for _, t := range s.Trajectories {
		acts := make([]string, 0, len(t.Actions))
		for k, v := range t.Actions {
			acts = append(acts, fmt.Sprintf("%s=%d", k, v))
		}
		sort.Strings(acts)
		fmt.Fprintf(&b, "  [%d] %s (%s): %d records, actions %s, reward %s on %d step(s)\n", t.Index, t.TaskID, t.Task, t.Records, strings.Join(acts, " "), pyfmt.FloatRepr(float64(t.TotalReward)), t.Rewarded)
		for _, in := range t.Instructions {
			fmt.Fprintf(&b, "      instruction: %s\n", in)
		}
	}
	return b.String()
}

func str(d *Dict, key string) string {
	v, _ := d.Get(key)
	s, _ := AsString(v)
	return s
}

func valueText(v any) string {
	switch x := v.(type) {
	case *Str:
		return x.S
	case nil:
		return "None"
	case float64:
		return pyfmt.FloatRepr(x)
	case *Scalar:
		if x.DType.Kind == 'f' {
			return pyfmt.FloatRepr(x.Float())
		}
		return fmt.Sprint(x.Int())
	}
	j, err := CanonicalJSON(v)
	if err != nil {
		return TypeName(v)
	}
	return string(j)
}

func shapeText(v any) string {
	a, ok := v.(*NDArray)
	if !ok {
		return TypeName(v)
	}
	parts := make([]string, len(a.Shape))
	for i, s := range a.Shape {
		parts[i] = fmt.Sprint(s)
	}
	return fmt.Sprintf("%s (%s)", a.DType, strings.Join(parts, ", "))
}

// InstructionText joins an instruction value like the visualiser: the elements of a list with
// single spaces; a plain string is joined character by character (Python " ".join(str)).
func InstructionText(v any) string {
	switch x := v.(type) {
	case *List:
		parts := make([]string, len(x.Items))
		for i, it := range x.Items {
			parts[i] = valueText(it)
		}
		return strings.Join(parts, " ")
	case *Tuple:
		return InstructionText(&List{Items: x.Items})
	case *Str:
		return strings.Join(strings.Split(x.S, ""), " ")
	}
	return valueText(v)
}

// ObservationImage converts a record's observation array to an image. uint8 (H, W, 3) arrays
// are taken as RGB; (H, W, 4) as RGBA; float arrays (the upstream docs' variant) are scaled from
// [0, 1] (or clamped to [0, 255] when values exceed 1).
func ObservationImage(v any) (image.Image, error) {
	a, h, w, err := observationArray(v)
	if err != nil {
		return nil, err
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	if err := putObservation(img, a, false); err != nil {
		return nil, err
	}
	return img, nil
}

// observationArray checks that v is an H×W×3 or H×W×4 array and returns it with its size.
func observationArray(v any) (*NDArray, int, int, error) {
	a, ok := v.(*NDArray)
	if !ok {
		return nil, 0, 0, fmt.Errorf("observation is %s, not an array", TypeName(v))
	}
	if len(a.Shape) != 3 || (a.Shape[2] != 3 && a.Shape[2] != 4) {
		return nil, 0, 0, fmt.Errorf("observation of shape %v is not an H×W×3 image", a.Shape)
	}
	if err := a.check(); err != nil {
		return nil, 0, 0, fmt.Errorf("observation: %w", err)
	}
	return a, a.Shape[0], a.Shape[1], nil
}

// putObservation writes the observation's pixels into the top H rows of dst (W wide, origin
// 0, 0); opaque sets every alpha to 255 (the frames' screens), else an H×W×4 array's alpha is
// kept.
func putObservation(dst *image.RGBA, a *NDArray, opaque bool) error {
	h, w, c := a.Shape[0], a.Shape[1], a.Shape[2]
	if dst.Rect.Min != (image.Point{}) || dst.Rect.Dx() != w || dst.Rect.Dy() < h || dst.Stride != 4*w {
		return fmt.Errorf("observation of shape %v does not fit a %v image", a.Shape, dst.Rect)
	}
	data := a.COrder()
	if a.DType.Kind == 'u' && a.DType.Size == 1 {
		if len(data) < h*w*c {
			return fmt.Errorf("observation of shape %v has %d bytes", a.Shape, len(data))
		}
		pix := dst.Pix[:h*w*4]
		if c == 4 { // the same layout
			copy(pix, data)
			if opaque {
				for i := 3; i < len(pix); i += 4 {
					pix[i] = 255
				}
			}
			return nil
		}
		rgbToRGBA(pix, data[:h*w*3])
		return nil
	}
	vals := (&NDArray{DType: a.DType, Shape: a.Shape, Data: data}).Floats()
	if len(vals) < h*w*c {
		return fmt.Errorf("observation of shape %v has %d values", a.Shape, len(vals))
	}
	scale := 255.0
	for _, v := range vals {
		if v > 1 {
			scale = 1
			break
		}
	}
	conv := func(f float64) uint8 {
		f = math.Round(f * scale)
		if f < 0 || math.IsNaN(f) {
			return 0
		}
		if f > 255 {
			return 255
		}
		return uint8(f)
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			s := (y*w + x) * c
			al := uint8(255)
			if c == 4 && !opaque {
				al = conv(vals[s+3])
			}
			o := y*dst.Stride + 4*x
			dst.Pix[o], dst.Pix[o+1], dst.Pix[o+2], dst.Pix[o+3] = conv(vals[s]), conv(vals[s+1]), conv(vals[s+2]), al
		}
	}
	return nil
}

// rgbToRGBA expands packed RGB bytes to opaque RGBA, four pixels (12 bytes in, 16 out) per
// step with word loads and stores: a phone screen is millions of pixels, and byte by byte this
// was most of a frame's drawing time.
func rgbToRGBA(dst, src []byte) {
	n := min(len(src)/3, len(dst)/4)
	i, o := 0, 0
	for ; n >= 4; n -= 4 {
		s := src[i : i+12 : i+12]
		d := dst[o : o+16 : o+16]
		p := binary.LittleEndian.Uint32(s[0:4])  // r0 g0 b0 r1
		q := binary.LittleEndian.Uint32(s[4:8])  // g1 b1 r2 g2
		r := binary.LittleEndian.Uint32(s[8:12]) // b2 r3 g3 b3
		binary.LittleEndian.PutUint32(d[0:4], p|0xFF000000)
		binary.LittleEndian.PutUint32(d[4:8], p>>24|q<<8|0xFF000000)
		binary.LittleEndian.PutUint32(d[8:12], q>>16|r<<16|0xFF000000)
		binary.LittleEndian.PutUint32(d[12:16], r>>8|0xFF000000)
		i, o = i+12, o+16
	}
	for ; n > 0; n-- {
		dst[o], dst[o+1], dst[o+2], dst[o+3] = src[i], src[i+1], src[i+2], 255
		i, o = i+3, o+4
	}
}

// ExternalID is the episode id of trajectory i of a file: "<file name>#<i>".
func ExternalID(path string, i int) string {
	return fmt.Sprintf("%s#%d", filepath.Base(path), i)
}

// EpisodeOptions tunes the conversion to episode.Episode.
type EpisodeOptions struct {
	// EncodePNG stores each observation as PNG in Step.Observation. When false, Observation is
	// nil and ObservationRef is "<path>#<trajectory>/<record>": render the frame lazily with
	// File.StepImage (raw screen) or RenderFrame (annotated frame).
	EncodePNG bool
}

// Episode converts trajectory i to the shared episode type. Every record becomes a step (step 0
// is the initial observation, Action.Kind "initial"); Action.Kind is "touch", "lift", "repeat",
// "text", "adb"; touch points are the recorded fractions; Text is the input token; Reward is
// the record's reward (0 when absent); Instruction is the instruction in force (the last one
// recorded at or before the step, joined with spaces); Extra holds view_hierarchy,
// orientation, action_type, and the record's other keys in canonical JSON.
func (f *File) Episode(i int, opts EpisodeOptions) (episode.Episode, error) {
	if i < 0 || i >= len(f.Trajectories) {
		return episode.Episode{}, fmt.Errorf("trajectory %d out of range", i)
	}
	t := f.Trajectories[i]
	ep := episode.Episode{Source: episode.SourceMobileEnv, ExternalID: ExternalID(f.Path, i), Metadata: map[string]any{}}
	if id := f.DefinitionID(); id != "" {
		ep.Task = id
		ep.Metadata["task_definition_id"] = id
	}
	ep.Metadata["file"] = f.Path
	ep.Metadata["trajectory"] = i
	ep.Metadata["trajectories"] = len(f.Trajectories)
	instr := ""
	for j, it := range t.Items {
		d, ok := it.(*Dict)
		if !ok {
			return ep, fmt.Errorf("%s: record %d of trajectory %d is %s", f.Path, j, i, TypeName(it))
		}
		st := episode.Step{Index: j, Extra: map[string]any{}}
		if j == 0 {
			ep.Metadata["task_id"] = str(d, "task_id")
			ep.Metadata["task"] = str(d, "task")
			if ep.Task == "" {
				ep.Task = str(d, "task_id")
			}
			if c, ok := d.Get("command"); ok {
				ep.Instruction = InstructionText(c)
				if _, isStr := c.(*Str); isStr {
					ep.Instruction = c.(*Str).S
				}
			}
			if ep.Instruction == "" {
				ep.Instruction = str(d, "task")
			}
		}
		st.Action = recordAction(d, j)
		if v, ok := d.Get("reward"); ok {
			st.Reward, _ = AsFloat(v)
		}
		if v, ok := d.Get("instruction"); ok {
			instr = InstructionText(v)
		}
		st.Instruction = instr
		for k, key := range d.Keys {
			ks, _ := AsString(key)
			switch ks {
			case "observation", "touch_position", "input_token", "reward", "instruction":
				continue
			case "view_hierarchy", "task_id", "task":
				if s, ok := AsString(d.Vals[k]); ok {
					st.Extra[ks] = s
				} else {
					st.Extra[ks] = nil
				}
			default:
				if n, ok := AsInt(d.Vals[k]); ok {
					st.Extra[ks] = n
					continue
				}
				if j, err := CanonicalJSON(d.Vals[k]); err == nil {
					st.Extra[ks] = json.RawMessage(j)
				}
			}
		}
		if obs, ok := d.Get("observation"); ok {
			if opts.EncodePNG {
				img, err := ObservationImage(obs)
				if err != nil {
					return ep, fmt.Errorf("%s: trajectory %d record %d: %w", f.Path, i, j, err)
				}
				var b bytes.Buffer
				if err := png.Encode(&b, img); err != nil {
					return ep, err
				}
				st.Observation = b.Bytes()
			} else {
				st.ObservationRef = fmt.Sprintf("%s#%d/%d", f.Path, i, j)
			}
		}
		ep.Steps = append(ep.Steps, st)
	}
	return ep, ep.Validate()
}

// StepImage renders the raw screen of record j of trajectory i (lazy frame for the viewer).
func (f *File) StepImage(i, j int) (image.Image, error) {
	d, err := f.Record(i, j)
	if err != nil {
		return nil, err
	}
	obs, ok := d.Get("observation")
	if !ok {
		return nil, errors.New("record has no observation")
	}
	return ObservationImage(obs)
}

func recordAction(d *Dict, j int) episode.Action {
	at, ok := d.Get("action_type")
	if !ok {
		if j == 0 {
			return episode.Action{Kind: "initial"}
		}
		return episode.Action{Kind: "none"}
	}
	a, _ := AsInt(at)
	act := episode.Action{Kind: strings.ToLower(ActionName(a))}
	raw := map[string]any{"action_type": a}
	if tp, ok := d.Get("touch_position"); ok {
		if arr, ok := tp.(*NDArray); ok && arr.Len() >= 2 {
			xy := arr.Floats()
			act.Points = []episode.Point{{X: xy[0], Y: xy[1]}}
			raw["touch_position"] = xy[:2]
		}
	}
	if tok, ok := d.Get("input_token"); ok {
		act.Text = valueText(tok)
		if n, ok := tok.(int64); ok {
			raw["input_token"] = n
		} else {
			raw["input_token"] = act.Text
		}
	}
	act.Raw, _ = json.Marshal(raw)
	return act
}

// IsPickleFile reports whether path names a Mobile-Env annotation pickle or its .old backup,
// by extension: what the app opens in the Demonstrations workspace.
func IsPickleFile(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".pkl", ".pickle", ".old":
		return true
	}
	return false
}
