package template

import "math"

// message is a dynamically typed protobuf message of the Task schema with proto3 semantics:
// singular scalars outside oneofs are present only when not default; sub-messages and oneof
// members are present once set.
type message struct {
	d *msgDesc
	// v holds one value per field of d (same index): nil when absent, else string, int32
	// (also enums), float32, bool, *message, or for repeated fields []string, []int32,
	// []float32, []bool, []*message.
	v []any
}

func newMessage(d *msgDesc) *message { return &message{d: d, v: make([]any, len(d.fields))} }

func (m *message) fd(num int32) *fieldDesc {
	for _, f := range m.d.fields {
		if f.number == num {
			return f
		}
	}
	panic("template: no field " + itoa(int(num)) + " in " + m.d.name)
}

func (m *message) has(num int32) bool { return m.v[m.fd(num).index] != nil }

func (m *message) str(num int32) string {
	s, _ := m.v[m.fd(num).index].(string)
	return s
}

func (m *message) int32v(num int32) int32 {
	n, _ := m.v[m.fd(num).index].(int32)
	return n
}

// sub returns the sub-message (nil when absent).
func (m *message) sub(num int32) *message {
	s, _ := m.v[m.fd(num).index].(*message)
	return s
}

// mutable returns the sub-message, creating (and marking present) it when absent.
func (m *message) mutable(num int32) *message {
	f := m.fd(num)
	if s, ok := m.v[f.index].(*message); ok {
		return s
	}
	s := newMessage(f.msg())
	m.setField(f, s)
	return s
}

func (m *message) msgs(num int32) []*message {
	l, _ := m.v[m.fd(num).index].([]*message)
	return l
}

func (m *message) strs(num int32) []string {
	l, _ := m.v[m.fd(num).index].([]string)
	return l
}

func (m *message) ints(num int32) []int32 {
	l, _ := m.v[m.fd(num).index].([]int32)
	return l
}

func (m *message) set(num int32, v any) { m.setField(m.fd(num), v) }

// setField stores a singular value with proto3 presence rules and clears oneof siblings.
func (m *message) setField(f *fieldDesc, v any) {
	if f.oneof != "" {
		for _, g := range m.d.fields {
			if g.oneof == f.oneof && g != f {
				m.v[g.index] = nil
			}
		}
	}
	if !f.hasPresence() && !f.repeated && isDefault(v) {
		m.v[f.index] = nil
		return
	}
	m.v[f.index] = v
}

func (m *message) clear(num int32) { m.v[m.fd(num).index] = nil }

func isDefault(v any) bool {
	switch x := v.(type) {
	case string:
		return x == ""
	case int32:
		return x == 0
	case float32:
		return math.Float32bits(x) == 0
	case bool:
		return !x
	}
	return v == nil
}

// whichOneof returns the member of a oneof that is set (nil if none).
func (m *message) whichOneof(name string) *fieldDesc {
	for _, f := range m.d.fields {
		if f.oneof == name && m.v[f.index] != nil {
			return f
		}
	}
	return nil
}

func (m *message) appendMsg(num int32, s *message) {
	f := m.fd(num)
	l, _ := m.v[f.index].([]*message)
	m.v[f.index] = append(l, s)
}

func (m *message) appendStrs(num int32, s ...string) {
	if len(s) == 0 {
		return
	}
	f := m.fd(num)
	l, _ := m.v[f.index].([]string)
	m.v[f.index] = append(l, s...)
}

// clone is a deep copy (Python's CopyFrom).
func (m *message) clone() *message {
	if m == nil {
		return nil
	}
	c := newMessage(m.d)
	for i, v := range m.v {
		switch x := v.(type) {
		case *message:
			c.v[i] = x.clone()
		case []*message:
			l := make([]*message, len(x))
			for k, s := range x {
				l[k] = s.clone()
			}
			c.v[i] = l
		case []string:
			c.v[i] = append([]string(nil), x...)
		case []int32:
			c.v[i] = append([]int32(nil), x...)
		case []float32:
			c.v[i] = append([]float32(nil), x...)
		case []bool:
			c.v[i] = append([]bool(nil), x...)
		default:
			c.v[i] = v
		}
	}
	return c
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
