package template

import (
	"fmt"
	"strings"
)

// countedSlots are the TaskEventSlots fields whose ids are rebased (null_listener is not).
var countedSlots = []int32{slotsScore, slotsReward, slotsEpisodeEnd, slotsExtra, slotsJSONExtra, slotsInstruction}

// wrappedSlots become OR slots with one nested child per token.
var wrappedSlots = []int32{slotsScore, slotsReward, slotsExtra, slotsJSONExtra, slotsInstruction}

// maxID is the largest of a slot's id and the ids of its nested child slots.
func maxID(slot *message) int32 {
	if slot == nil {
		return 0
	}
	m := slot.int32v(slotID)
	for _, c := range slot.msgs(slotEvents) {
		if e := c.sub(fakeEvent); e != nil {
			if n := maxID(e); n > m {
				m = n
			}
		}
	}
	return m
}

// tokenBase is max(event source ids, maxID of the counted slots); a token without event
// sources fails like the original's max() of an empty sequence.
func tokenBase(t *message) (int32, bool) {
	srcs := t.msgs(taskEventSrcs)
	if len(srcs) == 0 {
		return 0, false
	}
	base := srcs[0].int32v(sourceID)
	for _, s := range srcs[1:] {
		if n := s.int32v(sourceID); n > base {
			base = n
		}
	}
	if slots := t.sub(taskEventSlots); slots != nil {
		for _, num := range countedSlots {
			if n := maxID(slots.sub(num)); n > base {
				base = n
			}
		}
	}
	return base, true
}

// rebaseSlot adds base to the ids of a slot tree: the slot id only when positive, every id
// reference (also an explicit 0) and every prerequisite.
func rebaseSlot(slot *message, base int32) {
	if id := slot.int32v(slotID); id > 0 {
		slot.set(slotID, id+base)
	}
	for _, c := range slot.msgs(slotEvents) {
		switch w := c.whichOneof("source"); {
		case w == nil:
		case w.number == fakeID:
			c.set(fakeID, c.int32v(fakeID)+base)
		default:
			rebaseSlot(c.sub(fakeEvent), base)
		}
	}
	for i, p := range slot.ints(slotPrerequisite) {
		slot.ints(slotPrerequisite)[i] = p + base
	}
}

func rebaseToken(t *message, base int32) {
	for _, s := range t.msgs(taskEventSrcs) {
		s.set(sourceID, s.int32v(sourceID)+base)
	}
	if slots := t.sub(taskEventSlots); slots != nil {
		for _, num := range countedSlots {
			if s := slots.sub(num); s != nil {
				rebaseSlot(s, base)
			}
		}
	}
}

// nestedChild returns a FakeSource whose event is a copy of slot (an empty slot when nil).
func nestedChild(slot *message) *message {
	c := newMessage(descFakeSource)
	if slot == nil {
		slot = newMessage(descEventSlot)
	} else {
		slot = slot.clone()
	}
	c.set(fakeEvent, slot)
	return c
}

func eventSlot(t *message, num int32) *message {
	if slots := t.sub(taskEventSlots); slots != nil {
		return slots.sub(num)
	}
	return nil
}

// chainTokens combines parsed tokens into one multi-step task (specs/mobileenv.md §C.6). The
// tokens are modified (rebased) in place.
func chainTokens(tokens []*message, opts []TaskToken, noAutocat bool, names []string) (*message, error) {
	if len(tokens) == 0 {
		return nil, &Error{Category: CatBadTaskLine, Offset: -1, End: -1, Msg: "empty task file", Python: "IndexError: list index out of range"}
	}
	first := tokens[0]
	out := first.clone()
	outSlots := out.mutable(taskEventSlots)
	for _, num := range wrappedSlots {
		wrapped := newMessage(descEventSlot)
		wrapped.set(slotType, int32(2)) // OR
		wrapped.appendMsg(slotEvents, nestedChild(eventSlot(first, num)))
		outSlots.set(num, wrapped)
	}
	base, ok := tokenBase(first)
	if !ok {
		return nil, noSources(names[0])
	}
	for i := 1; i < len(tokens); i++ {
		t := tokens[i]
		out.set(taskID, out.str(taskID)+"-"+t.str(taskID))
		name := t.str(taskName)
		if _, after, found := strings.Cut(name, " - "); found {
			name = after
		}
		out.set(taskName, out.str(taskName)+", "+name)
		out.set(taskDescription, out.str(taskDescription)+"\n"+t.str(taskDescription))
		if opts[i].KeepSetup {
			for _, s := range t.msgs(taskSetupSteps) {
				out.appendMsg(taskSetupSteps, s.clone())
			}
		}
		if opts[i].KeepReset {
			for _, s := range t.msgs(taskResetSteps) {
				out.appendMsg(taskResetSteps, s.clone())
			}
		}
		rebaseToken(t, base)
		var ok bool
		if base, ok = tokenBase(t); !ok {
			return nil, noSources(names[i])
		}
		for _, s := range t.msgs(taskEventSrcs) {
			out.appendMsg(taskEventSrcs, s.clone())
		}
		for _, num := range []int32{slotsScore, slotsReward, slotsExtra, slotsJSONExtra} {
			outSlots.sub(num).appendMsg(slotEvents, nestedChild(eventSlot(t, num)))
		}
		instr := eventSlot(tokens[i-1], slotsEpisodeEnd).clone()
		if instr == nil {
			instr = newMessage(descEventSlot)
		}
		cmds := t.strs(taskCommand)
		reprs := make([]string, len(cmds))
		for k, c := range cmds {
			reprs[k] = pyRepr(c)
		}
		instr.clear(slotTransformation)
		instr.appendStrs(slotTransformation, "y = ["+strings.Join(reprs, ", ")+"]")
		outSlots.sub(slotsInstruction).appendMsg(slotEvents, nestedChild(instr))
		outSlots.sub(slotsInstruction).appendMsg(slotEvents, nestedChild(eventSlot(t, slotsInstruction)))
		for _, s := range t.msgs(taskExtrasSpec) {
			out.appendMsg(taskExtrasSpec, s.clone())
		}
		if !noAutocat || opts[i].KeepCommands {
			if len(cmds) == 0 || cmds[0] == "" {
				py := "IndexError: list index out of range"
				if len(cmds) > 0 {
					py = "IndexError: string index out of range"
				}
				return nil, &Error{Category: CatMissingCommand, Offset: -1, End: -1, File: names[i], Python: py,
					Msg: fmt.Sprintf("token %s has no (non-empty) first command, needed for \"Then, …\" (use --no-autocat-commands)", names[i])}
			}
			c0 := cmds[0]
			r := []rune(c0)
			cmds = append([]string{"Then, " + pyLower(string(r[0])) + string(r[1:])}, cmds[1:]...)
			out.appendStrs(taskCommand, cmds...)
		}
		out.appendStrs(taskVocabulary, t.strs(taskVocabulary)...)
	}
	last := eventSlot(tokens[len(tokens)-1], slotsEpisodeEnd)
	if last == nil {
		last = newMessage(descEventSlot)
	}
	outSlots.set(slotsEpisodeEnd, last.clone())
	// deduplicate the vocabulary (first-occurrence order; the original's order is a hash-set's)
	if voc := out.strs(taskVocabulary); len(voc) > 0 {
		seen := make(map[string]bool, len(voc))
		var dedup []string
		for _, w := range voc {
			if !seen[w] {
				seen[w] = true
				dedup = append(dedup, w)
			}
		}
		out.clear(taskVocabulary)
		out.appendStrs(taskVocabulary, dedup...)
	}
	return out, nil
}

func noSources(name string) *Error {
	return &Error{Category: CatMissingEventSources, Offset: -1, End: -1, File: name,
		Msg:    fmt.Sprintf("token %s has no event_sources (every token needs at least one to number its events)", name),
		Python: "ValueError: max() arg is an empty sequence"}
}
