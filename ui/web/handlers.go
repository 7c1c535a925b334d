package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
)

// Handler is the server's HTTP handler: the participant's page (the link itself), its
// fragment for the page's script, actions, and the embedded assets.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.servePage)
	mux.HandleFunc("GET /fragment", s.serveFragment)
	mux.HandleFunc("POST /act", s.serveAct)
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", assetHandler()))
	return secure(mux, s.opts.Secure)
}

// secure sets the headers every response carries; under TLS, Strict-Transport-Security too.
func secure(next http.Handler, tls bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
			"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer") // links carry tokens
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
		if tls {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		if !strings.HasPrefix(r.URL.Path, "/assets/") {
			h.Set("Cache-Control", "no-store")
		}
		next.ServeHTTP(w, r)
	})
}

// httpError is a refusal with its status and a message for the participant.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func refuse(status int, msg string) error { return &httpError{status, msg} }

// admit checks a request's link and returns its participant. A first visit without the
// browser cookie gets one. An id not yet bound to a browser gets no session (p is nil: the
// start page is shown) unless the request starts: pressing Start binds the id to this browser
// and, for the study link, passes the entry checks (entry.go). Link scanners and previews
// that only fetch a link therefore take no unit and bind nothing.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, state, starting bool) (*participant, identity, string, error) {
	id, err := parseIdentity(r.URL.Query())
	if err != nil {
		return nil, id, "", refuse(http.StatusBadRequest, err.Error())
	}
	ctx := r.Context()
	browser := browserOf(r)
	if browser == "" {
		if state {
			return nil, id, "", refuse(http.StatusForbidden, "your browser did not send the study's cookie; open your link again")
		}
		if browser, err = newBrowser(); err != nil {
			return nil, id, "", err
		}
		setBrowserCookie(w, browser, s.opts.Secure)
	}
	link, err := s.opts.Store.EvalLink(ctx, s.opts.Project.ID, id.Worker)
	if err != nil {
		return nil, id, "", err
	}
	via := "link"
	var sv ev.Serving
	gen := -1
	if !equal(id.Token, s.sign.participantToken(id.Worker, link.Generation)) {
		if sv, err = s.opts.Store.EvalServing(ctx, s.opts.Project.ID); err != nil {
			return nil, id, "", err
		}
		if gen = s.studyGeneration(id.Token, sv); gen < 0 {
			return nil, id, "", s.badToken(r, "this link is not valid for "+id.Worker+": it was revoked, or it belongs to someone else")
		}
		if link.Personal {
			return nil, id, "", s.badToken(r, id.Worker+" has a personal link: open that link, not the study's")
		}
		via = "study"
	}
	hash := s.sign.browserHash(browser)
	if link.Browser == "" {
		if via == "study" {
			if err := recruits(sv, gen); err != nil {
				return nil, id, "", err
			}
		}
		if !starting {
			return nil, id, browser, nil
		}
		if via == "study" {
			if err := s.admitNew(r); err != nil {
				return nil, id, "", err
			}
		}
		ok, err := s.opts.Store.BindEvalBrowser(ctx, s.opts.Project.ID, id.Worker, hash)
		if err != nil {
			return nil, id, "", err
		}
		if !ok {
			s.conflict(id.Worker)
			return nil, id, "", refuse(http.StatusForbidden, takenMessage(id.Worker))
		}
	} else if !equal(link.Browser, hash) {
		s.conflict(id.Worker)
		return nil, id, "", refuse(http.StatusForbidden, takenMessage(id.Worker))
	}
	p, err := s.person(ctx, id.Worker, via)
	if err != nil {
		return nil, id, "", err
	}
	if starting {
		p.mu.Lock()
		p.addr = clientKey(r)
		p.mu.Unlock()
	}
	return p, id, browser, nil
}

func takenMessage(worker string) string {
	return worker + " is already in use in another browser. Continue in the browser you started in; " +
		"if you cannot, ask the study's organisers to reset your link."
}

// fail answers a refused or failed request: JSON for the page's script, a page otherwise.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := http.StatusInternalServerError, "the server could not do this: "+err.Error()
	var he *httpError
	var bl *errBadLink
	var br *errBadRequest
	var ee *session.EditError
	var lim *errLimited
	switch {
	case errors.As(err, &he):
		status, msg = he.status, he.msg
	case errors.As(err, &lim):
		status, msg = lim.status, lim.msg+"; please try again in "+retryAfter(lim.retry)+" seconds"
		w.Header().Set("Retry-After", retryAfter(lim.retry))
	case errors.As(err, &bl):
		status, msg = http.StatusBadRequest, bl.Error()
	case errors.As(err, &br):
		status, msg = http.StatusBadRequest, br.Error()
	case errors.As(err, &ee):
		status, msg = http.StatusUnprocessableEntity, ee.Error()
	case errors.Is(err, session.ErrIncomplete):
		status, msg = http.StatusConflict, "please answer every question on this page first"
	case errors.Is(err, session.ErrNotCorrected):
		status, msg = http.StatusConflict, "not corrected yet: your answers on the highlighted turn still differ from the correct selection"
	case errors.Is(err, session.ErrUnanswered), errors.Is(err, session.ErrEmptyMessage), errors.Is(err, session.ErrNoChat),
		errors.Is(err, ev.ErrChatState):
		status, msg = http.StatusConflict, err.Error()
	case errors.Is(err, context.Canceled):
		return
	default:
		s.opts.Logf("agentdesk eval serve: %s %s: %v", r.Method, r.URL.Path, err)
	}
	if wantsJSON(r) {
		writeJSON(w, status, map[string]any{"error": msg})
		return
	}
	if lim != nil {
		s.renderWait(w, status, lim.msg+".", lim.retry)
		return
	}
	s.renderError(w, status, msg)
}

func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

// servePage is the participant's link: their page as it is now.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	p, id, browser, err := s.admit(w, r, false, false)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if p == nil {
		s.writePage(w, s.startData(id, browser, r.URL.Query()), false)
		return
	}
	s.noteCrowd(r.Context(), p, r.URL.Query())
	s.render(w, r, p, id, browser, false)
}

// serveFragment is the page's main part, for the page's script (after an answer, while the
// bot writes).
func (s *Server) serveFragment(w http.ResponseWriter, r *http.Request) {
	p, id, browser, err := s.admit(w, r, true, false)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if p == nil {
		s.writePage(w, s.startData(id, browser, r.URL.Query()), true)
		return
	}
	s.render(w, r, p, id, browser, true)
}

func (s *Server) render(w http.ResponseWriter, r *http.Request, p *participant, id identity, browser string, fragment bool) {
	p.mu.Lock()
	if expired, err := p.sess.Expire(r.Context()); expired {
		p.version++
		if err != nil {
			s.opts.Logf("agentdesk eval serve: %s: returning a timed-out unit: %v", p.name, err)
		}
		defer s.changed()
	}
	s.startReply(p)
	data := s.pageData(r.Context(), p, id, browser)
	p.mu.Unlock()
	s.writePage(w, data, fragment)
}

// serveAct performs one action of the participant (an answer, Next, a chat message, …).
func (s *Server) serveAct(w http.ResponseWriter, r *http.Request) {
	if err := sameOrigin(r); err != nil {
		s.fail(w, r, refuse(http.StatusForbidden, err.Error()))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		s.fail(w, r, refuse(http.StatusUnsupportedMediaType, "answers are sent as a form"))
		return
	}
	if err := r.ParseForm(); err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			s.fail(w, r, refuse(http.StatusRequestEntityTooLarge, fmt.Sprintf("the request is larger than %d bytes", maxBody)))
			return
		}
		s.fail(w, r, refuse(http.StatusBadRequest, "the form cannot be read: "+err.Error()))
		return
	}
	a, err := decodeAction(r.PostForm)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	// The form token is checked before anything is bound: it proves the page came from this
	// server to this browser.
	id, err := parseIdentity(r.URL.Query())
	if err != nil {
		s.fail(w, r, refuse(http.StatusBadRequest, err.Error()))
		return
	}
	if browser := browserOf(r); browser == "" || !equal(a.Form, s.sign.formToken(id.Worker, browser)) {
		s.fail(w, r, refuse(http.StatusForbidden, "this form does not belong to your page; reload it"))
		return
	}
	p, _, _, err := s.admit(w, r, true, a.Do == "start")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if p == nil {
		s.fail(w, r, refuse(http.StatusConflict, "press Start first"))
		return
	}
	if a.Do == "start" {
		err = nil // signing in was the action
		s.noteCrowd(r.Context(), p, r.URL.Query())
	} else {
		err = s.act(r.Context(), p, a)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if wantsJSON(r) {
		writeJSON(w, http.StatusOK, map[string]any{"ok": true})
		return
	}
	http.Redirect(w, r, "/?"+r.URL.RawQuery, http.StatusSeeOther)
}

// act applies an action under the participant's lock.
func (s *Server) act(ctx context.Context, p *participant, a action) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastSeen = s.opts.Now()
	if stamp(p.sess) != a.At {
		if a.Do == "focus" {
			return nil // a focus change from a page just left: nothing to do
		}
		return refuse(http.StatusConflict, "this page has changed meanwhile (another tab, or a double click); it is shown again as it is now")
	}
	var err error
	switch a.Do {
	case "next", "continue":
		err = p.sess.Next(ctx)
	case "edit":
		err = p.sess.Edit(ctx, a.Edit)
	case "focus":
		err = p.sess.Focus(ctx, a.Turn)
	case "send":
		if err = p.sess.Send(ctx, a.Text); err == nil {
			s.startReply(p)
		}
	case "end":
		err = p.sess.End(ctx)
	case "retry":
		if v := p.sess.View(); v.Chat == nil || v.Chat.BotError == "" {
			return refuse(http.StatusConflict, "there is nothing to retry")
		}
		p.retry = true
		s.startReply(p)
	}
	if errors.Is(err, session.ErrExpired) {
		err = nil // the page now says so
	}
	if err == nil || errors.Is(err, session.ErrNotCorrected) {
		p.version++
		defer s.changed()
	}
	if err != nil && !isParticipantError(err) {
		p.err = err.Error()
	}
	return err
}

func isParticipantError(err error) bool {
	var ee *session.EditError
	var he *httpError
	return errors.As(err, &ee) || errors.As(err, &he) || errors.Is(err, session.ErrIncomplete) ||
		errors.Is(err, session.ErrNotCorrected) || errors.Is(err, session.ErrNoChat) || errors.Is(err, session.ErrUnanswered) ||
		errors.Is(err, session.ErrEmptyMessage) || errors.Is(err, ev.ErrChatState)
}

// startReply asks the bot for its owed reply in the background (the page asks for its
// fragment until it comes). Call it with p.mu held.
func (s *Server) startReply(p *participant) {
	if p.replying {
		return
	}
	r := p.sess.StartReply()
	if r == nil {
		return
	}
	if v := p.sess.View(); v.Chat != nil && v.Chat.BotError != "" && !p.retry {
		return // a failed reply waits for Retry
	}
	p.retry = false
	p.replying = true
	go func() {
		ctx, cancel := context.WithTimeout(s.ctx, 2*time.Minute)
		defer cancel()
		r.Run(ctx)
		p.mu.Lock()
		if err := p.sess.FinishReply(s.ctx, r); err != nil {
			p.err = err.Error()
		}
		p.replying = false
		p.version++
		p.mu.Unlock()
		s.changed()
	}()
}

// stamp names what a page shows, so that an action made on it is not applied to another.
func stamp(sess *session.Session) string {
	v := sess.View()
	switch v.Screen {
	case session.ScreenPage:
		pg := v.Page
		return fmt.Sprintf("p%d.%d.%d.%d", sess.Unit().ID, boolInt(pg.Training), pg.Dialogue, pg.Annot)
	case session.ScreenChat:
		n := len(v.Chat.Messages)
		if v.Chat.NeedsReply {
			n-- // the participant's own message does not change the page they answer on
		}
		return fmt.Sprintf("c%d.%d.%d", sess.Unit().ID, v.Chat.Index, n)
	case session.ScreenTraining:
		return "t" + shortHash(v.Title+v.Text)
	case session.ScreenMessage:
		return "m" + shortHash(v.Title+v.Text)
	}
	return string(v.Screen)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
