package gridworld

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/gridworld"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Agent runs: the random agent or an external one plays episodes, with a live reward chart.

// chooseAgent asks which agent to run and for how many episodes.
func (g *Workspace) chooseAgent() {
	if g.host.Window() == nil {
		return
	}
	if g.agentCancel != nil {
		g.agentCancel()
		return
	}
	cmd := widget.NewEntry()
	cmd.SetPlaceHolder("random, or a command speaking the JSON-lines agent protocol")
	cmd.SetText("random")
	cmd.Validator = workspace.NotEmpty("an agent")
	episodes := widget.NewEntry()
	episodes.SetText("5")
	episodes.Validator = workspace.IntAtLeast(1)
	maxSteps := widget.NewEntry()
	maxSteps.SetText("300")
	maxSteps.Validator = workspace.IntAtLeast(1)
	g.agentForm = workspace.ShowForm(g.host.Window(), "Run an agent", "Run", []*widget.FormItem{
		widget.NewFormItem("Agent", cmd),
		widget.NewFormItem("Episodes", episodes),
		widget.NewFormItem("Steps per episode", maxSteps),
	}, func() {
		n, _ := strconv.Atoi(strings.TrimSpace(episodes.Text))
		steps, _ := strconv.Atoi(strings.TrimSpace(maxSteps.Text))
		g.runAgent(strings.TrimSpace(cmd.Text), n, steps)
	})
}

// runAgent lets an agent play n episodes in a separate environment on the current task
// source, plotting the rewards live and storing every episode.
func (g *Workspace) runAgent(command string, n, maxSteps int) error {
	cfg, err := g.agentConfig(maxSteps, g.envOpts.POV && command != "random")
	if err != nil {
		g.setStatus(err.Error())
		workspace.ShowError(g.host.Window(), err)
		return err
	}
	env, err := gridworld.New(cfg)
	if err != nil {
		return err
	}
	env.SetTaskSource(g.source)
	var agent gridworld.Agent
	if command == "random" {
		agent = gridworld.NewRandomAgent(env, cfg.Seed)
	} else {
		pa, err := gridworld.StartProcessAgent(command, env, nil, 30*time.Second)
		if err != nil {
			g.setStatus(err.Error())
			return err
		}
		pa.POVFormat = gridworld.POVFormat(g.envOpts.POVFormat) // sent when a pov is rendered
		agent = pa
	}
	g.totalsPlot.Show()
	g.episodePlot.Show()
	g.chartNote.Show()
	var totals, curve []float64
	st := g.store
	show := func(t, c []float64, note string) {
		g.totalsPlot.SetValues(t)
		g.episodePlot.SetValues(c)
		g.chartNote.SetText(note)
	}
	show(nil, nil, fmt.Sprintf("Agent %q: starting…", command))
	snapshot := func() (t, c []float64) {
		g.mu.Lock()
		defer g.mu.Unlock()
		return append([]float64(nil), totals...), append([]float64(nil), curve...)
	}
	update := func(note string) { // from the run's goroutine
		t, c := snapshot()
		fyne.Do(func() { show(t, c, note) })
	}
	var stored int
	running := true
	task := workspace.Start(g.host, nil, func(ctx context.Context) (string, error) {
		defer agent.Close()
		prefix := gridworld.UniqueID("agent")
		_, err := gridworld.RunEpisodes(ctx, env, agent, gridworld.RunOptions{
			Episodes: n, TaskName: g.taskName, Agent: command, IDPrefix: prefix,
			OnStep: func(ep, step int, r, cum float64) {
				g.mu.Lock()
				curve = append(curve, cum)
				g.mu.Unlock()
				if step%25 == 0 {
					update(fmt.Sprintf("Episode %d/%d, step %d, reward %.2f", ep+1, n, step, cum))
				}
			},
			OnEpisode: func(r gridworld.EpisodeResult) error {
				g.mu.Lock()
				totals = append(totals, r.Reward)
				curve = curve[:0]
				g.mu.Unlock()
				if st != nil {
					if err := st.SaveEpisode(ctx, r.Episode); err != nil {
						return err
					}
					stored++
				}
				update(fmt.Sprintf("Episode %d/%d done: reward %.2f", r.Index+1, n, r.Reward))
				return nil
			},
		})
		mean := 0.0
		for _, t := range totals {
			mean += t
		}
		if len(totals) > 0 {
			mean /= float64(len(totals))
		}
		note := fmt.Sprintf("Agent %q: %d episodes, mean reward %.2f, %d stored.", command, len(totals), mean, stored)
		if err != nil {
			note += " Stopped: " + err.Error()
		}
		return note, nil
	}, func(note string, _ error) {
		t, c := snapshot()
		show(t, c, note)
		running, g.agentCancel = false, nil
	})
	if running { // (a synchronous run has finished already)
		g.agentCancel = task.Stop
	}
	return nil
}
