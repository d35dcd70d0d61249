#!/usr/bin/env python3
"""The speed tables of docs/bench.md, made from tests/bench/baseline.json.

baseline.json holds what ./dev.sh bench printed before: "sets" of live-desktop rows
(part 3; each set a label and {row name: [median ms, p95 ms]}) and "request_sizes"
(part 4); "histories", part 5's run under each --history choice; and "serving", part 6's
servers under load (tests/bench/serving.py). This script writes them as Markdown tables
between the markers

    <!-- bench-table: desktop -->        ...  <!-- /bench-table -->
    <!-- bench-table: request-sizes -->  ...  <!-- /bench-table -->
    <!-- bench-table: histories -->      ...  <!-- /bench-table -->
    <!-- bench-table: serving -->        ...  <!-- /bench-table -->

of docs/bench.md, the newest set first. It knows no row by name: a row or a set added to
baseline.json is a row or a column of the table.

    table.py                  rewrite the tables in docs/bench.md
    table.py --check          exit 1, saying which table differs, when docs/bench.md is
                              not what baseline.json makes (docs.bench_table)
    table.py --record LABEL [RUN] [--sizes] [--histories] [--serving] [--no-desktop]
                              add the rows one ./dev.sh bench run printed (part 3's
                              --json, kept in build/bench/desktop.json; RUN: another
                              desktop.json or the folder of one run's files) to
                              baseline.json as its newest set, then rewrite the tables;
                              with --sizes, part 4's request sizes of that run
                              (request_sizes.json beside it) become the ones part 4
                              compares with; with --histories, part 5's rows
                              (history_tokens.json) the table of histories; with
                              --serving, part 6's rows (serving.json) the serving table;
                              with --no-desktop, only the parts named (no new set)
    --baseline FILE, --doc FILE   other files than the repository's (for tests)
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BASELINE = os.path.join(ROOT, "tests", "bench", "baseline.json")
DOC = os.path.join(ROOT, "docs", "bench.md")
LAST_RUN = os.path.join(ROOT, "build", "bench")
MARK = re.compile(r"(<!-- bench-table: ([a-z-]+) -->\n)(.*?)(<!-- /bench-table -->)", re.S)


def cell(pair):
    return "%.1f / %.1f" % (pair[0], pair[1])


def row_name(name):
    """A row's name as a table cell: the bench indents a row that is part of the one
    above it, which Markdown would trim."""
    stripped = name.lstrip(" ")
    return "&nbsp;&nbsp;" * ((len(name) - len(stripped) + 1) // 2) + stripped


def row_order(sets):
    """Every row of every set once: the newest set's order, a row only older sets have
    placed after the row it followed there."""
    order = []
    for s in sets:
        before = None
        for name in s["rows"]:
            if name not in order:
                order.insert(order.index(before) + 1 if before else len(order), name)
            before = name
    return order


def desktop_table(base):
    sets = list(reversed(base.get("sets", [])))  # newest first
    if not sets:
        return "(no sets in baseline.json)\n"
    lines = ["| row (median / p95 ms) | " + " | ".join(s["label"] for s in sets) + " |",
             "|---|" + "---|" * len(sets)]
    for name in row_order(sets):
        cells = [cell(s["rows"][name]) if name in s["rows"] else "-" for s in sets]
        lines.append("| %s | %s |" % (row_name(name), " | ".join(cells)))
    out = "\n".join(lines) + "\n"
    if base.get("about"):
        out += "\n" + base["about"] + "\n"
    return out


SIZE_COLUMNS = [("task", "task", "%s"), ("request", "request", "%d"),
                ("body", "body (bytes)", "%d"), ("added", "added (bytes)", "%d"),
                ("images", "images (bytes)", "%d")]


def sizes_table(base):
    return columns_table(base.get("request_sizes"), SIZE_COLUMNS, "request sizes")


HISTORY_COLUMNS = [("history", "--history", "`%s`"), ("requests", "requests", "%d"),
                   ("bytes", "sent (bytes)", "%d"), ("input_tokens", "input tokens", "%d"),
                   ("last_request_tokens", "last request (tokens)", "%d"),
                   ("thinking_dropped", "thinking blocks dropped", "%d")]


def columns_table(part, columns, what):
    """part's rows ({"rows": [...], "about": ..., "label": ...}) under the columns (key,
    title, format), then what it is about (else its label)."""
    rows = (part or {}).get("rows") or []
    if not rows:
        return "(no %s in baseline.json)\n" % what
    lines = ["| " + " | ".join(title for _, title, _ in columns) + " |",
             "|" + "---|" * len(columns)]
    for r in rows:
        lines.append("| " + " | ".join(fmt % r[key] for key, _, fmt in columns) + " |")
    out = "\n".join(lines) + "\n"
    about = part.get("about") or part.get("label")
    if about:
        out += "\n" + about + "\n"
    return out


def histories_table(base):
    return columns_table(base.get("histories"), HISTORY_COLUMNS, "histories")


SERVING_COLUMNS = [("server", "server", "%s"), ("clients", "clients", "%s"),
                   ("calls", "calls", "%d"), ("per_s", "calls/s", "%d"),
                   ("p50_ms", "p50 (ms)", "%d"), ("p99_ms", "p99 (ms)", "%d"),
                   ("failed", "failed", "%d"), ("held", "handles, threads before -> after", "%s"),
                   ("load", "load", "%.1f")]


def serving_table(base):
    return columns_table(base.get("serving"), SERVING_COLUMNS, "serving rows")


TABLES = {"desktop": desktop_table, "request-sizes": sizes_table, "histories": histories_table,
          "serving": serving_table}


def render(doc, base):
    """doc with every marked table made anew from base; raises on an unknown table."""
    def one(m):
        make = TABLES.get(m.group(2))
        if not make:
            raise ValueError("unknown table '%s' in the markers" % m.group(2))
        return m.group(1) + "\n" + make(base) + "\n" + m.group(4)
    return MARK.sub(one, doc)


def dump_baseline(base):
    """baseline.json as this script writes it, in the file's own layout (a row to a line),
    so that a recorded set adds lines and changes few."""
    out = ['{', '  "about": %s,' % json.dumps(base.get("about", "")), '  "sets": [']
    sets = base.get("sets", [])
    for i, s in enumerate(sets):
        out.append('    {"label": %s,' % json.dumps(s["label"]))
        out.append('     "rows": {')
        rows = list(s["rows"].items())
        last = "}}" + ("," if i + 1 < len(sets) else "")
        for j, (name, pair) in enumerate(rows):
            end = "," if j + 1 < len(rows) else last
            out.append('       %s: [%.2f, %.2f]%s' % (json.dumps(name), pair[0], pair[1], end))
        if not rows:
            out.append('     ' + last)
    out.append('  ]')
    for key, _, _, _ in PARTS:
        if key not in base:
            continue
        out[-1] += ","
        rs = base[key]
        out.append('  %s: {"label": %s,' % (json.dumps(key), json.dumps(rs.get("label", ""))))
        out.append('   "about": %s,' % json.dumps(rs.get("about", "")))
        out.append('   "rows": [')
        rows = rs.get("rows", [])
        for j, r in enumerate(rows):
            out.append('     %s%s' % (json.dumps(r, ensure_ascii=False),
                                      "," if j + 1 < len(rows) else "]}"))
    out.append('}')
    return "\n".join(out) + "\n"


# The parts whose rows a recording may make baseline.json's: (key, part, flag, the file
# of a run that holds them, beside its desktop.json in build/bench).
PARTS = (("request_sizes", 4, "--sizes", "request_sizes.json"),
         ("histories", 5, "--histories", "history_tokens.json"),
         ("serving", 6, "--serving", "serving.json"))


def record(base, label, desktop_json, parts):
    """Part 3's rows (desktop_json, unless None) become base's newest set, labelled label,
    and each part of parts ({key: file}) its rows."""
    if desktop_json:
        with open(desktop_json, encoding="utf-8") as f:
            rows = json.load(f)
        if any(s["label"] == label for s in base.get("sets", [])):
            raise ValueError("baseline.json already has a set labelled '%s'" % label)
        base.setdefault("sets", []).append(
            {"label": label, "rows": {r["name"]: [r["median_ms"], r["p95_ms"]] for r in rows}})
    for key, part, _, _ in PARTS:
        if key not in parts:
            continue
        with open(parts[key], encoding="utf-8") as f:
            rows = json.load(f)
        if rows:
            base[key] = {"label": label,
                         "about": "Part %d as ./dev.sh bench printed it (%s)." % (part, label),
                         "rows": rows}


def main(argv):
    args = list(argv)

    def option(name, default):
        if name in args:
            i = args.index(name)
            value = args[i + 1]
            del args[i:i + 2]
            return value
        return default

    baseline = option("--baseline", BASELINE)
    doc_path = option("--doc", DOC)
    check = "--check" in args
    flags = [flag for _, _, flag, _ in PARTS] + ["--no-desktop"]
    chosen = {a for a in args if a in flags}
    args = [a for a in args if a != "--check" and a not in flags]
    with open(baseline, encoding="utf-8") as f:
        base = json.load(f)
    if args and args[0] == "--record":
        if not 2 <= len(args) <= 3 or chosen == {"--no-desktop"}:
            print("table.py --record LABEL [RUN] [--sizes] [--histories] [--serving] "
                  "[--no-desktop]", file=sys.stderr)
            return 2
        run = args[2] if len(args) > 2 else LAST_RUN
        desktop_json = os.path.join(run, "desktop.json") if os.path.isdir(run) else run
        beside = os.path.dirname(desktop_json)
        try:
            record(base, args[1], None if "--no-desktop" in chosen else desktop_json,
                   {key: os.path.join(beside, name) for key, _, flag, name in PARTS
                    if flag in chosen})
        except (OSError, ValueError, KeyError) as e:
            print("table.py --record: %s" % e, file=sys.stderr)
            return 1
        with open(baseline, "w", encoding="utf-8") as f:
            f.write(dump_baseline(base))
    elif args:
        print(__doc__, file=sys.stderr)
        return 2
    with open(doc_path, encoding="utf-8") as f:
        doc = f.read()
    found = [m.group(2) for m in MARK.finditer(doc)]
    if sorted(found) != sorted(TABLES):
        print("%s: needs one marked table of each of %s, has %s" % (
            doc_path, ", ".join(sorted(TABLES)), ", ".join(found) or "none"), file=sys.stderr)
        return 1
    made = render(doc, base)
    if check:
        if made == doc:
            return 0
        for m_doc, m_new in zip(MARK.finditer(doc), MARK.finditer(made)):
            if m_doc.group(3) != m_new.group(3):
                print("%s: the %s table is not what %s makes; run tests/bench/table.py" % (
                    doc_path, m_doc.group(2), os.path.relpath(baseline, ROOT)), file=sys.stderr)
        return 1
    if made != doc:
        with open(doc_path, "w", encoding="utf-8") as f:
            f.write(made)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
