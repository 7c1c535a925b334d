#!/usr/bin/env bash
# Runs every Go fuzz target for FUZZTIME each (default 60s) with settings that fuzz rather than
# minimise: -fuzzminimizetime bounds the minimisation of each new interesting input (by default
# it may take a whole minute per input, and a worker can spend the run minimising). New
# crashers land in the package's testdata/fuzz/<Target>/ and are kept as regression seeds.
# Prints executions per target, marking those below FUZZMIN (default 100000: a target that
# slow is mostly minimising or allocating, and needs its harness fixed), and the load average
# before and after (the machine's other work takes from the counts); exits 1 when a target fails.
# Usage: scripts/fuzz.sh [TARGET_REGEXP]      e.g. FUZZTIME=5m scripts/fuzz.sh Pickle
set -uo pipefail
cd "$(dirname "$0")/.."
go="$(pwd)/scripts/go.sh"
fuzztime="${FUZZTIME:-60s}"
only="${1:-.}"
min="${FUZZMIN:-100000}"
status=0
load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
report=()
while read -r file target; do
  [[ "$target" =~ $only ]] || continue
  pkg="./$(dirname "$file")"
  log=$(mktemp)
  echo "== $target ($pkg, $fuzztime)"
  "$go" test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 10x >"$log" 2>&1
  rc=$?
  execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
  if [ $rc -ne 0 ]; then
    status=1
    tail -20 "$log"
    report+=("$(printf '%-28s %-28s %12s  FAILED' "$target" "$pkg" "${execs:-0}")")
  elif [ "${execs:-0}" -lt "$min" ]; then
    report+=("$(printf '%-28s %-28s %12s  ok, below %d' "$target" "$pkg" "${execs:-0}" "$min")")
  else
    report+=("$(printf '%-28s %-28s %12s  ok' "$target" "$pkg" "${execs:-0}")")
  fi
  rm -f "$log"
done < <(grep -rn --include='*_test.go' '^func Fuzz' . | sed -E 's#^\./([^:]+):[0-9]+:func (Fuzz[A-Za-z0-9_]+).*#\1 \2#' | sort)
echo
printf '%-28s %-28s %12s  %s\n' target package execs result
printf '%s\n' "${report[@]}"
echo "load average before: ${load_before:-?}, after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?) ($(nproc 2>/dev/null || echo ?) cores)"
exit $status
