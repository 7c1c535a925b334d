#!/usr/bin/env bash
# Measures the time from starting the app to its main window (the ReadyLine it prints), under
# Xvfb, with a fresh home each run (first launch: the store is created). Prints each run and
# the median. Usage: scripts/startup-bench.sh BINARY [RUNS]
set -euo pipefail
bin=$(realpath "$1"); runs=${2:-5}
display=":$((500 + RANDOM % 400))"
Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null || true' EXIT
sleep 1
times=()
for i in $(seq 1 "$runs"); do
  home=$(mktemp -d)
  start=$(date +%s%N)
  LANG=C.UTF-8 HOME="$home" XDG_DATA_HOME="$home/data" XDG_CONFIG_HOME="$home/config" DISPLAY="$display" \
    "$bin" >"$home/log" 2>&1 &
  app=$!
  until grep -q "agentdesk: main window shown" "$home/log"; do
    kill -0 "$app" 2>/dev/null || { cat "$home/log"; exit 1; }
    sleep 0.005
  done
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  kill "$app"; wait "$app" 2>/dev/null || true
  rm -rf "$home"
  times+=("$ms")
  echo "run $i: ${ms} ms"
done
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
echo "median of $runs: ${median} ms"
