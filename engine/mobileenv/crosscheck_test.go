package mobileenv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/big"

	gopickle "github.com/nlpodyssey/gopickle/pickle"
	"github.com/nlpodyssey/gopickle/types"
)

// Independent reference decoding with github.com/nlpodyssey/gopickle.
//
// The package's own reader (unpickle.go) is the one used everywhere: gopickle allocates the
// length a BINBYTES8/BINUNICODE8 declares before checking it against the data, keeps no str
// identity (needed to write files byte-identical to Python's), reports no byte offsets and
// resolves a few classes (collections.OrderedDict, copy_reg._reconstructor, ...) before any
// resolver sees them. CrossCheck decodes a file with both — gopickle behind the same strict
// allow-list, and only after the package's reader accepted the data (so its bounds checks
// protect gopickle too) — and compares the canonical JSON of the results.

// CrossCheck decodes every pickle of a file with the package's reader and with gopickle and
// reports the first difference.
func CrossCheck(path string, data []byte) error {
	ours, err := DecodeAll(path, data)
	if err != nil {
		return err
	}
	r := bytes.NewReader(data)
	for i, p := range ours {
		if _, err := r.Seek(p.Offset, io.SeekStart); err != nil {
			return err
		}
		u := gopickle.NewUnpickler(r)
		u.FindClass = gopickleResolver
		v, err := u.Load()
		if err != nil {
			return fmt.Errorf("%s: pickle %d: gopickle: %w", path, i, err)
		}
		conv, err := fromGopickle(v, 0, map[any]any{})
		if err != nil {
			return fmt.Errorf("%s: pickle %d: %w", path, i, err)
		}
		a, err := CanonicalJSON(p.Value)
		if err != nil {
			return err
		}
		b, err := CanonicalJSON(conv)
		if err != nil {
			return err
		}
		if !bytes.Equal(a, b) {
			return fmt.Errorf("%s: pickle %d: gopickle decodes a different value", path, i)
		}
	}
	return nil
}

// gopickleResolver is the strict class resolver: the allowed numpy/codecs globals, nothing
// else (the error names the refused global).
func gopickleResolver(module, name string) (interface{}, error) {
	g, err := resolveGlobal(module, name)
	if err != nil {
		return nil, err
	}
	return &gpCallable{g: g}, nil
}

type gpCallable struct{ g *global }

func (c *gpCallable) Call(args ...interface{}) (interface{}, error) {
	conv := make([]any, len(args))
	for i, a := range args {
		if gc, ok := a.(*gpCallable); ok {
			conv[i] = gc.g
			continue
		}
		v, err := fromGopickle(a, 0, map[any]any{})
		if err != nil {
			return nil, err
		}
		conv[i] = v
	}
	v, err := callGlobal(c.g, conv, maxDeclaredForGopickle)
	if err != nil {
		return nil, err
	}
	return &gpObject{v: v}, nil
}

// maxDeclaredForGopickle bounds array declarations in the cross-check (the data was already
// validated by the package's reader).
const maxDeclaredForGopickle = 1 << 40

// gpObject wraps a numpy object built through the resolver so that BUILD reaches it.
type gpObject struct{ v any }

func (o *gpObject) PySetState(state interface{}) error {
	st, err := fromGopickle(state, 0, map[any]any{})
	if err != nil {
		return err
	}
	return build(o.v, st, maxDeclaredForGopickle)
}

// fromGopickle converts gopickle's values; seen keeps shared containers shared (so that a
// pickle of heavily shared structure converts in linear time).
func fromGopickle(v interface{}, depth int, seen map[any]any) (any, error) {
	if depth > maxNesting {
		return nil, errors.New("nesting too deep")
	}
	switch v.(type) {
	case *types.Tuple, *types.List, *types.Dict:
		if c, ok := seen[v]; ok {
			return c, nil
		}
	}
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return x, nil
	case int:
		return int64(x), nil
	case int64:
		return x, nil
	case *big.Int:
		return normInt(x), nil
	case float64:
		return x, nil
	case string:
		return &Str{S: x}, nil
	case []byte:
		return &Bytes{B: x}, nil
	case *types.ByteArray:
		return &Bytes{B: []byte(*x), ByteArray: true}, nil
	case *gpObject:
		return x.v, nil
	case *gpCallable:
		return x.g, nil
	case *types.Tuple:
		out := &Tuple{}
		seen[v] = out
		for _, it := range *x {
			c, err := fromGopickle(it, depth+1, seen)
			if err != nil {
				return nil, err
			}
			out.Items = append(out.Items, c)
		}
		return out, nil
	case *types.List:
		out := &List{}
		seen[v] = out
		for _, it := range *x {
			c, err := fromGopickle(it, depth+1, seen)
			if err != nil {
				return nil, err
			}
			out.Items = append(out.Items, c)
		}
		return out, nil
	case *types.Dict:
		out := &Dict{}
		seen[v] = out
		for _, e := range *x {
			k, err := fromGopickle(e.Key, depth+1, seen)
			if err != nil {
				return nil, err
			}
			val, err := fromGopickle(e.Value, depth+1, seen)
			if err != nil {
				return nil, err
			}
			out.Keys = append(out.Keys, k)
			out.Vals = append(out.Vals, val)
		}
		return out, nil
	}
	return nil, fmt.Errorf("gopickle produced an unexpected %T", v)
}
