#!/usr/bin/env bash
# cppcheck over the portable code (as the native build sees it) and the Windows code (as
# MinGW sees it). Any finding fails; a deliberate exception is suppressed inline.
set -euo pipefail
cd "$(dirname "$0")/../.."
common=(-q --std=c11 --enable=warning,performance,portability --inline-suppr
        --error-exitcode=1 --suppress=missingIncludeSystem -I. -D__GNUC__)
cppcheck "${common[@]}" -Ibuild/native/generated \
    base/*.c base/posix llm agent automation/*.c automation/fake tests/unit tests/fuzz
# stubs.c builds its E_NOTIMPL slots with an empty macro argument, which cppcheck's
# preprocessor does not take.
cppcheck "${common[@]}" --platform=win64 -Ibuild/win64/generated -Ibuild/win64/generated/uia \
    -D_WIN32 -DUNICODE -D_UNICODE -D__MINGW32__ \
    --suppress=preprocessorErrorDirective:tests/uia_fake/stubs.c \
    base/win automation/win tests/uia_fake tests/apps tests/bench
echo "cppcheck: no findings"
