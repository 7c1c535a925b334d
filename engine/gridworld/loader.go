package gridworld

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// IGLU multi-turn dataset loader (spec §9.1): dialogs.csv plus
// builder-data/<PartitionKey>/step-<StepId> JSON files.

// VoxelIDMap maps the data-collection world's voxel ids to gridworld colours (multi-turn data).
var VoxelIDMap = map[int]int{0: 0, 57: 1, 59: 2, 60: 3, 47: 4, 56: 5, 50: 6}

// LoadOptions tune the loader.
type LoadOptions struct {
	// Compat keeps blocks outside the build zone and builds grids with the original's
	// wrap-around (spec §2.5); by default such blocks are an error naming the step file.
	Compat bool
}

// LoadIGLUDatasetDir loads a dataset from a folder holding dialogs.csv and builder-data/.
func LoadIGLUDatasetDir(dir string, opts LoadOptions) (*Dataset, error) {
	return LoadIGLUDataset(os.DirFS(dir), opts)
}

// LoadIGLUDataset parses the multi-turn IGLU dataset from fsys (spec §9.1). Bad input returns
// an error naming the file and line, e.g. "dialogs.csv:12: StepId "x": not an integer".
func LoadIGLUDataset(fsys fs.FS, opts LoadOptions) (*Dataset, error) {
	f, err := fsys.Open("dialogs.csv")
	if err != nil {
		return nil, fmt.Errorf("dialogs.csv: %w", err)
	}
	defer f.Close()
	rows, err := readDialogs(f)
	if err != nil {
		return nil, err
	}
	// group by PartitionKey (sorted, like pandas groupby)
	groups := map[string][]dialogRow{}
	for _, r := range rows {
		groups[r.key] = append(groups[r.key], r)
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ds := &Dataset{Sessions: map[string][]*Session{}}
	for _, key := range keys {
		dir := path.Join("builder-data", key)
		if !fs.ValidPath(dir) {
			return nil, fmt.Errorf("dialogs.csv:%d: PartitionKey %q is not a valid folder name", groups[key][0].line, key)
		}
		if st, err := fs.Stat(fsys, dir); err != nil || !st.IsDir() {
			continue // sessions without builder data are skipped
		}
		s, err := parseSession(fsys, key, groups[key], opts)
		if err != nil {
			return nil, err
		}
		if s != nil {
			ds.Sessions[s.StructureID] = append(ds.Sessions[s.StructureID], s)
		}
	}
	return ds, nil
}

type dialogRow struct {
	line                             int
	key, structure                   string
	step                             int
	qualified                        bool
	instruction, answer, question    string
	hasInstr, hasAnswer, hasQuestion bool
}

// pandas' default missing-value strings: such cells are not strings in the original.
var naStrings = map[string]bool{"": true, "#N/A": true, "#N/A N/A": true, "#NA": true, "-1.#IND": true,
	"-1.#QNAN": true, "-NaN": true, "-nan": true, "1.#IND": true, "1.#QNAN": true, "<NA>": true,
	"N/A": true, "NA": true, "NULL": true, "NaN": true, "None": true, "n/a": true, "nan": true, "null": true}

func readDialogs(r io.Reader) ([]dialogRow, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	header, err := cr.Read()
	if err != nil {
		if err == io.EOF {
			return nil, errors.New("dialogs.csv:1: empty file, want a header row")
		}
		return nil, fmt.Errorf("dialogs.csv: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.TrimPrefix(strings.TrimSpace(h), "\ufeff")
		if _, dup := col[h]; !dup {
			col[h] = i
		}
	}
	need := []string{"PartitionKey", "structureId", "StepId", "IsHITQualified", "instruction", "Answer4ClarifyingQuestion", "ClarifyingQuestion"}
	for _, n := range need {
		if _, ok := col[n]; !ok {
			return nil, fmt.Errorf("dialogs.csv:1: missing column %q", n)
		}
	}
	var rows []dialogRow
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("dialogs.csv:%d: %v", pe.Line, pe.Err)
			}
			return nil, fmt.Errorf("dialogs.csv:%d: %w", line, err)
		}
		get := func(name string) string {
			if i := col[name]; i < len(rec) {
				return rec[i]
			}
			return ""
		}
		r := dialogRow{line: line, key: get("PartitionKey"), structure: get("structureId")}
		if naStrings[r.key] {
			return nil, fmt.Errorf("dialogs.csv:%d: empty PartitionKey", line)
		}
		sid := strings.TrimSpace(get("StepId"))
		f, err := strconv.ParseFloat(sid, 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1e9 {
			return nil, fmt.Errorf("dialogs.csv:%d: StepId %q: not an integer", line, sid)
		}
		r.step = int(f)
		switch strings.ToLower(strings.TrimSpace(get("IsHITQualified"))) {
		case "false", "0", "0.0":
			r.qualified = false
		default: // True, 1, and missing values (NaN is truthy in the original)
			r.qualified = true
		}
		r.instruction, r.hasInstr = cell(get("instruction"))
		r.answer, r.hasAnswer = cell(get("Answer4ClarifyingQuestion"))
		r.question, r.hasQuestion = cell(get("ClarifyingQuestion"))
		rows = append(rows, r)
	}
	return rows, nil
}

func cell(s string) (string, bool) {
	if naStrings[s] {
		return "", false
	}
	return s, true
}

var dollarRuns = regexp.MustCompile(`\$+`)

func cleanUtterance(s string) string { return dollarRuns.ReplaceAllString(s, "\n") }

func parseSession(fsys fs.FS, key string, rows []dialogRow, opts LoadOptions) (*Session, error) {
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].step < rows[j].step })
	structure := rows[0].structure
	for _, r := range rows {
		if r.structure != structure {
			return nil, fmt.Errorf("dialogs.csv:%d: session %s has rows of structures %q and %q", r.line, key, structure, r.structure)
		}
	}
	var turns [][]string
	var structs [][]Block
	for _, r := range rows {
		if !r.qualified {
			continue
		}
		if r.step%2 != 0 { // architect
			if r.hasInstr {
				turns = append(turns, []string{"<Architect> " + cleanUtterance(r.instruction)})
			} else if r.hasAnswer {
				if len(turns) == 0 {
					return nil, fmt.Errorf("dialogs.csv:%d: session %s: answer before any instruction", r.line, key)
				}
				turns[len(turns)-1] = append(turns[len(turns)-1], "<Architect> "+cleanUtterance(r.answer))
			}
			continue
		}
		if r.hasQuestion {
			if len(turns) == 0 {
				return nil, fmt.Errorf("dialogs.csv:%d: session %s: clarifying question before any instruction", r.line, key)
			}
			turns[len(turns)-1] = append(turns[len(turns)-1], "<Builder> "+cleanUtterance(r.question))
			continue
		}
		name := path.Join("builder-data", key, "step-"+strconv.Itoa(r.step))
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				structs = append(structs, nil)
				break // the rest of the session is not read
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		blocks, err := parseStepBlocks(name, data, opts)
		if err != nil {
			return nil, err
		}
		structs = append(structs, blocks)
	}
	if len(turns) > len(structs) {
		turns = turns[:len(structs)]
	}
	for len(turns) < len(structs) {
		turns = append(turns, nil)
	}
	// drop empty trailing structures, merge empty middle ones into the next turn
	for len(structs) > 0 && len(structs[len(structs)-1]) == 0 {
		structs, turns = structs[:len(structs)-1], turns[:len(turns)-1]
	}
	for i := 0; i < len(structs); {
		if len(structs[i]) == 0 {
			turns[i+1] = append(append([]string{}, turns[i]...), turns[i+1]...)
			structs = append(structs[:i], structs[i+1:]...)
			turns = append(turns[:i], turns[i+1:]...)
			continue
		}
		i++
	}
	if len(structs) == 0 {
		return nil, nil
	}
	return &Session{SessionID: key, StructureID: structure, Turns: turns, Structures: structs, Invariant: true, Compat: opts.Compat}, nil
}

// parseStepBlocks reads worldEndingState.blocks of one builder step file and converts them
// (y - 64, voxel id map). Air blocks (id 0) are dropped.
func parseStepBlocks(name string, data []byte, opts LoadOptions) ([]Block, error) {
	var step struct {
		World *struct {
			Blocks []json.RawMessage `json:"blocks"`
		} `json:"worldEndingState"`
	}
	if err := json.Unmarshal(data, &step); err != nil {
		return nil, fmt.Errorf("%s:%s: %v", name, jsonPos(data, err), err)
	}
	if step.World == nil {
		return nil, fmt.Errorf("%s: missing worldEndingState", name)
	}
	out := make([]Block, 0, len(step.World.Blocks))
	for i, raw := range step.World.Blocks {
		var v []float64
		if err := json.Unmarshal(raw, &v); err != nil || len(v) != 4 {
			return nil, fmt.Errorf("%s:%s: worldEndingState.blocks[%d]: want [x, y, z, id]", name, jsonPos(data, nil, raw), i)
		}
		var iv [4]int
		for j, f := range v {
			if f != math.Trunc(f) || math.Abs(f) > 1e6 {
				return nil, fmt.Errorf("%s:%s: worldEndingState.blocks[%d][%d] = %v: not an integer", name, jsonPos(data, nil, raw), i, j, f)
			}
			iv[j] = int(f)
		}
		id, ok := VoxelIDMap[iv[3]]
		if !ok {
			return nil, fmt.Errorf("%s:%s: worldEndingState.blocks[%d]: unknown voxel id %d", name, jsonPos(data, nil, raw), i, iv[3])
		}
		if id == 0 {
			continue
		}
		b := Block{iv[0], iv[1] - 64, iv[2], id}
		if !opts.Compat && !InZone(b.X, b.Y, b.Z) {
			return nil, fmt.Errorf("%s:%s: worldEndingState.blocks[%d] [%d,%d,%d]: outside the build zone (y-64 in [-1,7], x,z in [-5,5])", name, jsonPos(data, nil, raw), i, iv[0], iv[1], iv[2])
		}
		if opts.Compat {
			if _, err := DenseFromSparseCompat([]Block{b}); err != nil {
				return nil, fmt.Errorf("%s:%s: worldEndingState.blocks[%d]: %v", name, jsonPos(data, nil, raw), i, err)
			}
		}
		out = append(out, b)
	}
	return out, nil
}

// jsonPos returns "line:col" of a JSON decoding error, or of a raw sub-slice of data.
func jsonPos(data []byte, err error, sub ...json.RawMessage) string {
	off := -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = int(se.Offset)
	case errors.As(err, &te):
		off = int(te.Offset)
	case len(sub) > 0 && len(sub[0]) > 0:
		// locate the element's text (first occurrence; only used for error messages)
		off = bytes.Index(data, sub[0])
	}
	if off < 0 {
		return "1"
	}
	off = min(off, len(data))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("%d:%d", line, col)
}
