/* `winagent mcp`: the MCP server on stdio, or over Streamable HTTP with --http. */
#ifndef WINAGENT_AGENT_MCP_MCP_STDIO_H
#define WINAGENT_AGENT_MCP_MCP_STDIO_H

/* `winagent mcp [--http [ADDR:]PORT [--no-auth]] [--allow-shell] [--dry-run]
 * [--audit-log FILE]`; 0 when stdin ends (stdio) or on Ctrl+C (HTTP). */
int cmd_mcp(int argc, char **argv);

#endif
