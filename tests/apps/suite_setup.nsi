; suite_setup.nsi - an installer as NSIS users ship them (Modern UI 2), for the
; real-program suite: a language choice, the licence with its check box, components with
; check boxes (a read-only one, and a group that shows a mixed state), the folder, the
; progress of the install, a finish page with a check box, and Cancel that asks first.
;
;   makensis -DOUTFILE=PATH -DLICENCE=PATH suite_setup.nsi
;
; What it leaves, for the suite's judges: in the chosen folder program.txt (always),
; manual.txt and samples.txt (the components of those names), and under
; HKCU\Software\WinagentSuiteSetup the values InstallDir, Language (1033 English, 1031
; German), Components (the names installed, comma-separated) and, when the finish page's
; check box was left checked, Launched = "yes".

Unicode true
Target amd64-unicode ; no 32-bit Wine on the test machine
SetCompressor /SOLID lzma

!include "MUI2.nsh"

Name "Suite Notes"
OutFile "${OUTFILE}"
InstallDir "$PROFILE\Suite Notes"
RequestExecutionLevel user
BrandingText "Suite Notes Setup"

!define REGKEY "Software\WinagentSuiteSetup"

!define MUI_ABORTWARNING
!define MUI_LANGDLL_ALLLANGUAGES
!define MUI_COMPONENTSPAGE_SMALLDESC

!define MUI_LICENSEPAGE_CHECKBOX
!insertmacro MUI_PAGE_LICENSE "${LICENCE}"
!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!define MUI_FINISHPAGE_RUN
!define MUI_FINISHPAGE_RUN_TEXT "Start Suite Notes"
!define MUI_FINISHPAGE_RUN_FUNCTION launched
!insertmacro MUI_PAGE_FINISH

!insertmacro MUI_LANGUAGE "English"
!insertmacro MUI_LANGUAGE "German"

Var components

Function .onInit
  !insertmacro MUI_LANGDLL_DISPLAY
FunctionEnd

Function launched
  WriteRegStr HKCU "${REGKEY}" "Launched" "yes"
FunctionEnd

Section "Program" SecProgram
  SectionIn RO
  SetOutPath "$INSTDIR"
  FileOpen $0 "$INSTDIR\program.txt" w
  FileWrite $0 "Suite Notes$\r$\n"
  FileClose $0
  StrCpy $components "Program"
SectionEnd

SectionGroup /e "Extras" SecExtras
  Section "Manual" SecManual
    FileOpen $0 "$INSTDIR\manual.txt" w
    FileWrite $0 "How to use Suite Notes$\r$\n"
    FileClose $0
    StrCpy $components "$components,Manual"
  SectionEnd
  Section /o "Samples" SecSamples
    FileOpen $0 "$INSTDIR\samples.txt" w
    FileWrite $0 "A sample note$\r$\n"
    FileClose $0
    StrCpy $components "$components,Samples"
  SectionEnd
SectionGroupEnd

Section "-registry"
  WriteRegStr HKCU "${REGKEY}" "InstallDir" "$INSTDIR"
  WriteRegStr HKCU "${REGKEY}" "Language" "$LANGUAGE"
  WriteRegStr HKCU "${REGKEY}" "Components" "$components"
SectionEnd

LangString DESC_Program ${LANG_ENGLISH} "The program itself (always installed)."
LangString DESC_Program ${LANG_GERMAN} "Das Programm selbst (immer installiert)."
LangString DESC_Manual ${LANG_ENGLISH} "The manual, as a text file."
LangString DESC_Manual ${LANG_GERMAN} "Das Handbuch als Textdatei."
LangString DESC_Samples ${LANG_ENGLISH} "A sample note."
LangString DESC_Samples ${LANG_GERMAN} "Eine Beispielnotiz."

!insertmacro MUI_FUNCTION_DESCRIPTION_BEGIN
  !insertmacro MUI_DESCRIPTION_TEXT ${SecProgram} $(DESC_Program)
  !insertmacro MUI_DESCRIPTION_TEXT ${SecManual} $(DESC_Manual)
  !insertmacro MUI_DESCRIPTION_TEXT ${SecSamples} $(DESC_Samples)
!insertmacro MUI_FUNCTION_DESCRIPTION_END
