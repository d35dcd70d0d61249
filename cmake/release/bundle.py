#!/usr/bin/env python3
"""The manifest.json of winagent's MCP bundle (winagent.mcpb): the server it starts
(winagent.exe mcp), the tools it offers and the settings a user gives it. The tools are
what `winagent mcp` itself lists (tools/list, asked of a native winagent over stdio with
the shell allowed, so that every tool of the operation table is there), never a copy
kept by hand.

    bundle.py --winagent NATIVE_WINAGENT --version V > manifest.json"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

DESCRIPTION = ("The Windows desktop for MCP clients: windows, accessibility trees, "
               "screenshots, mouse, keyboard and window operations, through one security "
               "gate.")
LONG_DESCRIPTION = (
    "winagent gives an MCP client the Windows desktop it runs on. `windows` lists the "
    "top-level windows, `state` gives a window's elements as a numbered tree, and the "
    "acting tools (click, fill, invoke, select, keys, ...) act on those numbers, verify "
    "what they did and return the window's state and a screenshot. Every call passes one "
    "security gate: credential and security prompts are never seen or touched, the "
    "allow-list limits which programs exist for the client, and the shell stays closed "
    "unless you allow it.")

# What a user sets when installing the bundle; each reaches winagent as the environment
# variable of its setting (docs/contract.md §2).
USER_CONFIG = {
    "apps": {
        "type": "string",
        "title": "Allowed programs",
        "description": "The only programs whose windows the client may see, act on and "
                       "launch: file names or whole paths, comma-separated (notepad.exe, "
                       "C:\\Tools\\app.exe). Empty: every program but the restricted ones.",
        "required": False,
        "default": "",
    },
    "shell": {
        "type": "boolean",
        "title": "Allow the shell",
        "description": "Let the client run PowerShell commands and start programs with "
                       "arguments, scripts and interpreters. Off closes every known route "
                       "to a shell.",
        "required": False,
        "default": False,
    },
    "delivery": {
        "type": "string",
        "title": "Input delivery",
        "description": "foreground (windows come to the front; the real mouse and "
                       "keyboard), background (patterns and window messages; the cursor, "
                       "foreground and focus stay yours) or auto (background, else "
                       "foreground).",
        "required": False,
        "default": "foreground",
    },
}
ENV = {"WINAGENT_APPS": "${user_config.apps}",
       "WINAGENT_ALLOW_SHELL": "${user_config.shell}",
       "WINAGENT_DELIVERY": "${user_config.delivery}"}


def listed_tools(winagent):
    """tools/list of `winagent mcp --allow-shell` on the fake desktop, in table order."""
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "winagent-bundle", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    with tempfile.TemporaryDirectory() as tmp:
        scene = os.path.join(tmp, "scene.json")
        with open(scene, "w", encoding="utf-8") as f:
            json.dump({"monitors": [{"rect": [0, 0, 1920, 1080], "primary": True}],
                       "windows": []}, f)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("WINAGENT_", "LLM_"))}
        env["WINAGENT_FAKE_SCENE"] = scene
        p = subprocess.run([winagent, "mcp", "--allow-shell"],
                           input="".join(json.dumps(m) + "\n" for m in msgs), text=True,
                           capture_output=True, env=env, cwd=tmp, timeout=60)
    for line in p.stdout.splitlines():
        reply = json.loads(line)
        if reply.get("id") == 2:
            return [{"name": t["name"], "description": t["description"]}
                    for t in reply["result"]["tools"]]
    sys.exit("bundle: `winagent mcp` listed no tools (exit %d): %s" % (p.returncode, p.stderr))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--winagent", required=True, help="a native winagent of this tree")
    ap.add_argument("--version", required=True)
    a = ap.parse_args()
    manifest = {
        "manifest_version": "0.3",
        "name": "winagent",
        "display_name": "winagent Windows desktop",
        "version": a.version,
        "description": DESCRIPTION,
        "long_description": LONG_DESCRIPTION,
        "author": {"name": "the winagent authors"},
        "server": {
            "type": "binary",
            "entry_point": "winagent.exe",
            "mcp_config": {"command": "${__dirname}/winagent.exe", "args": ["mcp"], "env": ENV},
        },
        "tools": listed_tools(a.winagent),
        "tools_generated": False,
        "keywords": ["windows", "desktop", "automation", "accessibility", "ui-automation"],
        "compatibility": {"platforms": ["win32"]},
        "user_config": USER_CONFIG,
    }
    json.dump(manifest, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
