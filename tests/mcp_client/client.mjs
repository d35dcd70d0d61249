// An MCP client we did not write (the official TypeScript SDK) driving `winagent mcp` under Wine.
//
//   node client.mjs                  WINAGENT_EXE, WINDOW (default "winagent testapp")
//
// Runs the scenario below with node:assert and prints one JSON line with what it saw
// (tools, the OK button's ref, image facts) for tests/wine/test_mcp.py, which also checks
// testapp's own event log. Exit code 0 only when every assertion held.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const exe = process.env.WINAGENT_EXE;
const window = process.env.WINDOW || "winagent testapp";
const extraArgs = process.env.WINAGENT_ARGS ? JSON.parse(process.env.WINAGENT_ARGS) : [];
assert.ok(exe, "WINAGENT_EXE is not set");

const transport = new StdioClientTransport({
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
await client.close();
console.log(JSON.stringify(facts));
