#!/usr/bin/env bash
# Installs DuckDB's Node.js client (@duckdb/node-api; its platform package ships the engine) into
# a cache outside the clone, for the Parquet export's check by a reader nobody here wrote
# (scripts/duckdb-check.mjs, run by app's TestParquetExportReadByDuckDB). Nothing when present.
# Usage: scripts/duckdb-deps.sh   (prints the folder holding node_modules)
set -euo pipefail
version=1.5.6-r.1
dir="${AGENTDESK_DUCKDB_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/agentdesk/duckdb}"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  # Debian's nodejs ships npm; its separate npm package would bring hundreds of others
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "duckdb-deps.sh: installing nodejs" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends nodejs >/dev/null
fi
pkg="$dir/node_modules/@duckdb/node-api/package.json"
if [ -f "$pkg" ] && grep -q "\"version\": \"$version\"" "$pkg"; then
  echo "$dir"
  exit 0
fi
mkdir -p "$dir"
echo "duckdb-deps.sh: installing @duckdb/node-api@$version into $dir" >&2
npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "@duckdb/node-api@$version" >&2
echo "$dir"
