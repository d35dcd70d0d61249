#!/usr/bin/env bash
# The shipped exe is static: it may import only DLLs that every Windows has.
set -euo pipefail
allowed=" kernel32.dll user32.dll gdi32.dll advapi32.dll msvcrt.dll ucrtbase.dll ws2_32.dll
 crypt32.dll bcrypt.dll secur32.dll ole32.dll oleaut32.dll oleacc.dll shell32.dll
 shlwapi.dll dwmapi.dll comctl32.dll comdlg32.dll uxtheme.dll psapi.dll shcore.dll
 rpcrt4.dll iphlpapi.dll normaliz.dll wldap32.dll ntdll.dll version.dll winmm.dll "
allowed=" $(echo $allowed) "  # one line, single spaces: every name is matched as " name "
status=0
for exe in "$WINAGENT_EXE" "$TESTAPP_EXE"; do
    [ -f "$exe" ] || { echo "missing $exe"; exit 1; }
    dlls=$(x86_64-w64-mingw32-objdump -p "$exe" | awk '/DLL Name:/ {print tolower($3)}')
    [ -n "$dlls" ] || { echo "$exe: no import table found"; exit 1; }
    for d in $dlls; do
        case "$allowed" in
            *" $d "*) ;;
            *) echo "$(basename "$exe") imports non-system DLL: $d"; status=1 ;;
        esac
    done
    echo "$(basename "$exe"): $(echo $dlls | tr '\n' ' ')"
done
exit $status
