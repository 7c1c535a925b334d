package mobileenv

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/agentdesk/agentdesk/engine/pyfmt"
)

// CanonicalJSON renders a decoded value in the canonical JSON of spec §A.5 (the rendering the
// conformance examples use): str/None/bool/list/dict as plain JSON with dict order kept, tuples
// as {"tuple": [...]}, ints as integers, floats as {"float": x, "repr": "..."}, numpy arrays as
// {"ndarray": {dtype, shape, fortran, sha256[, data, raw_b64]}} (data only for ≤ 256 elements)
// and numpy scalars as {"npscalar": {dtype, value}}.
func CanonicalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	budget := maxCanonNodes
	if err := canon(&b, v, 0, &budget); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// maxNesting bounds recursion over decoded values (a cyclic or absurdly deep structure is an
// error rather than a stack overflow; annotation files nest about 5 levels).
const maxNesting = 2000

// maxCanonNodes bounds the work of one rendering: shared sub-structures are expanded, so a
// small pickle can describe an exponentially large tree ("billion laughs").
const maxCanonNodes = 5_000_000

func canon(b *bytes.Buffer, v any, depth int, budget *int) error {
	if depth > maxNesting {
		return fmt.Errorf("value nested deeper than %d levels (or cyclic)", maxNesting)
	}
	if *budget--; *budget < 0 {
		return fmt.Errorf("value expands to more than %d nodes", maxCanonNodes)
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case *big.Int:
		b.WriteString(x.String())
	case float64:
		b.WriteString(`{"float": `)
		b.WriteString(jsonFloat(x))
		b.WriteString(`, "repr": `)
		writeJSONString(b, pyfmt.FloatRepr(x))
		b.WriteString("}")
	case *Str:
		writeJSONString(b, x.S)
	case *Bytes:
		b.WriteString(`{"bytes_b64": `)
		writeJSONString(b, base64.StdEncoding.EncodeToString(x.B))
		b.WriteString("}")
	case *Tuple:
		b.WriteString(`{"tuple": `)
		if err := canonSeq(b, x.Items, depth, budget); err != nil {
			return err
		}
		b.WriteString("}")
	case *List:
		return canonSeq(b, x.Items, depth, budget)
	case *Dict:
		b.WriteString("{")
		for i, k := range x.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			switch kk := k.(type) {
			case *Str:
				writeJSONString(b, kk.S)
			case int64:
				writeJSONString(b, strconv.FormatInt(kk, 10))
			default:
				return fmt.Errorf("dict key of type %s has no JSON form", TypeName(k))
			}
			b.WriteString(": ")
			if err := canon(b, x.Vals[i], depth+1, budget); err != nil {
				return err
			}
		}
		b.WriteString("}")
	case *NDArray:
		if err := x.check(); err != nil {
			return err
		}
		c := x.COrder()
		sum := sha256.Sum256(c)
		fmt.Fprintf(b, `{"ndarray": {"dtype": "%s", "shape": [`, x.DType)
		for i, s := range x.Shape {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Itoa(s))
		}
		fmt.Fprintf(b, `], "fortran": %t, "sha256": "%s"`, x.Fortran, hex.EncodeToString(sum[:]))
		if n := x.Len(); n <= 256 {
			b.WriteString(`, "data": [`)
			for i := 0; i < n; i++ {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(numberJSON(x.DType, c[i*x.DType.Size:(i+1)*x.DType.Size]))
			}
			b.WriteString(`], "raw_b64": `)
			writeJSONString(b, base64.StdEncoding.EncodeToString(c))
		}
		b.WriteString("}}")
	case *Scalar:
		fmt.Fprintf(b, `{"npscalar": {"dtype": "%s", "value": %s}}`, x.DType, numberJSON(x.DType, x.Raw))
	case *DType:
		fmt.Fprintf(b, `{"dtype": "%s"}`, x)
	default:
		return fmt.Errorf("value of type %T has no JSON form", v)
	}
	return nil
}

func numberJSON(d *DType, raw []byte) string {
	switch d.Kind {
	case 'f':
		return jsonFloat(decodeNumber(d, raw))
	case 'b':
		if raw[0] != 0 {
			return "true"
		}
		return "false"
	case 'u':
		if d.Size == 8 {
			return strconv.FormatUint(d.order().Uint64(raw), 10)
		}
	}
	return strconv.FormatInt(decodeInt(d, raw), 10)
}

func jsonFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return pyfmt.FloatRepr(f)
}

func canonSeq(b *bytes.Buffer, items []any, depth int, budget *int) error {
	b.WriteString("[")
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		if err := canon(b, it, depth+1, budget); err != nil {
			return err
		}
	}
	b.WriteString("]")
	return nil
}

func writeJSONString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s)
	b.Write(enc)
}
