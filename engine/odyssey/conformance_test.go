package odyssey

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/conformance"
	"github.com/agentdesk/agentdesk/engine/pyfmt"
)

const area = "odyssey"

// readCases reads every conformance file matching pattern and decodes its "cases" (or the key
// given) into a slice of T.
func readCases[T any](t *testing.T, pattern, key string) (cases []T, names []string) {
	t.Helper()
	for _, path := range conformance.Files(t, area, pattern) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var cs []T
		if err := json.Unmarshal(doc[key], &cs); err != nil {
			t.Fatalf("%s: %s: %v", path, key, err)
		}
		for range cs {
			names = append(names, filepath.Base(path))
		}
		cases = append(cases, cs...)
	}
	return cases, names
}

func TestConformanceDecodeAction(t *testing.T) {
	type tc struct {
		Name     string          `json:"name"`
		Action   string          `json:"action"`
		Info     json.RawMessage `json:"info"`
		Expected struct {
			GT    *string `json:"gt"`
			Error string  `json:"error"`
		} `json:"expected"`
	}
	cases, _ := readCases[tc](t, "decode_action*.json", "cases")
	for _, c := range cases {
		got, err := GroundTruth(c.Action, c.Info)
		switch {
		case c.Expected.GT != nil:
			if err != nil || got != *c.Expected.GT {
				t.Errorf("%s: got %q, %v; want %q", c.Name, got, err, *c.Expected.GT)
			}
		default:
			if err == nil {
				t.Errorf("%s: got %q, want the error %s", c.Name, got, c.Expected.Error)
			} else if exc := strings.SplitN(c.Expected.Error, ":", 2)[0]; !strings.HasPrefix(err.Error(), exc) {
				t.Errorf("%s: error %q, want a %s", c.Name, err, exc)
			}
		}
	}
	conformance.Report(t, "decode_action", len(cases))
}

func TestConformanceSimpleDecode(t *testing.T) {
	type tc struct {
		Input    string `json:"input"`
		Expected struct {
			Action *string         `json:"action"`
			Info   json.RawMessage `json:"info"`
			Error  string          `json:"error"`
		} `json:"expected"`
	}
	cases, _ := readCases[tc](t, "simple_decode*.json", "cases")
	for _, c := range cases {
		got, err := ParseCommand(c.Input)
		if c.Expected.Action == nil {
			if err == nil {
				t.Errorf("%q: parsed as %+v, want the error %s", c.Input, got, c.Expected.Error)
			} else if exc := strings.SplitN(c.Expected.Error, ":", 2)[0]; !strings.HasPrefix(err.Error(), exc) {
				t.Errorf("%q: error %q, want a %s", c.Input, err, exc)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.Input, err)
			continue
		}
		info, _ := json.Marshal(got.Info())
		if got.Action != *c.Expected.Action || !jsonEqual(info, c.Expected.Info) {
			t.Errorf("%q: got %q %s, want %q %s", c.Input, got.Action, info, *c.Expected.Action, c.Expected.Info)
		}
	}
	conformance.Report(t, "simple_decode", len(cases))
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func TestConformanceTextMatching(t *testing.T) {
	type tc struct {
		GT    string `json:"gt"`
		Pred  string `json:"pred"`
		Dist  int    `json:"levenshtein_after_strip"`
		Match bool   `json:"expected_match"`
	}
	cases, _ := readCases[tc](t, "text_matching*.json", "cases")
	for _, c := range cases {
		if d := Levenshtein(pyStrip(c.GT), pyStrip(c.Pred)); d != c.Dist {
			t.Errorf("%q vs %q: distance %d, want %d", c.GT, c.Pred, d, c.Dist)
		}
		if m := TextMatch(c.GT, c.Pred); m != c.Match {
			t.Errorf("%q vs %q: match %v, want %v", c.GT, c.Pred, m, c.Match)
		}
	}
	conformance.Report(t, "text_matching", len(cases))
}

// literalOf reads a case's info: a JSON list or number, or a string to evaluate as a literal.
// A string that is no literal gives the parse error: the original's literal_eval raises there,
// which makes the step invalid (the case's error outcome).
func literalOf(raw json.RawMessage) (Literal, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		l, err := ParseLiteral(s)
		if err != nil {
			return l, fmt.Errorf("literal %q: %w", s, err)
		}
		return l, nil
	}
	l, err := ParseLiteral(string(raw))
	if err != nil {
		return l, fmt.Errorf("literal %s: %w", raw, err)
	}
	return l, nil
}

func TestConformanceClickMatching(t *testing.T) {
	type tc struct {
		Name     string          `json:"name"`
		GTInfo   json.RawMessage `json:"gt_info"`
		PredInfo json.RawMessage `json:"pred_info"`
		Box      json.RawMessage `json:"sam2_bbox"`
		Expected json.RawMessage `json:"expected"`
	}
	cases, _ := readCases[tc](t, "click_matching*.json", "cases")
	for _, c := range cases {
		box, err := parseBox(c.Box)
		if err != nil {
			t.Fatalf("%s: box: %v", c.Name, err)
		}
		var got bool
		gt, err := literalOf(c.GTInfo)
		if err == nil {
			var pred Literal
			if pred, err = literalOf(c.PredInfo); err == nil {
				got, err = ClickMatch(gt, pred, box)
			}
		}
		var want bool
		if json.Unmarshal(c.Expected, &want) != nil { // {"error": ...}
			if err == nil {
				t.Errorf("%s: got %v, want an error (%s)", c.Name, got, c.Expected)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%s: got %v, %v; want %v", c.Name, got, err, want)
		}
	}
	conformance.Report(t, "click_matching", len(cases))
}

var roundRobin = []string{"General_Tool", "Information_Management", "Media_Entertainment", "Multi_Apps", "Social_Sharing", "Web_Shopping"}

func TestConformanceStepMatch(t *testing.T) {
	files := conformance.Files(t, area, "step_match*.json")
	n := 0
	for _, path := range files {
		data, _ := os.ReadFile(path)
		var doc struct {
			Aggregate json.RawMessage `json:"aggregate_info_macro"`
			Cases     []struct {
				Name     string          `json:"name"`
				Pred     string          `json:"pred"`
				GT       string          `json:"gt"`
				Box      json.RawMessage `json:"sam2_bbox"`
				Expected StepVerdict     `json:"expected"`
			} `json:"cases"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var samples []Sample
		for i, c := range doc.Cases {
			box, err := parseBox(c.Box)
			if err != nil {
				t.Fatal(err)
			}
			v, err := MatchStep(c.Pred, c.GT, box)
			if err != nil || v != c.Expected {
				t.Errorf("%s: got %+v, %v; want %+v", c.Name, v, err, c.Expected)
			}
			samples = append(samples, Sample{Pred: c.Pred, GT: c.GT, Box: box, StepLength: 1,
				Category: roundRobin[i%len(roundRobin)], EpisodeID: fmt.Sprintf("case-%d", i)})
			n++
		}
		if len(doc.Aggregate) > 0 {
			res, err := Evaluate(samples, BranchMacro, Options{})
			if err != nil {
				t.Fatalf("%s: aggregate: %v", path, err)
			}
			got, _ := json.Marshal(res.Info)
			if !sameJSONText(got, doc.Aggregate) {
				t.Errorf("%s: aggregate %s, want %s", path, got, doc.Aggregate)
			}
		}
	}
	conformance.Report(t, "step_match", n)
}

// sameJSONText compares two JSON objects member by member, numbers by their text (so 0 and
// 0.0 differ, as they do in the original's output).
func sameJSONText(a, b []byte) bool {
	var x, y map[string]json.RawMessage
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil || len(x) != len(y) {
		return false
	}
	for k, v := range x {
		if string(v) != string(y[k]) {
			return false
		}
	}
	return true
}

func TestConformanceAggregate(t *testing.T) {
	type expected struct {
		Info    json.RawMessage `json:"info"`
		PerStep []StepVerdict   `json:"per_step"`
		Printed []string        `json:"per_category_printed"`
		Error   string          `json:"error"`
	}
	type scenario struct {
		Name     string              `json:"name"`
		Samples  json.RawMessage     `json:"samples"`
		Expected map[string]expected `json:"expected"`
	}
	scenarios, names := readCases[scenario](t, "aggregate*.json", "scenarios")
	n := 0
	for i, sc := range scenarios {
		samples, err := ReadPredictions(names[i], sc.Samples)
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		for branch, want := range sc.Expected {
			n++
			res, err := Evaluate(samples, Branch(branch), Options{})
			if want.Error != "" {
				var ab *AbortError
				if !errors.As(err, &ab) || ab.Exception != want.Error {
					t.Errorf("%s/%s: error %v, want %s", sc.Name, branch, err, want.Error)
				}
				// The lenient mode still gives numbers.
				if lr, lerr := Evaluate(samples, Branch(branch), Options{Lenient: true}); lr == nil || lr.Official() || lerr == nil {
					t.Errorf("%s/%s: lenient mode gave %+v, %v", sc.Name, branch, lr, lerr)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s/%s: %v", sc.Name, branch, err)
				continue
			}
			got, _ := json.Marshal(res.Info)
			if !sameJSONText(got, want.Info) {
				t.Errorf("%s/%s: info %s, want %s", sc.Name, branch, got, want.Info)
			}
			if want.PerStep != nil && len(want.PerStep) != len(res.Samples) {
				t.Errorf("%s/%s: %d scored steps, want %d", sc.Name, branch, len(res.Samples), len(want.PerStep))
			}
			for j, v := range want.PerStep {
				if j >= len(res.Samples) {
					break
				}
				if res.Samples[j].StepVerdict != v {
					t.Errorf("%s/%s: step %d %+v, want %+v", sc.Name, branch, j, res.Samples[j].StepVerdict, v)
				}
			}
			if p := res.PrintedCategories(); !reflect.DeepEqual(p, want.Printed) && (len(p) > 0 || len(want.Printed) > 0) {
				t.Errorf("%s/%s: printed %q, want %q", sc.Name, branch, p, want.Printed)
			}
		}
	}
	conformance.Report(t, "aggregate", n)
}

func TestConformanceRounding(t *testing.T) {
	n := 0
	for _, path := range conformance.Files(t, area, "rounding*.json") {
		data, _ := os.ReadFile(path)
		var doc struct {
			Scalars []struct {
				X        float64         `json:"x"`
				Repr     string          `json:"repr"`
				Py       json.RawMessage `json:"python_round_2"`
				Np       json.RawMessage `json:"numpy_round_2"`
				Format2f string          `json:"format_2f"`
			} `json:"scalars"`
			Means []struct {
				Values    []float64       `json:"values"`
				Mean      *float64        `json:"np_mean"`
				Round     json.RawMessage `json:"np_round_2"`
				PyRound   json.RawMessage `json:"python_round_of_mean"`
				SeqDivLen *float64        `json:"sequential_sum_div6"`
			} `json:"six_value_means"`
			Ordered []struct {
				Values []float64       `json:"values_in_category_order"`
				Mean   float64         `json:"np_mean"`
				Round  json.RawMessage `json:"np_round_2"`
			} `json:"order_sensitive_means"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		for _, s := range doc.Scalars {
			n++
			if r := pyfmt.FloatRepr(s.X); r != s.Repr {
				t.Errorf("repr(%v) = %s, want %s", s.X, r, s.Repr)
			}
			if got := pyfmt.FloatRepr(PyRound2(s.X)); got != string(s.Py) {
				t.Errorf("round(%v, 2) = %s, want %s", s.X, got, s.Py)
			}
			if got := pyfmt.FloatRepr(NumpyRound2(s.X)); got != string(s.Np) {
				t.Errorf("numpy.round(%v, 2) = %s, want %s", s.X, got, s.Np)
			}
			if got := Format2f(s.X); got != s.Format2f {
				t.Errorf("'{:.2f}'.format(%v) = %s, want %s", s.X, got, s.Format2f)
			}
		}
		mean := func(vs []float64) float64 {
			var sum float64
			for _, v := range vs {
				sum += v
			}
			return sum / float64(len(vs))
		}
		for _, m := range doc.Means {
			n++
			if m.Mean != nil && mean(m.Values) != *m.Mean {
				t.Errorf("mean %v = %v, want %v", m.Values, mean(m.Values), *m.Mean)
			}
			if m.SeqDivLen != nil && mean(m.Values) != *m.SeqDivLen {
				t.Errorf("sequential mean %v = %v, want %v", m.Values, mean(m.Values), *m.SeqDivLen)
			}
			if got := pyfmt.FloatRepr(NumpyRound2(mean(m.Values))); got != string(m.Round) {
				t.Errorf("mean %v rounds to %s, want %s", m.Values, got, m.Round)
			}
			if len(m.PyRound) > 0 {
				if got := pyfmt.FloatRepr(PyRound2(mean(m.Values))); got != string(m.PyRound) {
					t.Errorf("round(mean %v, 2) = %s, want %s", m.Values, got, m.PyRound)
				}
			}
		}
		for _, m := range doc.Ordered {
			n++
			if got := mean(m.Values); got != m.Mean {
				t.Errorf("mean %v = %v, want %v", m.Values, got, m.Mean)
			}
			if got := pyfmt.FloatRepr(NumpyRound2(mean(m.Values))); got != string(m.Round) {
				t.Errorf("mean %v rounds to %s, want %s", m.Values, got, m.Round)
			}
		}
	}
	conformance.Report(t, "rounding", n)
}
