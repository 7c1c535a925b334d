package app

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/agentdesk/agentdesk/engine/conformance"
)

// mutate damages data the ways files get damaged: bytes flipped, cut short, bytes inserted, a
// chunk repeated or dropped.
func mutate(rng *rand.Rand, data []byte) []byte {
	out := append([]byte(nil), data...)
	if len(out) == 0 {
		return []byte{byte(rng.IntN(256))}
	}
	for range 1 + rng.IntN(3) {
		switch rng.IntN(5) {
		case 0:
			for range 1 + rng.IntN(8) {
				out[rng.IntN(len(out))] ^= byte(1 << rng.IntN(8))
			}
		case 1:
			out = out[:rng.IntN(len(out))]
		case 2:
			i := rng.IntN(len(out) + 1)
			ins := make([]byte, 1+rng.IntN(16))
			for k := range ins {
				ins[k] = byte(rng.IntN(256))
			}
			out = append(out[:i], append(ins, out[i:]...)...)
		case 3:
			i := rng.IntN(len(out))
			j := i + rng.IntN(len(out)-i)
			out = append(out[:j], append(append([]byte(nil), out[i:j]...), out[j:]...)...)
		default:
			i := rng.IntN(len(out))
			j := i + rng.IntN(len(out)-i)
			out = append(out[:i], out[j:]...)
		}
		if len(out) == 0 {
			out = []byte{0}
		}
	}
	return out
}

// filesUnder lists the regular files of a tree.
func filesUnder(t *testing.T, root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	if len(out) == 0 {
		t.Fatalf("no files under %s", root)
	}
	return out
}

// TestCorruptedInputsSweep feeds the commands corrupted copies of every kind of input (pickles,
// GUI Odyssey folders, evaluation projects, template folders) and requires a clean outcome from
// each: success or an error message with exit status 1, never a crash or a hang. It runs only
// when AGENTDESK_SWEEP gives the number of corrupted inputs per kind (`make reliability`).
func TestCorruptedInputsSweep(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("AGENTDESK_SWEEP"))
	if n <= 0 {
		t.Skip("set AGENTDESK_SWEEP=N (make reliability) to run N corrupted inputs per kind")
	}
	dir := isolate(t)
	rng := rand.New(rand.NewPCG(uint64(n), 12))
	total, failed := 0, 0
	outcome := func(kind string, r result, input string) {
		total++
		switch r.code {
		case 0:
		case 1:
			failed++
			if r.stderr == "" {
				t.Errorf("%s: exit 1 without a message (%s)", kind, input)
			}
		default:
			t.Errorf("%s: exit %d (%s): %s", kind, r.code, input, r.stderr)
		}
	}
	// pickles
	pickles := filesUnder(t, filepath.Join(conformance.Dir(t, "mobileenv"), "pickles", "inputs"))
	for i := range n {
		src := pickles[rng.IntN(len(pickles))]
		data, _ := os.ReadFile(src)
		p := filepath.Join(dir, "p.pkl")
		os.WriteFile(p, mutate(rng, data), 0o644)
		outcome("pickle info", runCLI(t, "pickle", "info", "--json", p), src)
		out := filepath.Join(dir, "frames", strconv.Itoa(i))
		outcome("pickle visualize", runCLI(t, "pickle", "visualize", "--png", "--safe-names", p, out), src)
		os.RemoveAll(filepath.Join(dir, "frames"))
	}
	// one folder tree per kind: copy, corrupt one file, run the command
	trees := []struct {
		kind, src string
		args      func(copy string) []string
	}{
		{"odyssey import", filepath.Join(conformance.RepoDir(t, "odyssey"), "sample"),
			func(c string) []string {
				return []string{"--store", filepath.Join(dir, "o.db"), "odyssey", "import", "--force", c}
			}},
		{"eval import", filepath.Join(conformance.RepoDir(t, "evaluation"), "example-project"),
			func(c string) []string {
				return []string{"--store", filepath.Join(dir, "e.db"), "eval", "import", "--config", "flags", "--name", "p" + strconv.Itoa(total), c}
			}},
		{"template parse", "../engine/template/examples",
			func(c string) []string {
				return []string{"template", "parse", "--task", filepath.Join(c, "tasks", "buy_headphones.task"), "-p", filepath.Join(c, "templates")}
			}},
	}
	for _, tr := range trees {
		files := filesUnder(t, tr.src)
		for i := range n {
			c := filepath.Join(dir, "tree", strconv.Itoa(i))
			conformance.CopyTree(t, tr.src, c)
			victim := files[rng.IntN(len(files))]
			rel, _ := filepath.Rel(tr.src, victim)
			data, _ := os.ReadFile(victim)
			os.WriteFile(filepath.Join(c, rel), mutate(rng, data), 0o644)
			outcome(tr.kind, runCLI(t, tr.args(c)...), rel)
			os.RemoveAll(c)
		}
	}
	t.Logf("%d corrupted inputs tried: %d refused with a message, %d accepted, 0 crashes", total, failed, total-failed)
	if r := runCLI(t, "--store", filepath.Join(dir, "o.db"), "store", "check"); r.code != 0 {
		t.Errorf("the store after the sweep: %+v", r)
	}
}
