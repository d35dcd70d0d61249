"""What a 20-step run sends under each --history choice (./dev.sh bench, part 5): the
native winagent on the fake desktop (a form program that opens a window per key) drives
Claude Sonnet 5.5's computer toolset through the fake model server, which counts input
tokens as the Claude docs do (text about four characters a token, an image width x
height / 750) after its own context editing, and drops the thinking blocks whose history
changed, as that model's service does. For each choice: the requests, the bytes sent, the
input tokens summed over the run and those of the last request, and the thinking blocks
the service dropped. `trim` is the rule before --history existed.

    history_tokens.py WINAGENT_NATIVE_EXE [--json OUT]
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

STEPS = 20
MODEL = "claude-sonnet-5-5"
CHOICES = ("trim", "append", "server", "drop-thinking")


def form(i, rect):
    """Form i + 1 of the form program (process 10 shows the first and starts the others)."""
    return {"hwnd": 256 * (i + 1), "title": "Form %d" % (i + 1), "process": "form.exe",
            "process_path": "C:\\Windows\\form.exe", "pid": 10 + i, "parent": 10 if i else 1,
            "rect": rect, "color": "#%02x%02x%02x" % (30 + 12 * i, 90, 220),
            "tree": {"type": "Window", "name": "Form %d" % (i + 1), "bounds": rect,
                     "children": [{"type": "Edit", "name": "Notes", "bounds": rect}]}}


def scene(path):
    """A form on a 1920x1080 monitor whose program opens the next form for each of F1 to
    F20: every step brings a new window to the front, as a real task's steps change the
    screen (the loop guards end a run of actions that change nothing)."""
    first = form(0, [100, 80, 1300, 900])
    first["foreground"] = True
    starts = {"F%d" % (i + 1): form(i + 1, [140 + 30 * i, 100 + 20 * i, 1340 + 30 * i,
                                            700 + 20 * i]) for i in range(STEPS)}
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"monitors": [{"rect": [0, 0, 1920, 1080], "primary": True}],
                   "windows": [first], "key_starts": starts,
                   "processes": [{"pid": 10, "parent": 1, "started": 0}]}, f)


def scenario():
    """Twenty keys, F1 to F20, each in its own turn (the model thinks before each), then
    the answer."""
    steps = [{"reasoning": "Step %d: the next form." % i,
              "tool_calls": [{"name": "computer", "id": "toolu_b%d" % i, "arguments": {
                  "action": "key", "text": "F%d" % (i + 1)}}]}
             for i in range(STEPS)]
    return {"steps": steps + [{"text": "Done."}]}


def run(exe, choice):
    tmp = tempfile.mkdtemp(prefix="wa-hist-")
    scene(os.path.join(tmp, "scene.json"))
    with FakeLLM(scenario(), idle_exit=None) as fake:
        env = dict(os.environ, WINAGENT_FAKE_SCENE=os.path.join(tmp, "scene.json"),
                   WINAGENT_FAKE_LOG=os.path.join(tmp, "actions.jsonl"), LLM_API_KEY="bench-key")
        for k in ("LLM_PROVIDER", "LLM_BASE_URL", "LLM_MODEL"):
            env.pop(k, None)
        p = subprocess.run([exe, "--provider", "anthropic", "--base-url", fake.url,
                            "--model", MODEL, "--tool-protocol", "computer",
                            "--history", choice, "--history-images", "3",
                            "--max-steps", str(STEPS + 5), "--log-dir",
                            os.path.join(tmp, "logs"), "fill in the form"],
                           env=env, cwd=tmp, capture_output=True, text=True, timeout=600)
        reqs = [q for q in fake.requests if q.get("provider") == "anthropic"]
    if p.returncode != 0:
        raise SystemExit("history %s: winagent exited %d:\n%s" % (choice, p.returncode,
                                                                  p.stderr[-2000:]))
    taken = [q for q in reqs if q["response"]["kind"] == "reply"]
    return {"history": choice, "requests": len(reqs),
            "bytes": sum(q["body_bytes"] for q in reqs),
            "input_tokens": sum(q.get("input_tokens", 0) for q in taken),
            "last_request_tokens": taken[-1].get("input_tokens", 0) if taken else 0,
            "thinking_dropped": sum(len(q.get("thinking_dropped") or []) for q in taken)}


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    rows = [run(argv[1], c) for c in CHOICES]
    print("%d steps of %s's computer toolset on a 1920x1080 screen, --history-images 3"
          % (STEPS, MODEL))
    print("%-14s %8s %12s %14s %14s %9s" % ("--history", "requests", "sent (MB)",
                                             "input tokens", "last request", "dropped"))
    for r in rows:
        print("%-14s %8d %12.2f %14d %14d %9d" % (r["history"], r["requests"],
                                                 r["bytes"] / 1e6, r["input_tokens"],
                                                 r["last_request_tokens"], r["thinking_dropped"]))
    if "--json" in argv:
        out = argv[argv.index("--json") + 1]
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
