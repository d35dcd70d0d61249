/* `winagent serve`: the desktop core for remote controllers, over loopback TCP (one
 * JSON request per line, token required, several clients at once) or a shared folder
 * (the file protocol used over RDP drive redirection: requests/req_<id>.json ->
 * responses/res_<id>.json). */
#ifndef WINAGENT_AGENT_FRONT_SERVE_H
#define WINAGENT_AGENT_FRONT_SERVE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "agent/core/core.h"

/* `winagent serve (--port N | --ipc-dir DIR) [--allow-shell] [--dry-run]
 * [--audit-log FILE]`. Runs until Ctrl+C, or until DIR disappears. */
int cmd_serve(int argc, char **argv);

/* One request, {"id":..., "command":..., "params":{...}[, "token":...]}, as text (a
 * leading UTF-8 BOM is fine), performed on session ses. When token is not NULL the
 * request must carry it, else nothing runs and the error is "denied". Returns the one
 * result shape with "id" and "timestamp" added, "data" null on failure and "error"
 * null on success (a new object); an image's PNG is data.image.data (base64).
 * fallback_id answers requests whose own id is missing or unreadable. */
cJSON *serve_handle(struct session *ses, const char *text, size_t len, const char *token,
                    const char *fallback_id);

/* The folder transport, one poll at a time (for cmd_serve and tests). */
struct serve_ipc;

/* Creates DIR/requests and DIR/responses, refuses a DIR other users can write
 * (WA_E_DENIED: whoever can put a request there runs commands as this user), makes a new
 * token and writes DIR/handshake.json. The token's file, for a controller that cannot
 * read the server's first line, lies in this user's state folder (core_state_dir), never
 * in the folder it guards: a folder whose permissions cannot be read may be one others
 * read. A request file that does not parse yet is taken as half-written and retried;
 * once it has stayed unchanged for grace_ms it is answered with a parse_error. Only
 * regular files are read (a link is refused). */
wa_err serve_ipc_open(struct session *ses, const char *dir, int grace_ms, struct serve_ipc **out);
/* The folder's token; *required when every request must carry it (the folder's
 * permissions could not be read), else a request may go without it. */
const char *serve_ipc_token(const struct serve_ipc *s, bool *required);
/* The token's file ("" when none was written: the state folder lies inside DIR). */
const char *serve_ipc_token_file(const struct serve_ipc *s);
/* Answers every complete request in name order and deletes it. *gone is set when DIR
 * no longer exists (the controller went away). */
wa_err serve_ipc_poll(struct serve_ipc *s, bool *gone);
/* Marks the handshake not ready (when DIR still exists) and frees. NULL is fine. */
void serve_ipc_close(struct serve_ipc *s);

#endif
