/* testapp.c - Win32 test application whose JSON-lines event log the Wine tests assert on. */

/*
 * Command line
 * ------------
 *   testapp.exe [--log PATH] [--panel main|keypad|controls] [--x X --y Y] [--title TEXT]
 *               [--topmost 1] [--activate 0] [--list-select extended]
 *
 *   --log PATH    append one JSON object per event to PATH (UTF-8, one line each,
 *                 written with a single WriteFile so a reader never sees half a line;
 *                 the file is shared for reading, writing and deleting).
 *   --panel NAME  "main" (default): the main window; "keypad": the keypad window;
 *                 "controls": the common controls window.
 *   --x, --y      top-left corner of the window (outer frame) in screen pixels,
 *                 default 40,40.
 *   --title TEXT  the main window's title instead of "winagent testapp".
 *   --topmost 1   the window stays above the others (WS_EX_TOPMOST).
 *   --activate 0  the window comes up on top without being activated (SW_SHOWNOACTIVATE):
 *                 the window that had the foreground keeps it, under this one.
 *   --list-select extended
 *                 the main panel's list takes several selected items
 *                 (LBS_EXTENDEDSEL) and starts with "Item 3" and "Item 5" selected.
 *   Exit code: 0 after the window was closed; 1 on a bad command line or when the log
 *   cannot be opened or the window cannot be created.
 *
 * Log format
 * ----------
 * Every line has "event" and "t" (milliseconds since the process started). Strings are
 * UTF-8 with JSON escapes; rects are [left,top,right,bottom] in screen pixels unless
 * named otherwise. The first line is always "ready", written once the window is shown.
 *
 *   ready          hwnd "0x..", panel, pid, title, rect, client_rect (client area in
 *                  screen pixels), screen [width,height] of the primary monitor, dpi
 *                  (the screen's logical pixels per inch: 96 is 100%), focus,
 *                  foreground, controls {name: rect} (screen rects of
 *                  every control below, plus "target_red"/"target_green"/"target_blue"
 *                  on the canvas), control_hwnds {name: "0x.."} (the controls' window
 *                  handles), menu {"File"|"Edit"|"Help": rect} (main panel only)
 *   click          control: button text | "owner1".."owner3"; keypad: control "key",
 *                  label "7". "double":true when the button reported BN_DOUBLECLICKED
 *                  (owner-drawn buttons turn a fast second click into that; it is still
 *                  a click). Canvas: control "canvas", button, x, y, target.
 *   checkbox       control "Enable feature", checked
 *   text_changed   control "edit" | "dialog_edit", text (the whole text)
 *   list_select    index, text;  list_double_click  index, text. With --list-select
 *                  extended, list_select also has selected: the indexes of every selected
 *                  item, in order (index is then the item with the focus rectangle)
 *   combo_select   index, text;  combo_dropdown  open
 *   wheel          control "list" | "canvas", delta (+120 per notch away from the user),
 *                  horizontal (true for WM_MOUSEHWHEEL), x, y (client pixels of the
 *                  control), list also top_index (read after the list scrolled)
 *   mouse          control "canvas", button left|right|middle, kind down|up|double,
 *                  x, y (canvas client pixels), target "red"|"green"|"blue"|null
 *   drag           control "canvas", button, from [x,y], to [x,y] (down and up more than
 *                  5 px apart; the canvas captures the mouse while a button is down)
 *   menu           item: menu text without '&' and shortcut ("Save as...", "2 todo.txt",
 *                  "Copy", ...), id: its command id; every WM_COMMAND of a menu item
 *                  (menu bar, submenus, context menu) is logged. Exit then closes the
 *                  window
 *   toolbar        id (controls panel: 450 Open, 451 Bold, 452 Italic)
 *   tree_check     item, checked: a box of the Features tree changed (by a click on it,
 *                  Space, or a message); the whole tree is compared after every
 *                  notification it sends, so a change is logged once, whatever made it
 *   list_check     item, checked: a box of the Columns list changed (LVN_ITEMCHANGED)
 *   accelerator    name "save" (Ctrl+S)
 *   key            vk, name, ctrl, shift, alt, win, repeat (the key was already down),
 *                  focus. Logged for every WM_KEYDOWN / WM_SYSKEYDOWN the thread takes
 *                  from its queue (a WH_GETMESSAGE hook, so keys typed in the modal
 *                  dialog and in menu mode are logged too), before any translation.
 *                  Modifiers from GetKeyState at that moment.
 *   key_up         vk, name (WM_KEYUP / WM_SYSKEYUP), to check that modifiers were
 *                  released
 *   char           text (one character; a UTF-16 surrogate pair becomes one character),
 *                  code (its code point), focus (WM_CHAR only, not WM_SYSCHAR)
 *                  key, key_up and char carry "synthetic":true when the message was
 *                  posted by a program rather than typed (repeat count 0 in lParam):
 *                  Wine's menu code posts an Enter after Alt+letter opens a menu.
 *   dialog_open    hwnd, rect, controls
 *   dialog_close   result "ok"|"cancel", text (the dialog edit's text)
 *   window         state "minimized"|"maximized"|"restored", rect; at most one line per
 *                  change (moves and resizes by the user are logged once, at the end)
 *   activate       active (WM_ACTIVATE of the main or keypad window)
 *   close          the window got WM_CLOSE (close box, Alt+F4, File > Exit)
 *
 * Key names: "A".."Z", "0".."9", "F1".."F24", "Num0".."Num9", Enter, Escape, Tab, Back,
 * Delete, Insert, Home, End, PageUp, PageDown, Left, Right, Up, Down, Space, Shift,
 * Ctrl, Alt, Win, Apps, CapsLock, NumLock, ScrollLock, Pause, PrintScreen, Packet
 * (VK_PACKET, from SendInput KEYEVENTF_UNICODE), Multiply, Add, Subtract, Decimal,
 * Divide; punctuation keys by their character (";", ","...); anything else "0xNN".
 * Focus names: edit, list, combo, checkbox, canvas, owner1..owner3, main, dialog,
 * dialog_edit, key_7 (keypad), the text of any other button, "none" when no window of
 * ours has the focus.
 *
 * Main panel: window "winagent testapp", class WinagentTestApp, client 900x640, menu
 * bar, not resizable (it can be minimised and maximised; the controls stay put).
 * Controls, client pixels [left,top,right,bottom), in tab order:
 *
 *   class      text              id   name          rect
 *   STATIC     "Name:"           100  label_name    [20,22,80,42]
 *   EDIT       ""                101  edit          [90,20,390,44]    ES_AUTOHSCROLL
 *   BUTTON     "Enable feature"  102  checkbox      [20,60,220,84]    BS_AUTOCHECKBOX
 *   BUTTON     "OK"              103  OK            [20,100,120,132]
 *   BUTTON     "Apply"           104  Apply         [130,100,230,132]
 *   BUTTON     "Open dialog..."  105  Open dialog...[240,100,390,132]  opens the dialog
 *   BUTTON     ""                106  owner1        [20,150,70,200]   BS_OWNERDRAW, orange
 *   BUTTON     ""                107  owner2        [90,150,140,200]  BS_OWNERDRAW, purple
 *   BUTTON     ""                108  owner3        [160,150,210,200] BS_OWNERDRAW, teal
 *   STATIC     "Color:"          109  label_color   [20,224,80,244]
 *   COMBOBOX   Red/Green/Blue    110  combo         [90,220,290,241]  CBS_DROPDOWNLIST,
 *                                                   closed height from the font (21 px
 *                                                   under Wine); nothing selected at start
 *   STATIC     "Items:"          111  label_items   [20,264,80,284]
 *   LISTBOX    Item 1..Item 60   112  list          [90,260,290,424]  20 px per item,
 *                                                   8 visible, vertical scroll bar
 *   WinagentCanvas               113  canvas        [500,20,862,322]  1 px WS_BORDER,
 *                                                   client 360x300 at [501,21,861,321]
 *   STATIC     last log line     114  status        [20,606,880,630]  SS_SUNKEN
 *
 * Colours (exact RGB): owner1 orange (255,128,0), owner2 purple (128,0,160), owner3 teal
 * (0,160,160). The canvas is white (255,255,255); targets, canvas client pixels:
 *   red   square (255,0,0)  [40,40,100,100)
 *   green square (0,200,0)  [150,120,210,180)
 *   blue  circle (0,0,255)  bounding box [260,200,320,260), diameter 60
 * Hit-testing uses exactly the painted shapes (the circle is one GDI region, used for
 * both). No anti-aliasing, no theme.
 *
 * Menu bar: File (New Ctrl+N, Open... Ctrl+O, Save Ctrl+S, Save as..., Recent >
 * (1 notes.txt, 2 todo.txt), Print... (disabled), Word wrap (checked), Open dialog...,
 * separator, Exit), Edit (Select all, Clear), Help (About). Select all selects the
 * edit's text and focuses it; Clear empties the edit (which logs text_changed); the
 * others only log (Open dialog... opens the dialog). A right click on the main
 * window's own client area (not on a control) opens a context menu: Cut, Copy,
 * Paste. The menus are served as MSAA objects, as Windows' oleacc serves every
 * program's menus and Wine's serves none: WM_GETOBJECT with OBJID_MENU on the main
 * window gives the bar, and with OBJID_CLIENT on an open popup menu (subclassed as
 * it is created) that popup; each object's children are its items (name without
 * '&', "\tCtrl+S" kept as oleacc keeps it, role, state, place, default action).
 *
 * Controls panel: window "winagent controls", class WinagentControls, client 640x420,
 * no menu: a toolbar at the top (Open with text; two icon buttons whose tooltips are
 * callbacks answered with "Bold" and "Italic"), a report-mode list view at
 * [20,50,400,180] (columns Name, Type, Data; rows (Default) REG_SZ (value not set),
 * Greeting REG_SZ hello, Count REG_DWORD 0x00000005 (5)), a tree view at
 * [420,50,620,180] (Fruits expanded with Apple, Pear; Vegetables collapsed with Leek),
 * "Volume:" and a slider 0-100 at 30, "Progress:" and a progress bar at 60, "Copies:"
 * and an edit with a spin button at 5 (1-99), "Features:" and a tree view with check
 * boxes (TVS_CHECKBOXES) at [330,216,480,380] (Spell check checked, Auto save
 * unchecked, Backups expanded and checked with Daily checked and Weekly unchecked),
 * "Columns:" and a list view with check boxes (LVS_EX_CHECKBOXES, LVS_LIST) at
 * [490,216,630,380] (Name checked, Size unchecked, Date checked), and a status bar of
 * three parts (Ready, "Ln 3, Col 7", UTF-8).
 *
 * Dialog "testapp dialog" (DialogBoxIndirectParam from an in-memory template, modal,
 * owned by the main window, placed at main window's top-left + (120,120)), client
 * 380x150, controls laid out in pixels:
 *   STATIC "Your comment:"  [16,16,216,36]
 *   EDIT   ""               [16,40,364,64]    id 1001, dialog_edit
 *   BUTTON "OK"             [176,100,266,130] IDOK, default button
 *   BUTTON "Cancel"         [276,100,364,130] IDCANCEL (also Escape and the close box)
 *
 * Keypad panel: window "winagent keypad", class WinagentKeypad, client 300x390, twelve
 * BS_OWNERDRAW buttons with no window text (ids 200..211), 80x80 each, 10 px apart,
 * first at [20,20,100,100]. Rows: 7 8 9 / 4 5 6 / 1 2 3 / 0 + =. Each is light grey
 * (224,224,224) with a 2 px black border and a big black label; pressed, it is
 * (176,176,176). Nothing else in the window has a name.
 */

#ifndef UNICODE
#define UNICODE
#endif
#ifndef _UNICODE
#define _UNICODE
#endif
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0601
#endif

#define COBJMACROS
#include <windows.h>
#include <windowsx.h>
#include <commctrl.h>
#include <ole2.h>
#include <oleacc.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define MAIN_TITLE     L"winagent testapp"
#define KEYPAD_TITLE   L"winagent keypad"
#define CONTROLS_TITLE L"winagent controls"
#define DIALOG_TITLE   L"testapp dialog"

#define MAIN_CLIENT_W   900
#define MAIN_CLIENT_H   640
#define KEYPAD_CLIENT_W 300
#define KEYPAD_CLIENT_H 390
#define KEY_SIZE        80
#define KEY_GAP         10
#define KEY_MARGIN      20

/* Drags shorter than this (pixels, either axis) are clicks. */
#define CLICK_SLOP 5
/* Characters an edit accepts; keeps every log line well under LINE_CAP. */
#define EDIT_LIMIT 4096

enum {
    IDC_LABEL_NAME = 100,
    IDC_EDIT,
    IDC_CHECK,
    IDC_OK,
    IDC_APPLY,
    IDC_OPEN_DIALOG,
    IDC_OWNER1,
    IDC_OWNER2,
    IDC_OWNER3,
    IDC_LABEL_COLOR,
    IDC_COMBO,
    IDC_LABEL_ITEMS,
    IDC_LIST,
    IDC_CANVAS,
    IDC_STATUS,

    IDC_KEY_FIRST = 200, /* 12 keypad buttons, 200..211 */

    IDM_OPEN_DIALOG = 300,
    IDM_EXIT,
    IDM_SELECT_ALL,
    IDM_CLEAR,
    IDM_ABOUT,
    IDM_SAVE, /* accelerator only */
    IDM_NEW,
    IDM_OPEN,
    IDM_FILE_SAVE,
    IDM_SAVE_AS,
    IDM_RECENT_1,
    IDM_RECENT_2,
    IDM_PRINT,     /* disabled */
    IDM_WORD_WRAP, /* checked */
    IDM_CUT,       /* the context menu */
    IDM_COPY,
    IDM_PASTE,
    IDM_LAST = IDM_PASTE,

    IDC_CC_TOOLBAR = 400, /* the controls panel */
    IDC_CC_LIST,
    IDC_CC_TREE,
    IDC_CC_LABEL_SLIDER,
    IDC_CC_SLIDER,
    IDC_CC_LABEL_PROGRESS,
    IDC_CC_PROGRESS,
    IDC_CC_LABEL_COPIES,
    IDC_CC_COPIES,
    IDC_CC_SPIN,
    IDC_CC_STATUS,
    IDC_CC_LABEL_FEATURES,
    IDC_CC_FEATURES, /* a tree view with check boxes (TVS_CHECKBOXES) */
    IDC_CC_LABEL_COLUMNS,
    IDC_CC_COLUMNS, /* a list view with check boxes (LVS_EX_CHECKBOXES) */
    IDT_OPEN = 450, /* toolbar commands */
    IDT_BOLD,
    IDT_ITALIC,

    IDC_DLG_LABEL = 1000,
    IDC_DLG_EDIT = 1001,
};

#define KEY_COUNT 12
static const wchar_t *const KEY_LABELS[KEY_COUNT] = {
    L"7", L"8", L"9", L"4", L"5", L"6", L"1", L"2", L"3", L"0", L"+", L"=",
};

/* A child control: its id, the name used in the log, and its client rect. */
typedef struct {
    const wchar_t *cls;
    const wchar_t *text;
    int id;
    const wchar_t *name;
    DWORD style;
    RECT rc;
} ControlDef;

#define TAB WS_TABSTOP
/* clang-format off */
static const ControlDef MAIN_CONTROLS[] = {
    {L"STATIC",   L"Name:",  IDC_LABEL_NAME, L"label_name", SS_LEFT | SS_NOPREFIX,
                                                                             {20, 22, 80, 42}},
    {L"EDIT",     L"",       IDC_EDIT,   L"edit",   TAB | WS_BORDER | ES_AUTOHSCROLL,
                                                                             {90, 20, 390, 44}},
    {L"BUTTON",   L"Enable feature", IDC_CHECK, L"checkbox", TAB | BS_AUTOCHECKBOX,
                                                                             {20, 60, 220, 84}},
    {L"BUTTON",   L"OK",     IDC_OK,     L"OK",     TAB | BS_PUSHBUTTON,     {20, 100, 120, 132}},
    {L"BUTTON",   L"Apply",  IDC_APPLY,  L"Apply",  TAB | BS_PUSHBUTTON,     {130, 100, 230, 132}},
    {L"BUTTON",   L"Open dialog...", IDC_OPEN_DIALOG, L"Open dialog...", TAB | BS_PUSHBUTTON,
                                                                             {240, 100, 390, 132}},
    {L"BUTTON",   L"",       IDC_OWNER1, L"owner1", TAB | BS_OWNERDRAW,      {20, 150, 70, 200}},
    {L"BUTTON",   L"",       IDC_OWNER2, L"owner2", TAB | BS_OWNERDRAW,      {90, 150, 140, 200}},
    {L"BUTTON",   L"",       IDC_OWNER3, L"owner3", TAB | BS_OWNERDRAW,      {160, 150, 210, 200}},
    {L"STATIC",   L"Color:", IDC_LABEL_COLOR, L"label_color", SS_LEFT | SS_NOPREFIX,
                                                                             {20, 224, 80, 244}},
    /* The height given to a combo box is its dropped-down height. */
    {L"COMBOBOX", L"",       IDC_COMBO,  L"combo",  TAB | WS_VSCROLL | CBS_DROPDOWNLIST,
                                                                             {90, 220, 290, 420}},
    {L"STATIC",   L"Items:", IDC_LABEL_ITEMS, L"label_items", SS_LEFT | SS_NOPREFIX,
                                                                             {20, 264, 80, 284}},
    {L"LISTBOX",  L"",       IDC_LIST,   L"list",
     TAB | WS_BORDER | WS_VSCROLL | LBS_NOTIFY | LBS_NOINTEGRALHEIGHT,       {90, 260, 290, 424}},
    {L"WinagentCanvas", L"", IDC_CANVAS, L"canvas", TAB | WS_BORDER,         {500, 20, 862, 322}},
    {L"STATIC",   L"",       IDC_STATUS, L"status",
     SS_LEFT | SS_NOPREFIX | SS_SUNKEN | SS_LEFTNOWORDWRAP,                  {20, 606, 880, 630}},
};
/* clang-format on */
#define MAIN_CONTROL_COUNT (sizeof MAIN_CONTROLS / sizeof MAIN_CONTROLS[0])

#define LIST_ITEMS       60
#define LIST_ITEM_HEIGHT 20

static const COLORREF OWNER_COLORS[3] = {RGB(255, 128, 0), RGB(128, 0, 160), RGB(0, 160, 160)};

/* Canvas targets, canvas client pixels. */
static const RECT TARGET_RED = {40, 40, 100, 100};
static const RECT TARGET_GREEN = {150, 120, 210, 180};
static const RECT TARGET_BLUE = {260, 200, 320, 260}; /* bounding box of the circle */

#define KEY_FILL         RGB(224, 224, 224)
#define KEY_FILL_PRESSED RGB(176, 176, 176)

#define FEATURES_MAX    8               /* items of the Features tree */
#define WM_APP_FEATURES (WM_APP + 0x40) /* look at the Features tree's boxes again */

/* ------------------------------------------------------------------------------------ */
/* Application state (one UI thread). */

static struct {
    HINSTANCE inst;
    HANDLE log;         /* INVALID_HANDLE_VALUE without --log */
    ULONGLONG start_ms; /* GetTickCount64 at start */
    bool keypad;        /* --panel keypad */
    bool controls;      /* --panel controls */
    bool multi_select;  /* --list-select extended */
    HWND main;          /* the top-level window of either panel */
    HWND ctl[MAIN_CONTROL_COUNT];
    HWND keys[KEY_COUNT];
    HWND dialog;   /* the open dialog, or NULL */
    HMENU context; /* the context menu (right click on the window's own client area) */
    HWND status;
    HFONT font;       /* DEFAULT_GUI_FONT, not owned */
    HFONT key_font;   /* keypad labels, owned */
    HRGN blue_rgn;    /* canvas blue circle, owned */
    bool ready;       /* "ready" written; window events before it are not logged */
    bool in_sizemove; /* between WM_ENTERSIZEMOVE and WM_EXITSIZEMOVE */
    const char *last_state;
    RECT last_rect;
    HWND saved_focus;       /* restored when the window is activated again */
    wchar_t high_surrogate; /* first half of a pair seen in WM_CHAR, or 0 */
    /* Canvas mouse tracking: the button held down (0 none) and where it went down. */
    int drag_button;
    POINT drag_from;
    wchar_t dialog_text[EDIT_LIMIT + 1];
    /* The controls panel's boxes: the Features tree and what its boxes showed last. */
    HWND features;
    bool feature_checked[FEATURES_MAX];
    bool columns_ready; /* the Columns list is filled: its changes are logged */
} g = {.log = INVALID_HANDLE_VALUE};

/* ------------------------------------------------------------------------------------ */
/* JSON log lines. A Line is built on the stack, so logging from a handler that runs
 * inside another handler's logging is safe. A field that would overflow LINE_CAP is
 * dropped with every field after it, and the line ends in "truncated":true; the line is
 * always valid JSON. (With EDIT_LIMIT it cannot happen, but the bound is kept here.) */

#define LINE_CAP     32768
#define LINE_RESERVE 32 /* kept free for ,"truncated":true}\n */

typedef struct {
    char buf[LINE_CAP];
    size_t len;
    size_t field_start; /* where the field being written began: a safe cut point */
    bool truncated;
} Line;

/* Appends n bytes; once one append failed, only the forced closing ones succeed. */
static bool put(Line *l, const char *s, size_t n, bool force)
{
    size_t limit = force ? LINE_CAP : LINE_CAP - LINE_RESERVE;
    if ((l->truncated && !force) || l->len + n > limit) {
        l->truncated = true;
        return false;
    }
    memcpy(l->buf + l->len, s, n);
    l->len += n;
    return true;
}

static void puts_(Line *l, const char *s)
{
    put(l, s, strlen(s), false);
}

static void put_key(Line *l, const char *key)
{
    if (!l->truncated)
        l->field_start = l->len;
    puts_(l, ",\"");
    puts_(l, key);
    puts_(l, "\":");
}

/* Appends code point cp as UTF-8 with JSON escaping. */
static void put_codepoint(Line *l, unsigned cp)
{
    char b[8];
    size_t n = 0;
    if (cp == '"' || cp == '\\') {
        b[n++] = '\\';
        b[n++] = (char)cp;
    } else if (cp < 0x20) {
        static const char short_esc[] = {
            ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't'};
        if (cp < sizeof short_esc && short_esc[cp]) {
            b[n++] = '\\';
            b[n++] = short_esc[cp];
        } else {
            n = (size_t)snprintf(b, sizeof b, "\\u%04x", cp);
        }
    } else if (cp < 0x80) {
        b[n++] = (char)cp;
    } else if (cp < 0x800) {
        b[n++] = (char)(0xC0 | (cp >> 6));
        b[n++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        b[n++] = (char)(0xE0 | (cp >> 12));
        b[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[n++] = (char)(0x80 | (cp & 0x3F));
    } else {
        b[n++] = (char)(0xF0 | (cp >> 18));
        b[n++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[n++] = (char)(0x80 | (cp & 0x3F));
    }
    put(l, b, n, false);
}

/* Appends a UTF-16 string as a JSON string; NULL becomes null. Lone surrogates become
 * U+FFFD. */
static void put_wstr(Line *l, const wchar_t *s)
{
    if (!s) {
        puts_(l, "null");
        return;
    }
    puts_(l, "\"");
    for (size_t i = 0; s[i] && !l->truncated; i++) {
        unsigned cp = s[i];
        if (cp >= 0xD800 && cp <= 0xDBFF && s[i + 1] >= 0xDC00 && s[i + 1] <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (s[i + 1] - 0xDC00u);
            i++;
        } else if (cp >= 0xD800 && cp <= 0xDFFF) {
            cp = 0xFFFD;
        }
        put_codepoint(l, cp);
    }
    puts_(l, "\"");
}

static void line_begin(Line *l, const char *event)
{
    l->len = 0;
    l->field_start = 0;
    l->truncated = false;
    puts_(l, "{\"event\":\"");
    puts_(l, event);
    puts_(l, "\"");
    put_key(l, "t");
    char num[32];
    snprintf(num, sizeof num, "%llu", (unsigned long long)(GetTickCount64() - g.start_ms));
    puts_(l, num);
}

static void line_str(Line *l, const char *key, const wchar_t *value)
{
    put_key(l, key);
    put_wstr(l, value);
}

/* key and value are ASCII. */
static void line_astr(Line *l, const char *key, const char *value)
{
    put_key(l, key);
    if (!value) {
        puts_(l, "null");
        return;
    }
    puts_(l, "\"");
    puts_(l, value);
    puts_(l, "\"");
}

static void line_int(Line *l, const char *key, long long v)
{
    char num[32];
    snprintf(num, sizeof num, "%lld", v);
    put_key(l, key);
    puts_(l, num);
}

static void line_bool(Line *l, const char *key, bool v)
{
    put_key(l, key);
    puts_(l, v ? "true" : "false");
}

static void put_rect(Line *l, const RECT *r)
{
    char b[80];
    snprintf(b, sizeof b, "[%ld,%ld,%ld,%ld]", (long)r->left, (long)r->top, (long)r->right,
             (long)r->bottom);
    puts_(l, b);
}

static void line_rect(Line *l, const char *key, const RECT *r)
{
    put_key(l, key);
    put_rect(l, r);
}

static void line_pair(Line *l, const char *key, long a, long b)
{
    char s[48];
    snprintf(s, sizeof s, "[%ld,%ld]", a, b);
    put_key(l, key);
    puts_(l, s);
}

static void line_hwnd(Line *l, const char *key, HWND h)
{
    char s[32];
    snprintf(s, sizeof s, "0x%llx", (unsigned long long)(ULONG_PTR)h);
    line_astr(l, key, s);
}

/* Closes the line, appends it to the log file and shows it in the status line. */
static void line_end(Line *l)
{
    if (l->truncated) {
        l->len = l->field_start;
        put(l, ",\"truncated\":true", 17, true);
    }
    put(l, "}\n", 2, true);
    if (g.log != INVALID_HANDLE_VALUE) {
        DWORD written;
        WriteFile(g.log, l->buf, (DWORD)l->len, &written, NULL);
    }
    if (g.status) {
        static wchar_t wide[LINE_CAP];
        int n = MultiByteToWideChar(CP_UTF8, 0, l->buf, (int)l->len - 1, wide, LINE_CAP - 1);
        wide[n > 0 ? n : 0] = 0;
        SetWindowTextW(g.status, wide);
    }
}

/* ------------------------------------------------------------------------------------ */
/* Names for the log. */

static const char *vk_name(UINT vk, char *buf, size_t cap)
{
    static const struct {
        UINT vk;
        const char *name;
    } names[] = {
        {VK_RETURN, "Enter"},    {VK_ESCAPE, "Escape"},
        {VK_TAB, "Tab"},         {VK_BACK, "Back"},
        {VK_DELETE, "Delete"},   {VK_INSERT, "Insert"},
        {VK_HOME, "Home"},       {VK_END, "End"},
        {VK_PRIOR, "PageUp"},    {VK_NEXT, "PageDown"},
        {VK_LEFT, "Left"},       {VK_RIGHT, "Right"},
        {VK_UP, "Up"},           {VK_DOWN, "Down"},
        {VK_SPACE, "Space"},     {VK_SHIFT, "Shift"},
        {VK_LSHIFT, "Shift"},    {VK_RSHIFT, "Shift"},
        {VK_CONTROL, "Ctrl"},    {VK_LCONTROL, "Ctrl"},
        {VK_RCONTROL, "Ctrl"},   {VK_MENU, "Alt"},
        {VK_LMENU, "Alt"},       {VK_RMENU, "Alt"},
        {VK_LWIN, "Win"},        {VK_RWIN, "Win"},
        {VK_APPS, "Apps"},       {VK_CAPITAL, "CapsLock"},
        {VK_NUMLOCK, "NumLock"}, {VK_SCROLL, "ScrollLock"},
        {VK_PAUSE, "Pause"},     {VK_SNAPSHOT, "PrintScreen"},
        {VK_PACKET, "Packet"},   {VK_MULTIPLY, "Multiply"},
        {VK_ADD, "Add"},         {VK_SUBTRACT, "Subtract"},
        {VK_DECIMAL, "Decimal"}, {VK_DIVIDE, "Divide"},
    };
    if ((vk >= 'A' && vk <= 'Z') || (vk >= '0' && vk <= '9')) {
        snprintf(buf, cap, "%c", (char)vk);
        return buf;
    }
    if (vk >= VK_F1 && vk <= VK_F24) {
        snprintf(buf, cap, "F%u", vk - VK_F1 + 1);
        return buf;
    }
    if (vk >= VK_NUMPAD0 && vk <= VK_NUMPAD9) {
        snprintf(buf, cap, "Num%u", vk - VK_NUMPAD0);
        return buf;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].vk == vk)
            return names[i].name;
    /* Punctuation: the unshifted character the layout gives it. */
    UINT ch = MapVirtualKeyW(vk, MAPVK_VK_TO_CHAR) & 0x7FFF;
    if (ch > 0x20 && ch < 0x7F && ch != '"' && ch != '\\') {
        snprintf(buf, cap, "%c", (char)ch);
        return buf;
    }
    snprintf(buf, cap, "0x%02X", vk);
    return buf;
}

/* The log name of window h (one of ours), or NULL. */
static const wchar_t *window_name(HWND h, wchar_t *buf, size_t cap)
{
    if (!h)
        return NULL;
    if (h == g.main)
        return L"main";
    if (g.dialog && h == g.dialog)
        return L"dialog";
    for (size_t i = 0; i < MAIN_CONTROL_COUNT; i++)
        if (g.ctl[i] == h)
            return MAIN_CONTROLS[i].name;
    for (int i = 0; i < KEY_COUNT; i++)
        if (g.keys[i] == h) {
            swprintf(buf, cap, L"key_%ls", KEY_LABELS[i]);
            return buf;
        }
    if (g.dialog && GetParent(h) == g.dialog) {
        if (GetDlgCtrlID(h) == IDC_DLG_EDIT)
            return L"dialog_edit";
        if (GetWindowTextW(h, buf, (int)cap) > 0)
            return buf;
    }
    return NULL;
}

/* The log name of the focused window: the nearest named ancestor of GetFocus(). */
static const wchar_t *focus_name(wchar_t *buf, size_t cap)
{
    for (HWND h = GetFocus(); h; h = GetParent(h)) {
        const wchar_t *name = window_name(h, buf, cap);
        if (name)
            return name;
    }
    return L"none";
}

/* ------------------------------------------------------------------------------------ */
/* Keyboard: every key and character message the thread removes from its queue, seen
 * before TranslateAccelerator, IsDialogMessage and TranslateMessage, in any message loop
 * of the thread (ours, the modal dialog's, menu tracking). */

static bool key_down(int vk)
{
    return (GetKeyState(vk) & 0x8000) != 0;
}

/* Input from a keyboard or SendInput has a repeat count of at least 1; a zero count
 * means a program posted the message itself (Wine's menu code posts VK_RETURN to open
 * a menu chosen with Alt+letter). WM_CHAR keeps the lParam of its WM_KEYDOWN. */
static void line_synthetic(Line *l, LPARAM lp)
{
    if (LOWORD(lp) == 0)
        line_bool(l, "synthetic", true);
}

static void log_key_message(const MSG *m)
{
    wchar_t fbuf[64];
    char nbuf[16];
    Line l;
    switch (m->message) {
    case WM_KEYDOWN:
    case WM_SYSKEYDOWN:
        line_begin(&l, "key");
        line_int(&l, "vk", (long long)m->wParam);
        line_astr(&l, "name", vk_name((UINT)m->wParam, nbuf, sizeof nbuf));
        line_bool(&l, "ctrl", key_down(VK_CONTROL));
        line_bool(&l, "shift", key_down(VK_SHIFT));
        line_bool(&l, "alt", key_down(VK_MENU));
        line_bool(&l, "win", key_down(VK_LWIN) || key_down(VK_RWIN));
        line_bool(&l, "repeat", (m->lParam & (1L << 30)) != 0);
        line_str(&l, "focus", focus_name(fbuf, 64));
        line_synthetic(&l, m->lParam);
        line_end(&l);
        break;
    case WM_KEYUP:
    case WM_SYSKEYUP:
        line_begin(&l, "key_up");
        line_int(&l, "vk", (long long)m->wParam);
        line_astr(&l, "name", vk_name((UINT)m->wParam, nbuf, sizeof nbuf));
        line_synthetic(&l, m->lParam);
        line_end(&l);
        break;
    case WM_CHAR: {
        wchar_t u = (wchar_t)m->wParam;
        wchar_t text[3] = {0};
        unsigned code;
        if (u >= 0xD800 && u <= 0xDBFF) {
            g.high_surrogate = u; /* wait for the second half */
            break;
        }
        if (u >= 0xDC00 && u <= 0xDFFF && g.high_surrogate) {
            text[0] = g.high_surrogate;
            text[1] = u;
            code = 0x10000 + ((g.high_surrogate - 0xD800u) << 10) + (u - 0xDC00u);
        } else {
            text[0] = u;
            code = u;
        }
        g.high_surrogate = 0;
        line_begin(&l, "char");
        line_str(&l, "text", text);
        line_int(&l, "code", code);
        line_str(&l, "focus", focus_name(fbuf, 64));
        line_synthetic(&l, m->lParam);
        line_end(&l);
        break;
    }
    default:
        break;
    }
}

static LRESULT CALLBACK getmessage_hook(int code, WPARAM wp, LPARAM lp)
{
    /* PM_NOREMOVE peeks see the same message again later; log it once, when removed. */
    if (code == HC_ACTION && wp == PM_REMOVE)
        log_key_message((const MSG *)lp);
    return CallNextHookEx(NULL, code, wp, lp);
}

/* ------------------------------------------------------------------------------------ */
/* Top-level window bookkeeping shared by both panels. */

static void log_activate(WPARAM wp)
{
    Line l;
    if (!g.ready)
        return;
    line_begin(&l, "activate");
    line_bool(&l, "active", LOWORD(wp) != WA_INACTIVE);
    line_end(&l);
}

/* Logs a "window" line when the state or the frame changed since the last one. */
static void log_window_change(HWND hwnd)
{
    Line l;
    RECT rc;
    if (!g.ready || g.in_sizemove)
        return;
    const char *state = IsIconic(hwnd) ? "minimized" : IsZoomed(hwnd) ? "maximized" : "restored";
    GetWindowRect(hwnd, &rc);
    if (state == g.last_state && EqualRect(&rc, &g.last_rect))
        return;
    g.last_state = state;
    g.last_rect = rc;
    line_begin(&l, "window");
    line_astr(&l, "state", state);
    line_rect(&l, "rect", &rc);
    line_end(&l);
}

/* Handles what both top-level windows share; returns true when msg was consumed. */
static bool handle_frame_message(HWND hwnd, UINT msg, WPARAM wp, LRESULT *result)
{
    Line l;
    switch (msg) {
    case WM_ACTIVATE: {
        /* Dialog-style focus: remember the focused child when the window goes inactive
         * and give it back when it is activated again, instead of DefWindowProc's
         * focus on the frame. */
        HWND f = GetFocus();
        log_activate(wp);
        if (LOWORD(wp) == WA_INACTIVE) {
            if (f && IsChild(hwnd, f))
                g.saved_focus = f;
            return false;
        }
        if (IsIconic(hwnd))
            return false;
        if (!(f && IsChild(hwnd, f))) {
            if (!g.saved_focus || !IsChild(hwnd, g.saved_focus))
                return false; /* DefWindowProc focuses the frame */
            SetFocus(g.saved_focus);
        }
        *result = 0;
        return true;
    }
    case WM_SIZE:
        /* Wine minimises without deactivating: remember the focus here too. */
        if (wp == SIZE_MINIMIZED) {
            HWND f = GetFocus();
            if (f && IsChild(hwnd, f))
                g.saved_focus = f;
        }
        return false;
    case WM_ENTERSIZEMOVE:
        g.in_sizemove = true;
        return false;
    case WM_EXITSIZEMOVE:
        g.in_sizemove = false;
        log_window_change(hwnd);
        return false;
    case WM_WINDOWPOSCHANGED:
        log_window_change(hwnd);
        return false; /* DefWindowProc still sends WM_SIZE / WM_MOVE */
    case WM_CLOSE:
        line_begin(&l, "close");
        line_end(&l);
        DestroyWindow(hwnd);
        *result = 0;
        return true;
    case WM_DESTROY:
        PostQuitMessage(0);
        *result = 0;
        return true;
    default:
        return false;
    }
}

/* Fills one owner-drawn button: a solid face, a border 'border' px wide, and a
 * centred label when given. */
static void paint_owner_button(const DRAWITEMSTRUCT *di, COLORREF face, int border,
                               const wchar_t *label)
{
    HDC dc = di->hDC;
    RECT rc = di->rcItem;
    HBRUSH black = GetStockObject(BLACK_BRUSH);
    if (border > 0) {
        FillRect(dc, &rc, black);
        InflateRect(&rc, -border, -border);
    }
    HBRUSH fill = CreateSolidBrush(face);
    FillRect(dc, &rc, fill);
    DeleteObject(fill);
    if (label) {
        HGDIOBJ old = SelectObject(dc, g.key_font);
        SetBkMode(dc, TRANSPARENT);
        SetTextColor(dc, RGB(0, 0, 0));
        DrawTextW(dc, label, -1, &rc, DT_CENTER | DT_VCENTER | DT_SINGLELINE | DT_NOPREFIX);
        SelectObject(dc, old);
    }
    if (di->itemState & ODS_FOCUS) {
        InflateRect(&rc, -4, -4);
        DrawFocusRect(dc, &rc);
    }
}

/* Writes "controls":{name:screen rect,...} for the children of parent, or with
 * handles "control_hwnds":{name:"0x..",...}. */
static void line_controls(Line *l, HWND parent, bool handles)
{
    wchar_t buf[64];
    bool first = true;
    put_key(l, handles ? "control_hwnds" : "controls");
    puts_(l, "{");
    for (HWND h = GetWindow(parent, GW_CHILD); h; h = GetWindow(h, GW_HWNDNEXT)) {
        const wchar_t *name = window_name(h, buf, 64);
        RECT rc;
        char hs[32];
        if (!name)
            continue;
        if (!first)
            puts_(l, ",");
        first = false;
        put_wstr(l, name);
        puts_(l, ":");
        if (handles) {
            snprintf(hs, sizeof hs, "\"0x%llx\"", (unsigned long long)(ULONG_PTR)h);
            puts_(l, hs);
        } else {
            GetWindowRect(h, &rc);
            put_rect(l, &rc);
        }
    }
    if (!handles && !g.keypad && !g.controls && parent == g.main) {
        /* The canvas targets, in screen pixels, to aim at without reading pixels. */
        static const struct {
            const char *name;
            const RECT *rc;
        } targets[] = {{"target_red", &TARGET_RED},
                       {"target_green", &TARGET_GREEN},
                       {"target_blue", &TARGET_BLUE}};
        for (size_t i = 0; i < 3; i++) {
            RECT rc = *targets[i].rc;
            MapWindowPoints(g.ctl[IDC_CANVAS - IDC_LABEL_NAME], NULL, (POINT *)&rc, 2);
            puts_(l, ",\"");
            puts_(l, targets[i].name);
            puts_(l, "\":");
            put_rect(l, &rc);
        }
    }
    puts_(l, "}");
}

/* The text of a menu item as a user reads it: no '&' marks, no "\tShortcut". */
static void menu_text(HMENU menu, UINT item, UINT flags, wchar_t *out, int cap)
{
    wchar_t raw[64];
    int n = 0;
    if (GetMenuStringW(menu, item, raw, 64, flags) <= 0)
        raw[0] = 0; /* no such item in this menu */
    for (const wchar_t *in = raw; *in && *in != L'\t' && n < cap - 1; in++)
        if (*in != L'&')
            out[n++] = *in;
    out[n] = 0;
}

static void log_ready(const char *panel)
{
    Line l;
    RECT rc, client;
    wchar_t title[128], fbuf[64];
    GetWindowRect(g.main, &rc);
    GetClientRect(g.main, &client);
    MapWindowPoints(g.main, NULL, (POINT *)&client, 2);
    GetWindowTextW(g.main, title, 128);
    g.ready = true;
    g.last_state = IsIconic(g.main) ? "minimized" : IsZoomed(g.main) ? "maximized" : "restored";
    g.last_rect = rc;

    line_begin(&l, "ready");
    line_hwnd(&l, "hwnd", g.main);
    line_astr(&l, "panel", panel);
    line_int(&l, "pid", (long long)GetCurrentProcessId());
    line_str(&l, "title", title);
    line_rect(&l, "rect", &rc);
    line_rect(&l, "client_rect", &client);
    line_pair(&l, "screen", GetSystemMetrics(SM_CXSCREEN), GetSystemMetrics(SM_CYSCREEN));
    HDC screen = GetDC(NULL);
    line_int(&l, "dpi", screen ? GetDeviceCaps(screen, LOGPIXELSX) : 0);
    if (screen)
        ReleaseDC(NULL, screen);
    line_str(&l, "focus", focus_name(fbuf, 64));
    line_bool(&l, "foreground", GetForegroundWindow() == g.main);
    line_controls(&l, g.main, false);
    line_controls(&l, g.main, true);
    HMENU bar = GetMenu(g.main);
    if (bar) {
        put_key(&l, "menu");
        puts_(&l, "{");
        for (int i = 0; i < GetMenuItemCount(bar); i++) {
            wchar_t text[64];
            RECT item;
            menu_text(bar, (UINT)i, MF_BYPOSITION, text, 64);
            GetMenuItemRect(g.main, bar, (UINT)i, &item);
            if (i > 0)
                puts_(&l, ",");
            put_wstr(&l, text);
            puts_(&l, ":");
            put_rect(&l, &item);
        }
        puts_(&l, "}");
    }
    line_end(&l);
}

/* ------------------------------------------------------------------------------------ */
/* The dialog: an in-memory DLGTEMPLATE. Items get rough dialog-unit positions in the
 * template; WM_INITDIALOG then lays everything out in fixed pixels. */

#define DLG_CLIENT_W 380
#define DLG_CLIENT_H 150

static const struct {
    int id;
    WORD atom; /* 0x80 button, 0x81 edit, 0x82 static */
    const wchar_t *text;
    DWORD style;
    RECT rc; /* client pixels */
} DIALOG_ITEMS[] = {
    {IDC_DLG_LABEL, 0x82, L"Your comment:", SS_LEFT | SS_NOPREFIX, {16, 16, 216, 36}},
    {IDC_DLG_EDIT, 0x81, L"", WS_TABSTOP | WS_BORDER | ES_AUTOHSCROLL, {16, 40, 364, 64}},
    {IDOK, 0x80, L"OK", WS_TABSTOP | BS_DEFPUSHBUTTON, {176, 100, 266, 130}},
    {IDCANCEL, 0x80, L"Cancel", WS_TABSTOP | BS_PUSHBUTTON, {276, 100, 364, 130}},
};
#define DIALOG_ITEM_COUNT (sizeof DIALOG_ITEMS / sizeof DIALOG_ITEMS[0])

/* Template writer: WORDs appended to a DWORD-aligned buffer. */
typedef struct {
    DWORD mem[512];
    WORD *p;
} Template;

static void tpl_word(Template *t, WORD w)
{
    *t->p++ = w;
}
static void tpl_dword(Template *t, DWORD d)
{
    tpl_word(t, LOWORD(d));
    tpl_word(t, HIWORD(d));
}
static void tpl_wstr(Template *t, const wchar_t *s)
{
    do
        tpl_word(t, (WORD)*s);
    while (*s++);
}
static void tpl_align(Template *t)
{
    if (((ULONG_PTR)t->p & 3) != 0)
        tpl_word(t, 0);
}

static void build_dialog_template(Template *t)
{
    t->p = (WORD *)t->mem;
    /* DLGTEMPLATE: style, extended style, item count, x, y, cx, cy (dialog units). */
    tpl_dword(t, DS_MODALFRAME | DS_SETFONT | WS_POPUP | WS_CAPTION | WS_SYSMENU);
    tpl_dword(t, 0);
    tpl_word(t, (WORD)DIALOG_ITEM_COUNT);
    tpl_word(t, 0);
    tpl_word(t, 0);
    tpl_word(t, 250);
    tpl_word(t, 100);
    tpl_word(t, 0); /* no menu */
    tpl_word(t, 0); /* default dialog class */
    tpl_wstr(t, DIALOG_TITLE);
    tpl_word(t, 8);
    tpl_wstr(t, L"MS Shell Dlg");
    for (size_t i = 0; i < DIALOG_ITEM_COUNT; i++) {
        tpl_align(t);
        /* DLGITEMTEMPLATE: style, extended style, x, y, cx, cy, id, class, text, data. */
        tpl_dword(t, WS_CHILD | WS_VISIBLE | DIALOG_ITEMS[i].style);
        tpl_dword(t, 0);
        tpl_word(t, (WORD)(DIALOG_ITEMS[i].rc.left / 2));
        tpl_word(t, (WORD)(DIALOG_ITEMS[i].rc.top / 2));
        tpl_word(t, (WORD)((DIALOG_ITEMS[i].rc.right - DIALOG_ITEMS[i].rc.left) / 2));
        tpl_word(t, (WORD)((DIALOG_ITEMS[i].rc.bottom - DIALOG_ITEMS[i].rc.top) / 2));
        tpl_word(t, (WORD)DIALOG_ITEMS[i].id);
        tpl_word(t, 0xFFFF);
        tpl_word(t, DIALOG_ITEMS[i].atom);
        tpl_wstr(t, DIALOG_ITEMS[i].text);
        tpl_word(t, 0);
    }
}

static void dialog_layout(HWND dlg)
{
    RECT owner, frame = {0, 0, DLG_CLIENT_W, DLG_CLIENT_H};
    AdjustWindowRectEx(&frame, (DWORD)GetWindowLongPtrW(dlg, GWL_STYLE), FALSE,
                       (DWORD)GetWindowLongPtrW(dlg, GWL_EXSTYLE));
    GetWindowRect(g.main, &owner);
    SetWindowPos(dlg, NULL, owner.left + 120, owner.top + 120, frame.right - frame.left,
                 frame.bottom - frame.top, SWP_NOZORDER | SWP_NOACTIVATE);
    for (size_t i = 0; i < DIALOG_ITEM_COUNT; i++) {
        const RECT *r = &DIALOG_ITEMS[i].rc;
        HWND item = GetDlgItem(dlg, DIALOG_ITEMS[i].id);
        MoveWindow(item, r->left, r->top, r->right - r->left, r->bottom - r->top, TRUE);
        SendMessageW(item, WM_SETFONT, (WPARAM)g.font, TRUE);
    }
    SendDlgItemMessageW(dlg, IDC_DLG_EDIT, EM_LIMITTEXT, EDIT_LIMIT, 0);
}

static INT_PTR CALLBACK dialog_proc(HWND dlg, UINT msg, WPARAM wp, LPARAM lp)
{
    Line l;
    (void)lp;
    switch (msg) {
    case WM_INITDIALOG: {
        RECT rc;
        g.dialog = dlg;
        dialog_layout(dlg);
        SetFocus(GetDlgItem(dlg, IDC_DLG_EDIT));
        GetWindowRect(dlg, &rc);
        line_begin(&l, "dialog_open");
        line_hwnd(&l, "hwnd", dlg);
        line_rect(&l, "rect", &rc);
        line_controls(&l, dlg, false);
        line_end(&l);
        return FALSE; /* focus set above */
    }
    case WM_COMMAND:
        switch (LOWORD(wp)) {
        case IDC_DLG_EDIT:
            if (HIWORD(wp) == EN_CHANGE) {
                wchar_t text[EDIT_LIMIT + 1];
                GetDlgItemTextW(dlg, IDC_DLG_EDIT, text, EDIT_LIMIT + 1);
                line_begin(&l, "text_changed");
                line_astr(&l, "control", "dialog_edit");
                line_str(&l, "text", text);
                line_end(&l);
            }
            return TRUE;
        case IDOK:
        case IDCANCEL:
            GetDlgItemTextW(dlg, IDC_DLG_EDIT, g.dialog_text, EDIT_LIMIT + 1);
            EndDialog(dlg, LOWORD(wp));
            return TRUE;
        default:
            return FALSE;
        }
    default:
        return FALSE;
    }
}

/* Runs the modal dialog and logs how it ended. */
static void run_dialog(HWND owner)
{
    static Template t;
    Line l;
    build_dialog_template(&t);
    g.dialog_text[0] = 0;
    INT_PTR r = DialogBoxIndirectParamW(g.inst, (LPCDLGTEMPLATEW)t.mem, owner, dialog_proc, 0);
    g.dialog = NULL;
    line_begin(&l, "dialog_close");
    line_astr(&l, "result", r == IDOK ? "ok" : r == IDCANCEL ? "cancel" : "error");
    line_str(&l, "text", g.dialog_text);
    line_end(&l);
}

/* ------------------------------------------------------------------------------------ */
/* Canvas: white with three targets; logs mouse buttons, clicks, drags and the wheel. */

static const char *canvas_target(int x, int y)
{
    POINT pt = {x, y};
    if (PtInRect(&TARGET_RED, pt))
        return "red";
    if (PtInRect(&TARGET_GREEN, pt))
        return "green";
    if (PtInRegion(g.blue_rgn, x, y))
        return "blue";
    return NULL;
}

static void canvas_paint(HWND hwnd)
{
    PAINTSTRUCT ps;
    RECT rc;
    HDC dc = BeginPaint(hwnd, &ps);
    GetClientRect(hwnd, &rc);
    HBRUSH white = CreateSolidBrush(RGB(255, 255, 255));
    HBRUSH red = CreateSolidBrush(RGB(255, 0, 0));
    HBRUSH green = CreateSolidBrush(RGB(0, 200, 0));
    HBRUSH blue = CreateSolidBrush(RGB(0, 0, 255));
    FillRect(dc, &rc, white);
    FillRect(dc, &TARGET_RED, red);
    FillRect(dc, &TARGET_GREEN, green);
    FillRgn(dc, g.blue_rgn, blue);
    DeleteObject(white);
    DeleteObject(red);
    DeleteObject(green);
    DeleteObject(blue);
    EndPaint(hwnd, &ps);
}

static void canvas_mouse(HWND hwnd, int button, const char *kind, LPARAM lp)
{
    static const char *const BUTTONS[] = {"", "left", "right", "middle"};
    Line l;
    int x = GET_X_LPARAM(lp), y = GET_Y_LPARAM(lp);
    const char *target = canvas_target(x, y);

    line_begin(&l, "mouse");
    line_astr(&l, "control", "canvas");
    line_astr(&l, "button", BUTTONS[button]);
    line_astr(&l, "kind", kind);
    line_int(&l, "x", x);
    line_int(&l, "y", y);
    line_astr(&l, "target", target);
    line_end(&l);

    if (strcmp(kind, "up") != 0) { /* down or double: start tracking */
        if (!g.drag_button) {
            g.drag_button = button;
            g.drag_from.x = x;
            g.drag_from.y = y;
            SetCapture(hwnd);
        }
        SetFocus(hwnd);
        return;
    }
    if (button != g.drag_button)
        return;
    g.drag_button = 0;
    if (abs(x - g.drag_from.x) <= CLICK_SLOP && abs(y - g.drag_from.y) <= CLICK_SLOP) {
        line_begin(&l, "click");
        line_astr(&l, "control", "canvas");
        line_astr(&l, "button", BUTTONS[button]);
        line_int(&l, "x", x);
        line_int(&l, "y", y);
        line_astr(&l, "target", target);
    } else {
        line_begin(&l, "drag");
        line_astr(&l, "control", "canvas");
        line_astr(&l, "button", BUTTONS[button]);
        line_pair(&l, "from", g.drag_from.x, g.drag_from.y);
        line_pair(&l, "to", x, y);
        line_astr(&l, "target_from", canvas_target(g.drag_from.x, g.drag_from.y));
        line_astr(&l, "target_to", target);
    }
    line_end(&l);
    ReleaseCapture(); /* after the summary: WM_CAPTURECHANGED resets tracking */
}

/* Logs a wheel message for a control. The point comes from GetMessagePos, not from
 * lParam: Wine 8 puts client instead of screen coordinates in WM_MOUSEHWHEEL's lParam. */
static void log_wheel(HWND hwnd, const char *control, UINT msg, WPARAM wp, int top_index)
{
    Line l;
    DWORD pos = GetMessagePos();
    POINT pt = {GET_X_LPARAM(pos), GET_Y_LPARAM(pos)};
    ScreenToClient(hwnd, &pt);
    line_begin(&l, "wheel");
    line_astr(&l, "control", control);
    line_int(&l, "delta", GET_WHEEL_DELTA_WPARAM(wp));
    line_bool(&l, "horizontal", msg == WM_MOUSEHWHEEL);
    line_int(&l, "x", pt.x);
    line_int(&l, "y", pt.y);
    if (top_index >= 0)
        line_int(&l, "top_index", top_index);
    line_end(&l);
}

/* The canvas's button messages: the button (1 left, 2 right, 3 middle) and what it did. */
static const struct {
    UINT msg;
    int button;
    const char *kind;
} CANVAS_BUTTONS[] = {
    {WM_LBUTTONDOWN, 1, "down"}, {WM_LBUTTONUP, 1, "up"}, {WM_LBUTTONDBLCLK, 1, "double"},
    {WM_RBUTTONDOWN, 2, "down"}, {WM_RBUTTONUP, 2, "up"}, {WM_RBUTTONDBLCLK, 2, "double"},
    {WM_MBUTTONDOWN, 3, "down"}, {WM_MBUTTONUP, 3, "up"}, {WM_MBUTTONDBLCLK, 3, "double"},
};

static LRESULT CALLBACK canvas_proc(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    for (size_t i = 0; i < sizeof CANVAS_BUTTONS / sizeof CANVAS_BUTTONS[0]; i++)
        if (msg == CANVAS_BUTTONS[i].msg) {
            canvas_mouse(hwnd, CANVAS_BUTTONS[i].button, CANVAS_BUTTONS[i].kind, lp);
            return 0;
        }
    switch (msg) {
    case WM_ERASEBKGND:
        return 1; /* WM_PAINT covers every pixel */
    case WM_PAINT:
        canvas_paint(hwnd);
        return 0;
    case WM_CAPTURECHANGED:
        g.drag_button = 0;
        return 0;
    case WM_MOUSEWHEEL:
    case WM_MOUSEHWHEEL:
        log_wheel(hwnd, "canvas", msg, wp, -1);
        return 0;
    default:
        return DefWindowProcW(hwnd, msg, wp, lp);
    }
}

/* ------------------------------------------------------------------------------------ */
/* List box subclass: logs the wheel with the top index after the list scrolled. */

static WNDPROC list_default_proc;

static LRESULT CALLBACK list_proc(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    LRESULT r = CallWindowProcW(list_default_proc, hwnd, msg, wp, lp);
    if (msg == WM_MOUSEWHEEL || msg == WM_MOUSEHWHEEL)
        log_wheel(hwnd, "list", msg, wp, (int)SendMessageW(hwnd, LB_GETTOPINDEX, 0, 0));
    return r;
}

/* ------------------------------------------------------------------------------------ */
/* Main panel. */

static HWND main_ctl(int id)
{
    return g.ctl[id - IDC_LABEL_NAME];
}

static HMENU build_menu(void)
{
    HMENU bar = CreateMenu(), file = CreatePopupMenu(), recent = CreatePopupMenu(),
          edit = CreatePopupMenu(), help = CreatePopupMenu();
    AppendMenuW(file, MF_STRING, IDM_NEW, L"&New\tCtrl+N");
    AppendMenuW(file, MF_STRING, IDM_OPEN, L"&Open...\tCtrl+O");
    AppendMenuW(file, MF_STRING, IDM_FILE_SAVE, L"&Save\tCtrl+S");
    AppendMenuW(file, MF_STRING, IDM_SAVE_AS, L"Save &as...");
    AppendMenuW(recent, MF_STRING, IDM_RECENT_1, L"&1 notes.txt");
    AppendMenuW(recent, MF_STRING, IDM_RECENT_2, L"&2 todo.txt");
    AppendMenuW(file, MF_POPUP, (UINT_PTR)recent, L"&Recent");
    AppendMenuW(file, MF_STRING | MF_GRAYED, IDM_PRINT, L"&Print...");
    AppendMenuW(file, MF_STRING | MF_CHECKED, IDM_WORD_WRAP, L"&Word wrap");
    AppendMenuW(file, MF_STRING, IDM_OPEN_DIALOG, L"Open &dialog...");
    AppendMenuW(file, MF_SEPARATOR, 0, NULL);
    AppendMenuW(file, MF_STRING, IDM_EXIT, L"E&xit");
    AppendMenuW(edit, MF_STRING, IDM_SELECT_ALL, L"Select &all");
    AppendMenuW(edit, MF_STRING, IDM_CLEAR, L"&Clear");
    AppendMenuW(help, MF_STRING, IDM_ABOUT, L"&About");
    AppendMenuW(bar, MF_POPUP, (UINT_PTR)file, L"&File");
    AppendMenuW(bar, MF_POPUP, (UINT_PTR)edit, L"&Edit");
    AppendMenuW(bar, MF_POPUP, (UINT_PTR)help, L"&Help");
    g.context = CreatePopupMenu();
    AppendMenuW(g.context, MF_STRING, IDM_CUT, L"Cu&t");
    AppendMenuW(g.context, MF_STRING, IDM_COPY, L"&Copy");
    AppendMenuW(g.context, MF_STRING, IDM_PASTE, L"&Paste");
    return bar;
}

/* ------------------------------------------------------------------------------------ */
/* The menus as MSAA objects, served the way Windows' oleacc serves every program's
 * menus (Wine's oleacc serves none): WM_GETOBJECT with OBJID_MENU on the main window
 * gives the menu bar, with OBJID_CLIENT on an open popup menu (#32768, subclassed when
 * it is created) that popup. Each object's children are simple elements, child id
 * i + 1 for the item at position i: name (no '&'; "\tCtrl+S" kept, as oleacc does),
 * role, state (unavailable, checked, has popup), place, and a default action. */

static const IID iid_accessible = {
    0x618736e0, 0x3c3d, 0x11cf, {0x81, 0x0c, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71}};

typedef struct {
    IAccessible iface;
    LONG refs;
    HMENU menu;
    HWND popup; /* the popup window, or NULL for the menu bar */
} MenuAcc;

static MenuAcc *menu_acc(IAccessible *a)
{
    return (MenuAcc *)a;
}

static HRESULT STDMETHODCALLTYPE ma_query(IAccessible *a, REFIID riid, void **out)
{
    if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, &IID_IDispatch) ||
        IsEqualIID(riid, &iid_accessible)) {
        *out = a;
        IAccessible_AddRef(a);
        return S_OK;
    }
    *out = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE ma_addref(IAccessible *a)
{
    return (ULONG)InterlockedIncrement(&menu_acc(a)->refs);
}

static ULONG STDMETHODCALLTYPE ma_release(IAccessible *a)
{
    LONG n = InterlockedDecrement(&menu_acc(a)->refs);
    if (!n)
        free(a);
    return (ULONG)n;
}

static HRESULT STDMETHODCALLTYPE ma_typeinfo_count(IAccessible *a, UINT *n)
{
    (void)a;
    *n = 0;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ma_typeinfo(IAccessible *a, UINT i, LCID lcid, ITypeInfo **out)
{
    (void)a, (void)i, (void)lcid;
    *out = NULL;
    return E_NOTIMPL;
}

static HRESULT STDMETHODCALLTYPE ma_ids(IAccessible *a, REFIID riid, LPOLESTR *names, UINT n,
                                        LCID lcid, DISPID *ids)
{
    (void)a, (void)riid, (void)names, (void)n, (void)lcid, (void)ids;
    return E_NOTIMPL;
}

static HRESULT STDMETHODCALLTYPE ma_invoke(IAccessible *a, DISPID id, REFIID riid, LCID lcid,
                                           WORD flags, DISPPARAMS *p, VARIANT *r, EXCEPINFO *e,
                                           UINT *arg)
{
    (void)a, (void)id, (void)riid, (void)lcid, (void)flags, (void)p, (void)r, (void)e, (void)arg;
    return E_NOTIMPL;
}

static HRESULT STDMETHODCALLTYPE ma_parent(IAccessible *a, IDispatch **out)
{
    (void)a;
    *out = NULL;
    return S_FALSE;
}

static HRESULT STDMETHODCALLTYPE ma_child_count(IAccessible *a, long *n)
{
    int count = GetMenuItemCount(menu_acc(a)->menu);
    *n = count > 0 ? count : 0;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ma_child(IAccessible *a, VARIANT v, IDispatch **out)
{
    (void)a, (void)v;
    *out = NULL;
    return S_FALSE; /* every item is a simple element */
}

/* The item position a child id names, or -1 (the object itself, or no such item). */
static int ma_item(IAccessible *a, VARIANT v)
{
    if (V_VT(&v) != VT_I4 || V_I4(&v) == CHILDID_SELF)
        return -1;
    int i = (int)V_I4(&v) - 1;
    return i < GetMenuItemCount(menu_acc(a)->menu) ? i : -2;
}

/* An item's type and state bits (GetMenuState mixes a submenu's item count in). */
static MENUITEMINFOW item_flags(HMENU menu, int i)
{
    MENUITEMINFOW mi = {.cbSize = sizeof mi, .fMask = MIIM_FTYPE | MIIM_STATE | MIIM_SUBMENU};
    if (!GetMenuItemInfoW(menu, (UINT)i, TRUE, &mi))
        memset(&mi, 0, sizeof mi);
    return mi;
}

static BSTR bstr_of(const wchar_t *s)
{
    return SysAllocString(s);
}

/* The item (menu, pos) that opens submenu `sub`, searched below `menu`; false if none. */
static bool find_opener(HMENU menu, HMENU sub, HMENU *owner, int *pos)
{
    int n = GetMenuItemCount(menu);
    for (int i = 0; i < n; i++) {
        HMENU s = GetSubMenu(menu, i);
        if (!s)
            continue;
        if (s == sub || find_opener(s, sub, owner, pos)) {
            if (s == sub) {
                *owner = menu;
                *pos = i;
            }
            return true;
        }
    }
    return false;
}

static HRESULT STDMETHODCALLTYPE ma_name(IAccessible *a, VARIANT v, BSTR *out)
{
    MenuAcc *m = menu_acc(a);
    int i = ma_item(a, v);
    wchar_t raw[128], text[128];
    *out = NULL;
    if (i == -2)
        return E_INVALIDARG;
    if (i == -1) {
        HMENU owner;
        int pos;
        if (!m->popup)
            return (*out = bstr_of(L"Application")) ? S_OK : E_OUTOFMEMORY;
        if (m->menu == g.context)
            return (*out = bstr_of(L"Context")) ? S_OK : E_OUTOFMEMORY;
        if (!find_opener(GetMenu(g.main), m->menu, &owner, &pos))
            return S_FALSE;
        menu_text(owner, (UINT)pos, MF_BYPOSITION, text, 128);
        return (*out = bstr_of(text)) ? S_OK : E_OUTOFMEMORY;
    }
    if (item_flags(m->menu, i).fType & MFT_SEPARATOR)
        return S_FALSE;
    int n = GetMenuStringW(m->menu, (UINT)i, raw, 128, MF_BYPOSITION), k = 0;
    for (int j = 0; j < n && k < 127; j++) {
        if (raw[j] == L'&' && !(j + 1 < n && raw[j + 1] == L'&'))
            continue;
        text[k++] = raw[j];
        j += raw[j] == L'&'; /* "&&" shows as one '&' */
    }
    text[k] = 0;
    return (*out = bstr_of(text)) ? S_OK : E_OUTOFMEMORY;
}

/* A menu and its items have no value, description, help or shortcut text. */
static HRESULT STDMETHODCALLTYPE ma_text_none(IAccessible *a, VARIANT v, BSTR *out)
{
    (void)a, (void)v;
    *out = NULL;
    return S_FALSE;
}

static HRESULT STDMETHODCALLTYPE ma_role(IAccessible *a, VARIANT v, VARIANT *out)
{
    MenuAcc *m = menu_acc(a);
    int i = ma_item(a, v);
    if (i == -2)
        return E_INVALIDARG;
    V_VT(out) = VT_I4;
    if (i == -1)
        V_I4(out) = m->popup ? ROLE_SYSTEM_MENUPOPUP : ROLE_SYSTEM_MENUBAR;
    else if (item_flags(m->menu, i).fType & MFT_SEPARATOR)
        V_I4(out) = ROLE_SYSTEM_SEPARATOR;
    else
        V_I4(out) = ROLE_SYSTEM_MENUITEM;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ma_state(IAccessible *a, VARIANT v, VARIANT *out)
{
    MenuAcc *m = menu_acc(a);
    int i = ma_item(a, v);
    if (i == -2)
        return E_INVALIDARG;
    V_VT(out) = VT_I4;
    V_I4(out) = 0;
    if (i < 0)
        return S_OK;
    MENUITEMINFOW mi = item_flags(m->menu, i);
    long s = STATE_SYSTEM_FOCUSABLE;
    if (mi.fState & MFS_DISABLED)
        s |= STATE_SYSTEM_UNAVAILABLE;
    if (mi.fState & MFS_CHECKED)
        s |= STATE_SYSTEM_CHECKED;
    if (mi.hSubMenu)
        s |= STATE_SYSTEM_HASPOPUP;
    if ((mi.fState & MFS_HILITE) && mi.hSubMenu) /* its submenu is open */
        s |= STATE_SYSTEM_HOTTRACKED | STATE_SYSTEM_EXPANDED;
    else if (mi.fState & MFS_HILITE)
        s |= STATE_SYSTEM_HOTTRACKED | STATE_SYSTEM_FOCUSED;
    V_I4(out) = s;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ma_help_topic(IAccessible *a, BSTR *file, VARIANT v, long *topic)
{
    (void)a, (void)v;
    *file = NULL;
    *topic = 0;
    return S_FALSE;
}

static HRESULT STDMETHODCALLTYPE ma_variant_none(IAccessible *a, VARIANT *out)
{
    (void)a;
    V_VT(out) = VT_EMPTY;
    return S_FALSE;
}

static HRESULT STDMETHODCALLTYPE ma_default_action(IAccessible *a, VARIANT v, BSTR *out)
{
    int i = ma_item(a, v);
    *out = NULL;
    if (i < 0)
        return i == -2 ? E_INVALIDARG : S_FALSE;
    bool sub = GetSubMenu(menu_acc(a)->menu, i) != NULL;
    return (*out = bstr_of(sub ? L"Open" : L"Execute")) ? S_OK : E_OUTOFMEMORY;
}

static HRESULT STDMETHODCALLTYPE ma_select(IAccessible *a, long flags, VARIANT v)
{
    (void)a, (void)flags, (void)v;
    return E_NOTIMPL;
}

static HRESULT STDMETHODCALLTYPE ma_location(IAccessible *a, long *x, long *y, long *w, long *h,
                                             VARIANT v)
{
    MenuAcc *m = menu_acc(a);
    int i = ma_item(a, v);
    RECT r = {0};
    *x = *y = *w = *h = 0;
    if (i == -2)
        return E_INVALIDARG;
    if (i == -1) {
        if (m->popup) {
            GetWindowRect(m->popup, &r);
        } else {
            int n = GetMenuItemCount(m->menu);
            for (int k = 0; k < n; k++) {
                RECT ir;
                if (GetMenuItemRect(g.main, m->menu, (UINT)k, &ir))
                    UnionRect(&r, &r, &ir);
            }
        }
    } else if (!GetMenuItemRect(m->popup ? NULL : g.main, m->menu, (UINT)i, &r)) {
        return S_FALSE;
    }
    *x = r.left;
    *y = r.top;
    *w = r.right - r.left;
    *h = r.bottom - r.top;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ma_navigate(IAccessible *a, long dir, VARIANT start, VARIANT *out)
{
    (void)a, (void)dir, (void)start;
    V_VT(out) = VT_EMPTY;
    return E_NOTIMPL;
}

static HRESULT STDMETHODCALLTYPE ma_hit_test(IAccessible *a, long x, long y, VARIANT *out)
{
    (void)a, (void)x, (void)y;
    V_VT(out) = VT_EMPTY;
    return E_NOTIMPL;
}

/* An item of an open popup runs its command, as a click on it would; items of the bar
 * and items that open submenus are left to a click. */
static HRESULT STDMETHODCALLTYPE ma_do_default(IAccessible *a, VARIANT v)
{
    MenuAcc *m = menu_acc(a);
    int i = ma_item(a, v);
    if (i < 0)
        return i == -2 ? E_INVALIDARG : DISP_E_MEMBERNOTFOUND;
    MENUITEMINFOW mi = item_flags(m->menu, i);
    if (!m->popup || mi.hSubMenu || (mi.fType & MFT_SEPARATOR))
        return DISP_E_MEMBERNOTFOUND;
    if (mi.fState & MFS_DISABLED)
        return E_FAIL;
    UINT id = GetMenuItemID(m->menu, i);
    EndMenu();
    PostMessageW(g.main, WM_COMMAND, MAKEWPARAM(id, 0), 0);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ma_put(IAccessible *a, VARIANT v, BSTR s)
{
    (void)a, (void)v, (void)s;
    return E_NOTIMPL;
}

static IAccessibleVtbl menu_acc_vtbl = {
    .QueryInterface = ma_query,
    .AddRef = ma_addref,
    .Release = ma_release,
    .GetTypeInfoCount = ma_typeinfo_count,
    .GetTypeInfo = ma_typeinfo,
    .GetIDsOfNames = ma_ids,
    .Invoke = ma_invoke,
    .get_accParent = ma_parent,
    .get_accChildCount = ma_child_count,
    .get_accChild = ma_child,
    .get_accName = ma_name,
    .get_accValue = ma_text_none,
    .get_accDescription = ma_text_none,
    .get_accRole = ma_role,
    .get_accState = ma_state,
    .get_accHelp = ma_text_none,
    .get_accHelpTopic = ma_help_topic,
    .get_accKeyboardShortcut = ma_text_none,
    .get_accFocus = ma_variant_none,
    .get_accSelection = ma_variant_none,
    .get_accDefaultAction = ma_default_action,
    .accSelect = ma_select,
    .accLocation = ma_location,
    .accNavigate = ma_navigate,
    .accHitTest = ma_hit_test,
    .accDoDefaultAction = ma_do_default,
    .put_accName = ma_put,
    .put_accValue = ma_put,
};

/* The answer to WM_GETOBJECT for a menu object, or 0 (the default answer). */
static LRESULT serve_menu(WPARAM wp, HMENU menu, HWND popup)
{
    if (!menu)
        return 0;
    MenuAcc *m = calloc(1, sizeof *m);
    if (!m)
        return 0;
    m->iface.lpVtbl = &menu_acc_vtbl;
    m->refs = 1;
    m->menu = menu;
    m->popup = popup;
    LRESULT r = LresultFromObject(&iid_accessible, wp, (IUnknown *)&m->iface);
    IAccessible_Release(&m->iface);
    return r > 0 ? r : 0;
}

static WNDPROC popup_default_proc;

static LRESULT CALLBACK popup_proc(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    if (msg == WM_GETOBJECT && (LONG)lp == OBJID_CLIENT) {
        LRESULT r = serve_menu(
            wp, (HMENU)CallWindowProcW(popup_default_proc, hwnd, MN_GETHMENU, 0, 0), hwnd);
        if (r)
            return r;
    }
    return CallWindowProcW(popup_default_proc, hwnd, msg, wp, lp);
}

/* Popup menu windows of this thread are subclassed as they are created. */
static LRESULT CALLBACK cbt_hook(int code, WPARAM wp, LPARAM lp)
{
    if (code == HCBT_CREATEWND) {
        wchar_t cls[16];
        HWND h = (HWND)wp;
        if (GetClassNameW(h, cls, 16) && wcscmp(cls, L"#32768") == 0) {
            WNDPROC old = (WNDPROC)SetWindowLongPtrW(h, GWLP_WNDPROC, (LONG_PTR)popup_proc);
            if (!popup_default_proc)
                popup_default_proc = old;
        }
    }
    return CallNextHookEx(NULL, code, wp, lp);
}

static bool create_main_controls(HWND hwnd)
{
    for (size_t i = 0; i < MAIN_CONTROL_COUNT; i++) {
        const ControlDef *c = &MAIN_CONTROLS[i];
        DWORD style = c->style | (c->id == IDC_LIST && g.multi_select ? LBS_EXTENDEDSEL : 0);
        HWND h = CreateWindowExW(0, c->cls, c->text, WS_CHILD | WS_VISIBLE | style, c->rc.left,
                                 c->rc.top, c->rc.right - c->rc.left, c->rc.bottom - c->rc.top,
                                 hwnd, (HMENU)(INT_PTR)c->id, g.inst, NULL);
        if (!h)
            return false;
        SendMessageW(h, WM_SETFONT, (WPARAM)g.font, FALSE);
        g.ctl[i] = h;
    }
    g.status = main_ctl(IDC_STATUS);

    SendMessageW(main_ctl(IDC_EDIT), EM_LIMITTEXT, EDIT_LIMIT, 0);

    HWND combo = main_ctl(IDC_COMBO);
    SendMessageW(combo, CB_ADDSTRING, 0, (LPARAM)L"Red");
    SendMessageW(combo, CB_ADDSTRING, 0, (LPARAM)L"Green");
    SendMessageW(combo, CB_ADDSTRING, 0, (LPARAM)L"Blue");

    HWND list = main_ctl(IDC_LIST);
    for (int i = 1; i <= LIST_ITEMS; i++) {
        wchar_t item[16];
        swprintf(item, 16, L"Item %d", i);
        SendMessageW(list, LB_ADDSTRING, 0, (LPARAM)item);
    }
    /* After WM_SETFONT, which resets it: 20 px items, so exactly 8 fit. */
    SendMessageW(list, LB_SETITEMHEIGHT, 0, LIST_ITEM_HEIGHT);
    if (g.multi_select) {
        SendMessageW(list, LB_SETSEL, TRUE, 2);
        SendMessageW(list, LB_SETSEL, TRUE, 4);
    }
    list_default_proc = (WNDPROC)SetWindowLongPtrW(list, GWLP_WNDPROC, (LONG_PTR)list_proc);
    return true;
}

static void log_text_changed(const char *control, HWND edit)
{
    wchar_t text[EDIT_LIMIT + 1];
    Line l;
    GetWindowTextW(edit, text, EDIT_LIMIT + 1);
    line_begin(&l, "text_changed");
    line_astr(&l, "control", control);
    line_str(&l, "text", text);
    line_end(&l);
}

static void log_index_text(const char *event, HWND ctl, UINT get_cur, UINT get_len, UINT get_text)
{
    wchar_t text[64] = L"";
    Line l;
    int i = (int)SendMessageW(ctl, get_cur, 0, 0);
    if (i >= 0 && SendMessageW(ctl, get_len, (WPARAM)i, 0) < 64)
        SendMessageW(ctl, get_text, (WPARAM)i, (LPARAM)text);
    line_begin(&l, event);
    line_int(&l, "index", i);
    line_str(&l, "text", i >= 0 ? text : NULL);
    line_end(&l);
}

/* list_select of the multiple-selection list: the item with the focus rectangle and
 * every selected item. */
static void log_list_selection(HWND ctl)
{
    wchar_t text[64] = L"";
    int caret = (int)SendMessageW(ctl, LB_GETCARETINDEX, 0, 0);
    if (caret >= 0 && SendMessageW(ctl, LB_GETTEXTLEN, (WPARAM)caret, 0) < 64)
        SendMessageW(ctl, LB_GETTEXT, (WPARAM)caret, (LPARAM)text);
    int items[64];
    int n = (int)SendMessageW(ctl, LB_GETSELITEMS, 64, (LPARAM)items);
    Line l;
    line_begin(&l, "list_select");
    line_int(&l, "index", caret);
    line_str(&l, "text", caret >= 0 ? text : NULL);
    put_key(&l, "selected");
    puts_(&l, "[");
    for (int i = 0; i < n; i++) {
        char num[16];
        snprintf(num, sizeof num, "%s%d", i ? "," : "", items[i]);
        puts_(&l, num);
    }
    puts_(&l, "]");
    line_end(&l);
}

static void log_menu(HWND hwnd, UINT id)
{
    wchar_t text[64];
    Line l;
    text[0] = 0;
    menu_text(GetMenu(hwnd), id, MF_BYCOMMAND, text, 64);
    if (!text[0])
        menu_text(g.context, id, MF_BYCOMMAND, text, 64);
    line_begin(&l, "menu");
    line_str(&l, "item", text);
    line_int(&l, "id", id);
    line_end(&l);
}

static void main_command(HWND hwnd, int id, int code, HWND ctl)
{
    Line l;
    wchar_t text[64];

    if (!ctl) {
        if (code == 1 && id == IDM_SAVE) {
            line_begin(&l, "accelerator");
            line_astr(&l, "name", "save");
            line_end(&l);
            return;
        }
        /* IsDialogMessage turns Enter and Escape into IDOK / IDCANCEL with no control:
         * the key lines already record them. */
        if (id < IDM_OPEN_DIALOG || id > IDM_LAST || id == IDM_SAVE)
            return;
        log_menu(hwnd, (UINT)id);
        switch (id) {
        case IDM_OPEN_DIALOG:
            run_dialog(hwnd);
            break;
        case IDM_EXIT:
            PostMessageW(hwnd, WM_CLOSE, 0, 0);
            break;
        case IDM_SELECT_ALL:
            SetFocus(main_ctl(IDC_EDIT));
            SendMessageW(main_ctl(IDC_EDIT), EM_SETSEL, 0, -1);
            break;
        case IDM_CLEAR:
            SetWindowTextW(main_ctl(IDC_EDIT), L"");
            break;
        default:
            break;
        }
        return;
    }

    switch (id) {
    case IDC_OK:
    case IDC_APPLY:
    case IDC_OPEN_DIALOG:
        if (code != BN_CLICKED)
            return;
        GetWindowTextW(ctl, text, 64);
        line_begin(&l, "click");
        line_str(&l, "control", text);
        line_end(&l);
        if (id == IDC_OPEN_DIALOG)
            run_dialog(hwnd);
        return;
    case IDC_OWNER1:
    case IDC_OWNER2:
    case IDC_OWNER3:
        if (code != BN_CLICKED && code != BN_DOUBLECLICKED)
            return;
        line_begin(&l, "click");
        line_str(&l, "control", MAIN_CONTROLS[id - IDC_LABEL_NAME].name);
        if (code == BN_DOUBLECLICKED)
            line_bool(&l, "double", true);
        line_end(&l);
        return;
    case IDC_CHECK:
        if (code != BN_CLICKED)
            return;
        line_begin(&l, "checkbox");
        line_astr(&l, "control", "Enable feature");
        line_bool(&l, "checked", SendMessageW(ctl, BM_GETCHECK, 0, 0) == BST_CHECKED);
        line_end(&l);
        return;
    case IDC_EDIT:
        if (code == EN_CHANGE)
            log_text_changed("edit", ctl);
        return;
    case IDC_LIST:
        if (code == LBN_SELCHANGE && g.multi_select)
            log_list_selection(ctl);
        else if (code == LBN_SELCHANGE)
            log_index_text("list_select", ctl, LB_GETCURSEL, LB_GETTEXTLEN, LB_GETTEXT);
        else if (code == LBN_DBLCLK)
            log_index_text("list_double_click", ctl, LB_GETCURSEL, LB_GETTEXTLEN, LB_GETTEXT);
        return;
    case IDC_COMBO:
        if (code == CBN_SELCHANGE) {
            log_index_text("combo_select", ctl, CB_GETCURSEL, CB_GETLBTEXTLEN, CB_GETLBTEXT);
        } else if (code == CBN_DROPDOWN || code == CBN_CLOSEUP) {
            line_begin(&l, "combo_dropdown");
            line_bool(&l, "open", code == CBN_DROPDOWN);
            line_end(&l);
        }
        return;
    default:
        return;
    }
}

static LRESULT CALLBACK main_proc(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    LRESULT r;
    if (handle_frame_message(hwnd, msg, wp, &r))
        return r;
    switch (msg) {
    case WM_CREATE:
        return create_main_controls(hwnd) ? 0 : -1;
    case WM_COMMAND:
        main_command(hwnd, LOWORD(wp), HIWORD(wp), (HWND)lp);
        return 0;
    case WM_GETOBJECT:
        if ((LONG)lp == OBJID_MENU && (r = serve_menu(wp, GetMenu(hwnd), NULL)) != 0)
            return r;
        break;
    case WM_CONTEXTMENU:
        /* A right click on the window's own client area, not on a control. */
        if ((HWND)wp == hwnd) {
            TrackPopupMenu(g.context, TPM_LEFTALIGN | TPM_TOPALIGN | TPM_RIGHTBUTTON,
                           GET_X_LPARAM(lp), GET_Y_LPARAM(lp), 0, hwnd, NULL);
            return 0;
        }
        break;
    case WM_DRAWITEM: {
        const DRAWITEMSTRUCT *di = (const DRAWITEMSTRUCT *)lp;
        if (di->CtlID >= IDC_OWNER1 && di->CtlID <= IDC_OWNER3) {
            paint_owner_button(di, OWNER_COLORS[di->CtlID - IDC_OWNER1],
                               (di->itemState & ODS_SELECTED) ? 3 : 0, NULL);
            return TRUE;
        }
        break;
    }
    default:
        break;
    }
    return DefWindowProcW(hwnd, msg, wp, lp);
}

/* ------------------------------------------------------------------------------------ */
/* Keypad panel. */

static LRESULT CALLBACK keypad_proc(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    LRESULT r;
    Line l;
    if (handle_frame_message(hwnd, msg, wp, &r))
        return r;
    switch (msg) {
    case WM_CREATE:
        for (int i = 0; i < KEY_COUNT; i++) {
            int x = KEY_MARGIN + (i % 3) * (KEY_SIZE + KEY_GAP);
            int y = KEY_MARGIN + (i / 3) * (KEY_SIZE + KEY_GAP);
            g.keys[i] = CreateWindowExW(
                0, L"BUTTON", L"", WS_CHILD | WS_VISIBLE | WS_TABSTOP | BS_OWNERDRAW, x, y,
                KEY_SIZE, KEY_SIZE, hwnd, (HMENU)(INT_PTR)(IDC_KEY_FIRST + i), g.inst, NULL);
            if (!g.keys[i])
                return -1;
        }
        return 0;
    case WM_COMMAND: {
        int i = LOWORD(wp) - IDC_KEY_FIRST;
        int code = HIWORD(wp);
        if (i >= 0 && i < KEY_COUNT && (code == BN_CLICKED || code == BN_DOUBLECLICKED)) {
            line_begin(&l, "click");
            line_astr(&l, "control", "key");
            line_str(&l, "label", KEY_LABELS[i]);
            if (code == BN_DOUBLECLICKED)
                line_bool(&l, "double", true);
            line_end(&l);
        }
        return 0;
    }
    case WM_DRAWITEM: {
        const DRAWITEMSTRUCT *di = (const DRAWITEMSTRUCT *)lp;
        int i = (int)di->CtlID - IDC_KEY_FIRST;
        if (i >= 0 && i < KEY_COUNT) {
            paint_owner_button(di, (di->itemState & ODS_SELECTED) ? KEY_FILL_PRESSED : KEY_FILL, 2,
                               KEY_LABELS[i]);
            return TRUE;
        }
        break;
    }
    default:
        break;
    }
    return DefWindowProcW(hwnd, msg, wp, lp);
}

/* ------------------------------------------------------------------------------------ */
/* Controls panel: common controls as Wine's own programs use them. */

#define CONTROLS_CLIENT_W 640
#define CONTROLS_CLIENT_H 420

static HWND cc_child(HWND parent, const wchar_t *cls, const wchar_t *text, int id, DWORD style,
                     int x, int y, int w, int h)
{
    HWND c = CreateWindowExW(0, cls, text, WS_CHILD | WS_VISIBLE | style, x, y, w, h, parent,
                             (HMENU)(INT_PTR)id, g.inst, NULL);
    if (c)
        SendMessageW(c, WM_SETFONT, (WPARAM)g.font, FALSE);
    return c;
}

static void scan_feature_checks(bool log);

static bool create_controls(HWND hwnd)
{
    INITCOMMONCONTROLSEX icc = {sizeof icc, ICC_WIN95_CLASSES};
    InitCommonControlsEx(&icc);

    /* A toolbar: one button with text, two with icons only whose tooltips are asked of
     * this window when shown (TTN_GETDISPINFO). */
    HWND tb = cc_child(hwnd, TOOLBARCLASSNAMEW, L"", IDC_CC_TOOLBAR,
                       TBSTYLE_TOOLTIPS | TBSTYLE_FLAT | CCS_TOP, 0, 0, 0, 0);
    if (!tb)
        return false;
    SendMessageW(tb, TB_BUTTONSTRUCTSIZE, sizeof(TBBUTTON), 0);
    TBADDBITMAP std = {HINST_COMMCTRL, IDB_STD_SMALL_COLOR};
    SendMessageW(tb, TB_ADDBITMAP, 0, (LPARAM)&std);
    INT_PTR open_text = SendMessageW(tb, TB_ADDSTRINGW, 0, (LPARAM)L"Open\0");
    TBBUTTON buttons[3] = {
        {STD_FILEOPEN, IDT_OPEN, TBSTATE_ENABLED, BTNS_BUTTON, {0}, 0, open_text},
        {STD_COPY, IDT_BOLD, TBSTATE_ENABLED, BTNS_BUTTON, {0}, 0, -1},
        {STD_PASTE, IDT_ITALIC, TBSTATE_ENABLED, BTNS_BUTTON, {0}, 0, -1},
    };
    SendMessageW(tb, TB_ADDBUTTONSW, 3, (LPARAM)buttons);
    SendMessageW(tb, TB_AUTOSIZE, 0, 0);

    /* A report-mode list view: regedit's values pane. */
    HWND lv = cc_child(hwnd, WC_LISTVIEWW, L"", IDC_CC_LIST,
                       WS_BORDER | WS_TABSTOP | LVS_REPORT | LVS_SINGLESEL, 20, 50, 380, 130);
    if (!lv)
        return false;
    static const wchar_t *const cols[] = {L"Name", L"Type", L"Data"};
    static const wchar_t *const rows[][3] = {{L"(Default)", L"REG_SZ", L"(value not set)"},
                                             {L"Greeting", L"REG_SZ", L"hello"},
                                             {L"Count", L"REG_DWORD", L"0x00000005 (5)"}};
    for (int c = 0; c < 3; c++) {
        LVCOLUMNW col = {.mask = LVCF_TEXT | LVCF_WIDTH, .cx = 120, .pszText = (LPWSTR)cols[c]};
        SendMessageW(lv, LVM_INSERTCOLUMNW, (WPARAM)c, (LPARAM)&col);
    }
    for (int r = 0; r < 3; r++) {
        LVITEMW it = {.mask = LVIF_TEXT, .iItem = r, .pszText = (LPWSTR)rows[r][0]};
        SendMessageW(lv, LVM_INSERTITEMW, 0, (LPARAM)&it);
        for (int c = 1; c < 3; c++) {
            LVITEMW sub = {.iSubItem = c, .pszText = (LPWSTR)rows[r][c]};
            SendMessageW(lv, LVM_SETITEMTEXTW, (WPARAM)r, (LPARAM)&sub);
        }
    }

    /* A tree view: one branch open, one closed. */
    HWND tv = cc_child(hwnd, WC_TREEVIEWW, L"", IDC_CC_TREE,
                       WS_BORDER | WS_TABSTOP | TVS_HASBUTTONS | TVS_HASLINES | TVS_LINESATROOT,
                       420, 50, 200, 130);
    if (!tv)
        return false;
    static const wchar_t *const branches[][3] = {{L"Fruits", L"Apple", L"Pear"},
                                                 {L"Vegetables", L"Leek", NULL}};
    for (int b = 0; b < 2; b++) {
        TVINSERTSTRUCTW ins = {.hParent = TVI_ROOT, .hInsertAfter = TVI_LAST};
        ins.item.mask = TVIF_TEXT;
        ins.item.pszText = (LPWSTR)branches[b][0];
        HTREEITEM parent = (HTREEITEM)SendMessageW(tv, TVM_INSERTITEMW, 0, (LPARAM)&ins);
        for (int k = 1; k < 3 && branches[b][k]; k++) {
            TVINSERTSTRUCTW leaf = {.hParent = parent, .hInsertAfter = TVI_LAST};
            leaf.item.mask = TVIF_TEXT;
            leaf.item.pszText = (LPWSTR)branches[b][k];
            SendMessageW(tv, TVM_INSERTITEMW, 0, (LPARAM)&leaf);
        }
        if (b == 0)
            SendMessageW(tv, TVM_EXPAND, TVE_EXPAND, (LPARAM)parent);
    }

    /* A slider, a progress bar and a spin button, each after its label. */
    HWND slider;
    HWND progress;
    HWND copies;
    if (!cc_child(hwnd, L"STATIC", L"Volume:", IDC_CC_LABEL_SLIDER, SS_LEFT, 20, 200, 80, 20) ||
        !(slider =
              cc_child(hwnd, TRACKBAR_CLASSW, L"", IDC_CC_SLIDER, WS_TABSTOP, 100, 196, 200, 30)) ||
        !cc_child(hwnd, L"STATIC", L"Progress:", IDC_CC_LABEL_PROGRESS, SS_LEFT, 20, 250, 80, 20) ||
        !(progress = cc_child(hwnd, PROGRESS_CLASSW, L"", IDC_CC_PROGRESS, 0, 100, 250, 200, 20)) ||
        !cc_child(hwnd, L"STATIC", L"Copies:", IDC_CC_LABEL_COPIES, SS_LEFT, 20, 300, 80, 20) ||
        !(copies = cc_child(hwnd, L"EDIT", L"", IDC_CC_COPIES, WS_BORDER | WS_TABSTOP | ES_NUMBER,
                            100, 296, 60, 24)))
        return false;
    SendMessageW(slider, TBM_SETRANGE, TRUE, MAKELPARAM(0, 100));
    SendMessageW(slider, TBM_SETPOS, TRUE, 30);
    SendMessageW(progress, PBM_SETRANGE32, 0, 100);
    SendMessageW(progress, PBM_SETPOS, 60, 0);
    HWND spin = cc_child(hwnd, UPDOWN_CLASSW, L"", IDC_CC_SPIN,
                         UDS_SETBUDDYINT | UDS_ALIGNRIGHT | UDS_ARROWKEYS, 0, 0, 0, 0);
    if (!spin)
        return false;
    SendMessageW(spin, UDM_SETBUDDY, (WPARAM)copies, 0);
    SendMessageW(spin, UDM_SETRANGE32, 1, 99);
    SendMessageW(spin, UDM_SETPOS32, 0, 5);

    /* A tree and a list whose items have check boxes, each after its label. */
    HWND features, columns;
    if (!cc_child(hwnd, L"STATIC", L"Features:", IDC_CC_LABEL_FEATURES, SS_LEFT, 330, 196, 150,
                  18) ||
        !(features = cc_child(hwnd, WC_TREEVIEWW, L"", IDC_CC_FEATURES,
                              WS_BORDER | WS_TABSTOP | TVS_CHECKBOXES | TVS_HASBUTTONS |
                                  TVS_HASLINES | TVS_LINESATROOT | TVS_SHOWSELALWAYS,
                              330, 216, 150, 164)) ||
        !cc_child(hwnd, L"STATIC", L"Columns:", IDC_CC_LABEL_COLUMNS, SS_LEFT, 490, 196, 140, 18) ||
        !(columns =
              cc_child(hwnd, WC_LISTVIEWW, L"", IDC_CC_COLUMNS,
                       WS_BORDER | WS_TABSTOP | LVS_LIST | LVS_SHOWSELALWAYS, 490, 216, 140, 164)))
        return false;
    static const struct {
        const wchar_t *text;
        int parent; /* index of the item holding it, -1 for the top level */
        bool checked;
    } feature_items[] = {{L"Spell check", -1, true},
                         {L"Auto save", -1, false},
                         {L"Backups", -1, true},
                         {L"Daily", 2, true},
                         {L"Weekly", 2, false}};
    /* A tree view makes its check box images on its first paint and turns every box off
     * then (Wine's does, as Windows' documentation warns): painted once, into a memory
     * DC, before the boxes are set. */
    HDC mem = CreateCompatibleDC(NULL);
    SendMessageW(features, WM_PAINT, (WPARAM)mem, 0);
    DeleteDC(mem);
    HTREEITEM made[5] = {0};
    for (int i = 0; i < 5; i++) {
        TVINSERTSTRUCTW ins = {
            .hParent = feature_items[i].parent < 0 ? TVI_ROOT : made[feature_items[i].parent],
            .hInsertAfter = TVI_LAST};
        ins.item.mask = TVIF_TEXT;
        ins.item.pszText = (LPWSTR)feature_items[i].text;
        made[i] = (HTREEITEM)SendMessageW(features, TVM_INSERTITEMW, 0, (LPARAM)&ins);
        /* the state image is set once the item is in (TVS_CHECKBOXES gives it 1) */
        TVITEMW st = {.mask = TVIF_STATE | TVIF_HANDLE,
                      .hItem = made[i],
                      .stateMask = TVIS_STATEIMAGEMASK,
                      .state = INDEXTOSTATEIMAGEMASK(feature_items[i].checked ? 2 : 1)};
        SendMessageW(features, TVM_SETITEMW, 0, (LPARAM)&st);
    }
    SendMessageW(features, TVM_EXPAND, TVE_EXPAND, (LPARAM)made[2]);
    g.features = features;
    SendMessageW(columns, LVM_SETEXTENDEDLISTVIEWSTYLE, LVS_EX_CHECKBOXES, LVS_EX_CHECKBOXES);
    static const wchar_t *const column_items[] = {L"Name", L"Size", L"Date"};
    for (int i = 0; i < 3; i++) {
        LVITEMW it = {.mask = LVIF_TEXT, .iItem = i, .pszText = (LPWSTR)column_items[i]};
        SendMessageW(columns, LVM_INSERTITEMW, 0, (LPARAM)&it);
        LVITEMW st = {.stateMask = LVIS_STATEIMAGEMASK,
                      .state = INDEXTOSTATEIMAGEMASK(i == 1 ? 1 : 2)};
        SendMessageW(columns, LVM_SETITEMSTATE, (WPARAM)i, (LPARAM)&st);
    }
    scan_feature_checks(false); /* what the boxes show now: the baseline of tree_check */
    g.columns_ready = true;

    /* A status bar of three parts. */
    HWND sb = cc_child(hwnd, STATUSCLASSNAMEW, L"", IDC_CC_STATUS, SBARS_SIZEGRIP, 0, 0, 0, 0);
    if (!sb)
        return false;
    int parts[3] = {200, 400, -1};
    SendMessageW(sb, SB_SETPARTS, 3, (LPARAM)parts);
    SendMessageW(sb, SB_SETTEXTW, 0, (LPARAM)L"Ready");
    SendMessageW(sb, SB_SETTEXTW, 1, (LPARAM)L"Ln 3, Col 7");
    SendMessageW(sb, SB_SETTEXTW, 2, (LPARAM)L"UTF-8");
    return true;
}

/* The Features tree's boxes compared with what they showed last: each that changed is
 * logged as tree_check (log false: only remembered). */
static void scan_feature_checks(bool log)
{
    int n = 0;
    HTREEITEM stack[16];
    int depth = 0;
    HTREEITEM at = (HTREEITEM)SendMessageW(g.features, TVM_GETNEXTITEM, TVGN_ROOT, 0);
    while (at && n < FEATURES_MAX) {
        wchar_t text[64] = L"";
        TVITEMW it = {.mask = TVIF_TEXT | TVIF_STATE | TVIF_HANDLE,
                      .hItem = at,
                      .stateMask = TVIS_STATEIMAGEMASK,
                      .pszText = text,
                      .cchTextMax = 64};
        SendMessageW(g.features, TVM_GETITEMW, 0, (LPARAM)&it);
        bool checked = (it.state >> 12) == 2;
        if (log && checked != g.feature_checked[n]) {
            Line l;
            line_begin(&l, "tree_check");
            line_str(&l, "item", text);
            line_bool(&l, "checked", checked);
            line_end(&l);
        }
        g.feature_checked[n++] = checked;
        HTREEITEM child =
            (HTREEITEM)SendMessageW(g.features, TVM_GETNEXTITEM, TVGN_CHILD, (LPARAM)at);
        if (child && depth < 16) {
            stack[depth++] = at;
            at = child;
            continue;
        }
        HTREEITEM next =
            (HTREEITEM)SendMessageW(g.features, TVM_GETNEXTITEM, TVGN_NEXT, (LPARAM)at);
        while (!next && depth > 0)
            next = (HTREEITEM)SendMessageW(g.features, TVM_GETNEXTITEM, TVGN_NEXT,
                                           (LPARAM)stack[--depth]);
        at = next;
    }
}

static LRESULT CALLBACK controls_proc(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    LRESULT r;
    if (handle_frame_message(hwnd, msg, wp, &r))
        return r;
    switch (msg) {
    case WM_CREATE:
        return create_controls(hwnd) ? 0 : -1;
    case WM_APP_FEATURES:
        scan_feature_checks(true);
        return 0;
    case WM_NOTIFY: {
        NMHDR *h = (NMHDR *)lp;
        /* The tree turns a box over after it has notified (a click, Space): look once
         * the message it is handling is done. */
        if (h->idFrom == IDC_CC_FEATURES && g.features)
            PostMessageW(hwnd, WM_APP_FEATURES, 0, 0);
        if (h->idFrom == IDC_CC_COLUMNS && h->code == LVN_ITEMCHANGED && g.columns_ready) {
            NMLISTVIEW *lv = (NMLISTVIEW *)lp;
            if ((lv->uChanged & LVIF_STATE) &&
                ((lv->uNewState ^ lv->uOldState) & LVIS_STATEIMAGEMASK) && lv->iItem >= 0) {
                wchar_t text[64] = L"";
                LVITEMW it = {.iSubItem = 0, .pszText = text, .cchTextMax = 64};
                SendMessageW(h->hwndFrom, LVM_GETITEMTEXTW, (WPARAM)lv->iItem, (LPARAM)&it);
                Line l;
                line_begin(&l, "list_check");
                line_str(&l, "item", text);
                line_bool(&l, "checked", (lv->uNewState >> 12) == 2);
                line_end(&l);
            }
        }
        if (h->code == TTN_GETDISPINFOW) {
            NMTTDISPINFOW *di = (NMTTDISPINFOW *)lp;
            const wchar_t *tip = h->idFrom == IDT_BOLD     ? L"Bold"
                                 : h->idFrom == IDT_ITALIC ? L"Italic"
                                 : h->idFrom == IDT_OPEN   ? L"Open a file"
                                                           : NULL;
            if (tip)
                wcscpy(di->szText, tip);
            return 0;
        }
        break;
    }
    case WM_COMMAND:
        if (LOWORD(wp) >= IDT_OPEN && LOWORD(wp) <= IDT_ITALIC) {
            Line l;
            line_begin(&l, "toolbar");
            line_int(&l, "id", LOWORD(wp));
            line_end(&l);
            return 0;
        }
        break;
    default:
        break;
    }
    return DefWindowProcW(hwnd, msg, wp, lp);
}

/* ------------------------------------------------------------------------------------ */
/* Start-up. */

typedef struct {
    const wchar_t *log_path;
    const wchar_t *title;
    bool keypad, controls, topmost, multi_select, no_activate;
    int x, y;
} Options;

static bool parse_int(const wchar_t *s, int *out)
{
    wchar_t *end;
    long v = s ? wcstol(s, &end, 10) : 0;
    if (!s || !*s || *end || v < -100000 || v > 100000)
        return false;
    *out = (int)v;
    return true;
}

static bool parse_options(int argc, wchar_t **argv, Options *o)
{
    o->log_path = NULL;
    o->title = NULL;
    o->keypad = o->controls = o->topmost = o->multi_select = o->no_activate = false;
    o->x = 40;
    o->y = 40;
    for (int i = 1; i < argc; i++) {
        const wchar_t *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return false; /* every option takes a value */
        if (wcscmp(a, L"--log") == 0)
            o->log_path = v;
        else if (wcscmp(a, L"--panel") == 0 && wcscmp(v, L"main") == 0)
            o->keypad = false;
        else if (wcscmp(a, L"--panel") == 0 && wcscmp(v, L"keypad") == 0)
            o->keypad = true;
        else if (wcscmp(a, L"--panel") == 0 && wcscmp(v, L"controls") == 0)
            o->controls = true;
        else if (wcscmp(a, L"--title") == 0)
            o->title = v;
        else if (wcscmp(a, L"--topmost") == 0)
            o->topmost = wcscmp(v, L"0") != 0;
        else if (wcscmp(a, L"--activate") == 0)
            o->no_activate = wcscmp(v, L"0") == 0;
        else if (wcscmp(a, L"--list-select") == 0 && wcscmp(v, L"extended") == 0)
            o->multi_select = true;
        else if (wcscmp(a, L"--x") == 0   ? !parse_int(v, &o->x)
                 : wcscmp(a, L"--y") == 0 ? !parse_int(v, &o->y)
                                          : true)
            return false;
        i++;
    }
    return true;
}

static bool register_classes(void)
{
    WNDCLASSEXW wc = {.cbSize = sizeof wc};
    wc.hInstance = g.inst;
    wc.hCursor = LoadCursorW(NULL, (LPCWSTR)IDC_ARROW);
    wc.hIcon = LoadIconW(NULL, (LPCWSTR)IDI_APPLICATION);

    wc.lpfnWndProc = main_proc;
    wc.hbrBackground = (HBRUSH)(COLOR_BTNFACE + 1);
    wc.lpszClassName = L"WinagentTestApp";
    if (!RegisterClassExW(&wc))
        return false;

    wc.lpfnWndProc = keypad_proc;
    wc.lpszClassName = L"WinagentKeypad";
    if (!RegisterClassExW(&wc))
        return false;

    wc.lpfnWndProc = controls_proc;
    wc.lpszClassName = L"WinagentControls";
    if (!RegisterClassExW(&wc))
        return false;

    wc.style = CS_DBLCLKS; /* the canvas logs double clicks */
    wc.lpfnWndProc = canvas_proc;
    wc.hbrBackground = NULL;
    wc.hIcon = NULL;
    wc.lpszClassName = L"WinagentCanvas";
    return RegisterClassExW(&wc) != 0;
}

/* Creates the top-level window with the given client size at x,y (outer corner). */
static HWND create_frame(const wchar_t *cls, const wchar_t *title, DWORD style, HMENU menu, int x,
                         int y, int cw, int ch)
{
    RECT rc = {0, 0, cw, ch};
    AdjustWindowRectEx(&rc, style, menu != NULL, 0);
    HWND hwnd = CreateWindowExW(0, cls, title, style, x, y, rc.right - rc.left, rc.bottom - rc.top,
                                NULL, menu, g.inst, NULL);
    if (!hwnd)
        return NULL;
    /* The menu bar or the frame may come out another height than AdjustWindowRectEx
     * assumed: correct the outer size once so the client area is exact. */
    RECT client, frame;
    GetClientRect(hwnd, &client);
    GetWindowRect(hwnd, &frame);
    if (client.right != cw || client.bottom != ch)
        SetWindowPos(hwnd, NULL, 0, 0, frame.right - frame.left + cw - client.right,
                     frame.bottom - frame.top + ch - client.bottom,
                     SWP_NOMOVE | SWP_NOZORDER | SWP_NOACTIVATE);
    return hwnd;
}

int WINAPI wWinMain(HINSTANCE inst, HINSTANCE prev, PWSTR cmdline, int show)
{
    Options opt;
    MSG msg;
    (void)prev;
    (void)cmdline;

    g.inst = inst;
    g.start_ms = GetTickCount64();
    if (!parse_options(__argc, __wargv, &opt))
        return 1;
    g.keypad = opt.keypad;
    g.controls = opt.controls;
    g.multi_select = opt.multi_select;
    if (opt.log_path) {
        g.log = CreateFileW(opt.log_path, FILE_APPEND_DATA,
                            FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                            OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
        if (g.log == INVALID_HANDLE_VALUE)
            return 1;
    }

    /* The menus' MSAA objects are marshalled to the programs that ask for them. */
    if (FAILED(OleInitialize(NULL)))
        return 1;
    g.font = GetStockObject(DEFAULT_GUI_FONT);
    g.key_font = CreateFontW(-48, 0, 0, 0, FW_BOLD, FALSE, FALSE, FALSE, DEFAULT_CHARSET,
                             OUT_DEFAULT_PRECIS, CLIP_DEFAULT_PRECIS, NONANTIALIASED_QUALITY,
                             DEFAULT_PITCH | FF_SWISS, L"Arial");
    g.blue_rgn =
        CreateEllipticRgn(TARGET_BLUE.left, TARGET_BLUE.top, TARGET_BLUE.right, TARGET_BLUE.bottom);
    if (!register_classes())
        return 1;

    const DWORD style = WS_OVERLAPPED | WS_CAPTION | WS_SYSMENU | WS_MINIMIZEBOX | WS_CLIPCHILDREN;
    if (g.keypad)
        g.main = create_frame(L"WinagentKeypad", KEYPAD_TITLE, style, NULL, opt.x, opt.y,
                              KEYPAD_CLIENT_W, KEYPAD_CLIENT_H);
    else if (g.controls)
        g.main = create_frame(L"WinagentControls", CONTROLS_TITLE, style, NULL, opt.x, opt.y,
                              CONTROLS_CLIENT_W, CONTROLS_CLIENT_H);
    else
        g.main = create_frame(L"WinagentTestApp", opt.title ? opt.title : MAIN_TITLE,
                              style | WS_MAXIMIZEBOX, build_menu(), opt.x, opt.y, MAIN_CLIENT_W,
                              MAIN_CLIENT_H);
    if (!g.main)
        return 1;
    if (opt.topmost)
        SetWindowPos(g.main, HWND_TOPMOST, 0, 0, 0, 0, SWP_NOMOVE | SWP_NOSIZE | SWP_NOACTIVATE);

    HHOOK hook = SetWindowsHookExW(WH_GETMESSAGE, getmessage_hook, NULL, GetCurrentThreadId());
    HHOOK cbt = SetWindowsHookExW(WH_CBT, cbt_hook, NULL, GetCurrentThreadId());
    ACCEL accel_def = {FVIRTKEY | FCONTROL, 'S', IDM_SAVE};
    HACCEL accel = CreateAcceleratorTableW(&accel_def, 1);

    if (opt.no_activate) {
        ShowWindow(g.main, SW_SHOWNOACTIVATE);
        UpdateWindow(g.main);
    } else {
        ShowWindow(g.main, show == SW_HIDE ? SW_SHOWNORMAL : show);
        UpdateWindow(g.main);
        SetForegroundWindow(g.main);
        SetFocus(g.keypad     ? g.keys[0]
                 : g.controls ? GetDlgItem(g.main, IDC_CC_LIST)
                              : main_ctl(IDC_EDIT));
    }
    log_ready(g.keypad ? "keypad" : g.controls ? "controls" : "main");

    while (GetMessageW(&msg, NULL, 0, 0) > 0) {
        if (!g.keypad && !g.controls && TranslateAcceleratorW(g.main, accel, &msg))
            continue;
        if (IsDialogMessageW(g.main, &msg))
            continue;
        TranslateMessage(&msg);
        DispatchMessageW(&msg);
    }

    if (hook)
        UnhookWindowsHookEx(hook);
    if (cbt)
        UnhookWindowsHookEx(cbt);
    OleUninitialize();
    DestroyAcceleratorTable(accel);
    DeleteObject(g.key_font);
    DeleteObject(g.blue_rgn);
    if (g.log != INVALID_HANDLE_VALUE)
        CloseHandle(g.log);
    return (int)msg.wParam;
}
