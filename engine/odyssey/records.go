package odyssey

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Levels of the official test records: the episode's instruction, or the step's instruction.
const (
	LevelHigh = "high"
	LevelLow  = "low"
)

// HistoryLength is how many previous actions the official prompt shows.
const HistoryLength = 4

// TestRecord is one record of the official test set of a split, as the official converter
// writes it (history fields are Python repr strings).
type TestRecord struct {
	ID                string          `json:"id"`
	Image             string          `json:"image"`
	Question          string          `json:"question"`
	Answer            string          `json:"answer"`
	Category          string          `json:"category"`
	StepLength        int             `json:"step_length"`
	HistoryAction     string          `json:"history_action"`
	HistoryScreenshot string          `json:"history_screenshot"`
	Sam2Bbox          json.RawMessage `json:"sam2_bbox,omitempty"`

	// History are the previous ground-truth commands (the list behind HistoryAction).
	History []string `json:"-"`
	// EpisodeID and Step identify the step.
	EpisodeID string `json:"-"`
	Step      int    `json:"-"`
}

// TestRecords builds the official test records of a split for a level, walking the episodes in
// the order given (the split file's test list) and their steps in order. split is the split's
// name as in the ids ("random_split"). imagePath maps a step's screenshot file name to the
// path written into the records. A step the official converter rejects is an error.
func TestRecords(split, level string, episodes []*Annotation, imagePath func(name string) string) ([]TestRecord, error) {
	if level != LevelHigh && level != LevelLow {
		return nil, fmt.Errorf("level must be %q or %q, not %q", LevelHigh, LevelLow, level)
	}
	var out []TestRecord
	for _, a := range episodes {
		var history, shots []string
		for i := range a.Steps {
			s := &a.Steps[i]
			gt, err := s.GroundTruth()
			if err != nil {
				return nil, fmt.Errorf("%s: episode %s step %d: %w", a.File, a.EpisodeID, i, err)
			}
			img := imagePath(s.Screenshot)
			q := a.Task.Instruction
			if level == LevelLow {
				q = s.LowLevelInstruction
			}
			r := TestRecord{
				ID:                "GUIOdyssey_" + IDName(split) + "_" + strconv.Itoa(len(out)),
				Image:             img,
				Question:          q,
				Answer:            gt,
				Category:          a.Task.Category,
				StepLength:        a.StepLength,
				HistoryAction:     PyStrList(history),
				HistoryScreenshot: PyStrList(shots),
				History:           append([]string(nil), history...),
				EpisodeID:         a.EpisodeID,
				Step:              i,
			}
			if s.Sam2Bbox != nil {
				r.Sam2Bbox = compact(s.Sam2Bbox)
			}
			out = append(out, r)
			history = append(history, gt)
			shots = append(shots, img)
		}
	}
	return out, nil
}

// Prompt is the official evaluation prompt of a record: the image, the question, the last
// HistoryLength ground-truth actions (teacher forcing) and the instruction to answer with a
// command. "image-history: PATH" is expanded by the model code into the previous screenshots.
func (r *TestRecord) Prompt() string {
	return chatQuestion(r.Image, r.Question, r.History, HistoryLength) + chatAskAction
}

// Sample is the record as a scoring sample with the given prediction.
func (r *TestRecord) Sample(pred string) Sample {
	box, _ := parseBox(r.Sam2Bbox)
	return Sample{Question: r.Prompt(), Pred: pred, GT: r.Answer, Category: r.Category,
		StepLength: r.StepLength, Box: box, EpisodeID: r.EpisodeID, Step: r.Step}
}
