#!/usr/bin/env python3
"""winagent's manifest for the Windows package manager (winget), schema 1.6.0, as the three
files of a multi-file manifest (version, defaultLocale, installer), made from the release:
the exe's SHA-256, the version, the release date of the commit. The exe installs as a
portable command, `winagent`.

    winget.py --exe FILE --version V --epoch SECONDS --url BASE_URL --out DIR"""
import argparse
import datetime
import hashlib
import json
import os

IDENTIFIER = "winagent.winagent"
SCHEMA = "# yaml-language-server: $schema=https://aka.ms/winget-manifest.%s.1.6.0.schema.json"


def yaml_lines(fields):
    """Top-level keys, with one level of lists of scalars or of flat mappings; every
    string double-quoted (JSON's escapes are YAML's)."""
    out = []
    for key, value in fields:
        if isinstance(value, list):
            out.append("%s:" % key)
            for item in value:
                if isinstance(item, dict):
                    first = True
                    for k, v in item.items():
                        out.append("%s%s: %s" % ("- " if first else "  ", k, scalar(v)))
                        first = False
                else:
                    out.append("- %s" % scalar(item))
        else:
            out.append("%s: %s" % (key, scalar(value)))
    return "\n".join(out) + "\n"


def scalar(v):
    return json.dumps(v, ensure_ascii=False) if isinstance(v, str) else str(v)


def write(out_dir, kind, fields):
    name = IDENTIFIER + ("" if kind == "version" else "." + (
        "locale.en-US" if kind == "defaultLocale" else kind)) + ".yaml"
    with open(os.path.join(out_dir, name), "w", encoding="utf-8", newline="\n") as f:
        f.write(SCHEMA % kind + "\n" + yaml_lines(fields))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--epoch", type=int, required=True)
    ap.add_argument("--url", required=True, help="where the release's files are published")
    ap.add_argument("--license", default="NOASSERTION")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    with open(a.exe, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest().upper()
    date = datetime.datetime.fromtimestamp(a.epoch, datetime.timezone.utc).strftime("%Y-%m-%d")
    common = [("PackageIdentifier", IDENTIFIER), ("PackageVersion", a.version)]
    os.makedirs(a.out, exist_ok=True)
    write(a.out, "version", common + [("DefaultLocale", "en-US"), ("ManifestType", "version"),
                                      ("ManifestVersion", "1.6.0")])
    write(a.out, "defaultLocale", common + [
        ("PackageLocale", "en-US"),
        ("Publisher", "the winagent authors"),
        ("PackageName", "winagent"),
        ("License", a.license),
        ("ShortDescription", "A native Windows desktop agent: one sentence in, a tool-use "
                             "loop against a model acts on the desktop; also the desktop "
                             "as a command line and an MCP server for other agents."),
        ("Moniker", "winagent"),
        ("Tags", ["agent", "automation", "desktop", "mcp", "ui-automation"]),
        ("ManifestType", "defaultLocale"),
        ("ManifestVersion", "1.6.0"),
    ])
    write(a.out, "installer", common + [
        ("InstallerType", "portable"),
        ("Commands", ["winagent"]),
        ("MinimumOSVersion", "10.0.0.0"),
        ("ReleaseDate", date),
        ("Installers", [{"Architecture": "x64",
                         "InstallerUrl": a.url.rstrip("/") + "/winagent.exe",
                         "InstallerSha256": digest}]),
        ("ManifestType", "installer"),
        ("ManifestVersion", "1.6.0"),
    ])


if __name__ == "__main__":
    main()
