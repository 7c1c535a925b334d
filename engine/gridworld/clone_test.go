package gridworld

import "testing"

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
