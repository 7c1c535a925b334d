package template

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestTextprotoOracle(t *testing.T) {
	var cases []struct {
		In    string `json:"in"`
		Out   string `json:"out"`
		Error bool   `json:"error"`
	}
	data, err := os.ReadFile("testdata/textproto_oracle.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		got, err := FormatTextproto(c.In)
		switch {
		case c.Error && err == nil:
			t.Errorf("%q: accepted (%q), Python rejects it", c.In, got)
		case !c.Error && err != nil:
			t.Errorf("%q: %v", c.In, err)
		case !c.Error && got != c.Out:
			t.Errorf("%q:\n got %q\nwant %q", c.In, got, c.Out)
		case err != nil && CategoryOf(err) != CatUnparsableTextproto:
			t.Errorf("%q: category %q", c.In, CategoryOf(err))
		}
	}
	if len(cases) == 0 {
		t.Fatal("no oracle cases")
	}
	t.Logf("%d textproto oracle cases", len(cases))
}

func TestParseSlotsPositions(t *testing.T) {
	text := "id: \"<id>\"\n名称 <lower,url_query':名称> <not a slot> <lower: v> <<v>>\n<no_quote',x:y> <bogus:z> <upper,no_quote:q>"
	slots, errs := ParseSlots(text)
	var got []string
	for _, s := range slots {
		got = append(got, s.String()+"@"+itoa(s.Line)+":"+itoa(s.Col))
		if s.Text(text) != s.String() {
			t.Errorf("Text %q != String %q", s.Text(text), s.String())
		}
	}
	want := "<id>@1:6 <lower,url_query':名称>@2:4 <v>@2:51 <no_quote',x:y>@3:1 <bogus:z>@3:17 <upper,no_quote:q>@3:27"
	if strings.Join(got, " ") != want {
		t.Errorf("slots\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	var kinds []string
	for _, e := range errs {
		w := ""
		if e.Warning {
			w = "w"
		}
		kinds = append(kinds, string(e.Category)+w+"@"+itoa(e.Line)+":"+itoa(e.Col))
	}
	wantErrs := "bad slotw@2:39 unknown modifier@3:2 unknown modifier@3:12 unknown modifier@3:18 unknown modifierw@3:28"
	if strings.Join(kinds, " ") != wantErrs {
		t.Errorf("errors\n got %s\nwant %s", strings.Join(kinds, " "), wantErrs)
	}
	if s := slots[1]; s.Identifier != "名称" || len(s.Modifiers) != 2 || !s.Modifiers[1].Each || s.Modifiers[0].Each {
		t.Errorf("slot 1 = %+v", s)
	}
}

func TestRenderErrorPosition(t *testing.T) {
	_, err := Render("a\n  x <lower,nope:v>", map[string]string{"v": "x"})
	e, ok := err.(*Error)
	if !ok || e.Line != 2 || e.Col != 12 || e.Category != CatUnknownModifier {
		t.Fatalf("error %#v", err)
	}
	if !strings.Contains(e.Error(), "2:12") {
		t.Errorf("message %q", e.Error())
	}
}

func TestConfErrors(t *testing.T) {
	entries, errs := ParseConfEntries("a: 1\n\nb:\nc: x: y\nd:   e  \n")
	if len(errs) != 2 || errs[0].Line != 2 || errs[1].Line != 3 {
		t.Fatalf("errs %v", errs)
	}
	if len(entries) != 3 || entries[1].Value != "x: y" || entries[2].Value != "  e" {
		t.Fatalf("entries %+v", entries)
	}
	if _, err := ParseConf("a: 1\r\nb: 2"); err != nil {
		t.Fatal(err)
	}
}

func TestParseTaskOptions(t *testing.T) {
	toks, err := ParseTask("a-x sr\nb-y-z s extra\nc\trc d\n")
	if err != nil {
		t.Fatal(err)
	}
	if !toks[0].KeepSetup || !toks[0].KeepReset || toks[1].Template != "b" || toks[1].Step != "y-z" || !toks[1].KeepSetup ||
		toks[1].KeepReset || !toks[2].KeepCommands || toks[2].Conf != "c" {
		t.Fatalf("%+v", toks)
	}
	if _, err := ParseTask("a\n\nb\n"); CategoryOf(err) != CatBadTaskLine {
		t.Fatalf("blank line: %v", err)
	}
}

func TestPythonStringSemantics(t *testing.T) {
	cases := [][2]string{
		{pyUpper("ß straße ﬁ ŉ"), "SS STRASSE FI ʼN"},
		{pyLower("İ ΣΑΣ Σ AΣ."), "i̇ σας σ aς."},
		{pyLower("ǅ"), "ǆ"},
		{pyUpper("ǅ"), "Ǆ"},
		{pyRepr("it's"), `"it's"`},
		{pyRepr(`a'b"c`), `'a\'b"c'`},
		{pyRepr("\x00\u0085\u00a0é\U000E0001"), `'\x00\x85\xa0é\U000e0001'`},
		{formatFloat32(1e-5), "1e-05"},
		{formatFloat32(1e6), "1000000.0"},
		{formatFloat32(0.2439), "0.2439"},
		{formatFloat32(1.5e16), "1.5e+16"},
		{modSentenceToWords("a\x1cb\u00a0c  d"), "a,b,c,d"},
	}
	for i, c := range cases {
		if c[0] != c[1] {
			t.Errorf("case %d: got %q want %q", i, c[0], c[1])
		}
	}
}

// randomTemplate builds a template with random slots and plain text.
func randomTemplate(rng *rand.Rand) (string, []string) {
	idents := []string{"a", "b", "名", "_9", "x1"}
	mods := append(ModifierNames(), "no_quote")
	var b strings.Builder
	var used []string
	for i := 0; i < 1+rng.Intn(8); i++ {
		switch rng.Intn(4) {
		case 0:
			b.WriteString([]string{"text ", "\n", "<not a slot>", "<:x>", "\"q\" ", "<<", ">"}[rng.Intn(7)])
		default:
			b.WriteByte('<')
			var ms []string
			for k := rng.Intn(3); k > 0; k-- {
				m := mods[rng.Intn(len(mods))]
				if m != "no_quote" && rng.Intn(3) == 0 {
					m += "'"
				}
				ms = append(ms, m)
			}
			if len(ms) > 0 {
				b.WriteString(strings.Join(ms, ",") + ":")
			}
			id := idents[rng.Intn(len(idents))]
			used = append(used, id)
			b.WriteString(id + ">")
		}
	}
	return b.String(), used
}

func TestPropertyInitConfNamesIdentifiers(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 2000; i++ {
		tmpl, used := randomTemplate(rng)
		conf, err := ParseConf(InitConf(tmpl))
		if err != nil {
			t.Fatalf("%q: blank conf does not parse: %v", tmpl, err)
		}
		want := map[string]bool{}
		for _, id := range used {
			want[id] = true
		}
		for _, s := range func() []Slot { s, _ := ParseSlots(tmpl); return s }() {
			want[s.Identifier] = true
		}
		if len(conf) != len(want) || strings.Count(InitConf(tmpl), "\n") != len(want) {
			t.Fatalf("%q: init conf %v, identifiers %v", tmpl, conf, want)
		}
		for id := range want {
			if conf[id] != InitConfValue {
				t.Fatalf("%q: %s missing", tmpl, id)
			}
		}
	}
}

func TestPropertyNoSlotLeft(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	values := []string{"x", "How to Bake", "a,b, c", "it's \"q\"", "ß İ", "1+1=2?", "back\\slash", "", "日本 語"}
	for i := 0; i < 3000; i++ {
		tmpl, _ := randomTemplate(rng)
		conf := map[string]string{}
		for _, id := range []string{"a", "b", "名", "_9"} { // x1 left missing: expands to ""
			conf[id] = values[rng.Intn(len(values))]
		}
		out, err := Render(tmpl, conf)
		if err != nil {
			continue // only invalid modifier names fail, and they never come from ModifierNames
		}
		if slots, _ := ParseSlots(out); len(slots) > 0 {
			// a slot in the output must come from template text that was not a slot
			src, _ := ParseSlots(tmpl)
			if len(src) > 0 && strings.Count(out, "<") >= strings.Count(tmpl, "<") {
				t.Fatalf("template %q conf %v: output %q still has slot %s", tmpl, conf, out, slots[0].String())
			}
		}
	}
}

func TestInstantiateFSAndWarnings(t *testing.T) {
	fsys := fstest.MapFS{
		"tasks/t.task":     {Data: []byte("s-one\ns-two s\n")},
		"tasks/s-one.conf": {Data: []byte("n: one\n")},
		"tasks/s-two.conf": {Data: []byte("n: two\nextra: unused\n")},
		"tpl/s.textproto.template": {Data: []byte(
			"id: \"s_<n>\"\nname: \"S - <upper:n> <lower: n>\"\n" +
				"setup_steps: { sleep: { time_sec: 1 } }\n" +
				"event_sources: { log_event: { filters: \"x:D\" pattern: \"<n><missing>\" } id: 1 }\n" +
				"event_slots: { episode_end_listener: { events: { id: 1 } } }\ncommand: \"Go <n>\"\n")},
	}
	res, err := Expand(FSReader(fsys), "tasks/t.task", "tpl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, `id: "s_one-s_two"`) || !strings.Contains(res.Text, `command: "Then, go two"`) ||
		strings.Count(res.Text, "setup_steps") != 2 {
		t.Errorf("text:\n%s", res.Text)
	}
	var cats []string
	for _, w := range res.Warnings {
		cats = append(cats, string(w.Category))
	}
	if strings.Count(strings.Join(cats, ","), string(CatBadSlot)) != 2 || strings.Count(strings.Join(cats, ","), string(CatMissingIdentifier)) != 2 {
		t.Errorf("warnings %v", res.Warnings)
	}
	if len(res.Tokens) != 2 || res.Tokens[1].Expanded == "" {
		t.Errorf("tokens %+v", res.Tokens)
	}
	// errors: missing conf, missing template, no event sources, no command, bad textproto
	fsys["tasks/bad.task"] = &fstest.MapFile{Data: []byte("s-one\ns-three\n")}
	if _, err := InstantiateFS(fsys, "tasks/bad.task", "tpl", Options{}); CategoryOf(err) != CatMissingFile {
		t.Errorf("missing conf: %v", err)
	}
	fsys["tasks/x-one.conf"] = &fstest.MapFile{Data: []byte("n: 1\n")}
	fsys["tasks/bad2.task"] = &fstest.MapFile{Data: []byte("x-one\n")}
	if _, err := InstantiateFS(fsys, "tasks/bad2.task", "tpl", Options{}); CategoryOf(err) != CatMissingFile {
		t.Errorf("missing template: %v", err)
	}
	fsys["tpl/x.textproto.template"] = &fstest.MapFile{Data: []byte("id: \"<n>\"\n")}
	if _, err := InstantiateFS(fsys, "tasks/bad2.task", "tpl", Options{}); CategoryOf(err) != CatMissingEventSources {
		t.Errorf("no event sources: %v", err)
	}
	fsys["tpl/x.textproto.template"] = &fstest.MapFile{Data: []byte("id: \"<n>\" event_sources: { id: 1 }\n")}
	fsys["tasks/bad3.task"] = &fstest.MapFile{Data: []byte("s-one\nx-one\n")}
	if _, err := InstantiateFS(fsys, "tasks/bad3.task", "tpl", Options{}); CategoryOf(err) != CatMissingCommand {
		t.Errorf("no command: %v", err)
	}
	if _, err := InstantiateFS(fsys, "tasks/bad3.task", "tpl", Options{NoAutocatCommands: true}); err != nil {
		t.Errorf("no command without autocat: %v", err)
	}
	fsys["tpl/x.textproto.template"] = &fstest.MapFile{Data: []byte("id: <n>\n")}
	if _, err := InstantiateFS(fsys, "tasks/bad2.task", "tpl", Options{}); CategoryOf(err) != CatUnparsableTextproto {
		t.Errorf("unparsable: %v", err)
	}
}

func TestParseCommandLine(t *testing.T) {
	a, err := ParseCommandLine([]string{"--task=x.task", "-ptpl", "--out", "o.textproto", "--no-auto"})
	if err != nil || a.Task != "x.task" || a.TemplatePath != "tpl" || a.Output != "o.textproto" || !a.NoAutocatCommands {
		t.Fatalf("%+v %v", a, err)
	}
	a, err = ParseCommandLine([]string{"--task", "x.task"})
	if err != nil || a.TemplatePath != "templates" || a.Output != "" {
		t.Fatalf("%+v %v", a, err)
	}
	if _, err := ParseCommandLine([]string{"-p", "t"}); CategoryOf(err) != CatUsage {
		t.Fatalf("missing --task: %v", err)
	}
}

// TestExpansionLinearInSlots counts the characters counted for line:column positions while a
// one-line template of n slots is expanded (slots, warnings for missing identifiers, render,
// parse): it must grow like n, not n². Before, every position counted from the line's start
// (100k slots: 23.6 s, 200k: 95 s).
func TestExpansionLinearInSlots(t *testing.T) {
	work := func(n int) (int64, int) {
		var b strings.Builder
		b.WriteString("id: \"x\"\nname: \"n\"\ndescription: \"")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "<upper,lower,upper:v%d>é ", i) // distinct identifiers: a warning each
		}
		b.WriteString("\"\nevent_sources: { log_event: { filters: \"a:D\" pattern: \"x\" } id: 1 }\n" +
			"event_slots: { reward_listener: { events: { id: 1 } transformation: \"y = 1\" } }\ncommand: \"c\"\n")
		fsys := fstest.MapFS{"t.task": {Data: []byte("c-x\n")}, "c-x.conf": {Data: []byte("v0: a\n")},
			"tpl/c.textproto.template": {Data: []byte(b.String())}}
		before := positionWork.Load()
		res, err := Expand(FSReader(fsys), "t.task", "tpl", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Warnings) != n-1 {
			t.Fatalf("%d warnings, want %d", len(res.Warnings), n-1)
		}
		return positionWork.Load() - before, b.Len()
	}
	w1, size1 := work(20000)
	w2, size2 := work(40000)
	t.Logf("20k slots (%d bytes): %d characters counted; 40k slots (%d bytes): %d", size1, w1, size2, w2)
	if w2 > 16*int64(size2) || float64(w2)/float64(w1) > 2.5 {
		t.Fatalf("position work is not linear: %d for %d bytes, %d for %d", w1, size1, w2, size2)
	}
}

// TestConfNameWithoutDash: a token whose conf file name has no "-" fails as in the original
// (after its conf is read), with a message naming the conf file.
func TestConfNameWithoutDash(t *testing.T) {
	tpl := "id: \"x\"\nname: \"n\"\ndescription: \"d\"\nevent_sources: { log_event: { filters: \"a:D\" pattern: \"x\" } id: 1 }\ncommand: \"c\"\n"
	fsys := fstest.MapFS{"t.task": {Data: []byte("ok-one\nplain\n")}, "ok-one.conf": {Data: []byte("v: a\n")},
		"plain.conf": {Data: []byte("v: a\n")}, "tpl/ok.textproto.template": {Data: []byte(tpl)},
		"tpl/plain.textproto.template": {Data: []byte(tpl)}}
	_, err := Expand(FSReader(fsys), "t.task", "tpl", Options{})
	var e *Error
	if !errors.As(err, &e) || e.Category != CatBadConfName || e.File != "plain.conf" ||
		e.Python != "ValueError: not enough values to unpack (expected 2, got 1)" || !strings.Contains(err.Error(), "line 2 of t.task") {
		t.Fatalf("error %v (%+v)", err, e)
	}
	if !slices.Contains(PythonErrorCategories(e.Python), CategoryOf(err)) {
		t.Fatalf("category %q does not match the original's line", CategoryOf(err))
	}
	// a missing conf is reported before the name (the original opens it first)
	delete(fsys, "plain.conf")
	if _, err := Expand(FSReader(fsys), "t.task", "tpl", Options{}); CategoryOf(err) == CatBadConfName {
		t.Fatalf("missing conf: %v", err)
	}
}
