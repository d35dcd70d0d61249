#!/usr/bin/env python3
"""Fake LLM server for winagent's tests: scripted replies in the real wire formats.

It stands in for an OpenAI-compatible Chat Completions endpoint and for the Gemini
generateContent / streamGenerateContent API on 127.0.0.1. Every model request consumes
the next step of a scenario (a reply, an HTTP error or a transport fault), is answered in
the format the request came in (streaming or not), and is recorded for assertions.

Use it from Python tests:

    with FakeLLM({"steps": [{"text": "hi"}]}) as fake:
        ... point the client at fake.url + "/v1" ...
        assert fake.requests[0]["provider"] == "openai"

or from the command line (see README.md):

    python3 server.py --scenario FILE [--port 0] [--port-file PATH] [--record PATH]
                      [--idle-exit SECONDS] [--quiet]

Standard library only.
"""

import argparse
import base64
import binascii
import collections
import copy
import http.server
import json
import os
import re
import select
import signal
import socket
import struct
import sys
import threading
import time
from urllib.parse import parse_qs, urlsplit

try:
    import png_decode
except ImportError:  # imported from elsewhere without this folder on sys.path
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import png_decode
from wires import WIRES  # the Responses and Messages APIs  # noqa: E402
import strict  # what the real services refuse, rule by rule  # noqa: E402
import claude  # what the Messages API knows of each Claude model  # noqa: E402
import computer_rules  # safety checks and displays of the computer tools  # noqa: E402

HOST = "127.0.0.1"
DEFAULT_IDLE_EXIT = 600.0

QUIRKS = frozenset({
    "args_as_object", "empty_ids", "missing_ids", "content_null", "whole_chunk",
    "finish_reason", "omit_index", "comments", "no_done", "crlf", "thought_signature",
    "gemini_finish", "block_reason", "invalid_arguments", "reasoning_field", "calls_as_text",
    "redacted_thinking",
})
# How a server without a tool parser passes the calls on: as text in the content.
TEXT_CALL_FORMATS = frozenset({"hermes", "qwen3_coder", "json"})
FAULTS = frozenset({
    "drop_before_response", "drop_mid_stream", "truncated_json", "error_mid_stream",
    "huge_body", "slow", "raw",
})
# What a local server may refuse, scenario-wide (see README): each a real server's 400.
REFUSALS = {
    # vLLM: a tool message's content must be text (vllm#43203)
    "images_in_tool": {"object": "error", "type": "BadRequestError", "param": None, "code": 400,
                       "message": "tool message content only supports text"},
    # llama.cpp server builds without streamed tool calls
    "stream_with_tools": {"error": {"code": 400, "type": "invalid_request_error",
                                    "message": "Cannot use tools with stream"}},
    # vLLM started without --enable-auto-tool-choice: with tools, tool_choice defaults to
    # "auto", so every request with tools is refused
    "tools_without_parser": {"object": "error", "type": "BadRequestError", "param": None,
                             "code": 400,
                             "message": "\"auto\" tool choice requires --enable-auto-tool-choice "
                                        "and --tool-call-parser to be set"},
    # vLLM started without --enable-auto-tool-choice
    "tool_choice": {"object": "error", "type": "BadRequestError", "param": None, "code": 400,
                    "message": "\"auto\" tool choice requires --enable-auto-tool-choice and "
                               "--tool-call-parser to be set"},
    # Azure OpenAI's older api-versions: stream_options is an unknown argument there
    "stream_options": {"error": {"message": "Unrecognized request argument supplied: "
                                            "stream_options",
                                 "type": "invalid_request_error", "param": None, "code": None}},
}
EXPECTS = frozenset({"has_image", "has_tree", "contains", "not_contains", "tool_result_for"})
STEP_KEYS = frozenset({
    # replies
    "text", "tool_calls", "text_after", "usage", "reasoning", "quirks", "chunk_delay_s",
    "output_tokens",
    # HTTP errors
    "status", "headers", "body", "retry_delay", "retry_after_ms", "quota",
    # faults
    "fault", "after_chunks", "megabytes", "data", "rst", "shape", "content_length",
    # any step
    "delay_s", "expect", "comment",
})

DEFAULT_SIGNATURE = "ZmFrZS10aG91Z2h0LXNpZ25hdHVyZQ=="  # base64("fake-thought-signature")

# A tree line of docs/contract.md §5: indent, [id], control type, "name", @(x,y).
TREE_LINE_RE = re.compile(
    r'^[ \t]*\[(\d+)\] (\w+) "((?:[^"\\\n]|\\.)*)"(?: @\((-?\d+),\s*(-?\d+)\))?', re.M)
TREE_HEADER_RE = re.compile(r"^Window: ", re.M)
PLACEHOLDER_RE = re.compile(
    r"^\$\{(element|element_x|element_y):([^:}]+):(.*)\}$"
    r"|^\$\{(color_x|color_y|tars_x|tars_y|pixel_x|pixel_y):([0-9A-Fa-f]{6})\}$"
    r"|^\$\{mark_at:(\d+):(\d+)\}$",
    re.S)
# A placeholder inside a reply's text (calls a model writes as text, e.g. UI-TARS).
INLINE_PLACEHOLDER_RE = re.compile(r"\$\{[^${}]+\}")

# UI-TARS-1.5 / Qwen2.5-VL "smart resize", as the model server applies it to an image.
TARS_FACTOR, TARS_MIN_PIXELS, TARS_MAX_PIXELS = 28, 100 * 28 * 28, 16384 * 28 * 28


def smart_resize(width, height):
    """(width, height) of the image the model sees: sides multiples of 28, bounded area;
    Python's round() as the servers' own code (qwen_vl_utils) uses it: halves to even."""
    import math
    rb = lambda v: max(TARS_FACTOR, round(v / TARS_FACTOR) * TARS_FACTOR)
    w, h = rb(width), rb(height)
    if w * h > TARS_MAX_PIXELS:
        beta = math.sqrt(width * height / TARS_MAX_PIXELS)
        w = max(TARS_FACTOR, int(math.floor(width / beta / TARS_FACTOR)) * TARS_FACTOR)
        h = max(TARS_FACTOR, int(math.floor(height / beta / TARS_FACTOR)) * TARS_FACTOR)
    elif w * h < TARS_MIN_PIXELS:
        beta = math.sqrt(TARS_MIN_PIXELS / (width * height))
        w = int(math.ceil(width * beta / TARS_FACTOR)) * TARS_FACTOR
        h = int(math.ceil(height * beta / TARS_FACTOR)) * TARS_FACTOR
    return w, h
# A numbered mark listed beside an image: [id] TYPE "NAME" bounds=[l,t][r,b] (0-999).
MARK_LINE_RE = re.compile(
    r'^\[(\d+)\] (\w+) "((?:[^"\\\n]|\\.)*)" bounds=\[(\d+),(\d+)\]\[(\d+),(\d+)\]', re.M)
GEMINI_PATH_RE = re.compile(r"/models/([^/:]+):(generateContent|streamGenerateContent)$")

GEMINI_STATUS = {
    400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
    404: "NOT_FOUND", 409: "ABORTED", 429: "RESOURCE_EXHAUSTED", 499: "CANCELLED",
    500: "INTERNAL", 501: "UNIMPLEMENTED", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}
GEMINI_MESSAGES = {
    400: "Request contains an invalid argument.",
    401: "Request had invalid authentication credentials.",
    403: "The caller does not have permission",
    404: "Requested entity was not found.",
    429: "Resource has been exhausted (e.g. check quota).",
    500: "An internal error has occurred. Please retry or report in "
         "https://developers.generativeai.google/guide/troubleshooting",
    503: "The model is overloaded. Please try again later.",
    504: "Deadline expired before operation could complete.",
}
OPENAI_ERRORS = {  # status -> (type, code, message)
    400: ("invalid_request_error", None, "Invalid request."),
    401: ("invalid_request_error", "invalid_api_key",
          "Incorrect API key provided. You can find your API key at "
          "https://platform.openai.com/account/api-keys."),
    403: ("permission_error", None, "You are not allowed to access this model."),
    404: ("invalid_request_error", "model_not_found",
          "The model does not exist or you do not have access to it."),
    429: ("requests", "rate_limit_exceeded",
          "Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. "
          "Please try again in 1s."),
    500: ("server_error", None,
          "The server had an error while processing your request. Sorry about that!"),
    503: ("server_error", None, "The engine is currently overloaded, please try again later."),
}


class ClientGone(Exception):
    """The client closed the connection (or the server is stopping) mid-answer."""


# --------------------------------------------------------------------------- scenario

class Scenario:
    """A validated scenario: a list of steps consumed one per model request.

    `source` is a dict, a JSON file path, or another Scenario. Raises ValueError with a
    message naming the bad step when the scenario is malformed (typos in quirk or fault
    names are caught here instead of silently doing nothing).
    """

    def __init__(self, source):
        if isinstance(source, Scenario):
            data = source.data
        elif isinstance(source, (str, os.PathLike)):
            with open(source, "r", encoding="utf-8") as f:
                data = json.load(f)
        elif isinstance(source, dict):
            data = source
        else:
            raise ValueError("scenario must be a dict or a JSON file path")
        self.data = copy.deepcopy(data)
        self.steps = self.data.get("steps")
        self.after_end = self.data.get("after_end", "error")
        self.refuse = self.data.get("refuse", [])
        # the model's output-token cap, as its service states it (strict.anthropic_output_cap)
        self.output_cap = self.data.get("output_cap")
        # the cloud platform the model is served on ("bedrock"), where it differs
        self.platform = self.data.get("platform")
        # the largest request body taken (the Messages API's own is 32 MB; a gateway's may be
        # less): a larger one is answered 413 request_too_large
        self.max_request_bytes = self.data.get("max_request_bytes")
        self._validate()
        self._next = 0
        self._lock = threading.Lock()

    def _validate(self):
        if not isinstance(self.steps, list):
            raise ValueError("scenario needs a \"steps\" list")
        if self.after_end not in ("error", "repeat_last"):
            raise ValueError("after_end must be \"error\" or \"repeat_last\"")
        if not isinstance(self.refuse, list) or set(self.refuse) - set(REFUSALS):
            raise ValueError("refuse must be a list among %s" % ", ".join(sorted(REFUSALS)))
        if self.output_cap is not None and (not isinstance(self.output_cap, int)
                                            or self.output_cap < 1):
            raise ValueError("output_cap must be a positive integer")
        if self.platform not in (None, "bedrock"):
            raise ValueError("platform must be \"bedrock\"")
        if self.max_request_bytes is not None and (not isinstance(self.max_request_bytes, int)
                                                   or self.max_request_bytes < 1):
            raise ValueError("max_request_bytes must be a positive integer")
        unknown = set(self.data) - {"steps", "after_end", "refuse", "output_cap", "platform",
                                    "max_request_bytes", "comment"}
        if unknown:
            raise ValueError("scenario has unknown keys: %s" % ", ".join(sorted(unknown)))
        for i, step in enumerate(self.steps):
            where = "step %d" % i
            if not isinstance(step, dict):
                raise ValueError("%s is not an object" % where)
            unknown = set(step) - STEP_KEYS
            if unknown:
                raise ValueError("%s has unknown keys: %s" % (where, ", ".join(sorted(unknown))))
            if "fault" in step:
                if step["fault"] not in FAULTS:
                    raise ValueError("%s: unknown fault %r (known: %s)"
                                     % (where, step["fault"], ", ".join(sorted(FAULTS))))
                if step["fault"] == "raw" and not isinstance(step.get("data"), str):
                    raise ValueError("%s: fault raw needs a \"data\" string" % where)
            elif "status" in step:
                if not isinstance(step["status"], int) or not 100 <= step["status"] <= 599:
                    raise ValueError("%s: status must be an HTTP status code" % where)
                if step.get("quota") not in (None, "daily", "minute"):
                    raise ValueError("%s: quota must be \"daily\" or \"minute\"" % where)
            quirks = step.get("quirks", {})
            if not isinstance(quirks, dict):
                raise ValueError("%s: quirks must be an object" % where)
            unknown = set(quirks) - QUIRKS
            if unknown:
                raise ValueError("%s: unknown quirks: %s (known: %s)"
                                 % (where, ", ".join(sorted(unknown)), ", ".join(sorted(QUIRKS))))
            if quirks.get("calls_as_text", "hermes") not in TEXT_CALL_FORMATS:
                raise ValueError("%s: calls_as_text must be one of %s"
                                 % (where, ", ".join(sorted(TEXT_CALL_FORMATS))))
            expect = step.get("expect", {})
            if not isinstance(expect, dict) or set(expect) - EXPECTS:
                raise ValueError("%s: expect must be an object with keys among %s"
                                 % (where, ", ".join(sorted(EXPECTS))))
            calls = step.get("tool_calls", [])
            if not isinstance(calls, list):
                raise ValueError("%s: tool_calls must be a list" % where)
            for call in calls:
                if not isinstance(call, dict) or not isinstance(call.get("name"), str):
                    raise ValueError("%s: every tool call needs a \"name\"" % where)

    def take(self):
        """Consume the next step: returns (index, deep copy of step) or (None, None) when
        the scenario is exhausted and after_end is "error"."""
        with self._lock:
            i = self._next
            if i < len(self.steps):
                self._next += 1
                return i, copy.deepcopy(self.steps[i])
            if self.after_end == "repeat_last" and self.steps:
                return len(self.steps) - 1, copy.deepcopy(self.steps[-1])
            self._next += 1
            return None, None

    @property
    def consumed(self):
        """How many steps (or exhausted requests) have been taken so far."""
        return self._next


# ------------------------------------------------------------------ request inspection

class ModelRequest:
    """What the server knows about one model request."""

    def __init__(self, provider, path, query, headers, raw, body, model, stream, sse):
        self.provider = provider      # "openai" | "gemini"
        self.path = path
        self.query = query
        self.headers = headers
        self.raw = raw
        self.body = body if isinstance(body, dict) else {}
        self.model = model
        self.stream = stream
        self.sse = sse                # Gemini: alt=sse (else a streamed JSON array)
        opts = self.body.get("stream_options") or {}
        self.include_usage = isinstance(opts, dict) and opts.get("include_usage") is True
        self.n = 0
        self.notes = {}               # what strict.py noted: done silently, or edited
        self.prompt_tokens = None     # the service's own count, where the fake models it


def _iter_strings(obj):
    """Yield every string inside a JSON value, in document order."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _iter_strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _iter_strings(v)


def _expand_strings(obj):
    """Like _iter_strings, but a string that is itself a JSON document (a tool result
    serialised into a string) also yields the strings inside it, right after itself."""
    for s in _iter_strings(obj):
        yield s
        t = s.lstrip()
        if t[:1] in ("{", "[") and len(t) < 20_000_000:
            try:
                inner = json.loads(t)
            except ValueError:
                continue
            yield from _iter_strings(inner)


def observation_texts(req):
    """Texts of the request that may carry an observation, oldest first: OpenAI tool and
    user messages; Gemini non-model text parts and functionResponse contents."""
    out = []
    if req.provider in WIRES:
        return WIRES[req.provider].observation_texts(req.body, _expand_strings)
    if req.provider == "openai":
        for msg in req.body.get("messages") or []:
            if isinstance(msg, dict) and msg.get("role") in ("tool", "user"):
                out.extend(s for s in _expand_strings(msg.get("content"))
                           if not s.startswith("data:"))
    else:
        for content in req.body.get("contents") or []:
            if not isinstance(content, dict) or content.get("role") == "model":
                continue
            for part in content.get("parts") or []:
                if not isinstance(part, dict):
                    continue
                if isinstance(part.get("text"), str):
                    out.extend(_expand_strings(part["text"]))
                fr = part.get("functionResponse") or part.get("function_response")
                if isinstance(fr, dict):
                    out.extend(_expand_strings({k: v for k, v in fr.items()
                                                if k not in ("name", "id")}))
    return out


def _unescape_name(s):
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), s)


def parse_tree(text):
    """Return the tree lines [(id, type, name, x, y)] of the last tree in `text`, or None.

    When the text holds several observations (several "Window:" headers), only the lines
    of the last header that is followed by tree lines count.
    """
    matches = list(TREE_LINE_RE.finditer(text))
    if not matches:
        return None
    headers = [m.start() for m in TREE_HEADER_RE.finditer(text)]
    bounds = headers + [len(text) + 1]
    for j in range(len(headers) - 1, -1, -1):
        seg = [m for m in matches if bounds[j] < m.start() < bounds[j + 1]]
        if seg:
            matches = seg
            break
    lines = []
    for m in matches:
        x = int(m.group(4)) if m.group(4) is not None else None
        y = int(m.group(5)) if m.group(5) is not None else None
        lines.append((int(m.group(1)), m.group(2), _unescape_name(m.group(3)), x, y))
    return lines


def latest_marks(req):
    """The numbered marks [(id, l, t, r, b)] listed with the latest marked image, or None."""
    for text in reversed(observation_texts(req)):
        found = [(int(m.group(1)), int(m.group(4)), int(m.group(5)), int(m.group(6)),
                  int(m.group(7))) for m in MARK_LINE_RE.finditer(text)]
        if found:
            return found
    return None


def latest_tree(req):
    """The tree lines of the latest observation in the request, or None."""
    for text in reversed(observation_texts(req)):
        lines = parse_tree(text)
        if lines:
            return lines
    return None


def request_images(req):
    """All images in the request, oldest first, as (mime type, base64 data)."""
    images = []

    def walk(obj):
        if isinstance(obj, dict):
            iu = obj.get("image_url")
            if iu is not None:
                url = iu.get("url") if isinstance(iu, dict) else iu
                if isinstance(url, str) and url.startswith("data:"):
                    head, _, data = url.partition(",")
                    images.append((head[5:].split(";")[0], data))
            inline = obj.get("inlineData") or obj.get("inline_data")
            if isinstance(inline, dict) and isinstance(inline.get("data"), str):
                images.append((inline.get("mimeType") or inline.get("mime_type") or "", inline["data"]))
            src = obj.get("source") if obj.get("type") == "image" else None  # Anthropic
            if isinstance(src, dict) and src.get("type") == "base64" and \
                    isinstance(src.get("data"), str):
                images.append((src.get("media_type") or "", src["data"]))
            for k, v in obj.items():
                if k not in ("image_url", "inlineData", "inline_data"):
                    walk(v)
        elif isinstance(obj, list):
            for v in obj:
                walk(v)

    if req.provider in WIRES:
        walk(WIRES[req.provider].image_roots(req.body))
    elif req.provider == "openai":
        walk(req.body.get("messages"))
    else:
        walk(req.body.get("contents"))
    return images


_png_cache = collections.OrderedDict()
_png_cache_lock = threading.Lock()


def _decode_cached(b64):
    """Decode a base64 PNG, keeping the last few results (history resends old images)."""
    with _png_cache_lock:
        if b64 in _png_cache:
            _png_cache.move_to_end(b64)
            return _png_cache[b64]
    try:
        data = base64.b64decode(b64, validate=False)
    except (binascii.Error, ValueError) as exc:
        raise png_decode.PNGError("bad base64 image data: %s" % exc) from None
    image = png_decode.decode_png(data)
    with _png_cache_lock:
        _png_cache[b64] = image
        while len(_png_cache) > 4:
            _png_cache.popitem(last=False)
    return image


class TemplateError(Exception):
    """A placeholder could not be resolved from the request."""


class _Resolver:
    """Resolves ${...} placeholders against one request, looking things up lazily."""

    def __init__(self, req):
        self.req = req
        self._tree = False
        self._image = False

    def tree(self):
        if self._tree is False:
            self._tree = latest_tree(self.req)
        return self._tree

    def image(self):
        if self._image is False:
            images = request_images(self.req)
            if not images:
                self._image = None
            else:
                mime, data = images[-1]
                if mime and mime.lower() != "image/png":
                    raise TemplateError("fake_llm: the latest image is %s, not PNG" % mime)
                try:
                    self._image = _decode_cached(data)
                except png_decode.PNGError as exc:
                    raise TemplateError("fake_llm: cannot decode the latest image: %s" % exc)
        return self._image

    def resolve(self, placeholder):
        m = PLACEHOLDER_RE.match(placeholder)
        if m.group(6):
            x, y = int(m.group(6)), int(m.group(7))
            marks = latest_marks(self.req)
            if not marks:
                raise TemplateError("fake_llm: no numbered marks in the request (needed for %s)"
                                    % placeholder)
            for (eid, l, t, r, b) in marks:
                if l <= x <= r and t <= y <= b:
                    return eid
            raise TemplateError("fake_llm: no numbered mark holds (%d,%d)" % (x, y))
        if m.group(1):
            kind, ctype, name = m.group(1), m.group(2), m.group(3)
            lines = self.tree()
            if not lines:
                raise TemplateError("fake_llm: no accessibility tree in the request (needed for %s)"
                                    % placeholder)
            for (eid, t, n, x, y) in lines:
                if (ctype == "*" or t == ctype) and n == name:
                    if kind == "element":
                        return eid
                    if x is None:
                        raise TemplateError("fake_llm: tree line [%d] %s \"%s\" has no @(x,y)"
                                            % (eid, t, n))
                    return x if kind == "element_x" else y
            raise TemplateError("fake_llm: no tree line matching %s \"%s\"" % (ctype, name))
        kind, hexrgb = m.group(4), m.group(5)
        image = self.image()
        if image is None:
            raise TemplateError("fake_llm: no PNG image in the request (needed for %s)" % placeholder)
        rgb = tuple(int(hexrgb[i:i + 2], 16) for i in (0, 2, 4))
        found = png_decode.find_colour(image, rgb, 8)
        if found is None:
            raise TemplateError("fake_llm: no pixels of colour #%s (+-8) in the latest image (%dx%d)"
                                % (hexrgb.upper(), image.width, image.height))
        cx, cy, _ = found
        if kind in ("tars_x", "tars_y"):  # pixels of the smart-resized image
            rw, rh = smart_resize(image.width, image.height)
            if kind == "tars_x":
                return int(round(cx * rw / image.width))
            return int(round(cy * rh / image.height))
        if kind in ("pixel_x", "pixel_y"):  # pixels of the image as sent
            return int(round(cx if kind == "pixel_x" else cy))
        if kind == "color_x":
            return png_decode.to_frame(cx, image.width)
        return png_decode.to_frame(cy, image.height)


def resolve_templates(step, req):
    """Replace placeholders inside the step's tool-call arguments, in place.

    Returns None, or an error message naming every placeholder that could not be resolved.
    """
    resolver = _Resolver(req)
    errors = []

    def sub(value):
        if isinstance(value, str) and PLACEHOLDER_RE.match(value):
            try:
                return resolver.resolve(value)
            except TemplateError as exc:
                if str(exc) not in errors:
                    errors.append(str(exc))
                return value
        if isinstance(value, dict):
            return {k: sub(v) for k, v in value.items()}
        if isinstance(value, list):
            return [sub(v) for v in value]
        return value

    for call in step.get("tool_calls") or []:
        if "arguments" in call:
            call["arguments"] = sub(call["arguments"])
    if isinstance(step.get("text"), str):  # placeholders inside text become numbers
        step["text"] = INLINE_PLACEHOLDER_RE.sub(lambda m: str(sub(m.group(0))), step["text"])
    return "; ".join(errors) if errors else None


def check_expect(expect, req):
    """Check a step's "expect" assertions; returns a list of failure messages."""
    failures = []
    if "has_image" in expect and bool(request_images(req)) != bool(expect["has_image"]):
        failures.append("expected %s image in the request" % ("an" if expect["has_image"] else "no"))
    if "has_tree" in expect and bool(latest_tree(req)) != bool(expect["has_tree"]):
        failures.append("expected %s accessibility tree in the request"
                        % ("an" if expect["has_tree"] else "no"))
    if "contains" in expect or "not_contains" in expect:
        hay = "\n".join(_expand_strings(req.body)) + "\n" + req.raw.decode("utf-8", "replace")
        for s in _as_list(expect.get("contains")):
            if s not in hay:
                failures.append("request does not contain %r" % s)
        for s in _as_list(expect.get("not_contains")):
            if s in hay:
                failures.append("request contains %r" % s)
    if "tool_result_for" in expect:
        want = expect["tool_result_for"]
        if not _has_tool_result(req, want):
            failures.append("no tool result for call %r in the request" % want)
    return failures


def _as_list(v):
    if v is None:
        return []
    return v if isinstance(v, list) else [v]


def _has_tool_result(req, call_id):
    if req.provider in WIRES:
        return WIRES[req.provider].has_tool_result(req.body, call_id)
    if req.provider == "openai":
        return any(isinstance(m, dict) and m.get("role") == "tool" and m.get("tool_call_id") == call_id
                   for m in req.body.get("messages") or [])
    for content in req.body.get("contents") or []:
        for part in (content.get("parts") or []) if isinstance(content, dict) else []:
            fr = isinstance(part, dict) and (part.get("functionResponse") or part.get("function_response"))
            if isinstance(fr, dict) and call_id in (fr.get("id"), fr.get("name")):
                return True
    return False


def refusal(refuse, req):
    """The first of the scenario's refusals this OpenAI request runs into, or None."""
    if req.provider != "openai":
        return None
    body = req.body
    if "images_in_tool" in refuse:
        for msg in body.get("messages") or []:
            if isinstance(msg, dict) and msg.get("role") == "tool" and \
                    not isinstance(msg.get("content"), str) and \
                    any(not (isinstance(p, dict) and p.get("type") == "text")
                        for p in (msg.get("content") or [])):
                return "images_in_tool"
    if "stream_with_tools" in refuse and body.get("stream") is True and body.get("tools"):
        return "stream_with_tools"
    if "tool_choice" in refuse and "tool_choice" in body:
        return "tool_choice"
    if "tools_without_parser" in refuse and body.get("tools"):
        return "tools_without_parser"
    if "stream_options" in refuse and "stream_options" in body:
        return "stream_options"
    return None


# Gemini computer use (model-protocols.md): the predefined functions of both action sets.
GEMINI_ENVIRONMENTS = ("ENVIRONMENT_BROWSER", "ENVIRONMENT_DESKTOP", "ENVIRONMENT_MOBILE")
GEMINI_PREDEFINED = frozenset({
    "open_web_browser", "click_at", "hover_at", "type_text_at", "scroll_document", "scroll_at",
    "wait_5_seconds", "go_back", "go_forward", "search", "navigate", "key_combination",
    "drag_and_drop",
    "click", "double_click", "triple_click", "middle_click", "right_click", "mouse_down",
    "mouse_up", "move", "type", "scroll", "wait", "press_key", "key_down", "key_up", "hotkey",
    "take_screenshot",
})


def gemini_computer_errors(body):
    """What a Gemini server would refuse in a request that declares computerUse: the tool's
    shape, custom functions named like predefined ones, and a predefined call answered
    without its screenshot inside the function response (or with a malformed safety
    acknowledgement). [] when the request has no computerUse or is well formed."""
    tools = body.get("tools")
    if not isinstance(tools, list):
        return []
    errors, computer, declared = [], None, set()
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict):
            errors.append("tools[%d] is not an object" % i)
            continue
        kinds = [k for k in ("computerUse", "functionDeclarations", "googleSearch") if k in tool]
        if len(kinds) != 1:
            errors.append("tools[%d] must hold exactly one kind of tool, has %s" % (i, kinds))
        if "computerUse" in tool:
            if computer is not None:
                errors.append("more than one computerUse tool")
            computer = tool["computerUse"]
        for d in tool.get("functionDeclarations") or []:
            if isinstance(d, dict):
                declared.add(d.get("name"))
    if computer is None:
        return errors
    if not isinstance(computer, dict) or computer.get("environment") not in GEMINI_ENVIRONMENTS:
        errors.append("computerUse.environment must be one of %s" % ", ".join(GEMINI_ENVIRONMENTS))
        return errors
    excluded = computer.get("excludedPredefinedFunctions", [])
    if not isinstance(excluded, list) or any(e not in GEMINI_PREDEFINED for e in excluded):
        errors.append("excludedPredefinedFunctions must list predefined functions: %r" % excluded)
    clash = declared & GEMINI_PREDEFINED
    if clash:
        errors.append("custom functions named like predefined ones: %s" % sorted(clash))
    calls = {}  # id or name -> args, of predefined calls
    contents = body.get("contents") or []
    last = None  # the latest turn's last answer to the computer tool, which has its screenshot
    for part in (contents[-1].get("parts") or []) if contents and isinstance(contents[-1], dict) \
            else []:
        fr = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(fr, dict) and fr.get("name") not in declared:
            last = fr
    for content in contents:
        for part in (content.get("parts") or []) if isinstance(content, dict) else []:
            if not isinstance(part, dict):
                continue
            fc = part.get("functionCall")
            if isinstance(fc, dict) and fc.get("name") not in declared:
                calls[fc.get("id") or fc.get("name")] = fc.get("args") or {}
            fr = part.get("functionResponse")
            if not isinstance(fr, dict) or fr.get("name") in declared:
                continue
            key = fr.get("id") or fr.get("name")
            if key not in calls:
                errors.append("functionResponse %r answers no call of the computer tool" % key)
                continue
            # older answers may drop their screenshots, as the reference client does; the
            # latest one carries its own
            images = [p.get("inlineData") for p in fr.get("parts") or [] if isinstance(p, dict)]
            if (images or fr is last) and not (images and all(
                    isinstance(im, dict) and im.get("mimeType") == "image/png"
                    and isinstance(im.get("data"), str) and im["data"] for im in images)):
                errors.append("functionResponse %r carries no PNG screenshot in its parts" % key)
            resp = fr.get("response")
            if not isinstance(resp, dict):
                errors.append("functionResponse %r has no response object" % key)
            elif "safety_acknowledgement" in resp:
                asked = ((calls[key].get("safety_decision") or {}).get("decision")
                         == "require_confirmation")
                if resp["safety_acknowledgement"] != "true" or not asked:
                    errors.append("functionResponse %r: safety_acknowledgement must be \"true\" "
                                  "and answer a require_confirmation" % key)
    return errors


def estimate_prompt_tokens(req):
    """Invent a plausible prompt token count: text characters / 4 plus 258 per image."""
    images = request_images(req)
    payloads = {d for _, d in images}
    chars = sum(len(s) for s in _iter_strings(req.body)
                if not s.startswith("data:") and s not in payloads)
    return max(1, chars // 4) + 258 * len(images)


# ------------------------------------------------------------------------ rendering

def split_pieces(s, pieces=4):
    """Split a string into up to `pieces` parts of similar length (always >= 2 parts when
    the string has 2+ characters), the way streaming servers cut text at odd places."""
    n = max(1, min(pieces, len(s)))
    if len(s) >= 2:
        n = max(n, 2)
    size = -(-len(s) // n)
    return [s[i:i + size] for i in range(0, len(s), size)] or [""]


class Reply:
    """A reply step normalised for rendering."""

    def __init__(self, step, req, n):
        self.text = step.get("text") or ""
        self.reasoning = step.get("reasoning") or ""
        # text the model wrote after its calls (Chat Completions keeps no order: there it
        # is more content, streamed after the calls)
        self.text_after = step.get("text_after") or ""
        self.quirks = step.get("quirks") or {}
        self.calls = []
        raw_override = self.quirks.get("invalid_arguments")
        for i, call in enumerate(step.get("tool_calls") or []):
            if raw_override is not None:
                args = str(raw_override)
            else:
                args = call.get("arguments", {})
            self.calls.append({
                "name": call["name"],
                "arguments": args,                       # dict, or a raw string
                "id": call.get("id"),                    # None when the step gave none
                "default_id": "call_%d_%d" % (n, i + 1),
            })
        if self.quirks.get("calls_as_text"):  # no tool parser: the calls stay text
            self.text = calls_as_text(self.text, self.calls, self.quirks["calls_as_text"])
            if self.text_after:
                self.text += "\n" + self.text_after
                self.text_after = ""
            self.calls = []
        # the output tokens the reply takes, thinking included (a request asking for fewer
        # gets it cut at its max_tokens)
        self.output_tokens = step.get("output_tokens")
        usage = step.get("usage") or {}
        prompt = usage.get("prompt_tokens")
        if prompt is None:
            prompt = req.prompt_tokens if req.prompt_tokens is not None \
                else estimate_prompt_tokens(req)
        completion = usage.get("completion_tokens")
        if completion is None:
            completion = max(1, (len(self.text) + len(self.text_after) + len(self.reasoning)) // 4) \
                + 12 * len(self.calls)
        self.prompt_tokens = int(prompt)
        self.completion_tokens = int(completion)
        self.total_tokens = int(usage.get("total_tokens", self.prompt_tokens + self.completion_tokens))

    def args_string(self, call):
        a = call["arguments"]
        return a if isinstance(a, str) else json.dumps(a, ensure_ascii=False)

    def openai_id(self, call):
        if self.quirks.get("empty_ids"):
            return ""
        return call["id"] if call["id"] is not None else call["default_id"]


def calls_as_text(text, calls, fmt):
    """The content a server without a tool parser returns: the model's text, then its
    calls as the chat template has the model write them."""
    def args_of(call):
        a = call["arguments"]
        return json.loads(a) if isinstance(a, str) else a
    out = [text] if text else []
    if fmt == "json":  # Llama 3.1: one bare object per turn
        call = calls[0]
        return json.dumps({"name": call["name"], "parameters": args_of(call)}, ensure_ascii=False)
    for call in calls:
        if fmt == "hermes":
            out.append("<tool_call>\n%s\n</tool_call>" % json.dumps(
                {"name": call["name"], "arguments": args_of(call)}, ensure_ascii=False))
        else:  # qwen3_coder
            params = "".join("<parameter=%s>\n%s\n</parameter>\n"
                             % (k, v if isinstance(v, str) else json.dumps(v))
                             for k, v in args_of(call).items())
            out.append("<tool_call>\n<function=%s>\n%s</function>\n</tool_call>"
                       % (call["name"], params))
    return "\n".join(out)


def openai_usage(reply):
    return {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.total_tokens}


def _openai_finish(reply):
    if reply.quirks.get("finish_reason"):
        return reply.quirks["finish_reason"]
    return "tool_calls" if reply.calls else "stop"


def openai_completion(reply, req):
    """A non-streaming `chat.completion` object."""
    q = reply.quirks
    text = reply.text + reply.text_after
    msg = {"role": "assistant",
           "content": text if text or not q.get("content_null") else None,
           "refusal": None}
    if reply.reasoning:
        msg[q.get("reasoning_field") or "reasoning_content"] = reply.reasoning
    if reply.calls:
        calls = []
        for call in reply.calls:
            tc = {"id": reply.openai_id(call), "type": "function",
                  "function": {"name": call["name"],
                               "arguments": call["arguments"] if q.get("args_as_object")
                               and not isinstance(call["arguments"], str)
                               else reply.args_string(call)}}
            if q.get("missing_ids"):
                del tc["id"]
            calls.append(tc)
        msg["tool_calls"] = calls
    return {
        "id": "chatcmpl-fake%d" % req.n, "object": "chat.completion",
        "created": int(time.time()), "model": req.model, "system_fingerprint": "fp_fake",
        "choices": [{"index": 0, "message": msg, "logprobs": None,
                     "finish_reason": _openai_finish(reply)}],
        "usage": openai_usage(reply),
    }


def openai_chunks(reply, req):
    """The `chat.completion.chunk` objects of a streamed reply (without [DONE])."""
    q = reply.quirks
    base = {"id": "chatcmpl-fake%d" % req.n, "object": "chat.completion.chunk",
            "created": int(time.time()), "model": req.model, "system_fingerprint": "fp_fake"}

    def chunk(delta, finish=None):
        c = dict(base)
        c["choices"] = [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
        if req.include_usage:
            c["usage"] = None
        return c

    def tool_delta(tc):
        if q.get("omit_index"):
            tc.pop("index", None)
        d = {"tool_calls": [tc]}
        if q.get("content_null"):
            d["content"] = None
        return d

    out = [chunk({"role": "assistant", "content": None if q.get("content_null") else ""})]
    field = q.get("reasoning_field") or "reasoning_content"
    if reply.reasoning:
        out.extend(chunk({field: p}) for p in split_pieces(reply.reasoning))
    if reply.text:
        out.extend(chunk({"content": p}) for p in split_pieces(reply.text))
    for i, call in enumerate(reply.calls):
        head = {"index": i, "id": reply.openai_id(call), "type": "function",
                "function": {"name": call["name"], "arguments": ""}}
        if q.get("missing_ids"):
            del head["id"]
        whole = q.get("whole_chunk") or (q.get("args_as_object")
                                         and not isinstance(call["arguments"], str))
        if whole:
            head["function"]["arguments"] = (call["arguments"] if q.get("args_as_object")
                                             and not isinstance(call["arguments"], str)
                                             else reply.args_string(call))
            out.append(chunk(tool_delta(head)))
            continue
        out.append(chunk(tool_delta(head)))
        for piece in split_pieces(reply.args_string(call), 3):
            out.append(chunk(tool_delta({"index": i, "function": {"arguments": piece}})))
    if reply.text_after:
        out.extend(chunk({"content": p}) for p in split_pieces(reply.text_after))
    out.append(chunk({}, _openai_finish(reply)))
    if req.include_usage:
        last = dict(base)
        last["choices"] = []
        last["usage"] = openai_usage(reply)
        out.append(last)
    return out


def _gemini_usage(reply, final=True):
    if not final:
        return {"promptTokenCount": reply.prompt_tokens, "totalTokenCount": reply.prompt_tokens}
    return {"promptTokenCount": reply.prompt_tokens,
            "candidatesTokenCount": reply.completion_tokens,
            "totalTokenCount": reply.total_tokens}


def _gemini_signature(reply):
    sig = reply.quirks.get("thought_signature")
    if not sig:
        return None
    return sig if isinstance(sig, str) else DEFAULT_SIGNATURE


def _gemini_calls(reply):
    """Function-call parts, and the finishMessage when the arguments are not valid JSON
    (real Gemini then answers MALFORMED_FUNCTION_CALL with no call at all)."""
    parts = []
    malformed = None
    for call in reply.calls:
        args = call["arguments"]
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                malformed = "Malformed function call: %s(%s)" % (call["name"], call["arguments"])
                continue
        fc = {"name": call["name"], "args": args}
        if reply.quirks.get("empty_ids"):
            fc["id"] = ""
        elif call["id"] is not None and not reply.quirks.get("missing_ids"):
            fc["id"] = call["id"]
        parts.append({"functionCall": fc})
    return parts, malformed


def _gemini_finish(reply, malformed):
    override = reply.quirks.get("gemini_finish")
    if override:
        return override
    return "MALFORMED_FUNCTION_CALL" if malformed else "STOP"


def _gemini_envelope(req, candidate, usage):
    return {"candidates": [candidate], "usageMetadata": usage,
            "modelVersion": req.model, "responseId": "fake-%d" % req.n}


def _gemini_blocked(reply, req):
    return {"promptFeedback": {"blockReason": reply.quirks["block_reason"],
                               "safetyRatings": [{"category": "HARM_CATEGORY_DANGEROUS_CONTENT",
                                                  "probability": "HIGH", "blocked": True}]},
            "usageMetadata": {"promptTokenCount": reply.prompt_tokens,
                              "totalTokenCount": reply.prompt_tokens},
            "modelVersion": req.model, "responseId": "fake-%d" % req.n}


def gemini_response(reply, req):
    """A non-streaming GenerateContentResponse."""
    if reply.quirks.get("block_reason"):
        return _gemini_blocked(reply, req)
    parts = []
    if reply.reasoning:
        parts.append({"text": reply.reasoning, "thought": True})
    if reply.text:
        parts.append({"text": reply.text})
    calls, malformed = _gemini_calls(reply)
    finish = _gemini_finish(reply, malformed)
    if finish == "MALFORMED_FUNCTION_CALL":
        calls = []
        malformed = malformed or "Malformed function call."
    parts.extend(calls)
    if reply.text_after:
        parts.append({"text": reply.text_after})
    sig = _gemini_signature(reply)
    if sig:
        target = calls[0] if calls else (parts[-1] if reply.text else None)
        if target is None:
            target = {"text": ""}
            parts.append(target)
        target["thoughtSignature"] = sig
    candidate = {"index": 0, "finishReason": finish}
    if parts:
        candidate["content"] = {"role": "model", "parts": parts}
    if malformed:
        candidate["finishMessage"] = malformed
    return _gemini_envelope(req, candidate, _gemini_usage(reply))


def gemini_chunks(reply, req):
    """The GenerateContentResponse chunks of a streamed reply: text split over several
    chunks, function calls whole in the last one, finishReason and full usage at the end."""
    if reply.quirks.get("block_reason"):
        return [_gemini_blocked(reply, req)]
    part_lists = []
    if reply.reasoning:
        part_lists.extend([{"text": p, "thought": True}] for p in split_pieces(reply.reasoning))
    if reply.text:
        part_lists.extend([{"text": p}] for p in split_pieces(reply.text))
    calls, malformed = _gemini_calls(reply)
    finish = _gemini_finish(reply, malformed)
    if finish == "MALFORMED_FUNCTION_CALL":
        calls = []
        malformed = malformed or "Malformed function call."
    final = list(calls)
    sig = _gemini_signature(reply)
    if sig:
        if final:
            final[0]["thoughtSignature"] = sig
        else:
            final.append({"text": "", "thoughtSignature": sig})
    if final:
        part_lists.append(final)
    if reply.text_after:
        part_lists.extend([{"text": p}] for p in split_pieces(reply.text_after))
    if not part_lists and finish == "STOP":
        part_lists.append([{"text": ""}])
    chunks = []
    for parts in part_lists:
        chunks.append(_gemini_envelope(req, {"index": 0, "content": {"role": "model", "parts": parts}},
                                       _gemini_usage(reply, final=False)))
    if not chunks:
        chunks.append(_gemini_envelope(req, {"index": 0}, {}))
    last = chunks[-1]
    last["candidates"][0]["finishReason"] = finish
    if malformed:
        last["candidates"][0]["finishMessage"] = malformed
    last["usageMetadata"] = _gemini_usage(reply)
    return chunks


def render_whole(reply, req):
    """A non-streamed reply in the request's format."""
    if req.provider in WIRES:
        return WIRES[req.provider].response(reply, req)
    return openai_completion(reply, req) if req.provider == "openai" else gemini_response(reply, req)


def error_body(provider, status, step, model):
    """The provider's real error shape for an HTTP error step (used when no body is given)."""
    quota = step.get("quota")
    if provider == "anthropic":
        return WIRES["anthropic"].error_body(status, step)
    if provider in ("openai", "responses"):
        etype, code, message = OPENAI_ERRORS.get(
            status, ("server_error" if status >= 500 else "invalid_request_error", None,
                     "fake_llm: scripted HTTP %d" % status))
        if quota == "daily":
            etype, code = "insufficient_quota", "insufficient_quota"
            message = ("You exceeded your current quota, please check your plan and billing "
                       "details. For more information on this error, read the docs: "
                       "https://platform.openai.com/docs/guides/error-codes/api-errors.")
        elif quota == "minute":
            etype, code = "tokens", "rate_limit_exceeded"
            message = ("Rate limit reached for %s on tokens per min (TPM): Limit 30000, "
                       "Used 29000, Requested 2000. Please try again in 2s." % model)
        return {"error": {"message": message, "type": etype, "param": None, "code": code}}
    message = GEMINI_MESSAGES.get(status, "fake_llm: scripted HTTP %d" % status)
    details = []
    if quota:
        message = ("You exceeded your current quota, please check your plan and billing details. "
                   "For more information on this error, head to: "
                   "https://ai.google.dev/gemini-api/docs/rate-limits.")
        per = "Day" if quota == "daily" else "Minute"
        details.append({
            "@type": "type.googleapis.com/google.rpc.QuotaFailure",
            "violations": [{
                "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                "quotaId": "GenerateRequestsPer%sPerProjectPerModel-FreeTier" % per,
                "quotaDimensions": {"location": "global", "model": model},
                "quotaValue": "250" if quota == "daily" else "10",
            }]})
        details.append({"@type": "type.googleapis.com/google.rpc.Help",
                        "links": [{"description": "Learn more about Gemini API quotas",
                                   "url": "https://ai.google.dev/gemini-api/docs/rate-limits"}]})
    if step.get("retry_delay"):
        details.append({"@type": "type.googleapis.com/google.rpc.RetryInfo",
                        "retryDelay": step["retry_delay"]})
    err = {"code": status, "message": message, "status": GEMINI_STATUS.get(status, "UNKNOWN")}
    if details:
        err["details"] = details
    return {"error": err}


def stream_error_object(provider):
    """The error object a server sends as a data line when it fails mid-stream."""
    if provider in WIRES:
        return WIRES[provider].stream_error()
    if provider == "openai":
        return {"error": {"message": "fake_llm: the upstream model failed mid-stream",
                          "type": "server_error", "param": None, "code": "server_error"}}
    return {"error": {"code": 500, "message": GEMINI_MESSAGES[500], "status": "INTERNAL"}}


def _dumps(obj):
    """Compact UTF-8 JSON, as the real APIs send it."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


# ------------------------------------------------------------------------ HTTP server

class _HTTPServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.reset_requests = set()  # sockets to close with a TCP RST (SO_LINGER 0)

    def shutdown_request(self, request):
        """Close a connection; a socket marked for reset skips the graceful FIN."""
        if request in self.reset_requests:
            self.reset_requests.discard(request)
            self.close_request(request)
            return
        super().shutdown_request(request)

    def handle_error(self, request, client_address):
        """Connection errors are normal here (clients hang up on purpose); log others."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError, ClientGone)):
            return
        super().handle_error(request, client_address)


class _Handler(http.server.BaseHTTPRequestHandler):
    """One connection; HTTP/1.1 with keep-alive, chunked transfer for streams."""

    protocol_version = "HTTP/1.1"
    server_version = "fake_llm/1.0"
    timeout = 120  # idle keep-alive connections are dropped after this many seconds

    # -- plumbing

    @property
    def fake(self):
        return self.server.fake

    def setup(self):
        super().setup()
        try:
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass
        self.fake._track(self.connection, True)

    def finish(self):
        try:
            super().finish()
        except OSError:
            pass
        self.fake._track(self.connection, False)

    def handle(self):
        try:
            super().handle()
        except (ConnectionError, TimeoutError, ClientGone):
            self.close_connection = True

    def version_string(self):
        return self.server_version

    def log_request(self, code="-", size="-"):
        """Requests are logged once, by FakeLLM._add_record, with more detail."""

    def log_message(self, fmt, *args):
        if self.fake.verbose:
            sys.stderr.write("fake_llm: %s\n" % (fmt % args))

    def do_GET(self):
        self._dispatch()

    def do_POST(self):
        self._dispatch()

    def do_PUT(self):
        self._dispatch()

    def do_DELETE(self):
        self._dispatch()

    def do_PATCH(self):
        self._dispatch()

    def _read_body(self):
        """Read the request body (Content-Length or chunked)."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            data = bytearray()
            while True:
                size_line = self.rfile.readline(65537)
                if not size_line:
                    raise ClientGone()
                size = int(size_line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(data)
                data += self.rfile.read(size)
                self.rfile.readline(65537)
        length = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(length) if length > 0 else b""
        if len(data) < length:
            raise ClientGone()
        return data

    def _headers_dict(self):
        out = {}
        for k, v in self.headers.items():
            out[k] = out[k] + ", " + v if k in out else v
        return out

    def _write(self, data):
        try:
            self.wfile.write(data)
        except (ConnectionError, OSError) as exc:
            raise ClientGone() from exc

    def _begin(self, status, headers, chunked):
        """Send the status line and headers. With chunked=True the body is sent with
        chunked transfer encoding (or, for HTTP/1.0 clients, delimited by closing)."""
        self._chunked = chunked and self.request_version != "HTTP/1.0"
        if chunked and not self._chunked:
            self.close_connection = True
        self._headers_sent = True
        try:
            self.send_response(status)
            for k, v in headers:
                self.send_header(k, v)
            if self._chunked:
                self.send_header("Transfer-Encoding", "chunked")
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
        except (ConnectionError, OSError) as exc:
            raise ClientGone() from exc

    def _piece(self, data):
        if not data:
            return
        if self._chunked:
            self._write(b"%x\r\n" % len(data) + data + b"\r\n")
        else:
            self._write(data)

    def _end(self):
        if self._chunked:
            self._write(b"0\r\n\r\n")

    def _abort(self, rst=False):
        """Close the connection now, without finishing the response.

        Flushed data stays readable by the client; rst=True resets the connection instead
        of closing it (the client may then lose data it has not read yet)."""
        self.close_connection = True
        self._closed_early = True
        try:
            if rst:
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                           struct.pack("ii", 1, 0))
                self.server.reset_requests.add(self.connection)
            else:
                self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _wait(self, seconds):
        """Sleep, but give up early (ClientGone) when the client hangs up or the server stops."""
        end = time.monotonic() + float(seconds)
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return
            if self.fake._stopping.is_set():
                raise ClientGone()
            try:
                readable, _, _ = select.select([self.connection], [], [], min(left, 0.05))
                if readable:
                    if self.connection.recv(1, socket.MSG_PEEK) == b"":
                        raise ClientGone()
                    time.sleep(min(left, 0.05))  # pipelined data; keep waiting
            except (OSError, ValueError) as exc:
                raise ClientGone() from exc

    def send_json(self, status, obj, headers=()):
        data = _dumps(obj).encode("utf-8")
        self._begin(status, [("Content-Type", "application/json; charset=utf-8"),
                             ("Content-Length", str(len(data)))] + list(headers), False)
        self._write(data)

    # -- dispatch

    def _dispatch(self):
        fake = self.fake
        fake._enter()
        self._record = None
        self._headers_sent = False
        self._closed_early = False
        try:
            url = urlsplit(self.path)
            raw = self._read_body()
            if url.path == "/__requests" and self.command == "GET":
                self.send_json(200, fake.requests)
                return
            if url.path == "/__shutdown" and self.command == "POST":
                self.close_connection = True
                self.send_json(200, {"ok": True, "stopping": True})
                threading.Thread(target=fake.stop, daemon=True).start()
                return
            self._model_request(url, raw)
        except ClientGone:
            self.close_connection = True
            if self._record is not None:
                self._record["outcome"] = "client_disconnected"
        except Exception as exc:  # a bug here must not kill the server or hang the client
            import traceback
            traceback.print_exc(file=sys.stderr)
            self.close_connection = True
            if self._record is not None:
                self._record["outcome"] = "server_error: %r" % exc
            if not self._headers_sent:
                try:
                    self.send_json(500, {"error": {"message": "fake_llm internal error: %r" % exc,
                                                   "type": "server_error", "code": 500}})
                except ClientGone:
                    pass
        finally:
            fake._leave()

    def _classify(self, path, query):
        """Return (provider, model, stream, sse) for a model endpoint, or None."""
        if self.command != "POST":
            return None
        if path.endswith("/chat/completions"):
            return "openai", None, None, True
        if path.endswith("/responses"):
            return "responses", None, None, True
        if path.endswith("/v1/messages"):
            return "anthropic", None, None, True
        m = GEMINI_PATH_RE.search(path)
        if m:
            stream = m.group(2) == "streamGenerateContent"
            sse = stream and "sse" in parse_qs(query).get("alt", [])
            return "gemini", m.group(1), stream, sse
        return None

    def _model_request(self, url, raw):
        """Record a request and answer it from the next scenario step. Returns the record
        (also kept in self._record so a disconnect can be noted on it)."""
        fake = self.fake
        kind = self._classify(url.path, url.query)
        body, parse_error = None, None
        if raw:
            try:
                body = json.loads(raw.decode("utf-8"))
            except (ValueError, UnicodeDecodeError) as exc:
                parse_error = "request body is not JSON: %s" % exc
        record = {
            "n": 0, "time": time.time(), "method": self.command, "path": url.path,
            "query": url.query, "headers": self._headers_dict(), "body": body,
            "body_bytes": len(raw), "provider": kind[0] if kind else None,
            "stream": False, "step": None, "template_error": None, "expect_failures": [],
        }
        self._record = record
        if kind is None:
            record["response"] = {"kind": "not_found", "status": 404}
            fake._add_record(record)
            self.send_json(404, {"error": {
                "message": "fake_llm: no route for %s %s" % (self.command, url.path),
                "type": "not_found", "code": 404}})
            record["outcome"] = "sent"
            return record

        provider, model, stream, sse = kind
        if provider != "gemini":
            model = body.get("model") if isinstance(body, dict) else None
            stream = isinstance(body, dict) and body.get("stream") is True
        req = ModelRequest(provider, url.path, url.query, record["headers"], raw, body,
                           model or "fake-model", stream, sse)
        record["stream"] = bool(stream)

        if parse_error is not None or not isinstance(body, dict):
            record["error"] = parse_error or "request body is not a JSON object"
            record["response"] = {"kind": "bad_request", "status": 400}
            req.n = fake._add_record(record)
            self.send_json(400, error_body(provider, 400, {}, req.model))
            record["outcome"] = "sent"
            return record

        limit = fake.scenario.max_request_bytes
        if limit and len(raw) > limit:  # too large to be read: no step is consumed
            record["response"] = {"kind": "too_large", "status": 413}
            req.n = fake._add_record(record)
            self.send_json(413, error_body(provider, 413, {}, req.model))
            record["outcome"] = "sent"
            return record

        # a local server's own refusals come first: it does not check what OpenAI checks
        local = refusal(fake.scenario.refuse, req)
        if local:  # the server's own 400: no step is consumed
            record["response"] = {"kind": "refused", "status": 400, "refusal": local}
            req.n = fake._add_record(record)
            self.send_json(400, REFUSALS[local])
            record["outcome"] = "sent"
            return record

        problems = WIRES[provider].validate(body, record["headers"]) if provider in WIRES else []
        invalid = gemini_computer_errors(body) if provider == "gemini" else []
        invalid = invalid + computer_rules.errors(provider, body)
        if invalid:
            record["protocol_errors"] = invalid
        refused = strict.refusals(provider, body, record["headers"], url.query, req.model,
                                  fake.memory, req.notes)
        for k in ("thinking_dropped", "reasoning_dropped"):
            if req.notes.get(k):
                record[k] = req.notes[k]
        if provider == "anthropic" and not refused:  # the input the model reads
            seen, edits = claude.apply_context_editing(body)
            if "context_management" in body:
                req.notes["context_edits"] = edits
                record["context_edits"] = edits
            req.prompt_tokens = claude.input_tokens(dict(body, messages=seen))
            record["input_tokens"] = req.prompt_tokens
        problems = problems + invalid
        if problems or refused:  # the API's own answer: the request is not what it takes
            status = refused[0].status if refused else 400
            record["response"] = {"kind": "invalid", "status": status,
                                  "problems": problems + [r.message for r in refused]}
            req.n = fake._add_record(record)
            err = error_body(provider, status, {}, req.model)
            err["error"]["message"] = "; ".join(
                (["fake_llm: " + "; ".join(problems)] if problems else [])
                + [r.message for r in refused])
            self.send_json(status, err)
            record["outcome"] = "sent"
            return record

        with fake._step_lock:
            if fake.policy is not None:
                index, step = fake._policy_step(req)
            else:
                index, step = fake.scenario.take()
            record["step"] = index
            template_error = None
            if step is not None:
                template_error = resolve_templates(step, req)
                record["template_error"] = template_error
                record["expect_failures"] = check_expect(step.get("expect") or {}, req)
            record["response"] = self._describe(step, template_error)
            req.n = fake._add_record(record)

        if step is None:
            status = 500
            msg = ("fake_llm: scenario exhausted: request %d arrived after the last of %d steps"
                   % (req.n, len(fake.scenario.steps)))
            body_obj = error_body(provider, status, {}, req.model)
            body_obj["error"]["message"] = msg
            self.send_json(status, body_obj)
            record["outcome"] = "sent"
            return record

        if step.get("delay_s") and step.get("fault") != "slow":
            self._wait(step["delay_s"])
        if template_error:
            self._send_reply(req, {"text": template_error})
        elif "fault" in step:
            self._send_fault(req, step)
        elif "status" in step:
            self._send_http_error(req, step)
        else:
            self._send_reply(req, step)
        record.setdefault("outcome", "closed_early" if self._closed_early else "sent")
        return record

    @staticmethod
    def _describe(step, template_error):
        """A short summary of the answer, kept in the record as "response"."""
        if step is None:
            return {"kind": "scenario_exhausted", "status": 500}
        if template_error:
            return {"kind": "template_error_reply", "status": 200}
        if "fault" in step:
            return {"kind": "fault", "fault": step["fault"]}
        if "status" in step:
            return {"kind": "error", "status": step["status"]}
        return {"kind": "reply", "status": 200}

    # -- answers

    def _send_reply(self, req, step, cut=None):
        """Render a reply step in the request's format.

        cut=("drop", k) stops after k stream pieces and closes the connection;
        cut=("error", k) sends an error object after k pieces and ends the stream.
        """
        reply = Reply(step, req, req.n)
        q = reply.quirks
        self.fake.remember(req, reply)
        if not req.stream:
            if cut and cut[0] == "error":
                self.send_json(200, stream_error_object(req.provider))
                return
            obj = render_whole(reply, req)
            if cut and cut[0] == "drop":
                data = _dumps(obj).encode("utf-8")
                self._begin(200, [("Content-Type", "application/json; charset=utf-8"),
                                  ("Content-Length", str(len(data)))], False)
                self._write(data[:len(data) // 2])
                self._abort(step.get("rst", False))
                return
            self.send_json(200, obj)
            return

        if req.provider in WIRES:
            objs = WIRES[req.provider].events(reply, req)
            done = False
        elif req.provider == "openai":
            objs = openai_chunks(reply, req)
            done = not q.get("no_done")
        else:
            objs = gemini_chunks(reply, req)
            done = False
        if cut and cut[0] == "error":
            objs = objs[:cut[1]] + [stream_error_object(req.provider)]
            done = False
        pieces = self._serialise_stream(req, objs, done, q)
        if cut and cut[0] == "drop":
            pieces = pieces[:cut[1]]
        content_type = "text/event-stream" if req.sse else "application/json; charset=utf-8"
        self._begin(200, [("Content-Type", content_type), ("Cache-Control", "no-cache")], True)
        delay = float(step.get("chunk_delay_s") or 0)
        for i, piece in enumerate(pieces):
            if i and delay:
                self._wait(delay)
            self._piece(piece)
        if cut and cut[0] == "drop":
            self._abort(step.get("rst", False))
            return
        self._end()

    @staticmethod
    def _serialise_stream(req, objs, done, quirks):
        """Turn stream objects into the bytes of each event: SSE `data:` events, or for
        Gemini without alt=sse the pieces of one JSON array."""
        if not req.sse:
            pieces = []
            for i, obj in enumerate(objs):
                pieces.append((("[" if i == 0 else ",\r\n") + _dumps(obj)).encode("utf-8"))
            pieces.append(b"]" if objs else b"[]")
            return pieces
        eol = "\r\n" if quirks.get("crlf") else "\n"
        comment = (": OPENROUTER PROCESSING" + eol + eol) if quirks.get("comments") else ""
        pieces = []
        for obj in objs:  # (event name, object) pairs carry an event: line
            name = ""
            if isinstance(obj, tuple):
                name, obj = "event: " + obj[0] + eol, obj[1]
            pieces.append((comment + name + "data: " + _dumps(obj) + eol + eol).encode("utf-8"))
        if done:
            pieces.append((comment + "data: [DONE]" + eol + eol).encode("utf-8"))
        return pieces

    def _send_http_error(self, req, step):
        status = step["status"]
        headers = list((step.get("headers") or {}).items())
        if step.get("retry_after_ms") is not None:
            headers.append(("retry-after-ms", str(step["retry_after_ms"])))
        if req.provider == "openai":
            headers.append(("x-request-id", "req_fake%d" % req.n))
        body = step.get("body")
        if body is None:
            body = error_body(req.provider, status, step, req.model)
        names = {k.lower() for k, _ in headers}
        if isinstance(body, str):
            data = body.encode("utf-8")
            ctype = "text/plain; charset=utf-8"
        else:
            data = _dumps(body).encode("utf-8")
            ctype = "application/json; charset=utf-8"
        if "content-type" not in names:
            headers.append(("Content-Type", ctype))
        headers.append(("Content-Length", str(len(data))))
        self._begin(status, headers, False)
        self._write(data)

    def _send_fault(self, req, step):
        fault = step["fault"]
        if fault == "drop_before_response":
            self._abort(step.get("rst", False))
        elif fault == "drop_mid_stream":
            self._send_reply(req, step, cut=("drop", int(step.get("after_chunks", 2))))
        elif fault == "error_mid_stream":
            self._send_reply(req, step, cut=("error", int(step.get("after_chunks", 2))))
        elif fault == "truncated_json":
            self._send_truncated(req, step)
        elif fault == "huge_body":
            self._send_huge(req, step)
        elif fault == "slow":
            self._wait(step.get("delay_s", 5))
            if not step.get("text") and not step.get("tool_calls"):
                step = dict(step, text="fake_llm: slow reply")
            self._send_reply(req, step)
        elif fault == "raw":
            self.close_connection = True
            self._write(step["data"].encode("utf-8"))
            self._abort()

    def _send_truncated(self, req, step):
        """Claim the full Content-Length, send the body cut inside a JSON value, close."""
        reply = Reply(step if (step.get("text") or step.get("tool_calls"))
                      else dict(step, text="This reply is cut short."), req, req.n)
        if req.stream:
            objs = (WIRES[req.provider].events(reply, req) if req.provider in WIRES
                    else openai_chunks(reply, req) if req.provider == "openai"
                    else gemini_chunks(reply, req))
            data = b"".join(self._serialise_stream(req, objs, req.provider == "openai", {}))
            ctype = "text/event-stream" if req.sse else "application/json"
            start = data.rfind(b"data: {", 0, len(data) // 2 + 1)
            cut = len(data) // 2 if start < 0 else start + max(8, (data.find(b"\n", start) - start) // 2)
        else:
            obj = render_whole(reply, req)
            data = _dumps(obj).encode("utf-8")
            ctype = "application/json; charset=utf-8"
            cut = len(data) // 2
        self._begin(200, [("Content-Type", ctype), ("Content-Length", str(len(data)))], False)
        self._write(data[:cut])
        self._abort(step.get("rst", False))

    def _send_huge(self, req, step):
        """A 200 response of `megabytes` MB, sent in 64 KiB pieces; stops quietly when the
        client hangs up. Chunked by default (no length to check up front);
        "content_length": true announces the size instead. For streams, "shape": "line"
        (default) is one endless data line, "chunks" many valid content deltas."""
        total = int(float(step.get("megabytes", 50)) * 1024 * 1024)
        block = 64 * 1024
        sse = req.stream and req.sse
        head, tail = b"", b""
        if sse and step.get("shape") == "chunks":
            filler = "A" * (block - 400)
            if req.provider == "openai":
                obj = {"id": "chatcmpl-huge", "object": "chat.completion.chunk", "created": 0,
                       "model": req.model, "choices": [{"index": 0, "delta": {"content": filler},
                                                        "finish_reason": None}]}
            else:
                obj = {"candidates": [{"index": 0, "content": {"role": "model",
                                                               "parts": [{"text": filler}]}}]}
            unit = ("data: " + _dumps(obj) + "\n\n").encode("utf-8")
        else:
            unit = b"A" * block
            if sse:
                head = b'data: {"choices":[{"index":0,"delta":{"content":"'
                tail = b'"}}]}\n\n'
            elif req.provider == "openai":
                head = (b'{"id":"chatcmpl-huge","object":"chat.completion","choices":[{"index":0,'
                        b'"message":{"role":"assistant","content":"')
                tail = b'"},"finish_reason":"stop"}]}'
            else:
                head = b'{"candidates":[{"index":0,"content":{"role":"model","parts":[{"text":"'
                tail = b'"}]},"finishReason":"STOP"}]}'
        headers = [("Content-Type", "text/event-stream" if sse else "application/json")]
        use_length = bool(step.get("content_length"))
        if use_length:
            headers.append(("Content-Length", str(total)))
        self.close_connection = True
        self._begin(200, headers, not use_length)
        self._piece(head[:total])
        sent = min(len(head), total)
        body_end = max(sent, total - len(tail))
        if not head and not tail:  # whole events only, so every event stays valid JSON
            body_end = max(len(unit), total - total % len(unit))
        while sent < body_end:
            n = min(len(unit), body_end - sent)
            self._piece(unit[:n])
            sent += n
            if self.fake._stopping.is_set():
                raise ClientGone()
        self._piece(tail[:total - sent])
        self._end()


# ------------------------------------------------------------------------ public API

class FakeLLM:
    """The fake LLM server, in-process.

    FakeLLM(scenario, port=0, record_path=None, idle_exit=600, verbose=False, policy=None)
      scenario     dict, JSON file path or Scenario
      policy       Python only: a function (ModelRequest) -> step dict or None that
                   answers each model request in place of the scenario's next step, so a
                   scripted model can decide from what the request shows (its latest
                   observation: observation_texts, latest_tree); None ends the scenario
                   (answered like an exhausted one). Steps it returns are validated and
                   answered like the scenario's (templates, expectations, faults).
      port         0 picks a free port; read it back from .port after start()
      record_path  also append every request record to this JSONL file (truncated at start)
      idle_exit    stop after this many seconds without requests (None or 0: never)

    Attributes: port, url ("http://127.0.0.1:PORT"), requests (a copy of the records),
    stopped (threading.Event set once stopped). Use start()/stop() or a with-block.
    """

    def __init__(self, scenario, port=0, record_path=None, idle_exit=DEFAULT_IDLE_EXIT,
                 verbose=False, policy=None):
        self.scenario = Scenario(scenario)
        self.policy = policy
        self._policy_turns = 0
        self.verbose = verbose
        self.idle_exit = idle_exit
        self._requested_port = port
        self._record_path = record_path
        self._record_file = None
        self._records = []
        self._records_lock = threading.Lock()
        self._step_lock = threading.Lock()
        self._stopping = threading.Event()
        self.stopped = threading.Event()
        self._activity_lock = threading.Lock()
        self._in_flight = 0
        self._last_activity = time.monotonic()
        self._connections = set()
        self._httpd = None
        self._threads = []
        self._stop_lock = threading.Lock()
        self.idle_exited = False
        # what this server answered, which later requests must give back as the real
        # services want it (strict.py)
        self.memory = strict.Memory()
        self.memory.output_cap = self.scenario.output_cap
        self.memory.platform = self.scenario.platform

    # -- lifecycle

    def start(self):
        """Bind 127.0.0.1, start serving in a background thread; returns self."""
        if self._record_path:
            self._record_file = open(self._record_path, "w", encoding="utf-8")
        self._httpd = _HTTPServer((HOST, self._requested_port), _Handler)
        self._httpd.fake = self
        t = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                             name="fake_llm-serve", daemon=True)
        t.start()
        self._threads.append(t)
        if self.idle_exit:
            w = threading.Thread(target=self._idle_watch, name="fake_llm-idle", daemon=True)
            w.start()
            self._threads.append(w)
        return self

    def stop(self):
        """Stop serving, drop open connections, close the record file. Idempotent."""
        with self._stop_lock:
            if self.stopped.is_set():
                return
            self._stopping.set()
            if self._httpd is not None:
                self._httpd.shutdown()
                self._httpd.server_close()
            with self._activity_lock:
                conns = list(self._connections)
            for conn in conns:
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            with self._records_lock:
                if self._record_file is not None:
                    self._record_file.close()
                    self._record_file = None
            self.stopped.set()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    @property
    def port(self):
        return self._httpd.server_address[1] if self._httpd else None

    @property
    def url(self):
        return "http://%s:%d" % (HOST, self.port)

    @property
    def requests(self):
        """A snapshot of the request records, oldest first."""
        with self._records_lock:
            return [dict(r) for r in self._records]

    # -- internals used by the handler

    def _policy_step(self, req):
        """(turn index, step) from the policy; (None, None) when it ends the scenario.
        An exception in the policy is answered as the server's own error (500)."""
        step = self.policy(req)
        if step is None:
            return None, None
        Scenario({"steps": [step]})  # the same checks as a scenario's steps
        index = self._policy_turns
        self._policy_turns += 1
        return index, copy.deepcopy(step)

    def remember(self, req, reply):
        """Notes what a reply issues that later requests are checked against: Gemini's
        thought signatures, the Responses API's reasoning items and stored responses."""
        if req.provider == "gemini":
            parts, _ = _gemini_calls(reply)
            sig = _gemini_signature(reply)
            if parts and sig:
                parts[0]["thoughtSignature"] = sig
            self.memory.remember_gemini(parts)
        elif req.provider == "responses":
            self.memory.remember_responses("resp_fake%d" % req.n,
                                           WIRES["responses"]._items(reply, req),
                                           strict.stored(req.body))
        elif req.provider == "anthropic":
            self.memory.remember_anthropic(req.body, WIRES["anthropic"]._blocks(reply, req))

    def _add_record(self, record):
        """Append a record (assigning its number) and write it to the JSONL file."""
        with self._records_lock:
            record["n"] = len(self._records) + 1
            self._records.append(record)
            if self._record_file is not None:
                line = {k: v for k, v in record.items() if k != "outcome"}
                self._record_file.write(json.dumps(line, ensure_ascii=False) + "\n")
                self._record_file.flush()
        if self.verbose:
            sys.stderr.write("fake_llm: #%d %s %s %s%s step=%s -> %s%s\n" % (
                record["n"], record["method"], record["path"], record["provider"],
                " stream" if record["stream"] else "", record["step"],
                json.dumps(record.get("response")),
                "  TEMPLATE ERROR: %s" % record["template_error"] if record["template_error"] else ""))
        return record["n"]

    def _track(self, conn, add):
        with self._activity_lock:
            if add:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)

    def _enter(self):
        with self._activity_lock:
            self._in_flight += 1
            self._last_activity = time.monotonic()

    def _leave(self):
        with self._activity_lock:
            self._in_flight -= 1
            self._last_activity = time.monotonic()

    def _idle_watch(self):
        while not self._stopping.wait(min(1.0, self.idle_exit / 4.0)):
            with self._activity_lock:
                idle = self._in_flight == 0 and \
                    time.monotonic() - self._last_activity >= self.idle_exit
            if idle:
                self.idle_exited = True
                if self.verbose:
                    sys.stderr.write("fake_llm: idle for %gs, exiting\n" % self.idle_exit)
                self.stop()
                return


def _write_port_file(path, port):
    """Write the port atomically so a poller never reads a half-written file."""
    tmp = "%s.tmp%d" % (path, os.getpid())
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("%d\n" % port)
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Scripted fake LLM server (OpenAI + Gemini wire formats).")
    ap.add_argument("--scenario", required=True, help="scenario JSON file")
    ap.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: any free port)")
    ap.add_argument("--port-file", help="also write the port number to this file")
    ap.add_argument("--record",
                    help="also write every request record to this JSONL file (one line each)")
    ap.add_argument("--idle-exit", type=float, default=DEFAULT_IDLE_EXIT,
                    help="exit after this many seconds without requests (0: never; default 600)")
    ap.add_argument("--quiet", action="store_true", help="no per-request lines on stderr")
    args = ap.parse_args(argv)
    try:
        fake = FakeLLM(args.scenario, port=args.port, record_path=args.record,
                       idle_exit=args.idle_exit or None, verbose=not args.quiet)
    except (OSError, ValueError) as exc:
        sys.stderr.write("fake_llm: bad scenario %s: %s\n" % (args.scenario, exc))
        return 1
    fake.start()

    def on_signal(signum, frame):
        threading.Thread(target=fake.stop, daemon=True).start()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if args.port_file:
        _write_port_file(args.port_file, fake.port)
    sys.stdout.write(json.dumps({"port": fake.port}) + "\n")
    sys.stdout.flush()
    while not fake.stopped.wait(0.2):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
