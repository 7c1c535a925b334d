#!/usr/bin/env bash
# Packages a prebuilt agentdesk binary for Linux:
#   DIST/agentdesk-VERSION-linux-amd64.tar.xz  (fyne package: binary, .desktop file, icon, Makefile)
#   DIST/agentdesk_VERSION_amd64.deb           (installs under /usr: menus find it, double click runs it)
# fyne package rewrites FyneApp.toml and drops files into its source folder, so it works on a
# copy in a temporary folder and the work tree stays clean.
# Usage: packaging/package-linux.sh BINARY VERSION DIST
set -euo pipefail
bin=$(realpath "$1"); version=$2; dist=$3
top=$(cd "$(dirname "$0")/.." && pwd)
go="$top/scripts/go.sh"
appid=$(sed -n 's/^ *ID *= *"\(.*\)"/\1/p' "$top/FyneApp.toml")
mkdir -p "$dist"; dist=$(realpath "$dist")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src="$work/src"
mkdir -p "$src/resources"
cp "$top/FyneApp.toml" "$top/main.go" "$top/go.mod" "$src/"
cp "$top/resources/icon.png" "$src/resources/"
cp "$bin" "$src/agentdesk"

# The fyne tool is a tool dependency of packaging/tools/go.mod.
(cd "$top/packaging/tools" && "$go" build -o "$work/fyne" fyne.io/tools/cmd/fyne)
(cd "$src" && "$work/fyne" package --os linux --exe "$src/agentdesk" --src "$src" --release)
tarball="$dist/agentdesk-$version-linux-amd64.tar.xz"
mv "$src/Agentdesk.tar.xz" "$tarball"

# The .deb carries the same files, under /usr as Debian policy wants.
root="$work/deb"
mkdir -p "$work/x" "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/applications" \
  "$root/usr/share/icons/hicolor/512x512/apps" "$root/usr/share/pixmaps" "$root/usr/share/doc/agentdesk"
tar -xJf "$tarball" -C "$work/x"
inner="$work/x/agentdesk/usr/local"
install -m 0755 "$inner/bin/agentdesk" "$root/usr/bin/agentdesk"
install -m 0644 "$inner/share/applications/$appid.desktop" "$root/usr/share/applications/$appid.desktop"
install -m 0644 "$inner/share/pixmaps/$appid.png" "$root/usr/share/icons/hicolor/512x512/apps/$appid.png"
install -m 0644 "$inner/share/pixmaps/$appid.png" "$root/usr/share/pixmaps/$appid.png"
{
  echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
  echo "Upstream-Name: Agentdesk"
  echo
  echo "Files: *"
  echo "Copyright: the Agentdesk authors"
  echo "License: see the About screen in the app for the licences of the modules it is built from"
} > "$root/usr/share/doc/agentdesk/copyright"
size=$(du -sk "$root/usr" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: agentdesk
Version: $version
Section: science
Priority: optional
Architecture: amd64
Installed-Size: $size
Depends: libc6, libgl1, libx11-6, libxcursor1, libxrandr2, libxinerama1, libxi6, libxxf86vm1, libfreetype6, libjpeg62-turbo | libjpeg62, fonts-noto-cjk | fonts-wqy-microhei
Maintainer: Agentdesk developers <dev@agentdesk.dev>
Homepage: https://agentdesk.dev
Description: desktop workbench for making and judging data for AI agents
 Agentdesk builds and replays voxel-world episodes, edits Mobile-Env demonstrations,
 designs task templates, runs local human-evaluation sessions and explores GUI
 episode datasets, all over one local SQLite store, with a command line that does
 everything the original tools did.
CONTROL
deb="$dist/agentdesk_${version}_amd64.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "packaged:"
ls -la "$tarball" "$deb"
