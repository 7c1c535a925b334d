package template

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseSlots checks that the slot parser never panics, that every slot re-parses to
// itself, that diagnostics point inside the text, and that rendering replaces every slot.
func FuzzParseSlots(f *testing.F) {
	for _, s := range []string{"<v>", "<lower,url_query':名称>", "<<v>>", "<lower: v>", "<no_quote',x:y>", "a\n<b>\r\n<c:d>", "<:>", "<a'>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		slots, errs := ParseSlots(text)
		prev := 0
		for _, s := range slots {
			if s.Offset < prev || s.End > len(text) || s.Offset >= s.End {
				t.Fatalf("bad slot range %+v", s)
			}
			prev = s.End
			again, ok := matchSlot(text[s.Offset:s.End], 0)
			if !ok || again.End != s.End-s.Offset || again.Identifier != s.Identifier {
				t.Fatalf("slot %q does not re-parse", s.Text(text))
			}
		}
		for _, e := range errs {
			if e.Offset < 0 || e.End > len(text) || e.Line < 1 || e.Col < 1 {
				t.Fatalf("bad diagnostic %+v", e)
			}
		}
		out, err := Render(text, map[string]string{})
		if err == nil && utf8.ValidString(text) && !utf8.ValidString(out) {
			t.Fatalf("render broke UTF-8")
		}
		if err == nil && len(slots) > 0 && strings.Count(out, "<") > strings.Count(text, "<")-len(slots) {
			t.Fatalf("render left a slot: %q → %q", text, out)
		}
	})
}

// FuzzRenderValue applies modifier chains to arbitrary values.
func FuzzRenderValue(f *testing.F) {
	f.Add("to_list,url_query'", "abc ,d ef, hi>g")
	f.Add("regex_list,regex_esc'", "How to (Bake), it's")
	f.Add("upper,no_quote,lower", "ß İ Σ")
	f.Add("sentence_to_words", "a\u00a0b\x1cc")
	f.Add("remove_howto", "HOW TO X")
	f.Fuzz(func(t *testing.T, mods, value string) {
		ms, err := ParseModifiers(mods)
		if err != nil {
			return
		}
		out, err := RenderValue(ms, value)
		if err != nil {
			if CategoryOf(err) != CatUnknownModifier {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if utf8.ValidString(value) && !utf8.ValidString(out) {
			t.Fatalf("%s(%q) = %q: invalid UTF-8", mods, value, out)
		}
		if len(ms) > 0 && !(ms[0].Name == "no_quote" && !ms[0].Each) && !strings.ContainsRune(value, '\\') {
			// automatic quoting: every quote is escaped
			for i := 0; i < len(out); i++ {
				if (out[i] == '"' || out[i] == '\'') && (i == 0 || out[i-1] != '\\') {
					stop := false
					for _, m := range ms {
						stop = stop || m.Name == "no_quote" && !m.Each
					}
					if !stop {
						t.Fatalf("%s(%q) = %q: unescaped quote", mods, value, out)
					}
				}
			}
		}
	})
}

// FuzzTextproto checks that parsing never panics and that printing is a fixed point.
func FuzzTextproto(f *testing.F) {
	f.Add(`id: "a\101\x4\u4e2d" max_duration_sec: 1e-05 event_slots < score_listener { events: [{id: 0}, {event {}}] } >`)
	f.Add("extras_spec { shape: [1, 2] dtype: 5 } command: ['a', \"b\" 'c']; vocabulary: \"x\",")
	f.Fuzz(func(t *testing.T, text string) {
		out, err := FormatTextproto(text)
		if err != nil {
			if CategoryOf(err) != CatUnparsableTextproto {
				t.Fatalf("category %q", CategoryOf(err))
			}
			return
		}
		again, err := FormatTextproto(out)
		if err != nil || again != out {
			t.Fatalf("not a fixed point: %q → %q → %q (%v)", text, out, again, err)
		}
	})
}
