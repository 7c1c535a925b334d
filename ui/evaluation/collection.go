package evaluation

import (
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// collectionForm is the new dialogue-collection project form on show (tests fill it in).
type collectionForm struct {
	dialog *dialog.CustomDialog
	create *widget.Button
	status *widget.Label
	// help says how a session runs
	help *widget.Label

	name                 *widget.Entry
	bots                 []*botRow
	botBox               *fyne.Container
	perSession           *widget.RadioGroup
	sessions, conditions *widget.Entry
	defaultConds         *widget.Label
	numTurns, seconds    *widget.Entry
	dims                 []*widget.Check
	dimStems             []string
	compare              *widget.Check
	online               *widget.Select
	onlineStems          []string
	includePersona       *widget.Check
	personas             *widget.Entry
	// addBot adds a bot row; refresh checks the form (lastErr) and updates what depends on it.
	addBot                      func(key string, spec ev.BotSpec)
	refresh                     func()
	lastErr                     error
	onlineNone, oneBot, twoBots string
}

// botRow is one bot of the form: its model key, how it runs, and its command or URL.
type botRow struct {
	key    *widget.Entry
	kind   *widget.Select
	target *widget.Entry
	row    fyne.CanvasObject
}

// spec is the row's bot definition (an http bot's model name is its key).
func (r *botRow) spec() ev.BotSpec {
	key, target := strings.TrimSpace(r.key.Text), strings.TrimSpace(r.target.Text)
	switch ev.BotKind(r.kind.Selected) {
	case ev.BotExec:
		return ev.BotSpec{Kind: ev.BotExec, Command: strings.Fields(target)}
	case ev.BotHTTP:
		return ev.BotSpec{Kind: ev.BotHTTP, URL: target, Model: key}
	}
	return ev.BotSpec{Kind: ev.BotEcho}
}

var runnableKinds = []string{string(ev.BotEcho), string(ev.BotExec), string(ev.BotHTTP)}

func targetPlaceholder(kind string) string {
	switch ev.BotKind(kind) {
	case ev.BotExec:
		return "program and arguments, e.g. python3 bot.py"
	case ev.BotHTTP:
		return "chat-completions URL (the model name is the bot's name)"
	}
	return "the built-in echo bot needs nothing"
}

// showCollectionForm asks for a new dialogue-collection project: the bots, the sessions
// wanted, the message cap and the ratings after each conversation.
func (w *Workspace) showCollectionForm() {
	f := &collectionForm{onlineNone: "none", oneBot: "1 bot per session", twoBots: "2 bots per session (paired)"}
	f.name = widget.NewEntry()
	f.name.SetPlaceHolder("e.g. chat-october")
	f.botBox = container.NewVBox()
	f.addBot = func(key string, spec ev.BotSpec) {
		r := &botRow{key: widget.NewEntry(), kind: widget.NewSelect(runnableKinds, nil), target: widget.NewEntry()}
		r.key.SetText(key)
		r.key.SetPlaceHolder("name, e.g. botA")
		target := strings.Join(spec.Command, " ")
		if spec.Kind == ev.BotHTTP {
			target = spec.URL
		}
		r.target.SetText(target)
		r.kind.OnChanged = func(k string) { r.target.SetPlaceHolder(targetPlaceholder(k)) }
		r.kind.SetSelected(string(spec.Kind))
		var remove *widgets.TipButton
		remove = widgets.NewTipButton("Remove this bot", theme.DeleteIcon(), func() {
			for i, b := range f.bots {
				if b == r {
					f.bots = append(f.bots[:i:i], f.bots[i+1:]...)
				}
			}
			f.botBox.Remove(r.row)
			f.refresh()
		})
		r.key.OnChanged = func(string) { f.refresh() }
		r.row = container.NewBorder(nil, nil, container.NewHBox(container.NewGridWrap(fyne.NewSize(120, r.key.MinSize().Height), r.key), r.kind), remove, r.target)
		f.bots = append(f.bots, r)
		f.botBox.Add(r.row)
	}
	f.addBot("botA", ev.BotSpec{Kind: ev.BotEcho})
	f.addBot("botB", ev.BotSpec{Kind: ev.BotEcho})
	addBtn := widget.NewButtonWithIcon("Add a bot", theme.ContentAddIcon(), func() {
		f.addBot(fmt.Sprintf("bot%c", 'A'+len(f.bots)%26), ev.BotSpec{Kind: ev.BotEcho})
		f.refresh()
	})
	f.perSession = widget.NewRadioGroup([]string{f.oneBot, f.twoBots}, nil)
	f.perSession.SetSelected(f.oneBot)
	f.sessions = widget.NewEntry()
	f.sessions.SetText("10")
	f.conditions = widget.NewEntry()
	f.conditions.SetPlaceHolder("empty: the default below; or e.g. botA:20,botB:10 (paired: botA|botB:20)")
	f.defaultConds = widget.NewLabel("")
	f.defaultConds.Wrapping = fyne.TextWrapWord
	f.defaultConds.Importance = widget.LowImportance
	f.numTurns = widget.NewEntry()
	f.numTurns.SetText("6")
	f.seconds = widget.NewEntry()
	f.seconds.SetText("180")
	cat, err := ev.Catalogue()
	if err != nil {
		w.showError(err)
		return
	}
	grid := container.NewGridWithColumns(3)
	f.onlineStems = nil
	online := []string{f.onlineNone}
	for _, d := range cat.Dimensions {
		c := widget.NewCheck(d.Label, nil)
		c.SetChecked(d.Stem == "quality")
		f.dims = append(f.dims, c)
		f.dimStems = append(f.dimStems, d.Stem)
		grid.Add(c)
		online = append(online, d.Label)
		f.onlineStems = append(f.onlineStems, d.Stem)
	}
	f.compare = widget.NewCheck("With two bots, also compare the two conversations", nil)
	f.compare.SetChecked(true)
	f.online = widget.NewSelect(online, nil)
	f.online.SetSelected(f.onlineNone)
	f.includePersona = widget.NewCheck("Personas for bots named …blender…", nil)
	f.personas = widget.NewMultiLineEntry()
	f.personas.SetPlaceHolder("Persona sets: one sentence per line, a blank line between sets (each session draws one)")
	f.personas.SetMinRowsVisible(3)
	f.status = widget.NewLabel("")
	f.status.Wrapping = fyne.TextWrapWord
	f.status.Importance = widget.DangerImportance

	// Two columns, so that the whole form fits a 1024x700 screen without scrolling: the bots
	// and the sessions on the left, what participants rate and the personas on the right.
	sessionsForm := widget.NewForm(
		widget.NewFormItem("Name", f.name),
		widget.NewFormItem("Bots", container.NewVBox(f.botBox, container.NewHBox(addBtn))),
		widget.NewFormItem("Sessions", f.perSession),
		widget.NewFormItem("Per condition", f.sessions),
		widget.NewFormItem("Conditions", container.NewVBox(f.conditions, f.defaultConds)),
		widget.NewFormItem("Message cap", container.NewBorder(nil, nil, nil,
			container.NewHBox(widget.NewLabel("seconds per message"), container.NewGridWrap(fyne.NewSize(80, f.seconds.MinSize().Height), f.seconds)),
			f.numTurns)),
	)
	ratingsForm := container.NewVBox(
		heading("Rate after each chat, 1-5"), grid, f.compare,
		container.NewBorder(nil, nil, heading("Under every reply"), nil, f.online),
		heading("Persona"), f.includePersona, f.personas)
	form := container.NewBorder(nil, nil, nil, ratingsForm, sessionsForm)
	help := widget.NewLabel("A participant chats with the bots of one condition, one after the other; each conversation opens with \"Hi!\" " +
		"and the text box closes at the message cap (the opening \"Hi!\" and the bot's first reply count). After each conversation come its " +
		"ratings, 1-5 per chosen dimension. Bots can be changed later in the Project tab.")
	f.help = help
	f.create = widget.NewButtonWithIcon("Create", theme.ConfirmIcon(), func() {
		c, err := f.choice()
		if err == nil {
			var p *ev.Project
			if p, err = c.Project(); err == nil {
				w.create(c.Name, "created", "", p, "", func(_ int64, err error) {
					if err == nil && f.dialog != nil {
						f.dialog.Hide()
					}
				})
				return
			}
		}
		f.lastErr = err
		f.showStatus(err.Error())
	})
	f.create.Importance = widget.HighImportance
	f.refresh = func() {
		c, err := f.choice()
		if err == nil {
			_, err = c.Project()
		}
		f.lastErr = err
		n := max(atoiOr(f.sessions.Text, 1), 1)
		var keys []string
		for _, b := range f.bots {
			keys = append(keys, strings.TrimSpace(b.key.Text))
		}
		if d := ev.DefaultConditions(keys, c.NumBots, n); d != "" {
			f.defaultConds.SetText("Default: " + d)
		} else {
			f.defaultConds.SetText("Default: none (paired sessions need two bots)")
		}
		if err != nil {
			f.showStatus(err.Error())
		} else {
			f.showStatus("")
		}
		if strings.TrimSpace(f.name.Text) == "" || len(f.bots) == 0 {
			f.create.Disable()
		} else {
			f.create.Enable()
		}
	}
	for _, e := range []*widget.Entry{f.name, f.sessions, f.conditions, f.numTurns, f.seconds} {
		e.OnChanged = func(string) { f.refresh() }
	}
	f.perSession.OnChanged = func(string) { f.refresh() }
	f.refresh()
	w.collectionForm = f
	if w.host.Window() == nil {
		return
	}
	cancel := widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() { f.dialog.Hide() })
	f.dialog = dialog.NewCustomWithoutButtons("New dialogue-collection project",
		workspace.Scrolled(w.host.Window(), container.NewVBox(form, f.status, wrappedAt(help, form.MinSize().Width))), w.host.Window())
	f.dialog.SetButtons([]fyne.CanvasObject{cancel, f.create})
	workspace.Resize(f.dialog, w.host.Window(), fyne.NewSize(max(form.MinSize().Width+80, 1000), f.dialog.MinSize().Height)) // the bots' commands get the room left
	f.dialog.Show()
}

// showStatus says what is wrong with the form; the line takes no room while all is well.
func (f *collectionForm) showStatus(s string) {
	f.status.SetText(s)
	if s == "" {
		f.status.Hide()
	} else {
		f.status.Show()
	}
}

func atoiOr(s string, def int) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return def
	}
	return n
}

// choice reads the form.
func (f *collectionForm) choice() (ev.CollectionChoice, error) {
	c := ev.CollectionChoice{Name: strings.TrimSpace(f.name.Text), Bots: map[string]ev.BotSpec{}, NumBots: 1,
		ConversationsNeeded: strings.TrimSpace(f.conditions.Text), Compare: f.compare.Checked, IncludePersona: f.includePersona.Checked}
	if f.perSession.Selected == f.twoBots {
		c.NumBots = 2
	}
	for _, b := range f.bots {
		key := strings.TrimSpace(b.key.Text)
		if _, dup := c.Bots[key]; dup {
			return c, fmt.Errorf("two bots are called %q", key)
		}
		c.Bots[key] = b.spec()
		c.BotOrder = append(c.BotOrder, key)
	}
	var err error
	num := func(e *widget.Entry, what string, lo int) int {
		n, perr := strconv.Atoi(strings.TrimSpace(e.Text))
		if (perr != nil || n < lo) && err == nil {
			err = fmt.Errorf("%s: a whole number of at least %d, not %q", what, lo, e.Text)
		}
		return n
	}
	c.SessionsPerCondition = num(f.sessions, "sessions per condition", 1)
	c.NumTurns = num(f.numTurns, "message cap", 2)
	c.MaxResponseSeconds = num(f.seconds, "seconds per message", 0)
	for i, d := range f.dims {
		if d.Checked {
			c.Dimensions = append(c.Dimensions, f.dimStems[i])
		}
	}
	if i := f.online.SelectedIndex(); i > 0 {
		c.Online = f.onlineStems[i-1]
	}
	if strings.TrimSpace(f.personas.Text) != "" {
		sets, perr := ev.ParsePersonas([]byte(f.personas.Text))
		if perr != nil && err == nil {
			err = perr
		}
		c.Personas = sets
	}
	return c, err
}
