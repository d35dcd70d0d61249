"""Prints bench_desktop's --json rows beside the figures of tests/bench/baseline.json."""
import json
import sys

rows = json.load(open(sys.argv[1]))
base = json.load(open(sys.argv[2]))
labels = [s["label"] for s in base["sets"]]
head = "%-36s %17s" % ("desktop (live, under Wine)", "now median / p95")
for label in labels:
    head += " %22s" % label[:22]
print(head)
for r in rows:
    line = "%-36s %8.2f / %6.2f" % (r["name"], r["median_ms"], r["p95_ms"])
    for s in base["sets"]:
        b = s["rows"].get(r["name"])
        line += " %22s" % ("%8.2f / %6.2f" % tuple(b) if b else "-")
    print(line + ("  " + r["note"] if r["note"] else ""))
print("(%s)" % base["about"])
