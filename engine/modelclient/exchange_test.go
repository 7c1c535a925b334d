package modelclient_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/modelclient"
	"github.com/agentdesk/agentdesk/engine/modelclient/fakeserver"
)

// exchange is a recorded request and response of an OpenAI-compatible engine, as its
// documentation shows them (testdata/exchanges).
type exchange struct {
	Request  json.RawMessage `json:"request"`
	Response json.RawMessage `json:"response"`
}

// requestOf rebuilds the recorded request as a client Request: string contents as one text
// part, images given as data URLs as bytes (so the client encodes them itself).
func requestOf(t *testing.T, raw json.RawMessage) (model string, maxTokens int, temp *float64, req modelclient.Request) {
	var w struct {
		Model       string   `json:"model"`
		MaxTokens   int      `json:"max_tokens"`
		Temperature *float64 `json:"temperature"`
		Messages    []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatal(err)
	}
	for _, m := range w.Messages {
		msg := modelclient.Message{Role: m.Role}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			msg.Parts = []modelclient.Part{modelclient.Text(s)}
		} else {
			var parts []struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				ImageURL struct {
					URL string `json:"url"`
				} `json:"image_url"`
			}
			if err := json.Unmarshal(m.Content, &parts); err != nil {
				t.Fatal(err)
			}
			for _, p := range parts {
				switch {
				case p.Type == "text":
					msg.Parts = append(msg.Parts, modelclient.Text(p.Text))
				case strings.HasPrefix(p.ImageURL.URL, "data:"):
					mime, b64, _ := strings.Cut(strings.TrimPrefix(p.ImageURL.URL, "data:"), ";base64,")
					data, err := base64.StdEncoding.DecodeString(b64)
					if err != nil {
						t.Fatal(err)
					}
					msg.Parts = append(msg.Parts, modelclient.Image(mime, data))
				default:
					msg.Parts = append(msg.Parts, modelclient.ImageURL(p.ImageURL.URL))
				}
			}
		}
		req.Messages = append(req.Messages, msg)
	}
	return w.Model, w.MaxTokens, w.Temperature, req
}

func TestRecordedExchanges(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "exchanges", "*.json"))
	t.Logf("%d recorded exchanges", len(files))
	if len(files) == 0 {
		t.Fatal("no recorded exchanges in testdata/exchanges")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var ex exchange
			if err := json.Unmarshal(data, &ex); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			model, maxTokens, temp, req := requestOf(t, ex.Request)
			cfg := modelclient.Config{Model: model, MaxTokens: maxTokens, Key: noKey()}
			if temp != nil {
				cfg.Temperature = *temp
			}

			// The request: ours is the recorded one, plus the temperature and "stream": false
			// we always send.
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Write(ex.Response)
			}))
			defer srv.Close()
			cfg.BaseURL = srv.URL + "/v1"
			c, err := modelclient.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var ours, theirs map[string]any
			if err := json.Unmarshal(c.Body(req), &ours); err != nil {
				t.Fatalf("our body is not JSON: %v", err)
			}
			json.Unmarshal(ex.Request, &theirs)
			if ours["stream"] != false {
				t.Fatalf("stream %v", ours["stream"])
			}
			delete(ours, "stream")
			if _, ok := theirs["temperature"]; !ok {
				delete(ours, "temperature")
			}
			if !reflect.DeepEqual(ours, theirs) {
				a, _ := json.MarshalIndent(ours, "", " ")
				b, _ := json.MarshalIndent(theirs, "", " ")
				t.Fatalf("%s: our request\n%s\nis not the recorded one\n%s", f, a, b)
			}

			// The response: read as the recorded answer says.
			var want struct {
				Choices []struct {
					Message struct {
						Content string `json:"content"`
					} `json:"message"`
					FinishReason string `json:"finish_reason"`
				} `json:"choices"`
				Usage modelclient.Usage `json:"usage"`
				Model string            `json:"model"`
			}
			json.Unmarshal(ex.Response, &want)
			resp, err := c.Complete(context.Background(), req)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if resp.Text != want.Choices[0].Message.Content || resp.Usage != want.Usage || resp.FinishReason != want.Choices[0].FinishReason || resp.Model != want.Model {
				t.Fatalf("%s: read %+v, want %+v", f, resp, want)
			}

			// The fake server takes the recorded request as it is.
			fake := fakeserver.New(fakeserver.Options{})
			defer fake.Close()
			hr, err := http.Post(fake.URL+"/chat/completions", "application/json", bytes.NewReader(ex.Request))
			if err != nil {
				t.Fatal(err)
			}
			hr.Body.Close()
			if hr.StatusCode != 200 {
				t.Fatalf("%s: the fake server refused the recorded request: %d", f, hr.StatusCode)
			}
		})
	}
}
