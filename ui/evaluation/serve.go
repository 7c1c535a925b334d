package evaluation

import (
	"context"
	"encoding/csv"
	"fmt"
	"image"
	"net"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
	ev "github.com/agentdesk/agentdesk/engine/evaluation"
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
	toggle *widget.Button
	status *widget.Label
	study  *widget.Entry

	code, doneURL *widget.Entry

	ids   *widget.Entry
	links []linkRow
	table *widget.Table
	cols  *widgets.Columns

	// onUI runs f on the UI goroutine (fyne.Do; tests queue it).
	onUI func(f func())

	roster     []web.RosterEntry
	rosterTbl  *widget.Table
	rosterCols *widgets.Columns
	rosterNote *widget.Label
}

type linkRow struct{ id, assignment, link string }

var (
	linkColumns = []widgets.Column{{Title: "participant", Min: 110}, {Title: "assignment", Min: 96, Optional: true},
		{Title: "link", Min: 200, Weight: 1}}
	rosterColumns = []widgets.Column{{Title: "participant", Min: 110, Weight: 1}, {Title: "online", Min: 64},
		{Title: "where", Min: 180, Weight: 2}, {Title: "screening", Min: 84, Optional: true}, {Title: "done", Min: 56},
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
	t.study = widget.NewEntry()
	t.study.Disable()

	t.code = widget.NewEntry()
	t.code.SetText(op.p.Settings.CompletionCode)
	t.code.SetPlaceHolder("e.g. the study site's completion code")
	t.doneURL = widget.NewEntry()
	t.doneURL.SetText(op.p.Settings.CompletionURL)
	t.doneURL.SetPlaceHolder("optional: where participants go at the end, https://…")
	t.ids = widget.NewMultiLineEntry()
	t.ids.SetPlaceHolder("participant ids, one per line or comma-separated")
	t.ids.SetMinRowsVisible(3)
	t.table = widget.NewTable(
		func() (int, int) { return len(t.links) + 1, t.cols.Len() },
		func() fyne.CanvasObject { return truncLabel() },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			o.(*widget.Label).SetText(t.linkCell(id.Row, t.cols.Index(id.Col)))
		})
	t.cols = widgets.NewColumns(linkColumns, t.table)
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
	t.rosterCols = widgets.NewColumns(rosterColumns, t.rosterTbl)
	t.rosterNote = widget.NewLabel("Nobody has opened a link yet.")
	t.rosterNote.Importance = widget.LowImportance

	makeLinks := widget.NewButtonWithIcon("Make links", theme.ContentAddIcon(), t.makeLinks)
	copyAll := widget.NewButtonWithIcon("Copy all", theme.ContentCopyIcon(), t.copyAll)
	export := widget.NewButtonWithIcon("Export CSV…", theme.DocumentSaveIcon(), t.exportCSV)
	copyStudy := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() { t.copy(t.study.Text) })

	form := widget.NewForm(
		widget.NewFormItem("Address", t.addr),
		widget.NewFormItem("", t.public),
		widget.NewFormItem("Links carry", t.url),
	)
	saveEnd := widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), t.saveCompletion)
	end := widget.NewForm(widget.NewFormItem("Completion code", t.code), widget.NewFormItem("Send them to", t.doneURL))
	server := container.NewVBox(heading("Server"), form, t.reach, container.NewBorder(nil, nil, t.toggle, nil, t.status),
		widget.NewLabel("Study link, for crowdsourcing sites (they append each participant's id):"),
		container.NewBorder(nil, nil, nil, copyStudy, t.study),
		heading("At the end"), widget.NewLabel("Shown to a participant who has done some work and has nothing left:"),
		end, container.NewHBox(saveEnd))
	links := container.NewBorder(
		container.NewVBox(heading("Participant links"), t.ids,
			widget.NewLabel("Select a row to copy its link, show it as a QR code, or revoke it."),
			container.NewHBox(makeLinks, copyAll, export)),
		nil, nil, nil, t.cols.Fit())
	roster := container.NewBorder(container.NewVBox(heading("Roster"), t.rosterNote), nil, nil, nil, t.rosterCols.Fit())
	left := container.NewVSplit(container.NewVScroll(server), links)
	left.Offset = 0.45
	split := container.NewHSplit(left, roster)
	split.Offset = 0.45
	t.root = container.NewStack(split)
	t.showReach()
	t.refreshState()
	return t
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

// watchRoster reads the roster off the UI goroutine whenever a participant's page changes,
// and every second (connections come and go), and shows it.
func (t *serveTab) watchRoster(ctx context.Context, s *serving) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.changed:
		case <-tick.C:
		}
		roster, err := s.srv.Roster(ctx)
		if err != nil {
			continue
		}
		t.onUI(func() {
			if t.ws.serving != s {
				return
			}
			t.roster = roster
			t.rosterNote.SetText(rosterSummary(roster))
			t.rosterTbl.Refresh()
		})
	}
}

func rosterSummary(r []web.RosterEntry) string {
	if len(r) == 0 {
		return "Nobody has opened a link yet."
	}
	connected := 0
	for _, e := range r {
		if e.Connected {
			connected++
		}
	}
	return fmt.Sprintf("%s since the study started, %d connected now.", widgets.Plural(len(r), "participant"), connected)
}

func (t *serveTab) rosterCell(row, col int) string {
	if row == 0 {
		return rosterColumns[col].Title
	}
	if row-1 >= len(t.roster) {
		return ""
	}
	e := t.roster[row-1]
	switch col {
	case 0:
		return e.Name
	case 1:
		if e.Connected {
			return "yes"
		}
		return "no"
	case 2:
		where := e.Where
		if e.Unit != 0 && where != "finished" && where != "blocked" {
			where = fmt.Sprintf("unit %d, %s", e.Unit, where)
		}
		if e.Error != "" {
			where += " (problem: " + e.Error + ")"
		}
		return where
	case 3:
		return e.Screening
	case 4:
		return fmt.Sprint(e.Done)
	case 5:
		return e.Via
	case 6:
		return e.LastSeen.Format("15:04:05")
	}
	return ""
}

func (t *serveTab) linkCell(row, col int) string {
	if row == 0 {
		return linkColumns[col].Title
	}
	if row-1 >= len(t.links) {
		return ""
	}
	l := t.links[row-1]
	switch col {
	case 0:
		return l.id
	case 1:
		if l.assignment == "" {
			return "none left"
		}
		return l.assignment
	case 2:
		return l.link
	}
	return ""
}

// linkServer is the server links are made with: the one serving this project, or one made for
// the address on the form (links can be handed out before serving).
func (t *serveTab) linkServer() (*web.Server, error) {
	if s := t.ws.serving; s != nil && s.op.info.ID == t.op.info.ID {
		return s.srv, nil
	}
	addr := strings.TrimSpace(t.addr.Text)
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("address %q: give HOST:PORT, e.g. %s", addr, web.DefaultAddr)
	}
	base := strings.TrimSpace(t.url.Text)
	if base == "" {
		base = "http://" + addr
	}
	return web.New(t.ws.ctx(), web.Options{Store: t.ws.store, Project: t.op.sp, BaseURL: base})
}

func splitIDs(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' || r == '\t' }) {
		f = strings.TrimSpace(f)
		if f != "" && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

// makeLinks makes a link for every id on the form, with the assignment each would get next.
func (t *serveTab) makeLinks() {
	ids := splitIDs(t.ids.Text)
	if len(ids) == 0 {
		t.ws.showError(fmt.Errorf("enter participant ids first"))
		return
	}
	srv, err := t.linkServer()
	if err != nil {
		t.ws.showError(err)
		return
	}
	var rows []linkRow
	for _, id := range ids {
		a, err := srv.NextAssignment(t.ws.ctx(), id)
		if err != nil {
			t.ws.showError(err)
			return
		}
		link, err := srv.Link(t.ws.ctx(), id, a)
		if err != nil {
			t.ws.showError(err)
			return
		}
		rows = append(rows, linkRow{id, a, link})
	}
	t.links = rows
	t.table.Refresh()
}

func (t *serveTab) copy(s string) {
	if s == "" {
		return
	}
	fyne.CurrentApp().Clipboard().SetContent(s)
}

func (t *serveTab) copyAll() {
	var b strings.Builder
	for _, l := range t.links {
		b.WriteString(l.link + "\n")
	}
	t.copy(b.String())
}

// exportCSV writes participant, assignment, link rows.
func (t *serveTab) exportCSV() {
	if len(t.links) == 0 {
		t.ws.showError(fmt.Errorf("make the links first"))
		return
	}
	save := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			t.ws.showError(err)
			return
		}
		path := w.URI().Path()
		w.Close()
		f, err := atomicfile.New(path, 0o600) // links are keys: readable by their owner only
		if err != nil {
			t.ws.showError(err)
			return
		}
		cw := csv.NewWriter(f)
		cw.Write([]string{"participant", "assignment", "link"})
		for _, l := range t.links {
			cw.Write([]string{l.id, l.assignment, l.link})
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			f.Abort()
			t.ws.showError(err)
			return
		}
		if err := f.Commit(); err != nil {
			t.ws.showError(err)
		}
	}, t.ws.host.Window())
	save.SetFileName(fileSafe(t.op.info.Name) + "-links.csv")
	save.Show()
}

// linkActions offers a link's actions: copy, QR code, revoke.
func (t *serveTab) linkActions(l linkRow) {
	win := t.ws.host.Window()
	if win == nil {
		return
	}
	var d dialog.Dialog
	qr := qrImage(l.link)
	text := widget.NewLabel(l.link)
	text.Wrapping = fyne.TextWrapBreak
	copyBtn := widget.NewButtonWithIcon("Copy link", theme.ContentCopyIcon(), func() { t.copy(l.link) })
	revoke := widget.NewButtonWithIcon("Revoke", theme.DeleteIcon(), func() {
		d.Hide()
		dialog.ShowConfirm("Revoke "+l.id+"'s link?", "The link stops working at once; their answers are kept. A new link can be made for them.", func(ok bool) {
			if !ok {
				return
			}
			srv, err := t.linkServer()
			if err == nil {
				err = srv.Revoke(t.ws.ctx(), l.id)
			}
			if err != nil {
				t.ws.showError(err)
				return
			}
			t.makeLinks()
		}, win)
	})
	revoke.Importance = widget.DangerImportance
	content := container.NewVBox(container.NewCenter(qr), text, container.NewHBox(copyBtn, revoke))
	d = dialog.NewCustom("Link for "+l.id, "Close", container.NewGridWrap(fyne.NewSize(420, 420), content), win)
	d.Show()
}

// qrImage draws a link as a QR code.
func qrImage(link string) fyne.CanvasObject {
	q, err := qrcode.New(link, qrcode.Medium)
	var img image.Image
	if err == nil {
		img = q.Image(256)
	}
	c := canvas.NewImageFromImage(img)
	c.FillMode = canvas.ImageFillContain
	c.ScaleMode = canvas.ImageScalePixels
	c.SetMinSize(fyne.NewSize(220, 220))
	return c
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

// saveCompletion stores the completion code and link in the project's definition.
func (t *serveTab) saveCompletion() {
	p := t.op.edited()
	p.Settings.CompletionCode = strings.TrimSpace(t.code.Text)
	p.Settings.CompletionURL = strings.TrimSpace(t.doneURL.Text)
	err := p.Validate()
	if err == nil {
		var config []byte
		if config, err = ev.MarshalProject(p); err == nil {
			err = t.ws.store.SetEvalProjectConfig(t.ws.ctx(), t.op.info.ID, string(config))
		}
	}
	if err != nil {
		t.ws.showError(err)
		return
	}
	t.op.set(p)
}
