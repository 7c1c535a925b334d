#!/usr/bin/env bash
# Runs the Go toolchain: the one on PATH, else /usr/local/go's. On a machine with neither, it
# installs Debian's Go and uses it to fetch the toolchain go.mod asks for (Go 1.21+ does that
# itself through GOTOOLCHAIN; older ones fetch golang.org/toolchain from the module proxy).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# The toolchain fetched when the machine has none (the version the project is built and tested with).
want=1.26.8

if command -v go >/dev/null 2>&1; then exec go "$@"; fi
if [ -x /usr/local/go/bin/go ]; then exec /usr/local/go/bin/go "$@"; fi

cache="${XDG_CACHE_HOME:-$HOME/.cache}/agentdesk/go"
if [ -x "$cache/bin/go" ]; then exec "$cache/bin/go" "$@"; fi

echo "go.sh: no Go toolchain found; bootstrapping Go $want" >&2
"$here/scripts/deps.sh" go
boot=$(command -v go || echo /usr/lib/go/bin/go)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mod="golang.org/toolchain@v0.0.1-go$want.linux-amd64"
case "$(uname -m)" in aarch64|arm64) mod="golang.org/toolchain@v0.0.1-go$want.linux-arm64" ;; esac
dir=$(cd "$tmp" && GOFLAGS=-mod=mod GOPATH="$tmp/gopath" "$boot" mod download -json "$mod" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -x "$dir/bin/go" ] || { echo "go.sh: could not fetch $mod" >&2; exit 1; }
mkdir -p "$(dirname "$cache")"
rm -rf "$cache"
cp -r "$dir" "$cache"
chmod -R u+w "$cache"
chmod +x "$cache"/bin/* "$cache"/pkg/tool/*/*  # module zips carry no exec bits
exec "$cache/bin/go" "$@"
