// Package gridworld is a headless, exact and fast re-implementation of the IGLU Gridworld
// environment (specs/gridworld.md): a 9×11×11 voxel build zone on a 37×37 ground plate, an
// agent that walks or flies, looks around, places and breaks coloured blocks, and a task scorer
// that rewards reproducing a target structure up to rotation and horizontal translation.
//
// # Coordinates
//
// World coordinates are (x, y, z) with y up (right-handed). A block occupies the unit cube
// centred on integer coordinates; a continuous point belongs to the block obtained by rounding
// each coordinate half-to-even (BlockOf). The ground is a layer of blocks at y = -2 (top surface
// y = -1.5), white inside the footprint, grey outside. The build zone is x, z in [-5, 5] and
// y in [-1, 7]; its dense Grid is indexed [y+1][x+5][z+5]:
//
//	top view (looking down -y)                 side view (looking along -z)
//
//	  x=-5        x=+5          -z = yaw 0           +y
//	  +-----------+ z=-5          ^                   |  y=7  top grid layer   Grid[8]
//	  |           |               |                   |  ...
//	  |   zone    |      yaw 270 -+- yaw 90           |  y=-1 bottom layer     Grid[0]
//	  |  11 x 11  |    (-x)       |       (+x)        |  eye of a standing agent: y=-0.25
//	  +-----------+ z=+5          v              -----+------ ground top surface y=-1.5
//	  white ground inside,     +z = yaw 180           ground blocks at y=-2
//	  grey out to |x|,|z|=18
//
//	Grid[y+1][x+5][z+5] holds world block (x, y, z).
//
// The agent's Position is its eye; it occupies the block of the eye and the one below, ±0.25
// horizontally. Standing on the ground the eye is at y = -0.25. Yaw is in degrees about +y,
// yaw 0 faces -z and yaw 90 faces +x; pitch is in degrees, positive looks up, clamped to
// [-90, 90]. One Step simulates 1/20 s in 2-12 physics sub-steps exactly like the original,
// with correctly rounded sine and cosine so positions match bit for bit.
//
// # Using the environment
//
//	cfg := gridworld.EnvDefaults()       // or CreateEnvDefaults(), RegisteredConfig(name)
//	cfg.Render = false                   // pov needs a POVRenderer (engine/render)
//	env, err := gridworld.New(cfg)
//	env.SetTask(gridworld.SampleTasks()[0].Task) // or SetTaskSource(dataset)
//	obs, err := env.Reset()
//	obs, reward, done, err := env.Step(gridworld.DiscreteAction(gridworld.ActForward))
//
// Observations are owned by the Env and updated in place (Observation.Clone keeps one).
// Env.Info returns the reward terms of the last step for display. Many environments step in
// parallel with a Batch; RunBench measures throughput.
//
// # Rewards
//
// The reward follows the code of the original, not its README: the environment scores the
// synthetic grid (built grid minus starting grid) against the synthetic target (target minus
// starting grid), always rotation/translation invariant, with the lazy recomputation rule;
// reward = Δ(maximal intersection)·right_scale when it changed, else the change in block count
// (removed = +1, added = -1)·wrong_scale. The registered IGLUGridworld-v0 configuration wraps
// this in the size-reward wrapper (pays the starting grid's intersection once, then 0).
//
// # Data
//
// LoadIGLUDataset reads the multi-turn IGLU archive (dialogs.csv and builder-data/) into
// Sessions grouped in a Dataset, which is a TaskSource drawing tasks like the original.
package gridworld
