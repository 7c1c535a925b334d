// Package mobileenv reads, writes, edits, regroups and visualises the annotation pickles of
// Mobile-Env's web annotation tool (spec mobileenv.md, Parts A and B). It is headless.
//
// # Command-line mapping
//
// The entry points mirror the original tools so that `agentdesk pickle ...` is a thin wrapper:
//
//	agentdesk pickle info PKL                 Info(PKL) → Summary (Summary.Text() for a terminal)
//	agentdesk pickle resave PAT:S:T [OUTDIR=pkl_resaved] [DEFDIR=textprotos] [--merge] [--compat]
//	                                          Resave(ctx, PAT:S:T, OUTDIR, DEFDIR, ResaveOptions{Stdout: os.Stdout, Merge, Compat})
//	agentdesk pickle edit PKL [MODIFIERS=""] [DEFDIR] [--compat]
//	                                          Edit(PKL, MODIFIERS, DEFDIR, EditOptions{Compat})
//	agentdesk pickle visualize [--no-marks] [--no-descp] PKL_PATH VIDEO_PATH [--safe-names] [--png] [--numeric-labels]
//	                                          Visualize(PKL_PATH, VIDEO_PATH, VisualizeOptions{FrameOptions{NoMarks, NoDescp, NumericLabels}, SafeNames, PNG, Stdout: os.Stdout})
//	agentdesk pickle video [--no-marks] [--no-descp] PKL_PATH VIDEO_PATH [--fps N] [--format mp4|gif]
//	                                          Video(ctx, PKL_PATH, VIDEO_PATH, VideoOptions{VisualizeOptions, FPS, Format})
//
// `visualize -h` prints VisualizeUsage. Errors that the original reports as Python exceptions
// are *PyError values whose Error() is the original's last line (e.g. "IndexError: list index
// out of range"); exit status 1 on any error.
//
// # Values
//
// A decoded pickle is a tree of the value types of value.go. Python object identity matters for
// writing files byte-identical to the ones Python writes (a string or array shared by two
// records is stored once and referred back to), so every memoisable value is a pointer and the
// reader keeps the sharing it finds in the file:
//
//	Python             Go
//	None               nil
//	bool               bool
//	int                int64 (or *big.Int beyond 64 bits)
//	float              float64
//	str                *Str
//	bytes, bytearray   *Bytes
//	tuple              *Tuple
//	list               *List
//	dict               *Dict (insertion-ordered)
//	numpy.ndarray      *NDArray
//	numpy.dtype        *DType
//	numpy scalar       *Scalar
//
// Nothing in a pickle is ever executed: the reader is a strict opcode interpreter that knows the
// handful of numpy/codecs globals these files use and refuses every other global by name, and
// checks every declared size against the bytes actually present before allocating. Objects
// that REDUCE creates and only BUILD completes (numpy arrays and dtypes) are refused when BUILD
// never comes, with the offset of their REDUCE. Files are read through engine/limits (regular
// files only, at most 4 GiB by default).
//
// # Why not gopickle
//
// The design named github.com/nlpodyssey/gopickle for reading pickles. It is kept as an
// independent oracle (crosscheck_test.go decodes every conformance pickle with it, behind the
// same allow-list, and compares), and the app decodes with its own reader, because on the same
// files (scripts/compare-gopickle.sh, 2 cores, 2026-11-26):
//
//   - Speed and memory are not the difference: a 311 MB resaved file takes 0.15 s and 313 MiB
//     peak with this reader (arrays are slices of the file's bytes) and 0.15 s and 320 MiB with
//     gopickle streaming from the file (0.29 s and 618 MiB when given the bytes in memory).
//   - Writing back: files written here must be byte-identical to what Python writes, which
//     depends on object identity (a str or array shared by two records is stored once and
//     referred to). gopickle turns str into Go strings and loses that identity, so an unchanged
//     file could not be written back as it was read.
//   - Errors: this reader names the byte offset and opcode ("byte 2 (BINBYTES8): declared size
//     exceeds the data: 10737418240 bytes declared, 3 left in the file"); gopickle says
//     "unexpected EOF" or "the stack is empty", with no position, for the same hostile files.
//   - Incomplete objects: gopickle accepts an array whose BUILD never comes (a 62-byte file)
//     and returns an object without dtype, shape or data; this reader refuses it at its offset.
//   - Both refuse a 10^10-byte array shape and stay under 35 MiB on every hostile input tried
//     (declared 10 GB bytes, 4 GB str, 100k nested marks, 2^24 shared leaves).
package mobileenv
