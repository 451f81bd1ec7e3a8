"""An OpenAI-compatible chat-completions server whose answers come from a script.

    python3 scripted_model.py --port 0 --script script.json --log requests.jsonl

Standard library only, so it runs under any Python 3.9+. Once listening it
prints one line, `listening on 127.0.0.1:PORT`, on stdout (so `--port 0`
needs no port picking by the caller). Routes:

- POST /v1/chat/completions (also /chat/completions): plain JSON or, with
  `"stream": true`, server-sent events in OpenAI's chunk format, ending with a
  usage chunk when `stream_options.include_usage` is set, then `data: [DONE]`.
- GET /v1/models (also /models), GET /health.

Script (JSON):

    {"model": "scripted-model",
     "conversations": [
       {"match": "weather in London",
        "turns": [{"tool": "get_weather", "args": {"city": "London"}},
                  {"text": "It is sunny in London."}],
        "variants": {"2": [{"text": "London is always rainy."}]}}]}

A request belongs to the conversation whose `match` is a substring of the
latest user message (the one nearest the end of `messages`; ties go to the
conversation listed first); a conversation without `match` takes requests no
other one matches, by their latest user text. The position in that
conversation is the number of assistant messages after the matched user
message, so a request replaying a tool result gets the next turn (runtimes
that send tool results back as user text, ReAct-style, work too, as long as
the match is not in the tool's output). Concurrent conversations with
different inputs stay independent, and the server keeps no state besides a
counter per conversation.

Flaky runs: each request at position 0 starts an occurrence of its
conversation, numbered from 1 in arrival order; `variants["N"]` replaces the
turns of occurrence N (e.g. a run that skips the tool and answers from
memory). The occurrence is carried in the ids of the tool calls the server
hands out (`call_<conversation>_<occurrence>_<turn>_<index>`), so later
requests of that run follow the same variant.

Turns:
- `{"text": "..."}`: a final answer.
- `{"tool": NAME, "args": {...}}` or `{"tool_calls": [{"name", "args"}, ...]}`.
- `{"error": {"status": 500, "message": "..."}}`: the request fails.
- any turn may add `"delay": SECONDS` and `"usage": {"prompt_tokens", "completion_tokens"}`.

ReAct prompting (crewai sends no `tools` and asks for `Action:` / `Action
Input:` / `Final Answer:` text): when a request has no `tools` and its prompt
names `Action Input:`, a tool turn is answered as that text and a text turn as
`Final Answer: ...`, so one script serves both kinds of runtime.

Every request is appended to the JSONL log with its headers, body, the
conversation, occurrence and turn chosen, and the answer sent.
"""

import argparse
import json
import re
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CALL_ID = re.compile(r"^call_(\d+)_(\d+)_(\d+)_(\d+)$")


class Script:
    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        self.model = data.get("model", "scripted-model")
        self.conversations = data["conversations"]
        self.counters = [0] * len(self.conversations)
        self.lock = threading.Lock()

    def find(self, messages):
        """(conversation index, index of its user message in messages) or None."""
        users = [(i, text_of(m.get("content"))) for i, m in enumerate(messages) if m.get("role") == "user"]
        users = [(i, t) for i, t in users if t.strip()]
        best = None
        for index, conversation in enumerate(self.conversations):
            match = conversation.get("match")
            if match is None:
                continue
            hits = [i for i, t in users if match in t]
            if hits and (best is None or hits[-1] > best[1]):
                best = (index, hits[-1])
        if best is None and users:
            for index, conversation in enumerate(self.conversations):
                if conversation.get("match") is None:
                    return index, users[-1][0]
        return best

    def next_occurrence(self, index):
        with self.lock:
            self.counters[index] += 1
            return self.counters[index]

    def turns(self, index, occurrence):
        conversation = self.conversations[index]
        variants = conversation.get("variants") or {}
        return variants.get(str(occurrence), conversation["turns"])


def text_of(content):
    """The text of a message's content, which may be a string or a list of parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    texts = []
    for part in content:
        if isinstance(part, dict) and part.get("type") in ("text", "input_text"):
            texts.append(part.get("text", ""))
    return "\n".join(texts)


def after(messages, user_index):
    """(assistant messages after the user message, the ids of their tool calls)."""
    replies = [m for m in messages[user_index + 1 :] if m.get("role") == "assistant"]
    return len(replies), [c.get("id", "") for m in replies for c in (m.get("tool_calls") or [])]


def usage_of(turn, prompt_messages):
    usage = dict(turn.get("usage") or {})
    usage.setdefault("prompt_tokens", 10 * max(1, prompt_messages))
    usage.setdefault("completion_tokens", 5)
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    return usage


def tool_calls_of(turn, conversation, occurrence, turn_index):
    calls = turn.get("tool_calls")
    if calls is None and "tool" in turn:
        calls = [{"name": turn["tool"], "args": turn.get("args", {})}]
    if not calls:
        return []
    return [
        {
            "id": f"call_{conversation}_{occurrence}_{turn_index}_{i}",
            "type": "function",
            "function": {"name": c["name"], "arguments": json.dumps(c.get("args", {}))},
        }
        for i, c in enumerate(calls)
    ]


def react(body):
    """Whether the runtime drives tools through ReAct text instead of tool calls."""
    if body.get("tools"):
        return False
    return any("Action Input:" in text_of(m.get("content")) for m in body.get("messages") or [])


def react_text(calls, text):
    if calls:
        call = calls[0]["function"]
        return (f"Thought: I should use a tool.\nAction: {call['name']}\n"
                f"Action Input: {call['arguments']}")
    return f"Thought: I now know the final answer\nFinal Answer: {text}"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "ScriptedModel/1"

    def log_message(self, format, *args):
        pass  # the JSONL log is the record; stderr stays quiet

    def record(self, entry):
        entry = {"time": time.time(), "method": self.command, "path": self.path,
                 "headers": dict(self.headers.items()), **entry}
        with self.server.log_lock:
            with open(self.server.log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")

    def send_json(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        path = self.path.split("?", 1)[0].rstrip("/")
        if path in ("/v1/models", "/models"):
            body = {"object": "list", "data": [{"id": self.server.script.model, "object": "model",
                                                "created": 0, "owned_by": "scripted"}]}
            self.record({"body": None})
            self.send_json(200, body)
        elif path == "/health":
            self.send_json(200, {"status": "ok"})
        else:
            self.send_json(404, {"error": {"message": f"no route {path}", "type": "invalid_request_error"}})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self.record({"body": raw.decode("utf-8", "replace"), "error": "invalid JSON"})
            return self.send_json(400, {"error": {"message": "invalid JSON", "type": "invalid_request_error"}})
        path = self.path.split("?", 1)[0].rstrip("/")
        if path not in ("/v1/chat/completions", "/chat/completions"):
            self.record({"body": body, "error": "no route"})
            return self.send_json(404, {"error": {"message": f"no route {path}", "type": "invalid_request_error"}})
        self.chat(body)

    def chat(self, body):
        script = self.server.script
        messages = body.get("messages") or []
        found = script.find(messages)
        if found is None:
            self.record({"body": body, "error": "no conversation matches"})
            return self.send_json(500, {"error": {"message": "scripted model: no conversation matches",
                                                  "type": "server_error"}})
        conversation, user_index = found
        turn_index, seen_ids = after(messages, user_index)
        occurrence = None
        for call_id in seen_ids:
            m = CALL_ID.match(call_id)
            if m and int(m.group(1)) == conversation:
                occurrence = int(m.group(2))
        if occurrence is None:
            # A runtime that drops tool call ids loses the variant; the plain turns are the fallback.
            occurrence = script.next_occurrence(conversation) if turn_index == 0 else 0
        turns = script.turns(conversation, occurrence)
        where = {"conversation": conversation, "occurrence": occurrence, "turn": turn_index}
        if turn_index >= len(turns):
            self.record({"body": body, **where, "error": "script exhausted"})
            return self.send_json(500, {"error": {"message": "scripted model: no turn left", "type": "server_error"}})
        turn = turns[turn_index]
        if turn.get("delay"):
            time.sleep(float(turn["delay"]))
        if "error" in turn:
            error = turn["error"]
            self.record({"body": body, **where, "answer": {"error": error}})
            return self.send_json(int(error.get("status", 500)),
                                  {"error": {"message": error.get("message", "scripted failure"),
                                             "type": error.get("type", "server_error")}})
        calls = tool_calls_of(turn, conversation, occurrence, turn_index)
        text = turn.get("text")
        if react(body):
            text = react_text(calls, text)
            calls = []
        usage = usage_of(turn, len(messages))
        model = body.get("model") or script.model
        answer = {"content": text, "tool_calls": calls, "usage": usage}
        self.record({"body": body, **where, "answer": answer})
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            self.stream(model, text, calls, usage if include_usage else None)
        else:
            message = {"role": "assistant", "content": text}
            if calls:
                message["tool_calls"] = calls
            self.send_json(200, {
                "id": "chatcmpl-" + uuid.uuid4().hex[:12], "object": "chat.completion",
                "created": int(time.time()), "model": model,
                "choices": [{"index": 0, "message": message, "logprobs": None,
                             "finish_reason": "tool_calls" if calls else "stop"}],
                "usage": usage,
            })

    def stream(self, model, text, calls, usage):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        chunk_id = "chatcmpl-" + uuid.uuid4().hex[:12]
        created = int(time.time())

        def send(choices, extra=None):
            chunk = {"id": chunk_id, "object": "chat.completion.chunk", "created": created,
                     "model": model, "choices": choices}
            if extra:
                chunk.update(extra)
            self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            self.wfile.flush()

        send([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])
        if text:
            # Several pieces, so clients must join deltas.
            words = re.findall(r"\S+\s*", text) or [text]
            for piece in words:
                send([{"index": 0, "delta": {"content": piece}, "finish_reason": None}])
        for i, call in enumerate(calls):
            arguments = call["function"]["arguments"]
            half = len(arguments) // 2
            send([{"index": 0, "delta": {"tool_calls": [{
                "index": i, "id": call["id"], "type": "function",
                "function": {"name": call["function"]["name"], "arguments": arguments[:half]}}]},
                "finish_reason": None}])
            send([{"index": 0, "delta": {"tool_calls": [{
                "index": i, "function": {"arguments": arguments[half:]}}]}, "finish_reason": None}])
        send([{"index": 0, "delta": {}, "finish_reason": "tool_calls" if calls else "stop"}])
        if usage is not None:
            send([], {"usage": usage})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", required=True)
    parser.add_argument("--log", required=True, help="JSONL file every request is appended to")
    args = parser.parse_args()
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    server.script = Script(args.script)
    server.log_path = args.log
    server.log_lock = threading.Lock()
    print(f"listening on {args.host}:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
