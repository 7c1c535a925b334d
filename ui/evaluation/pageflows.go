package evaluation

import (
	"maps"
	"slices"
	"strconv"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/agentdesk/agentdesk/ui/widgets"
)

// A turn's questions: question flows with their click edits, label checkboxes, likert scales,
// help texts and the training's feedback on a turn.

// flowOpen says whether a turn's button_flow block is open: the original's rule (the engine's
// OpenBlocks: the last answered turn and the next one), and the turn the keyboard is on.
func (p *evalPage) flowOpen(pos int) bool {
	open := p.opened[pos] || p.focusedTurn() == pos
	for _, q := range ev.OpenBlocks(p.typ, p.ans, p.positions) {
		if q == pos {
			open = true
		}
	}
	if open {
		p.opened[pos] = true // it stays open: folding it would move what is below
	}
	return open
}

// flowObjects renders a question flow for one turn: radio questions as their (substituted)
// text and a radio group, checkbox questions as their answers only; a chosen answer's
// sub-flow appears indented below it.
func (p *evalPage) flowObjects(flow ev.Flow, ta ev.TurnAnswers, pos int, t ev.Turn) []fyne.CanvasObject {
	var out []fyne.CanvasObject
	for _, q := range flow {
		q := q
		if q.Checkbox {
			for _, a := range q.Answers {
				a := a
				chk := widget.NewCheck(p.words.TurnText(pos, a.Text), nil)
				chk.Checked = ta.String(q.Text) == a.Text
				chk.OnChanged = func(on bool) {
					kind := ev.ClickCheck
					if !on {
						kind = ev.ClickUncheck
					}
					p.flowClick(pos, t, ev.FlowClick{Kind: kind, Question: q.Text, Answer: a.Text})
				}
				p.disableUnlessEditable(pos, chk)
				p.choices[pos] = append(p.choices[pos], func() { chk.SetChecked(!chk.Checked) })
				out = append(out, chk)
				if chk.Checked && len(a.Sub) > 0 {
					out = append(out, container.NewBorder(nil, nil, indent(), nil,
						container.NewVBox(p.flowObjects(a.Sub, ta, pos, t)...)))
				}
			}
			continue
		}
		title := widget.NewLabelWithStyle(p.words.TurnText(pos, q.Text), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		title.Wrapping = fyne.TextWrapWord
		var head fyne.CanvasObject = title
		if p.typ.Display.HelpIcons() {
			help := widgets.NewTipButton("What this question means", theme.QuestionIcon(), func() { p.showHelp(pos, q.Text) })
			help.Importance = widget.LowImportance
			head = container.NewBorder(nil, nil, nil, help, title)
		}
		out = append(out, head)
		labels := make([]string, len(q.Answers))
		for i, a := range q.Answers {
			labels[i] = p.words.TurnText(pos, a.Text)
		}
		radio := widget.NewRadioGroup(labels, nil)
		chosen := ta.String(q.Text)
		var sub ev.Flow
		for i, a := range q.Answers {
			if a.Text == chosen {
				radio.Selected = labels[i]
				sub = a.Sub
			}
		}
		radio.OnChanged = func(label string) {
			for i, a := range q.Answers {
				if labels[i] == label {
					p.flowClick(pos, t, ev.FlowClick{Kind: ev.ClickRadio, Question: q.Text, Answer: a.Text})
					return
				}
			}
		}
		p.disableUnlessEditable(pos, radio)
		for _, l := range labels {
			p.choices[pos] = append(p.choices[pos], func() { radio.SetSelected(l) })
		}
		out = append(out, radio)
		if len(sub) > 0 {
			out = append(out, container.NewBorder(nil, nil, indent(), nil, container.NewVBox(p.flowObjects(sub, ta, pos, t)...)))
		}
	}
	return out
}

func (p *evalPage) disableUnlessEditable(pos int, w fyne.Disableable) {
	if !p.editable(pos) {
		w.Disable()
	}
}

// showHelp shows the help for one question: its own help text, else the type's description.
func (p *evalPage) showHelp(pos int, question string) {
	if p.win == nil {
		return
	}
	d := dialog.NewCustom(p.words.TurnText(pos, question), "Close", container.NewGridWrap(fyne.NewSize(480, 220),
		container.NewVScroll(p.helpLabel(pos, question))), p.win)
	d.Show()
}

// helpLabel is the help text of a question on turn pos, speakers named (session.Page.Help).
func (p *evalPage) helpLabel(pos int, question string) *widget.Label {
	q := ev.Question{Text: question}
	if f := p.typ.Flow.Find(question); f != nil {
		q = *f
	}
	l := widget.NewLabel(p.words.Help(pos, q))
	l.Wrapping = fyne.TextWrapWord
	return l
}

func (p *evalPage) flowClick(pos int, t ev.Turn, c ev.FlowClick) {
	p.edit(session.Edit{Turn: pos, Kind: session.EditFlow, Key: c.Question, Value: c.Answer, Click: c.Kind})
	p.focusTurnBy(pos, false)
	p.fillTurn(pos, t) // sub-flows appear or go (or the refused click is undone)
}

func (p *evalPage) toggleLabel(pos int, t ev.Turn, value string, on bool) {
	v := "off"
	if on {
		v = "on"
	}
	if !p.edit(session.Edit{Turn: pos, Kind: session.EditLabel, Key: value, Value: v}) {
		p.fillTurn(pos, t) // the refused tick is undone
	}
	p.focusTurnBy(pos, false)
}

// scaleRow is one 1-5 question: its text, the five choices in a row and the scale's anchors.
func (p *evalPage) scaleRow(turn, scale int, question, value string, set func(int)) fyne.CanvasObject {
	q := widget.NewLabel(question)
	q.Wrapping = fyne.TextWrapWord
	// The question keys 1-5 answer is framed; its text keeps its style, so that nothing
	// rewraps and moves when the focus moves on after an answer.
	frame := widgets.NewThemeFrame(2, theme.InputRadiusSize())
	slot := evalSlot{turn, scale}
	if p.focus < len(p.slots) && p.slots[p.focus] == slot {
		frame.Stroke = theme.ColorNamePrimary
	}
	radio := widget.NewRadioGroup(likertValues, nil)
	radio.Horizontal = true
	radio.Required = true // a second click on the answer keeps it (it is stored)
	radio.Selected = value
	radio.OnChanged = func(s string) {
		v, err := strconv.Atoi(s)
		if err != nil {
			return
		}
		for i, sl := range p.slots {
			if sl == slot {
				p.moveFocus(i, false)
			}
		}
		set(v)
	}
	p.scaleFrames[slot], p.scaleRadios[slot] = frame, radio
	if turn >= 0 {
		p.disableUnlessEditable(turn, radio)
	}
	row := container.NewVBox(q, radio)
	if a := anchors(p.typ.LabelDetails); a != "" {
		l := widget.NewLabel(a)
		l.Importance = widget.LowImportance
		l.Wrapping = fyne.TextWrapWord
		row.Add(l)
	}
	return container.NewStack(frame, row)
}

// anchors formats label_details as scale anchors: "1 = not at all · 5 = completely".
func anchors(details map[string]string) string {
	s := ""
	for _, k := range slices.Sorted(maps.Keys(details)) {
		if s != "" {
			s += " · "
		}
		s += k + " = " + details[k]
	}
	return s
}

// describeTruth writes a truth as the answers to give, in the words the page shows.
func (p *evalPage) describeTruth(t *ev.Truth, pos int) string {
	return session.DescribeTruth(p.typ, p.dp, t, pos)
}
