/* agent-rdp's automation commands, as its daemon writes them into `serve --ipc-dir`'s
 * folder: snapshot, get, focus, click, right_click, double_click, fill, clear, select,
 * check, scroll, window, run, wait_for, status, invoke, toggle, expand, collapse,
 * context_menu. Each becomes requests to the one core (the gate covers them);
 * selectors are agent-rdp's: @eN / @N refs of the latest snapshot, #AutomationId,
 * .ClassName, ~wildcard name, role:Type[name], or an exact name, all but refs searched
 * across every top-level window. Errors use agent-rdp's codes: element_not_found,
 * stale_ref, command_failed, timeout, unknown. */
#ifndef WINAGENT_AGENT_FRONT_RDP_H
#define WINAGENT_AGENT_FRONT_RDP_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "agent/core/core.h"

struct rdp;

/* State of one folder (the refs of its latest snapshot) on session ses (refs on). */
wa_err rdp_new(struct session *ses, struct rdp **out);
void rdp_free(struct rdp *r);

/* agent-rdp's command names, NULL-terminated (the handshake's capabilities): the
 * operation table's rdp column and agent-rdp's own commands. */
const char *const *rdp_commands(void);
bool rdp_is_command(const char *command);

/* Performs one command; {"success", "data", "error": {"code","message"} | null} (a new
 * object; the transport adds "id" and "timestamp"). */
cJSON *rdp_handle(struct rdp *r, const char *command, const cJSON *params);

#endif
