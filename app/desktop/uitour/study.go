package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/chromedp/chromedp"

	"github.com/agentdesk/agentdesk/app"
	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/store"
)

// study serves the sample evaluation project from the app's Serve tab and has two participants
// work through it at once in two browsers (Debian's chromium, headless, driven with chromedp),
// while the tour watches the desktop's roster follow them and takes screenshots of it. It
// fails when the roster does not show both participants moving on.
func (t *tour) study(th, chromium string) {
	onUI(func() { t.d.Shell.Show("evaluation") })
	time.Sleep(settle)
	t.tapButton("Projects") // back to the list, when a project is open
	time.Sleep(settle)
	if !t.openSomething("evaluation") {
		t.failf("study: no evaluation project to serve")
		return
	}
	time.Sleep(settle)
	onUI(func() {
		for _, at := range findAll[*container.AppTabs](t.d.Shell.View()) {
			for i, it := range at.Items {
				if it.Text == "Serve" {
					at.SelectIndex(i)
				}
			}
		}
	})
	time.Sleep(settle)
	onUI(func() {
		for _, e := range findAll[*widget.Entry](t.d.Shell.View()) {
			switch {
			case strings.HasPrefix(e.Text, "127.0.0.1:"):
				e.SetText("127.0.0.1:0")
			case e.MultiLine && strings.Contains(e.PlaceHolder, "participant ids"):
				e.SetText("ann\nbob")
			}
		}
	})
	if !t.tapButton("Serve") || !t.tapButton("Make links") {
		t.failf("study: the Serve tab has no Serve or Make links button: %s", t.contentText())
		return
	}
	time.Sleep(settle)
	var links []string
	t.tapButton("Copy all")
	onUI(func() { links = strings.Fields(fyne.CurrentApp().Clipboard().Content()) })
	if len(links) != 2 {
		t.failf("study: %d links copied, want 2", len(links))
		return
	}
	t.shot(th, "study", "links")
	p, err := sampleProject()
	if err != nil {
		t.failf("study: %v", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	progress := make([]int, len(links))
	for i, link := range links {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := participate(ctx, chromium, link, p, 8, t.logf)
			progress[i] = n
			if err != nil {
				t.failf("study: participant %d: %v", i+1, err)
			}
		}()
	}
	// The roster, while they work.
	var seen []string
	for k := 0; k < 4; k++ {
		time.Sleep(4 * time.Second)
		text := t.contentText()
		seen = append(seen, text)
		t.shot(th, "study", "roster-"+strconv.Itoa(k+1))
	}
	wg.Wait()
	time.Sleep(2 * time.Second)
	t.shot(th, "study", "roster-end")
	last := t.contentText()
	for _, who := range []string{"ann", "bob"} {
		if !strings.Contains(last, who) {
			t.failf("study: the roster does not show %s: %s", who, last)
		}
	}
	if len(seen) > 1 && seen[0] == last {
		t.failf("study: the roster did not change while the participants worked")
	}
	t.logf("study: pages done %v", progress)
	t.tapButton("Stop")
}

// sampleProject reads the served sample project's definition (its training's truth tells the
// participants what to tick) from the app's store.
func sampleProject() (*ev.Project, error) {
	path, err := app.DefaultStorePath()
	if err != nil {
		return nil, err
	}
	st, err := store.Open(path)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	ctx := context.Background()
	ps, err := st.EvalProjects(ctx)
	if err != nil || len(ps) == 0 {
		return nil, fmt.Errorf("no evaluation project in %s (%v)", path, err)
	}
	return st.EvalProject(ctx, ps[0].ID)
}

// participate works through a participant's pages in a browser: the training answered from
// its truth, every other question with its first choice; it returns the pages done.
func participate(ctx context.Context, chromium, link string, p *ev.Project, pages int, logf func(string, ...any)) (int, error) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1100, 900))
	actx, cancel := chromedp.NewExecAllocator(ctx, opts...)
	defer cancel()
	bctx, cancel2 := chromedp.NewContext(actx)
	defer cancel2()
	if err := chromedp.Do(bctx, chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("#main"))); err != nil {
		return 0, err
	}
	js := func(expr string) string {
		s, _ := chromedp.Run(bctx, chromedp.Evaluate[string](expr))
		return s
	}
	done := 0
	for step := 0; step < 200 && done < pages; step++ {
		time.Sleep(700 * time.Millisecond) // as a person would
		screen := js(`document.getElementById("main").dataset.screen`)
		at := js(`document.getElementById("main").dataset.at`)
		logf("study: %s: %s %s %q", link[strings.Index(link, "worker_id="):strings.Index(link, "&")], screen, at,
			js(`(document.getElementById("problem")||{}).textContent||""`))
		if screen == "" {
			return done, fmt.Errorf("the page is gone: %s %s", js(`location.href`), js(`document.documentElement.outerHTML.slice(0, 600)`))
		}
		switch screen {
		case "training", "message":
			if js(`document.querySelector("button[data-enter]") ? "1" : ""`) == "" {
				logf("study: stops at: %s", js(`document.getElementById("main").innerText`))
				return done, nil // nothing more for this participant
			}
		case "page":
			logf("study: page text: %s", js(`(document.querySelector(".pagetext")||{}).textContent||""`))
			for _, sel := range choices(p, at, js) {
				click(bctx, sel)
				time.Sleep(250 * time.Millisecond)
			}
			done++
		default:
			continue
		}
		click(bctx, `button[data-enter]:not([disabled])`)
		for i := 0; i < 100 && js(`document.getElementById("main").dataset.at`) == at; i++ {
			time.Sleep(20 * time.Millisecond)
		}
	}
	return done, nil
}

// choices are the inputs to click on the page stamped at: on a training page (p<unit>.1.<i>.0)
// those whose state differs from what dialogue i's truth wants, on any other page the first
// choice of each question not answered yet.
func choices(p *ev.Project, at string, js func(string) string) []string {
	type box struct {
		Name, Key, Value string
		Turn             int
		Checked, Off     bool
	}
	var boxes []box
	raw := js(`JSON.stringify([].map.call(document.querySelectorAll("fieldset[data-slot] input"), function (i) {
		return {Name: i.name, Key: i.dataset.key, Value: i.dataset.value, Turn: +i.closest("fieldset").dataset.turn,
			Checked: i.checked, Off: i.disabled};
	}))`)
	json.Unmarshal([]byte(raw), &boxes)
	sel := func(b box) string {
		return fmt.Sprintf(`input[name=%q][data-key=%q][data-value=%q]`, b.Name, b.Key, b.Value)
	}
	var out []string
	parts := strings.Split(strings.TrimPrefix(at, "p"), ".")
	if len(parts) == 4 && parts[1] == "1" && p.Training != nil {
		i, _ := strconv.Atoi(parts[2])
		if i < 0 || i >= len(p.Training.Dialogues) {
			return nil
		}
		turns := p.Training.Dialogues[i].Turns
		for _, b := range boxes {
			if b.Off || b.Turn < 0 || b.Turn >= len(turns) || turns[b.Turn].Truth == nil {
				continue
			}
			want := false
			for _, e := range turns[b.Turn].Truth.Entries {
				switch v := e.Value.(type) {
				case []string:
					want = want || slices.Contains(v, b.Key)
				case []any:
					want = want || slices.Contains(v, any(b.Key))
				case string:
					want = want || (e.Key == b.Key && v == b.Value)
				}
			}
			if want != b.Checked {
				out = append(out, sel(b))
			}
		}
		return out
	}
	answered := map[string]bool{}
	for _, b := range boxes {
		if b.Checked {
			answered[b.Name] = true
		}
	}
	for _, b := range boxes {
		if !b.Off && !answered[b.Name] {
			answered[b.Name] = true
			out = append(out, sel(b))
		}
	}
	return out
}

// click clicks the element a selector finds, giving up after a few seconds when there is none.
func click(ctx context.Context, sel string) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel)))
}
