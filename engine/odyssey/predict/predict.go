// Package predict runs a model over a split's official test records (odyssey predict): each
// record's question built as the original's evaluation builds it, sent with its screenshot and
// history screenshots to an OpenAI-compatible server through engine/modelclient, the answer
// cut as the original cuts the model's output, and the predictions written in the file the
// official evaluator (and `odyssey score`) reads.
//
// The original (src/eval_mm/evaluate_GUIOdyssey.py) asks its own model with the system prompt
// "You are a helpful assistant." and a question that names images by path in <img></img>
// tags: the current screenshot, and "image-history: PATH", which its model code expands into
// the last his_len screenshots before it. Over chat completions the tags become image parts in
// place (the history as up to his_len images in step order); the text around them is the
// original's text. The question written to the predictions file keeps the tags, as the
// original writes them, since the evaluator finds the episode from the first image path.
package predict

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentdesk/agentdesk/engine/modelclient"
	"github.com/agentdesk/agentdesk/engine/odyssey"
)

// SystemPrompt is the original evaluation's system message.
const SystemPrompt = "You are a helpful assistant."

// DefaultHisLen is the original's --his_len default (and its model's config).
const DefaultHisLen = 4

// DefaultMaxTokens is the original's max_new_tokens.
const DefaultMaxTokens = 30

// DefaultConcurrency and DefaultTimeout are a run's requests in flight and one request's
// limit, for the command and the Explorer's form alike.
const (
	DefaultConcurrency = 8
	DefaultTimeout     = 2 * time.Minute
)

// lastN is the last n of s as Python's s[-n:] gives it: n 0 (or less) gives all of s.
func lastN[T any](s []T, n int) []T {
	if n <= 0 || n >= len(s) {
		return s
	}
	return s[len(s)-n:]
}

// Question is the original evaluation's question for a record with image history on: the
// screenshot, the instruction, the last hisLen ground-truth actions and, when there are any,
// the tag that stands for the previous screenshots.
func Question(r *odyssey.TestRecord, hisLen int) string {
	var b strings.Builder
	b.WriteString("Picture 1: <img>")
	b.WriteString(r.Image)
	b.WriteString("</img>\nI'm looking for guidance on how to ")
	b.WriteString(r.Question)
	hist := lastN(r.History, hisLen)
	if len(hist) > 0 {
		b.WriteString("\nPrevious screenshots: <img>image-history: ")
		b.WriteString(r.Image)
		b.WriteString("</img>\nPrevious Actions: ")
		for i, a := range hist {
			b.WriteString(strconv.Itoa(i + 1))
			b.WriteString(". ")
			b.WriteString(a)
			b.WriteString("\n")
		}
	} else {
		b.WriteString("\nPrevious screenshots: None\nPrevious Actions: None")
	}
	b.WriteString("\nProvide the command-style action directly.")
	return b.String()
}

// HistoryShots maps each record (by index) to the screenshots of the steps before it in its
// episode, in step order.
func HistoryShots(recs []odyssey.TestRecord) [][]string {
	out := make([][]string, len(recs))
	seen := map[string][]string{}
	for i := range recs {
		r := &recs[i]
		prev := seen[r.EpisodeID]
		out[i] = prev[:len(prev):len(prev)]
		seen[r.EpisodeID] = append(prev, r.Image)
	}
	return out
}

// Images reads screenshots by reference.
type Images func(ref string) ([]byte, error)

// ImagePart is an image part of a screenshot's bytes.
func ImagePart(ref string, data []byte) modelclient.Part {
	return modelclient.Image(mimeOf(ref, data), data)
}

// Parts reads screenshots as image parts.
type Parts func(ref string) (modelclient.Part, error)

// PartsOf reads screenshots with read, encoding each when it is read.
func PartsOf(read Images) Parts {
	return func(ref string) (modelclient.Part, error) {
		data, err := read(ref)
		if err != nil {
			return modelclient.Part{}, err
		}
		return ImagePart(ref, data), nil
	}
}

// Messages are the chat messages for a question: the system prompt, then one user message in
// which every <img>PATH</img> is the screenshot and <img>image-history: PATH</img> the last
// hisLen of history.
func Messages(question string, history []string, hisLen int, read Parts) ([]modelclient.Message, error) {
	var parts []modelclient.Part
	rest := question
	for {
		open := strings.Index(rest, "<img>")
		if open < 0 {
			break
		}
		end := strings.Index(rest[open:], "</img>")
		if end < 0 {
			break
		}
		if open > 0 {
			parts = append(parts, modelclient.Text(rest[:open]))
		}
		ref := rest[open+len("<img>") : open+end]
		rest = rest[open+end+len("</img>"):]
		refs := []string{ref}
		if strings.HasPrefix(ref, "image-history: ") {
			refs = lastN(history, hisLen)
		}
		for _, r := range refs {
			p, err := read(r)
			if err != nil {
				return nil, fmt.Errorf("screenshot %s: %w", r, err)
			}
			parts = append(parts, p)
		}
	}
	if rest != "" {
		parts = append(parts, modelclient.Text(rest))
	}
	return []modelclient.Message{modelclient.System(SystemPrompt), {Role: modelclient.RoleUser, Parts: parts}}, nil
}

// mimeOf names a screenshot's type by its name's extension, else by its bytes.
func mimeOf(ref string, data []byte) string {
	switch strings.ToLower(path.Ext(ref)) { // a file, or a zip member ("ARCHIVE!MEMBER")
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".webp":
		return "image/webp"
	}
	return http.DetectContentType(data)
}

// Pred is the prediction of a model's answer as the original keeps it: the text up to the first
// of its chat format's stop words, without surrounding white space.
func Pred(answer string) string {
	for _, stop := range []string{"<|im_end|>", "<|im_start|>", "<|endoftext|>"} {
		if i := strings.Index(answer, stop); i >= 0 {
			answer = answer[:i]
		}
	}
	return strings.TrimSpace(answer)
}

// Sample is one entry of the predictions file: only what the official evaluator reads.
type Sample struct {
	Question string   `json:"question"`
	Pred     string   `json:"pred"`
	GT       string   `json:"gt"`
	MoreInfo MoreInfo `json:"more_info"`
}

// MoreInfo is a sample's more_info.
type MoreInfo struct {
	Category   string          `json:"category"`
	StepLength int             `json:"step_length"`
	Sam2Bbox   json.RawMessage `json:"sam2_bbox"`
}

// SampleOf is the predictions file's entry for a record and its prediction.
func SampleOf(r *odyssey.TestRecord, hisLen int, pred string) Sample {
	box := r.Sam2Bbox
	if len(box) == 0 {
		box = json.RawMessage("null")
	}
	return Sample{Question: Question(r, hisLen), Pred: pred, GT: r.Answer,
		MoreInfo: MoreInfo{Category: r.Category, StepLength: r.StepLength, Sam2Bbox: box}}
}

// Encode writes samples as the original writes its predictions (a JSON list, indent 4, text
// not escaped to ASCII).
func Encode(samples []Sample) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "    ")
	if samples == nil {
		samples = []Sample{}
	}
	if err := enc.Encode(samples); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Result is the outcome of one record.
type Result struct {
	Idx      int
	RecordID string
	Pred     string // the prediction (when Err is nil)
	Answer   modelclient.Response
	Err      error
	Attempts []modelclient.Attempt
}

// Progress is a run's state.
type Progress struct {
	Total, Done, Errors int
	Stats               modelclient.Stats
}

// Run sends the records that Skip does not skip, with the client's concurrency, and reports
// each outcome to OnResult (from several goroutines at once).
type Run struct {
	Client   *modelclient.Client
	Records  []odyssey.TestRecord
	HisLen   int
	Read     Images
	Skip     func(idx int) bool
	OnResult func(Result)
	// Progress, when set, is called after each record.
	Progress func(Progress)
	// CacheImages bounds the screenshots kept in memory between records (a record's history
	// are the screenshots of the records before it); 0: 64.
	CacheImages int
}

// Do runs until every record is done or ctx is done (then it returns ctx's error after the
// requests in flight have stopped).
//
// An answer that every other request would get too (401 or 403: the key; 404: no such model or
// route) stops the run at once with that error.
func (r *Run) Do(ctx context.Context) error {
	parent := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	hist := HistoryShots(r.Records)
	cache := newImageCache(r.Read, r.CacheImages)
	var done, errs atomic.Int64
	for i := range r.Records {
		if r.Skip != nil && r.Skip(i) {
			done.Add(1)
		}
	}
	workers := r.Client.Config().Concurrency
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				res := r.one(ctx, i, hist[i], cache)
				if ctx.Err() != nil && res.Err != nil {
					continue // stopped, not failed: the record is sent again next time
				}
				if fatal(res.Err) {
					cancel(res.Err)
				}
				if res.Err != nil {
					errs.Add(1)
				} else {
					done.Add(1)
				}
				r.OnResult(res)
				if r.Progress != nil {
					r.Progress(Progress{Total: len(r.Records), Done: int(done.Load()), Errors: int(errs.Load()), Stats: r.Client.Stats()})
				}
			}
		}()
	}
feed:
	for i := range r.Records {
		if r.Skip != nil && r.Skip(i) {
			continue
		}
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := parent.Err(); err != nil {
		return err
	}
	if err := context.Cause(ctx); err != nil && ctx.Err() != nil {
		return err
	}
	return nil
}

// fatal tells whether every other request would fail as this one did.
func fatal(err error) bool {
	var se *modelclient.StatusError
	if !errors.As(err, &se) {
		return false
	}
	switch se.Status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		return true
	}
	return false
}

func (r *Run) one(ctx context.Context, i int, history []string, cache *imageCache) Result {
	rec := &r.Records[i]
	res := Result{Idx: i, RecordID: rec.ID}
	msgs, err := Messages(Question(rec, r.HisLen), history, r.HisLen, cache.get)
	if err != nil {
		res.Err = fmt.Errorf("record %s: %w", rec.ID, err)
		return res
	}
	var mu sync.Mutex
	ans, err := r.Client.Complete(ctx, modelclient.Request{Messages: msgs, OnAttempt: func(a modelclient.Attempt) {
		mu.Lock()
		res.Attempts = append(res.Attempts, a)
		mu.Unlock()
	}})
	res.Answer = ans
	if err != nil && !modelclient.IsEmptyContent(err) {
		res.Err = fmt.Errorf("record %s: %w", rec.ID, err)
		return res
	}
	res.Pred = Pred(ans.Text)
	return res
}

// imageCache keeps the screenshots read most recently, base64-encoded (records of an episode
// come one after another and share their history: each screenshot is read and encoded once).
type imageCache struct {
	read  Images
	limit int
	mu    sync.Mutex
	m     map[string]modelclient.Part
	order []string
}

func newImageCache(read Images, limit int) *imageCache {
	if limit <= 0 {
		limit = 64
	}
	return &imageCache{read: read, limit: limit, m: map[string]modelclient.Part{}}
}

func (c *imageCache) get(ref string) (modelclient.Part, error) {
	c.mu.Lock()
	if p, ok := c.m[ref]; ok {
		c.mu.Unlock()
		return p, nil
	}
	c.mu.Unlock()
	data, err := c.read(ref)
	if err != nil {
		return modelclient.Part{}, err
	}
	p := modelclient.ImageBase64(mimeOf(ref, data), data)
	c.mu.Lock()
	if _, ok := c.m[ref]; !ok {
		c.m[ref] = p
		c.order = append(c.order, ref)
		if len(c.order) > c.limit {
			delete(c.m, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.mu.Unlock()
	return p, nil
}
