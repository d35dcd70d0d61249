/* Tool calls written as text (UI-TARS's Action: grammar of 1.0 and 1.5, Hermes, Qwen3-Coder,
 * bare JSON): textcalls_parse, then every call's coordinates moved to 0-999 as the loop
 * moves them, over an image whose size the input gives. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "llm/textcalls.h"
#include "tests/fuzz/harness.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_setup();
    return 0;
}

/* The first four bytes: the coordinates' space and the image's width and height (a byte
 * each, scaled, 0 among them: no image); the rest is the reply's text. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    static const enum llm_coords spaces[] = {LLM_COORDS_PIXELS, LLM_COORDS_NORM_1000,
                                             LLM_COORDS_FRAME_999};
    enum llm_coords coords = spaces[data[0] % 3];
    int w = data[1] * 37 + data[0] / 3, h = data[2] * 29 + data[3];
    char *text = fuzz_text(data + 4, size - 4);
    if (!text)
        return 0;
    struct llm_ids ids;
    asm_ids_init(&ids, 1);
    struct textcalls t;
    textcalls_init(&t);
    unsigned mask = LLM_TEXT_FUNCTION_FORMATS | LLM_TEXT_UITARS;
    if (textcalls_parse(text, mask, coords, &ids, &t) == WA_E_OK) {
        for (size_t i = 0; i < t.n_calls; i++) {
            struct llm_tool_call *c = &t.calls[i];
            if (!c->id || !c->id[0] || !c->name)
                __builtin_trap();
            c->parsed = llm_parse_arguments(c->arguments); /* as llm/client.c does */
            cJSON *moved = NULL;
            if (textcalls_args_to_999(c, w, h, &moved) == WA_E_OK) {
                const cJSON *x = cJSON_GetObjectItemCaseSensitive(moved, "x");
                if (t.format == LLM_TEXT_UITARS && coords != LLM_COORDS_FRAME_999 &&
                    cJSON_IsNumber(x) && (x->valuedouble < 0 || x->valuedouble > 999))
                    __builtin_trap(); /* a grounding model's point always lands in 0-999 */
            }
            cJSON_Delete(moved);
            cJSON_Delete(c->parsed);
            c->parsed = NULL;
        }
    }
    int rw, rh;
    textcalls_smart_resize(w, h, &rw, &rh);
    if (rw < 28 || rh < 28 || rw % 28 || rh % 28)
        __builtin_trap();
    textcalls_cleanup(&t);
    free(text);
    return 0;
}
