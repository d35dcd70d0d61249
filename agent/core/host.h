/* The desktop backend and core of this process, shared by whichever front end or run
 * the command line started. */
#ifndef WINAGENT_AGENT_CORE_HOST_H
#define WINAGENT_AGENT_CORE_HOST_H

#include <stdbool.h>

#include "agent/core/core.h"
#include "automation/backend.h"

/* The backend of this executable, initialised on first use; NULL after printing the
 * error when it cannot start. */
const struct wa_backend *host_backend(void);
/* Shuts the backend down if host_backend started it (lets its workers finish). */
void host_shutdown(void);

/* A core from the resolved settings (the backend started first); prints the error
 * and returns NULL when it cannot be had. loop: the run's shell policy (--shell),
 * else --allow-shell. */
struct core *host_core(const struct settings *s, bool loop);

#endif
