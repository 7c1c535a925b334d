package template

import (
	"embed"
	"io/fs"
	"path"
	"sort"
)

// examplesFS holds Agentdesk's own example templates, token confs and task lists.
//
//go:embed examples
var examplesFS embed.FS

// Examples returns the bundled examples as a file system rooted at examples/: templates in
// "templates", confs and .task files in "tasks". Use it with FSReader and "templates".
func Examples() fs.FS {
	sub, err := fs.Sub(examplesFS, "examples")
	if err != nil {
		panic(err)
	}
	return sub
}

// ExampleTasks lists the .task files of the bundled examples ("tasks/<name>.task"), sorted.
func ExampleTasks() []string {
	matches, _ := fs.Glob(Examples(), "tasks/*.task")
	sort.Strings(matches)
	return matches
}

// ExampleTemplates lists the bundled template files, sorted.
func ExampleTemplates() []string {
	matches, _ := fs.Glob(Examples(), path.Join("templates", "*.textproto.template"))
	sort.Strings(matches)
	return matches
}
