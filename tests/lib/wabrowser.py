"""winagent's HTML pages (report.html, index.html) in a real browser: Debian's headless
Chromium driven by puppeteer-core (tests/browser/facts.mjs, pinned by its
package-lock.json and installed by ./dev.sh deps). The facts come from the page itself.

A missing Chromium or puppeteer-core fails the test (AssertionError): the browser
checks never skip silently. Every call starts its own browser with a private profile in
a temporary folder and leaves no process behind.
"""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.parse

SRC = os.environ.get("WINAGENT_SRC", os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
BROWSER_DIR = os.path.join(SRC, "tests", "browser")


def chromium_path():
    """The Chromium binary of Debian's package; AssertionError when there is none."""
    for cand in ("/usr/lib/chromium/chromium", shutil.which("chromium"),
                 shutil.which("chromium-browser")):
        if cand and os.access(cand, os.X_OK):
            return cand
    raise AssertionError("Chromium is not installed: `./dev.sh deps` installs Debian's "
                         "chromium package, which the report tests need")


def file_url(path):
    return "file://" + urllib.parse.quote(os.path.abspath(path))


def _processes_using(marker):
    """Pids of processes whose command line holds marker (our private profile folder)."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % name, "rb") as f:
                if marker.encode() in f.read():
                    pids.append(int(name))
        except OSError:
            pass
    return pids


def _reap(marker, wait_s=5.0):
    """Waits for the browser's processes to end; kills any still there after wait_s.
    Returns how many had to be killed."""
    deadline = time.monotonic() + wait_s
    while _processes_using(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _processes_using(marker)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return len(left)


def page_facts(path, keys=(), follow=False, screenshot=None, timeout=120):
    """Facts of the page at path (a file) as tests/browser/facts.mjs reports them, plus
    "leftover_processes": browser processes that had to be killed afterwards."""
    node = shutil.which("node")
    if not node:
        raise AssertionError("node is not installed (./dev.sh deps installs it)")
    if not os.path.isdir(os.path.join(BROWSER_DIR, "node_modules", "puppeteer-core")):
        raise AssertionError("puppeteer-core is missing: `./dev.sh deps` runs npm ci in "
                             "tests/browser")
    chromium = chromium_path()
    profile = tempfile.mkdtemp(prefix="wa-chromium-profile-")
    argv = [node, os.path.join(BROWSER_DIR, "facts.mjs"), "--chromium", chromium,
            "--user-data-dir", profile, "--url", file_url(path),
            "--timeout-s", str(max(10, timeout - 10))]
    if keys:
        argv += ["--keys", ",".join(keys)]
    if follow:
        argv.append("--follow")
    if screenshot:
        argv += ["--screenshot", screenshot]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            encoding="utf-8", errors="replace", start_new_session=True,
                            cwd=BROWSER_DIR)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise AssertionError("the browser did not finish within %ss: %s" % (timeout, err))
    finally:
        leftover = _reap(profile)
        shutil.rmtree(profile, ignore_errors=True)
    if proc.returncode != 0:
        raise AssertionError("facts.mjs failed (exit %s): %s" % (proc.returncode, err.strip()))
    facts = json.loads(out.strip().splitlines()[-1])
    facts["leftover_processes"] = leftover
    return facts


def assert_page_sound(tc, facts, folder):
    """The page loaded cleanly: no console or page errors, no failed request, nothing
    requested outside folder, every image decoded, no browser process left behind."""
    tc.assertTrue(facts["loaded"], facts["url"])
    tc.assertEqual(facts["consoleErrors"], [])
    tc.assertEqual(facts["pageErrors"], [])
    tc.assertEqual(facts["failedRequests"], [])
    base = file_url(folder).rstrip("/") + "/"
    for url in facts["requests"]:
        tc.assertTrue(url.startswith(base), "request outside the run folder: " + url)
    for img in facts["images"]:
        tc.assertTrue(img["naturalWidth"] > 0 and img["naturalHeight"] > 0,
                      "image not loaded: %s" % img)
    tc.assertEqual(facts.get("leftover_processes", 0), 0)


def step_lines(trace):
    """The trace lines that become step elements: every line but the summary line and
    the lines of calls done (their step's own line holds them again); calls done in a
    step whose own line never came are one step element after the others."""
    out, unfinished = [], None
    for t in trace:
        if "call_done" in t:
            if unfinished is None or unfinished["step"] != t["step"]:
                unfinished = {"step": t["step"], "tool_calls": []}
            unfinished["tool_calls"].append(t["call_done"])
        elif "summary" not in t:
            out.append(t)
            unfinished = None
    return out + ([unfinished] if unfinished else [])


def expected_pictures(trace):
    """(image files, number of tree observations) a run's report must show."""
    images, trees = [], 0
    for line in step_lines(trace):
        observations = [line.get("observation")]
        for call in line.get("tool_calls", []):
            observations.append(call.get("observation"))
            if call.get("annotate"):
                images.append(call["annotate"])
        for obs in observations:
            if obs and obs.get("kind") == "image":
                images.append(obs["file"])
            elif obs and obs.get("kind") == "tree":
                trees += 1
    return images, trees


def check_run_report(tc, run_dir, secret, keys=(), screenshot=None):
    """Opens run_dir/report.html in Chromium and asserts what holds for every run's
    report: a sound page, one step element per step line of trace.jsonl in order,
    every observation image and crosshair shown and decoded, every tree observation
    inline, the secret nowhere. Returns the facts."""
    path = os.path.join(run_dir, "report.html")
    tc.assertTrue(os.path.exists(path), os.listdir(run_dir))
    facts = page_facts(path, keys=keys, screenshot=screenshot)
    assert_page_sound(tc, facts, run_dir)
    with open(os.path.join(run_dir, "trace.jsonl"), encoding="utf-8") as f:
        trace = [json.loads(line) for line in f if line.strip()]
    lines = step_lines(trace)
    tc.assertEqual(facts["steps"], len(lines))
    tc.assertEqual(facts["stepIds"], ["step-%d" % t["step"] for t in lines])
    images, trees = expected_pictures(trace)
    tc.assertEqual(sorted(i["src"] for i in facts["images"]), sorted(images))
    tc.assertEqual(facts["trees"], trees)
    tc.assertNotIn(secret, facts["bodyText"])
    # what an action changed shows as its lines, as text (not JSON quoted inside JSON)
    for t in trace:
        for call in t.get("tool_calls") or []:
            changes = (call.get("result") or {}).get("changes")
            for line in changes if isinstance(changes, list) else []:
                tc.assertIn(line.strip(), facts["bodyText"])
    with open(path, "rb") as f:
        tc.assertNotIn(secret.encode(), f.read())
    return facts
