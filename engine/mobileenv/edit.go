package mobileenv

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
	"github.com/agentdesk/agentdesk/engine/pyfmt"
)

// Modifier is one element of the edit language (spec §B.3): "index:name[:param...]".
// Fields are kept as written (no trimming); Traj and the typed parameters are filled by
// ParseModifiers.
type Modifier struct {
	Raw    string   // the modifier as written
	Index  string   // trajectory index as written
	Name   string   // delete, instructionize, rewardize, remove, auto_instructionize
	Params []string // parameters as written

	Traj  int     // parsed trajectory index (Python indexing: negative counts from the end)
	A, B  int     // delete: start, end; instructionize: step, option; rewardize: step
	Delta float64 // rewardize
}

// PyError is an error reported with the Python exception name the original tool would raise
// (IndexError, KeyError, ValueError, TypeError), so that the CLI can print the same last line.
type PyError struct {
	Type string
	Msg  string
}

func (e *PyError) Error() string { return e.Type + ": " + e.Msg }

func indexError() error { return &PyError{"IndexError", "list index out of range"} }

// PyErrorLine returns the last line the original tool would print for err: the innermost
// *PyError ("IndexError: list index out of range"), or err's own text.
func PyErrorLine(err error) string {
	var pe *PyError
	if errors.As(err, &pe) {
		return pe.Error()
	}
	return err.Error()
}

// pyOSError turns a missing-file error into Python's FileNotFoundError form (keeping the
// original error for errors.Is).
func pyOSError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && errors.Is(err, fs.ErrNotExist) {
		return &wrappedPyError{PyError{"FileNotFoundError", fmt.Sprintf("[Errno 2] No such file or directory: %s", pyQuote(pe.Path))}, err}
	}
	return err
}

type wrappedPyError struct {
	PyError
	err error
}

func (e *wrappedPyError) Unwrap() []error { return []error{&e.PyError, e.err} }

// PyInt parses like Python int(): surrounding whitespace, sign, '_' between digits.
func PyInt(s string) (int, error) {
	t := strings.TrimFunc(s, pyIsSpace)
	if !pyIntRe.MatchString(t) {
		return 0, &PyError{"ValueError", fmt.Sprintf("invalid literal for int() with base 10: %s", pyQuote(s))}
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(t, "_", ""), 10, 64)
	if err != nil || n > math.MaxInt32 || n < math.MinInt32 {
		return 0, &PyError{"IndexError", "cannot fit 'int' into an index-sized integer"}
	}
	return int(n), nil
}

var (
	pyIntRe   = regexp.MustCompile(`^[+-]?[0-9](_?[0-9])*$`)
	pyFloatRe = regexp.MustCompile(`^[+-]?(([0-9](_?[0-9])*)?\.?([0-9](_?[0-9])*)?([eE][+-]?[0-9](_?[0-9])*)?)$`)
	pySpecial = regexp.MustCompile(`(?i)^[+-]?(inf|infinity|nan)$`)
)

// PyFloat parses like Python float().
func PyFloat(s string) (float64, error) {
	t := strings.TrimFunc(s, pyIsSpace)
	bad := &PyError{"ValueError", fmt.Sprintf("could not convert string to float: %s", pyQuote(s))}
	if pySpecial.MatchString(t) {
		neg := strings.HasPrefix(t, "-")
		core := strings.ToLower(strings.TrimLeft(t, "+-"))
		if core == "nan" {
			return math.NaN(), nil
		}
		if neg {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	}
	m := pyFloatRe.FindStringSubmatch(t)
	if m == nil || (m[2] == "" && m[4] == "") || strings.Contains(t, "_.") || strings.Contains(t, "._") {
		return 0, bad
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(t, "_", ""), 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return f, nil
		}
		return 0, bad
	}
	return f, nil
}

func pyQuote(s string) string {
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

// modifierSignature is each modifier function's parameters in the original: the modifier's
// own, then the two the tool passes after them (functools.partial(f, *params)(local_dict,
// trajectory)). Python names them when a call has too few arguments.
var modifierSignature = map[string][]string{
	"delete":              {"start", "end", "local_dict", "trajectory"},
	"instructionize":      {"action_index", "instruction_index", "local_dict", "trajectory"},
	"rewardize":           {"action_index", "reward_delta", "local_dict", "trajectory"},
	"auto_instructionize": {"local_dict", "trajectory"},
}

// arityError is Python's TypeError for calling modifier name with nParams parameters (and the
// tool's two arguments after them), nil when the count is right.
func arityError(name string, nParams int) error {
	sig, ok := modifierSignature[name]
	given := nParams + 2
	if !ok || given == len(sig) {
		return nil
	}
	if given > len(sig) {
		return &PyError{"TypeError", fmt.Sprintf("%s() takes %d positional argument%s but %d were given",
			name, len(sig), plural(len(sig)), given)} // given > len(sig) >= 2
	}
	missing := sig[given:]
	quoted := make([]string, len(missing))
	for i, m := range missing {
		quoted[i] = "'" + m + "'"
	}
	var names string
	switch len(quoted) {
	case 1:
		names = quoted[0]
	case 2:
		names = quoted[0] + " and " + quoted[1]
	default:
		names = strings.Join(quoted[:len(quoted)-1], ", ") + ", and " + quoted[len(quoted)-1]
	}
	return &PyError{"TypeError", fmt.Sprintf("%s() missing %d required positional argument%s: %s",
		name, len(missing), plural(len(missing)), names)}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// assignmentIndexError is Python's error for `del lst[i]` out of range.
func assignmentIndexError() error {
	return &PyError{"IndexError", "list assignment index out of range"}
}

// SplitModifiers splits a modifier string like the original: on ',' then on ':'; a part
// without ':' (including the empty string) is an IndexError.
func SplitModifiers(s string) ([]Modifier, error) {
	var out []Modifier
	for _, part := range strings.Split(s, ",") {
		fields := strings.Split(part, ":")
		if len(fields) < 2 {
			return nil, indexError()
		}
		out = append(out, Modifier{Raw: part, Index: fields[0], Name: fields[1], Params: fields[2:]})
	}
	return out, nil
}

// ParseModifiers splits and fully validates a modifier string: names, parameter counts and
// number syntax (Python int()/float()). Index ranges are checked when applying.
func ParseModifiers(s string) ([]Modifier, error) {
	mods, err := SplitModifiers(s)
	if err != nil {
		return nil, fmt.Errorf("modifier string %q: %w", s, err)
	}
	for i := range mods {
		if err := mods[i].check(nil); err != nil {
			return nil, fmt.Errorf("modifier %d %q: %w", i, mods[i].Raw, err)
		}
	}
	return mods, nil
}

// parseParams reads the modifier's own parameters as its function does (int(), float()).
func (m *Modifier) parseParams() error {
	var err error
	switch m.Name {
	case "delete", "instructionize":
		if m.A, err = PyInt(m.Params[0]); err != nil {
			return err
		}
		if m.B, err = PyInt(m.Params[1]); err != nil {
			return err
		}
	case "rewardize":
		if m.A, err = PyInt(m.Params[0]); err != nil {
			return err
		}
		if m.Delta, err = PyFloat(m.Params[1]); err != nil {
			return err
		}
	}
	return nil
}

// String formats a modifier in the edit language.
func (m Modifier) String() string {
	switch m.Name {
	case "delete", "instructionize":
		return fmt.Sprintf("%d:%s:%d:%d", m.Traj, m.Name, m.A, m.B)
	case "rewardize":
		return fmt.Sprintf("%d:rewardize:%d:%s", m.Traj, m.A, pyfmt.FloatRepr(m.Delta))
	}
	return fmt.Sprintf("%d:%s", m.Traj, m.Name)
}

// FormatModifiers joins modifiers into a modifier string.
func FormatModifiers(mods []Modifier) string {
	parts := make([]string, len(mods))
	for i, m := range mods {
		parts[i] = m.String()
	}
	return strings.Join(parts, ",")
}

// NeedsDefinitions reports whether a modifier list needs the task definition (the original
// reads it when any modifier is named instructionize).
func NeedsDefinitions(mods []Modifier) bool {
	for _, m := range mods {
		if m.Name == "instructionize" {
			return true
		}
	}
	return false
}

func pyIndex(i, n int) (int, error) {
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return 0, indexError()
	}
	return i, nil
}

// pySlice clamps start:end like Python slicing of a sequence of length n (step 1).
func pySlice(start, end, n int) (int, int) {
	clamp := func(i int) int {
		if i < 0 {
			i += n
			if i < 0 {
				i = 0
			}
		}
		if i > n {
			i = n
		}
		return i
	}
	s, e := clamp(start), clamp(end)
	if e < s {
		e = s
	}
	return s, e
}

// ApplyModifiers applies parsed modifiers in order to the trajectories list of a resaved file
// (as it stands after the earlier ones). options are the instruction options (nil when the
// list has no instructionize: auto_instructionize then fails like the original, KeyError).
func ApplyModifiers(trajs *List, mods []Modifier, options []any) error {
	keys := literalKeys{}
	for k, m := range mods {
		if err := applyOne(trajs, m, options, NeedsDefinitions(mods), keys); err != nil {
			return fmt.Errorf("modifier %d %q: %w", k, m.Raw, err)
		}
	}
	return nil
}

func record(traj *List, step int) (*Dict, error) {
	i, err := pyIndex(step, len(traj.Items))
	if err != nil {
		return nil, err
	}
	d, ok := traj.Items[i].(*Dict)
	if !ok {
		return nil, &PyError{"TypeError", fmt.Sprintf("record %d is %s, not dict", step, TypeName(traj.Items[i]))}
	}
	return d, nil
}

// literalKeys are the dict keys the tool inserts. In Python they are string literals of the
// tool's source, interned: every record that gets a new "instruction" or "reward" key shares
// one key object (which a pickle stores once).
type literalKeys map[string]*Str

func (k literalKeys) set(d *Dict, key string, v any) {
	if i := d.index(key); i >= 0 {
		d.Vals[i] = v // Python keeps the existing key object
		return
	}
	s, ok := k[key]
	if !ok {
		s = NewStr(key)
		k[key] = s
	}
	d.Keys = append(d.Keys, s)
	d.Vals = append(d.Vals, v)
}

func applyOne(trajs *List, m Modifier, options []any, haveOptions bool, keys literalKeys) error {
	ti, err := pyIndex(m.Traj, len(trajs.Items))
	if err != nil {
		if m.Name == "remove" { // del trajectories[i]
			return assignmentIndexError()
		}
		return err
	}
	if m.Name == "remove" {
		trajs.Items = append(trajs.Items[:ti:ti], trajs.Items[ti+1:]...)
		return nil
	}
	traj, ok := trajs.Items[ti].(*List)
	if !ok {
		return &PyError{"TypeError", fmt.Sprintf("trajectory %d is %s, not list", m.Traj, TypeName(trajs.Items[ti]))}
	}
	switch m.Name {
	case "delete":
		s, e := pySlice(m.A, m.B, len(traj.Items))
		traj.Items = append(traj.Items[:s:s], traj.Items[e:]...)
	case "instructionize":
		d, err := record(traj, m.A)
		if err != nil {
			return err
		}
		if m.B == -1 && d.Has("instruction") {
			d.Delete("instruction")
			return nil
		}
		oi, err := pyIndex(m.B, len(options))
		if err != nil {
			return err
		}
		keys.set(d, "instruction", options[oi])
	case "rewardize":
		d, err := record(traj, m.A)
		if err != nil {
			return err
		}
		old, had := d.Get("reward")
		var r any
		if !had {
			r = 0.0 + m.Delta
		} else {
			r, err = addReward(old, m.Delta)
			if err != nil {
				return err
			}
		}
		if had && isZero(r) {
			d.Delete("reward")
		} else {
			keys.set(d, "reward", r)
		}
	case "auto_instructionize":
		if !haveOptions {
			return &PyError{"KeyError", "'instructions'"}
		}
		i := 0
		for j := 1; j < len(traj.Items)-1; j++ {
			d, ok := traj.Items[j].(*Dict)
			if !ok {
				return &PyError{"TypeError", fmt.Sprintf("record %d is %s, not dict", j, TypeName(traj.Items[j]))}
			}
			rv, ok := d.Get("reward")
			if !ok {
				return &PyError{"KeyError", "'reward'"}
			}
			r, ok := AsFloat(rv)
			if !ok {
				return &PyError{"TypeError", "reward is not a number"}
			}
			if r > 0 {
				if i >= len(options) {
					return indexError()
				}
				keys.set(d, "instruction", options[i])
				if i+1 < len(options) {
					i++
				}
			}
		}
	default:
		return &PyError{"KeyError", pyQuote(m.Name)}
	}
	return nil
}

// addReward is Python's `old + float(delta)`: Python numbers give a float; numpy scalars give
// a numpy float64 scalar.
func addReward(old any, delta float64) (any, error) {
	switch x := old.(type) {
	case *Scalar:
		d, _ := NewDType("f8")
		r := x.Float() + delta
		raw := make([]byte, 8)
		d.order().PutUint64(raw, math.Float64bits(r))
		return &Scalar{DType: d, Raw: raw}, nil
	}
	f, ok := AsFloat(old)
	if !ok {
		return nil, &PyError{"TypeError", fmt.Sprintf("unsupported operand type(s) for +: '%s' and 'float'", TypeName(old))}
	}
	return f + delta, nil
}

func isZero(v any) bool {
	f, ok := AsFloat(v)
	return ok && f == 0
}

// EditOptions tunes Edit.
type EditOptions struct {
	// Compat reproduces the original tool's order of operations and failure states: the file is
	// renamed to PKL.old before the definitions are read and the modifiers applied, so a failure
	// leaves only PKL.old, and an existing PKL.old is replaced. Without Compat (the default),
	// everything is validated and applied in memory first; on success the new file is written
	// atomically (temporary file, fsync, rename), the previous content is kept as PKL.old, and
	// an existing PKL.old is preserved as PKL.old.N (first free N ≥ 1) instead of being lost.
	Compat bool
}

// EditResult says what an edit did besides writing the file.
type EditResult struct {
	// Discarded lists temporary files that interrupted writers of the file had left behind
	// and that were removed.
	Discarded []string
}

// Edit applies a modifier string to a resaved pickle (the original `edit_pickle.py PKL
// MODIFIERS DEFDIR`). defDir is the folder holding <task_definition_id>.textproto; it is read
// only when a modifier is named instructionize.
func Edit(path, modifiers, defDir string, opts EditOptions) (EditResult, error) {
	return EditContext(context.Background(), path, modifiers, defDir, opts)
}

// EditContext is Edit, stopped when ctx is cancelled: it checks ctx after reading, between
// modifiers and last before it replaces the file, so a cancelled edit leaves the file as it
// was (and returns ctx's error, naming the file).
func EditContext(ctx context.Context, path, modifiers, defDir string, opts EditOptions) (EditResult, error) {
	cancelled := func() error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%s: the edit stopped before writing: %w", path, err)
		}
		return nil
	}
	if opts.Compat {
		if err := cancelled(); err != nil {
			return EditResult{}, err
		}
		return EditResult{}, editCompat(path, modifiers, defDir)
	}
	// The original's order of evaluation (so that a bad edit fails with the same error), all
	// in memory: the file is written only once every modifier has applied.
	mods, err := SplitModifiers(modifiers)
	if err != nil {
		return EditResult{}, fmt.Errorf("modifier string %q: %w", modifiers, err)
	}
	f, err := openForEdit(path)
	if err != nil {
		return EditResult{}, err
	}
	if err := cancelled(); err != nil {
		return EditResult{}, err
	}
	var options []any
	if NeedsDefinitions(mods) {
		if options, err = LoadInstructionOptions(defDir, f.DefinitionID()); err != nil {
			return EditResult{}, err
		}
	}
	tl, _ := f.Root.(*Dict).Get("trajectories")
	trajs := tl.(*List)
	keys := literalKeys{}
	for k := range mods {
		if err := cancelled(); err != nil {
			return EditResult{}, err
		}
		err := mods[k].check(trajs)
		if err == nil {
			err = applyOne(trajs, mods[k], options, NeedsDefinitions(mods), keys)
		}
		if err != nil {
			return EditResult{}, fmt.Errorf("modifier %d %q: %w", k, mods[k].Raw, err)
		}
	}
	data, err := Encode(f.Root)
	if err != nil {
		return EditResult{}, fmt.Errorf("%s: %w", path, err)
	}
	if err := cancelled(); err != nil {
		return EditResult{}, err
	}
	discarded, err := ReplaceWithBackup(path, data)
	return EditResult{Discarded: discarded}, err
}

func openForEdit(path string) (*File, error) {
	p, err := ReadFirst(path)
	if err != nil {
		return nil, pyOSError(err)
	}
	d, ok := p.Value.(*Dict)
	if !ok || !d.Has("trajectories") {
		return nil, fmt.Errorf("%s: not a resaved annotation file (no \"trajectories\")", path)
	}
	tv, _ := d.Get("trajectories")
	if _, ok := tv.(*List); !ok {
		return nil, fmt.Errorf("%s: \"trajectories\" is %s, not list", path, TypeName(tv))
	}
	f := &File{Path: path, Kind: KindResaved, Root: d, Protocol: p.Protocol, Pickles: []Pickle{p}}
	if m, ok := d.Get("meta"); ok {
		f.Meta, _ = m.(*Dict)
	}
	return f, nil
}

// LoadInstructionOptions reads the instruction options of task definition tid from
// defDir/<tid>.textproto: what `instructionize` picks from.
func LoadInstructionOptions(defDir, tid string) ([]any, error) {
	td, err := ReadTaskDef(joinPy(defDir, tid+".textproto")) // os.path.join: the path as given
	if err != nil {
		return nil, pyOSError(err)
	}
	return td.InstructionOptions()
}

// check validates a modifier the way the original's apply_modifier fails, in its order:
// remove is `del trajectories[int(i)]`; any other name is looked up (KeyError), then the call's
// arguments are evaluated (int(i), trajectories[i], when trajs is given), then the call checks
// its argument count, then the function converts its parameters.
func (m *Modifier) check(trajs *List) error {
	var err error
	if m.Name == "remove" {
		if m.Traj, err = PyInt(m.Index); err != nil {
			return err
		}
		if trajs != nil {
			if _, err := pyIndex(m.Traj, len(trajs.Items)); err != nil {
				return assignmentIndexError()
			}
		}
		return nil
	}
	if _, ok := modifierSignature[m.Name]; !ok {
		return &PyError{"KeyError", pyQuote(m.Name)}
	}
	if m.Traj, err = PyInt(m.Index); err != nil {
		return err
	}
	if trajs != nil {
		if _, err := pyIndex(m.Traj, len(trajs.Items)); err != nil {
			return err
		}
	}
	if err := arityError(m.Name, len(m.Params)); err != nil {
		return err
	}
	return m.parseParams()
}

// OriginalDefDir is the original edit tool's default DEFDIR (relative to where it runs).
const OriginalDefDir = "../../android_env/apps/wikihow/templates.miniout"

// editCompat follows the original order of operations (spec §B.3).
func editCompat(path, modifiers, defDir string) error {
	if defDir == "" {
		defDir = OriginalDefDir
	}
	mods, err := SplitModifiers(modifiers)
	if err != nil {
		return err
	}
	f, err := openForEdit(path)
	if err != nil {
		return err
	}
	if err := os.Rename(path, path+".old"); err != nil {
		return err
	}
	var options []any
	if NeedsDefinitions(mods) {
		if options, err = LoadInstructionOptions(defDir, f.DefinitionID()); err != nil {
			return err
		}
	}
	tl, _ := f.Root.(*Dict).Get("trajectories")
	trajs := tl.(*List)
	keys := literalKeys{}
	for i := range mods {
		if err := mods[i].check(trajs); err != nil {
			return err
		}
		if err := applyOne(trajs, mods[i], options, NeedsDefinitions(mods), keys); err != nil {
			return err
		}
	}
	data, err := Encode(f.Root)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o644)
}

// PendingEdit is an edit expressed in the coordinates of the unedited file (what an editor
// shows), for ModifiersFor. Traj and the record indices refer to the original file.
type PendingEdit struct {
	Op     string // "delete", "instructionize", "rewardize", "remove", "auto_instructionize"
	Traj   int
	Start  int     // delete: first original record; instructionize/rewardize: the record
	End    int     // delete: one past the last original record
	Option int     // instructionize: option index, -1 removes the instruction
	Delta  float64 // rewardize
}

// ModifiersFor converts pending edits, given in original-file coordinates and applied in the
// given order, into the equivalent modifier string of the original language, re-basing every
// index after the earlier edits exactly like the original applies them. trajLens gives the
// record count of each trajectory of the unedited file. An edit touching a record or
// trajectory removed by an earlier edit is an error.
func ModifiersFor(pending []PendingEdit, trajLens []int) (string, error) {
	// alive[t] = original trajectory t still present; recs[t] = original record indices alive
	alive := make([]bool, len(trajLens))
	recs := make([][]int, len(trajLens))
	for t, n := range trajLens {
		alive[t] = true
		for j := 0; j < n; j++ {
			recs[t] = append(recs[t], j)
		}
	}
	curTraj := func(t int) (int, error) {
		if t < 0 || t >= len(alive) || !alive[t] {
			return 0, fmt.Errorf("trajectory %d does not exist (any more)", t)
		}
		c := 0
		for i := 0; i < t; i++ {
			if alive[i] {
				c++
			}
		}
		return c, nil
	}
	curRec := func(t, j int) (int, error) {
		i := sort.SearchInts(recs[t], j)
		if i >= len(recs[t]) || recs[t][i] != j {
			return 0, fmt.Errorf("record %d of trajectory %d does not exist (any more)", j, t)
		}
		return i, nil
	}
	var mods []Modifier
	for _, p := range pending {
		ct, err := curTraj(p.Traj)
		if err != nil {
			return "", err
		}
		m := Modifier{Traj: ct, Name: p.Op}
		switch p.Op {
		case "remove":
			alive[p.Traj] = false
		case "auto_instructionize":
		case "delete":
			if p.End <= p.Start {
				continue
			}
			lo := sort.SearchInts(recs[p.Traj], p.Start)
			hi := sort.SearchInts(recs[p.Traj], p.End)
			if lo == hi {
				continue
			}
			m.A, m.B = lo, hi
			recs[p.Traj] = append(recs[p.Traj][:lo:lo], recs[p.Traj][hi:]...)
		case "instructionize", "rewardize":
			cr, err := curRec(p.Traj, p.Start)
			if err != nil {
				return "", err
			}
			m.A = cr
			m.B = p.Option
			m.Delta = p.Delta
		default:
			return "", fmt.Errorf("unknown edit %q", p.Op)
		}
		mods = append(mods, m)
	}
	return FormatModifiers(mods), nil
}
