#!/usr/bin/env bash
# Writes DIST/SHA256SUMS for the release artefacts of VERSION and a release note template,
# DIST/RELEASE-NOTES-VERSION.md, listing them with their sizes and sums (to fill in by hand).
# Usage: packaging/release-notes.sh VERSION DIST
set -euo pipefail
ver=$1
dist=$2
cd "$dist"
files=()
for f in agentdesk_"$ver"_amd64.deb agentdesk-"$ver"-linux-amd64.tar.xz agentdesk-"$ver"-windows-amd64-setup.exe \
  agentdesk-"$ver"-windows-amd64.exe agentdesk_gridworld-"$ver"-py3-none-linux_x86_64.whl; do
  [ -f "$f" ] || { echo "release-notes.sh: $dist/$f is missing" >&2; exit 1; }
  files+=("$f")
done
sha256sum "${files[@]}" >SHA256SUMS
{
  echo "# Agentdesk $ver"
  echo
  echo "Released $(date -u +%Y-%m-%d). <!-- one paragraph: what this release is about -->"
  echo
  echo "## What is new"
  echo
  echo "- <!-- user-visible changes, one line each -->"
  echo
  echo "## Fixed"
  echo
  echo "- <!-- -->"
  echo
  echo "## Install"
  echo
  echo "- Debian/Ubuntu: \`sudo apt install ./agentdesk_${ver}_amd64.deb\`"
  echo "- Linux, any distribution: unpack \`agentdesk-$ver-linux-amd64.tar.xz\` and run \`agentdesk\`"
  echo "- Windows: run \`agentdesk-$ver-windows-amd64-setup.exe\` (no administrator rights needed), or start the portable \`agentdesk-$ver-windows-amd64.exe\`"
  echo "- Python (Linux x86-64): \`pip install agentdesk_gridworld-$ver-py3-none-linux_x86_64.whl\`"
  echo
  echo "## Files"
  echo
  echo "| file | size | SHA-256 |"
  echo "|---|---|---|"
  while read -r sum f; do
    echo "| $f | $(du -h "$f" | cut -f1) | \`$sum\` |"
  done <SHA256SUMS
} >"RELEASE-NOTES-$ver.md"
echo "release: $(wc -l <SHA256SUMS) artefacts in $dist, SHA256SUMS and RELEASE-NOTES-$ver.md"
