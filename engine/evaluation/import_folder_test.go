package evaluation

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/conformance"
)

// originalRepo copies testdata/original-repo (a folder of our own making in the layout of the
// original's repository: a project folder, study/, with hydra_configs/conf holding one
// configuration per study and task_config holding every study's files, beside the
// repository's own scripts and data) and adds the stray files a real checkout has, which are
// not kept in git: .DS_Store files, a __pycache__ folder, a .git folder.
func originalRepo(t *testing.T) string {
	t.Helper()
	dir := copyTree(t, filepath.Join("testdata", "original-repo"))
	for rel, body := range map[string]string{
		".DS_Store":                              "\x00\x00\x00\x01Bud1",
		"study/task_config/.DS_Store":            "\x00\x00\x00\x01Bud1",
		"study/__pycache__/impl.cpython-39.pyc":  "\x61\x0d\x0d\x0a",
		"study/__pycache__/utils.cpython-39.pyc": "\x61\x0d\x0d\x0a",
		".git/HEAD":                              "ref: refs/heads/main\n",
		".git/objects/pack/pack-1.pack":          "PACK",
		".gitignore":                             "__pycache__\n.DS_Store\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fileEntry finds the report's entry of a file or folder path.
func fileEntry(rep *ImportReport, rel string) *FileEntry {
	for i := range rep.Files {
		if rep.Files[i].Path == rel {
			return &rep.Files[i]
		}
	}
	return nil
}

// checkEveryFile: each file of dir is accounted for exactly once, by an entry of its own or by
// the entry of a folder holding it (whose count includes it), and nothing else is listed.
func checkEveryFile(t *testing.T, dir string, rep *ImportReport) {
	t.Helper()
	seen := map[string]bool{}
	folders := map[string]int{}
	for _, e := range rep.Files {
		if seen[e.Path] {
			t.Errorf("%s is listed twice", e.Path)
		}
		seen[e.Path] = true
		if strings.HasSuffix(e.Path, "/") {
			folders[e.Path] = 0
		} else if e.Files != 1 {
			t.Errorf("%s: a file entry counts %d files", e.Path, e.Files)
		}
		if e.Note == "" {
			t.Errorf("%s (%s): no reason given", e.Path, e.Status)
		}
		if e.Status == FileOtherConfig && len(e.Configs) == 0 {
			t.Errorf("%s: belongs to another configuration, but names none", e.Path)
		}
	}
	total := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		total++
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if seen[rel] {
			delete(seen, rel)
			return nil
		}
		for f := range folders {
			if strings.HasPrefix(rel, f) {
				folders[f]++
				return nil
			}
		}
		t.Errorf("%s is not accounted for", rel)
		return nil
	})
	for f, n := range folders {
		if e := fileEntry(rep, f); e.Files != n {
			t.Errorf("folder %s: the report counts %d files, it holds %d", f, e.Files, n)
		}
		delete(seen, f)
	}
	for rel := range seen {
		t.Errorf("%s is listed but is no file of the folder", rel)
	}
	sum := 0
	for _, e := range rep.Files {
		sum += e.Files
	}
	if sum != total {
		t.Errorf("the entries count %d files, the folder holds %d", sum, total)
	}
}

// TestImportWholeOriginalRepository imports the repository root and the project folder with
// each configuration: every file is read, assigned to the other configurations that name it,
// or ignored with a reason.
func TestImportWholeOriginalRepository(t *testing.T) {
	repo := originalRepo(t)
	names, err := OriginalConfigs(repo)
	if err != nil || !reflect.DeepEqual(names, []string{"chat", "labels", "pairs"}) {
		t.Fatalf("configurations of the repository root: %v %v", names, err)
	}
	if dir, err := FindOriginalProject(repo); err != nil || dir != filepath.Join(repo, "study") {
		t.Fatalf("project folder %q %v", dir, err)
	}
	if sums, err := DescribeOriginalConfigs(repo); err != nil || len(sums) != 3 || sums[2].Name != "pairs" ||
		sums[2].Data != "study/task_config/task_data/pairs.jsonl" || sums[2].TaskName != "pairs_local" || sums[2].Collection {
		t.Fatalf("configurations described: %+v %v", sums, err)
	}
	// no configuration named: the error lists them, with what each is
	_, _, err = ImportOriginal(repo, ImportOptions{})
	var choice *ConfigChoiceError
	if !errors.As(err, &choice) || !reflect.DeepEqual(choice.Names, []string{"chat", "labels", "pairs"}) ||
		len(choice.Configs) != 3 || choice.Configs[1].Title != "Label the replies" || !choice.Configs[0].Collection {
		t.Fatalf("no configuration chosen: %v %+v", err, choice)
	}
	type want struct {
		status  FileStatus
		configs []string
		note    string
	}
	for _, c := range []struct {
		root, config string
		files        map[string]want
	}{
		{repo, "labels", map[string]want{
			"study/hydra_configs/conf/labels.yaml":            {FileRead, nil, "configuration"},
			"study/task_config/annotation_buckets.json":       {FileRead, nil, "annotation types"},
			"study/task_config/task_data/labels.jsonl":        {FileRead, nil, "4 bundles"},
			"study/task_config/task_data/labels_units.json":   {FileRead, nil, "units"},
			"study/task_config/onboarding_data/labels.json":   {FileRead, nil, "training"},
			"study/task_config/gold_data/labels.jsonl":        {FileRead, nil, "gold"},
			"study/task_config/model_opts.yaml":               {FileRead, nil, "also named by chat, pairs"},
			"study/hydra_configs/conf/pairs.yaml":             {FileOtherConfig, []string{"pairs"}, "configuration"},
			"study/hydra_configs/conf/chat.yaml":              {FileOtherConfig, []string{"chat"}, "configuration"},
			"study/task_config/task_data/pairs.jsonl":         {FileOtherConfig, []string{"pairs"}, "data_jsonl"},
			"study/task_config/task_data/pairs_units.json":    {FileOtherConfig, []string{"pairs"}, "units"},
			"study/task_config/gold_data/pairs.jsonl":         {FileOtherConfig, []string{"pairs"}, "gold_jsonl"},
			"study/task_config/blocked_workers.txt":           {FileIgnored, nil, "worker_blocklist_paths"},
			"study/task_config/left_pane_text.html":           {FileIgnored, nil, "left_pane_text_path"},
			"study/task_config/spare/annotation_buckets.json": {FileIgnored, nil, "no configuration"},
			"study/task_config/onboarding_data/labels.xlsx":   {FileIgnored, nil, "spreadsheet"},
			"study/task_config/parse_sheets.py":               {FileIgnored, nil, "code"},
			"README.md":                                       {FileIgnored, nil, "documentation"},
			"data/data.json":                                  {FileIgnored, nil, "outside the project folder"},
			".DS_Store":                                       {FileIgnored, nil, "Finder"},
			"study/task_config/.DS_Store":                     {FileIgnored, nil, "Finder"},
			".gitignore":                                      {FileIgnored, nil, "git"},
			"study/__pycache__/":                              {FileIgnored, nil, "bytecode"},
			".git/":                                           {FileIgnored, nil, "version control"},
		}},
		{repo, "pairs", map[string]want{
			"study/task_config/task_data/pairs.jsonl":       {FileRead, nil, "bundles"},
			"study/task_config/task_data/pairs_units.json":  {FileRead, nil, "units"},
			"study/task_config/task_data/labels.jsonl":      {FileOtherConfig, []string{"labels"}, "data_jsonl"},
			"study/task_config/onboarding_data/labels.json": {FileOtherConfig, []string{"labels"}, "screen_json"},
			"study/task_config/blocked_workers.txt":         {FileIgnored, nil, "worker_blocklist_paths"},
			"study/task_config/left_pane_text.html":         {FileOtherConfig, []string{"labels"}, "left_pane_text_path"},
		}},
		{filepath.Join(repo, "study"), "chat", map[string]want{
			"task_config/model_opts.yaml":           {FileRead, nil, "bot"},
			"task_config/task_data/labels.jsonl":    {FileOtherConfig, []string{"labels"}, "data_jsonl"},
			"task_config/blocked_workers.txt":       {FileOtherConfig, []string{"labels", "pairs"}, "worker_blocklist_paths"},
			"hydra_configs/conf/labels.yaml":        {FileOtherConfig, []string{"labels"}, ""},
			"task_config/onboarding_data/.DS_Store": {},
		}},
	} {
		p, rep, err := ImportOriginal(c.root, ImportOptions{Config: c.config})
		if err != nil {
			t.Fatalf("%s: %v", c.config, err)
		}
		if p.Settings.TaskName == "" {
			t.Errorf("%s: no settings read", c.config)
		}
		checkEveryFile(t, c.root, rep)
		for rel, w := range c.files {
			e := fileEntry(rep, rel)
			if w.status == "" {
				if e != nil {
					t.Errorf("%s: %s is no file of the folder but listed", c.config, rel)
				}
				continue
			}
			if e == nil {
				t.Errorf("%s: %s not in the report", c.config, rel)
				continue
			}
			if e.Status != w.status || (w.configs != nil && !reflect.DeepEqual(e.Configs, w.configs)) || !strings.Contains(e.Note, w.note) {
				t.Errorf("%s: %s is %s %v %q, want %s %v containing %q", c.config, rel, e.Status, e.Configs, e.Note, w.status, w.configs, w.note)
			}
		}
		text := rep.String()
		for _, head := range []string{"Files read (", "Files of other configurations (", "Files ignored ("} {
			if !strings.Contains(text, head) {
				t.Errorf("%s: the printed report has no %q section:\n%s", c.config, head, text)
			}
		}
	}
	// conf=NAME on the repository root chooses as --config does
	if _, rep, err := ImportOriginal(repo, ImportOptions{Overrides: []string{"conf=pairs"}}); err != nil || rep.Config != "study/hydra_configs/conf/pairs.yaml" || rep.Project != "study" {
		t.Fatalf("conf=pairs: %v %+v", err, rep)
	}
}

// TestImportRefusesSeveralProjectFolders: a folder holding two project folders names both.
func TestImportRefusesSeveralProjectFolders(t *testing.T) {
	dir := t.TempDir()
	copyTreeTo(t, filepath.Join("testdata", "original-repo", "study"), filepath.Join(dir, "one"))
	copyTreeTo(t, filepath.Join("testdata", "original-repo", "study"), filepath.Join(dir, "two"))
	_, _, err := ImportOriginal(dir, ImportOptions{Config: "labels"})
	if err == nil || !strings.Contains(err.Error(), "one") || !strings.Contains(err.Error(), "two") {
		t.Fatalf("two project folders: %v", err)
	}
	if _, _, err := ImportOriginal(filepath.Join(dir, "two"), ImportOptions{Config: "labels"}); err != nil {
		t.Fatal(err)
	}
}

func copyTreeTo(t *testing.T, src, dst string) {
	t.Helper()
	conformance.CopyTree(t, src, dst)
}

// TestImportBesideABrokenConfiguration: another configuration that cannot be read does not stop
// the import of the one chosen; the report says so and lists its file. A broken chosen
// configuration imports nothing.
func TestImportBesideABrokenConfiguration(t *testing.T) {
	repo := originalRepo(t)
	broken := filepath.Join(repo, "study", "hydra_configs", "conf", "chat.yaml")
	if err := os.WriteFile(broken, []byte("mephisto: [unclosed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, rep, err := ImportOriginal(repo, ImportOptions{Config: "labels"})
	if err != nil || p == nil {
		t.Fatalf("labels beside a broken chat: %v", err)
	}
	checkEveryFile(t, repo, rep)
	e := fileEntry(rep, "study/hydra_configs/conf/chat.yaml")
	if e == nil || e.Status != FileOtherConfig || !strings.Contains(e.Note, "cannot be read") ||
		!hasItem(rep, Warning, "study/hydra_configs/conf/chat.yaml", "cannot be read") {
		t.Errorf("the broken configuration: %+v\n%s", e, rep)
	}
	if p, rep, err := ImportOriginal(repo, ImportOptions{Config: "chat"}); err == nil || p != nil || rep != nil {
		t.Fatalf("a broken chosen configuration imported: %v", err)
	}
}

// TestImportCorruptedRepositoryAccountsForEveryFile: with one file of the repository corrupted
// (bytes flipped or cut short), the import of each configuration either fails with an error
// or succeeds with a report that still accounts for every file; it never panics.
func TestImportCorruptedRepositoryAccountsForEveryFile(t *testing.T) {
	src := originalRepo(t)
	var files []string
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(src, p)
			files = append(files, rel)
		}
		return nil
	})
	rng := rand.New(rand.NewPCG(28, 1))
	failed := 0
	for i := 0; i < 60; i++ {
		dir := copyTree(t, src)
		rel := files[rng.IntN(len(files))]
		p := filepath.Join(dir, rel)
		data, _ := os.ReadFile(p)
		if len(data) > 0 {
			if rng.IntN(2) == 0 {
				data = data[:rng.IntN(len(data))]
			} else {
				for k := 0; k < 3; k++ {
					data[rng.IntN(len(data))] = byte(rng.IntN(256))
				}
			}
		}
		os.WriteFile(p, data, 0o644)
		for _, conf := range []string{"labels", "pairs", "chat"} {
			_, rep, err := ImportOriginal(dir, ImportOptions{Config: conf})
			if err != nil {
				failed++
				continue
			}
			checkEveryFile(t, dir, rep)
		}
	}
	t.Logf("180 imports of corrupted copies: %d refused", failed)
}
