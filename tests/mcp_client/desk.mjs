// The person at the desk through MCP, with the official TypeScript SDK as the client.
//
//   MODE=elicit node desk.mjs     a client that declares elicitation answers ask-user's
//                                 question (ANSWER); one that does not gets answered: false
//   MODE=takeover node desk.mjs   click the OK button of WINDOW at once (the test has a
//                                 person move the mouse meanwhile), then every half second
//                                 until a click goes through
//
// COMMAND (JSON array) starts the server: ["wine", "winagent.exe", "mcp"] or the native
// winagent. Prints one JSON line with what it saw; exit code 0 only when every assertion
// held.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [command, ...args] = JSON.parse(process.env.COMMAND);
const mode = process.env.MODE;
const window = process.env.WINDOW || "winagent testapp";

async function connect(elicit) {
  const transport = new StdioClientTransport({
    command, args, env: { ...process.env }, stderr: "inherit",
  });
  const client = new Client({ name: "winagent-desk-test", version: "1.0.0" },
                            { capabilities: elicit ? { elicitation: {} } : {} });
  await client.connect(transport);
  return client;
}

const texts = (res) => res.content.filter((c) => c.type === "text").map((c) => c.text);
const resultJson = (res) => JSON.parse(texts(res)[0]);
const facts = {};

if (mode === "elicit") {
  const asked = [];
  const client = await connect(true);
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params);
    return { action: "accept", content: { answer: process.env.ANSWER } };
  });
  const tools = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(tools.includes("ask-user"), tools.join());
  const res = await client.callTool({ name: "ask-user",
                                      arguments: { question: "Which report should I open?" } });
  assert.equal(res.isError, false, JSON.stringify(res));
  facts.answer = resultJson(res).data;
  facts.asked = asked;
  assert.equal(asked.length, 1);
  assert.equal(asked[0].message, "Which report should I open?");
  assert.equal(asked[0].requestedSchema.properties.answer.type, "string");
  assert.deepEqual(facts.answer, { answer: process.env.ANSWER, answered: true });
  // declined: no answer, said so
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "decline" }));
  const no = resultJson(await client.callTool({ name: "ask-user", arguments: { question: "Sure?" } }));
  assert.equal(no.data.answered, false);
  assert.match(no.notes.join(" "), /declined/);
  await client.close();
  // a client without elicitation: nobody to ask, at once
  const plain = await connect(false);
  const t0 = Date.now();
  const none = resultJson(await plain.callTool({ name: "ask-user",
                                                arguments: { question: "Anyone?" } }));
  facts.plain = { data: none.data, notes: none.notes, ms: Date.now() - t0 };
  assert.equal(none.data.answered, false);
  assert.match(none.notes.join(" "), /no person is available/);
  await plain.close();
} else if (mode === "takeover") {
  const client = await connect(false);
  const state = await client.callTool({ name: "state", arguments: { window } });
  const ref = texts(state).join("\n").match(/\[(\d+)\] Button "OK"/)[1];
  const click = async () => resultJson(await client.callTool({
    name: "click", arguments: { window, ref, screenshot: false } }));
  const first = await click();
  facts.first = { at: Date.now(), success: first.success, error: first.error };
  assert.equal(first.success, false, JSON.stringify(first));
  assert.equal(first.error.code, "user_active");
  const refused = [first.error.code];
  for (let i = 0; i < 60; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const r = await click();
    if (r.success) {
      facts.through = { at: Date.now() };
      break;
    }
    refused.push(r.error.code);
  }
  facts.refused = refused;
  assert.ok(facts.through, "no click went through");
  await client.close();
} else {
  throw new Error(`MODE must be elicit or takeover, not ${mode}`);
}
console.log(JSON.stringify(facts));
