"""Records the demo's bundled run: winagent.exe under Wine does the demo task on testapp,
driven by a scripted model (the fake LLM server), and its trace.jsonl is copied to
tests/demo/recorded/ for `./dev.sh demo` to replay when no model is configured.

Run inside the Wine ground: bash tests/wine/harness.sh run python3 tests/demo/record.py
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import watest  # noqa: E402
from watest import TestApp, fake_llm, tool_call, run_dirs, win_path  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

STEPS = [
    {"text": "I'll fill in the form.",
     "tool_calls": [tool_call({"action": "set_value", "element": "${element:Edit:Name:}",
                               "value": "Ada"})]},
    {"tool_calls": [tool_call({"action": "toggle",
                               "element": "${element:CheckBox:Enable feature}"})]},
    {"tool_calls": [tool_call({"action": "select", "element": "${element:ListItem:Blue}"})]},
    {"tool_calls": [tool_call({"action": "invoke", "element": "${element:Button:OK}"})]},
    {"text": "I typed Ada into Name, ticked Enable feature, chose Blue as the colour and "
             "pressed OK."},
]


def main():
    with open(os.path.join(HERE, "task.txt"), encoding="utf-8") as f:
        task = f.read().strip()
    log_dir = tempfile.mkdtemp(prefix="wa-demo-record-")
    with TestApp() as app, fake_llm({"steps": STEPS}) as fake:
        env = dict(os.environ, LLM_API_KEY="", WINAGENT_LLM_RETRIES="0")
        p = subprocess.run(["wine", watest.WINAGENT_EXE, "--base-url", fake.url + "/v1",
                            "--model", "scripted", "--log-dir", win_path(log_dir), task],
                           env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                           timeout=180)
        sys.stderr.write(p.stderr)
        if p.returncode != 0:
            sys.exit("recording failed (exit %d)" % p.returncode)
        app.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "OK")
    run = run_dirs(log_dir)[-1]
    dest = os.path.join(HERE, "recorded", "trace.jsonl")
    shutil.copyfile(os.path.join(run, "trace.jsonl"), dest)
    print("recorded", dest)


if __name__ == "__main__":
    main()
