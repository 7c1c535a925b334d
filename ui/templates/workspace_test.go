package templates

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/samples"
	tpl "github.com/agentdesk/agentdesk/engine/template"
	"github.com/agentdesk/agentdesk/store"
	"github.com/agentdesk/agentdesk/ui/uitest"
	"github.com/agentdesk/agentdesk/ui/widgets"
)

// openTemplateExamples shows the Templates workspace with a real store and opens a copy of
// the bundled examples; the preview runs synchronously.
func openTemplateExamples(t testing.TB) (*uitest.Host, fyne.Window, *Workspace, *store.Store, string) {
	t.Helper()
	test.NewTempApp(t)
	st := uitest.SeededStore(t)
	h := uitest.NewHost(t, 1280, 800)
	ws := New(h, st)
	ws.logf = t.Logf
	h.Put(ws)
	ws.debounce = uitest.SyncRun
	dir := t.TempDir()
	if err := ws.startFromExamples(dir); err != nil {
		t.Fatal(err)
	}
	return h, h.Win, ws, st, dir
}

func (w *Workspace) file(t testing.TB, rel string) *tplFile {
	t.Helper()
	f := w.byRel[rel]
	if f == nil {
		t.Fatalf("no file %s in the workspace", rel)
	}
	return f
}

func TestTemplatesOpenExamplesShowsSlotsAndHighlighting(t *testing.T) {
	_, w, ws, _, dir := openTemplateExamples(t)
	got := uitest.Texts(w.Content())
	for _, want := range []string{"3 templates, 4 token configs, 3 task files", "Copied 10 files", "Preview"} {
		if !strings.Contains(got, want) {
			t.Errorf("screen lacks %q:\n%s", want, got)
		}
	}
	if ed := ws.ed; ed == nil || ed.sideTabs.Items[0].Text != "Slots" || !strings.HasPrefix(ed.sideTabs.Items[1].Text, "Problems") {
		t.Error("no Slots and Problems tabs under the editor")
	}
	if ws.dir != dir || ws.templatesDir != "templates" || ws.tasksDir != "tasks" {
		t.Fatalf("layout dir=%s templates=%s tasks=%s", ws.dir, ws.templatesDir, ws.tasksDir)
	}
	ed := ws.ed
	if ed == nil || ed.file.rel != "templates/cart.textproto.template" {
		t.Fatalf("editor shows %v", ws.cur)
	}
	if ed.entry.Text != ed.file.saved || !ed.entry.TextStyle.Monospace {
		t.Fatal("editor entry does not hold the template in monospace")
	}
	// The side list: every slot with identifier, modifiers and line:col.
	if len(ed.slots) != 10 {
		t.Fatalf("%d slots", len(ed.slots))
	}
	if got := slotLine(ed.slots[0]); got != "2:11  product  ·  lower, url_title" {
		t.Fatalf("first slot %q", got)
	}
	if got := slotLine(ed.slots[len(ed.slots)-1]); got != "18:13  product_words  ·  no_quote, to_list, lower'" {
		t.Fatalf("last slot %q", got)
	}
	if ed.slotList.Length() != 10 || !strings.Contains(ed.summary.Text, "10 slots, 4 identifiers") {
		t.Fatalf("slot list %d, summary %q", ed.slotList.Length(), ed.summary.Text)
	}
	// Highlighting: identifier and modifiers are distinct segments.
	text := ed.file.buf
	var idents, mods []string
	for _, sp := range ed.spans {
		switch sp.Kind {
		case hlIdent:
			idents = append(idents, text[sp.Start:sp.End])
		case hlModifier:
			mods = append(mods, text[sp.Start:sp.End])
		}
	}
	if idents[0] != "product" || mods[0] != "lower" || mods[1] != "url_title" {
		t.Fatalf("first slot segments: idents %v mods %v", idents, mods)
	}
	if last := mods[len(mods)-1]; last != "lower'" {
		t.Fatalf("each-modifier segment %q", last)
	}
	// The editor colours them: row 2 is `id: "cart_<lower,url_title:product>"`.
	if got := ed.code.under.lines()[1]; got != `id: "cart_<lower,url_title:product>"` {
		t.Fatalf("editor row 2 %q", got)
	}
	color := func(col int) fyne.ThemeColorName { return ed.code.under.colorAt(1, col) }
	if color(0) != "" || color(11) != theme.ColorNameSuccess || color(28) != theme.ColorNamePrimary ||
		color(10) != theme.ColorNamePlaceHolder {
		t.Fatalf("editor colours: plain %v, modifier %v, identifier %v, bracket %v", color(0), color(11), color(28), color(10))
	}
	// The text is shown once: the editable entry, its line numbers beside it.
	if ed.code.gutter.n != len(strings.Split(ed.entry.Text, "\n")) {
		t.Fatalf("gutter numbers %d lines", ed.code.gutter.n)
	}
	if len(ed.diags) != 0 {
		t.Fatalf("diagnostics on an example: %v", ed.diags)
	}
}

func TestTemplatesTypingUpdatesPreviewAndShowsErrors(t *testing.T) {
	_, w, ws, _, _ := openTemplateExamples(t)
	if ws.pv.task.Selected != "tasks/buy_headphones.task" {
		t.Fatalf("preview task %q", ws.pv.task.Selected)
	}
	before := ws.pv.last.text
	if !strings.Contains(before, `"Type the query into the Shop app\'s search box and submit it.\nAdd 2 × Over-Ear`) ||
		ws.pv.last.err != nil || len(ws.pv.text.rows) < 50 {
		t.Fatalf("first preview (%v):\n%s", ws.pv.last.err, before)
	}
	ed := ws.ed
	// Type at line 4, column 15 (just after `description: "`).
	ed.entry.CursorRow, ed.entry.CursorColumn = 3, 14
	test.Type(ed.entry, "ZZ ")
	if !strings.HasPrefix(strings.Split(ed.file.buf, "\n")[3], `description: "ZZ Add`) {
		t.Fatalf("typed into the wrong place: %q", strings.Split(ed.file.buf, "\n")[3])
	}
	if !strings.Contains(ws.pv.last.text, `\nZZ Add 2 × Over-Ear`) {
		t.Fatalf("preview did not follow the keystrokes:\n%s", ws.pv.last.text)
	}
	if !ed.file.dirty() || ws.fileLabel(ed.file) != "● cart" {
		t.Fatal("edited template not marked unsaved")
	}
	// A bad slot: an unknown modifier on line 3 is listed at its line and column, the mirror
	// marks the line, and the preview reports file:line:col.
	ed.entry.CursorRow, ed.entry.CursorColumn = 2, 7
	test.Type(ed.entry, "<lowr:sku>")
	if len(ed.diags) != 1 {
		t.Fatalf("diagnostics %v", ed.diags)
	}
	if got := diagLine(ed.diags[0]); !strings.HasPrefix(got, "3:9: unknown modifier") {
		t.Fatalf("diagnostic %q", got)
	}
	// The editor marks line 3: a mark in the gutter, the line tinted, the slot underlined.
	if ed.code.gutter.marks[2] != theme.ColorNameError || len(ed.code.gutter.marks) != 1 ||
		ed.code.under.rows[2].tint != theme.ColorNameError || ed.code.under.rows[3].tint != "" {
		t.Fatalf("error line not marked: gutter %v", ed.code.gutter.marks)
	}
	underlined := false
	for _, sp := range ed.code.under.rows[2].spans {
		underlined = underlined || sp.underline && sp.start == 8
	}
	if !underlined {
		t.Fatalf("the bad slot is not underlined: %+v", ed.code.under.rows[2].spans)
	}
	if !strings.Contains(ws.pv.errLbl.Text, "templates/cart.textproto.template:3:9: unknown modifier") {
		t.Fatalf("preview error %q", ws.pv.errLbl.Text)
	}
	// the error line pushes the preview down instead of lying over it
	if el, body := ws.pv.errLbl, ws.pv.body; !el.Visible() || body.Position().Y < el.Position().Y+el.Size().Height {
		t.Fatalf("the preview (at %v) lies under the error line (at %v, %v)", body.Position(), el.Position(), el.Size())
	}
	if !strings.Contains(uitest.Texts(w.Content()), "1 error") {
		t.Fatal("summary does not count the error")
	}
	// Tapping the problem moves the cursor there.
	ed.entry.CursorRow, ed.entry.CursorColumn = 0, 0
	ed.diagList.Select(0)
	if ed.entry.CursorRow != 2 || ed.entry.CursorColumn != 8 {
		t.Fatalf("cursor at %d:%d after tapping the problem", ed.entry.CursorRow, ed.entry.CursorColumn)
	}
	// Fixing it clears the error and the preview comes back.
	ed.entry.SetText(strings.Replace(ed.entry.Text, "<lowr:sku>", "<lower:sku> ", 1))
	if len(ed.diags) != 0 || ws.pv.errLbl.Text != "" || !strings.Contains(ws.pv.last.text, ", Add Over-Ear Headphones") {
		t.Fatalf("after the fix: diags %v, error %q", ed.diags, ws.pv.errLbl.Text)
	}
}

func TestTemplatesConfigFormRendersModifierChains(t *testing.T) {
	_, _, ws, _, dir := openTemplateExamples(t)
	ws.selectFile(ws.file(t, "tasks/search-headphones.conf"))
	c := ws.form
	if c == nil {
		t.Fatal("no config form for a conf")
	}
	var idents []string
	for _, f := range c.fields {
		idents = append(idents, f.Ident)
	}
	tmpl := ws.file(t, "templates/search.textproto.template").buf
	if !reflect.DeepEqual(idents, tpl.Identifiers(tmpl)) {
		t.Fatalf("fields %v, identifiers %v", idents, tpl.Identifiers(tmpl))
	}
	rendered := func(id string) []string {
		var out []string
		for _, l := range c.rendered[id] {
			out = append(out, l.Text)
		}
		return out
	}
	if got := rendered("query"); got[0] != "<lower,url_title:query>  →  noise-cancelling-headphones-(over-ear)" ||
		got[2] != "<regex_esc,url_query:query>  →  noise\\+cancelling\\+headphones\\+%28over-ear%29" {
		t.Fatalf("query renders %q", got)
	}
	// keywords is a list (regex_list and to_list): one item per line.
	kw := c.entries["keywords"]
	if !kw.MultiLine || kw.Text != "noise\ncancelling\nheadphones" {
		t.Fatalf("keywords entry multi=%v %q", kw.MultiLine, kw.Text)
	}
	if c.entries["query"].MultiLine {
		t.Fatal("query edited as a list")
	}
	kw.SetText("a.b\nc'd")
	want := []string{`<regex_list,regex_esc':keywords>  →  (a\.b|c\'d)`, `<no_quote,to_list:keywords>  →  ["a.b","c'd"]`}
	if got := rendered("keywords"); !reflect.DeepEqual(got, want) {
		t.Fatalf("keywords render %q, want %q", got, want)
	}
	if !strings.Contains(ws.pv.last.text, `pattern: "\\b(a\\.b|c\'d)\\b"`) {
		t.Fatalf("preview does not follow the form (%v):\n%s", ws.pv.last.err, ws.pv.last.text)
	}
	c.entries["app"].SetText("")
	if !strings.Contains(c.notes["app"].Text, "rejects") {
		t.Fatalf("empty value note %q", c.notes["app"].Text)
	}
	c.entries["app"].SetText("the Shop: app")
	// Saving writes the original format; the engine reads back exactly the form's values.
	if err := ws.saveFile(c.file); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "tasks", "search-headphones.conf"))
	if err != nil {
		t.Fatal(err)
	}
	back, err := tpl.ParseConf(string(data))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, c.values) || back["keywords"] != "a.b,c'd" || back["app"] != "the Shop: app" {
		t.Fatalf("saved conf reads back %v, form has %v", back, c.values)
	}
	if c.file.dirty() {
		t.Fatal("saved conf still marked unsaved")
	}
}

func TestTemplatesNewConfFromTemplate(t *testing.T) {
	_, _, ws, _, dir := openTemplateExamples(t)
	f, err := ws.newConf("settings_toggle", "nfc")
	if err != nil {
		t.Fatal(err)
	}
	if f.rel != "tasks/settings_toggle-nfc.conf" || ws.form == nil || ws.form.file != f {
		t.Fatalf("new conf %s", f.rel)
	}
	want := tpl.InitConf(ws.file(t, "templates/settings_toggle.textproto.template").buf)
	if f.buf != want || !f.dirty() {
		t.Fatalf("new conf text %q", f.buf)
	}
	if err := ws.saveFile(f); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "tasks", "settings_toggle-nfc.conf")); string(data) != want {
		t.Fatalf("saved %q", data)
	}
	if _, err := ws.newConf("settings_toggle", "bad name"); err == nil {
		t.Fatal("a step name with a blank accepted")
	}
}

func TestTemplatesComposerReordersAndFlagsRoundTrip(t *testing.T) {
	_, _, ws, _, dir := openTemplateExamples(t)
	ws.selectFile(ws.file(t, "tasks/buy_headphones.task"))
	c := ws.comp
	if c == nil || ws.pv.task.Selected != "tasks/buy_headphones.task" {
		t.Fatal("composer or preview not on the task")
	}
	if !reflect.DeepEqual(c.toks, []composerToken{{Conf: "search-headphones"}, {Conf: "cart-headphones", Setup: true, Reset: true}}) {
		t.Fatalf("tokens %+v", c.toks)
	}
	var checks []*widget.Check
	var buttons []fyne.Tappable
	collect := func() {
		checks, buttons = nil, nil
		uitest.Walk(c.rows, func(o fyne.CanvasObject) {
			switch v := o.(type) {
			case *widget.Check:
				checks = append(checks, v)
			case *widget.Button, *widgets.TipButton:
				buttons = append(buttons, v.(fyne.Tappable))
			}
		})
	}
	collect()
	if len(checks) != 4 || !checks[0].Disabled() || !checks[0].Checked || !checks[2].Checked {
		t.Fatalf("%d check boxes; first row must be ticked and fixed", len(checks))
	}
	test.Tap(checks[3]) // untick r of the second token
	if c.file.buf != "search-headphones\ncart-headphones s\n" {
		t.Fatalf("after unticking r: %q", c.file.buf)
	}
	collect()
	test.Tap(buttons[3]) // second row: up
	if c.file.buf != "cart-headphones s\nsearch-headphones\n" {
		t.Fatalf("after moving up: %q", c.file.buf)
	}
	collect()
	test.Tap(checks[3]) // tick r of search-headphones, now second
	c.add.SetSelected("settings_toggle-wifi")
	uitest.Walk(c.root, func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && b.Text == "Add token" {
			test.Tap(b)
		}
	})
	c.setFlags(2, true, false)
	want := "cart-headphones s\nsearch-headphones r\nsettings_toggle-wifi s\n"
	if c.file.buf != want {
		t.Fatalf("composed %q, want %q", c.file.buf, want)
	}
	if ws.pv.last.err != nil || !strings.Contains(ws.pv.last.text, "settings_toggle_wi-fi") {
		t.Fatalf("preview of the composed task: %v", ws.pv.last.err)
	}
	if err := ws.saveFile(c.file); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "tasks", "buy_headphones.task"))
	toks, err := tpl.ParseTask(string(data))
	if err != nil {
		t.Fatal(err)
	}
	type flags struct {
		conf, opts string
		s, r       bool
	}
	var got []flags
	for _, tk := range toks {
		got = append(got, flags{tk.Conf, tk.Options, tk.KeepSetup, tk.KeepReset})
	}
	if !reflect.DeepEqual(got, []flags{{"cart-headphones", "s", true, true}, {"search-headphones", "r", false, true}, {"settings_toggle-wifi", "s", true, false}}) {
		t.Fatalf("engine reads the saved task as %+v", got)
	}
	if back, _ := parseComposerTokens(string(data)); !reflect.DeepEqual(back, c.toks) {
		t.Fatalf("composer reads back %+v, had %+v", back, c.toks)
	}
	// Remove the last token.
	collect()
	test.Tap(buttons[len(buttons)-1])
	if c.file.buf != "cart-headphones s\nsearch-headphones r\n" {
		t.Fatalf("after remove %q", c.file.buf)
	}
}

func TestTemplatesPreviewDiffAgainstSavedOutput(t *testing.T) {
	_, _, ws, _, dir := openTemplateExamples(t)
	p := ws.pv
	if p.output.Text != "tasks/buy_headphones.textproto" || !strings.Contains(p.status.Text, "not saved yet") {
		t.Fatalf("output %q, status %q", p.output.Text, p.status.Text)
	}
	if err := p.saveOutput(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "tasks", "buy_headphones.textproto")
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The saved output is what the engine (and the original's CLI) produces from the files.
	want, err := tpl.Instantiate(filepath.Join(dir, "tasks", "buy_headphones.task"), filepath.Join(dir, "templates"), tpl.Options{})
	if err != nil || string(data) != want {
		t.Fatalf("saved output differs from the engine's (%v)", err)
	}
	if !strings.Contains(p.status.Text, "the same as tasks/buy_headphones.textproto") {
		t.Fatalf("status after saving: %q", p.status.Text)
	}
	// Edit a conf: the diff shows the changed line removed and added.
	ws.selectFile(ws.file(t, "tasks/cart-headphones.conf"))
	ws.form.entries["sku"].SetText("HP-300")
	if p.last.added != 1 || p.last.removed != 1 || !strings.Contains(p.status.Text, "+1 −1") {
		t.Fatalf("diff +%d -%d, status %q", p.last.added, p.last.removed, p.status.Text)
	}
	rows := p.text.lines()
	var changed []string
	for i, r := range rows {
		if r[0] != ' ' {
			changed = append(changed, r)
			if p.text.rows[i].tint == "" {
				t.Errorf("changed row %q not coloured", r)
			}
		}
	}
	if !reflect.DeepEqual(changed, []string{`-     pattern: "cart add sku=HP-200\\.B qty=2"`, `+     pattern: "cart add sku=HP-300 qty=2"`}) {
		t.Fatalf("changed rows %q", changed)
	}
	// A missing conf is reported with its file.
	ws.selectFile(ws.file(t, "tasks/buy_headphones.task"))
	ws.comp.addToken("nothing-here")
	if !strings.Contains(p.errLbl.Text, "tasks/buy_headphones.task:3: token nothing-here") || !strings.Contains(p.errLbl.Text, "missing file") {
		t.Fatalf("missing conf error %q", p.errLbl.Text)
	}
}

func TestLineDiff(t *testing.T) {
	d := lineDiff("a\nb\nc\nd\n", "a\nx\nc\nd\ne\n")
	var b strings.Builder
	for _, l := range d {
		b.WriteString(string(l.Op) + l.Text + "|")
	}
	if got := b.String(); got != " a|-b|+x| c| d|+e|" {
		t.Fatalf("diff %s", got)
	}
	if d := lineDiff("", "x\n"); len(d) != 1 || d[0].Op != diffAdd {
		t.Fatalf("from nothing: %v", d)
	}
}

func TestTemplatesRecentFoldersPersistInTheStore(t *testing.T) {
	_, _, ws, st, dir := openTemplateExamples(t)
	ctx := context.Background()
	folders, err := st.TemplateFolders(ctx)
	if err != nil || len(folders) != 1 || folders[0].Path != dir {
		t.Fatalf("store folders %v, %v", folders, err)
	}
	o, _ := st.Overview(ctx)
	if o.Recent[0].Path != dir || o.Recent[0].Kind != templateFolderKind {
		t.Fatalf("recent %v", o.Recent)
	}
	if !reflect.DeepEqual(ws.recentSel.Options, []string{dir}) {
		t.Fatalf("recent choice %v", ws.recentSel.Options)
	}
	// Home counts the folder.
	if got := NewRegistration(nil).Summary(o); got != "1 template folder" {
		t.Fatalf("Home's line: %q", got)
	}
	// A new window (next start) offers the folder and reopens it from the list.
	h2 := uitest.NewHost(t, 1280, 800)
	ws2 := New(h2, st)
	h2.Put(ws2)
	w2 := h2.Win
	ws2.debounce = uitest.SyncRun
	var open *widget.Button
	uitest.Walk(w2.Content(), func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && b.Text == dir {
			open = b
		}
	})
	if open == nil {
		t.Fatalf("recent folder not offered:\n%s", uitest.Texts(w2.Content()))
	}
	test.Tap(open)
	if ws2.dir != dir || ws2.pv.last.text == "" {
		t.Fatal("recent folder did not open")
	}
}

func TestTemplatesKeepUnsavedBuffersOnReload(t *testing.T) {
	_, _, ws, _, _ := openTemplateExamples(t)
	ws.ed.entry.SetText("changed")
	if !strings.Contains(ws.UnsavedWork(), "templates/cart.textproto.template") {
		t.Fatalf("unsaved work: %q", ws.UnsavedWork())
	}
	// (a screen change keeps the workspace: the shell's TestWorkspacesKeepStateAcrossScreens)
	// Reload keeps it, and picks up a file the Python toolkit wrote meanwhile.
	if err := os.WriteFile(filepath.Join(ws.dir, "tasks", "extra-x.conf"), []byte("a: b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ws.reload(); err != nil {
		t.Fatal(err)
	}
	if ws.byRel["tasks/extra-x.conf"] == nil || ws.file(t, "templates/cart.textproto.template").buf != "changed" {
		t.Fatal("reload lost a buffer or missed a new file")
	}
}

// BenchmarkTemplatePreview measures one keystroke in the template editor up to the preview
// on screen (highlighting, slot list, instantiation of buy_headphones.task, diff, redraw),
// without the 50 ms debounce.
func BenchmarkTemplatePreview(b *testing.B) {
	_, _, ws, _, _ := openTemplateExamples(b)
	if err := ws.pv.saveOutput(); err != nil {
		b.Fatal(err)
	}
	ed := ws.ed
	base := ed.entry.Text
	i := 0
	for b.Loop() {
		i++
		ed.entry.SetText(strings.Replace(base, "Shopping Cart", "Shopping Cart"+strings.Repeat("x", i%3), 1))
	}
	if ws.pv.last.err != nil || ws.pv.last.text == "" {
		b.Fatal("no preview")
	}
}

func TestTemplatesComposerDragToReorder(t *testing.T) {
	_, _, ws, _, _ := openTemplateExamples(t)
	ws.selectFile(ws.file(t, "tasks/buy_headphones.task"))
	c := ws.comp
	for _, conf := range []string{"settings_toggle-wifi", "settings_toggle-bluetooth"} {
		c.addToken(conf)
	}
	order := func() []string {
		var out []string
		for _, tk := range c.toks {
			out = append(out, tk.Conf)
		}
		return out
	}
	handles := func() []*dragHandle {
		var hs []*dragHandle
		uitest.Walk(c.rows, func(o fyne.CanvasObject) {
			if h, ok := o.(*dragHandle); ok {
				hs = append(hs, h)
			}
		})
		return hs
	}
	c.rows.Resize(c.rows.MinSize()) // lay the rows out as the window does
	row := c.rows.Objects[0].Size().Height + theme.Padding()
	if row <= 0 {
		t.Fatal("rows have no height")
	}
	// Drag the last token up by a little over two rows: it lands second.
	h := handles()
	if len(h) != 4 {
		t.Fatalf("%d drag handles for 4 tokens", len(h))
	}
	h[3].Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DY: -1.2 * row}})
	h[3].Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DY: -1.0 * row}})
	h[3].DragEnd()
	want := []string{"search-headphones", "settings_toggle-bluetooth", "cart-headphones", "settings_toggle-wifi"}
	if got := order(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after dragging the last token up two rows: %v, want %v", got, want)
	}
	// Far beyond the end clamps to the end; a small jiggle moves nothing.
	c.rows.Resize(c.rows.MinSize())
	h = handles()
	h[0].Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DY: 50 * row}})
	h[0].DragEnd()
	if got := order(); got[3] != "search-headphones" {
		t.Fatalf("dragging far down: %v", got)
	}
	before := order()
	c.rows.Resize(c.rows.MinSize())
	handles()[1].Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DY: 0.3 * row}})
	handles()[1].DragEnd()
	if !reflect.DeepEqual(order(), before) {
		t.Fatalf("a small drag moved a token: %v", order())
	}
	// The task buffer follows, in the original format.
	if back, _ := parseComposerTokens(c.file.buf); !reflect.DeepEqual(back, c.toks) {
		t.Fatalf("buffer %q does not match the tokens %+v", c.file.buf, c.toks)
	}
}

// TestTemplatesFitsALaptop: every kind of file open, with its preview, fits a 1024x700 screen.
func TestTemplatesFitsALaptop(t *testing.T) {
	_, _, ws, _, _ := openTemplateExamples(t)
	for _, rel := range []string{"templates/cart.textproto.template", "tasks/search-headphones.conf", "tasks/buy_headphones.task"} {
		ws.selectFile(ws.file(t, rel))
		uitest.Fits(t, "Templates with "+rel, ws.Content())
	}
}

// BenchmarkOpenFolderToPreview measures opening the sample template folder up to its preview
// on show (the folder read, the views built, the first template in the editor, the first
// task instantiated and diffed), with background work run at once: what the UI goroutine
// spends before a person sees the preview.
func BenchmarkOpenFolderToPreview(b *testing.B) {
	test.NewTempApp(b)
	set, err := samples.Write(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	h := uitest.NewHost(b, uitest.Laptop.Width, uitest.Laptop.Height)
	ws := New(h, nil)
	ws.logf = func(string, ...any) {}
	h.Put(ws)
	for b.Loop() {
		if err := ws.openFolder(set.Templates); err != nil {
			b.Fatal(err)
		}
		if ws.pv.last.text == "" || !ws.pv.last.diffed {
			b.Fatal("no preview")
		}
	}
}

// TestTemplatesPreviewShowsAtOnceWithSpinner: opening a folder shows the instantiated task at
// once, and the spinner while its diff against the saved output is computed in the
// background; a folder too large to instantiate at once shows the spinner until it is.
func TestTemplatesPreviewShowsAtOnceWithSpinner(t *testing.T) {
	test.NewTempApp(t)
	set, err := samples.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := uitest.NewHost(t, uitest.Laptop.Width, uitest.Laptop.Height)
	ws := New(h, nil)
	var logged []string
	ws.logf = func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }
	h.Put(ws)
	var held []func()
	h.Run = func(f func()) { held = append(held, f) }
	runHeld := func() {
		for len(held) > 0 {
			f := held[0]
			held = held[1:]
			f()
		}
	}
	if err := ws.openFolder(set.Templates); err != nil {
		t.Fatal(err)
	}
	p := ws.pv
	if len(p.text.rows) < 50 || p.last.diffed || !p.busy.Visible() || !strings.Contains(p.status.Text, "comparing with") {
		t.Fatalf("while the diff is held: %d rows, diffed %v, spinner %v, status %q", len(p.text.rows), p.last.diffed, p.busy.Visible(), p.status.Text)
	}
	runHeld()
	if !p.last.diffed || p.busy.Visible() || !strings.Contains(p.status.Text, "not saved yet") {
		t.Fatalf("after the diff: diffed %v, spinner %v, status %q", p.last.diffed, p.busy.Visible(), p.status.Text)
	}
	// the app's log says how long the preview took to show (once per folder opened)
	if len(logged) != 1 || !strings.Contains(logged[0], "preview of tasks/Sample_plan_soup.task shown after") {
		t.Fatalf("logged %q", logged)
	}

	// A large folder: the instantiation itself runs in the background.
	ws.addFile("templates/zz_large.textproto.template", kindTemplate, strings.Repeat("# padding\n", quickPreviewBytes/10+1))
	p.text.setRows(nil)
	ws.previewNow()
	if len(p.text.rows) != 0 || !p.busy.Visible() {
		t.Fatalf("large folder: %d rows shown before the background step, spinner %v", len(p.text.rows), p.busy.Visible())
	}
	runHeld()
	if len(p.text.rows) < 50 || p.busy.Visible() {
		t.Fatalf("large folder after the background steps: %d rows, spinner %v", len(p.text.rows), p.busy.Visible())
	}
}

// TestTemplatesProblemGoesToItsPlace: choosing a problem far down a long template (in the
// list, or by its mark in the gutter) puts the cursor on it, focuses the editor and scrolls
// its line into view; the line numbers follow the text.
func TestTemplatesProblemGoesToItsPlace(t *testing.T) {
	_, w, ws, _, _ := openTemplateExamples(t)
	w.Resize(uitest.Laptop)
	f, err := ws.newTemplate("long")
	if err != nil {
		t.Fatal(err)
	}
	ed := ws.ed
	if ed == nil || ed.file != f {
		t.Fatal("the new template is not in the editor")
	}
	ed.entry.SetText(strings.Repeat("name: \"<name>\"\n", 99) + "id: \"<lowr:name>\"\n" + strings.Repeat("x: 1\n", 20))
	if len(ed.diags) != 1 || ed.diags[0].Line != 100 || ed.code.gutter.marks[99] != theme.ColorNameError {
		t.Fatalf("problems %v, marks %v", ed.diags, ed.code.gutter.marks)
	}
	sc := ed.code.scroll
	if sc.Offset.Y != 0 || sc.Size().Height < 100 {
		t.Fatalf("editor viewport %v at %v before the jump", sc.Size(), sc.Offset)
	}
	rowInView := func(row int) bool {
		_, pad, rowH := codeMetrics(ed.code.Theme())
		y := pad + float32(row)*rowH
		return y >= sc.Offset.Y && y+rowH <= sc.Offset.Y+sc.Size().Height
	}
	if rowInView(99) {
		t.Fatal("line 100 in view before the jump: the test shows nothing")
	}
	ed.diagList.Select(0)
	if ed.entry.CursorRow != 99 || ed.entry.CursorColumn != ed.diags[0].Col-1 || ed.diags[0].Col != 7 {
		t.Fatalf("cursor at %d:%d", ed.entry.CursorRow, ed.entry.CursorColumn)
	}
	if w.Canvas().Focused() != ed.entry {
		t.Fatal("the editor is not focused after choosing the problem")
	}
	if !rowInView(99) {
		t.Fatalf("line 100 not scrolled into view: offset %v, viewport %v", sc.Offset, sc.Size())
	}
	// the gutter numbers the rows in view
	nums := uitest.Find(ed.code.gutter, func(o *canvas.Text) bool { return o.Text == "100" })
	if nums == nil {
		t.Fatal("the gutter does not number line 100 once it is in view")
	}
	// Back to the top by hand, then a tap on the mark in the gutter goes there again.
	sc.ScrollToOffset(fyne.Position{})
	ed.code.scrolled()
	ed.entry.CursorRow = 0
	_, pad, rowH := codeMetrics(ed.code.Theme())
	sc.ScrollToOffset(fyne.NewPos(0, pad+90*rowH))
	ed.code.scrolled()
	ed.code.gutter.Tapped(&fyne.PointEvent{Position: fyne.NewPos(2, pad+9.5*rowH)})
	if ed.entry.CursorRow != 99 || ed.sideTabs.SelectedIndex() != 1 {
		t.Fatalf("gutter tap: cursor row %d, tab %d", ed.entry.CursorRow, ed.sideTabs.SelectedIndex())
	}
	// A tap on another line number goes to the start of that line.
	want := int((2.5*rowH + sc.Offset.Y) / rowH)
	ed.code.gutter.Tapped(&fyne.PointEvent{Position: fyne.NewPos(2, pad+2.5*rowH)})
	if ed.entry.CursorRow != want || want == 99 || ed.entry.CursorColumn != 0 {
		t.Fatalf("tap on a line number: cursor at %d:%d", ed.entry.CursorRow, ed.entry.CursorColumn)
	}
	// The wheel over the line numbers scrolls the text.
	before := sc.Offset.Y
	ed.code.gutter.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: 5 * rowH}})
	if sc.Offset.Y >= before {
		t.Fatalf("the wheel over the gutter did not scroll: offset %v, was %v", sc.Offset.Y, before)
	}
}

// TestTemplatesTypingFollowsTheCursor: new lines typed at the end of a template that fills the
// editor keep the cursor's line in view, and the line numbers count them.
func TestTemplatesTypingFollowsTheCursor(t *testing.T) {
	_, w, ws, _, _ := openTemplateExamples(t)
	w.Resize(uitest.Laptop)
	ed := ws.ed
	ed.entry.SetText(strings.Repeat("x: 1\n", 40))
	w.Canvas().Focus(ed.entry)
	ed.entry.CursorRow, ed.entry.CursorColumn = 40, 0
	ed.entry.Refresh()
	sc := ed.code.scroll
	_, pad, rowH := codeMetrics(ed.code.Theme())
	for i := 0; i < 10; i++ {
		test.Type(ed.entry, "y: 2")
		ed.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		row := ed.entry.CursorRow
		y := pad + float32(row)*rowH
		if y < sc.Offset.Y || y+rowH > sc.Offset.Y+sc.Size().Height+0.5 {
			t.Fatalf("after %d new lines the cursor's line %d (at %.0f) is out of the view %.0f..%.0f", i+1, row+1, y, sc.Offset.Y, sc.Offset.Y+sc.Size().Height)
		}
	}
	if ed.code.gutter.n != 51 {
		t.Fatalf("the gutter counts %d lines", ed.code.gutter.n)
	}
}
