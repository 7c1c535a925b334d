package odyssey

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// GenerateOptions describe a synthetic dataset.
type GenerateOptions struct {
	// Episodes to make (8,334 in the v2 release).
	Episodes int
	Seed     uint64
	// Schema is SchemaV2 (default) or SchemaV1.
	Schema string
	// Screenshots: "zip" (default, one archive screenshots/screenshots.zip), "folder" (one PNG
	// file per step) or "none".
	Screenshots string
	// AllFile also writes the one-file variant.
	AllFile bool
	// ZipAnnotations writes the per-episode files into annotations.zip (as the v2 release ships
	// them) instead of the annotations/ folder.
	ZipAnnotations bool
	// Progress is called with the number of episodes written.
	Progress func(done, total int)
}

// GenerateResult counts what was written.
type GenerateResult struct {
	Episodes, Steps, Screenshots int
	Splits                       map[string][2]int // name -> train, test sizes
}

// Dataset facts the generator follows (§1 of the format description).
var (
	genCategories = []struct {
		name   string
		weight int
	}{{"General_Tool", 1821}, {"Multi_Apps", 1616}, {"Information_Management", 1423},
		{"Social_Sharing", 1316}, {"Media_Entertainment", 1080}, {"Web_Shopping", 479}}
	genDevices = []struct {
		name string
		w, h int
	}{{"Pixel Fold", 2208, 1840}, {"Pixel Tablet", 2560, 1600}, {"Pixel 8 Pro", 1344, 2992},
		{"Pixel 7 Pro", 1440, 3120}, {"Medium Phone", 1080, 2400}, {"Small Phone", 720, 1280}}
	genAppStems = []string{"Chrome", "Google Docs", "Gmail", "Settings", "Google Play Store", "YouTube",
		"Spotify", "Amazon Music", "Things", "TickTick", "DuckDuckGo", "Firefox", "Google Maps", "Calendar",
		"Clock", "Keep Notes", "Instagram", "X", "Facebook", "Reddit", "WhatsApp", "Telegram", "Zoom",
		"Amazon Shopping", "eBay", "AliExpress", "Temu", "Booking.com", "Expedia", "Tripadvisor", "Files",
		"Photos", "Camera", "Contacts", "Messages", "Phone", "Drive", "Sheets", "Slides", "Outlook",
		"Microsoft Word", "Notion", "Evernote", "Todoist", "Pinterest", "TikTok", "Netflix", "Audible",
		"Kindle", "Duolingo", "Quora", "Medium", "BBC News", "CNN", "Weather", "Calculator", "Recorder"}
	genTemplates = map[string][]string{
		"General_Tool":           {"Uninstall the {} app via the Google Play Store and then verify the uninstallation.", "Set an alarm for {} and note it in a reminder.", "Turn on {} in settings and check that it works."},
		"Multi_Apps":             {"Search for {} and share the result with a friend.", "Find a recipe for {} and add the ingredients to a shopping list.", "Look up {} and save the summary in a note."},
		"Information_Management": {"Look up the weather forecast in {} tomorrow and plan a to-do list accordingly.", "Search for the next {} and set a reminder.", "Find the opening hours of {} and add them to the calendar."},
		"Social_Sharing":         {"Take a photo of {} and post it with a caption.", "Share an article about {} in a group chat.", "Find a video about {} and send it to a contact."},
		"Media_Entertainment":    {"Listen to a podcast episode on {} for beginners and create a to-do list for tomorrow.", "Watch a trailer of {} and rate it.", "Find a playlist of {} and add it to the library."},
		"Web_Shopping":           {"Compare the price of {} in two shopping apps and buy the cheaper one.", "Add {} to the cart and check the delivery date.", "Find reviews of {} and save the best offer."},
	}
	genFillers = []string{"photography", "Beijing", "New York Fashion Week", "TikTok", "running shoes", "jazz",
		"the city museum", "a laptop", "pasta", "the solar eclipse", "Paris", "yoga", "a coffee maker",
		"the local library", "football", "machine learning", "a birthday party", "Tokyo", "gardening", "chess"}
	genTexts = []string{"photography review", "the weather in Beijing tomorrow", "meeting at 10:30", "TikTok",
		"Notes about TikTok", "where is the station", "buy milk", "best running shoes 2024", "jazz playlist",
		"hello world", "Re: schedule: next week", "pasta recipe"}
)

// Generate writes a synthetic GUI Odyssey dataset in the real layout (annotations/, splits/
// with the four official splits, screenshots, optionally the one-file variant) into dir, which
// must not exist or be empty. The dataset is built in a temporary folder next to dir and moved
// into place at the end, so an interrupted run leaves no partial dataset.
func Generate(ctx context.Context, dir string, opts GenerateOptions) (GenerateResult, error) {
	var res GenerateResult
	if opts.Episodes <= 0 {
		return res, errors.New("the number of episodes must be positive")
	}
	if opts.Schema == "" {
		opts.Schema = SchemaV2
	}
	if opts.Schema != SchemaV1 && opts.Schema != SchemaV2 {
		return res, fmt.Errorf("unknown schema %q (v1 or v2)", opts.Schema)
	}
	if opts.Screenshots == "" {
		opts.Screenshots = "zip"
	}
	if opts.Screenshots != "zip" && opts.Screenshots != "folder" && opts.Screenshots != "none" {
		return res, fmt.Errorf("screenshots must be zip, folder or none, not %q", opts.Screenshots)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return res, fmt.Errorf("%s exists and is not empty", dir)
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return res, err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".generating-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(tmp) // gone after the rename
	for _, sub := range []string{"annotations", "splits", "screenshots"} {
		if err := os.Mkdir(filepath.Join(tmp, sub), 0o755); err != nil {
			return res, err
		}
	}
	g := &generator{r: rand.New(rand.NewPCG(opts.Seed, 0x4755494f64797373)), opts: opts}
	g.apps = genApps()
	var zw *zip.Writer
	var zf *os.File
	if opts.Screenshots == "zip" {
		if zf, err = os.Create(filepath.Join(tmp, "screenshots", "screenshots.zip")); err != nil {
			return res, err
		}
		defer zf.Close()
		zw = zip.NewWriter(zf)
	}
	var annZip *zip.Writer
	var annFile *os.File
	if opts.ZipAnnotations {
		if annFile, err = os.Create(filepath.Join(tmp, "annotations.zip")); err != nil {
			return res, err
		}
		defer annFile.Close()
		annZip = zip.NewWriter(annFile)
		os.Remove(filepath.Join(tmp, "annotations"))
	}
	var all bytes.Buffer
	if opts.AllFile {
		all.WriteByte('[')
	}
	var eps []genEpisode
	ids := map[string]bool{}
	for i := 0; i < opts.Episodes; i++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		ep := g.episode(ids)
		eps = append(eps, ep)
		data, err := json.MarshalIndent(ep.ann, "", "    ")
		if err != nil {
			return res, err
		}
		if annZip != nil {
			w, err := annZip.Create("annotations/" + ep.ann.EpisodeID + ".json")
			if err != nil {
				return res, err
			}
			if _, err := w.Write(data); err != nil {
				return res, err
			}
		} else if err := os.WriteFile(filepath.Join(tmp, "annotations", ep.ann.EpisodeID+".json"), data, 0o644); err != nil {
			return res, err
		}
		if opts.AllFile {
			if i > 0 {
				all.WriteByte(',')
			}
			all.Write(data)
		}
		res.Episodes++
		res.Steps += len(ep.ann.Steps)
		if opts.Screenshots != "none" {
			shot := g.screenshot(ep.device)
			for _, s := range ep.ann.Steps {
				if zw != nil {
					w, err := zw.CreateHeader(&zip.FileHeader{Name: "screenshots/" + s.Screenshot, Method: zip.Store})
					if err != nil {
						return res, err
					}
					if _, err := w.Write(shot); err != nil {
						return res, err
					}
				} else if err := os.WriteFile(filepath.Join(tmp, "screenshots", s.Screenshot), shot, 0o644); err != nil {
					return res, err
				}
				res.Screenshots++
			}
		}
		if opts.Progress != nil && (i+1)%100 == 0 || opts.Progress != nil && i+1 == opts.Episodes {
			opts.Progress(i+1, opts.Episodes)
		}
	}
	if annZip != nil {
		if err := annZip.Close(); err != nil {
			return res, err
		}
		if err := annFile.Close(); err != nil {
			return res, err
		}
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return res, err
		}
		if err := zf.Close(); err != nil {
			return res, err
		}
	}
	if opts.AllFile {
		all.WriteByte(']')
		name := "all_annot.json"
		if opts.Schema == SchemaV1 {
			name = "all_anno.json"
		}
		if err := os.WriteFile(filepath.Join(tmp, name), all.Bytes(), 0o644); err != nil {
			return res, err
		}
	}
	res.Splits = map[string][2]int{}
	for name, parts := range g.splits(eps) {
		data, _ := WriteSplitJSON(parts)
		if err := os.WriteFile(filepath.Join(tmp, "splits", name+".json"), data, 0o644); err != nil {
			return res, err
		}
		res.Splits[name] = [2]int{len(parts[0].IDs), len(parts[1].IDs)}
	}
	os.Remove(dir) // an empty folder in the way
	if err := os.Rename(tmp, dir); err != nil {
		return res, err
	}
	return res, nil
}

func genApps() []string {
	apps := append([]string{}, genAppStems...)
	for i := 0; len(apps) < 212; i++ {
		apps = append(apps, fmt.Sprintf("%s %s", genAppStems[i%len(genAppStems)], []string{"Lite", "Pro", "Go", "Plus"}[i/len(genAppStems)%4]))
	}
	return apps
}

type generator struct {
	r    *rand.Rand
	opts GenerateOptions
	apps []string
	png  map[string][]byte
}

// genEpisode is a generated episode with what the splits need.
type genEpisode struct {
	ann      genAnnotation
	device   string
	metaTask string
}

// genAnnotation has the field order of the original files.
type genAnnotation struct {
	EpisodeID  string          `json:"episode_id"`
	DeviceInfo genDevice       `json:"device_info"`
	TaskInfo   TaskInfo        `json:"task_info"`
	StepLength int             `json:"step_length"`
	Steps      []genStepRecord `json:"steps"`
}

type genDevice struct {
	Product        string `json:"product"`
	ReleaseVersion string `json:"release_version"`
	SDKVersion     string `json:"sdk_version"`
	H              int    `json:"h"`
	W              int    `json:"w"`
	DeviceName     string `json:"device_name"`
}

type genStepRecord struct {
	Step                int    `json:"step"`
	Screenshot          string `json:"screenshot"`
	Action              string `json:"action"`
	Info                any    `json:"info"`
	PS                  string `json:"ps"`
	Description         string `json:"description,omitempty"`
	Intention           string `json:"intention,omitempty"`
	Context             string `json:"context,omitempty"`
	LowLevelInstruction string `json:"low_level_instruction,omitempty"`
	Sam2Bbox            *[]int `json:"sam2_bbox,omitempty"`
}

func (g *generator) pick(n int) int { return g.r.IntN(n) }

// genRemarks are the remarks annotators leave on a finished episode (the ps of its COMPLETE).
var genRemarks = []string{
	"Checked the result in the last app before finishing.",
	"The first search found nothing; a shorter query worked.",
	"A permission dialog appeared and was allowed.",
	"The page loaded slowly; waited before the next step.",
}

// fingerPath is a scroll's finger path as ps records it, "[(x, y), …]" from (x1, y1) to
// (x2, y2): 13 samples that start and end slowly and bow a little sideways, as a thumb's
// swipe does. It draws nothing from the random stream (the bow comes from the start point).
func fingerPath(x1, y1, x2, y2 int) string {
	bow := float64((x1*7+y1*13)%41 - 20) // -20 … 20 units across the swipe
	var path []string
	for k := 0; k <= 12; k++ {
		t := float64(k) / 12
		e := t * t * (3 - 2*t) // eased progress along the swipe
		off := bow * math.Sin(math.Pi*t)
		x := float64(x1) + float64(x2-x1)*e
		y := float64(y1) + float64(y2-y1)*e
		if x1 == x2 { // a vertical swipe bows left or right, a horizontal one up or down
			x += off
		} else {
			y += off
		}
		px, py := int(math.Round(max(0, min(1000, x)))), int(math.Round(max(0, min(1000, y))))
		if k == 0 {
			px, py = x1, y1
		} else if k == 12 {
			px, py = x2, y2
		}
		path = append(path, fmt.Sprintf("(%d, %d)", px, py))
	}
	return "[" + strings.Join(path, ", ") + "]"
}

func (g *generator) category() string {
	total := 0
	for _, c := range genCategories {
		total += c.weight
	}
	x := g.pick(total)
	for _, c := range genCategories {
		if x < c.weight {
			return c.name
		}
		x -= c.weight
	}
	return genCategories[0].name
}

func (g *generator) episode(ids map[string]bool) genEpisode {
	var id string
	for id == "" || ids[id] {
		id = fmt.Sprintf("%016d", g.r.Uint64N(1e16))
	}
	ids[id] = true
	cat := g.category()
	dev := genDevices[g.pick(len(genDevices))]
	nApps := 1 + g.pick(2)
	if cat == "Multi_Apps" {
		nApps = 2 + g.pick(3)
	}
	var apps []string
	for len(apps) < nApps {
		// A skewed choice: popular apps appear much more often.
		a := g.apps[int(math.Pow(g.r.Float64(), 2.2)*float64(len(g.apps)))]
		if !contains(apps, a) {
			apps = append(apps, a)
		}
	}
	tpls := genTemplates[cat]
	ti := g.pick(len(tpls))
	// A meta-task is a template with a variant number, so that task-split hold-outs have many.
	meta := tpls[ti]
	if v := g.pick(40); v > 0 {
		meta = strings.Replace(meta, ".", fmt.Sprintf(" (variant %d).", v), 1)
	}
	task := strings.Replace(meta, "{}", genFillers[g.pick(len(genFillers))], 1)
	instr := "Use " + apps[0] + " to " + strings.ToLower(task[:1]) + task[1:len(task)-1]
	if len(apps) > 1 {
		instr += ", then use " + strings.Join(apps[1:], " and ") + " to finish the job"
	}
	instr += "."
	// Step lengths around 15 (mean 15.3), 4 to 50.
	n := int(math.Round(math.Exp(2.65 + 0.42*g.r.NormFloat64())))
	n = max(4, min(50, n))
	ep := genEpisode{device: dev.name, metaTask: meta}
	ep.ann = genAnnotation{
		EpisodeID:  id,
		DeviceInfo: genDevice{Product: "sdk_gphone64_x86_64", ReleaseVersion: "14", SDKVersion: "34", H: dev.h, W: dev.w, DeviceName: dev.name},
		TaskInfo:   TaskInfo{Category: cat, App: apps, MetaTask: meta, Task: task, Instruction: instr},
		StepLength: n,
	}
	var done []string
	for i := 0; i < n; i++ {
		s := genStepRecord{Step: i, Screenshot: fmt.Sprintf("%s_%d.png", id, i)}
		var box []int
		if i == n-1 {
			s.Action, s.Info = "COMPLETE", ""
			if g.pick(20) == 0 {
				s.Action = "INCOMPLETE"
				s.PS = "The app kept showing an error."
			} else if id[15] == '7' {
				// About one in ten completed episodes carries an annotator's remark too (taken
				// from the id, so the random stream, and every other field, stays the same).
				s.PS = genRemarks[int(id[14]-'0')%len(genRemarks)]
			}
		} else {
			x := g.pick(100)
			switch {
			case x < 61: // a tap: 58 clicks to 3 long presses
				s.Action = "CLICK"
				if x >= 58 {
					s.Action = "LONG_PRESS"
				}
				px, py := 20+g.pick(961), 20+g.pick(961)
				s.Info = [][]int{{px, py}, {px, py}}
				s.PS = fmt.Sprintf("[(%d, %d)]", px, py)
				box = g.box(px, py)
			case x < 73:
				s.Action = "SCROLL"
				x1, y1 := 200+g.pick(600), 200+g.pick(600)
				dx, dy := 0, 0
				if g.pick(4) == 0 {
					dx = (300 + g.pick(300)) * (1 - 2*g.pick(2))
				} else {
					dy = (300 + g.pick(300)) * (1 - 2*g.pick(2))
				}
				x2, y2 := max(0, min(1000, x1+dx)), max(0, min(1000, y1+dy))
				s.Info = [][]int{{x1, y1}, {x2, y2}}
				s.PS = fingerPath(x1, y1, x2, y2)
			case x < 84:
				s.Action, s.Info = "TEXT", genTexts[g.pick(len(genTexts))]
			default:
				s.Action = "CLICK"
				s.Info = []string{"KEY_HOME", "KEY_BACK", "KEY_BACK", "KEY_APPSELECT"}[g.pick(4)]
			}
		}
		if g.opts.Schema == SchemaV2 {
			target := []string{"search bar", "icon", "button", "menu", "text field", "list item"}[g.pick(6)]
			app := apps[min(i*len(apps)/n, len(apps)-1)]
			low := map[string]string{"CLICK": "Tap the " + app + " " + target + ".", "LONG_PRESS": "Long press the " + target + " in " + app + ".",
				"SCROLL": "Scroll to see more of " + app + ".", "TEXT": fmt.Sprintf("Type %q.", s.Info),
				"COMPLETE": "The task is complete.", "INCOMPLETE": "The task cannot be completed."}[s.Action]
			if k, ok := s.Info.(string); ok && s.Action == "CLICK" {
				low = map[string]string{"KEY_HOME": "Go to the home screen.", "KEY_BACK": "Go back.", "KEY_APPSELECT": "Open the recent apps."}[k]
			}
			s.Description = fmt.Sprintf("This screenshot shows the %s app on a %s. The %s is visible.", app, dev.name, target)
			s.Intention = fmt.Sprintf("To %s, I need to %s next.", strings.ToLower(task[:1])+task[1:len(task)-1], strings.ToLower(low[:1])+low[1:len(low)-1])
			if len(done) == 0 {
				s.Context = "This is the first step of the task."
			} else {
				s.Context = "So far: " + strings.Join(done[max(0, len(done)-3):], " ")
			}
			s.LowLevelInstruction = low
			done = append(done, low)
			if box == nil {
				box = []int{}
			}
			s.Sam2Bbox = &box
		}
		ep.ann.Steps = append(ep.ann.Steps, s)
	}
	return ep
}

// box is the segmented element around a click; one in ten misses the point, as in real data.
func (g *generator) box(x, y int) []int {
	w, h := 30+g.pick(150), 20+g.pick(60)
	cx, cy := x, y
	if g.pick(10) == 0 {
		cx, cy = x+w, y+h
	}
	return []int{max(0, cx-w/2), max(0, cy-h/2), min(1000, cx+w/2), min(1000, cy+h/2)}
}

// screenshot is a tiny PNG with the device's aspect ratio (one per device, shared).
func (g *generator) screenshot(device string) []byte {
	if g.png == nil {
		g.png = map[string][]byte{}
	}
	if b, ok := g.png[device]; ok {
		return b
	}
	for _, d := range genDevices {
		if d.name != device {
			continue
		}
		w, h := max(1, d.w/160), max(1, d.h/160)
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := range img.Pix {
			img.Pix[i] = 0xee
		}
		img.Set(0, 0, color.RGBA{255, 0, 0, 255})
		var b bytes.Buffer
		png.Encode(&b, img)
		g.png[device] = b.Bytes()
	}
	return g.png[device]
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// splits makes the four official splits the way the originals are defined: random 4 : 1,
// task (whole meta-tasks held out, in proportion per category), device (Pixel Tablet held
// out) and app (episodes touching a held-out set of apps).
func (g *generator) splits(eps []genEpisode) map[string][]SplitPart {
	ids := make([]string, len(eps))
	for i, e := range eps {
		ids[i] = e.ann.EpisodeID
	}
	out := map[string][]SplitPart{}
	out["random_split"], _ = RandomSplit(ids, 0.2, g.r.Uint64())
	by := func(test func(e genEpisode) bool) []SplitPart {
		parts := []SplitPart{{Name: "train", IDs: []string{}}, {Name: "test", IDs: []string{}}}
		for _, e := range eps {
			if test(e) {
				parts[1].IDs = append(parts[1].IDs, e.ann.EpisodeID)
			} else {
				parts[0].IDs = append(parts[0].IDs, e.ann.EpisodeID)
			}
		}
		return parts
	}
	metas := map[string]bool{}
	var metaList []string
	for _, e := range eps {
		if !metas[e.metaTask] {
			metas[e.metaTask] = true
			metaList = append(metaList, e.metaTask)
		}
	}
	sort.Strings(metaList)
	held := map[string]bool{}
	for _, m := range metaList {
		if g.pick(100) < 15 {
			held[m] = true
		}
	}
	out["task_split"] = by(func(e genEpisode) bool { return held[e.metaTask] })
	out["device_split"] = by(func(e genEpisode) bool { return e.device == "Pixel Tablet" })
	heldApps := map[string]bool{}
	for i, a := range g.apps {
		if i%6 == 5 {
			heldApps[a] = true
		}
	}
	out["app_split"] = by(func(e genEpisode) bool {
		for _, a := range e.ann.TaskInfo.App {
			if heldApps[a] {
				return true
			}
		}
		return false
	})
	return out
}
