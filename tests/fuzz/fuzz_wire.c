/* JSON -> typed request (agent/front/wire.c and the setters of agent/core/request/request.c).
 * data[0] picks whose names: even, the model's (the desktop tool's "action", or the
 * shell when data[0] % 4 == 2); odd, the CLI's, for operation data[0] / 2 of the table
 * (MCP tools, serve commands). The rest is the arguments' JSON text. */
#include <stdlib.h>

#include "agent/core/request/ops.h"
#include "agent/core/request/wire.h"
#include "tests/fuzz/harness.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_setup();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char *json = fuzz_text(data + 1, size - 1);
    if (!json)
        return 0;
    enum wire_names names = data[0] & 1 ? WIRE_CLI : WIRE_MODEL;
    const struct op_def *op = NULL;
    if (names == WIRE_CLI)
        op = op_def((enum op_id)((data[0] / 2) % OP__COUNT));
    else if (data[0] % 4 == 2)
        op = op_def(OP_SHELL);
    struct op_request q;
    wire_request_text(json, names, op, &q);
    op_request_cleanup(&q);
    free(json);
    return 0;
}
