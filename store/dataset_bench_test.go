package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentdesk/agentdesk/engine/dataset"
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
