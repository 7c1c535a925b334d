package template

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
)

// ParseArgs are the arguments of the original parse command:
//
//	parse --task TASK [-p/--template-path TEMPLATE_PATH] [-o/--output OUTPUT] [--no-autocat-commands]
type ParseArgs struct {
	Task         string
	TemplatePath string // default "templates" (relative to the working directory)
	Output       string // "" = standard output
	Options
}

// ParseCommandLine reads parse arguments like the original's argparse parser (long options
// may be abbreviated to a unique prefix, values may follow "=" or the next argument).
func ParseCommandLine(argv []string) (ParseArgs, error) {
	a := ParseArgs{TemplatePath: "templates"}
	long := []string{"--task", "--template-path", "--output", "--no-autocat-commands"}
	usage := func(format string, args ...any) (ParseArgs, error) {
		return ParseArgs{}, &Error{Category: CatUsage, Offset: -1, End: -1, Msg: fmt.Sprintf(format, args...) +
			"; usage: parse --task TASK [-p TEMPLATE_PATH] [-o OUTPUT] [--no-autocat-commands]"}
	}
	haveTask := false
	for i := 0; i < len(argv); i++ {
		arg := argv[i]
		name, val, hasVal := arg, "", false
		switch {
		case strings.HasPrefix(arg, "--"):
			if k := strings.IndexByte(arg, '='); k >= 0 {
				name, val, hasVal = arg[:k], arg[k+1:], true
			}
			var match []string
			for _, l := range long {
				if l == name {
					match = []string{l}
					break
				}
				if strings.HasPrefix(l, name) {
					match = append(match, l)
				}
			}
			if len(match) != 1 {
				return usage("unrecognized or ambiguous option %s", name)
			}
			name = match[0]
		case arg == "-p" || arg == "-o":
			name = map[string]string{"-p": "--template-path", "-o": "--output"}[arg]
		case strings.HasPrefix(arg, "-p") || strings.HasPrefix(arg, "-o"):
			name, val, hasVal = map[byte]string{'p': "--template-path", 'o': "--output"}[arg[1]], arg[2:], true
		default:
			return usage("unexpected argument %s", arg)
		}
		if name == "--no-autocat-commands" {
			if hasVal {
				return usage("--no-autocat-commands takes no value")
			}
			a.NoAutocatCommands = true
			continue
		}
		if !hasVal {
			if i+1 >= len(argv) {
				return usage("%s expects a value", name)
			}
			i++
			val = argv[i]
		}
		switch name {
		case "--task":
			a.Task, haveTask = val, true
		case "--template-path":
			a.TemplatePath = val
		case "--output":
			a.Output = val
		}
	}
	if !haveTask {
		return usage("the following arguments are required: --task")
	}
	return a, nil
}

// RunParse runs the parse command: it instantiates the task and writes the textproto to
// a.Output, or to stdout when a.Output is "". Warnings go to stderr when it is not nil.
func RunParse(a ParseArgs, stdout, stderr io.Writer) error {
	res, err := Expand(OSReader(), a.Task, a.TemplatePath, a.Options)
	if err != nil {
		return err
	}
	if stderr != nil {
		for _, w := range res.Warnings {
			fmt.Fprintln(stderr, w.Error())
		}
	}
	if a.Output == "" {
		_, err = io.WriteString(stdout, res.Text)
		return err
	}
	return atomicfile.Write(a.Output, []byte(res.Text), 0o644)
}

// RunInit runs the init command with the original's three positional arguments
// (TEMPLATE STEPNAME DUMPDIR) and returns the written path. Identifiers the original would
// miss are reported on stderr when it is not nil.
func RunInit(argv []string, stderr io.Writer) (string, error) {
	if len(argv) != 3 {
		return "", &Error{Category: CatUsage, Offset: -1, End: -1, Msg: "usage: init TEMPLATE STEPNAME DUMPDIR"}
	}
	out, err := InitConfFile(argv[0], argv[1], argv[2])
	if err != nil {
		return "", err
	}
	if stderr != nil {
		if text, err := OSReader().readText(argv[0]); err == nil {
			if extra := InitConfExtras(text); len(extra) > 0 {
				fmt.Fprintf(stderr, "note: %s also lists %s (used only in slots with a \"'\" modifier, which the original init_conf misses)\n",
					out, strings.Join(extra, ", "))
			}
		}
	}
	return out, nil
}
