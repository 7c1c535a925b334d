package ui

import (
	"context"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/ui/uitest"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// fakeSamples records what the shell asks of the sample data.
type fakeSamples struct {
	loaded          bool
	loads, removals int
}

func (f *fakeSamples) Load(_ context.Context, report workspace.Progress) (SampleResult, error) {
	report(-1, "loading")
	r := SampleResult{Summary: "loaded the samples", Demonstrations: "/samples/recipes.demonstrations",
		Templates: "/samples/templates.alpha", Already: f.loaded}
	if f.loaded {
		r.Summary = "already loaded"
		return r, nil
	}
	f.loads++
	f.loaded = true
	return r, nil
}

func (f *fakeSamples) Remove(context.Context) (string, error) {
	f.removals++
	f.loaded = false
	return "removed the samples", nil
}

func (f *fakeSamples) Loaded(context.Context) (bool, error) { return f.loaded, nil }

// TestSampleDataFromHomeAndAWorkspace: on an empty store Home offers the sample data; loading it
// makes the workspaces again and, asked from a workspace, opens that workspace's sample; Home
// then offers to remove it (after asking), and offers loading again afterwards.
func TestSampleDataFromHomeAndAWorkspace(t *testing.T) {
	test.NewTempApp(t)
	st := uitest.OpenStore(t)
	samples := &fakeSamples{}
	made := map[string][]*fakeWS{}
	var regs []workspace.Registration
	for _, id := range []string{workspace.Demonstrations, "alpha"} {
		regs = append(regs, workspace.Registration{ID: id, Title: id, Icon: theme.FileIcon(),
			New: func(h workspace.Host) workspace.Workspace {
				f := &fakeWS{id: id, label: widget.NewLabel(id + " content")}
				made[id] = append(made[id], f)
				return f
			}})
	}
	s, w := newTestShell(t, Deps{Store: st, StorePath: st.Path(), Samples: samples, Workspaces: regs})
	s.Show(ScreenHome)
	uitest.TapButton(t, w.Content(), "Load sample data")
	if samples.loads != 1 {
		t.Fatalf("%d loads", samples.loads)
	}
	closeDialogs(w)
	s.Show(ScreenHome)
	uitest.TapButton(t, w.Content(), "Remove sample data")
	confirm := w.Canvas().Overlays().Top()
	if confirm == nil || !strings.Contains(uitest.Texts(confirm), "Your own data stays") {
		t.Fatal("removing did not ask first")
	}
	uitest.TapButton(t, confirm, "Remove")
	if samples.removals != 1 {
		t.Fatalf("%d removals", samples.removals)
	}
	closeDialogs(w)
	s.Show(ScreenHome)
	if !strings.Contains(uitest.Texts(w.Content()), "New here?") {
		t.Fatalf("Home does not offer the samples again:\n%s", uitest.Texts(w.Content()))
	}

	// from the Demonstrations screen: the workspace is made again and opens its sample
	s.Show(workspace.Demonstrations)
	first := made[workspace.Demonstrations][len(made[workspace.Demonstrations])-1]
	s.LoadSamples()
	last := made[workspace.Demonstrations][len(made[workspace.Demonstrations])-1]
	if last == first || len(last.opened) != 1 || last.opened[0] != "/samples/recipes.demonstrations" || s.Current() != workspace.Demonstrations {
		t.Fatalf("after loading from Demonstrations: opened %v on %s (a new workspace: %v)", last.opened, s.Current(), last != first)
	}
	if first.closed == 0 {
		t.Fatal("the old workspace was not closed")
	}
}

func closeDialogs(w fyne.Window) {
	for top := w.Canvas().Overlays().Top(); top != nil; top = w.Canvas().Overlays().Top() {
		w.Canvas().Overlays().Remove(top)
	}
}

// TestNoticeShowsWhileWaiting: a notice (a write waiting for another process) shows under the
// title and goes once no new one has come for a moment (noticeExpired is what the timer runs).
func TestNoticeShowsWhileWaiting(t *testing.T) {
	test.NewTempApp(t)
	s, _ := newTestShell(t, Deps{Workspaces: []workspace.Registration{}})
	// The timer would fire during a later test, on its own goroutine (the test driver runs
	// fyne.Do where it is called).
	t.Cleanup(s.stopNotice)
	s.Notice("Waiting: another Agentdesk process is writing to this store; waiting… 3 s")
	if !s.noticeBar.Visible() || !strings.Contains(s.notice.Text, "waiting… 3 s") || s.noticeBar.Size().Height == 0 {
		t.Fatalf("the notice is not shown (visible %v, laid out at %v)", s.noticeBar.Visible(), s.noticeBar.Size())
	}
	first := s.noticeGen
	s.Notice("Waiting: … 4 s")
	s.noticeExpired(first) // the first notice's time is up, but a newer one came
	if !s.noticeBar.Visible() {
		t.Fatal("the bar went while notices still came")
	}
	s.noticeExpired(s.noticeGen)
	if s.noticeBar.Visible() {
		t.Fatal("the notice stayed after the wait ended")
	}
}

// TestLoadingSamplesTwiceOpensWhatIsThere: with the samples loaded, "Load sample data" (a
// workspace's empty state) imports nothing again and makes no workspace again (nothing to ask
// about unsaved work for): it opens the workspace's sample and says they were loaded already.
func TestLoadingSamplesTwiceOpensWhatIsThere(t *testing.T) {
	test.NewTempApp(t)
	st := uitest.OpenStore(t)
	samples := &fakeSamples{loaded: true}
	made := map[string][]*fakeWS{}
	regs := []workspace.Registration{{ID: workspace.Demonstrations, Title: "Demonstrations", Icon: theme.FileIcon(),
		New: func(h workspace.Host) workspace.Workspace {
			f := &fakeWS{id: "demonstrations", label: widget.NewLabel("demonstrations content")}
			made[workspace.Demonstrations] = append(made[workspace.Demonstrations], f)
			return f
		}}}
	s, w := newTestShell(t, Deps{Store: st, StorePath: st.Path(), Samples: samples, Workspaces: regs})
	s.Show(workspace.Demonstrations)
	ws := made[workspace.Demonstrations][0]
	ws.unsaved = "notes.demonstrations has 1 edit not saved"
	s.LoadSamples()
	if samples.loads != 0 || len(made[workspace.Demonstrations]) != 1 || ws.closed != 0 {
		t.Fatalf("loaded again: %d loads, %d workspaces made", samples.loads, len(made[workspace.Demonstrations]))
	}
	if !slices.Equal(ws.opened, []string{"/samples/recipes.demonstrations"}) {
		t.Fatalf("opened %v", ws.opened)
	}
	top := w.Canvas().Overlays().Top()
	if top == nil || !strings.Contains(uitest.Texts(top), "already loaded") {
		t.Fatal("no word that the samples were there already")
	}
}
