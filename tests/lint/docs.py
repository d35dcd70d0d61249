#!/usr/bin/env python3
"""Keeps the docs honest.

    docs.py [ROOT]              (lint.docs) README.md is a front door: under 15,000 bytes,
                                no dated section; every relative link of README.md,
                                NEWS.md, SKILL.md and docs/**/*.md points to a file that
                                exists, and a link's #anchor to a heading of that file;
                                every section of the contract that a comment cites
                                ("SPEC §5", "docs/contract.md §3a") is a section of
                                docs/contract.md
    docs.py --contract [ROOT]   (docs.contract) docs/contract.md names every setting
                                (flag and variable) of agent/core/settings.h, every
                                command of agent/core/ops.c and every action the model
                                is given

ROOT is the checkout this script is in unless given. Prints every problem, one a line
("file:line: what"), and exits 1 when there is one.
"""
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
    with open(os.path.join(root, "agent", "core", "settings.h"), encoding="utf-8") as f:
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
    with open(os.path.join(root, "agent", "core", "ops.c"), encoding="utf-8") as f:
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
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
