//go:build ignore

// licenses_gen writes licenses.json: every third-party module linked into the agentdesk binary
// (and the Go standard library) with its licence text and an SPDX-style name. Run it from this
// folder with `go run licenses_gen.go` after changing dependencies; `make licenses` does.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

type license struct {
	Module  string `json:"module"`
	Version string `json:"version"`
	Name    string `json:"license"`
	Text    string `json:"text"`
}

var candidates = []string{"LICENSE", "LICENSE.txt", "LICENSE.md", "LICENCE", "COPYING", "COPYING.txt", "LICENSE-MIT", "UNLICENSE"}

func identify(text string) string {
	t := strings.Join(strings.Fields(text), " ")
	switch {
	case strings.Contains(t, "Apache License") && strings.Contains(t, "Version 2.0"):
		return "Apache-2.0"
	case strings.Contains(t, "Mozilla Public License"):
		return "MPL-2.0"
	case strings.Contains(t, "Permission is hereby granted, free of charge"):
		return "MIT"
	case strings.Contains(t, "Redistribution and use in source and binary forms") && strings.Contains(t, "Neither the name"):
		return "BSD-3-Clause"
	case strings.Contains(t, "Redistribution and use in source and binary forms"):
		return "BSD-2-Clause"
	case strings.Contains(t, "Permission to use, copy, modify, and/or distribute"), strings.Contains(t, "ISC License"):
		return "ISC"
	case strings.Contains(t, "free and unencumbered software released into the public domain"):
		return "Unlicense"
	case strings.Contains(t, "This software is provided 'as-is'"):
		return "Zlib"
	}
	return "see text"
}

func main() {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{.Path}}\t{{.Version}}\t{{.Dir}}\t{{.Main}}{{end}}", "..").Output()
	if err != nil {
		log.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	var ls []license
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 4 || f[3] == "true" || seen[f[0]] {
			continue
		}
		seen[f[0]] = true
		l := license{Module: f[0], Version: f[1]}
		for _, c := range candidates {
			if b, err := os.ReadFile(filepath.Join(f[2], c)); err == nil {
				l.Text = string(b)
				break
			}
		}
		if l.Text == "" {
			log.Fatalf("no licence file found for %s %s in %s", f[0], f[1], f[2])
		}
		l.Name = identify(l.Text)
		ls = append(ls, l)
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].Module < ls[j].Module })
	goLicense, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "LICENSE"))
	if err != nil {
		log.Fatal(err)
	}
	ls = append([]license{{Module: "Go standard library", Version: runtime.Version(), Name: identify(string(goLicense)), Text: string(goLicense)}}, ls...)
	// Assets bundled into the binary that are not Go modules.
	for _, a := range []struct{ name, version, file, spdx string }{
		{"Noto Sans CJK JP Bold (Latin subset, used by the Mobile-Env frame visualiser)", "2.004", "../engine/mobileenv/fonts/OFL.txt", "OFL-1.1"},
	} {
		text, err := os.ReadFile(a.file)
		if err != nil {
			log.Fatalf("licence of %s: %v", a.name, err)
		}
		ls = append(ls, license{Module: a.name, Version: a.version, Name: a.spdx, Text: string(text)})
	}
	b, err := json.MarshalIndent(ls, "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("licenses.json", append(b, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %d licences", len(ls))
}
