package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/mobileenv"
	"github.com/agentdesk/agentdesk/engine/mobileenv/mobileenvtest"
)

// TestPickleErrorsNameTheirFile: every pickle command's error names the file (and the place in
// it), and a % in a folder of resave's pattern is explained. Before, `pickle visualize` of a
// file without "meta" printed only KeyError: 'meta', a modifier that does not apply printed no
// file, and a folder named 100% failed with "unsupported format character '/'".
func TestPickleErrorsNameTheirFile(t *testing.T) {
	dir := isolate(t)
	root := mobileenv.NewDict()
	root.Set("trajectories", &mobileenv.List{})
	b, err := mobileenv.Encode(root)
	if err != nil {
		t.Fatal(err)
	}
	noMeta := filepath.Join(dir, "no-meta.pkl")
	os.WriteFile(noMeta, b, 0o644)
	good := filepath.Join(dir, "good.pkl")
	if err := mobileenvtest.WriteResaved(good, 2, 1<<16); err != nil {
		t.Fatal(err)
	}
	defs := filepath.Join(dir, "defs")
	mobileenvtest.WriteDefinitions(defs)
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"pickle", "visualize", noMeta, filepath.Join(dir, "v")}, []string{noMeta + ": KeyError: 'meta'", `no "meta"`}},
		{[]string{"pickle", "video", noMeta, filepath.Join(dir, "v")}, []string{noMeta + ": KeyError: 'meta'"}},
		{[]string{"pickle", "edit", good, "0:nosuch:1"}, []string{good + `: modifier 0 "0:nosuch:1": KeyError: 'nosuch'`}},
		{[]string{"pickle", "edit", good, "9:remove"}, []string{good + ": modifier 0", "IndexError"}},
		{[]string{"pickle", "resave", filepath.Join(dir, "100%", "anno.%d.pkl") + ":0:1", out, defs},
			[]string{"100%/anno.%d.pkl", "a % in a folder name is written %%", filepath.Join(dir, "100%%", "anno.%d.pkl")}},
	} {
		r := runCLI(t, c.args...)
		if r.code != 1 {
			t.Errorf("%v: exit %d, want 1 (%s)", c.args, r.code, r.stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%v: %q lacks %q", c.args, strings.TrimSpace(r.stderr), w)
			}
		}
	}
}
