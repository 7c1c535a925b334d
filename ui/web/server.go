package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
)

// Store is what serving a study reads and writes: the session's store, and the serving
// secret, link generations and browser bindings.
type Store interface {
	session.Store
	EvalParticipant(ctx context.Context, projectID, id int64) (ev.ParticipantSummary, error)
	EvalServing(ctx context.Context, projectID int64) (ev.Serving, error)
	EvalLink(ctx context.Context, projectID int64, participant string) (ev.LinkRecord, error)
	RevokeEvalLinks(ctx context.Context, projectID int64, participant string) (int, error)
	RevokeEvalStudyLink(ctx context.Context, projectID int64) (int, error)
	BindEvalBrowser(ctx context.Context, projectID int64, participant, browser string) (bool, error)
	MarkEvalPersonalLink(ctx context.Context, projectID int64, participant string) error
	SetEvalRecruiting(ctx context.Context, projectID int64, open bool) error
	EvictEvalStudy(ctx context.Context, projectID int64) (ev.Eviction, error)
	EvalAssignedUnits(ctx context.Context, projectID int64) ([]ev.UnitRecord, error)
}

// Options configure a Server.
type Options struct {
	Store   Store
	Project *session.Project
	// BaseURL is the address participants reach the server at, as links carry it
	// ("http://127.0.0.1:3008").
	BaseURL string
	// Secure is true when the server is reached over TLS (cookies are then Secure).
	Secure bool
	// Now is the sessions' clock, and the rate limits' and reclaiming's (nil: time.Now).
	Now func() time.Time
	// Limits are the per-client rate limits (nil: DefaultLimits).
	Limits *Limits
	// ReclaimEvery is how often held units past their time limit are looked for (0: every
	// ten seconds; negative: never, the caller calls Reclaim).
	ReclaimEvery time.Duration
	// Bots makes a model's bot (nil: from the project's definitions).
	Bots func(model string, spec ev.BotSpec) (ev.Bot, error)
	// OnChange is called, off any UI goroutine, after a participant's page changed.
	OnChange func()
	// Logf logs a request that failed on the server's side (nil: the standard logger).
	Logf func(format string, args ...any)
}

// Server serves one project's study to participants' browsers.
type Server struct {
	opts   Options
	sign   signer
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	people map[string]*participant
	// reclaimed are participants whose unit the server gave back while they were away: their
	// next sign-in says so.
	reclaimed map[string]bool

	signIns, failures *limiter
}

// participant is a participant's session on the server: the study session, guarded by its
// own lock (one participant's requests act one at a time; different participants at once).
type participant struct {
	mu   sync.Mutex
	name string
	sess *session.Session
	// version rises whenever the page changes (a reply of the bot, an action).
	version  int64
	replying bool
	// retry lets a reply that failed be asked again (the participant pressed Retry).
	retry bool
	// lastSeen is when the participant's browser last asked for anything; via how they came
	// in ("link" or "study").
	lastSeen time.Time
	via      string
	err      string
	// addr is the client address they started from (study link entrants are capped per
	// address).
	addr string
	// conflicts counts the other browsers refused this id, the last at conflictAt.
	conflicts  int
	conflictAt time.Time
}

// New prepares a server for a project: the project's serving secret is read (made on first
// use) from the store.
func New(ctx context.Context, opts Options) (*Server, error) {
	if opts.Store == nil || opts.Project == nil {
		return nil, errors.New("web: a store and a project are needed")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logf == nil {
		opts.Logf = log.Printf
	}
	opts.BaseURL = strings.TrimSuffix(opts.BaseURL, "/")
	sv, err := opts.Store.EvalServing(ctx, opts.Project.ID)
	if err != nil {
		return nil, err
	}
	limits := DefaultLimits
	if opts.Limits != nil {
		limits = *opts.Limits
	}
	s := &Server{opts: opts, sign: signer{secret: sv.Secret, projectID: opts.Project.ID}, people: map[string]*participant{},
		reclaimed: map[string]bool{}, signIns: newLimiter(limits.SignIn, opts.Now), failures: newLimiter(limits.BadToken, opts.Now)}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if opts.ReclaimEvery >= 0 {
		every := opts.ReclaimEvery
		if every == 0 {
			every = defaultReclaimEvery
		}
		go s.reclaimLoop(every)
	}
	return s, nil
}

// Close ends every session's background work (bot replies, bot programs).
func (s *Server) Close() {
	s.cancel()
	s.mu.Lock()
	people := make([]*participant, 0, len(s.people))
	for _, p := range s.people {
		people = append(people, p)
	}
	s.mu.Unlock()
	for _, p := range people {
		p.mu.Lock()
		if p.sess != nil {
			p.sess.Close()
		}
		p.mu.Unlock()
	}
}

// Link is a participant's link: the original's form with the token added.
func (s *Server) Link(ctx context.Context, worker, assignment string) (string, error) {
	if err := checkID(worker, "participant id"); err != nil || worker == "" {
		return "", fmt.Errorf("participant id %q: %v", worker, err)
	}
	if err := s.opts.Store.MarkEvalPersonalLink(ctx, s.opts.Project.ID, worker); err != nil {
		return "", err
	}
	l, err := s.opts.Store.EvalLink(ctx, s.opts.Project.ID, worker)
	if err != nil {
		return "", err
	}
	q := url.Values{}
	q.Set("worker_id", worker)
	if assignment != "" {
		q.Set("assignment_id", assignment)
	}
	q.Set("token", s.sign.participantToken(worker, l.Generation))
	return s.opts.BaseURL + "/?" + encodeOrdered(q, "worker_id", "assignment_id", "token"), nil
}

// StudyLink is the link for crowdsourcing sites: it admits any participant id the site appends
// (PROLIFIC_PID, workerId, worker_id), each then bound to the browser that started.
func (s *Server) StudyLink(ctx context.Context) (string, error) {
	sv, err := s.opts.Store.EvalServing(ctx, s.opts.Project.ID)
	if err != nil {
		return "", err
	}
	return s.opts.BaseURL + "/?token=" + s.sign.studyToken(sv.StudyGeneration), nil
}

// Revoke makes a participant's links stop working; their answers are kept and a new link
// can be made for them.
func (s *Server) Revoke(ctx context.Context, worker string) error {
	_, err := s.opts.Store.RevokeEvalLinks(ctx, s.opts.Project.ID, worker)
	return err
}

// SetRecruiting opens or closes recruitment through the study link: closed, it admits no new
// ids, and participants in progress finish.
func (s *Server) SetRecruiting(ctx context.Context, open bool) error {
	return s.opts.Store.SetEvalRecruiting(ctx, s.opts.Project.ID, open)
}

// Recruiting reports whether the study link admits new ids.
func (s *Server) Recruiting(ctx context.Context) (bool, error) {
	sv, err := s.opts.Store.EvalServing(ctx, s.opts.Project.ID)
	return sv.Recruiting, err
}

// Evict ends the study link for everyone who came in through it, those in progress too: a new
// link is signed, their sessions end, and the units they held go back to the pool (their
// answers so far dropped; the answer log keeps them). Personal links are not affected.
func (s *Server) Evict(ctx context.Context) (ev.Eviction, error) {
	out, err := s.opts.Store.EvictEvalStudy(ctx, s.opts.Project.ID)
	if err != nil {
		return out, err
	}
	s.mu.Lock()
	var gone []*participant
	for name, p := range s.people {
		if p.via == "study" {
			gone = append(gone, p)
			delete(s.people, name)
		}
	}
	s.mu.Unlock()
	for _, p := range gone {
		p.mu.Lock()
		if p.sess != nil {
			p.sess.Close()
		}
		p.mu.Unlock()
	}
	s.changed()
	return out, nil
}

func encodeOrdered(q url.Values, keys ...string) string {
	var parts []string
	for _, k := range keys {
		if v, ok := q[k]; ok {
			parts = append(parts, url.QueryEscape(k)+"="+url.QueryEscape(v[0]))
		}
	}
	return strings.Join(parts, "&")
}

// RosterEntry is one participant as the researcher's roster shows them.
type RosterEntry struct {
	Name string
	// Connected: their browser asked for something in the last connectedWithin.
	Connected bool
	LastSeen  time.Time
	Via       string
	// Where is the screen and page they are on, in words.
	Where     string
	Unit      int64
	Screening string
	Done      int
	Error     string
	// Conflict says that other browsers tried this participant's id (and were refused).
	Conflict string
}

// connectedWithin is how recent a browser's last request must be for it to count as connected
// (open pages ask every few seconds).
const connectedWithin = 12 * time.Second

// Roster lists the participants who came in since the server started, and where they are.
func (s *Server) Roster(ctx context.Context) ([]RosterEntry, error) {
	summaries, err := s.opts.Store.EvalParticipants(ctx, s.opts.Project.ID)
	if err != nil {
		return nil, err
	}
	byName := map[string]ev.ParticipantSummary{}
	for _, p := range summaries {
		byName[p.Name] = p
	}
	s.mu.Lock()
	people := make([]*participant, 0, len(s.people))
	for _, p := range s.people {
		people = append(people, p)
	}
	s.mu.Unlock()
	now := s.opts.Now()
	passed, block := s.opts.Project.PassedName(), s.opts.Project.BlockName()
	var out []RosterEntry
	for _, p := range people {
		p.mu.Lock()
		e := RosterEntry{Name: p.name, LastSeen: p.lastSeen, Via: p.via, Error: p.err,
			Connected: !p.lastSeen.IsZero() && now.Sub(p.lastSeen) < connectedWithin, Conflict: conflictNote(p.conflicts, p.conflictAt)}
		if p.sess != nil {
			e.Where = where(p.sess.View())
			e.Unit = p.sess.Unit().ID
		}
		p.mu.Unlock()
		sum := byName[p.name]
		e.Done = sum.Done
		switch {
		case sum.Qualifications[block] > 0:
			e.Screening = "blocked"
		case sum.Qualifications[passed] > 0:
			e.Screening = "passed"
		case s.opts.Project.Def().Settings.UseScreening && s.opts.Project.Def().Training != nil:
			e.Screening = "not yet"
		default:
			e.Screening = "—"
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// where says in words what a participant has on show.
func where(v session.View) string {
	switch v.Screen {
	case session.ScreenPage:
		p := v.Page
		if p.Training {
			return fmt.Sprintf("training, dialogue %d of %d", p.Dialogue+1, p.Dialogues)
		}
		return fmt.Sprintf("dialogue %d of %d, question %d of %d", p.Dialogue+1, p.Dialogues, p.Annot+1, p.Annots)
	case session.ScreenChat:
		return fmt.Sprintf("chat %d of %d, %d messages", v.Chat.Index+1, v.Chat.Count, len(v.Chat.Messages))
	case session.ScreenTraining:
		if rest, ok := strings.CutPrefix(v.Title, "Training: "); ok {
			return "training: " + rest
		}
		return "training: " + strings.ToLower(v.Title)
	case session.ScreenMessage:
		switch v.Refusal {
		case ev.RefuseNoMoreWork, ev.RefuseMaxUnits:
			return "finished"
		case ev.RefuseNotEligible:
			return "blocked"
		case "":
			if v.Title != "" {
				return strings.ToLower(v.Title)
			}
			return "message"
		}
		return "waiting: " + v.Refusal
	}
	return string(v.Screen)
}

func (s *Server) changed() {
	if s.opts.OnChange != nil {
		s.opts.OnChange()
	}
}

// person returns the participant's session on the server, signing them in (which resumes
// their open unit where they stopped) the first time since the server started.
func (s *Server) person(ctx context.Context, worker, via string) (*participant, error) {
	s.mu.Lock()
	p := s.people[worker]
	if p == nil {
		p = &participant{name: worker, via: via}
		s.people[worker] = p
	}
	s.mu.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastSeen = s.opts.Now()
	if p.via == "" {
		p.via = via
	}
	if p.sess == nil {
		sess := session.New(s.opts.Store, s.opts.Project)
		sess.Now, sess.Bots = s.opts.Now, s.opts.Bots
		s.mu.Lock()
		away := s.reclaimed[worker]
		delete(s.reclaimed, worker)
		s.mu.Unlock()
		var err error
		if away { // their unit went back to the pool while they were away: say so first
			title, text := startText(s.opts.Project)
			if err = sess.SignInToStart(ctx, worker, title, text); err == nil && sess.Screen() == session.ScreenMessage {
				sess.TimedOutAway()
			}
		} else {
			err = sess.SignIn(ctx, worker)
		}
		if err != nil {
			p.err = err.Error()
			return nil, err
		}
		p.sess = sess
		p.version++
		defer s.changed()
	}
	return p, nil
}

// writeJSON answers a script's request.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// ProjectID is the served project's id in the store.
func (s *Server) ProjectID() int64 { return s.opts.Project.ID }

// NextAssignment names the assignment a participant would be given next (see
// session.PreviewNext): what their link's assignment_id says.
func (s *Server) NextAssignment(ctx context.Context, worker string) (string, error) {
	return session.PreviewNext(ctx, s.opts.Store, s.opts.Project, worker)
}
