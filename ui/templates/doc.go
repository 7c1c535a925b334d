// Package templates is the Templates workspace: a folder of Mobile-Env task-definition
// templates, task files and their confs (folder.go, files.go) edited in one code editor with
// line numbers, problem marks and slot highlighting (editor.go over codeeditor.go and
// codeview.go), filled in a form (conf.go), composed into multi-step tasks (task.go), and the
// generated task definition previewed live through engine/template (preview.go).
package templates
