//go:build windows

package main

import (
	"os"
	"syscall"

	"github.com/agentdesk/agentdesk/app"
	"golang.org/x/sys/windows"
)

// The GUI-subsystem agentdesk.exe has no console when cmd or PowerShell start it with a
// command: attach to theirs and point the standard streams that were not redirected at it
// (app.ConsoleStreams). cmd does not wait for a GUI-subsystem program, so the installer also
// ships agentdesk.com, the same program built for the console subsystem, which cmd and
// PowerShell pick first for `agentdesk ...` (PATHEXT lists .COM before .EXE).
func init() {
	if len(os.Args) < 2 {
		return
	}
	valid := func(std uint32) bool {
		h, err := windows.GetStdHandle(std)
		return err == nil && h != 0 && h != windows.InvalidHandle
	}
	kernel32 := windows.NewLazySystemDLL("kernel32.dll")
	win, _, _ := kernel32.NewProc("GetConsoleWindow").Call()
	hasConsole := win != 0
	attach, in, out, errs := app.ConsoleStreams(len(os.Args)-1, hasConsole,
		valid(windows.STD_INPUT_HANDLE), valid(windows.STD_OUTPUT_HANDLE), valid(windows.STD_ERROR_HANDLE))
	if !attach {
		return
	}
	const attachParentProcess = ^uintptr(0) // ATTACH_PARENT_PROCESS, (DWORD)-1
	if ok, _, _ := kernel32.NewProc("AttachConsole").Call(attachParentProcess & 0xFFFFFFFF); ok == 0 {
		return // no parent console (started from Explorer with arguments): nothing to show output in
	}
	open := func(name string, access uint32, std uint32, f **os.File) {
		p, _ := syscall.UTF16PtrFromString(name)
		h, err := windows.CreateFile(p, access, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, nil, windows.OPEN_EXISTING, 0, 0)
		if err != nil {
			return
		}
		windows.SetStdHandle(std, h)
		*f = os.NewFile(uintptr(h), name)
	}
	if in {
		open("CONIN$", windows.GENERIC_READ|windows.GENERIC_WRITE, windows.STD_INPUT_HANDLE, &os.Stdin)
	}
	if out {
		open("CONOUT$", windows.GENERIC_READ|windows.GENERIC_WRITE, windows.STD_OUTPUT_HANDLE, &os.Stdout)
	}
	if errs {
		open("CONOUT$", windows.GENERIC_READ|windows.GENERIC_WRITE, windows.STD_ERROR_HANDLE, &os.Stderr)
	}
}
