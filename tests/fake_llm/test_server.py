#!/usr/bin/env python3
"""Self-test of the fake LLM server: every feature, driven with http.client/urllib only.

Run: python3 tests/fake_llm/test_server.py   (exit status 0 when everything passes)
"""

import base64
import http.client
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request
import zlib

sys.dont_write_bytecode = True  # keep the source tree clean when run from ctest
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import png_decode  # noqa: E402
import server  # noqa: E402
from server import FakeLLM  # noqa: E402

SCENARIOS = os.path.join(HERE, "scenarios")
SERVER_PY = os.path.join(HERE, "server.py")

TREE = """Window: "Untitled - Notepad" (notepad.exe) hwnd=0x30044 frame=[0,0][760,570]
[1] Window "Untitled - Notepad" @(500,500)
  [2] MenuItem "File" @(26,40)
  [3] Edit "Text Editor" @(500,520) value="hello" focused
  [4] Button "Say \\"hi\\"" @(120,610) disabled
  [5] Button "OK" @(700,900)
# WARNING: tree truncated at 500 nodes"""

OLD_TREE = """Window: "Old" (old.exe) hwnd=0x1 frame=[0,0][10,10]
[1] Window "Old" @(500,500)
  [2] Button "OK" @(11,22)
  [3] Button "Cancel" @(33,44)"""


# ------------------------------------------------------------------------- helpers

GEMINI_KEY = "AIza-test-key"


def request_headers(path, headers):
    """JSON, and for Gemini the API key in its header (as the API wants it) unless the
    test gives its own headers or a key in the query."""
    h = {"Content-Type": "application/json"}
    if "/models/" in path and "key=" not in path and headers is None:
        h["x-goog-api-key"] = GEMINI_KEY
    h.update(headers or {})
    return h


def post(fake, path, body, headers=None, timeout=10):
    """POST JSON; returns (status, headers dict with lower-case names, body bytes)."""
    conn = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=timeout)
    try:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        h = request_headers(path, headers)
        conn.request("POST", path, body=data, headers=h)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def open_stream(fake, path, body, headers=None, timeout=10):
    """POST and return (conn, response) without reading the body."""
    conn = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=timeout)
    h = request_headers(path, headers)
    conn.request("POST", path, body=json.dumps(body).encode(), headers=h)
    return conn, conn.getresponse()


def sse_events(data):
    """Parse SSE bytes: returns (list of data payload strings, list of comment lines)."""
    text = data.decode("utf-8").replace("\r\n", "\n")
    events, comments = [], []
    for block in text.split("\n\n"):
        for line in block.split("\n"):
            if line.startswith(":"):
                comments.append(line)
            elif line.startswith("data: "):
                events.append(line[6:])
    return events, comments


def assemble_openai(events):
    """Assemble an OpenAI stream like a client would: text, tool calls by index, etc."""
    out = {"text": "", "reasoning": "", "calls": {}, "finish": None, "usage": None, "done": False}
    last_index = None
    for e in events:
        if e == "[DONE]":
            out["done"] = True
            continue
        chunk = json.loads(e)
        if chunk.get("usage"):
            out["usage"] = chunk["usage"]
        for choice in chunk["choices"]:
            delta = choice["delta"]
            out["text"] += delta.get("content") or ""
            out["reasoning"] += delta.get("reasoning_content") or ""
            for tc in delta.get("tool_calls") or []:
                idx = tc.get("index", last_index if "id" not in tc and last_index is not None
                             else len(out["calls"]))
                last_index = idx
                call = out["calls"].setdefault(idx, {"id": None, "name": "", "arguments": ""})
                if "id" in tc:
                    call["id"] = tc["id"]
                fn = tc.get("function") or {}
                call["name"] += fn.get("name") or ""
                args = fn.get("arguments")
                if isinstance(args, str):
                    call["arguments"] += args
                elif args is not None:
                    call["arguments"] = args
            if choice.get("finish_reason"):
                out["finish"] = choice["finish_reason"]
    return out


def openai_body(stream=False, include_usage=False, messages=None):
    body = {"model": "gpt-test", "messages": messages or [{"role": "user", "content": "hi"}],
            "tools": [{"type": "function", "function": {"name": "desktop", "parameters": {}}}]}
    if stream:
        body["stream"] = True
    if include_usage:
        body["stream_options"] = {"include_usage": True}
    return body


def gemini_body(contents=None):
    return {"contents": contents or [{"role": "user", "parts": [{"text": "hi"}]}],
            "tools": [{"functionDeclarations": [{"name": "desktop"}]}]}


def observation_messages(tree_msg_content, image_pngs=()):
    """OpenAI messages: a system prompt with an example tree line (to be ignored), an old
    tree, the latest tree (tool message), then user messages with PNG screenshots."""
    msgs = [
        {"role": "system", "content": 'Example: [7] Button "OK" @(1,1)'},
        {"role": "user", "content": "press OK"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_0", "type": "function", "function": {"name": "desktop", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_0", "content": OLD_TREE},
        {"role": "tool", "tool_call_id": "call_0", "content": tree_msg_content},
    ]
    for png in image_pngs:
        msgs.append({"role": "user", "content": [
            {"type": "text", "text": "screenshot"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,"
                                                + base64.b64encode(png).decode()}}]})
    return msgs


GEM = "/v1beta/models/gemini-test:generateContent"
GEM_SSE = "/v1beta/models/gemini-test:streamGenerateContent?alt=sse"
OAI = "/v1/chat/completions"


def wait_for(predicate, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def make_png(width, height, pixel, alpha=False, colour_type=None, interlace=0):
    """Encode a PNG with zlib, cycling through all five row filters."""
    ch = 4 if alpha else 3
    raw = bytearray()
    prev = bytes(width * ch)
    for y in range(height):
        row = bytes(v for x in range(width) for v in pixel(x, y)[:ch])
        ftype = y % 5
        out = bytearray(len(row))
        for i in range(len(row)):
            a = row[i - ch] if i >= ch else 0
            b = prev[i]
            c = prev[i - ch] if i >= ch else 0
            pred = [0, a, b, (a + b) // 2, _paeth(a, b, c)][ftype]
            out[i] = (row[i] - pred) & 255
        raw.append(ftype)
        raw += out
        prev = row

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    ctype = colour_type if colour_type is not None else (6 if alpha else 2)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, ctype, 0, 0, interlace)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(bytes(raw)))
            + chunk(b"IEND", b""))


def scene_pixel(red_box):
    """Pixel function: a grey gradient with a near-red box at red_box=(x0,y0,x1,y1)."""
    x0, y0, x1, y1 = red_box

    def pixel(x, y):
        if x0 <= x <= x1 and y0 <= y <= y1:
            return (250, 5, 3, 255)
        return ((x * 3) % 200, (y * 5) % 200, 90, 128)
    return pixel


def frame(v, size):
    return int(v * 999.0 / (size - 1) + 0.5)


# ------------------------------------------------------------------------- tests

class ServerCase(unittest.TestCase):
    """Starts a FakeLLM with self.scenario for each test (idle exit off)."""

    def start(self, scenario, **kw):
        kw.setdefault("idle_exit", None)
        fake = FakeLLM(scenario, **kw).start()
        self.addCleanup(fake.stop)
        return fake


class TestOpenAI(ServerCase):

    def test_non_stream_text_and_record(self):
        fake = self.start({"steps": [{"text": "Hello", "usage": {"prompt_tokens": 100,
                                                                  "completion_tokens": 20}}]})
        status, headers, data = post(fake, "/openai/deployments/x/chat/completions?api-version=2024-10-21",
                                     openai_body(), {"api-key": "k-123"})
        self.assertEqual(status, 200)
        self.assertTrue(headers["content-type"].startswith("application/json"))
        obj = json.loads(data)
        self.assertEqual(obj["object"], "chat.completion")
        self.assertEqual(obj["model"], "gpt-test")
        choice = obj["choices"][0]
        self.assertEqual(choice["message"], {"role": "assistant", "content": "Hello", "refusal": None})
        self.assertEqual(choice["finish_reason"], "stop")
        self.assertEqual(obj["usage"], {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120})
        rec = fake.requests[0]
        self.assertEqual(rec["n"], 1)
        self.assertEqual(rec["path"], "/openai/deployments/x/chat/completions")
        self.assertEqual(rec["query"], "api-version=2024-10-21")
        self.assertEqual(rec["headers"]["api-key"], "k-123")
        self.assertEqual(rec["provider"], "openai")
        self.assertFalse(rec["stream"])
        self.assertEqual(rec["step"], 0)
        self.assertEqual(rec["body"]["model"], "gpt-test")
        self.assertEqual(rec["body_bytes"], len(json.dumps(openai_body()).encode()))
        self.assertIsNone(rec["template_error"])
        self.assertEqual(rec["expect_failures"], [])
        self.assertTrue(wait_for(lambda: fake.requests[0].get("outcome") == "sent"))

    def test_non_stream_tool_calls_default_usage(self):
        fake = self.start({"steps": [{"tool_calls": [
            {"name": "desktop", "arguments": {"action": "click", "x": 1, "y": 2}, "id": "call_1"},
            {"name": "powershell", "arguments": {"command": "dir"}}]}]})
        _, _, data = post(fake, OAI, openai_body(), {"Authorization": "Bearer sk-test"})
        obj = json.loads(data)
        msg = obj["choices"][0]["message"]
        self.assertEqual(msg["content"], "")
        self.assertEqual(obj["choices"][0]["finish_reason"], "tool_calls")
        calls = msg["tool_calls"]
        self.assertEqual(calls[0]["id"], "call_1")
        self.assertEqual(calls[0]["type"], "function")
        self.assertEqual(json.loads(calls[0]["function"]["arguments"]), {"action": "click", "x": 1, "y": 2})
        self.assertIsInstance(calls[1]["id"], str)
        self.assertTrue(calls[1]["id"])
        self.assertEqual(calls[1]["function"]["name"], "powershell")
        usage = obj["usage"]
        self.assertGreater(usage["prompt_tokens"], 0)
        self.assertEqual(usage["total_tokens"], usage["prompt_tokens"] + usage["completion_tokens"])
        self.assertEqual(fake.requests[0]["headers"]["Authorization"], "Bearer sk-test")

    def test_stream_text_with_include_usage(self):
        fake = self.start({"steps": [{"text": "The quick brown fox jumps", "usage": {
            "prompt_tokens": 7, "completion_tokens": 5}}]})
        status, headers, data = post(fake, OAI, openai_body(stream=True, include_usage=True))
        self.assertEqual(status, 200)
        self.assertEqual(headers["content-type"], "text/event-stream")
        self.assertEqual(headers.get("transfer-encoding"), "chunked")
        events, comments = sse_events(data)
        self.assertEqual(comments, [])
        self.assertEqual(events[-1], "[DONE]")
        chunks = [json.loads(e) for e in events[:-1]]
        text_deltas = [c["choices"][0]["delta"]["content"] for c in chunks
                       if c["choices"] and c["choices"][0]["delta"].get("content")]
        self.assertGreaterEqual(len(text_deltas), 2)
        self.assertEqual(chunks[0]["choices"][0]["delta"]["role"], "assistant")
        self.assertTrue(all(c["object"] == "chat.completion.chunk" for c in chunks))
        self.assertEqual(chunks[-1]["choices"], [])
        self.assertEqual(chunks[-1]["usage"], {"prompt_tokens": 7, "completion_tokens": 5, "total_tokens": 12})
        self.assertTrue(all(c["usage"] is None for c in chunks[:-1]))
        got = assemble_openai(events)
        self.assertEqual(got["text"], "The quick brown fox jumps")
        self.assertEqual(got["finish"], "stop")
        self.assertTrue(fake.requests[0]["stream"])

    def test_stream_without_include_usage_has_no_usage_chunk(self):
        fake = self.start({"steps": [{"text": "hi"}]})
        _, _, data = post(fake, OAI, openai_body(stream=True))
        events, _ = sse_events(data)
        chunks = [json.loads(e) for e in events[:-1]]
        self.assertTrue(all(c["choices"] for c in chunks))
        self.assertTrue(all("usage" not in c for c in chunks))

    def test_stream_tool_calls_assembled_by_index(self):
        args0 = {"action": "type", "text": "héllo wörld, a longer argument string"}
        args1 = {"action": "key", "keys": "ctrl+s"}
        fake = self.start({"steps": [{"text": "Typing.", "tool_calls": [
            {"name": "desktop", "arguments": args0, "id": "call_1"},
            {"name": "desktop", "arguments": args1, "id": "call_2"}]}]})
        _, _, data = post(fake, OAI, openai_body(stream=True))
        events, _ = sse_events(data)
        pieces = [tc for e in events[:-1] for c in [json.loads(e)]
                  for tc in c["choices"][0]["delta"].get("tool_calls") or []]
        arg_pieces_0 = [p for p in pieces if p["index"] == 0 and p["function"].get("arguments")]
        self.assertGreaterEqual(len(arg_pieces_0), 2, "arguments must arrive in several pieces")
        self.assertTrue(all("index" in p for p in pieces))
        got = assemble_openai(events)
        self.assertEqual(got["text"], "Typing.")
        self.assertEqual(got["finish"], "tool_calls")
        self.assertTrue(got["done"])
        self.assertEqual(got["calls"][0]["id"], "call_1")
        self.assertEqual(json.loads(got["calls"][0]["arguments"]), args0)
        self.assertEqual(got["calls"][1]["id"], "call_2")
        self.assertEqual(json.loads(got["calls"][1]["arguments"]), args1)

    def test_reasoning(self):
        fake = self.start({"steps": [{"text": "ok", "reasoning": "thinking hard about it"}] * 2})
        _, _, data = post(fake, OAI, openai_body())
        self.assertEqual(json.loads(data)["choices"][0]["message"]["reasoning_content"],
                         "thinking hard about it")
        _, _, data = post(fake, OAI, openai_body(stream=True))
        got = assemble_openai(sse_events(data)[0])
        self.assertEqual(got["reasoning"], "thinking hard about it")
        self.assertEqual(got["text"], "ok")

    def test_keep_alive_connection_serves_several_requests(self):
        fake = self.start({"steps": [{"text": "one"}, {"text": "two"}]})
        conn = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=10)
        self.addCleanup(conn.close)
        texts = []
        for stream in (True, False):
            conn.request("POST", OAI, body=json.dumps(openai_body(stream=stream)),
                         headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            data = resp.read()
            texts.append(assemble_openai(sse_events(data)[0])["text"] if stream
                         else json.loads(data)["choices"][0]["message"]["content"])
        self.assertEqual(texts, ["one", "two"])

    def test_get_requests_endpoint(self):
        fake = self.start({"steps": [{"text": "x"}]})
        post(fake, OAI, openai_body())
        with urllib.request.urlopen(fake.url + "/__requests", timeout=10) as r:
            recs = json.loads(r.read())
        self.assertEqual(len(recs), 1)
        self.assertEqual(recs[0]["body"]["messages"][0]["content"], "hi")


class TestQuirks(ServerCase):

    def one(self, quirks, stream=True, calls=None, text=""):
        step = {"text": text, "quirks": quirks,
                "tool_calls": calls if calls is not None else
                [{"name": "desktop", "arguments": {"action": "click", "x": 10, "y": 20}, "id": "call_1"}]}
        fake = self.start({"steps": [step]})
        status, headers, data = post(fake, OAI, openai_body(stream=stream))
        self.assertEqual(status, 200)
        return fake, data

    def stream_calls(self, data):
        events, _ = sse_events(data)
        return [tc for e in events if e != "[DONE]" for c in [json.loads(e)] if c["choices"]
                for tc in c["choices"][0]["delta"].get("tool_calls") or []]

    def test_args_as_object(self):
        _, data = self.one({"args_as_object": True}, stream=False)
        fn = json.loads(data)["choices"][0]["message"]["tool_calls"][0]["function"]
        self.assertEqual(fn["arguments"], {"action": "click", "x": 10, "y": 20})
        _, data = self.one({"args_as_object": True})
        calls = self.stream_calls(data)
        self.assertEqual(len(calls), 1)
        self.assertEqual(calls[0]["function"]["arguments"], {"action": "click", "x": 10, "y": 20})

    def test_calls_as_text(self):
        call = [{"name": "desktop", "arguments": {"action": "key", "keys": "ctrl+s"}}]
        _, data = self.one({"calls_as_text": "hermes"}, stream=False, calls=call, text="Saving.")
        msg = json.loads(data)["choices"][0]["message"]
        self.assertNotIn("tool_calls", msg)
        self.assertEqual(msg["content"], 'Saving.\n<tool_call>\n{"name": "desktop", "arguments": '
                                         '{"action": "key", "keys": "ctrl+s"}}\n</tool_call>')
        _, data = self.one({"calls_as_text": "qwen3_coder"}, calls=call)
        events, _ = sse_events(data)
        text = "".join(json.loads(e)["choices"][0]["delta"].get("content") or ""
                       for e in events if e != "[DONE]" and json.loads(e)["choices"])
        self.assertIn("<function=desktop>\n<parameter=action>\nkey\n</parameter>", text)
        self.assertEqual(self.stream_calls(data), [])
        _, data = self.one({"calls_as_text": "json"}, stream=False, calls=call)
        self.assertEqual(json.loads(json.loads(data)["choices"][0]["message"]["content"]),
                         {"name": "desktop", "parameters": {"action": "key", "keys": "ctrl+s"}})
        with self.assertRaises(ValueError):
            server.Scenario({"steps": [{"quirks": {"calls_as_text": "xml"}}]})

    def test_empty_ids(self):
        _, data = self.one({"empty_ids": True}, stream=False)
        self.assertEqual(json.loads(data)["choices"][0]["message"]["tool_calls"][0]["id"], "")
        _, data = self.one({"empty_ids": True})
        self.assertEqual(self.stream_calls(data)[0]["id"], "")

    def test_missing_ids(self):
        _, data = self.one({"missing_ids": True}, stream=False)
        self.assertNotIn("id", json.loads(data)["choices"][0]["message"]["tool_calls"][0])
        _, data = self.one({"missing_ids": True})
        self.assertTrue(all("id" not in c for c in self.stream_calls(data)))

    def test_content_null(self):
        _, data = self.one({"content_null": True}, stream=False)
        msg = json.loads(data)["choices"][0]["message"]
        self.assertIn("content", msg)
        self.assertIsNone(msg["content"])
        _, data = self.one({}, stream=False)
        self.assertEqual(json.loads(data)["choices"][0]["message"]["content"], "")
        _, data = self.one({"content_null": True})
        events, _ = sse_events(data)
        first = json.loads(events[0])["choices"][0]["delta"]
        self.assertIsNone(first["content"])

    def test_whole_chunk(self):
        _, data = self.one({"whole_chunk": True}, calls=[
            {"name": "desktop", "arguments": {"action": "key", "keys": "enter"}, "id": "a"},
            {"name": "desktop", "arguments": {"action": "wait", "seconds": 1}, "id": "b"}])
        calls = self.stream_calls(data)
        self.assertEqual(len(calls), 2)
        self.assertEqual(json.loads(calls[0]["function"]["arguments"]), {"action": "key", "keys": "enter"})
        self.assertEqual(calls[1]["id"], "b")
        self.assertEqual(calls[1]["index"], 1)

    def test_finish_reason_override(self):
        _, data = self.one({"finish_reason": "stop"})
        got = assemble_openai(sse_events(data)[0])
        self.assertEqual(got["finish"], "stop")
        self.assertEqual(len(got["calls"]), 1)
        _, data = self.one({"finish_reason": "length"}, stream=False)
        self.assertEqual(json.loads(data)["choices"][0]["finish_reason"], "length")

    def test_omit_index(self):
        _, data = self.one({"omit_index": True})
        calls = self.stream_calls(data)
        self.assertGreater(len(calls), 1)
        self.assertTrue(all("index" not in c for c in calls))
        got = assemble_openai(sse_events(data)[0])
        self.assertEqual(json.loads(got["calls"][0]["arguments"]), {"action": "click", "x": 10, "y": 20})

    def test_comments(self):
        _, data = self.one({"comments": True}, text="hello")
        events, comments = sse_events(data)
        self.assertGreaterEqual(len(comments), len(events))
        self.assertTrue(data.startswith(b":"))
        self.assertEqual(assemble_openai(events)["text"], "hello")

    def test_no_done(self):
        _, data = self.one({"no_done": True})
        events, _ = sse_events(data)
        self.assertNotIn("[DONE]", events)
        self.assertEqual(assemble_openai(events)["finish"], "tool_calls")

    def test_crlf(self):
        _, data = self.one({"crlf": True}, text="hello")
        self.assertIn(b"\r\n\r\n", data)
        self.assertNotIn(b"\n\n", data.replace(b"\r\n", b""))
        self.assertTrue(all(line.endswith(b"\r") for line in data.split(b"\n")[:-1]))
        self.assertEqual(assemble_openai(sse_events(data)[0])["text"], "hello")

    def test_invalid_arguments(self):
        raw = '{"x": 12,'
        _, data = self.one({"invalid_arguments": raw}, stream=False)
        self.assertEqual(json.loads(data)["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"], raw)
        _, data = self.one({"invalid_arguments": raw})
        self.assertEqual(assemble_openai(sse_events(data)[0])["calls"][0]["arguments"], raw)

    def test_reasoning_field(self):
        fake = self.start({"steps": [{"text": "a", "reasoning": "r", "quirks": {"reasoning_field": "reasoning"}}]})
        _, _, data = post(fake, OAI, openai_body())
        self.assertEqual(json.loads(data)["choices"][0]["message"]["reasoning"], "r")

    def test_chunk_delay(self):
        fake = self.start({"steps": [{"text": "abcdef", "chunk_delay_s": 0.05}]})
        t0 = time.monotonic()
        _, _, data = post(fake, OAI, openai_body(stream=True))
        self.assertGreaterEqual(time.monotonic() - t0, 0.2)
        self.assertEqual(assemble_openai(sse_events(data)[0])["text"], "abcdef")


class TestGemini(ServerCase):

    def test_non_stream_text_and_call(self):
        fake = self.start({"steps": [{"text": "Clicking.", "tool_calls": [
            {"name": "desktop", "arguments": {"action": "click", "x": 3, "y": 4}}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 4}}]})
        status, headers, data = post(fake, GEM, gemini_body(), {"x-goog-api-key": "AIza-test"})
        self.assertEqual(status, 200)
        obj = json.loads(data)
        cand = obj["candidates"][0]
        self.assertEqual(cand["finishReason"], "STOP")
        self.assertEqual(cand["content"]["role"], "model")
        parts = cand["content"]["parts"]
        self.assertEqual(parts[0], {"text": "Clicking."})
        self.assertEqual(parts[1], {"functionCall": {"name": "desktop", "args": {"action": "click", "x": 3, "y": 4}}})
        self.assertEqual(obj["usageMetadata"], {"promptTokenCount": 11, "candidatesTokenCount": 4,
                                                "totalTokenCount": 15})
        rec = fake.requests[0]
        self.assertEqual(rec["provider"], "gemini")
        self.assertFalse(rec["stream"])
        self.assertEqual(rec["headers"]["x-goog-api-key"], "AIza-test")
        self.assertEqual(rec["path"], GEM)
        self.assertEqual(rec["query"], "")

    def test_call_id_and_reasoning(self):
        fake = self.start({"steps": [{"reasoning": "hmm", "tool_calls": [
            {"name": "desktop", "arguments": {"action": "wait", "seconds": 1}, "id": "fc-1"}]}]})
        _, _, data = post(fake, GEM, gemini_body())
        parts = json.loads(data)["candidates"][0]["content"]["parts"]
        self.assertEqual(parts[0], {"text": "hmm", "thought": True})
        self.assertEqual(parts[1]["functionCall"]["id"], "fc-1")

    def test_stream_with_function_call_and_signature(self):
        fake = self.start({"steps": [{"text": "Let me look at the window now.", "tool_calls": [
            {"name": "desktop", "arguments": {"action": "window_screenshot"}},
            {"name": "desktop", "arguments": {"action": "wait", "seconds": 2}}],
            "quirks": {"thought_signature": "c2lnLTE="}}]})
        status, headers, data = post(fake, "/prefix" + GEM_SSE, gemini_body())
        self.assertEqual(status, 200)
        self.assertEqual(headers["content-type"], "text/event-stream")
        events, _ = sse_events(data)
        self.assertNotIn("[DONE]", events)
        chunks = [json.loads(e) for e in events]
        self.assertGreaterEqual(len(chunks), 3)
        text = "".join(p.get("text", "") for c in chunks for p in c["candidates"][0]["content"]["parts"])
        self.assertEqual(text, "Let me look at the window now.")
        last = chunks[-1]["candidates"][0]
        self.assertEqual(last["finishReason"], "STOP")
        self.assertTrue(all("finishReason" not in c["candidates"][0] for c in chunks[:-1]))
        calls = [p for p in last["content"]["parts"] if "functionCall" in p]
        self.assertEqual(len(calls), 2)
        self.assertEqual(calls[0]["thoughtSignature"], "c2lnLTE=")
        self.assertNotIn("thoughtSignature", calls[1])
        self.assertEqual(calls[1]["functionCall"]["args"], {"action": "wait", "seconds": 2})
        self.assertIn("candidatesTokenCount", chunks[-1]["usageMetadata"])
        self.assertTrue(fake.requests[0]["stream"])
        self.assertEqual(fake.requests[0]["query"], "alt=sse")

    def test_signature_on_text_reply(self):
        fake = self.start({"steps": [{"text": "done", "quirks": {"thought_signature": "s2"}}] * 2})
        _, _, data = post(fake, GEM, gemini_body())
        self.assertEqual(json.loads(data)["candidates"][0]["content"]["parts"],
                         [{"text": "done", "thoughtSignature": "s2"}])
        _, _, data = post(fake, GEM_SSE, gemini_body())
        chunks = [json.loads(e) for e in sse_events(data)[0]]
        self.assertEqual(chunks[-1]["candidates"][0]["content"]["parts"], [{"text": "", "thoughtSignature": "s2"}])

    def test_stream_without_alt_sse_is_json_array(self):
        fake = self.start({"steps": [{"text": "array reply"}]})
        status, headers, data = post(fake, "/v1beta/models/g:streamGenerateContent", gemini_body())
        self.assertTrue(headers["content-type"].startswith("application/json"))
        arr = json.loads(data)
        self.assertIsInstance(arr, list)
        self.assertEqual("".join(c["candidates"][0]["content"]["parts"][0]["text"] for c in arr), "array reply")

    def test_block_reason(self):
        fake = self.start({"steps": [{"quirks": {"block_reason": "SAFETY"}}] * 2})
        for path in (GEM, GEM_SSE):
            _, _, data = post(fake, path, gemini_body())
            obj = json.loads(sse_events(data)[0][0]) if path == GEM_SSE else json.loads(data)
            self.assertEqual(obj["promptFeedback"]["blockReason"], "SAFETY")
            self.assertNotIn("candidates", obj)

    def test_finish_reason_override(self):
        fake = self.start({"steps": [
            {"quirks": {"gemini_finish": "SAFETY"}},
            {"text": "partial", "quirks": {"gemini_finish": "MAX_TOKENS"}},
            {"tool_calls": [{"name": "desktop", "arguments": {"action": "click"}}],
             "quirks": {"gemini_finish": "MALFORMED_FUNCTION_CALL"}}]})
        _, _, data = post(fake, GEM, gemini_body())
        cand = json.loads(data)["candidates"][0]
        self.assertEqual(cand["finishReason"], "SAFETY")
        self.assertNotIn("content", cand)
        _, _, data = post(fake, GEM_SSE, gemini_body())
        chunks = [json.loads(e) for e in sse_events(data)[0]]
        self.assertEqual(chunks[-1]["candidates"][0]["finishReason"], "MAX_TOKENS")
        _, _, data = post(fake, GEM, gemini_body())
        cand = json.loads(data)["candidates"][0]
        self.assertEqual(cand["finishReason"], "MALFORMED_FUNCTION_CALL")
        self.assertIn("finishMessage", cand)
        self.assertNotIn("content", cand)

    def test_invalid_arguments_become_malformed_call(self):
        fake = self.start({"steps": [{"tool_calls": [{"name": "desktop", "arguments": {}}],
                                      "quirks": {"invalid_arguments": '{"x": 12,'}}]})
        _, _, data = post(fake, GEM_SSE, gemini_body())
        last = json.loads(sse_events(data)[0][-1])["candidates"][0]
        self.assertEqual(last["finishReason"], "MALFORMED_FUNCTION_CALL")
        self.assertIn('{"x": 12,', last["finishMessage"])

    def test_gemini_ids_quirks(self):
        fake = self.start({"steps": [
            {"tool_calls": [{"name": "d", "arguments": {}, "id": "x"}], "quirks": {"empty_ids": True}},
            {"tool_calls": [{"name": "d", "arguments": {}, "id": "x"}], "quirks": {"missing_ids": True}}]})
        _, _, data = post(fake, GEM, gemini_body())
        self.assertEqual(json.loads(data)["candidates"][0]["content"]["parts"][0]["functionCall"]["id"], "")
        _, _, data = post(fake, GEM, gemini_body())
        self.assertNotIn("id", json.loads(data)["candidates"][0]["content"]["parts"][0]["functionCall"])

    def test_comments_and_crlf_in_gemini_stream(self):
        fake = self.start({"steps": [{"text": "hello", "quirks": {"comments": True, "crlf": True}}]})
        _, _, data = post(fake, GEM_SSE, gemini_body())
        events, comments = sse_events(data)
        self.assertTrue(comments)
        self.assertIn(b"\r\n\r\n", data)
        self.assertEqual("".join(json.loads(e)["candidates"][0]["content"]["parts"][0]["text"]
                                 for e in events), "hello")


class TestErrors(ServerCase):

    def test_openai_429_retry_after_and_ms(self):
        fake = self.start({"steps": [{"status": 429, "headers": {"Retry-After": "1"}, "retry_after_ms": 500}]})
        status, headers, data = post(fake, OAI, openai_body())
        self.assertEqual(status, 429)
        self.assertEqual(headers["retry-after"], "1")
        self.assertEqual(headers["retry-after-ms"], "500")
        err = json.loads(data)["error"]
        self.assertEqual(err["type"], "requests")
        self.assertEqual(err["code"], "rate_limit_exceeded")
        self.assertIn("message", err)
        self.assertEqual(fake.requests[0]["response"], {"kind": "error", "status": 429})

    def test_gemini_429_retry_info(self):
        fake = self.start({"steps": [{"status": 429, "retry_delay": "2s"}]})
        status, headers, data = post(fake, GEM_SSE, gemini_body())
        self.assertEqual(status, 429)
        err = json.loads(data)["error"]
        self.assertEqual(err["code"], 429)
        self.assertEqual(err["status"], "RESOURCE_EXHAUSTED")
        retry = [d for d in err["details"] if d["@type"] == "type.googleapis.com/google.rpc.RetryInfo"]
        self.assertEqual(retry, [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2s"}])

    def test_daily_quota_shapes(self):
        fake = self.start({"steps": [{"status": 429, "quota": "daily"}], "after_end": "repeat_last"})
        status, _, data = post(fake, OAI, openai_body())
        self.assertEqual(status, 429)
        err = json.loads(data)["error"]
        self.assertEqual((err["type"], err["code"]), ("insufficient_quota", "insufficient_quota"))
        status, _, data = post(fake, GEM, gemini_body())
        self.assertEqual(status, 429)
        err = json.loads(data)["error"]
        self.assertEqual(err["status"], "RESOURCE_EXHAUSTED")
        qf = [d for d in err["details"] if d["@type"] == "type.googleapis.com/google.rpc.QuotaFailure"][0]
        self.assertIn("PerDay", qf["violations"][0]["quotaId"])
        self.assertEqual(qf["violations"][0]["quotaDimensions"]["model"], "gemini-test")

    def test_minute_quota_and_other_statuses(self):
        fake = self.start({"steps": [{"status": 429, "quota": "minute"}, {"status": 503},
                                     {"status": 500}, {"status": 401}]})
        _, _, data = post(fake, GEM, gemini_body())
        qf = json.loads(data)["error"]["details"][0]
        self.assertIn("PerMinute", qf["violations"][0]["quotaId"])
        status, _, data = post(fake, GEM, gemini_body())
        self.assertEqual((status, json.loads(data)["error"]["status"]), (503, "UNAVAILABLE"))
        status, _, data = post(fake, OAI, openai_body())
        self.assertEqual((status, json.loads(data)["error"]["type"]), (500, "server_error"))
        status, _, data = post(fake, OAI, openai_body())
        self.assertEqual((status, json.loads(data)["error"]["code"]), (401, "invalid_api_key"))

    def test_custom_bodies(self):
        fake = self.start({"steps": [{"status": 502, "body": "<html>Bad Gateway</html>",
                                      "headers": {"Content-Type": "text/html"}},
                                     {"status": 400, "body": {"error": {"message": "custom"}}}]})
        status, headers, data = post(fake, OAI, openai_body())
        self.assertEqual((status, headers["content-type"], data), (502, "text/html", b"<html>Bad Gateway</html>"))
        status, _, data = post(fake, OAI, openai_body())
        self.assertEqual(json.loads(data), {"error": {"message": "custom"}})


class TestFaults(ServerCase):

    def test_drop_before_response(self):
        fake = self.start({"steps": [{"fault": "drop_before_response"},
                                     {"fault": "drop_before_response", "rst": True}, {"text": "after"}]})
        with self.assertRaises(http.client.RemoteDisconnected):
            post(fake, OAI, openai_body())
        with self.assertRaises(ConnectionResetError):
            post(fake, OAI, openai_body())
        _, _, data = post(fake, OAI, openai_body())
        self.assertEqual(json.loads(data)["choices"][0]["message"]["content"], "after")
        self.assertEqual(fake.requests[0]["response"], {"kind": "fault", "fault": "drop_before_response"})
        self.assertEqual(fake.requests[0]["outcome"], "closed_early")

    def test_drop_mid_stream(self):
        fake = self.start({"steps": [{"fault": "drop_mid_stream", "after_chunks": 3,
                                      "text": "a fairly long answer that is cut"}]})
        conn, resp = open_stream(fake, OAI, openai_body(stream=True))
        self.addCleanup(conn.close)
        with self.assertRaises(http.client.IncompleteRead) as cm:
            resp.read()
        events, _ = sse_events(cm.exception.partial)
        self.assertEqual(len(events), 3)
        self.assertNotIn("[DONE]", events)

    def test_drop_mid_stream_gemini(self):
        fake = self.start({"steps": [{"fault": "drop_mid_stream", "after_chunks": 1, "text": "abcdefgh"}]})
        conn, resp = open_stream(fake, GEM_SSE, gemini_body())
        self.addCleanup(conn.close)
        with self.assertRaises(http.client.IncompleteRead) as cm:
            resp.read()
        self.assertEqual(len(sse_events(cm.exception.partial)[0]), 1)

    def test_truncated_json(self):
        fake = self.start({"steps": [{"fault": "truncated_json", "text": "some text here"}] * 2})
        conn, resp = open_stream(fake, OAI, openai_body())
        self.addCleanup(conn.close)
        claimed = int(resp.getheader("Content-Length"))
        with self.assertRaises(http.client.IncompleteRead) as cm:
            resp.read()
        partial = cm.exception.partial
        self.assertLess(len(partial), claimed)
        with self.assertRaises(ValueError):
            json.loads(partial)
        # streaming: the cut lands inside a data line's JSON
        conn2, resp2 = open_stream(fake, OAI, openai_body(stream=True))
        self.addCleanup(conn2.close)
        with self.assertRaises(http.client.IncompleteRead) as cm:
            resp2.read()
        last_line = cm.exception.partial.decode().split("\n")[-1]
        self.assertTrue(last_line.startswith("data: {"), last_line)

    def test_error_mid_stream(self):
        fake = self.start({"steps": [{"fault": "error_mid_stream", "after_chunks": 2, "text": "abcdefgh"}] * 3})
        _, _, data = post(fake, OAI, openai_body(stream=True))
        events, _ = sse_events(data)
        self.assertEqual(len(events), 3)
        self.assertEqual(json.loads(events[-1])["error"]["type"], "server_error")
        self.assertNotIn("[DONE]", events)
        _, _, data = post(fake, GEM_SSE, gemini_body())
        events, _ = sse_events(data)
        self.assertEqual(json.loads(events[-1])["error"]["status"], "INTERNAL")
        status, _, data = post(fake, OAI, openai_body())
        self.assertEqual(status, 200)
        self.assertIn("error", json.loads(data))

    def read_some_then_close(self, fake, nbytes, stream):
        conn, resp = open_stream(fake, OAI, openai_body(stream=stream))
        self.assertEqual(resp.status, 200)
        got = 0
        while got < nbytes:
            chunk = resp.read(65536)
            self.assertTrue(chunk)
            got += len(chunk)
        resp.close()
        conn.close()
        return got

    def test_huge_body_client_hangs_up_twice_server_survives(self):
        fake = self.start({"steps": [{"fault": "huge_body", "megabytes": 50},
                                     {"fault": "huge_body", "megabytes": 50}, {"text": "still here"}]})
        t0 = time.monotonic()
        self.read_some_then_close(fake, 3 * 1024 * 1024, stream=False)
        self.assertTrue(wait_for(lambda: fake.requests[0].get("outcome") == "client_disconnected"))
        self.read_some_then_close(fake, 2 * 1024 * 1024, stream=True)
        self.assertTrue(wait_for(lambda: fake.requests[1].get("outcome") == "client_disconnected"))
        _, _, data = post(fake, OAI, openai_body())
        self.assertEqual(json.loads(data)["choices"][0]["message"]["content"], "still here")
        self.assertLess(time.monotonic() - t0, 8)

    def test_huge_body_complete_and_shapes(self):
        fake = self.start({"steps": [
            {"fault": "huge_body", "megabytes": 1, "content_length": True},
            {"fault": "huge_body", "megabytes": 1, "shape": "chunks"}]})
        status, headers, data = post(fake, OAI, openai_body())
        self.assertEqual(int(headers["content-length"]), 1024 * 1024)
        self.assertEqual(len(data), 1024 * 1024)
        content = json.loads(data)["choices"][0]["message"]["content"]
        self.assertGreater(len(content), 1024 * 1024 - 200)
        self.assertEqual(content.strip("A"), "")
        _, _, data = post(fake, OAI, openai_body(stream=True))
        events, _ = sse_events(data)
        self.assertGreater(len(events), 10)
        self.assertTrue(all(json.loads(e)["choices"][0]["delta"]["content"] for e in events))

    def test_slow_client_timeout(self):
        fake = self.start({"steps": [{"fault": "slow", "delay_s": 3}, {"text": "fast"}]})
        t0 = time.monotonic()
        with self.assertRaises(socket.timeout):
            post(fake, OAI, openai_body(), timeout=0.3)
        self.assertTrue(wait_for(lambda: fake.requests[0].get("outcome") == "client_disconnected", 2))
        _, _, data = post(fake, OAI, openai_body())
        self.assertEqual(json.loads(data)["choices"][0]["message"]["content"], "fast")
        self.assertLess(time.monotonic() - t0, 2.5)

    def test_slow_then_answers_and_delay_s(self):
        fake = self.start({"steps": [{"fault": "slow", "delay_s": 0.3}, {"text": "later", "delay_s": 0.3}]})
        t0 = time.monotonic()
        _, _, data = post(fake, OAI, openai_body())
        self.assertGreaterEqual(time.monotonic() - t0, 0.3)
        self.assertEqual(json.loads(data)["choices"][0]["message"]["content"], "fake_llm: slow reply")
        t0 = time.monotonic()
        _, _, data = post(fake, OAI, openai_body())
        self.assertGreaterEqual(time.monotonic() - t0, 0.3)
        self.assertEqual(json.loads(data)["choices"][0]["message"]["content"], "later")

    def test_raw(self):
        raw = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n{\"a\": 1}\n"
        fake = self.start({"steps": [{"fault": "raw", "data": raw}, {"fault": "raw", "data": "garbage\r\n\r\n"}]})
        status, headers, data = post(fake, OAI, openai_body())
        self.assertEqual((status, data), (200, b'{"a": 1}\n'))
        with self.assertRaises(http.client.HTTPException):
            post(fake, OAI, openai_body())


class TestTemplates(ServerCase):

    def click_step(self, args, **extra):
        step = {"tool_calls": [{"name": "desktop", "arguments": args, "id": "call_9"}]}
        step.update(extra)
        return step

    def call_args(self, data, provider="openai"):
        if provider == "openai":
            return json.loads(json.loads(data)["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"])
        parts = json.loads(data)["candidates"][0]["content"]["parts"]
        return [p for p in parts if "functionCall" in p][0]["functionCall"]["args"]

    def test_element_templates_openai(self):
        fake = self.start({"steps": [self.click_step({
            "action": "click", "element": "${element:Button:OK}", "x": "${element_x:Button:OK}",
            "y": "${element_y:Button:OK}", "e2": "${element:*:Text Editor}",
            "e3": "${element:Button:Say \"hi\"}", "nested": ["${element:MenuItem:File}"]})]})
        content = json.dumps({"ok": True, "observation": TREE})  # tree inside a JSON tool result
        _, _, data = post(fake, OAI, openai_body(messages=observation_messages(content)))
        args = self.call_args(data)
        self.assertEqual(args, {"action": "click", "element": 5, "x": 700, "y": 900, "e2": 3, "e3": 4,
                                "nested": [2]})
        self.assertIsNone(fake.requests[0]["template_error"])

    def test_element_template_stream_and_latest_tree(self):
        fake = self.start({"steps": [self.click_step({"element": "${element:Button:Cancel}"}),
                                     self.click_step({"element": "${element:Button:OK}"})]})
        # "Cancel" exists only in the older tree: the latest tree decides, so it fails
        _, _, data = post(fake, OAI, openai_body(stream=True, messages=observation_messages(TREE)))
        got = assemble_openai(sse_events(data)[0])
        self.assertEqual(got["text"], 'fake_llm: no tree line matching Button "Cancel"')
        self.assertEqual(got["calls"], {})
        self.assertEqual(fake.requests[0]["template_error"], 'fake_llm: no tree line matching Button "Cancel"')
        self.assertEqual(fake.requests[0]["response"]["kind"], "template_error_reply")
        _, _, data = post(fake, OAI, openai_body(stream=True, messages=observation_messages(TREE)))
        got = assemble_openai(sse_events(data)[0])
        self.assertEqual(json.loads(got["calls"][0]["arguments"]), {"element": 5})

    def test_element_templates_gemini(self):
        fake = self.start({"steps": [self.click_step({"element": "${element:Edit:Text Editor}",
                                                      "x": "${element_x:Edit:Text Editor}"})] * 2})
        contents = [
            {"role": "user", "parts": [{"text": "type hello"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "desktop", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "desktop",
                                                             "response": {"result": {"tree": TREE}}}}]},
        ]
        _, _, data = post(fake, GEM, gemini_body(contents))
        self.assertEqual(self.call_args(data, "gemini"), {"element": 3, "x": 500})
        # a plain text part carries the tree as well
        contents2 = [{"role": "user", "parts": [{"text": "Observation:\n" + TREE}]}]
        _, _, data = post(fake, GEM, gemini_body(contents2))
        self.assertEqual(self.call_args(data, "gemini"), {"element": 3, "x": 500})

    def test_mark_template(self):
        marks = ("The image shows a numbered box on each interactive element:\n"
                 "[2] Button \"\" bounds=[33,25][297,223]\n[3] Button \"\" bounds=[334,25][598,223]\n")
        fake = self.start({"steps": [self.click_step({"element": "${mark_at:400:100}"}),
                                     self.click_step({"element": "${mark_at:999:999}"})]})
        _, _, data = post(fake, OAI, openai_body(messages=observation_messages(marks)))
        self.assertEqual(self.call_args(data), {"element": 3})
        _, _, data = post(fake, OAI, openai_body(messages=observation_messages(marks)))
        text = json.loads(data)["choices"][0]["message"]["content"]
        self.assertIn("no numbered mark holds (999,999)", text)

    def test_missing_tree(self):
        fake = self.start({"steps": [self.click_step({"element": "${element:Button:OK}"})]})
        _, _, data = post(fake, GEM, gemini_body())
        text = json.loads(data)["candidates"][0]["content"]["parts"][0]["text"]
        self.assertIn("no accessibility tree", text)
        self.assertIn("no accessibility tree", fake.requests[0]["template_error"])

    def test_color_templates_openai_rgb_and_latest_image(self):
        w, h = 200, 100
        old = make_png(w, h, scene_pixel((10, 10, 19, 19)))
        new = make_png(w, h, scene_pixel((150, 20, 159, 29)))
        fake = self.start({"steps": [self.click_step({"x": "${color_x:FF0000}", "y": "${color_y:ff0000}"})]})
        _, _, data = post(fake, OAI, openai_body(messages=observation_messages(TREE, [old, new])))
        self.assertEqual(self.call_args(data), {"x": frame(154.5, w), "y": frame(24.5, h)})
        self.assertEqual(fake.requests[0]["body"]["messages"][-1]["content"][1]["image_url"]["url"],
                         "data:image/png;base64," + base64.b64encode(new).decode())

    def test_tars_templates_inside_text_are_smart_resized_pixels(self):
        w, h = 200, 100  # below 100*28*28 pixels: seen by the model as 420x224
        png = make_png(w, h, scene_pixel((150, 20, 159, 29)))
        fake = self.start({"steps": [{"text": "Action: click(start_box='(${tars_x:FF0000},"
                                              "${tars_y:FF0000})')"}]})
        _, _, data = post(fake, OAI, openai_body(messages=observation_messages(TREE, [png])))
        text = json.loads(data)["choices"][0]["message"]["content"]
        self.assertEqual(server.smart_resize(w, h), (420, 224))
        self.assertEqual(server.smart_resize(1280, 800), (1288, 812))
        self.assertEqual(text, "Action: click(start_box='(%d,%d)')"
                         % (round(154.5 * 420 / 200), round(24.5 * 224 / 100)))

    def test_color_templates_gemini_rgba(self):
        w, h = 64, 48
        png = make_png(w, h, scene_pixel((0, 40, 3, 47)), alpha=True)
        fake = self.start({"steps": [self.click_step({"x": "${color_x:FF0000}", "y": "${color_y:FF0000}"}),
                                     self.click_step({"x": "${color_x:00FF00}"})]})
        contents = [{"role": "user", "parts": [
            {"text": "look"}, {"inlineData": {"mimeType": "image/png", "data": base64.b64encode(png).decode()}}]}]
        _, _, data = post(fake, GEM_SSE, gemini_body(contents))
        last = json.loads(sse_events(data)[0][-1])
        args = last["candidates"][0]["content"]["parts"][0]["functionCall"]["args"]
        self.assertEqual(args, {"x": frame(1.5, w), "y": frame(43.5, h)})
        _, _, data = post(fake, GEM, gemini_body(contents))
        self.assertIn("no pixels of colour #00FF00", fake.requests[1]["template_error"])

    def test_color_without_image(self):
        fake = self.start({"steps": [self.click_step({"x": "${color_x:FF0000}"})]})
        _, _, data = post(fake, OAI, openai_body())
        self.assertIn("no PNG image", json.loads(data)["choices"][0]["message"]["content"])


class TestExpect(ServerCase):

    def test_expectations(self):
        png = make_png(4, 4, lambda x, y: (1, 2, 3))
        fake = self.start({"steps": [
            {"text": "a", "expect": {"has_image": True, "has_tree": True, "contains": "Notepad",
                                     "tool_result_for": "call_0", "not_contains": "secret"}},
            {"text": "b", "expect": {"has_image": True, "has_tree": True, "contains": ["zzz"],
                                     "tool_result_for": "call_7", "not_contains": "press"}},
        ]})
        msgs = observation_messages(TREE, [png])
        post(fake, OAI, openai_body(messages=msgs))
        post(fake, OAI, openai_body())
        recs = fake.requests
        self.assertEqual(recs[0]["expect_failures"], [])
        self.assertEqual(len(recs[1]["expect_failures"]), 4, recs[1]["expect_failures"])
        joined = " ".join(recs[1]["expect_failures"])
        for word in ("image", "tree", "zzz", "call_7"):
            self.assertIn(word, joined)

    def test_gemini_tool_result_for(self):
        fake = self.start({"steps": [{"text": "a", "expect": {"tool_result_for": "desktop"}}]})
        post(fake, GEM, gemini_body([{"role": "user", "parts": [
            {"functionResponse": {"name": "desktop", "response": {"ok": True}}}]}]))
        self.assertEqual(fake.requests[0]["expect_failures"], [])


class TestScenarioAndRouting(ServerCase):

    def test_after_end_error(self):
        fake = self.start({"steps": [{"text": "only"}]})
        post(fake, OAI, openai_body())
        status, _, data = post(fake, OAI, openai_body())
        self.assertEqual(status, 500)
        self.assertIn("scenario exhausted", json.loads(data)["error"]["message"])
        status, _, data = post(fake, GEM, gemini_body())
        self.assertEqual((status, json.loads(data)["error"]["status"]), (500, "INTERNAL"))
        self.assertIsNone(fake.requests[1]["step"])

    def test_after_end_repeat_last(self):
        fake = self.start({"steps": [{"text": "first"}, {"text": "again"}], "after_end": "repeat_last"})
        texts = [json.loads(post(fake, OAI, openai_body())[2])["choices"][0]["message"]["content"]
                 for _ in range(4)]
        self.assertEqual(texts, ["first", "again", "again", "again"])
        self.assertEqual([r["step"] for r in fake.requests], [0, 1, 1, 1])

    def test_policy_answers_from_what_the_request_shows(self):
        seen = []

        def policy(req):
            tree = server.latest_tree(req)
            seen.append(tree)
            if not tree:
                return {"text": "no tree"}
            if len(seen) > 2:
                return None
            ok = [line for line in tree if line[1:3] == ("Button", "OK")][0]
            return {"tool_calls": [{"name": "desktop",
                                    "arguments": {"action": "click", "element": ok[0]}}]}

        fake = self.start({"steps": []}, policy=policy)
        _, _, data = post(fake, OAI, openai_body(messages=observation_messages(TREE)))
        call = json.loads(data)["choices"][0]["message"]["tool_calls"][0]["function"]
        self.assertEqual(json.loads(call["arguments"]), {"action": "click", "element": 5})
        _, _, data = post(fake, OAI, openai_body())
        self.assertEqual(json.loads(data)["choices"][0]["message"]["content"], "no tree")
        status, _, data = post(fake, OAI, openai_body(messages=observation_messages(TREE)))
        self.assertEqual(status, 500)
        self.assertIn("scenario exhausted", json.loads(data)["error"]["message"])
        self.assertEqual([r["step"] for r in fake.requests], [0, 1, None])
        self.assertIn('Window: "Untitled - Notepad"', server.observation_texts(
            server.ModelRequest("openai", OAI, "", {}, b"",
                                openai_body(messages=observation_messages(TREE)),
                                "m", False, True))[-1])
        # A step the policy makes up is checked like a scenario's.
        fake = self.start({"steps": []}, policy=lambda req: {"txt": "typo"})
        status, _, _ = post(fake, OAI, openai_body())
        self.assertEqual(status, 500)

    def test_not_found_and_bad_json(self):
        fake = self.start({"steps": [{"text": "x"}]})
        status, _, data = post(fake, "/v1/completions", {})
        self.assertEqual(status, 404)
        self.assertIn("no route", json.loads(data)["error"]["message"])
        with self.assertRaises(urllib.error.HTTPError) as cm:
            urllib.request.urlopen(fake.url + "/v1/models", timeout=10)
        self.assertEqual(cm.exception.code, 404)
        status, _, _ = post(fake, OAI, b"{not json")
        self.assertEqual(status, 400)
        recs = fake.requests
        self.assertEqual([r["provider"] for r in recs], [None, None, "openai"])
        self.assertIn("not JSON", recs[2]["error"])
        # the bad request did not consume the step
        _, _, data = post(fake, OAI, openai_body())
        self.assertEqual(json.loads(data)["choices"][0]["message"]["content"], "x")

    def test_validation(self):
        bad = [{"steps": [{"quirks": {"no_such_quirk": True}}]},
               {"steps": [{"fault": "explode"}]},
               {"steps": [{"txt": "typo"}]},
               {"steps": [{"status": 429, "quota": "weekly"}]},
               {"steps": [{"expect": {"has_cat": True}}]},
               {"steps": [{"fault": "raw"}]},
               {"steps": [], "after_end": "loop"},
               {"no_steps": []}]
        for scenario in bad:
            with self.assertRaises(ValueError, msg=json.dumps(scenario)):
                server.Scenario(scenario)

    def test_example_scenarios_load(self):
        names = sorted(f for f in os.listdir(SCENARIOS) if f.endswith(".json"))
        self.assertGreaterEqual(len(names), 5)
        for name in names:
            server.Scenario(os.path.join(SCENARIOS, name))

    def test_example_tool_loop(self):
        fake = self.start(os.path.join(SCENARIOS, "tool_loop.json"))
        _, _, data = post(fake, OAI, openai_body())
        self.assertEqual(json.loads(data)["choices"][0]["message"]["tool_calls"][0]["id"], "call_1")
        msgs = [{"role": "user", "content": "press OK"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "desktop", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "call_1", "content": TREE}]
        _, _, data = post(fake, OAI, openai_body(messages=msgs))
        msg = json.loads(data)["choices"][0]["message"]
        self.assertEqual(json.loads(msg["tool_calls"][0]["function"]["arguments"])["element"], 5)
        msgs += [{"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_2", "type": "function", "function": {"name": "desktop", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "call_2", "content": "ok"}]
        _, _, data = post(fake, OAI, openai_body(messages=msgs))
        self.assertEqual(json.loads(data)["choices"][0]["message"]["content"], "Done: OK was pressed.")
        self.assertEqual([r["expect_failures"] for r in fake.requests], [[], [], []])

    def test_example_retry_and_faults(self):
        fake = self.start(os.path.join(SCENARIOS, "retry_then_answer.json"))
        status, headers, _ = post(fake, GEM, gemini_body())
        self.assertEqual((status, headers["retry-after"], headers["retry-after-ms"]), (429, "1", "200"))
        self.assertEqual(post(fake, GEM, gemini_body())[0], 503)
        self.assertEqual(post(fake, GEM, gemini_body())[0], 200)
        fake2 = self.start(os.path.join(SCENARIOS, "faults_then_answer.json"))
        for _ in range(3):
            with self.assertRaises((http.client.HTTPException, ConnectionError)):
                post(fake2, OAI, openai_body(stream=True))
        _, _, data = post(fake2, OAI, openai_body(stream=True))
        self.assertEqual(assemble_openai(sse_events(data)[0])["text"], "Answer after faults.")

    def test_record_file(self):
        path = os.path.join(self.tmp(), "rec.jsonl")
        fake = self.start({"steps": [{"text": "a"}, {"fault": "drop_before_response"}]}, record_path=path)
        post(fake, OAI, openai_body(), {"Authorization": "Bearer sk-1"})
        with self.assertRaises((http.client.HTTPException, ConnectionError)):
            post(fake, GEM, gemini_body())
        post(fake, "/nowhere", {})
        with open(path, encoding="utf-8") as f:
            lines = [json.loads(line) for line in f]
        self.assertEqual([r["n"] for r in lines], [1, 2, 3])
        self.assertEqual([r["provider"] for r in lines], ["openai", "gemini", None])
        self.assertEqual(lines[0]["headers"]["Authorization"], "Bearer sk-1")
        self.assertEqual(lines[1]["response"]["fault"], "drop_before_response")
        for r in lines:
            for key in ("time", "method", "path", "query", "headers", "body", "body_bytes",
                        "stream", "step", "template_error", "expect_failures"):
                self.assertIn(key, r)

    def test_idle_exit_in_process(self):
        fake = FakeLLM({"steps": []}, idle_exit=0.5).start()
        self.addCleanup(fake.stop)
        self.assertTrue(fake.stopped.wait(3))
        self.assertTrue(fake.idle_exited)

    def tmp(self):
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        return d.name



class TestRefusals(ServerCase):
    """Scenario-wide refusals: a local server's own 400s, which consume no step."""

    def test_each_refusal_and_what_passes(self):
        fake = self.start({"refuse": ["images_in_tool", "stream_with_tools", "tool_choice"],
                           "steps": [{"text": "ok"}], "after_end": "repeat_last"})
        image_tool = [{"role": "user", "content": "hi"},
                      {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
                       "function": {"name": "desktop", "arguments": "{}"}}]},
                      {"role": "tool", "tool_call_id": "c1", "content": [
                          {"type": "text", "text": "done"},
                          {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}}]}]
        status, _, data = post(fake, OAI, openai_body(messages=image_tool))
        self.assertEqual(status, 400)
        self.assertIn("only supports text", json.loads(data)["message"])
        status, _, data = post(fake, OAI, openai_body(stream=True))
        self.assertEqual(status, 400)
        self.assertIn("stream", json.loads(data)["error"]["message"])
        status, _, data = post(fake, OAI, dict(openai_body(), tool_choice="auto"))
        self.assertEqual(status, 400)
        self.assertIn("tool choice", json.loads(data)["message"])
        # text-only tool messages, no stream, no tool_choice: answered from the steps
        image_tool[2]["content"] = "done"
        status, _, data = post(fake, OAI, openai_body(messages=image_tool))
        self.assertEqual(status, 200)
        recs = fake.requests
        self.assertEqual([r["response"].get("refusal") for r in recs],
                         ["images_in_tool", "stream_with_tools", "tool_choice", None])
        self.assertEqual([r["step"] for r in recs], [None, None, None, 0])
        # streaming without tools is fine
        body = openai_body(stream=True)
        del body["tools"]
        status, _, _ = post(fake, OAI, body)
        self.assertEqual(status, 200)

    def test_bad_refusal_name(self):
        with self.assertRaises(ValueError):
            server.Scenario({"refuse": ["everything"], "steps": []})


class TestPNG(unittest.TestCase):

    def test_roundtrip_all_filters(self):
        def pix(x, y):
            return ((x * 37 + y) % 256, (y * 91 + x * 3) % 256, (x * y) % 256, (x + y) % 256)
        for alpha in (False, True):
            img = png_decode.decode_png(make_png(23, 11, pix, alpha=alpha))
            self.assertEqual((img.width, img.height, img.channels), (23, 11, 4 if alpha else 3))
            for y in range(11):
                for x in range(23):
                    self.assertEqual(img.pixel(x, y), pix(x, y)[:3])

    def test_palette_at_every_depth(self):
        colours = [bytes((i * 40 % 256, 255 - i * 30 % 256, i * 17 % 256)) for i in range(16)]
        for depth in (1, 2, 4, 8):
            n = 1 << min(depth, 4)
            w, h = 13, 5
            def index(x, y):
                return (x * 3 + y) % n
            rows = b""
            for y in range(h):
                bits = 0
                nbits = 0
                packed = bytearray()
                for x in range(w):
                    bits = (bits << depth) | index(x, y)
                    nbits += depth
                    if nbits == 8:
                        packed.append(bits)
                        bits = nbits = 0
                if nbits:
                    packed.append(bits << (8 - nbits))
                rows += b"\x00" + bytes(packed)
            def chunk(kind, body):
                return (struct.pack(">I", len(body)) + kind + body
                        + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
            data = (png_decode.PNG_SIGNATURE
                    + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, 3, 0, 0, 0))
                    + chunk(b"PLTE", b"".join(colours[:n]))
                    + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
            img = png_decode.decode_png(data)
            self.assertEqual((img.width, img.height, img.channels), (w, h, 3))
            for y in range(h):
                for x in range(w):
                    self.assertEqual(bytes(img.pixel(x, y)), colours[index(x, y)], (depth, x, y))

    def test_unsupported(self):
        with self.assertRaisesRegex(png_decode.PNGError, "PLTE"):
            png_decode.decode_png(make_png(2, 2, lambda x, y: (0, 0, 0), colour_type=3))
        with self.assertRaisesRegex(png_decode.PNGError, "interlaced"):
            png_decode.decode_png(make_png(2, 2, lambda x, y: (0, 0, 0), interlace=1))
        with self.assertRaisesRegex(png_decode.PNGError, "signature"):
            png_decode.decode_png(b"GIF89a....")
        data = bytearray(make_png(2, 2, lambda x, y: (0, 0, 0)))
        data[30] ^= 0xFF
        with self.assertRaises(png_decode.PNGError):
            png_decode.decode_png(bytes(data))

    def test_find_colour_and_frame(self):
        img = png_decode.decode_png(make_png(10, 5, lambda x, y: (255, 0, 0) if x == 9 else (0, 0, 0)))
        self.assertEqual(png_decode.find_colour(img, (250, 7, 0)), (9.0, 2.0, 5))
        self.assertIsNone(png_decode.find_colour(img, (0, 255, 0)))
        self.assertEqual(png_decode.to_frame(9, 10), 999)
        self.assertEqual(png_decode.to_frame(0, 10), 0)


class TestCLI(unittest.TestCase):

    def spawn(self, *extra):
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        proc = subprocess.Popen([sys.executable, SERVER_PY, "--quiet"] + list(extra),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.addCleanup(self.reap, proc)
        line = proc.stdout.readline()
        return proc, json.loads(line)["port"]

    @staticmethod
    def reap(proc):
        if proc.poll() is None:
            proc.kill()
        proc.wait(5)
        proc.stdout.close()
        proc.stderr.close()

    def test_cli_port_file_record_and_shutdown(self):
        with tempfile.TemporaryDirectory() as d:
            port_file = os.path.join(d, "port")
            rec = os.path.join(d, "rec.jsonl")
            proc, port = self.spawn("--scenario", os.path.join(SCENARIOS, "text_only.json"),
                                    "--port-file", port_file, "--record", rec)
            with open(port_file) as f:
                self.assertEqual(int(f.read()), port)
            base = "http://127.0.0.1:%d" % port
            req = urllib.request.Request(base + "/v1/chat/completions", data=json.dumps(openai_body()).encode(),
                                         headers={"Content-Type": "application/json",
                                                  "Authorization": "Bearer sk-cli"})
            with urllib.request.urlopen(req, timeout=10) as r:
                self.assertEqual(json.loads(r.read())["choices"][0]["message"]["content"], "Hello from fake_llm.")
            with urllib.request.urlopen(base + "/__requests", timeout=10) as r:
                self.assertEqual(json.loads(r.read())[0]["headers"]["Authorization"], "Bearer sk-cli")
            with open(rec) as f:
                self.assertEqual(json.loads(f.readline())["body"]["model"], "gpt-test")
            req = urllib.request.Request(base + "/__shutdown", data=b"", method="POST")
            with urllib.request.urlopen(req, timeout=10) as r:
                self.assertTrue(json.loads(r.read())["ok"])
            self.assertEqual(proc.wait(5), 0)

    def test_cli_sigterm(self):
        proc, port = self.spawn("--scenario", os.path.join(SCENARIOS, "text_only.json"))
        proc.send_signal(signal.SIGTERM)
        self.assertEqual(proc.wait(5), 0)

    def test_cli_sigint(self):
        proc, port = self.spawn("--scenario", os.path.join(SCENARIOS, "text_only.json"))
        proc.send_signal(signal.SIGINT)
        self.assertEqual(proc.wait(5), 0)

    def test_cli_idle_exit(self):
        t0 = time.monotonic()
        proc, port = self.spawn("--scenario", os.path.join(SCENARIOS, "text_only.json"), "--idle-exit", "1")
        self.assertEqual(proc.wait(5), 0)
        self.assertGreaterEqual(time.monotonic() - t0, 0.9)

    def test_cli_bad_scenario(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write('{"steps": [{"fault": "nope"}]}')
        self.addCleanup(os.unlink, f.name)
        proc = subprocess.run([sys.executable, SERVER_PY, "--scenario", f.name], capture_output=True,
                              env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"), timeout=10)
        self.assertEqual(proc.returncode, 1)
        self.assertIn(b"unknown fault", proc.stderr)


class TestResponsesAndMessages(ServerCase):
    """The Responses and Messages APIs: replies in their shapes, requests validated."""

    STEP = {"text": "hi", "tool_calls": [{"name": "desktop", "arguments": {"action": "wait"},
                                          "id": "call_1"}]}
    ANTHROPIC_HEADERS = {"anthropic-version": "2023-06-01", "x-api-key": "k"}

    def test_responses_whole_and_streamed(self):
        fake = self.start({"steps": [self.STEP, self.STEP]})
        body = {"model": "m", "input": [{"role": "user", "content": "go"}]}
        status, _, data = post(fake, "/v1/responses", body)
        self.assertEqual(status, 200)
        out = json.loads(data)["output"]
        self.assertEqual([i["type"] for i in out], ["message", "function_call"])
        self.assertEqual(out[1]["call_id"], "call_1")
        status, _, data = post(fake, "/v1/responses", dict(body, stream=True))
        text = data.decode()
        self.assertIn("event: response.function_call_arguments.delta\n", text)
        self.assertIn("event: response.completed\n", text)
        self.assertEqual(fake.requests[1]["provider"], "responses")

    def test_responses_malformed_requests_are_refused(self):
        fake = self.start({"steps": [self.STEP]})
        status, _, data = post(fake, "/v1/responses", {"model": "m", "input": [
            {"type": "function_call_output", "call_id": "nope", "output": "x"}],
            "tools": [{"type": "function", "function": {"name": "desktop"}}]})
        self.assertEqual(status, 400)
        msg = json.loads(data)["error"]["message"]
        self.assertIn("No tool call found", msg)
        self.assertIn("function tools are flat", msg)
        self.assertEqual(fake.requests[0]["response"]["kind"], "invalid")
        self.assertIsNone(fake.requests[0]["step"])

    def test_messages_whole_and_streamed(self):
        fake = self.start({"steps": [self.STEP, self.STEP]})
        body = {"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": "go"}]}
        status, _, data = post(fake, "/v1/messages", body, self.ANTHROPIC_HEADERS)
        self.assertEqual(status, 200)
        msg = json.loads(data)
        self.assertEqual(msg["stop_reason"], "tool_use")
        self.assertEqual(msg["content"][1], {"type": "tool_use", "id": "call_1", "name": "desktop",
                                             "input": {"action": "wait"}})
        status, _, data = post(fake, "/v1/messages", dict(body, stream=True), self.ANTHROPIC_HEADERS)
        text = data.decode()
        self.assertIn("event: content_block_delta\n", text)
        self.assertIn('"type":"input_json_delta"', text)
        self.assertIn("event: message_stop\n", text)

    def test_messages_malformed_requests_are_refused(self):
        fake = self.start({"steps": [self.STEP]})
        body = {"model": "m", "max_tokens": 10, "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "desktop",
                                               "input": {}}]},
            {"role": "user", "content": [{"type": "text", "text": "where"},
                                         {"type": "tool_result", "tool_use_id": "t2",
                                          "content": [{"type": "text", "text": ""}]}]}]}
        status, _, data = post(fake, "/v1/messages", body, {"x-api-key": "k"})
        self.assertEqual(status, 400)
        err = json.loads(data)
        self.assertEqual(err["type"], "error")
        msg = err["error"]["message"]
        for want in ("anthropic-version is required", "tool_result blocks must come first",
                     "unexpected tool_use_id", "text content blocks must be non-empty",
                     "without tool_result blocks immediately after: t1"):
            self.assertIn(want, msg)


def refused(test, fake, path, body, status, want, headers=None):
    """POSTs body and checks the fake refused it as the real service would: the status,
    the message, and no step taken."""
    st, _, data = post(fake, path, body, headers)
    test.assertEqual(st, status, data)
    err = json.loads(data)
    test.assertIn(want, err["error"]["message"])
    test.assertEqual(fake.requests[-1]["response"]["kind"], "invalid")
    test.assertIsNone(fake.requests[-1]["step"])


class TestStrictGemini(ServerCase):
    """Each Gemini rule of strict.py refuses what the API refuses, and lets pass what it
    takes."""

    CALLS = [{"role": "user", "parts": [{"text": "go"}]},
             {"role": "model", "parts": [
                 {"functionCall": {"name": "desktop", "args": {"action": "wait"}, "id": "a"}},
                 {"functionCall": {"name": "powershell", "args": {}, "id": "b"}}]}]

    def answers(self, *responses):
        return self.CALLS + [{"role": "user", "parts": [{"functionResponse": r}
                                                        for r in responses]}]

    def test_the_key_in_its_header_or_query(self):
        fake = self.start({"steps": [{"text": "ok"}], "after_end": "repeat_last"})
        refused(self, fake, GEM, gemini_body(), 403, "unregistered callers", headers={})
        refused(self, fake, GEM, gemini_body(), 401, "Expected OAuth 2 access token",
                headers={"Authorization": "Bearer AIza-key"})
        self.assertEqual(post(fake, GEM, gemini_body())[0], 200)
        self.assertEqual(post(fake, GEM + "?key=AIza-key", gemini_body(), headers={})[0], 200)

    def test_one_function_response_per_call_each_answering_its_call(self):
        fake = self.start({"steps": [{"text": "ok"}], "after_end": "repeat_last"})
        a = {"name": "desktop", "id": "a", "response": {"output": "waited"}}
        b = {"name": "powershell", "id": "b", "response": {"error": "denied"}}
        refused(self, fake, GEM, gemini_body(self.answers(a)), 400,
                "number of function response parts is equal to the number of function call")
        refused(self, fake, GEM, gemini_body(self.answers(a, dict(b, name="desktop"))), 400,
                "answers no function call of the turn before")
        refused(self, fake, GEM, gemini_body(self.answers(a, dict(b, id="zz"))), 400,
                "answers no function call of the turn before")
        refused(self, fake, GEM, gemini_body([{"role": "user", "parts": [
            {"functionResponse": a}]}]), 400, "comes immediately after a function call turn")
        self.assertEqual(post(fake, GEM, gemini_body(self.answers(b, a)))[0], 200)

    def test_function_responses_shaped_as_documented(self):
        fake = self.start({"steps": [{"text": "ok"}], "after_end": "repeat_last"})
        a = {"name": "desktop", "id": "a", "response": {"output": "waited"}}
        b = {"name": "powershell", "id": "b", "response": {"output": "ok"}}
        refused(self, fake, GEM, gemini_body(self.answers(a, dict(b, response="ok"))), 400,
                "response: a JSON object (Struct) is required")
        refused(self, fake, GEM, gemini_body(self.answers(
            a, dict(b, parts=[{"text": "a screenshot"}]))), 400, "inline data")
        shot = {"inlineData": {"mimeType": "image/png", "data": "iVBORw0K"}}
        self.assertEqual(post(fake, GEM, gemini_body(self.answers(a, dict(b, parts=[shot]))))[0],
                         200)

    def test_computer_use_only_on_the_listed_models(self):
        fake = self.start({"steps": [{"text": "ok"}], "after_end": "repeat_last"})

        def cu(model, env):
            body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
                    "tools": [{"computerUse": {"environment": env}}]}
            return post(fake, "/v1beta/models/%s:generateContent" % model, body,
                        {"x-goog-api-key": "k"})
        self.assertEqual(cu("gemini-3.6-flash", "ENVIRONMENT_DESKTOP")[0], 200)
        self.assertEqual(cu("gemini-3-flash-preview", "ENVIRONMENT_DESKTOP")[0], 200)
        st, _, data = cu("gemini-3.1-pro-preview", "ENVIRONMENT_DESKTOP")
        self.assertEqual(st, 400)
        self.assertIn("Computer Use is not enabled for models/gemini-3.1-pro-preview",
                      data.decode())
        st, _, data = cu("gemini-2.5-computer-use-preview-10-2025", "ENVIRONMENT_DESKTOP")
        self.assertEqual(st, 400)
        self.assertEqual(cu("gemini-2.5-computer-use-preview-10-2025",
                            "ENVIRONMENT_BROWSER")[0], 200)

    def test_gemini_3_calls_go_back_with_their_thought_signature(self):
        call = {"name": "desktop", "arguments": {"action": "wait"}}
        fake = self.start({"steps": [{"tool_calls": [call], "quirks": {"thought_signature": "SIG"}},
                                     {"text": "ok"}], "after_end": "repeat_last"})
        path = "/v1beta/models/gemini-3-flash-preview:generateContent"
        st, _, data = post(fake, path, gemini_body())
        part = json.loads(data)["candidates"][0]["content"]["parts"][0]
        self.assertEqual(part["thoughtSignature"], "SIG")
        fc = dict(part["functionCall"])
        turns = [{"role": "user", "parts": [{"text": "hi"}]},
                 {"role": "model", "parts": [{"functionCall": fc}]},
                 {"role": "user", "parts": [{"functionResponse": {
                     "name": "desktop", "response": {"output": "waited"}}}]}]
        refused(self, fake, path, gemini_body(turns), 400,
                "Function call is missing a thought_signature")
        turns[1]["parts"][0]["thoughtSignature"] = "Zm9yZ2Vk"
        refused(self, fake, path, gemini_body(turns), 400, "Corrupted thought signature")
        turns[1]["parts"][0]["thoughtSignature"] = "SIG"
        self.assertEqual(post(fake, path, gemini_body(turns))[0], 200)
        # an earlier turn (before the latest user text) is not checked, nor other models
        turns[1]["parts"][0].pop("thoughtSignature")
        later = turns + [{"role": "model", "parts": [{"text": "done"}]},
                         {"role": "user", "parts": [{"text": "and now?"}]}]
        self.assertEqual(post(fake, path, gemini_body(later))[0], 200)
        self.assertEqual(post(fake, GEM, gemini_body(turns))[0], 200)


class TestStrictResponses(ServerCase):
    """Each Responses rule of strict.py: storage, include, references, reasoning items
    given back whole and with the item that followed them."""

    CLICK = {"tool_calls": [{"name": "computer", "arguments": {
        "action": {"type": "click", "button": "left", "x": 5, "y": 9}}}],
        "reasoning": "the button is there"}
    TOOLS = [{"type": "computer_use_preview", "display_width": 100, "display_height": 80,
              "environment": "windows"}]
    SHOT = {"type": "computer_screenshot", "image_url": "data:image/png;base64,iVBORw0K"}

    def body(self, input_items, **kw):
        return dict({"model": "computer-use-preview", "input": input_items,
                     "tools": self.TOOLS}, **kw)

    def first(self, fake, **kw):
        """The first request, answered with reasoning and a computer_call: its items."""
        st, _, data = post(fake, "/v1/responses",
                           self.body([{"role": "user", "content": "go"}], **kw))
        self.assertEqual(st, 200, data)
        return json.loads(data)["output"]

    def echo(self, items):
        return [{"role": "user", "content": "go"}] + items + [
            {"type": "computer_call_output", "call_id": items[-1]["call_id"], "output": self.SHOT}]

    def test_store_and_include_are_what_the_api_takes(self):
        fake = self.start({"steps": [{"text": "ok"}], "after_end": "repeat_last"})
        user = [{"role": "user", "content": "go"}]
        refused(self, fake, "/v1/responses", self.body(user, store="no"), 400,
                "Invalid type for 'store'")
        refused(self, fake, "/v1/responses", self.body(user, include=["reasoning.secrets"]), 400,
                "Invalid value for 'include'")
        st, _, _ = post(fake, "/v1/responses", self.body(
            user, store=False, include=["reasoning.encrypted_content"]))
        self.assertEqual(st, 200)

    def test_without_storage_reasoning_goes_back_whole(self):
        fake = self.start({"steps": [self.CLICK, {"text": "ok"}], "after_end": "repeat_last"})
        opts = {"store": False, "include": ["reasoning.encrypted_content"]}
        items = self.first(fake, **opts)
        self.assertEqual([i["type"] for i in items], ["reasoning", "computer_call"])
        rs = items[0]
        self.assertTrue(rs["encrypted_content"])
        by_id = dict(rs)
        del by_id["encrypted_content"]
        refused(self, fake, "/v1/responses", self.body(self.echo([by_id, items[1]]), **opts),
                404, "Items are not persisted when `store` is set to false")
        refused(self, fake, "/v1/responses", self.body(self.echo(
            [dict(rs, encrypted_content="Zm9yZ2Vk"), items[1]]), **opts), 400,
            "could not be verified")
        refused(self, fake, "/v1/responses", self.body(self.echo(
            [dict(rs, id="rs_madeup"), items[1]]), **opts), 404, "Item with id 'rs_madeup'")
        swapped = [{"role": "user", "content": "go"}, items[1], rs,
                   {"type": "computer_call_output", "call_id": items[1]["call_id"],
                    "output": self.SHOT}]
        refused(self, fake, "/v1/responses", self.body(swapped, **opts), 400,
                "provided without its required following item")
        self.assertEqual(post(fake, "/v1/responses", self.body(self.echo(items), **opts))[0], 200)

    def test_stored_reasoning_may_go_back_by_id(self):
        fake = self.start({"steps": [self.CLICK, {"text": "ok"}], "after_end": "repeat_last"})
        items = self.first(fake)  # store defaults to true
        self.assertNotIn("encrypted_content", items[0])
        self.assertEqual(post(fake, "/v1/responses", self.body(self.echo(items)))[0], 200)

    def test_a_computer_call_goes_back_after_its_reasoning(self):
        fake = self.start({"steps": [self.CLICK, {"text": "ok"}], "after_end": "repeat_last"})
        items = self.first(fake)
        refused(self, fake, "/v1/responses", self.body(self.echo(items[1:])), 400,
                "of type 'computer_call' was provided without its required 'reasoning' item")

    def test_reasoning_dropped_before_a_function_call_is_noted(self):
        fake = self.start({"steps": [{"tool_calls": [
            {"name": "desktop", "arguments": {"action": "wait"}, "id": "call_w"}]}],
            "after_end": "repeat_last"})
        user = [{"role": "user", "content": "go"}]
        body = {"model": "gpt-5.5", "input": user, "store": False,
                "include": ["reasoning.encrypted_content"],
                "tools": [{"type": "function", "name": "desktop", "parameters": {}}]}
        st, _, data = post(fake, "/v1/responses", body)
        items = json.loads(data)["output"]  # a reasoning model reasons every time
        self.assertEqual([i["type"] for i in items], ["reasoning", "function_call"])
        out = {"type": "function_call_output", "call_id": "call_w", "output": "ok"}
        # the call without its id and without its reasoning: taken, the reasoning lost
        bare = {k: v for k, v in items[1].items() if k not in ("id", "status")}
        self.assertEqual(post(fake, "/v1/responses", dict(body, input=user + [bare, out]))[0],
                         200)
        self.assertEqual(len(fake.requests[-1]["reasoning_dropped"]), 1)
        # the call by its id without its reasoning: refused
        refused(self, fake, "/v1/responses", dict(body, input=user + [items[1], out]), 400,
                "of type 'function_call' was provided without its required 'reasoning' item")
        # both, in their order: taken, nothing lost
        self.assertEqual(post(fake, "/v1/responses", dict(body, input=user + items + [out]))[0],
                         200)
        self.assertNotIn("reasoning_dropped", fake.requests[-1])

    def test_reasoning_models_take_no_temperature(self):
        fake = self.start({"steps": [{"text": "ok"}], "after_end": "repeat_last"})
        body = {"model": "gpt-5.5", "input": [{"role": "user", "content": "go"}],
                "temperature": 0.2}
        refused(self, fake, "/v1/responses", body, 400,
                "Unsupported parameter: 'temperature' is not supported with this model.")
        self.assertEqual(post(fake, "/v1/responses", dict(body, model="gpt-4.1"))[0], 200)

    def test_references_name_only_what_was_stored(self):
        fake = self.start({"steps": [{"text": "ok"}], "after_end": "repeat_last"})
        user = [{"role": "user", "content": "go"}]
        st, _, data = post(fake, "/v1/responses", self.body(user, store=False))
        unstored = json.loads(data)["id"]
        refused(self, fake, "/v1/responses", self.body(user, previous_response_id=unstored), 400,
                "Previous response with id '%s' not found" % unstored)
        refused(self, fake, "/v1/responses", self.body(
            user + [{"type": "item_reference", "id": "msg_gone"}]), 404,
            "Items are not persisted")
        st, _, data = post(fake, "/v1/responses", self.body(user))
        stored = json.loads(data)
        self.assertEqual(post(fake, "/v1/responses", self.body(
            user + [{"type": "item_reference", "id": stored["output"][0]["id"]}],
            previous_response_id=stored["id"]))[0], 200)


class TestStrictMessages(ServerCase):
    """Each Messages rule of strict.py and wires.py: the computer tool's version by model,
    enable_zoom, every tool_use answered, is_error a boolean."""

    HEADERS = {"anthropic-version": "2023-06-01", "x-api-key": "k",
               "anthropic-beta": "computer-use-2025-01-24,computer-use-2025-11-24"}

    def body(self, model, tool_type, **tool):
        return {"model": model, "max_tokens": 100,
                "messages": [{"role": "user", "content": "go"}],
                "tools": [dict({"type": tool_type, "name": "computer", "display_width_px": 100,
                                "display_height_px": 80}, **tool)]}

    def test_each_model_takes_its_computer_tool_version(self):
        fake = self.start({"steps": [{"text": "ok"}], "after_end": "repeat_last"})
        h = self.HEADERS
        refused(self, fake, "/v1/messages", self.body("claude-sonnet-4-6", "computer_20250124"),
                400, "'claude-sonnet-4-6' does not support tool types: computer_20250124.",
                headers=h)
        refused(self, fake, "/v1/messages",
                self.body("claude-sonnet-4-5-20250929", "computer_20251124"), 400,
                "does not support tool types: computer_20251124", headers=h)
        refused(self, fake, "/v1/messages",
                self.body("claude-sonnet-4-5", "computer_20250124", enable_zoom=True), 400,
                "enable_zoom: Extra inputs are not permitted", headers=h)
        for model, tool in (("claude-sonnet-4-6", "computer_20251124"),
                            ("claude-opus-4-7", "computer_20251124"),
                            ("claude-3-7-sonnet-20250219", "computer_20250124"),
                            ("claude-opus-4-20250514", "computer_20250124")):
            zoom = {"enable_zoom": True} if tool == "computer_20251124" else {}
            st, _, data = post(fake, "/v1/messages", self.body(model, tool, **zoom), h)
            self.assertEqual(st, 200, (model, data))

    def test_every_tool_use_answered_and_is_error_a_boolean(self):
        fake = self.start({"steps": [{"text": "ok"}], "after_end": "repeat_last"})
        turns = [{"role": "user", "content": "go"},
                 {"role": "assistant", "content": [
                     {"type": "tool_use", "id": "t1", "name": "desktop", "input": {}},
                     {"type": "tool_use", "id": "t2", "name": "desktop", "input": {}}]},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                               "content": "ok"}]}]
        body = {"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": turns}
        refused(self, fake, "/v1/messages", body, 400,
                "tool_use ids were found without tool_result blocks immediately after: t2",
                headers=self.HEADERS)
        turns[2]["content"].append({"type": "tool_result", "tool_use_id": "t2",
                                    "content": "failed", "is_error": "yes"})
        refused(self, fake, "/v1/messages", body, 400, "is_error: Input should be a valid boolean",
                headers=self.HEADERS)
        turns[2]["content"][1]["is_error"] = True
        self.assertEqual(post(fake, "/v1/messages", body, self.HEADERS)[0], 200)


class TestStrictMessagesNow(ServerCase):
    """The Messages API's rules for the models of now (claude.py, strict.py): thinking
    blocks given back unchanged and bound to their history, context editing, the computer
    toolset, forced tool choice and the output cap. Each refuses what the API refuses and
    takes what it takes."""

    H = {"anthropic-version": "2023-06-01", "x-api-key": "k"}
    CLICK = {"tool_calls": [{"name": "desktop", "arguments": {"action": "wait"}, "id": "t1"}]}

    def ask(self, fake, model, messages, headers=None, **kw):
        body = dict({"model": model, "max_tokens": 1000, "messages": messages}, **kw)
        return post(fake, "/v1/messages", body, dict(self.H, **(headers or {})))

    def first_turn(self, fake, model, **kw):
        st, _, data = self.ask(fake, model, [{"role": "user", "content": "go"}], **kw)
        self.assertEqual(st, 200, data)
        return json.loads(data)["content"]

    def test_thinking_blocks_come_back_unchanged(self):
        fake = self.start({"steps": [dict(self.CLICK, quirks={"redacted_thinking": True})],
                           "after_end": "repeat_last"})
        turn = self.first_turn(fake, "claude-opus-5")
        self.assertEqual([b["type"] for b in turn], ["thinking", "redacted_thinking", "tool_use"])
        self.assertEqual(turn[0]["thinking"], "")  # thinks by default, often with no text
        self.assertTrue(turn[0]["signature"])
        answer = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                               "content": "ok"}]}
        msgs = lambda t: [{"role": "user", "content": "go"},  # noqa: E731
                          {"role": "assistant", "content": t}, answer]
        want = "blocks in the latest assistant message cannot be modified"
        # rebuilt from the text and the call: refused
        st, _, data = self.ask(fake, "claude-opus-5", msgs(turn[2:]))
        self.assertEqual(st, 400)
        self.assertIn(want, json.loads(data)["error"]["message"])
        # its text changed, or a signature made up: refused
        changed = [dict(turn[0], thinking="I thought so")] + turn[1:]
        self.assertEqual(self.ask(fake, "claude-opus-5", msgs(changed))[0], 400)
        # as it came: taken
        self.assertEqual(self.ask(fake, "claude-opus-5", msgs(turn))[0], 200)
        # streamed, the signature comes as signature_delta
        st, _, data = self.ask(fake, "claude-opus-5", [{"role": "user", "content": "go"}],
                               stream=True)
        self.assertIn('"type":"signature_delta"', data.decode())

    def test_bound_thinking_needs_its_history(self):
        fake = self.start({"steps": [self.CLICK], "after_end": "repeat_last"})
        image = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                             "data": png_b64(64, 64)}}
        first = [{"role": "user", "content": [{"type": "text", "text": "go"}, image]}]
        st, _, data = self.ask(fake, "claude-fable-5-1", first)
        turn = json.loads(data)["content"]
        second = first + [{"role": "assistant", "content": turn},
                          {"role": "user", "content": [{"type": "tool_result",
                                                        "tool_use_id": "t1", "content": "ok"}]}]
        self.assertEqual(self.ask(fake, "claude-fable-5-1", second)[0], 200)
        # the first message trimmed (its image gone): the block's history changed
        trimmed = [{"role": "user", "content": "go [image omitted]"}] + second[1:]
        st, _, data = self.ask(fake, "claude-fable-5-1", trimmed)
        self.assertEqual(st, 400)
        self.assertIn("The block is bound to a different conversation",
                      json.loads(data)["error"]["message"])
        # the binding control needs its header; with it the block is dropped and listed
        control = {"thinking": {"type": "adaptive",
                                "block_binding": {"prefix_mismatch_behavior": "drop_block"}}}
        st, _, data = self.ask(fake, "claude-fable-5-1", trimmed, **control)
        self.assertEqual(st, 400)
        self.assertIn("thinking-binding-controls-2026-08-01", json.loads(data)["error"]["message"])
        st, _, data = self.ask(fake, "claude-fable-5-1", trimmed,
                               {"anthropic-beta": "thinking-binding-controls-2026-08-01"},
                               **control)
        self.assertEqual(st, 200, data)
        self.assertEqual(json.loads(data)["input_transformations"][0]["message_index"], 1)
        self.assertEqual(fake.requests[-1]["thinking_dropped"], [[1, 0]])
        # a model that drops silently takes it, and the record says so
        st, _, data = self.ask(fake, "claude-mythos-5-1", first)
        turn = json.loads(data)["content"]
        st, _, _ = self.ask(fake, "claude-mythos-5-1", [trimmed[0], {"role": "assistant",
                                                                     "content": turn},
                                                        second[2]])
        self.assertEqual(st, 200)
        self.assertEqual(fake.requests[-1]["thinking_dropped"], [[1, 0]])

    def test_context_editing_needs_its_header_and_clears(self):
        fake = self.start({"steps": [{"text": "ok"}], "after_end": "repeat_last"})
        shot = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                            "data": png_b64(1280, 720)}}
        msgs = [{"role": "user", "content": "go"}]
        for k in range(4):
            msgs += [{"role": "assistant", "content": [
                {"type": "tool_use", "id": "t%d" % k, "name": "desktop", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t%d" % k,
                                              "content": [{"type": "text", "text": "ok"},
                                                          shot]}]}]
        edits = {"edits": [{"type": "clear_tool_uses_20250919",
                            "trigger": {"type": "tool_uses", "value": 2},
                            "keep": {"type": "tool_uses", "value": 1}}]}
        st, _, data = self.ask(fake, "claude-opus-5-5", msgs, context_management=edits)
        self.assertEqual(st, 400)
        self.assertIn("context_management: Extra inputs are not permitted", data.decode())
        st, _, data = self.ask(fake, "claude-opus-5-5", msgs,
                               {"anthropic-beta": "context-management-2025-06-27"},
                               context_management=edits)
        self.assertEqual(st, 200, data)
        reply = json.loads(data)
        self.assertEqual(reply["context_management"]["applied_edits"][0]["cleared_tool_uses"], 3)
        edited = reply["usage"]["input_tokens"]
        whole = post(fake, "/v1/messages", {"model": "claude-opus-5-5", "max_tokens": 10,
                                            "messages": msgs}, self.H)
        self.assertGreater(json.loads(whole[2])["usage"]["input_tokens"], edited + 3 * 1200)

    def test_the_toolset_alone_for_the_models_that_take_only_it(self):
        fake = self.start({"steps": [{"text": "ok"}], "after_end": "repeat_last"})
        go = [{"role": "user", "content": "go"}]
        old = [{"type": "computer_20251124", "name": "computer", "display_width_px": 100,
                "display_height_px": 80}]
        st, _, data = self.ask(fake, "claude-opus-5-5", go,
                               {"anthropic-beta": "computer-use-2025-11-24"}, tools=old)
        self.assertEqual(st, 400)
        self.assertIn("'claude-opus-5-5' does not support tool types: computer_20251124.",
                      data.decode())
        self.assertIn("computer_toolset_20260801", data.decode())  # what it takes instead
        st, _, data = self.ask(fake, "claude-opus-5-5", go,
                               tools=[{"type": "computer_toolset_20260801", "name": "computer",
                                       "display_width_px": 100}])
        self.assertEqual(st, 400)
        msg = json.loads(data)["error"]["message"]
        self.assertIn("tools.0.computer_toolset_20260801.name: Extra inputs are not permitted",
                      msg)
        self.assertIn("display_width_px: Extra inputs are not permitted", msg)
        self.assertEqual(self.ask(fake, "claude-opus-5-5", go,
                                  tools=[{"type": "computer_toolset_20260801"}])[0], 200)
        # Opus 5 takes both; Opus 4.7 only the older tool
        self.assertEqual(self.ask(fake, "claude-opus-5", go,
                                  {"anthropic-beta": "computer-use-2025-11-24"}, tools=old)[0],
                         200)
        self.assertEqual(self.ask(fake, "claude-opus-4-7", go,
                                  tools=[{"type": "computer_toolset_20260801"}])[0], 400)
        # on Bedrock, Opus 5.5 keeps the older tool
        bedrock = self.start({"platform": "bedrock", "steps": [{"text": "ok"}],
                              "after_end": "repeat_last"})
        self.assertEqual(self.ask(bedrock, "claude-opus-5-5", go,
                                  {"anthropic-beta": "computer-use-2025-11-24"}, tools=old)[0],
                         200)

    def test_toolset_results_echo_and_halt(self):
        fake = self.start({"steps": [{"tool_calls": [
            {"name": "computer", "arguments": {"action": "left_click", "coordinate": [5, 9]},
             "id": "m1"},
            {"name": "computer", "arguments": {"action": "type", "text": "x"}, "id": "m2"}]}],
            "after_end": "repeat_last"})
        tools = [{"type": "computer_toolset_20260801"}]
        go = [{"role": "user", "content": "go"}]
        st, _, data = self.ask(fake, "claude-opus-5-5", go, tools=tools)
        turn = json.loads(data)["content"]
        members = [b for b in turn if b["type"] == "tool_use"]
        self.assertEqual([(b["name"], b["toolset_name"]) for b in members],
                         [("left_click", "computer"), ("type", "computer")])
        self.assertNotIn("action", members[0]["input"])

        def results(first, second):
            return go + [{"role": "assistant", "content": turn},
                         {"role": "user", "content": [first, second]}]
        shot = [{"type": "text", "text": "r"}, {"type": "image", "source": {
            "type": "base64", "media_type": "image/png", "data": png_b64(64, 64)}}]
        ok1 = {"type": "tool_result", "tool_use_id": "m1", "toolset_name": "computer",
               "content": shot}
        ok2 = dict(ok1, tool_use_id="m2")
        st, _, data = self.ask(fake, "claude-opus-5-5",
                               results(dict(ok1, toolset_name=None), ok2), tools=tools)
        self.assertEqual(st, 400)
        self.assertIn("messages.2.content.0.toolset_name: Field required", data.decode())
        failed = dict(ok1, is_error=True, content="the click missed")
        st, _, data = self.ask(fake, "claude-opus-5-5", results(failed, ok2), tools=tools)
        self.assertEqual(st, 400)
        self.assertIn("Not executed: an earlier computer action in this turn failed.",
                      data.decode())
        halted = dict(ok2, is_error=True,
                      content="Not executed: an earlier computer action in this turn failed.")
        st, _, data = self.ask(fake, "claude-opus-5-5", results(failed, halted), tools=tools)
        self.assertEqual(st, 200, data)
        st, _, data = self.ask(fake, "claude-opus-5-5", results(ok1, ok2), tools=tools)
        self.assertEqual(st, 200, data)

    def test_oversized_images_are_refused_with_the_toolset(self):
        fake = self.start({"steps": [{"text": "ok"}], "after_end": "repeat_last"})
        tools = [{"type": "computer_toolset_20260801"}]

        def shots(n, w, h):
            return [{"role": "user", "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                             "data": png_b64(w, h)}}] * n}]
        st, _, data = self.ask(fake, "claude-opus-5-5", shots(1, 2600, 1400), tools=tools)
        self.assertEqual(st, 400)
        self.assertIn("exceed max allowed size: 2576 pixels", data.decode())
        self.assertEqual(self.ask(fake, "claude-opus-5-5", shots(1, 2560, 1440),
                                  tools=tools)[0], 200)
        st, _, data = self.ask(fake, "claude-opus-5-5", shots(21, 2560, 1440), tools=tools)
        self.assertEqual(st, 400)
        self.assertIn("for many-image requests: 2000 pixels", data.decode())
        self.assertEqual(self.ask(fake, "claude-opus-5-5", shots(21, 1920, 1080),
                                  tools=tools)[0], 200)

    def test_forced_tool_choice_refused_where_documented(self):
        fake = self.start({"steps": [{"text": "ok"}], "after_end": "repeat_last"})
        go = [{"role": "user", "content": "go"}]
        tools = [{"name": "desktop", "input_schema": {"type": "object"}}]
        for model, status in (("claude-opus-5-5", 400), ("claude-fable-5-1", 400),
                              ("claude-mythos-5-1", 400), ("claude-opus-5", 200),
                              ("claude-sonnet-4-6", 200)):
            st, _, data = self.ask(fake, model, go, tools=tools, tool_choice={"type": "any"})
            self.assertEqual(st, status, (model, data))
            if status == 400:
                self.assertIn('tool_choice: type \\"tool\\" and \\"any\\" are not supported '
                              'for this model.', data.decode())
        self.assertEqual(self.ask(fake, "claude-opus-5-5", go, tools=tools,
                                  tool_choice={"type": "auto"})[0], 200)

    def test_a_request_too_large_is_answered_413(self):
        fake = self.start({"max_request_bytes": 400, "steps": [{"text": "ok"}],
                           "after_end": "repeat_last"})
        self.assertEqual(self.ask(fake, "claude-opus-5", [{"role": "user", "content": "go"}])[0],
                         200)
        st, _, data = self.ask(fake, "claude-opus-5", [{"role": "user", "content": "x" * 500}])
        self.assertEqual(st, 413)
        self.assertEqual(json.loads(data)["error"]["type"], "request_too_large")
        self.assertIsNone(fake.requests[-1]["step"])

    def test_output_cap_and_a_cut_reply(self):
        fake = self.start({"output_cap": 32000, "steps": [
            {"output_tokens": 5000, "tool_calls": self.CLICK["tool_calls"]}],
            "after_end": "repeat_last"})
        go = [{"role": "user", "content": "go"}]
        st, _, data = self.ask(fake, "claude-opus-5-5", go, max_tokens=64000)
        self.assertEqual(st, 400)
        self.assertIn("max_tokens: 64000 > 32000, which is the maximum allowed number of output "
                      "tokens for claude-opus-5-5", data.decode())
        # the reply needs 5000 tokens: given 4096 it is cut, thinking and no call
        st, _, data = self.ask(fake, "claude-opus-5-5", go, max_tokens=4096)
        reply = json.loads(data)
        self.assertEqual(reply["stop_reason"], "max_tokens")
        self.assertEqual([b["type"] for b in reply["content"]], ["thinking"])
        st, _, data = self.ask(fake, "claude-opus-5-5", go, max_tokens=8192)
        self.assertEqual(json.loads(data)["stop_reason"], "tool_use")


class TestStrictChatCompletions(ServerCase):
    """Each Chat Completions rule of strict.py: OpenAI's request schema, every tool_call_id
    answered, stream_options only when streaming; and Azure's refusal of stream_options."""

    CALL = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "desktop", "arguments": "{}"}},
        {"id": "c2", "type": "function", "function": {"name": "desktop", "arguments": "{}"}}]}

    def test_requests_follow_the_schema(self):
        fake = self.start({"steps": [{"text": "ok"}], "after_end": "repeat_last"})
        refused(self, fake, OAI, {"model": "gpt-test"}, 400, "missing required property 'messages'")
        refused(self, fake, OAI, openai_body(messages=[{"role": "robot", "content": "hi"}]), 400,
                "Invalid request")
        refused(self, fake, OAI, dict(openai_body(), temperature="warm"), 400, "temperature")
        self.assertEqual(post(fake, OAI, openai_body())[0], 200)

    def test_every_tool_call_id_answered(self):
        fake = self.start({"steps": [{"text": "ok"}], "after_end": "repeat_last"})
        user = {"role": "user", "content": "go"}
        one = {"role": "tool", "tool_call_id": "c1", "content": "done"}
        refused(self, fake, OAI, openai_body(messages=[user, self.CALL, one]), 400,
                "did not have response messages: c2")
        refused(self, fake, OAI, openai_body(messages=[user, one]), 400,
                "must be a response to a preceeding message with 'tool_calls'")
        refused(self, fake, OAI, openai_body(messages=[
            user, self.CALL, one, dict(one, tool_call_id="c3")]), 400,
            "must be a response to a preceeding message with 'tool_calls'")
        two = dict(one, tool_call_id="c2")
        self.assertEqual(post(fake, OAI, openai_body(messages=[user, self.CALL, one, two]))[0],
                         200)

    def test_stream_options_only_when_streaming(self):
        fake = self.start({"steps": [{"text": "ok"}], "after_end": "repeat_last"})
        refused(self, fake, OAI, dict(openai_body(), stream_options={"include_usage": True}), 400,
                "only allowed when 'stream' is enabled")
        self.assertEqual(post(fake, OAI, openai_body(stream=True, include_usage=True))[0], 200)

    def test_a_server_that_refuses_stream_options(self):
        fake = self.start({"refuse": ["stream_options"], "steps": [{"text": "ok"}]})
        st, _, data = post(fake, OAI, openai_body(stream=True, include_usage=True))
        self.assertEqual(st, 400)
        self.assertEqual(json.loads(data)["error"]["message"],
                         "Unrecognized request argument supplied: stream_options")
        self.assertEqual(post(fake, OAI, openai_body(stream=True))[0], 200)


def png_b64(width, height):
    """A base64 PNG header of width x height (what the computer rules read of an image)."""
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
                            + chunk(b"IEND", b"")).decode()


class TestComputerRules(ServerCase):
    """Each rule of the computer tools refuses a request that breaks it and passes one
    that keeps it, so the fake cannot agree with a wrong client."""

    STEP = {"text": "ok"}
    FLAGGED = {"x": 10, "y": 20, "safety_decision": {"decision": "require_confirmation",
                                                     "explanation": "Saving over a file"}}

    def gemini(self, response):
        shot = {"inlineData": {"mimeType": "image/png", "data": png_b64(1280, 720)}}
        return {"tools": [{"computerUse": {"environment": "ENVIRONMENT_DESKTOP"}}],
                "contents": [
                    {"role": "user", "parts": [{"text": "save"}]},
                    {"role": "model", "parts": [{"functionCall": {"name": "click_at",
                                                                  "args": self.FLAGGED}}]},
                    {"role": "user", "parts": [{"functionResponse": {
                        "name": "click_at", "response": response, "parts": [shot]}}]}]}

    def test_gemini_refuses_an_unacknowledged_safety_decision(self):
        fake = self.start({"steps": [self.STEP]})
        status, _, data = post(fake, GEM, self.gemini({"content": "refused"}))
        self.assertEqual(status, 400)
        err = json.loads(data)["error"]
        self.assertEqual(err["status"], "INVALID_ARGUMENT")
        self.assertIn("The safety decision from function call click_at must be acknowledged in "
                      "the corresponding function response.", err["message"])
        status, _, _ = post(fake, GEM, self.gemini({"content": "ok",
                                                    "safety_acknowledgement": "true"}))
        self.assertEqual(status, 200)

    CHECK = {"id": "cu_sc_1", "code": "malicious_instructions", "message": "Odd text"}

    def responses(self, display=(1280, 720), shot=(1280, 720), **output):
        return {"model": "computer-use-preview",
                "tools": [{"type": "computer_use_preview", "display_width": display[0],
                           "display_height": display[1], "environment": "windows"}],
                "input": [{"role": "user", "content": "save"},
                          {"type": "computer_call", "call_id": "c1",
                           "action": {"type": "click", "button": "left", "x": 1, "y": 2},
                           "pending_safety_checks": [self.CHECK]},
                          dict({"type": "computer_call_output", "call_id": "c1",
                                "output": {"type": "computer_screenshot",
                                           "image_url": "data:image/png;base64,"
                                                        + png_b64(*shot)}}, **output)]}

    def refused(self, fake, path, body, want, headers=None):
        status, _, data = post(fake, path, body, headers)
        self.assertEqual(status, 400, data)
        self.assertIn(want, json.loads(data)["error"]["message"])

    def test_responses_refuses_checks_left_pending_or_never_pending(self):
        fake = self.start({"steps": [self.STEP]})
        self.refused(fake, "/v1/responses", self.responses(),
                     "Computer tool has unacknowledged safety check for ['cu_sc_1']")
        self.refused(fake, "/v1/responses",
                     self.responses(acknowledged_safety_checks=[{"id": "cu_sc_9"}]),
                     "must echo the call's pending checks")
        status, _, _ = post(fake, "/v1/responses",
                            self.responses(acknowledged_safety_checks=[self.CHECK]))
        self.assertEqual(status, 200)

    def test_responses_refuses_a_screenshot_unlike_the_display(self):
        fake = self.start({"steps": [self.STEP]})
        self.refused(fake, "/v1/responses",
                     self.responses(shot=(1000, 800), acknowledged_safety_checks=[self.CHECK]),
                     "a 1000x800 screenshot for the 1280x720 display_width/display_height")

    HEADERS = {"anthropic-version": "2023-06-01", "x-api-key": "k",
               "anthropic-beta": "computer-use-2025-01-24"}

    def anthropic(self, first=(1280, 720), result=(1280, 720), action="screenshot"):
        def image(size):
            return {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                "data": png_b64(*size)}}
        return {"model": "claude-sonnet-4-5", "max_tokens": 100,
                "tools": [{"type": "computer_20250124", "name": "computer",
                           "display_width_px": 1280, "display_height_px": 720}],
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "save"},
                                                 image(first)]},
                    {"role": "assistant", "content": [{"type": "tool_use", "id": "t1",
                                                       "name": "computer",
                                                       "input": {"action": action}}]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                                  "content": [image(result)]}]}]}

    def test_anthropic_refuses_screenshots_unlike_the_display_or_over_the_limits(self):
        fake = self.start({"steps": [self.STEP, self.STEP]})
        self.refused(fake, "/v1/messages", self.anthropic(result=(1000, 800)),
                     "messages.2: a 1000x800 screenshot for the 1280x720 display", self.HEADERS)
        self.refused(fake, "/v1/messages", self.anthropic(first=(1280, 1024)),
                     "a 1280x1024 image is over 1568 px or 1150000 pixels", self.HEADERS)
        self.refused(fake, "/v1/messages", self.anthropic(result=(300, 900), action="zoom"),
                     "a zoom's 300x900 image is larger than the 1280x720 display", self.HEADERS)
        for body in (self.anthropic(), self.anthropic(result=(300, 200), action="zoom")):
            status, _, data = post(fake, "/v1/messages", body, self.HEADERS)
            self.assertEqual(status, 200, data)


if __name__ == "__main__":
    unittest.main(verbosity=2)
