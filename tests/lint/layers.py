#!/usr/bin/env python3
"""The include order of winagent's layers, checked over the #include lines.

Folders are layers, lowest first (docs/layout.md):

    base < automation, llm < automation/win, automation/fake
         < agent/core < agent/run < agent/front < agent

A file may include headers of its own folder and of folders of a lower rank; two
folders of the same rank (automation and llm) never include each other. A module is
a .c file with its .h; modules never depend on each other around a circle, directly
or through others (a header that declares several files' functions hides such a
circle, so every module has its own). Generated headers (agent/version.h is made from
base/version.h.in) count where their template lives.

    layers.py [ROOT]     check ROOT (default: the checkout this script is in);
                         prints every violation, exits 1 when there is one
"""
import os
import re
import sys

RANKS = {
    "base": 0,
    "automation": 1,
    "llm": 1,
    "automation/win": 2,
    "automation/fake": 2,
    "agent/core": 3,
    "agent/run": 4,
    "agent/front": 5,
    "agent": 6,
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(path):
    return os.path.dirname(path)


def scan(root):
    """{file: [included project headers]} for every .c/.h of the layered folders."""
    files = {}
    for folder in RANKS:
        d = os.path.join(root, folder)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if not name.endswith((".c", ".h")):
                continue
            rel = f"{folder}/{name}"
            with open(os.path.join(d, name), encoding="utf-8", errors="replace") as f:
                text = f.read()
            files[rel] = [inc for inc in INCLUDE.findall(text) if folder_of(inc) in RANKS]
    return files


def module_of(path):
    return os.path.splitext(path)[0]


def layer_violations(files):
    out = []
    for f, incs in sorted(files.items()):
        mine = folder_of(f)
        for inc in incs:
            theirs = folder_of(inc)
            if theirs == mine:
                continue
            if RANKS[theirs] >= RANKS[mine]:
                out.append(f"{f}: includes {inc}, of layer {theirs}, which is not below {mine}")
    return out


def module_cycles(files):
    """Every circle of module dependencies (Tarjan's strongly connected components)."""
    graph = {}
    for f, incs in files.items():
        m = module_of(f)
        graph.setdefault(m, set())
        for inc in incs:
            t = module_of(inc)
            if t != m:
                graph[m].add(t)
                graph.setdefault(t, set())
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            strong(v)
    out = []
    for comp in comps:
        # one circle through the component, for the message
        start = comp[0]
        path, seen = [start], {start}
        while True:
            nxt = sorted(w for w in graph[path[-1]] if w in comp)
            back = [w for w in nxt if w == start]
            if back and len(path) > 1:
                break
            fresh = [w for w in nxt if w not in seen]
            if not fresh:
                break
            path.append(fresh[0])
            seen.add(fresh[0])
        out.append("modules include each other around a circle: " + " -> ".join(path + [start]))
    return out


def check(root):
    files = scan(root)
    if not files:
        return [f"no sources found below {root}"]
    return layer_violations(files) + module_cycles(files)


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    problems = check(os.path.abspath(root))
    for p in problems:
        print(p)
    if problems:
        print(f"layers: {len(problems)} problem(s); the order is in tests/lint/layers.py")
        return 1
    print(f"layers: {len(scan(os.path.abspath(root)))} files follow the layer order, no circles")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
