package mobileenv

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
	"github.com/agentdesk/agentdesk/engine/limits"
)

// ResaveSpec is the parsed first argument of resave: "PATTERN:START:END".
type ResaveSpec struct {
	Pattern    string
	Start, End int
}

// ParseResaveSpec splits the first argument at its last two colons (the pattern may contain
// colons) and parses START and END like Python int().
func ParseResaveSpec(s string) (ResaveSpec, error) {
	i := strings.LastIndex(s, ":")
	if i < 0 {
		return ResaveSpec{}, &PyError{"ValueError", "not enough values to unpack (expected 3, got 1)"}
	}
	j := strings.LastIndex(s[:i], ":")
	if j < 0 {
		return ResaveSpec{}, &PyError{"ValueError", "not enough values to unpack (expected 3, got 2)"}
	}
	a, err := PyInt(s[j+1 : i])
	if err != nil {
		return ResaveSpec{}, err
	}
	b, err := PyInt(s[i+1:])
	if err != nil {
		return ResaveSpec{}, err
	}
	return ResaveSpec{Pattern: s[:j], Start: a, End: b}, nil
}

// PatternError names the dump-file pattern a formatting error comes from and, when a % stands
// in its folders or in its name besides the one conversion, says to write it %% (as Python's
// `pattern % n` needs).
func PatternError(pattern string, err error) error {
	dir, base := filepath.Split(pattern)
	hint := ""
	if strings.Contains(strings.ReplaceAll(dir, "%%", ""), "%") {
		hint = fmt.Sprintf("; a %% in a folder name is written %%%%, as Python's %% formatting needs: %s%s",
			strings.ReplaceAll(strings.ReplaceAll(dir, "%%", "%"), "%", "%%"), base)
	} else if strings.Count(strings.ReplaceAll(base, "%%", ""), "%") != 1 {
		hint = "; the file name takes one conversion (%d) and writes any other % as %%"
	}
	return fmt.Errorf("the dump-file pattern %q: %w%s", pattern, err, hint)
}

// PyFormatInt is Python's `pattern % n` for one integer argument: %d/%i/%u (with flags, width
// and precision such as %03d), %s/%r, %x/%X/%o and %%. A pattern with no conversion or more
// than one is an error, as in Python.
func PyFormatInt(pattern string, n int) (string, error) {
	var sb strings.Builder
	used := 0
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		if c != '%' {
			sb.WriteByte(c)
			continue
		}
		i++
		if i >= len(pattern) {
			return "", &PyError{"ValueError", "incomplete format"}
		}
		if pattern[i] == '%' {
			sb.WriteByte('%')
			continue
		}
		var flags string
		for i < len(pattern) && strings.IndexByte("-+ #0", pattern[i]) >= 0 {
			flags += string(pattern[i])
			i++
		}
		start := i
		for i < len(pattern) && pattern[i] >= '0' && pattern[i] <= '9' {
			i++
		}
		width, _ := strconv.Atoi(pattern[start:i])
		prec := -1
		if i < len(pattern) && pattern[i] == '.' {
			i++
			ps := i
			for i < len(pattern) && pattern[i] >= '0' && pattern[i] <= '9' {
				i++
			}
			prec, _ = strconv.Atoi(pattern[ps:i])
		}
		if i >= len(pattern) {
			return "", &PyError{"ValueError", "incomplete format"}
		}
		conv := pattern[i]
		used++
		if used > 1 {
			return "", &PyError{"TypeError", "not enough arguments for format string"}
		}
		var body, sign string
		v := n
		if v < 0 && strings.IndexByte("diuxXo", conv) >= 0 {
			sign = "-"
			v = -v
		} else if strings.Contains(flags, "+") {
			sign = "+"
		} else if strings.Contains(flags, " ") {
			sign = " "
		}
		switch conv {
		case 'd', 'i', 'u':
			body = strconv.Itoa(v)
		case 'x':
			body = strconv.FormatInt(int64(v), 16)
			if strings.Contains(flags, "#") {
				sign += "0x"
			}
		case 'X':
			body = strings.ToUpper(strconv.FormatInt(int64(v), 16))
			if strings.Contains(flags, "#") {
				sign += "0X"
			}
		case 'o':
			body = strconv.FormatInt(int64(v), 8)
			if strings.Contains(flags, "#") {
				sign += "0o"
			}
		case 's', 'r', 'a':
			body = strconv.Itoa(n)
			sign = ""
			if prec >= 0 && prec < len(body) {
				body = body[:prec]
			}
			prec = -1
		default:
			return "", &PyError{"ValueError", fmt.Sprintf("unsupported format character %q in resave pattern", conv)}
		}
		if prec > len(body) {
			body = strings.Repeat("0", prec-len(body)) + body
		}
		pad := width - len(sign) - len(body)
		switch {
		case pad <= 0:
			sb.WriteString(sign + body)
		case strings.Contains(flags, "-"):
			sb.WriteString(sign + body + strings.Repeat(" ", pad))
		case strings.Contains(flags, "0") && conv != 's' && conv != 'r' && conv != 'a':
			sb.WriteString(sign + strings.Repeat("0", pad) + body)
		default:
			sb.WriteString(strings.Repeat(" ", pad) + sign + body)
		}
	}
	if used == 0 {
		return "", &PyError{"TypeError", "not all arguments converted during string formatting"}
	}
	return sb.String(), nil
}

// ResaveOptions tunes Resave.
type ResaveOptions struct {
	// Stdout receives the progress lines (nil: discarded).
	Stdout io.Writer
	// Compat reproduces the original: temporary files OUTDIR/<definition>.tmp.pkl are appended
	// while the dumps are read (an error or an interruption leaves them behind, as the original
	// does) and existing resaved files are overwritten.
	Compat bool
	// Merge (default mode only): when OUTDIR/<definition>.pkl exists, its trajectories are kept
	// and the new ones appended after them (its meta is kept); a new trajectory equal to one the
	// file already holds is not added again, so repeating a merge (after an interruption, say)
	// changes nothing. Without Merge an existing target with other content is an error reported
	// before anything is written.
	Merge bool
	// Progress, when not nil, is told after each number of the range is looked at (its dump
	// file read, or found missing): the numbers done so far and the range's size. It is
	// called on Resave's goroutine.
	Progress func(done, total int)
}

// ResaveResult lists what a resave produced.
type ResaveResult struct {
	// Written maps each written file (OUTDIR/<definition>.pkl) to its trajectory count.
	Written map[string]int
	// Read lists the dump files read, in order.
	Read []string
	// Discarded lists the temporary files an earlier, interrupted run left in OUTDIR: they are
	// removed before this run starts, never read or appended to.
	Discarded []string
	// Unchanged lists targets that already held exactly what this run would write (default
	// mode; an earlier run wrote them).
	Unchanged []string
	// Duplicates counts, per target, the trajectories a merge did not add because the file
	// already held them.
	Duplicates map[string]int
}

// ErrExists is wrapped by the error returned when resave would overwrite a resaved file.
var ErrExists = errors.New("resaved file exists")

// resaveGroup is the trajectories of one task definition, each as the pickle the original
// appends to its temporary file.
type resaveGroup struct {
	def   string
	meta  []byte
	trajs [][]byte
}

// Resave regroups raw web-tool dumps by task definition (the original
// `resave_pickles.py PKL_NAME:S:T DUMPDIR TASKFOLDER`): spec is "PATTERN:START:END", outDir
// must exist, defDir holds the task definitions (*.textproto, read in name order).
//
// Every resaved file is written whole to a temporary file, synced and renamed over the target,
// so an interrupted run leaves each target as it was or complete, and running it again gives
// the files an uninterrupted run gives. ctx stops the run between dump files.
func Resave(ctx context.Context, spec, outDir, defDir string, opts ResaveOptions) (ResaveResult, error) {
	res := ResaveResult{Written: map[string]int{}, Duplicates: map[string]int{}}
	rs, err := ParseResaveSpec(spec)
	if err != nil {
		return res, err
	}
	if st, err := os.Stat(outDir); !opts.Compat && (err != nil || !st.IsDir()) {
		// (the original fails only when it first appends to a temporary file there)
		return res, fmt.Errorf("output folder %s does not exist (it is never created): %w", outDir, pyOSError(&fs.PathError{Op: "stat", Path: outDir, Err: fs.ErrNotExist}))
	}
	// The original reads every *.tmp.pkl in OUTDIR at the end, stale ones included, and so
	// duplicates what an interrupted run had appended. They are discarded instead.
	stale, _ := filepath.Glob(filepath.Join(outDir, "*"+tempSuffix))
	for _, p := range stale {
		if err := os.Remove(p); err != nil {
			return res, fmt.Errorf("cannot discard %s, left by an interrupted resave: %w", p, err)
		}
		res.Discarded = append(res.Discarded, p)
	}
	idmap, err := definitionIDs(defDir)
	if err != nil {
		return res, err
	}
	out := opts.Stdout
	if out == nil {
		out = io.Discard
	}
	var groups []*resaveGroup
	byDef := map[string]*resaveGroup{}
	vocabCache := map[string][]string{}
	for idx := rs.Start; idx <= rs.End; idx++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		name, err := PyFormatInt(rs.Pattern, idx)
		if err != nil {
			return res, PatternError(rs.Pattern, err)
		}
		if idx%500 == 0 {
			fmt.Fprintf(out, "\x1b[37m%d\x1b[0m=>\x1b[32m%d\x1b[0m=>\x1b[37m%d\x1b[0m\t%s\n", rs.Start, idx, rs.End, name)
		}
		if opts.Progress != nil {
			opts.Progress(idx-rs.Start, rs.End-rs.Start+1)
		}
		if _, err := os.Stat(name); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		data, err := limits.ReadFile(name, limits.Pickle)
		if err != nil {
			return res, pyOSError(err)
		}
		res.Read = append(res.Read, name)
		ps, err := DecodeAll(name, data)
		if err != nil {
			return res, err
		}
		for pi, p := range ps {
			traj, ok := p.Value.(*List)
			if !ok || len(traj.Items) == 0 {
				return res, fmt.Errorf("%s: pickle %d (byte %d) is not a trajectory list", name, pi, p.Offset)
			}
			r0, ok := traj.Items[0].(*Dict)
			if !ok {
				return res, fmt.Errorf("%s: pickle %d: record 0 is %s", name, pi, TypeName(traj.Items[0]))
			}
			tidV, ok := r0.Get("task_id")
			if !ok {
				return res, fmt.Errorf("%s: pickle %d: %w", name, pi, &PyError{"KeyError", "'task_id'"})
			}
			tid, _ := AsString(tidV)
			def, ok := idmap[tid]
			if !ok {
				return res, fmt.Errorf("%s: pickle %d: %w", name, pi, &PyError{"KeyError", pyQuote(tid)})
			}
			vocab, ok := vocabCache[def]
			if !ok {
				td, err := ReadTaskDef(filepath.Join(defDir, def+".textproto"))
				if err != nil {
					return res, err
				}
				vocab = td.Vocabulary
				vocabCache[def] = vocab
			}
			if err := translateTokens(traj, vocab); err != nil {
				return res, fmt.Errorf("%s: pickle %d: %w", name, pi, err)
			}
			g := byDef[def]
			if g == nil {
				taskV, _ := r0.Get("task")
				meta := &Dict{}
				meta.Set("otask_id", tidV)
				meta.Set("otask_name", taskV)
				meta.Set("task_definition_id", NewStr(def))
				b, err := Encode(meta)
				if err != nil {
					return res, err
				}
				g = &resaveGroup{def: def, meta: b}
				byDef[def] = g
				groups = append(groups, g)
			}
			b, err := Encode(traj)
			if err != nil {
				return res, err
			}
			if err := limits.Trajectories.Check(filepath.Join(outDir, def+".pkl"), int64(len(g.trajs)+1)); err != nil {
				return res, err
			}
			g.trajs = append(g.trajs, b)
			if opts.Compat {
				if err := appendTemp(outDir, g, b); err != nil {
					return res, err
				}
			}
		}
	}
	if opts.Progress != nil && rs.End >= rs.Start {
		opts.Progress(rs.End-rs.Start+1, rs.End-rs.Start+1)
	}
	if opts.Compat {
		return res, finishCompat(ctx, outDir, groups, &res)
	}
	return res, writeResaved(ctx, outDir, groups, opts.Merge, &res)
}

// tempSuffix ends the original's temporary files (OUTDIR/<definition>.tmp.pkl).
const tempSuffix = ".tmp.pkl"

// finishCompat turns this run's temporary files into the resaved files, as the original does
// (in name order, overwriting), and removes them.
func finishCompat(ctx context.Context, outDir string, groups []*resaveGroup, res *ResaveResult) error {
	sorted := slices.Clone(groups)
	slices.SortFunc(sorted, func(a, b *resaveGroup) int { return strings.Compare(a.def+tempSuffix, b.def+tempSuffix) })
	for _, g := range sorted {
		if err := ctx.Err(); err != nil {
			return err
		}
		tmp := filepath.Join(outDir, g.def+tempSuffix)
		target := filepath.Join(outDir, g.def+".pkl")
		removed, err := atomicfile.Clean(target)
		res.Discarded = append(res.Discarded, removed...)
		if err != nil {
			return err
		}
		data, err := limits.ReadFile(tmp, limits.Pickle)
		if err != nil {
			return err
		}
		ps, err := DecodeAll(tmp, data)
		if err != nil {
			return err
		}
		root, n := resavedRoot(ps[0].Value, nil, ps[1:])
		if err := writePickle(target, root); err != nil {
			return err
		}
		res.Written[target] = n
		if err := os.Remove(tmp); err != nil {
			return err
		}
	}
	return nil
}

// writeResaved writes every group's resaved file (default mode): all contents are made and
// checked against the existing files first, then each is written atomically.
func writeResaved(ctx context.Context, outDir string, groups []*resaveGroup, merge bool, res *ResaveResult) error {
	type output struct {
		target string
		data   []byte
		n      int
	}
	var outs []output
	for _, g := range groups {
		if err := ctx.Err(); err != nil {
			return err
		}
		target := filepath.Join(outDir, g.def+".pkl")
		removed, err := atomicfile.Clean(target)
		res.Discarded = append(res.Discarded, removed...)
		if err != nil {
			return err
		}
		meta, err := Decode(g.meta)
		if err != nil {
			return err
		}
		trajs := make([]Pickle, len(g.trajs))
		for i, b := range g.trajs {
			if trajs[i].Value, err = Decode(b); err != nil {
				return err
			}
		}
		var old *File
		existing, err := limits.ReadFile(target, limits.Pickle)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return err
		case merge:
			if old, err = Parse(target, existing); err != nil {
				return fmt.Errorf("merge into %s: %w", target, err)
			}
			if old.Kind != KindResaved {
				return fmt.Errorf("merge into %s: not a resaved file", target)
			}
			if old.Meta != nil {
				meta = old.Meta
			}
			kept, dups, err := withoutDuplicates(old.Trajectories, trajs, g.trajs)
			if err != nil {
				return err
			}
			trajs, res.Duplicates[target] = kept, dups
		}
		root, n := resavedRoot(meta, old, trajs)
		data, err := Encode(root)
		if err != nil {
			return err
		}
		if existing != nil && bytes.Equal(existing, data) {
			res.Unchanged = append(res.Unchanged, target)
			continue
		}
		if existing != nil && !merge {
			return fmt.Errorf("%w: %s (merge into it with --merge, or overwrite it as the original does with --compat)", ErrExists, target)
		}
		outs = append(outs, output{target, data, n})
	}
	for _, o := range outs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := atomicfile.Write(o.target, o.data, 0o644); err != nil {
			return err
		}
		res.Written[o.target] = o.n
	}
	return nil
}

// withoutDuplicates drops the new trajectories that old already holds (compared by their
// pickled bytes: raw is each new trajectory as its own pickle).
func withoutDuplicates(old []*List, trajs []Pickle, raw [][]byte) ([]Pickle, int, error) {
	have := map[[sha256.Size]byte]bool{}
	for _, t := range old {
		b, err := Encode(t)
		if err != nil {
			return nil, 0, err
		}
		have[sha256.Sum256(b)] = true
	}
	var kept []Pickle
	for i, t := range trajs {
		if !have[sha256.Sum256(raw[i])] {
			kept = append(kept, t)
		}
	}
	return kept, len(trajs) - len(kept), nil
}

// resavedRoot is {"meta": meta, "trajectories": [old..., new...]}.
func resavedRoot(meta any, old *File, trajs []Pickle) (*Dict, int) {
	l := &List{}
	if old != nil {
		for _, t := range old.Trajectories {
			l.Items = append(l.Items, t)
		}
	}
	for _, p := range trajs {
		l.Items = append(l.Items, p.Value)
	}
	root := &Dict{}
	root.Set("meta", meta)
	root.Set("trajectories", l)
	return root, len(l.Items)
}

func writePickle(target string, v any) error {
	b, err := Encode(v)
	if err != nil {
		return err
	}
	return atomicfile.Write(target, b, 0o644)
}

// definitionIDs maps task ids to definition names (file names without ".textproto").
func definitionIDs(defDir string) (map[string]string, error) {
	entries, err := os.ReadDir(defDir)
	if err != nil {
		return nil, pyOSError(err)
	}
	idmap := map[string]string{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".textproto") {
			continue
		}
		td, err := ReadTaskDef(filepath.Join(defDir, e.Name()))
		if err != nil {
			return nil, err
		}
		idmap[td.ID] = strings.TrimSuffix(e.Name(), ".textproto")
	}
	return idmap, nil
}

// translateTokens replaces every input_token by str(vocabulary[token]).
func translateTokens(traj *List, vocab []string) error {
	for j, it := range traj.Items {
		d, ok := it.(*Dict)
		if !ok {
			continue
		}
		v, ok := d.Get("input_token")
		if !ok {
			continue
		}
		n, isInt := v.(int64)
		if sc, ok := v.(*Scalar); ok && sc.DType.Kind != 'f' {
			n, isInt = sc.Int(), true
		}
		if !isInt {
			return fmt.Errorf("record %d: %w", j, &PyError{"TypeError", fmt.Sprintf("list indices must be integers or slices, not %s", TypeName(v))})
		}
		i, err := pyIndex(int(n), len(vocab))
		if err != nil || n != int64(int(n)) {
			return fmt.Errorf("record %d: input token %d: %w", j, n, indexError())
		}
		d.Set("input_token", NewStr(vocab[i]))
	}
	return nil
}

// appendTemp appends a trajectory pickle to the group's temporary file, the meta pickle first
// when the file is new (the original's step d).
func appendTemp(outDir string, g *resaveGroup, traj []byte) error {
	tmp := filepath.Join(outDir, g.def+tempSuffix)
	var data []byte
	if _, err := os.Stat(tmp); errors.Is(err, fs.ErrNotExist) {
		data = g.meta
	}
	return pyOSError(appendFile(tmp, append(slices.Clip(data), traj...)))
}
