#!/usr/bin/env python3
"""The docs checks find what they are for: on a copy of the docs and the tables they
describe, each planted fault (a link to no file or no heading, a README grown past its
size or given a dated section, a comment citing a section the contract lacks, a name in
backticks the sources do not have, a setting, command or action the contract does not
name, a bench table that is not what baseline.json makes) adds the line that names it, and
what is fine adds none."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
DOCS = os.path.join(HERE, "docs.py")
TABLE = os.path.join(ROOT, "tests", "bench", "table.py")


def run(*args):
    p = subprocess.run([sys.executable] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def append(path, text):
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)


class Docs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="docs-")
        # The checkout without builds and git: the pages and agent/core (which the tests
        # change) copied, every other file a link to the checkout's.
        for name in sorted(os.listdir(ROOT)):
            src = os.path.join(ROOT, name)
            if name.startswith((".", "build")):
                continue
            if not os.path.isdir(src):
                shutil.copy(src, self.tmp)
                continue
            shutil.copytree(src, os.path.join(self.tmp, name), symlinks=True,
                            ignore=shutil.ignore_patterns("node_modules", "__pycache__", "core"),
                            copy_function=shutil.copy if name == "docs" else os.symlink)
        shutil.copytree(os.path.join(ROOT, "agent", "core"),
                        os.path.join(self.tmp, "agent", "core"))
        self.before = self.problems()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def problems(self, *flags):
        code, out = run(DOCS, *flags, self.tmp)
        lines = set(out.splitlines())
        self.assertEqual(code, 1 if lines else 0, out)
        return lines

    def new_problems(self, *flags):
        before = self.before if not flags else self.contract_before
        return sorted(self.problems(*flags) - before)

    def test_a_link_to_no_file_is_found(self):
        append(os.path.join(self.tmp, "docs", "usage.md"), "\nSee [the old page](old-page.md).\n")
        new = self.new_problems()
        self.assertEqual(len(new), 1, new)
        self.assertRegex(new[0], r"^docs/usage\.md:\d+: link to old-page\.md: no such file$")

    def test_a_link_to_no_heading_is_found_and_one_to_a_heading_is_not(self):
        append(os.path.join(self.tmp, "docs", "usage.md"),
               "\n[gate](contract.md#3a-the-security-gate) [tree](contract.md#5-the-tree)\n")
        new = self.new_problems()
        self.assertEqual(len(new), 1, new)
        self.assertIn("link to contract.md#5-the-tree: no heading makes #5-the-tree", new[0])

    def test_links_shown_as_code_are_not_links(self):
        append(os.path.join(self.tmp, "docs", "usage.md"),
               "\nWrite `[x](missing.md)` for a link.\n\n```\n[y](also-missing.md)\n```\n")
        self.assertEqual(self.new_problems(), [])

    def test_a_readme_past_its_size_is_found(self):
        append(os.path.join(self.tmp, "README.md"), "\n" + "a line of lab notes\n" * 800)
        new = self.new_problems()
        self.assertEqual(len(new), 1, new)
        self.assertRegex(new[0], r"^README\.md: \d+ bytes; the front door stays under 15000")

    def test_a_dated_section_in_the_readme_is_found(self):
        append(os.path.join(self.tmp, "README.md"), "\n### 2026-11-29: what we measured\n")
        new = [p for p in self.new_problems() if "the front door stays under" not in p]
        self.assertEqual(len(new), 1, new)
        self.assertIn("a dated section (### 2026-11-29: what we measured)", new[0])

    def test_a_citation_of_a_missing_section_is_found(self):
        append(os.path.join(self.tmp, "agent", "core", "core.c"),
               "/* see %s §9 and docs/contract.md §3a */\n" % "SPEC")
        new = self.new_problems()
        self.assertEqual(len(new), 1, new)
        self.assertRegex(new[0], r"^agent/core/core\.c:\d+: cites §9, which docs/contract\.md")

    def test_the_docs_name_only_what_the_sources_have(self):
        self.assertEqual(sorted(self.before), [], "the checkout's docs name what is not there")

    def test_a_phantom_name_is_found_whatever_its_kind(self):
        # Built here, so that this file (copied with the checkout) does not hold them.
        ph = "phant" + "om"
        append(os.path.join(self.tmp, "docs", "tour.md"),
               "\nReal: `core_perform`, `win_cc_list.c`, `winagent click 3 --window notepad`,"
               " `gate_shell_route`, `struct op_request`, `WA_E_TIMEOUT`, `LVM_FINDITEM`.\n"
               "Phantoms: `win_%s_reader` and `%s_probe(x)` in `%s_list.c`, "
               "`struct %s_state`, `winagent click --%s-flag`, `WA_E_%s`.\n"
               % (ph, ph, ph, ph, ph, ph.upper()))
        new = self.new_problems()
        self.assertEqual(len(new), 6, new)
        for name, what in (("win_%s_reader" % ph, "no such function in the sources"),
                           ("%s_probe" % ph, "no such function in the sources"),
                           ("%s_list.c" % ph, "no file of that name"),
                           ("%s_state" % ph, "no such struct in the sources"),
                           ("--%s-flag" % ph, "no such flag"),
                           ("WA_E_%s" % ph.upper(), "not a name in the sources")):
            self.assertTrue(any(p.startswith("docs/tour.md:") and p.endswith(
                ": `%s`: %s" % (name, what)) for p in new), (name, new))

    def test_a_path_to_a_moved_file_is_found(self):
        gone = "automation/win/win_" + "gone.c"
        append(os.path.join(self.tmp, "docs", "tour.md"),
               "\nIn `%s`, beside `automation/win/desktop/win_input.c`, `tests/unit/test_*.c` and "
               "`tests/apps/selectcheck.exe`; not `tests/unit/tset_*.c`.\n" % gone)
        new = self.new_problems()
        self.assertEqual(len(new), 2, new)
        self.assertRegex(new[0], r"^docs/tour\.md:\d+: `%s`: no such path in the checkout$" % gone)
        self.assertRegex(new[1], r"`tests/unit/tset_\*\.c`: no such path in the checkout$")

    def test_a_name_only_a_comment_keeps_is_gone(self):
        old = "gate_shell_" + "window"
        append(os.path.join(self.tmp, "agent", "core", "gate", "gate.c"), "/* %s */\n" % old)
        append(os.path.join(self.tmp, "docs", "security.md"), "\nSee `%s`.\n" % old)
        new = self.new_problems()
        self.assertEqual(len(new), 1, new)
        self.assertRegex(new[0], r"^docs/security\.md:\d+: `%s`: no such function" % old)

    def test_a_new_internals_page_is_read(self):
        os.makedirs(os.path.join(self.tmp, "docs", "internals"), exist_ok=True)
        append(os.path.join(self.tmp, "docs", "internals", "x.md"),
               "`win_mouse_button` sends it; `win_mouse_" + "press` does not exist.\n")
        new = self.new_problems()
        self.assertEqual(new, ["docs/internals/x.md:1: `win_mouse_" + "press`: no such "
                                "function in the sources"])

    def contract_with(self, settings_row=None, op_cli=None, drop=None):
        if settings_row:
            path = os.path.join(self.tmp, "agent", "core", "config", "settings.h")
            with open(path, encoding="utf-8") as f:
                text = f.read()
            anchor = "#define SETTING_MAP(X)" + " " * 0
            i = text.index(anchor)
            j = text.index("\n", i)
            text = text[:j + 1] + settings_row + text[j + 1:]
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        if op_cli:
            append(os.path.join(self.tmp, "agent", "core", "request", "ops.c"),
                   '\n/* [OP_X] = {.cli = "%s", .model = "%s"} */\n' % (op_cli, op_cli))
        if drop:
            path = os.path.join(self.tmp, "docs", "contract.md")
            with open(path, encoding="utf-8") as f:
                lines = [l for l in f if drop not in l]
            with open(path, "w", encoding="utf-8") as f:
                f.writelines(lines)

    def test_the_contract_names_every_setting_command_and_action(self):
        self.contract_before = self.problems("--contract")
        self.assertEqual(self.contract_before, set(), "the contract misses names")
        self.contract_with(
            settings_row='    X(WARP, "warp", "warp", SG_RUN, "WINAGENT_WARP", "off", SK_SWITCH,'
                         ' "move faster") \\\n',
            op_cli="teleport", drop="WINAGENT_MAX_EDGE")
        new = self.new_problems("--contract")
        self.assertEqual(new, sorted([
            "docs/contract.md: setting warp: its flag --warp is not in §2",
            "docs/contract.md: setting warp: its variable WINAGENT_WARP is not in §2",
            "docs/contract.md: setting max_edge: its flag --max-edge is not in §2",
            "docs/contract.md: setting max_edge: its variable WINAGENT_MAX_EDGE is not in §2",
            "docs/contract.md: the command teleport is not in §2",
            "docs/contract.md: the model's action teleport is not in §3",
        ]))


class BenchTable(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="bench-table-")
        self.doc = os.path.join(self.tmp, "bench.md")
        self.base = os.path.join(self.tmp, "baseline.json")
        shutil.copy(os.path.join(ROOT, "docs", "bench.md"), self.doc)
        shutil.copy(os.path.join(ROOT, "tests", "bench", "baseline.json"), self.base)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def table(self, *args):
        return run(TABLE, "--baseline", self.base, "--doc", self.doc, *args)

    def load(self):
        with open(self.base, encoding="utf-8") as f:
            return json.load(f)

    def changed_fails_until_rewritten(self, base, table):
        """base written as baseline.json makes the check fail on table until the tables
        are written again."""
        with open(self.base, "w", encoding="utf-8") as f:
            json.dump(base, f)
        code, out = self.table("--check")
        self.assertEqual(code, 1, out)
        self.assertIn("the %s table is not what" % table, out)
        self.assertEqual(self.table()[0], 0)
        self.assertEqual(self.table("--check")[0], 0)
        with open(self.doc, encoding="utf-8") as f:
            return f.read()

    def test_the_committed_table_is_what_baseline_json_makes(self):
        code, out = self.table("--check")
        self.assertEqual(code, 0, out)

    def test_a_row_added_to_baseline_json_makes_the_check_fail_until_rewritten(self):
        base = self.load()
        base["sets"][-1]["rows"]["observe bigapp through the core"] = [120.5, 140.25]
        doc = self.changed_fails_until_rewritten(base, "desktop")
        self.assertIn("| observe bigapp through the core | 120.5 / 140.2 |", doc)

    def test_the_serving_figures_are_made_from_baseline_json_and_kept_by_a_recording(self):
        base = self.load()
        row = dict(base["serving"]["rows"][0], server="`serve --port` under Wine, 5 s",
                   calls=99, per_s=19, load=0.5)
        base["serving"]["rows"].append(row)
        doc = self.changed_fails_until_rewritten(base, "serving")
        self.assertRegex(doc, r"\| `serve --port` under Wine, 5 s \| [^|]+ \| 99 \| 19 \| .* \| 0\.5 \|")
        run_json = os.path.join(self.tmp, "desktop.json")
        with open(run_json, "w", encoding="utf-8") as f:
            json.dump([{"name": "capture screen", "median_ms": 1, "p95_ms": 2, "note": ""}], f)
        self.assertEqual(self.table("--record", "c", run_json)[0], 0)
        self.assertEqual(self.load()["serving"], base["serving"])
        self.assertEqual(self.table("--check")[0], 0)

    def test_a_recorded_run_is_the_newest_column(self):
        run_json = os.path.join(self.tmp, "desktop.json")
        with open(run_json, "w", encoding="utf-8") as f:
            json.dump([{"name": "capture screen", "median_ms": 12.34, "p95_ms": 15.0, "note": ""},
                       {"name": "a new row", "median_ms": 1.0, "p95_ms": 2.0, "note": "x"},
                       {"name": "  a new row: part", "median_ms": 0.5, "p95_ms": 0.75,
                        "note": ""}], f)
        sets = len(self.load()["sets"])
        code, out = self.table("--record", "now (load 0.5)", run_json)
        self.assertEqual(code, 0, out)
        base = self.load()
        self.assertEqual(len(base["sets"]), sets + 1)
        self.assertEqual(base["sets"][-1]["label"], "now (load 0.5)")
        self.assertEqual(self.table("--check")[0], 0)
        with open(self.doc, encoding="utf-8") as f:
            doc = f.read()
        self.assertIn("| row (median / p95 ms) | now (load 0.5) |", doc)
        self.assertRegex(doc, r"\| capture screen \| 12\.3 / 15\.0 \| ")
        self.assertIn("| a new row | 1.0 / 2.0 | -", doc)
        self.assertIn("| &nbsp;&nbsp;a new row: part | 0.5 / 0.8 | -", doc)
        code, out = self.table("--record", "now (load 0.5)", run_json)
        self.assertEqual(code, 1, "a label recorded twice")
        self.assertIn("already has a set labelled 'now (load 0.5)'", out)

    def replaced_only_when_asked(self, key, name, rows, flag, line):
        """A part's rows (name, beside the run's desktop.json) become baseline.json's key
        only with flag, and their table holds line."""
        run_json = os.path.join(self.tmp, "desktop.json")
        with open(run_json, "w", encoding="utf-8") as f:
            json.dump([{"name": "capture screen", "median_ms": 1, "p95_ms": 2, "note": ""}], f)
        with open(os.path.join(self.tmp, name), "w", encoding="utf-8") as f:
            json.dump(rows, f)
        kept = self.load().get(key)
        self.assertEqual(self.table("--record", "a", run_json)[0], 0)
        self.assertEqual(self.load().get(key), kept)
        self.assertEqual(self.table("--record", "b", run_json, flag)[0], 0)
        self.assertEqual(self.load()[key]["label"], "b")
        with open(self.doc, encoding="utf-8") as f:
            self.assertIn(line, f.read())

    def test_request_sizes_are_replaced_only_when_asked(self):
        self.replaced_only_when_asked("request_sizes", "request_sizes.json", [
            {"task": "bigapp", "request": 1, "body": 9000, "added": 9000, "images": 0}],
            "--sizes", "| bigapp | 1 | 9000 | 9000 | 0 |")

    def test_histories_are_replaced_only_when_asked(self):
        self.replaced_only_when_asked("histories", "history_tokens.json", [
            {"history": "trim", "requests": 3, "bytes": 4000, "input_tokens": 900,
             "last_request_tokens": 300, "thinking_dropped": 2}],
            "--histories", "| `trim` | 3 | 4000 | 900 | 300 | 2 |")

    SERVING = [{"server": "`mcp --http` native, 5 s", "clients": "14 new + 2 kept, 2 resetting",
                "calls": 5000, "per_s": 1000, "p50_ms": 9, "p99_ms": 60, "failed": 0,
                "held": "4 -> 4 fds, 66 -> 66", "load": 2.5}]
    SERVING_LINE = ("| `mcp --http` native, 5 s | 14 new + 2 kept, 2 resetting | 5000 | 1000 | 9 "
                    "| 60 | 0 | 4 -> 4 fds, 66 -> 66 | 2.5 |")

    def test_serving_rows_are_replaced_only_when_asked(self):
        self.replaced_only_when_asked("serving", "serving.json", self.SERVING, "--serving",
                                      self.SERVING_LINE)

    def test_a_part_is_recorded_alone_with_no_desktop(self):
        run_dir = os.path.join(self.tmp, "run")  # part 6's file, no desktop.json
        os.mkdir(run_dir)
        with open(os.path.join(run_dir, "serving.json"), "w", encoding="utf-8") as f:
            json.dump(self.SERVING, f)
        before = self.load()
        code, out = self.table("--record", "part 6 (load 2.5)", run_dir, "--serving",
                               "--no-desktop")
        self.assertEqual(code, 0, out)
        after = self.load()
        self.assertEqual(after["sets"], before["sets"])
        self.assertEqual(after["histories"], before["histories"])
        self.assertEqual(after["serving"]["rows"], self.SERVING)
        self.assertEqual(after["serving"]["label"], "part 6 (load 2.5)")
        self.assertEqual(self.table("--check")[0], 0)
        with open(self.doc, encoding="utf-8") as f:
            self.assertIn(self.SERVING_LINE, f.read())
        code, out = self.table("--record", "part 6 again", run_dir, "--serving")
        self.assertEqual(code, 1, "a run with no desktop.json recorded as a set")
        self.assertIn("desktop.json", out)
        self.assertEqual(self.load(), after)
        code, out = self.table("--record", "nothing", run_dir, "--no-desktop")
        self.assertEqual(code, 2, "--no-desktop naming no part")
        self.assertEqual(self.load(), after)

    def test_a_doc_without_its_markers_fails(self):
        with open(self.doc, encoding="utf-8") as f:
            text = f.read().replace("<!-- bench-table: request-sizes -->", "")
        with open(self.doc, "w", encoding="utf-8") as f:
            f.write(text)
        code, out = self.table("--check")
        self.assertEqual(code, 1, out)
        self.assertIn("needs one marked table of each of desktop, histories, request-sizes, "
                      "serving", out)


if __name__ == "__main__":
    unittest.main()
