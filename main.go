// Command agentdesk is the Agentdesk desktop app and its command line: with no arguments it
// opens the app, otherwise it runs a command (see `agentdesk help`).
package main

import (
	"os"
	"runtime"

	"github.com/agentdesk/agentdesk/app"
	"github.com/agentdesk/agentdesk/app/desktop"
)

// OpenGL (the app's window and the offscreen renderer, also used by `gridworld bench --pov`)
// must be driven from the process's main thread.
func init() { runtime.LockOSThread() }

func main() {
	os.Exit(app.Main(os.Args[1:], desktop.Run))
}
