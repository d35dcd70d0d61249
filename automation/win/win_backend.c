/* The Windows backend: the const table behind backend_default(), and its init
 * (per-monitor DPI awareness) and shutdown. */
#include <windows.h>

#include "automation/backend.h"
#include "automation/win/desktop/win_person.h"
#include "automation/win/desktop/win_capture.h"
#include "automation/win/msaa/win_cc_buf.h"
#include "automation/win/desktop/win_input.h"
#include "automation/win/win_shell.h"
#include "automation/win/win_tree.h"
#include "automation/win/desktop/win_tree_job.h"
#include "automation/win/win_launch.h"
#include "automation/win/desktop/win_window.h"
#include "automation/win/desktop/win_window_ctl.h"
#include "automation/win/desktop/win_idle.h"
#include "automation/win/desktop/win_integrity.h"
#include "automation/win/desktop/win_kind.h"
#include "automation/win/desktop/win_post.h"
#include "automation/win/win_program.h"
#include "automation/win/win_process.h"
#include "automation/win/win_system.h"

typedef BOOL(WINAPI *set_dpi_context_fn)(HANDLE);
typedef HRESULT(WINAPI *set_dpi_awareness_fn)(int);

/* Pixels everywhere must be physical pixels: per-monitor v2 (Windows 10 1703+), else
 * per-monitor (8.1+, shcore), else system-wide awareness (Vista+). Looked up at run
 * time so the exe starts on every one of them. The manifest asks for the same; these
 * calls then fail with "access denied", which is fine. */
static void set_dpi_awareness(void)
{
    HMODULE user32 = GetModuleHandleW(L"user32.dll");
    set_dpi_context_fn set_context =
        user32 ? (set_dpi_context_fn)(void *)GetProcAddress(user32, "SetProcessDpiAwarenessContext")
               : NULL;
    if (set_context && (set_context((HANDLE)-4 /* PER_MONITOR_AWARE_V2 */) ||
                        GetLastError() == ERROR_ACCESS_DENIED))
        return;
    HMODULE shcore = LoadLibraryW(L"shcore.dll");
    set_dpi_awareness_fn set_awareness =
        shcore ? (set_dpi_awareness_fn)(void *)GetProcAddress(shcore, "SetProcessDpiAwareness")
               : NULL;
    if (set_awareness) {
        HRESULT hr = set_awareness(2 /* PROCESS_PER_MONITOR_DPI_AWARE */);
        if (SUCCEEDED(hr) || hr == E_ACCESSDENIED)
            return;
    }
    SetProcessDPIAware();
}

static wa_err win_init(void)
{
    set_dpi_awareness();
    /* No COM here: the accessibility slots run it on worker threads of their own. */
    return WA_E_OK;
}

static void win_shutdown(void)
{
    /* DPI awareness is for the process's life. Tree and action workers may still be
     * releasing their COM objects: exiting under them races with those calls. */
    win_job_drain(1000);
    win_cc_buf_kept_free();
}

static const struct wa_backend win_backend = {
    .name = "windows",
    .walk_captures = true,
    .init = win_init,
    .shutdown = win_shutdown,

    .list_windows = win_list_windows,
    .list_visible_windows = win_list_visible_windows,
    .window_info = win_window_info,
    .default_window = win_default_window,
    .foreground_window = win_foreground_window,
    .window_at = win_window_at,
    .focus_window = win_focus_window,
    .move_window = win_move_window,
    .set_window_state = win_set_window_state,
    .close_window = win_close_window,
    .resolve_program = win_resolve_program,
    .program_info = win_program_info,
    .program_place = win_program_place,
    .input_reaches = win_input_reaches,
    .input_handled = win_input_handled,
    .watch_process = win_watch_process,
    .process_state = win_process_state,
    .unwatch_process = win_unwatch_process,
    .started_by = win_started_by,
    .process_parent = win_process_parent,
    .wait_ready = win_wait_ready,
    .launch = win_launch,
    .window_kind = win_window_kind,
    .focused_control = win_focused_control,
    .control_at = win_control_at,
    .clipboard_owner = win_clipboard_owner,
    .monitors = win_monitors,
    .system_info = win_system_info,

    .capture_screen = win_capture_screen,
    .capture_window = win_capture_window,

    .mouse_move = win_mouse_move,
    .mouse_button = win_mouse_button,
    .mouse_wheel = win_mouse_wheel,
    .type_text = win_type_text,
    .press_keys = win_press_keys,
    .hold_keys = win_hold_keys,
    .cursor_position = win_cursor_position,
    .watch_person = win_person_watch,
    .person_idle = win_person_idle,

    .get_tree = win_get_tree,
    .element_action = win_element_action,
    .element_value = win_element_value,
    .element_states = win_element_states,
    .check_box_point = win_check_box_point,
    .focused_value = win_focused_value,
    .post_click = win_post_click,
    .post_wheel = win_post_wheel,
    .post_text = win_post_text,
    .open_menus = win_open_menus,
    .find_items = win_find_items,

    .run_shell = win_run_shell,
};

const struct wa_backend *backend_default(void)
{
    return &win_backend;
}
