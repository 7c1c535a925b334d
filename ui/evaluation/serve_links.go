package evaluation

import (
	"fmt"
	"image"
	"net"
	"strconv"
	"strings"

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
)

// The Serve tab's links: one per participant id (with the assignment each gets next), copied,
// exported as CSV, shown as a QR code or revoked; and the completion code shown at the end.

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
// the address on the form (links can be handed out before serving), which is never started.
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
	// Only its links are wanted: it serves nothing, so it gives back no units (a reclaiming
	// loop here would outlive the tab, and the store when it is closed).
	return web.New(t.ws.ctx(), web.Options{Store: t.ws.store, Project: t.op.sp, BaseURL: base, ReclaimEvery: -1})
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
	showEmpty(t.linksBody, t.linksEmpty, len(rows) == 0)
	t.table.Refresh()
	t.copyAllBtn.Enable()
	t.exportBtn.Enable()
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
	t.ws.askSavePath(fileSafe(t.op.info.Name)+"-links.csv", func(path string) {
		f, err := atomicfile.New(path, 0o600) // links are keys: readable by their owner only
		if err != nil {
			t.ws.showError(err)
			return
		}
		cw := ev.NewSafeCSVWriter(f)
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
	})
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

// saveCompletion stores the completion code and link in the project's definition.
func (t *serveTab) saveCompletion() {
	p := t.op.edited()
	p.Settings.CompletionCode = strings.TrimSpace(t.code.Text)
	p.Settings.CompletionURL = strings.TrimSpace(t.doneURL.Text)
	p.Settings.ScreenOutCode = strings.TrimSpace(t.outCode.Text)
	p.Settings.ScreenOutURL = strings.TrimSpace(t.outURL.Text)
	p.Settings.MaxEntrants = 0
	if n := strings.TrimSpace(t.maxEntrants.Text); n != "" {
		v, err := strconv.Atoi(n)
		if err != nil || v < 0 {
			t.ws.showError(fmt.Errorf("at most, at once: want a number of participants (empty: as many as the study has units), got %q", n))
			return
		}
		p.Settings.MaxEntrants = v
	}
	err := p.Validate()
	if err == nil {
		var config []byte
		if config, err = ev.MarshalDefinition(p); err == nil {
			err = t.ws.store.SetEvalProjectConfig(t.ws.ctx(), t.op.info.ID, string(config))
		}
	}
	if err != nil {
		t.ws.showError(err)
		return
	}
	t.op.set(p)
}
