// Package fonts finds a system font for the scripts fyne's own font lacks (Chinese, Japanese,
// Korean) and turns it into a face fyne can use beside its own.
//
// fyne draws each character with the first of [theme font, fyne's default font] that has it
// and otherwise asks the system's font index for a sans-serif family, whose list holds no CJK
// family: with an English locale, Chinese text in a task path or an instruction came out as
// missing-glyph boxes even with Noto Sans CJK installed. A theme may give one font per style, so
// the theme gives the CJK font with every character fyne's default font has taken out of its
// character map: Latin text keeps fyne's own font, weights and metrics (line heights come from
// the space character, also left to fyne's font), and CJK text is drawn from the system font.
// Font collections (.ttc, how most CJK fonts ship) are unpacked to the one face: fyne reads
// single fonts only.
package fonts

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	gofont "github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
	"github.com/go-text/typesetting/fontscan"
)

// Families lists CJK families to look for, best first, for a locale's language ("ja", "ko",
// "zh-TW"...): the Han characters' shapes differ by region, so the user's own region's
// variant comes first, then any other.
func Families(locale string) []string {
	locale = strings.ToLower(strings.ReplaceAll(locale, "_", "-"))
	simplified := []string{"Noto Sans CJK SC", "Source Han Sans SC", "Microsoft YaHei", "PingFang SC",
		"Hiragino Sans GB", "WenQuanYi Micro Hei", "WenQuanYi Zen Hei", "Droid Sans Fallback"}
	japanese := []string{"Noto Sans CJK JP", "Source Han Sans JP", "Source Han Sans", "Yu Gothic", "Meiryo",
		"Hiragino Sans", "Hiragino Kaku Gothic ProN", "TakaoPGothic", "IPAPGothic"}
	korean := []string{"Noto Sans CJK KR", "Source Han Sans KR", "Malgun Gothic", "Apple SD Gothic Neo", "NanumGothic"}
	traditional := []string{"Noto Sans CJK TC", "Noto Sans CJK HK", "Source Han Sans TC", "Microsoft JhengHei",
		"PingFang TC", "PingFang HK"}
	var first []string
	switch {
	case strings.HasPrefix(locale, "ja"):
		first = japanese
	case strings.HasPrefix(locale, "ko"):
		first = korean
	case strings.HasPrefix(locale, "zh-tw"), strings.HasPrefix(locale, "zh-hk"), strings.HasPrefix(locale, "zh-hant"):
		first = traditional
	default:
		first = simplified
	}
	out := append([]string(nil), first...)
	for _, list := range [][]string{simplified, japanese, traditional, korean} {
		for _, f := range list {
			if !contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return append(out, "Arial Unicode MS")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Fallback is a CJK face for regular text and one for bold text (the regular one when the
// family has no bold), each holding only characters fyne's default fonts lack.
type Fallback struct {
	Family        string
	Regular, Bold fyne.Resource
}

// Find looks the families up in the system's font index (the one fyne itself uses, cached in
// the user's cache folder) and prepares the first one found. It returns nil when the system
// has none of them.
func Find(families []string) (*Fallback, error) {
	fm := fontscan.NewFontMap(quiet{})
	if err := fm.UseSystemFonts(""); err != nil {
		return nil, err
	}
	var errs []error
	for _, family := range families {
		locs := fm.FindSystemFonts(family)
		if len(locs) == 0 {
			continue
		}
		regular, bold := pickWeights(locs)
		fb := &Fallback{Family: family}
		r, err := newFace(regular, theme.DefaultTextFont())
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fb.Regular, fb.Bold = r, r
		if bold != regular {
			if b, err := newFace(bold, theme.DefaultTextBoldFont()); err == nil {
				fb.Bold = b
			}
		}
		return fb, nil
	}
	return nil, errors.Join(errs...)
}

// face is a prepared face as a fyne resource whose bytes are made when asked for and let go
// a while after: fyne parses a theme font into tables of its own (a copy), once per text style
// and again when the theme changes, so keeping the 16 MB a CJK face takes as a single font for
// the life of the app cost that much memory twice over (regular and bold) for nothing. Made
// again, a face takes about 30 ms.
type face struct {
	name string
	loc  fontscan.Location
	base fyne.Resource

	mu   sync.Mutex
	data []byte
	drop *time.Timer
}

// faceKeep is how long a face's bytes are kept after they were last asked for: fyne asks once
// per style it draws, all while the first screen is laid out (a variable for tests).
var faceKeep = 5 * time.Second

// newFace prepares the face once, so that a font that cannot be used is known at once, and
// keeps its bytes for fyne's first parse.
func newFace(l fontscan.Location, base fyne.Resource) (*face, error) {
	data, err := prepare(l, base)
	if err != nil {
		return nil, err
	}
	f := &face{name: fmt.Sprintf("%s-%d-fallback", l.File, l.Index), loc: l, base: base}
	f.keep(data)
	return f, nil
}

func (f *face) Name() string { return f.name }

// Content is the face as a single font, made again when it was let go. If it cannot be made
// again (the font file was removed while the app runs), it is fyne's own font, which lacks
// the CJK characters but draws everything else.
func (f *face) Content() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.data == nil {
		data, err := prepare(f.loc, f.base)
		if err != nil {
			fyne.LogError("CJK font", err)
			return f.base.Content()
		}
		f.data = data
	}
	data := f.data
	f.keepLocked()
	return data
}

func (f *face) keep(data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.data = data
	f.keepLocked()
}

func (f *face) keepLocked() {
	if f.drop != nil {
		f.drop.Stop()
	}
	f.drop = time.AfterFunc(faceKeep, func() {
		f.mu.Lock()
		f.data = nil
		f.mu.Unlock()
	})
}

// held says whether the face's bytes are in memory (for tests).
func (f *face) held() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.data != nil
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// pickWeights chooses the faces nearest to normal (400) and bold (700) weight, upright.
func pickWeights(locs []fontscan.Location) (regular, bold fontscan.Location) {
	best := func(want float32) fontscan.Location {
		var out fontscan.Location
		score := float32(1e9)
		for _, l := range locs {
			asp, ok := describe(l)
			if !ok {
				continue
			}
			s := abs(float32(asp.Weight) - want)
			if asp.Style != gofont.StyleNormal {
				s += 1000
			}
			if s < score {
				out, score = l, s
			}
		}
		return out
	}
	return best(400), best(700)
}

func abs(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

func describe(l fontscan.Location) (gofont.Aspect, bool) {
	f, err := os.Open(l.File)
	if err != nil {
		return gofont.Aspect{}, false
	}
	defer f.Close()
	lds, err := ot.NewLoaders(f)
	if err != nil || int(l.Index) >= len(lds) {
		return gofont.Aspect{}, false
	}
	d, _ := gofont.Describe(lds[l.Index], nil)
	return d.Aspect, true
}

// prepare reads the face at l (a single font, or one face of a collection) and returns it as a
// single font whose character map keeps only what base lacks.
func prepare(l fontscan.Location, base fyne.Resource) ([]byte, error) {
	f, err := os.Open(l.File)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lds, err := ot.NewLoaders(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.File, err)
	}
	if int(l.Index) >= len(lds) {
		return nil, fmt.Errorf("%s: no face %d (the file holds %d)", l.File, l.Index, len(lds))
	}
	baseLd, err := ot.NewLoader(bytes.NewReader(base.Content()))
	if err != nil {
		return nil, fmt.Errorf("fyne's font: %w", err)
	}
	data, n, err := Without(lds[l.Index], baseLd)
	if err != nil {
		return nil, fmt.Errorf("%s (face %d): %w", l.File, l.Index, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("%s (face %d): no characters beyond fyne's font", l.File, l.Index)
	}
	return data, nil
}

// Without writes the face ld as a single OpenType font for use in front of base: its character
// map leaves out what base has, except spaces, controls and default-ignorable characters (the
// shaper keeps those in the run of the character before them: a space after a Chinese word must
// not come out as a missing glyph), and its vertical metrics are base's, scaled to its em, so
// that lines measure and sit exactly as with base alone (fyne measures a line by its space). It
// says how many characters it kept.
func Without(ld, base *ot.Loader) ([]byte, int, error) {
	fnt, err := gofont.NewFont(ld)
	if err != nil {
		return nil, 0, err
	}
	baseFont, err := gofont.NewFont(base)
	if err != nil {
		return nil, 0, err
	}
	drop := func(r rune) bool {
		if _, has := baseFont.Cmap.Lookup(r); !has {
			return false
		}
		return !(unicode.Is(unicode.Cc, r) || unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp) ||
			unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || r == 0x200b || r == 0x200c || r == 0x200d || r == 0xfeff)
	}
	type pair struct {
		r rune
		g gofont.GID
	}
	var kept []pair
	for it := fnt.Cmap.Iter(); it.Next(); {
		r, g := it.Char()
		if g != 0 && !drop(r) {
			kept = append(kept, pair{r, g})
		}
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].r < kept[j].r })
	// cmap: one Windows Unicode full-repertoire (3, 10) format 12 subtable; groups of
	// consecutive characters mapped to consecutive glyphs.
	type group struct{ start, end, glyph uint32 }
	var groups []group
	for i, p := range kept {
		if i > 0 && p.r == kept[i-1].r {
			continue
		}
		if n := len(groups); n > 0 && uint32(p.r) == groups[n-1].end+1 &&
			uint32(p.g) == groups[n-1].glyph+uint32(p.r)-groups[n-1].start {
			groups[n-1].end = uint32(p.r)
			continue
		}
		groups = append(groups, group{uint32(p.r), uint32(p.r), uint32(p.g)})
	}
	var cmap bytes.Buffer
	w := func(v any) { _ = binary.Write(&cmap, binary.BigEndian, v) }
	w(uint16(0))  // version
	w(uint16(1))  // one encoding record
	w(uint16(3))  // Windows
	w(uint16(10)) // Unicode full repertoire
	w(uint32(12)) // offset of the subtable
	w(uint16(12)) // format 12
	w(uint16(0))
	w(uint32(16 + 12*len(groups))) // length
	w(uint32(0))                   // language
	w(uint32(len(groups)))
	for _, g := range groups {
		w(g.start)
		w(g.end)
		w(g.glyph)
	}

	tags := ld.Tables()
	tables := make(map[ot.Tag][]byte, len(tags))
	for _, tag := range tags {
		if tag == ot.MustNewTag("cmap") {
			tables[tag] = cmap.Bytes()
			continue
		}
		raw, err := ld.RawTable(tag)
		if err != nil {
			return nil, 0, err
		}
		tables[tag] = raw
	}
	if err := copyVerticalMetrics(tables, base); err != nil {
		return nil, 0, err
	}
	version := uint32(ot.TrueType)
	if ld.HasTable(ot.MustNewTag("CFF ")) || ld.HasTable(ot.MustNewTag("CFF2")) {
		version = uint32(ot.OpenType)
	}
	return writeSFNT(version, tags, tables), len(kept), nil
}

// copyVerticalMetrics sets the line metrics of the face's hhea and OS/2 tables to base's,
// scaled from base's em to the face's.
func copyVerticalMetrics(tables map[ot.Tag][]byte, base *ot.Loader) error {
	raw := func(ld *ot.Loader, tag string) ([]byte, error) { return ld.RawTable(ot.MustNewTag(tag)) }
	head, ok := tables[ot.MustNewTag("head")]
	baseHead, err := raw(base, "head")
	if !ok || err != nil || len(head) < 20 || len(baseHead) < 20 {
		return errors.New("no head table")
	}
	scale := float64(binary.BigEndian.Uint16(head[18:])) / float64(binary.BigEndian.Uint16(baseHead[18:]))
	copyScaled := func(dst, src []byte, at ...int) {
		for _, o := range at {
			if o+2 <= len(dst) && o+2 <= len(src) {
				v := math.Round(float64(int16(binary.BigEndian.Uint16(src[o:]))) * scale)
				binary.BigEndian.PutUint16(dst[o:], uint16(int16(v)))
			}
		}
	}
	copyScaledU := func(dst, src []byte, at ...int) {
		for _, o := range at {
			if o+2 <= len(dst) && o+2 <= len(src) {
				v := math.Round(float64(binary.BigEndian.Uint16(src[o:])) * scale)
				binary.BigEndian.PutUint16(dst[o:], uint16(v))
			}
		}
	}
	tag := ot.MustNewTag("hhea")
	if hhea, ok := tables[tag]; ok {
		src, err := raw(base, "hhea")
		if err != nil {
			return err
		}
		hhea = append([]byte(nil), hhea...)
		copyScaled(hhea, src, 4, 6, 8) // ascender, descender, lineGap
		tables[tag] = hhea
	}
	tag = ot.MustNewTag("OS/2")
	if os2, ok := tables[tag]; ok {
		src, err := raw(base, "OS/2")
		if err != nil {
			return err
		}
		os2 = append([]byte(nil), os2...)
		copyScaled(os2, src, 68, 70, 72)    // sTypoAscender, sTypoDescender, sTypoLineGap
		copyScaledU(os2, src, 74, 76)       // usWinAscent, usWinDescent
		if len(os2) > 63 && len(src) > 63 { // fsSelection's USE_TYPO_METRICS bit (7) as base has it
			os2[63] = os2[63]&^0x80 | src[63]&0x80
		}
		tables[tag] = os2
	}
	return nil
}

// writeSFNT lays tables out as an OpenType file: the table directory (tags sorted), then each
// table on a 4-byte boundary. head's checkSumAdjustment is left as it was: no reader here
// checks it.
func writeSFNT(version uint32, tags []ot.Tag, tables map[ot.Tag][]byte) []byte {
	n := len(tags)
	entrySelector := 0
	for 1<<(entrySelector+1) <= n {
		entrySelector++
	}
	searchRange := (1 << entrySelector) * 16
	size := 12 + 16*n
	for _, tag := range tags {
		size += (len(tables[tag]) + 3) &^ 3
	}
	var out bytes.Buffer
	out.Grow(size) // exactly: a CJK face is about 16 MB, and growing by doubling kept up to twice that
	w := func(v any) { _ = binary.Write(&out, binary.BigEndian, v) }
	w(version)
	w(uint16(n))
	w(uint16(searchRange))
	w(uint16(entrySelector))
	w(uint16(n*16 - searchRange))
	offset := uint32(12 + 16*n)
	for _, tag := range tags {
		t := tables[tag]
		w(uint32(tag))
		w(checksum(t))
		w(offset)
		w(uint32(len(t)))
		offset += uint32(len(t)+3) &^ 3
	}
	for _, tag := range tags {
		t := tables[tag]
		out.Write(t)
		out.Write(make([]byte, (4-len(t)%4)%4))
	}
	return out.Bytes()
}

func checksum(b []byte) uint32 {
	var sum uint32
	for i := 0; i < len(b); i += 4 {
		var word [4]byte
		copy(word[:], b[i:])
		sum += binary.BigEndian.Uint32(word[:])
	}
	return sum
}
