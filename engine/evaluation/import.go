package evaluation

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/agentdesk/agentdesk/engine/limits"
)

// ImportOptions chooses what ImportOriginal reads.
type ImportOptions struct {
	// Config is the hydra configuration to use: a name in the project folder's
	// hydra_configs/conf ("flags" or "flags.yaml") or a path. Empty: the only configuration there, or none when the folder has
	// none (conventional paths are used then). With several configurations one must be chosen
	// (OriginalConfigs lists them).
	Config string
	// Personas is a file of persona sets for include_persona (ParsePersonas reads it): the
	// original drew them from ParlAI's blended_skill_talk data, which the app does not have.
	Personas string
	// Descriptions is the original's task_descriptions.jsx to read the participants'
	// instructions from; empty: it is looked for in the folder (FindTaskDescriptions).
	Descriptions string
	// Overrides are hydra command-line overrides applied to the composed configuration
	// before the settings are read: key=value (a key of the configuration, e.g.
	// mephisto.blueprint.num_turns=4; a bare blueprint or task parameter name is taken as
	// that), +key=value (add), ++key=value (add or change), ~key (delete), group=option (an
	// entry of the defaults list), and conf=NAME, which chooses the configuration as the
	// original's `python welcome.py conf=NAME` did.
	Overrides []string
}

// OriginalConfigs lists the configuration names (without .yaml) in a project folder's
// hydra_configs/conf, sorted. root may also be the repository holding the project folder
// (FindOriginalProject).
func OriginalConfigs(root string) ([]string, error) {
	if proj, err := FindOriginalProject(root); err == nil {
		root = proj
	} else if !errors.Is(err, errNoProjectFolder) {
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Join(root, "hydra_configs", "conf"))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && (strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".yml")) {
			out = append(out, strings.TrimSuffix(strings.TrimSuffix(e.Name(), ".yaml"), ".yml"))
		}
	}
	sort.Strings(out)
	return out, nil
}

// blueprint keys: understood, and ignored with the reason printed in the report.
var (
	blueprintUnderstood = map[string]bool{"annotations_config_path": true, "data_jsonl": true,
		"do_external_annotations": true, "do_collect_dialogue": true, "num_bots": true,
		"conversations_needed_string": true, "do_interactive_online_annotations": true,
		"do_interactive_offline_annotations": true, "num_turns": true, "max_resp_time": true,
		"annotation_duration_in_seconds": true, "random_seed": true, "model_opt_path": true,
		"include_persona": true, "conversation_start_mode": true, "use_screening_task": true,
		"screen_json": true, "passed_qualification_name": true, "block_qualification": true,
		"max_screening_units": true, "use_golds": true, "gold_jsonl": true, "gold_qualification_base": true,
		"min_golds": true, "max_incorrect_golds": true, "allowed_gold_mistakes": true}
	blueprintIgnored = map[string]string{
		"max_concurrent_responses":       "the app asks one bot at a time",
		"check_acceptability":            "acceptability checks of chat messages are not run by the app",
		"worker_blocklist_paths":         "crowd-platform block lists do not apply",
		"left_pane_text_path":            "HTML snippet of the web page; the app shows each type's description",
		"chat_startup_instructions_path": "HTML snippet of the web page",
		"final_rating_question":          "forwarded to the chat framework, unused",
		"context_seed":                   "forwarded to the chat framework, unused",
		"max_onboard_time":               "framework plumbing",
		"onboard_task_data_path":         "framework plumbing",
		"override_opt":                   "framework plumbing",
		"task_model_parallel":            "framework plumbing",
		"custom_source_dir":              "framework plumbing (web front end)",
		"world_file":                     "framework plumbing",
	}
	taskUnderstood = map[string]bool{"task_name": true, "task_title": true, "task_description": true,
		"allowed_concurrent": true, "maximum_units_per_worker": true}
	taskIgnored = map[string]string{
		"task_reward":                    "crowd-platform payment",
		"task_tags":                      "crowd-platform listing",
		"assignment_duration_in_seconds": "crowd-platform assignment timeout; the app times pages with annotation_duration_in_seconds",
		"max_num_concurrent_units":       "server load limit of the web framework",
	}
)

// yamlConf is the part of a hydra configuration the importer reads, with line numbers.
type yamlConf struct {
	file      string
	root      *yaml.Node
	taskDir   string
	blueprint map[string]*yaml.Node
	task      map[string]*yaml.Node
	// origin is the file of each node of a composed configuration ("command line" for an
	// override's value).
	origin map[*yaml.Node]string
}

// newYAMLConf reads the parts the importer needs from a composed configuration (root, with
// the file of each node in origin; rel is the primary configuration).
func newYAMLConf(root *yaml.Node, origin map[*yaml.Node]string, rel, taskDir string, rep *ImportReport) (*yamlConf, error) {
	c := &yamlConf{file: rel, blueprint: map[string]*yaml.Node{}, task: map[string]*yaml.Node{}, taskDir: taskDir, origin: origin}
	if root.Kind != yaml.MappingNode {
		return nil, &FileError{File: rel, Line: root.Line, Err: fmt.Errorf("a configuration is a mapping")}
	}
	c.root = root
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "mephisto":
			if v.Kind != yaml.MappingNode {
				return nil, &FileError{File: rel, Line: v.Line, Err: fmt.Errorf("mephisto must be a mapping")}
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				sk, sv := v.Content[j], v.Content[j+1]
				switch sk.Value {
				case "blueprint", "task":
					if sv.Kind != yaml.MappingNode {
						return nil, &FileError{File: rel, Line: sv.Line, Err: fmt.Errorf("mephisto.%s must be a mapping", sk.Value)}
					}
					dst := c.blueprint
					if sk.Value == "task" {
						dst = c.task
					}
					for m := 0; m+1 < len(sv.Content); m += 2 {
						dst[sv.Content[m].Value] = sv.Content[m+1]
					}
				case "architect":
					rep.add(Ignored, rel, "mephisto.architect", "%s", architectReason(sv))
				case "provider":
					rep.add(Ignored, rel, "mephisto.provider", "crowd provider (the app runs locally)")
				case "log_level":
					rep.add(Ignored, rel, "mephisto.log_level", "logging of the web framework")
				default:
					rep.add(Ignored, rel, "mephisto."+sk.Value, "unknown section")
				}
			}
		case "defaults":
			// composed already (hydra.go)
		default:
			rep.add(Ignored, rel, k.Value, "framework setting")
		}
	}
	return c, nil
}

func (c *yamlConf) where(section, key string) string {
	n := c.blueprint[key]
	if section == "task" {
		n = c.task[key]
	}
	switch from := c.origin[n]; {
	case from == commandLine:
		return fmt.Sprintf("mephisto.%s.%s (command line)", section, key)
	case from != "" && from != c.file:
		return fmt.Sprintf("mephisto.%s.%s (%s line %d)", section, key, from, n.Line)
	}
	return fmt.Sprintf("mephisto.%s.%s (line %d)", section, key, n.Line)
}

func (c *yamlConf) decode(section, key string, dst any) (bool, error) {
	n := c.blueprint[key]
	if section == "task" {
		n = c.task[key]
	}
	if n == nil {
		return false, nil
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return false, nil
	}
	if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "${") {
		v, err := c.interpolate(n.Value, 0)
		if err != nil {
			return false, &FileError{File: c.file, Line: n.Line, Column: n.Column, Err: fmt.Errorf("mephisto.%s.%s: %v", section, key, err)}
		}
		cp := *n
		cp.Value = v
		n = &cp
	}
	if err := n.Decode(dst); err != nil {
		return false, &FileError{File: c.file, Line: n.Line, Column: n.Column, Err: fmt.Errorf("mephisto.%s.%s: %v", section, key, err)}
	}
	return true, nil
}

var interpolation = regexp.MustCompile(`\$\{([^}]*)\}`)

// interpolate resolves hydra's ${…} references in a value: ${task_dir} is the imported folder,
// other references name keys of the same configuration (e.g. ${mephisto.task.task_name}).
func (c *yamlConf) interpolate(v string, depth int) (string, error) {
	if depth > 8 {
		return "", fmt.Errorf("interpolation too deep in %q", v)
	}
	var firstErr error
	out := interpolation.ReplaceAllStringFunc(v, func(m string) string {
		ref := interpolation.FindStringSubmatch(m)[1]
		if ref == "task_dir" {
			return c.taskDir
		}
		n := c.root
		for _, part := range strings.Split(ref, ".") {
			var next *yaml.Node
			if n != nil && n.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == part {
						next = n.Content[i+1]
					}
				}
			}
			n = next
		}
		if n == nil || n.Kind != yaml.ScalarNode {
			if firstErr == nil {
				firstErr = fmt.Errorf("cannot resolve ${%s}", ref)
			}
			return m
		}
		r, err := c.interpolate(n.Value, depth+1)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return r
	})
	return out, firstErr
}

// ImportOriginal reads a ChatEvaluationPlatform project folder as it is (spec §7, §12): the
// folder holding task_config/ (annotation_buckets.json with its "config" wrapper,
// task_data/*.jsonl bundles and *_units.json, onboarding_data/*.json, gold_data/*.jsonl,
// model_opts.yaml) and hydra_configs/conf/*.yaml. Paths in the configuration may use
// ${task_dir} (the folder itself); paths from another machine are found by their task_config/…
// tail. root may also be the repository holding the project folder (FindOriginalProject), the
// task_config folder or a configuration file.
//
// The report lists what was understood, what was ignored and why, and warnings on quirks of
// the original that the imported project keeps; its Files account for every file of root:
// read, named by the folder's other configurations, or ignored. Any bad input fails the whole import with an
// error naming the file and place; no partial project is returned.
func ImportOriginal(root string, opts ImportOptions) (*Project, *ImportReport, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, nil, err
	}
	ovs, err := ParseOverrides(opts.Overrides)
	if err != nil {
		return nil, nil, err
	}
	var overrides []Override
	conf := ""
	for _, o := range ovs {
		if o.Key == "conf" && o.Op == "" {
			conf = strings.TrimSpace(o.Value)
			continue
		}
		overrides = append(overrides, o)
	}
	if conf != "" {
		if opts.Config != "" && opts.Config != conf && opts.Config != conf+".yaml" {
			return nil, nil, fmt.Errorf("conf=%s and the configuration %q: choose one", conf, opts.Config)
		}
		opts.Config = conf
	}
	if st, err := os.Stat(root); err != nil {
		return nil, nil, err
	} else if !st.IsDir() {
		if opts.Config == "" {
			opts.Config = root
		}
		root = filepath.Dir(root)
		if filepath.Base(root) == "conf" && filepath.Base(filepath.Dir(root)) == "hydra_configs" {
			root = filepath.Dir(filepath.Dir(root))
		}
	}
	if filepath.Base(root) == "task_config" {
		if _, err := os.Stat(filepath.Join(root, "annotation_buckets.json")); err == nil {
			root = filepath.Dir(root)
		}
	}
	// the folder named may be the repository holding the project folder
	base := root
	if proj, err := FindOriginalProject(root); err == nil {
		root = proj
	} else if !errors.Is(err, errNoProjectFolder) {
		return nil, nil, err
	}
	im := &importer{root: root, base: base, rep: &ImportReport{Folder: base}, used: map[string]string{}, opts: opts, overrides: overrides}
	if root != base {
		im.rep.Project = im.rel(root)
	}
	if conf != "" {
		im.rep.add(Understood, commandLine, "conf="+conf, "configuration chosen, as by the original's welcome.py conf=%s", conf)
	}
	p, err := im.run(opts)
	if err != nil {
		return nil, nil, err
	}
	return p, im.rep, nil
}

type importer struct {
	opts      ImportOptions
	overrides []Override
	confPath  string
	// root is the project folder (${task_dir}: it holds hydra_configs/ and task_config/),
	// base the folder named, which holds root (the same, or the repository around it);
	// report paths are relative to base.
	root, base string
	rep        *ImportReport
	used       map[string]string // relative paths read → what they were read into
	conf       *yamlConf
}

func (im *importer) rel(path string) string {
	r, err := filepath.Rel(im.base, path)
	if err != nil || strings.HasPrefix(r, "..") {
		return path
	}
	return filepath.ToSlash(r)
}

// resolve maps a configuration path to a file inside the folder.
func (im *importer) resolve(key, value string) (string, error) {
	p := value
	if !filepath.IsAbs(p) {
		p = filepath.Join(im.root, p)
	}
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	slash := filepath.ToSlash(p)
	if i := strings.LastIndex(slash, "task_config/"); i >= 0 {
		alt := filepath.Join(im.root, filepath.FromSlash(slash[i:]))
		if _, err := os.Stat(alt); err == nil {
			im.rep.add(Warning, im.conf.file, key, "%q does not exist here; using %s", value, im.rel(alt))
			return alt, nil
		}
	}
	return "", &FileError{File: im.conf.file, Err: fmt.Errorf("%s: file %q not found", key, value)}
}

// read reads a file of the project, recording what it is read into (into, refined by
// readInto once the file is understood).
func (im *importer) read(path, into string) ([]byte, error) {
	data, err := limits.ReadFile(path, limits.ProjectFile)
	if err != nil {
		return nil, err
	}
	im.used[im.rel(path)] = into
	return data, nil
}

// readInto says what a file that was read went into.
func (im *importer) readInto(path, format string, args ...any) {
	im.used[im.rel(path)] = fmt.Sprintf(format, args...)
}

func (im *importer) run(opts ImportOptions) (*Project, error) {
	p := &Project{Settings: DefaultSettings(), Units: map[string]int{}, Bots: map[string]BotSpec{}}
	p.Name = filepath.Base(im.root)
	confPath, err := im.chooseConfig(opts.Config)
	if err != nil {
		return nil, err
	}
	paths := map[string]string{}
	im.confPath = confPath
	if confPath == "" && len(im.overrides) > 0 {
		return nil, fmt.Errorf("overrides (%s) need a hydra configuration, and the folder has none", im.overrides[0])
	}
	if confPath != "" {
		im.rep.Config = im.rel(confPath)
		root, origin, err := im.composeConfig(confPath, im.overrides)
		if err != nil {
			return nil, err
		}
		if im.conf, err = newYAMLConf(root, origin, im.rel(confPath), im.root, im.rep); err != nil {
			return nil, err
		}
		if err := im.settings(p, paths); err != nil {
			return nil, err
		}
	} else {
		im.conventionalPaths(paths)
	}
	if p.Settings.TaskName != "" {
		p.Name = p.Settings.TaskName
	}
	// annotation types
	typesPath := paths["annotations_config_path"]
	if typesPath == "" {
		typesPath = filepath.Join(im.root, "task_config", "annotation_buckets.json")
	}
	data, err := im.read(typesPath, "annotation types")
	if err != nil {
		return nil, fmt.Errorf("annotation types: %w", err)
	}
	if p.Types, err = parseTypeFile(data, im.rel(typesPath), im.rep); err != nil {
		return nil, err
	}
	im.readInto(typesPath, "annotation types (%d): the questions and their flows", len(p.Types))
	var summary []string
	for _, t := range p.Types {
		req := "no require"
		if t.Require != nil {
			req = "require " + t.Require.Level
		}
		summary = append(summary, fmt.Sprintf("%s (%s, %s, %s)", t.Name, t.Display, t.Indices, req))
	}
	im.rep.add(Understood, im.rel(typesPath), "", "%d annotation types: %s", len(p.Types), strings.Join(summary, "; "))
	for _, t := range p.Types {
		if t.LabelDetails != nil {
			im.rep.add(Understood, im.rel(typesPath), fmt.Sprintf("type %q", t.Name), "label_details shown as scale anchors (the original never showed them)")
		}
	}
	if err := im.descriptions(p); err != nil {
		return nil, err
	}
	if err := im.data(p, paths); err != nil {
		return nil, err
	}
	if err := im.training(p, paths); err != nil {
		return nil, err
	}
	if err := im.gold(p, paths); err != nil {
		return nil, err
	}
	if err := im.bots(p, paths); err != nil {
		return nil, err
	}
	if err := im.personas(p); err != nil {
		return nil, err
	}
	if err := im.collection(p); err != nil {
		return nil, err
	}
	im.accountFiles()
	return p, nil
}

func (im *importer) chooseConfig(config string) (string, error) {
	if config != "" {
		if strings.ContainsAny(config, `/\`) || strings.HasSuffix(config, ".yaml") || strings.HasSuffix(config, ".yml") {
			cand := config
			if !filepath.IsAbs(cand) {
				if _, err := os.Stat(cand); err != nil {
					cand = filepath.Join(im.root, "hydra_configs", "conf", config)
				}
			}
			if _, err := os.Stat(cand); err != nil {
				return "", fmt.Errorf("configuration %q not found", config)
			}
			return cand, nil
		}
		cand := filepath.Join(im.root, "hydra_configs", "conf", config+".yaml")
		if _, err := os.Stat(cand); err != nil {
			names, _ := OriginalConfigs(im.root)
			return "", fmt.Errorf("configuration %q not found in hydra_configs/conf (found: %s)", config, strings.Join(names, ", "))
		}
		return cand, nil
	}
	names, err := OriginalConfigs(im.root)
	if err != nil {
		return "", err
	}
	switch len(names) {
	case 0:
		im.rep.add(Warning, "", "", "no hydra configuration found: conventional paths and the original's defaults are used")
		return "", nil
	case 1:
		return filepath.Join(im.root, "hydra_configs", "conf", names[0]+".yaml"), nil
	}
	e := &ConfigChoiceError{Folder: im.base, Names: names}
	if im.root != im.base {
		e.Project = im.rel(im.root)
	}
	for _, n := range names {
		e.Configs = append(e.Configs, im.study(n, configFile(im.root, n)).ConfigSummary)
	}
	return "", e
}

// ConfigChoiceError is returned by ImportOriginal when the folder has several hydra
// configurations and ImportOptions.Config names none of them.
type ConfigChoiceError struct {
	Folder string
	// Project is the project folder inside Folder ("" when Folder is the project folder).
	Project string
	Names   []string // the configurations, as ImportOptions.Config takes them
	// Configs say what each configuration is, in the order of Names.
	Configs []ConfigSummary
}

func (e *ConfigChoiceError) Error() string {
	return fmt.Sprintf("the folder has %d configurations (%s): choose one", len(e.Names), strings.Join(e.Names, ", "))
}

// conventionalPaths finds the files of a folder without configuration: the only data file,
// the only onboarding file, the only gold file, model_opts.yaml.
func (im *importer) conventionalPaths(paths map[string]string) {
	only := func(dir, ext string) string {
		m, _ := filepath.Glob(filepath.Join(im.root, "task_config", dir, "*"+ext))
		if len(m) == 1 {
			return m[0]
		}
		if len(m) > 1 {
			im.rep.add(Warning, "task_config/"+dir, "", "%d %s files and no configuration naming one: none read", len(m), ext)
		}
		return ""
	}
	paths["data_jsonl"] = only("task_data", ".jsonl")
	paths["screen_json"] = only("onboarding_data", ".json")
	paths["gold_jsonl"] = only("gold_data", ".jsonl")
	if mo := filepath.Join(im.root, "task_config", "model_opts.yaml"); fileExists(mo) {
		paths["model_opt_path"] = mo
	}
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func (im *importer) settings(p *Project, paths map[string]string) error {
	c := im.conf
	s := &p.Settings
	keys := make([]string, 0, len(c.blueprint))
	for k := range c.blueprint {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if why, ok := blueprintIgnored[k]; ok {
			im.rep.add(Ignored, c.file, c.where("blueprint", k), "%s", why)
		} else if !blueprintUnderstood[k] {
			im.rep.add(Ignored, c.file, c.where("blueprint", k), "unknown blueprint parameter")
		}
	}
	var ca bool
	if ok, _ := c.decode("blueprint", "check_acceptability", &ca); ok && ca {
		im.rep.add(Warning, c.file, c.where("blueprint", "check_acceptability"), "acceptability checks are on in the original but not run by the app")
	}
	keys = keys[:0]
	for k := range c.task {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if why, ok := taskIgnored[k]; ok {
			im.rep.add(Ignored, c.file, c.where("task", k), "%s", why)
		} else if !taskUnderstood[k] {
			im.rep.add(Ignored, c.file, c.where("task", k), "unknown task parameter")
		}
	}
	// mode: "" any project, "static" static annotation only, "collect" collection only
	type field struct {
		section, key string
		dst          any
		what         string
		mode         string
	}
	var seed int64
	fields := []field{
		{"task", "task_name", &s.TaskName, "task name (identifies history across runs)", ""},
		{"task", "task_title", &s.TaskTitle, "title", ""},
		{"task", "task_description", &s.TaskDescription, "description", ""},
		{"task", "allowed_concurrent", &s.AllowedConcurrent, "units a participant may hold at once (0 = unlimited)", ""},
		{"task", "maximum_units_per_worker", &s.MaximumUnitsPerWorker, "units per participant over all runs (0 = unlimited)", ""},
		{"blueprint", "do_external_annotations", &s.ExternalAnnotations, "static annotation mode", ""},
		{"blueprint", "do_collect_dialogue", &s.CollectDialogue, "dialogue collection mode", ""},
		{"blueprint", "annotation_duration_in_seconds", &s.AnnotationDurationSeconds, "seconds allowed per page", ""},
		{"blueprint", "random_seed", &seed, "seed of the shuffles", ""},
		{"blueprint", "use_screening_task", &s.UseScreening, "screening with training dialogues", "static"},
		{"blueprint", "passed_qualification_name", &s.PassedQualification, "qualification granted on passing", "static"},
		{"blueprint", "block_qualification", &s.BlockQualification, "qualification that blocks a participant", ""},
		{"blueprint", "max_screening_units", &s.MaxScreeningUnits, "cap on screening units", "static"},
		{"blueprint", "use_golds", &s.UseGolds, "gold units mixed into the work", "static"},
		{"blueprint", "gold_qualification_base", &s.GoldQualificationBase, "prefix of the gold qualifications", "static"},
		{"blueprint", "min_golds", &s.MinGolds, "golds before real units", "static"},
		{"blueprint", "max_incorrect_golds", &s.MaxIncorrectGolds, "failed golds allowed (effective in the app, see quirk 13)", "static"},
		{"blueprint", "allowed_gold_mistakes", &s.AllowedGoldMistakes, "mistaken turns allowed in a gold", "static"},
		{"blueprint", "num_bots", &s.NumBots, "bots per collection session", "collect"},
		{"blueprint", "conversations_needed_string", &s.ConversationsNeeded, "collection conditions", "collect"},
		{"blueprint", "do_interactive_online_annotations", &s.OnlineAnnotation, "online annotation type", "collect"},
		{"blueprint", "do_interactive_offline_annotations", &s.OfflineAnnotations, "offline annotation lists", "collect"},
		{"blueprint", "num_turns", &s.NumTurns, "message cap of a conversation", "collect"},
		{"blueprint", "max_resp_time", &s.MaxResponseSeconds, "seconds per chat message", "collect"},
		{"blueprint", "include_persona", &s.IncludePersona, "persona for blender bots", "collect"},
		{"blueprint", "conversation_start_mode", &s.ConversationStartMode, "conversation start", "collect"},
	}
	// the mode decides which keys matter; decode it first
	if _, err := c.decode("blueprint", "do_collect_dialogue", &s.CollectDialogue); err != nil {
		return err
	}
	for _, f := range fields {
		ok, err := c.decode(f.section, f.key, f.dst)
		if err != nil {
			return err
		}
		switch {
		case !ok:
		case f.mode == "collect" && !s.CollectDialogue:
			im.rep.add(Ignored, c.file, c.where(f.section, f.key), "%s: kept, but unused in a static annotation project", f.what)
		case f.mode == "static" && s.CollectDialogue:
			im.rep.add(Ignored, c.file, c.where(f.section, f.key), "%s: kept, but unused in a collection project", f.what)
		default:
			im.rep.add(Understood, c.file, c.where(f.section, f.key), "%s", f.what)
		}
	}
	if _, ok := c.blueprint["random_seed"]; ok {
		s.RandomSeed = seed
	}
	for _, key := range []string{"annotations_config_path", "data_jsonl", "screen_json", "gold_jsonl", "model_opt_path"} {
		var v string
		ok, err := c.decode("blueprint", key, &v)
		if err != nil {
			return err
		}
		if !ok || v == "" {
			continue
		}
		path, err := im.resolve(key, v)
		if err != nil {
			// a file that is only needed by a disabled feature is a warning, not an error
			if (key == "gold_jsonl" && !s.UseGolds) || (key == "screen_json" && !s.UseScreening) ||
				(key == "data_jsonl" && !s.ExternalAnnotations) || (key == "model_opt_path" && !s.CollectDialogue) {
				im.rep.add(Warning, c.file, c.where("blueprint", key), "%v (feature disabled: not needed)", err)
				continue
			}
			return err
		}
		paths[key] = path
		im.rep.add(Understood, c.file, c.where("blueprint", key), "file %s", im.rel(path))
	}
	if s.CollectDialogue && s.ConversationStartMode != "" && s.ConversationStartMode != "hi" {
		im.rep.add(Warning, c.file, c.where("blueprint", "conversation_start_mode"), "start mode %q needs a seed-context dataset; the app starts with \"Hi!\"", s.ConversationStartMode)
	}
	if s.UseGolds && s.MaxIncorrectGolds > 0 {
		im.rep.add(Warning, c.file, c.where("blueprint", "max_incorrect_golds"), "the original blocked a participant after one failed gold; the app allows %d failed golds as configured", s.MaxIncorrectGolds)
	}
	s.Grading = Compatible
	im.rep.add(Understood, "", "", "grading: compatible (the original's rules, including its short-circuit on missing \"\" keys)")
	return nil
}

// LazyLineSize is the length from which a data file's line keeps its turns in the file's
// bytes when imported (Datapoint.turnsLine): checked, and decoded a turn at a time only as
// the store writes the bundle. A variable for tests.
var LazyLineSize = 1 << 20 // a bundle of this size is stored in parts too (BundlePartSize)

func (im *importer) data(p *Project, paths map[string]string) error {
	dataPath := paths["data_jsonl"]
	if dataPath == "" {
		if p.Settings.ExternalAnnotations && !p.Settings.CollectDialogue {
			im.rep.add(Warning, "", "", "no dialogue data file: the project has no dialogues to annotate")
		}
		return nil
	}
	rel := im.rel(dataPath)
	data, err := im.read(dataPath, "dialogue data")
	if err != nil {
		return err
	}
	// A long line keeps its turns in the file's bytes (checked) until the store writes them,
	// but for dialogue collection, whose definition carries the bundles.
	over := 0
	if !p.Settings.CollectDialogue {
		over = LazyLineSize
	}
	if p.Bundles, err = readBundlesLazy(data, rel, im.rep, over); err != nil {
		return err
	}
	nd, pairs := 0, 0
	for bi, b := range p.Bundles {
		for di, dp := range b.Datapoints {
			nd++
			if dp.hasTurns2() {
				pairs++
			}
			for _, name := range dp.AnnotationTasks {
				t := p.Type(name)
				if t == nil {
					return &FileError{File: rel, Line: bi + 1, Err: fmt.Errorf("datapoint %d (%s): annotation type %q is not defined", di+1, dp.DialogueID, name)}
				}
				if t.Display == Comparative && !dp.hasTurns2() {
					im.rep.add(Warning, rel, fmt.Sprintf("bundle %d", bi+1), "%s: comparative type %q without turns2: the right-hand dialogue is empty", dp.DialogueID, name)
				}
			}
		}
	}
	im.rep.add(Understood, rel, "", "%s, %s (%s)", plural(len(p.Bundles), "bundle"), plural(nd, "datapoint"), plural(pairs, "comparative pair"))
	im.readInto(dataPath, "dialogues to annotate: %s, %s", plural(len(p.Bundles), "bundle"), plural(nd, "datapoint"))
	cands := unitsCandidates(im.root, p.Settings.TaskName, dataPath)
	unitsPath := ""
	for _, c := range cands {
		if fileExists(c) {
			unitsPath = c
			break
		}
	}
	if unitsPath == "" {
		return fmt.Errorf("units file not found (looked for %s)", strings.Join(relAll(im, cands), ", "))
	}
	urel := im.rel(unitsPath)
	udata, err := im.read(unitsPath, "units per bundle group")
	if err != nil {
		return err
	}
	if p.Units, err = ReadUnits(udata, urel); err != nil {
		return err
	}
	total, skipped := 0, []string{}
	for bi, b := range p.Bundles {
		n, ok := p.Units[b.GroupID()]
		if !ok {
			return &FileError{File: urel, Err: fmt.Errorf("no entry for group %q (bundle %d of %s)", b.GroupID(), bi+1, rel)}
		}
		if n == 0 {
			skipped = append(skipped, b.GroupID())
		}
		total += n
	}
	if err := limits.Units.Check("units in total", int64(total)); err != nil {
		return &FileError{File: urel, Err: err}
	}
	im.rep.add(Understood, urel, "", "units for %s, %s in total", plural(len(p.Units), "group"), plural(total, "unit"))
	im.readInto(unitsPath, "units per bundle group: %s in total", plural(total, "unit"))
	if len(skipped) > 0 {
		im.rep.add(Understood, urel, "", "0 units: bundle skipped (%s)", strings.Join(skipped, ", "))
	}
	return nil
}

// unitsCandidates are the places of a study's units file, in the order they are tried: the
// original reads task_config/task_data/<task name without "_local">_units.json from its
// working folder; the same name beside the data file and <data>_units.json are tried next.
func unitsCandidates(root, taskName, dataPath string) []string {
	var cands []string
	if taskName != "" {
		name := strings.ReplaceAll(taskName, "_local", "") + "_units.json"
		cands = append(cands, filepath.Join(root, "task_config", "task_data", name))
		if dataPath != "" {
			cands = append(cands, filepath.Join(filepath.Dir(dataPath), name))
		}
	}
	if dataPath != "" {
		cands = append(cands, strings.TrimSuffix(dataPath, filepath.Ext(dataPath))+"_units.json")
	}
	return cands
}

func relAll(im *importer, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = im.rel(p)
	}
	return out
}

func (im *importer) training(p *Project, paths map[string]string) error {
	path := paths["screen_json"]
	if path == "" {
		if p.Settings.UseScreening {
			return fmt.Errorf("use_screening_task is on but no screen_json names the training file")
		}
		return nil
	}
	rel := im.rel(path)
	data, err := im.read(path, "training dialogues")
	if err != nil {
		return err
	}
	tr, err := ReadTraining(data, rel)
	if err != nil {
		return err
	}
	t := p.Type(tr.TypeName)
	if t == nil {
		return &FileError{File: rel, Err: fmt.Errorf("trains type %q, which is not defined", tr.TypeName)}
	}
	if !t.Display.TurnLevel() {
		im.rep.add(Warning, rel, "", "type %q is not a turn-level type: only per-turn answers are graded", tr.TypeName)
	}
	p.Training = tr
	graded := 0
	for _, d := range tr.Dialogues {
		for _, turn := range d.Turns {
			if turn.Truth != nil {
				graded++
			}
		}
	}
	state := "used"
	if !p.Settings.UseScreening {
		state = "kept (use_screening_task is off)"
	}
	im.rep.add(Understood, rel, "", "training for %q: 3 dialogues, %d graded turns, pass criteria %d on the third; %s",
		tr.TypeName, graded, tr.Dialogues[2].PassCriteria, state)
	im.readInto(path, "training dialogues of %q for screening; %s", tr.TypeName, state)
	return nil
}

func (im *importer) gold(p *Project, paths map[string]string) error {
	path := paths["gold_jsonl"]
	if path == "" {
		if p.Settings.UseGolds {
			return fmt.Errorf("use_golds is on but no gold_jsonl names the gold file")
		}
		return nil
	}
	rel := im.rel(path)
	data, err := im.read(path, "gold bundles")
	if err != nil {
		return err
	}
	if p.Gold, err = readBundlesData(data, rel, im.rep); err != nil {
		return err
	}
	graded := 0
	for bi, b := range p.Gold {
		for di, dp := range b.Datapoints {
			for _, name := range dp.AnnotationTasks {
				if p.Type(name) == nil {
					return &FileError{File: rel, Line: bi + 1, Err: fmt.Errorf("datapoint %d (%s): annotation type %q is not defined", di+1, dp.DialogueID, name)}
				}
			}
			for _, t := range dp.Turns {
				if t.Truth != nil {
					graded++
				}
			}
		}
	}
	state := "used"
	if !p.Settings.UseGolds {
		state = "kept (use_golds is off)"
	}
	im.rep.add(Understood, rel, "", "%s, %s; %s", plural(len(p.Gold), "gold bundle"), plural(graded, "graded turn"), state)
	im.readInto(path, "gold bundles (%d); %s", len(p.Gold), state)
	return nil
}

func (im *importer) bots(p *Project, paths map[string]string) error {
	path := paths["model_opt_path"]
	if path == "" {
		if mo := filepath.Join(im.root, "task_config", "model_opts.yaml"); fileExists(mo) && p.Settings.CollectDialogue {
			path = mo
		} else {
			return nil
		}
	}
	rel := im.rel(path)
	data, err := im.read(path, "bot definitions")
	if err != nil {
		return err
	}
	var opts map[string]string
	if err := yaml.Unmarshal(data, &opts); err != nil {
		return &FileError{File: rel, Err: fmt.Errorf("model options map a model key to an option string: %v", err)}
	}
	names := make([]string, 0, len(opts))
	for k, v := range opts {
		p.Bots[k] = BotSpec{Kind: BotParlAI, Options: strings.TrimSpace(v)}
		names = append(names, k)
	}
	sort.Strings(names)
	use := "give each an exec or http definition to chat with it"
	if !p.Settings.CollectDialogue {
		use = "unused in a static annotation project"
	}
	im.rep.add(Understood, rel, "", "%s (%s) kept as ParlAI option strings; %s", plural(len(names), "model"), strings.Join(names, ", "), use)
	im.readInto(path, "bot definitions (%s)", strings.Join(names, ", "))
	return nil
}

func (im *importer) collection(p *Project) error {
	s := &p.Settings
	file := ""
	if im.conf != nil {
		file = im.conf.file
	}
	if !s.CollectDialogue {
		return nil
	}
	conds, err := ParseConditions(s.ConversationsNeeded)
	if err != nil {
		return &FileError{File: file, Err: err}
	}
	for _, c := range conds {
		if c.Count > 0 && len(c.Models) != s.NumBots {
			im.rep.add(Warning, file, "conversations_needed_string", "condition %q has %d models, num_bots is %d", c.Key, len(c.Models), s.NumBots)
		}
	}
	for _, m := range conds.Models() {
		if _, ok := p.Bots[m]; !ok {
			return &FileError{File: file, Err: fmt.Errorf("conversations_needed_string: model %q is not in the model options", m)}
		}
	}
	im.rep.add(Understood, file, "conversations_needed_string", "%s, %s in total", plural(len(conds), "condition"), plural(conds.Total(), "session"))
	if s.OnlineAnnotation != "" {
		if p.Type(s.OnlineAnnotation) == nil {
			return &FileError{File: file, Err: fmt.Errorf("do_interactive_online_annotations: type %q is not defined", s.OnlineAnnotation)}
		}
	}
	for k, list := range s.OfflineAnnotations {
		for _, name := range list {
			if p.Type(name) == nil {
				return &FileError{File: file, Err: fmt.Errorf("do_interactive_offline_annotations[%d]: type %q is not defined", k, name)}
			}
		}
		g := OfflineGroups(list)
		for _, d := range g.Dropped {
			im.rep.add(Warning, file, fmt.Sprintf("do_interactive_offline_annotations[%d]", k), "%q contains neither \"likert\" nor \"comparative\": dropped, as the original does", d)
		}
		for _, n := range g.Likert {
			if strings.Contains(n, "comparative") {
				im.rep.add(Warning, file, fmt.Sprintf("do_interactive_offline_annotations[%d]", k), "%q contains both \"likert\" and \"comparative\": shown twice, as the original does", n)
			}
		}
		if k == 0 && len(g.Comparative) > 0 {
			im.rep.add(Warning, file, "do_interactive_offline_annotations[0]", "comparative types compare with the previous conversation: none after the first")
		}
	}
	if len(s.OfflineAnnotations) > s.NumBots {
		im.rep.add(Warning, file, "do_interactive_offline_annotations", "%d lists for %d conversations: the extra lists are unused", len(s.OfflineAnnotations), s.NumBots)
	}
	im.personaReport(p, conds, file)
	return nil
}

// descriptions reads the participants' instructions of each type from the original's
// task_descriptions.jsx (given, or found in the folder) into the types' descriptions.
func (im *importer) descriptions(p *Project) error {
	path := im.opts.Descriptions
	explicit := path != ""
	if !explicit {
		confDir := ""
		if im.confPath != "" {
			confDir = filepath.Dir(im.confPath)
		}
		if path = FindTaskDescriptions(im.root, confDir); path == "" {
			return nil
		}
	} else if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	rel := im.rel(path)
	d, err := ReadTaskDescriptions(path, p.Settings.CollectDialogue)
	if err != nil {
		if explicit {
			return fmt.Errorf("task descriptions: %w", err)
		}
		im.rep.add(Warning, rel, "", "not read (%v): the types have no instructions", err)
		return nil
	}
	for i, f := range d.Files {
		if i == 0 {
			im.used[im.rel(f)] = "the participants' instructions of the types"
		} else {
			im.used[im.rel(f)] = "part of the participants' instructions (imported by " + rel + ")"
		}
	}
	used, kept, unused := ApplyTaskDescriptions(p.Types, d, false)
	who := "Alex and Sam"
	if p.Settings.CollectDialogue {
		who = "\"your partner\" and \"you\""
	}
	if len(used) == 0 {
		im.rep.add(Warning, rel, "", "no entry for any type of the project (entries: %s)", strings.Join(d.Order, ", "))
	} else {
		im.rep.add(Understood, rel, "", "participant instructions of %s (%s), as plain text; speakers named %s",
			plural(len(used), "type"), strings.Join(used, ", "), who)
	}
	if len(d.Help) > 0 {
		im.rep.add(Understood, rel, "", "%s, shown by the help icons of the flow questions of the same text", plural(len(d.Help), "help section"))
	}
	if len(d.Files) > 1 {
		var helpers []string
		for _, f := range d.Files[1:] {
			helpers = append(helpers, im.rel(f))
		}
		im.rep.add(Understood, rel, "", "followed the imports of %s: %s", plural(len(helpers), "helper file"), strings.Join(helpers, ", "))
	}
	if len(kept) > 0 {
		im.rep.add(Understood, rel, "", "%s keep the description of the type file", strings.Join(kept, ", "))
	}
	if len(unused) > 0 {
		im.rep.add(Ignored, rel, "", "entries for types the project does not have: %s", strings.Join(unused, ", "))
	}
	for i, n := range d.Notes {
		if i == 10 {
			im.rep.add(Warning, rel, "", "and %d more parts left out", len(d.Notes)-10)
			break
		}
		im.rep.add(Warning, rel, "", "%s", n)
	}
	return nil
}

// ReadPersonas reads a file of persona sets (ParsePersonas), within the project-file size limit;
// errors name the file.
func ReadPersonas(path string) ([][]string, error) {
	data, err := limits.ReadFile(path, limits.ProjectFile)
	if err != nil {
		return nil, fmt.Errorf("personas: %w", err)
	}
	sets, err := ParsePersonas(data)
	if err != nil {
		return nil, &FileError{File: path, Err: err}
	}
	return sets, nil
}

// personas reads the persona sets given with the import (ImportOptions.Personas).
func (im *importer) personas(p *Project) error {
	if im.opts.Personas == "" {
		return nil
	}
	sets, err := ReadPersonas(im.opts.Personas)
	if err != nil {
		return err
	}
	p.Settings.Personas = sets
	state := "drawn one per collection session"
	if !p.Settings.IncludePersona || !p.Settings.CollectDialogue {
		state = "kept (include_persona is off)"
	}
	im.rep.add(Understood, im.opts.Personas, "", "%s; %s", plural(len(sets), "persona set"), state)
	return nil
}

// personaReport says what include_persona does in a collection project: which bots observe
// a persona, from which sets, and that participants never see it (as in the original).
func (im *importer) personaReport(p *Project, conds Conditions, file string) {
	s := &p.Settings
	if !s.IncludePersona {
		return
	}
	var blender []string
	for _, m := range conds.Models() {
		if PersonaFor(m, true, []string{"x"}) != nil {
			blender = append(blender, m)
		}
	}
	switch {
	case len(blender) == 0:
		im.rep.add(Warning, file, "include_persona", "no model key contains \"blender\": no bot observes a persona (the original gave personas to blender bots only)")
	case len(s.Personas) == 0:
		im.rep.add(Warning, file, "include_persona", "the original drew each session's persona from ParlAI's blended_skill_talk test set, which the app does not have: "+
			"%s observe no persona until the project has persona sets (the Project tab, or eval import --personas FILE)", strings.Join(blender, ", "))
	default:
		im.rep.add(Understood, file, "include_persona", "each session draws one of %s; %s observe it as \"your persona: …\" lines ahead of the opening \"Hi!\", "+
			"as ParlAI did; participants do not see it (nor did they in the original)", plural(len(s.Personas), "persona set"), strings.Join(blender, ", "))
	}
}

// plural writes "1 thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// architectReason reports the original's server address (hostname, port) and why it is not
// used: `agentdesk eval serve --addr` (or the workspace's Serve) decides where a study listens.
func architectReason(n *yaml.Node) string {
	var parts []string
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i].Value; k == "hostname" || k == "port" {
				parts = append(parts, k+" "+n.Content[i+1].Value)
			}
		}
	}
	where := ""
	if len(parts) > 0 {
		where = " (" + strings.Join(parts, ", ") + ")"
	}
	return "web server address and port" + where + ": the address given to eval serve --addr (default 127.0.0.1:3008) decides"
}
