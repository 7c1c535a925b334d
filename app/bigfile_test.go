package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// bigAnnotation writes one GUI Odyssey episode of n steps (about 100 bytes a step) as
// dir/annotations/big_ep.json and returns its size.
func bigAnnotation(t *testing.T, dir string, n int) int64 {
	ann := filepath.Join(dir, "annotations")
	if err := os.MkdirAll(ann, 0o755); err != nil {
		t.Fatal(err)
	}
	b := fmt.Appendf(nil, `{"episode_id":"big_ep","device_info":{"product":"x","release_version":"14","sdk_version":"34","w":1080,"h":2400,"device_name":"Medium Phone"},"task_info":{"category":"General_Tool","app":["Chrome"],"meta_task":"m","task":"t","instruction":"do it"},"step_length":%d,"steps":[`, n)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `{"step": %d, "screenshot": "big_ep_%d.png", "action": "CLICK", "info": [[500, %d]], "ps": ""}`, i, i, i%1000)
	}
	b = append(b, "]}"...)
	if err := os.WriteFile(filepath.Join(ann, "big_ep.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return int64(len(b))
}

// peakRSS runs the command line and returns its peak resident memory in bytes.
func peakRSS(t *testing.T, dir string, args ...string) int64 {
	t.Helper()
	cmd := cliCommand(t, dir, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024 // KiB on Linux
}

// One large annotation file is imported with bounded memory: its steps are read streamed and
// written a batch at a time. `make reliability` imports the 300k-step file of issue 29 (31 MB,
// 727 MB peak before) and holds it to 250 MB; `make test` a tenth of it, to the same bound.
func TestLargeAnnotationPeakRSS(t *testing.T) {
	steps := 30_000
	if n, err := strconv.Atoi(os.Getenv("AGENTDESK_BIG_STEPS")); err == nil && n > 0 {
		steps = n
	}
	dir := t.TempDir()
	size := bigAnnotation(t, filepath.Join(dir, "ody"), steps)
	peak := peakRSS(t, dir, "--store", "s.db", "odyssey", "import", "ody")
	t.Logf("annotation file of %d steps, %.1f MB: odyssey import peaked at %.0f MB", steps, float64(size)/1e6, float64(peak)/1e6)
	if limit := int64(250e6); peak > limit {
		t.Errorf("peak RSS %.0f MB, over %.0f MB", float64(peak)/1e6, float64(limit)/1e6)
	}
}
