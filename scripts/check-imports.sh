#!/usr/bin/env bash
# Keeps the dependency rules of ARCHITECTURE.md:
# - the UI packages never import fyne's app package, g3n, GLFW or the store (so their tests run
#   headless without cgo); ui/uitest, the tests' kit, may import the store;
# - the shell (package ui) imports no workspace, and workspaces do not import each other: they
#   meet in ui/workspace, and the GUI entry registers them (ui/registry);
# - the command line (package app) imports no fyne package: the GUI entry is app/desktop;
# - engines never import fyne, g3n or database/sql, except engine/render, the one package that
#   draws with g3n.
set -euo pipefail
go="${GO:-go}"
module=github.com/agentdesk/agentdesk
fail=0
say() { echo "$*"; fail=1; }

for pkg in $("$go" list ./ui/... | grep -v '/ui/uitest$'); do
  bad=$("$go" list -deps "$pkg" | grep -E "^(fyne\.io/fyne/v2/app|fyne\.io/fyne/v2/internal/driver/glfw|github\.com/g3n/|github\.com/go-gl/|$module/(store|app)(/.*)?$)" || true)
  [ -z "$bad" ] || say "$pkg imports what a UI package must not: $(echo $bad)"
done

workspaces=(gridworld demonstrations templates evaluation explorer)
bad=$("$go" list -deps ./ui | grep -E "^$module/ui/($(IFS='|'; echo "${workspaces[*]}")|registry)$" || true)
[ -z "$bad" ] || say "the shell (ui) imports workspaces: $(echo $bad)"
for ws in "${workspaces[@]}"; do
  others=$(printf '%s\n' "${workspaces[@]}" | grep -vx "$ws" | paste -sd'|')
  bad=$("$go" list -deps "./ui/$ws" | grep -E "^$module/ui/($others|registry)$|^$module/ui$" || true)
  [ -z "$bad" ] || say "ui/$ws imports another workspace or the shell: $(echo $bad)"
done

bad=$("$go" list -deps ./app | grep -E '^fyne\.io/' || true)
[ -z "$bad" ] || say "the command line (app) imports fyne: $(echo $bad | head -c 300)"

for pkg in $("$go" list ./engine/... | grep -v '/engine/render$'); do
  bad=$("$go" list -deps "$pkg" | grep -E '^(fyne\.io/|github\.com/g3n/|github\.com/go-gl/|database/sql$)' || true)
  [ -z "$bad" ] || say "$pkg imports what an engine must not: $(echo $bad)"
done
exit $fail
