package gridworld

import (
	"math/rand/v2"
	"testing"
)

// TestStateCloneAndUpdate: a clone is independent of its state, and an action tried on a clone
// (place or break, then Update) ends where the env's step with that action ends.
func TestStateCloneAndUpdate(t *testing.T) {
	cfg := EnvDefaults()
	cfg.Render = false
	cfg.Discretize = true
	env, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	env.SetTask(DummyTask())
	if _, err := env.Reset(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ { // settle on the ground and look down at it
		if _, _, _, err := env.Step(DiscreteAction(ActPitchDown)); err != nil {
			t.Fatal(err)
		}
	}
	st := env.State()
	c := st.Clone()
	c.PlaceOrBreak(true, false)
	c.Update()
	if c.Version() == st.Version() || c.Grid() == st.Grid() {
		t.Fatal("the clone placed nothing where the agent looks at the ground")
	}
	if st.GridRef().Count() != 0 {
		t.Fatal("placing on the clone changed the env's state")
	}
	if _, _, _, err := env.Step(DiscreteAction(ActPlace)); err != nil {
		t.Fatal(err)
	}
	if c.Grid() != st.Grid() || c.Position() != st.Position() || c.Inventory() != st.Inventory() ||
		c.VerticalSpeed() != st.VerticalSpeed() || c.SubSteps() != st.SubSteps() {
		t.Fatal("the clone's place and update differ from the env's step")
	}
	c2 := st.Clone()
	c2.PlaceOrBreak(false, true)
	if c2.Grid() == st.Grid() || st.GridRef().Count() != 1 {
		t.Fatal("breaking on a clone: clone and state not independent")
	}
}

// TestWorldCellsOutsideTheZone: the world stores the zone densely and computes the ground; blocks
// a world starts with elsewhere (on the ground, beyond it, far away) read back, replace and
// remove like zone blocks, and AppendBlocks lists each cell once.
func TestWorldCellsOutsideTheZone(t *testing.T) {
	blocks := []Block{{0, GroundY, 0, Red}, {20, GroundY, 0, Blue}, {3, 3, 3, Green}, {-30, 5, 2, Yellow}}
	s := NewState(blocks, Vec3{0, RestEyeY, 0}, 0, 0)
	for _, b := range blocks {
		if id, ok := s.BlockAt(b.X, b.Y, b.Z); !ok || id != b.ID || s.IsGround(b.X, b.Y, b.Z) {
			t.Fatalf("%v reads back as %d %v ground %v", b, id, ok, s.IsGround(b.X, b.Y, b.Z))
		}
	}
	for _, g := range []Block{{1, GroundY, 1, White}, {-5, GroundY, 5, White}, {6, GroundY, 0, Grey}, {-18, GroundY, 18, Grey}} {
		if id, ok := s.BlockAt(g.X, g.Y, g.Z); !ok || id != g.ID || !s.IsGround(g.X, g.Y, g.Z) {
			t.Fatalf("ground %v reads %d %v", g, id, ok)
		}
	}
	for _, air := range [][3]int{{19, GroundY, 0}, {0, GroundY - 1, 0}, {0, -1, 0}, {40, 40, 40}} {
		if s.has(air[0], air[1], air[2]) {
			t.Fatalf("%v should be air", air)
		}
	}
	all := s.AppendBlocks(nil, true)
	if want := 37*37 - 1 + len(blocks); len(all) != want {
		t.Fatalf("AppendBlocks with ground: %d blocks, want %d", len(all), want)
	}
	if placed := s.AppendBlocks(nil, false); len(placed) != len(blocks) {
		t.Fatalf("placed blocks: %v", placed)
	}
	s.clearPlaced() // the replaced ground cell stays empty, as in the original
	if s.has(0, GroundY, 0) || s.has(20, GroundY, 0) || s.has(3, 3, 3) || !s.has(1, GroundY, 0) {
		t.Fatal("clearing the placed blocks")
	}
	if n := len(s.AppendBlocks(nil, true)); n != 37*37-1 {
		t.Fatalf("after clearing: %d blocks", n)
	}
}

// TestHitTestMatchesTheSampling: the ray cast, with its quotient computed once and its early
// end beyond the ground's slab, finds what sampling every 0.2 blocks over the whole range
// finds, for random eyes and directions, with and without blocks outside the zone.
func TestHitTestMatchesTheSampling(t *testing.T) {
	naive := func(s *State, pos, dir Vec3, maxDist int) Focus {
		const m = 5
		x, y, z := pos[0], pos[1], pos[2]
		var f Focus
		var prev [3]int
		hasPrev := false
		for i := 0; i < maxDist*m; i++ {
			kx, ky, kz := BlockOf(x, y, z)
			k := [3]int{kx, ky, kz}
			if (!hasPrev || k != prev) && s.has(kx, ky, kz) {
				f.Hit, f.HasHit = k, true
				f.Before, f.HasBefore = prev, hasPrev
				return f
			}
			prev, hasPrev = k, true
			x, y, z = x+dir[0]/m, y+dir[1]/m, z+dir[2]/m
		}
		return f
	}
	rng := rand.New(rand.NewPCG(7, 9))
	worlds := map[string][]Block{"zone only": nil, "blocks beyond the ground": {{25, 3, 0, Red}, {0, 12, 0, Blue}, {-3, -6, 2, Green}}}
	for name, extra := range worlds {
		var blocks []Block
		for i := 0; i < 60; i++ {
			blocks = append(blocks, Block{rng.IntN(11) - 5, rng.IntN(9) - 1, rng.IntN(11) - 5, 1 + rng.IntN(NumColors)})
		}
		s := NewState(append(blocks, extra...), Vec3{}, 0, 0)
		hits := 0
		for i := 0; i < 200000; i++ {
			pos := Vec3{rng.Float64()*50 - 25, rng.Float64()*20 - 6, rng.Float64()*50 - 25}
			yaw, pitch := rng.Float64()*360, rng.Float64()*180-90
			if i%5 == 0 { // axis-aligned and level rays: a zero component
				yaw, pitch = float64(90*rng.IntN(4)), float64(90*(rng.IntN(3)-1))
			}
			s.SetPose(pos, yaw, pitch)
			dir := s.Sight()
			got, want := s.hitTest(pos, dir, HitDistance), naive(s, pos, dir, HitDistance)
			if got != want {
				t.Fatalf("%s: eye %v yaw %.3f pitch %.3f: %+v, sampling finds %+v", name, pos, yaw, pitch, got, want)
			}
			if got.HasHit {
				hits++
			}
		}
		if hits < 10000 {
			t.Fatalf("%s: only %d rays hit something: the test does not test", name, hits)
		}
	}
}
