package app

import (
	"errors"
	"fmt"

	"github.com/agentdesk/agentdesk/engine/template"
)

// templateCommands is the template group: Mobile-Env task-definition templates.
func templateCommands() *command {
	return &command{name: "template", summary: "Mobile-Env task-definition templates", sub: []*command{
		&command{name: "init", args: "TEMPLATE STEPNAME DUMPDIR",
			summary: "write the blank config of a template (DUMPDIR/<template class>-STEPNAME.conf)",
			setup:   noFlags(templateInit), raw: true},
		&command{name: "parse", args: "--task TASKFILE [-p TEMPLATES_DIR] [-o OUTPUTFILE] [--no-autocat-commands]",
			summary: "instantiate a .task file into one multi-step task definition (stdout without -o)",
			setup:   noFlags(templateParse), raw: true},
	}}
}

func templateInit(e *env, args []string) error {
	if err := e.context().Err(); err != nil {
		return err // a signal before it started (the template commands run in milliseconds)
	}
	out, err := template.RunInit(args, e.stderr)
	if err != nil {
		return templateError(err)
	}
	fmt.Fprintln(e.stdout, out)
	return nil
}

func templateParse(e *env, args []string) error {
	a, err := template.ParseCommandLine(args)
	if err != nil {
		return templateError(err)
	}
	if err := e.context().Err(); err != nil {
		return err // a signal before it started (the template commands run in milliseconds)
	}
	return templateError(template.RunParse(a, e.stdout, e.stderr))
}

// templateError marks argument errors as usage errors (exit 2, like the original's argparse).
func templateError(err error) error {
	var te *template.Error
	if errors.As(err, &te) && te.Category == template.CatUsage {
		return usageErrorf("%s", te.Msg)
	}
	return err
}
