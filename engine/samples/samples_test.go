package samples

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/mobileenv"
	"github.com/agentdesk/agentdesk/engine/odyssey"
	"github.com/agentdesk/agentdesk/engine/template"
	"github.com/agentdesk/agentdesk/store"
)

var (
	shared     Set
	sharedErr  error
	sharedOnce sync.Once
	sharedDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedDir != "" {
		os.RemoveAll(sharedDir)
	}
	os.Exit(code)
}

// written returns the samples, written once for all tests (which must not change them).
func written(t *testing.T) Set {
	t.Helper()
	sharedOnce.Do(func() {
		if sharedDir, sharedErr = os.MkdirTemp("", "agentdesk-samples-"); sharedErr == nil {
			shared, sharedErr = Write(filepath.Join(sharedDir, "samples"))
		}
	})
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

// tree reads every file under dir: relative slash path → content.
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWriteDeterministicAndSmall(t *testing.T) {
	s := written(t)
	dir := t.TempDir()
	// its speed is BenchmarkWrite's to measure, not a timed test's
	s2, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, b := tree(t, s.Dir), tree(t, s2.Dir)
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	var total int
	for p, data := range a {
		if !bytes.Equal(data, b[p]) {
			t.Errorf("%s differs between two runs", p)
		}
		total += len(data)
	}
	t.Logf("%d files, %d bytes", len(a), total)
	if total > 3<<20 {
		t.Errorf("the samples take %d bytes, more than 3 MiB", total)
	}
	// every top-level name and every path in the Set carries the marker
	entries, _ := os.ReadDir(s.Dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), Marker) {
			t.Errorf("%s does not start with %q", e.Name(), Marker)
		}
	}
	for _, p := range []string{s.Demonstrations, s.DemonstrationDefinitions, s.Templates, s.Odyssey, s.OdysseyPredictions, s.Evaluation} {
		rel, err := filepath.Rel(s.Dir, p)
		if err != nil || !strings.HasPrefix(rel, Marker) || !filepath.IsAbs(p) {
			t.Errorf("path %s (relative %s)", p, rel)
		}
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	if !strings.HasPrefix(s.OdysseySplit, Marker) {
		t.Errorf("split %q", s.OdysseySplit)
	}

	// Writing again into the same folder replaces the samples and keeps the user's files.
	mine := filepath.Join(dir, "notes.txt")
	os.WriteFile(mine, []byte("mine"), 0o644)
	os.WriteFile(filepath.Join(s2.Odyssey, "annotations", "stray.json"), []byte("{}"), 0o644)
	if _, err := Write(dir); err != nil {
		t.Fatal(err)
	}
	c := tree(t, dir)
	if string(c["notes.txt"]) != "mine" {
		t.Error("a file of the user's was touched")
	}
	delete(c, "notes.txt")
	if len(c) != len(a) {
		t.Errorf("%d files after writing again, want %d", len(c), len(a))
	}
	for p, data := range a {
		if !bytes.Equal(data, c[p]) {
			t.Errorf("%s differs after writing again", p)
		}
	}
}

// ---------------------------------------------------------------------------- Demonstrations

func TestDemonstrationsRead(t *testing.T) {
	s := written(t)
	f, err := mobileenv.Open(s.Demonstrations)
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != mobileenv.KindResaved || f.Protocol != 4 {
		t.Fatalf("kind %s, protocol %d", f.Kind, f.Protocol)
	}
	meta := map[string]string{}
	for i, k := range f.Meta.Keys {
		ks, _ := mobileenv.AsString(k)
		meta[ks], _ = mobileenv.AsString(f.Meta.Vals[i])
	}
	if meta["otask_id"] != demoTaskID || meta["otask_name"] != demoTaskName || meta["task_definition_id"] != demoDefinition || len(meta) != 3 {
		t.Fatalf("meta %v", meta)
	}
	if f.DefinitionID()+".pkl" != filepath.Base(s.Demonstrations) {
		t.Errorf("file %s for definition %s", s.Demonstrations, f.DefinitionID())
	}
	// The definition is where the Demonstrations workspace looks: textprotos/ next to the file.
	defPath := filepath.Join(s.DemonstrationDefinitions, f.DefinitionID()+".textproto")
	if filepath.Join(filepath.Dir(s.Demonstrations), "textprotos") != s.DemonstrationDefinitions {
		t.Errorf("definitions in %s", s.DemonstrationDefinitions)
	}
	td, err := mobileenv.ReadTaskDef(defPath)
	if err != nil {
		t.Fatal(err)
	}
	if td.ID != demoTaskID {
		t.Errorf("definition id %q", td.ID)
	}
	opts, err := mobileenv.LoadInstructionOptions(s.DemonstrationDefinitions, f.DefinitionID())
	if err != nil {
		t.Fatal(err)
	}
	if len(opts) != 2 || mobileenv.InstructionText(opts[0]) != demoCommand[0] || mobileenv.InstructionText(opts[1]) != demoCommand[1] {
		t.Fatalf("instruction options %v", opts)
	}

	if len(f.Trajectories) != 3 {
		t.Fatalf("%d trajectories", len(f.Trajectories))
	}
	actions := map[int64]int{}
	rewarded, instructed := 0, 0
	for i, traj := range f.Trajectories {
		if n := len(traj.Items) - 1; n < 4 || n > 8 {
			t.Errorf("trajectory %d has %d steps", i, n)
		}
		var prevObs []byte
		var prevHierarchy string
		for j := range traj.Items {
			d, err := f.Record(i, j)
			if err != nil {
				t.Fatal(err)
			}
			where := fmt.Sprintf("trajectory %d record %d", i, j)
			var keys []string
			for _, k := range d.Keys {
				ks, _ := mobileenv.AsString(k)
				keys = append(keys, ks)
			}
			tail := keys[len(keys)-3:]
			if !slices.Equal(tail, []string{"observation", "view_hierarchy", "orientation"}) {
				t.Errorf("%s: keys %v", where, keys)
			}
			obs, _ := d.Get("observation")
			arr, ok := obs.(*mobileenv.NDArray)
			if !ok || arr.DType.String() != "|u1" || !slices.Equal(arr.Shape, []int{screenH, screenW, 3}) || len(arr.Data) != screenH*screenW*3 {
				t.Fatalf("%s: observation %v", where, obs)
			}
			if bytes.Equal(arr.Data, prevObs) {
				t.Errorf("%s: the screen did not change", where)
			}
			prevObs = arr.Data
			or, _ := d.Get("orientation")
			if sc, ok := or.(*mobileenv.Scalar); !ok || sc.DType.String() != "<i8" || sc.Int() != 0 {
				t.Errorf("%s: orientation %v", where, or)
			}
			vh, _ := d.Get("view_hierarchy")
			hier, isStr := mobileenv.AsString(vh)
			if vh != nil && !isStr {
				t.Errorf("%s: view_hierarchy %T", where, vh)
			}
			if isStr {
				if err := xml.Unmarshal([]byte(hier), new(any)); err != nil {
					t.Errorf("%s: view hierarchy is not XML: %v", where, err)
				}
			}
			if j == 0 {
				if !slices.Equal(keys, []string{"task_id", "task", "command", "observation", "view_hierarchy", "orientation"}) {
					t.Errorf("%s: keys %v", where, keys)
				}
				id, _ := d.Get("task_id")
				cmd, _ := d.Get("command")
				if s, _ := mobileenv.AsString(id); s != demoTaskID || mobileenv.InstructionText(cmd) != strings.Join(demoCommand, " ") {
					t.Errorf("%s: task %v, command %v", where, id, cmd)
				}
				prevHierarchy = hier
				continue
			}
			at, _ := d.Get("action_type")
			a, ok := at.(int64)
			if !ok || keys[0] != "action_type" {
				t.Fatalf("%s: action_type %v (%T)", where, at, at)
			}
			actions[a]++
			switch a {
			case mobileenv.ActionTouch:
				tp, _ := d.Get("touch_position")
				pa, ok := tp.(*mobileenv.NDArray)
				if !ok || pa.DType.String() != "<f8" || !slices.Equal(pa.Shape, []int{2}) {
					t.Fatalf("%s: touch_position %v", where, tp)
				}
				xy := pa.Floats()
				if xy[0] < 0 || xy[0] > 1 || xy[1] < 0 || xy[1] > 1 {
					t.Errorf("%s: touch at %v", where, xy)
				}
				// the touch lands on a clickable view of the screen it was made on
				if hit := clickableAt(t, prevHierarchy, xy[0]*screenW, xy[1]*screenH); hit == "" {
					t.Errorf("%s: the touch at %v hits no clickable view", where, xy)
				}
			case mobileenv.ActionText:
				tok, _ := d.Get("input_token")
				s, ok := mobileenv.AsString(tok)
				if !ok || !slices.Contains(td.Vocabulary, s) {
					t.Errorf("%s: input_token %v (vocabulary %v)", where, tok, td.Vocabulary)
				}
			case mobileenv.ActionLift:
			default:
				t.Errorf("%s: action type %d", where, a)
			}
			rv, ok := d.Get("reward")
			if !ok {
				t.Errorf("%s: no reward", where)
			}
			if r, _ := mobileenv.AsFloat(rv); r > 0 {
				rewarded++
				if _, isFloat := rv.(float64); !isFloat {
					t.Errorf("%s: reward %v is %T", where, rv, rv)
				}
			} else if rv != int64(0) {
				t.Errorf("%s: no reward is %v (%T), want the int 0", where, rv, rv)
			}
			if in, ok := d.Get("instruction"); ok {
				instructed++
				if _, isList := in.(*mobileenv.List); !isList {
					t.Errorf("%s: instruction %T", where, in)
				}
			}
			prevHierarchy = hier
		}
	}
	if actions[mobileenv.ActionTouch] == 0 || actions[mobileenv.ActionText] == 0 || actions[mobileenv.ActionLift] == 0 {
		t.Errorf("actions %v", actions)
	}
	if rewarded != 2 || instructed < 3 {
		t.Errorf("%d rewarded records, %d with instructions", rewarded, instructed)
	}

	// What the workspace and `pickle info` do with it: a summary, episodes, screens.
	if info, err := mobileenv.Info(s.Demonstrations); err != nil || len(info.Trajectories) != 3 {
		t.Errorf("info: %v", err)
	}
	if p, err := mobileenv.ReadFirst(s.Demonstrations); err != nil || p.Protocol != 4 {
		t.Errorf("first pickle: %v", err)
	}
	sum := f.Summary()
	if len(sum.Trajectories) != 3 || !strings.Contains(sum.Text(), demoDefinition) {
		t.Errorf("summary %+v", sum)
	}
	for i := range f.Trajectories {
		ep, err := f.Episode(i, mobileenv.EpisodeOptions{EncodePNG: i == 0})
		if err != nil {
			t.Fatal(err)
		}
		if ep.Task != demoDefinition || ep.Instruction != strings.Join(demoCommand, " ") || len(ep.Steps) != len(f.Trajectories[i].Items) {
			t.Errorf("episode %d: task %q, instruction %q, %d steps", i, ep.Task, ep.Instruction, len(ep.Steps))
		}
		if i == 0 {
			img, err := png.Decode(bytes.NewReader(ep.Steps[1].Observation))
			if err != nil || img.Bounds().Dx() != screenW || img.Bounds().Dy() != screenH {
				t.Errorf("step image: %v", err)
			}
		}
	}
}

// clickableAt returns the resource id of the clickable node of a view hierarchy containing the
// point ("" when none).
func clickableAt(t *testing.T, hier string, x, y float64) string {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(hier))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return ""
		}
		if err != nil {
			t.Fatal(err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "node" {
			continue
		}
		attr := map[string]string{}
		for _, a := range se.Attr {
			attr[a.Name.Local] = a.Value
		}
		var x0, y0, x1, y1 float64
		fmt.Sscanf(attr["bounds"], "[%g,%g][%g,%g]", &x0, &y0, &x1, &y1)
		if attr["clickable"] == "true" && x >= x0 && x < x1 && y >= y0 && y < y1 {
			return attr["resource-id"]
		}
	}
}

func TestDemonstrationsFrames(t *testing.T) {
	s := written(t)
	f, err := mobileenv.Open(s.Demonstrations)
	if err != nil {
		t.Fatal(err)
	}
	frames := 0
	for i, traj := range f.Trajectories {
		for j := range traj.Items {
			img, err := f.StepImage(i, j)
			if err != nil || img.Bounds().Dx() != screenW {
				t.Fatalf("screen %d/%d: %v", i, j, err)
			}
			if j == 0 {
				continue
			}
			rec, _ := f.Record(i, j)
			fr, lay, err := mobileenv.RenderFrame(f.DefinitionID(), rec, mobileenv.FrameOptions{Strict: true})
			if err != nil {
				t.Fatalf("frame %d/%d: %v", i, j, err)
			}
			if fr.Bounds().Dx() != screenW || fr.Bounds().Dy() != screenH+400 || lay.Action == "" {
				t.Errorf("frame %d/%d: %v, action %q", i, j, fr.Bounds(), lay.Action)
			}
			frames++
		}
	}
	// The original visualiser's export: one folder per trajectory, one image per step record.
	out := t.TempDir()
	folders, err := mobileenv.Visualize(s.Demonstrations, out, mobileenv.VisualizeOptions{SafeNames: true, PNG: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range folders {
		entries, _ := os.ReadDir(d)
		n += len(entries)
	}
	if len(folders) != 3 || n != frames {
		t.Errorf("%d folders, %d frames (want 3, %d)", len(folders), n, frames)
	}
}

// TestDemonstrationsResaveAndEdit checks that the file is exactly what `pickle resave` writes
// from raw web-tool dumps of the same trajectories, and that edits round-trip.
func TestDemonstrationsResaveAndEdit(t *testing.T) {
	s := written(t)
	orig, err := os.ReadFile(s.Demonstrations)
	if err != nil {
		t.Fatal(err)
	}
	f, err := mobileenv.Parse(s.Demonstrations, orig)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := mobileenv.Encode(f.Root); err != nil || !bytes.Equal(again, orig) {
		t.Fatalf("decoding and encoding the file changes it (%v)", err)
	}

	// Raw dumps: one trajectory per file, tokens as vocabulary indices.
	td, err := mobileenv.ReadTaskDef(filepath.Join(s.DemonstrationDefinitions, demoDefinition+".textproto"))
	if err != nil {
		t.Fatal(err)
	}
	raw := t.TempDir()
	for i := range f.Trajectories {
		p, err := mobileenv.Decode(mustEncode(t, f.Trajectories[i]))
		if err != nil {
			t.Fatal(err)
		}
		traj := p.(*mobileenv.List)
		for _, it := range traj.Items {
			d := it.(*mobileenv.Dict)
			if tok, ok := d.Get("input_token"); ok {
				s, _ := mobileenv.AsString(tok)
				d.Set("input_token", int64(slices.Index(td.Vocabulary, s)))
			}
		}
		if err := os.WriteFile(filepath.Join(raw, fmt.Sprintf("anno.%d.pkl", i)), mustEncode(t, traj), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outDir := t.TempDir()
	res, err := mobileenv.Resave(context.Background(), filepath.Join(raw, "anno.%d.pkl")+":0:5", outDir, s.DemonstrationDefinitions, mobileenv.ResaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	resaved, err := os.ReadFile(filepath.Join(outDir, demoDefinition+".pkl"))
	if err != nil {
		t.Fatalf("%v (%+v)", err, res)
	}
	if !bytes.Equal(resaved, orig) {
		t.Errorf("resave of the same trajectories writes %d bytes that differ from the sample's %d", len(resaved), len(orig))
	}

	// Edits as the workspace saves them: remove the failed attempt, re-instruct a step, add a
	// reward; then the file reads back with the edits.
	work := filepath.Join(t.TempDir(), filepath.Base(s.Demonstrations))
	os.WriteFile(work, orig, 0o644)
	lens := make([]int, len(f.Trajectories))
	for i, tr := range f.Trajectories {
		lens[i] = len(tr.Items)
	}
	mods, err := mobileenv.ModifiersFor([]mobileenv.PendingEdit{
		{Op: "remove", Traj: 2},
		{Op: "instructionize", Traj: 0, Start: 3, Option: 0},
		{Op: "rewardize", Traj: 1, Start: 2, Delta: 0.5},
	}, lens)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mobileenv.Edit(work, mods, s.DemonstrationDefinitions, mobileenv.EditOptions{}); err != nil {
		t.Fatalf("edit %q: %v", mods, err)
	}
	e, err := mobileenv.Open(work)
	if err != nil {
		t.Fatal(err)
	}
	r03, _ := e.Record(0, 3)
	in, _ := r03.Get("instruction")
	r12, _ := e.Record(1, 2)
	rw, _ := r12.Get("reward")
	if len(e.Trajectories) != 2 || mobileenv.InstructionText(in) != demoCommand[0] || rw != 0.5 {
		t.Errorf("after %q: %d trajectories, instruction %v, reward %v", mods, len(e.Trajectories), in, rw)
	}
	if old, err := os.ReadFile(work + ".old"); err != nil || !bytes.Equal(old, orig) {
		t.Errorf("the backup: %v", err)
	}
}

func mustEncode(t *testing.T, v any) []byte {
	t.Helper()
	b, err := mobileenv.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ---------------------------------------------------------------------------------- Templates

func TestTemplates(t *testing.T) {
	s := written(t)
	templatesDir := filepath.Join(s.Templates, "templates")
	tmpls, _ := filepath.Glob(filepath.Join(templatesDir, "*.textproto.template"))
	confs, _ := filepath.Glob(filepath.Join(s.Templates, "tasks", "*.conf"))
	tasks, _ := filepath.Glob(filepath.Join(s.Templates, "tasks", "*.task"))
	sort.Strings(tasks)
	if len(tmpls) != 2 || len(confs) != 4 || len(tasks) != 3 {
		t.Fatalf("%d templates, %d confs, %d tasks", len(tmpls), len(confs), len(tasks))
	}
	// every slot is well formed and every conf fills its template exactly
	for _, c := range confs {
		base := strings.TrimSuffix(filepath.Base(c), ".conf")
		name, _, _ := strings.Cut(base, "-")
		tmpl, err := os.ReadFile(filepath.Join(templatesDir, name+".textproto.template"))
		if err != nil {
			t.Fatalf("conf %s: %v", base, err)
		}
		if _, errs := template.ParseSlots(string(tmpl)); len(errs) > 0 {
			t.Errorf("%s: %v", name, errs)
		}
		text, _ := os.ReadFile(c)
		conf, err := template.ParseConf(string(text))
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		if miss := template.MissingIdentifiers(string(tmpl), conf); len(miss) > 0 {
			t.Errorf("%s misses %v", base, miss)
		}
		ids := template.Identifiers(string(tmpl))
		var keys []string
		for k := range conf {
			keys = append(keys, k)
		}
		sort.Strings(ids)
		sort.Strings(keys)
		if !slices.Equal(ids, keys) {
			t.Errorf("%s: template identifiers %v, conf keys %v", base, ids, keys)
		}
	}
	want := map[string]struct {
		id       string
		commands int
	}{
		Marker + "_plan_soup.task":       {Marker + "-search-tomato-soup-" + Marker + "-save-tomato-soup", 2},
		Marker + "_save_pancakes.task":   {Marker + "-search-pancakes-" + Marker + "-save-pancakes", 2},
		Marker + "_search_pancakes.task": {Marker + "-search-pancakes", 1},
	}
	expanded := 0
	for _, task := range tasks {
		res, err := template.Expand(template.OSReader(), task, templatesDir, template.Options{})
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(task), err)
		}
		if len(res.Warnings) > 0 {
			t.Errorf("%s: warnings %v", filepath.Base(task), res.Warnings)
		}
		expanded++
		td, err := mobileenv.ParseTaskDef(task, []byte(res.Text))
		if err != nil {
			t.Fatalf("%s: the result does not read back: %v\n%s", filepath.Base(task), err, res.Text)
		}
		w := want[filepath.Base(task)]
		if td.ID != w.id || strings.Count(res.Text, "\ncommand: ") != w.commands || len(td.Vocabulary) == 0 {
			t.Errorf("%s: id %q, %d commands, vocabulary %v\n%s", filepath.Base(task), td.ID, strings.Count(res.Text, "\ncommand: "), td.Vocabulary, res.Text)
		}
		if opts, err := td.InstructionOptions(); err != nil || len(opts) == 0 {
			t.Errorf("%s: instruction options %v, %v", filepath.Base(task), opts, err)
		}
		if again, err := template.Instantiate(task, templatesDir, template.Options{}); err != nil || again != res.Text {
			t.Errorf("%s: Instantiate differs from Expand (%v)", filepath.Base(task), err)
		}
	}
	if expanded != 3 {
		t.Errorf("%d tasks expanded", expanded)
	}
}

// -------------------------------------------------------------------------------- Odyssey

func TestOdysseyDataset(t *testing.T) {
	s := written(t)
	ds, err := odyssey.OpenDataset(s.Odyssey)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.AnnotationFiles) != odysseyEpisodes || len(ds.SplitFiles) != 4 || len(ds.Warnings) > 0 {
		t.Fatalf("%d annotations, %d splits, warnings %v", len(ds.AnnotationFiles), len(ds.SplitFiles), ds.Warnings)
	}
	steps := 0
	for _, p := range ds.AnnotationFiles {
		data, _ := os.ReadFile(p)
		a, err := odyssey.ParseAnnotation(p, data)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(a.EpisodeID, Marker+"-") || len(a.Warnings) > 0 || a.Schema() != odyssey.SchemaV2 {
			t.Errorf("episode %s: warnings %v, schema %s", a.EpisodeID, a.Warnings, a.Schema())
		}
		for i := range a.Steps {
			if _, err := a.Steps[i].GroundTruth(); err != nil {
				t.Errorf("%s step %d: %v", a.EpisodeID, i, err)
			}
			// the drawn screenshot has the device's shape
			data, err := odyssey.ReadScreenshot(odyssey.ZipRef(filepath.Join(s.Odyssey, "screenshots", "screenshots.zip"), "screenshots/"+a.Steps[i].Screenshot))
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			w, h := img.Bounds().Dx(), img.Bounds().Dy()
			if max(w, h) != odysseyShotSide || math.Abs(float64(w)/float64(h)-float64(a.Device.W)/float64(a.Device.H)) > 0.02 {
				t.Errorf("%s: %d×%d for a %d×%d device", a.Steps[i].Screenshot, w, h, a.Device.W, a.Device.H)
			}
			steps++
		}
	}
	if ds.Screenshots.Len() != steps {
		t.Errorf("%d screenshots for %d steps", ds.Screenshots.Len(), steps)
	}
	for _, p := range ds.SplitFiles {
		sf, err := odyssey.ReadSplitFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(sf.Name, Marker+"_") || !strings.HasSuffix(sf.Name, "_split") || len(sf.Part("train"))+len(sf.Part("test")) != odysseyEpisodes {
			t.Errorf("split %s: %d + %d", sf.Name, len(sf.Part("train")), len(sf.Part("test")))
		}
	}
}

func TestEvaluationProject(t *testing.T) {
	s := written(t)
	path := filepath.Join(s.Evaluation, EvaluationFile)
	p, err := ev.LoadProject(path)
	if err != nil {
		t.Fatal(err)
	}
	// the file is what the engine writes for the project (it loads and saves without change)
	orig, _ := os.ReadFile(path)
	if again, err := ev.MarshalProject(p); err != nil || !bytes.Equal(again, orig) {
		t.Errorf("saving the loaded project changes the file (%v)", err)
	}
	if !strings.HasPrefix(p.Name, Marker) || !strings.HasPrefix(p.Settings.TaskName, Marker) {
		t.Errorf("name %q, task %q", p.Name, p.Settings.TaskName)
	}
	var typeNames []string
	for _, ty := range p.Types {
		typeNames = append(typeNames, ty.Name)
	}
	wantTypes := append(slices.Clone(evalBehaviourTypes), evalRatingsType, evalCompareDimension+"_comparative")
	if !slices.Equal(typeNames, wantTypes) {
		t.Errorf("types %v, want %v", typeNames, wantTypes)
	}
	displays := map[ev.Display]bool{}
	for _, ty := range p.Types {
		displays[ty.Display] = true
	}
	for _, d := range []ev.Display{ev.Multiselect, ev.ButtonFlow, ev.LikertDialogue, ev.Comparative} {
		if !displays[d] {
			t.Errorf("no %s type", d)
		}
	}
	// behaviour labels of the catalogue read from the project's turn-level types
	cat, _ := ev.Catalogue()
	labels := 0
	for _, b := range cat.Behaviours {
		if p.Type(b.Type) != nil {
			labels++
		}
	}
	if labels < 10 {
		t.Errorf("only %d behaviour labels can be read from the project", labels)
	}

	if len(p.Bundles) != len(evalChats)+1 {
		t.Fatalf("%d bundles", len(p.Bundles))
	}
	units := 0
	pairs := 0
	for i, b := range p.Bundles {
		n, err := p.UnitsFor(b)
		if err != nil || n != evalUnits || len(b.Datapoints) != 1 {
			t.Errorf("bundle %d: %d units (%v), %d datapoints", i, n, err, len(b.Datapoints))
		}
		units += n
		dp := b.Datapoints[0]
		if !strings.HasPrefix(dp.DialogueID, Marker) {
			t.Errorf("dialogue %q", dp.DialogueID)
		}
		for _, turns := range [][]ev.Turn{dp.Turns, dp.Turns2} {
			if turns == nil {
				continue
			}
			if len(turns) < 4 || len(turns) > 8 {
				t.Errorf("%s: %d turns", dp.DialogueID, len(turns))
			}
			for k, turn := range turns {
				if turn.AgentIdx() != k%2 || strings.TrimSpace(turn.Text) == "" {
					t.Errorf("%s turn %d: %q %q", dp.DialogueID, k, turn.Speaker, turn.Text)
				}
			}
		}
		if dp.Turns2 != nil {
			pairs++
			if !slices.Equal(dp.AnnotationTasks, []string{evalCompareDimension + "_comparative"}) || !strings.Contains(dp.DialogueID, "|") {
				t.Errorf("pair %s: %v", dp.DialogueID, dp.AnnotationTasks)
			}
		} else if !slices.Equal(dp.AnnotationTasks, append(slices.Clone(evalBehaviourTypes), evalRatingsType)) {
			t.Errorf("%s: types %v", dp.DialogueID, dp.AnnotationTasks)
		}
		// every turn-level type has annotatable bot turns
		for _, name := range dp.AnnotationTasks {
			ty := p.Type(name)
			if ty.Display.TurnLevel() && len(ty.Positions(len(dp.Turns))) == 0 {
				t.Errorf("%s: nothing to annotate for %s", dp.DialogueID, name)
			}
		}
	}
	if pairs != 1 || units != (len(evalChats)+1)*evalUnits {
		t.Errorf("%d pairs, %d units", pairs, units)
	}

	// the screening: three dialogues with ground truth on every bot turn
	tr := p.Training
	if !p.Settings.UseScreening || tr == nil || tr.TypeName != evalTrainingType || len(tr.Dialogues) != 3 {
		t.Fatalf("training %+v", tr)
	}
	for k, d := range tr.Dialogues {
		if d.Remaining != 2-k || d.PassCriteria != 1 || !slices.Equal(d.AnnotationTasks, []string{evalTrainingType}) {
			t.Errorf("training dialogue %d: %+v", k, d)
		}
		for i, turn := range d.Turns {
			if (turn.Truth != nil) != (i%2 == 1) || turn.Truth != nil && (turn.Explanation == nil || *turn.Explanation == "") {
				t.Errorf("training dialogue %d turn %d: truth %v", k, i, turn.Truth)
			}
		}
	}
	labelsKey := p.Type(evalTrainingType).LabelsKey()
	right := make([]map[string]ev.TurnAnswers, 3)
	for k, d := range tr.Dialogues {
		a := ev.NewAnswers(k)
		for i, turn := range d.Turns {
			if turn.Truth != nil && !turn.Truth.IsEmpty() {
				entry := a.Turn(i, turn)
				entry[labelsKey] = slices.Clone(turn.Truth.Entries[0].Value.([]string))
			}
		}
		right[k] = a.Data
	}
	res, err := ev.GradeTraining(tr, right, p.Settings.Grading)
	if err != nil || !res.Passed {
		t.Fatalf("the right answers: %+v, %v", res, err)
	}
	for k, g := range res.PerDialogue {
		if len(g.Mistakes) != 0 || g.Total != len(tr.Dialogues[k].Turns)/2 {
			t.Errorf("dialogue %d: %+v", k, g)
		}
	}
	none, _ := ev.GradeTraining(tr, make([]map[string]ev.TurnAnswers, 3), p.Settings.Grading)
	if none.Passed {
		t.Error("a participant who marks nothing passes the screening")
	}
	// the training flow with the right answers ends on the passed page
	flow, err := ev.NewTrainingFlow(tr, p.Settings.Grading)
	if err != nil {
		t.Fatal(err)
	}
	for k := range flow.Answers {
		flow.Answers[k].Data = right[k]
	}
	for i := 0; i < 20 && !flow.Done(); i++ {
		if err := flow.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if flow.Step != ev.StepPassed {
		t.Errorf("training ends on %s", flow.Step)
	}

	// the original layout round trip: exported and imported again without a warning
	dir := t.TempDir()
	if _, err := ev.ExportOriginal(p, dir); err != nil {
		t.Fatal(err)
	}
	imp, rep, err := ev.ImportOriginal(dir, ev.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w := rep.Filter(ev.Warning); len(w) > 0 {
		t.Errorf("import warnings: %v", w)
	}
	if len(imp.Bundles) != len(p.Bundles) || imp.Training == nil || len(imp.Types) != len(p.Types) {
		t.Errorf("imported %d bundles, %d types, training %v", len(imp.Bundles), len(imp.Types), imp.Training != nil)
	}

	// the store takes it as `agentdesk eval import FILE.toml` does
	st, err := store.Open(filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	id, err := st.SaveEvalProject(ctx, p.Name, "imported", path, p, "")
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.EvalProjectInfo(ctx, id)
	if err != nil || info.Units != units || info.Name != p.Name {
		t.Errorf("stored project %+v, %v", info, err)
	}
	back, err := st.EvalProject(ctx, id)
	if err != nil || len(back.Bundles) != len(p.Bundles) {
		t.Errorf("read back: %v", err)
	}
}

// BenchmarkWrite measures writing the whole sample set (about 0.3 s a time on the 2-core box).
func BenchmarkWrite(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := Write(b.TempDir()); err != nil {
			b.Fatal(err)
		}
	}
}
