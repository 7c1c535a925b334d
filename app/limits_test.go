//go:build !windows

package app

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentdesk/agentdesk/engine/conformance"
)

// TestHostileInputsRefused: devices, FIFOs and absurd declared counts are refused at once with
// the limit or the file type named, instead of an import that runs until memory or the disk is
// full (before: 4 GB of memory in 25 s for /dev/zero, a WAL growing 7 MB/s for 10^12 units).
func TestHostileInputsRefused(t *testing.T) {
	dir := isolate(t)
	db := filepath.Join(dir, "store.db")
	check := func(what string, r result, want ...string) {
		t.Helper()
		if r.code != 1 {
			t.Errorf("%s: exit %d, want 1 (%s)", what, r.code, r.stderr)
			return
		}
		for _, w := range want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s: %q does not say %q", what, strings.TrimSpace(r.stderr), w)
			}
		}
		t.Logf("%s: %s", what, strings.TrimSpace(r.stderr))
	}
	start := time.Now()

	check("pickle info /dev/zero", runCLI(t, "pickle", "info", "/dev/zero"), "/dev/zero", "character device")
	check("pickle info --json /dev/urandom", runCLI(t, "pickle", "info", "--json", "/dev/urandom"), "character device")
	check("pickle visualize /dev/zero", runCLI(t, "pickle", "visualize", "/dev/zero", filepath.Join(dir, "frames")), "character device")

	// an evaluation project declaring 10^12 units
	units := filepath.Join(dir, "units")
	copyDir(t, evalExample, units)
	unitsFile := filepath.Join(units, "task_config", "task_data", "demo_units.json")
	b, err := os.ReadFile(unitsFile)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), ":")
	j := strings.IndexAny(string(b[i:]), ",\n}") + i
	os.WriteFile(unitsFile, []byte(string(b[:i+1])+" 1000000000000"+string(b[j:])), 0o644)
	check("eval import with 10^12 units", runCLI(t, "--store", db, "eval", "import", "--config", "flags", units),
		"demo_units.json", "1000000000000", "AGENTDESK_LIMIT_UNITS")

	// its data file a symbolic link to /dev/zero
	zero := filepath.Join(dir, "zero")
	copyDir(t, evalExample, zero)
	data := filepath.Join(zero, "task_config", "task_data", "demo.jsonl")
	os.Remove(data)
	if err := os.Symlink("/dev/zero", data); err != nil {
		t.Fatal(err)
	}
	check("eval import with data_jsonl -> /dev/zero", runCLI(t, "--store", db, "eval", "import", "--config", "flags", zero),
		"demo.jsonl", "character device")

	// an Odyssey annotation linked to /dev/zero, and one replaced by a FIFO
	for _, kind := range []string{"symlink", "fifo"} {
		ody := filepath.Join(dir, "odyssey-"+kind)
		conformance.CopyTree(t, filepath.Join(conformance.RepoDir(t, "odyssey"), "sample"), ody)
		anns, _ := filepath.Glob(filepath.Join(ody, "annotations", "*.json"))
		if len(anns) == 0 {
			t.Fatal("the sample has no annotations")
		}
		os.Remove(anns[0])
		if kind == "symlink" {
			err = os.Symlink("/dev/zero", anns[0])
		} else {
			err = mkfifo(anns[0])
		}
		if err != nil {
			t.Fatal(err)
		}
		check("odyssey import, an annotation as a "+kind, runCLI(t, "--store", db, "odyssey", "import", ody), filepath.Base(anns[0]))
	}
	if el := time.Since(start); el > 30*time.Second {
		t.Errorf("refusing took %v", el)
	}
}

// TestDamagedStoreCommands: `store check` lists the problems of a damaged store and exits 1;
// after an unclean shutdown, the first command that writes checks the store and refuses to
// write into a damaged one, saying how to recover. Before, a store with 17 damaged pages was
// used: `store info` said nothing and `odyssey import` wrote into it.
func TestDamagedStoreCommands(t *testing.T) {
	dir := isolate(t)
	db := filepath.Join(dir, "store.db")
	sample := filepath.Join(conformance.RepoDir(t, "odyssey"), "sample")
	if r := runCLI(t, "--store", db, "odyssey", "import", sample); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	if r := runCLI(t, "--store", db, "store", "check"); r.code != 0 || !strings.Contains(r.stdout, "ok") {
		t.Fatalf("check of a sound store: %+v", r)
	}
	st, _ := os.Stat(db)
	f, _ := os.OpenFile(db, os.O_WRONLY, 0)
	junk := make([]byte, 3*4096)
	for i := range junk {
		junk[i] = byte(i*13 + 1)
	}
	f.WriteAt(junk, (st.Size()/4096/2)*4096)
	f.Close()
	r := runCLI(t, "--store", db, "store", "check")
	if r.code != 1 || !strings.Contains(r.stderr, "damaged") || r.stdout == "" {
		t.Fatalf("check of a damaged store: %+v", r)
	}
	t.Logf("store check: %s%s", r.stdout, r.stderr)
	// an unclean shutdown: a marker of a process that is gone
	gone := exec.Command(os.Args[0], "-test.run=^$")
	gone.Run()
	os.WriteFile(filepath.Join(dir, fmt.Sprintf(".store.db.open-%d-1", gone.Process.Pid)), []byte(`{}`), 0o644)
	r = runCLI(t, "--store", db, "odyssey", "import", "--force", sample)
	if r.code != 1 || !strings.Contains(r.stderr, "damaged") || !strings.Contains(r.stderr, "Export what can still be read") || !strings.Contains(r.stderr, "not closed cleanly") {
		t.Fatalf("import into a damaged store after an unclean shutdown: %+v", r)
	}
	t.Logf("import refused: %s", r.stderr)
}
