// An MCP client we did not write (the official TypeScript SDK) driving `winagent mcp` under Wine.
//
//   node client.mjs                  WINAGENT_EXE, WINDOW (default "winagent testapp")
//   MCP_URL=http://127.0.0.1:P/mcp MCP_TOKEN=... node client.mjs
//                                    the same over Streamable HTTP to a running server
//
// Runs the scenario below with node:assert and prints one JSON line with what it saw
// (tools, the OK button's ref, image facts) for tests/wine/test_mcp.py, which also checks
// testapp's own event log. Exit code 0 only when every assertion held.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const exe = process.env.WINAGENT_EXE;
const window = process.env.WINDOW || "winagent testapp";
const extraArgs = process.env.WINAGENT_ARGS ? JSON.parse(process.env.WINAGENT_ARGS) : [];
const url = process.env.MCP_URL;
assert.ok(exe || url, "WINAGENT_EXE or MCP_URL must be set");

const transport = url
  ? new StreamableHTTPClientTransport(new URL(url), {
      requestInit: process.env.MCP_TOKEN
        ? { headers: { Authorization: `Bearer ${process.env.MCP_TOKEN}` } }
        : {},
    })
  : new StdioClientTransport({
      command: "wine",
      args: [exe, "mcp", ...extraArgs],
      env: { ...process.env }, // Wine needs DISPLAY and WINEPREFIX, which the default drops
      stderr: "inherit",
    });
const client = new Client({ name: "winagent-test-client", version: "1.0.0" });
await client.connect(transport); // initialize + notifications/initialized

const facts = {};
facts.server = client.getServerVersion();
assert.equal(facts.server.name, "winagent");
assert.ok(client.getServerCapabilities().tools, "no tools capability");

// ---- tools/list ----
const { tools } = await client.listTools();
const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
facts.tools = tools.map((t) => t.name);
for (const name of ["windows", "state", "screenshot", "click", "type", "keys", "scroll", "drag",
                    "fill", "invoke", "toggle", "expand", "select", "focus", "launch", "close",
                    "wait", "find"]) {
  assert.ok(byName[name], `tool ${name} missing`);
  assert.equal(byName[name].inputSchema.type, "object");
}
assert.ok(!byName.powershell, "powershell listed without --allow-shell");
assert.equal(byName.state.annotations.readOnlyHint, true);
assert.equal(byName.screenshot.annotations.readOnlyHint, true);
assert.equal(byName.click.annotations.readOnlyHint, false);
assert.equal(byName.click.annotations.destructiveHint, false);
assert.equal(byName.close.annotations.destructiveHint, true);
assert.ok(byName.click.inputSchema.required.includes("ref"));
assert.ok(byName.click.inputSchema.properties.window);
assert.equal(byName.click.inputSchema.properties.screenshot.type, "boolean");

const texts = (res) => res.content.filter((c) => c.type === "text").map((c) => c.text);
const images = (res) => res.content.filter((c) => c.type === "image");
const resultJson = (res) => JSON.parse(texts(res)[0]);

// ---- state ----
const state = await client.callTool({ name: "state", arguments: { window } });
assert.equal(state.isError, false, JSON.stringify(state));
const tree = texts(state).join("\n");
assert.match(tree, /Button "OK"/);
const okRef = tree.match(/\[(\d+)\] Button "OK"/)[1];
facts.ok_ref = okRef;

// ---- screenshot: an image item, a real PNG, and the mapping to the screen ----
const shot = await client.callTool({ name: "screenshot", arguments: { window } });
assert.equal(shot.isError, false, JSON.stringify(shot));
const [img] = images(shot);
assert.ok(img, "screenshot returned no image item");
assert.equal(img.mimeType, "image/png");
const png = Buffer.from(img.data, "base64");
assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const meta = resultJson(shot).data.image;
assert.equal(typeof meta.scale, "number");
assert.ok(meta.scale > 0 && meta.scale <= 1);
assert.equal(meta.origin.length, 2);
assert.equal(png.readUInt32BE(16), meta.width);
assert.equal(png.readUInt32BE(20), meta.height);
facts.screenshot = { bytes: png.length, width: meta.width, height: meta.height,
                     scale: meta.scale, origin: meta.origin };

// ---- click the OK button by its ref: window_state and a post-action image ----
const click = await client.callTool({ name: "click", arguments: { window, ref: okRef } });
assert.equal(click.isError, false, JSON.stringify(click));
const clicked = resultJson(click);
assert.equal(clicked.success, true);
assert.ok(clicked.window_state && clicked.window_state.hwnd, "no window_state");
assert.equal(images(click).length, 1, "no post-action image");
facts.click = { element: clicked.data.element, window_state: clicked.window_state };

// ---- errors are results, not a dead server ----
const bogus = await client.callTool({ name: "click", arguments: { window, ref: "e9999" } });
assert.equal(bogus.isError, true);
assert.match(texts(bogus)[0], /stale_ref|element_not_found/);
facts.bogus_error = resultJson(bogus).error;

let unknown = null;
try {
  await client.callTool({ name: "teleport", arguments: {} });
} catch (err) {
  unknown = err;
}
assert.ok(unknown, "an unknown tool did not fail");
assert.equal(unknown.code, -32602);

await client.ping(); // still alive after all that

// ---- resources and their templates, completion, prompts ----
const { resources } = await client.listResources();
assert.ok(resources.some((r) => r.uri === "winagent://windows"), JSON.stringify(resources));
const listed = JSON.parse((await client.readResource({ uri: "winagent://windows" })).contents[0].text);
assert.ok(listed.windows.some((w) => w.title === window), JSON.stringify(listed));
const { resourceTemplates } = await client.listResourceTemplates();
const uris = resourceTemplates.map((t) => t.uriTemplate);
assert.ok(uris.includes("winagent://window/{window}/tree"), uris.join());
assert.ok(uris.includes("winagent://window/{window}/screenshot"), uris.join());
const enc = encodeURIComponent(window);
const treeRes = await client.readResource({ uri: `winagent://window/${enc}/tree` });
assert.match(treeRes.contents[0].text, /Button "OK"/);
const shotRes = await client.readResource({ uri: `winagent://window/${enc}/screenshot` });
assert.equal(shotRes.contents[0].mimeType, "image/png");
const blob = Buffer.from(shotRes.contents[0].blob, "base64");
assert.equal(blob.readUInt32BE(0), 0x89504e47);
let missing = null;
try {
  await client.readResource({ uri: "winagent://window/no%20such%20window/tree" });
} catch (err) {
  missing = err;
}
assert.equal(missing && missing.code, -32002);
const comp = await client.complete({
  ref: { type: "ref/resource", uri: "winagent://window/{window}/tree" },
  argument: { name: "window", value: "TESTAPP" },
});
assert.ok(comp.completion.values.includes(window), JSON.stringify(comp));
const { prompts } = await client.listPrompts();
assert.ok(prompts.some((p) => p.name === "desktop-task"));
const prompt = await client.getPrompt({ name: "desktop-task", arguments: { task: "click OK" } });
assert.match(prompt.messages[0].content.text, /click OK/);
facts.resources = { templates: uris, png_bytes: blob.length, completions: comp.completion.values };

// ---- logging: the level is the client's ----
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
await client.setLoggingLevel("info");
await client.callTool({ name: "windows", arguments: {} });
for (let i = 0; i < 50 && !logs.some((l) => /windows: ok/.test(l.data)); i++)
  await new Promise((r) => setTimeout(r, 100));
assert.ok(logs.some((l) => l.level === "info" && /windows: ok/.test(l.data)), JSON.stringify(logs));
await client.setLoggingLevel("error");
facts.logs = logs.length;

// ---- progress of a long call, and its structured result ----
const ticks = [];
const waited = await client.callTool({ name: "wait", arguments: { seconds: 2.5 } }, undefined, {
  onprogress: (p) => ticks.push(p),
});
assert.equal(waited.isError, false);
assert.equal(waited.structuredContent.op, "wait");
assert.ok(ticks.length >= 3, JSON.stringify(ticks)); // start, about once a second, end
for (let i = 1; i < ticks.length; i++) assert.ok(ticks[i].progress > ticks[i - 1].progress);
facts.progress = ticks.map((t) => t.progress);

// ---- cancellation stops the call on the server ----
const ac = new AbortController();
const t0 = Date.now();
const pending = client.callTool({ name: "wait", arguments: { seconds: 25 } }, undefined, {
  signal: ac.signal,
});
setTimeout(() => ac.abort("enough"), 1000);
await assert.rejects(pending);
// calls of one session are served in turn: this one is answered at once only when the
// cancelled wait really stopped
const t1 = Date.now();
await client.callTool({ name: "windows", arguments: {} });
facts.cancel = { aborted_after_ms: t1 - t0, next_call_ms: Date.now() - t1 };
assert.ok(facts.cancel.next_call_ms < 8000, JSON.stringify(facts.cancel));

facts.session = transport.sessionId || null;
await client.close();
console.log(JSON.stringify(facts));
