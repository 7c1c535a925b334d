package web

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/engine/samples"
	"github.com/agentdesk/agentdesk/store"
)

// serveProject serves a project built in the test from a fresh store.
func serveProject(t *testing.T, p *ev.Project) *harness {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "study.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()
	id, err := st.SaveEvalProject(ctx, p.Name, "created", "", p, "")
	if err != nil {
		t.Fatal(err)
	}
	saved, err := st.EvalProject(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, st: st, proj: session.NewProject(id, p.Name, saved)}
	h.start()
	return h
}

// wordingProjects are the sample projects a participant can be given: the Evaluation sample,
// a project over every type of the built-in catalogue, and the original's example project in
// both its configurations.
func wordingProjects(t *testing.T) map[string]func(t *testing.T) *harness {
	return map[string]func(t *testing.T) *harness{
		"sample": func(t *testing.T) *harness {
			p, err := samples.EvaluationProject()
			if err != nil {
				t.Fatal(err)
			}
			return serveProject(t, p)
		},
		"catalogue": func(t *testing.T) *harness {
			p, err := ev.CatalogueProject("Catalogue study", catalogueDialogues(), ev.CatalogueOptions{Behaviours: true,
				DialogueLikert: true, TurnLikert: true, Pairs: [][2]int{{0, 1}}})
			if err != nil {
				t.Fatal(err)
			}
			return serveProject(t, p)
		},
		"flags":          func(t *testing.T) *harness { return serveExample(t, "flags", nil) },
		"collect":        func(t *testing.T) *harness { return serveExample(t, "collect", echoBots) },
		"collect-online": func(t *testing.T) *harness { return serveExample(t, "collect", onlineEchoBots) },
		"every-type":     func(t *testing.T) *harness { return serveExample(t, "flags", everyTypeNamingSpeakers) },
	}
}

// everyTypeNamingSpeakers asks every type of the example project on its dialogues (the
// comparative ones on a pair), each text a participant reads naming SPEAKER_X and SPEAKER_Y:
// questions, choices, scales, options.
func everyTypeNamingSpeakers(p *ev.Project) {
	p.Settings.UseScreening = false
	p.Settings.UseGolds = false
	namingSpeakers(p)
	var single, pair []string
	for _, t := range p.Types {
		if t.Display == ev.Comparative {
			pair = append(pair, t.Name)
		} else {
			single = append(single, t.Name)
		}
	}
	var turns []ev.Turn
	for _, b := range p.Bundles {
		for _, d := range b.Datapoints {
			if len(d.Turns) > len(turns) {
				turns = d.Turns
			}
		}
	}
	p.Bundles = []ev.Bundle{{Datapoints: []ev.Datapoint{{DialogueID: "all", GroupID: "all", AnnotationTasks: single, Turns: turns}}},
		{Datapoints: []ev.Datapoint{{DialogueID: "pair", GroupID: "pair", AnnotationTasks: pair, Turns: turns, Turns2: turns}}}}
	p.Units = map[string]int{"all": 1, "pair": 1}
}

func namingSpeakers(p *ev.Project) { session.NameSpeakersEverywhere(p) }

// echoBots has the example's bots echo, and rates each conversation afterwards on the
// example's scales (per dialogue and per turn) and compares it with the one before, every text
// naming the speakers. (The example's own lists name types the original drops: only names with
// "likert" or "comparative" are shown.)
func echoBots(p *ev.Project) {
	for k := range p.Bots {
		p.Bots[k] = ev.BotSpec{Kind: ev.BotEcho}
	}
	namingSpeakers(p)
	for old, name := range map[string]string{"clarity_dialogue": "clarity_likert", "clarity_turn": "clarity_likert_turn", "clarity_compare": "clarity_comparative"} {
		p.Type(old).Name = name
	}
	p.Settings.OfflineAnnotations = [][]string{{"clarity_likert", "clarity_likert_turn"}, {"clarity_likert", "clarity_comparative"}}
}

// onlineEchoBots also asks about each bot message during the conversation.
func onlineEchoBots(p *ev.Project) {
	echoBots(p)
	p.Settings.OnlineAnnotation = "labels"
}

// catalogueDialogues are two short chats, user first.
func catalogueDialogues() []ev.Datapoint {
	mk := func(id string, texts ...string) ev.Datapoint {
		d := ev.Datapoint{DialogueID: id}
		for i, s := range texts {
			sp := "user"
			if i%2 == 1 {
				sp = "bot"
			}
			d.Turns = append(d.Turns, ev.Turn{Speaker: sp, Text: s})
		}
		return d
	}
	return []ev.Datapoint{
		mk("a", "I lost my keys today.", "Oh no, that is annoying. Where did you see them last?", "At the bakery, I think.", "Then ask the baker, they often keep what people leave."),
		mk("b", "I lost my keys today.", "Keys are made of metal.", "Okay?", "Metal is shiny."),
	}
}

var (
	tagRe       = regexp.MustCompile(`(?s)<[^>]*>`)
	saidRe      = regexp.MustCompile(`(?s)<span class="said">.*?</span>`)
	visibleAttr = regexp.MustCompile(`(?:placeholder|aria-label|title|alt)="([^"]*)"`)
	screenRe    = regexp.MustCompile(`data-screen="([^"]*)"`)
	nextRe      = regexp.MustCompile(`value="next"><button type="submit" class="primary"( disabled)?`)
	inputAt     = regexp.MustCompile(`<input type="(radio|checkbox)" name="([^"]*)" data-kind="([^"]*)" data-key="([^"]*)" data-value="([^"]*)" data-click="([^"]*)"( checked)?( disabled)?>`)
	turnAt      = regexp.MustCompile(`data-turn="(-?\d+)"`)
)

// visibleText is what a participant reads on a page: its text and the attributes a browser
// shows, without the dialogue's own turns (the data, not the study's wording).
func visibleText(page string) string {
	page = saidRe.ReplaceAllString(page, " ")
	var attrs []string
	for _, m := range visibleAttr.FindAllStringSubmatch(page, -1) {
		attrs = append(attrs, m[1])
	}
	return html.UnescapeString(tagRe.ReplaceAllString(page, " ") + " " + strings.Join(attrs, " "))
}

func internalNames(text string, p *ev.Project) []string { return session.InternalNames(text, p) }

// Every screen a participant of a sample project goes through (training with its mistakes
// and feedback, every type's pages, chats, the messages) shows the project's display names
// and the speakers' names, never an internal name or a SPEAKER_X/SPEAKER_Y placeholder.
func TestParticipantsSeeNoInternalNames(t *testing.T) {
	for name, serve := range wordingProjects(t) {
		t.Run(name, func(t *testing.T) {
			h := serve(t)
			screens := walkStudy(t, h, "walker")
			seen := map[string]bool{}
			for _, s := range screens {
				if testing.Verbose() {
					t.Logf("%s: %s", s.screen, strings.Join(strings.Fields(s.text), " "))
				}
				seen[s.screen] = true
				if bad := internalNames(s.text, h.proj.Def()); len(bad) > 0 {
					t.Errorf("a %s screen shows %q:\n%s", s.screen, bad, strings.Join(strings.Fields(s.text), " "))
				}
			}
			want := []string{"page", "message"}
			if name == "collect-online" {
				want = []string{"message"}
			}
			if h.proj.Def().Settings.UseScreening {
				want = append(want, "training")
			}
			if h.proj.Def().Settings.CollectDialogue {
				want = append(want, "chat")
			}
			for _, w := range want {
				if !seen[w] {
					t.Errorf("the walk never reached a %s screen (%d screens)", w, len(screens))
				}
			}
		})
	}
}

type shownScreen struct{ screen, text string }

// walkStudy takes a participant through everything the study has for them: the training
// (the first conversation left unanswered, so that the mistakes and feedback pages show, the
// others answered right), every page of every unit, and chats; it returns the screens shown.
func walkStudy(t *testing.T, h *harness, worker string) []shownScreen {
	t.Helper()
	c := h.participant(worker)
	c.open()
	var out []shownScreen
	current := func() *session.Session {
		h.srv.mu.Lock()
		defer h.srv.mu.Unlock()
		return h.srv.people[worker].sess
	}
	for step := 0; step < 600; step++ {
		m := screenRe.FindStringSubmatch(c.page)
		if m == nil {
			t.Fatalf("no screen:\n%s", c.page)
		}
		out = append(out, shownScreen{m[1], visibleText(c.page)})
		switch m[1] {
		case "message":
			if !strings.Contains(c.page, `value="continue"`) {
				return out
			}
			c.do(vals("do", "continue"))
		case "training":
			c.do(vals("do", "next"))
		case "page":
			s := current()
			if tr := s.Training(); tr != nil {
				if tr.Step == ev.StepFeedback || tr.Dialogue > 0 {
					for _, e := range truthEdits(s) {
						c.do(e)
					}
				}
			}
			fillPage(t, c)
			c.do(vals("do", "next"))
		case "chat":
			chatStep(t, c)
		default:
			t.Fatalf("unknown screen %q", m[1])
		}
	}
	t.Fatalf("the walk did not end:\n%s", c.page)
	return nil
}

// truthEdits are the edits that give the editable turns of a training page their truth.
func truthEdits(s *session.Session) []url.Values {
	pg := s.Page()
	var edits []url.Values
	for _, pos := range pg.Positions {
		tr := pg.Datapoint.Turns[pos].Truth
		if tr == nil || !pg.Editable(pos) {
			continue
		}
		ta := pg.Answers.TurnAt(pos)
		for _, e := range tr.Entries {
			switch v := e.Value.(type) {
			case string:
				q := pg.Type.Flow.Find(e.Key)
				if v == "" || ta.String(e.Key) == v || q == nil {
					continue
				}
				click := "radio"
				if q.Checkbox {
					click = "check"
				}
				edits = append(edits, vals("do", "edit", "turn", itoa(pos), "kind", "flow", "key", e.Key, "value", v, "click", click))
			case []string:
				have := ta.List(e.Key)
				for _, c := range pg.Type.Choices {
					on := slices.Contains(v, c.Value)
					if on != slices.Contains(have, c.Value) {
						edits = append(edits, vals("do", "edit", "turn", itoa(pos), "kind", "label", "key", c.Value, "value", map[bool]string{true: "on", false: "off"}[on]))
					}
				}
			}
		}
	}
	return edits
}

// fillPage answers the page until its Next is enabled: the first answer of each question
// without one, then boxes to tick.
func fillPage(t *testing.T, c *client) {
	t.Helper()
	for guard := 0; guard < 200; guard++ {
		if m := nextRe.FindStringSubmatch(c.page); m != nil && m[1] == "" {
			return
		}
		answered := map[string]bool{}
		ins := pageInputs(c.page)
		for _, x := range ins {
			if x.checked {
				answered[x.name] = true
			}
		}
		pick := -1
		for i, x := range ins {
			if x.typ == "radio" && !answered[x.name] {
				pick = i
				break
			}
		}
		if pick < 0 {
			for i, x := range ins {
				if x.typ == "checkbox" && !answered[x.name] {
					pick = i
					break
				}
			}
		}
		if pick < 0 {
			t.Fatalf("nothing left to answer and Next is still off:\n%s", c.page)
		}
		c.do(ins[pick].edit())
	}
	t.Fatalf("the page never completes:\n%s", c.page)
}

// chatStep answers the online question, sends a message or ends the conversation, and waits
// for the bot.
func chatStep(t *testing.T, c *client) {
	t.Helper()
	switch {
	case strings.Contains(c.page, "Answer the question under your partner"):
		ins := pageInputs(c.page)
		last := ins[len(ins)-1].turn
		for _, x := range ins {
			if x.turn == last && !x.checked {
				c.do(x.edit())
				return
			}
		}
		t.Fatalf("no answer left for the online question:\n%s", c.page)
	case strings.Contains(c.page, `id="typing"`):
		time.Sleep(5 * time.Millisecond) // the bot's reply comes in the background
		c.open()
	case !strings.Contains(c.page, `placeholder="Type your message" disabled`) && strings.Contains(c.page, `placeholder="Type your message"`):
		if status, msg := c.post(vals("do", "send", "text", "Tell me about rivers.")); status != http.StatusOK {
			t.Fatalf("send: %d %s", status, msg)
		}
		c.open()
	default:
		c.do(vals("do", "end"))
	}
}

// pageInput is an enabled answer of a page.
type pageInput struct {
	turn, typ, name, kind, key, value, click string
	checked                                  bool
}

// edit is the edit the page's script sends for a click on the input.
func (x pageInput) edit() url.Values {
	e := vals("do", "edit", "turn", x.turn, "kind", x.kind, "key", x.key, "value", x.value)
	if x.click != "" {
		e.Set("click", x.click)
	}
	return e
}

// pageInputs are the enabled answers of a page, in order.
func pageInputs(page string) []pageInput {
	var out []pageInput
	for _, loc := range inputAt.FindAllStringSubmatchIndex(page, -1) {
		m := func(i int) string { return page[loc[2*i]:loc[2*i+1]] }
		if loc[16] >= 0 { // disabled
			continue
		}
		turns := turnAt.FindAllStringSubmatch(page[:loc[0]], -1)
		out = append(out, pageInput{turn: turns[len(turns)-1][1], typ: m(1), name: m(2), kind: m(3), key: html.UnescapeString(m(4)),
			value: html.UnescapeString(m(5)), click: m(6), checked: loc[14] >= 0})
	}
	return out
}
