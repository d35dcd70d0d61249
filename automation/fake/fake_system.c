/* The fake desktop's machine facts (`winagent doctor`), read from the scene. */
#include "automation/fake/fake_system.h"

#include <stdio.h>
#include <string.h>

#include "automation/fake/fake_scene.h"
#include "base/str.h"

static void copy_text(char *out, size_t cap, const char *text)
{
    if (text)
        snprintf(out, cap, "%s", text);
}

/* A number, or a boolean as 1/0, or -1 when absent. */
static int scene_int(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valueint : cJSON_IsBool(v) ? cJSON_IsTrue(v) : -1;
}

static long integrity_rid(const char *level)
{
    static const struct {
        const char *name;
        long rid;
    } levels[] = {{"low", 0x1000}, {"medium", 0x2000}, {"high", 0x3000}, {"system", 0x4000}};
    for (size_t i = 0; level && i < sizeof levels / sizeof levels[0]; i++)
        if (str_ieq(level, levels[i].name))
            return levels[i].rid;
    return 0x2000;
}

static enum wa_dpi_awareness awareness(const char *name)
{
    static const char *const names[] = {"", "unaware", "system", "per_monitor", "per_monitor_v2"};
    for (int i = 1; name && i < (int)(sizeof names / sizeof names[0]); i++)
        if (str_ieq(name, names[i]))
            return (enum wa_dpi_awareness)i;
    return WA_DPI_UNKNOWN;
}

wa_err fake_system_info(struct wa_system_info *out)
{
    const cJSON *scene = fake_scene_state.scene;
    const cJSON *sys = cJSON_GetObjectItemCaseSensitive(scene, "system");
    copy_text(out->os_name, sizeof out->os_name, fake_scene_json_str(sys, "product"));
    copy_text(out->os_release, sizeof out->os_release, fake_scene_json_str(sys, "release"));
    copy_text(out->wine, sizeof out->wine, fake_scene_json_str(sys, "wine"));
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(sys, "version");
    int *parts[] = {&out->os_major, &out->os_minor, &out->os_build, &out->os_revision};
    for (int i = 0; i < 4 && cJSON_IsArray(ver); i++) {
        const cJSON *p = cJSON_GetArrayItem(ver, i);
        if (cJSON_IsNumber(p))
            *parts[i] = p->valueint;
    }
    out->session = scene_int(sys, "session");
    out->console_session = scene_int(sys, "console_session");
    out->remote = scene_int(sys, "remote");
    copy_text(out->input_desktop, sizeof out->input_desktop,
              cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(scene, "secure_desktop")) ? "Winlogon"
                                                                                      : "Default");
    out->integrity = integrity_rid(fake_scene_json_str(scene, "winagent_integrity"));
    out->elevated = scene_int(sys, "elevated");
    out->uiaccess = scene_int(sys, "uiaccess");
    out->dpi_awareness = awareness(fake_scene_json_str(sys, "dpi_awareness"));
    const cJSON *uac = cJSON_GetObjectItemCaseSensitive(sys, "uac");
    out->uac_enabled = scene_int(uac, "EnableLUA");
    out->consent_prompt_admin = scene_int(uac, "ConsentPromptBehaviorAdmin");
    out->prompt_on_secure_desktop = scene_int(uac, "PromptOnSecureDesktop");
    const cJSON *uia = cJSON_GetObjectItemCaseSensitive(sys, "uia");
    if (cJSON_IsBool(uia)) {
        out->uia = cJSON_IsTrue(uia);
        copy_text(out->uia_detail, sizeof out->uia_detail,
                  out->uia ? "the scene's UI Automation answers" : "the scene has none");
    } else if (cJSON_IsString(uia)) {
        out->uia = 0;
        copy_text(out->uia_detail, sizeof out->uia_detail, uia->valuestring);
    }
    fake_scene_record("system_info", NULL);
    return WA_E_OK;
}
