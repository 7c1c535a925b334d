package app

import (
	"runtime/debug"
	"strings"
)

// AppID is the application id, also in FyneApp.toml (a test keeps the two equal).
const AppID = "dev.agentdesk.Agentdesk"

// Release is the version in FyneApp.toml (a test keeps the two equal).
const Release = "0.1.0"

// Version is set at build time (-ldflags "-X github.com/agentdesk/agentdesk/app.Version=...",
// as `make build` does: the release and the commit). A plain `go build` leaves it empty and
// it is made from the release and the commit Go records in the binary.
var Version = ""

func init() {
	if Version == "" {
		Version = versionFromBuild(debug.ReadBuildInfo())
	}
}

// versionFromBuild is Release with the commit the binary was built from, when Go recorded it
// ("0.1.0+1a2b3c4", "+...-modified" for a tree with uncommitted changes), else Release+dev.
func versionFromBuild(bi *debug.BuildInfo, ok bool) string {
	v := Release
	if !ok || bi == nil {
		return v + "+dev"
	}
	var rev string
	var modified bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		if mv := bi.Main.Version; mv != "" && mv != "(devel)" {
			return strings.TrimPrefix(mv, "v")
		}
		return v + "+dev"
	}
	if len(rev) > 7 {
		rev = rev[:7]
	}
	v += "+" + rev
	if modified {
		v += "-modified"
	}
	return v
}
