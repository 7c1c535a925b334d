package evaluation

import (
	"fmt"
	"image/color"
	"slices"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/ui/widgets"
)

// likertValues are the choices of every 1-5 scale.
var likertValues = []string{"1", "2", "3", "4", "5"}

// evalPage is one page of a session: one dialogue (a pair for comparative types) with the
// widgets of one annotation type. It edits the dialogue's answer object in place and reports
// every change as a session.Edit through onEdit, which applies and saves it at once.
type evalPage struct {
	win        fyne.Window
	dp         *ev.Datapoint
	typ        *ev.AnnotationType
	ans        *ev.Answers
	positions  []int
	collection bool
	// words are the page's texts as the engine words them (types and speakers named).
	words *session.Page

	// onEdit applies an answer (the session validates it, changes ans and saves it); it
	// reports whether the answer was taken.
	onEdit func(e session.Edit) bool
	// onFocus is called when the keyboard focus moves to another turn.
	onFocus func(turn int)
	// refocus gives the keyboard back to the session after a click on a widget that is not
	// an answer (help, correct selection, a collapsed block).
	refocus func()

	// Feedback on a training dialogue: the turns to correct (only they are editable), their
	// explanations and the truth shown as "correct selection".
	feedback     map[int]bool
	explanations map[int]string
	corrections  map[int]*ev.Truth

	slots []evalSlot // what the keyboard walks through, in order
	// choices are, per turn, the answers keys 1-9 give: each checkbox and each radio option
	// on show, in display order.
	choices map[int][]func()
	focus   int // index in slots
	boxes   map[int]*fyne.Container
	frames  map[int]*widgets.ThemeFill
	// bubbles are the annotatable turns' messages (the turn being rated).
	bubbles map[int]fyne.CanvasObject
	// scaleFrames and scaleRadios are the 1-5 questions on show: the frame marking the one the
	// keys answer, and its choices.
	scaleFrames map[evalSlot]*widgets.ThemeFill
	scaleRadios map[evalSlot]*widget.RadioGroup
	// firstTurn is the dialogue's first message (what a dialogue-level page rates starts there).
	firstTurn fyne.CanvasObject
	// opened are the button_flow blocks opened on this page: they stay open, so that
	// answering a later turn never folds a block above it (the list would jump).
	opened map[int]bool
	scroll *container.Scroll
	// panel is the side panel's scroll, which holds dialogueBox (set by the session).
	panel *container.Scroll
	// dialogueBox holds the dialogue-level widget (Likert, comparative, ratings).
	dialogueBox *fyne.Container
}

// evalSlot is one keyboard stop: a turn (or -1 for the dialogue) and, for scales, which one.
type evalSlot struct {
	turn  int
	scale int // index in the type's scales/choices; -1 when the slot is the whole turn
}

func newEvalPage(win fyne.Window, dp *ev.Datapoint, typ *ev.AnnotationType, ans *ev.Answers, collection bool) *evalPage {
	p := &evalPage{win: win, dp: dp, typ: typ, ans: ans, collection: collection,
		words: &session.Page{Datapoint: dp, Type: typ, Answers: ans, Collection: collection, Feedback: -1},
		boxes: map[int]*fyne.Container{}, frames: map[int]*widgets.ThemeFill{}, choices: map[int][]func(){},
		bubbles: map[int]fyne.CanvasObject{}, opened: map[int]bool{},
		scaleFrames: map[evalSlot]*widgets.ThemeFill{}, scaleRadios: map[evalSlot]*widget.RadioGroup{}}
	if typ.Display.TurnLevel() {
		p.positions = typ.Positions(len(dp.Turns))
	} else {
		p.positions = []int{}
	}
	p.buildSlots()
	return p
}

func (p *evalPage) buildSlots() {
	p.slots = nil
	switch {
	case p.typ.Display == ev.LikertTurn:
		for _, pos := range p.editablePositions() {
			for i := range p.typ.Scales {
				p.slots = append(p.slots, evalSlot{pos, i})
			}
		}
	case p.typ.Display == ev.ForeachSelect:
		for _, pos := range p.editablePositions() {
			for i := range p.typ.Choices {
				p.slots = append(p.slots, evalSlot{pos, i})
			}
		}
	case p.typ.Display == ev.LikertDialogue:
		for i := range p.typ.Scales {
			p.slots = append(p.slots, evalSlot{-1, i})
		}
	case p.typ.Display == ev.ForeachSelectDialogue:
		for i := range p.typ.Choices {
			p.slots = append(p.slots, evalSlot{-1, i})
		}
	case p.typ.Display == ev.Comparative:
		p.slots = append(p.slots, evalSlot{-1, -1})
	case p.typ.Display.TurnLevel():
		for _, pos := range p.editablePositions() {
			p.slots = append(p.slots, evalSlot{pos, -1})
		}
	}
}

func (p *evalPage) editablePositions() []int {
	if p.feedback == nil {
		return p.positions
	}
	var out []int
	for _, pos := range p.positions {
		if p.feedback[pos] {
			out = append(out, pos)
		}
	}
	return out
}

// setFeedback limits editing to the mistaken turns and shows their explanations.
func (p *evalPage) setFeedback(mistakes []int, explanations map[int]string, truths map[int]*ev.Truth) {
	p.feedback = map[int]bool{}
	for _, m := range mistakes {
		p.feedback[m] = true
	}
	p.explanations, p.corrections = explanations, truths
	p.buildSlots()
	p.focus = 0
}

// content builds the page's dialogue (or the pair) with its turns and their widgets, in a
// scroll of its own; the dialogue-level widget (Likert, comparative, ratings) is built into
// dialogueBox, which the session places beside it.
func (p *evalPage) content() fyne.CanvasObject {
	p.dialogueBox = container.NewVBox()
	p.refreshDialogueWidget()
	if p.typ.Display == ev.Comparative {
		first, second := p.dp.Turns, p.dp.Turns2
		if p.collection { // the previous conversation (Turns2) against the one just ended
			first, second = second, first
		}
		left := p.dialogueColumn("Dialogue 1", first, true)
		right := p.dialogueColumn("Dialogue 2", second, false)
		p.scroll = container.NewVScroll(container.NewGridWithColumns(2, left, right))
	} else {
		p.scroll = container.NewVScroll(p.dialogueColumn("", p.dp.Turns, true))
	}
	p.highlightFocus()
	return p.scroll
}

func (p *evalPage) dialogueColumn(title string, turns []ev.Turn, annotated bool) fyne.CanvasObject {
	col := container.NewVBox()
	if title != "" {
		col.Add(widget.NewLabelWithStyle(title, fyne.TextAlignCenter, fyne.TextStyle{Bold: true}))
	}
	annot := map[int]bool{}
	if annotated {
		for _, pos := range p.positions {
			annot[pos] = true
		}
	}
	for pos, t := range turns {
		col.Add(p.turnRow(pos, t, annot[pos] && annotated))
	}
	return col
}

// turnRow is one message: the speaker's bubble (system left, user right), and under an
// annotatable turn its widgets.
func (p *evalPage) turnRow(pos int, t ev.Turn, annotatable bool) fyne.CanvasObject {
	speaker := ev.SpeakerLabel(t.AgentIdx(), p.collection) + " "
	if p.collection {
		speaker = ev.SpeakerLabel(t.AgentIdx(), true) + ": "
	}
	text := widget.NewLabel(speaker + t.Text)
	text.Wrapping = fyne.TextWrapWord
	if t.AgentIdx() == 0 {
		text.Alignment = fyne.TextAlignTrailing
	}
	bg := widgets.NewThemeFill(theme.ColorNameInputBackground, theme.InputRadiusSize())
	bubble := container.NewStack(bg, text)
	if annotatable {
		p.bubbles[pos] = bubble
	}
	if p.firstTurn == nil {
		p.firstTurn = bubble
	}
	var row fyne.CanvasObject
	if t.AgentIdx() == 0 {
		row = container.New(&leadingGap{fraction: 0.18}, container.NewPadded(bubble))
	} else {
		row = container.New(&trailingGap{fraction: 0.18}, container.NewPadded(bubble))
	}
	if !annotatable {
		return row
	}
	box := container.NewVBox()
	p.boxes[pos] = box
	p.fillTurn(pos, t)
	frame := widgets.NewThemeFrame(2, theme.InputRadiusSize())
	p.frames[pos] = frame
	inner := container.NewVBox(row, container.NewBorder(nil, nil, indent(), nil, box))
	if ex, ok := p.explanations[pos]; ok && p.feedback[pos] {
		l := widget.NewLabel("Why: " + ex)
		l.Wrapping = fyne.TextWrapWord
		l.Importance = widget.WarningImportance
		inner.Add(container.NewBorder(nil, nil, indent(), nil, l))
		if tr := p.corrections[pos]; tr != nil {
			answer := widget.NewLabel(p.describeTruth(tr, pos))
			answer.Wrapping = fyne.TextWrapWord
			answer.Hide()
			var show *widget.Button
			show = widget.NewButtonWithIcon("Show the correct selection", theme.VisibilityIcon(), func() {
				answer.Show()
				show.Hide()
				if f := p.frames[pos]; f != nil {
					p.scrollTo(f)
				}
				if p.refocus != nil {
					p.refocus()
				}
			})
			inner.Add(container.NewBorder(nil, nil, indent(), nil, container.NewVBox(container.NewHBox(show), answer)))
		}
	}
	return container.NewStack(frame, container.NewPadded(inner))
}

// leadingGap and trailingGap lay a message out over the row minus a gap on one side, so user
// turns sit on the right and system turns on the left.
type leadingGap struct{ fraction float32 }

func (g *leadingGap) MinSize(objs []fyne.CanvasObject) fyne.Size { return objs[0].MinSize() }
func (g *leadingGap) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	gap := size.Width * g.fraction
	objs[0].Move(fyne.NewPos(gap, 0))
	objs[0].Resize(fyne.NewSize(size.Width-gap, size.Height))
}

type trailingGap struct{ fraction float32 }

func (g *trailingGap) MinSize(objs []fyne.CanvasObject) fyne.Size { return objs[0].MinSize() }
func (g *trailingGap) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(fyne.NewSize(size.Width*(1-g.fraction), size.Height))
}

func indent() fyne.CanvasObject {
	r := canvas.NewRectangle(color.Transparent)
	r.SetMinSize(fyne.NewSize(24, 1))
	return r
}

// editable says whether a turn's widgets take input (during feedback only the mistaken ones).
func (p *evalPage) editable(pos int) bool { return p.feedback == nil || p.feedback[pos] }

// fillTurn (re)builds the widgets of an annotatable turn from the answers.
func (p *evalPage) fillTurn(pos int, t ev.Turn) {
	box := p.boxes[pos]
	if box == nil {
		return
	}
	ta := p.ans.TurnAt(pos)
	p.choices[pos] = nil
	var objs []fyne.CanvasObject
	switch {
	case p.typ.Display.IsFlow():
		flow := p.flowObjects(p.typ.Flow, ta, pos, t)
		if p.typ.Display.Collapsible() {
			item := widget.NewAccordionItem(fmt.Sprintf("Turn %d", pos), container.NewVBox(flow...))
			item.Open = p.flowOpen(pos)
			objs = []fyne.CanvasObject{widget.NewAccordion(item)}
		} else {
			objs = flow
		}
	case p.typ.Display == ev.Multiselect:
		if p.typ.Question != "" {
			objs = append(objs, widget.NewLabelWithStyle(p.words.TurnText(pos, p.typ.Question), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		}
		selected := map[string]bool{}
		for _, v := range ta.List(p.typ.LabelsKey()) {
			selected[v] = true
		}
		for _, c := range p.typ.Choices {
			if c.Speaker != nil && *c.Speaker != t.AgentIdx() {
				continue
			}
			c := c
			chk := widget.NewCheck(p.words.TurnText(pos, c.Label), nil)
			chk.Checked = selected[c.Value]
			chk.OnChanged = func(on bool) { p.toggleLabel(pos, t, c.Value, on) }
			p.disableUnlessEditable(pos, chk)
			p.choices[pos] = append(p.choices[pos], func() { chk.SetChecked(!chk.Checked) })
			objs = append(objs, chk)
		}
	case p.typ.Display == ev.LikertTurn:
		for i, sc := range p.typ.Scales {
			objs = append(objs, p.scaleRow(pos, i, p.words.TurnText(pos, sc.Question), ta.String(sc.Label), func(v int) {
				p.edit(session.Edit{Turn: pos, Kind: session.EditScale, Key: sc.Label, Value: strconv.Itoa(v)})
			}))
		}
	case p.typ.Display == ev.ForeachSelect:
		l := widget.NewLabel("This type had no widget in the original platform; its answers are stored per turn.")
		l.Importance = widget.LowImportance
		objs = append(objs, l)
		for i, c := range p.typ.Choices {
			objs = append(objs, p.scaleRow(pos, i, p.words.TurnText(pos, c.Label), ta.String(c.Value), func(v int) {
				p.edit(session.Edit{Turn: pos, Kind: session.EditScale, Key: c.Value, Value: strconv.Itoa(v)})
			}))
		}
	}
	box.Objects = objs
	box.Refresh()
}

// refreshDialogueWidget (re)builds the dialogue-level widget of Likert, comparative and rating
// types.
func (p *evalPage) refreshDialogueWidget() {
	if p.dialogueBox == nil {
		return
	}
	var objs []fyne.CanvasObject
	switch p.typ.Display {
	case ev.LikertDialogue:
		for i, sc := range p.typ.Scales {
			objs = append(objs, p.scaleRow(-1, i, p.words.DialogueText(sc.Question), p.ans.Likert[sc.Label], func(v int) {
				p.edit(session.Edit{Turn: -1, Kind: session.EditScale, Key: sc.Label, Value: strconv.Itoa(v)})
			}))
		}
	case ev.Comparative:
		q := widget.NewLabelWithStyle(p.words.DialogueText(p.typ.Question), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		q.Wrapping = fyne.TextWrapWord
		// The options are shown with the speakers named and stored as they are.
		labels := make([]string, len(p.typ.Comparisons))
		for i, o := range p.typ.Comparisons {
			labels[i] = p.words.DialogueText(o)
		}
		radio := widget.NewRadioGroup(labels, nil)
		for i, o := range p.typ.Comparisons {
			if p.ans.Comparative[p.typ.Question] == o { // shown again after a re-render (quirk 8 fixed)
				radio.Selected = labels[i]
			}
		}
		radio.OnChanged = func(s string) {
			if i := slices.Index(labels, s); i >= 0 {
				p.edit(session.Edit{Turn: -1, Kind: session.EditComparative, Value: p.typ.Comparisons[i]})
			}
		}
		p.choices[-1] = nil
		for _, l := range labels {
			p.choices[-1] = append(p.choices[-1], func() { radio.SetSelected(l) })
		}
		objs = append(objs, q, radio)
	case ev.ForeachSelectDialogue:
		if p.typ.Question != "" {
			objs = append(objs, widget.NewLabelWithStyle(p.words.DialogueText(p.typ.Question), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		}
		grid := container.NewGridWithColumns(2)
		for i, c := range p.typ.Choices {
			i, c := i, c
			sel := widget.NewSelect(likertValues, nil)
			sel.PlaceHolder = "1-5"
			sel.Selected = p.ans.Ratings[c.Label]
			sel.OnChanged = func(s string) {
				if _, err := strconv.Atoi(s); err != nil {
					return
				}
				p.moveFocus(i, false)
				p.edit(session.Edit{Turn: -1, Kind: session.EditScale, Key: c.Label, Value: s})
			}
			grid.Add(container.NewBorder(nil, nil, widget.NewLabel(p.words.DialogueText(c.Label)), nil, sel))
		}
		objs = append(objs, grid)
	}
	p.dialogueBox.Objects = objs
	p.dialogueBox.Refresh()
}

// edit hands an answer to the session; it reports whether it was taken.
func (p *evalPage) edit(e session.Edit) bool {
	return p.onEdit != nil && p.onEdit(e)
}
