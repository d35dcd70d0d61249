"""What the real model services refuse, for the fake LLM server: one small function per
documented rule, each run on every model request before it takes a step.

A rule takes the request (`Request`: provider, body, headers, query, model) and the
server's `Memory` (what this server answered before: the ids, signatures and encrypted
reasoning it issued, which later requests must give back as the real services want them)
and returns a list of `Refusal`s: the HTTP status and the message the real service
answers with. `RULES` lists them per provider, with where each comes from; `refusals()`
runs them. Standard library only.

Sources: the vendors' API references and guides (Gemini: function calling, thought
signatures, API keys; OpenAI: Chat Completions (../specs/openai-chat-completions.schema.json,
from openai/openai-openapi), Responses and reasoning; Anthropic: Messages, the computer use
tool page), and the error messages their users report (see ../../docs/conformance.md).
"""

import base64
import collections
import json
import os
import re
import threading

import claude
import validate_schema

Refusal = collections.namedtuple("Refusal", "status message")

HERE = os.path.dirname(os.path.abspath(__file__))
CHAT_SCHEMA = os.path.join(HERE, "specs", "openai-chat-completions.schema.json")


class Request:
    """What a rule reads of one model request; `notes` collects what a rule lets pass but
    the service does silently (thinking blocks dropped, reasoning lost), for the record."""

    def __init__(self, provider, body, headers, query, model, notes=None):
        self.provider = provider
        self.body = body if isinstance(body, dict) else {}
        self.headers = {k.lower(): v for k, v in (headers or {}).items()}
        self.query = query or ""
        self.model = model or ""
        self.notes = notes if notes is not None else {}


class Memory:
    """What this server answered, as the real services keep it: Gemini's thought
    signatures by call, the Responses API's reasoning items (their encrypted content, and
    whether they were stored) and the items that followed them, and stored responses."""

    def __init__(self):
        self.lock = threading.Lock()
        self.signatures = {}       # (name, args as JSON) -> the thoughtSignatures it came
                                   # with (None among them: once without one)
        self.reasoning = {}        # rs id -> {"encrypted": str | None, "stored": bool,
                                   #           "next": id of the item after it | None}
        self.after_reasoning = {}  # item id -> (rs id, item type)
        self.responses = set()     # ids of stored responses
        self.items = set()         # ids of items of stored responses
        self.call_reasoning = {}   # call_id of a function or computer call -> the rs ids
                                   # of the reasoning items issued before it
        self.claude = claude.Issued()  # the thinking blocks issued, and their histories
        self.output_cap = None     # the scenario's model's output-token cap, if it has one
        self.platform = None       # the scenario's cloud platform ("bedrock"), if not the API

    def remember_gemini(self, parts):
        """The function-call parts of a reply sent (with their signatures)."""
        with self.lock:
            for p in parts:
                fc = p.get("functionCall")
                if isinstance(fc, dict):  # None: once issued without a signature
                    self.signatures.setdefault(_call_key(fc), set()).add(p.get("thoughtSignature"))

    def remember_responses(self, response_id, items, store):
        """The output items of a Responses reply sent, under that request's store."""
        with self.lock:
            if store:
                self.responses.add(response_id)
            for i, item in enumerate(items):
                if store and item.get("id"):
                    self.items.add(item["id"])
                if item.get("type") != "reasoning":
                    continue
                nxt = items[i + 1] if i + 1 < len(items) else None
                self.reasoning[item["id"]] = {"encrypted": item.get("encrypted_content"),
                                              "stored": bool(store),
                                              "next": nxt.get("id") if nxt else None}
                if nxt and nxt.get("id"):
                    self.after_reasoning[nxt["id"]] = (item["id"], nxt.get("type"))
                if nxt and nxt.get("call_id"):
                    self.call_reasoning.setdefault(nxt["call_id"], []).append(item["id"])

    def remember_anthropic(self, body, content):
        """The content blocks of a Messages reply sent, for the request body it answered."""
        with self.lock:
            self.claude.remember(body, content)


def encrypted_reasoning(rs_id):
    """The opaque encrypted_content this server gives a reasoning item."""
    return base64.b64encode(("fake-encrypted-reasoning:" + rs_id).encode()).decode()


def _call_key(fc):
    return (fc.get("name"), json.dumps(fc.get("args") or {}, sort_keys=True))


# ------------------------------------------------------------------------- Gemini

GEMINI_UNREGISTERED = ("Method doesn't allow unregistered callers (callers without "
                       "established identity). Please use API Key or other form of API "
                       "consumer identity to call this API.")


def gemini_api_key(req, memory):
    """The key goes in the x-goog-api-key header or the key query parameter (Gemini API
    reference, "API keys"); a bearer token is an OAuth access token, which a key is not."""
    if req.headers.get("x-goog-api-key") or re.search(r"(^|&)key=[^&]", req.query):
        return []
    if req.headers.get("authorization"):
        return [Refusal(401, "Request had invalid authentication credentials. Expected OAuth 2 "
                             "access token, login cookie or other valid authentication "
                             "credential.")]
    return [Refusal(403, GEMINI_UNREGISTERED)]


def _gemini_turns(body):
    contents = body.get("contents")
    return [c for c in contents if isinstance(c, dict)] if isinstance(contents, list) else []


def _parts(content, kind):
    return [p[kind] for p in content.get("parts") or []
            if isinstance(p, dict) and isinstance(p.get(kind), dict)]


def gemini_function_responses(req, memory):
    """The turn after a model turn with function calls holds one function response per
    call, each naming its call (and its id, when the call had one); a function response
    follows a function call turn (Gemini function calling guide)."""
    out = []
    turns = _gemini_turns(req.body)
    for i, turn in enumerate(turns):
        responses = _parts(turn, "functionResponse")
        prev_calls = _parts(turns[i - 1], "functionCall") if i and \
            turns[i - 1].get("role") == "model" else []
        if responses and not prev_calls:
            out.append(Refusal(400, "Please ensure that function response turn comes "
                                    "immediately after a function call turn."))
            continue
        calls = _parts(turn, "functionCall") if turn.get("role") == "model" else []
        if not calls:
            continue
        nxt = turns[i + 1] if i + 1 < len(turns) else None
        if nxt is None:
            continue  # the last turn: the model is asked to go on from its calls
        answers = _parts(nxt, "functionResponse")
        if len(answers) != len(calls):
            out.append(Refusal(400, "Please ensure that the number of function response parts "
                                    "is equal to the number of function call parts of the "
                                    "function call turn."))
            continue
        for j, fr in enumerate(answers):
            if "id" in fr:
                match = [c for c in calls if c.get("id") == fr["id"]]
            else:
                match = [c for c in calls if c.get("name") == fr.get("name")]
            if not match or match[0].get("name") != fr.get("name"):
                out.append(Refusal(400, "contents[%d].parts[%d].function_response: it answers "
                                        "no function call of the turn before (name %r, id %r)"
                                        % (i + 1, j, fr.get("name"), fr.get("id"))))
    return out


def gemini_function_response_shape(req, memory):
    """FunctionResponse: a name, a response that is a JSON object, and parts that are
    inline data (Gemini API reference, FunctionResponse and FunctionResponsePart)."""
    out = []
    for i, turn in enumerate(_gemini_turns(req.body)):
        for j, fr in enumerate(_parts(turn, "functionResponse")):
            where = "contents[%d].parts[%d].function_response" % (i, j)
            if not isinstance(fr.get("name"), str) or not fr["name"]:
                out.append(Refusal(400, "* GenerateContentRequest.%s.name: Name cannot be "
                                        "empty." % where))
            if not isinstance(fr.get("response"), dict):
                out.append(Refusal(400, "Invalid JSON payload received. %s.response: a JSON "
                                        "object (Struct) is required." % where))
            for k, part in enumerate(fr.get("parts") or []):
                blob = part.get("inlineData") if isinstance(part, dict) else None
                if not isinstance(part, dict) or set(part) - {"inlineData", "fileData"} or \
                        (blob is not None and not (isinstance(blob, dict)
                                                   and isinstance(blob.get("mimeType"), str)
                                                   and isinstance(blob.get("data"), str))):
                    out.append(Refusal(400, "Invalid JSON payload received. %s.parts[%d]: "
                                            "inline data (mimeType, data) is expected"
                                            % (where, k)))
    return out


def gemini_thought_signatures(req, memory):
    """Gemini 3 models: every function call of the current turn (since the last user turn
    that answers no call) goes back with the thoughtSignature it came with (Gemini
    "Thought signatures" guide)."""
    if not re.match(r"(models/)?gemini-3", req.model):
        return []
    turns = _gemini_turns(req.body)
    start = 0
    for i, turn in enumerate(turns):
        if turn.get("role") == "user" and not _parts(turn, "functionResponse"):
            start = i + 1
    out = []
    with memory.lock:
        for turn in turns[start:]:
            for pos, part in enumerate(turn.get("parts") or []):
                fc = part.get("functionCall") if isinstance(part, dict) else None
                if not isinstance(fc, dict):
                    continue
                sigs = memory.signatures.get(_call_key(fc), {None})
                sig = part.get("thoughtSignature")
                if sig is not None and sig not in sigs:
                    out.append(Refusal(400, "Corrupted thought signature."))
                elif sig not in sigs:
                    out.append(Refusal(400, "Function call is missing a thought_signature in "
                                            "functionCall parts. This is required for tools to "
                                            "work correctly, and missing thought_signature may "
                                            "lead to degraded model performance. Additional "
                                            "data, function call `default_api:%s` , position "
                                            "%d." % (fc.get("name"), pos + 1)))
    return out


# The computer use page (ai.google.dev, updated 2026-07-30): the models that take the
# computerUse tool, and the environments each takes ("Gemini 3.x models support three
# environments"; the 2.5 preview the browser only).
GEMINI_COMPUTER_MODELS = {
    "gemini-3.6-flash": None, "gemini-3.5-flash-lite": None, "gemini-3.5-flash": None,
    "gemini-3-flash-preview": None,
    "gemini-2.5-computer-use-preview-10-2025": ("ENVIRONMENT_BROWSER",),
}


def gemini_computer_use_models(req, memory):
    """computerUse only on the models the computer use page lists, in the environments
    each takes."""
    name = req.model[len("models/"):] if req.model.startswith("models/") else req.model
    if not re.match(r"gemini-\d", name):
        return []  # a name of the tests' own
    tools = req.body.get("tools") if isinstance(req.body.get("tools"), list) else []
    cu = next((t["computerUse"] for t in tools if isinstance(t, dict)
               and isinstance(t.get("computerUse"), dict)), None)
    if cu is None:
        return []
    known = next((v for k, v in GEMINI_COMPUTER_MODELS.items() if name.startswith(k)), False)
    if known is False:
        return [Refusal(400, "Computer Use is not enabled for models/%s." % name)]
    env = cu.get("environment")
    if known and env not in known:
        return [Refusal(400, "Invalid value at 'tools[0].computer_use.environment': %s is not "
                             "supported by models/%s." % (env, name))]
    return []


# ---------------------------------------------------------------- Responses API

RESPONSES_INCLUDES = frozenset({
    "reasoning.encrypted_content", "message.output_text.logprobs",
    "computer_call_output.output.image_url", "file_search_call.results",
    "web_search_call.action.sources", "web_search_call.results",
    "code_interpreter_call.outputs", "message.input_image.image_url",
})
NOT_PERSISTED = ("Item with id '%s' not found. Items are not persisted when `store` is set "
                 "to false. Try again with `store` set to true, or remove this item from your "
                 "input.")


def stored(body):
    return body.get("store", True) is not False  # stored unless told otherwise


def responses_store_and_include(req, memory):
    """`store` is a boolean; `include` lists known output data (Responses API reference)."""
    out = []
    if "store" in req.body and not isinstance(req.body["store"], bool):
        out.append(Refusal(400, "Invalid type for 'store': expected a boolean."))
    inc = req.body.get("include")
    if inc is not None and (not isinstance(inc, list) or any(v not in RESPONSES_INCLUDES
                                                              for v in inc)):
        out.append(Refusal(400, "Invalid value for 'include': %r" % (inc,)))
    return out


def responses_references(req, memory):
    """previous_response_id and item_reference name what the server stored: nothing of a
    response made with store false (Responses API reference; "conversation state")."""
    out = []
    prev = req.body.get("previous_response_id")
    with memory.lock:
        if prev is not None and prev not in memory.responses:
            out.append(Refusal(400, "Previous response with id '%s' not found." % prev))
        for item in req.body.get("input") if isinstance(req.body.get("input"), list) else []:
            if isinstance(item, dict) and item.get("type") == "item_reference" and \
                    item.get("id") not in memory.items:
                out.append(Refusal(404, NOT_PERSISTED % item.get("id")))
    return out


def responses_reasoning(req, memory):
    """Reasoning items given back: ids this server issued; without storage, whole with
    their encrypted content (requested with include reasoning.encrypted_content), never by
    id alone; followed by the item that followed them (reasoning guide; the API's 404
    "Items are not persisted when `store` is set to false" and 400 "provided without its
    required following item")."""
    inp = req.body.get("input")
    items = inp if isinstance(inp, list) else []
    out = []
    with memory.lock:
        for i, item in enumerate(items):
            if not isinstance(item, dict) or item.get("type") != "reasoning":
                continue
            rid = item.get("id")
            known = memory.reasoning.get(rid)
            if known is None:
                out.append(Refusal(404, "Item with id '%s' not found." % rid))
                continue
            enc = item.get("encrypted_content")
            if enc is not None and enc != known["encrypted"]:
                out.append(Refusal(400, "The encrypted content for item %s could not be "
                                        "verified." % rid))
            elif enc is None and not known["stored"]:
                out.append(Refusal(404, NOT_PERSISTED % rid))
            nxt = items[i + 1] if i + 1 < len(items) else None
            if known["next"] and not (isinstance(nxt, dict) and nxt.get("id") == known["next"]):
                out.append(Refusal(400, "Item '%s' of type 'reasoning' was provided without "
                                        "its required following item." % rid))
    return out


def responses_reasoning_kept(req, memory):
    """Reasoning items go back before every kind of item they preceded ("include these
    items in your input ... if you are manually managing context"). A call given back
    without its reasoning item, and without the id that would tie it to one, is taken with
    HTTP 200 and the model reasons from scratch: nothing is refused, the record's
    `reasoning_dropped` lists what was lost."""
    inp = req.body.get("input")
    items = [i for i in inp if isinstance(i, dict)] if isinstance(inp, list) else []
    given = {i.get("id") for i in items if i.get("type") == "reasoning"}
    with memory.lock:
        lost = [memory.call_reasoning[i["call_id"]][-1] for i in items
                if i.get("type") in ("function_call", "computer_call")
                and i.get("call_id") in memory.call_reasoning
                and not given & set(memory.call_reasoning[i["call_id"]])]
    if lost:
        req.notes.setdefault("reasoning_dropped", []).extend(lost)
    return []


def responses_sampling(req, memory):
    """Reasoning models (GPT-5.x, the o-series) take no sampling temperature: "Unsupported
    parameter: 'temperature' is not supported with this model." (reasoning guide)."""
    if "temperature" in req.body and re.match(r"(gpt-5|o\d)", req.model):
        return [Refusal(400, "Unsupported parameter: 'temperature' is not supported with this "
                             "model.")]
    return []


def responses_item_reasoning(req, memory):
    """An output item given back with its id (a computer_call always is) comes after the
    reasoning item that preceded it (computer use guide: "include the reasoning items")."""
    inp = req.body.get("input")
    items = inp if isinstance(inp, list) else []
    out = []
    with memory.lock:
        for i, item in enumerate(items):
            link = memory.after_reasoning.get(item.get("id")) if isinstance(item, dict) else None
            if not link:
                continue
            prev = items[i - 1] if i else None
            if not (isinstance(prev, dict) and prev.get("type") == "reasoning"
                    and prev.get("id") == link[0]):
                out.append(Refusal(400, "Item '%s' of type '%s' was provided without its "
                                        "required 'reasoning' item: '%s'."
                                        % (item["id"], link[1], link[0])))
    return out


# ------------------------------------------------------------------- Messages API

def claude_model(model):
    """(family, major, minor) of a Claude model id (claude.model_key)."""
    return claude.model_key(model)


TOOLSET_EXTRA = ("name", "display_width_px", "display_height_px", "display_number",
                 "enable_zoom")


def anthropic_tool_version(req, memory):
    """The computer tool's type is one the model takes, and the others are refused naming
    the ones it takes; enable_zoom exists on computer_20251124 only; the toolset entry is
    its type alone (computer use tool page, its API support table)."""
    out = []
    f = claude.facts(req.model)
    takes = f[0] if f else None
    if takes == (claude.TOOLSET,) and memory.platform == "bedrock":
        takes = (claude.CU_2025_11,)  # Bedrock keeps the older tool for these
    for i, tool in enumerate(req.body.get("tools") or []):
        t = tool.get("type") if isinstance(tool, dict) else None
        if t not in claude.TOOL_TYPES:
            continue
        if takes and t not in takes:
            out.append(Refusal(400, "'%s' does not support tool types: %s. Supported computer "
                                    "tool types: %s." % (req.model, t, ", ".join(takes))))
        if t == claude.TOOLSET:
            out.extend(Refusal(400, "tools.%d.%s.%s: Extra inputs are not permitted" % (i, t, k))
                       for k in TOOLSET_EXTRA if k in tool)
            continue
        if "enable_zoom" not in tool:
            continue
        if t != "computer_20251124":
            out.append(Refusal(400, "tools.%d.%s.enable_zoom: Extra inputs are not permitted"
                                    % (i, t)))
        elif not isinstance(tool["enable_zoom"], bool):
            out.append(Refusal(400, "tools.%d.%s.enable_zoom: Input should be a valid boolean"
                                    % (i, t)))
    return out


def _messages(req):
    msgs = req.body.get("messages")
    return [m if isinstance(m, dict) else {} for m in msgs] if isinstance(msgs, list) else []


def _blocks(m):
    c = m.get("content")
    return [b for b in c if isinstance(b, dict)] if isinstance(c, list) else []


def _result_text(b):
    inner = b.get("content")
    if isinstance(inner, str):
        return inner
    texts = [x.get("text") for x in inner if isinstance(x, dict) and x.get("type") == "text"] \
        if isinstance(inner, list) else []
    return texts[0] if len(texts) == 1 and len(inner) == 1 else None


def anthropic_toolset_results(req, memory):
    """A result of a toolset member call echoes its toolset_name; after a failed action
    the rest of that turn's actions are answered with exactly the halt text (computer use
    tool page: "batch actions")."""
    out, members = [], {}
    for i, m in enumerate(_messages(req)):
        if m.get("role") == "assistant":
            members = {b.get("id"): b.get("toolset_name") for b in _blocks(m)
                       if b.get("type") == "tool_use" and b.get("toolset_name")}
            continue
        failed = False
        for j, b in enumerate(_blocks(m)):
            if b.get("type") != "tool_result" or b.get("tool_use_id") not in members:
                continue
            if b.get("toolset_name") != members[b.get("tool_use_id")]:
                out.append(Refusal(400, "messages.%d.content.%d.toolset_name: Field required"
                                        % (i, j)))
            if failed and _result_text(b) != claude.HALT:
                out.append(Refusal(400, "messages.%d.content.%d: an action after a failed one "
                                        "in the same turn is answered with \"%s\""
                                        % (i, j, claude.HALT)))
            failed = failed or b.get("is_error") is True
    return out


LATEST_MODIFIED = ("messages.%d.content.%d: `thinking` or `redacted_thinking` blocks in the "
                   "latest assistant message cannot be modified. These blocks must remain as "
                   "they were in the original response.")
BOUND = ("messages.%d.content.%d: Invalid `signature` in `thinking` block. The block is bound "
         "to a different conversation. Remove the block, or set "
         "`thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\".")


def anthropic_thinking_unchanged(req, memory):
    """Thinking blocks go back complete and unmodified, and the latest assistant message
    keeps every one of its turn's blocks in place, first (extended thinking: "preserving
    thinking blocks"; the errors page). A signature this server never issued, or a block
    whose text no longer matches its signature, is invalid."""
    out = []
    msgs = _messages(req)
    latest = max([i for i, m in enumerate(msgs) if m.get("role") == "assistant"], default=-1)
    with memory.lock:
        issued = memory.claude
        for i, m in enumerate(msgs):
            if m.get("role") != "assistant":
                continue
            blocks = _blocks(m)
            for j, b in enumerate(blocks):
                if b.get("type") not in ("thinking", "redacted_thinking"):
                    continue
                known = issued.known(b)
                if known is None or known["block"] != b:
                    out.append(Refusal(400, (LATEST_MODIFIED if i == latest else
                                             "messages.%d.content.%d: Invalid `signature` in "
                                             "`thinking` block.") % (i, j)))
            if i != latest:
                continue
            ids = [b.get("id") for b in blocks if b.get("type") == "tool_use"]
            turns = next((issued.turns[x] for x in ids if x in issued.turns), [])
            if turns and not any(blocks[:len(t)] == t for t in turns):
                out.append(Refusal(400, LATEST_MODIFIED % (i, 0)))
    return out


def anthropic_thinking_binding(req, memory):
    """Models with preserved thinking bind a replayed block to what came before it: the
    system prompt, the tools and the earlier messages ("prefix checks"). A block whose
    history changed is refused (Opus 5.5, Fable 5.1: "The block is bound to a different
    conversation"), or dropped without a word (the others), or dropped and listed in
    input_transformations with the binding control `drop_block`, which needs its beta
    header."""
    out = []
    f = claude.facts(req.model)
    th = req.body.get("thinking") if isinstance(req.body.get("thinking"), dict) else {}
    control = (th.get("block_binding") or {}).get("prefix_mismatch_behavior") \
        if isinstance(th.get("block_binding"), dict) else None
    if "block_binding" in th and claude.BINDING_BETA not in claude.betas(req.headers):
        return [Refusal(400, "thinking.block_binding: this field needs the anthropic-beta "
                             "header %s" % claude.BINDING_BETA)]
    if not f or not f[2]:
        return out
    with memory.lock:
        for i, m in enumerate(_messages(req)):
            if m.get("role") != "assistant":
                continue
            for j, b in enumerate(_blocks(m)):
                known = memory.claude.known(b) if b.get("type") in (
                    "thinking", "redacted_thinking") else None
                if not known or known["prefix"] == claude.prefix_digest(req.body, i):
                    continue
                if control == "drop_block" or f[2] == "drops":
                    req.notes.setdefault("thinking_dropped", []).append([i, j])
                else:
                    out.append(Refusal(400, BOUND % (i, j)))
    return out


def _image_blocks(req):
    """(where, base64 data) of every image of the request, tool results' too."""
    for i, m in enumerate(_messages(req)):
        for j, b in enumerate(_blocks(m)):
            inner = b.get("content") if b.get("type") == "tool_result" else [b]
            for k, ib in enumerate(inner if isinstance(inner, list) else []):
                src = ib.get("source") if isinstance(ib, dict) and ib.get("type") == "image" \
                    else None
                if isinstance(src, dict) and isinstance(src.get("data"), str):
                    where = "messages.%d.content.%d" % (i, j) + \
                        (".content.%d" % k if b.get("type") == "tool_result" else "")
                    yield where, src["data"]


def anthropic_image_sizes(req, memory):
    """With the computer toolset an image over the model's limit is refused, not scaled
    ("the API doesn't downscale for you"): 2576 px on the long edge for Claude 4.7 and
    later; past 20 images in one request, 2000 px each (images page)."""
    if not any(isinstance(t, dict) and t.get("type") == claude.TOOLSET
               for t in req.body.get("tools") or []):
        return []
    images = list(_image_blocks(req))
    many = len(images) > claude.MANY_IMAGES
    edge = claude.MANY_EDGE if many else claude.image_limit(req.model)
    out = []
    for where, data in images:
        size = claude.png_size(data)
        if size and max(size) > edge:
            out.append(Refusal(400, "%s.source.base64.data: At least one of the image dimensions "
                                    "exceed max allowed size%s: %d pixels"
                                    % (where, " for many-image requests" if many else "", edge)))
    return out


def anthropic_tool_choice(req, memory):
    """Opus 5.5, Fable 5.1 and Mythos 5.1 take no forced tool choice."""
    f = claude.facts(req.model)
    tc = req.body.get("tool_choice")
    if f and not f[4] and isinstance(tc, dict) and tc.get("type") in ("any", "tool"):
        return [Refusal(400, 'tool_choice: type "tool" and "any" are not supported for this '
                             'model.')]
    return []


def anthropic_output_cap(req, memory):
    """max_tokens within the model's output cap (the scenario's "output_cap"): "max_tokens:
    N > M, which is the maximum allowed number of output tokens for MODEL"."""
    mt = req.body.get("max_tokens")
    cap = memory.output_cap
    if cap and isinstance(mt, int) and mt > cap:
        return [Refusal(400, "max_tokens: %d > %d, which is the maximum allowed number of output "
                             "tokens for %s" % (mt, cap, req.model))]
    return []


def anthropic_context_management(req, memory):
    """context_management needs its beta header; its edits are the documented ones."""
    cm = req.body.get("context_management")
    if cm is None:
        return []
    if claude.CONTEXT_BETA not in claude.betas(req.headers):
        return [Refusal(400, "context_management: Extra inputs are not permitted")]
    out = []
    for k, e in enumerate(cm.get("edits") or [] if isinstance(cm, dict) else []):
        if not isinstance(e, dict) or e.get("type") not in ("clear_tool_uses_20250919",
                                                            "clear_thinking_20251015"):
            out.append(Refusal(400, "context_management.edits.%d.type: Input tag %r found "
                                    "using 'type' does not match any of the expected tags"
                                    % (k, e.get("type") if isinstance(e, dict) else e)))
    return out


def anthropic_tool_results(req, memory):
    """tool_result.is_error, when given, is a boolean (Messages API reference)."""
    out = []
    for i, m in enumerate(req.body.get("messages") or []):
        content = m.get("content") if isinstance(m, dict) else None
        for j, b in enumerate(content if isinstance(content, list) else []):
            if isinstance(b, dict) and b.get("type") == "tool_result" and "is_error" in b and \
                    not isinstance(b["is_error"], bool):
                out.append(Refusal(400, "messages.%d.content.%d.tool_result.is_error: Input "
                                        "should be a valid boolean" % (i, j)))
    return out


# ---------------------------------------------------------------- Chat Completions

_chat_validator = None
_chat_lock = threading.Lock()


def _chat_schema():
    global _chat_validator
    with _chat_lock:
        if _chat_validator is None:
            with open(CHAT_SCHEMA, encoding="utf-8") as f:
                doc = json.load(f)
            v = validate_schema.Validator(doc)
            _chat_validator = (v, v.resolve("#/components/schemas/CreateChatCompletionRequest"))
        return _chat_validator


def chat_schema(req, memory):
    """The request is a CreateChatCompletionRequest (OpenAI's OpenAPI description)."""
    v, target = _chat_schema()
    errors = v.errors(req.body, target)
    return [Refusal(400, "Invalid request: " + "; ".join(errors[:5]))] if errors else []


def chat_tool_call_ids(req, memory):
    """Every tool call of an assistant message is answered by a tool message right after
    it, and a tool message answers a call of the assistant message before it (the API's
    400s: "must be followed by tool messages responding to each 'tool_call_id'", "must be
    a response to a preceeding message with 'tool_calls'")."""
    out = []
    msgs = req.body.get("messages")
    msgs = [m for m in msgs if isinstance(m, dict)] if isinstance(msgs, list) else []
    pending, open_ids, calls_at = set(), set(), None
    for i, m in enumerate(msgs + [{"role": "(end)"}]):
        role = m.get("role")
        if role == "tool":
            if calls_at is None or m.get("tool_call_id") not in open_ids:
                out.append(Refusal(400, "Invalid parameter: messages with role 'tool' must be a "
                                        "response to a preceeding message with 'tool_calls'."))
            pending.discard(m.get("tool_call_id"))
            continue
        if pending:
            out.append(Refusal(400, "An assistant message with 'tool_calls' must be followed by "
                                    "tool messages responding to each 'tool_call_id'. The "
                                    "following tool_call_ids did not have response messages: "
                                    "%s" % ", ".join(sorted(map(str, pending)))))
        pending, open_ids, calls_at = set(), set(), None
        if role == "assistant" and m.get("tool_calls"):
            open_ids = {c.get("id") for c in m["tool_calls"] if isinstance(c, dict)}
            pending = set(open_ids)
            calls_at = i
    return out


def chat_stream_options(req, memory):
    """stream_options only with stream true (Chat Completions API reference)."""
    if "stream_options" in req.body and req.body.get("stream") is not True:
        return [Refusal(400, "The 'stream_options' parameter is only allowed when 'stream' is "
                             "enabled.")]
    return []


# ------------------------------------------------------------------------- all

RULES = {
    "gemini": [gemini_api_key, gemini_function_response_shape, gemini_function_responses,
               gemini_thought_signatures, gemini_computer_use_models],
    "responses": [responses_store_and_include, responses_references, responses_reasoning,
                  responses_item_reasoning, responses_reasoning_kept, responses_sampling],
    "anthropic": [anthropic_tool_version, anthropic_tool_results, anthropic_toolset_results,
                  anthropic_thinking_unchanged, anthropic_thinking_binding, anthropic_tool_choice,
                  anthropic_output_cap, anthropic_context_management, anthropic_image_sizes],
    "openai": [chat_schema, chat_stream_options, chat_tool_call_ids],
}


def refusals(provider, body, headers, query, model, memory, notes=None):
    """Every refusal of the provider's rules for this request, in the order the service
    checks (the key first); [] when the request passes them all. What passes but is done
    silently goes into notes (a dict), when given."""
    req = Request(provider, body, headers, query, model, notes)
    out = []
    for rule in RULES.get(provider, []):
        out.extend(rule(req, memory))
    return out
