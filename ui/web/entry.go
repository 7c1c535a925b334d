package web

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
)

// Who may come in, and how fast. A study link is shared publicly on crowd sites by design, so
// what it lets a stranger do is the study's boundary:
//
//   - an id that holds a personal link is usable only through that link;
//   - every id is bound to the first browser that used it, whatever the link (a second browser
//     gets a page saying so, and the roster a line);
//   - new sign-ins through the study link are rate limited per client address, and so are
//     requests with a token that is not valid (429 with Retry-After); a participant already
//     signed in is never limited;
//   - at most Settings.MaxEntrants study-link participants are in progress at once (503 with
//     Retry-After beyond), a quarter of them from one address (429), and an entrant holds a
//     unit only once they press Start;
//   - units whose time limit passed go back to the pool on the server's own clock (reclaim.go).

// Limits are the per-client rate limits: a client may make Burst requests of a kind at once,
// then one more every Every.
type Limits struct {
	SignIn, BadToken Rate
}

// Rate is a token bucket's size and refill.
type Rate struct {
	Burst int
	Every time.Duration
}

// DefaultLimits: ten new study-link ids from one address at once, then one every two seconds
// (a classroom behind one address gets in within a minute); twenty requests with a bad token,
// then one every three seconds.
var DefaultLimits = Limits{
	SignIn:   Rate{Burst: 10, Every: 2 * time.Second},
	BadToken: Rate{Burst: 20, Every: 3 * time.Second},
}

// limiter is a set of token buckets keyed by client, on an injected clock.
type limiter struct {
	rate Rate
	now  func() time.Time
	mu   sync.Mutex
	b    map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(r Rate, now func() time.Time) *limiter {
	return &limiter{rate: r, now: now, b: map[string]*bucket{}}
}

// take spends one token of key's bucket; when none is left it returns how long until one is.
func (l *limiter) take(key string) (ok bool, retry time.Duration) {
	if l.rate.Burst <= 0 {
		return true, 0
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.b[key]
	if b == nil {
		if len(l.b) >= maxBuckets {
			l.prune(now)
		}
		b = &bucket{tokens: float64(l.rate.Burst), at: now}
		l.b[key] = b
	}
	b.tokens = math.Min(float64(l.rate.Burst), b.tokens+float64(now.Sub(b.at))/float64(l.rate.Every))
	b.at = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) * float64(l.rate.Every))
}

// maxBuckets bounds the memory a flood of addresses can take; full buckets are dropped first.
const maxBuckets = 100000

func (l *limiter) prune(now time.Time) {
	for k, b := range l.b {
		if b.tokens+float64(now.Sub(b.at))/float64(l.rate.Every) >= float64(l.rate.Burst) {
			delete(l.b, k)
		}
	}
	if len(l.b) >= maxBuckets { // a flood of distinct addresses: start afresh rather than grow
		l.b = map[string]*bucket{}
	}
}

// clientKey is the address a request came from: an IPv4 address, or an IPv6 address's /64
// (one host holds a whole /64). Proxies' forwarding headers are not trusted.
func clientKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// errLimited is a refusal for a client over a rate limit or a study that is full.
type errLimited struct {
	status int
	retry  time.Duration
	msg    string
}

func (e *errLimited) Error() string { return e.msg }

func tooMany(retry time.Duration, msg string) error {
	return &errLimited{status: http.StatusTooManyRequests, retry: retry, msg: msg}
}

// retryAfter is a Retry-After value: whole seconds, at least one.
func retryAfter(d time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(d.Seconds()))))
}

// entrantsFull is how long a new entrant is told to wait when the study is full.
const entrantsFull = 30 * time.Second

// maxEntrants is the cap on study-link participants in progress: the project's setting, else
// the study's number of units, at least 10.
func (s *Server) maxEntrants() int {
	def := s.opts.Project.Def()
	if n := def.Settings.MaxEntrants; n > 0 {
		return n
	}
	n := 0
	for _, b := range def.Bundles {
		if u, err := def.UnitsFor(b); err == nil {
			n += u
		}
	}
	return max(n, 10)
}

// entrantsInProgress counts the study-link participants working on a unit (a page, a chat,
// the training): all of them, and those who started from client addr.
func (s *Server) entrantsInProgress(addr string) (all, fromAddr int) {
	s.mu.Lock()
	people := make([]*participant, 0, len(s.people))
	for _, p := range s.people {
		if p.via == "study" {
			people = append(people, p)
		}
	}
	s.mu.Unlock()
	for _, p := range people {
		p.mu.Lock()
		if p.sess != nil {
			if sc := p.sess.Screen(); sc == session.ScreenPage || sc == session.ScreenChat || sc == session.ScreenTraining {
				all++
				if p.addr == addr {
					fromAddr++
				}
			}
		}
		p.mu.Unlock()
	}
	return all, fromAddr
}

// perAddress is how many of the study link's participants in progress may have started from
// one client address: a quarter of the cap, at least two. A script on one machine then cannot
// take every unit, while a few people sharing an address (a household, an office) get in; a
// classroom behind one address is better served by personal links, which are not capped.
func perAddress(cap int) int { return max(2, cap/4) }

// recruits decides whether the study link (of generation gen) takes new ids: recruitment
// open, and the link the current one.
func recruits(sv ev.Serving, gen int) error {
	if !sv.Recruiting {
		return refuse(http.StatusForbidden, "this study is not taking new participants any more")
	}
	if gen != sv.StudyGeneration {
		return refuse(http.StatusForbidden, "this study link was replaced; ask the study for the current one")
	}
	return nil
}

// admitNew decides whether a new id may start through the study link: the client within its
// sign-in rate, and room in the study.
func (s *Server) admitNew(r *http.Request) error {
	addr := clientKey(r)
	if ok, retry := s.signIns.take(addr); !ok {
		return tooMany(retry, "too many people started from your network just now")
	}
	cap := s.maxEntrants()
	all, here := s.entrantsInProgress(addr)
	if here >= perAddress(cap) {
		return tooMany(entrantsFull, "enough people from your network are taking part at the moment")
	}
	if all >= cap {
		return &errLimited{status: http.StatusServiceUnavailable, retry: entrantsFull,
			msg: "the study is full at the moment"}
	}
	return nil
}

// badToken counts a request whose token is not valid against its client; over the limit the
// refusal is a 429.
func (s *Server) badToken(r *http.Request, msg string) error {
	if ok, retry := s.failures.take(clientKey(r)); !ok {
		return tooMany(retry, "too many requests with links that are not valid came from your network")
	}
	return refuse(http.StatusForbidden, msg)
}

// studyGeneration finds the study link generation a token was signed for, among those still
// honoured (floor to current); -1 when none.
func (s *Server) studyGeneration(token string, sv ev.Serving) int {
	floor := max(sv.StudyFloor, sv.StudyGeneration-maxOldStudyLinks)
	for g := sv.StudyGeneration; g >= floor; g-- {
		if equal(token, s.sign.studyToken(g)) {
			return g
		}
	}
	return -1
}

// maxOldStudyLinks bounds how many replaced study links are still honoured for participants
// in progress.
const maxOldStudyLinks = 20

// conflict notes that another browser tried to use a participant's id: the roster says so.
func (s *Server) conflict(worker string) {
	s.mu.Lock()
	p := s.people[worker]
	if p == nil {
		p = &participant{name: worker}
		s.people[worker] = p
	}
	s.mu.Unlock()
	p.mu.Lock()
	p.conflicts++
	p.conflictAt = s.opts.Now()
	p.mu.Unlock()
	s.changed()
}

// conflictNote is the roster's line about other browsers that tried an id.
func conflictNote(n int, at time.Time) string {
	if n == 0 {
		return ""
	}
	times := "once"
	if n > 1 {
		times = fmt.Sprintf("%d times", n)
	}
	return fmt.Sprintf("another browser tried this id %s (last %s); it was refused", times, at.Format("15:04:05"))
}

// startText is the start page of a participant who holds no unit.
func startText(p *session.Project) (string, string) {
	return studyTitle(p), "Press Start when you are ready: your first task is handed to you then, and its time limit starts."
}
