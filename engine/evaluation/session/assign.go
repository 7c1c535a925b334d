package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// Qualification name suffixes of gold units (spec §12, gold_qualification_base).
const (
	GoldCorrectSuffix = "-correct-golds"
	GoldWrongSuffix   = "-wrong-golds"
	GoldExtraSuffix   = "-extra-gold"
)

// GoldBase is the prefix of the project's gold qualifications.
func (p *Project) GoldBase() string {
	if b := p.Def().Settings.GoldQualificationBase; b != "" {
		return b
	}
	return p.Name + "_gold"
}

// PassedName is the qualification a passed screening grants.
func (p *Project) PassedName() string {
	passed, _ := p.Def().Settings.QualificationNames(p.Name)
	return passed
}

// BlockName is the qualification that keeps a participant out of the project.
func (p *Project) BlockName() string {
	_, block := p.Def().Settings.QualificationNames(p.Name)
	return block
}

// AssignmentState rebuilds the engine's assignment state from the store: the units held in
// the project and every participant's qualifications and completed groups. It returns the
// held units too.
func AssignmentState(ctx context.Context, st Store, p *Project) (*ev.AssignmentState, []ev.UnitRecord, error) {
	units, err := st.EvalHeldUnits(ctx, p.ID)
	if err != nil {
		return nil, nil, err
	}
	ps, err := st.EvalParticipants(ctx, p.ID)
	if err != nil {
		return nil, nil, err
	}
	passed, block := p.PassedName(), p.BlockName()
	state := ev.NewAssignmentState()
	base := p.GoldBase()
	for _, who := range ps {
		rec := state.Record(who.Name)
		rec.Passed = who.Qualifications[passed] > 0
		rec.Blocked = who.Qualifications[block] > 0
		rec.CorrectGolds = who.Qualifications[base+GoldCorrectSuffix]
		rec.WrongGolds = who.Qualifications[base+GoldWrongSuffix]
		rec.ExtraGold = who.Qualifications[base+GoldExtraSuffix] > 0
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
		state.Held = append(state.Held, ev.HeldUnit{Unit: UnitKey(u), Participant: u.Participant, Status: status})
	}
	return state, units, nil
}

// UnitKey is the engine's key of a stored unit. The store keeps a collection project's sessions
// as the units of one assignment; the engine numbers them as sessions {i, 0}.
func UnitKey(u ev.UnitRecord) ev.UnitKey {
	if u.Kind == ev.UnitCollection {
		return ev.UnitKey{Bundle: u.Index, Index: 0}
	}
	if u.Index < 0 {
		return ev.UnitKey{Bundle: 0, Index: u.Index}
	}
	return ev.UnitKey{Bundle: u.Position, Index: u.Index}
}

// AssignNext gives a participant their next unit by the engine's first-fit rules and reserves
// it in the store; refusal is the reason when there is none. Sessions call it under the
// project's lock (Session.Continue).
func AssignNext(ctx context.Context, st Store, p *Project, who ev.ParticipantSummary) (ev.UnitRecord, *ev.Refusal, error) {
	state, _, err := AssignmentState(ctx, st, p)
	if err != nil {
		return ev.UnitRecord{}, nil, err
	}
	initial, _ := json.Marshal(newAnswerState(who.Name))
	a, err := ev.NextUnit(p.Def(), state, who.Name)
	var refusal *ev.Refusal
	if errors.As(err, &refusal) {
		return ev.UnitRecord{}, refusal, nil
	}
	if err != nil {
		return ev.UnitRecord{}, nil, err
	}
	k := a.Unit
	switch {
	case k.IsScreening():
		u, err := st.EvalAssign(ctx, p.ID, who.ID, 0, ev.UnitScreening, ev.ScreeningIndex, nil, initial)
		return u, nil, err
	case k.IsGold():
		if k.Bundle < 0 || k.Bundle >= len(p.Def().Gold) {
			return ev.UnitRecord{}, nil, fmt.Errorf("gold unit %d: the project has %d gold bundles", k.Bundle, len(p.Def().Gold))
		}
		g := k.Bundle
		order := ev.NewUnitOrder(p.Def().Gold[g], 0, false)
		order.Gold = &g
		shown, _ := json.Marshal(order)
		u, err := st.EvalAssign(ctx, p.ID, who.ID, 0, ev.UnitGold, ev.GoldIndex, shown, initial)
		return u, nil, err
	}
	if p.Def().Settings.CollectDialogue {
		u, err := st.EvalUnitAt(ctx, p.ID, ev.UnitCollection, 0, k.Bundle)
		if err != nil {
			return ev.UnitRecord{}, nil, err
		}
		got, err := st.EvalAssign(ctx, p.ID, who.ID, u.ID, ev.UnitCollection, u.Index, nil, initial)
		return got, nil, err
	}
	if k.Bundle < 0 || k.Bundle >= len(p.Def().Bundles) {
		return ev.UnitRecord{}, nil, fmt.Errorf("unit %v: the project has %d assignments", k, len(p.Def().Bundles))
	}
	u, err := st.EvalUnitAt(ctx, p.ID, ev.UnitTask, k.Bundle, k.Index)
	if err != nil {
		return ev.UnitRecord{}, nil, fmt.Errorf("unit %v: %w", k, err)
	}
	seed := ev.UnitSeed(p.Def().Settings.RandomSeed, k)
	order := ev.NewUnitOrder(p.Def().Bundles[k.Bundle], seed, true)
	shown, _ := json.Marshal(order)
	got, err := st.EvalAssign(ctx, p.ID, who.ID, u.ID, ev.UnitTask, u.Index, shown, initial)
	return got, nil, err
}

// UnitDatapoints reads a unit's bundle (a gold unit's from the project's gold data) and
// applies its recorded order: the datapoints and their types in the order shown.
func UnitDatapoints(p *ev.Project, u ev.UnitRecord) ([]ev.Datapoint, [][]*ev.AnnotationType, error) {
	order, err := ev.ReadUnitOrder(u.Shown)
	if err != nil {
		return nil, nil, fmt.Errorf("unit %d: shown order: %w", u.ID, err)
	}
	var dps []ev.Datapoint
	if order.Gold != nil {
		if *order.Gold < 0 || *order.Gold >= len(p.Gold) {
			return nil, nil, fmt.Errorf("unit %d: gold bundle %d is not in the project", u.ID, *order.Gold)
		}
		dps = p.Gold[*order.Gold].Datapoints
	} else {
		bs, err := ev.ReadBundles(strings.NewReader(string(u.Bundle)), fmt.Sprintf("unit %d", u.ID))
		if err != nil || len(bs) != 1 {
			return nil, nil, fmt.Errorf("unit %d: its bundle cannot be read: %v", u.ID, err)
		}
		dps = bs[0].Datapoints
	}
	if order.Datapoints == nil {
		plain := ev.NewUnitOrder(ev.Bundle{Datapoints: dps}, 0, false)
		order.Datapoints, order.Tasks = plain.Datapoints, plain.Tasks
	}
	var outDps []ev.Datapoint
	var outTypes [][]*ev.AnnotationType
	for k, i := range order.Datapoints {
		if i < 0 || i >= len(dps) || k >= len(order.Tasks) {
			return nil, nil, fmt.Errorf("unit %d: shown order names datapoint %d of %d", u.ID, i, len(dps))
		}
		dp := dps[i]
		dp.AnnotationTasks = order.Tasks[k]
		var ts []*ev.AnnotationType
		for _, name := range dp.AnnotationTasks {
			t := p.Type(name)
			if t == nil {
				return nil, nil, fmt.Errorf("unit %d: dialogue %s names the unknown annotation type %q", u.ID, dp.DialogueID, name)
			}
			ts = append(ts, t)
		}
		outDps = append(outDps, dp)
		outTypes = append(outTypes, ts)
	}
	return outDps, outTypes, nil
}

// PreviewNext names the assignment a participant would be given next (their open unit when
// they hold one), without reserving anything: "screening", "gold-<bundle>", or
// "<bundle>-<slot>" (1-based), and "" when the project has no unit for them.
func PreviewNext(ctx context.Context, st Store, p *Project, who string) (string, error) {
	state, units, err := AssignmentState(ctx, st, p)
	if err != nil {
		return "", err
	}
	for _, u := range units {
		if u.Participant == who && u.Status == ev.UnitAssigned {
			return keyName(UnitKey(u), u.Kind), nil
		}
	}
	a, err := ev.NextUnit(p.Def(), state, who)
	var refusal *ev.Refusal
	if errors.As(err, &refusal) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return keyName(a.Unit, ""), nil
}

func keyName(k ev.UnitKey, kind string) string {
	switch {
	case k.IsScreening() || kind == ev.UnitScreening:
		return "screening"
	case k.IsGold() || kind == ev.UnitGold:
		return fmt.Sprintf("gold-%d", k.Bundle+1)
	}
	return fmt.Sprintf("%d-%d", k.Bundle+1, k.Index+1)
}
