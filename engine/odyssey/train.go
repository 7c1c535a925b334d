package odyssey

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// The official converter (data/format_converter.py) writes, for a split, training chats of the
// train part (build_train_chat, or build_train_semantic_chat with three more kinds of turn), the
// test records of the test part (build_test: TestRecords) and an index of every image's
// previous screenshots (make_his_idx). This file builds the chats and the index.

// Types of training chats, as the converter's --type.
const (
	ChatStandard = "standard"
	ChatSemantic = "semantic"
)

// DefaultHisLen is the converter's default --his_len: how many previous actions a prompt lists.
const DefaultHisLen = 4

// ChatTurn is one turn of a training chat. Value is a string, except that the semantic chats
// copy a step's description, intention and context as the annotation has them (null stays null).
type ChatTurn struct {
	From  string          `json:"from"`
	Value json.RawMessage `json:"value"`
}

// ChatRecord is one record of a training file: the step's screenshot, the conversation and the
// paths of the episode's earlier screenshots as a Python list's str().
type ChatRecord struct {
	ID            string     `json:"id"`
	Image         string     `json:"image"`
	Conversations []ChatTurn `json:"conversations"`
	History       string     `json:"history"`
}

// ChatFileName is the name the converter gives the training file of a split in train_anno/:
// "<level>_<split>.json", or "<level>_sementic_<split>.json" (the original's spelling) for
// semantic chats.
func ChatFileName(kind, level, split string) string {
	if kind == ChatSemantic {
		return level + "_sementic_" + split + ".json"
	}
	return level + "_" + split + ".json"
}

// TestFileName is the name of the test records file of a split in test_anno/.
func TestFileName(level, split string) string { return level + "_" + split + ".json" }

// IDName is the split's name as the converter puts it in record ids: the split file's base name
// up to its first dot.
func IDName(split string) string {
	name, _, _ := strings.Cut(split, ".")
	return name
}

const (
	chatPrompt        = "I'm looking for guidance on how to "
	chatAskAction     = "\nProvide the command-style action directly."
	chatAskIntention  = "\nExplain the intention of the next action."
	chatAskContext    = "\nWhat steps have been taken so far for this task?"
	chatAskDescribing = "\nProvide a 2-3 sentence summary of the screenshot content."
)

// chatQuestion is the converter's question about a step: the screenshot, the instruction and,
// with hisLen > 0 and earlier steps, the last hisLen ground-truth actions (each line ending in a
// newline); without them "None". The ask is appended by the caller.
func chatQuestion(img, instruction string, history []string, hisLen int) string {
	var b strings.Builder
	b.WriteString("Picture 1: <img>" + img + "</img>\n" + chatPrompt + instruction)
	if len(history) > 0 && hisLen > 0 {
		b.WriteString("\nPrevious screenshots: <img>image-history: " + img + "</img>\nPrevious Actions: ")
		for i, a := range history[max(0, len(history)-hisLen):] {
			b.WriteString(strconv.Itoa(i+1) + ". " + a + "\n")
		}
	} else {
		b.WriteString("\nPrevious screenshots: None\nPrevious Actions: None")
	}
	return b.String()
}

func jsonText(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func chat(question string, answer json.RawMessage) []ChatTurn {
	return []ChatTurn{{From: "user", Value: jsonText(question)}, {From: "assistant", Value: answer}}
}

// ChatOptions say how to build training chats.
type ChatOptions struct {
	Split  string // the split's name (its file's base name without .json)
	Level  string // LevelHigh or LevelLow
	HisLen int    // previous actions in a prompt (<= 0: none)
	Kind   string // ChatStandard or ChatSemantic
	// Seed orders semantic chats (the original shuffles them with Python's unseeded random, so
	// no order can match it; the same seed gives the same order).
	Seed uint64
}

// TrainChats builds the training chats of the episodes given (the split's train part, in its
// order), as build_train_chat or build_train_semantic_chat. imagePath maps a step's screenshot
// file name to the path written. A step whose action the converter rejects, or (semantic chats)
// that lacks the description, intention or context the semantic turns need, is an error naming
// the episode's file and the step.
func TrainChats(episodes []*Annotation, opts ChatOptions, imagePath func(name string) string) ([]ChatRecord, error) {
	if opts.Level != LevelHigh && opts.Level != LevelLow {
		return nil, fmt.Errorf("level must be %q or %q, not %q", LevelHigh, LevelLow, opts.Level)
	}
	if opts.Kind != ChatStandard && opts.Kind != ChatSemantic {
		return nil, fmt.Errorf("type must be %q or %q, not %q", ChatStandard, ChatSemantic, opts.Kind)
	}
	name := IDName(opts.Split)
	var out []ChatRecord
	idx := 0
	for _, a := range episodes {
		var actions, shots []string
		for i := range a.Steps {
			s := &a.Steps[i]
			gt, err := s.GroundTruth()
			if err != nil {
				return nil, fmt.Errorf("%s: episode %s step %d: %w", a.File, a.EpisodeID, i, err)
			}
			img := imagePath(s.Screenshot)
			instruction := a.Task.Instruction
			if opts.Level == LevelLow {
				instruction = s.LowLevelInstruction
			}
			history := PyStrList(shots)
			q := chatQuestion(img, instruction, actions, opts.HisLen)
			if opts.Kind == ChatStandard {
				out = append(out, ChatRecord{ID: "GUIOdyssey_" + name + "_" + strconv.Itoa(idx), Image: img,
					Conversations: chat(q+chatAskAction, jsonText(gt)), History: history})
			} else {
				sem, err := s.semanticFields()
				if err != nil {
					return nil, fmt.Errorf("%s: episode %s step %d: %w", a.File, a.EpisodeID, i, err)
				}
				base := "GUIOdyssey_" + name + "_" + strconv.Itoa(idx)
				out = append(out,
					ChatRecord{ID: base + "_desc", Image: img, History: history,
						Conversations: chat("Picture 1: <img>"+img+"</img>"+chatAskDescribing, sem[0])},
					ChatRecord{ID: base + "_action", Image: img, History: history,
						Conversations: chat(q+chatAskAction, jsonText(gt))},
					ChatRecord{ID: base + "_intention", Image: img, History: history,
						Conversations: chat(q+chatAskIntention, sem[1])},
					// the original names this one differently
					ChatRecord{ID: "GUIOdyssey_single_" + name + "_" + strconv.Itoa(idx) + "_context", Image: img, History: history,
						Conversations: chat(q+chatAskContext, sem[2])})
			}
			// the semantic converter never advances its counter: every id has index 0
			if opts.Kind == ChatStandard {
				idx++
			}
			actions = append(actions, gt)
			shots = append(shots, img)
		}
	}
	if opts.Kind == ChatSemantic {
		ShuffleChats(out, opts.Seed)
	}
	return out, nil
}

// ShuffleChats puts the records in a random order given by seed (Fisher-Yates).
func ShuffleChats(recs []ChatRecord, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	r.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
}

// semanticFields returns the step's description, intention and context as written in its
// annotation.
func (s *StepAnnotation) semanticFields() ([3]json.RawMessage, error) {
	var out [3]json.RawMessage
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(s.Raw, &fields); err != nil {
		return out, err
	}
	for i, k := range []string{"description", "intention", "context"} {
		v, ok := fields[k]
		if !ok {
			return out, fmt.Errorf("no %q: semantic chats need the v2 fields description, intention and context", k)
		}
		out[i] = compact(v)
	}
	return out, nil
}
