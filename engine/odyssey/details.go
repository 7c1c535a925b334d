package odyssey

import (
	"strconv"
	"strings"

	"github.com/agentdesk/agentdesk/engine/episode"
)

// What a viewer shows of a stored GUI Odyssey episode beyond the shared fields: the device, the
// annotators' remarks and the finger path of a scroll, read back from the metadata and step
// extras the store keeps (MetadataJSON, ExtraJSON: device_info and the step objects verbatim).

// Device is an episode's device_info.
type Device struct {
	Name    string // device_name, e.g. "Pixel 7 Pro"
	Product string // e.g. "sdk_gphone64_x86_64"
	Release string // release_version: the Android version, e.g. "14"
	SDK     string // sdk_version: the API level, e.g. "34"
	W, H    int    // screen size in pixels (0 when not recorded)
}

// DeviceOf reads the device_info of a stored episode's metadata; ok is false when there is none.
// Numbers written as strings and strings written as numbers are both read, as the importer does.
func DeviceOf(meta map[string]any) (d Device, ok bool) {
	info, ok := meta["device_info"].(map[string]any)
	if !ok {
		return d, false
	}
	text := func(k string) string {
		switch v := info[k].(type) {
		case string:
			return v
		case float64:
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
		return ""
	}
	num := func(k string) int {
		switch v := info[k].(type) {
		case float64:
			return int(v)
		case string:
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
		return 0
	}
	d = Device{Name: text("device_name"), Product: text("product"), Release: text("release_version"),
		SDK: text("sdk_version"), W: num("w"), H: num("h")}
	return d, d != Device{}
}

// Note is an annotator's remark on an episode. GUI Odyssey has no notes or comment field: the
// only free text annotators wrote is the ps field of the final COMPLETE or INCOMPLETE step
// (for other actions ps holds the touch point or the finger path).
type Note struct {
	Step   int    // 0-based index of the step
	Action string // the step's action as annotated (COMPLETE, INCOMPLETE, ...)
	Text   string
}

// NotesOf lists the annotators' remarks of a stored episode's steps, in step order.
func NotesOf(steps []episode.Step) []Note {
	var out []Note
	for i := range steps {
		s := &steps[i]
		if s.Action.Kind != KindComplete && s.Action.Kind != KindImpossible {
			continue
		}
		ps, _ := s.Extra["ps"].(string)
		if ps = strings.TrimSpace(ps); ps == "" {
			continue
		}
		action, _ := s.Extra["action"].(string)
		out = append(out, Note{Step: s.Index, Action: action, Text: ps})
	}
	return out
}

// ParsePath reads a finger path as ps records it, "[(x, y), (x, y), …]" in [0, 1000]
// coordinates, as fractions of the screen. It is lenient: the pairs are read in order up to
// the first that does not read, so a path cut short (as the real excerpt's is) gives its
// beginning.
func ParsePath(ps string) []episode.Point {
	var out []episode.Point
	s := ps
	for {
		i := strings.IndexByte(s, '(')
		if i < 0 {
			return out
		}
		s = s[i+1:]
		j := strings.IndexByte(s, ')')
		if j < 0 {
			return out
		}
		xs, ys, found := strings.Cut(s[:j], ",")
		if !found {
			return out
		}
		x, err1 := strconv.ParseFloat(strings.TrimSpace(xs), 64)
		y, err2 := strconv.ParseFloat(strings.TrimSpace(ys), 64)
		if err1 != nil || err2 != nil {
			return out
		}
		out = append(out, episode.Point{X: x / 1000, Y: y / 1000})
		s = s[j+1:]
	}
}

// PathOf is the finger path of a stored scroll step as fractions of the screen: the points of
// its ps, ending at the scroll's end as info gives it (appended when a cut-short ps stops
// before). It is nil for other steps and for a scroll whose ps holds fewer than two points;
// such a scroll is drawn from its start to its end.
func PathOf(step *episode.Step) []episode.Point {
	if step == nil || step.Action.Kind != KindScroll {
		return nil
	}
	ps, _ := step.Extra["ps"].(string)
	path := ParsePath(ps)
	if len(path) < 2 {
		return nil
	}
	if pts := step.Action.Points; len(pts) >= 2 {
		end, last := pts[len(pts)-1], path[len(path)-1]
		if end != last {
			path = append(path, end)
		}
	}
	return path
}
