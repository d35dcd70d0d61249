/* bigapp.c - a window with long collections (a 3,000-row report list view, a 2,000-item
 * tree view) below an edit box, standard common controls, logging what it is asked to
 * do in a JSON-lines event log the Wine tests and the bench judge by. */

/*
 * Command line
 * ------------
 *   bigapp.exe [--log PATH] [--x X --y Y] [--rows N] [--title TEXT] [--ownerdata]
 *
 *   --log PATH   append one JSON object per event to PATH (one line each, written with
 *                a single WriteFile; shared for reading, writing and deleting).
 *   --x, --y     top-left corner of the window in screen pixels, default 30,30.
 *   --rows N     rows of the list view (default 3000).
 *   --title TEXT the window's title instead of "winagent bigwin".
 *   --ownerdata  the list view keeps no rows (LVS_OWNERDATA): it asks for each cell
 *                (LVN_GETDISPINFO), and LVN_ODFINDITEM goes unanswered, as in many
 *                programs with virtual lists.
 *
 * Window: class WinagentBigApp, client 900x660, not resizable. Controls, client pixels:
 *
 *   class           text       id   rect               notes
 *   STATIC          "Filter:"  100  [20,22,80,42]
 *   EDIT            ""         101  [90,20,480,44]     ES_AUTOHSCROLL, WS_TABSTOP
 *   STATIC          "Files"    102  [20,60,120,78]
 *   SysListView32   ""         103  [20,80,600,640]    LVS_REPORT | LVS_SHOWSELALWAYS |
 *                                                      LVS_SINGLESEL; columns Name,
 *                                                      Size, Type; row i is
 *                                                      "report-i.txt", "<i*7 % 997> KB",
 *                                                      "Text Document"
 *   STATIC          "Folders"  104  [620,60,720,78]
 *   SysTreeView32   ""         105  [620,80,880,640]   TVS_HASBUTTONS | TVS_HASLINES |
 *                                                      TVS_LINESATROOT |
 *                                                      TVS_SHOWSELALWAYS; 40 folders
 *                                                      "folder-NN", each with 49 items
 *                                                      "item-NN-MM" (2,000 items), all
 *                                                      expanded
 *
 * Messages it takes from others (posted to the main window):
 *   WM_APP+1  wParam row: toggles the row's name between "report-i.txt" and
 *             "report-i.txt (changed)" (logs row_changed).
 * Text typed into the edit that reads "rename N" does the same to row N; "resize N"
 * sets row N's Size cell to "1234 KB" (logs cell_changed); "retitle N" names column N
 * "Bytes" (logs column_changed).
 *
 * Log lines ("event", "t" in ms since start):
 *   ready         hwnd, pid, title, rect, client_rect, controls {name: rect},
 *                 control_hwnds {name: "0x.."}, rows, tree_items
 *   list_select   index, text     (a row became selected, however: click, keys, message)
 *   tree_select   text            (TVN_SELCHANGED)
 *   text_changed  text            (the edit)
 *   row_changed   index, text
 *   cell_changed  index, column, text
 *   column_changed column, text
 *   Exit code 0 after the window was closed, 1 on a bad command line or a failed start.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <commctrl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define CLIENT_W   900
#define CLIENT_H   660
#define FOLDERS    40
#define PER_FOLDER 49
#define TEXT_MAX   256

enum { IDC_LABEL_FILTER = 100, IDC_EDIT, IDC_LABEL_FILES, IDC_LIST, IDC_LABEL_FOLDERS, IDC_TREE };

static struct {
    HINSTANCE inst;
    HANDLE log;
    ULONGLONG start_ms;
    HWND main, edit, list, tree;
    HFONT font;
    int rows;
    bool *changed;  /* per row: the name carries " (changed)" */
    bool *resized;  /* per row: its Size cell reads "1234 KB" */
    bool ownerdata; /* the list keeps no rows: it asks for each (LVS_OWNERDATA) */
    bool ready;
    const wchar_t *title;
} g = {.log = INVALID_HANDLE_VALUE, .rows = 3000, .title = L"winagent bigwin"};

/* ---- the log: one line per event, ASCII-safe JSON ---- */

struct line {
    char buf[4096];
    size_t len;
};

static void add(struct line *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(l->buf + l->len, sizeof l->buf - l->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        l->len += (size_t)n < sizeof l->buf - l->len ? (size_t)n : sizeof l->buf - l->len - 1;
}

/* A UTF-16 string as a JSON string (non-ASCII as \u escapes). */
static void add_str(struct line *l, const wchar_t *s)
{
    add(l, "\"");
    for (; s && *s && l->len + 8 < sizeof l->buf; s++) {
        if (*s == '"' || *s == '\\')
            add(l, "\\%c", (char)*s);
        else if (*s < 0x20 || *s > 0x7e)
            add(l, "\\u%04x", (unsigned)*s);
        else
            add(l, "%c", (char)*s);
    }
    add(l, "\"");
}

static void begin(struct line *l, const char *event)
{
    l->len = 0;
    add(l, "{\"event\":\"%s\",\"t\":%llu", event,
        (unsigned long long)(GetTickCount64() - g.start_ms));
}

static void end(struct line *l)
{
    add(l, "}\n");
    DWORD done;
    if (g.log != INVALID_HANDLE_VALUE)
        WriteFile(g.log, l->buf, (DWORD)l->len, &done, NULL);
}

static void add_rect(struct line *l, const char *key, HWND h)
{
    RECT r;
    GetWindowRect(h, &r);
    add(l, ",\"%s\":[%ld,%ld,%ld,%ld]", key, r.left, r.top, r.right, r.bottom);
}

/* ---- the controls ---- */

static void row_name(int i, wchar_t *out, size_t n)
{
    swprintf(out, n, L"report-%d.txt%ls", i, g.changed && g.changed[i] ? L" (changed)" : L"");
}

/* Cell col of row i, as the list shows it. */
static void cell_text(int i, int col, wchar_t *out, size_t n)
{
    if (col == 0)
        row_name(i, out, n);
    else if (col == 1 && g.resized && g.resized[i])
        swprintf(out, n, L"1234 KB");
    else if (col == 1)
        swprintf(out, n, L"%d KB", i * 7 % 997);
    else
        swprintf(out, n, L"Text Document");
}

static HWND child(const wchar_t *cls, const wchar_t *text, int id, DWORD style, int x, int y, int w,
                  int h)
{
    HWND c = CreateWindowExW(0, cls, text, WS_CHILD | WS_VISIBLE | style, x, y, w, h, g.main,
                             (HMENU)(INT_PTR)id, g.inst, NULL);
    if (c)
        SendMessageW(c, WM_SETFONT, (WPARAM)g.font, FALSE);
    return c;
}

static bool fill_list(void)
{
    static const wchar_t *const cols[] = {L"Name", L"Size", L"Type"};
    static const int widths[] = {250, 120, 180};
    for (int c = 0; c < 3; c++) {
        LVCOLUMNW col = {
            .mask = LVCF_TEXT | LVCF_WIDTH, .cx = widths[c], .pszText = (LPWSTR)cols[c]};
        SendMessageW(g.list, LVM_INSERTCOLUMNW, (WPARAM)c, (LPARAM)&col);
    }
    SendMessageW(g.list, LVM_SETITEMCOUNT, (WPARAM)g.rows, 0);
    if (g.ownerdata)
        return true; /* each row's cells come from LVN_GETDISPINFO */
    SendMessageW(g.list, WM_SETREDRAW, FALSE, 0);
    for (int r = 0; r < g.rows; r++) {
        wchar_t name[TEXT_MAX], size[32];
        cell_text(r, 0, name, TEXT_MAX);
        cell_text(r, 1, size, 32);
        LVITEMW it = {.mask = LVIF_TEXT, .iItem = r, .pszText = name};
        if (SendMessageW(g.list, LVM_INSERTITEMW, 0, (LPARAM)&it) != r)
            return false;
        LVITEMW sub = {.iSubItem = 1, .pszText = size};
        SendMessageW(g.list, LVM_SETITEMTEXTW, (WPARAM)r, (LPARAM)&sub);
        sub.iSubItem = 2;
        sub.pszText = (LPWSTR)L"Text Document";
        SendMessageW(g.list, LVM_SETITEMTEXTW, (WPARAM)r, (LPARAM)&sub);
    }
    SendMessageW(g.list, WM_SETREDRAW, TRUE, 0);
    return true;
}

static bool fill_tree(void)
{
    SendMessageW(g.tree, WM_SETREDRAW, FALSE, 0);
    for (int f = 0; f < FOLDERS; f++) {
        wchar_t text[TEXT_MAX];
        swprintf(text, TEXT_MAX, L"folder-%02d", f);
        TVINSERTSTRUCTW ins = {.hParent = TVI_ROOT, .hInsertAfter = TVI_LAST};
        ins.item.mask = TVIF_TEXT;
        ins.item.pszText = text;
        HTREEITEM folder = (HTREEITEM)SendMessageW(g.tree, TVM_INSERTITEMW, 0, (LPARAM)&ins);
        if (!folder)
            return false;
        for (int m = 0; m < PER_FOLDER; m++) {
            swprintf(text, TEXT_MAX, L"item-%02d-%02d", f, m);
            TVINSERTSTRUCTW leaf = {.hParent = folder, .hInsertAfter = TVI_LAST};
            leaf.item.mask = TVIF_TEXT;
            leaf.item.pszText = text;
            if (!SendMessageW(g.tree, TVM_INSERTITEMW, 0, (LPARAM)&leaf))
                return false;
        }
        SendMessageW(g.tree, TVM_EXPAND, TVE_EXPAND, (LPARAM)folder);
    }
    SendMessageW(g.tree, WM_SETREDRAW, TRUE, 0);
    /* The top of the tree in view, as a person opening the window finds it. */
    HTREEITEM first = (HTREEITEM)SendMessageW(g.tree, TVM_GETNEXTITEM, TVGN_ROOT, 0);
    SendMessageW(g.tree, TVM_SELECTITEM, TVGN_FIRSTVISIBLE, (LPARAM)first);
    return true;
}

static bool create_controls(void)
{
    INITCOMMONCONTROLSEX icc = {sizeof icc, ICC_WIN95_CLASSES};
    InitCommonControlsEx(&icc);
    g.font = (HFONT)GetStockObject(DEFAULT_GUI_FONT);
    if (!child(L"STATIC", L"Filter:", IDC_LABEL_FILTER, SS_LEFT, 20, 22, 60, 20) ||
        !(g.edit = child(L"EDIT", L"", IDC_EDIT, WS_BORDER | WS_TABSTOP | ES_AUTOHSCROLL, 90, 20,
                         390, 24)) ||
        !child(L"STATIC", L"Files", IDC_LABEL_FILES, SS_LEFT, 20, 60, 100, 18) ||
        !(g.list = child(WC_LISTVIEWW, L"", IDC_LIST,
                         WS_BORDER | WS_TABSTOP | LVS_REPORT | LVS_SHOWSELALWAYS | LVS_SINGLESEL |
                             (g.ownerdata ? LVS_OWNERDATA : 0),
                         20, 80, 580, 560)) ||
        !child(L"STATIC", L"Folders", IDC_LABEL_FOLDERS, SS_LEFT, 620, 60, 100, 18) ||
        !(g.tree = child(WC_TREEVIEWW, L"", IDC_TREE,
                         WS_BORDER | WS_TABSTOP | TVS_HASBUTTONS | TVS_HASLINES | TVS_LINESATROOT |
                             TVS_SHOWSELALWAYS,
                         620, 80, 260, 560)))
        return false;
    g.changed = calloc((size_t)g.rows, sizeof *g.changed);
    g.resized = calloc((size_t)g.rows, sizeof *g.resized);
    return g.changed && g.resized && fill_list() && fill_tree();
}

static void log_ready(void)
{
    struct line l;
    begin(&l, "ready");
    wchar_t title[TEXT_MAX];
    GetWindowTextW(g.main, title, TEXT_MAX);
    add(&l, ",\"hwnd\":\"0x%llx\",\"pid\":%lu,\"title\":", (unsigned long long)(UINT_PTR)g.main,
        GetCurrentProcessId());
    add_str(&l, title);
    add_rect(&l, "rect", g.main);
    RECT c;
    GetClientRect(g.main, &c);
    MapWindowPoints(g.main, NULL, (POINT *)&c, 2);
    add(&l, ",\"client_rect\":[%ld,%ld,%ld,%ld]", c.left, c.top, c.right, c.bottom);
    add(&l, ",\"controls\":{");
    static const char *const names[] = {"edit", "list", "tree"};
    HWND hw[] = {g.edit, g.list, g.tree};
    for (int i = 0; i < 3; i++) {
        RECT r;
        GetWindowRect(hw[i], &r);
        add(&l, "%s\"%s\":[%ld,%ld,%ld,%ld]", i ? "," : "", names[i], r.left, r.top, r.right,
            r.bottom);
    }
    add(&l, "},\"control_hwnds\":{");
    for (int i = 0; i < 3; i++)
        add(&l, "%s\"%s\":\"0x%llx\"", i ? "," : "", names[i], (unsigned long long)(UINT_PTR)hw[i]);
    add(&l, "},\"rows\":%d,\"tree_items\":%d", g.rows, FOLDERS * (PER_FOLDER + 1));
    end(&l);
}

static void log_list_select(int i)
{
    wchar_t text[TEXT_MAX];
    row_name(i, text, TEXT_MAX);
    struct line l;
    begin(&l, "list_select");
    add(&l, ",\"index\":%d,\"text\":", i);
    add_str(&l, text);
    end(&l);
}

static void log_tree_select(HTREEITEM item)
{
    wchar_t text[TEXT_MAX] = L"";
    TVITEMW tv = {.mask = TVIF_TEXT, .hItem = item, .pszText = text, .cchTextMax = TEXT_MAX};
    SendMessageW(g.tree, TVM_GETITEMW, 0, (LPARAM)&tv);
    struct line l;
    begin(&l, "tree_select");
    add(&l, ",\"text\":");
    add_str(&l, text);
    end(&l);
}

static void change_row(int i)
{
    if (i < 0 || i >= g.rows)
        return;
    g.changed[i] = !g.changed[i];
    wchar_t name[TEXT_MAX];
    row_name(i, name, TEXT_MAX);
    LVITEMW it = {.iSubItem = 0, .pszText = name};
    if (g.ownerdata)
        SendMessageW(g.list, LVM_REDRAWITEMS, (WPARAM)i, (LPARAM)i);
    else
        SendMessageW(g.list, LVM_SETITEMTEXTW, (WPARAM)i, (LPARAM)&it);
    struct line l;
    begin(&l, "row_changed");
    add(&l, ",\"index\":%d,\"text\":", i);
    add_str(&l, name);
    end(&l);
}

static void resize_row(int i)
{
    if (i < 0 || i >= g.rows)
        return;
    LVITEMW it = {.iSubItem = 1, .pszText = (LPWSTR)L"1234 KB"};
    g.resized[i] = true;
    if (g.ownerdata)
        SendMessageW(g.list, LVM_REDRAWITEMS, (WPARAM)i, (LPARAM)i);
    else
        SendMessageW(g.list, LVM_SETITEMTEXTW, (WPARAM)i, (LPARAM)&it);
    struct line l;
    begin(&l, "cell_changed");
    add(&l, ",\"index\":%d,\"column\":1,\"text\":\"1234 KB\"", i);
    end(&l);
}

static void retitle_column(int col)
{
    LVCOLUMNW c = {.mask = LVCF_TEXT, .pszText = (LPWSTR)L"Bytes"};
    if (col < 0 || col > 2 || !SendMessageW(g.list, LVM_SETCOLUMNW, (WPARAM)col, (LPARAM)&c))
        return;
    struct line l;
    begin(&l, "column_changed");
    add(&l, ",\"column\":%d,\"text\":\"Bytes\"", col);
    end(&l);
}

/* What the edit's text asks for: "rename N", "resize N", "retitle N". */
static void edit_command(const wchar_t *text)
{
    int n = 0;
    if (swscanf(text, L"rename %d", &n) == 1)
        change_row(n);
    else if (swscanf(text, L"resize %d", &n) == 1)
        resize_row(n);
    else if (swscanf(text, L"retitle %d", &n) == 1)
        retitle_column(n);
}

static LRESULT CALLBACK main_proc(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    switch (msg) {
    case WM_CREATE:
        g.main = hwnd;
        return create_controls() ? 0 : -1;
    case WM_NOTIFY: {
        NMHDR *h = (NMHDR *)lp;
        if (h->hwndFrom == g.list && h->code == LVN_GETDISPINFOW) { /* owner data: a cell */
            LVITEMW *it = &((NMLVDISPINFOW *)lp)->item;
            if ((it->mask & LVIF_TEXT) && it->pszText && it->cchTextMax > 0 && it->iItem >= 0 &&
                it->iItem < g.rows)
                cell_text(it->iItem, it->iSubItem, it->pszText, (size_t)it->cchTextMax);
            return 0;
        }
        /* LVN_ODFINDITEM is left unanswered, as many programs leave it */
        if (!g.ready)
            break;
        if (h->hwndFrom == g.list && h->code == LVN_ITEMCHANGED) {
            NMLISTVIEW *n = (NMLISTVIEW *)lp;
            if ((n->uChanged & LVIF_STATE) && (n->uNewState & LVIS_SELECTED) &&
                !(n->uOldState & LVIS_SELECTED) && n->iItem >= 0)
                log_list_select(n->iItem);
        } else if (h->hwndFrom == g.tree && h->code == TVN_SELCHANGEDW) {
            log_tree_select(((NMTREEVIEWW *)lp)->itemNew.hItem);
        }
        break;
    }
    case WM_COMMAND:
        if (LOWORD(wp) == IDC_EDIT && HIWORD(wp) == EN_CHANGE && g.ready) {
            wchar_t text[TEXT_MAX];
            GetWindowTextW(g.edit, text, TEXT_MAX);
            struct line l;
            begin(&l, "text_changed");
            add(&l, ",\"text\":");
            add_str(&l, text);
            end(&l);
            edit_command(text);
        }
        break;
    case WM_APP + 1:
        change_row((int)wp);
        return 0;
    case WM_DESTROY:
        PostQuitMessage(0);
        return 0;
    default:
        break;
    }
    return DefWindowProcW(hwnd, msg, wp, lp);
}

static bool parse(int argc, wchar_t **argv, const wchar_t **log, int *x, int *y)
{
    for (int i = 1; i < argc; i++) {
        if (wcscmp(argv[i], L"--ownerdata") == 0) {
            g.ownerdata = true;
            continue;
        }
        const wchar_t *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return false;
        if (wcscmp(argv[i], L"--log") == 0)
            *log = v;
        else if (wcscmp(argv[i], L"--x") == 0)
            *x = _wtoi(v);
        else if (wcscmp(argv[i], L"--y") == 0)
            *y = _wtoi(v);
        else if (wcscmp(argv[i], L"--rows") == 0 && (g.rows = _wtoi(v)) > 0 && g.rows <= 100000)
            ;
        else if (wcscmp(argv[i], L"--title") == 0)
            g.title = v;
        else
            return false;
        i++;
    }
    return true;
}

int WINAPI wWinMain(HINSTANCE inst, HINSTANCE prev, PWSTR cmd, int show)
{
    (void)prev;
    (void)cmd;
    g.inst = inst;
    g.start_ms = GetTickCount64();
    const wchar_t *log = NULL;
    int x = 30, y = 30;
    if (!parse(__argc, __wargv, &log, &x, &y)) {
        fwprintf(stderr, L"usage: bigapp [--log PATH] [--x X --y Y] [--rows N] [--title T] "
                         L"[--ownerdata]\n");
        return 1;
    }
    if (log) {
        g.log = CreateFileW(log, FILE_APPEND_DATA,
                            FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                            OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
        if (g.log == INVALID_HANDLE_VALUE)
            return 1;
    }
    WNDCLASSW wc = {.lpfnWndProc = main_proc,
                    .hInstance = inst,
                    .hCursor = LoadCursorW(NULL, (LPCWSTR)IDC_ARROW),
                    .hbrBackground = (HBRUSH)(COLOR_BTNFACE + 1),
                    .lpszClassName = L"WinagentBigApp"};
    if (!RegisterClassW(&wc))
        return 1;
    DWORD style = WS_OVERLAPPED | WS_CAPTION | WS_SYSMENU | WS_MINIMIZEBOX;
    RECT r = {0, 0, CLIENT_W, CLIENT_H};
    AdjustWindowRect(&r, style, FALSE);
    HWND w = CreateWindowExW(0, wc.lpszClassName, g.title, style, x, y, r.right - r.left,
                             r.bottom - r.top, NULL, NULL, inst, NULL);
    if (!w)
        return 1;
    ShowWindow(w, show);
    UpdateWindow(w);
    SetForegroundWindow(w);
    SetFocus(g.edit);
    g.ready = true;
    log_ready();
    MSG m;
    while (GetMessageW(&m, NULL, 0, 0) > 0) {
        if (IsDialogMessageW(w, &m))
            continue;
        TranslateMessage(&m);
        DispatchMessageW(&m);
    }
    return 0;
}
