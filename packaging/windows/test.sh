#!/usr/bin/env bash
# The Windows checks (make test-windows): the Windows build run under Debian's wine with Xvfb.
#   1. agentdesk.com (console twin) and agentdesk.exe (GUI subsystem, output redirected) give
#      the Linux build's output: version, gridworld bench --json keys, pickle info on the public
#      pickles, template parse on the public cases, odyssey import + score on the sample;
#   2. a store in a folder with spaces and non-ASCII characters; CRLF-free output;
#   3. saving over a file another program holds open: a clear error, the original intact;
#   4. the GUI reaches its main window (the ready line), with a screenshot;
#   5. the installer installs silently per user (files, Start menu, uninstall entry), the
#      installed app starts, the uninstaller removes it and keeps the user's data.
# Usage: packaging/windows/test.sh DIST LINUX_BIN SHOTS_DIR VERSION
# Needs wine, Xvfb, mingw (for the two test-only helpers), imagemagick.
set -euo pipefail
cd "$(dirname "$0")/../.."
dist=$(realpath "$1")
linux=$(realpath "$2")
shots=$3
mkdir -p "$shots"
shots=$(realpath "$shots")
ver=$4
win="$dist/windows" # agentdesk.com, the console twin the installer ships
setup="$dist/agentdesk-$ver-windows-amd64-setup.exe"
portable="$dist/agentdesk-$ver-windows-amd64.exe"
[ -f "$setup" ] && [ -f "$portable" ] || { echo "test-windows: no $setup or $portable (make package-windows)" >&2; exit 1; }

tmp=$(mktemp -d)
export WINEPREFIX="$tmp/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" LANG=C.UTF-8
display=":$((100 + RANDOM % 400))"
cleanup() {
  [ -n "${holder:-}" ] && kill "$holder" 2>/dev/null || true
  [ -n "${app:-}" ] && kill "$app" 2>/dev/null || true
  wineserver -k 2>/dev/null || true
  [ -n "${xvfb:-}" ] && kill "$xvfb" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "test-windows: FAIL: $*" >&2; exit 1; }
ok() { echo "test-windows: ok: $*"; }
t0=$(date +%s)

Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
export DISPLAY=$display

# A fresh prefix, with the test-only ProcessPrng stand-in wine 8 lacks (see prng_shim.c).
wineboot --init >/dev/null 2>&1 || true
wineserver -w
x86_64-w64-mingw32-gcc -shared -O2 -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
  packaging/windows/prng_shim.c -ladvapi32
x86_64-w64-mingw32-gcc -municode -O2 -o "$tmp/hold_file.exe" packaging/windows/hold_file.c
ok "wine prefix ready in $(( $(date +%s) - t0 )) s"

# Every command runs from the repository root (Z:), with relative paths, as the Linux one.
data="$tmp/Däta mit Leerzeichen"
mkdir -p "$data"
wdata=$(winepath -w "$data")
export AGENTDESK_DATA="$wdata" AGENTDESK_CONFIG_DIR="$(winepath -w "$tmp")\\config"
wcom() { wine "$win/agentdesk.com" "$@" 2>"$tmp/stderr" | tr -d '\r'; }
lin() { AGENTDESK_DATA="$tmp/linux-data" AGENTDESK_CONFIG_DIR="$tmp/linux-config" "$linux" "$@" 2>/dev/null; }
same() { # what: the two outputs must be equal
  if ! diff -u "$tmp/linux.out" "$tmp/windows.out" >"$tmp/diff"; then
    head -40 "$tmp/diff" >&2
    fail "$1: the Windows output differs from the Linux output"
  fi
}

lin version >"$tmp/linux.out"
wine "$win/agentdesk.com" version >"$tmp/raw.out" 2>"$tmp/stderr"
if grep -q $'\r' "$tmp/raw.out"; then fail "version: CRLF line endings"; fi
tr -d '\r' <"$tmp/raw.out" >"$tmp/windows.out"
same "version"
wine "$portable" version >"$tmp/gui.out" 2>&1
tr -d '\r' <"$tmp/gui.out" | diff -q - "$tmp/linux.out" >/dev/null || fail "agentdesk.exe version (redirected) differs"
ok "version: $(cat "$tmp/linux.out")"

wcom gridworld bench --steps 20000 --json >"$tmp/bench.json" || fail "gridworld bench --json: $(cat "$tmp/stderr")"
/usr/bin/python3 - "$tmp/bench.json" <<'PY' || fail "gridworld bench --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"steps_per_second", "resets_per_second", "intersection_us"}, d
assert all(v > 0 for v in d.values()), d
print("test-windows: ok: gridworld bench:", ", ".join("%s %.0f" % kv for kv in d.items()))
PY

n=0
for p in testdata/conformance/mobileenv/pickles/inputs/*.pkl; do
  lin pickle info "$p" >"$tmp/linux.out" || true
  wcom pickle info "$p" >"$tmp/windows.out" || true
  same "pickle info $p"
  lin pickle info --json "$p" >"$tmp/linux.out" || true
  wcom pickle info --json "$p" >"$tmp/windows.out" || true
  same "pickle info --json $p"
  n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no public pickles"
ok "pickle info: $n files, the same output"

n=0
for c in testdata/conformance/templates/cases/*/; do
  # the stdout form only (a case whose argv has OUTFILE writes a file instead)
  args=$(/usr/bin/python3 -c 'import json,sys; a=json.load(open(sys.argv[1]+"args.json"))["argv"]; sys.exit(3) if "OUTFILE" in a else print("\n".join(a))' "$c") || continue
  mapfile -t argv <<<"$args"
  (cd "$c" && lin template parse "${argv[@]}") >"$tmp/linux.out" || true
  (cd "$c" && wcom template parse "${argv[@]}") >"$tmp/windows.out" || true
  same "template parse $c"
  n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no public template cases"
ok "template parse: $n cases, the same output"

store="$data/odyssey store.db"
wstore=$(winepath -w "$store")
wcom --store "$wstore" odyssey import testdata/conformance/odyssey/sample >/dev/null || { cat "$tmp/stderr" >&2; fail "odyssey import into $wstore"; }
lin --store "$tmp/linux.db" odyssey import testdata/conformance/odyssey/sample >/dev/null
n=0
for pred in testdata/conformance/odyssey/e2e/predictions_high_*_split.json; do
  lin --store "$tmp/linux.db" odyssey score "$pred" >"$tmp/linux.out" || true
  wcom --store "$wstore" odyssey score "$pred" >"$tmp/windows.out" || true
  same "odyssey score $pred"
  n=$((n + 1))
done
[ -f "$store" ] || fail "the store was not created at $store"
ok "odyssey import and score: $n prediction files, the same output; store in '$wstore'"

# Saving over a file another program holds open: a clear error, the original intact.
cp testdata/conformance/mobileenv/pickles/inputs/synthetic_documented.pkl "$data/open file.pkl"
before=$(sha256sum "$data/open file.pkl" | cut -d' ' -f1)
mkfifo "$tmp/hold_in"
wine "$tmp/hold_file.exe" "$(winepath -w "$data/open file.pkl")" <"$tmp/hold_in" >"$tmp/hold_out" 2>&1 &
holder=$!
exec 7>"$tmp/hold_in"
for _ in $(seq 1 100); do grep -q holding "$tmp/hold_out" && break; sleep 0.1; done
grep -q holding "$tmp/hold_out" || fail "the holding program did not open the file"
if wcom pickle edit "$(winepath -w "$data/open file.pkl")" 0:delete:1:2 >"$tmp/windows.out"; then
  fail "pickle edit replaced a file another program holds open"
fi
grep -qi "open in another program\|being used by another process" "$tmp/stderr" || { cat "$tmp/stderr" >&2; fail "no clear error for a file held open"; }
after=$(sha256sum "$data/open file.pkl" | cut -d' ' -f1)
[ "$before" = "$after" ] || fail "the file held open was changed"
exec 7>&-
wait "$holder" || true
holder=
ok "saving over a file held open: '$(head -1 "$tmp/stderr" | tr -d '\r')', the file unchanged"

# The GUI reaches its main window.
start_gui() { # exe log
  : >"$2"
  wine "$1" >"$2" 2>&1 &
  app=$!
  for _ in $(seq 1 600); do
    grep -q "agentdesk: main window shown" "$2" && return 0
    kill -0 "$app" 2>/dev/null || { cat "$2" >&2; return 1; }
    sleep 0.1
  done
  cat "$2" >&2
  return 1
}
stop_gui() { kill "$app" 2>/dev/null || true; wait "$app" 2>/dev/null || true; app=; wineserver -k 2>/dev/null || true; }
gt=$(date +%s)
start_gui "$portable" "$tmp/gui.log" || fail "the portable agentdesk.exe did not show its main window within 60 s"
sleep 3
xwd -root -display "$display" | convert xwd:- "png:$shots/portable.png"
ok "portable agentdesk.exe showed its main window in $(( $(date +%s) - gt )) s; screenshot $shots/portable.png"
stop_gui

# The installer: silent, per user; the installed app starts with the default store; the
# uninstaller removes the app and keeps the user's data unless asked (/REMOVEDATA).
wine "$setup" /S /PKL=1 || fail "the installer failed"
wineserver -w
inst=$(dirname "$(find "$WINEPREFIX/drive_c/users" -path '*/Programs/Agentdesk/agentdesk.exe' | head -1)")
[ -n "$inst" ] && [ "$inst" != . ] || fail "agentdesk.exe not installed under the user's Programs folder"
for f in agentdesk.exe agentdesk.com agentdesk.ico NOTICES.txt uninstall.exe; do
  [ -f "$inst/$f" ] || fail "$f not installed (in $inst)"
done
find "$WINEPREFIX/drive_c/users" -path '*Start Menu/Programs/Agentdesk/Agentdesk.lnk' | grep -q . || fail "no Start-menu shortcut"
wine reg query 'HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\Agentdesk' /v DisplayVersion 2>/dev/null | tr -d '\r' | grep -q "$ver" \
  || fail "no uninstall entry with version $ver"
wine reg query 'HKCU\Software\Classes\.pkl' /ve 2>/dev/null | tr -d '\r' | grep -q "Agentdesk.pkl" || fail "the opted-in .pkl association is missing"
ok "installer: files in ${inst#$WINEPREFIX/}, Start menu entry, uninstall entry $ver, .pkl association (opted in)"
unset AGENTDESK_DATA AGENTDESK_CONFIG_DIR # the installed app uses the default store
gt=$(date +%s)
start_gui "$inst/agentdesk.exe" "$tmp/inst.log" || fail "the installed agentdesk.exe did not show its main window"
sleep 3
xwd -root -display "$display" | convert xwd:- "png:$shots/installed.png"
ok "installed app showed its main window in $(( $(date +%s) - gt )) s; screenshot $shots/installed.png"
stop_gui
userdata=$(find "$WINEPREFIX/drive_c/users" -path '*AppData/Local/Agentdesk/agentdesk.db' | head -1)
[ -n "$userdata" ] || fail "the installed app created no default store under %LOCALAPPDATA%\\Agentdesk"
wine "$inst/uninstall.exe" /S _?="$(winepath -w "$inst")" || fail "the uninstaller failed"
wineserver -w
[ ! -f "$inst/agentdesk.exe" ] || fail "the uninstaller left agentdesk.exe"
if wine reg query 'HKCU\Software\Classes\.pkl' /ve 2>/dev/null | tr -d '\r' | grep -q "Agentdesk.pkl"; then
  fail "the uninstaller left the .pkl association"
fi
[ -f "$userdata" ] || fail "the uninstaller removed the user's store"
ok "uninstaller: app and association removed, the user's store kept"
wine "$setup" /S || fail "the second install failed"
wineserver -w
wine "$inst/uninstall.exe" /S /REMOVEDATA _?="$(winepath -w "$inst")" || fail "the uninstaller (/REMOVEDATA) failed"
wineserver -w
[ ! -e "$userdata" ] || fail "/REMOVEDATA kept the store"
ok "uninstaller with /REMOVEDATA: the store removed as asked"
echo "test-windows: OK in $(( $(date +%s) - t0 )) s"
