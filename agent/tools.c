/* The tool declarations: written once, rendered per provider by the LLM layer. */
#include "agent/tools.h"

static const char desktop_description[] =
    "See and act on the Windows desktop. Coordinates are integers 0-999 over the latest "
    "observation (0,0 top-left, 999,999 bottom-right). Element ids come from the latest "
    "accessibility tree. Acting calls return a fresh observation of the window in front.";

static const char desktop_parameters[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"action\":{\"type\":\"string\",\"enum\":[\"screenshot\",\"window_screenshot\",\"click\","
    "\"double_click\",\"right_click\",\"middle_click\",\"mouse_move\",\"drag\",\"scroll\","
    "\"type\",\"key\",\"invoke\",\"toggle\",\"expand\",\"collapse\",\"select\",\"set_value\","
    "\"wait\",\"list_windows\",\"focus_window\",\"move_window\",\"set_window_state\","
    "\"close_window\",\"launch\"],\"description\":\"What to do.\"},"
    "\"x\":{\"type\":\"integer\",\"description\":\"0-999 across the latest observation.\"},"
    "\"y\":{\"type\":\"integer\",\"description\":\"0-999 down the latest observation.\"},"
    "\"to_x\":{\"type\":\"integer\",\"description\":\"drag: where to release, 0-999.\"},"
    "\"to_y\":{\"type\":\"integer\",\"description\":\"drag: where to release, 0-999.\"},"
    "\"element\":{\"type\":\"integer\",\"description\":\"An element id from the latest tree "
    "(instead of x,y).\"},"
    "\"text\":{\"type\":\"string\",\"description\":\"type: the text to type.\"},"
    "\"keys\":{\"type\":\"string\",\"description\":\"key: a combination such as ctrl+s, "
    "alt+f4, enter, esc, shift+tab, win+r, or a sequence such as 'ctrl+a delete'.\"},"
    "\"direction\":{\"type\":\"string\",\"enum\":[\"up\",\"down\",\"left\",\"right\"],"
    "\"description\":\"scroll direction.\"},"
    "\"amount\":{\"type\":\"integer\",\"description\":\"scroll: wheel notches (default 3).\"},"
    "\"value\":{\"type\":\"string\",\"description\":\"set_value: the new value.\"},"
    "\"seconds\":{\"type\":\"number\",\"description\":\"wait: seconds, at most 30.\"},"
    "\"window\":{\"type\":\"string\",\"description\":\"A window title or process-name fragment, "
    "or a handle like 0x1a2b.\"},"
    "\"width\":{\"type\":\"integer\",\"description\":\"move_window: width in pixels.\"},"
    "\"height\":{\"type\":\"integer\",\"description\":\"move_window: height in pixels.\"},"
    "\"state\":{\"type\":\"string\",\"enum\":[\"minimize\",\"maximize\",\"restore\"],"
    "\"description\":\"set_window_state: the new state.\"},"
    "\"command\":{\"type\":\"string\",\"description\":\"launch: a program name (notepad, calc) "
    "or path.\"},"
    "\"mode\":{\"type\":\"string\",\"enum\":[\"auto\",\"a11y\",\"pixel\"],\"description\":"
    "\"window_screenshot: auto (tree when useful), a11y (tree), pixel (image).\"},"
    "\"monitor\":{\"type\":\"integer\",\"description\":\"screenshot: monitor index, from 0.\"}"
    "},\"required\":[\"action\"]}";

static const char powershell_description[] =
    "Run a PowerShell command on this computer and get its exit code, stdout and stderr "
    "(long output is shortened, keeping its start and end). No window is shown; do not "
    "start interactive programs with it.";

static const char powershell_parameters[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"command\":{\"type\":\"string\",\"description\":\"The PowerShell command.\"},"
    "\"timeout_s\":{\"type\":\"integer\",\"description\":\"Seconds before the command is "
    "stopped (default 60, at most 600).\"}},\"required\":[\"command\"]}";

static const struct llm_tool tools[] = {
    {"desktop", desktop_description, desktop_parameters},
    {"powershell", powershell_description, powershell_parameters},
};

const struct llm_tool *agent_tools(int with_shell, size_t *count)
{
    *count = with_shell ? 2 : 1;
    return tools;
}
