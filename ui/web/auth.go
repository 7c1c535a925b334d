package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Who a request is for, as the link says: the participant's id, the assignment the site gave
// (kept for the original's link form; the session assigns by the project's rules) and the
// token.
type identity struct {
	Worker, Assignment, Token string
}

// The link parameters: the original's and those of crowdsourcing sites, mapped to a
// participant and an assignment (study and HIT ids are accepted and not used).
var (
	workerParams     = []string{"worker_id", "PROLIFIC_PID", "workerId"}
	assignmentParams = []string{"assignment_id", "SESSION_ID", "assignmentId"}
	otherParams      = []string{"STUDY_ID", "hitId", "turkSubmitTo"}
)

// maxIDLength bounds a participant or assignment id.
const maxIDLength = 128

// errBadLink is a link that is incomplete or malformed (400).
type errBadLink struct{ reason string }

func (e *errBadLink) Error() string { return "this link is not complete: " + e.reason }

// parseIdentity reads the participant, assignment and token of a link's query. A parameter
// given twice, or given under two names, is refused: the link must say one thing.
func parseIdentity(q url.Values) (identity, error) {
	var id identity
	pick := func(names []string, what string) (string, error) {
		found := ""
		for _, n := range names {
			vs, ok := q[n]
			if !ok {
				continue
			}
			if len(vs) != 1 || found != "" {
				return "", &errBadLink{what + " is given more than once"}
			}
			found = vs[0]
			if found == "" {
				return "", &errBadLink{what + " is empty"}
			}
		}
		return found, nil
	}
	var err error
	if id.Worker, err = pick(workerParams, "the participant id"); err != nil {
		return id, err
	}
	if id.Assignment, err = pick(assignmentParams, "the assignment id"); err != nil {
		return id, err
	}
	if id.Token, err = pick([]string{"token"}, "the token"); err != nil {
		return id, err
	}
	for _, n := range otherParams {
		if len(q[n]) > 1 {
			return id, &errBadLink{n + " is given more than once"}
		}
	}
	if id.Token == "" {
		return id, &errBadLink{"it has no token"}
	}
	if id.Worker == "" {
		return id, &errBadLink{"it names no participant (worker_id)"}
	}
	if err := checkID(id.Worker, "participant id"); err != nil {
		return id, err
	}
	if id.Assignment != "" {
		if err := checkID(id.Assignment, "assignment id"); err != nil {
			return id, err
		}
	}
	if len(id.Token) > 100 {
		return id, &errBadLink{"the token is too long"}
	}
	return id, nil
}

// checkID accepts ids of printable characters without spaces at either end, at most
// maxIDLength bytes.
func checkID(s, what string) error {
	if len(s) > maxIDLength {
		return &errBadLink{fmt.Sprintf("the %s is longer than %d bytes", what, maxIDLength)}
	}
	if !utf8.ValidString(s) || strings.TrimSpace(s) != s {
		return &errBadLink{"the " + what + " is not plain text"}
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return &errBadLink{"the " + what + " holds a control character"}
		}
	}
	return nil
}

// signer makes and checks the project's tokens: participant link tokens, the study link's
// token, form tokens and browser hashes, each an HMAC-SHA256 of its purpose under the secret.
type signer struct {
	secret    []byte
	projectID int64
}

func (g signer) mac(parts ...string) []byte {
	m := hmac.New(sha256.New, g.secret)
	m.Write([]byte(strconv.FormatInt(g.projectID, 10)))
	for _, p := range parts {
		m.Write([]byte{0})
		m.Write([]byte(p))
	}
	return m.Sum(nil)
}

func (g signer) encode(parts ...string) string {
	return base64.RawURLEncoding.EncodeToString(g.mac(parts...)[:24])
}

// participantToken is a participant's link token for a generation of their links.
func (g signer) participantToken(worker string, gen int) string {
	return g.encode("participant", worker, strconv.Itoa(gen))
}

// studyToken is the study link's token for a generation.
func (g signer) studyToken(gen int) string { return g.encode("study", strconv.Itoa(gen)) }

// formToken is the token a page's forms carry: bound to the participant and the browser's
// cookie, so another site cannot make a browser post answers.
func (g signer) formToken(worker, browser string) string { return g.encode("form", worker, browser) }

// browserHash is what the store keeps of a browser's cookie.
func (g signer) browserHash(browser string) string { return g.encode("browser", browser) }

func equal(a, b string) bool { return hmac.Equal([]byte(a), []byte(b)) }

// browserCookie names the cookie that tells one browser from another.
const browserCookie = "agentdesk_browser"

// browserOf returns the request's browser cookie ("" when it has none or it is malformed).
func browserOf(r *http.Request) string {
	c, err := r.Cookie(browserCookie)
	if err != nil || len(c.Value) != 43 {
		return ""
	}
	if _, err := base64.RawURLEncoding.DecodeString(c.Value); err != nil {
		return ""
	}
	return c.Value
}

// newBrowser makes a browser cookie's value (32 random bytes).
func newBrowser() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func setBrowserCookie(w http.ResponseWriter, value string, secure bool) {
	http.SetCookie(w, &http.Cookie{Name: browserCookie, Value: value, Path: "/", MaxAge: 365 * 24 * 3600,
		HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode})
}

// errCrossSite is a state-changing request that did not come from the app's own page.
var errCrossSite = errors.New("this request did not come from the study's own page")

// sameOrigin refuses requests a browser marks as cross-site, and those whose Origin is not
// the host they were sent to.
func sameOrigin(r *http.Request) error {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return errCrossSite
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Host != r.Host {
			return errCrossSite
		}
	}
	return nil
}
