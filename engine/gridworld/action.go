package gridworld

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
)

// ActionSpace names the two action spaces of the original.
type ActionSpace string

const (
	// Walking: gravity, jumping; discrete Discrete(18) form or dictionary form.
	Walking ActionSpace = "walking"
	// Flying: continuous movement vector, camera, inventory selection, placement.
	Flying ActionSpace = "flying"
)

// ActionKind tells which form an Action is in.
type ActionKind uint8

const (
	// KindDiscrete is the walking Discrete(18) form (field Discrete).
	KindDiscrete ActionKind = iota
	// KindWalkDict is the walking dictionary form (Forward..Use, Camera, Select).
	KindWalkDict
	// KindFly is the flying form (Movement, Camera, Select, Placement).
	KindFly
)

func (k ActionKind) String() string {
	switch k {
	case KindDiscrete:
		return "discrete"
	case KindWalkDict:
		return "walking-dict"
	case KindFly:
		return "flying"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Discrete walking actions (spec §6.2).
const (
	ActNoop      = 0
	ActForward   = 1
	ActBackward  = 2
	ActLeft      = 3
	ActRight     = 4
	ActJump      = 5
	ActSelect1   = 6 // 6..11 select colour action-5
	ActYawLeft   = 12
	ActYawRight  = 13
	ActPitchDown = 14 // looks down (the upstream README calls it "camera up")
	ActPitchUp   = 15
	ActBreak     = 16
	ActPlace     = 17
	NumDiscrete  = 18
)

// Placement values of the flying form.
const (
	PlaceNone  = 0
	PlaceBlock = 1
	PlaceBreak = 2
)

// Action is one action in any of the three forms; Kind selects which fields are used.
// Camera and Movement are float32 like the original's Box spaces; they are widened to
// float64 before use.
type Action struct {
	Kind ActionKind
	// Discrete is the Discrete(18) action (KindDiscrete). Integers outside 0..17 do nothing.
	Discrete int
	// Walking dictionary keys (KindWalkDict): attack = break, use = place.
	Forward, Back, Left, Right, Jump, Attack, Use bool
	// Camera is (dyaw, dpitch) in degrees, each in [-5, 5] (KindWalkDict, KindFly).
	Camera [2]float32
	// Select is the colour to select, 0 = none, 1..6 (dictionary "hotbar", flying "inventory").
	Select int
	// Movement is [forward(-)/back(+), left(-)/right(+), down(-)/up(+)], each in [-1, 1] (KindFly).
	Movement [3]float32
	// Placement is 0 none, 1 place, 2 break (KindFly).
	Placement int
}

// DiscreteAction returns a walking Discrete(18) action.
func DiscreteAction(n int) Action { return Action{Kind: KindDiscrete, Discrete: n} }

// decoded is the action broken into the inputs of spec §6.1.
type decoded struct {
	s0, s1, u      float64
	sel            int
	dyaw, dpitch   float64
	place, breakIt bool
}

func (a *Action) decode() (decoded, error) {
	var d decoded
	switch a.Kind {
	case KindDiscrete:
		switch n := a.Discrete; {
		case n == ActForward:
			d.s0 = -1
		case n == ActBackward:
			d.s0 = 1
		case n == ActLeft:
			d.s1 = -1
		case n == ActRight:
			d.s1 = 1
		case n == ActJump:
			d.u = 1
		case n >= ActSelect1 && n < ActSelect1+NumColors:
			d.sel = n - ActSelect1 + 1
		case n == ActYawLeft:
			d.dyaw = -5
		case n == ActYawRight:
			d.dyaw = 5
		case n == ActPitchDown:
			d.dpitch = -5
		case n == ActPitchUp:
			d.dpitch = 5
		case n == ActBreak:
			d.breakIt = true
		case n == ActPlace:
			d.place = true
		}
	case KindWalkDict:
		if a.Forward {
			d.s0--
		}
		if a.Back {
			d.s0++
		}
		if a.Left {
			d.s1--
		}
		if a.Right {
			d.s1++
		}
		if a.Jump {
			d.u = 1
		}
		if a.Select < 0 || a.Select > NumColors {
			return d, fmt.Errorf("hotbar %d: want 0..6", a.Select)
		}
		d.sel = a.Select
		d.dyaw, d.dpitch = float64(a.Camera[0]), float64(a.Camera[1])
		d.breakIt, d.place = a.Attack, a.Use
	case KindFly:
		d.s0, d.s1, d.u = float64(a.Movement[0]), float64(a.Movement[1]), float64(a.Movement[2])
		if a.Select < 0 || a.Select > NumColors {
			return d, fmt.Errorf("inventory %d: want 0..6", a.Select)
		}
		d.sel = a.Select
		d.dyaw, d.dpitch = float64(a.Camera[0]), float64(a.Camera[1])
		switch a.Placement {
		case PlaceNone:
		case PlaceBlock:
			d.place = true
		case PlaceBreak:
			d.breakIt = true
		default:
			return d, fmt.Errorf("placement %d: want 0..2", a.Placement)
		}
	default:
		return d, fmt.Errorf("unknown action kind %d", a.Kind)
	}
	return d, nil
}

// Validate checks an action against its form's ranges (camera in [-5, 5], movement in
// [-1, 1], selections in range, finite numbers).
func (a *Action) Validate() error {
	if a.Kind == KindWalkDict || a.Kind == KindFly {
		for i, c := range a.Camera {
			if c != c || c < -5 || c > 5 {
				return fmt.Errorf("camera[%d] = %v: want a number in [-5, 5]", i, c)
			}
		}
	}
	if a.Kind == KindFly {
		for i, m := range a.Movement {
			if m != m || m < -1 || m > 1 {
				return fmt.Errorf("movement[%d] = %v: want a number in [-1, 1]", i, m)
			}
		}
	}
	_, err := a.decode()
	return err
}

// MarshalJSON writes the action in the original's form: an integer for the discrete form,
// an object for the dictionary and flying forms.
func (a Action) MarshalJSON() ([]byte, error) {
	b2i := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	switch a.Kind {
	case KindDiscrete:
		return []byte(strconv.Itoa(a.Discrete)), nil
	case KindWalkDict:
		return json.Marshal(struct {
			Forward int        `json:"forward"`
			Back    int        `json:"back"`
			Left    int        `json:"left"`
			Right   int        `json:"right"`
			Jump    int        `json:"jump"`
			Attack  int        `json:"attack"`
			Use     int        `json:"use"`
			Camera  [2]float32 `json:"camera"`
			Hotbar  int        `json:"hotbar"`
		}{b2i(a.Forward), b2i(a.Back), b2i(a.Left), b2i(a.Right), b2i(a.Jump), b2i(a.Attack), b2i(a.Use), a.Camera, a.Select})
	case KindFly:
		return json.Marshal(struct {
			Movement  [3]float32 `json:"movement"`
			Camera    [2]float32 `json:"camera"`
			Inventory int        `json:"inventory"`
			Placement int        `json:"placement"`
		}{a.Movement, a.Camera, a.Select, a.Placement})
	}
	return nil, fmt.Errorf("unknown action kind %d", a.Kind)
}

// DecodeAction parses an action in the JSON form of the original (as in the episode files):
// an integer for the discrete walking form; an object with forward, back, left, right, jump,
// attack, use, camera, hotbar for the walking dictionary form; an object with movement,
// camera, inventory, placement for the flying form. space and discrete say which form is
// expected. Errors name the offending key.
func DecodeAction(data []byte, space ActionSpace, discrete bool) (Action, error) {
	data = bytes.TrimSpace(data)
	switch {
	case space == Walking && discrete:
		n, err := jsonInt(data)
		if err != nil {
			return Action{}, fmt.Errorf("discrete action: %w", err)
		}
		return DiscreteAction(n), nil
	case space == Walking:
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			return Action{}, fmt.Errorf("walking action: %w", err)
		}
		a := Action{Kind: KindWalkDict}
		for k, v := range raw {
			var err error
			switch k {
			case "forward":
				a.Forward, err = jsonFlag(v)
			case "back":
				a.Back, err = jsonFlag(v)
			case "left":
				a.Left, err = jsonFlag(v)
			case "right":
				a.Right, err = jsonFlag(v)
			case "jump":
				a.Jump, err = jsonFlag(v)
			case "attack":
				a.Attack, err = jsonFlag(v)
			case "use":
				a.Use, err = jsonFlag(v)
			case "camera":
				err = jsonFloat32s(v, a.Camera[:])
			case "hotbar":
				a.Select, err = jsonInt(v)
			default:
				err = fmt.Errorf("unknown key")
			}
			if err != nil {
				return Action{}, fmt.Errorf("walking action: key %q: %w", k, err)
			}
		}
		if err := a.Validate(); err != nil {
			return Action{}, fmt.Errorf("walking action: %w", err)
		}
		return a, nil
	case space == Flying:
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			return Action{}, fmt.Errorf("flying action: %w", err)
		}
		a := Action{Kind: KindFly}
		for k, v := range raw {
			var err error
			switch k {
			case "movement":
				err = jsonFloat32s(v, a.Movement[:])
			case "camera":
				err = jsonFloat32s(v, a.Camera[:])
			case "inventory":
				a.Select, err = jsonInt(v)
			case "placement":
				a.Placement, err = jsonInt(v)
			default:
				err = fmt.Errorf("unknown key")
			}
			if err != nil {
				return Action{}, fmt.Errorf("flying action: key %q: %w", k, err)
			}
		}
		if err := a.Validate(); err != nil {
			return Action{}, fmt.Errorf("flying action: %w", err)
		}
		return a, nil
	}
	return Action{}, fmt.Errorf("unknown action space %q", space)
}

func jsonInt(data []byte) (int, error) {
	var f float64
	if err := json.Unmarshal(data, &f); err != nil {
		return 0, err
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<31 {
		return 0, fmt.Errorf("%v is not an integer", f)
	}
	return int(f), nil
}

func jsonFlag(data []byte) (bool, error) {
	if b := bytes.TrimSpace(data); bytes.Equal(b, []byte("true")) || bytes.Equal(b, []byte("false")) {
		return b[0] == 't', nil
	}
	n, err := jsonInt(data)
	if err != nil {
		return false, err
	}
	if n != 0 && n != 1 {
		return false, fmt.Errorf("%d: want 0 or 1", n)
	}
	return n == 1, nil
}

func jsonFloat32s(data []byte, dst []float32) error {
	var v []float64
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	if len(v) != len(dst) {
		return fmt.Errorf("want %d numbers, got %d", len(dst), len(v))
	}
	for i, f := range v {
		dst[i] = float32(f)
	}
	return nil
}

// SampleAction draws a uniformly random action of the given form, like the original's
// action_space.sample(): Discrete(18); dictionary keys 0/1 with camera uniform in [-5, 5] and
// hotbar 0..6; flying movement uniform in [-1, 1], camera in [-5, 5], inventory 0..6,
// placement 0..2.
func SampleAction(rng *rand.Rand, space ActionSpace, discrete bool) Action {
	switch {
	case space == Flying:
		var a Action
		a.Kind = KindFly
		for i := range a.Movement {
			a.Movement[i] = float32(rng.Float64()*2 - 1)
		}
		a.Camera = [2]float32{float32(rng.Float64()*10 - 5), float32(rng.Float64()*10 - 5)}
		a.Select = rng.IntN(NumColors + 1)
		a.Placement = rng.IntN(3)
		return a
	case discrete:
		return DiscreteAction(rng.IntN(NumDiscrete))
	default:
		bits := rng.Uint64()
		a := Action{Kind: KindWalkDict,
			Forward: bits&1 != 0, Back: bits&2 != 0, Left: bits&4 != 0, Right: bits&8 != 0,
			Jump: bits&16 != 0, Attack: bits&32 != 0, Use: bits&64 != 0}
		a.Camera = [2]float32{float32(rng.Float64()*10 - 5), float32(rng.Float64()*10 - 5)}
		a.Select = rng.IntN(NumColors + 1)
		return a
	}
}
