package demonstrations

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/mobileenv"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Resave: the web annotation tool's numbered dumps regrouped by task definition into resaved
// files (`agentdesk pickle resave PATTERN:S:T DUMPDIR TASKFOLDER`), from a dialog whose
// defaults come from where the open file is: its own numbered siblings when it is a dump, a
// web-dumps folder beside it otherwise, its folder (or one beside the dumps) for the output,
// and the task definitions it reads its instructions from.

// resaveForm is the resave dialog's fields.
type resaveForm struct {
	pattern   *pathField
	from, to  *widget.Entry
	found     *widget.Label
	out, defs *pathField
	existing  *widget.RadioGroup
}

const (
	existingRefuse    = "Refuse: write nothing when one exists"
	existingMerge     = "Merge: add the new trajectories to it"
	existingOverwrite = "Overwrite it, as the original does"
)

// numberedPickle splits a dump's file name around its number: anno.12.pkl.
var numberedPickle = regexp.MustCompile(`^(.*?)([0-9]+)([^0-9]*\.pkl)$`)

// scanDumps finds numbered pickles in dir (anno.0.pkl, anno.2.pkl, …): the pattern naming them
// (with %d, or %03d for zero-padded numbers) and their lowest and highest numbers. want, when
// not "", is a file name the series must hold; otherwise the largest series is taken.
func scanDumps(dir, want string) (pattern string, lo, hi int, ok bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", 0, 0, false
	}
	type series struct {
		prefix, suffix string
		nums           []int
		widths         map[int]bool
		padded         bool
		wanted         bool
	}
	all := map[string]*series{}
	for _, e := range entries {
		name := e.Name()
		m := numberedPickle.FindStringSubmatch(name)
		if e.IsDir() || m == nil || strings.HasSuffix(name, ".tmp.pkl") {
			continue
		}
		n, err := strconv.Atoi(m[2])
		if err != nil {
			continue
		}
		key := m[1] + "\x00" + m[3]
		s := all[key]
		if s == nil {
			s = &series{prefix: m[1], suffix: m[3], widths: map[int]bool{}}
			all[key] = s
		}
		s.nums = append(s.nums, n)
		s.widths[len(m[2])] = true
		s.padded = s.padded || (len(m[2]) > 1 && m[2][0] == '0')
		s.wanted = s.wanted || name == want
	}
	var best *series
	for _, k := range slices.Sorted(maps.Keys(all)) {
		s := all[k]
		if want != "" && !s.wanted {
			continue
		}
		if best == nil || len(s.nums) > len(best.nums) {
			best = s
		}
	}
	if best == nil {
		return "", 0, 0, false
	}
	conv := "%d"
	if best.padded && len(best.widths) == 1 {
		for w := range best.widths {
			conv = fmt.Sprintf("%%0%dd", w)
		}
	}
	esc := func(s string) string { return strings.ReplaceAll(s, "%", "%%") }
	return esc(filepath.Join(dir, best.prefix)) + conv + esc(best.suffix), slices.Min(best.nums), slices.Max(best.nums), true
}

// resaveDefaults are the dialog's first values: the last resave's when no file is open or the
// open file points at the same dumps; else from the open file's location.
func (d *Workspace) resaveDefaults(p exportPrefs) (pattern string, from, to int, out, defs string) {
	pattern, from, to, out, defs = p.ResavePattern, p.ResaveFrom, p.ResaveTo, p.ResaveOut, p.ResaveDefs
	if d.orig == nil {
		return
	}
	pat, lo, hi, o, df := d.resaveNear()
	switch {
	case pat != "" && pat != p.ResavePattern:
		pattern, from, to, out, defs = pat, lo, hi, o, df
	case pat == "": // no dumps near: the last ones, and the folders near where none was chosen
		if out == "" {
			out = o
		}
		if defs == "" {
			defs = df
		}
	}
	return
}

// resaveNear is what the open file's location suggests: the dumps (its own series when it is
// one, else those in a web-dumps folder beside it or beside its folder), the output folder
// and the task definitions' folder.
func (d *Workspace) resaveNear() (pattern string, from, to int, out, defs string) {
	dir := filepath.Dir(d.path)
	dumps := ""
	if d.orig.Kind == mobileenv.KindRaw { // a dump itself: its series
		if pat, lo, hi, ok := scanDumps(dir, filepath.Base(d.path)); ok {
			pattern, from, to, dumps = pat, lo, hi, dir
		}
	} else {
		for _, cand := range []string{filepath.Join(dir, "web-dumps"), filepath.Join(filepath.Dir(dir), "web-dumps")} {
			if pat, lo, hi, ok := scanDumps(cand, ""); ok {
				pattern, from, to, dumps = pat, lo, hi, cand
				break
			}
		}
	}
	switch {
	case d.orig.Kind == mobileenv.KindResaved:
		out = dir // beside the resaved file open
	case dumps != "":
		root := filepath.Dir(dumps)
		out = root
		if isFolder(filepath.Join(root, "resaved")) {
			out = filepath.Join(root, "resaved")
		}
	}
	// the folder the open resaved file's own definition is read from; else a textprotos folder
	// beside the file or the dumps (the original tools' layout); else the one chosen for
	// instructions
	near := []string{filepath.Join(dir, "textprotos"), filepath.Join(filepath.Dir(dir), "textprotos")}
	if d.orig.Kind == mobileenv.KindResaved && d.optsDir != "" && len(d.options) > 0 {
		near = append([]string{d.optsDir}, near...)
	}
	if d.defDir != "" {
		near = append(near, d.defDir)
	}
	for _, cand := range near {
		if m, _ := filepath.Glob(filepath.Join(cand, "*.textproto")); len(m) > 0 {
			defs = cand
			break
		}
	}
	return
}

// resaveDialog asks for the dumps, the output folder and the task definitions, then resaves.
func (d *Workspace) resaveDialog() {
	w := d.host.Window()
	if w == nil {
		return
	}
	if d.exportTask != nil {
		d.setStatus("An export is running: wait for it, or cancel it.")
		return
	}
	prefs := loadExportPrefs()
	pattern, from, to, out, defs := d.resaveDefaults(prefs)
	base := ""
	if d.path != "" {
		base = filepath.Dir(d.path)
	}
	f := &resaveForm{found: widget.NewLabel("")}
	f.found.Wrapping = fyne.TextWrapWord
	f.from, f.to = widget.NewEntry(), widget.NewEntry()
	f.from.Validator = intValidator
	f.to.Validator = func(s string) error {
		if err := intValidator(s); err != nil {
			return err
		}
		if a, err := strconv.Atoi(strings.TrimSpace(f.from.Text)); err == nil && atoi(s) < a {
			return errors.New("not below the first number")
		}
		return nil
	}
	f.pattern = newPathField(pattern, func(s string) error {
		if strings.TrimSpace(s) == "" {
			return errors.New("the dump files' name is needed")
		}
		if _, err := mobileenv.PyFormatInt(s, 0); err != nil {
			return errors.New("put %d where the number goes (anno.%d.pkl)")
		}
		return nil
	}, func(cur string, set func(string)) {
		start := filepath.Dir(absolute(cur, base))
		chooseFolder(w, start, func(dir string) {
			pat, lo, hi, ok := scanDumps(dir, "")
			if !ok {
				set(filepath.Join(strings.ReplaceAll(dir, "%", "%%"), "anno.%d.pkl"))
				f.found.SetText("No numbered .pkl files in " + dir + ".")
				return
			}
			f.from.SetText(strconv.Itoa(lo))
			f.to.SetText(strconv.Itoa(hi))
			set(pat)
		})
	})
	f.from.SetText(strconv.Itoa(from))
	f.to.SetText(strconv.Itoa(to))
	f.pattern.entry.SetPlaceHolder(filepath.Join("web-dumps", "anno.%d.pkl"))
	count := func(string) {
		if f.pattern.Text() == "" {
			f.found.SetText("Choose the folder of the web tool's numbered dumps (anno.0.pkl, anno.1.pkl, …).")
			return
		}
		f.found.SetText(dumpsFound(absolute(f.pattern.Text(), base), f.from.Text, f.to.Text))
	}
	f.pattern.entry.OnChanged = count
	f.from.OnChanged = func(s string) { f.to.Validate(); count(s) }
	f.to.OnChanged = count
	count("")
	f.out = newPathField(out, func(s string) error {
		switch p := absolute(s, base); {
		case p == "":
			return errors.New("a folder is needed")
		case fileExists(p):
			return errors.New("this is a file: choose a folder")
		}
		return nil
	}, func(cur string, set func(string)) { chooseFolder(w, absolute(cur, base), set) })
	f.defs = newPathField(defs, func(s string) error {
		p := absolute(s, base)
		if p == "" {
			return errors.New("the task definitions' folder is needed")
		}
		if m, _ := filepath.Glob(filepath.Join(p, "*.textproto")); len(m) == 0 {
			return errors.New("no .textproto task definition in this folder")
		}
		return nil
	}, func(cur string, set func(string)) { chooseFolder(w, absolute(cur, base), set) })
	// Merge is offered again (repeating one changes nothing); overwriting is chosen each time
	existing := existingRefuse
	if prefs.ResaveMerge {
		existing = existingMerge
	}
	f.existing = radio([]string{existingRefuse, existingMerge, existingOverwrite}, existing)
	f.existing.Horizontal = false
	items := []*widget.FormItem{
		{Text: "Web dumps", Widget: f.pattern, HintText: "%d stands for the number; Choose… finds the dumps in a folder."},
		{Text: "From number", Widget: f.from},
		{Text: "To number", Widget: f.to},
		{Text: "Found", Widget: f.found},
		{Text: "Save in", Widget: f.out, HintText: "One <definition>.pkl per task definition (the folder is made when needed)."},
		{Text: "Task definitions", Widget: f.defs},
		{Text: "Existing files", Widget: f.existing},
	}
	d.resaveForm = f
	dlg := workspace.ShowForm(w, "Resave web dumps", "Resave", items, func() {
		spec := fmt.Sprintf("%s:%d:%d", absolute(f.pattern.Text(), base), atoi(f.from.Text), atoi(f.to.Text))
		opts := mobileenv.ResaveOptions{Merge: f.existing.Selected == existingMerge, Compat: f.existing.Selected == existingOverwrite}
		p := loadExportPrefs()
		p.ResavePattern, p.ResaveFrom, p.ResaveTo = absolute(f.pattern.Text(), base), atoi(f.from.Text), atoi(f.to.Text)
		p.ResaveOut, p.ResaveDefs = absolute(f.out.Text(), base), absolute(f.defs.Text(), base)
		p.ResaveMerge = opts.Merge
		saveExportPrefs(p)
		d.runResave(spec, p.ResaveOut, p.ResaveDefs, opts)
	})
	workspace.Resize(dlg, w, fyne.NewSize(720, dlg.MinSize().Height))
}

func intValidator(s string) error {
	if _, err := strconv.Atoi(strings.TrimSpace(s)); err != nil {
		return errors.New("a whole number")
	}
	return nil
}

func atoi(s string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(s))
	return n
}

// dumpsFound says which of the dump files pattern names from..to exist (looked up only for a
// range of a few thousand numbers: the dialog does it as the user types).
func dumpsFound(pattern, from, to string) string {
	a, errA := strconv.Atoi(strings.TrimSpace(from))
	b, errB := strconv.Atoi(strings.TrimSpace(to))
	if pattern == "" || errA != nil || errB != nil || b < a {
		return ""
	}
	if _, err := mobileenv.PyFormatInt(pattern, a); err != nil {
		return ""
	}
	if b-a >= 5000 {
		return fmt.Sprintf("%d numbers: the files are looked for when the resave runs.", b-a+1)
	}
	// One listing of the folder instead of a stat per number (this runs at each keystroke);
	// a pattern with the number in its folder part falls back to a stat.
	first, _ := mobileenv.PyFormatInt(pattern, a)
	dir := filepath.Dir(first)
	inDir := map[string]bool{}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			inDir[e.Name()] = !e.IsDir()
		}
	}
	var names []string
	for i := a; i <= b; i++ {
		name, _ := mobileenv.PyFormatInt(pattern, i)
		if filepath.Dir(name) == dir && inDir[filepath.Base(name)] || filepath.Dir(name) != dir && fileExists(name) {
			names = append(names, filepath.Base(name))
		}
	}
	n := len(names)
	switch {
	case n == 0:
		return fmt.Sprintf("None of the %d files exists.", b-a+1)
	case n > 4:
		names = append(names[:3], "…", names[n-1])
	}
	return fmt.Sprintf("%d of the %d files: %s", n, b-a+1, strings.Join(names, ", "))
}

// runResave resaves behind the progress dialog, then says what was written (or, cancelled or
// failed, what is on disk).
func (d *Workspace) runResave(spec, out, defs string, opts mobileenv.ResaveOptions) *workspace.Task {
	hook := d.onExportProgress
	finished := false
	rs, _ := mobileenv.ParseResaveSpec(spec)
	d.setStatus(fmt.Sprintf("Resaving %s…", filepath.Base(rs.Pattern)))
	type result struct {
		res     mobileenv.ResaveResult
		err     error
		done    int
		made    bool // out was made for this resave
		temps   []string
		numbers int
	}
	task := workspace.StartWithProgress(d.host, "Resave web dumps", func(ctx context.Context, report workspace.Progress) (result, error) {
		var r result
		r.numbers = max(rs.End-rs.Start+1, 0)
		if !isFolder(out) {
			if err := os.MkdirAll(out, 0o755); err != nil {
				r.err = err
				return r, nil
			}
			r.made = true
		}
		opts.Progress = func(done, total int) {
			r.done = done
			text := fmt.Sprintf("Reading the dumps: %d of %d numbers", done, total)
			if name, err := mobileenv.PyFormatInt(rs.Pattern, rs.Start+done); err == nil && done < total {
				text += " (" + filepath.Base(name) + ")"
			}
			report(float64(done)/float64(max(total, 1)), text)
			if hook != nil {
				hook(float64(done)/float64(max(total, 1)), text)
			}
		}
		r.res, r.err = mobileenv.Resave(ctx, spec, out, defs, opts)
		r.temps, _ = filepath.Glob(filepath.Join(out, "*.tmp.pkl"))
		if r.made && r.err != nil && len(r.res.Written) == 0 && len(r.temps) == 0 {
			os.Remove(out) // made for nothing
		}
		return r, nil
	}, func(r result, _ error) {
		finished = true
		d.exportTask = nil
		d.refreshButtons()
		o := outcome{title: "Resave web dumps", folder: out}
		written := slices.Sorted(maps.Keys(r.res.Written))
		var wrote []string
		for _, p := range written {
			wrote = append(wrote, fmt.Sprintf("%s (%s)", filepath.Base(p), widgets.Plural(r.res.Written[p], "trajectory")))
		}
		var notes []string
		if len(wrote) > 0 {
			for _, p := range r.res.Unchanged {
				notes = append(notes, filepath.Base(p)+" already held these trajectories: unchanged.")
			}
		}
		for _, p := range written {
			if n := r.res.Duplicates[p]; n > 0 {
				notes = append(notes, fmt.Sprintf("%s already in %s %s not added again.", widgets.Plural(n, "trajectory"), filepath.Base(p), pick(n == 1, "was", "were")))
			}
		}
		if n := len(r.res.Discarded); n > 0 {
			notes = append(notes, fmt.Sprintf("Removed %s an interrupted resave had left.", widgets.Plural(n, "temporary file")))
		}
		left := "Nothing was written."
		if len(wrote) > 0 {
			left = fmt.Sprintf("Written, each whole, in %s: %s.", out, strings.Join(wrote, ", "))
		}
		if len(r.temps) > 0 {
			left += fmt.Sprintf(" The temporary files %s are left in %s, as the original leaves them; the next resave discards them.",
				strings.Join(baseNames(r.temps), ", "), out)
		}
		switch {
		case errors.Is(r.err, context.Canceled):
			o.title += ": cancelled"
			o.msg = fmt.Sprintf("Cancelled after %d of %d numbers. %s", r.done, r.numbers, left)
		case errors.Is(r.err, mobileenv.ErrExists):
			o.title, o.failed = o.title+" failed", true
			msg, _, _ := strings.Cut(r.err.Error(), " (merge into it")
			o.msg = fmt.Sprintf("%s. Choose Merge or Overwrite under Existing files to write into it. %s", msg, left)
		case r.err != nil:
			o.title, o.failed = o.title+" failed", true
			o.msg = fmt.Sprintf("%v. %s", r.err, left)
		case len(r.res.Read) == 0:
			o.msg = fmt.Sprintf("No dump file was found from %d to %d (%s): nothing was written.", rs.Start, rs.End, rs.Pattern)
			o.folder = ""
		case len(wrote) == 0 && len(r.res.Unchanged) > 0:
			o.msg = fmt.Sprintf("Read %s: %s in %s already %s these trajectories, so nothing was changed.",
				widgets.Plural(len(r.res.Read), "dump file"), strings.Join(baseNames(r.res.Unchanged), " and "), out,
				pick(len(r.res.Unchanged) == 1, "holds", "hold"))
		case len(wrote) == 0:
			o.msg = fmt.Sprintf("Read %s: nothing to write.", widgets.Plural(len(r.res.Read), "dump file"))
		default:
			o.msg = fmt.Sprintf("Read %s and wrote %s in %s.", widgets.Plural(len(r.res.Read), "dump file"), strings.Join(wrote, ", "), out)
		}
		if len(notes) > 0 {
			o.msg += " " + strings.Join(notes, " ")
		}
		// the file on show rewritten (merged into, overwritten): shown again when it has no
		// edits; edits are kept, and Save then refuses the changed file (Save as… keeps them)
		if slices.Contains(written, d.path) {
			if !d.dirty {
				o.msg += fmt.Sprintf(" %s, which was open, is shown again.", filepath.Base(d.path))
				d.open(d.path)
			} else {
				o.msg += fmt.Sprintf(" %s, open with unsaved edits, changed on disk: Save will refuse it; use Save as… to keep the edits.", filepath.Base(d.path))
			}
		} else if len(written) == 1 {
			p := written[0]
			o.openLabel, o.open = "Open "+filepath.Base(p), func() { d.Open(p, -1) }
		}
		if !isFolder(out) {
			o.folder = ""
		}
		d.showOutcome(o)
	})
	if !finished {
		d.exportTask = task
		d.refreshButtons()
	}
	return task
}

func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return out
}
