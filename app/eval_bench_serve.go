package app

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/store"
	"github.com/agentdesk/agentdesk/ui/web"
)

// eval bench-serve: participants over loopback against a real `agentdesk eval serve` process
// on a store on disk. Each simulated participant answers every turn of their unit's pages,
// goes on, and takes the next unit, until the time is up. It reports answers per second, the
// latency of saving an answer and of loading the next page, the server's peak memory, and
// checks that every acknowledged answer is stored exactly once. With --kill the server is
// killed (SIGKILL) half way and started again.

func evalBenchServeSetup(fs *flag.FlagSet) runFunc {
	n := fs.Int("participants", 200, "simulated participants, all at once")
	dur := fs.Duration("duration", 20*time.Second, "how long they work")
	kill := fs.Bool("kill", false, "kill -9 the server half way and start it again")
	dir := fs.String("dir", "", "keep the store in this `DIR` (default: a temporary folder, removed)")
	return func(e *env, args []string) error {
		if len(args) != 0 {
			return usageErrorf("eval bench-serve takes no arguments")
		}
		if *n < 1 {
			return usageErrorf("--participants must be at least 1")
		}
		work := *dir
		if work == "" {
			tmp, err := os.MkdirTemp("", "agentdesk-bench-serve-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(tmp)
			work = tmp
		}
		return benchServe(e, work, *n, *dur, *kill)
	}
}

// benchProject is a static project with enough units for everyone: bundles of two dialogues
// of eight turns, labels on the odd turns, one annotator each.
func benchProject(units int) *ev.Project {
	typ := &ev.AnnotationType{Name: "labels", Title: "labels", Display: ev.Multiselect, Indices: ev.Odd,
		Question: "Pick every label that applies:", Choices: []ev.Choice{{Value: "a", Label: "A"}, {Value: "b", Label: "B"}, {Value: "c", Label: "C"}},
		Description: "Load test."}
	p := &ev.Project{Name: "bench", Types: []*ev.AnnotationType{typ}, Units: map[string]int{}, Bots: map[string]ev.BotSpec{}}
	p.Settings.ExternalAnnotations = true
	p.Settings.DefaultUnits = 1
	p.Settings.AnnotationDurationSeconds = 3600
	p.Settings.TaskTitle = "Load test"
	for b := 0; b < units; b++ {
		var bundle ev.Bundle
		for d := 0; d < 2; d++ {
			dp := ev.Datapoint{DialogueID: fmt.Sprintf("b%d-d%d", b, d), GroupID: fmt.Sprintf("g%d", b), AnnotationTasks: []string{"labels"}}
			for t := 0; t < 8; t++ {
				speaker := "user"
				if t%2 == 1 {
					speaker = "bot"
				}
				dp.Turns = append(dp.Turns, ev.Turn{Speaker: speaker, Text: fmt.Sprintf("turn %d of dialogue %d", t, b)})
			}
			bundle.Datapoints = append(bundle.Datapoints, dp)
		}
		p.Bundles = append(p.Bundles, bundle)
	}
	return p
}

type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(d time.Duration) { l.mu.Lock(); l.d = append(l.d, d); l.mu.Unlock() }

func (l *latencies) pct(p float64) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.d) == 0 {
		return 0
	}
	sort.Slice(l.d, func(i, j int) bool { return l.d[i] < l.d[j] })
	return l.d[min(len(l.d)-1, int(float64(len(l.d))*p))]
}

// serverProc is a running `agentdesk eval serve`.
type serverProc struct {
	cmd  *exec.Cmd
	peak int64 // KiB, VmHWM of the process
}

func startServer(storePath, addr string) (*serverProc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "--store", storePath, "eval", "serve", "bench", "--addr", addr)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sent := false
		for sc.Scan() {
			if !sent && strings.HasPrefix(sc.Text(), "Press Ctrl-C") {
				ready <- nil
				sent = true
			}
		}
		if !sent {
			ready <- errors.New("the server stopped before it was ready")
		}
	}()
	select {
	case err := <-ready:
		if err != nil {
			cmd.Process.Kill()
			return nil, err
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		return nil, errors.New("the server did not start in 30 s")
	}
	return &serverProc{cmd: cmd}, nil
}

// sample reads the server's peak resident memory so far.
func (s *serverProc) sample() {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				s.peak = max(s.peak, kb)
			}
		}
	}
}

func (s *serverProc) stop(sig syscall.Signal) {
	s.sample()
	s.cmd.Process.Signal(sig)
	s.cmd.Wait()
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

var (
	benchForm  = regexp.MustCompile(`data-form="([^"]*)"`)
	benchAt    = regexp.MustCompile(`data-at="([^"]*)"`)
	benchInput = regexp.MustCompile(`data-turn="(\d+)">(?s:.*?)<input type="checkbox" name="[^"]*" data-kind="label" data-key="([^"]*)"`)
)

// ackedAnswer is an answer the server acknowledged.
type ackedAnswer struct {
	participant, at, turn, key string
}

func benchServe(e *env, dir string, n int, dur time.Duration, kill bool) error {
	storePath := filepath.Join(dir, "bench.db")
	ctx := e.context()
	st, err := store.Open(storePath)
	if err != nil {
		return err
	}
	p := benchProject(n * 40)
	id, err := st.SaveEvalProject(ctx, "bench", "created", "", p, "")
	if err != nil {
		st.Close()
		return err
	}
	saved, _ := st.EvalProject(ctx, id)
	addr, err := freeAddr()
	if err != nil {
		st.Close()
		return err
	}
	srv, err := web.New(ctx, web.Options{Store: st, Project: session.NewProject(id, "bench", saved), BaseURL: "http://" + addr})
	if err != nil {
		st.Close()
		return err
	}
	links := make([]string, n)
	for i := range links {
		if links[i], err = srv.Link(ctx, fmt.Sprintf("p%03d", i), ""); err != nil {
			st.Close()
			return err
		}
	}
	srv.Close()
	st.Close()

	fmt.Fprintf(e.stdout, "store %s, %d participants for %v, %d units of 2 pages with 4 answers each\n", storePath, n, dur, n*40)
	server, err := startServer(storePath, addr)
	if err != nil {
		return err
	}
	var procMu sync.Mutex
	current := server
	peak := int64(0)
	stopSampling := make(chan struct{})
	go func() {
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-t.C:
				procMu.Lock()
				current.sample()
				peak = max(peak, current.peak)
				procMu.Unlock()
			}
		}
	}()

	var (
		save, load latencies
		acked      = make([][]ackedAnswer, n)
		answers    atomic.Int64
		pagesDone  atomic.Int64
		failures   atomic.Int64
		deadline   = time.Now().Add(dur)
		wg         sync.WaitGroup
		start      = time.Now()
	)
	transport := &http.Transport{MaxIdleConnsPerHost: n, MaxConnsPerHost: n}
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			jar, _ := cookiejar.New(nil)
			c := &http.Client{Jar: jar, Transport: transport, Timeout: 30 * time.Second}
			link := links[i]
			q := link[strings.Index(link, "?")+1:]
			base := link[:strings.Index(link, "/?")]
			get := func() (string, error) {
				resp, err := c.Get(link)
				if err != nil {
					return "", err
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				if resp.StatusCode != 200 {
					return "", fmt.Errorf("status %d", resp.StatusCode)
				}
				return string(b), err
			}
			post := func(f url.Values) error {
				req, _ := http.NewRequest("POST", base+"/act?"+q, strings.NewReader(f.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("Accept", "application/json")
				resp, err := c.Do(req)
				if err != nil {
					return err
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					return fmt.Errorf("status %d", resp.StatusCode)
				}
				return nil
			}
			page, err := get()
			for time.Now().Before(deadline) {
				if err != nil {
					failures.Add(1)
					time.Sleep(100 * time.Millisecond) // the server may be restarting
					page, err = get()
					continue
				}
				fm, am := benchForm.FindStringSubmatch(page), benchAt.FindStringSubmatch(page)
				if fm == nil || am == nil {
					return
				}
				if strings.Contains(page, `data-screen="message"`) {
					do := "continue"
					switch {
					case strings.Contains(page, `value="start"`): // the link's start page
						do = "start"
					case !strings.Contains(page, `value="continue"`):
						return // no more work
					}
					err = post(url.Values{"do": {do}, "form": {fm[1]}, "at": {am[1]}})
					if err == nil {
						page, err = get()
					}
					continue
				}
				for _, part := range strings.Split(page, `<fieldset class="group"`)[1:] {
					m := benchInput.FindStringSubmatch(part)
					if m == nil || strings.Contains(part, " checked") {
						continue // answered before a restart of the server
					}
					f := url.Values{"do": {"edit"}, "form": {fm[1]}, "at": {am[1]}, "turn": {m[1]}, "kind": {"label"}, "key": {m[2]}, "value": {"on"}}
					t0 := time.Now()
					if err = post(f); err != nil {
						break
					}
					save.add(time.Since(t0))
					answers.Add(1)
					acked[i] = append(acked[i], ackedAnswer{fmt.Sprintf("p%03d", i), am[1], m[1], m[2]})
				}
				if err != nil {
					continue
				}
				if err = post(url.Values{"do": {"next"}, "form": {fm[1]}, "at": {am[1]}}); err != nil {
					continue
				}
				t0 := time.Now()
				page, err = get()
				if err == nil {
					load.add(time.Since(t0))
					pagesDone.Add(1)
				}
			}
		}(i)
	}
	if kill {
		time.Sleep(dur / 2)
		procMu.Lock()
		current.stop(syscall.SIGKILL)
		peak = max(peak, current.peak)
		fmt.Fprintf(e.stdout, "killed the server (SIGKILL) after %v\n", time.Since(start).Round(time.Millisecond))
		restarted, err := startServer(storePath, addr)
		if err != nil {
			procMu.Unlock()
			return err
		}
		current = restarted
		procMu.Unlock()
		fmt.Fprintf(e.stdout, "started it again after %v\n", time.Since(start).Round(time.Millisecond))
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(stopSampling)
	procMu.Lock()
	current.stop(syscall.SIGINT)
	peak = max(peak, current.peak)
	procMu.Unlock()

	// Every acknowledged answer must be in the store exactly once.
	st, err = store.Open(storePath)
	if err != nil {
		return err
	}
	defer st.Close()
	units, err := st.EvalUnits(ctx, id)
	if err != nil {
		return err
	}
	stored := map[string]int{}
	rows := 0
	for _, u := range units {
		as, err := st.EvalAnswers(ctx, u.ID)
		if err != nil {
			return err
		}
		for _, a := range as {
			rows++
			stored[fmt.Sprintf("%s|%d|%d|%d|%d", u.Participant, u.ID, a.DialoguePos, a.TypePos, a.Turn)]++
		}
	}
	ackedCount := map[string]int{}
	for _, list := range acked {
		for _, a := range list {
			// at is "p<unit>.<training>.<dialogue>.<type>"
			parts := strings.Split(strings.TrimPrefix(a.at, "p"), ".")
			if len(parts) != 4 {
				return fmt.Errorf("unexpected page stamp %q", a.at)
			}
			ackedCount[fmt.Sprintf("%s|%s|%s|%s|%s", a.participant, parts[0], parts[2], parts[3], a.turn)]++
		}
	}
	missing, twice, unacked := 0, 0, 0
	for k, c := range ackedCount {
		switch got := stored[k]; {
		case got < c:
			missing += c - got
		case got > c && kill:
			unacked += got - c // committed, then the server was killed before it answered
		case got > c:
			twice += got - c
		}
	}
	for k, got := range stored {
		if ackedCount[k] == 0 {
			if kill {
				unacked += got
			} else {
				twice += got
			}
		}
	}
	rate := float64(answers.Load()) / elapsed.Seconds()
	fmt.Fprintf(e.stdout, "participants %d, elapsed %v\n", n, elapsed.Round(time.Millisecond))
	fmt.Fprintf(e.stdout, "answers acknowledged %d (%.0f/s), pages finished %d, failed requests %d (retried)\n",
		answers.Load(), rate, pagesDone.Load(), failures.Load())
	fmt.Fprintf(e.stdout, "save an answer: p50 %v, p99 %v; load the next page: p50 %v, p99 %v\n",
		save.pct(0.5).Round(10*time.Microsecond), save.pct(0.99).Round(10*time.Microsecond),
		load.pct(0.5).Round(10*time.Microsecond), load.pct(0.99).Round(10*time.Microsecond))
	fmt.Fprintf(e.stdout, "server peak RSS %.1f MB\n", float64(peak)/1024)
	fmt.Fprintf(e.stdout, "stored answers %d: acknowledged but missing %d, stored more often than acknowledged %d, stored while in flight at the kill %d\n",
		rows, missing, twice, unacked)
	if missing > 0 || twice > 0 {
		return fmt.Errorf("%d acknowledged answers are missing and %d stored without being acknowledged", missing, twice)
	}
	return nil
}
