package app

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"sync"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/store"
	"github.com/agentdesk/agentdesk/ui/web"
)

// serveFlags are the flags eval serve and eval links share: where the study listens and the
// address its links carry.
type serveFlags struct {
	addr, url, participants string
	public                  bool
}

func (f *serveFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&f.addr, "addr", web.DefaultAddr, "where the study listens (`HOST:PORT`); the imported configuration's hostname and port are not used")
	fs.BoolVar(&f.public, "public", false, "allow an address other machines can reach (any but loopback)")
	fs.StringVar(&f.url, "url", "", "the address links carry when participants reach the study through your tunnel or reverse proxy (`https://…`)")
	fs.StringVar(&f.participants, "participants", "", "participant ids, comma-separated (`ID,ID,…`): print a link for each")
}

// ids splits --participants.
func (f *serveFlags) ids() ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, id := range strings.Split(f.participants, ",") {
		id = strings.TrimSpace(id)
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, id)
	}
	return out, nil
}

// baseURL is the address links carry without a listener (eval links).
func (f *serveFlags) baseURL(tlsOn bool) string {
	if f.url != "" {
		return strings.TrimSuffix(f.url, "/")
	}
	scheme := "http"
	if tlsOn {
		scheme = "https"
	}
	return scheme + "://" + f.addr
}

// studyServer opens a project for serving; name is the project's name (the argument may be
// its id).
func (e *env) studyServer(ctx context.Context, args []string, base string, secure bool) (st *store.Store, srv *web.Server, name string, err error) {
	st, info, p, err := e.openEvalProjectDef(ctx, args, 1, "give the project")
	if err != nil {
		return nil, nil, "", err
	}
	srv, err = web.New(ctx, web.Options{Store: st, Project: session.NewProject(info.ID, info.Name, p),
		BaseURL: base, Secure: secure})
	if err != nil {
		st.Close()
		return nil, nil, "", err
	}
	return st, srv, info.Name, nil
}

// serveContext is the context eval serve runs in until it is interrupted (tests end it).
var serveContext = (*env).interruptible

func evalServeSetup(fs *flag.FlagSet) runFunc {
	var f serveFlags
	f.add(fs)
	code := fs.String("completion-code", "", "set the `CODE` shown at the end to participants who did some work (kept in the project)")
	doneURL := fs.String("completion-url", "", "set where participants are sent at the end (`URL`, kept in the project)")
	screenCode := fs.String("screen-out-code", "", "set the `CODE` shown to participants who fail screening (kept in the project)")
	screenURL := fs.String("screen-out-url", "", "set where participants who fail screening are sent (`URL`, kept in the project)")
	cert := fs.String("tls-cert", "", "serve over HTTPS with this certificate (`FILE`, PEM)")
	key := fs.String("tls-key", "", "the certificate's private key (`FILE`, PEM)")
	return func(e *env, args []string) error {
		if (*cert == "") != (*key == "") {
			return usageErrorf("--tls-cert and --tls-key go together")
		}
		ids, err := f.ids()
		if err != nil {
			return err
		}
		ctx, stop := serveContext(e)
		defer stop()
		if *code != "" || *doneURL != "" || *screenCode != "" || *screenURL != "" {
			// kept in the project: a flag left out keeps what the project says
			set := func(dst *string, v string) {
				if v != "" {
					*dst = v
				}
			}
			if err := e.editSettings(ctx, args, func(s *ev.Settings) {
				set(&s.CompletionCode, *code)
				set(&s.CompletionURL, *doneURL)
				set(&s.ScreenOutCode, *screenCode)
				set(&s.ScreenOutURL, *screenURL)
			}); err != nil {
				return err
			}
		}
		ln, err := web.Listen(f.addr, f.public)
		if err != nil {
			return err
		}
		base := web.BaseURL(ln, *cert != "", f.url)
		st, srv, name, err := e.studyServer(ctx, args, base, *cert != "")
		if err != nil {
			ln.Close()
			return err
		}
		defer st.Close()
		fmt.Fprintf(e.stdout, "Serving %q at %s\nReachable by %s.\n", name, base, web.Reach(ln.Addr().String()))
		study, err := srv.StudyLink(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "Study link (crowdsourcing sites append the participant's id): %s\n", study)
		for _, id := range ids {
			link, err := srv.Link(ctx, id, "")
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "%s\t%s\n", id, link)
		}
		fmt.Fprintln(e.stdout, "Press Ctrl-C to stop; every answer is saved as it is given.")
		go reportRoster(ctx, e, srv)
		err = srv.Serve(ctx, ln, *cert, *key)
		if ctx.Err() != nil {
			fmt.Fprintln(e.stdout, "Stopped.")
			return nil
		}
		return err
	}
}

// reportRoster prints a line whenever a participant's place changes.
func reportRoster(ctx context.Context, e *env, srv *web.Server) {
	var mu sync.Mutex
	last := map[string]string{}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		roster, err := srv.Roster(ctx)
		if err != nil {
			continue
		}
		mu.Lock()
		for _, r := range roster {
			line := fmt.Sprintf("%s: %s (units done %d, screening %s)", r.Name, r.Where, r.Done, r.Screening)
			if last[r.Name] != line {
				last[r.Name] = line
				fmt.Fprintf(e.stdout, "%s  %s\n", time.Now().Format("15:04:05"), line)
			}
		}
		mu.Unlock()
	}
}

func evalLinksSetup(fs *flag.FlagSet) runFunc {
	var f serveFlags
	f.add(fs)
	asCSV := fs.Bool("csv", false, "print CSV (participant, assignment, link)")
	study := fs.Bool("study", false, "print the study link (for crowdsourcing sites, which append each participant's id)")
	revoke := fs.String("revoke", "", "revoke a participant's links (`ID`) and print their new one; --study with it replaces the study link (participants in progress go on with the old one)")
	closeRec := fs.Bool("close", false, "with --study: close recruitment (no new ids; participants in progress finish)")
	openRec := fs.Bool("open", false, "with --study: open recruitment again")
	evict := fs.Bool("evict", false, "with --study: end the study link for everyone who came in through it, those in progress too (their units go back to the pool, their answers so far are dropped; personal links are not affected)")
	https := fs.Bool("https", false, "links start with https:// (the study is served with --tls-cert)")
	return func(e *env, args []string) error {
		ids, err := f.ids()
		if err != nil {
			return err
		}
		if len(ids) == 0 && !*study && *revoke == "" {
			return usageErrorf("give --participants ID,ID,… (or --study, or --revoke ID)")
		}
		if (*closeRec || *openRec || *evict) && !*study {
			return usageErrorf("--close, --open and --evict go with --study")
		}
		if *closeRec && *openRec {
			return usageErrorf("--close and --open: choose one")
		}
		if !web.Loopback(f.addr) && !f.public && f.url == "" {
			return fmt.Errorf("%s: %w", f.addr, web.ErrPublic)
		}
		ctx, stop := e.interruptible()
		defer stop()
		st, srv, _, err := e.studyServer(ctx, args, f.baseURL(*https), *https)
		if err != nil {
			return err
		}
		defer st.Close()
		defer srv.Close() // its reclaiming loop ends before the store closes
		if *closeRec || *openRec {
			if err := srv.SetRecruiting(ctx, *openRec); err != nil {
				return err
			}
			if *openRec {
				fmt.Fprintln(e.stderr, "Recruitment is open: the study link admits new participant ids.")
			} else {
				fmt.Fprintln(e.stderr, "Recruitment is closed: the study link admits no new participant ids; those in progress finish.")
			}
		}
		if *evict {
			out, err := srv.Evict(ctx)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "Evicted %d study-link participants; %d units they held went back to the pool (their answers so far dropped; the answer log keeps them). The study link below is the new one.\n",
				out.Participants, out.Units)
		}
		if *revoke != "" {
			if *study {
				if _, err := st.RevokeEvalStudyLink(ctx, srv.ProjectID()); err != nil {
					return err
				}
			} else {
				if err := srv.Revoke(ctx, *revoke); err != nil {
					return err
				}
				ids = append([]string{*revoke}, ids...)
			}
		}
		var w *ev.SafeCSVWriter
		if *asCSV {
			w = ev.NewSafeCSVWriter(e.stdout)
			w.Write([]string{"participant", "assignment", "link"})
		}
		if *study {
			link, err := srv.StudyLink(ctx)
			if err != nil {
				return err
			}
			if w != nil {
				w.Write([]string{"(study)", "", link})
			} else {
				fmt.Fprintln(e.stdout, link)
			}
		}
		for _, id := range ids {
			assignment, err := srv.NextAssignment(ctx, id)
			if err != nil {
				return err
			}
			link, err := srv.Link(ctx, id, assignment)
			if err != nil {
				return err
			}
			if w != nil {
				w.Write([]string{id, assignment, link})
			} else {
				fmt.Fprintln(e.stdout, link)
			}
		}
		if w != nil {
			w.Flush()
			return w.Error()
		}
		return nil
	}
}

// editSettings changes a project's settings and stores the project (checked first).
func (e *env) editSettings(ctx context.Context, args []string, edit func(*ev.Settings)) error {
	st, info, p, err := e.openEvalProjectDef(ctx, args, 1, "give the project")
	if err != nil {
		return err
	}
	defer st.Close()
	edit(&p.Settings)
	if err := p.Validate(); err != nil {
		return err
	}
	config, err := ev.MarshalDefinition(p)
	if err != nil {
		return err
	}
	return st.SetEvalProjectConfig(ctx, info.ID, string(config))
}
