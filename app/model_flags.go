package app

import (
	"flag"
	"time"

	"github.com/agentdesk/agentdesk/engine/modelclient"
)

// modelFlags are the options of a command that asks a model behind an OpenAI-compatible
// server (odyssey predict, eval annotate): the server, the model, the sampling and the limits
// of a run's requests, and where the API key comes from.
type modelFlags struct {
	url, model      *string
	conc, maxTokens *int
	temperature     *float64
	timeout         *time.Duration
	retries         *int
	keyEnv, keyring *string
}

// modelDefaults are a command's own defaults and help texts for modelFlags.
type modelDefaults struct {
	concurrency, maxTokens int
	timeout                time.Duration
	concHelp, tempHelp     string
	maxTokensHelp          string
}

func addModelFlags(fs *flag.FlagSet, d modelDefaults) *modelFlags {
	return &modelFlags{
		url:         fs.String("url", "", "the server's base URL, e.g. http://localhost:8000/v1 (vLLM), http://localhost:11434/v1 (Ollama), https://api.openai.com/v1 (required)"),
		model:       fs.String("model", "", "the model name the server knows (required)"),
		conc:        fs.Int("concurrency", d.concurrency, d.concHelp),
		temperature: fs.Float64("temperature", 0, d.tempHelp),
		maxTokens:   fs.Int("max-tokens", d.maxTokens, d.maxTokensHelp),
		timeout:     fs.Duration("timeout", d.timeout, "one request's limit, from sending to the whole answer"),
		retries:     fs.Int("retries", modelclient.DefaultMaxRetries, "retries of a request refused with 429 or 5xx or cut off (backoff with jitter, honouring Retry-After; 0: none)"),
		keyEnv:      fs.String("key-env", "", "read the API key from this environment variable (default: AGENTDESK_API_KEY, then OPENAI_API_KEY)"),
		keyring:     fs.String("keyring", "", "read the API key from the OS keyring, service agentdesk, this `ACCOUNT` (when no variable is set)"),
	}
}

// given says whether --url and --model were given.
func (m *modelFlags) given() bool { return *m.url != "" && *m.model != "" }

// config is the client's configuration (checked by modelclient.New).
func (m *modelFlags) config() modelclient.Config {
	key := modelclient.KeySource{}
	if *m.keyEnv != "" {
		key.Env = []string{*m.keyEnv}
	}
	if *m.keyring != "" {
		key.Keyring, key.Account = modelclient.SystemKeyring{}, *m.keyring
	}
	retries := *m.retries
	if retries == 0 {
		retries = -1 // none (0 is the client's default)
	}
	return modelclient.Config{BaseURL: *m.url, Model: *m.model, Temperature: *m.temperature, MaxTokens: *m.maxTokens,
		Timeout: *m.timeout, Concurrency: *m.conc, MaxRetries: retries, Key: key}
}
