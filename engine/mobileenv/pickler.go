package mobileenv

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/big"
	"unicode/utf8"
)

// Pickle protocol 4 writer.
//
// It emits exactly what CPython's C pickler (default protocol 4) writes for the values of this
// package, so that a file read and written back unchanged is byte-identical to the input:
//
//   - PROTO outside framing; FRAME opcodes of at least 64 KiB, a frame being closed at the start
//     of the first object saved after it reached 64 KiB; byte or text payloads of 64 KiB or
//     more written outside frames; the last frame closed after STOP (frames under 4 bytes lose
//     their header);
//   - every str, bytes, tuple, list, dict, array, dtype and scalar memoised (MEMOIZE) and
//     referred back with BINGET/LONG_BINGET when the same object (same Go pointer) occurs again;
//     CPython's singletons (the empty str and one-character Latin-1 strings, empty and
//     one-byte bytes) are shared by value like CPython shares them;
//   - lists and dicts in batches of 1000 (APPEND/SETITEM for a single item);
//   - numpy arrays as numpy.core.multiarray._reconstruct(numpy.ndarray, (0,), b'b') + BUILD
//     (1, shape, dtype, is_fortran, raw bytes), dtypes as numpy.dtype(code, False, True) +
//     BUILD (3, endian, None, None, None, -1, -1, 0), scalars as
//     numpy.core.multiarray.scalar(dtype, raw bytes) where, like numpy, the dtype of a scalar is
//     the built-in dtype object of its type (one per pickle), not the dtype it was read with.

const (
	frameSizeTarget = 64 * 1024
	frameHeaderSize = 9
	batchSize       = 1000
)

type (
	strKey     string // CPython's shared one-character / empty strings
	bytesKey   string // CPython's shared empty / one-byte bytes
	modKey     string // module-name strings of globals
	globKey    string // a global (function or type)
	builtinKey string // numpy built-in dtype used by scalars
)

type pickler struct {
	depth      int
	buf        []byte
	framing    bool
	frameStart int
	memo       map[any]int
}

// Encode writes v as one protocol-4 pickle.
func Encode(v any) ([]byte, error) {
	p := &pickler{frameStart: -1, memo: map[any]int{}}
	p.buf = make([]byte, 0, estimateSize(v, map[any]bool{}, 0)+4096)
	p.buf = append(p.buf, 0x80, 4)
	p.framing = true
	if err := p.save(v); err != nil {
		return nil, err
	}
	p.write([]byte{'.'})
	p.commitFrame()
	return p.buf, nil
}

// EncodeTo writes v as one protocol-4 pickle to w.
func EncodeTo(w io.Writer, v any) error {
	b, err := Encode(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func (p *pickler) write(b []byte) {
	if p.framing && p.frameStart < 0 {
		p.frameStart = len(p.buf)
		p.buf = append(p.buf, make([]byte, frameHeaderSize)...)
	}
	p.buf = append(p.buf, b...)
}

func (p *pickler) commitFrame() {
	if p.frameStart < 0 {
		return
	}
	n := len(p.buf) - p.frameStart - frameHeaderSize
	if n >= 4 {
		p.buf[p.frameStart] = 0x95
		binary.LittleEndian.PutUint64(p.buf[p.frameStart+1:], uint64(n))
	} else {
		copy(p.buf[p.frameStart:], p.buf[p.frameStart+frameHeaderSize:])
		p.buf = p.buf[:len(p.buf)-frameHeaderSize]
	}
	p.frameStart = -1
}

func (p *pickler) boundary() {
	if p.framing && p.frameStart >= 0 && len(p.buf)-p.frameStart-frameHeaderSize >= frameSizeTarget {
		p.commitFrame()
	}
}

func (p *pickler) writeBytes(header, data []byte) {
	if len(data) >= frameSizeTarget {
		p.commitFrame()
		p.framing = false
		p.write(header)
		p.write(data)
		p.framing = true
		return
	}
	p.write(header)
	p.write(data)
}

func (p *pickler) memoPut(key any) {
	p.memo[key] = len(p.memo)
	p.write([]byte{0x94})
}

func (p *pickler) memoGet(key any) bool {
	i, ok := p.memo[key]
	if !ok {
		return false
	}
	if i < 256 {
		p.write([]byte{'h', byte(i)})
	} else {
		var b [5]byte
		b[0] = 'j'
		binary.LittleEndian.PutUint32(b[1:], uint32(i))
		p.write(b[:])
	}
	return true
}

func strMemoKey(s *Str) any {
	if s.S == "" {
		return strKey("")
	}
	if r, n := utf8.DecodeRuneInString(s.S); n == len(s.S) && r < 256 && r != utf8.RuneError {
		return strKey(s.S)
	}
	return s
}

func bytesMemoKey(b *Bytes) any {
	if !b.ByteArray && len(b.B) <= 1 {
		return bytesKey(b.B)
	}
	return b
}

func (p *pickler) save(v any) error {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		return fmt.Errorf("value nested deeper than %d levels", maxNesting)
	}
	p.boundary()
	switch x := v.(type) {
	case nil:
		p.write([]byte{'N'})
	case bool:
		if x {
			p.write([]byte{0x88})
		} else {
			p.write([]byte{0x89})
		}
	case int:
		p.saveInt(int64(x))
	case int64:
		p.saveInt(x)
	case *big.Int:
		if x.IsInt64() {
			p.saveInt(x.Int64())
		} else {
			p.saveLong(encodeLong(x))
		}
	case float64:
		var b [9]byte
		b[0] = 'G'
		binary.BigEndian.PutUint64(b[1:], math.Float64bits(x))
		p.write(b[:])
	case string:
		return p.save(&Str{S: x})
	case *Str:
		key := strMemoKey(x)
		if p.memoGet(key) {
			return nil
		}
		p.saveStrData(x.S)
		p.memoPut(key)
	case *Bytes:
		key := bytesMemoKey(x)
		if p.memoGet(key) {
			return nil
		}
		if x.ByteArray {
			if err := p.saveGlobal("builtins", "bytearray"); err != nil {
				return err
			}
			if err := p.save(&Tuple{Items: []any{&Bytes{B: x.B}}}); err != nil {
				return err
			}
			p.write([]byte{'R'})
			p.memoPut(key)
			return nil
		}
		p.saveBytesData(x.B)
		p.memoPut(key)
	case *Tuple:
		if len(x.Items) == 0 {
			p.write([]byte{')'})
			return nil
		}
		if p.memoGet(x) {
			return nil
		}
		if len(x.Items) <= 3 {
			for _, it := range x.Items {
				if err := p.save(it); err != nil {
					return err
				}
			}
			p.write([]byte{0x85 + byte(len(x.Items)-1)})
		} else {
			p.write([]byte{'('})
			for _, it := range x.Items {
				if err := p.save(it); err != nil {
					return err
				}
			}
			p.write([]byte{'t'})
		}
		p.memoPut(x)
	case *List:
		if p.memoGet(x) {
			return nil
		}
		p.write([]byte{']'})
		p.memoPut(x)
		return p.batch(x.Items, 1, 'a', 'e')
	case []any:
		return p.save(&List{Items: x})
	case *Dict:
		if p.memoGet(x) {
			return nil
		}
		p.write([]byte{'}'})
		p.memoPut(x)
		items := make([]any, 0, 2*len(x.Keys))
		for i := range x.Keys {
			items = append(items, x.Keys[i], x.Vals[i])
		}
		return p.batch(items, 2, 's', 'u')
	case *NDArray:
		return p.saveArray(x)
	case *DType:
		return p.saveDType(x, x)
	case *Scalar:
		if p.memoGet(x) {
			return nil
		}
		if err := p.saveGlobal("numpy.core.multiarray", "scalar"); err != nil {
			return err
		}
		// numpy pickles a scalar with the built-in dtype of its type.
		bd := &DType{Kind: x.DType.Kind, Size: x.DType.Size, Endian: '<'}
		if bd.Size == 1 {
			bd.Endian = '|'
		}
		raw := x.Raw
		if x.DType.Endian == '>' {
			raw = reversed(raw)
		}
		p.boundary()
		if err := p.saveDType(bd, builtinKey(bd.String())); err != nil {
			return err
		}
		if err := p.save(&Bytes{B: raw}); err != nil {
			return err
		}
		p.write([]byte{0x86})
		p.memoPut(&Tuple{}) // the args tuple is a fresh object
		p.write([]byte{'R'})
		p.memoPut(x)
	default:
		return fmt.Errorf("cannot pickle a value of Go type %T", v)
	}
	return nil
}

// estimateSize approximates the pickle size (the payload bytes of arrays, bytes and strings plus
// a little per object) so that the output buffer is allocated once.
func estimateSize(v any, seen map[any]bool, depth int) int {
	if depth > maxNesting {
		return 0
	}
	switch x := v.(type) {
	case *Str:
		if seen[x] {
			return 2
		}
		seen[x] = true
		return len(x.S) + 10
	case *Bytes:
		if seen[x] {
			return 2
		}
		seen[x] = true
		return len(x.B) + 10
	case *NDArray:
		if seen[x] {
			return 2
		}
		seen[x] = true
		return len(x.Data) + 64
	case *Tuple:
		if seen[x] {
			return 2
		}
		seen[x] = true
		n := 4
		for _, it := range x.Items {
			n += estimateSize(it, seen, depth+1)
		}
		return n
	case *List:
		if seen[x] {
			return 2
		}
		seen[x] = true
		n := 4
		for _, it := range x.Items {
			n += estimateSize(it, seen, depth+1)
		}
		return n
	case *Dict:
		if seen[x] {
			return 2
		}
		seen[x] = true
		n := 4
		for i := range x.Keys {
			n += estimateSize(x.Keys[i], seen, depth+1) + estimateSize(x.Vals[i], seen, depth+1)
		}
		return n
	}
	return 10
}

func reversed(b []byte) []byte {
	out := make([]byte, len(b))
	for i := range b {
		out[len(b)-1-i] = b[i]
	}
	return out
}

// batch writes list items (step 1) or dict key/value pairs (step 2) like CPython.
func (p *pickler) batch(items []any, step int, one, many byte) error {
	n := len(items) / step
	if n == 0 {
		return nil
	}
	if n == 1 {
		for _, it := range items {
			if err := p.save(it); err != nil {
				return err
			}
		}
		p.write([]byte{one})
		return nil
	}
	for start := 0; start < n; start += batchSize {
		end := min(start+batchSize, n)
		p.write([]byte{'('})
		for _, it := range items[start*step : end*step] {
			if err := p.save(it); err != nil {
				return err
			}
		}
		p.write([]byte{many})
	}
	return nil
}

func (p *pickler) saveInt(v int64) {
	switch {
	case v >= 0 && v <= 0xff:
		p.write([]byte{'K', byte(v)})
	case v >= 0 && v <= 0xffff:
		p.write([]byte{'M', byte(v), byte(v >> 8)})
	case v >= math.MinInt32 && v <= math.MaxInt32:
		var b [5]byte
		b[0] = 'J'
		binary.LittleEndian.PutUint32(b[1:], uint32(int32(v)))
		p.write(b[:])
	default:
		p.saveLong(encodeLong(big.NewInt(v)))
	}
}

func (p *pickler) saveLong(b []byte) {
	if len(b) < 256 {
		p.write(append([]byte{0x8a, byte(len(b))}, b...))
		return
	}
	var h [5]byte
	h[0] = 0x8b
	binary.LittleEndian.PutUint32(h[1:], uint32(len(b)))
	p.write(append(h[:], b...))
}

// encodeLong is Python's pickle.encode_long: minimal little-endian two's complement.
func encodeLong(x *big.Int) []byte {
	if x.Sign() == 0 {
		return nil
	}
	nbytes := x.BitLen()>>3 + 1
	m := new(big.Int).Set(x)
	if x.Sign() < 0 {
		m.Add(m, new(big.Int).Lsh(big.NewInt(1), uint(8*nbytes)))
	}
	be := m.FillBytes(make([]byte, nbytes))
	out := reversed(be)
	if x.Sign() < 0 && nbytes > 1 && out[nbytes-1] == 0xff && out[nbytes-2]&0x80 != 0 {
		out = out[:nbytes-1]
	}
	return out
}

func (p *pickler) saveStrData(s string) {
	n := len(s)
	var h []byte
	switch {
	case n <= 0xff:
		h = []byte{0x8c, byte(n)}
	case uint64(n) <= 0xffffffff:
		h = []byte{'X', 0, 0, 0, 0}
		binary.LittleEndian.PutUint32(h[1:], uint32(n))
	default:
		h = make([]byte, 9)
		h[0] = 0x8d
		binary.LittleEndian.PutUint64(h[1:], uint64(n))
	}
	p.writeBytes(h, []byte(s))
}

func (p *pickler) saveBytesData(b []byte) {
	n := len(b)
	var h []byte
	switch {
	case n <= 0xff:
		h = []byte{'C', byte(n)}
	case uint64(n) <= 0xffffffff:
		h = []byte{'B', 0, 0, 0, 0}
		binary.LittleEndian.PutUint32(h[1:], uint32(n))
	default:
		h = make([]byte, 9)
		h[0] = 0x8e
		binary.LittleEndian.PutUint64(h[1:], uint64(n))
	}
	p.writeBytes(h, b)
}

func (p *pickler) saveGlobal(module, name string) error {
	key := globKey(module + "." + name)
	p.boundary()
	if p.memoGet(key) {
		return nil
	}
	p.boundary()
	if !p.memoGet(modKey(module)) {
		p.saveStrData(module)
		p.memoPut(modKey(module))
	}
	p.boundary()
	p.saveStrData(name)
	p.memoPut(&Str{S: name})
	p.write([]byte{0x93})
	p.memoPut(key)
	return nil
}

func (p *pickler) saveDType(d *DType, key any) error {
	p.boundary()
	if p.memoGet(key) {
		return nil
	}
	if err := p.saveGlobal("numpy", "dtype"); err != nil {
		return err
	}
	p.boundary()
	p.saveStrData(d.Code())
	p.memoPut(&Str{})
	p.boundary()
	p.write([]byte{0x89})
	p.boundary()
	p.write([]byte{0x88})
	p.write([]byte{0x87})
	p.memoPut(&Tuple{})
	p.write([]byte{'R'})
	p.memoPut(key)
	e := d.Endian
	if e == 0 {
		e = '<'
		if d.Size == 1 {
			e = '|'
		}
	}
	p.boundary()
	p.write([]byte{'('})
	for _, it := range []any{int64(3), &Str{S: string(e)}, nil, nil, nil, int64(-1), int64(-1), int64(0)} {
		if err := p.save(it); err != nil {
			return err
		}
	}
	p.write([]byte{'t'})
	p.memoPut(&Tuple{})
	p.write([]byte{'b'})
	return nil
}

func (p *pickler) saveArray(a *NDArray) error {
	if p.memoGet(a) {
		return nil
	}
	if a.DType == nil {
		return fmt.Errorf("array without dtype")
	}
	if err := p.saveGlobal("numpy.core.multiarray", "_reconstruct"); err != nil {
		return err
	}
	// args: (numpy.ndarray, (0,), b'b')
	if err := p.saveGlobal("numpy", "ndarray"); err != nil {
		return err
	}
	if err := p.save(&Tuple{Items: []any{int64(0)}}); err != nil {
		return err
	}
	if err := p.save(&Bytes{B: []byte("b")}); err != nil {
		return err
	}
	p.write([]byte{0x87})
	p.memoPut(&Tuple{})
	p.write([]byte{'R'})
	p.memoPut(a)
	// state: (1, shape, dtype, is_fortran, raw)
	p.boundary()
	p.write([]byte{'('})
	shape := make([]any, len(a.Shape))
	for i, s := range a.Shape {
		shape[i] = int64(s)
	}
	if err := p.save(int64(1)); err != nil {
		return err
	}
	if err := p.save(&Tuple{Items: shape}); err != nil {
		return err
	}
	if err := p.saveDType(a.DType, a.DType); err != nil {
		return err
	}
	if err := p.save(a.Fortran); err != nil {
		return err
	}
	if err := p.save(&Bytes{B: a.Data}); err != nil {
		return err
	}
	p.write([]byte{'t'})
	p.memoPut(&Tuple{})
	p.write([]byte{'b'})
	return nil
}
