#!/usr/bin/env bash
# Every C source and header the project tracks is in clang-format's style (.clang-format).
set -euo pipefail
cd "$(dirname "$0")/../.."
files=$(git ls-files '*.c' '*.h')
[ -n "$files" ] || { echo "no C files found (not a git checkout?)"; exit 1; }
# shellcheck disable=SC2086
if ! clang-format --dry-run --Werror $files; then
    echo "format: run clang-format -i on the files above" >&2
    exit 1
fi
echo "format: $(echo "$files" | wc -l) files in style"
