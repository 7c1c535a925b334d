package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/odyssey"
)

// Training chats in the multimodal ShareGPT layout LLaMA-Factory reads: one JSON array per
// split, DEST/<split>.json, of records
//
//	{"messages": [{"role": "user", "content": "<image>..."}, {"role": "assistant", "content": "CLICK: (74, 359)"}],
//	 "images": ["images/odyssey/0012/00003.png"]}
//
// one record per step: the frame, the episode's instruction (and the step's, where it has
// one) and the actions before it; the answer is the step's action in the source's own text
// (GUI Odyssey's command vocabulary for Odyssey episodes). Frames are written under
// DEST/images/ and named relative to DEST; DEST/dataset_info.json names each split as a
// dataset, so DEST is a LLaMA-Factory dataset_dir as it is.

// ShareGPTHistory is how many previous actions a prompt lists (GUI Odyssey's prompt shows 4).
const ShareGPTHistory = 4

// ShareGPTMessage is one turn of a training chat.
type ShareGPTMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ShareGPTRecord is one training chat.
type ShareGPTRecord struct {
	Messages []ShareGPTMessage `json:"messages"`
	Images   []string          `json:"images"`
}

// ShareGPTExporter writes a ShareGPT folder; rows come in as for Exporter (an episode, then
// its steps in order).
type ShareGPTExporter struct {
	dest, tmp string
	noImages  bool
	splits    map[string]*chatFile
	buf       bytes.Buffer
	enc       *json.Encoder // writes into buf
	// the episode whose steps are coming
	episode EpisodeRow
	history []string
	Records int64
	Missing int
}

type chatFile struct {
	f     *os.File
	w     *bufio.Writer
	count int64
}

// NewShareGPTExporter starts an export to dest (which must not exist, or be an earlier
// ShareGPT export: a folder holding dataset_info.json).
func NewShareGPTExporter(dest string, noImages bool) (*ShareGPTExporter, error) {
	tmp, err := tempBeside(dest, FormatShareGPT)
	if err != nil {
		return nil, err
	}
	return &ShareGPTExporter{dest: dest, tmp: tmp, noImages: noImages, splits: map[string]*chatFile{}}, nil
}

// Episode starts an episode; its steps follow.
func (x *ShareGPTExporter) Episode(split string, r *EpisodeRow) error {
	x.episode = *r
	x.history = x.history[:0]
	return nil
}

// Step writes the record of one step of the current episode.
func (x *ShareGPTExporter) Step(split string, r *StepRow) error {
	answer := shareGPTAction(r)
	var images []string
	if !x.noImages {
		b, err := frameOf(r, &x.Missing)
		if err != nil {
			return err
		}
		if b != nil {
			ext := ImageExt(b)
			if ext == "" {
				ext = "bin"
			}
			rel := filepath.ToSlash(filepath.Join("images", safeName(r.Source), safeName(r.EpisodeID), fmt.Sprintf("%05d.%s", r.Step, ext)))
			path := filepath.Join(x.tmp, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				return err
			}
			images = []string{rel}
		}
	}
	r.Observation = nil
	var prompt strings.Builder
	if len(images) > 0 {
		prompt.WriteString("<image>")
	}
	instruction := x.episode.Instruction
	if instruction == "" {
		instruction = x.episode.Task
	}
	prompt.WriteString("Task: " + instruction)
	if r.Instruction != "" && r.Instruction != instruction {
		prompt.WriteString("\nStep: " + r.Instruction)
	}
	prompt.WriteString("\nPrevious actions:")
	if len(x.history) == 0 {
		prompt.WriteString(" None")
	}
	h := x.history[max(0, len(x.history)-ShareGPTHistory):]
	for i, a := range h {
		prompt.WriteString("\n" + strconv.Itoa(len(x.history)-len(h)+i+1) + ". " + a)
	}
	prompt.WriteString("\nWhat is the next action?")
	x.history = append(x.history, answer)
	if images == nil {
		images = []string{}
	}
	rec := ShareGPTRecord{Messages: []ShareGPTMessage{{"user", prompt.String()}, {"assistant", answer}}, Images: images}
	return x.write(split, &rec)
}

func (x *ShareGPTExporter) write(split string, rec *ShareGPTRecord) error {
	cf := x.splits[split]
	if cf == nil {
		f, err := os.Create(filepath.Join(x.tmp, split+".json"))
		if err != nil {
			return err
		}
		cf = &chatFile{f: f, w: bufio.NewWriterSize(f, 1<<20)}
		x.splits[split] = cf
		cf.w.WriteString("[\n")
	}
	x.buf.Reset()
	if x.enc == nil {
		x.enc = json.NewEncoder(&x.buf)
		x.enc.SetEscapeHTML(false) // "<image>" as it is
	}
	if err := x.enc.Encode(rec); err != nil {
		return err
	}
	if cf.count > 0 {
		cf.w.WriteString(",\n")
	}
	cf.w.Write(bytes.TrimSuffix(x.buf.Bytes(), []byte("\n")))
	cf.count++
	x.Records++
	return nil
}

// shareGPTAction is a step's action as the answer of its chat: GUI Odyssey's command (kept in
// the step's extra as gt_command), else the source's own text.
func shareGPTAction(r *StepRow) string {
	if r.Source == episode.SourceOdyssey && strings.Contains(r.Extra, `"`+odyssey.ExtraGTCommand+`"`) {
		var e map[string]json.RawMessage
		var gt string
		if json.Unmarshal([]byte(r.Extra), &e) == nil && json.Unmarshal(e[odyssey.ExtraGTCommand], &gt) == nil && gt != "" {
			return gt
		}
	}
	if r.Action != "" {
		return r.Action
	}
	return r.ActionKind
}

// safeName keeps a path element inside its folder whatever an id holds.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r == ':' {
			return '_'
		}
		return r
	}, s)
	if s == "" || s == "." || s == ".." {
		s = "_" + s
	}
	return s
}

// Abort removes what was written.
func (x *ShareGPTExporter) Abort() {
	for _, cf := range x.splits {
		cf.f.Close()
	}
	os.RemoveAll(x.tmp)
}

// Commit closes the split files, writes dataset_info.json and moves the folder into place. It
// returns the files written, relative to dest.
func (x *ShareGPTExporter) Commit() ([]string, error) {
	var names []string
	for s := range x.splits {
		names = append(names, s)
	}
	sort.Strings(names)
	info := map[string]any{}
	err := func() error {
		for _, s := range names {
			cf := x.splits[s]
			cf.w.WriteString("\n]\n")
			if err := cf.w.Flush(); err != nil {
				return err
			}
			if err := cf.f.Sync(); err != nil {
				return err
			}
			if err := cf.f.Close(); err != nil {
				return err
			}
			info["agentdesk_"+s] = map[string]any{
				"file_name":  s + ".json",
				"formatting": "sharegpt",
				"columns":    map[string]string{"messages": "messages", "images": "images"},
				"tags": map[string]string{"role_tag": "role", "content_tag": "content",
					"user_tag": "user", "assistant_tag": "assistant"},
			}
		}
		b, err := json.MarshalIndent(info, "", "  ")
		if err != nil {
			return err
		}
		return atomicfile.Write(filepath.Join(x.tmp, markerOf(FormatShareGPT)), append(b, '\n'), 0o644)
	}()
	if err == nil && !x.noImages {
		err = atomicfile.SyncTree(x.tmp) // the frames, written as they came
	}
	if err == nil {
		err = swapIn(x.tmp, x.dest)
	}
	if err != nil {
		x.Abort()
		return nil, err
	}
	files := []string{"dataset_info.json"}
	for _, s := range names {
		files = append(files, s+".json")
	}
	return files, nil
}
