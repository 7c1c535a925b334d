package evaluation

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A descriptions module in the original's shape (a switch on the task title returning JSX,
// helpers imported from files next to it), written for these tests.
const switchModule = `
import React from "react";
import { answeringHelp } from "./descriptions/answering_help.jsx";
import { moodIntro as intro } from './descriptions/mood'; // no extension, renamed

export function getTaskDescription(task_title, speakerLabel='', otherLabel='') {
    switch(task_title) {
        case "answering":
            return (
                <div className="task-description">
                    <b><h4>Answering Questions</h4></b>
                    <br/>
                    Decide whether {speakerLabel} answers what {otherLabel} asked.<br/><br/>
                    Definitions:<br/>
                    <table>
                        <tbody>
                            <tr>
                                <td style={{padding: '15px'}}><b>Direct</b></td>
                                <td>The reply answers the question &amp; nothing else.</td>
                            </tr>
                        </tbody>
                    </table>
                    {/* a comment in JSX */}
                    Click the help icon <i className="fa fa-question-circle" style={{color: "red"}}/> for examples.
                    {answeringHelp()}
                </div>
            )
        case "mood":
        case "mood_turn":
            return (
                <div>
                    {intro()}
                    <ul>
                        <li>happy</li>
                        <li >sad</li>
                    </ul>
                    {speakerLabel === 'your partner' ? collectionNote() : ''}
                    {speakerLabel !== 'your partner' && <p>You are rating {speakerLabel}'s replies.</p>}
                </div>
            )
        case "facts":
            return "Mark every reply that states a fact. " + 'Check it ' + ~ if ${speakerLabel} sounds unsure.~;
        case "broken":
            return (<div>{undefinedHelper()}</div>)
        default:
            break;
    }
    return (<div>Dummy Task Description.</div>)
}

function collectionNote() {
    return (<p>Rate the partner you just chatted with.</p>)
}
`

const answeringHelpModule = `import React from "react";
import { collapsibleClick } from "./collapsibleClick.jsx";

function answeringHelp() {
return (
<div>
<button id="Does SPEAKER_X answer what SPEAKER_Y asked?" className="collapsible" onClick={(evt) => collapsibleClick(evt)} >
  Does Alex answer what Sam asked?
</button>
<div className="content" >
  <code >
    <span className="sam-response" >Sam: Where do you live?</span>
    <span className="alex-response" >Alex: I like pizza.</span>
  </code>
  <span >
    <b>No.</b> Alex's reply ignores the question.
  </span>
</div>
</div>
)
}
export { answeringHelp };
`

const moodModule = "export const moodIntro = () => <p>Judge the&nbsp;mood of each reply.</p>;\n"

// writeModules writes the test's descriptions module and its helpers under dir.
func writeModules(t *testing.T, dir string) string {
	t.Helper()
	files := map[string]string{
		"task_descriptions.jsx":              strings.ReplaceAll(switchModule, "~", "`"),
		"descriptions/answering_help.jsx":    answeringHelpModule,
		"descriptions/mood.js":               moodModule,
		"descriptions/collapsibleClick.jsx":  "export function collapsibleClick(evt) { document.querySelectorAll('.x'); }\n",
		"descriptions/never_read_unused.jsx": "this is not { JavaScript",
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "task_descriptions.jsx")
}

func TestReadTaskDescriptionsSwitchModule(t *testing.T) {
	path := writeModules(t, t.TempDir())
	d, err := ReadTaskDescriptions(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(d.Order, ","); got != "answering,mood,mood_turn,facts" {
		t.Fatalf("entries %s (broken gives no text, default is not an entry)", got)
	}
	want := "Answering Questions\n\n" +
		"Decide whether Alex answers what Sam asked.\n\n" +
		"Definitions:\n" +
		"Direct — The reply answers the question & nothing else.\n" +
		"Click the help icon (?) for examples.\n" +
		"Does Alex answer what Sam asked?\n" +
		"Sam: Where do you live?\n" +
		"Alex: I like pizza.\n" +
		"No. Alex's reply ignores the question."
	if got := d.Texts["answering"]; got != want {
		t.Errorf("answering:\n%s\n--- want\n%s", got, want)
	}
	if got := d.Texts["mood"]; got != "Judge the mood of each reply.\n• happy\n• sad\nYou are rating Alex's replies." || d.Texts["mood_turn"] != got {
		t.Errorf("mood:\n%q", got)
	}
	if got := d.Texts["facts"]; got != "Mark every reply that states a fact. Check it  if Alex sounds unsure." &&
		got != "Mark every reply that states a fact. Check it if Alex sounds unsure." {
		t.Errorf("facts: %q", got)
	}
	if got := d.Help["Does SPEAKER_X answer what SPEAKER_Y asked?"]; got != "Sam: Where do you live?\nAlex: I like pizza.\nNo. Alex's reply ignores the question." {
		t.Errorf("help section %q", got)
	}
	if len(d.Files) != 3 || !strings.Contains(strings.Join(d.Notes, "\n"), "undefinedHelper() is not defined") {
		t.Errorf("files %v notes %v", d.Files, d.Notes)
	}
	// collection: the other speaker names, and the branch for them
	c, err := ReadTaskDescriptions(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Texts["mood"]; got != "Judge the mood of each reply.\n• happy\n• sad\nRate the partner you just chatted with." {
		t.Errorf("collection mood: %q", got)
	}
	if !strings.Contains(c.Texts["answering"], "whether your partner answers what you asked") {
		t.Errorf("collection answering: %q", c.Texts["answering"])
	}
}

func TestParseTaskDescriptionsObjectModule(t *testing.T) {
	src := "// descriptions keyed by type name\n" +
		"const speaker = 'the bot';\n" +
		"const descriptions = {\n" +
		"  likert: 'Rate ' + speaker + ' from 1 to 5.',\n" +
		"  \"turn_flags\": `Tick every flag that applies.\n" +
		"Several may apply to one turn.`,\n" +
		"  compare: () => (\n    <div><h4>Compare</h4>Pick the better dialogue.<br/>Ties are a last resort.</div>\n  ),\n" +
		"  method() { return <p>From a method.</p>; },\n" +
		"  weird: fetch('http://example.invalid').then(x => x),\n" +
		"};\n" +
		"export default descriptions;\n"
	d, err := ParseTaskDescriptions(src, "descriptions.js", false)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"likert":     "Rate the bot from 1 to 5.",
		"turn_flags": "Tick every flag that applies.\nSeveral may apply to one turn.",
		"compare":    "Compare\nPick the better dialogue.\nTies are a last resort.",
		"method":     "From a method.",
	}
	for k, v := range want {
		if d.Texts[k] != v {
			t.Errorf("%s: %q, want %q", k, d.Texts[k], v)
		}
	}
	if _, ok := d.Texts["weird"]; ok || len(d.Notes) == 0 {
		t.Errorf("a call the reader does not follow is left out with a note: %q %v", d.Texts["weird"], d.Notes)
	}
	// module.exports and export default {…} directly
	d, err = ParseTaskDescriptions("module.exports = { a: \"A\", b: <span>B &lt;b&gt;</span> }", "m.js", false)
	if err != nil || d.Texts["a"] != "A" || d.Texts["b"] != "B <b>" {
		t.Fatalf("module.exports: %v %v", d.Texts, err)
	}
}

func TestParseTaskDescriptionsErrorsSayWhere(t *testing.T) {
	for src, want := range map[string]string{
		"const a = 'open\n":                           "line 1: line break in a string",
		"case \"x\": return (<div>\n<b>text</div>":    "not closed",
		"case \"x\": return (\n\n<div a=>x</div>)":    "line 3",
		"/* never closed":                             "unterminated comment",
		"case \"x\": return `${'a'`":                  "",
		"case \"x\": return (<div>{'a'}</div>) }}}}}": "",
	} {
		_, err := ParseTaskDescriptions(src, "x.jsx", false)
		if want == "" {
			continue // no panic is all that is asked
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
}

func TestImportReadsTaskDescriptions(t *testing.T) {
	dir := copyExample(t)
	comp := filepath.Join(dir, "frontend", "components")
	os.MkdirAll(comp, 0o755)
	writeModules(t, comp)
	p, rep, err := ImportOriginal(dir, ImportOptions{Config: "flags"})
	if err != nil {
		t.Fatal(err)
	}
	file := "frontend/components/task_descriptions.jsx"
	if !strings.HasPrefix(p.Type("answering").Description, "Answering Questions\n\nDecide whether Alex answers") ||
		!strings.HasPrefix(p.Type("mood").Description, "Judge the mood") {
		t.Fatalf("descriptions %q / %q", p.Type("answering").Description, p.Type("mood").Description)
	}
	if h := p.Type("answering").Flow[0].Help; !strings.Contains(h, "Alex: I like pizza.") {
		t.Errorf("help of the flow question %q", h)
	}
	for sev, text := range map[Severity]string{
		Understood: "participant instructions of 3 types (answering, facts, mood)",
		Ignored:    "entries for types the project does not have: mood_turn",
		Warning:    "undefinedHelper() is not defined",
	} {
		if !hasItem(rep, sev, file, text) {
			t.Errorf("report lacks %s %q:\n%s", sev, text, rep)
		}
	}
	if !hasItem(rep, Understood, file, "followed the imports of 2 helper files") ||
		hasItem(rep, Ignored, "frontend/components/descriptions/answering_help.jsx", "") ||
		!hasItem(rep, Ignored, "frontend/components/descriptions/never_read_unused.jsx", "the original's code") {
		t.Errorf("helper files accounted for wrongly:\n%s", rep)
	}
	// the project file keeps them
	data, _ := MarshalProject(p)
	q, err := UnmarshalProject(data, "p.toml")
	if err != nil || q.Type("mood").Description != p.Type("mood").Description || q.Type("answering").Flow[0].Help == "" {
		t.Fatalf("round trip: %v", err)
	}

	// a path given: read from there, and an explicit file that is not there fails the import
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "mine.jsx"), []byte(`export default { flags: "Tick rude " + "and off-topic replies." }`), 0o644)
	p, rep, err = ImportOriginal(dir, ImportOptions{Config: "flags", Descriptions: filepath.Join(other, "mine.jsx")})
	if err != nil {
		t.Fatal(err)
	}
	if p.Type("flags").Description != "Tick rude and off-topic replies." || p.Type("answering").Description != "" {
		t.Fatalf("given file: %q %q", p.Type("flags").Description, p.Type("answering").Description)
	}
	if _, _, err := ImportOriginal(dir, ImportOptions{Config: "flags", Descriptions: filepath.Join(other, "none.jsx")}); err == nil {
		t.Fatal("a descriptions file that is not there")
	}
	// one found next to the configuration, and a broken one found in the folder is a warning
	os.RemoveAll(filepath.Join(dir, "frontend"))
	os.WriteFile(filepath.Join(dir, "hydra_configs", "conf", "task_descriptions.jsx"), []byte("case 'x': return (<div>"), 0o644)
	_, rep, err = ImportOriginal(dir, ImportOptions{Config: "flags"})
	if err != nil || !hasItem(rep, Warning, "hydra_configs/conf/task_descriptions.jsx", "not read") {
		t.Fatalf("%v\n%s", err, rep)
	}
}

func TestApplyTaskDescriptionsKeepsOwnDescriptions(t *testing.T) {
	ty := []*AnnotationType{{Name: "a", Title: "a", Description: "own"}, {Name: "b", Title: "B title"}}
	d := &TaskDescriptions{Texts: map[string]string{"a": "from jsx", "B title": "by title", "c": "x"}, Order: []string{"a", "B title", "c"}}
	used, kept, unused := ApplyTaskDescriptions(ty, d, false)
	if ty[0].Description != "own" || ty[1].Description != "by title" || len(used) != 1 || kept[0] != "a" || unused[0] != "c" {
		t.Fatalf("%+v %+v %v %v %v", ty[0], ty[1], used, kept, unused)
	}
	ApplyTaskDescriptions(ty, d, true)
	if ty[0].Description != "from jsx" {
		t.Fatal("replace")
	}
}

// Whatever a descriptions file holds, reading it never panics, never runs long, and either
// fails with a line or gives texts.
func FuzzParseTaskDescriptions(f *testing.F) {
	f.Add(strings.ReplaceAll(switchModule, "~", "`"))
	f.Add(answeringHelpModule)
	f.Add("export default { a: `x ${'y' + `z ${1}`}`, b: [<i/>, 'c'], c: d ? <p>e</p> : f && g }")
	f.Add("const a = b + b; const b = c + c; const c = d + d; const d = 'x'; export default { a }")
	f.Add("case 'x': return (<div>{/* c */}<a href=\"u\" {...rest}>l</a>&#39;&amp;</div>)")
	f.Fuzz(func(t *testing.T, src string) {
		d, err := ParseTaskDescriptions(src, "f.jsx", false)
		if err != nil {
			if !strings.Contains(err.Error(), "line ") {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		for _, k := range d.Order {
			if _, ok := d.Texts[k]; !ok {
				t.Fatalf("entry %q without text", k)
			}
		}
	})
}

// Constants that refer to each other twice over are followed within a bound.
func TestParseTaskDescriptionsBoundsTheWork(t *testing.T) {
	var b strings.Builder
	b.WriteString("const c0 = 'x';\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "const c%d = c%d + c%d;\n", i, i-1, i-1)
	}
	b.WriteString("export default { big: c40, small: 'ok' };\n")
	d, err := ParseTaskDescriptions(b.String(), "big.js", false)
	if err != nil {
		t.Fatal(err)
	}
	if d.Texts["small"] != "ok" || !strings.Contains(strings.Join(d.Notes, " "), "too much to follow") {
		t.Fatalf("notes %v, small %q", d.Notes, d.Texts["small"])
	}
}
