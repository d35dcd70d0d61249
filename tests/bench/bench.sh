#!/usr/bin/env bash
# ./dev.sh bench: winagent's speed, measured (median and p95), on this machine.
#   1. the image pipeline on synthetic images, natively: the fast PNG encoder beside the
#      reference (lodepng's defaults), downscale, base64, the whole observation;
#   2. the same pipeline under Wine on live Wine screens (testapp, notepad, regedit);
#   3. the live desktop under Wine: capture, tree walks, observations, click and type
#      latency as testapp sees them, and the agent's own time per step;
#   4. the size of every model request of two scripted tasks (testapp's form, a notepad
#      edit) run by the loop against the fake model server;
#   5. what a 20-step run sends under each --history choice (native, fake desktop): bytes,
#      input tokens as the service counts them, thinking blocks the service dropped;
#   6. the servers under many clients at once: `mcp --http` and `serve --port`, native and
#      under Wine: calls per second, p50 and p99, what failed, what they held.
set -euo pipefail
# shellcheck source=../wine/no_aslr.sh
. "$(dirname "$0")/../wine/no_aslr.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
native=$root/build/native
win=$root/build/win64
export WINAGENT_WINE_STATE=$root/build/bench-wine
harness=$root/tests/wine/harness.sh
work=$(mktemp -d)
trap 'bash "$harness" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

winpath() { printf 'Z:%s' "$1" | tr / '\\'; }

echo "== 1. image pipeline, native ($(uname -m), $(nproc) cores)"
"$native/bench_image" "$@"

echo
echo "== starting the Wine desktop"
bash "$harness" up
# shellcheck disable=SC1091
. "$WINAGENT_WINE_STATE/env.sh"
wine "$win/tests/apps/testapp.exe" --log "$(winpath "$work/events.jsonl")" \
    </dev/null >/dev/null 2>&1 &
wine "$win/tests/apps/bigapp.exe" --x 980 --y 60 </dev/null >/dev/null 2>&1 &
wine notepad </dev/null >/dev/null 2>&1 &
wine regedit </dev/null >/dev/null 2>&1 &
for _ in $(seq 1 100); do
    grep -q '"ready"' "$work/events.jsonl" 2>/dev/null && break
    sleep 0.1
done
sleep 2
# Live screens for the encoder: the whole desktop, and testapp in front.
wine "$win/winagent.exe" screenshot -o "$(winpath "$work/desktop.png")" </dev/null >/dev/null
wine "$win/winagent.exe" focus testapp </dev/null >/dev/null
wine "$win/winagent.exe" screenshot --window testapp -o "$(winpath "$work/testapp.png")" \
    </dev/null >/dev/null

echo
echo "== 2. image pipeline under Wine, on live Wine screens"
wine "$win/bench_image.exe" --png "$(winpath "$work/desktop.png")" \
    --png "$(winpath "$work/testapp.png")" "$@" </dev/null

echo
echo "== 3. the live desktop under Wine"
wine "$win/winagent.exe" focus testapp </dev/null >/dev/null
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"
wine "$win/bench_desktop.exe" --testapp-log "$(winpath "$work/events.jsonl")" --json "$@" \
    </dev/null >"$work/desktop.json"
python3 "$root/tests/bench/compare.py" "$work/desktop.json" "$root/tests/bench/baseline.json"
# Kept for tests/bench/table.py --record, which makes a run a set of baseline.json.
mkdir -p "$root/build/bench"
cp "$work/desktop.json" "$root/build/bench/desktop.json"

echo
echo "== 4. request size per step (scripted tasks, the real loop, the fake model server)"
python3 "$root/tests/bench/request_size.py" "$win/winagent.exe" "$root/tests/bench/baseline.json" \
    --json "$root/build/bench/request_sizes.json"

echo
echo "== 5. a 20-step run under each --history choice (native, the fake model server)"
python3 "$root/tests/bench/history_tokens.py" "$native/winagent" \
    --json "$root/build/bench/history_tokens.json"

echo
echo "== 6. the servers under load (new, kept and resetting clients on loopback)"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"
python3 "$root/tests/bench/serving.py" "$native/winagent" "$win/winagent.exe" \
    --json "$root/build/bench/serving.json"
