package templates

import (
	"fmt"
	"path"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	tpl "github.com/agentdesk/agentdesk/engine/template"
)

// listModifiers are the modifiers that read their value as a comma-separated list.
var listModifiers = map[string]bool{"to_list": true, "regex_list": true}

// slotUse is one distinct way a template uses an identifier: the slot as written and its
// modifier chain.
type slotUse struct {
	Text string
	Mods []tpl.Modifier
}

// confFieldSpec describes one field of the config form.
type confFieldSpec struct {
	Ident string
	List  bool      // edited as a list, one item per line
	Uses  []slotUse // distinct modifier chains, first-occurrence order
	Extra bool      // in the conf but not used by the template
}

// confFields derives the config form of a template (the init_conf equivalent): one field per
// identifier in first-occurrence order, a list field when a slot uses it with to_list,
// regex_list or a "'" modifier.
func confFields(template string) []confFieldSpec {
	slots, _ := tpl.ParseSlots(template)
	idx := map[string]int{}
	var out []confFieldSpec
	for _, s := range slots {
		i, ok := idx[s.Identifier]
		if !ok {
			i = len(out)
			idx[s.Identifier] = i
			out = append(out, confFieldSpec{Ident: s.Identifier})
		}
		f := &out[i]
		text := s.String()
		dup := false
		for _, u := range f.Uses {
			if u.Text == text {
				dup = true
			}
		}
		if !dup {
			f.Uses = append(f.Uses, slotUse{Text: text, Mods: s.Modifiers})
		}
		for _, m := range s.Modifiers {
			if m.Each || listModifiers[m.Name] {
				f.List = true
			}
		}
	}
	return out
}

// listToLines shows a comma-separated value one item per line; linesToList is its inverse.
func listToLines(v string) string { return strings.ReplaceAll(v, ",", "\n") }
func linesToList(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", ",")
}

// confForm edits one `<template>-<step>.conf` file as a form generated from its template.
type confForm struct {
	ws     *Workspace
	file   *tplFile
	fields []confFieldSpec
	values map[string]string
	order  []string
	// entries and rendered hold each field's entry and its rendered-value labels.
	entries  map[string]*widget.Entry
	rendered map[string][]*widget.Label
	notes    map[string]*widget.Label
	problems *widget.Label
	root     fyne.CanvasObject
}

func newConfForm(w *Workspace, f *tplFile) *confForm {
	c := &confForm{ws: w, file: f, values: map[string]string{}, entries: map[string]*widget.Entry{},
		rendered: map[string][]*widget.Label{}, notes: map[string]*widget.Label{}, problems: widget.NewLabel("")}
	c.problems.Wrapping = fyne.TextWrapWord
	c.problems.Importance = widget.DangerImportance
	name := strings.TrimSuffix(path.Base(f.rel), ".conf")
	class, step, _ := strings.Cut(name, "-")
	entries, errs := tpl.ParseConfEntries(f.buf)
	for _, e := range entries {
		if _, ok := c.values[e.Key]; !ok {
			c.order = append(c.order, e.Key)
		}
		c.values[e.Key] = e.Value
	}
	var probs []string
	for _, e := range errs {
		probs = append(probs, fmt.Sprintf("line %d: %s (the form drops this line when it saves)", e.Line, e.Msg))
	}
	sub := fmt.Sprintf("Token config of template %s, step %s.", class, step)
	if t := w.templateFor(class); t != nil {
		c.fields = confFields(t.buf)
		sub += fmt.Sprintf(" One field per identifier of %s; list fields take one item per line.", t.rel)
	} else {
		sub += fmt.Sprintf(" There is no %s%s in %s, so the fields are the conf's own entries.", class, templateSuffix, w.templatesDir)
	}
	known := map[string]bool{}
	for _, fs := range c.fields {
		known[fs.Ident] = true
	}
	for _, k := range c.order {
		if !known[k] {
			c.fields = append(c.fields, confFieldSpec{Ident: k, Extra: true})
		}
	}
	setShown(c.problems, strings.Join(probs, "\n"))

	box := container.NewVBox()
	for _, fs := range c.fields {
		box.Add(c.fieldView(fs))
		box.Add(widget.NewSeparator())
	}
	if len(c.fields) == 0 {
		box.Add(widget.NewLabel("The template has no slots, so its config is empty."))
	}
	title := widget.NewLabelWithStyle(f.rel, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.Truncation = fyne.TextTruncateEllipsis
	subL := widget.NewLabel(sub)
	subL.Wrapping = fyne.TextWrapWord
	c.root = container.NewBorder(container.NewVBox(title, subL, c.problems), nil, nil, nil, container.NewVScroll(box))
	return c
}

func (c *confForm) fieldView(fs confFieldSpec) fyne.CanvasObject {
	name := widget.NewLabelWithStyle(fs.Ident, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	kind := "text"
	switch {
	case fs.Extra:
		kind = "not used by the template"
	case fs.List:
		kind = "list, one item per line"
	}
	var e *widget.Entry
	if fs.List {
		e = widget.NewMultiLineEntry()
		e.SetMinRowsVisible(3)
		e.SetText(listToLines(c.values[fs.Ident]))
	} else {
		e = widget.NewEntry()
		e.SetText(c.values[fs.Ident])
	}
	e.TextStyle = fyne.TextStyle{Monospace: true}
	if _, ok := c.values[fs.Ident]; !ok {
		e.SetPlaceHolder("missing from the conf: expands to nothing")
	}
	c.entries[fs.Ident] = e
	note := widget.NewLabel("")
	note.Importance = widget.WarningImportance
	c.notes[fs.Ident] = note
	box := container.NewVBox(container.NewHBox(name, widget.NewLabel("("+kind+")")), e)
	for range fs.Uses {
		l := widget.NewLabel("")
		l.TextStyle = fyne.TextStyle{Monospace: true}
		l.Wrapping = fyne.TextWrapBreak
		c.rendered[fs.Ident] = append(c.rendered[fs.Ident], l)
		box.Add(l)
	}
	box.Add(note)
	c.showRendered(fs)
	e.OnChanged = func(s string) {
		if fs.List {
			s = linesToList(s)
		}
		c.set(fs.Ident, s)
		c.showRendered(fs)
	}
	return box
}

// set changes one value and rewrites the conf buffer in the original format.
func (c *confForm) set(ident, value string) {
	if _, ok := c.values[ident]; !ok {
		c.order = append(c.order, ident)
	}
	c.values[ident] = value
	order := make([]string, 0, len(c.fields))
	for _, fs := range c.fields {
		if _, ok := c.values[fs.Ident]; ok {
			order = append(order, fs.Ident)
		}
	}
	c.file.buf = tpl.FormatConf(c.values, order)
	c.ws.edited(c.file)
}

// showRendered shows the value a field gives after each of its modifier chains.
func (c *confForm) showRendered(fs confFieldSpec) {
	v, ok := c.values[fs.Ident]
	for i, u := range fs.Uses {
		out, err := tpl.RenderValue(u.Mods, v)
		line := u.Text + "  →  " + out
		if err != nil {
			line = u.Text + "  →  error: " + err.Error()
		}
		c.rendered[fs.Ident][i].SetText(line)
	}
	note := ""
	switch {
	case !ok:
		note = "Not in the conf yet: the original expands it to nothing."
	case strings.TrimSpace(v) == "":
		note = `An empty value makes the line "` + fs.Ident + `:", which the original rejects (bad conf line).`
	case strings.TrimSpace(v) != v:
		note = "Leading and trailing blanks are dropped when the conf is read."
	}
	setShown(c.notes[fs.Ident], note)
}
