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
// checks every declared size against the bytes actually present before allocating.
package mobileenv
