package app

// ConsoleStreams decides how a GUI-subsystem build (Windows' agentdesk.exe) started with a
// command gets a command line's input and output. Such a process starts without a console:
// cmd and PowerShell hand it no standard streams unless the user redirected them. With a
// command (args > 0) it attaches to the console of the process that started it, when there
// is one, and opens the console for each standard stream that was not redirected (its handle is
// missing); a redirected stream (a file or a pipe) stays as given. Without a command it is the
// desktop app and touches nothing. The console subsystem twin (agentdesk.com, which cmd and
// PowerShell run for `agentdesk` before agentdesk.exe) has its streams already and never gets
// here.
func ConsoleStreams(args int, hasConsole, stdin, stdout, stderr bool) (attach bool, openIn, openOut, openErr bool) {
	if args == 0 || hasConsole {
		return false, false, false, false
	}
	if stdin && stdout && stderr {
		return false, false, false, false // every stream redirected: nothing to attach
	}
	return true, !stdin, !stdout, !stderr
}
