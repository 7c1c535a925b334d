package evaluation

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/evaluation/annotate"
	"github.com/agentdesk/agentdesk/engine/modelclient"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// modelRun is the Results tab's "Annotate with a model…": a form (server, model, units), then
// the run inline with its progress and Cancel; what the model answered is kept when it stops.
type modelRun struct {
	d      *evalDashboard
	btn    *widget.Button
	row    *fyne.Container
	status *widget.Label
	bar    *widget.ProgressBarInfinite
	cancel *widget.Button
	task   *workspace.Task
	// form's entries (the last values are offered again)
	url, model, units, account *widget.Entry
	key                        *widget.Select
	form                       dialog.Dialog
	// onDone, when set, runs after a run ended and the tab was refreshed (tests).
	onDone func(annotate.Result, error)
}

// annotateStore is what a model run needs of the store beyond the workspace's.
type annotateStore interface {
	annotate.Store
}

func newModelRun(d *evalDashboard) *modelRun {
	m := &modelRun{d: d}
	m.btn = widget.NewButtonWithIcon("Annotate with a model…", theme.ComputerIcon(), m.showForm)
	m.status = widget.NewLabel("")
	m.status.Truncation = fyne.TextTruncateEllipsis
	m.bar = widget.NewProgressBarInfinite()
	m.bar.Stop()
	m.cancel = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() {
		m.status.SetText("Cancelling: the answers given so far are kept…")
		m.task.Stop()
	})
	m.row = container.NewBorder(nil, nil, nil, container.NewHBox(container.NewGridWrap(fyne.NewSize(120, m.cancel.MinSize().Height), m.bar), m.cancel), m.status)
	m.row.Hide()
	m.url, m.model, m.units = widget.NewEntry(), widget.NewEntry(), widget.NewEntry()
	m.url.SetPlaceHolder("http://localhost:11434/v1")
	m.model.SetPlaceHolder("llama3.1:8b")
	m.units.SetPlaceHolder("all")
	m.account = widget.NewEntry()
	m.account.SetText("default")
	m.key = widget.NewSelect([]string{annotateKeyEnv, annotateKeyKeyring}, func(k string) {
		if k == annotateKeyKeyring {
			m.account.Enable()
		} else {
			m.account.Disable()
		}
	})
	m.key.SetSelected(annotateKeyEnv)
	return m
}

// Where the form takes the API key from: the environment (none set: no key, as local servers
// want), or the OS keyring's entry under service agentdesk and the account given.
var (
	annotateKeyEnv     = "Environment (" + "$" + strings.Join(modelclient.DefaultKeyEnv, ", $") + "), or none"
	annotateKeyKeyring = "OS keyring (service " + modelclient.KeyringService + ")"
)

// annotateKeyring is the keyring the form's keyring choice reads (tests put a MemoryKeyring here).
var annotateKeyring modelclient.Keyring = modelclient.SystemKeyring{}

// keySource is the form's choice of key.
func (m *modelRun) keySource() modelclient.KeySource {
	if m.key.Selected == annotateKeyKeyring {
		return modelclient.KeySource{Env: []string{}, Keyring: annotateKeyring, Account: strings.TrimSpace(m.account.Text), Required: true}
	}
	return modelclient.KeySource{}
}

// showForm asks for the server, the model and how many units.
func (m *modelRun) showForm() {
	win := m.d.ws.host.Window()
	if win == nil {
		return
	}
	note := widget.NewLabel("The model answers this project's units through the same pages as a person, screening included, " +
		"one request per page. Any OpenAI-compatible server: vLLM, Ollama, a hosted API. The API key is never stored.")
	note.Wrapping = fyne.TextWrapWord
	items := []*widget.FormItem{widget.NewFormItem("Server URL", m.url), widget.NewFormItem("Model", m.model),
		widget.NewFormItem("Units", m.units), widget.NewFormItem("API key", m.key), widget.NewFormItem("Keyring account", m.account)}
	m.form = dialog.NewCustomConfirm("Annotate with a model", "Start", "Cancel",
		container.NewBorder(container.NewGridWrap(fyne.NewSize(460, 90), note), nil, nil, nil, widget.NewForm(items...)),
		func(ok bool) {
			if ok {
				if err := m.start(); err != nil {
					workspace.ShowError(win, err)
				}
			}
		}, win)
	m.form.Show()
}

// start runs the model with the form's values.
func (m *modelRun) start() error {
	url, model := strings.TrimSpace(m.url.Text), strings.TrimSpace(m.model.Text)
	if url == "" || model == "" {
		return errors.New("give the server's URL and the model's name")
	}
	units := 0
	if s := strings.TrimSpace(m.units.Text); s != "" && s != "all" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return fmt.Errorf("units: %q is not a number of units (empty: all)", s)
		}
		units = n
	}
	st, ok := m.d.ws.store.(annotateStore)
	if !ok {
		return errors.New("this store cannot hold a model's answers")
	}
	const conc = 4
	cfg := modelclient.Config{BaseURL: url, Model: model, MaxTokens: 1024, Concurrency: conc, Timeout: 2 * time.Minute,
		Key: m.keySource()}
	if err := cfg.Validate(); err != nil { // the key is read in the run, off the UI goroutine
		return err
	}
	m.btn.Disable()
	m.row.Show()
	m.bar.Start()
	m.status.SetText("Starting " + model + "…")
	sp := m.d.op.sp
	m.task = workspace.Start(m.d.ws.host, nil, func(ctx context.Context) (annotate.Result, error) {
		client, err := modelclient.New(cfg)
		if err != nil {
			return annotate.Result{}, err
		}
		return annotate.Run(ctx, st, sp, client, annotate.Options{Model: model, URL: client.Endpoint(), Units: units, Ahead: conc,
			Progress: func(p annotate.Progress) {
				text := progressText(p)
				m.d.ws.host.Do(func() { m.status.SetText(text) })
			}})
	}, func(res annotate.Result, err error) {
		m.bar.Stop()
		m.btn.Enable()
		m.row.Show()
		switch {
		case errors.Is(err, context.Canceled):
			m.status.SetText("Cancelled. Kept: " + progressText(res.Progress) + ". Start again to continue.")
		case err != nil:
			m.status.SetText("Stopped: " + err.Error())
		case res.Refusal == "":
			m.status.SetText("Done: " + progressText(res.Progress) + ". Start again for more units.")
		default:
			m.status.SetText("Done: " + progressText(res.Progress) + ". " + res.Message)
		}
		m.cancel.Hide()
		m.d.reload()
		m.d.computeStats()
		if m.onDone != nil {
			m.onDone(res, err)
		}
	})
	if m.task != nil && m.btn.Disabled() {
		m.cancel.Show()
	}
	return nil
}

func progressText(p annotate.Progress) string {
	s := fmt.Sprintf("%s: %d units, %d pages, %d requests", p.Participant, p.Units+p.Golds, p.Pages, p.Requests)
	if p.Reasks > 0 {
		s += fmt.Sprintf(" (%d asked again)", p.Reasks)
	}
	if p.Screening != "" {
		s += ", screening " + p.Screening
	}
	return s
}
