package templates

import "testing"

func TestWordUndo(t *testing.T) {
	var u wordUndo
	u.reset("")
	text := ""
	for _, r := range "open the app" {
		text += string(r)
		u.record(text)
	}
	text += "<lower:app>" // a paste
	u.record(text)
	var got []string
	for {
		s, ok := u.undo(text)
		if !ok {
			break
		}
		text = s
		got = append(got, s)
	}
	want := []string{"open the app", "open the", "open", ""}
	if len(got) != len(want) {
		t.Fatalf("undo steps %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("undo steps %q, want %q", got, want)
		}
	}
	if s, ok := u.redoOne(text); !ok || s != "open" {
		t.Fatalf("redo: %q %v", s, ok)
	}
}
