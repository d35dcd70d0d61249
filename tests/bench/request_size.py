"""Request size per step of two scripted tasks (./dev.sh bench, part 4): the testapp form
of tests/demo/scripted.json and a notepad edit, run by the real winagent.exe under Wine
against the fake model server. For each model request: the bytes of the whole body, of
what that step added (the newest messages), and of the images in it, beside the figures
kept in baseline.json. Needs DISPLAY/WINEPREFIX of a running Wine ground and testapp and
notepad open.

    request_size.py WINAGENT_EXE BASELINE_JSON [--json OUT]
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "fake_llm"))
from server import FakeLLM  # noqa: E402

NOTEPAD_STEPS = [
    {"tool_calls": [{"name": "desktop", "arguments": {
        "action": "type", "element": "${element:Edit:}", "text": "request sizes, measured"}}]},
    {"tool_calls": [{"name": "desktop", "arguments": {"action": "key", "keys": "ctrl+a"}}]},
    {"text": "Typed the line and selected it."},
]
TASKS = [
    ("testapp", os.path.join(ROOT, "tests", "demo", "scripted.json"), "winagent testapp",
     open(os.path.join(ROOT, "tests", "demo", "task.txt"), encoding="utf-8").read().strip()),
    ("notepad", {"steps": NOTEPAD_STEPS}, "Notepad",
     "In Notepad, type 'request sizes, measured' into the editor and select all of it."),
]


def win_path(path):
    return "Z:" + os.path.abspath(path).replace("/", "\\")


def image_bytes(node):
    """Bytes of base64 image data anywhere in a request body."""
    if isinstance(node, dict):
        total = 0
        for k, v in node.items():
            if k in ("url", "data") and isinstance(v, str) and len(v) > 1000 and (
                    v.startswith("data:image") or k == "data"):
                total += len(v)
            else:
                total += image_bytes(v)
        return total
    if isinstance(node, list):
        return sum(image_bytes(v) for v in node)
    return 0


def newest(body):
    """The messages this request added after the model's last reply."""
    msgs = body.get("messages") or []
    out = []
    for m in reversed(msgs):
        if m.get("role") == "assistant":
            break
        out.append(m)
    return out


def run_task(exe, name, scenario, window, prompt):
    if isinstance(scenario, dict):
        fd, path = tempfile.mkstemp(prefix="bench-scenario-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(scenario, f)
        scenario = path
    logs = tempfile.mkdtemp(prefix="bench-logs-")
    with FakeLLM(scenario, record_path=None, idle_exit=None) as fake:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_")}
        env.update(LLM_PROVIDER="openai-compatible", LLM_MODEL="bench-model",
                   LLM_BASE_URL=fake.url + "/v1", LLM_API_KEY="not-needed")
        subprocess.run(["wine", exe, "focus", window], env=env, capture_output=True,
                       stdin=subprocess.DEVNULL, timeout=60)
        p = subprocess.run(["wine", exe, "--log-dir", win_path(logs), prompt], env=env,
                           capture_output=True, text=True, stdin=subprocess.DEVNULL,
                           timeout=300)
        reqs = [r for r in fake.requests if r.get("provider")]
    rows = []
    for i, r in enumerate(reqs, 1):
        body = r["body"] if isinstance(r["body"], dict) else {}
        added = newest(body)
        rows.append({"task": name, "request": i,
                     "body": len(json.dumps(body, ensure_ascii=False).encode()),
                     "added": len(json.dumps(added, ensure_ascii=False).encode()),
                     "images": image_bytes(body)})
    return p.returncode, rows


def main():
    exe, baseline = sys.argv[1], sys.argv[2]
    out = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
    base = {}
    if os.path.exists(baseline):
        with open(baseline, encoding="utf-8") as f:
            b = json.load(f).get("request_sizes") or {}
        base = {(r["task"], r["request"]): r for r in b.get("rows", [])}
        label = b.get("label", "")
    print("%-8s %7s %10s %10s %10s   %s" % ("task", "request", "body B", "added B", "images B",
                                          "before: body / added" + (" (%s)" % label if base else "")))
    every = []
    for name, scenario, window, prompt in TASKS:
        code, rows = run_task(exe, name, scenario, window, prompt)
        every += rows
        for r in rows:
            b = base.get((name, r["request"]))
            print("%-8s %7d %10d %10d %10d   %s" % (
                name, r["request"], r["body"], r["added"], r["images"],
                "%d / %d" % (b["body"], b["added"]) if b else "-"))
        if code != 0:
            print("  (%s: winagent exited %d)" % (name, code))
    if out:
        with open(out, "w", encoding="utf-8") as f:
            json.dump(every, f)


if __name__ == "__main__":
    main()
