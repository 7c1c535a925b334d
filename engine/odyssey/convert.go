package odyssey

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"github.com/agentdesk/agentdesk/engine/episode"
)

var (
	stringType = reflect.TypeOf("")
	intType    = reflect.TypeOf(0)
)

// Shared action kinds (episode.Action.Kind) of GUI Odyssey steps.
const (
	KindClick       = "click"
	KindLongPress   = "long_press"
	KindScroll      = "scroll"
	KindType        = "type"
	KindPressHome   = "press_home"
	KindPressBack   = "press_back"
	KindPressRecent = "press_recent"
	KindComplete    = "complete"
	KindImpossible  = "impossible"
)

// Keys that the store adds to a step's extra fields next to the original step fields.
const (
	ExtraGTCommand = "gt_command" // the official ground-truth command
	ExtraGTError   = "gt_error"   // why the official converter rejects the step
)

// Kind is the step's shared action kind (the Kind of SharedAction, without decoding coordinates).
func (s *StepAnnotation) Kind() string {
	switch s.Action {
	case "CLICK", "LONG_PRESS":
		if key, isKey := s.keyName(); isKey {
			return keyKind(key)
		}
		if s.Action == "LONG_PRESS" {
			return KindLongPress
		}
		return KindClick
	case "SCROLL":
		return KindScroll
	case "TEXT", "TYPE":
		return KindType
	case "COMPLETE":
		return KindComplete
	case "INCOMPLETE", "IMPOSSIBLE":
		return KindImpossible
	case "HOME":
		return KindPressHome
	case "BACK":
		return KindPressBack
	case "KEY_RECENT", "KEY_APPSELECT":
		return KindPressRecent
	}
	return strings.ToLower(s.Action)
}

// SharedAction converts the step to the shared action form: points as fractions of the screen
// ([0, 1000] divided by 1000), keys as press_* kinds, typed text in Text, and Raw holding the
// original {"action", "info"}.
func (s *StepAnnotation) SharedAction() episode.Action {
	a := episode.Action{Raw: s.rawAction()}
	key, isKey := s.keyName()
	switch s.Action {
	case "CLICK", "LONG_PRESS":
		if isKey {
			a.Kind, a.Text = keyKind(key), key
			break
		}
		a.Kind = KindClick
		if s.Action == "LONG_PRESS" {
			a.Kind = KindLongPress
		}
		if pts := s.points(); len(pts) > 0 {
			a.Points = []episode.Point{fraction(pts[0])}
		}
	case "SCROLL":
		a.Kind = KindScroll
		pts := s.points()
		for i := 0; i < len(pts) && i < 2; i++ {
			a.Points = append(a.Points, fraction(pts[i]))
		}
		if len(pts) >= 2 {
			a.Text = ScrollDirection(pts[0][0], pts[0][1], pts[1][0], pts[1][1])
		}
	case "TEXT", "TYPE":
		a.Kind = KindType
		a.Text = pyStr(s.decodeInfo())
		if s.decodeInfo() == nil {
			a.Text = ""
		}
	case "COMPLETE":
		a.Kind = KindComplete
	case "INCOMPLETE", "IMPOSSIBLE":
		a.Kind = KindImpossible
	case "HOME":
		a.Kind = KindPressHome
	case "BACK":
		a.Kind = KindPressBack
	case "KEY_RECENT", "KEY_APPSELECT":
		a.Kind = KindPressRecent
	default:
		a.Kind = strings.ToLower(s.Action)
	}
	return a
}

func keyKind(key string) string {
	switch key {
	case "KEY_HOME":
		return KindPressHome
	case "KEY_BACK":
		return KindPressBack
	case "KEY_APPSELECT", "KEY_RECENT":
		return KindPressRecent
	}
	return "press_" + strings.ToLower(strings.TrimPrefix(key, "KEY_"))
}

func fraction(p [2]float64) episode.Point { return episode.Point{X: p[0] / 1000, Y: p[1] / 1000} }

func (s *StepAnnotation) rawAction() json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"action":`)
	b.Write(appendJSONString(nil, s.Action))
	b.WriteString(`,"info":`)
	if len(s.Info) == 0 {
		b.WriteString("null")
	} else {
		b.Write(compact(s.Info))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// CommandAction converts a command string ("CLICK: (500, 300)", "SCROLL: UP", ...) to the
// shared action form so that a prediction can be drawn next to the ground truth. A scroll has
// no coordinates in the command: it is drawn as an arrow from the screen's centre in the
// finger's direction. Commands that do not parse give Kind "invalid" with the text kept.
func CommandAction(cmd string) episode.Action {
	raw, _ := json.Marshal(map[string]string{"command": cmd})
	a := episode.Action{Raw: raw}
	c, err := ParseCommand(cmd)
	if err != nil {
		a.Kind, a.Text = "invalid", cmd
		return a
	}
	switch c.Action {
	case CmdClick, CmdLongPress:
		a.Kind = KindClick
		if c.Action == CmdLongPress {
			a.Kind = KindLongPress
		}
		if nums, _, ok := c.Point.Numbers(); ok && len(nums) >= 2 {
			a.Points = []episode.Point{{X: nums[0] / 1000, Y: nums[1] / 1000}}
		} else {
			a.Text = c.Text
		}
	case CmdScroll:
		a.Kind, a.Text = KindScroll, c.Text
		end := map[string]episode.Point{"UP": {X: 0.5, Y: 0.3}, "DOWN": {X: 0.5, Y: 0.7},
			"LEFT": {X: 0.3, Y: 0.5}, "RIGHT": {X: 0.7, Y: 0.5}}
		if p, ok := end[strings.ToUpper(c.Text)]; ok {
			a.Points = []episode.Point{{X: 0.5, Y: 0.5}, p}
		}
	case CmdType:
		a.Kind, a.Text = KindType, c.Text
	case CmdPressHome:
		a.Kind = KindPressHome
	case CmdPressBack:
		a.Kind = KindPressBack
	case CmdPressRecent:
		a.Kind = KindPressRecent
	case CmdComplete:
		a.Kind = KindComplete
	case CmdImpossible:
		a.Kind = KindImpossible
	default:
		a.Kind, a.Text = "invalid", cmd
	}
	return a
}

// Facets are the Explorer's facets of the episode: category, each app, device, meta-task, and
// the distinct action kinds of its steps.
func (a *Annotation) Facets() map[string][]string {
	f := map[string][]string{}
	if a.Task.Category != "" {
		f[episode.FacetCategory] = []string{a.Task.Category}
	}
	seen := map[string]bool{}
	for _, app := range a.Task.App {
		if app != "" && !seen[app] {
			seen[app] = true
			f[episode.FacetApp] = append(f[episode.FacetApp], app)
		}
	}
	if a.Device.DeviceName != "" {
		f[episode.FacetDevice] = []string{string(a.Device.DeviceName)}
	}
	if a.Task.MetaTask != "" {
		f[episode.FacetMetaTask] = []string{a.Task.MetaTask}
	}
	if a.stream != nil && len(a.stream.kinds) > 0 {
		f[episode.FacetAction] = append(f[episode.FacetAction], a.stream.kinds...)
	}
	kinds := map[string]bool{}
	for i := range a.Steps {
		k := a.Steps[i].Kind()
		if k != "" && !kinds[k] {
			kinds[k] = true
			f[episode.FacetAction] = append(f[episode.FacetAction], k)
		}
	}
	return f
}

// MetadataJSON is the episode's metadata as stored: the schema version, device_info and
// task_info verbatim, step_length, the file it came from, and any other top-level field.
func (a *Annotation) MetadataJSON() []byte {
	var b bytes.Buffer
	b.WriteString(`{"schema":`)
	q, _ := json.Marshal(a.Schema())
	b.Write(q)
	if a.DeviceRaw != nil {
		b.WriteString(`,"device_info":`)
		b.Write(a.DeviceRaw)
	}
	if a.TaskRaw != nil {
		b.WriteString(`,"task_info":`)
		b.Write(a.TaskRaw)
	}
	b.WriteString(`,"step_length":`)
	b.WriteString(strconv.Itoa(a.StepLength))
	if a.File != "" {
		b.WriteString(`,"file":`)
		q, _ = json.Marshal(a.File)
		b.Write(q)
	}
	if len(a.Other) > 0 {
		b.WriteString(`,"other":{`)
		for i, f := range a.Other {
			if i > 0 {
				b.WriteByte(',')
			}
			q, _ = json.Marshal(f.Key)
			b.Write(q)
			b.WriteByte(':')
			b.Write(f.Value)
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.Bytes()
}

// ExtraJSON is the step's extra fields as stored: the original step object verbatim with the
// official ground-truth command (gt_command) or the converter's error (gt_error) added first.
func (s *StepAnnotation) ExtraJSON() []byte {
	if s.prepared {
		return s.extraJSON
	}
	gt, err := s.GroundTruth()
	key, val := ExtraGTCommand, gt
	if err != nil {
		key, val = ExtraGTError, err.Error()
	}
	q, _ := json.Marshal(val)
	raw := s.Raw
	if len(raw) < 2 || raw[0] != '{' {
		raw = []byte("{}")
	}
	b := make([]byte, 0, len(raw)+len(key)+len(q)+8)
	b = append(b, `{"`...)
	b = append(b, key...)
	b = append(b, `":`...)
	b = append(b, q...)
	if len(raw) > 2 {
		b = append(b, ',')
	}
	return append(b, raw[1:]...)
}
