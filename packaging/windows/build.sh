#!/usr/bin/env bash
# Builds Agentdesk for Windows on Linux: the GUI-subsystem agentdesk.exe (the portable exe),
# its console-subsystem twin agentdesk.com (what cmd and PowerShell run for `agentdesk ...`),
# both with the app icon and version information, and the NSIS installer.
# Usage: packaging/windows/build.sh APPVER DIST   (GO, LDFLAGS from the environment)
# Writes DIST/agentdesk-APPVER-windows-amd64.exe and DIST/agentdesk-APPVER-windows-amd64-setup.exe,
# and keeps the console twin in DIST/windows/ for the Windows checks (make test-windows).
set -euo pipefail
cd "$(dirname "$0")/../.."
ver=$1
dist=$2
go=${GO:-go}
ldflags=${LDFLAGS:-}
[[ $ver =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "build.sh: version $ver is not x.y.z" >&2; exit 2; }
ver4="$ver.0"
commas=${ver4//./,}
work=$(mktemp -d)
syso=zz_agentdesk_windows_amd64.syso # linked into the Windows builds of package main only
trap 'rm -rf "$work"; rm -f "$syso"' EXIT
mkdir -p "$dist/windows"

convert resources/icon.png -define icon:auto-resize=256,128,64,48,32,16 "$work/agentdesk.ico"
cat > "$work/agentdesk.rc" <<RC
#include <winver.h>
1 ICON "agentdesk.ico"
1 24 "agentdesk.manifest"
VS_VERSION_INFO VERSIONINFO
FILEVERSION $commas
PRODUCTVERSION $commas
FILEOS VOS_NT_WINDOWS32
FILETYPE VFT_APP
BEGIN
  BLOCK "StringFileInfo"
  BEGIN
    BLOCK "040904b0"
    BEGIN
      VALUE "CompanyName", "Agentdesk"
      VALUE "FileDescription", "Agentdesk: a workbench for data for AI agents"
      VALUE "FileVersion", "$ver"
      VALUE "InternalName", "agentdesk"
      VALUE "OriginalFilename", "agentdesk.exe"
      VALUE "ProductName", "Agentdesk"
      VALUE "ProductVersion", "$ver"
    END
  END
  BLOCK "VarFileInfo"
  BEGIN
    VALUE "Translation", 0x409, 1200
  END
END
RC
cat > "$work/agentdesk.manifest" <<'XML'
<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<assembly xmlns="urn:schemas-microsoft-com:asm.v1" manifestVersion="1.0">
  <assemblyIdentity type="win32" name="Agentdesk" version="1.0.0.0" processorArchitecture="amd64"/>
  <trustInfo xmlns="urn:schemas-microsoft-com:asm.v3">
    <security><requestedPrivileges><requestedExecutionLevel level="asInvoker" uiAccess="false"/></requestedPrivileges></security>
  </trustInfo>
  <application xmlns="urn:schemas-microsoft-com:asm.v3">
    <windowsSettings>
      <activeCodePage xmlns="http://schemas.microsoft.com/SMI/2019/WindowsSettings">UTF-8</activeCodePage>
      <longPathAware xmlns="http://schemas.microsoft.com/SMI/2016/WindowsSettings">true</longPathAware>
    </windowsSettings>
  </application>
</assembly>
XML
(cd "$work" && x86_64-w64-mingw32-windres -O coff -i agentdesk.rc -o agentdesk.syso)
cp "$work/agentdesk.syso" "$syso"

export CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC=x86_64-w64-mingw32-gcc
$go build -trimpath -ldflags "-s -w -H=windowsgui $ldflags" -o "$work/agentdesk.exe" .
$go build -trimpath -ldflags "-s -w $ldflags" -o "$work/agentdesk.com" .
unset CGO_ENABLED GOOS GOARCH CC

/usr/bin/python3 - "$work/NOTICES.txt" <<'PY'
import json, sys
mods = json.load(open("resources/licenses.json"))
with open(sys.argv[1], "w", newline="\r\n") as f:
    f.write("Agentdesk includes the following software, under these licences.\n\n")
    for m in mods:
        f.write("=" * 72 + "\n%s %s (%s)\n\n%s\n\n" % (m["module"], m.get("version", ""), m.get("license", ""), m.get("text", "").strip()))
PY

cp "$work/agentdesk.com" "$dist/windows/"
cp "$work/agentdesk.exe" "$dist/agentdesk-$ver-windows-amd64.exe"
makensis -V2 -DVERSION="$ver" -DVERSION4="$ver4" -DSRC="$work" \
  -DOUTFILE="$(realpath "$dist")/agentdesk-$ver-windows-amd64-setup.exe" packaging/windows/agentdesk.nsi
ls -l "$dist/agentdesk-$ver-windows-amd64.exe" "$dist/agentdesk-$ver-windows-amd64-setup.exe"
