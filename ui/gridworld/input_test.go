package gridworld

import (
	"testing"

	"github.com/agentdesk/agentdesk/engine/gridworld"
)

func TestEveryInputIsAValidActionOfEachForm(t *testing.T) {
	inputs := []Input{InputForward, InputBack, InputLeft, InputRight, InputJump, InputDown, InputYawLeft,
		InputYawRight, InputPitchUp, InputPitchDown, InputBreak, InputPlace}
	for k := 0; k < gridworld.NumColors; k++ {
		inputs = append(inputs, InputSelect1+Input(k))
	}
	for _, kind := range []gridworld.ActionKind{gridworld.KindDiscrete, gridworld.KindWalkDict, gridworld.KindFly} {
		for _, in := range inputs {
			a, ok := ActionFor(in, kind)
			if in == InputDown && kind != gridworld.KindFly {
				if ok {
					t.Errorf("%v: walking has no down action", kind)
				}
				continue
			}
			if !ok {
				t.Errorf("%v: input %d has no action", kind, in)
				continue
			}
			if err := a.Validate(); err != nil {
				t.Errorf("%v: input %d: invalid action: %v", kind, in, err)
			}
		}
	}
}

func TestInputsMatchTheDiscreteActionTable(t *testing.T) {
	want := map[Input]int{InputForward: 1, InputBack: 2, InputLeft: 3, InputRight: 4, InputJump: 5,
		InputSelect1: 6, InputSelect1 + 5: 11, InputYawLeft: 12, InputYawRight: 13, InputPitchDown: 14,
		InputPitchUp: 15, InputBreak: 16, InputPlace: 17}
	for in, n := range want {
		a, ok := ActionFor(in, gridworld.KindDiscrete)
		if !ok || a.Discrete != n {
			t.Errorf("input %d -> %d, want %d", in, a.Discrete, n)
		}
	}
	// The dictionary and flying forms move the same way as the discrete one.
	for _, kind := range []gridworld.ActionKind{gridworld.KindWalkDict, gridworld.KindFly} {
		a, _ := ActionFor(InputPitchUp, kind)
		if a.Camera != [2]float32{0, cameraStep} {
			t.Errorf("%v pitch up: camera %v", kind, a.Camera)
		}
		a, _ = ActionFor(InputSelect1+2, kind)
		if a.Select != 3 {
			t.Errorf("%v select 3: %d", kind, a.Select)
		}
	}
	if a, _ := ActionFor(InputForward, gridworld.KindFly); a.Movement != [3]float32{-1, 0, 0} {
		t.Errorf("flying forward: %v", a.Movement)
	}
}
