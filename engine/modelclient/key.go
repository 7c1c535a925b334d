package modelclient

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/zalando/go-keyring"
)

// KeyringService is the service name the API keys are kept under in the OS keyring.
const KeyringService = "agentdesk"

// DefaultKeyEnv are the environment variables a key is read from, in order, when a KeySource
// names none.
var DefaultKeyEnv = []string{"AGENTDESK_API_KEY", "OPENAI_API_KEY"}

// ErrNoKey is returned when a key source was asked for a key and none is set.
var ErrNoKey = errors.New("no API key")

// Keyring is the OS keyring as the client uses it. SystemKeyring is the real one; tests and CI
// (which have no keyring service) use MemoryKeyring.
type Keyring interface {
	Get(service, user string) (string, error)
	Set(service, user, secret string) error
	Delete(service, user string) error
}

// SystemKeyring is the OS keyring: the Secret Service (D-Bus) on Linux, the Keychain on macOS,
// the Credential Manager on Windows.
type SystemKeyring struct{}

func (SystemKeyring) Get(service, user string) (string, error) {
	s, err := keyring.Get(service, user)
	if errors.Is(err, keyring.ErrNotFound) {
		return "", ErrNoKey
	}
	return s, err
}

func (SystemKeyring) Set(service, user, secret string) error {
	return keyring.Set(service, user, secret)
}

func (SystemKeyring) Delete(service, user string) error {
	err := keyring.Delete(service, user)
	if errors.Is(err, keyring.ErrNotFound) {
		return nil
	}
	return err
}

// MemoryKeyring is a keyring held in memory, for tests and machines without a keyring service.
type MemoryKeyring struct {
	mu sync.Mutex
	m  map[string]string
}

func (k *MemoryKeyring) Get(service, user string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	s, ok := k.m[service+"\x00"+user]
	if !ok {
		return "", ErrNoKey
	}
	return s, nil
}

func (k *MemoryKeyring) Set(service, user, secret string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil {
		k.m = map[string]string{}
	}
	k.m[service+"\x00"+user] = secret
	return nil
}

func (k *MemoryKeyring) Delete(service, user string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.m, service+"\x00"+user)
	return nil
}

// KeySource says where the API key comes from: the first set environment variable of Env
// (DefaultKeyEnv when Env is nil), else the keyring entry (KeyringService, Account) when
// Keyring is set. No key at all is allowed (local vLLM and Ollama servers need none) unless
// Required is set. Getenv defaults to os.Getenv.
type KeySource struct {
	Env      []string
	Keyring  Keyring
	Account  string
	Required bool
	Getenv   func(string) string
}

// Describe says where the key would come from, without the key: for progress lines and logs.
func (s KeySource) Describe() string {
	var where []string
	for _, e := range s.env() {
		where = append(where, "$"+e)
	}
	if s.Keyring != nil {
		where = append(where, fmt.Sprintf("keyring %s/%s", KeyringService, s.account()))
	}
	if len(where) == 0 {
		return "no key"
	}
	return strings.Join(where, ", then ")
}

func (s KeySource) env() []string {
	if s.Env == nil {
		return DefaultKeyEnv
	}
	return s.Env
}

func (s KeySource) account() string {
	if s.Account == "" {
		return "default"
	}
	return s.Account
}

// Key returns the API key ("" when none is set and none is required).
func (s KeySource) Key() (string, error) {
	getenv := s.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	for _, e := range s.env() {
		if v := strings.TrimSpace(getenv(e)); v != "" {
			return v, nil
		}
	}
	if s.Keyring != nil {
		v, err := s.Keyring.Get(KeyringService, s.account())
		switch {
		case err == nil && v != "":
			return v, nil
		case err != nil && !errors.Is(err, ErrNoKey):
			// The keyring library's errors never carry the secret.
			return "", fmt.Errorf("API key from keyring %s/%s: %w", KeyringService, s.account(), err)
		}
	}
	if s.Required {
		return "", fmt.Errorf("%w: set %s", ErrNoKey, s.Describe())
	}
	return "", nil
}
