// Package plainlocale stops fyne from logging "Error parsing user locale C" on every start
// (every command-line run included) on systems whose locale is C.UTF-8 or POSIX.UTF-8, the
// default of many servers and containers.
//
// fyne's lang package reads the locale in its package initialiser, and the locale library it
// uses turns "C.UTF-8" into the tag "C", which does not parse. Go initialises packages in
// import-path order once their imports are initialised, and this package (standard library
// only) sorts before that library, so its initialiser runs first. It sets LANGUAGE, which the
// library consults after a non-plain locale; LANG and LC_* stay as they are for child processes.
package plainlocale

import (
	"os"
	"strings"
)

func init() { Apply(os.Getenv, os.Setenv) }

// Apply sets LANGUAGE=en when the effective locale is a C or POSIX locale with an encoding
// suffix and LANGUAGE is not set.
func Apply(getenv func(string) string, setenv func(string, string) error) {
	if getenv("LANGUAGE") != "" {
		return
	}
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := getenv(name)
		if v == "" {
			continue
		}
		if strings.HasPrefix(v, "C.") || strings.HasPrefix(v, "POSIX.") {
			setenv("LANGUAGE", "en")
		}
		return
	}
}
