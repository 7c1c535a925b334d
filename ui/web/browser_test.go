package web

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// The participant pages in a real browser: Debian's chromium, driven with chromedp. make test
// installs chromium and sets AGENTDESK_REQUIRE_BROWSER, so that there a missing browser fails
// the test; elsewhere the test says it was skipped.

func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("AGENTDESK_REQUIRE_BROWSER") != "" {
		t.Fatal("no chromium on PATH (scripts/deps.sh test installs it)")
	}
	t.Skip("no chromium on PATH; make test installs it")
	return ""
}

// shotsDir is where the tests' screenshots go (the UI tour's folder, not committed).
func shotsDir(t *testing.T) string {
	dir := os.Getenv("AGENTDESK_WEB_SHOTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "ui-tour", "web")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// page is a browser tab on the study, failing the test on any script error.
type page struct {
	t   *testing.T
	ctx context.Context
}

func newPage(t *testing.T, width, height int64) *page { return openPage(t, width, height, false) }

// openPage starts a browser; refusals expected says that requests the server refuses (403,
// 429) are part of the test, so the browser's notes about them are not errors.
func openPage(t *testing.T, width, height int64, refusalsExpected bool) *page {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumPath(t)), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(int(width), int(height)))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	p := &page{t: t, ctx: ctx}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height)); err != nil {
		t.Fatal(err)
	}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if refusalsExpected && strings.Contains(m.String(), "Failed to load resource: the server responded with a status of 4") {
				continue
			}
			if m.IsException() || m.Type == chromedp.ConsoleError {
				t.Errorf("the page reported an error: %s", m)
			}
		}
	}()
	return p
}

func (p *page) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatalf("%s: %v\npage: %s", what, err, p.text())
	}
}

func eval[T any](p *page, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.t.Fatalf("%s: %v", expr, err)
	}
	return v
}

func (p *page) text() string {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	return s
}

func (p *page) main(attr string) string {
	return eval[string](p, `(document.getElementById("main")||{dataset:{}}).dataset.`+attr+` || ""`)
}

func (p *page) at() string     { return p.main("at") }
func (p *page) screen() string { return p.main("screen") }

// waitMoved waits until the page shows something else than the page stamped before.
func (p *page) waitMoved(before string) {
	p.t.Helper()
	for i := 0; i < 400; i++ {
		if a := p.at(); a != "" && a != before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.t.Fatalf("the page did not move on from %s: %s", before, p.text())
}

// waitText waits until the page holds text.
func (p *page) waitText(text string) {
	p.t.Helper()
	for i := 0; i < 500; i++ {
		if strings.Contains(p.text(), text) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.t.Fatalf("the page never showed %q: %s", text, eval[string](p, `document.documentElement.outerHTML`))
}

// waitVersion waits until the page's version changed (an answer was stored and the page drawn
// again).
func (p *page) waitVersion(before string) {
	p.t.Helper()
	for i := 0; i < 400; i++ {
		if p.main("version") != before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.t.Fatalf("the page did not change after the answer (problem: %q)", eval[string](p, `(document.getElementById("problem")||{}).textContent||""`))
}

// click clicks an element and waits for the answer to be stored and shown.
func (p *page) click(sel string) {
	p.t.Helper()
	before := p.main("version")
	// Into the middle of the window, clear of the sticky button bar, then a real mouse click.
	eval[bool](p, `(function(){var e=document.querySelector(`+strconv.Quote(sel)+`);if(e){e.scrollIntoView({block:"center"})};return !!e})()`)
	p.do("click "+sel, chromedp.Click(chromedp.CSS(sel)))
	p.waitVersion(before)
}

// press types a key and waits for its answer to be stored and shown.
func (p *page) press(key string) {
	p.t.Helper()
	before := p.main("version")
	p.do("key "+key, chromedp.KeyEvent(key))
	p.waitVersion(before)
}

func (p *page) shot(name string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()) // what the window shows
	if err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shotsDir(p.t), name+".png"), buf, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// begin opens a participant's link and presses Start on its start page (an id not yet bound
// to a browser is bound by Start, which also hands out the first unit).
func (p *page) begin(link string) {
	p.t.Helper()
	p.do("open the link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("#main")))
	if p.at() != "start" {
		p.t.Fatalf("the link did not open on the start page: %s", p.text())
	}
	p.next()
}

// open loads the page again (a reload).
func (p *page) open() {
	p.t.Helper()
	p.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#main")))
}

// next presses the page's primary button (Next, Submit, Continue, a training button).
func (p *page) next() {
	p.t.Helper()
	before := p.at()
	p.do("the primary button", chromedp.Click(chromedp.CSS(`button[data-enter]:not([disabled])`)))
	p.waitMoved(before)
}

// studyProject is the example project shaped for a whole participant session: the training,
// a turn Likert unit and a comparative unit, each its own group; a completion code at the end.
func studyProject(p *ev.Project) {
	var bundles []ev.Bundle
	for i, b := range p.Bundles {
		switch i {
		case 1:
			b.Datapoints[0].AnnotationTasks = []string{"clarity_turn"}
		case 2:
		default:
			continue
		}
		for d := range b.Datapoints {
			b.Datapoints[d].GroupID = fmt.Sprintf("group-%d", i)
		}
		bundles = append(bundles, b)
	}
	p.Bundles = bundles
	p.Settings.DefaultUnits = 2 // one per browser width
	p.Settings.CompletionCode = "AGD-7Q2K"
}

// A participant in a real browser: the training by mouse (its answers from the truth), a turn
// Likert unit by mouse, a comparative unit by keyboard, the completion code; screenshots at
// 1280 and 360 px.
func TestParticipantInABrowser(t *testing.T) {
	h := serveExample(t, "flags", studyProject)
	for _, width := range []int64{1280, 360} {
		worker := fmt.Sprintf("w-%d", width)
		link, _ := h.srv.Link(context.Background(), worker, "")
		p := newPage(t, width, 900)
		p.begin(link)
		p.waitText("Training: Flags")
		p.shot(fmt.Sprintf("%d-training", width))
		p.next() // Begin Flags
		for guard := 0; guard < 30 && p.screen() != "" && !strings.Contains(p.text(), "Congratulations"); guard++ {
			if p.screen() == "training" {
				p.next()
				continue
			}
			for _, sel := range truthSelectors(t, h, worker) {
				p.click(sel)
			}
			if guard == 1 {
				p.shot(fmt.Sprintf("%d-training-page", width))
			}
			p.next()
		}
		p.waitText("Congratulations")
		p.next() // Start the real work
		// The turn Likert unit, by mouse: the first choice of every question.
		if p.screen() != "page" || !strings.Contains(p.text(), "Clarity") {
			t.Fatalf("no Likert page: %s", p.text())
		}
		p.shot(fmt.Sprintf("%d-likert", width))
		// Two answers given at once (a quick double click across questions) are both kept.
		v0, _ := strconv.Atoi(p.main("version"))
		eval[bool](p, `(function(){var f=document.querySelectorAll("fieldset[data-slot]");
			f[0].querySelector("label:nth-child(2) input").click(); f[1].querySelector("label:nth-child(2) input").click(); return true})()`)
		for i := 0; i < 300; i++ { // both sent and the page drawn again after them
			if v, _ := strconv.Atoi(p.main("version")); v >= v0+2 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		p.open()
		if n := eval[int](p, `document.querySelectorAll("fieldset[data-slot] input:checked").length`); n != 2 {
			t.Fatalf("after two quick answers and a reload, %d are stored", n)
		}
		for guard := 0; guard < 50; guard++ {
			sel := eval[string](p, `(function(){var f=[].find.call(document.querySelectorAll("fieldset[data-slot]"),function(f){return !f.querySelector("input:checked")});return f?'fieldset[data-slot="'+f.dataset.slot+'"] label:nth-child(4) input':""})()`)
			if sel == "" {
				break
			}
			p.click(sel)
		}
		p.next() // Submit
		p.waitText("submitted")
		p.next() // Continue
		// The comparative unit, by keyboard: 2 chooses the second option, Enter submits.
		p.waitText("Dialogue 2")
		p.shot(fmt.Sprintf("%d-comparative", width))
		p.press("2")
		chosen := eval[string](p, `(document.querySelector("input:checked")||{dataset:{}}).dataset.value||""`)
		if chosen != "Dialogue 2 (right)" {
			t.Fatalf("key 2 chose %q", chosen)
		}
		before := p.at()
		p.do("Enter", chromedp.KeyEvent(kb.Enter))
		p.waitMoved(before)
		p.waitText("submitted")
		p.next()
		p.waitText("AGD-7Q2K")
		p.shot(fmt.Sprintf("%d-done", width))
		scrollW, clientW := eval[int](p, `document.documentElement.scrollWidth`), eval[int](p, `document.documentElement.clientWidth`)
		if scrollW > clientW+1 {
			t.Errorf("at %d px the page scrolls sideways (%d > %d)", width, scrollW, clientW)
		}
	}
}

// truthSelectors are the inputs to click so that the training page on show matches its
// truth (what a participant who read the explanations would tick).
func truthSelectors(t *testing.T, h *harness, worker string) []string {
	h.srv.mu.Lock()
	p := h.srv.people[worker]
	h.srv.mu.Unlock()
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	pg := p.sess.Page()
	if pg == nil {
		return nil
	}
	var out []string
	for _, pos := range pg.Positions {
		tr := pg.Datapoint.Turns[pos].Truth
		if tr == nil || !pg.Editable(pos) {
			continue
		}
		for _, e := range tr.Entries {
			if s, ok := e.Value.(string); ok && s != "" && pg.Answers.TurnAt(pos).String(e.Key) != s {
				out = append(out, fmt.Sprintf(`.turn[data-turn="%d"] input[data-key=%q][data-value=%q]`, pos, e.Key, s))
			}
		}
	}
	return out
}

// A chat in a real browser: the bot's replies appear without a reload, the online question
// under each reply is answered by mouse, messages are sent with Enter, END leads to the
// ratings (answered by keyboard), and the unit is submitted.
func TestChatInABrowser(t *testing.T) {
	h := serveExample(t, "collect", func(p *ev.Project) {
		p.Bots["botA"] = ev.BotSpec{Kind: ev.BotEcho}
		p.Bots["botB"] = ev.BotSpec{Kind: ev.BotEcho}
		p.Settings.OnlineAnnotation = "labels"
		likert := *p.Type("clarity_dialogue")
		likert.Name = "clarity_likert"
		p.Types = append(p.Types, &likert)
		p.Settings.OfflineAnnotations = [][]string{{"clarity_likert"}, {"clarity_likert"}}
		p.Settings.CompletionCode = "CHAT-OK-9"
		p.Settings.MaximumUnitsPerWorker = 1
	})
	link, _ := h.srv.Link(context.Background(), "chatter", "")
	p := newPage(t, 1280, 900)
	p.begin(link)
	for conv := 0; conv < 2; conv++ {
		p.waitText(fmt.Sprintf("Conversation %d of 2", conv+1))
		// The bot opens; its message waits for the online answer before the box opens.
		p.waitText("Answer the question under your partner")
		p.click(`.turn[data-turn="1"] input[data-key="repeat"]`)
		if eval[bool](p, `document.querySelector("textarea").disabled`) {
			t.Fatal("the text box stayed closed after the online answer")
		}
		if conv == 0 {
			p.shot("1280-chat")
		}
		before := p.main("version")
		p.do("type a message", chromedp.Click(chromedp.CSS("textarea")), chromedp.KeyEvent("Tell me <b>more</b>"), chromedp.KeyEvent(kb.Enter))
		p.waitVersion(before)
		p.waitText("Tell me <b>more</b>") // shown as text
		for i := 0; i < 300 && eval[bool](p, `!document.querySelector('.turn[data-turn="3"]')`); i++ {
			time.Sleep(10 * time.Millisecond)
		}
		p.click(`.turn[data-turn="3"] input[data-key="contra"]`)
		before = p.at()
		p.do("END", chromedp.Click(chromedp.CSS(`form.act:has(input[value="end"]) button`)))
		p.waitMoved(before)
		// The ratings, by keyboard: 4 on each scale, Enter.
		p.waitText("You are on task")
		for i := 0; i < 2; i++ {
			p.press("4")
		}
		before = p.at()
		p.do("Enter", chromedp.KeyEvent(kb.Enter))
		p.waitMoved(before)
	}
	p.waitText("submitted")
	p.next()
	p.waitText("CHAT-OK-9")
	ctx := context.Background()
	units, _ := h.st.EvalUnits(ctx, h.proj.ID)
	var done int
	for _, u := range units {
		if u.Status == ev.UnitCompleted {
			done++
			convs, _ := h.st.EvalConversations(ctx, u.ID)
			if len(convs) != 2 || len(convs[0].Turns) != 4 || !strings.Contains(convs[0].Turns[2].Text, "<b>more</b>") {
				t.Fatalf("stored conversations: %+v", convs)
			}
		}
	}
	if done != 1 {
		t.Fatalf("%d units completed", done)
	}
}

// A stranger in a second browser (a phone) tries each takeover and lock-out, and each fails,
// while the participant in the first browser answers on: alice's own link forwarded, the study
// link with alice's id, and new study-link ids from the stranger's address until the server
// tells it to wait.
func TestStrangerInASecondBrowser(t *testing.T) {
	h := serveExample(t, "flags", noScreening)
	link, _ := h.srv.Link(context.Background(), "alice", "")
	study, _ := h.srv.StudyLink(context.Background())
	alice := newPage(t, 1280, 900)
	alice.begin(link)
	alice.waitText("Signed in as alice")
	stranger := openPage(t, 360, 800, true)
	stranger.do("alice's link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("#error-message")))
	if txt := stranger.text(); !strings.Contains(txt, "alice is already in use in another browser") {
		t.Fatalf("alice's link in a second browser shows: %s", txt)
	}
	stranger.shot("360-stranger-refused")
	stranger.do("the study link with alice's id", chromedp.Navigate(study+"&PROLIFIC_PID=alice"), chromedp.WaitVisible(chromedp.CSS("#error-message")))
	if txt := stranger.text(); !strings.Contains(txt, "personal link") {
		t.Fatalf("the study link with alice's id shows: %s", txt)
	}
	waited := false
	for i := 0; i < 12 && !waited; i++ {
		stranger.do("a new id", chromedp.Navigate(fmt.Sprintf("%s&PROLIFIC_PID=stranger-%d", study, i)), chromedp.WaitVisible(chromedp.CSS("main")))
		if stranger.at() != "start" {
			t.Fatalf("a new id's link shows: %s", stranger.text())
		}
		stranger.do("Start", chromedp.Click(chromedp.CSS(`button[data-enter]`)))
		for k := 0; k < 300; k++ {
			txt := stranger.text()
			if strings.Contains(txt, "Trying again in") || strings.Contains(txt, "try again in") {
				waited = true
				break
			}
			if strings.Contains(txt, "stranger-"+strconv.Itoa(i)) && stranger.at() != "start" && stranger.at() != "" {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if !waited {
		t.Fatalf("12 new ids from one browser were never told to wait: %s", stranger.text())
	}
	stranger.shot("360-stranger-waits")
	// alice answers on
	sels := truthSelectors(t, h, "alice")
	if len(sels) == 0 {
		alice.click(`input[data-kind]`)
	} else {
		alice.click(sels[0])
	}
}

// An MTurk worker in a real browser: the last page arrives as a fragment, the script loads
// the whole page (whose policy allows the sandbox's submit), and the submit form is there;
// the page reports no policy violation.
func TestMTurkSubmitInABrowser(t *testing.T) {
	h := serveExample(t, "flags", func(p *ev.Project) { p.Settings.UseScreening = false; p.Settings.MaximumUnitsPerWorker = 1 })
	study, _ := h.srv.StudyLink(context.Background())
	p := newPage(t, 1280, 900)
	p.begin(study + "&assignmentId=A-1&hitId=H-1&turkSubmitTo=https%3A%2F%2Fworkersandbox.mturk.com&workerId=W-1")
	for guard := 0; guard < 20 && p.screen() == "page"; guard++ {
		for i := 0; i < 50; i++ {
			sel := eval[string](p, `(function(){var f=[].find.call(document.querySelectorAll("fieldset[data-slot]"),function(f){return !f.querySelector("input:checked")});return f?'fieldset[data-slot="'+f.dataset.slot+'"] input':""})()`)
			if sel == "" {
				break
			}
			p.click(sel)
		}
		p.next()
	}
	p.waitText("submitted")
	eval[bool](p, `window.beforeTheEnd = true`)
	p.next() // Continue: the completion arrives as a fragment and the whole page is loaded
	p.waitText("Submit your work to Mechanical Turk")
	if eval[bool](p, `window.beforeTheEnd === true`) {
		t.Error("the completion page was swapped in, not loaded: its form would be held to the work page's policy")
	}
	if action := eval[string](p, `document.getElementById("mturk-submit").action`); action != "https://workersandbox.mturk.com/mturk/externalSubmit" {
		t.Errorf("the form posts to %q", action)
	}
}
