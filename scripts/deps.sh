#!/usr/bin/env bash
# Installs the Debian/Ubuntu system packages Agentdesk needs, and nothing when they are present.
# Usage: scripts/deps.sh build|test|package|windows|wine|wheel|go ...
# Runs apt-get through sudo when not root. Safe to run repeatedly.
set -euo pipefail

# libjpeg-dev is Debian's and Ubuntu's name for the libjpeg-turbo headers (Debian 12:
# libjpeg62-turbo-dev; Ubuntu: libjpeg-turbo8-dev): frames are saved through libjpeg-turbo.
build_pkgs=(gcc pkg-config libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev
  libxi-dev libxxf86vm-dev libxext-dev libxrender-dev libfreetype-dev libjpeg-dev)
# openbox, wmctrl, x11-apps (xwd) and imagemagick: the UI tour's window manager, close request
# and screenshots (scripts/ui-tour.sh); chromium: the study pages' tests in a real browser
# (ui/web, driven with chromedp); python3-pytest: the Python package's tests (bindings/python);
# python3-cloudpickle and python3-typing-extensions: the vendored Gymnasium's dependencies
# besides NumPy (../shared/vendor/python)
test_pkgs=(xvfb xauth libgl1-mesa-dri python3-numpy python3-pil ffmpeg fonts-wqy-microhei openbox wmctrl x11-apps imagemagick
  chromium python3-pytest python3-cloudpickle python3-typing-extensions)
package_pkgs=(xz-utils desktop-file-utils dpkg-dev x11-apps imagemagick)
# the Windows build (mingw, windres), its icon (imagemagick) and installer (nsis); running it
# under wine with a virtual display for make test-windows
windows_pkgs=(gcc-mingw-w64-x86-64-posix binutils-mingw-w64-x86-64 nsis imagemagick python3)
wine_pkgs=(wine wine64 xvfb xauth x11-apps imagemagick)
# the Python package's wheel (make wheel) and its install check in a venv
wheel_pkgs=(python3-setuptools python3-wheel python3-venv python3-pip python3-numpy)
go_pkgs=(golang-go ca-certificates git)

want=()
for group in "$@"; do
  case "$group" in
    build) want+=("${build_pkgs[@]}") ;;
    test) want+=("${build_pkgs[@]}" "${test_pkgs[@]}") ;;
    package) want+=("${build_pkgs[@]}" "${test_pkgs[@]}" "${package_pkgs[@]}") ;;
    windows) want+=("${build_pkgs[@]}" "${windows_pkgs[@]}") ;;
    wine) want+=("${wine_pkgs[@]}") ;;
    wheel) want+=("${wheel_pkgs[@]}") ;;
    go) want+=("${go_pkgs[@]}") ;;
    *) echo "deps.sh: unknown group '$group' (build, test, package, windows, wine, wheel, go)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# de-duplicate
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)

if ! command -v apt-get >/dev/null 2>&1; then
  echo "deps.sh: missing system packages (${missing[*]}) and no apt-get to install them." >&2
  echo "Install the equivalents with your system's package manager." >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
