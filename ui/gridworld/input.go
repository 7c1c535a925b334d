package gridworld

import (
	"image/color"

	"fyne.io/fyne/v2"

	"github.com/agentdesk/agentdesk/engine/gridworld"
)

// Input is one thing a player does in the Gridworld workspace. Each maps to exactly one env
// action, so a played episode is a valid action sequence for the env.
type Input int

const (
	InputForward Input = iota
	InputBack
	InputLeft
	InputRight
	InputJump // walking: jump; flying: up
	InputDown // flying only: down
	InputYawLeft
	InputYawRight
	InputPitchUp
	InputPitchDown
	InputBreak
	InputPlace
	InputSelect1 // InputSelect1+k selects colour k+1 (k = 0..5)
)

// keyInputs is the keyboard layout: WASD move, Space jump/up, C down, arrows look, 1-6 select
// a colour, Q break, E place (the mouse also breaks with a click and places with a right click).
var keyInputs = map[fyne.KeyName]Input{
	fyne.KeyW: InputForward, fyne.KeyS: InputBack, fyne.KeyA: InputLeft, fyne.KeyD: InputRight,
	fyne.KeySpace: InputJump, fyne.KeyC: InputDown,
	fyne.KeyLeft: InputYawLeft, fyne.KeyRight: InputYawRight, fyne.KeyUp: InputPitchUp, fyne.KeyDown: InputPitchDown,
	fyne.KeyQ: InputBreak, fyne.KeyE: InputPlace,
	fyne.Key1: InputSelect1, fyne.Key2: InputSelect1 + 1, fyne.Key3: InputSelect1 + 2,
	fyne.Key4: InputSelect1 + 3, fyne.Key5: InputSelect1 + 4, fyne.Key6: InputSelect1 + 5,
}

// cameraStep is the camera change of one look input, in degrees: the discrete actions' step
// and the largest the dictionary and flying forms allow.
const cameraStep = 5

// ActionFor maps an input to the action of the given form. ok is false when the form has no
// such action (there is no "down" when walking).
func ActionFor(in Input, kind gridworld.ActionKind) (a gridworld.Action, ok bool) {
	switch kind {
	case gridworld.KindDiscrete:
		n, ok := discreteFor(in)
		return gridworld.DiscreteAction(n), ok
	case gridworld.KindWalkDict:
		a.Kind = gridworld.KindWalkDict
		switch in {
		case InputForward:
			a.Forward = true
		case InputBack:
			a.Back = true
		case InputLeft:
			a.Left = true
		case InputRight:
			a.Right = true
		case InputJump:
			a.Jump = true
		case InputBreak:
			a.Attack = true
		case InputPlace:
			a.Use = true
		case InputDown:
			return a, false
		default:
			if !lookOrSelect(in, &a) {
				return a, false
			}
		}
		return a, true
	case gridworld.KindFly:
		a.Kind = gridworld.KindFly
		switch in {
		case InputForward:
			a.Movement[0] = -1
		case InputBack:
			a.Movement[0] = 1
		case InputLeft:
			a.Movement[1] = -1
		case InputRight:
			a.Movement[1] = 1
		case InputJump:
			a.Movement[2] = 1
		case InputDown:
			a.Movement[2] = -1
		case InputBreak:
			a.Placement = gridworld.PlaceBreak
		case InputPlace:
			a.Placement = gridworld.PlaceBlock
		default:
			if !lookOrSelect(in, &a) {
				return a, false
			}
		}
		return a, true
	}
	return a, false
}

func lookOrSelect(in Input, a *gridworld.Action) bool {
	switch {
	case in == InputYawLeft:
		a.Camera[0] = -cameraStep
	case in == InputYawRight:
		a.Camera[0] = cameraStep
	case in == InputPitchUp:
		a.Camera[1] = cameraStep
	case in == InputPitchDown:
		a.Camera[1] = -cameraStep
	case in >= InputSelect1 && in < InputSelect1+gridworld.NumColors:
		a.Select = int(in-InputSelect1) + 1
	default:
		return false
	}
	return true
}

func discreteFor(in Input) (int, bool) {
	switch {
	case in == InputForward:
		return gridworld.ActForward, true
	case in == InputBack:
		return gridworld.ActBackward, true
	case in == InputLeft:
		return gridworld.ActLeft, true
	case in == InputRight:
		return gridworld.ActRight, true
	case in == InputJump:
		return gridworld.ActJump, true
	case in == InputYawLeft:
		return gridworld.ActYawLeft, true
	case in == InputYawRight:
		return gridworld.ActYawRight, true
	case in == InputPitchUp:
		return gridworld.ActPitchUp, true
	case in == InputPitchDown:
		return gridworld.ActPitchDown, true
	case in == InputBreak:
		return gridworld.ActBreak, true
	case in == InputPlace:
		return gridworld.ActPlace, true
	case in >= InputSelect1 && in < InputSelect1+gridworld.NumColors:
		return gridworld.ActSelect1 + int(in-InputSelect1), true
	}
	return gridworld.ActNoop, false
}

// blockColors are the six building colours (top-face shades of the IGLU palette), by id-1.
var blockColors = [gridworld.NumColors]color.NRGBA{
	{0, 162, 232, 255}, {34, 177, 76, 255}, {237, 28, 36, 255},
	{255, 127, 39, 255}, {163, 73, 164, 255}, {255, 242, 0, 255},
}

// blockNames are the colours' names, by id-1.
var blockNames = [gridworld.NumColors]string{"blue", "green", "red", "orange", "purple", "yellow"}
