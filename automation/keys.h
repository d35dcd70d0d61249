/* Key combinations from human names ("ctrl+shift+esc", "alt+f4", "win+r", "enter")
 * to Windows virtual-key codes; portable, so parsing is unit-tested natively. */
#ifndef WINAGENT_AUTOMATION_KEYS_H
#define WINAGENT_AUTOMATION_KEYS_H

#include <stddef.h>

#include "base/wa_err.h"

#define WA_MAX_COMBO_KEYS 8

/* One chord: keys pressed in order and released in reverse (modifiers come first). */
struct wa_key_combo {
    unsigned short vk[WA_MAX_COMBO_KEYS];
    int count;
};

/* Parses one chord such as "ctrl+s", "Ctrl + Shift + Esc", "alt+f4", "win+r",
 * "pagedown", "a", "5", "f11". Case-insensitive; common synonyms accepted
 * (escape/esc, return/enter, del/delete, control/ctrl, cmd/super/meta/win, pgup...).
 * WA_E_INVALID_ARGS names the unknown key. */
wa_err keys_parse_combo(const char *text, struct wa_key_combo *out);

/* Parses a sequence of chords separated by spaces or commas ("ctrl+a delete",
 * "tab, tab, enter", "ctrl + s"); the space and comma keys are written by name. */
wa_err keys_parse_sequence(const char *text, struct wa_key_combo *out, size_t max, size_t *n);

/* A readable name for a virtual-key code ("Ctrl", "F5", "A"); never NULL. */
const char *keys_vk_name(unsigned short vk);

/* Virtual-key codes used outside the parser. */
enum {
    WA_VK_BACK = 0x08,
    WA_VK_TAB = 0x09,
    WA_VK_RETURN = 0x0D,
    WA_VK_SHIFT = 0x10,
    WA_VK_CONTROL = 0x11,
    WA_VK_MENU = 0x12, /* Alt */
    WA_VK_ESCAPE = 0x1B,
    WA_VK_SPACE = 0x20,
    WA_VK_DELETE = 0x2E,
    WA_VK_LWIN = 0x5B,
};

#endif
