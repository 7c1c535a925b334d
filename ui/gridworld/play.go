package gridworld

import (
	"fmt"
	"math"

	"fyne.io/fyne/v2"

	"github.com/agentdesk/agentdesk/engine/gridworld"
)

// Playing: keys, mouse drags and the on-screen controls become actions; a step runs the action in the env, records it and shows the result.

func (g *Workspace) key(k fyne.KeyName) {
	if g.replay != nil {
		// the world's keys while replaying are the viewer's (Left/Right, Home/End, Space)
		g.viewer.TypedKey(&fyne.KeyEvent{Name: k})
		return
	}
	if in, ok := keyInputs[k]; ok {
		g.input(in)
	}
}

// drag looks around (first person: one camera action per 12 px) or turns the orbit camera.
func (g *Workspace) drag(dx, dy float32) {
	if g.firstPerson && g.replay == nil {
		switch {
		case dx <= -12:
			g.input(InputYawLeft)
		case dx >= 12:
			g.input(InputYawRight)
		case dy <= -12:
			g.input(InputPitchUp)
		case dy >= 12:
			g.input(InputPitchDown)
		}
		return
	}
	g.orbit.Azimuth = math.Mod(g.orbit.Azimuth-float64(dx)*0.5, 360)
	g.orbit.Elevation = math.Min(85, math.Max(-10, g.orbit.Elevation+float64(dy)*0.3))
	g.render()
}

// input plays one action.
func (g *Workspace) input(in Input) {
	if g.env == nil || g.replay != nil {
		return
	}
	if g.done {
		g.setStatus("The episode has ended: press Reset to play again.")
		return
	}
	a, ok := ActionFor(in, g.env.ActionKind())
	if !ok {
		return
	}
	g.why = ""
	if in == InputPlace || in == InputBreak {
		// the env counts a step for every action it is given; a place or break that would
		// change nothing at all is not given, and the aim line says why
		st := g.env.State()
		acts, idle := tryAction(st, in == InputPlace)
		if !acts {
			g.why = whyNot(st, aimOf(st), in == InputPlace, g.firstPerson)
			if idle {
				g.aimText.SetText(g.why)
				return
			}
		}
	}
	g.step(a)
}

func (g *Workspace) step(a gridworld.Action) {
	if g.recording && g.rec == nil {
		// the recording so far was stored (Save now) or dropped: a new one starts here
		g.rec = gridworld.NewRecorder(g.env, gridworld.RecordMeta{TaskName: g.taskName, Agent: "human"})
	}
	_, reward, done, err := g.env.Step(a)
	if err != nil {
		g.setStatus("Step failed: " + err.Error())
		return
	}
	g.cumulative += reward
	g.done = done
	if g.recording {
		if err := g.rec.Record(g.env, a, reward, g.thumbnail()); err != nil {
			g.setStatus("Recording failed: " + err.Error())
		}
	}
	g.flash(reward)
	g.updateOverlay()
	g.render()
	if done {
		info := g.env.Info()
		if info.Completed {
			g.setStatus(fmt.Sprintf("Task complete in %d steps, reward %.2f.", info.Step, g.cumulative))
		} else {
			g.setStatus(fmt.Sprintf("Out of steps (%d), reward %.2f.", info.Step, g.cumulative))
		}
		g.saveRecording()
	}
}
