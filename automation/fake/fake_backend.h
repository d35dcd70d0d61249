/* A scripted desktop for native tests: windows, trees and images from a JSON scene;
 * every action recorded. The scene is WINAGENT_FAKE_SCENE (a file) at init, or
 * loaded directly by tests. Actions are appended as JSON lines to WINAGENT_FAKE_LOG
 * when set, and kept in memory.
 *
 * Scene:
 * {"monitors": [{"rect": [0,0,1920,1080], "work": [0,0,1920,1040], "primary": true,
 *                "dpi": 144}],   (work: without the taskbar, the rect when not said;
 *               dpi 96 = 100 %)
 *  "system": {...}   (the machine's facts for `winagent doctor`: fake_system.h)
 *  "windows": [{"hwnd": 256, "title": "Untitled - Notepad", "class": "Notepad",
 *               "process": "notepad.exe", "pid": 42, "rect": [0,0,800,600],
 *               "foreground": true, "color": "#ffffff" | "image": "file.png",
 *               "tree": {"type": "Window", "name": "...", "bounds": [l,t,r,b],
 *                        "value": "...", "states": ["focused"], "automation_id": "...",
 *                        "class": "...", "hwnd": 0, "patterns": ["invoke", ...],
 *                        "children": [...]}}],
 *  "unlisted": [{window as above}]  (visible top-level windows no list shows: an
 *               untitled pop-up or menu; images show them, and blacking out covers them)
 *  "other_windows": [{"hwnd": 65568, "class": "#32769", "process": "explorer.exe"}],
 *               (windows that exist but are no program's top-level window: the
 *                desktop, message-only windows, child controls; never listed)
 *  "launch": {"notepad": {window as above}},
 *  "programs": {"notepad": {"path": "C:\\Windows\\notepad.exe"},
 *               "report.py": {"path": "C:\\x\\report.py", "runs": "python.exe"},
 *               "tool": {"path": "C:\\x\\tool.exe", "console": true,
 *                        "original_name": "pwsh.exe"}},
 *  "shell": {"echo hi": {"exit": 0, "out": "hi\n", "err": ""}},
 *  "network_drives": ["Z:"]   (remote drives: programs there lie on the network; paths
 *               starting \\\\ do too, and C:\\Windows\\ and C:\\Program Files are the system's)
 *  "clipboard_owner": 768   (the window whose program put the clipboard's contents there)
 *  "secure_desktop": true, "winagent_integrity": "medium"   (a UAC prompt's desktop;
 *               winagent's integrity level, beside each window's "integrity")
 *  "steal_focus": {"after": 40, "hwnd": 768},  (a window that comes to the front once
 *                                                40 bytes have been typed)
 *  "key_starts": {"F1": {window, with "pid" and "parent"}},   (a key that makes the
 *               program in front start another, whose window comes up in front)
 *  "processes": [{"pid": 40, "parent": 7, "started": ms}],   (who started whom, when)
 *  "writable": ["C:\\Program Files\\Loose"],   (folders ordinary users may write: a
 *               program there is not installed)
 *  "person": [{"after_inputs": 1, "for_ms": 800, "type": "abc"}]   (a person who uses the
 *               desktop once winagent sent that many foreground inputs, or "at_ms" after the
 *               scene was loaded, for for_ms (default 500): typing "type" into the focused
 *               control of the window in front, or with "keyboard": false the mouse only)
 *  "stop_gesture": {"after_inputs": 2} or {"at_ms": 300}}   (the person's stop gesture)
 * A window's "process_path" is its program's whole path (a "process" that holds a path
 * is one too). A tree node with an "hwnd" of its own is a control: window_info describes
 * it (its window's process unless it has a "process" of its own), the focus and a click
 * reach it, and a "class": "Address Band Root" node above it makes it an address bar; a
 * "#32770" window whose tree holds a ComboBox of automation_id "12298" is the Run dialog.
 * A window's "click_color" becomes its "color" when a mouse button goes down on it; one
 * with "hung": true never says it handled input (backend input_handled). Focusing a
 * window brings it to the front of the Z order, below windows with "topmost": true.
 *
 * Programs resolve by the names in "programs" and "launch"; the window at a point
 * is the first window (in list order, which is Z order) whose rect holds it.
 * A node with "readonly": true drops what is typed or set; one with "password": true
 * is never read back. Focusing a node (the focus action) moves "focused" to it.
 * Typed text is appended to the value of the focused node of the foreground window;
 * toggle flips "checked"; expand and collapse set those states; select sets
 * "selected"; set_value sets "value"; close removes the window; focus
 * makes it foreground. Background input (post_click, post_text) is recorded and moves
 * neither the cursor nor the foreground: posted text goes to the node with that
 * "hwnd", or for a top-level window to its focused node. Elements without "patterns"
 * answer pattern actions with WA_E_UNSUPPORTED (so callers' click fallbacks are
 * exercised). A node with "collection": {"count": 3000, "name": "report", "top": 0,
 * "per_page": 30, "row_height": 20, "selected": 5} is a long list: its ListItem rows
 * "report 0".."report 2999" sit row_height apart from the node's top, rows top..
 * top+per_page-1 show, and a walk lists those with one row more each way and the
 * selected one; find_items reaches every row, select moves "selected" and
 * scroll_into_view moves "top". */
#ifndef WINAGENT_FAKE_BACKEND_H
#define WINAGENT_FAKE_BACKEND_H

#include "automation/backend.h"
#include "automation/fake/fake_scene.h" /* fake_load_scene, fake_actions_json */

#endif
