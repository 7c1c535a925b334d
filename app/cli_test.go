package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/store"
)

// isolate points the data and config folders at a temp dir.
func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv(EnvConfigDir, filepath.Join(dir, "config"))
	t.Setenv(EnvDataFolder, "")
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	t.Setenv("HOME", dir)
	return dir
}

type result struct {
	code           int
	stdout, stderr string
	gui            GUIOptions
	guiOpened      bool
}

func runCLI(t *testing.T, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	r := result{}
	r.code = run(args, &out, &errb, func(o GUIOptions) int {
		r.guiOpened, r.gui = true, o
		return 0
	})
	r.stdout, r.stderr = out.String(), errb.String()
	return r
}

func TestNoArgumentsOpensTheApp(t *testing.T) {
	isolate(t)
	if r := runCLI(t); !r.guiOpened || r.gui.StorePath != "" || r.code != 0 {
		t.Fatalf("no arguments: %+v", r)
	}
	if r := runCLI(t, "--store", "/tmp/x.db"); !r.guiOpened || r.gui.StorePath != "/tmp/x.db" {
		t.Fatalf("--store: %+v", r)
	}
	r := runCLI(t, "--store", "/tmp/x.db", "gridworld", "play", "--task", "arch")
	if !r.guiOpened || r.gui != (GUIOptions{StorePath: "/tmp/x.db", Screen: "gridworld", Task: "arch"}) {
		t.Fatalf("gridworld play: %+v", r)
	}
	if r := runCLI(t, "gridworld", "play", "--task", "castle"); r.guiOpened || r.code != 1 {
		t.Fatalf("gridworld play with an unknown task: %+v", r)
	}
}

func TestHelpAndVersion(t *testing.T) {
	isolate(t)
	r := runCLI(t, "help")
	if r.code != 0 {
		t.Fatalf("help exit %d", r.code)
	}
	for _, group := range []string{"gridworld", "pickle", "template", "eval", "odyssey", "store: info, path", "version"} {
		if !strings.Contains(r.stdout, group) {
			t.Errorf("help does not mention %q:\n%s", group, r.stdout)
		}
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		r = runCLI(t, args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "agentdesk ") {
			t.Fatalf("%v: %+v", args, r)
		}
	}
	if r = runCLI(t, "help", "store", "info"); r.code != 0 || !strings.Contains(r.stdout, "agentdesk store info") {
		t.Fatalf("help store info: %+v", r)
	}
	if r = runCLI(t, "store", "--help"); r.code != 0 || !strings.Contains(r.stdout, "info") {
		t.Fatalf("store --help: %+v", r)
	}
}

func TestUnknownCommandsAndFlagsExit2(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{
		{"frobnicate"},
		{"--frobnicate"},
		{"store", "frobnicate"},
		{"store", "info", "--frobnicate"},
		{"store", "info", "extra-argument"},
		{"version", "extra"},
		{"help", "frobnicate"},
		{"store"},   // a group needs a command
		{"odyssey"}, // a group without commands yet
		{"--store"}, // flag without its value
	} {
		r := runCLI(t, args...)
		if r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "Usage:") && !strings.Contains(r.stderr, "agentdesk") {
			t.Errorf("%v: no usage printed: %q", args, r.stderr)
		}
		if r.guiOpened {
			t.Errorf("%v opened the GUI", args)
		}
	}
}

func TestStoreInfo(t *testing.T) {
	dir := isolate(t)
	path := filepath.Join(dir, "s.db")
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st.SaveEpisode(context.Background(), &episode.Episode{Source: "odyssey", ExternalID: "a", Steps: []episode.Step{{Index: 0}}})
	st.Close()
	r := runCLI(t, "--store", path, "store", "info")
	if r.code != 0 || !strings.Contains(r.stdout, path) || !strings.Contains(r.stdout, "odyssey") || !strings.Contains(r.stdout, "steps                1") {
		t.Fatalf("store info: %+v", r)
	}
	// The default store is created in the data folder on first use.
	r = runCLI(t, "store", "info")
	want := filepath.Join(dir, "data", "agentdesk", StoreFileName)
	if r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Fatalf("default store info: %+v", r)
	}
	if _, err := os.Stat(want); err != nil {
		t.Fatal(err)
	}
	if r = runCLI(t, "store", "path"); strings.TrimSpace(r.stdout) != want {
		t.Fatalf("store path: %q", r.stdout)
	}
}

func TestStoreInfoRefusesForeignFile(t *testing.T) {
	dir := isolate(t)
	path := filepath.Join(dir, "notes.txt")
	content := []byte(strings.Repeat("not a database\n", 20))
	os.WriteFile(path, content, 0o644)
	r := runCLI(t, "--store", path, "store", "info")
	if r.code != 1 || !strings.Contains(r.stderr, "not an Agentdesk store") || !strings.Contains(r.stderr, "not modified") {
		t.Fatalf("foreign file: %+v", r)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, content) {
		t.Fatal("foreign file modified")
	}
}

func TestDataFolderSettings(t *testing.T) {
	dir := isolate(t)
	d, err := DataFolder()
	if err != nil || d != filepath.Join(dir, "data", "agentdesk") {
		t.Fatalf("default data folder %q %v", d, err)
	}
	custom := filepath.Join(dir, "elsewhere")
	if err := SetDataFolder(custom); err != nil {
		t.Fatal(err)
	}
	if d, _ = DataFolder(); d != custom {
		t.Fatalf("data folder after setting: %q", d)
	}
	if p, _ := DefaultStorePath(); p != filepath.Join(custom, StoreFileName) {
		t.Fatalf("store path %q", p)
	}
	t.Setenv(EnvDataFolder, filepath.Join(dir, "env"))
	if d, _ = DataFolder(); d != filepath.Join(dir, "env") {
		t.Fatalf("env override: %q", d)
	}
	if err := SetDataFolder(""); err == nil {
		t.Fatal("empty data folder accepted")
	}
	// A broken settings file is reported with its position.
	sp, _ := SettingsPath()
	os.WriteFile(sp, []byte("data_folder = \n"), 0o644)
	t.Setenv(EnvDataFolder, "")
	if _, err := DataFolder(); err == nil || !strings.Contains(err.Error(), "settings.toml:1:") {
		t.Fatalf("broken settings: %v", err)
	}
}

func TestFyneAppTomlMatchesCode(t *testing.T) {
	b, err := os.ReadFile("../FyneApp.toml")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Details struct {
			ID, Name, Icon, Version string
		}
	}
	if err := toml.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Details.ID != AppID || meta.Details.Name != "Agentdesk" {
		t.Fatalf("FyneApp.toml ID %q name %q; code uses %q", meta.Details.ID, meta.Details.Name, AppID)
	}
	if _, err := os.Stat(filepath.Join("..", meta.Details.Icon)); err != nil {
		t.Fatalf("FyneApp.toml icon: %v", err)
	}
	if meta.Details.Version != Release {
		t.Fatalf("FyneApp.toml version %q; code says %q", meta.Details.Version, Release)
	}
}

// TestVersionOfAPlainBuild: a binary built without the Makefile's -X names the release and
// the commit it was built from, not just "dev".
func TestVersionOfAPlainBuild(t *testing.T) {
	bi := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "1a2b3c4d5e6f"}, {Key: "vcs.modified", Value: "true"}}}
	if v := versionFromBuild(bi, true); v != Release+"+1a2b3c4-modified" {
		t.Errorf("from a modified checkout: %q", v)
	}
	bi.Settings = bi.Settings[:1]
	if v := versionFromBuild(bi, true); v != Release+"+1a2b3c4" {
		t.Errorf("from a clean checkout: %q", v)
	}
	if v := versionFromBuild(&debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"}}, true); v != "0.2.0" {
		t.Errorf("go install of a tagged module: %q", v)
	}
	if v := versionFromBuild(nil, false); v != Release+"+dev" {
		t.Errorf("no build information: %q", v)
	}
	if Version == "" || Version == "dev" {
		t.Errorf("Version %q", Version)
	}
}

// A wrong number of arguments is a usage error found before the store is opened (or created).
func TestArgumentCountCheckedBeforeOpeningTheStore(t *testing.T) {
	db := filepath.Join(t.TempDir(), "never.db")
	for _, args := range [][]string{
		{"store", "info", "extra"},
		{"eval", "projects", "extra"},
		{"eval", "unblock", "demo"},
		{"odyssey", "splits", "extra"},
		{"odyssey", "export", "split", "random"},
	} {
		r := runCLI(t, append([]string{"--store", db}, args...)...)
		if r.code != exitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", args, r.code, exitUsage, r.stderr)
		}
		if _, err := os.Stat(db); !os.IsNotExist(err) {
			t.Fatalf("%v: the store was created (%v)", args, err)
		}
	}
}

// TestHelpFitsATerminal: every help text (the overview, each group, each command with its
// options) fits 80 columns; long summaries and option texts wrap under their column.
func TestHelpFitsATerminal(t *testing.T) {
	var paths [][]string
	var walk func(c *command, path []string)
	walk = func(c *command, path []string) {
		paths = append(paths, path)
		for _, s := range c.sub {
			walk(s, append(append([]string(nil), path...), s.name))
		}
	}
	walk(root, nil)
	for _, p := range paths {
		r := runCLI(t, append([]string{"help"}, p...)...)
		if r.code != 0 {
			t.Fatalf("help %v: %+v", p, r)
		}
		for i, line := range strings.Split(r.stdout, "\n") {
			if n := utf8.RuneCountInString(line); n > helpWidth {
				t.Errorf("help %v line %d is %d characters: %q", p, i+1, n, line)
			}
		}
	}
	if len(paths) < 30 {
		t.Fatalf("only %d help texts", len(paths))
	}
	if r := runCLI(t, "help", "pickle"); !strings.Contains(r.stdout, "             remove; IDX:op") {
		t.Errorf("a wrapped summary does not continue under its column:\n%s", r.stdout)
	}
}
