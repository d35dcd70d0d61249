"""winagent's servers under many clients at once (./dev.sh bench, part 6): `mcp --http`
and `serve --port` of the native winagent (fake desktop) and, given the Windows build,
the same two of winagent.exe under Wine (on the Wine desktop the bench has up: DISPLAY
and WINEPREFIX set). Each server gets the load of the serving load tests
(tests/lib/serveload.py: clients on new connections and kept ones, beside two that reset
theirs), after a warm-up, between two samples of what it holds. One line per server in
the columns of docs/bench.md's serving table (tests/bench/table.py's SERVING_COLUMNS), the
load average of the minute before its run in the last; exit 1 when a call failed.

    serving.py WINAGENT_NATIVE_EXE [WINAGENT_EXE] [--seconds N] [--json OUT]

--seconds N loads every server for N seconds (a quick look) in place of its own time.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
import serveload  # noqa: E402
from table import SERVING_COLUMNS  # noqa: E402

TOKEN = "bench-serving-token"
# (server, seconds of load, seconds of warm-up) of each: about a minute in all with Wine.
NATIVE = (("`mcp --http` native", 5, 2), ("`serve --port` native", 5, 2))
WINE = (("`mcp --http` under Wine", 15, 3), ("`serve --port` under Wine", 10, 3))


def measure(name, seconds, warm, argv, env, sample, fds):
    """The row of the server name says, run from the winagent argv runs with env and
    sampled by sample(process) (fds: its handles are a native process's descriptors), and
    what failed."""
    mcp = name.startswith("`mcp --http`")
    if mcp:
        p, port = serveload.mcp_server(argv, TOKEN, env=env)
    else:
        p = serveload.serve_server(argv, env=env)
    try:
        load = serveload.mcp_load(port, TOKEN) if mcp else serveload.serve_load(p)
        report, before, after = serveload.measure(load, seconds, lambda: sample(p),
                                                  min(warm, seconds))
    finally:
        p.kill()
        p.wait(10)
    return {"server": "%s, %g s" % (name, seconds), "clients": load.clients,
            "calls": report["calls"], "per_s": round(report["calls_per_s"]),
            "p50_ms": round(report["p50_ms"] or 0), "p99_ms": round(report["p99_ms"] or 0),
            "failed": report["failed"],
            "held": "%d -> %d%s, %d -> %d" % (before["handles"], after["handles"],
                                              " fds" if fds else "", before["threads"],
                                              after["threads"]),
            "load": report["load"]}, report["why"]


def main(argv):
    args = list(argv)
    out = seconds = None
    for flag in ("--json", "--seconds"):
        if flag in args:
            i = args.index(flag)
            if i + 1 >= len(args):
                print(__doc__, file=sys.stderr)
                return 2
            if flag == "--json":
                out = args[i + 1]
            else:
                seconds = float(args[i + 1])
            del args[i:i + 2]
    if not 1 <= len(args) <= 2:
        print(__doc__, file=sys.stderr)
        return 2
    runs = [(name, s, w, [args[0]], serveload.NATIVE_ENV,
             lambda p: serveload.sample_native(p.pid), True) for name, s, w in NATIVE]
    if len(args) == 2:
        exe = args[1]
        runs += [(name, s, w, ["wine", exe], None, lambda p: serveload.sample_wine(exe), False)
                 for name, s, w in WINE]
    print(" | ".join(title for _, title, _ in SERVING_COLUMNS), flush=True)
    rows, failed = [], False
    for name, s, warm, server_argv, env, sample, fds in runs:
        try:
            row, why = measure(name, seconds or s, warm, server_argv, env, sample, fds)
        except (AssertionError, OSError, ValueError) as e:
            print("serving.py: %s: %s" % (name, str(e)[:2000]), file=sys.stderr)
            return 1
        rows.append(row)
        print(" | ".join(fmt % row[key] for key, _, fmt in SERVING_COLUMNS), flush=True)
        if row["failed"] or not row["calls"]:
            print("  %s: %s" % (row["server"], why or "no call answered"), flush=True)
            failed = True
    if out:
        with open(out, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
