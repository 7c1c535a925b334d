package evaluation

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A small reader of JavaScript modules with JSX, enough to take the text out of the original's
// task_descriptions.jsx (and the helper files it imports) without running any of it: the
// tokens of the module, with every JSX element read into a tree and every string and template
// literal decoded. What it cannot follow is left out, never guessed by executing code.

type jsKind int

const (
	jsIdent jsKind = iota
	jsString
	jsTemplate
	jsNumber
	jsPunct
	jsJSX
)

// jsToken is one token. Strings carry their decoded value; templates their parts (text, and
// the tokens of each ${…}); JSX tokens the element read.
type jsToken struct {
	kind jsKind
	text string
	// nl: a line break comes before the token.
	nl   bool
	line int
	// template parts: quasis[i] then exprs[i] (len(exprs) == len(quasis)-1)
	quasis []string
	exprs  [][]jsToken
	node   *jsxNode
}

func (t jsToken) is(kind jsKind, text string) bool { return t.kind == kind && t.text == text }
func (t jsToken) punct(text string) bool           { return t.is(jsPunct, text) }

// jsxNode is a JSX element (tag "" for a fragment) or a piece of its content: text, or an
// expression in braces.
type jsxNode struct {
	tag      string
	attrs    map[string]string    // string-valued attributes (className, id, …)
	exprAttr map[string][]jsToken // attributes given as {…}
	children []jsxChild
}

type jsxChild struct {
	text string
	node *jsxNode
	expr []jsToken
	// isExpr distinguishes an empty {} from empty text.
	isExpr bool
}

// jsLexer turns source text into tokens.
type jsLexer struct {
	src   string
	pos   int
	line  int
	depth int // nesting of JSX and templates, bounded
}

type jsSyntaxError struct {
	line int
	msg  string
}

func (e *jsSyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

const jsMaxDepth = 200

func (lx *jsLexer) fail(format string, args ...any) {
	panic(&jsSyntaxError{line: lx.line, msg: fmt.Sprintf(format, args...)})
}

// tokenizeJS reads a whole module.
func tokenizeJS(src string) (toks []jsToken, err error) {
	lx := &jsLexer{src: strings.TrimPrefix(src, "\ufeff"), line: 1}
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(*jsSyntaxError)
			if !ok {
				panic(r)
			}
			err = se
		}
	}()
	toks, _ = lx.tokens(0)
	return toks, nil
}

func (lx *jsLexer) peekByte(off int) byte {
	if lx.pos+off < len(lx.src) {
		return lx.src[lx.pos+off]
	}
	return 0
}

// skipSpace skips white space and comments; it reports whether a line break was met.
func (lx *jsLexer) skipSpace() bool {
	nl := false
	for lx.pos < len(lx.src) {
		c := lx.src[lx.pos]
		switch {
		case c == '\n':
			nl = true
			lx.line++
			lx.pos++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			lx.pos++
		case c == '/' && lx.peekByte(1) == '/':
			for lx.pos < len(lx.src) && lx.src[lx.pos] != '\n' {
				lx.pos++
			}
		case c == '/' && lx.peekByte(1) == '*':
			end := strings.Index(lx.src[lx.pos+2:], "*/")
			if end < 0 {
				lx.fail("unterminated comment")
			}
			body := lx.src[lx.pos : lx.pos+2+end+2]
			if strings.Contains(body, "\n") {
				nl = true
				lx.line += strings.Count(body, "\n")
			}
			lx.pos += len(body)
		case c >= 0x80:
			r, n := utf8.DecodeRuneInString(lx.src[lx.pos:])
			if !unicode.IsSpace(r) {
				return nl
			}
			lx.pos += n
		default:
			return nl
		}
	}
	return nl
}

// jsxAllowed says whether "<" after prev starts a JSX element rather than a comparison.
func jsxAllowed(prev *jsToken) bool {
	if prev == nil {
		return true
	}
	switch prev.kind {
	case jsPunct:
		switch prev.text {
		case "(", "[", "{", ",", ";", ":", "?", "=", "=>", "&&", "||", "??", "!", "+", "}":
			return true
		}
	case jsIdent:
		switch prev.text {
		case "return", "default", "case", "yield", "await":
			return true
		}
	}
	return false
}

var jsPuncts = []string{"===", "!==", "...", "**=", "=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--",
	"+=", "-=", "*=", "/=", "%=", "**"}

// tokens reads tokens until the end, or, with closer '}', until the brace that closes the
// one before (which is consumed). It returns the tokens and whether the closer was met.
func (lx *jsLexer) tokens(closer byte) ([]jsToken, bool) {
	var out []jsToken
	depth := 0
	for {
		nl := lx.skipSpace()
		if lx.pos >= len(lx.src) {
			if closer != 0 {
				lx.fail("unbalanced braces")
			}
			return out, false
		}
		var prev *jsToken
		if len(out) > 0 {
			prev = &out[len(out)-1]
		}
		c := lx.src[lx.pos]
		line := lx.line
		tok := jsToken{nl: nl, line: line}
		switch {
		case c == '}' && closer == '}' && depth == 0:
			lx.pos++
			return out, true
		case c == '"' || c == '\'':
			tok.kind, tok.text = jsString, lx.quoted(c)
		case c == '`':
			tok.kind = jsTemplate
			tok.quasis, tok.exprs = lx.template()
		case c == '<' && jsxAllowed(prev) && (isIdentStart(lx.peekByte(1)) || lx.peekByte(1) == '>'):
			tok.kind, tok.node = jsJSX, lx.jsxElement()
		case isIdentStart(c) || c >= 0x80:
			start := lx.pos
			for lx.pos < len(lx.src) {
				r, n := utf8.DecodeRuneInString(lx.src[lx.pos:])
				if !(r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
					break
				}
				lx.pos += n
			}
			if lx.pos == start {
				_, n := utf8.DecodeRuneInString(lx.src[lx.pos:])
				lx.pos += n
				tok.kind, tok.text = jsPunct, lx.src[start:lx.pos]
			} else {
				tok.kind, tok.text = jsIdent, lx.src[start:lx.pos]
			}
		case c >= '0' && c <= '9' || c == '.' && lx.peekByte(1) >= '0' && lx.peekByte(1) <= '9':
			start := lx.pos
			for lx.pos < len(lx.src) && (isIdentPart(lx.src[lx.pos]) || lx.src[lx.pos] == '.') {
				lx.pos++
			}
			tok.kind, tok.text = jsNumber, lx.src[start:lx.pos]
		default:
			tok.kind = jsPunct
			for _, p := range jsPuncts {
				if strings.HasPrefix(lx.src[lx.pos:], p) {
					tok.text = p
					break
				}
			}
			if tok.text == "" {
				tok.text = string(c)
			}
			lx.pos += len(tok.text)
			switch tok.text {
			case "{", "(", "[":
				depth++
			case "}", ")", "]":
				depth--
			}
		}
		out = append(out, tok)
	}
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// quoted reads a string literal and decodes its escapes.
func (lx *jsLexer) quoted(q byte) string {
	lx.pos++
	var b strings.Builder
	for {
		if lx.pos >= len(lx.src) {
			lx.fail("unterminated string")
		}
		c := lx.src[lx.pos]
		switch {
		case c == q:
			lx.pos++
			return b.String()
		case c == '\n':
			lx.fail("line break in a string")
		case c == '\\':
			lx.escape(&b)
		default:
			b.WriteByte(c)
			lx.pos++
		}
	}
}

// escape decodes the escape sequence at lx.pos (a backslash).
func (lx *jsLexer) escape(b *strings.Builder) {
	lx.pos++
	if lx.pos >= len(lx.src) {
		lx.fail("unterminated escape")
	}
	c := lx.src[lx.pos]
	lx.pos++
	switch c {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r', 'b', 'f', 'v', '0':
	case '\n':
		lx.line++ // line continuation
	case 'x', 'u':
		n := 2
		if c == 'u' {
			n = 4
			if lx.peekByte(0) == '{' {
				end := strings.IndexByte(lx.src[lx.pos:], '}')
				if end < 0 {
					lx.fail("bad unicode escape")
				}
				if v, err := strconv.ParseUint(lx.src[lx.pos+1:lx.pos+end], 16, 32); err == nil {
					b.WriteRune(rune(v))
				}
				lx.pos += end + 1
				return
			}
		}
		if lx.pos+n > len(lx.src) {
			lx.fail("bad escape")
		}
		if v, err := strconv.ParseUint(lx.src[lx.pos:lx.pos+n], 16, 32); err == nil {
			b.WriteRune(rune(v))
		}
		lx.pos += n
	default:
		b.WriteByte(c)
	}
}

// template reads a template literal: its text parts and the tokens of its ${…} parts.
func (lx *jsLexer) template() ([]string, [][]jsToken) {
	lx.enter()
	defer lx.leave()
	lx.pos++
	var quasis []string
	var exprs [][]jsToken
	var b strings.Builder
	for {
		if lx.pos >= len(lx.src) {
			lx.fail("unterminated template string")
		}
		c := lx.src[lx.pos]
		switch {
		case c == '`':
			lx.pos++
			return append(quasis, b.String()), exprs
		case c == '\\':
			lx.escape(&b)
		case c == '$' && lx.peekByte(1) == '{':
			lx.pos += 2
			quasis = append(quasis, b.String())
			b.Reset()
			toks, _ := lx.tokens('}')
			exprs = append(exprs, toks)
		default:
			if c == '\n' {
				lx.line++
			}
			b.WriteByte(c)
			lx.pos++
		}
	}
}

func (lx *jsLexer) enter() {
	lx.depth++
	if lx.depth > jsMaxDepth {
		lx.fail("nested too deeply")
	}
}

func (lx *jsLexer) leave() { lx.depth-- }

// jsxName reads a tag or attribute name.
func (lx *jsLexer) jsxName() string {
	start := lx.pos
	for lx.pos < len(lx.src) {
		c := lx.src[lx.pos]
		if !(isIdentPart(c) || c == '-' || c == '.' || c == ':') {
			break
		}
		lx.pos++
	}
	return lx.src[start:lx.pos]
}

// jsxElement reads an element from its "<".
func (lx *jsLexer) jsxElement() *jsxNode {
	lx.enter()
	defer lx.leave()
	lx.pos++ // <
	n := &jsxNode{tag: lx.jsxName(), attrs: map[string]string{}, exprAttr: map[string][]jsToken{}}
	for {
		lx.skipSpace()
		if lx.pos >= len(lx.src) {
			lx.fail("unterminated <%s>", n.tag)
		}
		c := lx.src[lx.pos]
		switch {
		case c == '/' && lx.peekByte(1) == '>':
			lx.pos += 2
			return n
		case c == '>':
			lx.pos++
			n.children = lx.jsxChildren(n.tag)
			return n
		case c == '{': // {...spread}
			lx.pos++
			lx.tokens('}')
		case isIdentStart(c):
			name := lx.jsxName()
			lx.skipSpace()
			if lx.peekByte(0) != '=' {
				n.attrs[name] = "true"
				continue
			}
			lx.pos++
			lx.skipSpace()
			switch q := lx.peekByte(0); q {
			case '"', '\'':
				end := strings.IndexByte(lx.src[lx.pos+1:], q)
				if end < 0 {
					lx.fail("unterminated attribute %s", name)
				}
				v := lx.src[lx.pos+1 : lx.pos+1+end]
				lx.line += strings.Count(v, "\n")
				n.attrs[name] = decodeEntities(v)
				lx.pos += end + 2
			case '{':
				lx.pos++
				n.exprAttr[name], _ = lx.tokens('}')
			default:
				lx.fail("attribute %s of <%s> has no value", name, n.tag)
			}
		default:
			lx.fail("unexpected %q in <%s>", string(c), n.tag)
		}
	}
}

// jsxChildren reads an element's content up to its closing tag (any closing tag ends it, so a
// mismatched one does not swallow the rest of the file).
func (lx *jsLexer) jsxChildren(tag string) []jsxChild {
	var out []jsxChild
	for {
		if lx.pos >= len(lx.src) {
			lx.fail("<%s> is not closed", tag)
		}
		c := lx.src[lx.pos]
		switch {
		case c == '<' && lx.peekByte(1) == '/':
			lx.pos += 2
			lx.skipSpace()
			lx.jsxName()
			lx.skipSpace()
			if lx.peekByte(0) != '>' {
				lx.fail("bad closing tag of <%s>", tag)
			}
			lx.pos++
			return out
		case c == '<':
			out = append(out, jsxChild{node: lx.jsxElement()})
		case c == '{':
			lx.pos++
			toks, _ := lx.tokens('}')
			out = append(out, jsxChild{expr: toks, isExpr: true})
		default:
			start := lx.pos
			for lx.pos < len(lx.src) && lx.src[lx.pos] != '<' && lx.src[lx.pos] != '{' {
				if lx.src[lx.pos] == '\n' {
					lx.line++
				}
				lx.pos++
			}
			if t := jsxText(lx.src[start:lx.pos]); t != "" {
				out = append(out, jsxChild{text: t})
			}
		}
	}
}

// jsxText applies JSX's white-space rule to literal text: lines are trimmed, blank lines
// dropped, and the rest joined by single spaces; entities are decoded.
func jsxText(raw string) string {
	lines := strings.Split(strings.ReplaceAll(raw, "\r\n", "\n"), "\n")
	var kept []string
	for i, l := range lines {
		if i > 0 {
			l = strings.TrimLeft(l, " \t")
		}
		if i < len(lines)-1 {
			l = strings.TrimRight(l, " \t")
		}
		if strings.TrimSpace(l) == "" && len(lines) > 1 {
			continue
		}
		kept = append(kept, l)
	}
	return decodeEntities(strings.Join(kept, " "))
}
