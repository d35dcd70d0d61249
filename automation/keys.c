/* Human key names -> Windows virtual-key codes, for the `key` action and the CLI. */
#include "automation/keys.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* A hand-aligned table: a few names per line, grouped. */
/* clang-format off */
static const struct {
    const char *name;
    unsigned short vk;
} key_names[] = {
    /* modifiers */
    {"ctrl", 0x11}, {"control", 0x11}, {"ctl", 0x11}, {"lctrl", 0xA2}, {"rctrl", 0xA3},
    {"shift", 0x10}, {"lshift", 0xA0}, {"rshift", 0xA1},
    {"alt", 0x12}, {"menu", 0x12}, {"option", 0x12}, {"lalt", 0xA4}, {"ralt", 0xA5},
    {"altgr", 0xA5},
    {"win", 0x5B}, {"windows", 0x5B}, {"super", 0x5B}, {"meta", 0x5B}, {"cmd", 0x5B},
    {"command", 0x5B}, {"lwin", 0x5B}, {"rwin", 0x5C},
    /* editing and navigation */
    {"enter", 0x0D}, {"return", 0x0D}, {"ret", 0x0D}, {"tab", 0x09},
    {"esc", 0x1B}, {"escape", 0x1B}, {"space", 0x20}, {"spacebar", 0x20},
    {"backspace", 0x08}, {"back", 0x08}, {"bksp", 0x08},
    {"delete", 0x2E}, {"del", 0x2E}, {"insert", 0x2D}, {"ins", 0x2D},
    {"home", 0x24}, {"end", 0x23},
    {"pageup", 0x21}, {"pgup", 0x21}, {"prior", 0x21},
    {"pagedown", 0x22}, {"pgdn", 0x22}, {"pgdown", 0x22}, {"next", 0x22},
    {"left", 0x25}, {"arrowleft", 0x25}, {"up", 0x26}, {"arrowup", 0x26},
    {"right", 0x27}, {"arrowright", 0x27}, {"down", 0x28}, {"arrowdown", 0x28},
    {"capslock", 0x14}, {"numlock", 0x90}, {"scrolllock", 0x91},
    {"printscreen", 0x2C}, {"prtsc", 0x2C}, {"print", 0x2C}, {"snapshot", 0x2C},
    {"pause", 0x13}, {"break", 0x13}, {"apps", 0x5D}, {"contextmenu", 0x5D},
    {"clear", 0x0C},
    /* numpad */
    {"num0", 0x60}, {"num1", 0x61}, {"num2", 0x62}, {"num3", 0x63}, {"num4", 0x64},
    {"num5", 0x65}, {"num6", 0x66}, {"num7", 0x67}, {"num8", 0x68}, {"num9", 0x69},
    {"multiply", 0x6A}, {"add", 0x6B}, {"subtract", 0x6D}, {"decimal", 0x6E},
    {"divide", 0x6F},
    /* browser and media keys */
    {"browserback", 0xA6}, {"browserforward", 0xA7}, {"browserrefresh", 0xA8},
    {"volumemute", 0xAD}, {"volumedown", 0xAE}, {"volumeup", 0xAF},
    {"medianext", 0xB0}, {"mediaprev", 0xB1}, {"mediastop", 0xB2},
    {"mediaplaypause", 0xB3}, {"playpause", 0xB3},
    /* punctuation (US layout OEM keys) */
    {"plus", 0xBB}, {"equal", 0xBB}, {"equals", 0xBB}, {"minus", 0xBD}, {"comma", 0xBC},
    {"period", 0xBE}, {"dot", 0xBE}, {"semicolon", 0xBA}, {"slash", 0xBF},
    {"backquote", 0xC0}, {"grave", 0xC0}, {"tilde", 0xC0}, {"bracketleft", 0xDB},
    {"backslash", 0xDC}, {"bracketright", 0xDD}, {"quote", 0xDE}, {"apostrophe", 0xDE},
};
/* clang-format on */

static const struct {
    char c;
    unsigned short vk;
} punct_keys[] = {
    {';', 0xBA}, {'=', 0xBB},  {',', 0xBC}, {'-', 0xBD},  {'.', 0xBE}, {'/', 0xBF}, {'`', 0xC0},
    {'[', 0xDB}, {'\\', 0xDC}, {']', 0xDD}, {'\'', 0xDE}, {'+', 0xBB}, {' ', 0x20},
};

/* Looks up one key name (already trimmed, lower-case); 0 when unknown. */
static unsigned short lookup_key(const char *k)
{
    size_t n = strlen(k);
    if (n == 1) {
        unsigned char c = (unsigned char)k[0];
        if (c >= 'a' && c <= 'z')
            return (unsigned short)(c - 'a' + 'A');
        if (c >= '0' && c <= '9')
            return c;
        for (size_t i = 0; i < sizeof punct_keys / sizeof punct_keys[0]; i++)
            if (punct_keys[i].c == (char)c)
                return punct_keys[i].vk;
        return 0;
    }
    if (k[0] == 'f' && n <= 3 && isdigit((unsigned char)k[1])) {
        int f = k[1] - '0';
        if (n == 3) {
            if (!isdigit((unsigned char)k[2]))
                return 0;
            f = f * 10 + (k[2] - '0');
        }
        if (f >= 1 && f <= 24)
            return (unsigned short)(0x70 + f - 1);
        return 0;
    }
    for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++)
        if (strcmp(key_names[i].name, k) == 0)
            return key_names[i].vk;
    return 0;
}

static bool is_modifier(unsigned short vk)
{
    switch (vk) {
    case 0x10:
    case 0x11:
    case 0x12:
    case 0x5B:
    case 0x5C:
    case 0xA0:
    case 0xA1:
    case 0xA2:
    case 0xA3:
    case 0xA4:
    case 0xA5:
        return true;
    default:
        return false;
    }
}

/* Copies text[0..n) lower-cased without spaces, underscores or hyphens inside names
 * ("Page Down", "page_down" and "page-down" all become "pagedown"); a lone "-" stays. */
static void normalise_key(const char *text, size_t n, char *out, size_t cap)
{
    size_t j = 0;
    for (size_t i = 0; i < n && j + 1 < cap; i++) {
        unsigned char c = (unsigned char)text[i];
        if ((c == ' ' || c == '_' || c == '-') && n > 1)
            continue;
        out[j++] = (char)tolower(c);
    }
    out[j] = '\0';
}

wa_err keys_parse_combo(const char *text, struct wa_key_combo *out)
{
    out->count = 0;
    if (!text)
        return wa_fail(WA_E_INVALID_ARGS, "no keys given");
    const char *p = text;
    while (*p == ' ')
        p++;
    if (!*p)
        return wa_fail(WA_E_INVALID_ARGS, "no keys given");
    while (*p) {
        /* A part ends at '+', unless the part is the '+' key itself ("ctrl++"). */
        const char *start = p;
        const char *end = (*p == '+') ? p + 1 : strchr(p, '+');
        if (!end)
            end = p + strlen(p);
        size_t n = (size_t)(end - start);
        while (n > 0 && start[n - 1] == ' ')
            n--;
        char name[32];
        if (n == 0 || n >= sizeof name)
            return wa_fail(WA_E_INVALID_ARGS, "bad key combination '%s'", text);
        normalise_key(start, n, name, sizeof name);
        unsigned short vk = lookup_key(name);
        if (!vk)
            return wa_fail(WA_E_INVALID_ARGS,
                           "unknown key '%.*s' in '%s' (use names like ctrl, shift, alt, win, "
                           "enter, esc, tab, f5, pagedown, a, 1)",
                           (int)n, start, text);
        if (out->count >= WA_MAX_COMBO_KEYS)
            return wa_fail(WA_E_INVALID_ARGS, "too many keys in '%s'", text);
        out->vk[out->count++] = vk;
        p = end;
        if (*p == '+')
            p++;
        while (*p == ' ')
            p++;
    }
    /* Modifiers go down first whatever order they were written in ("s+ctrl"). */
    int m = 0;
    struct wa_key_combo sorted = {.count = out->count};
    for (int i = 0; i < out->count; i++)
        if (is_modifier(out->vk[i]))
            sorted.vk[m++] = out->vk[i];
    for (int i = 0; i < out->count; i++)
        if (!is_modifier(out->vk[i]))
            sorted.vk[m++] = out->vk[i];
    *out = sorted;
    return WA_E_OK;
}

wa_err keys_parse_sequence(const char *text, struct wa_key_combo *out, size_t max, size_t *n)
{
    *n = 0;
    if (!text)
        return wa_fail(WA_E_INVALID_ARGS, "no keys given");
    /* One chord whose names contain spaces ("page down", "Ctrl + Shift + Esc"). */
    if (max >= 1 && keys_parse_combo(text, &out[0]) == WA_E_OK) {
        *n = 1;
        return WA_E_OK;
    }
    /* Spaces next to '+' belong to the chord ("ctrl + s"); then spaces and commas
     * separate chords. The space and comma keys are written by name. */
    char buf[512];
    size_t len = 0;
    for (const char *p = text; *p; p++) {
        if (*p == ' ') {
            const char *q = p;
            while (*q == ' ')
                q++;
            bool before_plus = *q == '+';
            bool after_plus = len > 0 && buf[len - 1] == '+';
            if (before_plus || after_plus) {
                p = q - 1;
                continue;
            }
        }
        if (len + 1 >= sizeof buf)
            return wa_fail(WA_E_INVALID_ARGS, "key sequence too long");
        buf[len++] = *p;
    }
    buf[len] = '\0';
    for (char *p = buf; *p;) {
        while (*p == ' ' || *p == ',')
            p++;
        if (!*p)
            break;
        char *end = p;
        while (*end && *end != ' ' && *end != ',')
            end++;
        char saved = *end;
        *end = '\0';
        if (*n >= max)
            return wa_fail(WA_E_INVALID_ARGS, "too many key chords in '%s'", text);
        wa_err e = keys_parse_combo(p, &out[*n]);
        if (e)
            return e;
        (*n)++;
        *end = saved;
        p = end;
    }
    if (*n == 0)
        return wa_fail(WA_E_INVALID_ARGS, "no keys given");
    return WA_E_OK;
}

const char *keys_vk_name(unsigned short vk)
{
    static _Thread_local char buf[8];
    switch (vk) {
    case 0x10:
        return "Shift";
    case 0x11:
        return "Ctrl";
    case 0x12:
        return "Alt";
    case 0x5B:
        return "Win";
    case 0x0D:
        return "Enter";
    case 0x1B:
        return "Esc";
    case 0x09:
        return "Tab";
    case 0x20:
        return "Space";
    case 0x08:
        return "Backspace";
    case 0x2E:
        return "Delete";
    default:
        break;
    }
    if ((vk >= 'A' && vk <= 'Z') || (vk >= '0' && vk <= '9')) {
        buf[0] = (char)vk;
        buf[1] = '\0';
        return buf;
    }
    if (vk >= 0x70 && vk <= 0x87) {
        snprintf(buf, sizeof buf, "F%d", vk - 0x70 + 1);
        return buf;
    }
    for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++)
        if (key_names[i].vk == vk)
            return key_names[i].name;
    snprintf(buf, sizeof buf, "0x%02X", vk);
    return buf;
}
