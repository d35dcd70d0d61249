#!/usr/bin/env python3
"""winagent.exe's bill of materials as an SPDX 2.3 JSON document, derived from its build:
the linker's map names every archive and object linked in, the compiler's dependency files
every header compiled in; each file outside the tree is traced to the Debian source
package it came from (dpkg for the toolchain's files, the cache's SOURCE and sources.txt
for the libraries cmake/build-deps.sh cross-built), with that package's version and the
licence its debian/copyright declares for its files.

    sbom.py --build DIR --exe FILE --version V --commit C --epoch SECONDS > winagent.spdx.json

Fails (exit 1, naming it) on a file it cannot trace or a licence it cannot name, so that a
new library never slips into the exe unlisted."""
import argparse
import datetime
import glob
import hashlib
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))

# Debian's short licence names (copyright-format 1.0) as SPDX identifiers.
SPDX_IDS = {"curl": "curl", "mit": "MIT", "expat": "MIT", "zlib": "Zlib", "zpl-2.1": "ZPL-2.1",
            "apache-2.0": "Apache-2.0", "bsd-2-clause": "BSD-2-Clause",
            "bsd-3-clause": "BSD-3-Clause", "isc": "ISC",
            "public-domain": "LicenseRef-public-domain"}
# Copyright files not in copyright-format 1.0: the licence is known by the text it quotes.
LICENSE_TEXTS = [("GCC RUNTIME LIBRARY EXCEPTION", "GPL-3.0-or-later WITH GCC-exception-3.1")]


def fail(msg):
    sys.stderr.write("sbom: %s\n" % msg)
    sys.exit(1)


def linked_files(map_path):
    """Archives with members the linker took, and the objects it loaded, from the map."""
    files = set()
    with open(map_path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    members = text.split("Archive member included to satisfy reference by file (symbol)", 1)
    members = members[1].split("\nDiscarded input sections", 1)[0] if len(members) > 1 else ""
    # "lib.a(member.o)" starts a line; the file that wanted it follows on the same line
    # when both fit, else on the next
    for m in re.finditer(r"^(\S+\.a)\([^)]*\)(?:\s|$)", members, re.M):
        files.add(m.group(1))
    for m in re.finditer(r"^LOAD (\S+\.o(?:bj)?)$", text, re.M):
        files.add(m.group(1))
    return files


def compiled_headers(build):
    """Headers outside the tree and the build compiled into the exe's objects, from the
    compiler's dependency files, kept where they are a library's own code (below
    /usr/include, not the cross toolchain's)."""
    headers = set()
    for dep in glob.glob(os.path.join(build, "CMakeFiles", "*", "**", "*.d"), recursive=True):
        with open(dep, encoding="utf-8", errors="replace") as f:
            for word in f.read().replace("\\\n", " ").split():
                if word.startswith("/usr/include/") and word.endswith(".h"):
                    headers.add(os.path.realpath(word))
    return headers


def cmake_cache(build):
    out = {}
    with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^(WINAGENT_\w+):\w+=(.*)$", line.strip())
            if m:
                out[m.group(1)] = m.group(2)
    return out


def dpkg_source(path):
    """(source package, its version, binary package) of an installed file."""
    p = subprocess.run(["dpkg", "-S", os.path.realpath(path)], capture_output=True, text=True)
    if p.returncode != 0:
        fail("no Debian package owns %s" % path)
    binary = p.stdout.split(":", 1)[0].split(",")[0].strip()
    q = subprocess.run(["dpkg-query", "-W", "-f=${source:Package} ${source:Version}", binary],
                       capture_output=True, text=True, check=True)
    name, version = q.stdout.split()
    return name, version, binary


def cached_sources(cache):
    """{library file: (source package, version)} of the cache's cross-built libraries."""
    out = {}
    prefix = cache.get("WINAGENT_WIN64_PREFIX", "")
    if prefix and os.path.isfile(os.path.join(prefix, "sources.txt")):
        with open(os.path.join(prefix, "sources.txt"), encoding="utf-8") as f:
            for line in f:
                pkg, ver, lib = line.split()
                out[os.path.realpath(os.path.join(prefix, lib))] = (pkg, ver)
    # libraries CMake compiles from a cached source folder: lib<target>.a in the build
    for target, var in (("lodepng", "WINAGENT_LODEPNG_DIR"), ("civetweb", "WINAGENT_CIVETWEB_DIR")):
        folder = cache.get(var)
        source = os.path.join(folder or "", "SOURCE")
        if folder and os.path.isfile(source):
            with open(source, encoding="utf-8") as f:
                pkg, ver = f.read().split()
            out["lib%s.a" % target] = (pkg, ver)
    return out


def license_of(copyright_path):
    """The SPDX expression of the licence the copyright file gives its files ("Files: *")."""
    with open(copyright_path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    if text.startswith("Format:"):
        for para in text.split("\n\n"):
            if re.search(r"^Files:\s*\*\s*$", para, re.M):
                m = re.search(r"^License:\s*(.+)$", para, re.M)
                if m:
                    return spdx_expression(m.group(1).strip(), copyright_path)
    for quote, expr in LICENSE_TEXTS:
        if quote in text:
            return expr
    fail("cannot tell the licence of %s" % copyright_path)


def spdx_expression(debian, where):
    parts = re.split(r"\s+(or|and)\s+", debian, flags=re.I)
    out = []
    for i, p in enumerate(parts):
        if i % 2:
            out.append(p.upper())
        elif p.lower() in SPDX_IDS:
            out.append(SPDX_IDS[p.lower()])
        else:
            fail("licence %r of %s has no SPDX name here (add it to SPDX_IDS)" % (p, where))
    return " ".join(out)


def copyright_of(pkg, version, binary):
    if binary:
        path = "/usr/share/doc/%s/copyright" % binary
        if os.path.isfile(path):
            return path
    p = subprocess.run(["bash", os.path.join(SRC, "cmake", "build-deps.sh"), "copyright", pkg,
                        version], capture_output=True, text=True)
    if p.returncode != 0:
        fail("no debian/copyright for %s %s: %s" % (pkg, version, p.stderr.strip()))
    return p.stdout.strip()


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def spdx_id(name):
    return "SPDXRef-Package-deb-" + re.sub(r"[^A-Za-z0-9.-]", "-", name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True, help="the win64 release build folder")
    ap.add_argument("--exe", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--commit", required=True)
    ap.add_argument("--epoch", type=int, required=True)
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    cache = cmake_cache(build)
    cached = cached_sources(cache)
    packages = {}  # source package -> {"version", "binary", "files"}

    def add(pkg, ver, binary, what):
        p = packages.setdefault(pkg, {"version": ver, "binary": binary, "files": set()})
        if p["version"] != ver:
            fail("%s in two versions: %s and %s" % (pkg, p["version"], ver))
        p["files"].add(what)

    for f in sorted(linked_files(os.path.join(build, "winagent.map"))):
        full = os.path.realpath(f if os.path.isabs(f) else os.path.join(build, f))
        name = os.path.basename(f)
        if full in cached:
            add(*cached[full], None, name)
        elif not os.path.isabs(f) and name in cached:
            add(*cached[name], None, name)
        elif not os.path.isabs(f) or full.startswith(SRC + os.sep):
            continue  # winagent's own objects
        else:
            pkg, ver, binary = dpkg_source(full)
            add(pkg, ver, binary, name)
    for h in sorted(compiled_headers(build)):
        pkg, ver, binary = dpkg_source(h)
        add(pkg, ver, binary, os.path.basename(h) + " (compiled in)")

    version = a.version
    created = datetime.datetime.fromtimestamp(a.epoch, datetime.timezone.utc)
    doc = {
        "spdxVersion": "SPDX-2.3",
        "dataLicense": "CC0-1.0",
        "SPDXID": "SPDXRef-DOCUMENT",
        "name": "winagent-%s" % version,
        "documentNamespace": "https://spdx.org/spdxdocs/winagent-%s-%s" % (version, a.commit),
        "creationInfo": {"created": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
                         "creators": ["Tool: winagent-cmake-release-sbom.py-%s" % version]},
        "documentDescribes": ["SPDXRef-Package-winagent"],
        "packages": [{
            "SPDXID": "SPDXRef-Package-winagent",
            "name": "winagent",
            "versionInfo": version,
            "packageFileName": "winagent.exe",
            "supplier": "Organization: the winagent authors",
            "downloadLocation": "NOASSERTION",
            "filesAnalyzed": False,
            "checksums": [{"algorithm": "SHA256", "checksumValue": sha256(a.exe)}],
            "licenseConcluded": "NOASSERTION",
            "licenseDeclared": "NOASSERTION",
            "copyrightText": "NOASSERTION",
            "primaryPackagePurpose": "APPLICATION",
            "comment": "built from commit %s; statically linked, it imports only Windows "
                       "system DLLs" % a.commit,
        }],
        "relationships": [{"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES",
                           "relatedSpdxElement": "SPDXRef-Package-winagent"}],
    }
    for pkg in sorted(packages):
        p = packages[pkg]
        lic = license_of(copyright_of(pkg, p["version"], p["binary"]))
        purl = "pkg:deb/debian/%s@%s?arch=source" % (pkg, p["version"].replace("+", "%2B"))
        doc["packages"].append({
            "SPDXID": spdx_id(pkg),
            "name": pkg,
            "versionInfo": p["version"],
            "supplier": "Organization: Debian",
            "downloadLocation": "NOASSERTION",
            "filesAnalyzed": False,
            "licenseConcluded": lic,
            "licenseDeclared": lic,
            "copyrightText": "NOASSERTION",
            "primaryPackagePurpose": "LIBRARY",
            "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                              "referenceLocator": purl}],
            "comment": "Debian source package; in winagent.exe: " + ", ".join(sorted(p["files"])),
        })
        doc["relationships"].append({"spdxElementId": "SPDXRef-Package-winagent",
                                     "relationshipType": "STATIC_LINK",
                                     "relatedSpdxElement": spdx_id(pkg)})
    if any(l.startswith("LicenseRef-") for p in doc["packages"]
           for l in re.split(r"[ ()]+", p["licenseDeclared"])):
        doc["hasExtractedLicensingInfos"] = [{
            "licenseId": "LicenseRef-public-domain", "name": "public domain",
            "extractedText": "The authors placed this work in the public domain (as its "
                             "debian/copyright says)."}]
    json.dump(doc, sys.stdout, indent=2, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
