#!/usr/bin/env bash
# Runs one fuzz target for a bounded time: its seed corpus first (every seed, the
# regression inputs of earlier finds among them, must pass), then new inputs.
#   run.sh TARGET SEEDS SECONDS [CRASH_DIR]
# New inputs go to a temporary folder, never into the repository's corpus. A crash or
# sanitizer report fails the run; its input is kept in CRASH_DIR (default: beside the
# target, crashes/NAME/) to be fixed and added to tests/fuzz/corpus/NAME/.
set -euo pipefail
exe=$(realpath "$1") seeds=$(realpath "$2") seconds=$3
name=$(basename "$exe")
crashes=${4:-$(dirname "$exe")/crashes}/${name#fuzz_}
[ -x "$exe" ] || { echo "no fuzz target $exe (./dev.sh build makes build/fuzz)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/winagent-$name.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/new"
export TMPDIR=$work # the target makes its own folder in here and writes nowhere else
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:symbolize=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
rc=0
(cd "$work" && nice -n 10 "$exe" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=1536 \
    -max_len=8192 -print_final_stats=1 -artifact_prefix="$work/" "$work/new" "$seeds") \
    >"$work/log" 2>&1 || rc=$?
if [ "$rc" != 0 ]; then
    grep -v '^winagent \(serve\|mcp\)' "$work/log" | tail -60 >&2
    mkdir -p "$crashes"
    for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
        [ -e "$f" ] && cp "$f" "$crashes/" && echo "kept $crashes/$(basename "$f")" >&2
    done
    echo "$name: failed (exit $rc)" >&2
    exit 1
fi
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
cov=$(grep -o 'cov: [0-9]*' "$work/log" | tail -1)
echo "$name: ${runs:-?} inputs in ${seconds} s, $cov, $(ls "$seeds" | wc -l) seeds, no crash"
