package gridworld

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"

	"github.com/agentdesk/agentdesk/engine/gridworld"
	"github.com/agentdesk/agentdesk/ui/widgets"
)

// The overlay over the world: total reward, step, progress, instruction, inventory, and the
// reward of each step flashed for a moment.

// flash shows the step reward, green when positive and red when negative, for a moment.
func (g *Workspace) flash(reward float64) {
	if reward == 0 {
		return
	}
	g.flashID++
	id := g.flashID
	g.rewardText.Text = fmt.Sprintf("%+.2f", reward)
	g.rewardText.Color = theme.Color(theme.ColorNameSuccess)
	if reward < 0 {
		g.rewardText.Color = theme.Color(theme.ColorNameError)
	}
	g.rewardText.Show()
	g.rewardText.Refresh()
	later(900*time.Millisecond, func() {
		if g.flashID == id {
			g.rewardText.Text = ""
			g.rewardText.Hide()
		}
	})
}

// later runs f on the UI goroutine after d. Tests replace it: the test driver has no UI
// goroutine, and a timer's fyne.Do would call into the widgets from the timer's goroutine.
var later = func(d time.Duration, f func()) {
	time.AfterFunc(d, func() { fyne.Do(f) })
}

// overlayState is what the overlay shows, from the live env or a replay frame.
type overlayState struct {
	step, maxSteps, maxInt, targetSize int
	cumulative                         float64
	instruction                        string
	inventory                          [gridworld.NumColors]int
	selected                           int
}

func (g *Workspace) updateOverlay() {
	var o overlayState
	if g.replay != nil {
		f := g.replay.Frames[g.frame]
		o = overlayState{step: g.frame, maxSteps: len(g.replay.Frames) - 1, maxInt: f.MaxInt, targetSize: f.TargetSize,
			cumulative: f.Cumulative, instruction: f.Instruction}
	} else if g.env != nil {
		info := g.env.Info()
		st := g.env.State()
		o = overlayState{step: g.env.StepCount(), maxSteps: g.env.Config().MaxSteps, maxInt: info.MaxInt,
			targetSize: info.TargetSize, cumulative: g.cumulative, inventory: st.Inventory(), selected: st.ActiveBlock()}
		if t := g.env.Task(); t != nil {
			o.instruction = t.LastInstruction
			if o.instruction == "" {
				o.instruction = t.Chat
			}
			g.dialogText.SetText(t.Chat)
		}
	}
	g.totalText.SetText(fmt.Sprintf("Total reward %.2f", o.cumulative))
	g.stepText.SetText(fmt.Sprintf("Step %d / %d", o.step, o.maxSteps))
	if o.targetSize > 0 {
		g.progress.SetValue(float64(o.maxInt) / float64(o.targetSize))
	} else {
		g.progress.SetValue(0)
	}
	g.progressL.SetText(fmt.Sprintf("Built %d / %d of the target", o.maxInt, o.targetSize))
	g.instr.SetText(o.instruction)
	g.inventory.Objects = nil
	if g.replay == nil {
		for i := 0; i < gridworld.NumColors; i++ {
			sw := canvas.NewRectangle(blockColors[i])
			sw.SetMinSize(fyne.NewSize(18, 18))
			sw.CornerRadius = 3
			if i+1 == o.selected {
				sw.StrokeColor = theme.Color(theme.ColorNameForeground)
				sw.StrokeWidth = 3
			}
			label := widgets.NewCaption(fmt.Sprintf("%d %s %d", i+1, blockNames[i], o.inventory[i]))
			g.inventory.Add(container.NewHBox(container.NewCenter(sw), container.NewCenter(label)))
		}
	}
	g.inventory.Refresh()
	if hide := g.replay != nil; hide != g.inventory.Hidden { // a replay frame has no inventory
		g.inventory.Hidden = hide
		g.overlay.Refresh()
	}
}

// fixedSize asks for exactly its size whatever its objects need, and lays them over each other
// at its own size: a slot whose contents change without moving anything around it.
type fixedSize struct{ size fyne.Size }

func (l fixedSize) MinSize([]fyne.CanvasObject) fyne.Size { return l.size }
func (l fixedSize) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.Position{})
		o.Resize(size)
	}
}

// atLeast lays its objects over each other and asks for at least min: a panel that does not
// shrink and grow with its text.
type atLeast struct{ min fyne.Size }

func (l atLeast) MinSize(objs []fyne.CanvasObject) fyne.Size {
	m := l.min
	for _, o := range objs {
		if o.Visible() {
			m = m.Max(o.MinSize())
		}
	}
	return m
}
func (l atLeast) Layout(objs []fyne.CanvasObject, size fyne.Size) { fixedSize{}.Layout(objs, size) }

// aspectBox gives its object the width it is laid out at and a height of ratio times that
// width (between min's height and maxH): the target's picture grows with the side panel on a
// large screen. A new width makes the containers around lay out again, once.
type aspectBox struct {
	min         fyne.Size
	ratio, maxH float32
	width       float32
	relayout    func()
}

func (l *aspectBox) height() float32 {
	return max(l.min.Height, min(l.maxH, l.width*l.ratio))
}

func (l *aspectBox) MinSize([]fyne.CanvasObject) fyne.Size {
	return fyne.NewSize(l.min.Width, l.height())
}

func (l *aspectBox) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	fixedSize{}.Layout(objs, size)
	if size.Width == l.width {
		return
	}
	before := l.height()
	l.width = size.Width
	if l.height() != before && l.relayout != nil {
		fyne.Do(l.relayout) // (not inside this layout pass)
	}
}
