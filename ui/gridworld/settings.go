package gridworld

import (
	"encoding/json"
	"fmt"
	"image"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/gridworld"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// The environment's options (the original's keyword arguments) as the workspace's settings:
// those of the reward and the rules apply to play and to agent runs; those of the observation
// (vector state, target grid, pov) to what agents are sent. They are kept in the app's
// preferences.

const prefEnvOptions = "gridworld.env-options"

// EnvOptions are the workspace's environment settings.
type EnvOptions struct {
	MaxSteps       int     `json:"max_steps"`
	SelectAndPlace bool    `json:"select_and_place"`
	RightScale     float64 `json:"right_scale"`
	WrongScale     float64 `json:"wrong_scale"`
	SizeReward     bool    `json:"size_reward"`
	VectorState    bool    `json:"vector_state"`
	TargetInObs    bool    `json:"target_in_obs"`
	POV            bool    `json:"pov"`
	POVWidth       int     `json:"pov_width"`
	POVHeight      int     `json:"pov_height"`
	POVFormat      string  `json:"pov_format"`
}

// DefaultEnvOptions are the original's defaults, without pov.
func DefaultEnvOptions() EnvOptions {
	d := gridworld.EnvDefaults()
	return EnvOptions{MaxSteps: 1000, RightScale: d.RightPlacementScale, WrongScale: d.WrongPlacementScale,
		SelectAndPlace: d.SelectAndPlace, SizeReward: d.SizeReward, VectorState: true, POVWidth: 64, POVHeight: 64,
		POVFormat: string(gridworld.POVBase64)}
}

// apply sets the options on an environment configuration (without rendering: see agentConfig).
func (o EnvOptions) apply(cfg *gridworld.Config) {
	cfg.MaxSteps = o.MaxSteps
	cfg.SelectAndPlace = o.SelectAndPlace
	cfg.RightPlacementScale, cfg.WrongPlacementScale = o.RightScale, o.WrongScale
	cfg.SizeReward = o.SizeReward
	cfg.VectorState, cfg.TargetInObs = o.VectorState, o.TargetInObs
}

func loadEnvOptions() EnvOptions {
	o := DefaultEnvOptions()
	if a := fyne.CurrentApp(); a != nil {
		if s := a.Preferences().String(prefEnvOptions); s != "" {
			if json.Unmarshal([]byte(s), &o) != nil {
				o = DefaultEnvOptions()
			}
		}
	}
	if o.MaxSteps < 1 || o.POVWidth < 8 || o.POVHeight < 8 || (o.POVFormat != string(gridworld.POVBase64) && o.POVFormat != string(gridworld.POVList)) {
		o = DefaultEnvOptions()
	}
	return o
}

func saveEnvOptions(o EnvOptions) {
	if a := fyne.CurrentApp(); a != nil {
		b, _ := json.Marshal(o)
		a.Preferences().SetString(prefEnvOptions, string(b))
	}
}

// POVSource is a WorldRenderer that can also draw the exact first-person pov of a world state
// (the app's OpenGL renderer; the map fallback cannot). Its renderers run on the UI thread.
type POVSource interface {
	POV() gridworld.POVRenderer
}

// uiPOV draws an agent's pov from the agent run's goroutine on the UI thread, where OpenGL
// lives.
type uiPOV struct{ inner gridworld.POVRenderer }

func (u uiPOV) RenderPOV(s *gridworld.State, w, h int) (img *image.RGBA, err error) {
	// The image may be reused by the next call (POVRenderer's contract): the agent's message is
	// written before the run steps again, and DoAndWait hands the frame over safely.
	fyne.DoAndWait(func() { img, err = u.inner.RenderPOV(s, w, h) })
	return img, err
}

// agentConfig is the configuration of an agent run: the settings, and the pov when asked for
// and the agent can read it (the random agent does not look).
func (g *Workspace) agentConfig(maxSteps int, pov bool) (gridworld.Config, error) {
	cfg := g.config()
	cfg.MaxSteps = maxSteps
	if pov {
		g.ensureRenderer()
		src, ok := g.renderer.(POVSource)
		if !ok {
			return cfg, fmt.Errorf("the pov needs the 3D renderer, which is unavailable here (%s); turn the pov off in Environment settings", strings.TrimSuffix(g.glNote, "."))
		}
		cfg.Render = true
		cfg.RenderSize = [2]int{g.envOpts.POVWidth, g.envOpts.POVHeight}
		cfg.Renderer = uiPOV{src.POV()}
	}
	return cfg, nil
}

// showEnvSettings is the Environment settings dialog.
func (g *Workspace) showEnvSettings() {
	if g.host.Window() == nil {
		return
	}
	o := g.envOpts
	maxSteps := widget.NewEntry()
	maxSteps.SetText(strconv.Itoa(o.MaxSteps))
	maxSteps.Validator = workspace.IntAtLeast(1)
	num := func(v float64) *widget.Entry {
		e := widget.NewEntry()
		e.SetText(strconv.FormatFloat(v, 'g', -1, 64))
		e.Validator = func(s string) error {
			if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
				return fmt.Errorf("a number")
			}
			return nil
		}
		return e
	}
	right, wrong := num(o.RightScale), num(o.WrongScale)
	selPlace := widget.NewCheck("Choosing a colour also places a block", nil)
	selPlace.SetChecked(o.SelectAndPlace)
	sizeRew := widget.NewCheck("Reward the structure's size", nil)
	sizeRew.SetChecked(o.SizeReward)
	vec := widget.NewCheck("Agent position and grid (vector state)", nil)
	vec.SetChecked(o.VectorState)
	tgt := widget.NewCheck("Target grid", nil)
	tgt.SetChecked(o.TargetInObs)
	pov := widget.NewCheck("First-person pov image", nil)
	pov.SetChecked(o.POV)
	size := widget.NewEntry()
	size.SetText(fmt.Sprintf("%dx%d", o.POVWidth, o.POVHeight))
	size.Validator = func(s string) error { _, _, err := parsePOVSize(s); return err }
	format := widget.NewSelect([]string{string(gridworld.POVBase64), string(gridworld.POVList)}, nil)
	format.SetSelected(o.POVFormat)
	onPOV := func(on bool) {
		if on {
			size.Enable()
			format.Enable()
		} else {
			size.Disable()
			format.Disable()
		}
	}
	pov.OnChanged = onPOV
	onPOV(o.POV)
	items := []*widget.FormItem{
		widget.NewFormItem("Steps per episode", maxSteps),
		widget.NewFormItem("Right placement", right),
		widget.NewFormItem("Wrong placement", wrong),
		widget.NewFormItem("", selPlace),
		widget.NewFormItem("", sizeRew),
		widget.NewFormItem("Agents see", vec),
		widget.NewFormItem("", tgt),
		widget.NewFormItem("", pov),
		widget.NewFormItem("Pov size", size),
		widget.NewFormItem("Pov sent as", format),
	}
	items[1].HintText = "reward per block placed right"
	items[2].HintText = "penalty per block placed wrong"
	items[8].HintText = "width x height in pixels"
	workspace.ShowForm(g.host.Window(), "Environment settings", "Apply", items, func() {
		n := o
		n.MaxSteps, _ = strconv.Atoi(strings.TrimSpace(maxSteps.Text))
		n.RightScale, _ = strconv.ParseFloat(strings.TrimSpace(right.Text), 64)
		n.WrongScale, _ = strconv.ParseFloat(strings.TrimSpace(wrong.Text), 64)
		n.SelectAndPlace, n.SizeReward = selPlace.Checked, sizeRew.Checked
		n.VectorState, n.TargetInObs, n.POV = vec.Checked, tgt.Checked, pov.Checked
		n.POVWidth, n.POVHeight, _ = parsePOVSize(size.Text)
		n.POVFormat = format.Selected
		g.setEnvOptions(n)
	})
}

// setEnvOptions keeps new settings; when the rules of play changed, the episode restarts
// (its recording so far is stored first, as on every reset).
func (g *Workspace) setEnvOptions(n EnvOptions) {
	old := g.envOpts
	g.envOpts = n
	saveEnvOptions(n)
	if n.MaxSteps != old.MaxSteps || n.SelectAndPlace != old.SelectAndPlace || n.RightScale != old.RightScale ||
		n.WrongScale != old.WrongScale || n.SizeReward != old.SizeReward {
		g.reset()
		g.setStatus("Environment settings applied; a new episode started.")
		return
	}
	g.setStatus("Environment settings applied to agent runs.")
}

func parsePOVSize(s string) (w, h int, err error) {
	a, b, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	if !ok {
		return 0, 0, fmt.Errorf("width x height, e.g. 64x64")
	}
	w, e1 := strconv.Atoi(strings.TrimSpace(a))
	h, e2 := strconv.Atoi(strings.TrimSpace(b))
	if e1 != nil || e2 != nil || w < 8 || h < 8 || w > 1024 || h > 1024 {
		return 0, 0, fmt.Errorf("width x height, 8 to 1024 each")
	}
	return w, h, nil
}
