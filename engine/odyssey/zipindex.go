package odyssey

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"sort"

	"github.com/agentdesk/agentdesk/engine/limits"
)

// zipIndex is the central directory of a zip archive, kept compactly: the member names in one
// byte string in sorted order, and per member where its local header is and how its data is
// stored. A full-size GUI Odyssey screenshot archive (129k members) takes about 9 MB this way;
// archive/zip's list of *zip.File plus a map by name took 38 MB, held as long as the Explorer
// reads frames from the archive.
type zipIndex struct {
	names   []byte   // member names, concatenated in sorted order
	ends    []uint32 // name i is names[ends[i-1]:ends[i]]
	entries []zipEntry
	base    int64 // bytes before the archive proper (a self-extracting stub)
}

type zipEntry struct {
	header uint64 // offset of the member's local file header
	csize  uint64 // stored (compressed) size
	usize  uint64 // uncompressed size
	crc    uint32
	method uint16
}

const (
	sigLocal       = 0x04034b50
	sigCentral     = 0x02014b50
	sigEnd         = 0x06054b50
	sigEnd64       = 0x06064b50
	sigEnd64Locate = 0x07064b50
	endLen         = 22
	end64LocateLen = 20
	end64Len       = 56
	centralLen     = 46
	localLen       = 30
)

var errZipFormat = errors.New("not a valid zip archive")

// readZipIndex reads the central directory of the zip archive r of the given size.
func readZipIndex(r io.ReaderAt, size int64) (*zipIndex, error) {
	// The end-of-central-directory record is in the last 22 + 65,535 (comment) bytes.
	tail := min(size, endLen+0xffff)
	buf := make([]byte, tail)
	if _, err := r.ReadAt(buf, size-tail); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	at := -1
	for i := len(buf) - endLen; i >= 0; i-- {
		if binary.LittleEndian.Uint32(buf[i:]) == sigEnd && i+endLen+int(binary.LittleEndian.Uint16(buf[i+20:])) <= len(buf) {
			at = i
			break
		}
	}
	if at < 0 {
		return nil, fmt.Errorf("%w: no end of central directory", errZipFormat)
	}
	end := buf[at:]
	endOff := size - tail + int64(at)
	count := uint64(binary.LittleEndian.Uint16(end[10:]))
	cdSize := uint64(binary.LittleEndian.Uint32(end[12:]))
	cdOff := uint64(binary.LittleEndian.Uint32(end[16:]))
	zip64 := false
	if count == 0xffff || cdSize == 0xffffffff || cdOff == 0xffffffff {
		if at < end64LocateLen || binary.LittleEndian.Uint32(buf[at-end64LocateLen:]) != sigEnd64Locate {
			return nil, fmt.Errorf("%w: no zip64 end record locator", errZipFormat)
		}
		off := binary.LittleEndian.Uint64(buf[at-end64LocateLen+8:])
		rec := make([]byte, end64Len)
		if off > uint64(size) || off+end64Len > uint64(size) {
			return nil, fmt.Errorf("%w: zip64 end record out of range", errZipFormat)
		}
		if _, err := r.ReadAt(rec, int64(off)); err != nil {
			return nil, err
		}
		if binary.LittleEndian.Uint32(rec) != sigEnd64 {
			return nil, fmt.Errorf("%w: bad zip64 end record", errZipFormat)
		}
		count = binary.LittleEndian.Uint64(rec[32:])
		cdSize = binary.LittleEndian.Uint64(rec[40:])
		cdOff = binary.LittleEndian.Uint64(rec[48:])
		zip64 = true
	}
	x := &zipIndex{}
	if !zip64 && cdOff+cdSize < uint64(endOff) {
		x.base = endOff - int64(cdSize) - int64(cdOff) // data prepended to the archive
	}
	if cdSize > uint64(size) || cdOff > uint64(size) || uint64(x.base)+cdOff+cdSize > uint64(size) ||
		count > cdSize/centralLen {
		return nil, fmt.Errorf("%w: central directory out of range", errZipFormat)
	}
	cd := make([]byte, cdSize)
	if _, err := r.ReadAt(cd, x.base+int64(cdOff)); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}

	// Parse into entries with the names' places in cd, then order by name.
	type raw struct {
		name  [2]uint32 // start and end in cd
		entry zipEntry
	}
	list := make([]raw, 0, count)
	for p := 0; uint64(len(list)) < count; {
		if p+centralLen > len(cd) || binary.LittleEndian.Uint32(cd[p:]) != sigCentral {
			return nil, fmt.Errorf("%w: central directory entry %d is damaged", errZipFormat, len(list))
		}
		h := cd[p:]
		e := zipEntry{
			method: binary.LittleEndian.Uint16(h[10:]),
			crc:    binary.LittleEndian.Uint32(h[16:]),
			csize:  uint64(binary.LittleEndian.Uint32(h[20:])),
			usize:  uint64(binary.LittleEndian.Uint32(h[24:])),
			header: uint64(binary.LittleEndian.Uint32(h[42:])),
		}
		n, m, k := int(binary.LittleEndian.Uint16(h[28:])), int(binary.LittleEndian.Uint16(h[30:])), int(binary.LittleEndian.Uint16(h[32:]))
		if p+centralLen+n+m+k > len(cd) {
			return nil, fmt.Errorf("%w: central directory entry %d is cut short", errZipFormat, len(list))
		}
		for extra := cd[p+centralLen+n : p+centralLen+n+m]; len(extra) >= 4; {
			id, sz := binary.LittleEndian.Uint16(extra), int(binary.LittleEndian.Uint16(extra[2:]))
			if 4+sz > len(extra) {
				break
			}
			if id == 0x0001 { // zip64 sizes and offset, for the fields saturated above
				f := extra[4 : 4+sz]
				for _, v := range []*uint64{&e.usize, &e.csize, &e.header} {
					if *v == 0xffffffff && len(f) >= 8 {
						*v, f = binary.LittleEndian.Uint64(f), f[8:]
					}
				}
			}
			extra = extra[4+sz:]
		}
		list = append(list, raw{[2]uint32{uint32(p + centralLen), uint32(p + centralLen + n)}, e})
		p += centralLen + n + m + k
	}
	name := func(r raw) []byte { return cd[r.name[0]:r.name[1]] }
	sort.SliceStable(list, func(i, j int) bool { return bytes.Compare(name(list[i]), name(list[j])) < 0 })
	total := 0
	for _, r := range list {
		total += int(r.name[1] - r.name[0])
	}
	x.names = make([]byte, 0, total)
	x.ends = make([]uint32, len(list))
	x.entries = make([]zipEntry, len(list))
	for i, r := range list {
		x.names = append(x.names, name(r)...)
		x.ends[i] = uint32(len(x.names))
		x.entries[i] = r.entry
	}
	return x, nil
}

// Len is the number of members.
func (x *zipIndex) Len() int { return len(x.entries) }

// name is member i's name (shared bytes: do not modify).
func (x *zipIndex) name(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = x.ends[i-1]
	}
	return x.names[start:x.ends[i]]
}

// find is the member named name, or -1.
func (x *zipIndex) find(name string) int {
	i := sort.Search(len(x.entries), func(i int) bool { return string(x.name(i)) >= name })
	if i < len(x.entries) && string(x.name(i)) == name {
		return i
	}
	return -1
}

// read reads member i whole from r, checking its size and checksum.
func (x *zipIndex) read(r io.ReaderAt, i int) ([]byte, error) {
	e := x.entries[i]
	var h [localLen]byte
	off := x.base + int64(e.header)
	if _, err := r.ReadAt(h[:], off); err != nil {
		return nil, err
	}
	if binary.LittleEndian.Uint32(h[:]) != sigLocal {
		return nil, fmt.Errorf("%w: bad local header", errZipFormat)
	}
	data := off + localLen + int64(binary.LittleEndian.Uint16(h[26:])) + int64(binary.LittleEndian.Uint16(h[28:]))
	var src io.Reader = io.NewSectionReader(r, data, int64(e.csize))
	switch e.method {
	case 0: // stored
	case 8: // deflated
		fr := flate.NewReader(src)
		defer fr.Close()
		src = fr
	default:
		return nil, fmt.Errorf("%w: unsupported compression method %d", errZipFormat, e.method)
	}
	if lim := max(limits.Annotation.Value(), limits.Screenshot.Value()); e.usize > uint64(lim) {
		return nil, fmt.Errorf("%w: member of %d bytes (over the %s limit of annotations and screenshots)", errZipFormat, e.usize, limits.FormatSize(lim))
	}
	out := make([]byte, 0, e.usize)
	buf := bytes.NewBuffer(out)
	if _, err := io.Copy(buf, io.LimitReader(src, int64(e.usize)+1)); err != nil {
		return nil, err
	}
	if uint64(buf.Len()) != e.usize {
		return nil, fmt.Errorf("%w: member is %d bytes, the directory says %d", errZipFormat, buf.Len(), e.usize)
	}
	if crc32.ChecksumIEEE(buf.Bytes()) != e.crc {
		return nil, fmt.Errorf("%w: checksum mismatch", errZipFormat)
	}
	return buf.Bytes(), nil
}

// readMember reads the member named name; a missing one wraps fs.ErrNotExist.
func (x *zipIndex) readMember(r io.ReaderAt, name string) ([]byte, error) {
	i := x.find(name)
	if i < 0 {
		return nil, fmt.Errorf("no member %s: %w", name, fs.ErrNotExist)
	}
	return x.read(r, i)
}
