#!/usr/bin/env bash
# The UI tour: the real app under Xvfb with a window manager (openbox), at each screen size, in
# both themes, every screen, tab and dialog (app/desktop/uitour), one screenshot each in OUT.
# Fails when the tour reports a window larger than the screen, a screen or dialog larger than
# the window, a widget a workspace's main task needs that is not in view without scrolling (the
# checks are written to OUT/visibility-<size>.json), an answer that moves when another is chosen,
# when closing the window with unsaved work does not ask, or when the app logs any fyne warning
# (thread misuse included) or crashes.
#
#   scripts/ui-tour.sh [OUT] [SIZES...]      (default: ui-tour, 1024x700 1366x768 1920x1080)
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
OUT=${1:-ui-tour}
shift || true
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(1024x700 1366x768 1920x1080)

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
bin="$OUT/.uitour"
$GO build -ldflags "${LDFLAGS:-}" -o "$bin" ./app/desktop/uitour

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# a display number nobody uses
display=90
while [ -e "/tmp/.X11-unix/X$display" ] || [ -e "/tmp/.X$display-lock" ]; do display=$((display + 1)); done

# A desktop's user folders (xdg-user-dirs): fyne's file dialog lists them and logs an error for
# each one the system does not define, as on a bare server.
mkdir -p "$work/bin"
cat >"$work/bin/xdg-user-dir" <<'SH'
#!/bin/sh
case "$1" in
  DESKTOP) echo "$HOME/Desktop" ;; DOCUMENTS) echo "$HOME/Documents" ;; DOWNLOAD) echo "$HOME/Downloads" ;;
  MUSIC) echo "$HOME/Music" ;; PICTURES) echo "$HOME/Pictures" ;; VIDEOS) echo "$HOME/Videos" ;; *) echo "$HOME" ;;
esac
SH
chmod +x "$work/bin/xdg-user-dir"

status=0
for size in "${SIZES[@]}"; do
  home="$work/home-$size"
  mkdir -p "$home"/{Desktop,Documents,Downloads,Music,Pictures,Videos}
  Xvfb ":$display" -screen 0 "${size}x24" -nolisten tcp >/dev/null 2>&1 &
  xpid=$!
  pids+=("$xpid")
  for _ in $(seq 1 50); do [ -e "/tmp/.X11-unix/X$display" ] && break; sleep 0.1; done
  DISPLAY=":$display" openbox >/dev/null 2>&1 &
  wmpid=$!
  pids+=("$wmpid")
  sleep 0.5
  log="$OUT/log-$size.txt"
  echo "ui-tour: $size"
  # a fresh home: first launch, empty store, default preferences
  # at the largest size, the study step too: the sample project served from the Serve tab, two
  # participants in chromium at once, the roster followed (UITOUR_STUDY=0 leaves it out)
  study=()
  if [ "$size" = "${SIZES[-1]}" ] && [ "${UITOUR_STUDY:-1}" = 1 ] && command -v chromium >/dev/null; then
    study=(-study "$(command -v chromium)")
  fi
  if ! env -u XDG_DATA_HOME -u XDG_CONFIG_HOME -u XDG_CACHE_HOME HOME="$home" DISPLAY=":$display" PATH="$work/bin:$PATH" \
      LANG=C.UTF-8 timeout 900 "$bin" -out "$OUT" -label "$size" "${study[@]}" >"$log" 2>&1; then
    echo "ui-tour: $size: the tour failed (log: $log)"
    grep -E '^(uitour: FAIL|FAIL )' "$log" | head -40 || tail -40 "$log"
    status=1
  fi
  # any fyne warning or error, thread misuse, panic or crash fails the tour
  if grep -nE 'Fyne error|\*\*\* Error in Fyne call thread|called from main goroutine|should have been called in fyne.Do|panic:|SIGSEGV|fatal error' "$log"; then
    echo "ui-tour: $size: warnings in the log above ($log)"
    status=1
  fi
  kill "$wmpid" "$xpid" 2>/dev/null || true
  wait "$wmpid" "$xpid" 2>/dev/null || true
done
rm -f "$bin"
n=$(ls "$OUT"/*.png 2>/dev/null | wc -l)
echo "ui-tour: $n screenshots in $OUT"
exit $status
