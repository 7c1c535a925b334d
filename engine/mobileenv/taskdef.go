package mobileenv

import (
	"fmt"

	"github.com/agentdesk/agentdesk/engine/limits"
	"github.com/agentdesk/agentdesk/engine/template"
)

// TaskDef is what the pickle tools need of a task definition (a Task textproto). It is read by
// engine/template's reader, which accepts and rejects exactly what the original's protobuf
// text parser does.
type TaskDef struct {
	ID         string
	Vocabulary []string
	// instructions holds, per nested instruction slot with child events, its transformations.
	instructions [][]string
}

// ReadTaskDef reads a task definition textproto.
func ReadTaskDef(path string) (*TaskDef, error) {
	data, err := limits.ReadFile(path, limits.TaskDefinition)
	if err != nil {
		return nil, err
	}
	return ParseTaskDef(path, data)
}

// ParseTaskDef parses task definition text; name is used in error messages.
func ParseTaskDef(name string, data []byte) (*TaskDef, error) {
	id, vocab, instr, err := template.ReadTaskDef(name, string(data))
	if err != nil {
		return nil, err
	}
	return &TaskDef{ID: id, Vocabulary: vocab, instructions: instr}, nil
}

// InstructionOptions computes the instruction options of a task definition (spec §B.3 step 4):
// for each entry of event_slots.instruction_listener.events that is a nested slot with at least
// one child event, the value of y after its first transformation. Options are shared objects:
// records set to the same option refer to the same value (as in Python).
func (td *TaskDef) InstructionOptions() ([]any, error) {
	var out []any
	for i, tr := range td.instructions {
		if len(tr) == 0 {
			return nil, fmt.Errorf("%s: nested instruction slot %d has no transformation: %w", td.ID, i+1, indexError())
		}
		v, err := EvalTransformation(tr[0])
		if err != nil {
			return nil, fmt.Errorf("%s: instruction transformation %q: %w", td.ID, tr[0], err)
		}
		out = append(out, v)
	}
	return out, nil
}
