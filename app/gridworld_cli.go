package app

import (
	"encoding/json"
	"flag"
	"fmt"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/agentdesk/agentdesk/engine/gridworld"
	"github.com/agentdesk/agentdesk/engine/render"
)

// gridworldCommands is the gridworld group: IGLU-compatible voxel building environment.
func gridworldCommands() *command {
	return &command{name: "gridworld", summary: "IGLU-compatible voxel building environment", sub: []*command{
		&command{name: "bench", summary: "measure environment steps/s, resets/s and maximal-intersection time",
			setup: gridworldBench},
		&command{name: "run", args: "--agent CMD|random", summary: "let an agent play episodes headless and store them",
			setup: gridworldRun},
		&command{name: "tasks", summary: "list the tasks of a task specification", args: "[SPEC]",
			setup: noFlags(gridworldTasks)},
		&command{name: "play", summary: "open the app in the Gridworld workspace", setup: gridworldPlay},
	}}
}

func gridworldRun(fs *flag.FlagSet) runFunc {
	agentCmd := fs.String("agent", "", "random, or a command that speaks the JSON-lines agent protocol (README)")
	episodes := fs.Int("episodes", 1, "episodes to play")
	taskSpec := fs.String("task", "samples", "tasks: "+gridworld.TaskSpecHelp)
	space := fs.String("action-space", "walking", "walking or flying")
	discrete := fs.Bool("discrete", true, "walking actions as Discrete(18) integers (false: the dictionary form)")
	maxSteps := fs.Int("max-steps", 500, "steps per episode at most")
	seed := fs.Uint64("seed", 1, "random seed for tasks, the environment and the random agent")
	timeout := fs.Duration("timeout", 30*time.Second, "how long to wait for an external agent's answer")
	opts := addEnvOptions(fs, true)
	pov := fs.Bool("pov", false, "render the first-person pov observation every step (OpenGL: a display or xvfb-run) and send it to the agent")
	povFormat := fs.String("pov-format", "base64", `how the agent gets the pov: base64 ({"shape","dtype","encoding","data"}: RGB bytes, rows top to bottom) or list (nested [h][w][3] integers)`)
	return func(e *env, args []string) error {
		if len(args) > 0 {
			return usageErrorf("unexpected argument %q", args[0])
		}
		if *agentCmd == "" {
			return usageErrorf("--agent is required (random, or a command)")
		}
		if *episodes < 1 || *maxSteps < 1 {
			return usageErrorf("--episodes and --max-steps must be at least 1")
		}
		if *space != "walking" && *space != "flying" {
			return usageErrorf("--action-space must be walking or flying, not %q", *space)
		}
		if *povFormat != string(gridworld.POVBase64) && *povFormat != string(gridworld.POVList) {
			return usageErrorf("--pov-format must be base64 or list, not %q", *povFormat)
		}
		src, taskName, err := gridworld.ResolveTaskSpec(*taskSpec)
		if err != nil {
			return err
		}
		def := gridworld.EnvDefaults()
		def.Render = false
		cfg, err := opts.base(def)
		if err != nil {
			return err
		}
		// With --env the registered configuration's values stand unless a flag says otherwise.
		if opts.env == "" || opts.set("action-space") {
			cfg.ActionSpace = gridworld.ActionSpace(*space)
		}
		if opts.env == "" || opts.set("discrete") {
			cfg.Discretize = *discrete
		}
		if opts.env == "" || opts.set("max-steps") {
			cfg.MaxSteps = *maxSteps
		}
		cfg.Seed = *seed
		if cfg, err = opts.apply(cfg); err != nil {
			return err
		}
		if *pov {
			cfg.Render = true
		}
		if *agentCmd == "random" {
			cfg.Render = false // the random agent never looks: no OpenGL for a pov nobody reads
		}
		if cfg.Render && !cfg.Fake {
			r, err := render.New(render.Options{Width: cfg.RenderSize[0], Height: cfg.RenderSize[1], OwnGLFW: true})
			if err != nil {
				return fmt.Errorf("rendering the pov: %w (or run without --pov and with --set render=false)", err)
			}
			defer r.Close()
			cfg.Renderer = r.POV()
		}
		genv, err := gridworld.New(cfg)
		if err != nil {
			return err
		}
		genv.SetTaskSource(src)
		st, err := e.openStore()
		if err != nil {
			return err
		}
		defer st.Close()

		var agent gridworld.Agent
		name := *agentCmd
		if name == "random" {
			agent = gridworld.NewRandomAgent(genv, *seed)
		} else {
			pa, err := gridworld.StartProcessAgent(name, genv, e.stderr, *timeout)
			if err != nil {
				return err
			}
			pa.POVFormat = gridworld.POVFormat(*povFormat) // sent when a pov is rendered
			agent = pa
		}
		ctx, stop := e.interruptible()
		defer stop()
		prefix := gridworld.UniqueID("run")
		_, runErr := gridworld.RunEpisodes(ctx, genv, agent, gridworld.RunOptions{
			Episodes: *episodes, TaskName: taskName, Agent: name, IDPrefix: prefix,
			OnEpisode: func(r gridworld.EpisodeResult) error {
				// Each finished episode is stored at once: an interrupted run keeps what it played.
				if err := st.SaveEpisode(ctx, r.Episode); err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "episode %d/%d: %d steps, reward %.3f, completed %v, stored as %s/%s\n",
					r.Index+1, *episodes, r.Steps, r.Reward, r.Completed, r.Episode.Source, r.Episode.ExternalID)
				return nil
			},
		})
		closeErr := agent.Close()
		if runErr != nil {
			return runErr
		}
		if closeErr != nil && name != "random" {
			fmt.Fprintf(e.stderr, "agentdesk gridworld run: %v\n", closeErr)
		}
		return nil
	}
}

func gridworldPlay(fs *flag.FlagSet) runFunc {
	task := fs.String("task", "samples", "the task to start with: "+gridworld.TaskSpecHelp)
	return func(e *env, args []string) error {
		if len(args) > 0 {
			return usageErrorf("unexpected argument %q", args[0])
		}
		if _, _, err := gridworld.ResolveTaskSpec(*task); err != nil {
			return err
		}
		if code := e.gui(GUIOptions{StorePath: e.storePath, Screen: screenGridworld, Task: *task}); code != 0 {
			return fmt.Errorf("the app exited with status %d", code)
		}
		return nil
	}
}

func gridworldTasks(e *env, args []string) error {
	if len(args) > 1 {
		return usageErrorf("takes at most one task specification")
	}
	spec := "samples"
	if len(args) == 1 {
		spec = args[0]
	}
	if spec == "samples" {
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "NAME\tBLOCKS\tDESCRIPTION\n")
		for _, nt := range gridworld.SampleTasks() {
			fmt.Fprintf(tw, "%s\t%d\t%s\n", nt.Name, nt.Task.TargetSize(), nt.Description)
		}
		return tw.Flush()
	}
	src, name, err := gridworld.ResolveTaskSpec(spec)
	if err != nil {
		return err
	}
	switch s := src.(type) {
	case *gridworld.Dataset:
		fmt.Fprintf(e.stdout, "%s: %d structures, %d sessions\n", name, len(s.StructureIDs()), s.NumSessions())
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "STRUCTURE\tSESSIONS\tTURNS\n")
		for _, id := range s.StructureIDs() {
			turns := 0
			for _, sess := range s.Sessions[id] {
				turns += sess.Len()
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\n", id, len(s.Sessions[id]), turns)
		}
		return tw.Flush()
	case gridworld.FixedTask:
		fmt.Fprintf(e.stdout, "%s: %d blocks\n%s\n", name, s.Task.TargetSize(), s.Task.Chat)
	default:
		fmt.Fprintf(e.stdout, "%s: a new task is generated for every episode\n", name)
	}
	return nil
}

// defaultBenchSteps is the bench's length without pov (with it, render.DefaultPOVBenchSteps).
const defaultBenchSteps = 1_000_000

func gridworldBench(fs *flag.FlagSet) runFunc {
	var cfg gridworld.BenchConfig
	fs.IntVar(&cfg.Envs, "envs", 1, "environments stepped in parallel (one goroutine each)")
	fs.IntVar(&cfg.Steps, "steps", 0, fmt.Sprintf("environment steps in total, over all environments (default %d, with --pov %d)", defaultBenchSteps, render.DefaultPOVBenchSteps))
	fs.StringVar(&cfg.ActionSpace, "action-space", "walking", "walking (Discrete(18)) or flying")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "random seed for tasks and actions")
	asJSON := fs.Bool("json", false, `print one JSON object {"steps_per_second", "resets_per_second", "intersection_us"}`)
	pov := fs.Bool("pov", false, "render the 64x64 first-person pov observation on every step (OpenGL; needs a display or xvfb-run)")
	povSize := fs.Int("pov-size", 64, "pov width and height in pixels, with --pov (or --render-size WxH)")
	opts := addEnvOptions(fs, false)
	return func(e *env, args []string) error {
		if len(args) > 0 {
			return usageErrorf("unexpected argument %q", args[0])
		}
		kw, err := opts.kwargs()
		if err != nil {
			return err
		}
		cfg.Kwargs = kw
		ec, err := gridworld.BenchEnvConfig(cfg) // the options' errors before any work
		if err != nil {
			return usageErrorf("%v", err)
		}
		if ec.Render && !ec.Fake {
			*pov = true // --set render=true asks for the pov bench too
		}
		if cfg.Steps == 0 {
			cfg.Steps = defaultBenchSteps
			if *pov { // decided above, with the options
				cfg.Steps = render.DefaultPOVBenchSteps
			}
		}
		if cfg.Envs < 1 || cfg.Steps < 1 {
			return usageErrorf("--envs and --steps must be at least 1")
		}
		if cfg.ActionSpace != "walking" && cfg.ActionSpace != "flying" {
			return usageErrorf("--action-space must be walking or flying, not %q", cfg.ActionSpace)
		}
		if err := e.context().Err(); err != nil {
			return err // a signal before the measurement started (it runs in seconds)
		}
		var res gridworld.BenchResult
		povW, povH := *povSize, *povSize
		if *pov {
			if *povSize < 8 || *povSize > 4096 {
				return usageErrorf("--pov-size must be between 8 and 4096")
			}
			if opts.set("render-size") || kw["render_size"] != nil {
				povW, povH = ec.RenderSize[0], ec.RenderSize[1]
			}
			res, err = render.BenchPOV(cfg, povW, povH)
		} else {
			res, err = gridworld.RunBench(cfg)
		}
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(e.stdout).Encode(res)
		}
		povNote := "no pov"
		if *pov {
			povNote = fmt.Sprintf("%dx%d pov every step", povW, povH)
		}
		fmt.Fprintf(e.stdout, "gridworld bench: %d env(s), %d steps, %s actions, %s, GOMAXPROCS %d\n",
			cfg.Envs, cfg.Steps, cfg.ActionSpace, povNote, runtime.GOMAXPROCS(0))
		fmt.Fprintf(e.stdout, "  steps/s        %.0f\n", res.StepsPerSecond)
		fmt.Fprintf(e.stdout, "  resets/s       %.0f\n", res.ResetsPerSecond)
		fmt.Fprintf(e.stdout, "  intersection   %.3f us/call\n", res.IntersectionUS)
		return nil
	}
}
