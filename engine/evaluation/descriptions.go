package evaluation

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentdesk/agentdesk/engine/limits"
)

// DescriptionsFile is where the original keeps the participants' instructions of each
// annotation type, relative to its project folder (collection_and_annotations/).
const DescriptionsFile = "frontend/components/task_descriptions.jsx"

// TaskDescriptions are the participants' instructions read from the original's
// task_descriptions.jsx: the text of each case of its switch on the type's task_title (or
// each entry of an exported object keyed by type names), with the helper functions it imports
// from other files followed, JSX turned into plain text with line breaks. Nothing is run.
type TaskDescriptions struct {
	// Texts maps a task_title to its instructions; Order lists the titles in file order.
	Texts map[string]string
	Order []string
	// Help maps a help section's id to its text: the original's help icons jump to the
	// section whose id is the raw question text (spec §4.5), a button with that id followed
	// by the section.
	Help map[string]string
	// Files are the files read: the descriptions file, then the helper files it imports.
	Files []string
	// Notes say what could not be turned into text (a function that is not found, an
	// expression the reader does not follow); that part is left out.
	Notes []string
}

// DescriptionLabels are the names the original's descriptions put in for {speakerLabel} and
// {otherLabel}: "Alex" and "Sam" in static annotation, "your partner" and "you" in
// collection.
func DescriptionLabels(collection bool) (speaker, other string) {
	if collection {
		return "your partner", "you"
	}
	return "Alex", "Sam"
}

// ReadTaskDescriptions reads a task_descriptions.jsx file and the helper files it imports
// (relative imports only, next to it). collection chooses the speaker names put in.
func ReadTaskDescriptions(path string, collection bool) (*TaskDescriptions, error) {
	r := &descReader{modules: map[string]*jsModule{}, out: &TaskDescriptions{Texts: map[string]string{}, Help: map[string]string{}}}
	r.env = map[string]string{}
	r.env["speakerLabel"], r.env["otherLabel"] = DescriptionLabels(collection)
	m, err := r.load(path)
	if err != nil {
		return nil, err
	}
	r.main = m
	r.entries(m)
	slices.Sort(r.out.Notes)
	r.out.Notes = slices.Compact(r.out.Notes)
	return r.out, nil
}

// ParseTaskDescriptions reads descriptions from the text of a module alone (its imports are
// not followed); name names it in notes.
func ParseTaskDescriptions(src, name string, collection bool) (*TaskDescriptions, error) {
	r := &descReader{modules: map[string]*jsModule{}, out: &TaskDescriptions{Texts: map[string]string{}, Help: map[string]string{}}, noImports: true}
	r.env = map[string]string{}
	r.env["speakerLabel"], r.env["otherLabel"] = DescriptionLabels(collection)
	m, err := r.parse(src, name)
	if err != nil {
		return nil, err
	}
	r.main = m
	r.entries(m)
	slices.Sort(r.out.Notes)
	r.out.Notes = slices.Compact(r.out.Notes)
	return r.out, nil
}

// ApplyTaskDescriptions gives each type the description of its task_title (replace: also to
// types that have one; else only to types without) and each flow question without help the
// help section of its text. It returns the titles used, the types that kept their own
// description and the entries no type has.
func ApplyTaskDescriptions(types []*AnnotationType, d *TaskDescriptions, replace bool) (used, kept, unused []string) {
	usedTitle := map[string]bool{}
	for _, t := range types {
		text, ok := d.Texts[t.Title]
		if !ok {
			text, ok = d.Texts[t.Name]
		}
		if ok {
			usedTitle[t.Title], usedTitle[t.Name] = true, true
			if t.Description != "" && !replace && t.Description != text {
				kept = append(kept, t.Name)
			} else {
				t.Description = text
				used = append(used, t.Name)
			}
		}
		if t.Display.IsFlow() && len(d.Help) > 0 {
			t.Flow = flowWithHelp(t.Flow, d.Help)
		}
	}
	for _, title := range d.Order {
		if !usedTitle[title] {
			unused = append(unused, title)
		}
	}
	return used, kept, unused
}

// flowWithHelp copies a flow, giving questions without help the section of their text.
func flowWithHelp(f Flow, help map[string]string) Flow {
	if f == nil {
		return nil
	}
	out := make(Flow, len(f))
	for i, q := range f {
		if q.Help == "" {
			q.Help = help[q.Text]
		}
		q.Answers = slices.Clone(q.Answers)
		for j := range q.Answers {
			q.Answers[j].Sub = flowWithHelp(q.Answers[j].Sub, help)
		}
		out[i] = q
	}
	return out
}

// FindTaskDescriptions looks for the original's task_descriptions.jsx in a project folder:
// frontend/components/ (its place in the original), the folder itself, task_config/ and the
// folder of the configuration (confDir, may be ""). "" when there is none.
func FindTaskDescriptions(root, confDir string) string {
	cands := []string{filepath.Join(root, filepath.FromSlash(DescriptionsFile)), filepath.Join(root, "task_descriptions.jsx"),
		filepath.Join(root, "task_config", "task_descriptions.jsx")}
	if confDir != "" {
		cands = append(cands, filepath.Join(confDir, "task_descriptions.jsx"))
	}
	for _, c := range cands {
		if fileExists(c) {
			return c
		}
	}
	return ""
}

// jsModule is a read module: its top-level functions, constants, imports and exports.
type jsModule struct {
	path    string
	toks    []jsToken
	funcs   map[string][]jsToken // name → the expression its first return gives
	consts  map[string][]jsToken // name → its value's tokens
	imports map[string]jsImport  // local name → where from
	// exported object entries (export default {…}, module.exports = {…}), in order
	objKeys []string
	objVals map[string][]jsToken
	// switch cases: title → the expression returned
	caseKeys []string
	caseVals map[string][]jsToken
}

type jsImport struct{ from, name string }

const (
	maxDescFiles = 64
	maxEvalDepth = 40
	// maxEvalSteps bounds the expressions followed for one entry (constants
	// that refer to each other twice over would otherwise double the work at every level).
	maxEvalSteps = 200_000
)

type descReader struct {
	modules   map[string]*jsModule
	main      *jsModule
	env       map[string]string
	out       *TaskDescriptions
	noImports bool
	depth     int
	steps     int
}

func (r *descReader) note(format string, args ...any) {
	r.out.Notes = append(r.out.Notes, fmt.Sprintf(format, args...))
}

// load reads and indexes a module file once.
func (r *descReader) load(path string) (*jsModule, error) {
	if m, ok := r.modules[path]; ok {
		return m, nil
	}
	if len(r.modules) >= maxDescFiles {
		return nil, fmt.Errorf("more than %d files imported", maxDescFiles)
	}
	data, err := limits.ReadFile(path, limits.Config)
	if err != nil {
		return nil, err
	}
	r.out.Files = append(r.out.Files, path)
	return r.parse(string(data), path)
}

func (r *descReader) parse(src, path string) (*jsModule, error) {
	toks, err := tokenizeJS(src)
	if err != nil {
		return nil, &FileError{File: path, Err: err}
	}
	m := &jsModule{path: path, toks: toks, funcs: map[string][]jsToken{}, consts: map[string][]jsToken{},
		imports: map[string]jsImport{}, objVals: map[string][]jsToken{}, caseVals: map[string][]jsToken{}}
	r.modules[path] = m
	m.index()
	return m, nil
}

// matching returns the index of the bracket closing the one at toks[i].
func matching(toks []jsToken, i int) int {
	open := toks[i].text
	closeBy := map[string]string{"(": ")", "[": "]", "{": "}"}[open]
	depth := 0
	for j := i; j < len(toks); j++ {
		if toks[j].kind != jsPunct {
			continue
		}
		switch toks[j].text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 {
				if toks[j].text != closeBy {
					return -1
				}
				return j
			}
		}
	}
	return -1
}

// exprEnd returns the end of the expression starting at toks[i]: a ',' ';' or closing bracket
// at its own level, or a line break before a statement keyword.
func exprEnd(toks []jsToken, i int) int {
	depth := 0
	for j := i; j < len(toks); j++ {
		t := toks[j]
		if j > i && t.nl && depth == 0 && t.kind == jsIdent {
			switch t.text {
			case "const", "let", "var", "function", "export", "import", "case", "default", "return", "if", "break", "class":
				return j
			}
		}
		if t.kind != jsPunct {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			if depth == 0 {
				return j
			}
			depth--
		case ",", ";":
			if depth == 0 {
				return j
			}
		}
	}
	return len(toks)
}

// firstReturn finds the expression of the first return in a function body (at any depth:
// the original's helpers return at once).
func firstReturn(body []jsToken) []jsToken {
	for i, t := range body {
		if t.is(jsIdent, "return") {
			return body[i+1 : exprEnd(body, i+1)]
		}
	}
	return nil
}

// fnValue reads a function value at toks[i] (function (…) {…}, (…) => …, x => …) and returns
// the expression it gives, or nil when toks[i] does not start a function.
func fnValue(toks []jsToken, i int) ([]jsToken, bool) {
	if i >= len(toks) {
		return nil, false
	}
	if toks[i].is(jsIdent, "async") {
		i++
	}
	if i < len(toks) && toks[i].is(jsIdent, "function") {
		j := i + 1
		for j < len(toks) && !toks[j].punct("(") {
			j++
		}
		if j >= len(toks) {
			return nil, false
		}
		k := matching(toks, j)
		if k < 0 || k+1 >= len(toks) || !toks[k+1].punct("{") {
			return nil, false
		}
		e := matching(toks, k+1)
		if e < 0 {
			return nil, false
		}
		return firstReturn(toks[k+2 : e]), true
	}
	j := i
	if j < len(toks) && toks[j].punct("(") {
		j = matching(toks, j)
		if j < 0 {
			return nil, false
		}
	} else if j >= len(toks) || toks[j].kind != jsIdent {
		return nil, false
	}
	if j+1 >= len(toks) || !toks[j+1].punct("=>") {
		return nil, false
	}
	j += 2
	if j < len(toks) && toks[j].punct("{") {
		e := matching(toks, j)
		if e < 0 {
			return nil, false
		}
		return firstReturn(toks[j+1 : e]), true
	}
	return toks[j:exprEnd(toks, j)], true
}

// index finds the module's imports, functions, constants, exported object and switch cases.
func (m *jsModule) index() {
	toks := m.toks
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.is(jsIdent, "import"):
			i = m.indexImport(i)
		case t.is(jsIdent, "function") && i+1 < len(toks) && toks[i+1].kind == jsIdent:
			if body, ok := fnValue(toks, i); ok {
				m.funcs[toks[i+1].text] = body
			}
		case (t.is(jsIdent, "const") || t.is(jsIdent, "let") || t.is(jsIdent, "var")) && i+2 < len(toks) &&
			toks[i+1].kind == jsIdent && toks[i+2].punct("="):
			name := toks[i+1].text
			if body, ok := fnValue(toks, i+3); ok {
				m.funcs[name] = body
			} else {
				m.consts[name] = toks[i+3 : exprEnd(toks, i+3)]
			}
		case t.is(jsIdent, "export") && i+2 < len(toks) && toks[i+1].is(jsIdent, "default"):
			m.indexObject(i + 2)
		case t.is(jsIdent, "module") && i+4 < len(toks) && toks[i+1].punct(".") && toks[i+2].is(jsIdent, "exports") && toks[i+3].punct("="):
			m.indexObject(i + 4)
		case t.is(jsIdent, "case"):
			i = m.indexCase(i)
		}
	}
}

func (m *jsModule) indexImport(i int) int {
	toks := m.toks
	end := i + 1
	for end < len(toks) && !toks[end].is(jsIdent, "from") && !toks[end].punct(";") && toks[end].kind != jsString {
		end++
	}
	if end >= len(toks) || !toks[end].is(jsIdent, "from") || end+1 >= len(toks) || toks[end+1].kind != jsString {
		return end
	}
	from := toks[end+1].text
	spec := toks[i+1 : end]
	for j := 0; j < len(spec); j++ {
		switch {
		case spec[j].punct("{"):
			for k := j + 1; k < len(spec) && !spec[k].punct("}"); k++ {
				if spec[k].kind != jsIdent {
					continue
				}
				name, local := spec[k].text, spec[k].text
				if k+2 < len(spec) && spec[k+1].is(jsIdent, "as") && spec[k+2].kind == jsIdent {
					local = spec[k+2].text
					k += 2
				}
				m.imports[local] = jsImport{from: from, name: name}
				j = k
			}
		case spec[j].kind == jsIdent && (j == 0 || spec[j-1].punct(",")):
			m.imports[spec[j].text] = jsImport{from: from, name: "default"}
		}
	}
	return end + 1
}

// indexObject reads an exported object literal (or the constant it names) into entries.
func (m *jsModule) indexObject(i int) {
	toks := m.toks
	if i < len(toks) && toks[i].kind == jsIdent {
		if v, ok := m.consts[toks[i].text]; ok && len(v) > 0 && v[0].punct("{") {
			m.readObject(v, 0)
		}
		return
	}
	if i < len(toks) && toks[i].punct("{") {
		m.readObject(toks, i)
	}
}

func (m *jsModule) readObject(toks []jsToken, i int) {
	end := matching(toks, i)
	if end < 0 {
		return
	}
	for j := i + 1; j < end; {
		key := toks[j]
		if key.kind != jsIdent && key.kind != jsString && key.kind != jsNumber || j+1 >= end {
			j = exprEnd(toks, j) + 1
			continue
		}
		if toks[j+1].punct("(") { // a method: name() { return … }
			k := matching(toks, j+1)
			if k > 0 && k+1 < end && toks[k+1].punct("{") {
				e := matching(toks, k+1)
				if e > 0 {
					m.addEntry(&m.objKeys, m.objVals, key.text, firstReturn(toks[k+2:e]))
					j = e + 1
					if j < end && toks[j].punct(",") {
						j++
					}
					continue
				}
			}
		}
		if !toks[j+1].punct(":") {
			j = exprEnd(toks, j) + 1
			continue
		}
		ve := exprEnd(toks, j+2)
		val := toks[j+2 : ve]
		if body, ok := fnValue(toks[:ve], j+2); ok {
			val = body
		}
		m.addEntry(&m.objKeys, m.objVals, key.text, val)
		j = ve + 1
	}
}

func (m *jsModule) addEntry(keys *[]string, vals map[string][]jsToken, key string, val []jsToken) {
	if _, ok := vals[key]; !ok {
		*keys = append(*keys, key)
	}
	vals[key] = val
}

// indexCase reads `case "a": case "b": … return EXPR` into entries for a and b.
func (m *jsModule) indexCase(i int) int {
	toks := m.toks
	var keys []string
	j := i
	for j+2 < len(toks) && toks[j].is(jsIdent, "case") && (toks[j+1].kind == jsString || toks[j+1].kind == jsNumber) && toks[j+2].punct(":") {
		keys = append(keys, toks[j+1].text)
		j += 3
	}
	if len(keys) == 0 {
		return i
	}
	// the case body: up to the next case or default at this level, or the switch's end
	depth := 0
	end := j
	for ; end < len(toks); end++ {
		t := toks[end]
		if depth == 0 && (t.is(jsIdent, "case") || t.is(jsIdent, "default")) {
			break
		}
		if t.punct("{") || t.punct("(") || t.punct("[") {
			depth++
		}
		if t.punct("}") || t.punct(")") || t.punct("]") {
			if depth == 0 {
				break
			}
			depth--
		}
	}
	if ret := firstReturn(toks[j:end]); ret != nil {
		for _, k := range keys {
			m.addEntry(&m.caseKeys, m.caseVals, k, ret)
		}
	}
	return end - 1
}

// entries evaluates the module's entries: the exported object's, then the switch's cases.
func (r *descReader) entries(m *jsModule) {
	add := func(keys []string, vals map[string][]jsToken) {
		for _, k := range keys {
			r.steps = 0 // the bound is per entry
			nodes := r.eval(m, vals[k])
			text := renderText(nodes, r.out.Help)
			if strings.TrimSpace(text) == "" {
				continue
			}
			if _, ok := r.out.Texts[k]; !ok {
				r.out.Order = append(r.out.Order, k)
			}
			r.out.Texts[k] = text
		}
	}
	add(m.objKeys, m.objVals)
	add(m.caseKeys, m.caseVals)
}

// vnode is an evaluated piece of content: text, or an element with its children.
type vnode struct {
	text     string
	tag      string
	attrs    map[string]string
	children []vnode
	isElem   bool
}

func textNodes(s string) []vnode {
	if s == "" {
		return nil
	}
	return []vnode{{text: s}}
}

// plain is the text of nodes without layout (for comparisons and template parts).
func plain(ns []vnode) string {
	var b strings.Builder
	for _, n := range ns {
		if n.isElem {
			b.WriteString(plain(n.children))
		} else {
			b.WriteString(n.text)
		}
	}
	return b.String()
}

// eval evaluates an expression of module m into content. It follows literals, JSX, "+",
// template strings, ternaries and && / || on comparisons with string literals, the speaker
// names, constants, and calls of functions defined in the module or imported from a file
// next to it (their first return). Anything else is left out with a note.
func (r *descReader) eval(m *jsModule, toks []jsToken) []vnode {
	r.depth++
	defer func() { r.depth-- }()
	if r.depth > maxEvalDepth {
		r.note("%s: nested too deeply, left out", filepath.Base(m.path))
		return nil
	}
	r.steps++
	if r.steps > maxEvalSteps {
		if r.steps == maxEvalSteps+1 {
			r.note("%s: too much to follow (over %d expressions), the rest left out", filepath.Base(m.path), maxEvalSteps)
		}
		return nil
	}
	p := &exprParser{r: r, m: m, toks: toks}
	out := p.ternary()
	if p.i < len(p.toks) {
		r.note("%s line %d: %q not followed, left out", filepath.Base(m.path), p.toks[p.i].line, tokenText(p.toks[p.i]))
	}
	return out
}

func tokenText(t jsToken) string {
	switch t.kind {
	case jsJSX:
		return "<" + t.node.tag + ">"
	case jsTemplate:
		return "`…`"
	case jsString:
		return strconvQuote(t.text)
	}
	return t.text
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", s) }

type exprParser struct {
	r    *descReader
	m    *jsModule
	toks []jsToken
	i    int
}

func (p *exprParser) peek() (jsToken, bool) {
	if p.i < len(p.toks) {
		return p.toks[p.i], true
	}
	return jsToken{}, false
}

func (p *exprParser) accept(punct string) bool {
	if t, ok := p.peek(); ok && t.punct(punct) {
		p.i++
		return true
	}
	return false
}

func truthy(ns []vnode) bool {
	for _, n := range ns {
		if n.isElem || n.text != "" && n.text != "false" && n.text != "0" {
			return true
		}
	}
	return false
}

func (p *exprParser) ternary() []vnode {
	cond := p.or()
	if !p.accept("?") {
		return cond
	}
	a := p.ternary()
	if !p.accept(":") {
		return nil
	}
	b := p.ternary()
	if truthy(cond) {
		return a
	}
	return b
}

func (p *exprParser) or() []vnode {
	left := p.and()
	for p.accept("||") || p.accept("??") {
		right := p.and()
		if !truthy(left) {
			left = right
		}
	}
	return left
}

func (p *exprParser) and() []vnode {
	left := p.equality()
	for p.accept("&&") {
		right := p.equality()
		if truthy(left) {
			left = right
		} else {
			left = nil
		}
	}
	return left
}

func boolNodes(b bool) []vnode {
	if b {
		return textNodes("true")
	}
	return nil
}

func (p *exprParser) equality() []vnode {
	left := p.additive()
	for {
		switch {
		case p.accept("===") || p.accept("=="):
			left = boolNodes(plain(left) == plain(p.additive()))
		case p.accept("!==") || p.accept("!="):
			left = boolNodes(plain(left) != plain(p.additive()))
		default:
			return left
		}
	}
}

func (p *exprParser) additive() []vnode {
	left := p.unary()
	if t, ok := p.peek(); !ok || !t.punct("+") {
		return left
	}
	out := slices.Clone(left)
	for p.accept("+") {
		out = append(out, p.unary()...)
	}
	return out
}

func (p *exprParser) unary() []vnode {
	if p.accept("!") {
		return boolNodes(!truthy(p.unary()))
	}
	return p.postfix()
}

// postfix reads a primary and what follows it: calls, member access (not followed), and
// method calls such as .trim() on text.
func (p *exprParser) postfix() []vnode {
	t, ok := p.peek()
	if !ok {
		return nil
	}
	// a call of a named function
	if t.kind == jsIdent && p.i+1 < len(p.toks) && p.toks[p.i+1].punct("(") {
		end := matching(p.toks, p.i+1)
		if end < 0 {
			p.i = len(p.toks)
			return nil
		}
		p.i = end + 1
		return p.r.call(p.m, t.text, t.line)
	}
	v := p.primary()
	for {
		switch {
		case p.accept(".") || p.accept("?."):
			name, ok := p.peek()
			if !ok || name.kind != jsIdent {
				return v
			}
			p.i++
			if nt, ok := p.peek(); ok && nt.punct("(") {
				end := matching(p.toks, p.i)
				if end < 0 {
					p.i = len(p.toks)
					return nil
				}
				p.i = end + 1
				switch name.text {
				case "trim", "toString":
					v = textNodes(strings.TrimSpace(plain(v)))
				case "toLowerCase":
					v = textNodes(strings.ToLower(plain(v)))
				case "toUpperCase":
					v = textNodes(strings.ToUpper(plain(v)))
				default:
					p.r.note("%s line %d: method %s() not followed, left out", filepath.Base(p.m.path), name.line, name.text)
					v = nil
				}
			} else {
				v = nil // a property of something the reader does not know
			}
		case p.accept("["):
			p.i--
			end := matching(p.toks, p.i)
			if end < 0 {
				p.i = len(p.toks)
				return nil
			}
			p.i = end + 1
			v = nil
		default:
			return v
		}
	}
}

func (p *exprParser) primary() []vnode {
	t, ok := p.peek()
	if !ok {
		return nil
	}
	p.i++
	switch t.kind {
	case jsString:
		return textNodes(t.text)
	case jsNumber:
		return textNodes(t.text)
	case jsTemplate:
		var b strings.Builder
		for k, q := range t.quasis {
			b.WriteString(q)
			if k < len(t.exprs) {
				b.WriteString(plain(p.r.eval(p.m, t.exprs[k])))
			}
		}
		return textNodes(b.String())
	case jsJSX:
		return []vnode{p.r.element(p.m, t.node)}
	case jsIdent:
		switch t.text {
		case "true":
			return textNodes("true")
		case "false", "null", "undefined":
			return nil
		}
		if v, ok := p.r.env[t.text]; ok {
			return textNodes(v)
		}
		if v, ok := p.m.consts[t.text]; ok {
			return p.r.eval(p.m, v)
		}
		if _, ok := p.m.funcs[t.text]; ok {
			return nil // a function used as a value (an event handler)
		}
		p.r.note("%s line %d: %s is not known, left out", filepath.Base(p.m.path), t.line, t.text)
		return nil
	case jsPunct:
		switch t.text {
		case "(":
			p.i--
			end := matching(p.toks, p.i)
			if end < 0 {
				p.i = len(p.toks)
				return nil
			}
			v := p.r.eval(p.m, p.toks[p.i+1:end])
			p.i = end + 1
			return v
		case "[": // an array: React renders its items one after the other
			p.i--
			end := matching(p.toks, p.i)
			if end < 0 {
				p.i = len(p.toks)
				return nil
			}
			var out []vnode
			inner := p.toks[p.i+1 : end]
			for k := 0; k < len(inner); {
				e := exprEnd(inner, k)
				out = append(out, p.r.eval(p.m, inner[k:e])...)
				k = e + 1
			}
			p.i = end + 1
			return out
		}
	}
	p.i--
	p.r.note("%s line %d: %q not followed, left out", filepath.Base(p.m.path), t.line, tokenText(t))
	p.i = len(p.toks)
	return nil
}

// call evaluates a call of a function of module m (its first return), following an import
// to the file that defines it.
func (r *descReader) call(m *jsModule, name string, line int) []vnode {
	if body, ok := m.funcs[name]; ok {
		return r.eval(m, body)
	}
	imp, ok := m.imports[name]
	if !ok || r.noImports {
		r.note("%s line %d: function %s() is not defined here, left out", filepath.Base(m.path), line, name)
		return nil
	}
	if !strings.HasPrefix(imp.from, ".") {
		r.note("%s line %d: %s() comes from the package %q, left out", filepath.Base(m.path), line, name, imp.from)
		return nil
	}
	path := filepath.Join(filepath.Dir(m.path), filepath.FromSlash(imp.from))
	if !fileExists(path) {
		for _, ext := range []string{".jsx", ".js", ".tsx", ".ts"} {
			if fileExists(path + ext) {
				path += ext
				break
			}
		}
	}
	dep, err := r.load(path)
	if err != nil {
		if os.IsNotExist(err) {
			r.note("%s line %d: %s() is imported from %s, which is not there, left out", filepath.Base(m.path), line, name, imp.from)
		} else {
			r.note("%s line %d: %s() from %s: %v, left out", filepath.Base(m.path), line, name, imp.from, err)
		}
		return nil
	}
	want := imp.name
	if want == "default" {
		want = name
	}
	if body, ok := dep.funcs[want]; ok {
		return r.eval(dep, body)
	}
	r.note("%s: function %s() not found, left out", filepath.Base(dep.path), want)
	return nil
}

// element evaluates a JSX element: its string attributes kept, its children evaluated.
func (r *descReader) element(m *jsModule, n *jsxNode) vnode {
	v := vnode{tag: strings.ToLower(n.tag), attrs: n.attrs, isElem: true}
	if cls, ok := n.exprAttr["className"]; ok {
		v.attrs = maps2(n.attrs)
		v.attrs["className"] = plain(r.eval(m, cls))
	}
	for _, c := range n.children {
		switch {
		case c.node != nil:
			v.children = append(v.children, r.element(m, c.node))
		case c.isExpr:
			if len(c.expr) > 0 {
				v.children = append(v.children, r.eval(m, c.expr)...)
			}
		default:
			v.children = append(v.children, vnode{text: c.text})
		}
	}
	return v
}

func maps2(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// decodeEntities decodes HTML character references (&nbsp; &amp; &#39; …).
func decodeEntities(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	return strings.ReplaceAll(html.UnescapeString(s), "\u00a0", " ")
}

// Layout of the text: block elements start on their own line, br breaks a line, list items
// get a bullet, table cells of a row are joined by " — ".
var blockTags = map[string]bool{"div": true, "p": true, "section": true, "article": true, "ul": true, "ol": true,
	"table": true, "thead": true, "tbody": true, "tfoot": true, "tr": true, "h1": true, "h2": true, "h3": true,
	"h4": true, "h5": true, "h6": true, "blockquote": true, "pre": true, "code": true, "button": true,
	"details": true, "summary": true, "form": true, "header": true, "footer": true, "dl": true, "dt": true, "dd": true}

type textWriter struct {
	b    strings.Builder
	help map[string]string
}

// newline ends the current line unless it is empty.
func (w *textWriter) newline() {
	s := strings.TrimRight(w.b.String(), " ")
	if s != "" && !strings.HasSuffix(s, "\n") {
		w.b.WriteByte('\n')
	}
}

func (w *textWriter) write(ns []vnode, inCode bool) {
	for i, n := range ns {
		if !n.isElem {
			w.b.WriteString(n.text)
			continue
		}
		switch n.tag {
		case "br":
			w.b.WriteByte('\n')
			continue
		case "hr":
			w.newline()
			w.b.WriteByte('\n')
			continue
		case "i":
			if strings.Contains(n.attrs["className"], "question-circle") {
				w.b.WriteString("(?)")
				continue
			}
		case "img":
			w.b.WriteString(n.attrs["alt"])
			continue
		case "script", "style":
			continue
		}
		switch {
		case n.tag == "li":
			w.newline()
			w.b.WriteString("• ")
			w.write(n.children, inCode)
			w.newline()
		case n.tag == "tr":
			w.newline()
			var cells []string
			for _, c := range n.children {
				sub := &textWriter{help: w.help}
				sub.write([]vnode{c}, inCode)
				if s := strings.TrimSpace(collapseSpaces(sub.b.String())); s != "" {
					cells = append(cells, s)
				}
			}
			w.b.WriteString(strings.Join(cells, " — "))
			w.newline()
		case blockTags[n.tag] || inCode && n.tag != "b" && n.tag != "i" && n.tag != "em" && n.tag != "strong":
			w.newline()
			w.write(n.children, inCode || n.tag == "code" || n.tag == "pre")
			w.newline()
		default:
			w.write(n.children, inCode)
		}
		// a help section: a button with an id (the raw question text) followed by its content
		if n.tag == "button" && n.attrs["id"] != "" && w.help != nil {
			for _, next := range ns[i+1:] {
				if !next.isElem {
					if strings.TrimSpace(next.text) == "" {
						continue
					}
					break
				}
				sub := &textWriter{}
				sub.write(next.children, false)
				if s := tidyText(sub.b.String()); s != "" {
					w.help[n.attrs["id"]] = s
				}
				break
			}
		}
	}
}

func collapseSpaces(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if r == ' ' || r == '\t' {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// tidyText collapses spaces, trims each line and keeps at most one blank line in a row.
func tidyText(s string) string {
	lines := strings.Split(collapseSpaces(s), "\n")
	var out []string
	blank := 0
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			blank++
			if blank > 1 || len(out) == 0 {
				continue
			}
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// renderText lays content out as plain text with line breaks, collecting help sections.
func renderText(ns []vnode, help map[string]string) string {
	w := &textWriter{help: help}
	w.write(ns, false)
	return tidyText(w.b.String())
}
