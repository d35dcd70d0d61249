"""The real-program suite, round three: programs that are not Wine's own, and tasks that
span programs. An NSIS installer (tests/apps/suite_setup.nsi, made by Debian's makensis:
a language choice, the licence's check box, components with check boxes, the folder,
the progress, the finish page, Cancel with its confirmation), PuTTY's configuration
window and Mines of Simon Tatham's Portable Puzzle Collection (both cross-built from
Debian's source packages by cmake/build-deps.sh), and tasks that carry text or a setting
from one program into another: copy and paste, save in one and open in another, change a
setting in one and read its effect in another. Every task is judged by what the programs
leave behind (files, the registry), as realtasks.py's are, and runs through the command
line and the loop with the same drivers."""
import os

import watest
from realtasks import (Act, Keys, Pick, Program, SYSTEM32, SUITE_KEY, Task, Type, WORK,
                       Window, file_text, out_path, poll, reg, reg_query, regedit_to_suite_key,
                       remove_outputs, suite_key_cleanup, suite_key_setup, wine_quiet)

SETUP_EXE = os.environ.get("SUITE_SETUP_EXE", "")
PUTTY_EXE = os.environ.get("PUTTY_EXE", "")
MINES_EXE = os.environ.get("MINES_EXE", "")

# ---- the installer ----

SETUP_KEY = r"HKCU\Software\WinagentSuiteSetup"
SETUP_WINDOW = "Suite Notes Setup "  # its caption, with the space NSIS leaves after it
SETUP_DE_WINDOW = "Installation von Suite Notes "
DEFAULT_DIR = "Suite Notes"  # under the profile folder, where nothing must be installed


def install_dir(name):
    return os.path.join(WORK, "installs", name)


def setup_cleanup(*dirs):
    def clean():
        reg("delete", SETUP_KEY)
        for d in dirs:
            for f in (os.listdir(d) if os.path.isdir(d) else []):
                os.remove(os.path.join(d, f))
    return clean


def setup_prepare(*dirs):
    def prepare():
        setup_cleanup(*dirs)()
        for d in dirs:
            os.makedirs(d, exist_ok=True)
    return prepare


def judge_installed(folder, files, components, language, launched):
    """The installer ended, left exactly `files` in folder and said so in the registry."""
    def judge(task):
        ended = task.main.wait_exit(30)
        there = poll(lambda: sorted(os.listdir(folder)) == sorted(files), 8)
        got = {k: reg_query(SETUP_KEY, k) for k in ("Components", "Language", "Launched")}
        want = {"Components": components, "Language": language,
                "Launched": "yes" if launched else None}
        return (ended and there and got == want,
                "ended=%s %s holds %s; registry %s" % (ended, folder, sorted(os.listdir(folder)),
                                                      got))
    return judge


def judge_cancelled(task):
    ended = task.main.wait_exit(20)
    key = reg_query(SETUP_KEY)
    return ended and not key, "installer %s; %s %s" % (
        "ended" if ended else "still runs", SETUP_KEY, "written" if key else "absent")


def setup_pages_to_folder(accept, next_button, *components):
    """From the licence page to the folder page: the licence's box, Next, the components
    toggled by name, Next."""
    return ([Act("toggle", Pick("CheckBox", accept)), Act("click", Pick("Button", next_button))] +
            [Act("toggle", Pick("TreeItem", c)) for c in components] +
            [Act("click", Pick("Button", next_button))])


def SETUP():
    return [Program(SETUP_EXE)]


TASKS_INSTALLER = [
    Task("nsis_install_components",
         "Install Suite Notes in English into the suite's folder with the Samples component "
         "and without the Manual, and leave it unstarted at the end",
         SETUP, "Installer Language",
         [Act("click", Pick("Button", "OK")), Window(SETUP_WINDOW)] +
         setup_pages_to_folder("I accept the terms of the License Agreement", "Next >",
                               "Samples", "Manual") +
         [Act("set_value", Pick("Edit", "Destination Folder"),
              value=watest.win_path(install_dir("components"))),
          Act("click", Pick("Button", "Install")),
          Act("toggle", Pick("CheckBox", "Start Suite Notes")),
          Act("click", Pick("Button", "Finish"))],
         judge_installed(install_dir("components"), ["program.txt", "samples.txt"],
                         "Program,Samples", "1033", False),
         setup=setup_prepare(install_dir("components")),
         cleanup=setup_cleanup(install_dir("components")), needs=("SUITE_SETUP_EXE",)),
    Task("nsis_german",
         "Installiere Suite Notes auf Deutsch (Sprache Deutsch wählen) mit den "
         "vorgegebenen Komponenten in den Ordner der Testreihe",
         SETUP, "Installer Language",
         [Act("select", Pick("ComboBox"), item="Deutsch"), Act("click", Pick("Button", "OK")),
          Window(SETUP_DE_WINDOW)] +
         setup_pages_to_folder("Lizenzabkommen akzeptieren", "Weiter >") +
         [Act("set_value", Pick("Edit", "Zielverzeichnis"),
              value=watest.win_path(install_dir("german"))),
          Act("click", Pick("Button", "Installieren")),
          Act("click", Pick("Button", "Fertigstellen"))],
         judge_installed(install_dir("german"), ["manual.txt", "program.txt"],
                         "Program,Manual", "1031", True),
         setup=setup_prepare(install_dir("german")),
         cleanup=setup_cleanup(install_dir("german")), needs=("SUITE_SETUP_EXE",)),
    Task("nsis_cancel_confirmed",
         "Start installing Suite Notes, then cancel on the licence page and confirm that "
         "Setup should quit: nothing may be installed",
         SETUP, "Installer Language",
         [Act("click", Pick("Button", "OK")), Window(SETUP_WINDOW),
          Act("click", Pick("Button", "Cancel")), Window("Suite Notes Setup"),
          Act("click", Pick("Button", "Yes"))],
         judge_cancelled, setup=setup_cleanup(), cleanup=setup_cleanup(),
         needs=("SUITE_SETUP_EXE",)),
]

# ---- PuTTY's configuration ----

PUTTY_SESSIONS = r"HKCU\Software\SimonTatham\PuTTY\Sessions"
PUTTY_WINDOW = "PuTTY Configuration"


def PUTTY():
    return [Program(PUTTY_EXE)]


def putty_sessions_cleanup(*names):
    def clean():
        for n in names:
            reg("delete", PUTTY_SESSIONS + "\\" + n)
    return clean


def putty_preset(name, host):
    def setup():
        putty_sessions_cleanup(name)()
        reg("add", PUTTY_SESSIONS + "\\" + name, "/v", "HostName", "/d", host)
        reg("add", PUTTY_SESSIONS + "\\" + name, "/v", "PortNumber", "/t", "REG_DWORD", "/d", "22")
        reg("add", PUTTY_SESSIONS + "\\" + name, "/v", "Protocol", "/d", "ssh")
    return setup


def judge_session(name, want):
    """The saved session's values, as PuTTY wrote them."""
    def judge(task):
        key = PUTTY_SESSIONS + "\\" + name
        got = {}

        def read():
            got.update({k: reg_query(key, k) for k in want})
            return got == want
        poll(read, 8)
        return got == want, "%s: %s" % (key, got)
    return judge


def save_session(name):
    return [Act("set_value", Pick("Edit", "Saved Sessions"), value=name),
            Act("click", Pick("Button", "Save"))]


TASKS_PUTTY = [
    Task("putty_save_session",
         "In PuTTY's configuration, save a session 'suite' for host suite.example on port 2222",
         PUTTY, PUTTY_WINDOW,
         [Act("set_value", Pick("Edit", "Host Name (or IP address)"), value="suite.example"),
          Act("set_value", Pick("Edit", "Port"), value="2222")] + save_session("suite"),
         judge_session("suite", {"HostName": "suite.example", "PortNumber": "0x8ae"}),
         setup=putty_sessions_cleanup("suite"), cleanup=putty_sessions_cleanup("suite"),
         shell=True, needs=("PUTTY_EXE",)),
    Task("putty_terminal_feature",
         "In PuTTY's configuration, turn on 'Disable remote-controlled terminal resizing' "
         "under Terminal > Features and save the settings as session 'suite-features'",
         PUTTY, PUTTY_WINDOW,
         [Act("select", Pick("TreeItem", "Features")),
          Act("toggle", Pick("CheckBox", "Disable remote-controlled terminal resizing")),
          Act("select", Pick("TreeItem", "Session"))] + save_session("suite-features"),
         judge_session("suite-features", {"NoRemoteResize": "0x1"}),
         setup=putty_sessions_cleanup("suite-features"),
         cleanup=putty_sessions_cleanup("suite-features"), shell=True, needs=("PUTTY_EXE",)),
    Task("putty_load_change_save",
         "In PuTTY's configuration, load the saved session 'suite-preset', change its port "
         "to 2200 and save it again",
         PUTTY, PUTTY_WINDOW,
         [Act("select", Pick("ListItem", "suite-preset")), Act("click", Pick("Button", "Load")),
          Act("set_value", Pick("Edit", "Port"), value="2200"),
          Act("click", Pick("Button", "Save"))],
         judge_session("suite-preset", {"HostName": "old.example", "PortNumber": "0x898"}),
         setup=putty_preset("suite-preset", "old.example"),
         cleanup=putty_sessions_cleanup("suite-preset"), shell=True, needs=("PUTTY_EXE",)),
]

# ---- Mines ----

MINES_WINDOW = "Mines"
SAVE_GAME = "Enter name of game file to save"


def MINES():
    return [Program(MINES_EXE)]


def mines_menu(letter, item):
    """A menu of Mines by the keyboard: Mines gives Alt+letter no meaning (its message
    loop translates no system keys), so Alt alone enters the menu bar, then the
    menu's letter opens it, then the item's."""
    return [Keys("alt"), Keys(letter, menu=True), Keys(item)]


def save_game(path):
    return mines_menu("g", "s") + [
        Window(SAVE_GAME),
        Act("set_value", Pick("ComboBox", "File name:"), value=watest.win_path(path)),
        Act("click", Pick("Button", "Save"))]


def judge_savefile(name, **want):
    """The game Mines saved: its fields (PARAMS, CPARAMS, SEED, ...) hold what is wanted."""
    def judge(task):
        text = poll(lambda: file_text(out_path(name)), 8) or ""
        fields = {}
        for line in text.splitlines():
            key, _, rest = line.partition(":")
            _, _, value = rest.partition(":")
            fields.setdefault(key.strip(), value)
        got = {k: fields.get(k) for k in want}
        return got == want, "%s: %s" % (name, got)
    return judge


TASKS_MINES = [
    Task("mines_custom_board",
         "In Mines, make a custom board 12 wide and 10 high with 15 mines (Type > Custom...) "
         "and save the game to a file (Game > Save...)",
         MINES, MINES_WINDOW,
         mines_menu("t", "c") +
         [Window("Mines configuration"),
          Act("set_value", Pick("Edit", "Width"), value="12"),
          Act("set_value", Pick("Edit", "Height"), value="10"),
          Act("set_value", Pick("Edit", "Mines"), value="15"),
          Act("click", Pick("Button", "OK")), Window(MINES_WINDOW)] + save_game(
              out_path("custom.mines")),
         judge_savefile("custom.mines", CPARAMS="12x10n15"),
         cleanup=remove_outputs("custom.mines"), needs=("MINES_EXE",)),
]

# ---- across programs ----


def text_file(name, text):
    """A file the task opens in notepad, written before it starts."""
    def setup():
        with open(out_path(name), "w", encoding="utf-8", newline="") as f:
            f.write(text)
    return setup


def notepad_with(name):
    return Program(SYSTEM32 + "notepad.exe", watest.win_path(out_path(name)),
                   wait_title="%s - Notepad" % name)


def notepad_save_as(name):
    """Ctrl+S in an untitled notepad: its Save As dialog, the file named, saved."""
    return [Keys("ctrl+s"), Window("Save As"),
            Act("set_value", Pick("ComboBox", "File name:"),
                value=watest.win_path(out_path(name))),
            Act("click", Pick("Button", "Save"))]


def judge_text(name, want):
    def judge(task):
        text = poll(lambda: (file_text(out_path(name)) or "").rstrip("\r\n") == want and
                    file_text(out_path(name)), 8)
        got = file_text(out_path(name))
        return (got or "").rstrip("\r\n") == want, "%s holds %r" % (name, got)
    return judge


def both(*judges):
    def judge(task):
        results = [j(task) for j in judges]
        return all(ok for ok, _ in results), "; ".join(d for _, d in results)
    return judge


def cleanup_all(*fns):
    def clean():
        for f in fns:
            f()
    return clean


def setup_all(*fns):
    return cleanup_all(*fns)


def wine_key_to(*path):
    """regedit's tree opened from HKEY_CURRENT_USER down to the last key of path."""
    steps = [Act("expand", Pick("TreeItem", "HKEY_CURRENT_USER"))]
    steps += [Act("expand", Pick("TreeItem", p)) for p in path[:-1]]
    return steps + [Act("select", Pick("TreeItem", path[-1]))]


def copy_value_data(value):
    """regedit's Edit String dialog of a value: its data (selected as the dialog opens)
    copied, the dialog left with Cancel."""
    return [Act("double_click", Pick("ListItem", value)), Window("Edit String"),
            Keys("ctrl+c"), Act("click", Pick("Button", "Cancel"))]


REG_IMPORT = ("Windows Registry Editor Version 5.00\n\n"
              "[HKEY_CURRENT_USER\\Software\\WinagentSuite\\Imported]\n"
              "\"From\"=\"notepad\"\n")
SEED = "9x9n10#suite"
OVERRIDES = r"HKCU\Software\Wine\DllOverrides"

TASKS_ACROSS = [
    Task("cross_notepad_to_putty",
         "Copy the host name written in hosts.txt (open in Notepad) into PuTTY's Host Name "
         "and save the session as 'from-notes'",
         lambda: [notepad_with("hosts.txt"), Program(PUTTY_EXE, wait_title=PUTTY_WINDOW)],
         "hosts.txt - Notepad",
         [Keys("ctrl+a"), Keys("ctrl+c"), Window(PUTTY_WINDOW),
          Act("click", Pick("Edit", "Host Name (or IP address)")), Keys("ctrl+v")] +
         save_session("from-notes"),
         judge_session("from-notes", {"HostName": "pasted.suite.example"}),
         setup=setup_all(text_file("hosts.txt", "pasted.suite.example"),
                         putty_sessions_cleanup("from-notes")),
         cleanup=cleanup_all(putty_sessions_cleanup("from-notes"), remove_outputs("hosts.txt")),
         shell=True, needs=("PUTTY_EXE",)),
    Task("cross_regedit_to_notepad",
         "Copy the data of the registry value Motto (HKCU\\Software\\WinagentSuite) from the "
         "Registry Editor into Notepad and save it as motto.txt",
         lambda: [Program(SYSTEM32 + "notepad.exe", wait_title="Untitled - Notepad"),
                  Program("windows/regedit.exe", wait_title="Registry Editor")],
         "Registry Editor",
         regedit_to_suite_key() + copy_value_data("Motto") +
         [Window("Untitled - Notepad"), Keys("ctrl+v")] + notepad_save_as("motto.txt"),
         judge_text("motto.txt", "copy me across"),
         setup=suite_key_setup(("Motto", "copy me across")),
         cleanup=cleanup_all(suite_key_cleanup, remove_outputs("motto.txt"))),
    Task("cross_notepad_to_regedit",
         "Copy the line of paste.txt (open in Notepad) into a new string value Pasted of "
         "HKCU\\Software\\WinagentSuite in the Registry Editor",
         lambda: [notepad_with("paste.txt"),
                  Program("windows/regedit.exe", wait_title="Registry Editor")],
         "paste.txt - Notepad",
         [Keys("ctrl+a"), Keys("ctrl+c"), Window("Registry Editor")] + regedit_to_suite_key() +
         [Keys("alt+e", menu=True), Keys("n", menu=True), Keys("s"), Type("Pasted"),
          Keys("enter"), Act("double_click", Pick("ListItem", "Pasted")), Window("Edit String"),
          Keys("ctrl+v"), Act("click", Pick("Button", "OK"))],
         lambda task: (reg_query(SUITE_KEY, "Pasted") == "pasted from notepad",
                       "Pasted = %r" % reg_query(SUITE_KEY, "Pasted")),
         setup=setup_all(suite_key_setup(), text_file("paste.txt", "pasted from notepad")),
         cleanup=cleanup_all(suite_key_cleanup, remove_outputs("paste.txt"))),
    Task("cross_wordpad_to_notepad",
         "Write a line in WordPad, copy it and paste it into Notepad, and save it as "
         "from-wordpad.txt",
         lambda: [Program(SYSTEM32 + "notepad.exe", wait_title="Untitled - Notepad"),
                  Program("Program Files/Windows NT/Accessories/wordpad.exe",
                          wait_title="Document - Wine Wordpad")],
         "WordPad",
         [Act("set_value", Pick("Edit"), value="Written in WordPad"),
          Act("click", Pick("Edit")), Keys("ctrl+a"),
          Keys("ctrl+c"), Window("Untitled - Notepad"), Keys("ctrl+v")] +
         notepad_save_as("from-wordpad.txt"),
         judge_text("from-wordpad.txt", "Written in WordPad"),
         cleanup=remove_outputs("from-wordpad.txt")),
    Task("cross_notepad_reg_import",
         "Write a registry file in Notepad, save it as suite-import.reg, and import it in the "
         "Registry Editor (Registry > Import Registry File)",
         lambda: [Program("windows/regedit.exe", wait_title="Registry Editor"),
                  Program(SYSTEM32 + "notepad.exe", wait_title="Untitled - Notepad")],
         "Untitled - Notepad",
         [Type(REG_IMPORT)] + notepad_save_as("suite-import.reg") +
         [Window("Registry Editor"), Keys("alt+r", menu=True), Keys("i"),
          Window("Import Registry File"),
          Act("set_value", Pick("ComboBox", "File name:"),
              value=watest.win_path(out_path("suite-import.reg"))),
          Act("click", Pick("Button", "Open"))],
         lambda task: (poll(lambda: reg_query(SUITE_KEY + r"\Imported", "From") == "notepad", 8),
                       "Imported\\From = %r" % reg_query(SUITE_KEY + r"\Imported", "From")),
         setup=suite_key_setup(),
         cleanup=cleanup_all(suite_key_cleanup, remove_outputs("suite-import.reg"))),
    Task("cross_winecfg_override_in_regedit",
         "Add a DLL override for 'suitecross' in Wine configuration, then find what it was "
         "given in the Registry Editor (HKCU\\Software\\Wine\\DllOverrides) and write that "
         "into Notepad, saved as override.txt",
         lambda: [Program(SYSTEM32 + "notepad.exe", wait_title="Untitled - Notepad"),
                  Program("windows/regedit.exe", wait_title="Registry Editor"),
                  Program(SYSTEM32 + "winecfg.exe", wait_title="Wine configuration")],
         "Wine configuration",
         [Act("select", Pick("TabItem", "Libraries")),
          Act("set_value", Pick("ComboBox", "New override for library:"), value="suitecross"),
          Act("click", Pick("Button", "Add")), Act("click", Pick("Button", "OK")),
          Window("Registry Editor")] + wine_key_to("Software", "Wine", "DllOverrides") +
         copy_value_data("suitecross") +
         [Window("Untitled - Notepad"), Keys("ctrl+v")] + notepad_save_as("override.txt"),
         both(judge_text("override.txt", "native,builtin"),
              lambda task: (reg_query(OVERRIDES, "suitecross") == "native,builtin",
                            "override = %r" % reg_query(OVERRIDES, "suitecross"))),
         cleanup=cleanup_all(lambda: reg("delete", OVERRIDES, "/v", "suitecross"),
                             remove_outputs("override.txt"))),
    Task("cross_notepad_folder_to_installer",
         "Install Suite Notes into the folder written in folder.txt (open in Notepad), "
         "pasting it into the installer's folder page",
         lambda: [notepad_with("folder.txt"), Program(SETUP_EXE, wait_title="Installer Language")],
         "folder.txt - Notepad",
         [Keys("ctrl+a"), Keys("ctrl+c"), Window("Installer Language"),
          Act("click", Pick("Button", "OK")), Window(SETUP_WINDOW)] +
         setup_pages_to_folder("I accept the terms of the License Agreement", "Next >") +
         [Act("click", Pick("Edit", "Destination Folder")), Keys("home shift+end"),
          Keys("ctrl+v"), Act("click", Pick("Button", "Install")),
          Act("click", Pick("Button", "Finish"))],
         judge_installed(install_dir("pasted"), ["manual.txt", "program.txt"], "Program,Manual",
                         "1033", True),
         setup=setup_all(setup_prepare(install_dir("pasted")),
                         text_file("folder.txt", watest.win_path(install_dir("pasted")))),
         cleanup=cleanup_all(setup_cleanup(install_dir("pasted")), remove_outputs("folder.txt")),
         needs=("SUITE_SETUP_EXE",)),
    Task("cross_regedit_changes_putty_session",
         "Change the host name of PuTTY's saved session 'suite-cross' to after.example in the "
         "Registry Editor, then load that session in PuTTY and save it as 'suite-cross-copy'",
         lambda: [Program(PUTTY_EXE, wait_title=PUTTY_WINDOW),
                  Program("windows/regedit.exe", wait_title="Registry Editor")],
         "Registry Editor",
         wine_key_to("Software", "SimonTatham", "PuTTY", "Sessions", "suite-cross") +
         [Act("double_click", Pick("ListItem", "HostName")), Window("Edit String"),
          Act("set_value", Pick("Edit", below=("Text", "Value data:")), value="after.example"),
          Act("click", Pick("Button", "OK")), Window(PUTTY_WINDOW),
          Act("select", Pick("ListItem", "suite-cross")), Act("click", Pick("Button", "Load"))] +
         save_session("suite-cross-copy"),
         judge_session("suite-cross-copy", {"HostName": "after.example"}),
         setup=setup_all(putty_preset("suite-cross", "before.example"),
                         putty_sessions_cleanup("suite-cross-copy")),
         cleanup=putty_sessions_cleanup("suite-cross", "suite-cross-copy"), shell=True,
         needs=("PUTTY_EXE",)),
    Task("cross_notepad_seed_to_mines",
         "Start a Mines game from the random seed written in seed.txt (open in Notepad), "
         "pasting it into Game > Random Seed..., and save the game as seed.mines",
         lambda: [notepad_with("seed.txt"), Program(MINES_EXE, wait_title=MINES_WINDOW)],
         "seed.txt - Notepad",
         [Keys("ctrl+a"), Keys("ctrl+c"), Window(MINES_WINDOW)] + mines_menu("g", "m") +
         [Window("Mines random selection"), Act("click", Pick("Edit", "Game random seed")),
          Keys("home shift+end"), Keys("ctrl+v"), Act("click", Pick("Button", "OK")),
          Window(MINES_WINDOW)] + save_game(out_path("seed.mines")),
         judge_savefile("seed.mines", SEED="suite", CPARAMS="9x9n10"),
         setup=text_file("seed.txt", SEED),
         cleanup=remove_outputs("seed.txt", "seed.mines"), needs=("MINES_EXE",)),
]

TASKS = TASKS_INSTALLER + TASKS_PUTTY + TASKS_MINES + TASKS_ACROSS
