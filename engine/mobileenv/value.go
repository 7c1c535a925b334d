package mobileenv

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
)

// Str is a Python str. Compare with S; pointer identity is Python object identity.
type Str struct{ S string }

// Bytes is a Python bytes (or bytearray) object.
type Bytes struct {
	B         []byte
	ByteArray bool
}

// Tuple is a Python tuple.
type Tuple struct{ Items []any }

// List is a Python list.
type List struct{ Items []any }

// Dict is a Python dict with its insertion order.
type Dict struct {
	Keys []any
	Vals []any
}

// DType is a numpy dtype of a plain number type: Kind is 'b', 'i', 'u' or 'f', Size the item
// size in bytes and Endian '|', '<' or '>' (as stored in the dtype's pickled state).
type DType struct {
	Kind   byte
	Size   int
	Endian byte
	built  bool
}

// NDArray is a numpy array: raw element bytes in the dtype's byte order, C order unless Fortran.
type NDArray struct {
	DType   *DType
	Shape   []int
	Fortran bool
	Data    []byte
}

// Scalar is a numpy scalar (numpy.int64(3), numpy.float64(0.5), ...): raw bytes of one item.
type Scalar struct {
	DType *DType
	Raw   []byte
}

// NewStr returns a new Python str.
func NewStr(s string) *Str { return &Str{S: s} }

// NewDict returns a new empty dict.
func NewDict() *Dict { return &Dict{} }

// Code is the dtype's code without byte order: "u1", "f4", "i8", ...
func (d *DType) Code() string { return fmt.Sprintf("%c%d", d.Kind, d.Size) }

// String gives the numpy dtype.str form: "|u1", "<f4", ...
func (d *DType) String() string { return string(d.Endian) + d.Code() }

func (d *DType) order() binary.ByteOrder {
	if d.Endian == '>' {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// NewDType returns a dtype for a code such as "u1", "f4", "f8", "i8" in native (little-endian)
// byte order.
func NewDType(code string) (*DType, error) {
	kind, size, err := parseDTypeCode(code)
	if err != nil {
		return nil, err
	}
	e := byte('<')
	if size == 1 {
		e = '|'
	}
	return &DType{Kind: kind, Size: size, Endian: e, built: true}, nil
}

func parseDTypeCode(code string) (byte, int, error) {
	switch code {
	case "b1":
		return 'b', 1, nil
	case "i1", "u1":
		return code[0], 1, nil
	case "i2", "u2", "f2":
		return code[0], 2, nil
	case "i4", "u4", "f4":
		return code[0], 4, nil
	case "i8", "u8", "f8":
		return code[0], 8, nil
	}
	return 0, 0, fmt.Errorf("unsupported numpy dtype %q", code)
}

// check reports an array that cannot be read: no dtype (never built) or fewer bytes than its
// shape needs. The decoder refuses such arrays; values built in code are checked by the readers.
func (a *NDArray) check() error {
	if a.DType == nil {
		return errors.New("numpy array without a dtype (never built)")
	}
	if need := a.Len() * a.DType.Size; len(a.Data) < need {
		return fmt.Errorf("numpy array of shape %v and dtype %s holds %d bytes, needs %d", a.Shape, a.DType, len(a.Data), need)
	}
	return nil
}

// Len is the number of elements (the product of the shape).
func (a *NDArray) Len() int {
	n := 1
	for _, s := range a.Shape {
		n *= s
	}
	return n
}

// Float returns element i (in storage order) as a float64.
func (a *NDArray) Float(i int) float64 {
	return decodeNumber(a.DType, a.Data[i*a.DType.Size:(i+1)*a.DType.Size])
}

// Floats returns all elements in C order as float64.
func (a *NDArray) Floats() []float64 {
	n := a.Len()
	out := make([]float64, n)
	c := a.COrder()
	for i := range out {
		out[i] = decodeNumber(a.DType, c[i*a.DType.Size:(i+1)*a.DType.Size])
	}
	return out
}

// COrder returns the raw bytes in C order (a.Data itself unless the array is Fortran-ordered).
func (a *NDArray) COrder() []byte {
	if !a.Fortran || len(a.Shape) < 2 {
		return a.Data
	}
	sz := a.DType.Size
	out := make([]byte, len(a.Data))
	n := a.Len()
	idx := make([]int, len(a.Shape))
	for c := 0; c < n; c++ {
		// c is the C-order position of idx; compute the Fortran position.
		f, mul := 0, 1
		for d := 0; d < len(a.Shape); d++ {
			f += idx[d] * mul
			mul *= a.Shape[d]
		}
		copy(out[c*sz:(c+1)*sz], a.Data[f*sz:(f+1)*sz])
		for d := len(a.Shape) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < a.Shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}

// Float returns the scalar as float64.
func (s *Scalar) Float() float64 { return decodeNumber(s.DType, s.Raw) }

// Int returns the scalar as int64 (truncating floats).
func (s *Scalar) Int() int64 {
	if s.DType.Kind == 'f' {
		return int64(s.Float())
	}
	return decodeInt(s.DType, s.Raw)
}

func decodeInt(d *DType, b []byte) int64 {
	o := d.order()
	switch d.Size {
	case 1:
		if d.Kind == 'i' {
			return int64(int8(b[0]))
		}
		return int64(b[0])
	case 2:
		if d.Kind == 'i' {
			return int64(int16(o.Uint16(b)))
		}
		return int64(o.Uint16(b))
	case 4:
		if d.Kind == 'i' {
			return int64(int32(o.Uint32(b)))
		}
		return int64(o.Uint32(b))
	default:
		return int64(o.Uint64(b))
	}
}

func decodeNumber(d *DType, b []byte) float64 {
	o := d.order()
	if d.Kind == 'f' {
		switch d.Size {
		case 2:
			return float64(halfToFloat(o.Uint16(b)))
		case 4:
			return float64(math.Float32frombits(o.Uint32(b)))
		default:
			return math.Float64frombits(o.Uint64(b))
		}
	}
	if d.Kind == 'u' && d.Size == 8 {
		return float64(o.Uint64(b))
	}
	return float64(decodeInt(d, b))
}

func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0:
		f := float32(frac) / 1024 / 16384
		if sign != 0 {
			return -f
		}
		return f
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | frac<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
}

// Get returns the value of a str key and whether it is present.
func (d *Dict) Get(key string) (any, bool) {
	i := d.index(key)
	if i < 0 {
		return nil, false
	}
	return d.Vals[i], true
}

func (d *Dict) index(key string) int {
	for i, k := range d.Keys {
		if s, ok := k.(*Str); ok && s.S == key {
			return i
		}
	}
	return -1
}

// Has reports whether a str key is present.
func (d *Dict) Has(key string) bool { return d.index(key) >= 0 }

// Set replaces the value of an existing str key (keeping its position and key object) or
// appends the key.
func (d *Dict) Set(key string, v any) {
	if i := d.index(key); i >= 0 {
		d.Vals[i] = v
		return
	}
	d.Keys = append(d.Keys, NewStr(key))
	d.Vals = append(d.Vals, v)
}

// Delete removes a str key; it reports whether it was present.
func (d *Dict) Delete(key string) bool {
	i := d.index(key)
	if i < 0 {
		return false
	}
	d.Keys = append(d.Keys[:i:i], d.Keys[i+1:]...)
	d.Vals = append(d.Vals[:i:i], d.Vals[i+1:]...)
	return true
}

// Len is the number of items.
func (d *Dict) Len() int { return len(d.Keys) }

// AsString returns the Go string of a *Str.
func AsString(v any) (string, bool) {
	s, ok := v.(*Str)
	if !ok {
		return "", false
	}
	return s.S, true
}

// AsInt returns an integer value (Python int, bool or numpy integer scalar).
func AsInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case *big.Int:
		if x.IsInt64() {
			return x.Int64(), true
		}
	case *Scalar:
		if x.DType.Kind != 'f' {
			return x.Int(), true
		}
	}
	return 0, false
}

// AsFloat returns a number (Python int/float/bool or numpy scalar) as float64.
func AsFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float64()
		return f, true
	case *Scalar:
		return x.Float(), true
	}
	return 0, false
}

// TypeName is a short Python-like type name for error messages and summaries.
func TypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case int64, *big.Int:
		return "int"
	case float64:
		return "float"
	case *Str:
		return "str"
	case *Bytes:
		if x.ByteArray {
			return "bytearray"
		}
		return "bytes"
	case *Tuple:
		return "tuple"
	case *List:
		return "list"
	case *Dict:
		return "dict"
	case *NDArray:
		return "numpy.ndarray"
	case *DType:
		return "numpy.dtype"
	case *Scalar:
		return "numpy." + scalarTypeName(x.DType)
	}
	return fmt.Sprintf("%T", v)
}

func scalarTypeName(d *DType) string {
	switch d.Kind {
	case 'b':
		return "bool_"
	case 'i':
		return fmt.Sprintf("int%d", d.Size*8)
	case 'u':
		return fmt.Sprintf("uint%d", d.Size*8)
	}
	return fmt.Sprintf("float%d", d.Size*8)
}
