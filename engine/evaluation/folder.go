package evaluation

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// The original's own folder, imported whole: its repository holds a project folder with
// hydra_configs/conf (one configuration per study) and task_config (the files of every study:
// data and units files, training and gold files, the shared type file), beside its code, its
// analysis scripts and the tools' own files. An import reads one configuration; the report
// accounts for every other file: named by which other configuration, or ignored and why.

var errNoProjectFolder = errors.New("no project folder")

// isProjectFolder: a folder holding hydra_configs/conf or task_config/annotation_buckets.json.
func isProjectFolder(dir string) bool {
	if st, err := os.Stat(filepath.Join(dir, "hydra_configs", "conf")); err == nil && st.IsDir() {
		return true
	}
	return fileExists(filepath.Join(dir, "task_config", "annotation_buckets.json"))
}

// toolFolder says whether a folder holds a tool's own files (version control, caches,
// packages), which an import neither searches nor lists file by file, and what it is.
func toolFolder(name string) (string, bool) {
	switch {
	case name == ".git":
		return "version control (git's own files): not read", true
	case strings.HasPrefix(name, "."):
		return "a hidden folder (settings of an editor or tool): not read", true
	case name == "__pycache__":
		return "Python bytecode cache: not read", true
	case name == "node_modules":
		return "JavaScript packages of the original's web front end: not read", true
	}
	return "", false
}

// FindOriginalProject returns the project folder of the original in dir: dir itself when it
// holds hydra_configs/conf or task_config/annotation_buckets.json, else the one such folder
// under it (up to three levels down, as in the original's repository, where it is
// collection_and_annotations/). Several project folders are an error naming them.
func FindOriginalProject(dir string) (string, error) {
	if isProjectFolder(dir) {
		return dir, nil
	}
	var found []string
	var search func(d string, depth int)
	search = func(d string, depth int) {
		entries, err := os.ReadDir(d)
		if err != nil {
			return
		}
		for _, e := range entries {
			if _, tool := toolFolder(e.Name()); !e.IsDir() || tool {
				continue
			}
			sub := filepath.Join(d, e.Name())
			if isProjectFolder(sub) {
				found = append(found, sub)
				continue
			}
			if depth < 2 {
				search(sub, depth+1)
			}
		}
	}
	search(dir, 0)
	switch len(found) {
	case 0:
		return "", fmt.Errorf("%w in %s (a folder holding hydra_configs/conf or task_config/annotation_buckets.json)", errNoProjectFolder, dir)
	case 1:
		return found[0], nil
	}
	rels := make([]string, len(found))
	for i, f := range found {
		r, _ := filepath.Rel(dir, f)
		rels[i] = filepath.ToSlash(r)
	}
	return "", fmt.Errorf("%s holds %d project folders (%s): import one of them", dir, len(found), strings.Join(rels, ", "))
}

// configFile is the file of a configuration name in a project folder.
func configFile(root, name string) string {
	for _, ext := range []string{".yaml", ".yml"} {
		if p := filepath.Join(root, "hydra_configs", "conf", name+ext); fileExists(p) {
			return p
		}
	}
	return filepath.Join(root, "hydra_configs", "conf", name+".yaml")
}

// ConfigSummary says what one configuration of a project folder is, for choosing one.
type ConfigSummary struct {
	Name     string
	TaskName string
	Title    string
	// Collection: a dialogue-collection study (else static annotation).
	Collection bool
	// Data is the data file it names (relative to the folder imported), "" when none exists.
	Data string
	// Err says why the configuration could not be read, "" when it could.
	Err string
}

// String writes the summary in one line.
func (s ConfigSummary) String() string {
	if s.Err != "" {
		return "cannot be read: " + s.Err
	}
	what := "static annotation"
	if s.Collection {
		what = "dialogue collection"
	} else if s.Data != "" {
		what += " of " + s.Data
	}
	if s.Title != "" {
		return fmt.Sprintf("%s: %q", what, s.Title)
	}
	return what
}

// DescribeOriginalConfigs says what each configuration of a project folder (or of the
// repository holding it) is, in the order of OriginalConfigs.
func DescribeOriginalConfigs(dir string) ([]ConfigSummary, error) {
	base, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	root, err := FindOriginalProject(base)
	if errors.Is(err, errNoProjectFolder) {
		root, err = base, nil
	}
	if err != nil {
		return nil, err
	}
	names, err := OriginalConfigs(root)
	if err != nil {
		return nil, err
	}
	im := &importer{root: root, base: base, rep: &ImportReport{}, used: map[string]string{}}
	out := make([]ConfigSummary, 0, len(names))
	for _, n := range names {
		out = append(out, im.study(n, configFile(root, n)).ConfigSummary)
	}
	return out, nil
}

// studyFiles is one configuration of the folder: its summary and the files it names.
type studyFiles struct {
	ConfigSummary
	// files maps a file (relative) to the keys naming it ("the configuration" for its own
	// files).
	files map[string][]string
}

const ownConfig = "the configuration"

// study reads another configuration of the project folder, as far as saying which files it
// names: its own (with what its defaults list composes), every value that is the path of a
// file, and its units file. It never fails: a configuration that cannot be read says why.
func (im *importer) study(name, path string) studyFiles {
	st := studyFiles{ConfigSummary: ConfigSummary{Name: name}, files: map[string][]string{}}
	add := func(rel, key string) {
		for _, k := range st.files[rel] {
			if k == key {
				return
			}
		}
		st.files[rel] = append(st.files[rel], key)
	}
	add(im.rel(path), ownConfig)
	sub := &importer{root: im.root, base: im.base, rep: &ImportReport{}, used: map[string]string{}}
	root, origin, err := sub.composeConfig(path, nil)
	if err != nil {
		st.Err = err.Error()
		return st
	}
	for f := range sub.used {
		add(f, ownConfig)
	}
	conf, err := newYAMLConf(root, origin, im.rel(path), im.root, sub.rep)
	if err != nil {
		st.Err = err.Error()
		return st
	}
	for rel, keys := range im.fileRefs(conf) {
		for _, k := range keys {
			add(rel, k)
		}
	}
	conf.decode("task", "task_name", &st.TaskName)
	conf.decode("task", "task_title", &st.Title)
	conf.decode("blueprint", "do_collect_dialogue", &st.Collection)
	var data string
	if ok, _ := conf.decode("blueprint", "data_jsonl", &data); ok {
		if p := im.findFile(data); p != "" {
			st.Data = im.rel(p)
			for _, c := range unitsCandidates(im.root, st.TaskName, p) {
				if fileExists(c) {
					add(im.rel(c), "units file")
					break
				}
			}
		}
	}
	return st
}

// findFile is the file a configuration value names, inside the folder imported: a path
// relative to the project folder or absolute, or one from another machine found by its
// task_config/… tail; "" when the value names no such file.
func (im *importer) findFile(v string) string {
	v = strings.TrimSpace(v)
	if v == "" || len(v) > 4096 || strings.ContainsAny(v, "\n\x00") {
		return ""
	}
	p := v
	if !filepath.IsAbs(p) {
		p = filepath.Join(im.root, filepath.FromSlash(p))
	}
	inside := func(p string) bool {
		r, err := filepath.Rel(im.base, p)
		return err == nil && r != "." && !strings.HasPrefix(r, "..")
	}
	if fileExists(p) && inside(p) {
		return p
	}
	slash := filepath.ToSlash(p)
	if i := strings.LastIndex(slash, "task_config/"); i >= 0 {
		if alt := filepath.Join(im.root, filepath.FromSlash(slash[i:])); fileExists(alt) && inside(alt) {
			return alt
		}
	}
	return ""
}

// fileRefs finds the files of the folder that a configuration's values name: every string
// value that, with its ${…} resolved, is the path of a file. It maps each (relative) to the
// keys naming it.
func (im *importer) fileRefs(c *yamlConf) map[string][]string {
	out := map[string][]string{}
	var walk func(n *yaml.Node, key string)
	walk = func(n *yaml.Node, key string) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				if key != "" {
					k = key + "." + k
				}
				walk(n.Content[i+1], k)
			}
		case yaml.SequenceNode:
			for i, it := range n.Content {
				walk(it, fmt.Sprintf("%s[%d]", key, i))
			}
		case yaml.ScalarNode:
			if n.Tag != "!!str" {
				return
			}
			v := n.Value
			if strings.Contains(v, "${") {
				r, err := c.interpolate(v, 0)
				if err != nil {
					return
				}
				v = r
			}
			if p := im.findFile(v); p != "" {
				rel := im.rel(p)
				out[rel] = append(out[rel], key)
			}
		}
	}
	if c.root != nil {
		walk(c.root, "")
	}
	return out
}

// shortKey is a key's last part, without list indices (mephisto.blueprint.data_jsonl →
// data_jsonl).
func shortKey(key string) string {
	if i := strings.IndexByte(key, '['); i >= 0 {
		key = key[:i]
	}
	return key[strings.LastIndexByte(key, '.')+1:]
}

// unusedKeyReason says why a key of the imported configuration that names a file is not read.
func unusedKeyReason(key string) string {
	k := shortKey(key)
	if why, ok := blueprintIgnored[k]; ok {
		return why
	}
	if why, ok := taskIgnored[k]; ok {
		return why
	}
	return "the import does not use this key"
}

// accountFiles lists every file of the folder imported in the report: read (into what), named
// by other configurations of the project folder (which, by which keys), or ignored (why).
func (im *importer) accountFiles() {
	// the files the other configurations name
	others := map[string]map[string][]string{} // file → configuration → keys
	broken := map[string]string{}              // configuration → why it cannot be read
	if names, err := OriginalConfigs(im.root); err == nil {
		for _, n := range names {
			path := configFile(im.root, n)
			if im.confPath != "" && sameFile(path, im.confPath) {
				continue
			}
			st := im.study(n, path)
			if st.Err != "" {
				broken[n] = st.Err
				im.rep.add(Warning, im.rel(path), "", "another configuration, which cannot be read (%s): the files only it names are listed as ignored", st.Err)
			}
			for rel, keys := range st.files {
				if others[rel] == nil {
					others[rel] = map[string][]string{}
				}
				others[rel][n] = append(others[rel][n], keys...)
			}
		}
	}
	var mine map[string][]string
	if im.conf != nil {
		mine = im.fileRefs(im.conf)
	}
	project := ""
	if im.root != im.base {
		project = im.rel(im.root)
	}
	filepath.WalkDir(im.base, func(path string, d fs.DirEntry, err error) error {
		rel := im.rel(path)
		if err != nil {
			if path != im.base {
				im.rep.Files = append(im.rep.Files, FileEntry{Path: rel + "/", Status: FileIgnored, Note: "cannot be read: " + err.Error()})
			}
			return nil
		}
		if d.IsDir() {
			if path == im.base {
				return nil
			}
			if why, ok := toolFolder(d.Name()); ok {
				n := 0
				filepath.WalkDir(path, func(_ string, e fs.DirEntry, err error) error {
					if err == nil && !e.IsDir() {
						n++
					}
					return nil
				})
				if n > 0 {
					im.rep.Files = append(im.rep.Files, FileEntry{Path: rel + "/", Status: FileIgnored, Files: n, Note: why})
				}
				return filepath.SkipDir
			}
			return nil
		}
		e := FileEntry{Path: rel, Files: 1}
		byConfig := others[rel]
		configs := make([]string, 0, len(byConfig))
		for c := range byConfig {
			configs = append(configs, c)
		}
		sort.Strings(configs)
		switch into, read := im.used[rel]; {
		case read:
			e.Status, e.Note = FileRead, into
			switch {
			case len(configs) > 4:
				e.Note += fmt.Sprintf("; also named by %d other configurations", len(configs))
			case len(configs) > 0:
				e.Note += "; also named by " + strings.Join(configs, ", ")
			}
		case len(mine[rel]) > 0:
			e.Status = FileIgnored
			e.Note = fmt.Sprintf("named by %s of this configuration, which the import does not read: %s", mine[rel][0], unusedKeyReason(mine[rel][0]))
		case len(configs) > 0:
			e.Status, e.Configs = FileOtherConfig, configs
			var parts []string
			for _, c := range configs {
				var keys []string
				own := false
				for _, k := range byConfig[c] {
					if k == ownConfig {
						own = true
					} else if s := shortKey(k); !contains(keys, s) {
						keys = append(keys, s)
					}
				}
				if own {
					if why := broken[c]; why != "" {
						parts = append(parts, "the configuration "+c+" (it cannot be read: "+why+")")
					} else {
						parts = append(parts, "the configuration "+c)
					}
				}
				if len(keys) > 0 {
					parts = append(parts, strings.Join(keys, ", ")+" of "+c)
				}
			}
			e.Note = strings.Join(parts, "; ")
		default:
			e.Status, e.Note = FileIgnored, ignoredFileReason(rel, project)
		}
		im.rep.Files = append(im.rep.Files, e)
		return nil
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(sa, sb)
}

// ignoredFileReason says what a file no configuration names is, and why the import does not
// read it. project is the project folder inside the folder imported ("" when the same).
func ignoredFileReason(rel, project string) string {
	lower := strings.ToLower(rel)
	base := filepath.Base(lower)
	ext := filepath.Ext(lower)
	inDir := func(names ...string) bool {
		for _, n := range names {
			if strings.HasPrefix(lower, n+"/") || strings.Contains(lower, "/"+n+"/") {
				return true
			}
		}
		return false
	}
	outside := project != "" && !strings.HasPrefix(rel, project+"/")
	inTaskConfig := inDir("task_config")
	switch {
	case base == ".ds_store":
		return "macOS Finder's folder settings: not read"
	case base == ".gitignore" || base == ".gitattributes" || base == ".gitmodules":
		return "git's settings for the repository: not read"
	case strings.HasPrefix(base, "."):
		return "a hidden file (settings of an editor or tool): not read"
	case ext == ".pyc":
		return "Python bytecode: not read"
	case (ext == ".xlsx" || ext == ".xls" || ext == ".csv" || ext == ".tsv") && inTaskConfig:
		return "a spreadsheet beside the study files: not read (the import reads their JSON and JSON-lines files)"
	case ext == ".csv" || ext == ".tsv" || ext == ".xlsx" || ext == ".xls" || ext == ".parquet" || ext == ".pkl" ||
		inDir("analysis", "results", "stats", "outputs") && (ext == ".json" || ext == ".txt"):
		return "an analysis table or result file: not part of the project (answers come in with `eval import-results`)"
	case ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".gif" || ext == ".svg" || ext == ".mp3" || ext == ".wav":
		return "an image or sound: not used by the project"
	case ext == ".py" || ext == ".js" || ext == ".jsx" || ext == ".ts" || ext == ".tsx" || ext == ".sh" ||
		ext == ".html" || ext == ".css" || ext == ".ipynb" || base == "package.json" || base == "package-lock.json" ||
		inDir("node_modules", "frontend", "webapp", "server"):
		return "the original's code: the app has its own"
	case ext == ".md" || ext == ".rst" || ext == ".pdf" || strings.HasPrefix(base, "license") || strings.HasPrefix(base, "readme"):
		return "documentation"
	case outside:
		return "outside the project folder (" + project + ") and named by no configuration"
	case ext == ".txt":
		return "a text file named by no configuration: documentation or notes"
	}
	return "named by no configuration of the project folder"
}
