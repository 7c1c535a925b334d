package dataset

import (
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/snappy"
	"github.com/parquet-go/parquet-go/format"
)

// fastSnappy is Parquet's SNAPPY codec with the plain Snappy block encoder (s2.EncodeSnappy)
// instead of parquet-go's, which uses the "better" one: a sixth of an export's CPU went
// there, for files a few percent smaller. Its blocks are standard Snappy: every reader reads
// them (the tests read them back with parquet-go and DuckDB).
type fastSnappy struct{}

func (fastSnappy) String() string                            { return "SNAPPY" }
func (fastSnappy) CompressionCodec() format.CompressionCodec { return format.Snappy }

func (fastSnappy) Encode(dst, src []byte) ([]byte, error) {
	return s2.EncodeSnappy(dst, src), nil
}

func (fastSnappy) Decode(dst, src []byte) ([]byte, error) { return snappy.Decode(dst, src) }
