package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/ui/demonstrations"
	"github.com/agentdesk/agentdesk/ui/uitest"
	"github.com/agentdesk/agentdesk/ui/widgets"
)

// TestHomeUsesTheWidthAndShowsRecentFiles: at 1024x670 with the sample data loaded and a few
// recent files, Home's cards share the whole width (no empty column at the right) and every
// recent file and every card's button are in view without scrolling.
func TestHomeUsesTheWidthAndShowsRecentFiles(t *testing.T) {
	test.NewTempApp(t)
	st := uitest.SeededStore(t)
	ctx := context.Background()
	for i := range 4 {
		if err := st.TouchRecent(ctx, fmt.Sprintf("/home/ada/file%d.pkl", i), "pickle"); err != nil {
			t.Fatal(err)
		}
	}
	s, w := newTestShell(t, Deps{Store: st, StorePath: st.Path(), Samples: &fakeSamples{loaded: true}})
	w.Resize(uitest.Laptop)
	s.Show(ScreenHome)
	w.Resize(uitest.Laptop)
	root := w.Content()
	if !strings.Contains(uitest.Texts(root), "Remove sample data") {
		t.Fatalf("Home does not show the sample data line:\n%s", uitest.Texts(root))
	}
	var cards *fyne.Container
	uitest.Walk(root, func(o fyne.CanvasObject) {
		if c, ok := o.(*fyne.Container); ok {
			if _, ok := c.Layout.(*cardGrid); ok {
				cards = c
			}
		}
	})
	if cards == nil || len(cards.Objects) != 5 {
		t.Fatal("no grid of five cards on Home")
	}
	right := float32(0)
	for _, c := range cards.Objects {
		right = max(right, c.Position().X+c.Size().Width)
	}
	if gap := cards.Size().Width - right; gap > 2 {
		t.Errorf("the cards leave %.0f px empty at the right of %.0f", gap, cards.Size().Width)
	}
	var checked []string
	uitest.Walk(root, func(o fyne.CanvasObject) {
		var b *widget.Button
		switch v := o.(type) {
		case *widget.Button:
			b = v
		case *widgets.TipButton:
			b = &v.Button
		}
		if b == nil || !(strings.HasPrefix(b.Text, "Open ") || strings.Contains(b.Text, "  ·  ")) {
			return
		}
		checked = append(checked, b.Text)
		if r, why := uitest.Why(w, root, o); why != "" {
			t.Errorf("%q is out of view at 1024x670: at %v, %v %s", b.Text, r.Pos, r.Size, why)
		}
	})
	if len(checked) < 10 { // 5 cards, 5 recent files
		t.Fatalf("checked only %q", checked)
	}
}

// TestDemonstrationsCardCountsOpenedFiles: a demonstration file opened recently (the sample
// one) shows on the card even though its trajectories are not in the store.
func TestDemonstrationsCardCountsOpenedFiles(t *testing.T) {
	recent := []episode.RecentFile{{Path: "/s/Sample.pkl", Kind: "pickle"}, {Path: "/s/T", Kind: "template-folder"}}
	for _, c := range []struct {
		o    episode.Overview
		want string
	}{
		{episode.Overview{Recent: recent}, "1 demonstration file opened recently"},
		{episode.Overview{Recent: recent, EpisodesBySource: map[string]int{episode.SourceMobileEnv: 2}},
			"1 demonstration file opened recently\n2 Mobile-Env trajectories in the store"},
		{episode.Overview{EpisodesBySource: map[string]int{episode.SourceMobileEnv: 1}}, "1 Mobile-Env trajectory in the store"},
		{episode.Overview{}, "No demonstration file opened yet"},
	} {
		if got := demonstrations.Summary(c.o); got != c.want {
			t.Errorf("Summary = %q, want %q", got, c.want)
		}
	}
}
