package web

import (
	"fmt"
	"net/url"
	"strconv"
	"unicode/utf8"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
)

// maxBody bounds a request body; maxMessage a chat message.
const (
	maxBody    = 64 << 10
	maxMessage = 4000
)

// action is one decoded participant request: what to do, on which page, with what.
type action struct {
	Do string
	// At is the page stamp the form was made for: a request about a page no longer on show
	// (a double click, a second tab) is refused instead of acting on the next page.
	At   string
	Form string // the form token
	Edit session.Edit
	Turn int    // focus
	Text string // send
}

// errBadRequest is a request the server does not take (400), with the reason.
type errBadRequest struct{ reason string }

func (e *errBadRequest) Error() string { return e.reason }

func bad(format string, args ...any) error { return &errBadRequest{fmt.Sprintf(format, args...)} }

// decodeAction reads an action from a posted form. Every field is checked for its kind and
// size here; what it means for the page (a turn not asked, a value out of range) the session
// checks.
func decodeAction(f url.Values) (action, error) {
	var a action
	one := func(name string, required bool) (string, error) {
		vs := f[name]
		if len(vs) > 1 {
			return "", bad("%s is given more than once", name)
		}
		if len(vs) == 0 || vs[0] == "" {
			if required {
				return "", bad("%s is missing", name)
			}
			return "", nil
		}
		if !utf8.ValidString(vs[0]) {
			return "", bad("%s is not UTF-8", name)
		}
		return vs[0], nil
	}
	var err error
	if a.Do, err = one("do", true); err != nil {
		return a, err
	}
	if a.Form, err = one("form", true); err != nil {
		return a, err
	}
	if a.At, err = one("at", true); err != nil {
		return a, err
	}
	if len(a.Form) > 64 || len(a.At) > 64 {
		return a, bad("a token is too long")
	}
	turn := func() (int, error) {
		s, err := one("turn", true)
		if err != nil {
			return 0, err
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < -1 || n > 100000 {
			return 0, bad("turn %q is not a turn position", s)
		}
		return n, nil
	}
	switch a.Do {
	case "next", "continue", "end", "retry", "start":
	case "focus":
		if a.Turn, err = turn(); err != nil {
			return a, err
		}
	case "edit":
		e := &a.Edit
		if e.Turn, err = turn(); err != nil {
			return a, err
		}
		kind, err := one("kind", true)
		if err != nil {
			return a, err
		}
		e.Kind = session.EditKind(kind)
		switch e.Kind {
		case session.EditLabel, session.EditScale, session.EditComparative, session.EditFlow:
		default:
			return a, bad("unknown kind of answer %q", kind)
		}
		if e.Key, err = one("key", e.Kind != session.EditComparative); err != nil {
			return a, err
		}
		if e.Value, err = one("value", true); err != nil {
			return a, err
		}
		if len(e.Key) > 2000 || len(e.Value) > 2000 {
			return a, bad("the answer is too long")
		}
		if e.Kind == session.EditFlow {
			click, err := one("click", true)
			if err != nil {
				return a, err
			}
			e.Click = ev.ClickKind(click)
			switch e.Click {
			case ev.ClickRadio, ev.ClickCheck, ev.ClickUncheck:
			default:
				return a, bad("unknown click %q", click)
			}
		}
	case "send":
		if a.Text, err = one("text", true); err != nil {
			return a, err
		}
		if utf8.RuneCountInString(a.Text) > maxMessage {
			return a, bad("the message is longer than %d characters", maxMessage)
		}
	default:
		return a, bad("unknown action %q", a.Do)
	}
	return a, nil
}
