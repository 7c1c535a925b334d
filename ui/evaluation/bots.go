package evaluation

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// botKinds are the choices of the bot editor: the runnable kinds, and the imported ParlAI
// option string kept as it was (not runnable).
var botKinds = []string{string(ev.BotEcho), string(ev.BotExec), string(ev.BotHTTP), string(ev.BotParlAI)}

// botsEditor is the Project tab's editor of the project's bots (the model keys of its
// conversations-needed string): how each is run.
func (w *Workspace) botsEditor() fyne.CanvasObject {
	op := w.open
	if len(op.p.Bots) == 0 {
		return widget.NewLabel("This project uses no bots.")
	}
	keys := slices.Sorted(maps.Keys(op.p.Bots))
	status := widget.NewLabel("")
	status.Wrapping = fyne.TextWrapWord
	box := container.NewVBox()
	for _, key := range keys {
		box.Add(w.botForm(key, status))
	}
	box.Add(status)
	return box
}

// botForm is one bot's card in the editor.
func (w *Workspace) botForm(key string, status *widget.Label) fyne.CanvasObject {
	f := newBotFields(w.open.p.Bots[key])
	save := widget.NewButton("Save "+key, func() {
		s, err := f.spec()
		if err == nil {
			err = w.saveBot(key, s)
		}
		if err != nil {
			status.SetText(err.Error())
			return
		}
		f.base = s
		status.SetText(fmt.Sprintf("Saved bot %s (%s).", key, s.Kind))
	})
	return widget.NewCard(key, "", container.NewVBox(f.form, container.NewHBox(save)))
}

// botFields are the entries of a bot definition: the runnable kinds' settings (exec: command;
// http: URL, model, system prompt, temperature, API key variable; both: timeout).
type botFields struct {
	base                                      ev.BotSpec
	kind                                      *widget.Select
	command, url, model, prompt, temp, keyEnv *widget.Entry
	timeout                                   *widget.Entry
	form                                      *widget.Form
}

func newBotFields(spec ev.BotSpec) *botFields {
	entry := func(text, placeholder string) *widget.Entry {
		e := widget.NewEntry()
		e.SetText(text)
		e.SetPlaceHolder(placeholder)
		return e
	}
	f := &botFields{base: spec, kind: widget.NewSelect(botKinds, nil)}
	f.kind.SetSelected(string(spec.Kind))
	f.command = entry(strings.Join(spec.Command, " "), "exec: program and arguments, e.g. python3 bot.py")
	f.url = entry(spec.URL, "http: chat-completions URL, e.g. http://localhost:8000/v1/chat/completions")
	f.model = entry(spec.Model, "http: model name")
	f.prompt = widget.NewMultiLineEntry()
	f.prompt.SetText(spec.SystemPrompt)
	f.prompt.SetPlaceHolder("http: system prompt (optional)")
	f.prompt.SetMinRowsVisible(2)
	f.prompt.Wrapping = fyne.TextWrapWord
	f.temp = entry("", "http: temperature, e.g. 0.7 (empty: the server's default)")
	if spec.Temperature != 0 {
		f.temp.SetText(strconv.FormatFloat(spec.Temperature, 'g', -1, 64))
	}
	f.keyEnv = entry(spec.APIKeyEnv, "http: environment variable holding the API key (optional)")
	f.timeout = entry("", "60")
	if spec.TimeoutSeconds > 0 {
		f.timeout.SetText(strconv.Itoa(spec.TimeoutSeconds))
	}
	f.form = widget.NewForm(
		widget.NewFormItem("Kind", f.kind),
		widget.NewFormItem("Command", f.command),
		widget.NewFormItem("URL", f.url),
		widget.NewFormItem("Model", f.model),
		widget.NewFormItem("System prompt", f.prompt),
		widget.NewFormItem("Temperature", f.temp),
		widget.NewFormItem("API key variable", f.keyEnv),
		widget.NewFormItem("Timeout (s)", f.timeout),
	)
	if spec.Options != "" {
		opts := widget.NewLabel(spec.Options)
		opts.Wrapping = fyne.TextWrapWord
		f.form.Append("Original options", opts)
	}
	return f
}

// spec reads the entries back into a definition (the original's options kept).
func (f *botFields) spec() (ev.BotSpec, error) {
	s := f.base
	s.Kind = ev.BotKind(f.kind.Selected)
	s.Command = strings.Fields(f.command.Text)
	s.URL, s.Model, s.APIKeyEnv = strings.TrimSpace(f.url.Text), strings.TrimSpace(f.model.Text), strings.TrimSpace(f.keyEnv.Text)
	s.SystemPrompt = strings.TrimSpace(f.prompt.Text)
	s.Temperature, s.TimeoutSeconds = 0, 0
	if t := strings.TrimSpace(f.temp.Text); t != "" {
		v, err := strconv.ParseFloat(t, 64)
		if err != nil || v < 0 || v > 2 {
			return s, fmt.Errorf("the temperature is a number from 0 to 2, not %q", t)
		}
		s.Temperature = v
	}
	if t := strings.TrimSpace(f.timeout.Text); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil || n <= 0 {
			return s, fmt.Errorf("the timeout is a number of seconds, not %q", t)
		}
		s.TimeoutSeconds = n
	}
	return s, nil
}

// saveBot checks a bot definition (a runnable bot must start) and stores the project with it.
func (w *Workspace) saveBot(key string, spec ev.BotSpec) error {
	if spec.Kind != ev.BotParlAI {
		b, err := ev.NewBot(key, spec)
		if err != nil {
			return err
		}
		ev.CloseBot(b)
	}
	p := w.open.edited()
	p.Bots[key] = spec
	if err := w.saveDefinition(p); err != nil {
		return err
	}
	if w.session != nil {
		w.session.core.SetBot(key, nil) // the next reply starts the new definition
	}
	return nil
}
