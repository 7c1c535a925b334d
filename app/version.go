package app

// AppID is the application id, also in FyneApp.toml (a test keeps the two equal).
const AppID = "dev.agentdesk.Agentdesk"

// Version is set at build time (-ldflags "-X github.com/agentdesk/agentdesk/app.Version=...").
var Version = "dev"
