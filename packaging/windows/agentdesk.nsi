; Agentdesk's Windows installer (makensis 3, built on Linux by packaging/windows/build.sh).
; Per-user by default: no administrator rights, installed under %LOCALAPPDATA%\Programs.
; Defines passed by build.sh: VERSION (x.y.z), VERSION4 (x.y.z.0), SRC (folder with
; agentdesk.exe, agentdesk.com, agentdesk.ico, NOTICES.txt), OUTFILE.

; A 64-bit installer for the 64-bit app (NSIS 3's amd64 stubs; also what wine64 runs).
Target amd64-unicode
SetCompressor /SOLID lzma
RequestExecutionLevel user
ManifestDPIAware true

!include "MUI2.nsh"
!include "FileFunc.nsh"
!include "WordFunc.nsh"
!include "LogicLib.nsh"

!define APP "Agentdesk"
!define PUBLISHER "Agentdesk"
!define UNINSTKEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\Agentdesk"
!define PROGID "Agentdesk.pkl"

Name "${APP} ${VERSION}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\${APP}"
InstallDirRegKey HKCU "Software\${APP}" "InstallDir"
BrandingText "${APP} ${VERSION}"

VIProductVersion "${VERSION4}"
VIAddVersionKey "ProductName" "${APP}"
VIAddVersionKey "CompanyName" "${PUBLISHER}"
VIAddVersionKey "FileDescription" "${APP} installer"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "LegalCopyright" "© ${PUBLISHER}"

!define MUI_ICON "${SRC}\agentdesk.ico"
!define MUI_UNICON "${SRC}\agentdesk.ico"
!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\agentdesk.exe"
!define MUI_FINISHPAGE_RUN_TEXT "Start ${APP}"
!define MUI_COMPONENTSPAGE_SMALLDESC

!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH

!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_COMPONENTS
!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "English"

Section "${APP} (required)" SecApp
  SectionIn RO
  SetOutPath "$INSTDIR"
  File "${SRC}\agentdesk.exe"
  File "${SRC}\agentdesk.com"
  File "${SRC}\agentdesk.ico"
  File "${SRC}\NOTICES.txt"
  WriteUninstaller "$INSTDIR\uninstall.exe"
  WriteRegStr HKCU "Software\${APP}" "InstallDir" "$INSTDIR"

  CreateDirectory "$SMPROGRAMS\${APP}"
  CreateShortcut "$SMPROGRAMS\${APP}\${APP}.lnk" "$INSTDIR\agentdesk.exe" "" "$INSTDIR\agentdesk.ico"
  CreateShortcut "$SMPROGRAMS\${APP}\Uninstall ${APP}.lnk" "$INSTDIR\uninstall.exe"

  ; Apps & features (per user)
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayName" "${APP}"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTKEY}" "Publisher" "${PUBLISHER}"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayIcon" "$INSTDIR\agentdesk.ico"
  WriteRegStr HKCU "${UNINSTKEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTKEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINSTKEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  WriteRegDWORD HKCU "${UNINSTKEY}" "EstimatedSize" $0
SectionEnd

Section "Desktop shortcut" SecDesktop
  CreateShortcut "$DESKTOP\${APP}.lnk" "$INSTDIR\agentdesk.exe" "" "$INSTDIR\agentdesk.ico"
SectionEnd

Section "Command line: add to PATH" SecPath
  ReadRegStr $0 HKCU "Environment" "Path"
  ${WordFind} "$0" "$INSTDIR" "E+1{" $1
  ${If} ${Errors}
    ${If} $0 == ""
      WriteRegExpandStr HKCU "Environment" "Path" "$INSTDIR"
    ${Else}
      WriteRegExpandStr HKCU "Environment" "Path" "$0;$INSTDIR"
    ${EndIf}
    WriteRegDWORD HKCU "Software\${APP}" "AddedToPath" 1
    SendMessage ${HWND_BROADCAST} ${WM_WININICHANGE} 0 "STR:Environment" /TIMEOUT=1000
  ${EndIf}
SectionEnd

; Off by default: .pkl is every Python pickle, not only Mobile-Env annotations.
Section /o "Open .pkl files with ${APP} (Demonstrations)" SecAssoc
  WriteRegStr HKCU "Software\Classes\${PROGID}" "" "Mobile-Env annotation pickle"
  WriteRegStr HKCU "Software\Classes\${PROGID}\DefaultIcon" "" "$INSTDIR\agentdesk.ico"
  WriteRegStr HKCU "Software\Classes\${PROGID}\shell\open\command" "" '"$INSTDIR\agentdesk.exe" "%1"'
  ReadRegStr $0 HKCU "Software\Classes\.pkl" ""
  WriteRegStr HKCU "Software\${APP}" "PreviousPklClass" "$0"
  WriteRegStr HKCU "Software\Classes\.pkl" "" "${PROGID}"
  WriteRegStr HKCU "Software\Classes\.pkl\OpenWithProgids" "${PROGID}" ""
  WriteRegDWORD HKCU "Software\${APP}" "PklAssociation" 1
  System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)'
SectionEnd

LangString DESC_App ${LANG_ENGLISH} "The app and its command line (agentdesk.com), Start menu entries and an uninstaller."
LangString DESC_Desktop ${LANG_ENGLISH} "A shortcut on the desktop."
LangString DESC_Path ${LANG_ENGLISH} "Lets cmd and PowerShell run `agentdesk ...` from any folder."
LangString DESC_Assoc ${LANG_ENGLISH} "Double-clicking a .pkl file opens it in the Demonstrations workspace. Off by default: .pkl is every Python pickle."
!insertmacro MUI_FUNCTION_DESCRIPTION_BEGIN
  !insertmacro MUI_DESCRIPTION_TEXT ${SecApp} $(DESC_App)
  !insertmacro MUI_DESCRIPTION_TEXT ${SecDesktop} $(DESC_Desktop)
  !insertmacro MUI_DESCRIPTION_TEXT ${SecPath} $(DESC_Path)
  !insertmacro MUI_DESCRIPTION_TEXT ${SecAssoc} $(DESC_Assoc)
!insertmacro MUI_FUNCTION_DESCRIPTION_END

; Silent installs take /DESKTOP=0, /PATH=0 and /PKL=1 to change the defaults.
Function .onInit
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/DESKTOP=" $R1
  ${IfNot} ${Errors}
  ${AndIf} $R1 == "0"
    SectionSetFlags ${SecDesktop} 0
  ${EndIf}
  ClearErrors
  ${GetOptions} $R0 "/PATH=" $R1
  ${IfNot} ${Errors}
  ${AndIf} $R1 == "0"
    SectionSetFlags ${SecPath} 0
  ${EndIf}
  ClearErrors
  ${GetOptions} $R0 "/PKL=" $R1
  ${IfNot} ${Errors}
  ${AndIf} $R1 == "1"
    SectionSetFlags ${SecAssoc} ${SF_SELECTED}
  ${EndIf}
FunctionEnd

Section "un.${APP}" UnSecApp
  SectionIn RO
  Delete "$INSTDIR\agentdesk.exe"
  Delete "$INSTDIR\agentdesk.com"
  Delete "$INSTDIR\agentdesk.ico"
  Delete "$INSTDIR\NOTICES.txt"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  Delete "$SMPROGRAMS\${APP}\${APP}.lnk"
  Delete "$SMPROGRAMS\${APP}\Uninstall ${APP}.lnk"
  RMDir "$SMPROGRAMS\${APP}"
  Delete "$DESKTOP\${APP}.lnk"

  ReadRegDWORD $0 HKCU "Software\${APP}" "AddedToPath"
  ${If} $0 == 1
    ReadRegStr $1 HKCU "Environment" "Path"
    ${WordReplace} "$1" ";$INSTDIR" "" "+" $1
    ${WordReplace} "$1" "$INSTDIR;" "" "+" $1
    ${WordReplace} "$1" "$INSTDIR" "" "+" $1
    WriteRegExpandStr HKCU "Environment" "Path" "$1"
    SendMessage ${HWND_BROADCAST} ${WM_WININICHANGE} 0 "STR:Environment" /TIMEOUT=1000
  ${EndIf}

  ReadRegDWORD $0 HKCU "Software\${APP}" "PklAssociation"
  ${If} $0 == 1
    ReadRegStr $1 HKCU "Software\Classes\.pkl" ""
    ${If} $1 == "${PROGID}"
      ReadRegStr $2 HKCU "Software\${APP}" "PreviousPklClass"
      ${If} $2 == ""
        DeleteRegValue HKCU "Software\Classes\.pkl" ""
      ${Else}
        WriteRegStr HKCU "Software\Classes\.pkl" "" "$2"
      ${EndIf}
    ${EndIf}
    DeleteRegValue HKCU "Software\Classes\.pkl\OpenWithProgids" "${PROGID}"
    DeleteRegKey HKCU "Software\Classes\${PROGID}"
    System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)'
  ${EndIf}

  DeleteRegKey HKCU "${UNINSTKEY}"
  DeleteRegKey HKCU "Software\${APP}"
SectionEnd

; Off by default: the store holds the user's work. A silent uninstall keeps it unless given
; /REMOVEDATA.
Section /o "un.Remove my data (the store, settings and preferences)" UnSecData
  RMDir /r "$LOCALAPPDATA\${APP}"
  RMDir /r "$APPDATA\agentdesk"
SectionEnd

LangString DESC_UnData ${LANG_ENGLISH} "Deletes %LOCALAPPDATA%\Agentdesk (the default store with everything you made) and %APPDATA%\agentdesk. Leave it off to keep your work."
!insertmacro MUI_UNFUNCTION_DESCRIPTION_BEGIN
  !insertmacro MUI_DESCRIPTION_TEXT ${UnSecData} $(DESC_UnData)
!insertmacro MUI_UNFUNCTION_DESCRIPTION_END

Function un.onInit
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/REMOVEDATA" $R1
  ${IfNot} ${Errors}
    SectionSetFlags ${UnSecData} ${SF_SELECTED}
  ${EndIf}
FunctionEnd
