package evaluation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// Qualification name suffixes of gold units (spec §12, gold_qualification_base).
const (
	goldCorrectSuffix = "-correct-golds"
	goldWrongSuffix   = "-wrong-golds"
	goldExtraSuffix   = "-extra-gold"
)

func goldBase(op *evalProject) string {
	if b := op.p.Settings.GoldQualificationBase; b != "" {
		return b
	}
	return op.info.Name + "_gold"
}

// assignmentState rebuilds the engine's assignment state from the store: the units held in
// this project and every participant's qualifications and completed groups.
func assignmentState(ctx context.Context, st Store, op *evalProject, passed, block string) (*ev.AssignmentState, []ev.UnitRecord, error) {
	units, err := st.EvalUnits(ctx, op.info.ID)
	if err != nil {
		return nil, nil, err
	}
	ps, err := st.EvalParticipants(ctx, op.info.ID)
	if err != nil {
		return nil, nil, err
	}
	state := ev.NewAssignmentState()
	base := goldBase(op)
	for _, p := range ps {
		rec := state.Record(p.Name)
		rec.Passed = p.Qualifications[passed] > 0
		rec.Blocked = p.Qualifications[block] > 0
		rec.CorrectGolds = p.Qualifications[base+goldCorrectSuffix]
		rec.WrongGolds = p.Qualifications[base+goldWrongSuffix]
		rec.ExtraGold = p.Qualifications[base+goldExtraSuffix] > 0
	}
	for _, u := range units {
		if u.ParticipantID == 0 {
			continue
		}
		if u.Kind == ev.UnitScreening {
			state.ScreeningUnits++
		}
		status := ev.UnitAssigned
		if u.Status == ev.UnitCompleted {
			status = ev.UnitCompleted
			if u.Index >= 0 {
				rec := state.Record(u.Participant)
				rec.GroupsDone = append(rec.GroupsDone, u.GroupID)
			}
		}
		state.Held = append(state.Held, ev.HeldUnit{Unit: unitKey(u), Participant: u.Participant, Status: status})
	}
	return state, units, nil
}

// unitKey is the engine's key of a stored unit. The store keeps a collection project's sessions
// as the units of one assignment; the engine numbers them as sessions {i, 0}.
func unitKey(u ev.UnitRecord) ev.UnitKey {
	if u.Kind == ev.UnitCollection {
		return ev.UnitKey{Bundle: u.Index, Index: 0}
	}
	if u.Index < 0 {
		return ev.UnitKey{Bundle: 0, Index: u.Index}
	}
	return ev.UnitKey{Bundle: u.Position, Index: u.Index}
}

// assignNextUnit gives a participant their next unit by the engine's first-fit rules and
// reserves it in the store; refusal is the participant-facing reason when there is none.
func assignNextUnit(ctx context.Context, st Store, op *evalProject, who ev.ParticipantSummary, passed, block string) (ev.UnitRecord, string, error) {
	state, units, err := assignmentState(ctx, st, op, passed, block)
	if err != nil {
		return ev.UnitRecord{}, "", err
	}
	state0 := newAnswerState(who.Name)
	initial, _ := json.Marshal(state0)
	a, err := ev.NextUnit(op.p, state, who.Name)
	var refusal *ev.Refusal
	if errors.As(err, &refusal) {
		return ev.UnitRecord{}, refusal.Message, nil
	}
	if err != nil {
		return ev.UnitRecord{}, "", err
	}
	k := a.Unit
	switch {
	case k.IsScreening():
		u, err := st.EvalAssign(ctx, op.info.ID, who.ID, 0, ev.UnitScreening, ev.ScreeningIndex, nil, initial)
		return u, "", err
	case k.IsGold():
		if k.Bundle < 0 || k.Bundle >= len(op.p.Gold) {
			return ev.UnitRecord{}, "", fmt.Errorf("gold unit %d: the project has %d gold bundles", k.Bundle, len(op.p.Gold))
		}
		g := k.Bundle
		order := ev.NewUnitOrder(op.p.Gold[g], 0, false)
		order.Gold = &g
		shown, _ := json.Marshal(order)
		u, err := st.EvalAssign(ctx, op.info.ID, who.ID, 0, ev.UnitGold, ev.GoldIndex, shown, initial)
		return u, "", err
	}
	for _, u := range units {
		if u.Kind == ev.UnitCollection && unitKey(u) == k {
			got, err := st.EvalAssign(ctx, op.info.ID, who.ID, u.ID, ev.UnitCollection, u.Index, nil, initial)
			return got, "", err
		}
		if u.Kind == ev.UnitTask && u.Position == k.Bundle && u.Index == k.Index {
			seed := ev.UnitSeed(op.p.Settings.RandomSeed, k)
			order := ev.NewUnitOrder(op.p.Bundles[k.Bundle], seed, true)
			shown, _ := json.Marshal(order)
			got, err := st.EvalAssign(ctx, op.info.ID, who.ID, u.ID, ev.UnitTask, u.Index, shown, initial)
			return got, "", err
		}
	}
	return ev.UnitRecord{}, "", fmt.Errorf("unit %v is not in the store", k)
}
