package evaluation

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/ui/web"
	"github.com/agentdesk/agentdesk/ui/widgets"
)

// The Serve tab: the app serves the open project's study to participants' own browsers (ui/web),
// hands out a link per participant (copied, exported as CSV, shown as a QR code), and shows a
// live roster: who is connected, where they are, their screening and units done.

// serving is a study being served: one project at a time, until Stop, the window closing or
// the store changing.
type serving struct {
	op      *evalProject
	srv     *web.Server
	addr    string
	base    string
	cancel  context.CancelFunc
	done    chan struct{}
	changed chan struct{}
}

// serveTab is the Serve tab of the open project.
type serveTab struct {
	ws   *Workspace
	op   *evalProject
	root *fyne.Container

	addr   *widget.Entry
	public *widget.Check
	url    *widget.Entry
	reach  *widget.Label
	// recruit opens and closes recruitment through the study link
	recruit *widget.Check
	// outCode and outURL are the screen-out code and link; maxEntrants caps the study link's
	// participants at work at once
	outCode, outURL, maxEntrants *widget.Entry
	toggle                       *widget.Button
	status                       *widget.Label
	study                        *widget.Entry

	code, doneURL *widget.Entry

	ids   *widget.Entry
	links []linkRow
	// copyAllBtn and exportBtn work once there are links
	copyAllBtn, exportBtn *widget.Button
	table                 *widget.Table
	cols                  *widgets.Columns

	// onUI runs f on the UI goroutine (fyne.Do; tests queue it).
	onUI func(f func())

	roster     []web.RosterEntry
	rosterTbl  *widget.Table
	rosterCols *widgets.Columns
	rosterNote *widget.Label
	// rosterEmpty says what the roster will show; on show, in the table's place, while nobody
	// has come. linksEmpty does the same for the links until there are some.
	rosterEmpty, linksEmpty *widget.Label
	rosterBody, linksBody   fyne.CanvasObject
	// side shows the roster, or the study link and the end of the study.
	side *container.AppTabs
}

type linkRow struct{ id, assignment, link string }

var (
	linkColumns = []widgets.Column{{Title: "participant", Min: 110}, {Title: "assignment", Min: 96, Optional: true},
		{Title: "link", Min: 200, Weight: 1}}
	rosterColumns = []widgets.Column{{Title: "participant", Min: 84, Weight: 1}, {Title: "online", Min: 60},
		{Title: "where", Min: 110, Weight: 2}, {Title: "screening", Min: 84, Optional: true}, {Title: "done", Min: 50},
		{Title: "via", Min: 56, Optional: true}, {Title: "last seen", Min: 80, Optional: true}}
)

func heading(s string) fyne.CanvasObject {
	return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
}

func newServeTab(w *Workspace, op *evalProject) *serveTab {
	t := &serveTab{ws: w, op: op, onUI: fyne.Do}
	t.addr = widget.NewEntry()
	t.addr.SetText(web.DefaultAddr)
	t.addr.OnChanged = func(string) { t.showReach() }
	t.public = widget.NewCheck("Allow other machines to connect", func(bool) { t.showReach() })
	t.url = widget.NewEntry()
	t.url.SetPlaceHolder("optional: the address of your tunnel or reverse proxy, https://…")
	t.reach = widget.NewLabel("")
	t.reach.Wrapping = fyne.TextWrapWord
	t.reach.Importance = widget.LowImportance
	t.toggle = widget.NewButtonWithIcon("Serve", theme.MediaPlayIcon(), t.serveOrStop)
	t.toggle.Importance = widget.HighImportance
	t.status = widget.NewLabel("")
	t.status.Wrapping = fyne.TextWrapWord
	t.status.Importance = widget.LowImportance
	t.study = widget.NewEntry()
	t.study.Disable()

	t.code = widget.NewEntry()
	t.code.SetText(op.p.Settings.CompletionCode)
	t.code.SetPlaceHolder("e.g. the study site's completion code")
	t.doneURL = widget.NewEntry()
	t.doneURL.SetText(op.p.Settings.CompletionURL)
	t.doneURL.SetPlaceHolder("optional: where participants go at the end, https://…")
	t.outCode = widget.NewEntry()
	t.outCode.SetText(op.p.Settings.ScreenOutCode)
	t.outCode.SetPlaceHolder("e.g. the study site's screened-out code")
	t.outURL = widget.NewEntry()
	t.outURL.SetText(op.p.Settings.ScreenOutURL)
	t.outURL.SetPlaceHolder("optional: where they go, https://…")
	t.maxEntrants = widget.NewEntry()
	if n := op.p.Settings.MaxEntrants; n > 0 {
		t.maxEntrants.SetText(strconv.Itoa(n))
	}
	t.maxEntrants.SetPlaceHolder("as many as the study has units")
	t.ids = widget.NewMultiLineEntry() // ids pasted one per line are taken as they are
	t.ids.SetPlaceHolder("participant ids, comma-separated or one per line")
	// A few rows: ids pasted one per line show as a list, a comma-separated list wraps.
	t.ids.SetMinRowsVisible(3)
	t.ids.Wrapping = fyne.TextWrapWord
	// The link column holds a copy button beside the (truncated) link: what the operator came
	// for is one click away; selecting the row shows the link whole.
	t.table = widget.NewTable(
		func() (int, int) { return len(t.links) + 1, t.cols.Len() },
		func() fyne.CanvasObject {
			return container.NewBorder(nil, nil, nil, widgets.NewTipButton("Copy this link", theme.ContentCopyIcon(), nil), truncLabel())
		},
		func(id widget.TableCellID, o fyne.CanvasObject) {
			c := o.(*fyne.Container)
			col := t.cols.Index(id.Col)
			c.Objects[0].(*widget.Label).SetText(t.linkCell(id.Row, col))
			b := c.Objects[1].(*widgets.TipButton)
			show := col == 2 && id.Row > 0 && id.Row-1 < len(t.links)
			b.OnTapped = nil
			if show {
				l := t.links[id.Row-1]
				b.Tip = "Copy " + l.id + "'s link"
				b.OnTapped = func() { t.copy(l.link) }
			}
			if show != b.Visible() {
				b.Hidden = !show
				c.Refresh() // lays the cell out again: a hidden button leaves the text its room
			} else if show {
				b.Refresh() // the table's refresh on a theme switch reaches the button only so
			}
		})
	t.cols = widgets.NewColumns(fitTitles(linkColumns), t.table)
	t.table.OnSelected = func(id widget.TableCellID) {
		t.table.UnselectAll()
		if id.Row > 0 && id.Row-1 < len(t.links) {
			t.linkActions(t.links[id.Row-1])
		}
	}

	t.rosterTbl = widget.NewTable(
		func() (int, int) { return len(t.roster) + 1, t.rosterCols.Len() },
		func() fyne.CanvasObject { return truncLabel() },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			o.(*widget.Label).SetText(t.rosterCell(id.Row, t.rosterCols.Index(id.Col)))
		})
	t.rosterCols = widgets.NewColumns(fitTitles(rosterColumns), t.rosterTbl)
	t.rosterNote = widget.NewLabel("Nobody has opened a link yet.")
	t.rosterNote.Importance = widget.LowImportance
	t.rosterEmpty = emptyNote("Once the study is served, everyone who opens their link shows here: " +
		"whether their browser is still there, where they are, their screening and the units they have done.")
	t.linksEmpty = emptyNote("Each participant's link shows here, with a button to copy it, once their ids are entered above and Make links is pressed.")

	makeLinks := widget.NewButtonWithIcon("Make links", theme.ContentAddIcon(), t.makeLinks)
	t.copyAllBtn = widget.NewButtonWithIcon("Copy all", theme.ContentCopyIcon(), t.copyAll)
	t.exportBtn = widget.NewButtonWithIcon("Export CSV…", theme.DocumentSaveIcon(), t.exportCSV)
	t.copyAllBtn.Disable() // until there are links
	t.exportBtn.Disable()
	copyStudy := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() { t.copy(t.study.Text) })
	t.recruit = widget.NewCheck("Take new participants through the study link", t.setRecruiting)
	if sv, err := t.ws.store.EvalServing(t.ws.ctx(), t.op.info.ID); err == nil {
		t.recruit.Checked = sv.Recruiting
	}
	evict := widget.NewButtonWithIcon("Evict everyone who came through it…", theme.CancelIcon(), t.confirmEvict)

	// The task at hand stays in view: the address and Serve (with what serving is doing) on
	// top, the participants' links and the roster side by side under it, each table with the
	// height left; the rarer settings (a tunnel's address, the end of the study) in a tab of
	// their own beside the roster.
	addrLabel := widget.NewLabelWithStyle("Address", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	bar := container.NewBorder(nil, nil, addrLabel, container.NewHBox(t.public, t.toggle), t.addr)
	top := container.NewVBox(bar, t.status, widget.NewSeparator())
	hint := widget.NewLabel("Select a row for the whole link, its QR code, or to revoke it.")
	hint.Importance = widget.LowImportance
	hint.Truncation = fyne.TextTruncateEllipsis
	links := container.NewBorder(
		container.NewVBox(heading("Participant links"),
			container.NewBorder(nil, nil, nil, container.NewVBox(makeLinks, t.copyAllBtn, t.exportBtn), t.ids), hint),
		nil, nil, nil, t.withEmpty(&t.linksBody, t.cols.Fit(), t.linksEmpty))
	roster := container.NewBorder(t.rosterNote, nil, nil, nil, t.withEmpty(&t.rosterBody, t.rosterCols.Fit(), t.rosterEmpty))
	saveEnd := widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), t.saveCompletion)
	end := widget.NewForm(widget.NewFormItem("Completion code", t.code), widget.NewFormItem("Send them to", t.doneURL))
	settings := container.NewVScroll(container.NewVBox(
		widget.NewForm(widget.NewFormItem("Links carry", t.url)), t.reach,
		widget.NewLabel("Study link, for crowdsourcing sites (they append each participant's id):"),
		container.NewBorder(nil, nil, nil, copyStudy, t.study),
		t.recruit, recruitHint(), widget.NewForm(widget.NewFormItem("At most, at once", t.maxEntrants)), container.NewHBox(evict),
		heading("At the end"), widget.NewLabel("Shown to a participant who has done some work and has nothing left:"),
		end, widget.NewLabel("Shown instead to a participant who failed screening or may not take part:"),
		widget.NewForm(widget.NewFormItem("Screen-out code", t.outCode), widget.NewFormItem("Send them to", t.outURL)),
		container.NewHBox(saveEnd)))
	t.side = container.NewAppTabs(container.NewTabItem("Roster", roster), container.NewTabItem("Study link and end", settings))
	split := container.NewHSplit(links, t.side)
	split.Offset = 0.5
	t.root = container.NewBorder(top, nil, nil, nil, split)
	t.showReach()
	t.refreshState()
	showEmpty(t.linksBody, t.linksEmpty, true)
	showEmpty(t.rosterBody, t.rosterEmpty, true)
	return t
}

// emptyNote is the text shown in an empty table's place: what will appear there.
func emptyNote(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	l.Alignment = fyne.TextAlignCenter
	l.Importance = widget.LowImportance
	return l
}

// withEmpty stacks a table (kept in *body) and the note shown in its place while it is empty.
func (t *serveTab) withEmpty(body *fyne.CanvasObject, table fyne.CanvasObject, note *widget.Label) fyne.CanvasObject {
	*body = table
	return container.NewStack(table, container.NewPadded(container.NewVBox(layout.NewSpacer(), note, layout.NewSpacer())))
}

// showEmpty shows the note in the table's place when empty, else the table.
func showEmpty(table fyne.CanvasObject, note *widget.Label, empty bool) {
	if empty {
		table.Hide()
		note.Show()
	} else {
		note.Hide()
		table.Show()
	}
}

func (t *serveTab) showReach() {
	addr := strings.TrimSpace(t.addr.Text)
	switch {
	case web.Loopback(addr):
		t.reach.SetText("Who can connect: " + web.Reach(addr) + ".")
	case t.public.Checked:
		t.reach.SetText("Who can connect: " + web.Reach(addr) + ".")
	default:
		t.reach.SetText("This address can be reached from other machines: tick Allow other machines to serve on it.")
	}
}

// refreshState shows whether this project (or another) is being served.
func (t *serveTab) refreshState() {
	s := t.ws.serving
	switch {
	case s == nil:
		t.toggle.SetText("Serve")
		t.toggle.SetIcon(theme.MediaPlayIcon())
		t.status.SetText("Not serving. Participants' answers are saved as they give them; a study served again resumes everyone where they stopped.")
		t.study.SetText("")
		t.addr.Enable()
		t.public.Enable()
		t.url.Enable()
	case s.op.info.ID != t.op.info.ID:
		t.toggle.SetText("Stop " + s.op.info.Name)
		t.toggle.SetIcon(theme.MediaStopIcon())
		t.status.SetText(fmt.Sprintf("Serving another project (%s) at %s; stop it to serve this one.", s.op.info.Name, s.base))
	default:
		t.toggle.SetText("Stop")
		t.toggle.SetIcon(theme.MediaStopIcon())
		t.status.SetText(fmt.Sprintf("Serving at %s. Closing Agentdesk stops the study; participants resume where they stopped when it is served again.", s.base))
		t.addr.Disable()
		t.public.Disable()
		t.url.Disable()
		if link, err := s.srv.StudyLink(t.ws.ctx()); err == nil {
			t.study.SetText(link)
		}
	}
}

func (t *serveTab) serveOrStop() {
	if t.ws.serving != nil {
		t.ws.stopServing()
		t.refreshState()
		return
	}
	addr := strings.TrimSpace(t.addr.Text)
	ln, err := web.Listen(addr, t.public.Checked)
	if errors.Is(err, syscall.EADDRINUSE) {
		t.offerFreePort(addr)
		return
	}
	if err != nil {
		t.ws.showError(err)
		return
	}
	base := web.BaseURL(ln, false, strings.TrimSpace(t.url.Text))
	s := &serving{op: t.op, addr: ln.Addr().String(), base: base, done: make(chan struct{}), changed: make(chan struct{}, 1)}
	srv, err := web.New(t.ws.ctx(), web.Options{Store: t.ws.store, Project: t.op.sp, BaseURL: base,
		OnChange: func() {
			select {
			case s.changed <- struct{}{}:
			default:
			}
		}})
	if err != nil {
		ln.Close()
		t.ws.showError(err)
		return
	}
	s.srv = srv
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	t.ws.serving = s
	go func() {
		defer close(s.done)
		if err := srv.Serve(ctx, ln, "", ""); err != nil && ctx.Err() == nil {
			t.onUI(func() { t.ws.showError(fmt.Errorf("serving the study stopped: %w", err)) })
		}
	}()
	go t.watchRoster(ctx, s)
	t.refreshState()
	if len(t.links) > 0 {
		t.makeLinks() // the links carry the address served
	}
}

// offerFreePort says that addr's port is taken and offers the next free one: one click serves
// there.
func (t *serveTab) offerFreePort(addr string) {
	host, port, _ := net.SplitHostPort(addr)
	free, err := nextFreePort(addr)
	msg := fmt.Sprintf("Port %s is already in use on %s: another program (or another Agentdesk) is listening there. "+
		"Stop that program and serve again, or serve on another port.", port, host)
	if err != nil {
		t.ws.showError(fmt.Errorf("%s No free port was found after it (%v); type another address.", msg, err))
		return
	}
	t.status.SetText(msg + " The next free port is " + free + ".")
	win := t.ws.host.Window()
	if win == nil {
		return
	}
	l := widget.NewLabel(msg)
	l.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm("Port "+port+" is in use", "Serve on "+free, "Cancel",
		container.NewGridWrap(fyne.NewSize(440, 110), l), func(ok bool) {
			if ok {
				t.addr.SetText(free)
				t.serveOrStop()
			}
		}, win)
	d.Show()
}

// nextFreePort is addr with the first port after its own that can be listened on (tried up to
// 100 ports on).
func nextFreePort(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return "", fmt.Errorf("port %q: %w", port, err)
	}
	for next := p + 1; next <= min(p+100, 65535); next++ {
		a := net.JoinHostPort(host, strconv.Itoa(next))
		if ln, err := net.Listen("tcp", a); err == nil {
			ln.Close()
			return a, nil
		}
	}
	return "", fmt.Errorf("ports %d-%d are all in use", p+1, min(p+100, 65535))
}

// RunningWork implements workspace.Running: a study served to participants stops when the app
// quits.
func (w *Workspace) RunningWork() string {
	if w.serving == nil {
		return ""
	}
	return fmt.Sprintf("Study “%s” is served to participants at %s: quitting stops serving it (their answers so far are saved).",
		w.serving.op.info.Name, w.serving.base)
}

// stopServing stops the study being served (answers in flight finish first).
func (w *Workspace) stopServing() {
	s := w.serving
	if s == nil {
		return
	}
	w.serving = nil
	s.cancel()
	<-s.done
}
