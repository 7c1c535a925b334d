// Package app is the command line and the composition root: it parses `agentdesk COMMAND ...`
// (cli.go; the root lists its groups, each group in its own file: store_cli.go, gridworld_cli.go,
// pickle_cli.go, template_cli.go, eval_cli.go, odyssey_cli.go), opens the store, and hands the
// desktop app's start to the GUI entry it is given (package app/desktop, the only code that
// starts fyne; this package imports no fyne at all). Orchestration shared with the desktop
// lives in app/workflow; where the data and settings live is paths.go.
package app
