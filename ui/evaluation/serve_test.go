package evaluation

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/agentdesk/agentdesk/ui/uitest"
)

// The Serve tab: Serve starts the study on the address given, links are made for the ids
// entered, a participant's answers through their link show in the roster, and Stop ends it.
func TestServeTabServesAndShowsTheRoster(t *testing.T) {
	w, _, _ := evalTestWS(t)
	imp := readExample(t, w, "flags")
	imp.project.Settings.UseScreening = false
	w.create("served", "imported", evalExample, imp.project, "", nil)
	tab := w.serve
	w.tabs.SelectIndex(2)
	if w.tabs.Selected().Text != "Serve" {
		t.Fatalf("tab %q", w.tabs.Selected().Text)
	}
	queue := make(chan func(), 100)
	tab.onUI = func(f func()) { queue <- f }
	tab.addr.SetText("127.0.0.1:0")
	uitest.TapButton(t, tab.root, "Serve")
	if w.serving == nil || !strings.Contains(tab.status.Text, "Serving at http://127.0.0.1:") {
		t.Fatalf("not serving: %q", tab.status.Text)
	}
	defer w.Close()
	if !strings.Contains(tab.study.Text, "/?token=") {
		t.Fatalf("no study link: %q", tab.study.Text)
	}
	if !tab.exportBtn.Disabled() || !tab.copyAllBtn.Disabled() {
		t.Fatal("Export CSV and Copy all are offered before there are links")
	}
	tab.ids.SetText("ann, bob\nann")
	uitest.TapButton(t, tab.root, "Make links")
	if len(tab.links) != 2 || tab.links[0].id != "ann" || !strings.HasPrefix(tab.links[0].link, w.serving.base+"/?worker_id=ann&assignment_id=") {
		t.Fatalf("links %+v", tab.links)
	}
	if tab.exportBtn.Disabled() || tab.copyAllBtn.Disabled() {
		t.Fatal("Export CSV and Copy all stay off with links")
	}
	// ann opens her link and answers.
	b := newBrowser(t, tab.links[0].link)
	for _, e := range b.firstChoicePerTurn()[:1] {
		b.post(e)
	}
	// The roster shows her within a second or two.
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && !(len(tab.roster) == 1 && tab.roster[0].Name == "ann" && tab.roster[0].Connected) {
		select {
		case f := <-queue:
			f()
		case <-time.After(100 * time.Millisecond):
		}
	}
	if len(tab.roster) != 1 || !strings.Contains(tab.rosterCell(1, 2), "dialogue 1 of") || tab.rosterCell(1, 1) != "yes" {
		t.Fatalf("roster %+v", tab.roster)
	}
	// The completion code is kept in the project.
	tab.code.SetText("AGD-99")
	tab.outCode.SetText("OUT-7")
	tab.outURL.SetText("https://example.org/screened-out")
	tab.maxEntrants.SetText("12")
	tab.side.SelectIndex(1) // the study link and the end of the study
	uitest.TapButton(t, tab.root, "Save")
	if p, err := w.store.EvalProject(context.Background(), w.open.info.ID); err != nil || p.Settings.CompletionCode != "AGD-99" ||
		p.Settings.ScreenOutCode != "OUT-7" || p.Settings.ScreenOutURL != "https://example.org/screened-out" || p.Settings.MaxEntrants != 12 {
		t.Fatalf("the settings at the end were not stored: %v", err)
	}
	// Recruitment through the study link closes (kept in the store) and opens again.
	tab.recruit.SetChecked(false)
	if sv, err := w.store.EvalServing(context.Background(), w.open.info.ID); err != nil || sv.Recruiting {
		t.Fatalf("recruitment still open after unticking: %v", err)
	}
	tab.recruit.SetChecked(true)
	// Evicting says what it did and replaces the study link.
	before := tab.study.Text
	tab.evict()
	if tab.study.Text == before || !strings.Contains(tab.status.Text, "Evicted 0 study-link participants") {
		t.Fatalf("after evicting: link %q (was %q), status %q", tab.study.Text, before, tab.status.Text)
	}
	// Stop ends the study: the link no longer answers.
	uitest.TapButton(t, tab.root, "Stop")
	if w.serving != nil {
		t.Fatal("still serving")
	}
	if _, err := b.c.Get(b.link); err == nil {
		t.Fatal("the link still answers after Stop")
	}
}

// Serving on a port another program holds says so, says what to do and offers the next free
// port: one click serves there. While the study is served, quitting is asked about
// (RunningWork); after Stop it is not.
func TestServeOnABusyPortOffersTheNextFreePort(t *testing.T) {
	w, win, _ := evalTestWS(t)
	imp := readExample(t, w, "flags")
	w.create("served", "imported", evalExample, imp.project, "", nil)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	tab := w.serve
	tab.onUI = func(func()) {}
	w.tabs.SelectIndex(2)
	if w.RunningWork() != "" {
		t.Fatalf("running before serving: %q", w.RunningWork())
	}
	tab.addr.SetText(busy.Addr().String())
	uitest.TapButton(t, tab.root, "Serve")
	if w.serving != nil {
		t.Fatal("serving on a busy port")
	}
	d := win.Canvas().Overlays().Top()
	if d == nil {
		t.Fatal("no dialog about the busy port")
	}
	text := uitest.Texts(d)
	_, port, _ := net.SplitHostPort(busy.Addr().String())
	if !strings.Contains(text, "Port "+port+" is already in use") || !strings.Contains(text, "Stop that program") || strings.Contains(text, "bind:") {
		t.Fatalf("the dialog says:\n%s", text)
	}
	uitest.TapButton(t, d, "Serve on 127.0.0.1:")
	defer w.Close()
	if w.serving == nil || w.serving.addr == busy.Addr().String() || tab.addr.Text != w.serving.addr {
		t.Fatalf("not serving on the next free port: %+v, address %q", w.serving, tab.addr.Text)
	}
	if got := w.RunningWork(); !strings.Contains(got, "served") || !strings.Contains(got, "quitting stops serving it") {
		t.Fatalf("RunningWork while serving: %q", got)
	}
	uitest.TapButton(t, tab.root, "Stop")
	if w.RunningWork() != "" {
		t.Fatalf("RunningWork after Stop: %q", w.RunningWork())
	}
}
