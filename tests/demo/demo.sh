#!/usr/bin/env bash
# The main job, on a Wine desktop: testapp.exe is started and winagent.exe does the task
# in tests/demo/task.txt. With a model configured (LLM_BASE_URL and LLM_MODEL in the
# environment or .env, plus LLM_API_KEY if the server needs one) it runs the loop with
# that model; without one it runs the same live loop against the bundled scripted model
# (tests/fake_llm/server.py playing tests/demo/scripted.json over the real Chat
# Completions wire: it picks each element by type and name from the tree winagent sends
# it). `--replay` replays the bundled recorded run instead. Either way it ends by
# printing the log folder and its report. Called by ./dev.sh demo after the build.
#
#   demo.sh [--replay | --scripted]   --scripted: the bundled model even when one is set
#
# WINAGENT_DEMO_SHARED=1 runs on the Wine ground already up (WINAGENT_WINE_STATE), as
# the test of the demo does.
set -euo pipefail
# shellcheck source=../wine/no_aslr.sh
. "$(dirname "$0")/../wine/no_aslr.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
replay=no
scripted=no
case "${1:-}" in
    --replay) replay=yes ;;
    --scripted) scripted=yes ;;
    "") ;;
    *) echo "usage: ./dev.sh demo [--replay | --scripted]" >&2; exit 2 ;;
esac
shared=${WINAGENT_DEMO_SHARED:-0}
win64=${WINAGENT_WIN64_DIR:-$root/build/win64}
exe=$win64/winagent.exe
testapp=$win64/tests/apps/testapp.exe
export WINAGENT_WINE_STATE=${WINAGENT_WINE_STATE:-$root/build/demo-wine}
harness=$root/tests/wine/harness.sh
logs=${WINAGENT_DEMO_LOGS:-$root/logs}
work=$(mktemp -d)
events=$work/events.jsonl
mkdir -p "$logs"

winpath() { printf 'Z:%s' "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" | tr / '\\'; }

fake_pid=
testapp_pid=
cleanup() {
    [ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null
    [ -n "$testapp_pid" ] && kill "$testapp_pid" 2>/dev/null
    [ "$shared" = 1 ] || bash "$harness" down >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
if [ "$shared" != 1 ]; then
    echo "==> starting the Wine desktop (Xvfb 1920x1080, private prefix)" >&2
    bash "$harness" up
fi
# shellcheck disable=SC1091
. "$WINAGENT_WINE_STATE/env.sh"
wine "$testapp" --log "$(winpath "$events")" </dev/null >/dev/null 2>&1 &
testapp_pid=$!
for _ in $(seq 1 100); do
    grep -q '"ready"' "$events" 2>/dev/null && break
    sleep 0.1
done

# A model is configured when the environment or a .env names one.
have_model=no
if [ "$scripted" = yes ]; then
    have_model=no
elif [ -n "${LLM_MODEL:-}" ] || grep -qsE '^\s*(export\s+)?LLM_MODEL\s*=\s*\S' .env; then
    have_model=yes
fi

task=$(cat tests/demo/task.txt)
set +e
if [ "$replay" = yes ]; then
    echo "==> replaying the bundled recorded run of: $task" >&2
    wine "$exe" --replay "$(winpath tests/demo/recorded/trace.jsonl)" \
        --log-dir "$(winpath "$logs")" </dev/null
    code=$?
elif [ "$have_model" = yes ]; then
    echo "==> running winagent with your model on: $task" >&2
    (cd "$root" && wine "$exe" --log-dir "$(winpath "$logs")" "$task" </dev/null)
    code=$?
else
    echo "==> no model configured (set LLM_BASE_URL, LLM_MODEL and LLM_API_KEY, or fill" >&2
    echo "    in .env): the live loop runs against the bundled scripted model, which picks" >&2
    echo "    each element by type and name from the tree winagent sends it" >&2
    python3 tests/fake_llm/server.py --scenario tests/demo/scripted.json \
        --port-file "$work/port" --idle-exit 300 --quiet >/dev/null &
    fake_pid=$!
    for _ in $(seq 1 100); do
        [ -s "$work/port" ] && break
        sleep 0.1
    done
    echo "==> running winagent on: $task" >&2
    (cd "$root" && LLM_PROVIDER=openai-compatible LLM_MODEL=scripted-demo \
        LLM_BASE_URL="http://127.0.0.1:$(cat "$work/port")/v1" LLM_API_KEY=not-needed \
        wine "$exe" --log-dir "$(winpath "$logs")" "$task" </dev/null)
    code=$?
fi
set -e
sleep 0.5
echo "==> what testapp received:" >&2
python3 - "$events" <<'PY' >&2
import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    e = json.loads(line)
    kind = e.get("event")
    if kind in ("click", "checkbox", "combo_select", "text_changed", "list_select", "menu"):
        detail = {k: v for k, v in e.items() if k not in ("event", "t")}
        print("    %-13s %s" % (kind, json.dumps(detail, ensure_ascii=False)))
PY
latest=$(ls -1dt "$logs"/*/ 2>/dev/null | head -n 1)
echo "==> exit code $code; log folder: ${latest%/}"
[ -f "${latest}report.html" ] && echo "==> its report: ${latest}report.html"
exit $code
