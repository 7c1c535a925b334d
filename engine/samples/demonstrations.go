package samples

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentdesk/agentdesk/engine/mobileenv"
)

// The Demonstrations sample: three human demonstrations of one task in a made-up recipe app,
// as a resaved Mobile-Env annotation file, with the task definition it names.

// Names of the Demonstrations sample.
const (
	demoDefinition = Marker + "Recipes" // task_definition_id: the .textproto's and the .pkl's stem
	demoTaskID     = Marker + "-recipes-pancakes"
	demoTaskName   = Marker + " Recipes - save the pancake recipe"
	demoPackage    = "org.agentdesk.samplerecipes"
)

// Size of the sample screens (9:16, a small phone).
const (
	screenW = 144
	screenH = 256
)

// demoCommand is the task's command, as its definition lists it.
var demoCommand = []string{"Find a recipe for pancakes.", "Save it to your favourites."}

// demoDefinitionText is the task definition of the demonstrations (Mobile-Env's Task textproto).
// The nested instruction slots are what "instructionize" offers: option 0 and option 1.
const demoDefinitionText = `# Agentdesk sample: a task definition written for the bundled demonstrations. The app it
# describes (` + demoPackage + `) does not exist; the screens in the demonstrations are drawn.
id: "` + demoTaskID + `"
name: "` + demoTaskName + `"
description: "Look up the pancake recipe in the Sample Recipes app, by searching or by browsing the breakfast dishes, and save it to the favourites."
setup_steps: { adb_call: { force_stop: { package_name: "` + demoPackage + `" } } }
reset_steps: { adb_call: { start_activity: { full_activity: "` + demoPackage + `/.HomeActivity" } } }
expected_app_screen: { activity: "` + demoPackage + `/.HomeActivity" }
max_num_steps: 20
event_sources: { log_event: { filters: "SampleRecipes:I" pattern: "screen=home" } id: 1 }
event_sources: {
  view_hierarchy_event: {
    selector: '#$"recipe_title"'
    properties: { property_name: "text" pattern: "^Pancakes$" }
  }
  id: 2
}
event_sources: { log_event: { filters: "SampleRecipes:I" pattern: "favourite added: pancakes$" } id: 3 }
event_slots: {
  reward_listener: { type: SINGLE id: 4 events: { id: 3 } prerequisite: [ 2 ] transformation: "y = 1" repeatability: NONE }
  episode_end_listener: { events: { id: 4 } transformation: "y = True" }
  instruction_listener: {
    type: OR
    events: { event: { events: { id: 1 } transformation: "y = ['Find a recipe for pancakes.']" repeatability: NONE } }
    events: { event: { events: { id: 2 } transformation: "y = ['Save it to your favourites.']" repeatability: NONE } }
  }
}
command: "Find a recipe for pancakes."
command: "Save it to your favourites."
vocabulary: ["pancakes", "porridge", "soup", "salad"]
`

// element is one view of a drawn screen: it becomes a node of the view hierarchy and a place
// a demonstration can touch.
type element struct {
	class, id, text string
	r               image.Rectangle
	clickable       bool
}

// screen is a drawn app screen with its views.
type screen struct {
	canvas
	elems []element
}

func (s *screen) add(class, id, text string, r image.Rectangle, clickable bool) {
	s.elems = append(s.elems, element{class: class, id: id, text: text, r: r, clickable: clickable})
}

// hierarchy writes the screen's views as a uiautomator-style XML dump.
func (s *screen) hierarchy() string {
	var b strings.Builder
	b.WriteString(`<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">`)
	fmt.Fprintf(&b, `<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="%s" clickable="false" bounds="[0,0][%d,%d]">`,
		demoPackage, screenW, screenH)
	for i, e := range s.elems {
		id := ""
		if e.id != "" {
			id = demoPackage + ":id/" + e.id
		}
		fmt.Fprintf(&b, `<node index="%d" text="%s" resource-id="%s" class="%s" package="%s" clickable="%t" bounds="[%d,%d][%d,%d]" />`,
			i, xmlAttr(e.text), id, e.class, demoPackage, e.clickable, e.r.Min.X, e.r.Min.Y, e.r.Max.X, e.r.Max.Y)
	}
	b.WriteString(`</node></hierarchy>`)
	return b.String()
}

func xmlAttr(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace(s)
}

// The app's screens. clock is the time shown in the status bar (each record is a moment).

func newScreen(clock string) *screen {
	s := &screen{canvas: newCanvas(screenW, screenH, colPage)}
	s.fill(image.Rect(0, 0, screenW, 14), colStatus)
	s.text(4, 1, clock, colWhite, 0)
	s.frame(image.Rect(screenW-20, 4, screenW-6, 11), colWhite) // battery
	s.fill(image.Rect(screenW-6, 6, screenW-4, 9), colWhite)
	s.fill(image.Rect(screenW-18, 6, screenW-11, 9), colWhite)
	return s
}

// header draws the app bar with a title and, on inner pages, a back arrow.
func (s *screen) header(title string, back bool) {
	s.fill(image.Rect(0, 14, screenW, 38), colHeader)
	x := 8
	if back {
		r := image.Rect(0, 14, 22, 38)
		s.centred(r, "<", colWhite)
		s.add("android.widget.ImageButton", "back", "Back", r, true)
		x = 24
	}
	s.text(x, 20, title, colWhite, screenW-4)
	s.add("android.widget.TextView", "title", title, image.Rect(x, 20, screenW-4, 33), false)
}

// searchBox draws the search field: empty (hint), typed, focused or not.
func (s *screen) searchBox(text string, focused bool) {
	r := image.Rect(6, 44, screenW-6, 62)
	bg, border := colWhite, colGrey
	if focused {
		bg, border = colFocus, colAccent
	}
	s.fill(r, bg)
	s.frame(r, border)
	if text == "" {
		s.text(r.Min.X+5, r.Min.Y+3, "Search recipes", colGrey, r.Max.X-2)
	} else {
		s.text(r.Min.X+5, r.Min.Y+3, text, colInk, r.Max.X-2)
	}
	if focused {
		x := r.Min.X + 5 + len(text)*glyphW
		s.fill(image.Rect(x, r.Min.Y+3, x+1, r.Max.Y-3), colAccent) // cursor
	}
	s.add("android.widget.EditText", "search_box", text, r, true)
}

// rows draws a list of recipes starting at y; the ids are row_<n>.
func (s *screen) rows(y int, items []string) {
	for i, it := range items {
		r := image.Rect(0, y+i*22, screenW, y+(i+1)*22)
		s.fill(r, colWhite)
		s.fill(image.Rect(0, r.Max.Y-1, screenW, r.Max.Y), colLine)
		// a small swatch per dish, its colour taken from the name
		var h uint32
		for _, c := range it {
			h = h*31 + uint32(c)
		}
		sw := colorOf(h)
		s.round(image.Rect(8, r.Min.Y+5, 20, r.Min.Y+17), sw)
		s.text(26, r.Min.Y+4, it, colInk, screenW-4)
		s.add("android.widget.TextView", fmt.Sprintf("row_%d", i), it, r, true)
	}
}

func colorOf(h uint32) color.RGBA {
	palette := []color.RGBA{{232, 168, 56, 255}, {120, 170, 90, 255}, {200, 90, 80, 255},
		{150, 110, 190, 255}, {90, 150, 200, 255}, {210, 140, 170, 255}}
	return palette[h%uint32(len(palette))]
}

// bottomNav draws the two tabs of the home screen.
func (s *screen) bottomNav() {
	s.fill(image.Rect(0, 232, screenW, screenH), colWhite)
	s.fill(image.Rect(0, 232, screenW, 233), colLine)
	home := image.Rect(0, 233, screenW/2, screenH)
	fav := image.Rect(screenW/2, 233, screenW, screenH)
	s.centred(home, "Home", colHeader)
	s.centred(fav, "Favourites", colGrey)
	s.add("android.widget.Button", "tab_home", "Home", home, true)
	s.add("android.widget.Button", "tab_favourites", "Favourites", fav, true)
}

// keyboard draws the on-screen keyboard; its action key is "search_key".
func (s *screen) keyboard() {
	s.fill(image.Rect(0, 160, screenW, screenH), colKeyboard)
	rows := []string{"qwertyuiop", "asdfghjkl", "zxcvbnm"}
	for i, row := range rows {
		y := 164 + i*22
		x0 := (screenW - len(row)*14) / 2
		for j, ch := range row {
			r := image.Rect(x0+j*14+1, y, x0+j*14+13, y+18)
			s.round(r, colKey)
			s.centred(r, string(ch), colInk)
		}
	}
	space := image.Rect(26, 232, 96, 252)
	s.round(space, colKey)
	key := image.Rect(100, 232, screenW-4, 252)
	s.round(key, colAccent)
	s.centred(key, "Go", colWhite)
	s.add("android.inputmethodservice.Keyboard", "keyboard", "", image.Rect(0, 160, screenW, screenH), false)
	s.add("android.widget.Button", "search_key", "Go", key, true)
}

// The screens of the demonstrations.

func homeScreen(clock string) *screen {
	s := newScreen(clock)
	s.header("Recipes", false)
	s.searchBox("", false)
	chip := func(id, text string, x int) {
		r := image.Rect(x, 68, x+len(text)*glyphW+10, 84)
		s.round(r, colChip)
		s.centred(r, text, colHeader)
		s.add("android.widget.Button", id, text, r, true)
	}
	chip("chip_breakfast", "Breakfast", 6)
	chip("chip_soups", "Soups", 82)
	s.text(8, 90, "Popular today", colGrey, 0)
	s.rows(106, []string{"Tomato soup", "Green salad", "Apple pie", "Banana bread", "Lentil curry"})
	s.bottomNav()
	return s
}

func searchScreen(clock, typed string) *screen {
	s := newScreen(clock)
	s.header("Search", true)
	s.searchBox(typed, true)
	if typed != "" {
		s.text(8, 70, "Press Go to search", colGrey, 0)
	}
	s.keyboard()
	return s
}

func resultsScreen(clock, query string) *screen {
	s := newScreen(clock)
	s.header("Results", true)
	s.searchBox(query, false)
	s.text(8, 68, "3 recipes", colGrey, 0)
	s.rows(84, []string{"Pancakes", "Banana pancakes", "Pancake syrup"})
	return s
}

func categoryScreen(clock string) *screen {
	s := newScreen(clock)
	s.header("Breakfast", true)
	s.text(8, 44, "6 recipes", colGrey, 0)
	s.rows(60, []string{"Porridge", "Pancakes", "Omelette", "Fruit bowl", "French toast", "Granola"})
	return s
}

// recipeScreen is a recipe page: a drawn dish, the ingredients and the save button (saved:
// green); toast adds the confirmation a moment after saving.
func recipeScreen(clock, dish string, ingredients []string, saved, toast bool) *screen {
	s := newScreen(clock)
	s.header(dish, true)
	s.elems[len(s.elems)-1].id = "recipe_title"
	photo := image.Rect(6, 44, screenW-6, 104)
	s.fill(photo, colChip)
	s.round(image.Rect(44, 52, 100, 96), colWhite) // the plate
	s.round(image.Rect(54, 62, 90, 86), colorOf(uint32(len(dish))*7+3))
	s.add("android.widget.ImageView", "recipe_photo", "", photo, false)
	s.text(8, 110, "Ingredients", colHeader, 0)
	for i, it := range ingredients {
		s.text(12, 126+i*16, "- "+it, colInk, screenW-4)
		s.add("android.widget.TextView", fmt.Sprintf("ingredient_%d", i), it, image.Rect(12, 126+i*16, screenW-4, 139+i*16), false)
	}
	btn := image.Rect(6, 226, screenW-6, 250)
	if saved {
		s.round(btn, colGreen)
		s.centred(btn, "Saved!", colWhite)
		s.add("android.widget.Button", "save_button", "Saved!", btn, true)
	} else {
		s.round(btn, colAccent)
		s.centred(btn, "Save to favourites", colWhite)
		s.add("android.widget.Button", "save_button", "Save to favourites", btn, true)
	}
	if toast {
		r := image.Rect(20, 205, screenW-20, 222)
		s.round(r, colToast)
		s.centred(r, "In favourites", colWhite)
		s.add("android.widget.Toast", "toast", "In favourites", r, false)
	}
	return s
}

var (
	pancakeIngredients = []string{"2 eggs", "250 ml milk", "125 g flour", "pinch of salt", "butter"}
	bananaIngredients  = []string{"2 ripe bananas", "2 eggs", "100 g oat flour", "cinnamon"}
)

// demoStep is one record of a demonstration after the initial one.
type demoStep struct {
	action      int64
	touch       string // TOUCH: the id of the element touched, on the screen before the step
	token       string // TEXT: the typed token
	reward      float64
	instruction []string
	screen      *screen
	noHierarchy bool // the dump was not captured (view_hierarchy None)
}

// demoTrajectory is one demonstration: the initial screen and the steps.
type demoTrajectory struct {
	initial *screen
	steps   []demoStep
}

// demoTrajectories are the three demonstrations: searching (6 steps), browsing the breakfast
// dishes (4 steps), and a mistaken attempt that saves the wrong recipe (5 steps, no reward).
func demoTrajectories() []demoTrajectory {
	find, save := []string{demoCommand[0]}, []string{demoCommand[1]}
	return []demoTrajectory{
		{initial: homeScreen("9:41"), steps: []demoStep{
			{action: mobileenv.ActionTouch, touch: "search_box", instruction: find, screen: searchScreen("9:41", "")},
			{action: mobileenv.ActionText, token: "pancakes", screen: searchScreen("9:42", "pancakes")},
			{action: mobileenv.ActionTouch, touch: "search_key", screen: resultsScreen("9:42", "pancakes")},
			{action: mobileenv.ActionTouch, touch: "row_0", instruction: save, screen: recipeScreen("9:42", "Pancakes", pancakeIngredients, false, false)},
			{action: mobileenv.ActionTouch, touch: "save_button", reward: 1, screen: recipeScreen("9:43", "Pancakes", pancakeIngredients, true, false)},
			{action: mobileenv.ActionLift, noHierarchy: true, screen: recipeScreen("9:43", "Pancakes", pancakeIngredients, true, true)},
		}},
		{initial: homeScreen("10:05"), steps: []demoStep{
			{action: mobileenv.ActionTouch, touch: "chip_breakfast", instruction: find, screen: categoryScreen("10:05")},
			{action: mobileenv.ActionTouch, touch: "row_1", instruction: save, screen: recipeScreen("10:06", "Pancakes", pancakeIngredients, false, false)},
			{action: mobileenv.ActionTouch, touch: "save_button", reward: 1, screen: recipeScreen("10:06", "Pancakes", pancakeIngredients, true, false)},
			{action: mobileenv.ActionLift, noHierarchy: true, screen: recipeScreen("10:06", "Pancakes", pancakeIngredients, true, true)},
		}},
		{initial: homeScreen("11:20"), steps: []demoStep{
			{action: mobileenv.ActionTouch, touch: "search_box", instruction: find, screen: searchScreen("11:20", "")},
			{action: mobileenv.ActionText, token: "pancakes", screen: searchScreen("11:21", "pancakes")},
			{action: mobileenv.ActionTouch, touch: "search_key", screen: resultsScreen("11:21", "pancakes")},
			{action: mobileenv.ActionTouch, touch: "row_1", screen: recipeScreen("11:21", "Banana pancakes", bananaIngredients, false, false)},
			{action: mobileenv.ActionTouch, touch: "save_button", screen: recipeScreen("11:22", "Banana pancakes", bananaIngredients, true, false)},
		}},
	}
}

// recordBuilder makes the record dicts of one trajectory. Key strings and dtypes are shared
// within the trajectory, as in the pickle the recorder writes for it (a recorder's keys are
// interned literals, numpy's dtypes singletons), and nothing is shared between trajectories,
// which resave reads from separate pickles: the file is byte for byte what `pickle resave`
// writes from such dumps.
type recordBuilder struct {
	u1, i8, f8 *mobileenv.DType
	keys       map[string]*mobileenv.Str
}

func newRecordBuilder() *recordBuilder {
	u1, _ := mobileenv.NewDType("u1")
	i8, _ := mobileenv.NewDType("i8")
	f8, _ := mobileenv.NewDType("f8")
	return &recordBuilder{u1: u1, i8: i8, f8: f8, keys: map[string]*mobileenv.Str{}}
}

func (b *recordBuilder) set(d *mobileenv.Dict, key string, v any) {
	k, ok := b.keys[key]
	if !ok {
		k = mobileenv.NewStr(key)
		b.keys[key] = k
	}
	d.Keys = append(d.Keys, k)
	d.Vals = append(d.Vals, v)
}

// observe adds the keys every record ends with: observation, view_hierarchy, orientation.
func (b *recordBuilder) observe(d *mobileenv.Dict, s *screen, noHierarchy bool) {
	b.set(d, "observation", &mobileenv.NDArray{DType: b.u1, Shape: []int{screenH, screenW, 3}, Data: s.rgb()})
	if noHierarchy {
		b.set(d, "view_hierarchy", nil)
	} else {
		b.set(d, "view_hierarchy", mobileenv.NewStr(s.hierarchy()))
	}
	b.set(d, "orientation", &mobileenv.Scalar{DType: b.i8, Raw: make([]byte, 8)}) // portrait: 0
}

func strList(items []string) *mobileenv.List {
	l := &mobileenv.List{}
	for _, it := range items {
		l.Items = append(l.Items, mobileenv.NewStr(it))
	}
	return l
}

// demoRecords builds the record list of one demonstration as `pickle resave` leaves it (the
// typed token as a string).
func demoRecords(t demoTrajectory) (*mobileenv.List, error) {
	b := newRecordBuilder()
	traj := &mobileenv.List{}
	first := mobileenv.NewDict()
	b.set(first, "task_id", mobileenv.NewStr(demoTaskID))
	b.set(first, "task", mobileenv.NewStr(demoTaskName))
	b.set(first, "command", strList(demoCommand))
	b.observe(first, t.initial, false)
	traj.Items = append(traj.Items, first)
	prev := t.initial
	for j, st := range t.steps {
		d := mobileenv.NewDict()
		b.set(d, "action_type", st.action)
		switch st.action {
		case mobileenv.ActionText:
			b.set(d, "input_token", mobileenv.NewStr(st.token))
		case mobileenv.ActionTouch:
			// the element touched is on the screen the finger was on (the previous record's)
			e := findElement(prev, st.touch)
			if e == nil {
				return nil, fmt.Errorf("step %d touches %q, which the screen before it does not show", j+1, st.touch)
			}
			c := e.r.Min.Add(e.r.Max).Div(2)
			pos := make([]byte, 16)
			binary.LittleEndian.PutUint64(pos, math.Float64bits(float64(c.X)/screenW))
			binary.LittleEndian.PutUint64(pos[8:], math.Float64bits(float64(c.Y)/screenH))
			b.set(d, "touch_position", &mobileenv.NDArray{DType: b.f8, Shape: []int{2}, Data: pos})
		}
		if st.reward != 0 {
			b.set(d, "reward", st.reward)
		} else {
			b.set(d, "reward", int64(0))
		}
		if st.instruction != nil {
			b.set(d, "instruction", strList(st.instruction))
		}
		b.observe(d, st.screen, st.noHierarchy)
		traj.Items = append(traj.Items, d)
		prev = st.screen
	}
	return traj, nil
}

func findElement(s *screen, id string) *element {
	for i := range s.elems {
		if s.elems[i].id == id {
			return &s.elems[i]
		}
	}
	return nil
}

// demoPickle encodes the resaved annotation file.
func demoPickle() ([]byte, error) {
	trajs := &mobileenv.List{}
	for i, t := range demoTrajectories() {
		l, err := demoRecords(t)
		if err != nil {
			return nil, fmt.Errorf("demonstration %d: %w", i, err)
		}
		trajs.Items = append(trajs.Items, l)
	}
	meta := mobileenv.NewDict()
	meta.Set("otask_id", mobileenv.NewStr(demoTaskID))
	meta.Set("otask_name", mobileenv.NewStr(demoTaskName))
	meta.Set("task_definition_id", mobileenv.NewStr(demoDefinition))
	root := mobileenv.NewDict()
	root.Set("meta", meta)
	root.Set("trajectories", trajs)
	return mobileenv.Encode(root)
}

// writeDemonstrations writes dir/<definition>.pkl and dir/textprotos/<definition>.textproto
// (the folder the Demonstrations workspace looks in next to a file) and returns their paths.
func writeDemonstrations(dir string) (pkl, defDir string, err error) {
	defDir = filepath.Join(dir, "textprotos")
	if err := os.MkdirAll(defDir, 0o755); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(filepath.Join(defDir, demoDefinition+".textproto"), []byte(demoDefinitionText), 0o644); err != nil {
		return "", "", err
	}
	data, err := demoPickle()
	if err != nil {
		return "", "", err
	}
	pkl = filepath.Join(dir, demoDefinition+".pkl")
	if err := os.WriteFile(pkl, data, 0o644); err != nil {
		return "", "", err
	}
	return pkl, defDir, nil
}
