package odyssey

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/agentdesk/agentdesk/engine/cputime"
)

// BenchmarkReadDataset reads and checks every annotation of a full-scale synthetic v2 dataset
// (8,334 episodes; AGENTDESK_ODYSSEY_EPISODES changes it) without storing anything: the
// reading half of an import.
func BenchmarkReadDataset(b *testing.B) {
	n := 8334
	if v, err := strconv.Atoi(os.Getenv("AGENTDESK_ODYSSEY_EPISODES")); err == nil && v > 0 {
		n = v
	}
	dir := filepath.Join(b.TempDir(), "odyssey")
	gen, err := Generate(context.Background(), dir, GenerateOptions{Episodes: n, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	var cpu time.Duration
	for b.Loop() {
		cpu0 := cputime.Process()
		ds, err := OpenDataset(dir)
		if err != nil {
			b.Fatal(err)
		}
		steps := 0
		err = ds.Episodes(context.Background(), EpisodeOptions{}, func(a *Annotation, _ SourceFile) error {
			steps += len(a.Steps)
			return nil
		})
		cpu += cputime.Process() - cpu0
		if err != nil || steps != gen.Steps {
			b.Fatalf("%d steps, %v", steps, err)
		}
	}
	b.ReportMetric(float64(gen.Steps), "steps")
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "episodes/s")
	if cpu > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds(), "episodes/CPU-s")
	}
}

// BenchmarkEvaluate scores 100k predictions on the per-category branch.
func BenchmarkEvaluate(b *testing.B) {
	cats := []string{"General_Tool", "Information_Management", "Media_Entertainment", "Multi_Apps", "Social_Sharing", "Web_Shopping"}
	gts := []string{"CLICK: (500, 350)", "TYPE: hello world", "SCROLL: UP", "PRESS_BACK", "COMPLETE", "LONG_PRESS: (10, 990)"}
	preds := []string{"CLICK: (520, 360)", "TYPE: hello", "SCROLL: down", "PRESS_HOME", "COMPLETE", "LONG_PRESS: [10, 990"}
	var samples []Sample
	for i := 0; i < 100000; i++ {
		samples = append(samples, Sample{Pred: preds[(i*7)%len(preds)], GT: gts[i%len(gts)], Category: cats[(i/15)%6],
			StepLength: 15, EpisodeID: strconv.Itoa(i / 15), Step: i % 15, Box: Box{Present: true, Values: []float64{400, 300, 600, 420}}})
	}
	for b.Loop() {
		if _, err := Evaluate(samples, BranchMicro, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(samples)), "ns/sample")
}
