"""What the Messages API knows of each Claude model, for the fake server: the facts the
Claude docs give per model (platform.claude.com, 2026: the computer use tool page and its
API support table, preserved thinking and its prefix checks, images, errors), the
thinking blocks a thinking model's replies start with, and what the service does with
them when they come back: the thinking signatures it issued (each bound to the history
before it), context editing, and its count of input tokens.

Written from the documentation (../../../shared/specs/model-protocols.md), never from
winagent's code. Standard library only.
"""

import base64
import hashlib
import json
import re

TOOLSET = "computer_toolset_20260801"
CU_2025_11 = "computer_20251124"
CU_2025_01 = "computer_20250124"
TOOL_TYPES = (TOOLSET, CU_2025_11, CU_2025_01)

# (family, major, minor) -> what the docs say of it: the computer tool types it takes,
# whether it thinks (None, "default", "always"), what a changed prefix does to a replayed
# thinking block (None, "refuses": HTTP 400, "drops": silently), the longest image edge it
# takes, and whether it takes a forced tool choice.
MODELS = {
    ("opus", 5, 5): ((TOOLSET,), "always", "refuses", 2576, False),
    ("sonnet", 5, 5): ((TOOLSET,), "default", "drops", 2576, True),
    ("haiku", 5, 5): ((TOOLSET,), "default", "drops", 2576, True),
    ("fable", 5, 1): ((TOOLSET, CU_2025_11), "always", "refuses", 2576, False),
    ("mythos", 5, 1): ((TOOLSET, CU_2025_11), "always", "drops", 2576, False),
    ("fable", 5, 0): ((TOOLSET, CU_2025_11), "always", None, 2576, True),
    ("mythos", 5, 0): ((TOOLSET, CU_2025_11), "always", None, 2576, True),
    ("opus", 5, 0): ((TOOLSET, CU_2025_11), "default", None, 2576, True),
    ("sonnet", 5, 0): ((TOOLSET, CU_2025_11), "default", None, 2576, True),
    ("opus", 4, 8): ((TOOLSET, CU_2025_11), None, None, 2576, True),
    ("opus", 4, 7): ((CU_2025_11,), None, None, 2576, True),
    ("opus", 4, 6): ((CU_2025_11,), None, None, 1568, True),
    ("sonnet", 4, 6): ((CU_2025_11,), None, None, 1568, True),
    ("opus", 4, 5): ((CU_2025_11,), None, None, 1568, True),
    ("sonnet", 4, 5): ((CU_2025_01,), None, None, 1568, True),
    ("haiku", 4, 5): ((CU_2025_01,), None, None, 1568, True),
    ("opus", 4, 1): ((CU_2025_01,), None, None, 1568, True),
    ("opus", 4, 0): ((CU_2025_01,), None, None, 1568, True),
    ("sonnet", 4, 0): ((CU_2025_01,), None, None, 1568, True),
    ("sonnet", 3, 7): ((CU_2025_01,), None, None, 1568, True),
}
# Images: 4.7 and later take 2576 px on the long edge (4784 visual tokens of 750 pixels);
# earlier ones 1568 px and about 1.15 megapixels; past 20 images in one request, each at
# most 2000 px.
MANY_IMAGES, MANY_EDGE = 20, 2000
HALT = "Not executed: an earlier computer action in this turn failed."
CONTEXT_BETA = "context-management-2025-06-27"
BINDING_BETA = "thinking-binding-controls-2026-08-01"
CLEARED = "[tool result cleared by context management]"


def model_key(model):
    """(family, major, minor) of a Claude model id such as claude-sonnet-4-5-20250929,
    claude-opus-5-5 or claude-3-7-sonnet-latest; None for a name of no Claude family."""
    m = re.search(r"(opus|sonnet|haiku|fable|mythos)-(\d{1,2})(?:-(\d{1,2}))?(?!\d)", model or "")
    if m:
        return (m.group(1), int(m.group(2)), int(m.group(3) or 0))
    m = re.search(r"(\d)-(\d)-(opus|sonnet|haiku)", model or "")
    if m:
        return (m.group(3), int(m.group(1)), int(m.group(2)))
    return None


def facts(model):
    """The documented facts of a model (see MODELS), or None for one the docs do not name."""
    return MODELS.get(model_key(model) or ())


def thinks(model, body):
    """Whether a reply of this model starts with thinking: its default, unless the request
    turns thinking off."""
    f = facts(model)
    th = body.get("thinking") if isinstance(body, dict) else None
    if isinstance(th, dict) and th.get("type") == "disabled" and (not f or f[1] != "always"):
        return False
    if isinstance(th, dict) and th.get("type") in ("enabled", "adaptive"):
        return True
    return bool(f and f[1])


def betas(headers):
    return [b.strip() for b in (headers or {}).get("anthropic-beta", "").split(",") if b.strip()]


def image_limit(model):
    f = facts(model)
    return f[3] if f else 1568


# ----------------------------------------------------------------- thinking blocks

def _digest(obj):
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":"))
                          .encode("utf-8")).hexdigest()


def prefix_digest(body, upto):
    """The history a block at messages[upto] was made after: system, tools and the
    messages before it."""
    msgs = body.get("messages") if isinstance(body.get("messages"), list) else []
    return _digest([body.get("system"), body.get("tools"), msgs[:upto]])


def thinking_blocks(reply, req):
    """The thinking blocks a reply of a thinking model starts with: its reasoning (often an
    empty text) with a signature of its own, then a redacted block when the step asks."""
    blocks = [{"type": "thinking", "thinking": reply.reasoning,
               "signature": base64.b64encode(("fake-signature:%d:%s" % (
                   req.n, hashlib.sha256(reply.reasoning.encode()).hexdigest()[:16]))
                   .encode()).decode()}]
    if reply.quirks.get("redacted_thinking"):
        blocks.append({"type": "redacted_thinking",
                       "data": base64.b64encode(("fake-redacted:%d" % req.n).encode()).decode()})
    return blocks


class Issued:
    """The thinking blocks this server issued, by signature (redacted ones by their data):
    the block as sent, the history it was made after, and the tool_use ids of its turn."""

    def __init__(self):
        self.blocks = {}   # signature or data -> {"block", "prefix", "turn": [ids]}
        self.turns = {}    # a tool_use id -> the thinking blocks of each turn that issued it

    def remember(self, req_body, content):
        ids = [b["id"] for b in content if b.get("type") == "tool_use"]
        thinking = [b for b in content if b.get("type") in ("thinking", "redacted_thinking")]
        prefix = prefix_digest(req_body, len(req_body.get("messages") or []))
        for b in thinking:
            key = b.get("signature") if b["type"] == "thinking" else b.get("data")
            self.blocks[key] = {"block": dict(b), "prefix": prefix, "turn": ids}
        for i in ids:
            self.turns.setdefault(i, []).append([dict(b) for b in thinking])

    def known(self, block):
        key = block.get("signature") if block.get("type") == "thinking" else block.get("data")
        return self.blocks.get(key) if isinstance(key, str) else None


# ----------------------------------------------------------------- context editing

def _is_edit(e, kind):
    return isinstance(e, dict) and e.get("type") == kind


def apply_context_editing(body):
    """The messages as the model sees them after the request's context_management edits
    (clear_tool_uses_20250919: the oldest tool results beyond `keep` replaced by a
    placeholder once the trigger is met), and what was applied."""
    cm = body.get("context_management") if isinstance(body.get("context_management"), dict) \
        else {}
    msgs = json.loads(json.dumps(body.get("messages") or []))
    applied = []
    for edit in cm.get("edits") or []:
        if not _is_edit(edit, "clear_tool_uses_20250919"):
            continue
        keep = (edit.get("keep") or {}).get("value", 3)
        trigger = edit.get("trigger") or {"type": "input_tokens", "value": 100000}
        results = [b for m in msgs if m.get("role") == "user" and isinstance(m.get("content"), list)
                   for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]
        if trigger.get("type") == "tool_uses":
            met = len(results) >= trigger.get("value", 0)
        else:
            met = input_tokens({"messages": msgs, "system": body.get("system")}) >= \
                trigger.get("value", 100000)
        if not met or len(results) <= keep:
            continue
        cleared_tokens = 0
        for b in results[:len(results) - keep]:
            before = _tokens_of(b.get("content"))
            b["content"] = [{"type": "text", "text": CLEARED}]
            cleared_tokens += max(0, before - _tokens_of(b["content"]))
        applied.append({"type": "clear_tool_uses_20250919",
                        "cleared_tool_uses": len(results) - keep,
                        "cleared_input_tokens": cleared_tokens})
    return msgs, applied


# ----------------------------------------------------------------- token count

def png_size(b64):
    """(width, height) of a base64 PNG from its header, or None."""
    try:
        head = base64.b64decode(b64[:48], validate=False)
    except ValueError:
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def _tokens_of(node):
    """Input tokens of a piece of a request as the Claude docs count them: text about four
    characters a token, an image (width x height) / 750."""
    if isinstance(node, str):
        return (len(node) + 3) // 4
    if isinstance(node, list):
        return sum(_tokens_of(n) for n in node)
    if not isinstance(node, dict):
        return 0
    if node.get("type") == "image":
        size = png_size(((node.get("source") or {}).get("data")) or "")
        return (size[0] * size[1] + 749) // 750 if size else 1
    if node.get("type") in ("thinking", "redacted_thinking"):
        return 0  # earlier turns' thinking is not counted as input
    return sum(_tokens_of(v) for k, v in node.items() if k not in ("type", "id", "tool_use_id",
                                                                 "signature", "media_type"))


def input_tokens(body):
    """The request's input tokens: system, tools and messages (as the model sees them)."""
    return max(1, _tokens_of(body.get("system")) + _tokens_of(body.get("tools"))
               + _tokens_of(body.get("messages")))
