package evaluation

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Crowdsourcing sites (Prolific, Amazon Mechanical Turk) send participants to the study link
// with their own ids appended; the app keeps them per participant (CrowdIDs), gives every
// participant who finished a completion code of their own (CompletionCode), and writes the
// files the sites' bulk tools read (see app's eval payouts).

// Crowd sites (CrowdIDs.Site).
const (
	SiteProlific = "prolific"
	SiteMTurk    = "mturk"
)

// CrowdIDs are the ids a crowdsourcing site gave a participant's link.
type CrowdIDs struct {
	// Site is SiteProlific (the link named the participant PROLIFIC_PID), SiteMTurk (workerId)
	// or "".
	Site string
	// StudyID and SessionID are Prolific's STUDY_ID and SESSION_ID; HitID and AssignmentID
	// MTurk's hitId and assignmentId.
	StudyID, SessionID, HitID, AssignmentID string
	// SubmitTo is MTurk's turkSubmitTo, only when it is one of MTurk's own origins (see
	// MTurkSubmitOrigin).
	SubmitTo string
	// FirstSeen and LastSeen are when the participant's link carried these ids first and last.
	FirstSeen, LastSeen time.Time
}

// Empty reports whether the link carried no site's ids.
func (c CrowdIDs) Empty() bool {
	return c.Site == "" && c.StudyID == "" && c.SessionID == "" && c.HitID == "" && c.AssignmentID == "" && c.SubmitTo == ""
}

// mturkPreview is the assignmentId MTurk sends while a worker only previews a HIT.
const mturkPreview = "ASSIGNMENT_ID_NOT_AVAILABLE"

// CrowdIDsOf reads the sites' ids from a link's query; values that are not plain ids (too
// long, control characters), MTurk's preview assignment and a turkSubmitTo that is not
// MTurk's own are left out.
func CrowdIDsOf(q url.Values) CrowdIDs {
	get := func(name string) string {
		v := q.Get(name)
		if len(v) > 128 || strings.TrimSpace(v) != v || !utf8.ValidString(v) {
			return ""
		}
		for _, r := range v {
			if !unicode.IsPrint(r) {
				return ""
			}
		}
		return v
	}
	var c CrowdIDs
	switch {
	case get("PROLIFIC_PID") != "":
		c.Site = SiteProlific
	case get("workerId") != "":
		c.Site = SiteMTurk
	}
	c.StudyID, c.SessionID, c.HitID = get("STUDY_ID"), get("SESSION_ID"), get("hitId")
	if a := get("assignmentId"); a != mturkPreview {
		c.AssignmentID = a
	}
	if origin, ok := MTurkSubmitOrigin(q.Get("turkSubmitTo")); ok {
		c.SubmitTo = origin
	}
	return c
}

// mturkOrigins are the only places an MTurk external submit may go: the live site and the
// sandbox.
var mturkOrigins = map[string]bool{"https://www.mturk.com": true, "https://workersandbox.mturk.com": true}

// MTurkSubmitOrigin checks a turkSubmitTo value: it returns its origin when it is MTurk's own
// (https://www.mturk.com or https://workersandbox.mturk.com, nothing else in it but an
// optional trailing slash), and false for anything else, so that a link cannot make the
// completion page post to a site of its choosing.
func MTurkSubmitOrigin(raw string) (string, bool) {
	if raw == "" {
		return "", false
	}
	u, err := url.Parse(raw)
	if err != nil || u.User != nil || u.RawQuery != "" || u.Fragment != "" || (u.Path != "" && u.Path != "/") || u.Opaque != "" {
		return "", false
	}
	origin := strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
	if !mturkOrigins[origin] {
		return "", false
	}
	return origin, true
}

// MTurkSubmitURL is where the completion page posts an MTurk assignment: the origin's
// /mturk/externalSubmit.
func MTurkSubmitURL(origin string) string { return origin + "/mturk/externalSubmit" }

// codeAlphabet is Crockford's base 32: no I, L, O or U, so that a code read aloud or typed is
// not mistaken.
var codeEncoding = base32.NewEncoding("0123456789ABCDEFGHJKMNPQRSTVWXYZ").WithPadding(base32.NoPadding)

// CompletionCode is a participant's own completion code in a project: an HMAC-SHA256 of the
// participant's id under the project's serving secret (the secret that signs its links), 60
// bits as 12 characters of Crockford's base 32 in three groups (7KQ2-M9XD-4TRA). Only someone
// holding the secret can make one, and the operator can check one later (VerifyCompletionCode)
// without anything stored.
func CompletionCode(secret []byte, projectID int64, participant string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(strconv.FormatInt(projectID, 10)))
	m.Write([]byte{0})
	m.Write([]byte("completion-code"))
	m.Write([]byte{0})
	m.Write([]byte(participant))
	s := codeEncoding.EncodeToString(m.Sum(nil)[:8])[:12]
	return fmt.Sprintf("%s-%s-%s", s[:4], s[4:8], s[8:])
}

// NormalizeCode reads a code as a participant may have typed it: any case, with or without
// dashes and spaces, O for 0 and I or L for 1.
func NormalizeCode(code string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(code) {
		switch {
		case r == '-' || r == ' ' || r == '\t':
			continue
		case r == 'O':
			r = '0'
		case r == 'I' || r == 'L':
			r = '1'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// VerifyCompletionCode reports whether code is participant's completion code.
func VerifyCompletionCode(secret []byte, projectID int64, participant, code string) bool {
	want := NormalizeCode(CompletionCode(secret, projectID, participant))
	return hmac.Equal([]byte(want), []byte(NormalizeCode(code)))
}
