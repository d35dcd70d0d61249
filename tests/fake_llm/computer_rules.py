"""What the model services refuse of a computer-use conversation, for the fake server.

`errors(provider, body)` is the list of problems the fake answers with HTTP 400 (empty
when the request passes), from the services' documentation
(../../../shared/specs/model-protocols.md):

- Gemini: a function response to a call whose `safety_decision` is
  `require_confirmation` must carry `"safety_acknowledgement": "true"`; the API's own
  message (google-gemini/computer-use-preview#97).
- Responses: a `computer_call_output` must acknowledge every pending safety check of its
  call (openai/openai-agents-python#843 quotes the API's message); acknowledging checks
  that were never pending is refused in wires.py. `computer_use_preview`'s display must
  be the screenshots' size.
- Anthropic: every screenshot the model gets is the declared display's size (a zoom's
  image excepted) and inside the image limits (1568 px on the long edge, 1.15
  megapixels).

The display and image-size rules are stricter than the services: Anthropic's API scales
such an image down silently and OpenAI's takes it, after which the model's coordinates
no longer match the screen the client maps them to. A silent rescale would let a wrong
client pass every test, so the fake refuses it, saying that the service itself would
have scaled. Standard library only.
"""

import base64
import binascii
import struct

import claude

ANTHROPIC_MAX_EDGE = 1568
ANTHROPIC_MAX_PIXELS = 1150000
STRICTER = ("(stricter than the service, which would scale it silently and the model's "
            "coordinates would no longer match)")


def png_size(b64):
    """(width, height) of a base64 PNG from its IHDR chunk, or None when it is not one."""
    try:
        head = base64.b64decode(b64[:48], validate=False)
    except (binascii.Error, ValueError, TypeError):
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def _parts(content):
    return content.get("parts") or [] if isinstance(content, dict) else []


# ----------------------------------------------------------------------- Gemini

GEMINI_UNACKNOWLEDGED = ("The safety decision from function call %s must be acknowledged in "
                         "the corresponding function response.")


def gemini_errors(body):
    """A function response to a call flagged require_confirmation without its
    acknowledgement, matched by id, else by name in order."""
    errors = []
    flagged = []  # [id or None, name, require_confirmation] of the last model turn's calls
    for content in body.get("contents") or []:
        if isinstance(content, dict) and content.get("role") == "model":
            flagged = []
            for part in _parts(content):
                fc = part.get("functionCall") if isinstance(part, dict) else None
                if isinstance(fc, dict):
                    decision = ((fc.get("args") or {}).get("safety_decision") or {})
                    asked = isinstance(decision, dict) and \
                        decision.get("decision") == "require_confirmation"
                    flagged.append([fc.get("id"), fc.get("name"), asked])
            continue
        for part in _parts(content):
            fr = part.get("functionResponse") if isinstance(part, dict) else None
            if not isinstance(fr, dict):
                continue
            match = next((c for c in flagged if fr.get("id") and c[0] == fr.get("id")), None)
            if match is None:
                match = next((c for c in flagged if c[1] == fr.get("name")), None)
            if match is None:
                continue
            flagged.remove(match)
            resp = fr.get("response") if isinstance(fr.get("response"), dict) else {}
            if match[2] and resp.get("safety_acknowledgement") != "true":
                errors.append(GEMINI_UNACKNOWLEDGED % match[1])
    return errors


# ----------------------------------------------------------------------- Responses

def responses_errors(body):
    """Pending safety checks left unacknowledged, and computer_use_preview's display
    against the screenshots sent."""
    errors, pending = [], {}
    display = None
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and tool.get("type") == "computer_use_preview":
            display = (tool.get("display_width"), tool.get("display_height"))
    for item in body.get("input") or []:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "computer_call":
            pending[item.get("call_id")] = [c.get("id") for c in
                                            item.get("pending_safety_checks") or []
                                            if isinstance(c, dict)]
        elif item.get("type") == "computer_call_output":
            acked = {c.get("id") for c in item.get("acknowledged_safety_checks") or []
                     if isinstance(c, dict)}
            left = [i for i in pending.get(item.get("call_id")) or [] if i not in acked]
            if left:
                errors.append("Computer tool has unacknowledged safety check for %r" % left)
            url = (item.get("output") or {}).get("image_url") or ""
            size = png_size(url.partition(",")[2]) if isinstance(url, str) else None
            if display and size and size != display:
                errors.append("computer_call_output %s: a %dx%d screenshot for the %dx%d "
                              "display_width/display_height %s"
                              % (item.get("call_id"), size[0], size[1], display[0], display[1],
                                 STRICTER))
    return errors


# ----------------------------------------------------------------------- Anthropic

def _images(blocks):
    """The base64 data of the image blocks among blocks."""
    for b in blocks if isinstance(blocks, list) else []:
        src = b.get("source") if isinstance(b, dict) and b.get("type") == "image" else None
        if isinstance(src, dict) and isinstance(src.get("data"), str):
            yield src["data"]


def _is_zoom(b):
    return b.get("type") == "tool_use" and (
        (b.get("input") or {}).get("action") == "zoom" or
        (b.get("toolset_name") and b.get("name") == "zoom"))


def anthropic_errors(body):
    """Every image of a conversation with the computer tool: one display's size (a zoom's
    answer: no larger), inside the model's limits."""
    tool = next((t for t in body.get("tools") or [] if isinstance(t, dict)
                 and str(t.get("type", "")).startswith("computer_")), None)
    if tool is None:
        return []
    toolset = tool.get("type") == claude.TOOLSET
    display = None if toolset else (tool.get("display_width_px"), tool.get("display_height_px"))
    edge = claude.image_limit(body.get("model"))
    pixels = ANTHROPIC_MAX_PIXELS if edge <= ANTHROPIC_MAX_EDGE else 4784 * 750
    errors, zooms = [], set()
    for i, m in enumerate(body.get("messages") or []):
        content = m.get("content") if isinstance(m, dict) else None
        if not isinstance(content, list):
            continue
        if m.get("role") == "assistant":
            zooms = {b.get("id") for b in content if isinstance(b, dict) and _is_zoom(b)}
            continue
        found = [(d, False) for d in _images(content)]
        for b in content:
            if isinstance(b, dict) and b.get("type") == "tool_result":
                zoom = b.get("tool_use_id") in zooms
                found += [(d, zoom) for d in _images(b.get("content"))]
        for data, zoom in found:
            size = png_size(data)
            if size is None:
                continue
            w, h = size
            if display is None and not zoom:
                display = size  # the toolset's display: its first screenshot
            if not toolset and (max(w, h) > edge or w * h > pixels):
                errors.append("messages.%d: a %dx%d image is over %d px or %d pixels %s"
                              % (i, w, h, edge, pixels, STRICTER))
            elif zoom and (w > display[0] or h > display[1]):
                errors.append("messages.%d: a zoom's %dx%d image is larger than the %dx%d "
                              "display" % (i, w, h, display[0], display[1]))
            elif not zoom and size != display:
                errors.append("messages.%d: a %dx%d screenshot for the %dx%d display %s %s"
                              % (i, w, h, display[0], display[1],
                                 "of the first screenshot" if toolset
                                 else "declared by the computer tool", STRICTER))
    return errors


RULES = {"gemini": gemini_errors, "responses": responses_errors, "anthropic": anthropic_errors}


def errors(provider, body):
    """The computer-use problems of a request to provider ([] when it passes)."""
    rule = RULES.get(provider)
    return rule(body) if rule and isinstance(body, dict) else []
