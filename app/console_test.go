package app

import "testing"

func TestConsoleStreams(t *testing.T) {
	type want struct{ attach, in, out, err bool }
	for _, c := range []struct {
		name                        string
		args                        int
		console, stdin, stdout, err bool
		want                        want
	}{
		{"double-clicked: the desktop app", 0, false, false, false, false, want{}},
		{"console twin or console parent", 2, true, true, true, true, want{}},
		{"typed in cmd, nothing redirected", 2, false, false, false, false, want{true, true, true, true}},
		{"output redirected to a file", 1, false, false, true, false, want{true, true, false, true}},
		{"piped in and out, errors to the console", 3, false, true, true, false, want{true, false, false, true}},
		{"everything redirected", 1, false, true, true, true, want{}},
	} {
		a, i, o, e := ConsoleStreams(c.args, c.console, c.stdin, c.stdout, c.err)
		if got := (want{a, i, o, e}); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
