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

import validate_schema

Refusal = collections.namedtuple("Refusal", "status message")

HERE = os.path.dirname(os.path.abspath(__file__))
CHAT_SCHEMA = os.path.join(HERE, "specs", "openai-chat-completions.schema.json")


class Request:
    """What a rule reads of one model request."""

    def __init__(self, provider, body, headers, query, model):
        self.provider = provider
        self.body = body if isinstance(body, dict) else {}
        self.headers = {k.lower(): v for k, v in (headers or {}).items()}
        self.query = query or ""
        self.model = model or ""


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

# The computer use tool page (platform.claude.com, 2026): the tool version each model
# takes. (family, major, minor) -> tool type.
CLAUDE_COMPUTER_TOOLS = {
    ("opus", 4, 7): "computer_20251124", ("opus", 4, 6): "computer_20251124",
    ("sonnet", 4, 6): "computer_20251124", ("opus", 4, 5): "computer_20251124",
    ("sonnet", 4, 5): "computer_20250124", ("haiku", 4, 5): "computer_20250124",
    ("opus", 4, 1): "computer_20250124", ("opus", 4, 0): "computer_20250124",
    ("sonnet", 4, 0): "computer_20250124", ("sonnet", 3, 7): "computer_20250124",
}


def claude_model(model):
    """(family, major, minor) of a Claude model id such as claude-sonnet-4-5-20250929 or
    claude-3-7-sonnet-latest; None for a name that is no Claude model of the table."""
    m = re.search(r"(opus|sonnet|haiku)-(\d{1,2})(?:-(\d{1,2}))?(?!\d)", model)
    if m:
        return (m.group(1), int(m.group(2)), int(m.group(3) or 0))
    m = re.search(r"(\d)-(\d)-(opus|sonnet|haiku)", model)
    if m:
        return (m.group(3), int(m.group(1)), int(m.group(2)))
    return None


def anthropic_tool_version(req, memory):
    """The computer tool's version is the one the model takes; enable_zoom exists on
    computer_20251124 only (computer use tool page)."""
    out = []
    for i, tool in enumerate(req.body.get("tools") or []):
        t = tool.get("type") if isinstance(tool, dict) else None
        if t not in ("computer_20250124", "computer_20251124"):
            continue
        wanted = CLAUDE_COMPUTER_TOOLS.get(claude_model(req.model) or ())
        if wanted and wanted != t:
            out.append(Refusal(400, "'%s' does not support tool types: %s." % (req.model, t)))
        if "enable_zoom" not in tool:
            continue
        if t != "computer_20251124":
            out.append(Refusal(400, "tools.%d.%s.enable_zoom: Extra inputs are not permitted"
                                    % (i, t)))
        elif not isinstance(tool["enable_zoom"], bool):
            out.append(Refusal(400, "tools.%d.%s.enable_zoom: Input should be a valid boolean"
                                    % (i, t)))
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
               gemini_thought_signatures],
    "responses": [responses_store_and_include, responses_references, responses_reasoning,
                  responses_item_reasoning],
    "anthropic": [anthropic_tool_version, anthropic_tool_results],
    "openai": [chat_schema, chat_stream_options, chat_tool_call_ids],
}


def refusals(provider, body, headers, query, model, memory):
    """Every refusal of the provider's rules for this request, in the order the service
    checks (the key first); [] when the request passes them all."""
    req = Request(provider, body, headers, query, model)
    out = []
    for rule in RULES.get(provider, []):
        out.extend(rule(req, memory))
    return out
