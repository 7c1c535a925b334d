package gridworld

import (
	"context"
	"fmt"
	"image"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/gridworld"
	"github.com/agentdesk/agentdesk/ui/widgets"
)

// Replay: a stored episode in the frame viewer, the world following the viewer's step.

// chooseReplay lists the stored gridworld episodes to pick one for replay.
func (g *Workspace) chooseReplay() {
	st := g.store
	if st == nil || g.host.Window() == nil {
		return
	}
	list, err := st.Episodes(context.Background(), episode.Query{Source: episode.SourceGridworld, Limit: 500})
	if err != nil {
		dialog.ShowError(err, g.host.Window())
		return
	}
	if len(list) == 0 {
		dialog.ShowInformation("Replay", g.nothingToReplay(), g.host.Window())
		return
	}
	var d dialog.Dialog
	l := widget.NewList(func() int { return len(list) },
		func() fyne.CanvasObject {
			return widget.NewLabel("run-00000000-000000-000000-xxxxxx · tower · 1000 steps · 10.00")
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			e := list[i]
			o.(*widget.Label).SetText(fmt.Sprintf("%s · %s · %d steps · reward %.2f", e.ExternalID, e.Task, e.NumSteps, e.TotalReward))
		})
	l.OnSelected = func(i widget.ListItemID) {
		d.Hide()
		g.startReplay(list[i].ID)
	}
	d = dialog.NewCustom("Replay a stored episode", "Cancel", container.NewGridWrap(fyne.NewSize(620, 360), l), g.host.Window())
	d.Show()
}

// startReplay loads a stored episode and shows it in the frame viewer from its first step.
func (g *Workspace) startReplay(id int64) error {
	st := g.store
	e, err := st.Episode(context.Background(), id)
	if err == nil {
		var rp *gridworld.Replay
		if rp, err = gridworld.LoadReplay(e); err == nil {
			g.saveRecording()
			g.viewer.Pause()
			g.replay, g.replayEp, g.frame = rp, e, 0
			g.why = ""
			g.playBar.Hide()
			g.replayName.SetText(fmt.Sprintf("Replaying %s · %s · %d steps", e.ExternalID, e.Task, len(e.Steps)))
			g.replayBar.Show()
			g.bars.Refresh()
			// the world keeps the main area; the viewer heads the side panel
			g.side.Objects = []fyne.CanvasObject{g.sideReplay}
			g.sideReplay.Trailing = g.sidePlay
			g.sideReplay.Refresh()
			g.side.Refresh()
			g.renderPreview()
			g.dialogText.SetText(rp.Chat)
			// the viewer's step i is the replay's frame i: the initial state first, then a step
			// per action
			g.viewer.SetEpisode(replayEpisode(e, g.initialThumbnail()), replayFrameLoader(rp))
			g.followViewer(g.viewer.Index())
			g.setStatus(fmt.Sprintf("Replaying %s/%s (%d steps).", e.Source, e.ExternalID, len(e.Steps)))
			return nil
		}
	}
	g.setStatus("Cannot replay: " + err.Error())
	return err
}

// replayEpisode is e as the frame viewer plays it: a first step for the initial state (with
// its first-person thumbnail, the recording has none), then the recorded steps. The steps'
// instructions are left out: the world's overlay shows the one in force and the side panel the
// whole dialog, and the viewer, in the side panel, keeps its room for the frame.
func replayEpisode(e *episode.Episode, initial []byte) *episode.Episode {
	v := *e
	v.Steps = make([]episode.Step, 0, len(e.Steps)+1)
	v.Steps = append(v.Steps, episode.Step{Action: episode.Action{Kind: "initial"}, Observation: initial})
	for i, st := range e.Steps {
		st.Index = i + 1
		st.Instruction = ""
		v.Steps = append(v.Steps, st)
	}
	return &v
}

// replayFrameLoader gives the viewer a step's recorded thumbnail, or for episodes recorded
// without one (agent runs from the command line) the top-down map of the step's world, drawn
// off the UI goroutine like any frame the viewer decodes ahead.
func replayFrameLoader(rp *gridworld.Replay) widgets.FrameLoader {
	return func(st *episode.Step) (image.Image, error) {
		if len(st.Observation) > 0 || st.ObservationRef != "" {
			return widgets.LoadStepFrame(st)
		}
		if st.Index < 0 || st.Index >= len(rp.Frames) {
			return nil, fmt.Errorf("step %d: no recorded state", st.Index)
		}
		f := &rp.Frames[st.Index]
		target := rp.Target
		return MapRenderer{}.RenderWorld(WorldView{Grid: f.Grid, Agent: f.Pose, Target: &target, Width: 128, Height: 128})
	}
}

// initialThumbnail draws the replay's first frame as the recorder draws a step's thumbnail.
func (g *Workspace) initialThumbnail() []byte {
	saved := g.frame
	g.frame = 0
	defer func() { g.frame = saved }()
	return g.thumbnail()
}

// followViewer shows replay frame i in the world and the overlay: called by the frame viewer
// whenever its step changes (keys, timeline, its buttons, playback).
func (g *Workspace) followViewer(i int) {
	if g.replay == nil {
		return
	}
	i = max(0, min(i, len(g.replay.Frames)-1))
	prev := g.frame
	g.frame = i
	if i == prev+1 {
		g.flash(g.replay.Frames[i].Reward)
	}
	g.updateOverlay()
	g.render()
}

func (g *Workspace) togglePlay() {
	if g.replay != nil {
		g.viewer.TogglePlay()
	}
}

// stopPlaying pauses the replay's playback.
func (g *Workspace) stopPlaying() { g.viewer.Pause() }

func (g *Workspace) exitReplay() {
	g.viewer.Pause()
	g.replay, g.replayEp, g.frame = nil, nil, 0
	g.replayBar.Hide()
	g.playBar.Show()
	g.bars.Refresh()
	g.side.Objects = []fyne.CanvasObject{g.sidePlay}
	g.side.Refresh()
	g.renderPreview()
	g.updateOverlay()
	g.render()
	g.setStatus("")
}

// nothingToReplay says how to get an episode to replay: recording is a tick in the toolbar's
// ⋯ menu, and a played episode is stored on Reset or with Save the recording now.
func (g *Workspace) nothingToReplay() string {
	how := "Play one: it is stored when you press Reset or choose ⋯ › Save the recording now " +
		"(⋯, the toolbar's last button: Record to the store is ticked)."
	if !g.recording {
		how = "Tick ⋯ › Record to the store (the ⋯ button at the end of the toolbar), play, then press Reset " +
			"or choose ⋯ › Save the recording now."
	}
	return "No gridworld episodes are stored yet.\n" + how + "\nOr run an agent with Run agent…"
}
