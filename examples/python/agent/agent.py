#!/usr/bin/env python3
"""A small travel-weather agent in Python, on the standard library alone.

It speaks the provider's HTTP API itself (urllib and json, as an agent
without an SDK does), so that it runs wherever python3 does: it sends the
prompt with its system prompt and tools, runs the tools the model calls,
sends their results back, and goes on until the model answers with text
alone (at most --max-steps requests). The final text goes to stdout.

Usage:

  python3 agent.py [--api anthropic|openai-chat|openai-responses|gemini]
                   [--stream] [--tools-from-set] [--max-steps N] --prompt TEXT

It connects to ANTHROPIC_BASE_URL, OPENAI_BASE_URL or
GOOGLE_GEMINI_BASE_URL with ANTHROPIC_API_KEY, OPENAI_API_KEY or
GEMINI_API_KEY, the variables headergold sets for a captured agent. Bodies are written by json.dumps with its defaults, as the
requests library writes them: a space after each comma and colon, and
non-ASCII text escaped.

--tools-from-set lists the tools in the order of a set of their names, the
order of the names' hashes, which PYTHONHASHSEED changes from process to
process: headergold's repeat pass varies it and reports the tool list as a
reorder. By default the tools are listed sorted by name.
"""

import argparse
import http.client
import json
import os
import sys
import urllib.error
import urllib.request

SYSTEM = (
    "You are a travel-weather assistant. Answer in one or two sentences, "
    "with the temperature in °C unless asked otherwise. Use the tools for "
    "facts; never guess a temperature or a time."
)

# name -> (description, JSON Schema of the arguments, implementation)
TOOLS = {
    "get_weather": (
        "Current weather for a city: temperature in °C and the sky.",
        {"type": "object", "properties": {"city": {"type": "string", "description": "City name, e.g. Oslo"}}, "required": ["city"]},
        lambda a: {"city": a["city"], "temperature_c": 12, "sky": "clear"},
    ),
    "get_time": (
        "Local time in a city, 24-hour clock.",
        {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        lambda a: {"city": a["city"], "time": "14:05"},
    ),
    "get_forecast": (
        "Daily forecast for the next days: high temperature in °C.",
        {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1, "maximum": 7}},
            "required": ["city", "days"],
        },
        lambda a: {"city": a["city"], "highs_c": [11, 10, 9, 12, 13, 11, 10][: a["days"]]},
    ),
    "convert_temperature": (
        "Convert a temperature between °C and °F.",
        {
            "type": "object",
            "properties": {"value": {"type": "number"}, "to": {"type": "string", "enum": ["C", "F"]}},
            "required": ["value", "to"],
        },
        lambda a: {"value": round(a["value"] * 9 / 5 + 32, 1) if a["to"] == "F" else round((a["value"] - 32) * 5 / 9, 1), "unit": a["to"]},
    ),
    "remember": (
        "Keep a short note for later in the conversation.",
        {"type": "object", "properties": {"note": {"type": "string"}}, "required": ["note"]},
        lambda a: {"saved": True},
    ),
    "list_cities": (
        "Cities the assistant has weather for.",
        {"type": "object", "properties": {}},
        lambda a: {"cities": ["Bergen", "Oslo", "Tromsø"]},
    ),
}


def tool_names(from_set):
    if from_set:
        # A set iterates in the order of its members' hashes: str hashes
        # are salted per process (PYTHONHASHSEED), so this order is too.
        return list(set(TOOLS))
    return sorted(TOOLS)


def run_tool(call_id, name, args):
    """Runs a tool call; returns (id, result text, whether it failed). A
    failure goes back to the model, as an agent's loop sends it."""
    if name not in TOOLS:
        return call_id, json.dumps({"error": "unknown tool " + name}), True
    try:
        return call_id, json.dumps(TOOLS[name][2](args)), False
    except (KeyError, TypeError, ValueError) as e:
        return call_id, json.dumps({"error": "%s: bad arguments: %s" % (name, e)}), True


def fail(msg):
    print("agent: " + msg, file=sys.stderr)
    sys.exit(1)


def post(url, headers, body, stream):
    data = json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="POST", headers={"content-type": "application/json", **headers})
    try:
        resp = urllib.request.urlopen(req, timeout=30)
        if not stream:
            with resp:
                return json.load(resp)
    except urllib.error.HTTPError as e:
        fail("%s: HTTP %d: %s" % (url, e.code, e.read().decode(errors="replace")))
    except urllib.error.URLError as e:
        fail("%s: %s" % (url, e.reason))
    except (OSError, http.client.HTTPException, ValueError) as e:
        # A connection cut or timed out, or a body that is not JSON.
        fail("%s: %s" % (url, e))
    return resp


def field(line, name):
    """The value of an SSE field line: one space after the colon is not
    part of it."""
    v = line[len(name) + 1:]
    return v[1:] if v.startswith(" ") else v


def sse(resp):
    """Yields (event, data) of a server-sent event stream."""
    event, data = None, []
    try:
        with resp:
            for raw in resp:
                line = raw.decode().rstrip("\r\n")
                if line == "":
                    if data:
                        yield event, "\n".join(data)
                    event, data = None, []
                elif line.startswith("event:"):
                    event = field(line, "event")
                elif line.startswith("data:"):
                    data.append(field(line, "data"))
    except (OSError, http.client.HTTPException, UnicodeDecodeError) as e:
        fail("reading the stream: %s" % e)
    if data:
        yield event, "\n".join(data)


def load(data):
    try:
        return json.loads(data)
    except ValueError as e:
        fail("a stream event that is not JSON: %s: %r" % (e, data[:200]))


class Anthropic:
    def __init__(self, names, stream):
        self.url = os.environ.get("ANTHROPIC_BASE_URL", "https://api.anthropic.com").rstrip("/") + "/v1/messages"
        self.headers = {"x-api-key": os.environ.get("ANTHROPIC_API_KEY", ""), "anthropic-version": "2023-06-01"}
        self.stream = stream
        self.tools = [{"name": n, "description": TOOLS[n][0], "input_schema": TOOLS[n][1]} for n in names]

    def step(self, messages):
        """Sends the conversation; returns (text, [(id, name, args)])."""
        body = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": SYSTEM, "tools": self.tools, "messages": messages}
        if self.stream:
            body["stream"] = True
            blocks = self.read_stream(post(self.url, self.headers, body, True))
        else:
            blocks = post(self.url, self.headers, body, False)["content"]
        messages.append({"role": "assistant", "content": blocks})
        text = "".join(b["text"] for b in blocks if b["type"] == "text")
        calls = [(b["id"], b["name"], b["input"]) for b in blocks if b["type"] == "tool_use"]
        return text, calls

    @staticmethod
    def read_stream(resp):
        blocks, partial, stopped = [], {}, False
        for event, data in sse(resp):
            ev = load(data)
            if event == "content_block_start":
                blocks.append(dict(ev["content_block"]))
                partial[ev["index"]] = ""
            elif event == "content_block_delta":
                d, b = ev["delta"], blocks[ev["index"]]
                if d["type"] == "text_delta":
                    b["text"] += d["text"]
                elif d["type"] == "input_json_delta":
                    partial[ev["index"]] += d["partial_json"]
            elif event == "content_block_stop":
                b = blocks[ev["index"]]
                if b["type"] == "tool_use":
                    b["input"] = load(partial.pop(ev["index"]) or "{}")
            elif event == "message_stop":
                stopped = True
            elif event == "error":
                fail("stream error: " + data)
        # A stream cut short is not an answer, even where what came
        # before it reads as one.
        if not stopped:
            fail("the stream ended before message_stop")
        if any(b["type"] == "tool_use" for i, b in enumerate(blocks) if i in partial):
            fail("the stream ended inside a tool call")
        return blocks

    @staticmethod
    def results(messages, results):
        content = []
        for i, out, failed in results:
            r = {"type": "tool_result", "tool_use_id": i, "content": out}
            if failed:
                r["is_error"] = True
            content.append(r)
        messages.append({"role": "user", "content": content})


class OpenAIChat:
    def __init__(self, names, stream):
        self.url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/") + "/chat/completions"
        self.headers = {"authorization": "Bearer " + os.environ.get("OPENAI_API_KEY", "")}
        self.stream = stream
        self.tools = [{"type": "function", "function": {"name": n, "description": TOOLS[n][0], "parameters": TOOLS[n][1]}} for n in names]

    def step(self, messages):
        body = {"model": "gpt-4.1", "messages": [{"role": "system", "content": SYSTEM}] + messages, "tools": self.tools}
        if self.stream:
            body["stream"] = True
            msg = self.read_stream(post(self.url, self.headers, body, True))
        else:
            msg = post(self.url, self.headers, body, False)["choices"][0]["message"]
        calls = msg.get("tool_calls") or []
        kept = {"role": "assistant", "content": msg.get("content")}
        if calls:
            kept["tool_calls"] = calls
        messages.append(kept)
        return msg.get("content") or "", [(c["id"], c["function"]["name"], load(c["function"]["arguments"] or "{}")) for c in calls]

    @staticmethod
    def read_stream(resp):
        content, calls, done = None, [], False
        for _, data in sse(resp):
            if data == "[DONE]":
                done = True
                break
            chunk = load(data)
            if not chunk.get("choices"):
                continue
            delta = chunk["choices"][0].get("delta", {})
            if delta.get("content"):
                content = (content or "") + delta["content"]
            for tc in delta.get("tool_calls") or []:
                while len(calls) <= tc["index"]:
                    calls.append({"id": "", "type": "function", "function": {"name": "", "arguments": ""}})
                c = calls[tc["index"]]
                c["id"] += tc.get("id") or ""
                c["function"]["name"] += tc.get("function", {}).get("name") or ""
                c["function"]["arguments"] += tc.get("function", {}).get("arguments") or ""
        if not done:
            fail("the stream ended before data: [DONE]")
        msg = {"role": "assistant", "content": content}
        if calls:
            msg["tool_calls"] = calls
        return msg

    @staticmethod
    def results(messages, results):
        for i, out, _ in results:
            messages.append({"role": "tool", "tool_call_id": i, "content": out})


class OpenAIResponses:
    def __init__(self, names, stream):
        self.url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/") + "/responses"
        self.headers = {"authorization": "Bearer " + os.environ.get("OPENAI_API_KEY", "")}
        self.stream = stream
        self.tools = [{"type": "function", "name": n, "description": TOOLS[n][0], "parameters": TOOLS[n][1]} for n in names]

    def step(self, messages):
        body = {"model": "gpt-4.1", "instructions": SYSTEM, "input": messages, "tools": self.tools}
        if self.stream:
            body["stream"] = True
            output = self.read_stream(post(self.url, self.headers, body, True))
        else:
            output = post(self.url, self.headers, body, False)["output"]
        text, calls = "", []
        for item in output:
            if item["type"] == "message":
                said = "".join(c["text"] for c in item["content"] if c["type"] == "output_text")
                messages.append({"role": "assistant", "content": said})
                text += said
            elif item["type"] == "function_call":
                messages.append({"type": "function_call", "call_id": item["call_id"], "name": item["name"], "arguments": item["arguments"]})
                calls.append((item["call_id"], item["name"], load(item["arguments"] or "{}")))
        return text, calls

    @staticmethod
    def read_stream(resp):
        # The last event holds the whole response; the deltas before it
        # are for a client that shows text as it comes.
        for event, data in sse(resp):
            if event == "response.completed":
                return load(data)["response"]["output"]
            if event in ("error", "response.failed"):
                fail("stream error: " + data)
        fail("the stream ended before response.completed")

    @staticmethod
    def results(messages, results):
        for i, out, _ in results:
            messages.append({"type": "function_call_output", "call_id": i, "output": out})


class Gemini:
    def __init__(self, names, stream):
        base = os.environ.get("GOOGLE_GEMINI_BASE_URL", "https://generativelanguage.googleapis.com").rstrip("/")
        model = "/v1beta/models/gemini-2.5-flash"
        self.url = base + model + (":streamGenerateContent?alt=sse" if stream else ":generateContent")
        self.headers = {"x-goog-api-key": os.environ.get("GEMINI_API_KEY", "")}
        self.stream = stream
        self.tools = [{"functionDeclarations": [{"name": n, "description": TOOLS[n][0], "parameters": TOOLS[n][1]} for n in names]}]
        self.names = {}  # call id -> tool name, for the function responses

    def step(self, messages):
        body = {"systemInstruction": {"parts": [{"text": SYSTEM}]}, "contents": messages, "tools": self.tools}
        if self.stream:
            parts = self.read_stream(post(self.url, self.headers, body, True))
        else:
            parts = post(self.url, self.headers, body, False)["candidates"][0]["content"]["parts"]
        messages.append({"role": "model", "parts": parts})
        text = "".join(p["text"] for p in parts if "text" in p)
        calls = []
        for p in parts:
            if "functionCall" in p:
                fc = p["functionCall"]
                self.names[fc.get("id", "")] = fc["name"]
                calls.append((fc.get("id", ""), fc["name"], fc.get("args", {})))
        return text, calls

    @staticmethod
    def read_stream(resp):
        parts, finished = [], False
        for _, data in sse(resp):
            cand = load(data)["candidates"][0]
            parts += cand.get("content", {}).get("parts", [])
            finished = finished or "finishReason" in cand
        if not finished:
            fail("the stream ended before a finishReason")
        return parts

    def results(self, messages, results):
        responses = []
        for i, out, _ in results:
            fr = {"name": self.names[i], "response": load(out)}
            if i:
                fr["id"] = i
            responses.append({"functionResponse": fr})
        messages.append({"role": "user", "parts": responses})


APIS = {"anthropic": Anthropic, "openai-chat": OpenAIChat, "openai-responses": OpenAIResponses, "gemini": Gemini}


def main():
    p = argparse.ArgumentParser(description="A travel-weather agent on the standard library.")
    p.add_argument("--api", choices=list(APIS), default="anthropic")
    p.add_argument("--stream", action="store_true")
    p.add_argument("--tools-from-set", action="store_true", help="list the tools in the order of a set of their names")
    p.add_argument("--max-steps", type=int, default=8)
    p.add_argument("--prompt", required=True)
    args = p.parse_args()
    if args.max_steps < 1:
        p.error("--max-steps: want a whole number from 1")
    api = APIS[args.api](tool_names(args.tools_from_set), args.stream)
    if args.api == "gemini":
        messages = [{"role": "user", "parts": [{"text": args.prompt}]}]
    else:
        messages = [{"role": "user", "content": args.prompt}]
    for _ in range(args.max_steps):
        text, calls = api.step(messages)
        if not calls:
            print(text)
            return
        api.results(messages, [run_tool(*c) for c in calls])
    fail("no answer after %d requests" % args.max_steps)


if __name__ == "__main__":
    main()
