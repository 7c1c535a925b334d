package odyssey

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentdesk/agentdesk/engine/limits"
)

// Prediction files are the official evaluator's input: a JSON list of
//
//	{"question": "...<img>PATH</img>...", "pred": "CLICK: (1, 2)", "gt": "CLICK: (1, 2)",
//	 "more_info": {"category": "...", "step_length": 14, "sam2_bbox": [x1, y1, x2, y2]}}
//
// in test-record order. JSON Lines (one such object per line) are accepted too.

type predictionRecord struct {
	Question string          `json:"question"`
	Pred     json.RawMessage `json:"pred"`
	GT       *string         `json:"gt"`
	MoreInfo *struct {
		Category   string          `json:"category"`
		StepLength *int            `json:"step_length"`
		Sam2Bbox   json.RawMessage `json:"sam2_bbox"`
	} `json:"more_info"`
}

// ReadPredictionsFile reads a prediction file; see ReadPredictions.
func ReadPredictionsFile(path string) ([]Sample, error) {
	data, err := limits.ReadFile(path, limits.Predictions)
	if err != nil {
		return nil, err
	}
	return ReadPredictions(path, data)
}

// ReadPredictions parses a prediction file in the evaluator's input format (or JSON Lines of
// the same records). Each sample's episode and step come from the first image path of its
// question (<episode_id>_<step>.png), as the original derives them. Errors name the file, the
// line and column, and the sample.
func ReadPredictions(file string, data []byte) ([]Sample, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return readPredictionLines(file, data)
	}
	t := newTokenReader(file, data)
	if err := t.delim('[', "", "a prediction file"); err != nil {
		return nil, err
	}
	var out []Sample
	for i := 0; t.dec.More(); i++ {
		where := fmt.Sprintf("sample %d", i)
		r, off, err := t.raw(where)
		if err != nil {
			return nil, err
		}
		s, err := decodeSample(file, data, off, r, where)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if _, err := t.dec.Token(); err != nil {
		return nil, jsonError(file, data, 0, "", err)
	}
	if err := t.end(); err != nil {
		return nil, err
	}
	return out, nil
}

func readPredictionLines(file string, data []byte) ([]Sample, error) {
	var out []Sample
	off := 0
	for off < len(data) {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data) - off
		}
		line := data[off : off+end]
		if len(bytes.TrimSpace(line)) > 0 {
			where := fmt.Sprintf("sample %d", len(out))
			s, err := decodeSample(file, data, int64(off), line, where)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		off += end + 1
	}
	return out, nil
}

func decodeSample(file string, data []byte, off int64, raw []byte, where string) (Sample, error) {
	var r predictionRecord
	if err := json.Unmarshal(raw, &r); err != nil {
		return Sample{}, jsonError(file, data, off, where, err)
	}
	fail := func(format string, args ...any) (Sample, error) {
		return Sample{}, posError(file, data, off, where, fmt.Errorf(format, args...))
	}
	if r.GT == nil {
		return fail(`no "gt" field`)
	}
	if r.MoreInfo == nil {
		return fail(`no "more_info" field`)
	}
	if r.MoreInfo.StepLength == nil {
		return fail(`no "more_info.step_length" field`)
	}
	s := Sample{Question: r.Question, GT: *r.GT, Category: r.MoreInfo.Category, StepLength: *r.MoreInfo.StepLength}
	pred, err := PredString(r.Pred)
	if err != nil {
		return fail("pred: %v", err)
	}
	s.Pred = pred
	if s.Box, err = parseBox(r.MoreInfo.Sam2Bbox); err != nil {
		return fail("more_info.sam2_bbox: %v", err)
	}
	img, ok := FirstImage(r.Question)
	if !ok {
		return fail("the question has no <img>PATH</img>, so the sample belongs to no episode")
	}
	s.EpisodeID, s.Step = EpisodeOfImage(img)
	return s, nil
}

// parseBox reads a sam2_bbox value: absent or null means no box (v1 data), a list of numbers
// is passed as it is (any length; the matcher decides).
func parseBox(raw json.RawMessage) (Box, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return Box{}, nil
	}
	var vals []float64
	if err := json.Unmarshal(raw, &vals); err != nil {
		return Box{}, errors.New("must be a list of numbers")
	}
	if vals == nil {
		vals = []float64{}
	}
	return Box{Present: true, Values: vals}, nil
}

// PredString converts a prediction value to the string the evaluator parses (it calls str()):
// strings stay, numbers, booleans and null are written as Python writes them.
func PredString(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", errors.New(`no "pred" field`)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	return pyStr(v), nil
}

// FirstImage returns the path inside the first <img>...</img> of a question.
func FirstImage(question string) (string, bool) {
	_, rest, ok := strings.Cut(question, "<img>")
	if !ok {
		return "", false
	}
	path, _, ok := strings.Cut(rest, "</img>")
	return path, ok
}

// EpisodeOfImage derives the episode id and step from a screenshot path
// ".../<episode_id>_<step>.png": the base name without its last "_<step>.ext". step is -1
// when the name has no step number.
func EpisodeOfImage(path string) (episodeID string, step int) {
	base := path[strings.LastIndexByte(path, '/')+1:]
	i := strings.LastIndexByte(base, '_')
	if i < 0 {
		return strings.TrimSuffix(base, ".png"), -1
	}
	num := base[i+1:]
	if dot := strings.IndexByte(num, '.'); dot >= 0 {
		num = num[:dot]
	}
	n, err := strconv.Atoi(num)
	if err != nil {
		n = -1
	}
	return base[:i], n
}
