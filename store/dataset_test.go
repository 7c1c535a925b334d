package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentdesk/agentdesk/engine/dataset"
	"github.com/agentdesk/agentdesk/engine/episode"
	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

func testFrame(t *testing.T, w, h int, jpg bool, shade uint8) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = shade + uint8(i%7)
	}
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	var b bytes.Buffer
	var err error
	if jpg {
		err = jpeg.Encode(&b, img, nil)
	} else {
		err = png.Encode(&b, img)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// datasetStore fills a store with episodes of every source: gridworld and demonstrations with
// frames inside the store (PNG and JPEG) and rewards, GUI Odyssey with frames in files (one
// missing) and an id with leading zeros, and one evaluation answer.
func datasetStore(t *testing.T) (*Store, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(filepath.Join(dir, "src.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	shots := filepath.Join(dir, "shots")
	os.MkdirAll(shots, 0o755)
	var eps []*episode.Episode
	for i := 0; i < 3; i++ {
		g := &episode.Episode{Source: episode.SourceGridworld, ExternalID: fmt.Sprintf("run-%d", i), Task: "build a tower",
			Instruction: "Put three blue blocks", Metadata: map[string]any{"task_id": float64(i), "seed": "x"}}
		for j := 0; j < 2+i; j++ {
			g.Steps = append(g.Steps, episode.Step{Index: j, Action: episode.Action{Kind: "place", Raw: json.RawMessage(`[1,2,3]`)},
				Reward: 0.5 * float64(j), Observation: testFrame(t, 8+j, 6, false, uint8(j)), Extra: map[string]any{"grid": []any{1.0, 2.0}}})
		}
		eps = append(eps, g)
	}
	m := &episode.Episode{Source: episode.SourceMobileEnv, ExternalID: "traj.pkl#0", Task: "wikihow", Instruction: "Search for cats",
		Steps: []episode.Step{
			{Index: 0, Action: episode.Action{Kind: "touch", Points: []episode.Point{{X: 0.25, Y: 0.5}}}, Observation: testFrame(t, 12, 20, true, 10), Instruction: "open"},
			{Index: 1, Action: episode.Action{Kind: "scroll", Points: []episode.Point{{X: 0.1, Y: 0.9}, {X: 0.1, Y: 0.5}, {X: 0.1, Y: 0.2}}}, Reward: 1},
			{Index: 2, Action: episode.Action{Kind: "type", Text: "cats"}, Observation: testFrame(t, 12, 20, true, 30)},
		}}
	eps = append(eps, m)
	o := &episode.Episode{Source: episode.SourceOdyssey, ExternalID: "0012", Task: "Find a recipe for sushi", Instruction: "Find a recipe",
		MetaTask: "Find a recipe for {}", Metadata: map[string]any{"device_info": map[string]any{"device_name": "Pixel 8 Pro"}},
		Facets: map[string][]string{episode.FacetCategory: {"Web_Shopping"}, episode.FacetDevice: {"Pixel 8 Pro"}, episode.FacetApp: {"Chrome", "Keep"}}}
	for j := 0; j < 3; j++ {
		ref := filepath.Join(shots, fmt.Sprintf("0012_%d.png", j))
		if j != 1 {
			os.WriteFile(ref, testFrame(t, 16, 9, false, uint8(40+j)), 0o644)
		}
		o.Steps = append(o.Steps, episode.Step{Index: j, ObservationRef: ref, Action: episode.Action{Kind: "click",
			Points: []episode.Point{{X: 0.3, Y: 0.7}}, Raw: json.RawMessage(`"CLICK: (300, 700)"`)}, Extra: map[string]any{"step": float64(j)}})
		if j == 2 {
			o.Steps[j].Extra["gt_command"] = "COMPLETE"
		}
	}
	eps = append(eps, o)
	err = s.Update(ctx, func(tx *Tx) error {
		for _, e := range eps {
			if err := tx.SaveEpisode(ctx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	pid, err := s.CreateEvalProject(ctx, "demo", "created", "", "", "", demoAssignments())
	if err != nil {
		t.Fatal(err)
	}
	w, _ := s.EvalSignIn(ctx, pid, "ann-1")
	us, _ := s.EvalUnits(ctx, pid)
	u, err := s.EvalAssign(ctx, pid, w.ID, us[1].ID, ev.UnitTask, 0, json.RawMessage(`[[0,[0,1]]]`), json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	shown := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	a := ev.AnswerRecord{UnitID: u.ID, ParticipantID: w.ID, TypePos: 1, TypeName: "flags", Turn: 2,
		Question: "q", Value: "a", PageShownAt: shown, AnsweredAt: shown.Add(2500 * time.Millisecond)}
	if err := s.SaveEvalAnswer(ctx, a, json.RawMessage(`{}`), ev.Position{}); err != nil {
		t.Fatal(err)
	}
	return s, dir
}

// frameOf is a stored step's frame, from the store or from its file.
func frameOf(st episode.Step) []byte {
	if st.Observation != nil {
		return st.Observation
	}
	b, _ := os.ReadFile(st.ObservationRef)
	return b
}

func allEpisodes(t *testing.T, s *Store, source string) map[string]*episode.Episode {
	t.Helper()
	ctx := context.Background()
	sums, err := s.Episodes(ctx, episode.Query{Source: source})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*episode.Episode{}
	for _, sum := range sums {
		e, err := s.Episode(ctx, sum.ID)
		if err != nil {
			t.Fatal(err)
		}
		out[e.Source+"/"+e.ExternalID] = e
	}
	return out
}

func TestDatasetExportImportRoundTripPerSource(t *testing.T) {
	ctx := context.Background()
	src, dir := datasetStore(t)
	for _, source := range []string{episode.SourceGridworld, episode.SourceMobileEnv, episode.SourceOdyssey} {
		t.Run(source, func(t *testing.T) {
			dest := filepath.Join(dir, "out-"+source)
			sum, err := src.ExportDataset(ctx, dest, DatasetExport{Filter: episode.Filter{Source: source}, Episodes: true,
				Options: dataset.Options{ShardBytes: 2 << 10}})
			if err != nil {
				t.Fatal(err)
			}
			want := allEpisodes(t, src, source)
			if sum.Rows[dataset.ConfigEpisodes] != int64(len(want)) || len(want) == 0 {
				t.Fatalf("exported %d episodes, the store holds %d", sum.Rows[dataset.ConfigEpisodes], len(want))
			}
			dst, err := Open(filepath.Join(t.TempDir(), "dst.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer dst.Close()
			res, err := dst.ImportDataset(ctx, dest, nil)
			if err != nil {
				t.Fatal(err)
			}
			if int64(res.Steps) != sum.Rows[dataset.ConfigSteps] {
				t.Fatalf("imported %d steps of %d", res.Steps, sum.Rows[dataset.ConfigSteps])
			}
			got := allEpisodes(t, dst, source)
			if len(got) != len(want) {
				t.Fatalf("got %d episodes, want %d", len(got), len(want))
			}
			for k, w := range want {
				g := got[k]
				if g == nil {
					t.Fatalf("episode %s missing after the round trip", k)
				}
				if g.Task != w.Task || g.Instruction != w.Instruction || g.MetaTask != w.MetaTask ||
					!reflect.DeepEqual(g.Metadata, w.Metadata) || !reflect.DeepEqual(g.Facets, w.Facets) || len(g.Steps) != len(w.Steps) {
					t.Fatalf("episode %s: got %+v\nwant %+v", k, g, w)
				}
				if g.TotalReward() != w.TotalReward() {
					t.Fatalf("episode %s reward %v, want %v", k, g.TotalReward(), w.TotalReward())
				}
				for i := range w.Steps {
					ws, gs := w.Steps[i], g.Steps[i]
					if !bytes.Equal(frameOf(gs), frameOf(ws)) {
						t.Fatalf("episode %s step %d: the frame changed (%d bytes, want %d)", k, i, len(frameOf(gs)), len(frameOf(ws)))
					}
					ws.Observation, gs.Observation = nil, nil
					if !reflect.DeepEqual(gs, ws) {
						t.Fatalf("episode %s step %d: got %+v\nwant %+v", k, i, gs, ws)
					}
				}
			}
		})
	}
}

func TestDatasetExportReadBackWithParquet(t *testing.T) {
	ctx := context.Background()
	src, dir := datasetStore(t)
	dest := filepath.Join(dir, "all")
	sum, err := src.ExportDataset(ctx, dest, DatasetExport{Episodes: true, Annotations: true,
		Options: dataset.Options{ShardBytes: 1 << 10}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(sum.Files[dataset.ConfigSteps]); n < 2 {
		t.Fatalf("steps in %d files; a 1 KB shard size should split them", n)
	}
	for i, f := range sum.Files[dataset.ConfigSteps] {
		wantName := fmt.Sprintf("steps/train-%05d-of-%05d.parquet", i, len(sum.Files[dataset.ConfigSteps]))
		if f != wantName {
			t.Fatalf("file %d is %s, want %s", i, f, wantName)
		}
	}
	var ids []string
	err = dataset.ReadEpisodes(ctx, dest, func(_ string, _ int64, r *dataset.EpisodeRow) error {
		ids = append(ids, r.Source+"/"+r.EpisodeID)
		if r.Source == episode.SourceOdyssey {
			if r.Reward != nil || r.Category != "Web_Shopping" || r.Device != "Pixel 8 Pro" || !reflect.DeepEqual(r.Apps, []string{"Chrome", "Keep"}) {
				t.Errorf("odyssey row %+v", r)
			}
		} else if r.Reward == nil {
			t.Errorf("%s episode without its reward", r.Source)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slicesContain(ids, "odyssey/0012") || len(ids) != 5 {
		t.Fatalf("episode ids %v", ids)
	}
	images, missing := 0, 0
	err = dataset.ReadSteps(ctx, dest, func(_ string, _ int64, r *dataset.StepRow) error {
		if r.Image == nil {
			missing++
			return nil
		}
		images++
		if _, _, ok := dataset.ImageSize(r.Image.Bytes); !ok {
			t.Errorf("step %s/%d: image is not a PNG or JPEG", r.EpisodeID, r.Step)
		}
		if r.EpisodeID == "traj.pkl#0" && r.Step == 1 && (r.ActionX == nil || *r.ActionX2 != 0.1 || *r.ActionY2 != 0.2) {
			t.Errorf("scroll typed as %+v", r)
		}
		if r.EpisodeID == "0012" && r.Action != "CLICK: (300, 700)" {
			t.Errorf("odyssey action text %q", r.Action)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// 2+3+4 gridworld frames, 2 of 3 demonstrations, 2 of 3 odyssey (one file missing)
	if images != 13 || missing != 2 || sum.MissingImages != 1 {
		t.Fatalf("%d images, %d steps without (%d missing files)", images, missing, sum.MissingImages)
	}
	var notes []dataset.AnnotationRow
	err = dataset.ReadAnnotations(ctx, dest, func(_ string, _ int64, r *dataset.AnnotationRow) error {
		notes = append(notes, *r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || notes[0].Participant == "ann-1" || notes[0].Turn != 2 || notes[0].TimeOnPage != 2500 ||
		!notes[0].PageShownAt.Equal(time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)) || notes[0].Project != "demo" {
		t.Fatalf("answers %+v", notes)
	}
}

func slicesContain(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestDatasetImportNamesFileAndRowAndRollsBack(t *testing.T) {
	ctx := context.Background()
	src, dir := datasetStore(t)
	dest := filepath.Join(dir, "grid")
	if _, err := src.ExportDataset(ctx, dest, DatasetExport{Filter: episode.Filter{Source: episode.SourceGridworld}, Episodes: true}); err != nil {
		t.Fatal(err)
	}
	// drop the steps: every episode now misses its steps
	os.RemoveAll(filepath.Join(dest, "steps"))
	dst, err := Open(filepath.Join(t.TempDir(), "dst.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	_, err = dst.ImportDataset(ctx, dest, nil)
	if err == nil {
		t.Fatal("a dataset whose episodes lack their steps was imported")
	}
	if n, _ := dst.CountEpisodes(ctx, episode.Query{}); n != 0 {
		t.Fatalf("a failed import left %d episodes", n)
	}
	// a steps file that is not Parquet: the error names it
	os.MkdirAll(filepath.Join(dest, "steps"), 0o755)
	bad := filepath.Join(dest, "steps", "train-00000-of-00001.parquet")
	os.WriteFile(bad, []byte("not parquet"), 0o644)
	_, err = dst.ImportDataset(ctx, dest, nil)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(bad)) {
		t.Fatalf("error %v does not name %s", err, bad)
	}
}

func TestDatasetShareGPTExport(t *testing.T) {
	ctx := context.Background()
	src, dir := datasetStore(t)
	dest := filepath.Join(dir, "chats")
	files, n, missing, err := src.ExportShareGPT(ctx, dest, DatasetExport{})
	if err != nil {
		t.Fatal(err)
	}
	if n != 15 || missing != 1 || !reflect.DeepEqual(files, []string{"dataset_info.json", "train.json"}) {
		t.Fatalf("%d chats, %d missing frames, files %v", n, missing, files)
	}
	b, err := os.ReadFile(filepath.Join(dest, "train.json"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []dataset.ShareGPTRecord
	if err := json.Unmarshal(b, &recs); err != nil {
		t.Fatalf("train.json is not a JSON array: %v", err)
	}
	if len(recs) != 15 || !bytes.Contains(b, []byte(`"<image>Task: `)) {
		t.Fatalf("%d records; first %+v", len(recs), recs[0])
	}
	frames := 0
	var answers []string
	for i, r := range recs {
		if len(r.Messages) != 2 || r.Messages[0].Role != "user" || r.Messages[1].Role != "assistant" {
			t.Fatalf("record %d: %+v", i, r.Messages)
		}
		if got := bytes.Count([]byte(r.Messages[0].Content), []byte("<image>")); got != len(r.Images) {
			t.Fatalf("record %d: %d <image> markers for %d images", i, got, len(r.Images))
		}
		for _, img := range r.Images {
			if filepath.IsAbs(img) {
				t.Fatalf("record %d: image path %s is not relative", i, img)
			}
			data, err := os.ReadFile(filepath.Join(dest, img))
			if err != nil {
				t.Fatal(err)
			}
			if _, _, ok := dataset.ImageSize(data); !ok {
				t.Fatalf("%s is not an image", img)
			}
			frames++
		}
		answers = append(answers, r.Messages[1].Content)
	}
	if frames != 13 {
		t.Fatalf("%d frames written, want 13", frames)
	}
	// GUI Odyssey's command vocabulary where the step keeps it, the source's own text otherwise
	tail := answers[len(answers)-3:]
	if !reflect.DeepEqual(tail, []string{"CLICK: (300, 700)", "CLICK: (300, 700)", "COMPLETE"}) {
		t.Fatalf("odyssey answers %q", tail)
	}
	if !bytes.Contains([]byte(recs[len(recs)-1].Messages[0].Content), []byte("Previous actions:\n1. CLICK: (300, 700)\n2. CLICK: (300, 700)")) {
		t.Fatalf("history not in the prompt: %q", recs[len(recs)-1].Messages[0].Content)
	}
	var info map[string]map[string]any
	b, _ = os.ReadFile(filepath.Join(dest, "dataset_info.json"))
	if err := json.Unmarshal(b, &info); err != nil || info["agentdesk_train"]["file_name"] != "train.json" || info["agentdesk_train"]["formatting"] != "sharegpt" {
		t.Fatalf("dataset_info.json: %s (%v)", b, err)
	}
}

// quickAction reads every action the store writes as encoding/json does, and hands what it
// cannot read to it.
func TestQuickActionMatchesEncodingJSON(t *testing.T) {
	actions := []episode.Action{
		{Kind: "click"},
		{Kind: "click", Points: []episode.Point{{X: 0.494, Y: 0.167}}, Raw: json.RawMessage(`{"action":"CLICK","info":[[494,167],[494,167]]}`)},
		{Kind: "scroll", Points: []episode.Point{{X: 0.1, Y: 1e-7}, {X: 1, Y: 0}, {X: 0.25, Y: 0.5}}},
		{Kind: "type", Text: "café 東京"},
		{Kind: "type", Text: `a "quoted" <b> \ text`},
		{Kind: "press_back", Raw: json.RawMessage(`"KEY_BACK"`)},
		{Kind: "place", Raw: json.RawMessage(`[1,2,3]`)},
		{Kind: `we"ird`, Text: "x", Raw: json.RawMessage(`null`)},
		{Kind: "", Points: []episode.Point{{X: -0.5, Y: 12345.678}}},
	}
	for _, a := range actions {
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		var want episode.Action
		json.Unmarshal(b, &want)
		got, ok := quickAction(string(b))
		if ok && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: quick %+v, encoding/json %+v", b, got, want)
		}
		var row dataset.StepRow
		row.ActionJSON = string(b)
		if err := typedAction(&row); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if row.ActionText != want.Text {
			t.Errorf("%s: text %q, want %q", b, row.ActionText, want.Text)
		}
		if len(want.Points) > 0 && (row.ActionX == nil || *row.ActionX != want.Points[0].X || *row.ActionY != want.Points[0].Y) {
			t.Errorf("%s: first point %v %v", b, row.ActionX, row.ActionY)
		}
	}
	// the common shapes take the quick path
	for _, s := range []string{`{"kind":"click","points":[{"x":0.5,"y":0.25}],"raw":{"a":1}}`, `{"kind":"type","text":"hi"}`} {
		if _, ok := quickAction(s); !ok {
			t.Errorf("%s: not read quickly", s)
		}
	}
	for _, s := range []string{`{"kind":"click","points":[{"x":0.5}]}`, `{"kind":"click"`, `{"kind":"a","extra":1}`, `{}`} {
		if _, ok := quickAction(s); ok {
			t.Errorf("%s: read quickly", s)
		}
	}
}

// Frames are stored once: the files of a steps config of large frames are about the frames'
// size (page statistics once held each frame twice more).
func TestDatasetFramesStoredOnce(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	e := &episode.Episode{Source: episode.SourceGridworld, ExternalID: "big"}
	total := 0
	for i := 0; i < 6; i++ {
		frame := make([]byte, 256<<10)
		for k := range frame {
			frame[k] = byte(k*7 + i*13 + k>>9)
		}
		copy(frame, []byte{0xFF, 0xD8, 0xFF, 0xE0})
		total += len(frame)
		e.Steps = append(e.Steps, episode.Step{Index: i, Observation: frame})
	}
	if err := s.SaveEpisode(ctx, e); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "ds")
	sum, err := s.ExportDataset(ctx, dest, DatasetExport{Episodes: true})
	if err != nil {
		t.Fatal(err)
	}
	var size int64
	for _, f := range sum.Files[dataset.ConfigSteps] {
		fi, err := os.Stat(filepath.Join(dest, f))
		if err != nil {
			t.Fatal(err)
		}
		size += fi.Size()
	}
	if size > int64(total)*11/10 {
		t.Fatalf("%d bytes of frames take %d bytes of Parquet", total, size)
	}
}

// countingSink counts the rows it is given and fails at the failAt'th step.
type countingSink struct {
	episodes, steps int
	failAt          int
	lastStep        map[string]int64
}

var errSinkFull = errors.New("sink full")

func (c *countingSink) Episode(split string, r *dataset.EpisodeRow) error {
	c.episodes++
	return nil
}

func (c *countingSink) Step(split string, r *dataset.StepRow) error {
	c.steps++
	if c.failAt > 0 && c.steps == c.failAt {
		return errSinkFull
	}
	if prev, ok := c.lastStep[r.EpisodeID]; ok && r.Step != prev+1 {
		return fmt.Errorf("episode %s: step %d after %d", r.EpisodeID, r.Step, prev)
	}
	c.lastStep[r.EpisodeID] = r.Step
	return nil
}

// The export without images gives every row once and in order (three pages of episodes); a
// failing writer stops it with its error, and so does a cancelled context.
func TestDatasetExportRowsInOrderAndStops(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	steps := fillSynthetic(t, s, 1200, 3) // three pages of episodes
	x := DatasetExport{Episodes: true, Options: dataset.Options{NoImages: true}}
	all := &countingSink{lastStep: map[string]int64{}}
	if err := s.exportRows(ctx, x, all, nil); err != nil {
		t.Fatal(err)
	}
	if all.episodes != 1200 || all.steps != steps {
		t.Fatalf("got %d episodes and %d steps, want 1200 and %d", all.episodes, all.steps, steps)
	}
	failing := &countingSink{failAt: steps / 2, lastStep: map[string]int64{}}
	if err := s.exportRows(ctx, x, failing, nil); !errors.Is(err, errSinkFull) {
		t.Fatalf("a failing writer: got %v, want %v", err, errSinkFull)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.exportRows(cctx, x, &countingSink{lastStep: map[string]int64{}}, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled export: got %v", err)
	}
}

// readExport reads an exported folder's episodes and steps back, by split file.
func readExport(t *testing.T, dir string) (eps []dataset.EpisodeRow, steps []dataset.StepRow) {
	t.Helper()
	ctx := context.Background()
	err := dataset.ReadEpisodes(ctx, dir, func(file string, row int64, r *dataset.EpisodeRow) error {
		if len(r.Apps) == 0 {
			r.Apps = nil
		}
		eps = append(eps, *r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = dataset.ReadSteps(ctx, dir, func(file string, row int64, r *dataset.StepRow) error {
		steps = append(steps, *r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return eps, steps
}

// An export without frames splices the blocks of episodes the store keeps encoded, and gives
// what reading the rows gives: for the whole store, for a split part that takes some of a
// block's episodes, and after an episode changed (its block is dropped until refreshed).
func TestDatasetBlocksSpliceAsRowsDo(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fillSynthetic(t, s, 2600, 7) // blocks 0, 1 and 2 (ids from 1)
	var keys []episode.Key
	err = scanRows(ctx, s.q, `SELECT source, external_id FROM episodes WHERE id % 3 = 0 OR id BETWEEN 1024 AND 2047 ORDER BY id`,
		func(rows *sql.Rows) error {
			var k episode.Key
			if err := rows.Scan(&k.Source, &k.ExternalID); err != nil {
				return err
			}
			keys = append(keys, k)
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveSplit(ctx, episode.Split{Name: "mine", Parts: map[string][]episode.Key{"test": keys}}); err != nil {
		t.Fatal(err)
	}
	spliced := map[string]int64{}
	export := func(name string, x DatasetExport) string {
		dest := filepath.Join(t.TempDir(), name)
		x.Episodes, x.Options = true, dataset.Options{NoImages: true, ShardBytes: 1 << 20}
		sum, err := s.ExportDataset(ctx, dest, x)
		if err != nil {
			t.Fatal(err)
		}
		spliced[dest] = sum.SplicedEpisodes
		return dest
	}
	part := DatasetExport{Filter: episode.Filter{Split: "mine"}, Parts: []string{"test"}}
	rowsAll, rowsPart := export("rows", DatasetExport{}), export("rows-part", part)
	n, err := s.RefreshDatasetBlocks(ctx, nil)
	if err != nil || n != 3 {
		t.Fatalf("encoded %d blocks (%v), want 3", n, err)
	}
	check := func(what, got, want string, wantSpliced int64) {
		t.Helper()
		ge, gs := readExport(t, got)
		we, ws := readExport(t, want)
		if len(ge) != len(we) || len(gs) != len(ws) || len(we) == 0 || len(ws) == 0 {
			t.Fatalf("%s: %d episodes and %d steps, want %d and %d", what, len(ge), len(gs), len(we), len(ws))
		}
		for i := range we {
			if !reflect.DeepEqual(ge[i], we[i]) {
				t.Fatalf("%s: episode row %d\n got %+v\nwant %+v", what, i, ge[i], we[i])
			}
		}
		for i := range ws {
			if !reflect.DeepEqual(gs[i], ws[i]) {
				t.Fatalf("%s: step row %d\n got %+v\nwant %+v", what, i, gs[i], ws[i])
			}
		}
		if spliced[got] != wantSpliced || spliced[want] != 0 {
			t.Fatalf("%s: %d episodes spliced, want %d (and none before the encoding: %d)", what, spliced[got], wantSpliced, spliced[want])
		}
	}
	check("whole store", export("blocks", DatasetExport{}), rowsAll, 2600)
	// the part takes block 1 whole (ids 1024 to 2047) and a third of the others
	check("split part", export("blocks-part", part), rowsPart, 1024)

	// an episode changes: its block is dropped, the others stay
	var e0 *episode.Episode
	if e0, err = s.Episode(ctx, 5); err != nil {
		t.Fatal(err)
	}
	e0.Steps[0].Instruction = "changed after the encoding"
	if err := s.SaveEpisode(ctx, e0); err != nil {
		t.Fatal(err)
	}
	var blocks int
	s.q.QueryRowContext(ctx, `SELECT count(*) FROM dataset_blocks`).Scan(&blocks)
	if blocks != 2 {
		t.Fatalf("%d blocks kept after an episode of block 0 changed, want 2", blocks)
	}
	changed := export("changed", DatasetExport{})
	_, steps := readExport(t, changed)
	if spliced[changed] != 2600-1023 {
		t.Fatalf("%d episodes spliced with block 0 dropped, want %d", spliced[changed], 2600-1023)
	}
	found := false
	for _, st := range steps {
		found = found || st.Instruction == "changed after the encoding"
	}
	if !found {
		t.Fatal("the export does not hold the changed step")
	}
	if n, err := s.RefreshDatasetBlocks(ctx, nil); err != nil || n != 1 {
		t.Fatalf("refreshed %d blocks (%v), want 1", n, err)
	}
	refreshed := export("refreshed", DatasetExport{})
	_, steps = readExport(t, refreshed)
	found = false
	for _, st := range steps {
		found = found || st.Instruction == "changed after the encoding"
	}
	if !found || spliced[refreshed] != 2600 {
		t.Fatalf("after the refresh: changed step found %v, %d episodes spliced", found, spliced[refreshed])
	}
}

// A split exported by its parts is made again by the import: under its name in another store,
// left as it is in the store it came from, and beside a different split of the same name.
func TestDatasetImportMakesTheSplitAgain(t *testing.T) {
	ctx := context.Background()
	src, err := Open(filepath.Join(t.TempDir(), "src.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	fillSynthetic(t, src, 30, 3)
	all := allEpisodes(t, src, "")
	var keys []episode.Key
	for k := range all {
		keys = append(keys, episode.Key{Source: all[k].Source, ExternalID: all[k].ExternalID})
	}
	slices.SortFunc(keys, func(a, b episode.Key) int { return strings.Compare(a.ExternalID, b.ExternalID) })
	sp := episode.Split{Name: "my «split»", Kind: episode.SplitOfficial, Parts: map[string][]episode.Key{"train": keys[:20], "test": keys[20:25]}}
	if err := src.SaveSplit(ctx, sp); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "ds")
	if _, err := src.ExportDataset(ctx, dest, DatasetExport{Episodes: true, Filter: episode.Filter{Split: sp.Name},
		Parts: []string{"test", "train"}, Options: dataset.Options{NoImages: true}}); err != nil {
		t.Fatal(err)
	}
	if name, err := dataset.StoreSplitOf(dest); err != nil || name != sp.Name {
		t.Fatalf("the card records split %q (%v)", name, err)
	}
	sameParts := func(got episode.Split) bool {
		if len(got.Parts) != 2 {
			return false
		}
		for p, ks := range sp.Parts {
			g := slices.Clone(got.Parts[p])
			slices.SortFunc(g, func(a, b episode.Key) int { return strings.Compare(a.ExternalID, b.ExternalID) })
			if !slices.Equal(g, ks) {
				return false
			}
		}
		return true
	}
	// another store
	dst, err := Open(filepath.Join(t.TempDir(), "dst.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	res, err := dst.ImportDataset(ctx, dest, nil)
	if err != nil || res.Split != sp.Name || res.Episodes != 25 {
		t.Fatalf("import: split %q, %d episodes (%v)", res.Split, res.Episodes, err)
	}
	got, err := dst.Split(ctx, sp.Name)
	if err != nil || !sameParts(got) {
		t.Fatalf("the split made again: %+v (%v)", got.Parts, err)
	}
	// the store it came from: the official split is left as it is
	if res, err = src.ImportDataset(ctx, dest, nil); err != nil || res.Split != sp.Name {
		t.Fatalf("import into the source: split %q (%v)", res.Split, err)
	}
	if got, err := src.Split(ctx, sp.Name); err != nil || got.Kind != episode.SplitOfficial || !sameParts(got) {
		t.Fatalf("the source's split became %+v (%v)", got, err)
	}
	if infos, _ := src.Splits(ctx); len(infos) != 1 {
		t.Fatalf("the source has %d splits, want 1", len(infos))
	}
	// a store with a different split of that name keeps it, and gets the import's beside it
	other := episode.Split{Name: sp.Name, Parts: map[string][]episode.Key{"train": keys[:2]}}
	if err := dst.SaveSplit(ctx, other); err != nil {
		t.Fatal(err)
	}
	if res, err = dst.ImportDataset(ctx, dest, nil); err != nil || res.Split != sp.Name+" (imported)" {
		t.Fatalf("import beside another split: %q (%v)", res.Split, err)
	}
	if got, _ := dst.Split(ctx, sp.Name); len(got.Parts["train"]) != 2 {
		t.Fatalf("the store's own split changed: %+v", got.Parts)
	}
	if got, _ := dst.Split(ctx, sp.Name+" (imported)"); !sameParts(got) {
		t.Fatalf("the imported split: %+v", got.Parts)
	}
}
