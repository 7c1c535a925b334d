// Package template is a headless re-implementation of Mobile-Env's task-definition template
// toolkit (specs/mobileenv.md Part C): it expands `<[modifier{,modifier}:]identifier>` slots of
// `<template>.textproto.template` files with the values of `<template>-<step>.conf` files,
// chains the task tokens listed in a `<task>.task` file into one multi-step Android task
// definition, and prints it byte for byte like the original (Python protobuf text format);
// only the deduplicated vocabulary is written in first-occurrence order, where the original
// uses hash-set order.
//
// # API
//
//   - ParseSlots(text) ([]Slot, []*SlotError): every slot with byte offsets, line/column,
//     identifier and modifiers (for highlighting), plus diagnostics: unknown modifiers and
//     "no_quote'" (errors), slot look-alikes such as "<lower: v>" and modifiers left of
//     no_quote (warnings).
//   - Render(template, conf) (string, error): slot expansion; errors carry line:col.
//   - RenderValue(mods, value), ParseModifiers("a,b'"), ApplyModifier(name, value),
//     ModifierNames(), ModifierDoc: the modifier chain for showing one field's value.
//   - ParseConf / ParseConfEntries (all bad lines, for the editor), ParseTask, FormatConf.
//   - InitConf(template) string, Identifiers, InitConfOriginalIdentifiers, InitConfExtras,
//     InitConfFile(template, step, dir).
//   - Instantiate(taskFile, templatesDir, Options), InstantiateFS(fsys, …) for unsaved
//     buffers, Expand(Reader, …) *Result (per-token expansions and warnings).
//   - FormatTextproto: the Task reader/printer on their own.
//   - Examples(), ExampleTasks(), ExampleTemplates(): bundled example set.
//   - Errors are *Error values with a Category (unknown modifier, bad conf line, bad task
//     line, missing event sources, missing command, unparsable textproto, missing file, …),
//     file, 1-based line and character column, and the original's Python error line.
//
// # Command line (mapping for the CLI)
//
//	agentdesk template init TEMPLATE STEPNAME DUMPDIR
//	    = python init_conf.py TEMPLATE STEPNAME DUMPDIR
//	    → RunInit([]string{TEMPLATE, STEPNAME, DUMPDIR}, os.Stderr)
//	    writes DUMPDIR/<class>-<STEPNAME>.conf (overwriting), <class> = the template's file
//	    name up to its first "."; one "identifier: <VALUE>" line per identifier in
//	    first-occurrence order (empty file without slots). Differences from the original:
//	    identifiers used only in "'"-modifier slots are included (and noted on stderr), the
//	    order is not hash-set order, DUMPDIR is created when missing.
//
//	agentdesk template parse --task TASKFILE [-p TEMPLATES_DIR] [-o OUTPUTFILE] [--no-autocat-commands]
//	    = python parse.py --task TASKFILE -p TEMPLATES_DIR -o OUTPUTFILE
//	    → a, err := ParseCommandLine(args); RunParse(a, os.Stdout, os.Stderr)
//	    -p/--template-path defaults to "templates" (relative to the working directory);
//	    without -o the textproto goes to stdout; confs are read from TASKFILE's folder.
//	    Exit status 1 on error (print err.Error(): "file:line:col: category: message").
//
// # Decisions
//
// Python semantics are reproduced with CPython 3.11 / Unicode 14 tables (unicode_py.go):
// str.lower/upper with full case mapping and final sigma, str.split/strip whitespace, \w for
// slot words, str.isprintable for repr. regex_esc escapes only . ^ $ * + ? { } \ [ ] | ( ) as
// the original does (not re.escape). The Task schema follows Mobile-Env's task.proto and
// adb.proto; TextEvent.mode/threshold, EventSlot.cache_until and TaskEventSlots.null_listener
// are reconstructed from the spec and vectors.
package template
