package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/agentdesk/agentdesk/ui/uitest"
)

// BenchmarkShell builds the main window's content with a seeded store (Home on show).
func BenchmarkShell(b *testing.B) {
	test.NewTempApp(b)
	st := uitest.SeededStore(b)
	w := test.NewWindow(nil)
	defer w.Close()
	for b.Loop() {
		s := NewShell(w, Deps{Store: st, StorePath: st.Path(), Run: uitest.SyncRun})
		w.SetContent(s.Content())
	}
}
