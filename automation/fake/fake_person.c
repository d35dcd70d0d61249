/* The scripted person of the fake desk: their input comes when its event is due (after
 * winagent's Nth foreground input, or at a time after the scene was loaded), typing into
 * the focused control of the window in front, and is recorded as {"op": "person"}; the
 * stop gesture calls the watcher back, recorded as {"op": "stop_gesture"}. Events are
 * looked at after every foreground input and whenever the core asks about the person. */
#include "automation/fake/fake_person.h"

#include <cjson/cJSON.h>

#include "automation/fake/fake_input.h"
#include "automation/fake/fake_scene.h"
#include "base/os.h"

#define PERSON_FOR_MS 500 /* how long a scripted person's input lasts by default */

static struct {
    void (*on_stop)(void *ctx);
    void *ctx;
    /* The scene the person's input belongs to, and when their latest input ends (0: none
     * yet); a newly loaded scene starts without a person. */
    const cJSON *scene;
    int64_t until_ms;
    bool keyboard;
} person;

/* When event ev is due (os_now_ms), or -1: {"after_inputs": N} once winagent sent N
 * foreground inputs (now), {"at_ms": T} T ms after the scene was loaded; never once it
 * came ("_done"). */
static int64_t due(const cJSON *ev)
{
    if (!cJSON_IsObject(ev) || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ev, "_done")))
        return -1;
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(ev, "after_inputs");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(ev, "at_ms");
    int64_t at = cJSON_IsNumber(t) ? fake_scene_state.loaded_ms + (int64_t)t->valuedouble : -1;
    if (cJSON_IsNumber(n) && fake_scene_state.inputs >= n->valueint)
        return os_now_ms();
    return at >= 0 && os_now_ms() >= at ? at : -1;
}

/* The person uses the desktop from `from`, for "for_ms": "type" goes into the focused
 * control of the window in front ("keyboard": false, or no "type": the mouse only). */
static void person_acts(cJSON *ev, int64_t from)
{
    cJSON_AddBoolToObject(ev, "_done", true);
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(ev, "for_ms");
    const char *text = fake_scene_json_str(ev, "type");
    const cJSON *kb = cJSON_GetObjectItemCaseSensitive(ev, "keyboard");
    int64_t end = from + (cJSON_IsNumber(ms) ? (int64_t)ms->valuedouble : PERSON_FOR_MS);
    if (end > person.until_ms)
        person.until_ms = end;
    person.keyboard = cJSON_IsBool(kb) ? cJSON_IsTrue(kb) : text != NULL;
    cJSON *f = cJSON_CreateObject();
    if (text) {
        cJSON *win = fake_scene_foreground_window();
        cJSON *node =
            win ? fake_input_focused_node(cJSON_GetObjectItemCaseSensitive(win, "tree")) : NULL;
        if (node)
            fake_input_type_into(node, text);
        cJSON_AddStringToObject(f, "text", text);
    }
    cJSON_AddNumberToObject(f, "for_ms", (double)(end - from));
    fake_scene_record("person", f);
}

/* Whatever of the script is due now. */
static void tick(void)
{
    if (person.scene != fake_scene_state.scene) {
        person.scene = fake_scene_state.scene;
        person.until_ms = 0;
    }
    cJSON *ev;
    cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "person"))
    {
        int64_t at = due(ev);
        if (at >= 0)
            person_acts(ev, at);
    }
    cJSON *stop = cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "stop_gesture");
    if (person.on_stop && due(stop) >= 0) {
        cJSON_AddBoolToObject(stop, "_done", true);
        fake_scene_record("stop_gesture", NULL);
        person.on_stop(person.ctx);
    }
}

wa_err fake_person_watch(void (*on_stop)(void *ctx), void *ctx)
{
    if (!person.on_stop) {
        person.on_stop = on_stop;
        person.ctx = ctx;
    }
    fake_scene_input_hook = tick;
    tick();
    return WA_E_OK;
}

wa_err fake_person_idle(int64_t *idle_ms, bool *keyboard)
{
    fake_scene_input_hook = tick;
    tick();
    int64_t now = os_now_ms();
    *idle_ms = !person.until_ms ? INT64_MAX : now >= person.until_ms ? now - person.until_ms : 0;
    *keyboard = person.keyboard;
    return WA_E_OK;
}
