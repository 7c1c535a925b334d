package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/pelletier/go-toml/v2"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
	"github.com/agentdesk/agentdesk/engine/limits"
)

// StoreFileName is the default store's file name inside the data folder.
const StoreFileName = "agentdesk.db"

// Environment variables that override where Agentdesk keeps things.
const (
	EnvDataFolder = "AGENTDESK_DATA"       // the data folder (default store lives here)
	EnvConfigDir  = "AGENTDESK_CONFIG_DIR" // the folder of settings.toml
)

// Settings are the few settings the command line shares with the desktop app. The app's own
// look-and-feel preferences live in fyne's preferences; these must be readable without a GUI.
type Settings struct {
	// DataFolder holds the default store; empty means the platform's default.
	DataFolder string `toml:"data_folder,omitempty"`
}

func configDir() (string, error) {
	if d := os.Getenv(EnvConfigDir); d != "" {
		return d, nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "agentdesk"), nil
}

// PreferencesPath is where the desktop app keeps its preferences (theme, window size, ...).
func PreferencesPath() (string, error) {
	d, err := configDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "preferences.json"), nil
}

// SettingsPath is where settings.toml lives.
func SettingsPath() (string, error) {
	d, err := configDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "settings.toml"), nil
}

// LoadSettings reads settings.toml; a missing file gives the defaults.
func LoadSettings() (Settings, error) {
	var s Settings
	path, err := SettingsPath()
	if err != nil {
		return s, err
	}
	b, err := limits.ReadFile(path, limits.Config)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	if err := toml.Unmarshal(b, &s); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return s, fmt.Errorf("%s:%d:%d: %v", path, row, col, de)
		}
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// SaveSettings writes settings.toml atomically (temporary file, fsync, rename).
func SaveSettings(s Settings) error {
	path, err := SettingsPath()
	if err != nil {
		return err
	}
	b, err := toml.Marshal(s)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append([]byte("# Agentdesk settings shared by the app and the command line.\n"), b...), 0o644)
}

// DefaultDataFolder is the platform's per-user data folder for Agentdesk.
func DefaultDataFolder() (string, error) {
	home, err := os.UserHomeDir()
	switch runtime.GOOS {
	case "windows":
		if d := os.Getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "Agentdesk"), nil
		}
		if err != nil {
			return "", err
		}
		return filepath.Join(home, "AppData", "Local", "Agentdesk"), nil
	case "darwin":
		if err != nil {
			return "", err
		}
		return filepath.Join(home, "Library", "Application Support", "Agentdesk"), nil
	default:
		if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
			return filepath.Join(d, "agentdesk"), nil
		}
		if err != nil {
			return "", err
		}
		return filepath.Join(home, ".local", "share", "agentdesk"), nil
	}
}

// DataFolder is where the default store lives: $AGENTDESK_DATA, else the settings' data
// folder, else the platform default.
func DataFolder() (string, error) {
	if d := os.Getenv(EnvDataFolder); d != "" {
		return filepath.Abs(d)
	}
	s, err := LoadSettings()
	if err != nil {
		return "", err
	}
	if s.DataFolder != "" {
		return s.DataFolder, nil
	}
	return DefaultDataFolder()
}

// SetDataFolder saves a new data folder in settings.toml, creating the folder.
func SetDataFolder(dir string) error {
	if dir == "" {
		return errors.New("the data folder cannot be empty")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return fmt.Errorf("cannot use %s as the data folder: %w", abs, err)
	}
	s, err := LoadSettings()
	if err != nil {
		return err
	}
	s.DataFolder = abs
	return SaveSettings(s)
}

// DefaultStorePath is the default store file.
func DefaultStorePath() (string, error) {
	d, err := DataFolder()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, StoreFileName), nil
}
