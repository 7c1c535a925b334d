package odyssey

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
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

// DefaultHisLen is the converter's default --his_len: how many previous actions a prompt lists
// (the official test prompt's HistoryLength).
const DefaultHisLen = HistoryLength

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

// Kinds of semantic chat about a step, in the original's order.
const (
	chatDesc = iota
	chatAction
	chatIntention
	chatContext
)

// chatRef names one chat: the episode, the step and the kind of question.
type chatRef struct {
	ep, step int32
	kind     uint8
}

// Chats are the training chats of a split's train part, ready to be written one at a time
// (a full split has hundreds of thousands; none is built before it is needed).
type Chats struct {
	opts ChatOptions
	name string
	eps  []*Annotation
	imgs [][]string             // image path of each step
	gts  [][]string             // ground-truth command of each step
	sem  [][][3]json.RawMessage // semantic: description, intention, context of each step
	refs []chatRef              // the chats in the order written
}

// NewChats checks the episodes given (the split's train part, in its order) and plans their
// training chats, as build_train_chat or build_train_semantic_chat make them. imagePath maps a
// step's screenshot file name to the path written. A step whose action the converter rejects,
// or (semantic chats) that lacks the description, intention or context the semantic turns need,
// is an error naming the episode's file and the step.
func NewChats(episodes []*Annotation, opts ChatOptions, imagePath func(name string) string) (*Chats, error) {
	if opts.Level != LevelHigh && opts.Level != LevelLow {
		return nil, fmt.Errorf("level must be %q or %q, not %q", LevelHigh, LevelLow, opts.Level)
	}
	if opts.Kind != ChatStandard && opts.Kind != ChatSemantic {
		return nil, fmt.Errorf("type must be %q or %q, not %q", ChatStandard, ChatSemantic, opts.Kind)
	}
	c := &Chats{opts: opts, name: IDName(opts.Split), eps: episodes,
		imgs: make([][]string, len(episodes)), gts: make([][]string, len(episodes))}
	semantic := opts.Kind == ChatSemantic
	if semantic {
		c.sem = make([][][3]json.RawMessage, len(episodes))
	}
	for e, a := range episodes {
		c.imgs[e] = make([]string, len(a.Steps))
		c.gts[e] = make([]string, len(a.Steps))
		if semantic {
			c.sem[e] = make([][3]json.RawMessage, len(a.Steps))
		}
		for i := range a.Steps {
			s := &a.Steps[i]
			gt, err := s.GroundTruth()
			if err != nil {
				return nil, fmt.Errorf("%s: episode %s step %d: %w", a.File, a.EpisodeID, i, err)
			}
			c.gts[e][i], c.imgs[e][i] = gt, imagePath(s.Screenshot)
			if !semantic {
				c.refs = append(c.refs, chatRef{ep: int32(e), step: int32(i), kind: chatAction})
				continue
			}
			if c.sem[e][i], err = s.semanticFields(); err != nil {
				return nil, fmt.Errorf("%s: episode %s step %d: %w", a.File, a.EpisodeID, i, err)
			}
			for k := uint8(chatDesc); k <= chatContext; k++ {
				c.refs = append(c.refs, chatRef{ep: int32(e), step: int32(i), kind: k})
			}
		}
	}
	if semantic {
		r := rand.New(rand.NewPCG(opts.Seed, 0x9e3779b97f4a7c15))
		r.Shuffle(len(c.refs), func(i, j int) { c.refs[i], c.refs[j] = c.refs[j], c.refs[i] })
	}
	return c, nil
}

// Len is the number of chats.
func (c *Chats) Len() int { return len(c.refs) }

// Image is the image of chat i and the images of the steps before it in its episode (the
// record's history).
func (c *Chats) Image(i int) (img string, history []string) {
	r := c.refs[i]
	return c.imgs[r.ep][r.step], c.imgs[r.ep][:r.step]
}

// chat is one chat as written: the answer is a JSON string unless raw is set.
type chat struct {
	id, img, question, answer, history string
	raw                                json.RawMessage
}

func (c *Chats) chat(i int) chat {
	r := c.refs[i]
	a, s := c.eps[r.ep], &c.eps[r.ep].Steps[r.step]
	img := c.imgs[r.ep][r.step]
	out := chat{img: img, history: PyStrList(c.imgs[r.ep][:r.step])}
	if r.kind == chatDesc {
		out.question = "Picture 1: <img>" + img + "</img>" + chatAskDescribing
	} else {
		instruction := a.Task.Instruction
		if c.opts.Level == LevelLow {
			instruction = s.LowLevelInstruction
		}
		out.question = chatQuestion(img, instruction, c.gts[r.ep][:r.step], c.opts.HisLen)
	}
	if c.opts.Kind == ChatStandard {
		// the standard converter counts its chats
		out.id = "GUIOdyssey_" + c.name + "_" + strconv.Itoa(i)
		out.question += chatAskAction
		out.answer = c.gts[r.ep][r.step]
		return out
	}
	// the semantic converter never advances its counter: every id has index 0
	base := "GUIOdyssey_" + c.name + "_0"
	sem := c.sem[r.ep][r.step]
	switch r.kind {
	case chatDesc:
		out.id, out.raw = base+"_desc", sem[0]
	case chatAction:
		out.id, out.answer = base+"_action", c.gts[r.ep][r.step]
		out.question += chatAskAction
	case chatIntention:
		out.id, out.raw = base+"_intention", sem[1]
		out.question += chatAskIntention
	case chatContext:
		// the original names this one differently
		out.id, out.raw = "GUIOdyssey_single_"+c.name+"_0_context", sem[2]
		out.question += chatAskContext
	}
	return out
}

// WritePy writes the chats as the converter's json.dump does (pyjson.go), one at a time;
// stop is checked every thousand chats and ends the write with its error.
func (c *Chats) WritePy(w io.Writer, stop func() error) error {
	return writePyList(w, c.Len(), stop, func(b *bufio.Writer, i int) error {
		ch := c.chat(i)
		b.WriteString("\"id\": ")
		writePyJSONString(b, ch.id)
		b.WriteString(",\n        \"image\": ")
		writePyJSONString(b, ch.img)
		b.WriteString(",\n        \"conversations\": [\n            {\n                \"from\": \"user\",\n                \"value\": ")
		writePyJSONString(b, ch.question)
		b.WriteString("\n            },\n            {\n                \"from\": \"assistant\",\n                \"value\": ")
		if ch.raw != nil {
			if err := writePyRaw(b, ch.raw, 4); err != nil {
				return fmt.Errorf("chat %s: %w", ch.id, err)
			}
		} else {
			writePyJSONString(b, ch.answer)
		}
		b.WriteString("\n            }\n        ],\n        \"history\": ")
		writePyJSONString(b, ch.history)
		return nil
	})
}

// semanticFields returns the step's description, intention and context as written in its
// annotation.
func (s *StepAnnotation) semanticFields() ([3]json.RawMessage, error) {
	var out [3]json.RawMessage
	var fields map[string]json.RawMessage // keys exactly as written (Python's are case-sensitive)
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
