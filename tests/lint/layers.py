#!/usr/bin/env python3
"""The include order of winagent's layers, checked over the #include lines.

Folders are layers (docs/layout.md). The order is partial: each layer names the layers
right below it, and a file may include headers of its own folder and of every layer
below it, however far down:

    base                      < base/win, base/posix (base/os.h's two halves)
    base                      < automation/image (pixels, PNG, base64, coordinates)
    automation/image          < automation
    base                      < llm < llm/formats (the client, models and providers' seam;
                                one file per service's wire format)
    automation, base/win      < automation/win/desktop < automation/win/msaa < automation/win
                                (the Windows backend: windows, input and workers; the
                                MSAA and common-control readers; the tree, actions,
                                programs and the table)
    automation                < automation/fake
    automation, llm           < agent/core/request < agent/core/config < agent/core/gate
                                < agent/core/call < agent/core/perform < agent/core (a
                                request's words and the settings; the gate's policy and
                                what starting a file means; the call and what every
                                operation uses; one performer per operation; on top
                                core_perform and the host)
    agent/core                < agent/report < agent/run < agent/batch < agent/front
                                < agent/mcp
    agent/mcp, base/win       < agent (main.c and its table of commands,
                                commands.c; main_win.c, the Windows entry)

Layers that are not below one another never include each other: automation and llm,
the backends and llm, the backends and the core (which reaches a backend through
automation/backend.h's table only), the platform halves and the portable core. A module
is a .c file with its .h; modules never depend on each other around a circle, directly
or through others (a header that declares several files' functions hides such a
circle, so every module has its own). Generated headers (agent/version.h is made from
base/version.h.in) count where their template lives. A folder of sources that is not a
layer here is a problem too: it would go unchecked. Only automation/win (and its
folders) and base/win include <windows.h> and the other headers of the Windows SDK.

    layers.py [ROOT]     check ROOT (default: the checkout this script is in);
                         prints every violation, exits 1 when there is one
"""
import os
import re
import sys

# Each layer and the layers right below it.
BELOW = {
    "base": [],
    "base/win": ["base"],
    "base/posix": ["base"],
    "automation/image": ["base"],
    "automation": ["automation/image"],
    "llm": ["base"],
    "llm/formats": ["llm"],
    "automation/win/desktop": ["automation", "base/win"],
    "automation/win/msaa": ["automation/win/desktop"],
    "automation/win": ["automation/win/msaa"],
    "automation/fake": ["automation"],
    "agent/core/request": ["automation", "llm"],
    "agent/core/config": ["agent/core/request"],
    "agent/core/gate": ["agent/core/config"],
    "agent/core/call": ["agent/core/gate"],
    "agent/core/perform": ["agent/core/call"],
    "agent/core": ["agent/core/perform"],
    "agent/report": ["agent/core"],
    "agent/run": ["agent/report"],
    "agent/batch": ["agent/run"],
    "agent/front": ["agent/batch"],
    "agent/mcp": ["agent/front"],
    "agent": ["agent/mcp", "base/win"],
}
PRODUCT = ["base", "automation", "llm", "agent"]


def lower_layers(layer):
    """Every layer below layer, however far down."""
    out, pending = set(), list(BELOW[layer])
    while pending:
        low = pending.pop()
        if low not in out:
            out.add(low)
            pending += BELOW[low]
    return out


# The only layers that include the Windows SDK's headers: the Windows backend (with the
# folders inside it) and base/os.h's Windows half. The rest builds natively on Linux.
WINDOWS_LAYERS = {"automation/win", "base/win"}
WINDOWS_HEADERS = re.compile(
    r"^\s*#\s*include\s+<((?:windows|winsock2?|ws2tcpip|ole2|oleacc|objbase|commctrl|"
    r"shellapi|shlobj|shlwapi|psapi|dwmapi|bcrypt|aclapi|uiautomation\w*|initguid|io)\.h)>",
    re.M,
)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(path):
    return os.path.dirname(path)


def windows_includes(root):
    """Files outside WINDOWS_LAYERS that include a Windows SDK header."""
    out = []
    for folder in BELOW:
        d = os.path.join(root, folder)
        windows = any(folder == w or folder.startswith(w + "/") for w in WINDOWS_LAYERS)
        if windows or not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith((".c", ".h")):
                with open(os.path.join(d, name), encoding="utf-8", errors="replace") as f:
                    for header in WINDOWS_HEADERS.findall(f.read()):
                        out.append(f"{folder}/{name}: includes <{header}>, which only "
                                   f"{' and '.join(sorted(WINDOWS_LAYERS))} may")
    return out


def scan(root):
    """{file: [included project headers]} for every .c/.h of the layered folders."""
    files = {}
    for folder in BELOW:
        d = os.path.join(root, folder)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if not name.endswith((".c", ".h")):
                continue
            rel = f"{folder}/{name}"
            with open(os.path.join(d, name), encoding="utf-8", errors="replace") as f:
                text = f.read()
            files[rel] = [inc for inc in INCLUDE.findall(text) if folder_of(inc) in BELOW]
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
            if theirs not in lower_layers(mine):
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


def unknown_folders(root):
    """Folders of C sources that are not a layer of BELOW."""
    out = []
    for top in PRODUCT:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            rel = os.path.relpath(dirpath, root).replace(os.sep, "/")
            if rel not in BELOW and any(n.endswith((".c", ".h")) for n in filenames):
                out.append(f"{rel}: holds sources but is not a layer of tests/lint/layers.py")
    return out


def check(root):
    files = scan(root)
    if not files:
        return [f"no sources found below {root}"]
    return (unknown_folders(root) + windows_includes(root) + layer_violations(files) +
            module_cycles(files))


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
