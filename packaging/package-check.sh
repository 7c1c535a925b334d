#!/usr/bin/env bash
# Smoke test of the .deb: install it into a temporary root, validate its .desktop file, start the
# installed binary under Xvfb with an empty home, and check it reaches its main window in 10 s.
# Usage: packaging/package-check.sh DEB
set -euo pipefail
deb=$(realpath "$1")
root=$(mktemp -d)
home=$(mktemp -d)
cleanup() {
  [ -n "${app:-}" ] && kill "$app" 2>/dev/null || true
  [ -n "${xvfb:-}" ] && kill "$xvfb" 2>/dev/null || true
  rm -rf "$root" "$home"
}
trap cleanup EXIT
fail() { echo "package-check: FAIL: $*" >&2; exit 1; }

dpkg-deb --info "$deb" | grep -q "Package: agentdesk" || fail "not an agentdesk package"
dpkg-deb -x "$deb" "$root"
for f in usr/bin/agentdesk usr/share/applications/*.desktop usr/share/icons/hicolor/512x512/apps/*.png; do
  compgen -G "$root/$f" >/dev/null || fail "$f missing from the package"
done
desktop=$(ls "$root"/usr/share/applications/*.desktop)
desktop-file-validate "$desktop" || fail "desktop-file-validate rejected $(basename "$desktop")"
exec_name=$(sed -n 's/^Exec=\([^ ]*\).*/\1/p' "$desktop")
icon_name=$(sed -n 's/^Icon=//p' "$desktop")
[ -x "$root/usr/bin/$exec_name" ] || fail "Exec=$exec_name is not an installed binary"
[ -f "$root/usr/share/icons/hicolor/512x512/apps/$icon_name.png" ] || fail "Icon=$icon_name is not installed"
"$root/usr/bin/agentdesk" version >/dev/null || fail "installed binary does not run"

display=":$((90 + RANDOM % 400))"
Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
sleep 1
log="$home/app.log"
start=$(date +%s%N)
LANG=C.UTF-8 HOME="$home" XDG_DATA_HOME="$home/data" XDG_CONFIG_HOME="$home/config" DISPLAY="$display" \
  "$root/usr/bin/agentdesk" >"$log" 2>&1 &
app=$!
for _ in $(seq 1 100); do
  grep -q "agentdesk: main window shown" "$log" && break
  kill -0 "$app" 2>/dev/null || { cat "$log" >&2; fail "the app exited before showing its window"; }
  sleep 0.1
done
grep -q "agentdesk: main window shown" "$log" || { cat "$log" >&2; fail "no main window within 10 s"; }
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
[ -f "$home/data/agentdesk/agentdesk.db" ] || fail "the default store was not created"
! grep -q "Fyne error" "$log" || { cat "$log" >&2; fail "the app logged an error at start"; }
echo "package-check: OK: $(basename "$deb") installs, its .desktop file validates, and the installed app showed its main window in ${elapsed} ms"
