package odyssey

// The in-memory forms of the converter's outputs, which the tests hold the streaming writers
// (Chats.WritePy, WriteTestRecordsPy, HistoryIndex.WritePy) to: a record at a time, and JSON
// re-indented as Python's json.dump writes it.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

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

// jsonText is s as a JSON string (<, > and & not escaped).
func jsonText(s string) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// Record is chat i as a record.
func (c *Chats) Record(i int) ChatRecord {
	ch := c.chat(i)
	ans := ch.raw
	if ans == nil {
		ans = jsonText(ch.answer)
	}
	return ChatRecord{ID: ch.id, Image: ch.img, History: ch.history,
		Conversations: []ChatTurn{{From: "user", Value: jsonText(ch.question)}, {From: "assistant", Value: ans}}}
}

// TrainChats builds every chat of NewChats as a record.
func TrainChats(episodes []*Annotation, opts ChatOptions, imagePath func(name string) string) ([]ChatRecord, error) {
	c, err := NewChats(episodes, opts, imagePath)
	if err != nil {
		return nil, err
	}
	out := make([]ChatRecord, c.Len())
	for i := range out {
		out[i] = c.Record(i)
	}
	return out, nil
}

// PyIndent re-writes a JSON value as Python's json.dump with indent=4 and ensure_ascii=False
// does: members and items on lines of their own indented by four spaces, ": " after keys, empty
// lists and objects as [] and {}, text unescaped except for the quote, the backslash and control
// characters, and numbers as Python prints the int or float json.load makes of them.
func PyIndent(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var b bytes.Buffer
	b.Grow(len(data) + len(data)/2)
	if err := pyIndentValue(&b, dec, 0); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the JSON value")
	}
	return b.Bytes(), nil
}

// MarshalPy marshals v with encoding/json and re-writes it as the converter's json.dump does
// (PyIndent).
func MarshalPy(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return PyIndent(b.Bytes())
}

// AddFile adds the records of one training or test file held in memory (AddReader).
func (x *HistoryIndex) AddFile(file string, data []byte, field string) error {
	return x.AddReader(file, bytes.NewReader(data), field)
}

// JSON is the index as the original writes it (WritePy).
func (x *HistoryIndex) JSON() []byte {
	var b bytes.Buffer
	x.WritePy(&b)
	return b.Bytes()
}
