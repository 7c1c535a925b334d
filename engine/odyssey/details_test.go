package odyssey

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentdesk/agentdesk/engine/episode"
)

func TestParsePath(t *testing.T) {
	for _, c := range []struct {
		ps   string
		want []episode.Point
	}{
		{"[(100, 200), (300, 400.5)]", []episode.Point{{X: 0.1, Y: 0.2}, {X: 0.3, Y: 0.4005}}},
		{"[(719, 762)]", []episode.Point{{X: 0.719, Y: 0.762}}},
		{"", nil},
		{"The app asked for a login.", nil},
		// the real excerpt's path is cut short: its beginning is read
		{"[(563, 867), (563, 864), (527, 4...TRUNCATED", []episode.Point{{X: 0.563, Y: 0.867}, {X: 0.563, Y: 0.864}}},
		{"[(1, 2), (x, 3), (4, 5)]", []episode.Point{{X: 0.001, Y: 0.002}}},
	} {
		if got := ParsePath(c.ps); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParsePath(%q) = %v, want %v", c.ps, got, c.want)
		}
	}
}

func TestPathNotesAndDeviceOfAStoredEpisode(t *testing.T) {
	scroll := episode.Step{Index: 3, Action: episode.Action{Kind: KindScroll, Points: []episode.Point{{X: 0.563, Y: 0.867}, {X: 0.522, Y: 0.401}}},
		Extra: map[string]any{"action": "SCROLL", "ps": "[(563, 867), (563, 864), (569, 790), (5...TRUNCATED"}}
	// a path cut short ends at the scroll's end as info gives it
	if got := PathOf(&scroll); len(got) != 4 || got[0] != (episode.Point{X: 0.563, Y: 0.867}) || got[3] != (episode.Point{X: 0.522, Y: 0.401}) {
		t.Fatalf("cut-short path %v", got)
	}
	scroll.Extra["ps"] = "[(563, 867), (540, 600), (522, 401)]"
	if got := PathOf(&scroll); len(got) != 3 {
		t.Fatalf("path %v", got)
	}
	scroll.Extra["ps"] = "[(563, 867)]"
	if got := PathOf(&scroll); got != nil {
		t.Fatalf("a one-point path: %v", got)
	}
	click := episode.Step{Action: episode.Action{Kind: KindClick}, Extra: map[string]any{"ps": "[(1, 2), (3, 4)]"}}
	if PathOf(&click) != nil || PathOf(nil) != nil {
		t.Fatal("a click has a path")
	}

	steps := []episode.Step{
		{Index: 0, Action: episode.Action{Kind: KindClick}, Extra: map[string]any{"action": "CLICK", "ps": "[(719, 762)]"}},
		{Index: 1, Action: episode.Action{Kind: KindComplete}, Extra: map[string]any{"action": "COMPLETE", "ps": ""}},
		{Index: 2, Action: episode.Action{Kind: KindImpossible}, Extra: map[string]any{"action": "INCOMPLETE", "ps": " The app asked for a login. "}},
	}
	if got := NotesOf(steps); !reflect.DeepEqual(got, []Note{{Step: 2, Action: "INCOMPLETE", Text: "The app asked for a login."}}) {
		t.Fatalf("notes %+v", got)
	}

	var meta map[string]any
	json.Unmarshal([]byte(`{"device_info": {"product": "sdk_gphone64_x86_64", "release_version": 14, "sdk_version": "34", "h": 1280, "w": "720", "device_name": "Small Phone"}}`), &meta)
	if d, ok := DeviceOf(meta); !ok || d != (Device{Name: "Small Phone", Product: "sdk_gphone64_x86_64", Release: "14", SDK: "34", W: 720, H: 1280}) {
		t.Fatalf("device %+v %v", d, ok)
	}
	if _, ok := DeviceOf(map[string]any{"task_info": map[string]any{}}); ok {
		t.Fatal("a device without device_info")
	}
}

// The generator gives the Explorer something to show: every episode a meta-task, scrolls a
// finger path from info's start to its end that bows off the straight line, and some finished
// episodes an annotator's remark.
func TestGeneratedMetaTaskPathsAndRemarks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gen")
	if _, err := Generate(context.Background(), dir, GenerateOptions{Episodes: 120, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	ds, err := OpenDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	eps, _ := readAll(t, ds)
	scrolls, bowed, remarks := 0, 0, 0
	for _, a := range eps {
		if a.Task.MetaTask == "" {
			t.Fatalf("episode %s has no meta-task", a.EpisodeID)
		}
		for i := range a.Steps {
			s := &a.Steps[i]
			switch s.Action {
			case "SCROLL":
				scrolls++
				pts, path := s.points(), ParsePath(string(s.PS))
				if len(path) != 13 || path[0] != fraction(pts[0]) || path[12] != fraction(pts[1]) {
					t.Fatalf("episode %s step %d: path %v for info %v", a.EpisodeID, i, path, pts)
				}
				if mid := path[6]; mid.X != (path[0].X+path[12].X)/2 || mid.Y != (path[0].Y+path[12].Y)/2 {
					bowed++
				}
			case "COMPLETE", "INCOMPLETE":
				if s.PS != "" {
					remarks++
				}
			}
		}
	}
	if scrolls == 0 || bowed < scrolls/2 || remarks < 5 {
		t.Fatalf("%d scrolls (%d bowed), %d remarks", scrolls, bowed, remarks)
	}
}
