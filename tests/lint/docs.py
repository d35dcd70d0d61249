#!/usr/bin/env python3
"""Keeps the docs honest.

    docs.py [ROOT]              (lint.docs) README.md is a front door: under 15,000 bytes,
                                no dated section; every relative link of README.md,
                                NEWS.md, SKILL.md and docs/**/*.md points to a file that
                                exists, and a link's #anchor to a heading of that file;
                                every section of the contract that a comment cites
                                ("SPEC §5", "docs/contract.md §3a") is a section of
                                docs/contract.md; every name in backticks in those pages but
                                NEWS.md is one the checkout has ("names in backticks" below
                                says which)
    docs.py --contract [ROOT]   (docs.contract) docs/contract.md names every setting
                                (flag and variable) of agent/core/config/settings.h, every
                                command of agent/core/request/ops.c and every action the model
                                is given

ROOT is the checkout this script is in unless given. Prints every problem, one a line
("file:line: what"), and exits 1 when there is one.
"""
import glob
import os
import re
import sys

README_MAX = 15000
PAGES = ["README.md", "NEWS.md", "SKILL.md"]
CODE_DIRS = ["agent", "automation", "base", "llm", "tests", "prompts", "cmake"]
CODE_EXT = (".c", ".h", ".py", ".sh", ".md", ".cmake", ".txt")
CITE = re.compile(r"(?:SPEC|contract\.md)\s*(?:§|section\s+)(\d+[a-z]?)")
LINK = re.compile(r"!?\[([^\]]*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
DATE = re.compile(r"\b(?:\d{4}-)?\d{2}-\d{2}\b")


def pages(root):
    out = [p for p in PAGES if os.path.exists(os.path.join(root, p))]
    for d, _, names in os.walk(os.path.join(root, "docs")):
        out += [os.path.relpath(os.path.join(d, n), root) for n in sorted(names) if n.endswith(".md")]
    return out


def outside_fences(text):
    """(line number, line) of text outside fenced code blocks."""
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        m = re.match(r"\s*(```+|~~~+)", line)
        if m:
            if fence is None:
                fence = m.group(1)[:3]
            elif m.group(1).startswith(fence):
                fence = None
            continue
        if fence is None:
            yield n, line


def prose_lines(text):
    """The same with inline code blanked (a link shown as code is no link)."""
    for n, line in outside_fences(text):
        yield n, re.sub(r"`[^`]*`", "``", line)


def anchors(text):
    """The anchors GitHub gives the headings of a Markdown text: lower case, punctuation
    but '-' and '_' dropped, spaces as '-', a repeated one numbered."""
    seen, out = {}, set()
    for _, line in outside_fences(text):
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else "%s-%d" % (slug, n))
    return out


def check_links(root, problems):
    for page in pages(root):
        path = os.path.join(root, page)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for n, line in prose_lines(text):
            for m in LINK.finditer(line):
                target = m.group(2)
                if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, mailto:, ...
                    continue
                file_part, _, frag = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                    if file_part else path
                if not os.path.exists(dest):
                    problems.append("%s:%d: link to %s: no such file" % (page, n, target))
                    continue
                if frag and dest.endswith(".md"):
                    with open(dest, encoding="utf-8") as f:
                        if frag not in anchors(f.read()):
                            problems.append("%s:%d: link to %s: no heading makes #%s" % (
                                page, n, target, frag))


def check_readme(root, problems):
    path = os.path.join(root, "README.md")
    size = os.path.getsize(path)
    if size >= README_MAX:
        problems.append("README.md: %d bytes; the front door stays under %d (the rest goes "
                        "to docs/)" % (size, README_MAX))
    with open(path, encoding="utf-8") as f:
        for n, line in outside_fences(f.read()):
            if line.startswith("#") and DATE.search(line):
                problems.append("README.md:%d: a dated section (%s); history goes to NEWS.md, "
                                "figures to the bench" % (n, line.strip()))


# ---- names in backticks ----
# Every name a page shows as inline code (outside fenced blocks) is one the sources have,
# read with their C comments left out (a name that only a stale comment keeps is gone):
#   foo_bar(...)       a call of a lower-case name with an underscore: a function the
#                      sources define (C, or the tests' Python, dev.sh's shell, a script's JS)
#   look_after         a lower-case name with an underscore that starts with a product
#                      file's name or its module's (look.c: look_, win_input.c: win_,
#                      as tests/lint/names.py has it): a function, macro, type, table
#                      or field the sources define or use, or a word of their strings (a
#                      JSON or error name)
#   foo_bar, FOO_BAR   any other name with an underscore: a word of the sources (a
#                      function, field, macro, error code, JSON or setting name)
#   struct foo         a struct the sources name
#   name.c, name.py    a file of that base name in the checkout, or a header the sources
#                      include (<oleacc.h>)
#   agent/core/gate/gate.c  a path under a folder of the checkout: that file or folder (a
#                      glob, tests/unit/test_*.c, matches one; a program built from a .c
#                      file, tests/apps/selectcheck.exe, has its source there)
#   --flag             in a span that starts with the flag or with `winagent`: a flag the
#                      sources spell, or a flag of the settings table
# NEWS.md is history and is not read. Names that belong to other programs and can never
# be in the sources are in FOREIGN, each with its reason.
NAME_PAGES = ["README.md", "SKILL.md"]
NAME_DIRS = ["docs", os.path.join("docs", "internals")]
SOURCE_SKIP = {".git", "node_modules", "docs", "__pycache__", "logs"}  # logs: runs, not sources
SOURCE_EXT = (".c", ".h", ".py", ".sh", ".cmake", ".txt", ".ps1", ".mjs", ".js", ".json",
              ".rc", ".def", ".yml", ".nsi", ".in")
FILE_EXT = "c|h|py|sh|cmake|ps1|mjs|js|def|rc|nsi|md"
PRODUCT = ["agent", "automation", "base", "llm"]
FOREIGN = {
    # the CI systems' own variables a batch's shard comes from (docs/batch.md)
    "CI_NODE_INDEX": "GitLab CI's", "CI_NODE_TOTAL": "GitLab CI's",
    "JOB_COMPLETION_INDEX": "Kubernetes'", "AWS_BATCH_JOB_ARRAY_INDEX": "AWS Batch's",
    "BATCH_TASK_INDEX": "Google Cloud Batch's", "BATCH_TASK_COUNT": "Google Cloud Batch's",
    # what Wine 8 sends and does not send (docs/observation.md's table of WinEvents):
    # winagent listens for none of these, and sends no such message itself
    "EVENT_OBJECT_DESTROY": "a WinEvent Wine does not send",
    "EVENT_OBJECT_NAMECHANGE": "a WinEvent Wine does not send",
    "EVENT_OBJECT_SELECTION": "a WinEvent Wine does not send",
    "EVENT_SYSTEM_FOREGROUND": "a WinEvent Wine does not send",
    "BM_SETCHECK": "a program's own message that raises no WinEvent under Wine",
    "LVM_SETITEMTEXT": "a program's own message that raises no WinEvent under Wine",
    # Wine's own function, as its file trace shows it (docs/security.md)
    "RtlGetFullPathName_U": "ntdll's, in a WINEDEBUG trace",
}
SPAN = re.compile(r"(`+)(.+?)\1")
FILE = re.compile(r"(?<![\w.$<-])([\w-]+(?:\.[\w-]+)*\.(?:%s))(?![\w.])" % FILE_EXT)
CALL = re.compile(r"(?<![\w.$-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\(")
WORD = re.compile(r"(?<![\w.$/<-])([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)(?![\w<>-])")
STRUCT = re.compile(r"\bstruct\s+(\w+)")
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
PATH = re.compile(r"(?<![\w./~-])((?:agent|automation|base|llm|tests|docs|cmake|prompts)"
                  r"/[\w./*-]*[\w*])")
C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*|(\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*')", re.S)
C_DEF = re.compile(r"^[A-Za-z_][\w \t*]*?\b(\w+)\s*\([^;{}]*\)\s*\{", re.M)


def source_files(root):
    for d, dirs, names in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in SOURCE_SKIP and not x.startswith("build")
                         or os.path.join(d, x) == os.path.join(root, "docs"))
        for n in sorted(names):
            yield os.path.join(d, n)


STRING = re.compile(r"\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'")


def source_names(root):
    """A dict of sets: files (base names in the checkout and names the sources give
    files), words (the sources' words), strings (the words of their string literals),
    defined (the functions and macros they define), flags (the flags they spell),
    prefixes (the product's files' names and "_")."""
    files, words, strings, defined, flags, prefixes = set(), set(), set(), set(), set(), set()
    for path in source_files(root):
        name = os.path.basename(path)
        rel = os.path.relpath(path, root).split(os.sep)
        files.add(name)
        if rel[0] in PRODUCT and name.endswith(".c"):  # look.c: look_; win_input.c: win_
            prefixes.update((name[:-2] + "_", name.split("_")[0] + "_"))
        if rel[0] == "docs":
            continue
        if not (name.endswith(SOURCE_EXT) or name in ("dev.sh", "CMakeLists.txt")):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        strings.update(re.findall(r"\w+", " ".join(STRING.findall(text))))
        if name.endswith((".c", ".h")):
            text = C_COMMENT.sub(lambda m: m.group(1) or " ", text)
            defined.update(C_DEF.findall(text))
            defined.update(re.findall(r"^\s*#\s*define\s+(\w+)\(", text, re.M))
            defined.update(re.findall(r"\b(?:struct|enum|union)\s+(\w+)\s*\{", text))
            defined.update(re.findall(r"(?:\.|->)(\w+)", text))  # the fields used
            defined.update(re.findall(r"^[A-Za-z_][\w \t*]*?\b(\w+)\s*(?:\[[^\]\n]*\])?\s*=",
                                      text, re.M))  # a file's variables and tables
            files.update(re.findall(r"#\s*include\s*<([\w./]+)>", text))
        defined.update(re.findall(r"^\s*def\s+(\w+)", text, re.M))
        defined.update(re.findall(r"^\s*(?:function\s+)?(\w+)\s*\(\)\s*\{", text, re.M))
        defined.update(re.findall(r"\bfunction\s+(\w+)", text))
        words.update(re.findall(r"\w+", text))
        flags.update(FLAG.findall(text))
        files.update(FILE.findall(text))
        if name == "op_args.h":  # the operations' arguments: --name and its aliases
            for names, aliases in re.findall(
                    r"ROW\(\w+,\s*\w+,\s*\w+,\s*\"(\w*)\",\s*(?:NULL|\"\w+\"),\s*(NULL|\"[\w,]+\")",
                    text):
                for a in [names] + aliases.strip('"').split(","):
                    flags.add("--" + a.replace("_", "-"))
                    flags.add("--" + a)
        if name == "settings.h":
            flags.update("--" + f for f in re.findall(
                r"X\(\w+,\s*\"\w+\",\s*\"([\w-]+)\"", text))
    return {"files": files, "words": words, "strings": strings, "defined": defined,
            "flags": flags, "prefixes": tuple(sorted(prefixes))}


def name_pages(root):
    out = [p for p in NAME_PAGES if os.path.exists(os.path.join(root, p))]
    for d in NAME_DIRS:
        full = os.path.join(root, d)
        if os.path.isdir(full):
            out += [os.path.join(d, n) for n in sorted(os.listdir(full)) if n.endswith(".md")]
    return out


def span_names(code):
    """(kind, name) of each name inline code shows."""
    for p in PATH.findall(code):
        if "NAME" not in p:  # tests/unit/test_NAME.c: a placeholder
            yield "path", p
    code = PATH.sub(" ", code)  # a path's file is the path's to check
    for f in FILE.findall(code):
        if "NAME" not in f:  # test_NAME.py: a placeholder
            yield "file", f
    rest = FILE.sub(" ", code)
    rest = re.sub(r"[\w./-]*/[\w./-]*", " ", rest)  # paths: their file is checked above
    rest = re.sub(r"<[^<>]*>", " ", rest)  # placeholders: req_<id>, perform_<name>
    for s in STRUCT.findall(rest):
        yield "struct", s
    rest = STRUCT.sub(" ", rest)
    calls = set(CALL.findall(rest))
    for c in sorted(calls):
        yield "call", c
    for w in WORD.findall(rest):
        if w not in calls:
            yield "word", w
    if code.startswith("--") or code.startswith("winagent "):
        for fl in FLAG.findall(code):
            yield "flag", fl


def path_exists(root, path):
    full = os.path.join(root, path)
    if path.endswith(".exe"):
        full = full[:-4] + ".c"
    return bool(glob.glob(full)) if "*" in path else os.path.exists(full)


def check_names(root, problems):
    src = source_names(root)
    words = src["words"]
    known = {"file": src["files"], "struct": words, "call": src["defined"], "word": words,
             "flag": src["flags"], "function": src["defined"] | src["strings"]}
    what = {"file": "no file of that name", "struct": "no such struct in the sources",
            "call": "no such function in the sources", "word": "not a name in the sources",
            "function": "no such function in the sources", "flag": "no such flag"}
    for page in name_pages(root):
        with open(os.path.join(root, page), encoding="utf-8") as f:
            text = f.read()
        for n, line in outside_fences(text):
            for m in SPAN.finditer(line):
                if "](" in m.group(2):  # a Markdown link shown as code: no names
                    continue
                for kind, name in span_names(m.group(2).strip()):
                    if kind == "path":
                        if not path_exists(root, name):
                            problems.append("%s:%d: `%s`: no such path in the checkout" % (
                                page, n, name))
                        continue
                    if kind == "word" and name.islower() and name.startswith(src["prefixes"]):
                        kind = "function"
                    if name in known[kind] or name in FOREIGN:
                        continue
                    # Windows' names without their W (LVM_FINDITEM for LVM_FINDITEMW), a
                    # test by its name without test_
                    if kind == "word" and (name + "W" in words or "test_" + name in words):
                        continue
                    problems.append("%s:%d: `%s`: %s" % (page, n, name, what[kind]))


def contract_sections(root):
    with open(os.path.join(root, "docs", "contract.md"), encoding="utf-8") as f:
        return set(re.findall(r"^## (\d+[a-z]?)\. ", f.read(), re.M))


def check_citations(root, problems):
    sections = contract_sections(root)
    for top in CODE_DIRS:
        for d, _, names in os.walk(os.path.join(root, top)):
            if "node_modules" in d or "/corpus" in d:
                continue
            for name in sorted(names):
                if not name.endswith(CODE_EXT):
                    continue
                path = os.path.join(d, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for n, line in enumerate(f, 1):
                        for sec in CITE.findall(line):
                            if sec not in sections:
                                problems.append("%s:%d: cites §%s, which docs/contract.md "
                                                "does not have" % (os.path.relpath(path, root),
                                                                   n, sec))


def check_contract(root, problems):
    with open(os.path.join(root, "docs", "contract.md"), encoding="utf-8") as f:
        contract = f.read()
    with open(os.path.join(root, "agent", "core", "config", "settings.h"), encoding="utf-8") as f:
        settings = f.read()
    def named(word):
        return re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(word), contract) is not None

    row = re.compile(r"X\((\w+),\s*\"(\w+)\",\s*(NULL|\"[\w-]+\"),\s*[\w| ]+,\s*(NULL|\"\w+\")")
    for ident, name, flag, env in row.findall(settings):
        if flag != "NULL" and not named("--" + flag.strip('"')):
            problems.append("docs/contract.md: setting %s: its flag --%s is not in §2" % (
                name, flag.strip('"')))
        if env != "NULL" and not named(env.strip('"')):
            problems.append("docs/contract.md: setting %s: its variable %s is not in §2" % (
                name, env.strip('"')))
    with open(os.path.join(root, "agent", "core", "request", "ops.c"), encoding="utf-8") as f:
        ops = f.read()
    for cli in re.findall(r"\.cli = \"([\w-]+)\"", ops):
        if "`%s`" % cli not in contract:
            problems.append("docs/contract.md: the command %s is not in §2" % cli)
    for model in re.findall(r"\.model = \"(\w+)\"", ops):
        if "`%s`" % model not in contract:
            problems.append("docs/contract.md: the model's action %s is not in §3" % model)


def main(argv):
    contract = "--contract" in argv
    args = [a for a in argv if a != "--contract"]
    root = os.path.abspath(args[0]) if args else \
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    problems = []
    if contract:
        check_contract(root, problems)
    else:
        check_readme(root, problems)
        check_links(root, problems)
        check_citations(root, problems)
        check_names(root, problems)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
