package annotate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/engine/modelclient"
)

// Store is what a run reads and writes: a session's store, and the model annotator's own rows.
type Store interface {
	session.Store
	EvalSignInModel(ctx context.Context, projectID int64, name, model, url string) (ev.ParticipantSummary, error)
	AddEvalModelError(ctx context.Context, participantID int64, e ev.ModelError) error
}

// Completer sends one chat completion (a *modelclient.Client).
type Completer interface {
	Complete(ctx context.Context, req modelclient.Request) (modelclient.Response, error)
}

// DefaultMaxAsks is how many times a page is asked at most (the first ask included) when the
// replies cannot be read.
const DefaultMaxAsks = 3

// Options configure a run.
type Options struct {
	// Model and URL are recorded on the participant (never a key).
	Model, URL string
	// Participant is the model annotator's participant id; "": ParticipantName(Model).
	Participant string
	// Units is how many units (task and gold) the run submits at most; 0: all it is given.
	Units int
	// MaxAsks bounds the asks per page (0: DefaultMaxAsks).
	MaxAsks int
	// Ahead is how many pages of a unit are asked at once (0 or 1: one page at a time); the
	// client bounds the requests in flight.
	Ahead int
	// Now is the session's clock (nil: time.Now).
	Now func() time.Time
	// Progress, when set, is called after every page and unit.
	Progress func(Progress)
}

// ParticipantName is the participant id of a model annotator: "model:" and the model's name.
func ParticipantName(model string) string { return "model:" + model }

// Progress is how far a run is.
type Progress struct {
	Participant string
	// Units and Golds are the task and gold units submitted in this run, Pages the pages
	// answered (training pages included).
	Units, Golds, Pages int
	// Requests are the asks sent, Reasks those that followed a reply that could not be read.
	Requests, Reasks int
	// Screening is the model's screening outcome so far: "", "passed" or "failed".
	Screening string
}

// Result is how a run ended: its progress, and the message the session showed last (why
// no more work was given, a block).
type Result struct {
	Progress
	// Refusal is the session's refusal code when it gave no more work (ev.Refuse…), "" when
	// the run stopped at its unit limit.
	Refusal string
	Message string
}

// PageError is a page the model did not answer: its replies could not be read after the asks
// allowed, or the server failed. It is recorded in the store; the unit stays with the model
// for the next run.
type PageError struct {
	Unit     int64
	Dialogue int
	Type     string
	Asks     int
	Reply    string
	Err      error
}

func (e *PageError) Error() string {
	asks := "asks"
	if e.Asks == 1 {
		asks = "ask"
	}
	return fmt.Sprintf("unit %d, dialogue %d, %s: %v (after %d %s)", e.Unit, e.Dialogue+1, ev.DisplayName(e.Type), e.Err, e.Asks, asks)
}

func (e *PageError) Unwrap() error { return e.Err }

// ErrCollection is returned for a project that collects dialogues with bots: a model
// annotator answers the units of static annotation only.
var ErrCollection = errors.New("a model annotates static dialogues only; this project collects conversations with bots")

// modelStore signs the session in as the model annotator.
type modelStore struct {
	Store
	model, url string
}

func (m modelStore) EvalSignIn(ctx context.Context, projectID int64, name string) (ev.ParticipantSummary, error) {
	return m.EvalSignInModel(ctx, projectID, name, m.model, m.url)
}

type answer struct {
	edits []session.Edit
	asks  int
	reply string
	err   error
}

type runner struct {
	c    Completer
	p    *session.Project
	opt  Options
	mu   sync.Mutex
	prog Progress
}

func (r *runner) count(requests, reasks int) {
	r.mu.Lock()
	r.prog.Requests += requests
	r.prog.Reasks += reasks
	r.mu.Unlock()
}

func (r *runner) report() Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.prog
}

// ask asks the model for a page until a reply reads as its answer, at most MaxAsks times; a
// reply that cannot be read is shown back with what is wrong. extra is added to the prompt
// (a correction not taken).
func (r *runner) ask(ctx context.Context, p *session.Page, extra string) answer {
	msgs := Prompt(p, r.p.Def().Settings)
	if extra != "" {
		msgs[1] = modelclient.User(modelclient.Text(PageText(p, r.p.Def().Settings) + "\n" + extra))
	}
	var a answer
	for a.asks < r.opt.MaxAsks {
		a.asks++
		resp, err := r.c.Complete(ctx, modelclient.Request{Messages: msgs})
		retry := 0
		if a.asks > 1 {
			retry = 1
		}
		r.count(1, retry)
		if err != nil {
			a.err = err
			return a
		}
		a.reply = resp.Text
		edits, err := Parse(p, resp.Text)
		if err == nil {
			a.edits, a.err = edits, nil
			return a
		}
		a.err = err
		var re *ReplyError
		if !errors.As(err, &re) {
			return a
		}
		msgs = append(msgs, modelclient.Message{Role: modelclient.RoleAssistant, Parts: []modelclient.Part{modelclient.Text(resp.Text)}},
			modelclient.User(modelclient.Text("Your reply could not be read: "+re.Reason+". Reply again with the JSON object only, in the shape asked for.")))
	}
	return a
}

type pageKey struct{ dialogue, annot int }

// ahead asks a unit's pages in the background, at most Ahead pages from the one on show (so
// that a stop loses at most the answers of the pages asked ahead); answers gives a page's answer.
type ahead struct {
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	answers map[pageKey]chan answer
	index   map[pageKey]int
	start   []chan struct{}
	// released counts the pages whose asks may start
	released int
}

// stop cancels the asks still under way and waits for them: no request is left behind.
func (h *ahead) stop() {
	h.cancel()
	h.wg.Wait()
}

// release lets the asks of pages before upTo start.
func (h *ahead) release(upTo int) {
	for ; h.released < min(upTo, len(h.start)); h.released++ {
		close(h.start[h.released])
	}
}

// ready says whether page k's answer is in and good (it stays there for answers).
func (h *ahead) ready(k pageKey) bool {
	ch, ok := h.answers[k]
	if !ok {
		return false
	}
	select {
	case a := <-ch:
		ch <- a
		return a.err == nil
	default:
		return false
	}
}

// startAhead asks pages, the open unit's (Session.UnitPages), ahead of the one on show.
func (r *runner) startAhead(ctx context.Context, pages []*session.Page) *ahead {
	ctx, cancel := context.WithCancel(ctx)
	h := &ahead{cancel: cancel, answers: map[pageKey]chan answer{}, index: map[pageKey]int{}}
	for j, p := range pages {
		ch, start := make(chan answer, 1), make(chan struct{})
		k := pageKey{p.Dialogue, p.Annot}
		h.answers[k], h.index[k] = ch, j
		h.start = append(h.start, start)
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			select {
			case <-start:
			case <-ctx.Done():
				ch <- answer{err: ctx.Err()}
				return
			}
			ch <- r.ask(ctx, p, "")
		}()
	}
	return h
}

// Run lets the model annotate project p through the session engine until the session gives it
// no more work, it has submitted opt.Units units, ctx is cancelled, or a page fails (a
// *PageError, recorded in the store). Everything answered is saved as it is given; a run
// started again continues where this one stopped (the open unit, its answered pages).
func Run(ctx context.Context, st Store, p *session.Project, c Completer, opt Options) (Result, error) {
	if p.Def().Settings.CollectDialogue {
		return Result{}, ErrCollection
	}
	if opt.Participant == "" {
		opt.Participant = ParticipantName(opt.Model)
	}
	if opt.MaxAsks <= 0 {
		opt.MaxAsks = DefaultMaxAsks
	}
	r := &runner{c: c, p: p, opt: opt}
	r.prog.Participant = opt.Participant
	s := session.New(modelStore{Store: st, model: opt.Model, url: opt.URL}, p)
	if opt.Now != nil {
		s.Now = opt.Now
	}
	s.Desk = true
	defer s.Close()
	progress := func() {
		if opt.Progress != nil {
			opt.Progress(r.report())
		}
	}
	if err := s.SignIn(ctx, opt.Participant); err != nil {
		return Result{}, err
	}
	who := s.Participant()
	// the screening outcome as the store works it out (its screening unit's status), read
	// again after each message and training screen: a refusal's wording cannot tell a failed
	// screening from a block for wrong golds
	screening := func() {
		ps, err := st.EvalParticipants(context.WithoutCancel(ctx), p.ID)
		if err != nil {
			return // the outcome stays as last read
		}
		for _, x := range ps {
			if x.ID != who.ID {
				continue
			}
			outcome := "" // none yet, or still open
			if x.Screening == "passed" || x.Screening == "failed" {
				outcome = x.Screening
			}
			r.mu.Lock()
			r.prog.Screening = outcome
			r.mu.Unlock()
		}
	}
	screening()
	var h *ahead
	var hUnit int64
	defer func() {
		if h != nil {
			h.stop()
		}
	}()
	// What came back is kept: after a stop, a page whose answer is in is still given, and
	// the stores' writes are not cancelled.
	wctx := context.WithoutCancel(ctx)
	// fail records the page the model left unanswered (its last reply) and returns why
	fail := func(unit int64, pg *session.Page, a answer, err error) error {
		pe := &PageError{Unit: unit, Dialogue: pg.Dialogue, Type: pg.Type.Name, Asks: a.asks, Reply: a.reply, Err: err}
		rec := ev.ModelError{UnitID: pe.Unit, DialoguePos: pe.Dialogue, TypeName: pe.Type, Asks: pe.Asks, Message: pe.Err.Error(),
			Reply: pe.Reply, At: s.Now()}
		if err := st.AddEvalModelError(wctx, who.ID, rec); err != nil {
			return errors.Join(pe, err)
		}
		return pe
	}
loop:
	for step := 0; ; step++ {
		v := s.View()
		if err := ctx.Err(); err != nil {
			inHand := v.Screen == session.ScreenPage && s.Training() == nil && h != nil && hUnit == s.Unit().ID &&
				h.ready(pageKey{v.Page.Dialogue, v.Page.Annot})
			if !inHand {
				return Result{Progress: r.report()}, err
			}
		}
		switch v.Screen {
		case session.ScreenMessage:
			screening()
			if !v.More {
				return Result{Progress: r.report(), Refusal: v.Refusal, Message: v.Text}, nil
			}
			if opt.Units > 0 && r.report().Units+r.report().Golds >= opt.Units {
				return Result{Progress: r.report(), Message: v.Text}, nil
			}
			if err := s.Next(ctx); err != nil {
				return Result{Progress: r.report()}, err
			}
		case session.ScreenTraining:
			screening()
			if err := s.Next(ctx); err != nil {
				return Result{Progress: r.report()}, err
			}
		case session.ScreenPage:
			u, pg := s.Unit(), v.Page
			var a answer
			if s.Training() != nil {
				a = r.ask(ctx, pg, "")
			} else {
				if h == nil || hUnit != u.ID {
					if h != nil {
						h.stop()
					}
					h = r.startAhead(ctx, s.UnitPages())
					hUnit = u.ID
				}
				k := pageKey{pg.Dialogue, pg.Annot}
				ch, ok := h.answers[k]
				if !ok {
					return Result{Progress: r.report()}, fmt.Errorf("unit %d: page %d.%d is not among the unit's pages", u.ID, pg.Dialogue, pg.Annot)
				}
				if h.released == 0 {
					h.released = h.index[k] // a resumed unit: the pages before are answered, never asked
				}
				h.release(h.index[k] + max(1, opt.Ahead))
				a = <-ch
				ch <- a // a page shown again (a timed-out unit restored) reads it again
			}
			if a.err != nil && ctx.Err() != nil {
				return Result{Progress: r.report()}, ctx.Err()
			}
			if a.err != nil {
				return Result{Progress: r.report()}, fail(u.ID, pg, a, a.err)
			}
			last := pg.Last
			for tries := 1; ; tries++ {
				for _, e := range changes(pg, a.edits) {
					if err := s.Edit(wctx, e); err != nil {
						if errors.Is(err, session.ErrExpired) {
							continue loop // the page's time ran out waiting for the model: Continue restores it, the answer is in hand
						}
						return Result{Progress: r.report()}, fail(u.ID, pg, a, err)
					}
				}
				err := s.Next(wctx)
				if errors.Is(err, session.ErrNotCorrected) && tries < opt.MaxAsks {
					a = r.ask(ctx, s.Page(), "Your last correction still differs from the correct selection; give the correct selection for this turn.")
					if a.err != nil {
						return Result{Progress: r.report()}, fail(u.ID, pg, a, a.err)
					}
					pg = s.Page()
					continue
				}
				if errors.Is(err, session.ErrExpired) {
					continue loop
				}
				if err != nil {
					return Result{Progress: r.report()}, fail(u.ID, pg, a, err)
				}
				break
			}
			r.mu.Lock()
			r.prog.Pages++
			if last && s.Training() == nil && s.Screen() == session.ScreenMessage {
				if u.Kind == ev.UnitGold {
					r.prog.Golds++
				} else {
					r.prog.Units++
				}
			}
			r.mu.Unlock()
			progress()
		case session.ScreenChat:
			return Result{Progress: r.report()}, ErrCollection
		default:
			return Result{Progress: r.report()}, fmt.Errorf("the session shows %s", v.Screen)
		}
	}
}
