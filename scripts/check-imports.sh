#!/usr/bin/env bash
# Keeps the dependency rules of ARCHITECTURE.md: ui never imports fyne's app package, g3n, GLFW
# or the store (so its tests run headless without cgo); engines never import fyne, g3n or
# database/sql, except engine/render, the one package that draws with g3n.
set -euo pipefail
go="${GO:-go}"
fail=0
bad=$("$go" list -deps ./ui | grep -E '^(fyne\.io/fyne/v2/app|fyne\.io/fyne/v2/internal/driver/glfw|github\.com/g3n/|github\.com/go-gl/|github\.com/agentdesk/agentdesk/(store|app)$)' || true)
if [ -n "$bad" ]; then echo "ui imports what it must not: $bad"; fail=1; fi
for pkg in $("$go" list ./engine/... | grep -v '/engine/render$'); do
  bad=$("$go" list -deps "$pkg" | grep -E '^(fyne\.io/|github\.com/g3n/|github\.com/go-gl/|database/sql$)' || true)
  if [ -n "$bad" ]; then echo "$pkg imports what an engine must not: $(echo $bad)"; fail=1; fi
done
exit $fail
