"""The OpenAI Responses API and the Anthropic Messages API for the fake LLM server.

Each provider has: `validate(body, headers)` (the documented request shape; a list of
problems, empty when the request is well-formed), `response(reply, req)` (a whole
reply), `events(reply, req)` (a streamed reply as (event name, object) pairs),
`error_body(status, step)` and `stream_error()`, and the lookups the templates and
expectations need (`observation_texts`, `image_roots`, `has_tool_result`).
Standard library only. Shapes: ../../../shared/specs/model-protocols.md and the
providers' references (openai-python types/responses, anthropic-sdk-python types).
"""

import json
import re
import time

import claude
from strict import encrypted_reasoning


def _split(s, pieces=3):
    n = max(1, min(pieces, len(s)))
    size = -(-len(s) // n) if s else 1
    return [s[i:i + size] for i in range(0, len(s), size)] or [""]


def _args_string(call):
    a = call["arguments"]
    return a if isinstance(a, str) else json.dumps(a, ensure_ascii=False)


def _args_object(call):
    a = call["arguments"]
    if isinstance(a, str):
        try:
            a = json.loads(a)
        except ValueError:
            return {}
    return a if isinstance(a, dict) else {}


def _is_str(v):
    return isinstance(v, str)


def _data_url(v):
    return _is_str(v) and v.startswith("data:image/") and ";base64," in v


# ------------------------------------------------------------------ Responses API

OPENAI_ENVIRONMENTS = ("windows", "mac", "linux", "ubuntu", "browser")
OPENAI_ACTIONS = ("click", "double_click", "drag", "keypress", "move", "scroll", "type",
                  "screenshot", "wait")


def _pos_int(v):
    return isinstance(v, int) and not isinstance(v, bool) and v > 0

class Responses:
    name = "responses"

    INPUT_ROLES = ("user", "assistant", "system", "developer")
    USER_PARTS = ("input_text", "input_image", "input_file")
    ASSISTANT_PARTS = ("output_text", "refusal")

    @staticmethod
    def validate(body, headers):
        p = []
        if not _is_str(body.get("model")) or not body["model"]:
            p.append("model: a non-empty string is required")
        if "messages" in body:
            p.append("messages: not a Responses parameter (use input)")
        inp = body.get("input")
        if not isinstance(inp, (list, str)):
            p.append("input: a string or a list of items is required")
            inp = []
        if "instructions" in body and not _is_str(body["instructions"]):
            p.append("instructions: must be a string")
        calls, computer_calls = set(), {}
        for i, item in enumerate(inp if isinstance(inp, list) else []):
            where = "input[%d]" % i
            if not isinstance(item, dict):
                p.append("%s: must be an object" % where)
                continue
            t = item.get("type", "message")
            if t == "message":
                role = item.get("role")
                if role not in Responses.INPUT_ROLES:
                    p.append("%s.role: must be one of %s" % (where, ", ".join(Responses.INPUT_ROLES)))
                content = item.get("content")
                if _is_str(content):
                    continue
                if not isinstance(content, list) or not content:
                    p.append("%s.content: a string or a non-empty list of parts" % where)
                    continue
                allowed = Responses.ASSISTANT_PARTS if role == "assistant" else Responses.USER_PARTS
                for j, part in enumerate(content):
                    p.extend(Responses._part(part, "%s.content[%d]" % (where, j), allowed))
            elif t == "function_call":
                for k in ("call_id", "name", "arguments"):
                    if not _is_str(item.get(k)):
                        p.append("%s.%s: a string is required" % (where, k))
                if _is_str(item.get("arguments")):
                    try:
                        json.loads(item["arguments"])
                    except ValueError:
                        pass  # the model's own malformed arguments may be sent back
                calls.add(item.get("call_id"))
            elif t == "function_call_output":
                cid = item.get("call_id")
                if not _is_str(cid):
                    p.append("%s.call_id: a string is required" % where)
                elif cid not in calls:
                    p.append("%s: No tool call found for function call output with call_id %s"
                             % (where, cid))
                out = item.get("output")
                if isinstance(out, list):
                    for j, part in enumerate(out):
                        p.extend(Responses._part(part, "%s.output[%d]" % (where, j),
                                                 Responses.USER_PARTS))
                elif not _is_str(out):
                    p.append("%s.output: a string or a list of input parts" % where)
            elif t == "computer_call":
                p.extend(Responses._computer_call(item, where))
                computer_calls[item.get("call_id")] = item
            elif t == "computer_call_output":
                p.extend(Responses._computer_output(item, where, computer_calls))
            elif t in ("reasoning", "item_reference"):  # checked in strict.py
                continue
            else:
                p.append("%s.type: unknown item type %r" % (where, t))
        computer_tools = 0
        for i, tool in enumerate(body.get("tools") or []):
            where = "tools[%d]" % i
            if isinstance(tool, dict) and tool.get("type") in ("computer_use_preview", "computer"):
                computer_tools += 1
                p.extend(Responses._computer_tool(tool, where))
                continue
            if not isinstance(tool, dict) or tool.get("type") != "function":
                p.append("%s.type: only function and computer tools are expected here" % where)
                continue
            if "function" in tool:
                p.append("%s: function tools are flat in the Responses API (no \"function\")" % where)
            if not _is_str(tool.get("name")):
                p.append("%s.name: a string is required" % where)
            if not isinstance(tool.get("parameters"), dict):
                p.append("%s.parameters: a JSON schema object is required" % where)
        if computer_tools > 1:
            p.append("tools: one computer tool at most")
        if computer_calls and not computer_tools:
            p.append("input: computer_call items need the computer tool declared")
        if "stream" in body and not isinstance(body["stream"], bool):
            p.append("stream: must be a boolean")
        for k in ("max_tokens", "stream_options"):
            if k in body:
                p.append("%s: not a Responses parameter" % k)
        return p

    @staticmethod
    def _computer_tool(tool, where):
        """{"type":"computer_use_preview","display_width","display_height","environment"}, or
        the GA {"type":"computer"}."""
        if tool["type"] == "computer":
            extra = set(tool) - {"type"}
            return ["%s: the GA computer tool takes no %s" % (where, sorted(extra))] if extra else []
        p = []
        for k in ("display_width", "display_height"):
            if not _pos_int(tool.get(k)):
                p.append("%s.%s: a positive integer is required" % (where, k))
        if tool.get("environment") not in OPENAI_ENVIRONMENTS:
            p.append("%s.environment: one of %s" % (where, ", ".join(OPENAI_ENVIRONMENTS)))
        return p

    @staticmethod
    def _computer_call(item, where):
        """A computer_call sent back: call_id, action (or actions) and its safety checks."""
        p = []
        if not _is_str(item.get("call_id")):
            p.append("%s.call_id: a string is required" % where)
        actions = item.get("actions") if "actions" in item else [item.get("action")]
        if not isinstance(actions, list) or not actions or not all(
                isinstance(a, dict) and a.get("type") in OPENAI_ACTIONS for a in actions):
            p.append("%s.action: an action of %s is required" % (where, ", ".join(OPENAI_ACTIONS)))
        if not isinstance(item.get("pending_safety_checks"), list):
            p.append("%s.pending_safety_checks: a list is required" % where)
        return p

    @staticmethod
    def _computer_output(item, where, computer_calls):
        """computer_call_output: the call it answers, a computer_screenshot as a data URL, and
        acknowledged_safety_checks only echoing that call's pending checks."""
        p = []
        cid = item.get("call_id")
        if cid not in computer_calls:
            p.append("%s: No computer call found for computer_call_output with call_id %s"
                     % (where, cid))
        out = item.get("output")
        if not isinstance(out, dict) or out.get("type") != "computer_screenshot" or \
                not _data_url(out.get("image_url")):
            p.append("%s.output: a computer_screenshot with a data URL image_url is required"
                     % where)
        if "acknowledged_safety_checks" in item:
            acked = item["acknowledged_safety_checks"]
            pending = (computer_calls.get(cid) or {}).get("pending_safety_checks") or []
            ids = [c.get("id") for c in pending if isinstance(c, dict)]
            if not isinstance(acked, list) or not acked or not all(
                    isinstance(c, dict) and c.get("id") in ids for c in acked):
                p.append("%s.acknowledged_safety_checks: must echo the call's pending checks"
                         % where)
        return p

    @staticmethod
    def _part(part, where, allowed):
        if not isinstance(part, dict):
            return ["%s: must be an object" % where]
        t = part.get("type")
        if t not in allowed:
            return ["%s.type: %r is not one of %s" % (where, t, ", ".join(allowed))]
        if t in ("input_text", "output_text") and not _is_str(part.get("text")):
            return ["%s.text: a string is required" % where]
        if t == "input_image" and not (_data_url(part.get("image_url")) or part.get("file_id")):
            return ["%s.image_url: a data URL is expected" % where]
        return []

    @staticmethod
    def _usage(reply):
        return {"input_tokens": reply.prompt_tokens, "output_tokens": reply.completion_tokens,
                "total_tokens": reply.total_tokens,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0}}

    @staticmethod
    def _items(reply, req):
        items = []
        # reasoning models (GPT-5.x, the o-series) reason before every reply, with or
        # without a summary to show
        if reply.reasoning or re.match(r"(gpt-5|o\d)", req.model or ""):
            rs = {"id": "rs_fake%d" % req.n, "type": "reasoning",
                  "summary": [{"type": "summary_text", "text": reply.reasoning}]
                  if reply.reasoning else []}
            include = req.body.get("include")
            if isinstance(include, list) and "reasoning.encrypted_content" in include:
                rs["encrypted_content"] = encrypted_reasoning(rs["id"])
            items.append(rs)
        if reply.text:
            items.append({"id": "msg_fake%d" % req.n, "type": "message", "status": "completed",
                          "role": "assistant",
                          "content": [{"type": "output_text", "text": reply.text,
                                       "annotations": []}]})
        for i, call in enumerate(reply.calls):
            if call["name"] == "computer":  # the computer tool: the arguments are the item
                args = _args_object(call)
                item = {"id": "cu_fake%d_%d" % (req.n, i), "type": "computer_call",
                        "status": "completed", "call_id": call["id"] or call["default_id"],
                        "pending_safety_checks": args.get("pending_safety_checks", [])}
                for k in ("action", "actions"):
                    if k in args:
                        item[k] = args[k]
                items.append(item)
                continue
            items.append({"id": "fc_fake%d_%d" % (req.n, i), "type": "function_call",
                          "status": "completed", "call_id": call["id"] or call["default_id"],
                          "name": call["name"], "arguments": _args_string(call)})
        if reply.text_after:
            items.append({"id": "msg_fake%d_after" % req.n, "type": "message",
                          "status": "completed", "role": "assistant",
                          "content": [{"type": "output_text", "text": reply.text_after,
                                       "annotations": []}]})
        return items

    @staticmethod
    def _response(reply, req, status, output, usage):
        return {"id": "resp_fake%d" % req.n, "object": "response",
                "created_at": int(time.time()), "status": status, "model": req.model,
                "output": output, "error": None, "incomplete_details": None,
                "usage": usage}

    @staticmethod
    def response(reply, req):
        return Responses._response(reply, req, "completed", Responses._items(reply, req),
                                   Responses._usage(reply))

    @staticmethod
    def events(reply, req):
        seq = [0]

        def ev(obj):
            obj["sequence_number"] = seq[0]
            seq[0] += 1
            return (obj["type"], obj)

        out = [ev({"type": "response.created",
                   "response": Responses._response(reply, req, "in_progress", [], None)})]
        items = Responses._items(reply, req)
        for index, item in enumerate(items):
            t = item["type"]
            if t == "reasoning":
                head = dict(item, summary=[])
            elif t == "message":
                head = dict(item, content=[], status="in_progress")
            elif t == "computer_call":  # comes whole, in output_item.done
                head = dict(item, status="in_progress")
            else:
                head = dict(item, arguments="", status="in_progress")
            out.append(ev({"type": "response.output_item.added", "output_index": index,
                           "item": head}))
            if t == "reasoning":
                for piece in _split(reply.reasoning) if reply.reasoning else []:
                    out.append(ev({"type": "response.reasoning_summary_text.delta",
                                   "item_id": item["id"], "output_index": index,
                                   "summary_index": 0, "delta": piece}))
            elif t == "message":
                text = item["content"][0]["text"]
                for piece in _split(text, 4):
                    out.append(ev({"type": "response.output_text.delta", "item_id": item["id"],
                                   "output_index": index, "content_index": 0, "delta": piece}))
                out.append(ev({"type": "response.output_text.done", "item_id": item["id"],
                               "output_index": index, "content_index": 0, "text": text}))
            elif t == "computer_call":
                pass
            else:
                for piece in _split(item["arguments"]):
                    out.append(ev({"type": "response.function_call_arguments.delta",
                                   "item_id": item["id"], "output_index": index,
                                   "delta": piece}))
                out.append(ev({"type": "response.function_call_arguments.done",
                               "item_id": item["id"], "output_index": index,
                               "arguments": item["arguments"]}))
            out.append(ev({"type": "response.output_item.done", "output_index": index,
                           "item": item}))
        out.append(ev({"type": "response.completed",
                       "response": Responses._response(reply, req, "completed", items,
                                                        Responses._usage(reply))}))
        return out

    @staticmethod
    def stream_error():
        return ("response.failed", {"type": "response.failed", "response": {
            "status": "failed", "output": [],
            "error": {"code": "server_error",
                      "message": "fake_llm: the upstream model failed mid-stream"}}})

    @staticmethod
    def observation_texts(body, expand):
        out = []
        for item in body.get("input") or []:
            if not isinstance(item, dict):
                continue
            if item.get("type") == "function_call_output" or item.get("role") == "user":
                v = item.get("output") if item.get("type") == "function_call_output" \
                    else item.get("content")
                out.extend(s for s in expand(v) if not s.startswith("data:"))
        return out

    @staticmethod
    def image_roots(body):
        return body.get("input")

    @staticmethod
    def has_tool_result(body, call_id):
        return any(isinstance(i, dict)
                   and i.get("type") in ("function_call_output", "computer_call_output")
                   and i.get("call_id") == call_id for i in body.get("input") or [])


# ------------------------------------------------------------------- Messages API

ANTHROPIC_ERRORS = {  # status -> (error type, message)
    400: ("invalid_request_error", "Invalid request."),
    401: ("authentication_error", "invalid x-api-key"),
    403: ("permission_error", "Your API key does not have permission to use the specified resource."),
    404: ("not_found_error", "The requested resource could not be found."),
    413: ("request_too_large", "Request exceeds the maximum allowed number of bytes."),
    429: ("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit."),
    500: ("api_error", "An unexpected error has occurred internal to Anthropic's systems."),
    529: ("overloaded_error", "Overloaded"),
}


ANTHROPIC_COMPUTER_TOOLS = {  # tool type -> the beta header that enables it (None: none)
    "computer_toolset_20260801": None,
    "computer_20250124": "computer-use-2025-01-24",
    "computer_20251124": "computer-use-2025-11-24",
}


class Anthropic:
    name = "anthropic"

    USER_BLOCKS = ("text", "image", "tool_result", "document")
    ASSISTANT_BLOCKS = ("text", "tool_use", "thinking", "redacted_thinking")

    @staticmethod
    def validate(body, headers):
        p = []
        h = {k.lower(): v for k, v in headers.items()}
        if not h.get("anthropic-version"):
            p.append("header anthropic-version is required")
        if "authorization" in h:
            p.append("header Authorization: the key goes in x-api-key")
        if not _is_str(body.get("model")) or not body["model"]:
            p.append("model: a non-empty string is required")
        mt = body.get("max_tokens")
        if not isinstance(mt, int) or isinstance(mt, bool) or mt < 1:
            p.append("max_tokens: a positive integer is required")
        if "system" in body and not isinstance(body["system"], (str, list)):
            p.append("system: a string or a list of text blocks")
        msgs = body.get("messages")
        if not isinstance(msgs, list) or not msgs:
            return p + ["messages: a non-empty list is required"]
        if not isinstance(msgs[0], dict) or msgs[0].get("role") != "user":
            p.append("messages: the first message must use the \"user\" role")
        computer = Anthropic._computer_tools(body.get("tools"), h, p)
        prev_role, pending, computer_uses = None, set(), set()
        for i, m in enumerate(msgs):
            where = "messages.%d" % i
            if not isinstance(m, dict) or m.get("role") not in ("user", "assistant"):
                p.append("%s.role: must be user or assistant" % where)
                continue
            role = m["role"]
            if role == prev_role:
                p.append("%s: roles must alternate between user and assistant" % where)
            content = m.get("content")
            if _is_str(content):
                if not content:
                    p.append("%s.content: must not be empty" % where)
                blocks = []
            elif isinstance(content, list) and content:
                blocks = content
            else:
                p.append("%s.content: a string or a non-empty list of blocks" % where)
                blocks = []
            allowed = Anthropic.ASSISTANT_BLOCKS if role == "assistant" else Anthropic.USER_BLOCKS
            answered, seen_other = set(), False
            for j, b in enumerate(blocks):
                bw = "%s.content.%d" % (where, j)
                if not isinstance(b, dict) or b.get("type") not in allowed:
                    p.append("%s.type: %r is not one of %s"
                             % (bw, b.get("type") if isinstance(b, dict) else b, ", ".join(allowed)))
                    continue
                t = b["type"]
                if t == "text" and (not _is_str(b.get("text")) or not b["text"]):
                    p.append("%s: text content blocks must be non-empty" % bw)
                elif t == "image":
                    p.extend(Anthropic._image(b, bw))
                elif t == "tool_use":
                    if not _is_str(b.get("id")) or not b["id"] or \
                            not all(c.isalnum() or c in "_-" for c in b["id"]):
                        p.append("%s.id: must match ^[a-zA-Z0-9_-]+$" % bw)
                    if not _is_str(b.get("name")):
                        p.append("%s.name: a string is required" % bw)
                    if not isinstance(b.get("input"), dict):
                        p.append("%s.input: an object is required" % bw)
                    pending.add(b.get("id"))
                    if b.get("name") == computer or (computer and b.get("toolset_name")):
                        computer_uses.add(b.get("id"))
                elif t == "tool_result":
                    if seen_other:
                        p.append("%s: tool_result blocks must come first in the message" % bw)
                    if b.get("tool_use_id") not in pending:
                        p.append("%s: unexpected tool_use_id %r: no tool_use block with that id "
                                 "in the previous message" % (bw, b.get("tool_use_id")))
                    answered.add(b.get("tool_use_id"))
                    inner = b.get("content", "")
                    for k, ib in enumerate(inner if isinstance(inner, list) else []):
                        iw = "%s.content.%d" % (bw, k)
                        if not isinstance(ib, dict) or ib.get("type") not in ("text", "image"):
                            p.append("%s.type: text or image" % iw)
                        elif ib["type"] == "text" and not ib.get("text"):
                            p.append("%s: text content blocks must be non-empty" % iw)
                        elif ib["type"] == "image":
                            p.extend(Anthropic._image(ib, iw))
                    if not isinstance(inner, (list, str)):
                        p.append("%s.content: a string or a list of blocks" % bw)
                    # older results may drop their screenshots; the latest one has its own
                    # (unless the action failed, or was never run)
                    if b.get("tool_use_id") in computer_uses and i == len(msgs) - 1 and \
                            b.get("is_error") is not True and \
                            b is Anthropic._last_result(blocks, computer_uses) and not any(
                            isinstance(ib, dict) and ib.get("type") == "image"
                            for ib in inner if isinstance(inner, list)):
                        p.append("%s: the computer tool's result carries no screenshot" % bw)
                if t != "tool_result":
                    seen_other = True
            if role == "user":
                missing = pending - answered
                if missing:
                    p.append("%s: tool_use ids were found without tool_result blocks immediately "
                             "after: %s" % (where, ", ".join(sorted(map(str, missing)))))
                pending = set()
            prev_role = role
        for i, tool in enumerate(body.get("tools") or []):
            where = "tools.%d" % i
            if isinstance(tool, dict) and tool.get("type") == "computer_toolset_20260801":
                continue
            if not isinstance(tool, dict) or not _is_str(tool.get("name")):
                p.append("%s.name: a string is required" % where)
            elif tool.get("type") in ANTHROPIC_COMPUTER_TOOLS:
                continue  # checked in _computer_tools
            elif "type" in tool and tool["type"] != "custom":
                p.append("%s.type: only custom tools are expected here" % where)
            elif not isinstance(tool.get("input_schema"), dict):
                p.append("%s.input_schema: a JSON schema object is required" % where)
        if "tool_choice" in body and not isinstance(body["tool_choice"], dict):
            p.append("tool_choice: an object such as {\"type\": \"auto\"}")
        return p

    @staticmethod
    def _last_result(blocks, computer_uses):
        """The last tool_result of blocks that answers the computer tool, or None."""
        found = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"
                 and b.get("tool_use_id") in computer_uses]
        return found[-1] if found else None

    @staticmethod
    def _computer_tools(tools, headers, p):
        """The computer tool's shape and its beta header; its name (None when absent)."""
        found = [t for t in tools or [] if isinstance(t, dict)
                 and t.get("type") in ANTHROPIC_COMPUTER_TOOLS]
        if len(found) > 1:
            p.append("tools: one computer tool at most")
        if not found:
            return None
        tool = found[0]
        beta = ANTHROPIC_COMPUTER_TOOLS[tool["type"]]
        if beta is None:  # the toolset: its type alone (extra fields: strict.py), no header
            return "computer"
        if tool.get("name") != "computer":
            p.append("tools: the computer tool must be named \"computer\"")
        for k in ("display_width_px", "display_height_px"):
            if not _pos_int(tool.get(k)):
                p.append("tools: the computer tool's %s must be a positive integer" % k)
        if beta not in [b.strip() for b in headers.get("anthropic-beta", "").split(",")]:
            p.append("header anthropic-beta: %s is required for %s" % (beta, tool["type"]))
        return tool.get("name")

    @staticmethod
    def _image(b, where):
        src = b.get("source")
        if not isinstance(src, dict) or src.get("type") != "base64" or \
                src.get("media_type") not in ("image/png", "image/jpeg", "image/gif", "image/webp") \
                or not _is_str(src.get("data")) or not src["data"]:
            return ["%s.source: a base64 source with media_type and data is expected" % where]
        return []

    @staticmethod
    def _toolset(req):
        """Whether the request declared the computer toolset: calls of "computer" then go
        out as member tool_use blocks named by their action."""
        return any(isinstance(t, dict) and t.get("type") == claude.TOOLSET
                   for t in req.body.get("tools") or [])

    @staticmethod
    def _cut(reply, req):
        """Whether the reply needs more output tokens than the request's max_tokens (its
        thinking counts too): it then ends there, cut."""
        mt = req.body.get("max_tokens")
        return isinstance(mt, int) and reply.output_tokens and reply.output_tokens > mt

    @staticmethod
    def _blocks(reply, req):
        blocks = []
        if claude.thinks(req.model, req.body) or reply.reasoning:
            blocks.extend(claude.thinking_blocks(reply, req))
        if Anthropic._cut(reply, req):
            return blocks  # the cap was spent thinking
        if reply.text:
            blocks.append({"type": "text", "text": reply.text})
        toolset = Anthropic._toolset(req)
        for i, call in enumerate(reply.calls):
            block = {"type": "tool_use", "id": call["id"] or "toolu_fake%d_%d" % (req.n, i + 1),
                     "name": call["name"], "input": dict(_args_object(call))}
            if toolset and call["name"] == "computer" and "action" in block["input"]:
                block["name"] = block["input"].pop("action")
                block["toolset_name"] = "computer"
            blocks.append(block)
        if reply.text_after:
            blocks.append({"type": "text", "text": reply.text_after})
        return blocks

    @staticmethod
    def _stop(reply, req):
        if Anthropic._cut(reply, req):
            return "max_tokens"
        return "tool_use" if reply.calls else "end_turn"

    @staticmethod
    def response(reply, req):
        msg = {"id": "msg_fake%d" % req.n, "type": "message", "role": "assistant",
               "model": req.model, "content": Anthropic._blocks(reply, req),
               "stop_reason": Anthropic._stop(reply, req), "stop_sequence": None,
               "usage": {"input_tokens": reply.prompt_tokens,
                         "output_tokens": reply.completion_tokens,
                         "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
        if req.notes.get("context_edits") is not None:
            msg["context_management"] = {"applied_edits": req.notes["context_edits"]}
        if req.notes.get("thinking_dropped"):
            msg["input_transformations"] = [
                {"type": "thinking_block_dropped", "message_index": i, "content_index": j}
                for i, j in req.notes["thinking_dropped"]]
        return msg

    @staticmethod
    def events(reply, req):
        msg = Anthropic.response(reply, req)
        head = dict(msg, content=[], stop_reason=None,
                    usage={"input_tokens": reply.prompt_tokens, "output_tokens": 1})
        out = [("message_start", {"type": "message_start", "message": head})]
        for index, b in enumerate(msg["content"]):
            if b["type"] == "text":
                start, deltas = dict(b, text=""), [{"type": "text_delta", "text": s}
                                                   for s in _split(b["text"], 4)]
            elif b["type"] == "thinking":
                start = dict(b, thinking="", signature="")
                deltas = [{"type": "thinking_delta", "thinking": s}
                          for s in _split(b["thinking"]) if s]
                deltas += [{"type": "signature_delta", "signature": s}
                           for s in _split(b["signature"], 2)]
            elif b["type"] == "redacted_thinking":
                start, deltas = b, []
            else:
                start = dict(b, input={})
                deltas = [{"type": "input_json_delta", "partial_json": s}
                          for s in [""] + _split(json.dumps(b["input"], ensure_ascii=False))]
            out.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                "content_block": start}))
            if index == 0:
                out.append(("ping", {"type": "ping"}))
            out.extend(("content_block_delta", {"type": "content_block_delta", "index": index,
                                                "delta": d}) for d in deltas)
            out.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        out.append(("message_delta", {"type": "message_delta",
                                      "delta": {"stop_reason": msg["stop_reason"],
                                                "stop_sequence": None},
                                      "usage": {"output_tokens": reply.completion_tokens}}))
        out.append(("message_stop", {"type": "message_stop"}))
        return out

    @staticmethod
    def error_body(status, step):
        etype, message = ANTHROPIC_ERRORS.get(
            status, ("api_error" if status >= 500 else "invalid_request_error",
                     "fake_llm: scripted HTTP %d" % status))
        return {"type": "error", "error": {"type": etype, "message": message}}

    @staticmethod
    def stream_error():
        return ("error", {"type": "error", "error": {"type": "overloaded_error",
                                                     "message": "Overloaded"}})

    @staticmethod
    def observation_texts(body, expand):
        out = []
        for m in body.get("messages") or []:
            if not isinstance(m, dict) or m.get("role") != "user":
                continue
            content = m.get("content")
            for b in content if isinstance(content, list) else [{"type": "text", "text": content}]:
                if not isinstance(b, dict):
                    continue
                if b.get("type") == "text":
                    out.extend(expand(b.get("text")))
                elif b.get("type") == "tool_result":
                    inner = b.get("content")
                    for ib in inner if isinstance(inner, list) else [{"text": inner}]:
                        if isinstance(ib, dict) and _is_str(ib.get("text")):
                            out.extend(expand(ib["text"]))
        return out

    @staticmethod
    def image_roots(body):
        return body.get("messages")

    @staticmethod
    def has_tool_result(body, call_id):
        for m in body.get("messages") or []:
            content = m.get("content") if isinstance(m, dict) else None
            for b in content if isinstance(content, list) else []:
                if isinstance(b, dict) and b.get("type") == "tool_result" and \
                        b.get("tool_use_id") == call_id:
                    return True
        return False


WIRES = {"responses": Responses, "anthropic": Anthropic}
