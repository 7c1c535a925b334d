package mobileenv

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentdesk/agentdesk/engine/limits"
)

// Pickle is one decoded pickle of a file.
type Pickle struct {
	// Value is the unpickled object.
	Value any
	// Protocol is the pickle protocol (from the PROTO opcode; 0 or 1 when absent).
	Protocol int
	// Offset and End delimit the pickle's bytes in the file (End is just after STOP).
	Offset, End int64
}

// DecodeError reports where and why a pickle could not be decoded.
type DecodeError struct {
	File   string // file name (may be empty for in-memory data)
	Offset int64  // byte offset of the failing opcode
	Op     string // opcode name, when known
	Err    error
}

func (e *DecodeError) Error() string {
	where := e.File
	if where == "" {
		where = "<pickle>"
	}
	if e.Op != "" {
		return fmt.Sprintf("%s: byte %d (%s): %v", where, e.Offset, e.Op, e.Err)
	}
	return fmt.Sprintf("%s: byte %d: %v", where, e.Offset, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// ErrForbiddenGlobal is wrapped by the error returned for a pickle that refers to a global
// outside the allow-list (os.system, posix.system, builtins.eval, ...).
var ErrForbiddenGlobal = errors.New("forbidden global")

// ErrTooLarge is wrapped by the error returned when a pickle declares more data than it holds.
var ErrTooLarge = errors.New("declared size exceeds the data")

// ReadFile decodes every pickle stored back to back in a file (a raw web-tool dump holds one
// or more; a resaved file holds one).
func ReadFile(path string) ([]Pickle, error) {
	data, err := limits.ReadFile(path, limits.Pickle)
	if err != nil {
		return nil, err
	}
	return DecodeAll(path, data)
}

// ReadFirst decodes only the first pickle of a file (what the visualiser and editor load).
func ReadFirst(path string) (Pickle, error) {
	data, err := limits.ReadFile(path, limits.Pickle)
	if err != nil {
		return Pickle{}, err
	}
	p, _, err := decodeOne(path, data, 0)
	return p, err
}

// DecodeAll decodes the pickles of data until its end. name is used in error messages.
func DecodeAll(name string, data []byte) ([]Pickle, error) {
	var out []Pickle
	pos := 0
	for pos < len(data) {
		p, next, err := decodeOne(name, data, pos)
		if err != nil {
			return out, err
		}
		out = append(out, p)
		pos = next
	}
	if len(out) == 0 {
		return nil, &DecodeError{File: name, Offset: 0, Err: errors.New("empty file: no pickle")}
	}
	return out, nil
}

// Decode decodes a single pickle starting at the beginning of data; trailing bytes are ignored.
func Decode(data []byte) (any, error) {
	p, _, err := decodeOne("", data, 0)
	return p.Value, err
}

// global is a resolved, allowed global (module already normalised to numpy.core.*).
type global struct{ module, name string }

func (g *global) String() string { return g.module + "." + g.name }

// allowedGlobals is the strict class resolver: the only callables a pickle may name.
var allowedGlobals = map[string]bool{
	"numpy.core.multiarray._reconstruct": true,
	"numpy.core.multiarray.scalar":       true,
	"numpy.core.numeric._frombuffer":     true,
	"numpy.ndarray":                      true,
	"numpy.dtype":                        true,
	"_codecs.encode":                     true,
	"builtins.bytes":                     true,
	"builtins.bytearray":                 true,
}

func resolveGlobal(module, name string) (*global, error) {
	m := module
	if strings.HasPrefix(m, "numpy._core.") || m == "numpy._core" {
		m = "numpy.core" + strings.TrimPrefix(m, "numpy._core")
	}
	if m == "__builtin__" {
		m = "builtins"
	}
	if !allowedGlobals[m+"."+name] {
		return nil, fmt.Errorf("%w %s.%s refused (only numpy arrays, dtypes and scalars are allowed)", ErrForbiddenGlobal, module, name)
	}
	return &global{module: m, name: name}, nil
}

type markT struct{}

var theMark = &markT{}

type unpickler struct {
	name  string
	data  []byte
	pos   int
	stack []any
	marks []int
	memo  map[int]any
	proto int
	// keyIdx indexes the str keys of large dicts being built (SETITEMS replaces equal keys;
	// a linear search would make a crafted many-key dict quadratic).
	keyIdx map[*Dict]map[string]int
	// unbuilt holds the arrays and dtypes made by REDUCE whose BUILD has not come yet, with the
	// offset of their REDUCE. numpy completes both with BUILD; one still here at STOP is an
	// incomplete object (an array with no dtype, shape or data) and the pickle is refused.
	unbuilt map[any]int
}

func (u *unpickler) fail(start int, op string, err error) error {
	return &DecodeError{File: u.name, Offset: int64(start), Op: op, Err: err}
}

func (u *unpickler) need(n uint64) ([]byte, error) {
	if n > uint64(len(u.data)-u.pos) {
		return nil, fmt.Errorf("%w: %d bytes declared, %d left in the file", ErrTooLarge, n, len(u.data)-u.pos)
	}
	b := u.data[u.pos : u.pos+int(n)]
	u.pos += int(n)
	return b, nil
}

func (u *unpickler) line() (string, error) {
	i := strings.IndexByte(string(u.data[u.pos:min(len(u.data), u.pos+4096)]), '\n')
	if i < 0 {
		return "", errors.New("unterminated text argument")
	}
	s := string(u.data[u.pos : u.pos+i])
	u.pos += i + 1
	return s, nil
}

func (u *unpickler) push(v any) { u.stack = append(u.stack, v) }

func (u *unpickler) pop() (any, error) {
	n := len(u.stack)
	if n == 0 || (len(u.marks) > 0 && u.marks[len(u.marks)-1] == n) {
		return nil, errors.New("stack underflow")
	}
	v := u.stack[n-1]
	u.stack = u.stack[:n-1]
	return v, nil
}

func (u *unpickler) top() (any, error) {
	n := len(u.stack)
	if n == 0 || (len(u.marks) > 0 && u.marks[len(u.marks)-1] == n) {
		return nil, errors.New("stack underflow")
	}
	return u.stack[n-1], nil
}

func (u *unpickler) popMark() ([]any, error) {
	if len(u.marks) == 0 {
		return nil, errors.New("no MARK on the stack")
	}
	m := u.marks[len(u.marks)-1]
	u.marks = u.marks[:len(u.marks)-1]
	items := append([]any(nil), u.stack[m:]...)
	u.stack = u.stack[:m]
	return items, nil
}

func (u *unpickler) memoGet(i int) (any, error) {
	v, ok := u.memo[i]
	if !ok {
		return nil, fmt.Errorf("memo key %d not found", i)
	}
	return v, nil
}

var opNames = map[byte]string{
	0x80: "PROTO", 0x95: "FRAME", 0x94: "MEMOIZE", 'h': "BINGET", 'j': "LONG_BINGET", 'g': "GET",
	'q': "BINPUT", 'r': "LONG_BINPUT", 'p': "PUT", '(': "MARK", '.': "STOP", '}': "EMPTY_DICT",
	'd': "DICT", 's': "SETITEM", 'u': "SETITEMS", ']': "EMPTY_LIST", 'l': "LIST", 'a': "APPEND",
	'e': "APPENDS", ')': "EMPTY_TUPLE", 't': "TUPLE", 0x85: "TUPLE1", 0x86: "TUPLE2",
	0x87: "TUPLE3", 0x8c: "SHORT_BINUNICODE", 'X': "BINUNICODE", 0x8d: "BINUNICODE8",
	'V': "UNICODE", 'C': "SHORT_BINBYTES", 'B': "BINBYTES", 0x8e: "BINBYTES8",
	0x96: "BYTEARRAY8", 'K': "BININT1", 'M': "BININT2", 'J': "BININT", 'I': "INT", 'L': "LONG",
	0x8a: "LONG1", 0x8b: "LONG4", 'G': "BINFLOAT", 'F': "FLOAT", 'N': "NONE", 0x88: "NEWTRUE",
	0x89: "NEWFALSE", 0x93: "STACK_GLOBAL", 'c': "GLOBAL", 'R': "REDUCE", 'b': "BUILD",
	'0': "POP", '1': "POP_MARK", '2': "DUP", 'U': "SHORT_BINSTRING", 'T': "BINSTRING",
	'S': "STRING", 0x81: "NEWOBJ", 0x92: "NEWOBJ_EX", 'i': "INST", 'o': "OBJ", 'P': "PERSID",
	'Q': "BINPERSID", 0x82: "EXT1", 0x83: "EXT2", 0x84: "EXT4", 0x8f: "EMPTY_SET",
	0x90: "ADDITEMS", 0x91: "FROZENSET", 0x97: "NEXT_BUFFER", 0x98: "READONLY_BUFFER",
}

func decodeOne(name string, data []byte, start int) (p Pickle, next int, err error) {
	u := &unpickler{name: name, data: data, pos: start, memo: map[int]any{}}
	p.Offset = int64(start)
	for {
		if u.pos >= len(data) {
			return p, u.pos, u.fail(u.pos, "", errors.New("unexpected end of data (no STOP)"))
		}
		at := u.pos
		op := data[u.pos]
		u.pos++
		if e := u.step(op); e != nil {
			if e == errStop {
				v, perr := u.pop()
				if perr != nil || len(u.stack) != 0 || len(u.marks) != 0 {
					return p, u.pos, u.fail(at, "STOP", errors.New("malformed stack at STOP"))
				}
				if err := u.incomplete(); err != nil {
					return p, u.pos, err
				}
				if g, ok := v.(*global); ok {
					return p, u.pos, u.fail(at, "STOP", fmt.Errorf("the pickle is the class %s, not a value", g))
				}
				p.Value = v
				p.Protocol = u.proto
				p.End = int64(u.pos)
				return p, u.pos, nil
			}
			opn := opNames[op]
			if opn == "" {
				opn = fmt.Sprintf("opcode 0x%02x", op)
			}
			return p, u.pos, u.fail(at, opn, e)
		}
	}
}

var errStop = errors.New("stop")

// ErrIncomplete is wrapped by the error returned for a pickle holding an object that was
// created but never completed: a numpy array or dtype whose BUILD never came.
var ErrIncomplete = errors.New("incomplete object")

// markUnbuilt notes an object made by the REDUCE being run, which only BUILD completes.
func (u *unpickler) markUnbuilt(v any) {
	if u.unbuilt == nil {
		u.unbuilt = map[any]int{}
	}
	u.unbuilt[v] = u.pos - 1
}

// incomplete reports the first object (by offset) that REDUCE created and BUILD never completed.
func (u *unpickler) incomplete() error {
	first, what := -1, ""
	for v, at := range u.unbuilt {
		if first < 0 || at < first {
			first, what = at, TypeName(v)
		}
	}
	if first < 0 {
		return nil
	}
	return u.fail(first, "REDUCE", fmt.Errorf("%w: the %s created here is never completed by BUILD (a truncated or hand-made pickle)", ErrIncomplete, what))
}

func (u *unpickler) step(op byte) error {
	switch op {
	case 0x80: // PROTO
		b, err := u.need(1)
		if err != nil {
			return err
		}
		if b[0] > 5 {
			return fmt.Errorf("unsupported pickle protocol %d", b[0])
		}
		u.proto = int(b[0])
	case 0x95: // FRAME
		b, err := u.need(8)
		if err != nil {
			return err
		}
		n := binary.LittleEndian.Uint64(b)
		if n > uint64(len(u.data)-u.pos) {
			return fmt.Errorf("%w: frame of %d bytes, %d left in the file", ErrTooLarge, n, len(u.data)-u.pos)
		}
	case '.':
		return errStop
	case '(':
		u.marks = append(u.marks, len(u.stack))
	case 0x94: // MEMOIZE
		v, err := u.top()
		if err != nil {
			return err
		}
		u.memo[len(u.memo)] = v
	case 'q', 'r', 'p':
		var idx int
		switch op {
		case 'q':
			b, err := u.need(1)
			if err != nil {
				return err
			}
			idx = int(b[0])
		case 'r':
			b, err := u.need(4)
			if err != nil {
				return err
			}
			idx = int(binary.LittleEndian.Uint32(b))
		default:
			s, err := u.line()
			if err != nil {
				return err
			}
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				return fmt.Errorf("bad memo index %q", s)
			}
			idx = n
		}
		v, err := u.top()
		if err != nil {
			return err
		}
		u.memo[idx] = v
	case 'h', 'j', 'g':
		var idx int
		switch op {
		case 'h':
			b, err := u.need(1)
			if err != nil {
				return err
			}
			idx = int(b[0])
		case 'j':
			b, err := u.need(4)
			if err != nil {
				return err
			}
			idx = int(binary.LittleEndian.Uint32(b))
		default:
			s, err := u.line()
			if err != nil {
				return err
			}
			n, err := strconv.Atoi(s)
			if err != nil {
				return fmt.Errorf("bad memo index %q", s)
			}
			idx = n
		}
		v, err := u.memoGet(idx)
		if err != nil {
			return err
		}
		u.push(v)
	case '}':
		u.push(&Dict{})
	case 'd':
		items, err := u.popMark()
		if err != nil {
			return err
		}
		d := &Dict{}
		if err := u.setItems(d, items); err != nil {
			return err
		}
		u.push(d)
	case ']':
		u.push(&List{})
	case 'l':
		items, err := u.popMark()
		if err != nil {
			return err
		}
		u.push(&List{Items: items})
	case ')':
		u.push(&Tuple{})
	case 't':
		items, err := u.popMark()
		if err != nil {
			return err
		}
		u.push(&Tuple{Items: items})
	case 0x85, 0x86, 0x87:
		n := int(op-0x85) + 1
		items := make([]any, n)
		for i := n - 1; i >= 0; i-- {
			v, err := u.pop()
			if err != nil {
				return err
			}
			items[i] = v
		}
		u.push(&Tuple{Items: items})
	case 's':
		v, err := u.pop()
		if err != nil {
			return err
		}
		k, err := u.pop()
		if err != nil {
			return err
		}
		t, err := u.top()
		if err != nil {
			return err
		}
		d, ok := t.(*Dict)
		if !ok {
			return fmt.Errorf("SETITEM on %s", TypeName(t))
		}
		return u.setItems(d, []any{k, v})
	case 'u':
		items, err := u.popMark()
		if err != nil {
			return err
		}
		t, err := u.top()
		if err != nil {
			return err
		}
		d, ok := t.(*Dict)
		if !ok {
			return fmt.Errorf("SETITEMS on %s", TypeName(t))
		}
		return u.setItems(d, items)
	case 'a':
		v, err := u.pop()
		if err != nil {
			return err
		}
		t, err := u.top()
		if err != nil {
			return err
		}
		l, ok := t.(*List)
		if !ok {
			return fmt.Errorf("APPEND on %s", TypeName(t))
		}
		l.Items = append(l.Items, v)
	case 'e':
		items, err := u.popMark()
		if err != nil {
			return err
		}
		t, err := u.top()
		if err != nil {
			return err
		}
		l, ok := t.(*List)
		if !ok {
			return fmt.Errorf("APPENDS on %s", TypeName(t))
		}
		l.Items = append(l.Items, items...)
	case 0x8c, 'X', 0x8d:
		var n uint64
		switch op {
		case 0x8c:
			b, err := u.need(1)
			if err != nil {
				return err
			}
			n = uint64(b[0])
		case 'X':
			b, err := u.need(4)
			if err != nil {
				return err
			}
			n = uint64(binary.LittleEndian.Uint32(b))
		default:
			b, err := u.need(8)
			if err != nil {
				return err
			}
			n = binary.LittleEndian.Uint64(b)
		}
		b, err := u.need(n)
		if err != nil {
			return err
		}
		if !utf8.Valid(b) {
			// Python's pickler writes lone surrogates with "surrogatepass"; keep the bytes
			// verbatim (Go strings may hold any bytes) rather than failing.
			return u.pushStr(string(b))
		}
		return u.pushStr(string(b))
	case 'V':
		s, err := u.line()
		if err != nil {
			return err
		}
		t, err := rawUnicodeEscape(s)
		if err != nil {
			return err
		}
		return u.pushStr(t)
	case 'C', 'B', 0x8e, 0x96:
		var n uint64
		switch op {
		case 'C':
			b, err := u.need(1)
			if err != nil {
				return err
			}
			n = uint64(b[0])
		case 'B':
			b, err := u.need(4)
			if err != nil {
				return err
			}
			n = uint64(binary.LittleEndian.Uint32(b))
		default:
			b, err := u.need(8)
			if err != nil {
				return err
			}
			n = binary.LittleEndian.Uint64(b)
		}
		b, err := u.need(n)
		if err != nil {
			return err
		}
		u.push(&Bytes{B: b, ByteArray: op == 0x96})
	case 'U', 'T':
		// Python 2 str: decoded as bytes (the pickle module's encoding="bytes" behaviour).
		var n uint64
		if op == 'U' {
			b, err := u.need(1)
			if err != nil {
				return err
			}
			n = uint64(b[0])
		} else {
			b, err := u.need(4)
			if err != nil {
				return err
			}
			n = uint64(binary.LittleEndian.Uint32(b))
		}
		b, err := u.need(n)
		if err != nil {
			return err
		}
		u.push(&Bytes{B: b})
	case 'K':
		b, err := u.need(1)
		if err != nil {
			return err
		}
		u.push(int64(b[0]))
	case 'M':
		b, err := u.need(2)
		if err != nil {
			return err
		}
		u.push(int64(binary.LittleEndian.Uint16(b)))
	case 'J':
		b, err := u.need(4)
		if err != nil {
			return err
		}
		u.push(int64(int32(binary.LittleEndian.Uint32(b))))
	case 0x8a, 0x8b:
		var n uint64
		if op == 0x8a {
			b, err := u.need(1)
			if err != nil {
				return err
			}
			n = uint64(b[0])
		} else {
			b, err := u.need(4)
			if err != nil {
				return err
			}
			n = uint64(int32(binary.LittleEndian.Uint32(b)))
			if int32(n) < 0 {
				return errors.New("LONG4 with negative length")
			}
		}
		b, err := u.need(n)
		if err != nil {
			return err
		}
		u.push(decodeLong(b))
	case 'I', 'L':
		s, err := u.line()
		if err != nil {
			return err
		}
		s = strings.TrimSuffix(s, "L")
		switch s {
		case "00":
			u.push(false)
			return nil
		case "01":
			u.push(true)
			return nil
		}
		bi, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return fmt.Errorf("bad integer %q", s)
		}
		u.push(normInt(bi))
	case 'G':
		b, err := u.need(8)
		if err != nil {
			return err
		}
		u.push(math.Float64frombits(binary.BigEndian.Uint64(b)))
	case 'F':
		s, err := u.line()
		if err != nil {
			return err
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("bad float %q", s)
		}
		u.push(f)
	case 'N':
		u.push(nil)
	case 0x88:
		u.push(true)
	case 0x89:
		u.push(false)
	case '0':
		if len(u.marks) > 0 && u.marks[len(u.marks)-1] == len(u.stack) {
			u.marks = u.marks[:len(u.marks)-1]
			return nil
		}
		_, err := u.pop()
		return err
	case '1':
		_, err := u.popMark()
		return err
	case '2':
		v, err := u.top()
		if err != nil {
			return err
		}
		u.push(v)
	case 'c':
		mod, err := u.line()
		if err != nil {
			return err
		}
		nm, err := u.line()
		if err != nil {
			return err
		}
		g, err := resolveGlobal(mod, nm)
		if err != nil {
			return err
		}
		u.push(g)
	case 0x93:
		nv, err := u.pop()
		if err != nil {
			return err
		}
		mv, err := u.pop()
		if err != nil {
			return err
		}
		mod, ok1 := mv.(*Str)
		nm, ok2 := nv.(*Str)
		if !ok1 || !ok2 {
			return errors.New("STACK_GLOBAL needs two str")
		}
		g, err := resolveGlobal(mod.S, nm.S)
		if err != nil {
			return err
		}
		u.push(g)
	case 'R':
		args, err := u.pop()
		if err != nil {
			return err
		}
		fn, err := u.pop()
		if err != nil {
			return err
		}
		g, ok := fn.(*global)
		if !ok {
			return fmt.Errorf("REDUCE on %s (only allowed globals can be called)", TypeName(fn))
		}
		at, ok := args.(*Tuple)
		if !ok {
			return fmt.Errorf("REDUCE arguments are %s, not tuple", TypeName(args))
		}
		v, err := callGlobal(g, at.Items, len(u.data))
		if err != nil {
			return err
		}
		switch x := v.(type) {
		case *NDArray:
			if x.DType == nil { // _reconstruct: BUILD gives it dtype, shape and data
				u.markUnbuilt(v)
			}
		case *DType:
			u.markUnbuilt(v)
		}
		u.push(v)
	case 'b':
		state, err := u.pop()
		if err != nil {
			return err
		}
		t, err := u.top()
		if err != nil {
			return err
		}
		if err := build(t, state, len(u.data)); err != nil {
			return err
		}
		delete(u.unbuilt, t)
		return nil
	default:
		if n, ok := opNames[op]; ok {
			return fmt.Errorf("opcode %s is not allowed in annotation pickles", n)
		}
		return fmt.Errorf("invalid opcode 0x%02x", op)
	}
	return nil
}

func (u *unpickler) pushStr(s string) error {
	u.push(&Str{S: s})
	return nil
}

func (u *unpickler) setItems(d *Dict, items []any) error {
	if len(items)%2 != 0 {
		return errors.New("odd number of dict items")
	}
	for i := 0; i < len(items); i += 2 {
		k := items[i]
		switch k.(type) {
		case *Dict, *List, *NDArray:
			return fmt.Errorf("unhashable dict key of type %s", TypeName(k))
		}
		// Python replaces the value of an equal key in place.
		if ks, ok := k.(*Str); ok && (len(d.Keys)+len(items) > 16 || u.keyIdx[d] != nil) {
			if u.keyIdx == nil {
				u.keyIdx = map[*Dict]map[string]int{}
			}
			idx := u.keyIdx[d]
			if idx == nil {
				idx = map[string]int{}
				for j, old := range d.Keys {
					if s, ok := old.(*Str); ok {
						idx[s.S] = j
					}
				}
				u.keyIdx[d] = idx
			}
			if j, ok := idx[ks.S]; ok {
				d.Vals[j] = items[i+1]
			} else {
				idx[ks.S] = len(d.Keys)
				d.Keys = append(d.Keys, k)
				d.Vals = append(d.Vals, items[i+1])
			}
			continue
		}
		replaced := false
		for j, old := range d.Keys {
			if keyEqual(old, k) {
				d.Vals[j] = items[i+1]
				replaced = true
				break
			}
		}
		if !replaced {
			d.Keys = append(d.Keys, k)
			d.Vals = append(d.Vals, items[i+1])
		}
	}
	return nil
}

func keyEqual(a, b any) bool {
	switch x := a.(type) {
	case *Str:
		y, ok := b.(*Str)
		return ok && x.S == y.S
	case int64:
		y, ok := AsInt(b)
		_, isScalar := b.(*Scalar)
		return ok && !isScalar && x == y
	case nil:
		return b == nil
	}
	return a == b
}

func decodeLong(b []byte) any {
	if len(b) == 0 {
		return int64(0)
	}
	// little-endian two's complement
	be := make([]byte, len(b))
	for i := range b {
		be[len(b)-1-i] = b[i]
	}
	v := new(big.Int).SetBytes(be)
	if b[len(b)-1]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return normInt(v)
}

func normInt(v *big.Int) any {
	if v.IsInt64() {
		return v.Int64()
	}
	return v
}

func rawUnicodeEscape(s string) (string, error) {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == 'u' || s[i+1] == 'U') {
			n := 4
			if s[i+1] == 'U' {
				n = 8
			}
			if i+2+n > len(s) {
				return "", errors.New("truncated \\u escape")
			}
			r, err := strconv.ParseUint(s[i+2:i+2+n], 16, 32)
			if err != nil {
				return "", err
			}
			sb.WriteRune(rune(r))
			i += 1 + n
			continue
		}
		sb.WriteRune(rune(s[i])) // latin-1
	}
	return sb.String(), nil
}

// arrayBytes checks a declared array size against the data actually present. fileSize bounds
// the declaration before anything is allocated.
func arrayBytes(shape []int, d *DType, fileSize int) (int, error) {
	total := uint64(d.Size)
	for _, s := range shape {
		if s < 0 {
			return 0, fmt.Errorf("negative array dimension %d", s)
		}
		if s != 0 && total > math.MaxInt64/uint64(s) {
			return 0, fmt.Errorf("%w: array shape %v overflows", ErrTooLarge, shape)
		}
		total *= uint64(s)
	}
	if total > uint64(fileSize) {
		return 0, fmt.Errorf("%w: array of shape %v and dtype %s declares %d bytes, the file has %d", ErrTooLarge, shape, d, total, fileSize)
	}
	return int(total), nil
}

func toShape(v any) ([]int, error) {
	t, ok := v.(*Tuple)
	if !ok {
		return nil, fmt.Errorf("array shape is %s, not tuple", TypeName(v))
	}
	shape := make([]int, len(t.Items))
	for i, x := range t.Items {
		n, ok := x.(int64)
		if !ok || n < 0 || n > math.MaxInt32*64 {
			return nil, fmt.Errorf("bad array dimension %v", x)
		}
		shape[i] = int(n)
	}
	return shape, nil
}

func callGlobal(g *global, args []any, fileSize int) (any, error) {
	switch g.String() {
	case "numpy.core.multiarray._reconstruct":
		if len(args) != 3 {
			return nil, fmt.Errorf("_reconstruct takes 3 arguments, got %d", len(args))
		}
		if sub, ok := args[0].(*global); !ok || sub.String() != "numpy.ndarray" {
			return nil, errors.New("_reconstruct of something else than numpy.ndarray")
		}
		return &NDArray{}, nil
	case "numpy.dtype":
		if len(args) < 1 || len(args) > 3 {
			return nil, fmt.Errorf("dtype takes 1 to 3 arguments, got %d", len(args))
		}
		s, ok := args[0].(*Str)
		if !ok {
			return nil, fmt.Errorf("dtype of %s", TypeName(args[0]))
		}
		return NewDType(s.S)
	case "numpy.core.multiarray.scalar":
		if len(args) != 2 {
			return nil, fmt.Errorf("scalar takes 2 arguments, got %d", len(args))
		}
		d, ok := args[0].(*DType)
		if !ok {
			return nil, fmt.Errorf("scalar with dtype of type %s", TypeName(args[0]))
		}
		raw, err := bytesArg(args[1])
		if err != nil {
			return nil, err
		}
		if len(raw) != d.Size {
			return nil, fmt.Errorf("scalar of dtype %s with %d bytes", d, len(raw))
		}
		return &Scalar{DType: d, Raw: raw}, nil
	case "numpy.core.numeric._frombuffer":
		if len(args) != 4 {
			return nil, fmt.Errorf("_frombuffer takes 4 arguments, got %d", len(args))
		}
		raw, err := bytesArg(args[0])
		if err != nil {
			return nil, err
		}
		d, ok := args[1].(*DType)
		if !ok {
			return nil, fmt.Errorf("_frombuffer with dtype of type %s", TypeName(args[1]))
		}
		shape, err := toShape(args[2])
		if err != nil {
			return nil, err
		}
		order, ok := args[3].(*Str)
		if !ok || (order.S != "C" && order.S != "F") {
			return nil, errors.New("_frombuffer order must be 'C' or 'F'")
		}
		n, err := arrayBytes(shape, d, fileSize)
		if err != nil {
			return nil, err
		}
		if n != len(raw) {
			return nil, fmt.Errorf("array of shape %v and dtype %s needs %d bytes, got %d", shape, d, n, len(raw))
		}
		return &NDArray{DType: d, Shape: shape, Fortran: order.S == "F", Data: raw}, nil
	case "_codecs.encode":
		if len(args) < 1 || len(args) > 2 {
			return nil, errors.New("_codecs.encode takes 1 or 2 arguments")
		}
		s, ok := args[0].(*Str)
		if !ok {
			return nil, errors.New("_codecs.encode of a non-str")
		}
		enc := "utf-8"
		if len(args) == 2 {
			e, ok := args[1].(*Str)
			if !ok {
				return nil, errors.New("_codecs.encode encoding is not a str")
			}
			enc = strings.ToLower(strings.ReplaceAll(e.S, "_", "-"))
		}
		switch enc {
		case "latin1", "latin-1", "iso-8859-1", "iso8859-1", "l1":
			out := make([]byte, 0, len(s.S))
			for _, r := range s.S {
				if r > 0xff {
					return nil, fmt.Errorf("_codecs.encode: %U is not latin-1", r)
				}
				out = append(out, byte(r))
			}
			return &Bytes{B: out}, nil
		case "utf-8", "utf8":
			return &Bytes{B: []byte(s.S)}, nil
		}
		return nil, fmt.Errorf("_codecs.encode: unsupported encoding %q", enc)
	case "builtins.bytes", "builtins.bytearray":
		ba := g.name == "bytearray"
		if len(args) == 0 {
			return &Bytes{ByteArray: ba}, nil
		}
		if len(args) == 1 {
			if b, ok := args[0].(*Bytes); ok {
				return &Bytes{B: b.B, ByteArray: ba}, nil
			}
		}
		return nil, fmt.Errorf("%s with unsupported arguments", g)
	}
	return nil, fmt.Errorf("%w %s cannot be called", ErrForbiddenGlobal, g)
}

func bytesArg(v any) ([]byte, error) {
	b, ok := v.(*Bytes)
	if !ok {
		return nil, fmt.Errorf("expected bytes, got %s", TypeName(v))
	}
	return b.B, nil
}

func build(target, state any, fileSize int) error {
	switch t := target.(type) {
	case *DType:
		st, ok := state.(*Tuple)
		if !ok || len(st.Items) < 2 {
			return errors.New("bad dtype state")
		}
		e, ok := st.Items[1].(*Str)
		if !ok || len(e.S) != 1 || strings.IndexByte("<>|=", e.S[0]) < 0 {
			return errors.New("bad dtype byte order")
		}
		if len(st.Items) >= 8 {
			if flags, ok := st.Items[7].(int64); ok && flags != 0 {
				return fmt.Errorf("dtype with flags %d (object or structured dtypes are not supported)", flags)
			}
			if st.Items[2] != nil || st.Items[3] != nil || st.Items[4] != nil {
				return errors.New("structured or sub-array dtypes are not supported")
			}
		}
		en := e.S[0]
		if en == '=' {
			en = '<'
		}
		if t.Size == 1 {
			en = '|'
		}
		// Applying the state again (a memoised dtype) is harmless.
		t.Endian = en
		t.built = true
		return nil
	case *NDArray:
		st, ok := state.(*Tuple)
		if !ok || len(st.Items) != 5 {
			return errors.New("bad ndarray state (want a 5-tuple)")
		}
		if t.DType != nil {
			return errors.New("ndarray state applied twice")
		}
		shape, err := toShape(st.Items[1])
		if err != nil {
			return err
		}
		d, ok := st.Items[2].(*DType)
		if !ok {
			return fmt.Errorf("ndarray dtype is %s", TypeName(st.Items[2]))
		}
		fortran, ok := st.Items[3].(bool)
		if !ok {
			if n, isInt := st.Items[3].(int64); isInt {
				fortran = n != 0
			} else {
				return errors.New("bad ndarray fortran flag")
			}
		}
		n, err := arrayBytes(shape, d, fileSize)
		if err != nil {
			return err
		}
		raw, err := bytesArg(st.Items[4])
		if err != nil {
			if _, isList := st.Items[4].(*List); isList {
				return errors.New("object arrays are not supported")
			}
			return err
		}
		if len(raw) != n {
			return fmt.Errorf("array of shape %v and dtype %s needs %d bytes, got %d", shape, d, n, len(raw))
		}
		t.DType, t.Shape, t.Fortran, t.Data = d, shape, fortran, raw
		return nil
	}
	return fmt.Errorf("BUILD on %s is not allowed", TypeName(target))
}
