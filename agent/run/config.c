/* The run's configuration: what it owns. */
#include "agent/run/config.h"

#include <stdlib.h>
#include <string.h>

void config_cleanup(struct agent_config *c)
{
    free(c->prompt);
    free(c->replay);
    settings_cleanup(&c->settings);
    memset(c, 0, sizeof *c);
}
