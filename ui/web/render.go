package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
)

//go:embed assets
var assets embed.FS

//go:embed templates/*.html
var templateFiles embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"inc": func(i int) int { return i + 1 },
}).ParseFS(templateFiles, "templates/*.html"))

func assetHandler() http.Handler {
	sub, _ := fs.Sub(assets, "assets")
	fsrv := http.FileServer(http.FS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		fsrv.ServeHTTP(w, r)
	})
}

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:6])
}

// pageData is everything a participant's page shows.
type pageData struct {
	Study       string
	Participant string
	Screen      string
	// Query is the link's query (every request of the page carries it); Form the form token
	// and At the page's stamp.
	Query, Form, At string
	Version         int64
	Poll            bool
	Notice          string
	// DeadlineMs is when what is on show is due (ms since the epoch, 0: no limit).
	DeadlineMs int64
	Due        string
	Progress   string

	// Reload asks the page's script to load the whole page (see crowdPage).
	Reload bool

	Message  *messageData
	Training *messageData
	Page     *pageView
	Chat     *chatView
}

// actCtx is what a page's forms carry: the link's query, the form token and the page stamp.
type actCtx struct {
	Query, Form, At string
}

// URL is where the page's forms post (the query is the server's own encoding of the link).
func (a actCtx) URL() template.URL { return template.URL("/act?" + a.Query) }

// button is one form button of a page.
type button struct {
	Act               actCtx
	Do, Label         string
	Primary, Disabled bool
}

// Button makes a form button (called from the templates).
func (a actCtx) Button(do, label string, primary, disabled bool) button {
	return button{Act: a, Do: do, Label: label, Primary: primary, Disabled: disabled}
}

type messageData struct {
	Act                 actCtx
	Title, Text, Button string
	// Do is the button's action ("continue" when empty; "start" on the start page).
	Do        string
	More      bool
	Done      bool
	Code, URL string
	// PersonalCode is the participant's own completion code when Code is the project's static
	// one; ScreenOut marks the screen-out message (Code and URL are then the screen-out's);
	// MTurk is the form that submits an MTurk assignment (crowd.go).
	PersonalCode string
	ScreenOut    bool
	MTurk        *mturkSubmit
}

type pageView struct {
	Act         actCtx
	TypeTitle   string
	Description string
	Keys        string
	Columns     []column
	Dialogue    []group
	NextLabel   string
	CanNext     bool
	Training    bool
	Progress    string
}

type column struct {
	Title string
	Turns []turnView
}

type turnView struct {
	Pos         int
	User        bool
	Speaker     string
	Text        string
	Annotated   bool
	Editable    bool
	Collapsible bool
	Open        bool
	Feedback    bool
	Why         string
	Correct     string
	Groups      []group
}

// group is one keyboard stop: a question with its choices.
type group struct {
	Slot     string
	Turn     int
	Question string
	Help     string
	Indent   int
	Anchors  string
	Inputs   []input
}

type input struct {
	Type     string // radio, checkbox, or question (a flow question's heading)
	Indent   int    // depth in a question flow
	Help     string // a flow question's help
	Name     string
	Label    string
	Checked  bool
	Disabled bool
	Kind     string
	Key      string
	Value    string
	Click    string // flow clicks: radio, or check (a checkbox)
}

type chatView struct {
	Act               actCtx
	Index, Count, Cap int
	Messages          []chatMessage
	Waiting           bool
	CanSend, CanEnd   bool
	Unanswered        bool
	Capped            bool
	BotError          string
	Placeholder       string
	Online            *pageView
}

type chatMessage struct {
	User    bool
	Speaker string
	Text    string
}

func (s *Server) pageData(ctx context.Context, p *participant, id identity, browser string) pageData {
	v := p.sess.View()
	q := url.Values{}
	q.Set("worker_id", id.Worker)
	if id.Assignment != "" {
		q.Set("assignment_id", id.Assignment)
	}
	q.Set("token", id.Token)
	d := pageData{Study: studyTitle(s.opts.Project), Participant: v.Participant, Screen: string(v.Screen),
		Query: encodeOrdered(q, "worker_id", "assignment_id", "token"), Form: s.sign.formToken(id.Worker, browser),
		At: stamp(p.sess), Version: p.version, Notice: v.Notice, Due: v.Due()}
	if !v.Deadline.IsZero() {
		d.DeadlineMs = v.Deadline.UnixMilli()
	}
	act := actCtx{Query: d.Query, Form: d.Form, At: d.At}
	done := 0
	if sum, err := s.opts.Store.EvalParticipant(ctx, s.opts.Project.ID, p.sess.Participant().ID); err == nil {
		done = sum.Done
		d.Progress = fmt.Sprintf("Units done: %d", sum.Done)
	}
	switch v.Screen {
	case session.ScreenMessage:
		m := &messageData{Act: act, Title: v.Title, Text: v.Text, More: v.More, Button: v.Button}
		s.endScreen(ctx, p, v, done, m)
		if m.Title == "" {
			m.Title = "Please wait"
		}
		d.Message = m
	case session.ScreenTraining:
		d.Training = &messageData{Act: act, Title: v.Title, Text: v.Text, Button: v.Button}
	case session.ScreenPage:
		d.Page = buildPage(v.Page)
		d.Page.Act = act
	case session.ScreenChat:
		c := v.Chat
		cv := &chatView{Act: act, Index: c.Index + 1, Count: c.Count, Cap: c.Cap, Waiting: c.NeedsReply && c.BotError == "",
			CanSend: c.CanSend && !c.NeedsReply, CanEnd: c.CanEnd, Unanswered: c.Unanswered, Capped: c.Capped,
			BotError: c.BotError, Placeholder: "Type your message"}
		if c.Capped {
			cv.Placeholder = ev.CapMessage
		}
		if v.Page != nil {
			cv.Online = buildPage(v.Page)
		} else {
			for _, m := range c.Messages {
				cv.Messages = append(cv.Messages, chatMessage{User: m.AgentIdx == 0, Speaker: ev.SpeakerLabel(m.AgentIdx, true), Text: m.Text})
			}
		}
		d.Chat = cv
		d.Poll = cv.Waiting
	}
	return d
}

func studyTitle(p *session.Project) string {
	if t := p.Def().Settings.TaskTitle; t != "" {
		return t
	}
	return p.Name
}

// buildPage lays a session page out: the dialogue (or the pair) with the type's choices under
// every annotatable turn, and the dialogue-level questions.
func buildPage(pg *session.Page) *pageView {
	t := pg.Type
	pv := &pageView{TypeTitle: pg.TypeName(), Description: pg.Instructions(), Keys: keyHelp(t),
		NextLabel: pg.NextLabel(), CanNext: pg.Complete(), Training: pg.Training, Progress: pg.Progress}
	annot := map[int]bool{}
	for _, pos := range pg.Positions {
		annot[pos] = true
	}
	open := map[int]bool{}
	if t.Display.Collapsible() {
		for _, pos := range ev.OpenBlocks(t, pg.Answers, pg.Positions) {
			open[pos] = true
		}
		if pg.Turn >= 0 {
			open[pg.Turn] = true
		}
	}
	col := func(title string, turns []ev.Turn, annotated bool) column {
		c := column{Title: title}
		for pos, turn := range turns {
			tv := turnView{Pos: pos, User: turn.AgentIdx() == 0, Text: turn.Text}
			tv.Speaker = pg.SpeakerLabel(turn.AgentIdx())
			if annotated && annot[pos] {
				tv.Annotated, tv.Editable = true, pg.Editable(pos)
				tv.Collapsible, tv.Open = t.Display.Collapsible(), open[pos] || pg.Feedback == pos
				tv.Groups = turnGroups(pg, pos, turn, tv.Editable)
				if pg.Feedback == pos {
					tv.Feedback, tv.Why = true, pg.Explanation
					tv.Correct = session.DescribeTruth(t, pg.Datapoint, pg.Correct, pos)
				}
			}
			c.Turns = append(c.Turns, tv)
		}
		return c
	}
	if t.Display == ev.Comparative {
		first, second := pg.Datapoint.Turns, pg.Datapoint.Turns2
		if pg.Collection {
			first, second = second, first
		}
		pv.Columns = []column{col("Dialogue 1", first, true), col("Dialogue 2", second, false)}
	} else {
		pv.Columns = []column{col("", pg.Datapoint.Turns, true)}
	}
	pv.Dialogue = dialogueGroups(pg)
	return pv
}

func keyHelp(t *ev.AnnotationType) string {
	switch t.Display {
	case ev.LikertTurn, ev.LikertDialogue, ev.ForeachSelect, ev.ForeachSelectDialogue:
		return "Keys: 1-5 answer the highlighted question; ↑/↓ move between questions, ←/→ between turns; Enter goes on when the page is complete."
	case ev.Comparative:
		return "Keys: 1-3 choose the answer; Enter goes on when the page is complete."
	}
	return "Keys: ←/→ or ↑/↓ move between turns; 1-9 tick or choose the n-th answer of the highlighted turn; Enter goes on when the page is complete."
}

func scaleInputs(name string, turn int, kind session.EditKind, key, chosen string, disabled bool) []input {
	var out []input
	for v := 1; v <= 5; v++ {
		val := strconv.Itoa(v)
		out = append(out, input{Type: "radio", Name: name, Label: val, Checked: chosen == val, Disabled: disabled,
			Kind: string(kind), Key: key, Value: val})
	}
	return out
}

func anchors(details map[string]string) string {
	var keys []string
	for k := range details {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+" = "+details[k])
	}
	return strings.Join(parts, " · ")
}

// turnGroups are a turn's questions.
func turnGroups(pg *session.Page, pos int, turn ev.Turn, editable bool) []group {
	t := pg.Type
	ta := pg.Answers.TurnAt(pos)
	disabled := !editable
	var out []group
	switch {
	case t.Display.IsFlow():
		// One keyboard stop per turn: every choice of the flow on show, in order.
		var g group
		g.Slot, g.Turn = fmt.Sprintf("t%d", pos), pos
		var walk func(f ev.Flow, indent int)
		walk = func(f ev.Flow, indent int) {
			for _, q := range f {
				name := fmt.Sprintf("t%d-%s", pos, shortHash(q.Text))
				if q.Checkbox {
					for _, a := range q.Answers {
						on := ta.String(q.Text) == a.Text
						g.Inputs = append(g.Inputs, input{Type: "checkbox", Name: name + shortHash(a.Text), Label: pg.TurnText(pos, a.Text),
							Checked: on, Disabled: disabled, Kind: string(session.EditFlow), Key: q.Text, Value: a.Text, Click: "check", Indent: indent})
						if on && len(a.Sub) > 0 {
							walk(a.Sub, indent+1)
						}
					}
					continue
				}
				help := ""
				if t.Display.HelpIcons() {
					help = pg.Help(pos, q)
				}
				g.Inputs = append(g.Inputs, input{Type: "question", Label: pg.TurnText(pos, q.Text), Help: help, Indent: indent})
				chosen := ta.String(q.Text)
				var sub ev.Flow
				for _, a := range q.Answers {
					if a.Text == chosen {
						sub = a.Sub
					}
					g.Inputs = append(g.Inputs, input{Type: "radio", Name: name, Label: pg.TurnText(pos, a.Text), Checked: a.Text == chosen,
						Disabled: disabled, Kind: string(session.EditFlow), Key: q.Text, Value: a.Text, Click: "radio", Indent: indent})
				}
				if len(sub) > 0 {
					walk(sub, indent+1)
				}
			}
		}
		walk(t.Flow, 0)
		out = append(out, g)
	case t.Display == ev.Multiselect:
		g := group{Slot: fmt.Sprintf("t%d", pos), Turn: pos, Question: pg.TurnText(pos, t.Question)}
		selected := ta.List(t.LabelsKey())
		for _, c := range t.ChoicesFor(turn.AgentIdx()) {
			g.Inputs = append(g.Inputs, input{Type: "checkbox", Name: fmt.Sprintf("t%d-%s", pos, shortHash(c.Value)), Label: pg.TurnText(pos, c.Label),
				Checked: slices.Contains(selected, c.Value), Disabled: disabled, Kind: string(session.EditLabel), Key: c.Value, Value: "on"})
		}
		out = append(out, g)
	case t.Display == ev.LikertTurn:
		for i, sc := range t.Scales {
			out = append(out, group{Slot: fmt.Sprintf("t%d-s%d", pos, i), Turn: pos, Question: pg.TurnText(pos, sc.Question), Anchors: anchors(t.LabelDetails),
				Inputs: scaleInputs(fmt.Sprintf("t%d-s%d", pos, i), pos, session.EditScale, sc.Label, ta.String(sc.Label), disabled)})
		}
	case t.Display == ev.ForeachSelect:
		for i, c := range t.Choices {
			out = append(out, group{Slot: fmt.Sprintf("t%d-s%d", pos, i), Turn: pos, Question: pg.TurnText(pos, c.Label), Anchors: anchors(t.LabelDetails),
				Inputs: scaleInputs(fmt.Sprintf("t%d-s%d", pos, i), pos, session.EditScale, c.Value, ta.String(c.Value), disabled)})
		}
	}
	return out
}

// dialogueGroups are the questions about the whole dialogue.
func dialogueGroups(pg *session.Page) []group {
	t := pg.Type
	disabled := pg.Feedback >= 0
	var out []group
	switch t.Display {
	case ev.LikertDialogue:
		for i, sc := range t.Scales {
			out = append(out, group{Slot: fmt.Sprintf("d-s%d", i), Turn: -1, Question: pg.DialogueText(sc.Question), Anchors: anchors(t.LabelDetails),
				Inputs: scaleInputs(fmt.Sprintf("d-s%d", i), -1, session.EditScale, sc.Label, pg.Answers.Likert[sc.Label], disabled)})
		}
	case ev.ForeachSelectDialogue:
		for i, c := range t.Choices {
			q := pg.DialogueText(c.Label)
			if i == 0 && t.Question != "" {
				q = pg.DialogueText(t.Question) + " — " + q
			}
			out = append(out, group{Slot: fmt.Sprintf("d-s%d", i), Turn: -1, Question: q,
				Inputs: scaleInputs(fmt.Sprintf("d-s%d", i), -1, session.EditScale, c.Label, pg.Answers.Ratings[c.Label], disabled)})
		}
	case ev.Comparative:
		g := group{Slot: "d-c", Turn: -1, Question: pg.DialogueText(t.Question)}
		chosen := pg.Answers.Comparative[t.Question]
		for _, o := range t.Comparisons {
			g.Inputs = append(g.Inputs, input{Type: "radio", Name: "d-c", Label: pg.DialogueText(o), Checked: chosen == o, Disabled: disabled,
				Kind: string(session.EditComparative), Value: o})
		}
		out = append(out, g)
	}
	return out
}

// writePage renders the page, or only its main element for the page's script.
func (s *Server) writePage(w http.ResponseWriter, d pageData, fragment bool) {
	var buf bytes.Buffer
	name := "page"
	if fragment {
		name = "main"
	}
	crowdPage(w, &d, fragment)
	if err := pages.ExecuteTemplate(&buf, name, d); err != nil {
		s.opts.Logf("agentdesk eval serve: rendering: %v", err)
		http.Error(w, "the page could not be drawn", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}

// startData is the start page of an id not yet bound to a browser: its Start button binds
// the id to this browser and hands out the first unit.
//
// Its Start carries the link's parameters as they came (those of the crowd sites included,
// which are kept at Start), the link's own parameters only.
func (s *Server) startData(id identity, browser string, link url.Values) pageData {
	q := url.Values{}
	var keys []string
	for _, names := range [][]string{workerParams, assignmentParams, {"token"}, otherParams} {
		for _, k := range names {
			if v, ok := link[k]; ok && len(v) == 1 {
				q[k] = v
				keys = append(keys, k)
			}
		}
	}
	d := pageData{Study: studyTitle(s.opts.Project), Participant: id.Worker, Screen: string(session.ScreenMessage),
		Query: encodeOrdered(q, keys...), Form: s.sign.formToken(id.Worker, browser), At: "start"}
	title, text := startText(s.opts.Project)
	d.Message = &messageData{Act: actCtx{Query: d.Query, Form: d.Form, At: d.At}, Title: title, Text: text, More: true,
		Button: "Start", Do: "start"}
	return d
}

// renderWait shows a refusal that passes (a rate limit, a full study): the page says so and
// loads itself again after the wait.
func (s *Server) renderWait(w http.ResponseWriter, status int, msg string, wait time.Duration) {
	var buf bytes.Buffer
	secs := retryAfter(wait)
	if err := pages.ExecuteTemplate(&buf, "error", map[string]any{"Status": status, "Message": msg, "Text": http.StatusText(status),
		"Refresh": secs}); err != nil {
		http.Error(w, msg, status)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// renderError shows a refusal as a page.
func (s *Server) renderError(w http.ResponseWriter, status int, msg string) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, "error", map[string]any{"Status": status, "Message": msg, "Text": http.StatusText(status)}); err != nil {
		http.Error(w, msg, status)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
