// Command agentdesk is the Agentdesk desktop app and its command line: with no arguments it
// opens the app, otherwise it runs a command (see `agentdesk help`).
package main

import (
	"os"

	"github.com/agentdesk/agentdesk/app"
)

func main() {
	os.Exit(app.Main(os.Args[1:]))
}
