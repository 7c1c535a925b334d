package explorer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/modelclient"
	"github.com/agentdesk/agentdesk/engine/odyssey"
	"github.com/agentdesk/agentdesk/engine/odyssey/predict"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Run a model…: a model (any OpenAI-compatible chat-completions server) answers a split's test
// records; the predictions are then scored and saved as a scoring run like a file chosen by hand.

// Key sources offered in the form.
const (
	keyNone    = "No key (a local server)"
	keyEnv     = "Environment ($AGENTDESK_API_KEY, $OPENAI_API_KEY)"
	keyKeyring = "OS keyring (service agentdesk)"
)

// modelForm is the form's fields.
type modelForm struct {
	url, model, account, conc, hisLen, out *widget.Entry
	key, split, level                      *widget.Select
}

// keyringFor is the keyring the form's keyring choice reads (tests put a MemoryKeyring here).
var keyringFor modelclient.Keyring = modelclient.SystemKeyring{}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// defaultPredictionsPath is where a run's predictions go unless the form says otherwise.
func defaultPredictionsPath(model, level, split string) string {
	dir, err := os.UserHomeDir()
	if err != nil {
		dir = os.TempDir()
	}
	name := unsafeName.ReplaceAllString(model, "_")
	return filepath.Join(dir, "agentdesk-predictions", fmt.Sprintf("%s_%s_%s.json", name, level, split))
}

func newModelForm(s *explorerScoring) *modelForm {
	f := &modelForm{url: widget.NewEntry(), model: widget.NewEntry(), account: widget.NewEntry(), conc: widget.NewEntry(),
		hisLen: widget.NewEntry(), out: widget.NewEntry()}
	f.url.SetPlaceHolder("http://localhost:8000/v1")
	f.model.SetPlaceHolder("the server's model name")
	f.account.SetText("default")
	f.conc.SetText(strconv.Itoa(predict.DefaultConcurrency))
	f.hisLen.SetText(strconv.Itoa(predict.DefaultHisLen))
	f.key = widget.NewSelect([]string{keyNone, keyEnv, keyKeyring}, func(k string) {
		if k == keyKeyring {
			f.account.Enable()
		} else {
			f.account.Disable()
		}
	})
	f.key.SetSelected(keyNone)
	f.split = widget.NewSelect(s.split.Options, nil)
	f.split.SetSelected(s.split.Selected)
	f.level = widget.NewSelect([]string{odyssey.LevelHigh, odyssey.LevelLow}, nil)
	f.level.SetSelected(s.level.Selected)
	suggest := func() {
		if f.model.Text != "" && f.split.Selected != "" {
			f.out.SetText(defaultPredictionsPath(f.model.Text, f.level.Selected, f.split.Selected))
		}
	}
	f.model.OnChanged = func(string) { suggest() }
	f.split.OnChanged = func(string) { suggest() }
	f.level.OnChanged = func(string) { suggest() }
	return f
}

// config checks the form and makes the client's configuration.
func (f *modelForm) config() (modelclient.Config, int, error) {
	conc, err := strconv.Atoi(strings.TrimSpace(f.conc.Text))
	if err != nil || conc < 1 || conc > 1024 {
		return modelclient.Config{}, 0, errors.New("concurrency must be a number from 1 to 1024")
	}
	his, err := strconv.Atoi(strings.TrimSpace(f.hisLen.Text))
	if err != nil || his < 0 {
		return modelclient.Config{}, 0, errors.New("history length must be 0 (all) or more")
	}
	if f.split.Selected == "" {
		return modelclient.Config{}, 0, errors.New("choose a split")
	}
	if strings.TrimSpace(f.out.Text) == "" {
		return modelclient.Config{}, 0, errors.New("choose where the predictions go")
	}
	key := modelclient.KeySource{Env: []string{}} // none
	switch f.key.Selected {
	case keyEnv:
		key = modelclient.KeySource{Required: true}
	case keyKeyring:
		key = modelclient.KeySource{Env: []string{}, Keyring: keyringFor, Account: strings.TrimSpace(f.account.Text), Required: true}
	}
	cfg := modelclient.Config{BaseURL: strings.TrimSpace(f.url.Text), Model: strings.TrimSpace(f.model.Text),
		MaxTokens: predict.DefaultMaxTokens, Timeout: predict.DefaultTimeout, Concurrency: conc, Key: key}
	// the URL and the model name; the key is read by the run, off the UI goroutine
	if err := cfg.Validate(); err != nil {
		return modelclient.Config{}, 0, err
	}
	return cfg, his, nil
}

// modelDialog shows the form; Run starts the run.
func (s *explorerScoring) modelDialog() {
	w := s.x.host.Window()
	if w == nil {
		return
	}
	f := newModelForm(s)
	s.lastForm = f
	errL := widget.NewLabel("")
	errL.Importance = widget.DangerImportance
	errL.Wrapping = fyne.TextWrapWord
	errL.Hide()
	items := []*widget.FormItem{
		widget.NewFormItem("Server URL", f.url), widget.NewFormItem("Model", f.model),
		widget.NewFormItem("API key", f.key), widget.NewFormItem("Keyring account", f.account),
		widget.NewFormItem("Split", f.split), widget.NewFormItem("Prompt level", f.level),
		widget.NewFormItem("History length", f.hisLen), widget.NewFormItem("Requests at once", f.conc),
		widget.NewFormItem("Predictions file", f.out),
	}
	var d *dialog.CustomDialog
	run := widget.NewButton("Run", nil)
	run.Importance = widget.HighImportance
	run.OnTapped = func() {
		cfg, his, err := f.config()
		if err != nil {
			errL.SetText(err.Error())
			errL.Show()
			return
		}
		d.Hide()
		s.runModel(cfg, f.split.Selected, f.level.Selected, his, strings.TrimSpace(f.out.Text))
	}
	s.modelRunB = run
	form := widget.NewForm(items...)
	body := container.NewVBox(widget.NewLabel("Each test record of the split is sent to the model, as the official evaluation asks its own model;\nthe predictions are then scored and saved as a run. Running the same model into the same file again resumes."),
		form, errL)
	d = dialog.NewCustom("Run a model", "Close", container.NewVBox(body, container.NewHBox(run)), w)
	d.Resize(fyne.NewSize(720, 560))
	d.Show()
}

// runModel runs the model behind a progress dialog with Cancel, then scores the file it wrote
// with the tab's mode and saves the run (Score's own path).
func (s *explorerScoring) runModel(cfg modelclient.Config, split, level string, hisLen int, out string) *workspace.Task {
	st := s.x.st
	s.setOutcome(fmt.Sprintf("Running %s over %s…", cfg.Model, split), widget.MediumImportance)
	return s.x.runJob("Run "+cfg.Model, func(ctx context.Context, report workspace.Progress) (string, error) {
		report(0, "Starting…")
		return st.PredictSplit(ctx, split, level, hisLen, out, cfg, func(p predict.Progress) {
			frac := 0.0
			if p.Total > 0 {
				frac = float64(p.Done) / float64(p.Total)
			}
			report(frac, fmt.Sprintf("%d/%d records · %d in flight · %d errors · %d tokens · mean latency %s",
				p.Done, p.Total, p.Stats.InFlight, p.Errors, p.Stats.PromptTokens+p.Stats.CompletionTokens,
				p.Stats.MeanLatency().Round(time.Millisecond)))
		})
	}, func(msg string, err error) {
		switch {
		case errors.Is(err, context.Canceled):
			s.setOutcome("Cancelled: the answers received are kept; Run a model… with the same settings resumes. "+msg, widget.WarningImportance)
			return
		case err != nil:
			s.setOutcome("The model run did not finish: "+err.Error(), widget.DangerImportance)
			return
		}
		s.setPath(out) // first: it picks a split from the file's name, the run's own wins
		s.split.SetSelected(split)
		s.level.SetSelected(level)
		s.lenientOnAbort = true
		s.score()
	})
}
