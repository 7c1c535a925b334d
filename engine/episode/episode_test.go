package episode

import "testing"

func TestEpisodeValidateAndReward(t *testing.T) {
	e := &Episode{Source: SourceGridworld, ExternalID: "run-1", Steps: []Step{{Index: 0, Reward: 0.5}, {Index: 1, Reward: -0.25}}}
	if err := e.Validate(); err != nil {
		t.Fatalf("valid episode refused: %v", err)
	}
	if got := e.TotalReward(); got != 0.25 {
		t.Fatalf("TotalReward = %v, want 0.25", got)
	}
	e.Steps[1].Index = 5
	if err := e.Validate(); err == nil {
		t.Fatal("episode with a misnumbered step accepted")
	}
	if err := (&Episode{Source: "x"}).Validate(); err == nil {
		t.Fatal("episode without external id accepted")
	}
	if err := (&Episode{ExternalID: "x"}).Validate(); err == nil {
		t.Fatal("episode without source accepted")
	}
}

func TestSplitSizeAndOverview(t *testing.T) {
	s := Split{Parts: map[string][]Key{"train": {{"odyssey", "a"}, {"odyssey", "b"}}, "test": {{"odyssey", "c"}}}}
	if s.Size() != 3 {
		t.Fatalf("Size = %d, want 3", s.Size())
	}
	o := Overview{EpisodesBySource: map[string]int{"odyssey": 3, "gridworld": 2}}
	if o.Episodes() != 5 {
		t.Fatalf("Episodes = %d, want 5", o.Episodes())
	}
}
