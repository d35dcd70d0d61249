#!/usr/bin/env python3
"""Names that point to their file, checked over the product's C sources.

A reader who meets `look_after` opens look.c (docs/layout.md, "Names"):

- prefixes: every function a .c file defines without `static` starts with one of its
  file's prefixes: the file's base name (look.c: look_), its singular (elements.c:
  element_), or the name of the module it is part of, its base name up to an
  underscore (report_index.c: report_); or one of the prefixes listed for the file or
  its folder in PREFIXES below (the backends' backend_default, the platform halves' os_).
- headers: no product file takes the name of a C, POSIX or Windows header
  (SYSTEM_HEADERS): `#include "windows.h"` must never mean two files.
- statics: no static function shares its name with a function another file defines
  without `static` (a reader, a debugger or a grep would find the wrong one).

    names.py [ROOT]      check ROOT (default: the checkout this script is in);
                         prints every violation, exits 1 when there is one
"""
import fnmatch
import os
import re
import sys

PRODUCT = ["base", "automation", "llm", "agent"]

# Prefixes a file's public functions may have besides its own name: by folder (every
# file in it) or by file (a glob over the path). An entry ending in "_" is a prefix,
# any other a whole name.
PREFIXES = {
    # each backend defines backend.h's backend_default() (CMake compiles one of them)
    "automation/win/win_backend.c": ["backend_default"],
    "automation/fake/fake_backend.c": ["backend_default"],
    # llm.h, the layer's one face, named for the layer as its callers outside see it: the
    # client, the conversation and the protocol's names
    "llm/client.c": ["llm_"],
    "llm/conversation.c": ["llm_"],
    "llm/protocol.c": ["llm_"],
    # the platform halves implement base/os.h
    "base/win/*": ["os_"],
    "base/posix/*": ["os_"],
    # the names the C runtime and the program's two entries call
    "agent/main_win.c": ["wmain"],
    "agent/main.c": ["main", "winagent_main"],
    # the commands a front end runs, by the name of the command
    "agent/front/*": ["cmd_"],
    "agent/mcp/*": ["cmd_"],
    # the operations, one performer each, declared from the table in operations.h
    "agent/core/perform/op_*.c": ["perform_"],
    # files whose functions are named for the type they make or read: struct session
    # and its options, element selectors, struct observation and enum obs_mode, the
    # typed request and result (op_request, op_result, op_elem, their arguments),
    # enum outcome and struct tally, the backend's wa_ types, struct wa_rect and the
    # two directions of the 0-999 mapping, the error enum
    "agent/core/core.c": ["session_"],
    "agent/core/config/core_config.c": ["session_opts_"],
    "agent/core/call/elements.c": ["selector_"],
    "agent/core/request/observe.c": ["obs_", "observation_"],
    "agent/core/request/request.c": ["op_request_", "op_result_", "op_elem_", "op_arg_", "arg_"],
    "agent/report/results.c": ["outcome_", "tally_"],
    "automation/backend.c": ["wa_"],
    "automation/image/coords.c": ["norm_", "pixel_", "wa_rect_"],
    "base/wa_err.c": ["wa_err_", "wa_fail"],
    # the loop's one entry, named for what it runs: an agent
    "agent/run/loop.c": ["agent_run"],
    # reallocarray(3)'s contract under the project's name (not every C library has it)
    "base/str.c": ["wa_reallocarray"],
    # struct reply_asm, the reply being assembled, in every provider's calls to it
    "llm/assemble.c": ["asm_"],
}

# Headers of the C library, POSIX and the Windows SDK: no product file takes one of
# these names (with .h or .c).
SYSTEM_HEADERS = """
assert complex ctype errno fenv float inttypes iso646 limits locale math setjmp signal
stdalign stdarg stdatomic stdbool stddef stdint stdio stdlib stdnoreturn string tgmath
threads time uchar wchar wctype
aio arpa cpio dirent dlfcn fcntl fnmatch ftw glob grp iconv langinfo libgen
monetary mqueue ndbm netdb nl_types poll pthread pwd regex sched search semaphore spawn
strings stropts syslog tar termios ulimit unistd utime utmpx wordexp
ioctl ipc mman msg resource select sem shm socket stat statvfs timeb times types uio un
utsname wait in tcp
windows winbase windef winnt winuser wingdi winerror winsock winsock2 ws2tcpip ws2def
winternl winreg wincrypt winver commctrl commdlg shellapi shlobj shlwapi shobjidl objbase
ole2 oleacc oleauto unknwn combaseapi dwmapi psapi tlhelp32 bcrypt aclapi sddl accctrl
process io direct conio malloc userenv uiautomation uiautomationclient uiautomationcore
versionhelpers windowsx richedit mmsystem imm dbghelp tchar
error err term curses ncurses getopt argp alloca features
""".split()

DEF = re.compile(
    r"^(?P<head>[A-Za-z_][^;{}()#=]*?)\b(?P<name>[A-Za-z_]\w*)\s*\([^;{}]*?\)\s*"
    r"(?:WA_\w+(?:\([^)]*\))?\s*)*\{",
    re.M,
)
STATIC = re.compile(r"\s*static\b")


def product_files(root):
    for top in PRODUCT:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith((".c", ".h")):
                    path = os.path.join(dirpath, name)
                    yield os.path.relpath(path, root).replace(os.sep, "/")


def definitions(root, rel):
    """[(name, is_static)] of the functions rel defines."""
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        text = f.read()
    return [(m.group("name"), bool(STATIC.match(m.group("head")))) for m in DEF.finditer(text)]


def own_prefixes(rel):
    """The prefixes a file's name gives it: look.c look_, elements.c element_, and the
    module report_index.c is part of, report_."""
    base = os.path.splitext(os.path.basename(rel))[0]
    out = [base + "_"]
    if base.endswith("s"):
        out.append(base[:-1] + "_")
    parts = base.split("_")
    out += ["_".join(parts[:i]) + "_" for i in range(1, len(parts))]
    return list(dict.fromkeys(out))


def listed_prefixes(rel):
    out = []
    for pattern, prefixes in PREFIXES.items():
        if fnmatch.fnmatchcase(rel, pattern) and (
            not pattern.endswith("/*") or os.path.dirname(rel) == pattern[:-2]
        ):
            out += prefixes
    return out


def allowed(name, prefixes):
    return any(name.startswith(p) if p.endswith("_") else name == p for p in prefixes)


def check(root):
    files = list(product_files(root))
    if not files:
        return [f"no sources found below {root}"]
    out = []
    for rel in files:
        stem = os.path.splitext(os.path.basename(rel))[0]
        if stem.lower() in SYSTEM_HEADERS:
            out.append(f"{rel}: named like the system header <{stem}.h>")
    public, statics = {}, []
    for rel in files:
        if not rel.endswith(".c"):
            continue
        prefixes = list(dict.fromkeys(own_prefixes(rel) + listed_prefixes(rel)))
        for name, is_static in definitions(root, rel):
            if is_static:
                statics.append((rel, name))
                continue
            public.setdefault(name, []).append(rel)
            if not allowed(name, prefixes):
                out.append(
                    f"{rel}: {name} does not start with its file's prefix "
                    f"({', '.join(prefixes)})"
                )
    for rel, name in statics:
        others = [f for f in public.get(name, []) if f != rel]
        if others:
            out.append(f"{rel}: static {name} shares its name with {name} of {others[0]}")
    return out


def main(argv):
    root = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"names: {len(problems)} problem(s); the prefixes are in tests/lint/names.py")
        return 1
    print(f"names: {len(list(product_files(root)))} files, every name where its prefix says")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
