// Package modelclient is the project's one client for models: OpenAI's chat completions API
// (POST {base}/chat/completions), which vLLM, SGLang, TGI, llama.cpp, Ollama and hosted APIs all
// serve. Messages carry text and images (sent as base64 data URLs); a Client bounds the requests
// in flight, retries 429 and 5xx answers with exponential backoff and jitter (honouring
// Retry-After, in seconds or as an HTTP date), stops on its context, and reports each request's
// token usage and latency. The API key comes from an environment variable or the OS keyring
// (KeySource) and is never logged nor put in an error.
package modelclient

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
)

// Role names of chat messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Part is one piece of a message's content: text, or an image. An image is either raw bytes
// (Data, with its MIME type; sent as a data:MIME;base64 URL, encoded straight into the request
// body) or a URL given as is (a data URL built elsewhere, or an http(s) URL the server fetches).
type Part struct {
	Text string
	// Image fields; a Part is an image when Data, B64 or URL is set.
	MIME string
	Data []byte
	B64  []byte // the image already base64-encoded (ImageBase64): copied into bodies as is
	URL  string
}

// IsImage tells whether the part is an image.
func (p Part) IsImage() bool { return p.Data != nil || p.B64 != nil || p.URL != "" }

// Text is a text part.
func Text(s string) Part { return Part{Text: s} }

// Image is an image part of the given MIME type ("image/png", "image/jpeg"); the bytes are
// base64-encoded when the request is written.
func Image(mime string, data []byte) Part {
	if data == nil {
		data = []byte{}
	}
	return Part{MIME: mime, Data: data}
}

// ImageBase64 is an image part whose bytes are encoded once, here, for requests that send the
// same image again (a screenshot in the history of the steps after it).
func ImageBase64(mime string, data []byte) Part {
	return Part{MIME: mime, B64: base64.StdEncoding.AppendEncode(make([]byte, 0, base64.StdEncoding.EncodedLen(len(data))), data)}
}

// ImageURL is an image part given by URL (a data: URL or one the server can fetch).
func ImageURL(url string) Part { return Part{URL: url} }

// Message is one chat message. A message of a single text part is sent with content as a
// string (the form every engine accepts); any other is sent as an array of parts.
type Message struct {
	Role  string
	Parts []Part
}

// User is a user message of the given parts.
func User(parts ...Part) Message { return Message{Role: RoleUser, Parts: parts} }

// System is a system message of text.
func System(text string) Message { return Message{Role: RoleSystem, Parts: []Part{Text(text)}} }

// Request is one chat completion. Temperature and MaxTokens, when set, override the client's.
// OnAttempt, when set, is called after each of this request's HTTP attempts (after the
// client's own Config.OnAttempt), from the calling goroutine.
type Request struct {
	Messages    []Message
	Temperature *float64
	MaxTokens   int
	OnAttempt   func(Attempt)
}

// Usage is the token count a server reports for one completion.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// appendBody writes the JSON body of a request: model, messages, temperature, max_tokens,
// stream false. Images are base64-encoded straight into buf (base64 needs no JSON escaping), so
// a screenshot of a few hundred KB is not copied through a string and an escaper.
func appendBody(buf []byte, model string, req Request, temperature float64, maxTokens int) []byte {
	buf = append(buf, `{"model":`...)
	buf = appendString(buf, model)
	buf = append(buf, `,"messages":[`...)
	for i, m := range req.Messages {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"role":`...)
		buf = appendString(buf, m.Role)
		buf = append(buf, `,"content":`...)
		if len(m.Parts) == 1 && !m.Parts[0].IsImage() {
			buf = appendString(buf, m.Parts[0].Text)
		} else {
			buf = append(buf, '[')
			for j, p := range m.Parts {
				if j > 0 {
					buf = append(buf, ',')
				}
				if !p.IsImage() {
					buf = append(buf, `{"type":"text","text":`...)
					buf = appendString(buf, p.Text)
					buf = append(buf, '}')
					continue
				}
				buf = append(buf, `{"type":"image_url","image_url":{"url":`...)
				if p.URL != "" {
					buf = appendString(buf, p.URL)
				} else {
					buf = append(buf, `"data:`...)
					mime := appendString(nil, p.MIME)
					buf = append(buf, mime[1:len(mime)-1]...) // the escaped MIME type, unquoted
					buf = append(buf, ";base64,"...)
					if p.B64 != nil {
						buf = append(buf, p.B64...)
					} else {
						buf = base64.StdEncoding.AppendEncode(buf, p.Data)
					}
					buf = append(buf, '"')
				}
				buf = append(buf, `}}`...)
			}
			buf = append(buf, ']')
		}
		buf = append(buf, '}')
	}
	buf = append(buf, ']')
	if req.Temperature != nil {
		temperature = *req.Temperature
	}
	buf = append(buf, `,"temperature":`...)
	buf = strconv.AppendFloat(buf, temperature, 'g', -1, 64)
	if req.MaxTokens > 0 {
		maxTokens = req.MaxTokens
	}
	if maxTokens > 0 {
		buf = append(buf, `,"max_tokens":`...)
		buf = strconv.AppendInt(buf, int64(maxTokens), 10)
	}
	buf = append(buf, `,"stream":false}`...)
	return buf
}

// appendString appends s as a JSON string.
func appendString(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			b, _ := json.Marshal(s) // rare path: escapes, and invalid UTF-8 made valid
			return append(buf, b...)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}
