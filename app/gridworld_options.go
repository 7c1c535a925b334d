package app

import (
	"encoding/json"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentdesk/agentdesk/engine/gridworld"
)

// envOptions are the environment options of `gridworld run` and `gridworld bench`: the
// original's registered configurations and keyword arguments.
type envOptions struct {
	fs             *flag.FlagSet
	env            string
	sets           kwargList
	renderSize     string
	selectAndPlace bool
	vectorState    bool
	targetInObs    bool
	rightScale     float64
	wrongScale     float64
	sizeReward     bool
}

// kwargList collects repeated --set key=value flags.
type kwargList []string

func (k *kwargList) String() string     { return strings.Join(*k, " ") }
func (k *kwargList) Set(v string) error { *k = append(*k, v); return nil }

func addEnvOptions(fs *flag.FlagSet, withEnv bool) *envOptions {
	o := &envOptions{fs: fs}
	if withEnv {
		fs.StringVar(&o.env, "env", "", "start from a registered configuration: "+gridworld.EnvIGLUGridworld+" (renders the pov) or "+gridworld.EnvIGLUGridworldVector)
	}
	fs.Var(&o.sets, "set", "an option of the original as key=value, repeatable (render, render_size=[w,h], max_steps, select_and_place, discretize, right_scale, wrong_scale, target_in_obs, action_space, vector_state, size_reward, fake)")
	fs.StringVar(&o.renderSize, "render-size", "64x64", "pov width x height in pixels, when rendering")
	fs.BoolVar(&o.selectAndPlace, "select-and-place", false, "the original's select_and_place: choosing a colour also places a block")
	fs.BoolVar(&o.vectorState, "vector-state", true, "the observation has agentPos and grid (vector_state)")
	fs.BoolVar(&o.targetInObs, "target-in-obs", false, "the observation has target_grid (target_in_obs)")
	fs.Float64Var(&o.rightScale, "right-scale", 2, "reward per block placed right (right_scale)")
	fs.Float64Var(&o.wrongScale, "wrong-scale", 1, "penalty per block placed wrong (wrong_scale)")
	fs.BoolVar(&o.sizeReward, "size-reward", false, "the original's size_reward term")
	return o
}

// set reports whether a flag was given on the command line.
func (o *envOptions) set(name string) bool {
	given := false
	o.fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// kwargs turns the flags given on the command line into the original's keyword arguments
// (flags left at their defaults keep the configuration's value); --set comes last.
func (o *envOptions) kwargs() (map[string]any, error) {
	kw := map[string]any{}
	if o.set("render-size") {
		w, h, err := parseSize(o.renderSize)
		if err != nil {
			return nil, usageErrorf("--render-size: %v", err)
		}
		kw["render_size"] = []any{float64(w), float64(h)}
	}
	for flagName, v := range map[string]any{"select-and-place": o.selectAndPlace, "vector-state": o.vectorState,
		"target-in-obs": o.targetInObs, "right-scale": o.rightScale, "wrong-scale": o.wrongScale, "size-reward": o.sizeReward} {
		if o.set(flagName) {
			kw[strings.ReplaceAll(flagName, "-", "_")] = v
		}
	}
	for _, s := range o.sets {
		k, v, ok := strings.Cut(s, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, usageErrorf("--set %q: want key=value, e.g. --set max_steps=100", s)
		}
		var val any
		if err := json.Unmarshal([]byte(strings.TrimSpace(v)), &val); err != nil {
			val = strings.TrimSpace(v) // a bare word: walking, flying
		}
		switch strings.ToLower(fmt.Sprint(val)) { // Python's spelling
		case "true":
			val = true
		case "false":
			val = false
		}
		if l, ok := val.(string); ok && strings.HasPrefix(l, "(") { // render_size=(64,64)
			var arr []any
			if json.Unmarshal([]byte("["+strings.Trim(l, "()")+"]"), &arr) == nil {
				val = arr
			}
		}
		kw[k] = val
	}
	return kw, nil
}

// base is the --env configuration, or def without one.
func (o *envOptions) base(def gridworld.Config) (gridworld.Config, error) {
	if o.env == "" {
		return def, nil
	}
	c, err := gridworld.RegisteredConfig(o.env)
	if err != nil {
		return def, usageErrorf("--env: %v", err)
	}
	return c, nil
}

// apply sets the options given on the command line.
func (o *envOptions) apply(cfg gridworld.Config) (gridworld.Config, error) {
	kw, err := o.kwargs()
	if err != nil {
		return cfg, err
	}
	if err := cfg.ApplyKwargs(kw); err != nil {
		return cfg, usageErrorf("%v", err)
	}
	if cfg.RenderSize[0] < 1 || cfg.RenderSize[1] < 1 || cfg.RenderSize[0] > 4096 || cfg.RenderSize[1] > 4096 {
		return cfg, usageErrorf("render size %dx%d: want 1 to 4096 pixels each way", cfg.RenderSize[0], cfg.RenderSize[1])
	}
	return cfg, nil
}

func parseSize(s string) (w, h int, err error) {
	a, b, ok := strings.Cut(strings.ToLower(s), "x")
	if !ok {
		a, b = s, s
	}
	w, err1 := strconv.Atoi(strings.TrimSpace(a))
	h, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || w < 1 || h < 1 || w > 4096 || h > 4096 {
		return 0, 0, fmt.Errorf("%q: want WIDTHxHEIGHT, 1 to 4096 each (e.g. 64x64)", s)
	}
	return w, h, nil
}
