; LLM Scout for Windows: a per-user installer (no administrator prompt).
;
; Built by `python packaging/build.py nsis --payload dist\llm-scout` on the Windows runner
; (.github/workflows/windows-release.yml), and on Linux CI around a stand-in payload
; (`make package-windows`) with warnings as errors:
;
;   makensis -WX -DVERSION=0.1.0 -DPAYLOAD=<frozen folder> -DOUTFILE=<setup.exe> [-DICON=<.ico>]
;            packaging/windows/llm-scout.nsi
;
; Installs into %LOCALAPPDATA%\Programs\LLM Scout, adds Start-menu and desktop shortcuts, an
; "Apps & features" entry and "Open with LLM Scout" for .gguf files (the user's default program
; for .gguf is left alone when there is one). The uninstaller removes the program and keeps the
; user's data (%LOCALAPPDATA%\llm-scout: downloaded models, settings, history) unless its box is
; ticked.

Unicode true
ManifestDPIAware true

!include "MUI2.nsh"
!include "FileFunc.nsh"
!include "LogicLib.nsh"

!ifndef VERSION
  !define VERSION "0.0.0"
!endif
!ifndef PAYLOAD
  !define PAYLOAD "..\..\dist\llm-scout"
!endif
!ifndef OUTFILE
  !define OUTFILE "llm-scout-${VERSION}-windows-x86_64-setup.exe"
!endif

!define APP_NAME "LLM Scout"
!define APP_EXE "llm-scout.exe"
!define APP_KEY "LLMScout"
!define PROG_ID "LLMScout.gguf"
!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APP_KEY}"
; platformdirs' user_data_dir("llm-scout", appauthor=False): models, settings, cache, logs.
!define DATA_DIR "$LOCALAPPDATA\llm-scout"

Name "${APP_NAME}"
OutFile "${OUTFILE}"
RequestExecutionLevel user
InstallDir "$LOCALAPPDATA\Programs\${APP_NAME}"
InstallDirRegKey HKCU "${UNINSTALL_KEY}" "InstallLocation"
SetCompressor /SOLID lzma
BrandingText "${APP_NAME} ${VERSION}"

VIProductVersion "${VERSION}.0"
VIAddVersionKey /LANG=0 "ProductName" "${APP_NAME}"
VIAddVersionKey /LANG=0 "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=0 "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=0 "FileDescription" "${APP_NAME} installer"
VIAddVersionKey /LANG=0 "LegalCopyright" "LLM Scout developers, MIT License"

!ifdef ICON
  !define MUI_ICON "${ICON}"
  !define MUI_UNICON "${ICON}"
!endif
!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\${APP_EXE}"
!define MUI_FINISHPAGE_RUN_PARAMETERS "gui"

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH

!insertmacro MUI_UNPAGE_CONFIRM
!define MUI_COMPONENTSPAGE_NODESC
!insertmacro MUI_UNPAGE_COMPONENTS
!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "English"
!insertmacro MUI_LANGUAGE "SimpChinese"

LangString UN_PROGRAM ${LANG_ENGLISH} "LLM Scout (the program)"
LangString UN_PROGRAM ${LANG_SIMPCHINESE} "LLM Scout（程序）"
LangString UN_DATA ${LANG_ENGLISH} "Also delete downloaded models, settings and history (%LOCALAPPDATA%\llm-scout)"
LangString UN_DATA ${LANG_SIMPCHINESE} "同时删除已下载的模型、设置和历史记录（%LOCALAPPDATA%\llm-scout）"
LangString OPEN_WITH ${LANG_ENGLISH} "Open with LLM Scout"
LangString OPEN_WITH ${LANG_SIMPCHINESE} "用 LLM Scout 打开"
LangString GGUF_TYPE ${LANG_ENGLISH} "GGUF model"
LangString GGUF_TYPE ${LANG_SIMPCHINESE} "GGUF 模型"

Section "-${APP_NAME}" SecProgram
  SetOutPath "$INSTDIR"
  ; An update replaces the program's files; the user's data lives elsewhere (DATA_DIR).
  RMDir /r "$INSTDIR\_internal"
  File /r "${PAYLOAD}\*.*"
  WriteUninstaller "$INSTDIR\uninstall.exe"

  CreateShortcut "$SMPROGRAMS\${APP_NAME}.lnk" "$INSTDIR\${APP_EXE}" "gui" "$INSTDIR\${APP_EXE}" 0
  CreateShortcut "$DESKTOP\${APP_NAME}.lnk" "$INSTDIR\${APP_EXE}" "gui" "$INSTDIR\${APP_EXE}" 0

  ; .gguf: "Open with LLM Scout" for this user (HKCU\Software\Classes, no administrator needed).
  WriteRegStr HKCU "Software\Classes\${PROG_ID}" "" "$(GGUF_TYPE)"
  WriteRegStr HKCU "Software\Classes\${PROG_ID}\DefaultIcon" "" "$INSTDIR\${APP_EXE},0"
  WriteRegStr HKCU "Software\Classes\${PROG_ID}\shell\open" "" "$(OPEN_WITH)"
  WriteRegStr HKCU "Software\Classes\${PROG_ID}\shell\open\command" "" '"$INSTDIR\${APP_EXE}" gui "%1"'
  WriteRegStr HKCU "Software\Classes\.gguf\OpenWithProgids" "${PROG_ID}" ""
  WriteRegStr HKCU "Software\Classes\Applications\${APP_EXE}" "FriendlyAppName" "${APP_NAME}"
  WriteRegStr HKCU "Software\Classes\Applications\${APP_EXE}\SupportedTypes" ".gguf" ""
  WriteRegStr HKCU "Software\Classes\Applications\${APP_EXE}\shell\open\command" "" '"$INSTDIR\${APP_EXE}" gui "%1"'
  ; No program opens .gguf yet: LLM Scout becomes the default (a double-click opens it).
  ReadRegStr $0 HKCR ".gguf" ""
  ${If} $0 == ""
    WriteRegStr HKCU "Software\Classes\.gguf" "" "${PROG_ID}"
  ${EndIf}
  System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)'

  ; Apps & features
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayName" "${APP_NAME}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "Publisher" "LLM Scout developers"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayIcon" "$INSTDIR\${APP_EXE},0"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINSTALL_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  IntFmt $0 "0x%08X" $0
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "EstimatedSize" "$0"
SectionEnd

Section "un.$(UN_PROGRAM)" SecUnProgram
  SectionIn RO
  Delete "$SMPROGRAMS\${APP_NAME}.lnk"
  Delete "$DESKTOP\${APP_NAME}.lnk"
  RMDir /r "$INSTDIR\_internal"
  Delete "$INSTDIR\llm-scout.exe"
  Delete "$INSTDIR\llm-scout-cli.exe"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"

  DeleteRegKey HKCU "Software\Classes\${PROG_ID}"
  DeleteRegValue HKCU "Software\Classes\.gguf\OpenWithProgids" "${PROG_ID}"
  DeleteRegKey /ifempty HKCU "Software\Classes\.gguf\OpenWithProgids"
  ReadRegStr $0 HKCU "Software\Classes\.gguf" ""
  ${If} $0 == "${PROG_ID}"
    DeleteRegValue HKCU "Software\Classes\.gguf" ""
  ${EndIf}
  DeleteRegKey /ifempty HKCU "Software\Classes\.gguf"
  DeleteRegKey HKCU "Software\Classes\Applications\${APP_EXE}"
  DeleteRegKey HKCU "${UNINSTALL_KEY}"
  System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)'
SectionEnd

; Unticked unless the user ticks it: models are large and slow to download again.
Section /o "un.$(UN_DATA)" SecUnData
  RMDir /r "${DATA_DIR}"
SectionEnd
