"""A stand-in for the kagent controller's REST API, as the Python runtimes call it.

    python3 task_store.py --port 0 --log controller.jsonl
    python3 task_store.py tasks controller.jsonl      # the POSTed task bodies, as a JSON list

kagent's controller (Go, plus PostgreSQL) cannot be built or run here, so the
runtimes are pointed at this server instead (KAGENT_URL). It answers just
enough, in the controller's envelope `{"error": false, "data": ..., "message":
...}` (errors: `{"error": "<text>"}`), and appends every request it gets to a
JSONL log: method, path, query, headers (authorization redacted), the body
parsed and the body exactly as received (`raw`). Standard library only.
Once listening it prints `listening on 127.0.0.1:PORT`.

What the runtimes call (read from kagent-adk / kagent-core 0.10.4):
- task store (every runtime, `KAgentTaskStore`): POST /api/tasks with
  `task.model_dump(mode="json")` on each task update; GET /api/tasks/{id} when a
  message names an existing task (HITL resume); DELETE /api/tasks/{id}.
- session service (kagent-adk without `session_db_url`, `KAgentSessionService`):
  GET /api/sessions/{id}?user_id=&order=asc&limit=-1 (404 = no session yet),
  POST /api/sessions?user_id= with {user_id, agent_ref, id, name[, source]},
  POST /api/sessions/{id}/events?user_id= with {id, data: <event JSON text>},
  GET /api/sessions?user_id=, DELETE /api/sessions/{id}?user_id=.
- LangGraph checkpointer (kagent-langgraph, `KAgentCheckpointer`):
  POST /api/langgraph/checkpoints, POST /api/langgraph/checkpoints/writes,
  GET /api/langgraph/checkpoints?thread_id=&checkpoint_ns=&limit=[&checkpoint_id=]
  (newest first, `{"data": [tuple]}`), user in X-User-ID.
- kagent-openai's session: the same session routes, its events holding
  `{"timestamp", "items", "type": "conversation_items"}`.
- nothing at startup: the runtime's only other startup work is reading its
  service-account token file, which tests do not have (then no Authorization
  header is sent). Memory (/api/memories/...) and share links are not served.

Also served for tests: GET /api/sessions/{id}/tasks, GET /api/tasks,
GET /api/sessions/agent/{namespace}/{name}, GET /health, and, with
`--a2a-agent URL`, POST /api/a2a/{namespace}/{name}/ forwarded to that one
agent as the controller forwards A2A requests to an Agent's pod (the
X-User-Id header passed on; nothing else of the caller's), and GET
/api/a2a/{namespace}/{name}/.well-known/agent.json answered with that agent's
card, as the controller serves each Agent's card under its route; with
`--a2a-v1-agent BASE`, kagent 1.0's route /agents/{namespace}/{name} (POST, and
GET of its card) forwarded to BASE with the same path, the A2A-Version header
passed on, so one stand-in serves an Agent of either line.
The user is the `user_id` query parameter, else the X-User-Id header, else
`admin@kagent.dev`, as the controller does in its unsecure mode.
"""

import argparse
import json
import sys
import threading
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

REDACTED_HEADERS = {"authorization", "proxy-authorization", "cookie"}


def now():
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")


class Store:
    def __init__(self):
        self.lock = threading.Lock()
        self.sessions = {}  # (id, user_id) -> session
        self.events = {}  # (id, user_id) -> [event]
        self.tasks = {}  # id -> task body
        self.task_order = []
        self.checkpoints = {}  # (user, thread_id, ns) -> [checkpoint payload with "writes"]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "TaskStore/1"

    def log_message(self, format, *args):
        pass  # the JSONL log is the record

    def reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def ok(self, status, data, message):
        body = {"error": False, "message": message}
        if data is not None:
            body["data"] = data
        self.reply(status, body)

    def fail(self, status, message):
        self.reply(status, {"error": message})

    def handle_any(self):
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {k: ("REDACTED" if k.lower() in REDACTED_HEADERS else v) for k, v in self.headers.items()}
        entry = {"time": time.time(), "method": self.command, "path": url.path, "query": query,
                 "headers": headers, "body": body, "raw": raw}
        with self.server.log_lock:
            with open(self.server.log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")
        user = query.get("user_id") or self.headers.get("X-User-Id") or "admin@kagent.dev"
        parts = [p for p in url.path.split("/") if p]
        if parts[:2] == ["api", "a2a"] and self.command == "POST":
            return self.forward(raw)
        if parts[:2] == ["api", "a2a"] and parts[-2:] == [".well-known", "agent.json"] and self.command == "GET":
            # kagent 0.10's controller serves each Agent's card under its route.
            return self.forward(None, path=".well-known/agent-card.json")
        if parts[:1] == ["agents"] and self.server.a2a_v1_agent:
            # kagent 1.0's route, to an A2A 1.0 agent serving the same path.
            return self.forward(raw if self.command == "POST" else None, path=url.path.lstrip("/"),
                                target=self.server.a2a_v1_agent)
        self.route(self.command, parts, query, body, user)

    def forward(self, raw, path="", target=None):
        target = target or self.server.a2a_agent
        if not target:
            return self.fail(404, "no agent behind this A2A route")
        headers = {"Content-Type": "application/json"}
        for name in ("X-User-Id", "A2A-Version"):
            if self.headers.get(name):
                headers[name] = self.headers[name]
        data = raw.encode() if raw is not None else None
        request = urllib.request.Request(target.rstrip("/") + "/" + path, data=data, headers=headers,
                                         method="POST" if data is not None else "GET")
        try:
            with urllib.request.urlopen(request, timeout=600) as answer:
                status, data = answer.status, answer.read()
        except urllib.error.HTTPError as error:
            status, data = error.code, error.read()
        except OSError as error:
            return self.fail(502, f"the agent is unavailable: {error}")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_DELETE = handle_any

    def route(self, method, parts, query, body, user):
        store = self.server.store
        if parts == ["health"]:
            return self.reply(200, {"status": "ok"})
        if parts[:1] != ["api"]:
            return self.fail(404, "not found")
        rest = parts[1:]
        with store.lock:
            # tasks
            if rest == ["tasks"] and method == "POST":
                if not isinstance(body, dict) or not body.get("id"):
                    return self.fail(400, "Invalid request body")
                if body["id"] not in store.tasks:
                    store.task_order.append(body["id"])
                store.tasks[body["id"]] = body
                return self.ok(201, body, "Successfully created task")
            if rest == ["tasks"] and method == "GET":
                return self.ok(200, [store.tasks[i] for i in store.task_order] or None, "Successfully listed tasks")
            if len(rest) == 2 and rest[0] == "tasks":
                task = store.tasks.get(rest[1])
                if method == "GET":
                    if task is None:
                        return self.fail(404, "Task not found")
                    return self.ok(200, task, "Successfully retrieved task")
                if method == "DELETE":
                    store.tasks.pop(rest[1], None)
                    return self.ok(200, None, "Successfully deleted task")
            # LangGraph checkpoints
            if rest == ["langgraph", "checkpoints"] and method == "POST":
                user = self.headers.get("X-User-ID") or user
                key = (user, body["thread_id"], body["checkpoint_ns"])
                store.checkpoints.setdefault(key, []).append(dict(body, writes=None))
                return self.ok(201, None, "Successfully stored checkpoint")
            if rest == ["langgraph", "checkpoints", "writes"] and method == "POST":
                user = self.headers.get("X-User-ID") or user
                key = (user, body["thread_id"], body["checkpoint_ns"])
                for checkpoint in store.checkpoints.get(key, []):
                    if checkpoint["checkpoint_id"] == body["checkpoint_id"]:
                        writes = checkpoint["writes"] or {**body, "writes": []}
                        writes["task_id"] = body["task_id"]
                        writes["writes"] = writes["writes"] + body["writes"]
                        checkpoint["writes"] = writes
                return self.ok(201, None, "Successfully stored writes")
            if rest == ["langgraph", "checkpoints"] and method == "GET":
                user = self.headers.get("X-User-ID") or user
                key = (user, query.get("thread_id"), query.get("checkpoint_ns", ""))
                found = list(reversed(store.checkpoints.get(key, [])))
                if query.get("checkpoint_id"):
                    found = [c for c in found if c["checkpoint_id"] == query["checkpoint_id"]]
                limit = int(query.get("limit", "-1"))
                if limit >= 0:
                    found = found[:limit]
                return self.ok(200, found or None, "Successfully listed checkpoints")
            # sessions
            if rest == ["sessions"] and method == "POST":
                if not isinstance(body, dict):
                    return self.fail(400, "Invalid request body")
                user = body.get("user_id") or user
                session_id = body.get("id") or f"session-{len(store.sessions) + 1}"
                key = (session_id, user)
                if key in store.sessions:
                    return self.fail(409, "Session already exists")
                stamp = now()
                session = {"id": session_id, "user_id": user, "name": body.get("name"),
                           "agent_id": body.get("agent_ref"), "source": body.get("source"),
                           "created_at": stamp, "updated_at": stamp}
                store.sessions[key] = session
                store.events[key] = []
                return self.ok(201, session, "Successfully created session")
            if rest == ["sessions"] and method == "GET":
                mine = [s for (i, u), s in store.sessions.items() if u == user]
                return self.ok(200, mine or None, "Successfully listed sessions")
            if len(rest) == 4 and rest[:2] == ["sessions", "agent"] and method == "GET":
                agent = f"{rest[2]}__NS__{rest[3]}".replace("-", "_")
                mine = [s for (i, u), s in store.sessions.items() if u == user and s["agent_id"] == agent]
                return self.ok(200, mine or None, "Successfully listed sessions")
            if len(rest) >= 2 and rest[0] == "sessions":
                key = (rest[1], user)
                session = store.sessions.get(key)
                if len(rest) == 2 and method == "GET":
                    if session is None:
                        return self.fail(404, "Session not found")
                    events = list(store.events[key])
                    if query.get("order", "asc") == "desc":
                        events.reverse()
                    limit = int(query.get("limit", "-1"))
                    if limit >= 0:
                        events = events[:limit]
                    return self.ok(200, {"session": session, "events": events}, "Successfully retrieved session")
                if len(rest) == 2 and method == "DELETE":
                    store.sessions.pop(key, None)
                    store.events.pop(key, None)
                    return self.ok(200, None, "Successfully deleted session")
                if rest[2:] == ["events"] and method == "POST":
                    if session is None:
                        return self.fail(404, "Session not found")
                    stamp = now()
                    event = {"id": body.get("id"), "session_id": rest[1], "user_id": user,
                             "created_at": stamp, "updated_at": stamp, "data": body.get("data")}
                    store.events[key].append(event)
                    session["updated_at"] = stamp
                    return self.ok(201, event, "Successfully added event to session")
                if rest[2:] == ["tasks"] and method == "GET":
                    tasks = [store.tasks[i] for i in store.task_order
                             if store.tasks[i].get("contextId", store.tasks[i].get("context_id")) == rest[1]]
                    return self.ok(200, tasks or None, "Successfully retrieved tasks")
        return self.fail(404, "not found")


def posted_tasks(log_path):
    """The bodies of POST /api/tasks in the log, in order, as received."""
    tasks = []
    with open(log_path, encoding="utf-8") as f:
        for line in f:
            entry = json.loads(line)
            if entry["method"] == "POST" and entry["path"] == "/api/tasks":
                tasks.append(json.loads(entry["raw"]))
    return tasks


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "tasks":
        json.dump(posted_tasks(sys.argv[2]), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log", required=True, help="JSONL file every request is appended to")
    parser.add_argument("--a2a-agent", help="the agent URL POST /api/a2a/NS/NAME/ goes to")
    parser.add_argument("--a2a-v1-agent", help="the base URL of an A2A 1.0 agent /agents/NS/NAME goes to")
    args = parser.parse_args()
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    server.store = Store()
    server.log_path = args.log
    server.log_lock = threading.Lock()
    server.a2a_agent = args.a2a_agent
    server.a2a_v1_agent = args.a2a_v1_agent
    print(f"listening on {args.host}:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
