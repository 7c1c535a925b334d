package predict

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentdesk/agentdesk/engine/modelclient"
	"github.com/agentdesk/agentdesk/engine/modelclient/fakeserver"
	"github.com/agentdesk/agentdesk/engine/odyssey"
)

func records(steps ...int) []odyssey.TestRecord {
	var out []odyssey.TestRecord
	for e, n := range steps {
		var hist []string
		for i := 0; i < n; i++ {
			ep := fmt.Sprintf("ep%d", e)
			out = append(out, odyssey.TestRecord{ID: fmt.Sprintf("r%d", len(out)), Image: fmt.Sprintf("/s/%s_%d.png", ep, i),
				Question: "open the calendar", Answer: fmt.Sprintf("CLICK: (%d, 1)", i), Category: "General_Tool", StepLength: n,
				History: append([]string(nil), hist...), EpisodeID: ep, Step: i})
			hist = append(hist, fmt.Sprintf("CLICK: (%d, 1)", i))
		}
	}
	return out
}

// At the original's default his_len the question is the one the scoring side already builds
// (odyssey.TestRecord.Prompt); other lengths show that many actions, 0 all of them.
func TestQuestion(t *testing.T) {
	recs := records(7)
	for i := range recs {
		if got, want := Question(&recs[i], 4), recs[i].Prompt(); got != want {
			t.Fatalf("record %d:\n%s\nwant\n%s", i, got, want)
		}
	}
	q := Question(&recs[6], 2)
	if !strings.Contains(q, "1. CLICK: (4, 1)\n2. CLICK: (5, 1)\n") || strings.Contains(q, "3.") {
		t.Fatalf("his_len 2: %s", q)
	}
	if q := Question(&recs[6], 0); !strings.Contains(q, "6. CLICK: (5, 1)") || !strings.Contains(q, "1. CLICK: (0, 1)") {
		t.Fatalf("his_len 0: %s", q)
	}
	if q := Question(&recs[0], 4); !strings.Contains(q, "Previous screenshots: None\nPrevious Actions: None") {
		t.Fatalf("first step: %s", q)
	}
}

func TestMessagesPutImagesInPlace(t *testing.T) {
	recs := records(2, 6)
	hist := HistoryShots(recs)
	if len(hist[0]) != 0 || len(hist[1]) != 1 || len(hist[2]) != 0 || len(hist[7]) != 5 || hist[7][4] != "/s/ep1_4.png" {
		t.Fatalf("history %q", hist)
	}
	var read []string
	img := PartsOf(func(ref string) ([]byte, error) { read = append(read, ref); return []byte("png:" + ref), nil })
	msgs, err := Messages(Question(&recs[7], 3), hist[7], 3, img)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].Role != "system" || msgs[0].Parts[0].Text != SystemPrompt {
		t.Fatalf("messages %+v", msgs)
	}
	p := msgs[1].Parts
	// "Picture 1: " [screenshot] "...Previous screenshots: " [3 history shots] "\nPrevious Actions: ..."
	if len(p) != 7 || p[0].Text != "Picture 1: " || string(p[1].Data) != "png:/s/ep1_5.png" || p[1].MIME != "image/png" ||
		!strings.HasSuffix(p[2].Text, "\nPrevious screenshots: ") || string(p[3].Data) != "png:/s/ep1_2.png" ||
		string(p[5].Data) != "png:/s/ep1_4.png" || !strings.HasPrefix(p[6].Text, "\nPrevious Actions: 1. CLICK: (2, 1)\n") {
		t.Fatalf("parts %+v", p)
	}
	if strings.Contains(p[2].Text, "<img>") || len(read) != 4 {
		t.Fatalf("tags left or reads %q", read)
	}
	// A missing screenshot names itself.
	_, err = Messages(Question(&recs[0], 4), nil, 4, PartsOf(func(string) ([]byte, error) { return nil, errors.New("gone") }))
	if err == nil || !strings.Contains(err.Error(), "/s/ep0_0.png") {
		t.Fatalf("err %v", err)
	}
}

func TestPred(t *testing.T) {
	for in, want := range map[string]string{
		"  CLICK: (1, 2)\n":                   "CLICK: (1, 2)",
		"PRESS_BACK<|im_end|>\n<|endoftext|>": "PRESS_BACK",
		"TYPE: a<|endoftext|>b":               "TYPE: a",
		"":                                    "",
	} {
		if got := Pred(in); got != want {
			t.Errorf("Pred(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEncodeKeepsTheEvaluatorsFields(t *testing.T) {
	recs := records(1)
	data, err := Encode([]Sample{SampleOf(&recs[0], 4, "CLICK: (1, 1)")})
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, want := range []string{`"question": "Picture 1: <img>/s/ep0_0.png</img>`, `"pred": "CLICK: (1, 1)"`, `"gt": "CLICK: (0, 1)"`,
		`"more_info": {`, `"category": "General_Tool"`, `"step_length": 1`, `"sam2_bbox": null`} {
		if !strings.Contains(s, want) {
			t.Fatalf("%s lacks %s", s, want)
		}
	}
	got, err := odyssey.ReadPredictions("p.json", data)
	if err != nil || len(got) != 1 || got[0].EpisodeID != "ep0" || got[0].Pred != "CLICK: (1, 1)" {
		t.Fatalf("read back: %+v %v", got, err)
	}
}

// A run sends each record not skipped once, with its screenshot and history as images, and
// takes an empty answer as an (empty) prediction.
func TestRunSendsEachRecordOnce(t *testing.T) {
	recs := records(3, 4)
	srv := fakeserver.New(fakeserver.Options{Record: true, Behave: func(c fakeserver.Call) fakeserver.Reply {
		if strings.Contains(c.Request.Text(), "Previous Actions: None") && len(c.Request.Images()) == 1 &&
			strings.Contains(c.Request.Images()[0], base64.StdEncoding.EncodeToString([]byte("/s/ep1_0.png"))) {
			return fakeserver.Reply{Kind: fakeserver.EmptyContent}
		}
		return fakeserver.OK(fmt.Sprintf("CLICK: (%d, 1)", len(c.Request.Images())))
	}})
	defer srv.Close()
	c, err := modelclient.New(modelclient.Config{BaseURL: srv.URL, Model: "m", Concurrency: 3, Key: modelclient.KeySource{Env: []string{}}})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	got := map[int]Result{}
	run := &Run{Client: c, Records: recs, HisLen: 4, Read: func(ref string) ([]byte, error) { return []byte(ref), nil },
		Skip: func(i int) bool { return i == 1 },
		OnResult: func(r Result) {
			mu.Lock()
			defer mu.Unlock()
			if _, ok := got[r.Idx]; ok {
				t.Errorf("record %d twice", r.Idx)
			}
			got[r.Idx] = r
		}}
	if err := run.Do(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(got) != 6 || srv.Count() != 6 {
		t.Fatalf("%d results, %d requests", len(got), srv.Count())
	}
	// ep1 step 3: the screenshot and 3 history shots.
	if r := got[6]; r.Err != nil || r.Pred != "CLICK: (4, 1)" || len(r.Attempts) != 1 || r.Answer.Usage.TotalTokens == 0 {
		t.Fatalf("record 6: %+v", r)
	}
	if r := got[3]; r.Err != nil || r.Pred != "" {
		t.Fatalf("empty answer: %+v", r)
	}
}

// A refused key stops the run at the first answer instead of asking every record in vain.
func TestRunStopsOnAFatalAnswer(t *testing.T) {
	recs := records(5, 5)
	srv := fakeserver.New(fakeserver.Options{Key: "right"})
	defer srv.Close()
	c, err := modelclient.New(modelclient.Config{BaseURL: srv.URL, Model: "m", Concurrency: 1,
		Key: modelclient.KeySource{Env: []string{"K"}, Getenv: func(string) string { return "wrong" }}})
	if err != nil {
		t.Fatal(err)
	}
	var results int
	run := &Run{Client: c, Records: recs, HisLen: 4, Read: func(ref string) ([]byte, error) { return []byte(ref), nil },
		OnResult: func(Result) { results++ }}
	err = run.Do(context.Background())
	var se *modelclient.StatusError
	if !errors.As(err, &se) || se.Status != 401 {
		t.Fatalf("err %v", err)
	}
	if srv.Count() > 2 || results > 2 {
		t.Fatalf("%d requests, %d results after a 401", srv.Count(), results)
	}
}
