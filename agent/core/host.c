/* The process's backend, started once, and cores made from the resolved settings. */
#include "agent/core/host.h"

#include <stddef.h>

#include "agent/core/request/exit.h"

static const struct wa_backend *started; /* set once host_backend succeeded */

const struct wa_backend *host_backend(void)
{
    static bool tried;
    if (!tried) {
        tried = true;
        const struct wa_backend *cand = backend_default();
        wa_err e = cand && cand->init ? cand->init() : WA_E_OK;
        if (e)
            exit_fail(e);
        else
            started = cand;
    }
    return started;
}

void host_shutdown(void)
{
    if (started && started->shutdown)
        started->shutdown();
    started = NULL;
}

struct core *host_core(const struct settings *s, bool loop)
{
    struct core_config cfg;
    wa_err e = core_config_from_settings(s, loop, &cfg);
    if (e) {
        exit_fail(e);
        return NULL;
    }
    if (!(cfg.be = host_backend()))
        return NULL;
    struct core *c;
    if ((e = core_new(&cfg, &c))) {
        exit_fail(e);
        return NULL;
    }
    return c;
}
