// Package resources holds the files built into the binary: the app icon and the licences of
// the third-party modules linked in. Later features add sample data and catalogues here.
// It depends on nothing but the standard library, so engines may use it too.
package resources

import (
	_ "embed"
	"encoding/json"
)

// IconPNG is Agentdesk's icon, 512x512 (drawn by icon_gen.go).
//
//go:embed icon.png
var IconPNG []byte

//go:embed licenses.json
var licensesJSON []byte

// License is a third-party module linked into the binary and its licence text.
type License struct {
	Module  string `json:"module"`
	Version string `json:"version"`
	Name    string `json:"license"`
	Text    string `json:"text"`
}

// Licenses lists the third-party modules linked into the binary (made by licenses_gen.go).
func Licenses() ([]License, error) {
	var l []License
	err := json.Unmarshal(licensesJSON, &l)
	return l, err
}
