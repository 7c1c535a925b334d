package templates

import "unicode"

// wordUndo keeps the editor's earlier texts at word boundaries, so that undo takes back a word
// (or a paste) at a time rather than a character, as editors do.
type wordUndo struct {
	states, redo []string
	prev         string // the text as last seen
}

func (u *wordUndo) reset(text string) { u.states, u.redo, u.prev = nil, nil, text }

// record notes a change to text: the state before it is kept when the change starts a new
// word (a blank or punctuation typed or deleted, or more than one character at once).
func (u *wordUndo) record(text string) {
	if text == u.prev {
		return
	}
	if len(u.states) == 0 || wordBoundary(u.prev, text) {
		u.states = append(u.states, u.prev)
	}
	u.redo, u.prev = nil, text
}

// wordBoundary reports whether going from a to b crosses a word boundary.
func wordBoundary(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	if d := len(rb) - len(ra); d != 1 && d != -1 {
		return true
	}
	long, short := rb, ra
	if len(ra) > len(rb) {
		long, short = ra, rb
	}
	i := 0
	for i < len(short) && short[i] == long[i] {
		i++
	}
	if string(long[i+1:]) != string(short[i:]) {
		return true // not a single character typed or deleted
	}
	r := long[i]
	return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r)
}

// undo returns the text before the last word, and false when there is none.
func (u *wordUndo) undo(cur string) (string, bool) {
	if len(u.states) == 0 {
		return cur, false
	}
	s := u.states[len(u.states)-1]
	u.states = u.states[:len(u.states)-1]
	u.redo = append(u.redo, cur)
	u.prev = s
	return s, true
}

// redoOne brings back what the last undo took.
func (u *wordUndo) redoOne(cur string) (string, bool) {
	if len(u.redo) == 0 {
		return cur, false
	}
	s := u.redo[len(u.redo)-1]
	u.redo = u.redo[:len(u.redo)-1]
	u.states = append(u.states, cur)
	u.prev = s
	return s, true
}
