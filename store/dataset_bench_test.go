package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/dataset"
	"github.com/agentdesk/agentdesk/engine/episode"
)

// BenchmarkDatasetExport exports a store without images: the synthetic store of 2,000
// episodes, or the store AGENTDESK_DATASET_BENCH_STORE names (opened read-only), e.g. the
// 200k store scripts/export-bench.sh generates. Reports episodes/s.
func BenchmarkDatasetExport(b *testing.B) {
	ctx := context.Background()
	var s *Store
	if path := os.Getenv("AGENTDESK_DATASET_BENCH_STORE"); path != "" {
		var err error
		if s, err = OpenWith(path, Options{ReadOnly: true}); err != nil {
			b.Fatal(err)
		}
	} else {
		var err error
		if s, err = Open(filepath.Join(b.TempDir(), "bench.db")); err != nil {
			b.Fatal(err)
		}
		fillSynthetic(b, s, 2000, 1)
	}
	defer s.Close()
	b.ResetTimer()
	var eps int64
	for i := 0; i < b.N; i++ {
		sum, err := s.ExportDataset(ctx, filepath.Join(b.TempDir(), "ds"), DatasetExport{Episodes: true, Options: dataset.Options{NoImages: true}})
		if err != nil {
			b.Fatal(err)
		}
		eps += sum.Rows[dataset.ConfigEpisodes]
	}
	b.ReportMetric(float64(eps)/b.Elapsed().Seconds(), "episodes/s")
}

// BenchmarkDatasetExportImages exports a store whose steps hold frames of 512 KB (a phone
// screenshot's size; random bytes behind a JPEG header, so nothing compresses them), about
// AGENTDESK_DATASET_BENCH_IMAGE_MB megabytes of them (default 64), and reports the export's
// rate in MB/s and the process's peak RSS: the export is bounded by the disk when its rate is
// the disk's, and its memory stays flat whatever the size.
func BenchmarkDatasetExportImages(b *testing.B) {
	ctx := context.Background()
	total := 64
	if v := os.Getenv("AGENTDESK_DATASET_BENCH_IMAGE_MB"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatal(err)
		}
		total = n
	}
	const frame, perEpisode = 512 << 10, 10
	dir := b.TempDir()
	path := filepath.Join(dir, "images.db")
	// AGENTDESK_DATASET_BENCH_KEEP keeps the store there for the command line's run
	// (scripts/export-bench.sh); one already there is used as it is
	keep := os.Getenv("AGENTDESK_DATASET_BENCH_KEEP")
	fill := true
	if keep != "" {
		path = keep
		if _, err := os.Stat(keep); err == nil {
			fill = false
		}
	}
	s, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(1, 2))
	episodes := max(total*(1<<20)/(frame*perEpisode), 1)
	if !fill {
		n, err := s.CountEpisodes(ctx, episode.Query{})
		if err != nil {
			b.Fatal(err)
		}
		episodes = n
	}
	for i := 0; fill && i < episodes; i++ {
		e := &episode.Episode{Source: episode.SourceGridworld, ExternalID: fmt.Sprintf("%06d", i), Task: "t"}
		for j := 0; j < perEpisode; j++ {
			img := make([]byte, frame)
			for k := range img {
				img[k] = byte(r.Uint32())
			}
			copy(img, []byte{0xFF, 0xD8, 0xFF, 0xE0})
			e.Steps = append(e.Steps, episode.Step{Index: j, Action: episode.Action{Kind: "forward"}, Observation: img})
		}
		if err := s.SaveEpisode(ctx, e); err != nil {
			b.Fatal(err)
		}
	}
	// the peak from here on: the fill's garbage returned, the kernel's high-water mark reset;
	// the export runs under the command line's memory limit (app's datasetMemory)
	debug.FreeOSMemory()
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(160 << 20))
	}
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	b.ResetTimer()
	var bytes int64
	for i := 0; i < b.N; i++ {
		dest := filepath.Join(dir, "ds")
		os.RemoveAll(dest)
		if _, err := s.ExportDataset(ctx, dest, DatasetExport{Episodes: true}); err != nil {
			b.Fatal(err)
		}
		bytes += int64(episodes * perEpisode * frame)
	}
	b.ReportMetric(float64(bytes)/1e6/b.Elapsed().Seconds(), "MB/s")
	b.ReportMetric(float64(peakRSS())/1e6, "peak-RSS-MB")
}

// peakRSS is the process's peak resident memory in bytes (Linux; 0 elsewhere).
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkDatasetStepScan steps through every step row's columns the export reads (as
// sql.RawBytes: no copy, no decoding, nothing written) in one query: what the store alone
// costs an export, the bound on its rate. Same stores as BenchmarkDatasetExport;
// AGENTDESK_DATASET_BENCH_MMAP sets the connection's PRAGMA mmap_size (bytes) first.
func BenchmarkDatasetStepScan(b *testing.B) {
	ctx := context.Background()
	var s *Store
	if path := os.Getenv("AGENTDESK_DATASET_BENCH_STORE"); path != "" {
		var err error
		if s, err = OpenWith(path, Options{ReadOnly: true}); err != nil {
			b.Fatal(err)
		}
	} else {
		var err error
		if s, err = Open(filepath.Join(b.TempDir(), "bench.db")); err != nil {
			b.Fatal(err)
		}
		fillSynthetic(b, s, 2000, 1)
	}
	defer s.Close()
	var eps int64
	if err := s.reader.q.QueryRowContext(ctx, `SELECT count(*) FROM episodes`).Scan(&eps); err != nil {
		b.Fatal(err)
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	if v := os.Getenv("AGENTDESK_DATASET_BENCH_MMAP"); v != "" {
		if _, err := conn.ExecContext(ctx, `PRAGMA mmap_size = `+v); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	var n, bytes int64
	for i := 0; i < b.N; i++ {
		var id, idx int64
		var action, kind, instr, ref, extra sql.RawBytes
		var reward float64
		err := scanRows(ctx, conn, `SELECT episode_id, idx, action, action_kind, reward, instruction, observation_ref, extra
			FROM steps ORDER BY episode_id, idx`, func(rows *sql.Rows) error {
			n++
			bytes += int64(len(extra))
			return rows.Scan(&id, &idx, &action, &kind, &reward, &instr, &ref, &extra)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(eps)*float64(b.N)/b.Elapsed().Seconds(), "episodes/s")
	b.ReportMetric(float64(n)/float64(b.N), "steps")
}
