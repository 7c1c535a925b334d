package evaluation

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// Answer rows take their times from the answer log (which page, when) and the page durations
// (when it was left, how long it was on show); an attempt without a log (imported) has page
// times where the dialogue had only one page, and the submission time in every row.
func TestAnswerRowTimes(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
	ms := func(s float64) int64 { return t0.Add(time.Duration(s * float64(time.Second))).UnixMilli() }
	st := NewAnswerState("p")
	st.Dialogues[0] = &Answers{Data: map[string]TurnAnswers{"1": {"rude_labels": []string{"rude"}}}, Likert: map[string]string{"engaging": "4"}}
	// page (0,0) shown twice: 10 s then 2.5 s; page (0,1) 30 s
	st.Durations[DurationKey(0, 0, false)] = [][]int64{{ms(0), ms(10)}, {ms(40), ms(42.5)}}
	st.Durations[DurationKey(0, 1, false)] = [][]int64{{ms(10), ms(40)}}
	a := AttemptResult{Participant: "p", AttemptID: "0-1", Kind: AttemptUnit, Final: st, FinalTime: t0.Add(time.Minute),
		LastAnswers: []LastAnswer{
			{Dialogue: 0, TypePos: 0, Turn: 1, Key: "rude_labels", At: t0.Add(5 * time.Second)},
			{Dialogue: 0, TypePos: 0, Turn: 1, Key: "rude_labels", At: t0.Add(41 * time.Second)},
			{Dialogue: 0, TypePos: 1, Turn: -1, Key: "engaging", At: t0.Add(20 * time.Second)},
		}}
	rows := AnswerRows([]AttemptResult{a}, nil)
	if len(rows) != 2 {
		t.Fatalf("rows %+v", rows)
	}
	want := map[string][2]string{
		"rude_labels": {"2026-12-06T09:00:41.000Z", "2026-12-06T09:00:42.500Z"},
		"engaging":    {"2026-12-06T09:00:20.000Z", "2026-12-06T09:00:40.000Z"},
	}
	secs := map[string]float64{"rude_labels": 12.5, "engaging": 30}
	for _, r := range rows {
		w := want[r.Key]
		if r.AnsweredAt != w[0] || r.PageSubmittedAt != w[1] || r.SecondsOnPage == nil || *r.SecondsOnPage != secs[r.Key] ||
			r.SubmittedAt != "2026-12-06T09:01:00.000Z" {
			t.Errorf("%s: %+v (seconds %v)", r.Key, r, r.SecondsOnPage)
		}
	}
	var buf bytes.Buffer
	WriteCSV(&buf, rows)
	if !strings.Contains(buf.String(), ",2026-12-06T09:00:20.000Z,2026-12-06T09:00:40.000Z,30.000,2026-12-06T09:01:00.000Z\n") {
		t.Errorf("CSV:\n%s", buf.String())
	}
	// Imported: no log; dialogue 0 has two pages (unknown which), so only the submission.
	a.LastAnswers = nil
	for _, r := range AnswerRows([]AttemptResult{a}, nil) {
		if r.AnsweredAt != "" || r.PageSubmittedAt != "" || r.SecondsOnPage != nil || r.SubmittedAt == "" {
			t.Errorf("imported row %+v", r)
		}
	}
	delete(st.Durations, DurationKey(0, 1, false))
	for _, r := range AnswerRows([]AttemptResult{a}, nil) {
		if r.PageSubmittedAt != "2026-12-06T09:00:42.500Z" || r.SecondsOnPage == nil || *r.SecondsOnPage != 12.5 {
			t.Errorf("one page: %+v", r)
		}
	}
	// An unfinished page (no end yet) has no page times; an unsubmitted attempt no submission.
	st.Durations[DurationKey(0, 0, false)] = [][]int64{{ms(0)}}
	a.Final, a.TimedOut, a.Snapshots = nil, true, []Snapshot{{State: st}}
	for _, r := range AnswerRows([]AttemptResult{a}, nil) {
		if r.PageSubmittedAt != "" || r.SecondsOnPage != nil || r.SubmittedAt != "" {
			t.Errorf("open page: %+v", r)
		}
	}
}
