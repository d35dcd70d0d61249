#!/usr/bin/env bash
# The main job, on a Wine desktop: testapp.exe is started and winagent.exe does the task
# in tests/demo/task.txt. With a model configured (LLM_BASE_URL and LLM_MODEL in the
# environment or .env, plus LLM_API_KEY if the server needs one) it runs the real loop;
# without one it replays the bundled recorded run and says so. Either way it ends by
# printing the log folder. Called by ./dev.sh demo after the build.
set -euo pipefail
# shellcheck source=../wine/no_aslr.sh
. "$(dirname "$0")/../wine/no_aslr.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
exe=$root/build/win64/winagent.exe
testapp=$root/build/win64/tests/apps/testapp.exe
export WINAGENT_WINE_STATE=$root/build/demo-wine
harness=$root/tests/wine/harness.sh
logs=$root/logs
events=$(mktemp -d)/events.jsonl
mkdir -p "$logs"

winpath() { printf 'Z:%s' "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" | tr / '\\'; }

cleanup() { bash "$harness" down >/dev/null 2>&1 || true; }
trap cleanup EXIT
echo "==> starting the Wine desktop (Xvfb 1920x1080, private prefix)" >&2
bash "$harness" up
# shellcheck disable=SC1091
. "$WINAGENT_WINE_STATE/env.sh"
wine "$testapp" --log "$(winpath "$events")" </dev/null >/dev/null 2>&1 &
for _ in $(seq 1 100); do
    grep -q '"ready"' "$events" 2>/dev/null && break
    sleep 0.1
done

# A model is configured when the environment or a .env names one.
have_model=no
if [ -n "${LLM_MODEL:-}" ] || grep -qsE '^\s*(export\s+)?LLM_MODEL\s*=\s*\S' .env; then
    have_model=yes
fi

task=$(cat tests/demo/task.txt)
set +e
if [ "$have_model" = yes ]; then
    echo "==> running winagent with your model on: $task" >&2
    (cd "$root" && wine "$exe" --log-dir "$(winpath "$logs")" "$task" </dev/null)
    code=$?
else
    echo "==> no model configured (set LLM_BASE_URL, LLM_MODEL and LLM_API_KEY, or fill" >&2
    echo "    in .env): replaying the bundled recorded run of the same task instead" >&2
    wine "$exe" --replay "$(winpath tests/demo/recorded/trace.jsonl)" \
        --log-dir "$(winpath "$logs")" </dev/null
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
exit $code
