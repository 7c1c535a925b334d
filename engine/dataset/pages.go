package dataset

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// An episode's steps, encoded once as Parquet pages: the steps config without frames is
// written by splicing these encodings into the files, so an export moves bytes instead of
// stepping through the store's step rows and encoding them again (issue 30: stepping the
// rows alone bounded an export to about 13k episodes a second).
//
// A column chunk is any sequence of data pages of its column; an episode's pages are one
// chunk per column, encoded by parquet-go with every other export's settings (data pages
// v2, Snappy, no dictionary), so the chunks of consecutive episodes concatenated are a valid
// column chunk of a row group holding those episodes. The footer is written here, its schema
// and column descriptions those of parquet-go's own file for StepRow.

// PagesLayout numbers the encoding of stored pages: a stored encoding of another layout is
// not used (the store encodes the episode again). Change it with anything that changes the
// bytes an encoder writes: EpisodeRow's or StepRow's columns, the codec, the writer's
// settings.
const PagesLayout = 2

// PageEncoder encodes an episode's row of the episodes config and its rows of the steps
// config as pages to splice (Exporter.EpisodePages). It is not safe for concurrent use; it
// reuses its buffers from one episode to the next.
type PageEncoder struct {
	episodes rowEncoder[EpisodeRow]
	steps    rowEncoder[StepRow]
}

// NewPageEncoder makes an encoder. Its pages are Snappy, as every other export's: pages kept
// and pages encoded at export time go into the same files, and parquet-go failed to read a
// file whose row groups used two codecs for a column (ZSTD for the kept ones made files two
// thirds the size, but for those encoded at export time it tripled the export's time: 83 s
// for 200k episodes).
func NewPageEncoder() *PageEncoder { return &PageEncoder{} }

// Episodes appends to dst the pages of episode rows (one episode's, or several in order).
func (e *PageEncoder) Episodes(dst []byte, rows []EpisodeRow) ([]byte, error) {
	return e.episodes.encode(dst, rows)
}

// Steps appends to dst the pages of step rows (in order; their frames are not encoded: the
// image column is null). No steps encode as nil.
func (e *PageEncoder) Steps(dst []byte, rows []StepRow) ([]byte, error) {
	for i := range rows {
		rows[i].Image = nil
	}
	return e.steps.encode(dst, rows)
}

// rowEncoder encodes rows of one config as one column chunk per column.
type rowEncoder[T any] struct {
	buf bytes.Buffer
	w   *parquet.GenericWriter[T]
	dec format.FooterDecoder
}

// writerOptions are the settings of every config's files (the image column's concern the
// steps alone).
func writerOptions() []parquet.WriterOption {
	return []parquet.WriterOption{
		parquet.Compression(fastSnappy{}),
		parquet.CreatedBy("agentdesk", "", ""),
		parquet.PageBufferSize(1 << 20),
		// a frame's bytes as page statistics and bounds (its min and max are whole frames)
		// tripled the file; nobody filters on them
		parquet.SkipPageStatistics("image", "bytes"),
		parquet.SkipPageBounds("image", "bytes"),
	}
}

func (e *rowEncoder[T]) init() {
	if e.w != nil {
		return
	}
	opts := append(writerOptions(),
		// spliced pages carry no statistics: their min and max would be whole strings (the
		// steps' annotation JSON) in every page header, and a spliced file has none at the
		// chunk level to match them
		parquet.DataPageStatistics(false),
	)
	e.w = parquet.NewGenericWriter[T](&e.buf, opts...)
}

func (e *rowEncoder[T]) encode(dst []byte, rows []T) ([]byte, error) {
	if len(rows) == 0 {
		return dst, nil
	}
	md, err := e.file(rows)
	if err != nil {
		return dst, err
	}
	if len(md.RowGroups) != 1 {
		return dst, fmt.Errorf("encoded %d row groups for one episode", len(md.RowGroups))
	}
	rg := &md.RowGroups[0]
	b := e.buf.Bytes()
	dst = binary.AppendUvarint(dst, PagesLayout)
	dst = binary.AppendUvarint(dst, uint64(rg.NumRows))
	dst = binary.AppendUvarint(dst, uint64(len(rg.Columns)))
	for i := range rg.Columns {
		m := &rg.Columns[i].MetaData
		if m.DictionaryPageOffset != 0 {
			return dst, fmt.Errorf("column %v: a dictionary page cannot be spliced", m.PathInSchema)
		}
		start, n := m.DataPageOffset, m.TotalCompressedSize
		if start < 4 || n < 0 || start+n > int64(len(b)) {
			return dst, fmt.Errorf("column %v: chunk outside the file", m.PathInSchema)
		}
		dst = binary.AppendUvarint(dst, uint64(m.Codec))
		dst = binary.AppendUvarint(dst, uint64(m.NumValues))
		// readers take a chunk's null count as given (DuckDB reads no nulls where it is 0)
		dst = binary.AppendUvarint(dst, uint64(m.Statistics.NullCount))
		dst = binary.AppendUvarint(dst, uint64(m.TotalUncompressedSize))
		dst = binary.AppendUvarint(dst, uint64(n))
		dst = append(dst, b[start:start+n]...)
	}
	return dst, nil
}

// file writes rows as a Parquet file in e.buf and returns its footer (valid until the next
// call).
func (e *rowEncoder[T]) file(rows []T) (*format.FileMetaData, error) {
	e.init()
	e.buf.Reset()
	e.w.Reset(&e.buf)
	if _, err := e.w.Write(rows); err != nil {
		return nil, err
	}
	if err := e.w.Close(); err != nil {
		return nil, err
	}
	return e.footer(e.buf.Bytes())
}

// footer decodes a whole Parquet file's footer (valid until the next call).
func (e *rowEncoder[T]) footer(b []byte) (*format.FileMetaData, error) {
	if len(b) < 12 || string(b[len(b)-4:]) != "PAR1" {
		return nil, errors.New("not a Parquet file")
	}
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	if n > len(b)-12 {
		return nil, errors.New("footer longer than the file")
	}
	md, _, err := e.dec.Decode(b[len(b)-8-n : len(b)-8])
	return md, err
}

// pageChunk is one column's chunk in stored pages.
type pageChunk struct {
	codec                       format.CompressionCodec
	values, nulls, uncompressed int64
	bytes                       []byte
}

var errDamagedPages = errors.New("damaged stored pages")

// parsePages reads one encoding of stored pages at the start of b (stored pages are one or
// more, one after the other) and returns the rest of b; the chunks' bytes point into b.
func parsePages(b []byte, out []pageChunk) (rows int64, _ []pageChunk, rest []byte, _ error) {
	next := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	layout, ok1 := next()
	nrows, ok2 := next()
	ncols, ok3 := next()
	if !ok1 || !ok2 || !ok3 || layout != PagesLayout || ncols > 1024 {
		return 0, out, nil, errDamagedPages
	}
	out = out[:0]
	for range ncols {
		cdc, ok0 := next()
		vals, ok1 := next()
		nulls, ok2 := next()
		unc, ok3 := next()
		n, ok4 := next()
		if !ok0 || !ok1 || !ok2 || !ok3 || !ok4 || n > uint64(len(b)) || nulls > vals || cdc > 64 {
			return 0, out, nil, errDamagedPages
		}
		out = append(out, pageChunk{format.CompressionCodec(cdc), int64(vals), int64(nulls), int64(unc), b[:n]})
		b = b[n:]
	}
	return int64(nrows), out, b, nil
}

// The footers of parquet-go's own files for each config: the schema and each column's type,
// encodings, path and codec, which every spliced file repeats.
var (
	episodeTemplate = sync.OnceValues(template[EpisodeRow])
	stepTemplate    = sync.OnceValues(template[StepRow])
)

func template[T any]() (*format.FileMetaData, error) {
	var e rowEncoder[T]
	md, err := e.file(make([]T, 1))
	if err != nil {
		return nil, err
	}
	// the decoder owns md: a deep copy by a round trip through thrift
	var proto thrift.CompactProtocol
	b, err := thrift.Marshal(&proto, md)
	if err != nil {
		return nil, err
	}
	out := new(format.FileMetaData)
	if err := thrift.Unmarshal(&proto, b, out); err != nil {
		return nil, err
	}
	if len(out.RowGroups) != 1 {
		return nil, errors.New("template: no row group")
	}
	return out, nil
}

// pageShards writes one split of a config from stored pages, as numbered shards of row
// groups of about groupBytes.
type pageShards struct {
	tmpl       func() (*format.FileMetaData, error)
	dir, split string
	shardBytes int64
	groupBytes int64

	f      *os.File
	bw     *bufio.Writer
	offset int64
	groups []format.RowGroup
	shards []string
	rows   int64

	// the row group being gathered: each column's chunks, and what they add up to
	chunks           [][][]byte
	values, nulls    []int64
	uncomp           []int64
	grpRows, grpSize int64
	parsed           []pageChunk
}

func (p *pageShards) open() error {
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(p.dir, fmt.Sprintf("%s-%05d.parquet.part", p.split, len(p.shards)))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	p.f, p.bw, p.offset, p.groups = f, bufio.NewWriterSize(f, 1<<20), 0, nil
	p.shards = append(p.shards, path)
	return p.write([]byte("PAR1"))
}

func (p *pageShards) write(b []byte) error {
	n, err := p.bw.Write(b)
	p.offset += int64(n)
	return err
}

// add gathers stored pages (one or more encodings; kept, not copied, until their row group
// is written) and returns their rows.
func (p *pageShards) add(pages []byte) (int64, error) {
	if len(pages) == 0 {
		return 0, errors.New("no pages")
	}
	var added int64
	for len(pages) > 0 {
		rows, rest, err := p.add1(pages)
		if err != nil {
			return added, err
		}
		added, pages = added+rows, rest
	}
	return added, nil
}

func (p *pageShards) add1(pages []byte) (int64, []byte, error) {
	tmpl, err := p.tmpl()
	if err != nil {
		return 0, nil, err
	}
	rows, chunks, rest, err := parsePages(pages, p.parsed)
	p.parsed = chunks
	if err != nil {
		return 0, nil, err
	}
	ncols := len(tmpl.RowGroups[0].Columns)
	if len(chunks) != ncols {
		return 0, nil, fmt.Errorf("pages of %d columns, the config has %d", len(chunks), ncols)
	}
	if p.chunks == nil {
		p.chunks = make([][][]byte, ncols)
		p.values, p.nulls, p.uncomp = make([]int64, ncols), make([]int64, ncols), make([]int64, ncols)
	}
	// every file's column has the template's codec (parquet-go fails on a file whose row
	// groups use two for a column)
	for i, c := range chunks {
		if want := tmpl.RowGroups[0].Columns[i].MetaData.Codec; c.codec != want {
			return 0, nil, fmt.Errorf("pages of column %v in %v, the config's are %v", tmpl.RowGroups[0].Columns[i].MetaData.PathInSchema, c.codec, want)
		}
	}
	for i, c := range chunks {
		p.chunks[i] = append(p.chunks[i], c.bytes)
		p.values[i] += c.values
		p.nulls[i] += c.nulls
		p.uncomp[i] += c.uncompressed
		p.grpSize += int64(len(c.bytes))
	}
	p.grpRows += rows
	if p.grpSize >= p.groupBytes {
		return rows, rest, p.flushGroup()
	}
	return rows, rest, nil
}

// flushGroup writes the gathered row group, column after column, and starts the next shard
// when this one has reached its size.
func (p *pageShards) flushGroup() error {
	if p.grpRows == 0 {
		return nil
	}
	if p.f == nil {
		if err := p.open(); err != nil {
			return err
		}
	}
	tmpl, err := p.tmpl()
	if err != nil {
		return err
	}
	cols := tmpl.RowGroups[0].Columns
	rg := format.RowGroup{NumRows: p.grpRows, FileOffset: p.offset, Ordinal: int16(min(len(p.groups), 1<<15-1))}
	rg.Columns = make(thrift.Slice[format.ColumnChunk], len(cols))
	for i := range cols {
		start := p.offset
		var n int64
		for j, c := range p.chunks[i] {
			if err := p.write(c); err != nil {
				return fmt.Errorf("%s: %w", p.shards[len(p.shards)-1], err)
			}
			n += int64(len(c))
			p.chunks[i][j] = nil
		}
		t := &cols[i].MetaData
		rg.Columns[i] = format.ColumnChunk{FileOffset: start, MetaData: format.ColumnMetaData{
			Type: t.Type, Encoding: t.Encoding, PathInSchema: t.PathInSchema, Codec: t.Codec,
			NumValues: p.values[i], TotalUncompressedSize: p.uncomp[i], TotalCompressedSize: n,
			DataPageOffset: start, Statistics: format.Statistics{NullCount: p.nulls[i]},
		}}
		rg.TotalByteSize += p.uncomp[i]
		rg.TotalCompressedSize += n
		p.chunks[i], p.values[i], p.nulls[i], p.uncomp[i] = p.chunks[i][:0], 0, 0, 0
	}
	p.groups = append(p.groups, rg)
	p.rows += p.grpRows
	p.grpRows, p.grpSize = 0, 0
	if p.offset >= p.shardBytes {
		return p.closeShard()
	}
	return nil
}

// closeShard writes the open shard's footer and closes it.
func (p *pageShards) closeShard() error {
	if p.f == nil {
		return nil
	}
	path := p.shards[len(p.shards)-1]
	err := p.footer()
	if err == nil {
		err = p.bw.Flush()
	}
	if err == nil {
		err = p.f.Sync()
	}
	if e := p.f.Close(); err == nil {
		err = e
	}
	p.f, p.bw = nil, nil
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func (p *pageShards) footer() error {
	tmpl, err := p.tmpl()
	if err != nil {
		return err
	}
	md := format.FileMetaData{Version: tmpl.Version, Schema: tmpl.Schema, RowGroups: p.groups,
		KeyValueMetadata: tmpl.KeyValueMetadata, CreatedBy: tmpl.CreatedBy, ColumnOrders: tmpl.ColumnOrders}
	for _, g := range p.groups {
		md.NumRows += g.NumRows
	}
	var proto thrift.CompactProtocol
	b, err := thrift.Marshal(&proto, &md)
	if err != nil {
		return err
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(b)))
	b = append(b, "PAR1"...)
	return p.write(b)
}

// finish writes what is gathered, closes the last shard and names the shards as the Hub
// does; it returns the files relative to root and the rows written. A split with no rows
// gets one file without row groups.
func (p *pageShards) finish(root string) ([]string, int64, error) {
	if err := p.flushGroup(); err != nil {
		return nil, 0, err
	}
	if p.f == nil && len(p.shards) == 0 {
		if err := p.open(); err != nil {
			return nil, 0, err
		}
	}
	if err := p.closeShard(); err != nil {
		return nil, 0, err
	}
	return nameShards(root, p.dir, p.split, p.shards, p.rows)
}

func (p *pageShards) abort() {
	if p.f != nil {
		p.f.Close()
		p.f, p.bw = nil, nil
	}
}
