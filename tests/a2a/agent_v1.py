"""A real A2A 1.0 agent for the tests, served by a2a-sdk 1.3.0's own server classes.

    venv=$(hack/python-env.sh a2a1)
    $venv/bin/python tests/a2a/agent_v1.py --port 0 --model-url http://127.0.0.1:$MODEL/v1 \
        [--namespace kagent] [--name weather-agent] [--protocol-versions 1.0] \
        [--log requests.jsonl] [--database-url postgres://...] [--revision REV]

Once it accepts connections it prints one line, `listening on 127.0.0.1:PORT`, on
stdout. Routes, as kagent 1.0's controller serves agents:

- POST /agents/{namespace}/{name}: A2A JSON-RPC (SendMessage, SendStreamingMessage,
  GetTask, ListTasks, CancelTask, ...), a2a-sdk's JsonRpcDispatcher. The SDK checks
  the `A2A-Version` header: 1.0 (or 1.x) is served; a missing header counts as 0.3,
  which is refused unless `--protocol-versions` includes 0.3 (then the SDK's 0.3
  compatibility adapter answers `message/send` too).
- GET /agents/{namespace}/{name}/.well-known/agent-card.json: the card, one
  JSON-RPC `supportedInterfaces` entry per `--protocol-versions` value.
- GET /health.

The executor asks the scripted OpenAI-compatible model (tests/a2a/scripted_model.py)
with three tools: get_weather(city); delete_file(path), which needs approval (the
task goes TASK_STATE_INPUT_REQUIRED with kagent's HITL extension request, a
`tool_approval_request` under https://kagent.dev/extensions/hitl/v1 in the status
message's metadata, and a continuation message of the same taskId that declares the
extension and carries a `tool_approval_response` resumes it: one approval per id);
lookup_order(id), which raises, so its result is an MCP-style error; ask_user(questions),
which pauses the task with an `ask_user_request` {id, questions} under the same extension
until a continuation carries the `ask_user_response` {id, answers: [{answer: [...]}, ...]}
(one per question, as kagent's runtimes read it), whose answers are the tool's result.

With --busy N, each SendMessage message id is refused N times first as kagent 1.0's
gateway refuses a send to a busy session: JSON-RPC error -32004 whose data holds a
google.rpc.ErrorInfo with reason KAGENT_SEND_NOT_ACCEPTED and retryAfterMs "100". Every model output and every tool result is its own artifact
(function_call / function_response data parts, kagent.dev/a2a/part-type,
kagent.dev/a2a/timeline-position, per-call kagent.dev/a2a/usage); the answer is a text
artifact; the terminal status update carries https://kagent.dev/extensions/usage/v1
(a2a-sdk merges it into Task.metadata). A model error fails the task with
`llm error response: "..."`. Tasks live in a2a-sdk's InMemoryTaskStore, so GetTask
works.

With --database-url (generation-C tables already created, tests/data/kagent-1.0/
schema-c.sql) every update is also written to kagent 1.0's tables, one transaction
per update, by tests/data/kagent-1.0/kagent1_rows.py: runtime_instance.id = session
id = contextId, user_id from the x-user-id header (default admin@kagent.dev), and the
revision of --revision, whose rows are created at start if absent.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
import socket
import sys
import threading
import time
import uuid
from pathlib import Path

import httpx
import uvicorn
from google.protobuf import json_format
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import (
    Artifact,
    Message,
    Part,
    Role,
    StreamResponse,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "data" / "kagent-1.0"))
import kagent1_rows as k  # noqa: E402

DEFAULT_USER = "admin@kagent.dev"
HITL = "https://kagent.dev/extensions/hitl/v1"
NEEDS_APPROVAL = {"delete_file"}

TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "Returns the current weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
    {"type": "function", "function": {
        "name": "delete_file", "description": "Deletes a file. Needs a person's approval first.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}},
    {"type": "function", "function": {
        "name": "lookup_order", "description": "Looks up an order by its id.",
        "parameters": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}}},
    {"type": "function", "function": {
        "name": "ask_user", "description": "Asks the user questions and waits for the answers.",
        "parameters": {"type": "object", "properties": {"questions": {"type": "array", "items": {
            "type": "object", "properties": {"question": {"type": "string"},
                                             "choices": {"type": "array", "items": {"type": "string"}},
                                             "multiple": {"type": "boolean"}}}}},
            "required": ["questions"]}}},
]


def run_tool(name: str, args: dict):
    """A tool's result as the function_response `response`: builtin tools wrap the
    value as {"result": ...}; a raising tool answers as an MCP error."""
    try:
        if name == "get_weather":
            return {"result": f"Sunny, 21 degrees Celsius in {args['city']}."}
        if name == "delete_file":
            return {"result": f"Deleted {args['path']}."}
        if name == "lookup_order":
            raise ValueError(f"order {args.get('id')} does not exist")
        raise ValueError(f"unknown tool {name}")
    except Exception as e:  # noqa: BLE001 - the error is the tool's answer
        return {"content": [{"type": "text", "text": str(e)}], "isError": True}


def timeline() -> dict:
    return {k.TIMELINE: k.rfc3339_nano(time.time_ns())}


def data_of(part: Part):
    return json_format.MessageToDict(part.data) if part.WhichOneof("content") == "data" else None


def text_of(msg: Message) -> str:
    texts = [p.text for p in msg.parts if p.WhichOneof("content") == "text"]
    if texts:
        return "\n".join(texts)
    return "\n".join(json.dumps(data_of(p)) for p in msg.parts if p.WhichOneof("content") == "data")


class ModelError(Exception):
    pass


def approval_id(call: dict) -> str:
    """The opaque id a HITL approval is answered by."""
    return f"approval-{call['id']}"


class Store:
    """kagent 1.0's tables (generation C) through psycopg, one transaction per update."""

    def __init__(self, url: str, namespace: str, name: str, revision: str, snapshot: dict, card: bytes):
        import psycopg

        self.conn = psycopg.connect(url, autocommit=True)
        self.lock = threading.Lock()
        self.namespace, self.name, self.revision = namespace, name, revision
        self.histories: dict[str, str] = {}
        uid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"kagent-evals/agent/{namespace}/{name}"))
        rev = k.Revision(revision, namespace, name, uid, snapshot, card, time.time_ns())
        with self.lock, self.conn.transaction():
            k.insert_rows(self.conn, rev.rows_c())
            table, row = k.agent_definition_row(namespace, name, uid, revision, time.time_ns(), time.time_ns())
            k.insert_rows(self.conn, [(table, row)], on_conflict=(
                "(namespace, agent_uid) DO UPDATE SET latest_successful_revision = EXCLUDED.latest_successful_revision,"
                " desired_revision = EXCLUDED.desired_revision, updated_at = EXCLUDED.updated_at"))

    def _history(self, context_id: str, user_id: str, title: str, at: int) -> str:
        if context_id in self.histories:
            return self.histories[context_id]
        with self.conn.cursor() as cur:
            cur.execute("SELECT history_id FROM session WHERE id = %s", (context_id,))
            row = cur.fetchone()
        if row:
            history_id = str(row[0])
        else:
            history_id = str(uuid.uuid4())
            record = k.SessionRecord(context_id, history_id, user_id, self.namespace, self.name, self.revision,
                                     created_ns=at, updated_ns=at, display_name=title[:200])
            k.insert_rows(self.conn, record.rows_c())
        self.histories[context_id] = history_id
        return history_id

    def write(self, context_id: str, user_id: str, title: str, update: StreamResponse) -> None:
        at = time.time_ns()
        with self.lock, self.conn.transaction():
            history_id = self._history(context_id, user_id, title, at)
            task_id = k.task_id_of(update)
            projection = k.load_projection(self.conn, history_id, task_id)
            _, tx = k.apply_update(history_id, projection, update, at)
            k.write_transaction(self.conn, tx)
            # Session.updated_at lives only inside session.data (§2.2).
            with self.conn.cursor() as cur:
                cur.execute("SELECT data FROM session WHERE id = %s FOR UPDATE", (context_id,))
                session = k.Session.FromString(bytes(cur.fetchone()[0]))
                session.updated_at.seconds, session.updated_at.nanos = divmod(at, 1_000_000_000)
                cur.execute("UPDATE session SET data = %s WHERE id = %s", (k.serialize(session), context_id))


class TaskRun:
    def __init__(self, title: str, user_id: str):
        self.title, self.user_id = title, user_id
        self.calls: list[tuple[str, int, int]] = []   # (model, prompt, completion) per model call
        self.pending: list[dict] = []                 # tool calls waiting for approval
        self.asking: dict | None = None               # an ask_user call waiting for answers


class WeatherExecutor(AgentExecutor):
    def __init__(self, model_url: str, model: str, store: Store | None):
        self.model_url = model_url.rstrip("/")
        self.model = model
        self.store = store
        self.client = httpx.AsyncClient(timeout=60)
        self.conversations: dict[str, list[dict]] = {}   # contextId -> OpenAI messages
        self.runs: dict[str, TaskRun] = {}

    async def publish(self, queue: EventQueue, context_id: str, run: TaskRun, event, *, persist_only=False):
        if self.store is not None:
            update = (StreamResponse(task=event) if isinstance(event, Task) else
                      StreamResponse(message=event) if isinstance(event, Message) else
                      StreamResponse(status_update=event) if isinstance(event, TaskStatusUpdateEvent) else
                      StreamResponse(artifact_update=event))
            await asyncio.to_thread(self.store.write, context_id, run.user_id, run.title, update)
        if not persist_only:
            await queue.enqueue_event(event)

    def status(self, task_id, context_id, state, message=None, metadata=None) -> TaskStatusUpdateEvent:
        status = TaskStatus(state=state, timestamp=k.timestamp(time.time_ns()))
        if message is not None:
            status.message.CopyFrom(message)
        return TaskStatusUpdateEvent(task_id=task_id, context_id=context_id, status=status, metadata=metadata)

    def artifact(self, task_id, context_id, parts, metadata) -> TaskArtifactUpdateEvent:
        return TaskArtifactUpdateEvent(task_id=task_id, context_id=context_id, last_chunk=True,
                                       artifact=Artifact(artifact_id=str(uuid.uuid4()), parts=parts,
                                                         metadata=metadata))

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = context.task_id, context.context_id
        headers = context.call_context.state.get("headers", {}) if context.call_context else {}
        incoming = Message()
        incoming.CopyFrom(context.message)
        incoming.task_id, incoming.context_id = task_id, context_id
        incoming.metadata.update(timeline())  # the gateway stamps the user message
        conversation = self.conversations.setdefault(context_id, [])
        run = self.runs.get(task_id)
        if self.store is not None:
            try:
                uuid.UUID(context_id)
            except ValueError:
                run = run or TaskRun("", DEFAULT_USER)
                await event_queue.enqueue_event(Task(id=task_id, context_id=context_id, history=[incoming],
                                                     status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED)))
                error = f"contextId {context_id!r} is not a UUID, which kagent 1.0 needs as the Session id"
                await event_queue.enqueue_event(self.status(
                    task_id, context_id, TaskState.TASK_STATE_FAILED,
                    k.message(str(uuid.uuid4()), Role.ROLE_AGENT, [k.text_part(error)],
                              context_id=context_id, task_id=task_id), {"error": error}))
                return
        if run is None:
            run = TaskRun(text_of(incoming), headers.get("x-user-id") or DEFAULT_USER)
            self.runs[task_id] = run
            task = Task(id=task_id, context_id=context_id, history=[incoming],
                        status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED,
                                          timestamp=k.timestamp(time.time_ns())))
            await self.publish(event_queue, context_id, run, task)
            await self.publish(event_queue, context_id, run,
                               self.status(task_id, context_id, TaskState.TASK_STATE_WORKING))
            conversation.append({"role": "user", "content": text_of(incoming)})
        else:
            # A continuation of a task waiting for input: stored as a history message;
            # a2a-sdk adds it to its own task itself.
            await self.publish(event_queue, context_id, run, incoming, persist_only=True)
            await self.publish(event_queue, context_id, run,
                               self.status(task_id, context_id, TaskState.TASK_STATE_WORKING))
            # kagent reads a decision only from a message that declares the extension.
            payload = (json_format.MessageToDict(incoming.metadata).get(HITL, {})
                       if HITL in incoming.extensions else {})
            if run.asking:
                call, run.asking = run.asking, None
                answers = payload.get("answers")
                if (payload.get("type") != "ask_user_response" or payload.get("id") != approval_id(call)
                        or not isinstance(answers, list)
                        or len(answers) != len(call["args"]["questions"])
                        or not all(isinstance(a, dict) and isinstance(a.get("answer"), list) for a in answers)):
                    await self.fail(event_queue, task_id, context_id, run,
                                    f"not an ask_user_response answering every question: {payload!r}")
                    return
                await self.tool_results(event_queue, task_id, context_id, run, conversation,
                                        [(call, {"result": {"answers": answers}})])
            elif run.pending:
                approvals = {a.get("id"): a for a in payload.get("approvals") or []}
                if payload.get("type") != "tool_approval_response" or set(approvals) != {
                        approval_id(c) for c in run.pending}:
                    await self.fail(event_queue, task_id, context_id, run,
                                    f"not a tool_approval_response for every pending approval: {payload!r}")
                    return
                results = []
                for call in run.pending:
                    approval = approvals[approval_id(call)]
                    if approval.get("approved") is True:
                        results.append((call, run_tool(call["name"], call["args"])))
                    else:
                        reason = approval.get("rejection_reason") or "none given"
                        results.append((call, {"result": f"Tool call was rejected by user. Reason: {reason}"}))
                run.pending = []
                await self.tool_results(event_queue, task_id, context_id, run, conversation, results)
            else:
                conversation.append({"role": "user", "content": text_of(incoming)})
        await self.loop(event_queue, task_id, context_id, run, conversation)

    async def fail(self, queue, task_id, context_id, run, error: str) -> None:
        """The task fails with `error`, as a continuation kagent cannot read does."""
        await self.publish(queue, context_id, run, self.status(
            task_id, context_id, TaskState.TASK_STATE_FAILED,
            k.message(str(uuid.uuid4()), Role.ROLE_AGENT, [k.text_part(error)],
                      context_id=context_id, task_id=task_id), {"error": error}))

    async def tool_results(self, queue, task_id, context_id, run, conversation, results):
        parts = [k.function_response(call["id"], call["name"], response) for call, response in results]
        await self.publish(queue, context_id, run, self.artifact(task_id, context_id, parts, timeline()))
        for call, response in results:
            conversation.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(response)})

    async def call_model(self, conversation) -> dict:
        try:
            response = await self.client.post(f"{self.model_url}/chat/completions", json={
                "model": self.model, "messages": conversation, "tools": TOOLS})
        except httpx.HTTPError as e:
            raise ModelError(f"{type(e).__name__}: {e}") from e
        if response.status_code >= 400:
            try:
                message = response.json()["error"]["message"]
            except (ValueError, KeyError, TypeError):
                message = response.text
            raise ModelError(message)
        return response.json()

    async def loop(self, queue, task_id, context_id, run: TaskRun, conversation) -> None:
        while True:
            try:
                answer = await self.call_model(conversation)
            except ModelError as e:
                error = f'llm error response: "{e}"'
                metadata = {"error": error}
                if run.calls:
                    metadata[k.USAGE_EXTENSION] = k.usage_extension(run.calls)
                msg = k.message(str(uuid.uuid4()), Role.ROLE_AGENT, [k.text_part(error)],
                                context_id=context_id, task_id=task_id, metadata=timeline())
                await self.publish(queue, context_id, run,
                                   self.status(task_id, context_id, TaskState.TASK_STATE_FAILED, msg, metadata))
                return
            choice = answer["choices"][0]["message"]
            usage = answer.get("usage") or {}
            prompt, completion = int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))
            run.calls.append((answer.get("model") or self.model, prompt, completion))
            calls = [{"id": c["id"], "name": c["function"]["name"],
                      "args": json.loads(c["function"]["arguments"] or "{}")}
                     for c in choice.get("tool_calls") or []]
            text = choice.get("content")
            parts = [k.text_part(text)] if text else []
            parts += [k.function_call(c["id"], c["name"], c["args"]) for c in calls]
            metadata = {**timeline(), k.USAGE: k.genai_usage(prompt, completion)}
            await self.publish(queue, context_id, run, self.artifact(task_id, context_id, parts, metadata))
            assistant = {"role": "assistant", "content": text}
            if calls:
                assistant["tool_calls"] = [{"id": c["id"], "type": "function", "function": {
                    "name": c["name"], "arguments": json.dumps(c["args"])}} for c in calls]
            conversation.append(assistant)
            if not calls:
                await self.publish(queue, context_id, run, self.status(
                    task_id, context_id, TaskState.TASK_STATE_COMPLETED,
                    metadata={k.USAGE_EXTENSION: k.usage_extension(run.calls)}))
                return
            asks = [c for c in calls if c["name"] == "ask_user"]
            if asks:
                # One question call at a time, as kagent's ask_user tool pauses.
                run.asking = asks[0]
                questions = run.asking["args"]["questions"]
                request = {"type": "ask_user_request", "id": approval_id(run.asking), "questions": questions}
                msg = k.message(str(uuid.uuid4()), Role.ROLE_AGENT,
                                [k.text_part("; ".join(q["question"] for q in questions))],
                                context_id=context_id, task_id=task_id, metadata={**timeline(), HITL: request})
                msg.extensions.append(HITL)
                await self.publish(queue, context_id, run,
                                   self.status(task_id, context_id, TaskState.TASK_STATE_INPUT_REQUIRED, msg))
                return
            now = [c for c in calls if c["name"] not in NEEDS_APPROVAL]
            if now:
                await self.tool_results(queue, task_id, context_id, run, conversation,
                                        [(c, run_tool(c["name"], c["args"])) for c in now])
            waiting = [c for c in calls if c["name"] in NEEDS_APPROVAL]
            if waiting:
                run.pending = waiting
                names = ", ".join(c["name"] for c in waiting)
                request = {"type": "tool_approval_request", "hint": f"{names} requires approval",
                           "tools": [{"id": approval_id(c), "call_id": c["id"], "name": c["name"],
                                      "args": c["args"]} for c in waiting]}
                msg = k.message(str(uuid.uuid4()), Role.ROLE_AGENT,
                                [k.text_part(f"Approval is required for tool(s): {names}")],
                                context_id=context_id, task_id=task_id, metadata={**timeline(), HITL: request})
                msg.extensions.append(HITL)
                await self.publish(queue, context_id, run,
                                   self.status(task_id, context_id, TaskState.TASK_STATE_INPUT_REQUIRED, msg))
                return

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        run = self.runs.get(context.task_id) or TaskRun("", DEFAULT_USER)
        await self.publish(event_queue, context.context_id, run,
                           self.status(context.task_id, context.context_id, TaskState.TASK_STATE_CANCELED))


class RequestLog:
    """ASGI middleware: one JSON line per request with its headers, JSON-RPC method and
    message ids; with `busy`, each SendMessage message id refused that many times first."""

    def __init__(self, app, path: str | None, busy: int = 0):
        self.app, self.path, self.lock = app, path, threading.Lock()
        self.busy, self.refused = busy, {}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not (self.path or self.busy):
            return await self.app(scope, receive, send)
        chunks, more = [], True
        while more:
            event = await receive()
            chunks.append(event.get("body", b""))
            more = event.get("more_body", False)
        body = b"".join(chunks)
        entry = {"time": time.time(), "method": scope["method"], "path": scope["path"],
                 "headers": {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}}
        rpc = None
        if body:
            try:
                rpc = json.loads(body)
                if isinstance(rpc, dict):
                    message = (rpc.get("params") or {}).get("message") or {}
                    entry["jsonrpc"] = {"method": rpc.get("method"), "id": rpc.get("id"),
                                        "messageId": message.get("messageId"),
                                        "contextId": message.get("contextId"),
                                        "historyLength": (rpc.get("params") or {}).get("historyLength")}
            except ValueError:
                entry["jsonrpc"] = {"error": "invalid JSON"}
        refuse = False
        if self.busy and isinstance(rpc, dict) and rpc.get("method") == "SendMessage":
            message_id = entry["jsonrpc"]["messageId"]
            with self.lock:
                refuse = self.refused.get(message_id, 0) < self.busy
                if refuse:
                    self.refused[message_id] = self.refused.get(message_id, 0) + 1
            entry["refusedBusy"] = refuse
        if self.path:
            with self.lock, open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")
        if refuse:
            error = {"jsonrpc": "2.0", "id": rpc.get("id"), "error": {
                "code": -32004, "message": "input was not accepted; retry after the session becomes available",
                "data": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "KAGENT_SEND_NOT_ACCEPTED",
                          "domain": "kagent.dev", "metadata": {"retryAfterMs": "100"}}]}}
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": json.dumps(error).encode()})
            return
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)


def snapshot(namespace: str, name: str, model: str) -> dict:
    api = "api.kagent.dev/v1alpha3"
    return {
        "agent": {"apiVersion": api, "kind": "Agent", "metadata": {"namespace": namespace, "name": name},
                  "spec": {"template": {"ref": {"name": f"{name}-template"}},
                           "harness": {"ref": {"name": f"{name}-harness"}}}},
        "agentTemplate": {"apiVersion": api, "kind": "AgentTemplate",
                          "metadata": {"namespace": namespace, "name": f"{name}-template"},
                          "spec": {"modelConfig": {"name": f"{name}-model"},
                                   "systemPrompt": "You are a weather assistant for the kagent-evals tests.",
                                   "tools": [{"mcp": {"server": {"kind": "RemoteMCPServer", "name": "tests"},
                                                      "tools": [t["function"]["name"] for t in TOOLS],
                                                      "requireApproval": sorted(NEEDS_APPROVAL)}}]}},
        "harness": {"apiVersion": api, "kind": "Harness",
                    "metadata": {"namespace": namespace, "name": f"{name}-harness"}, "spec": {"kagent": {}}},
        "modelConfig": {"apiVersion": api, "kind": "ModelConfig",
                        "metadata": {"namespace": namespace, "name": f"{name}-model"},
                        "spec": {"provider": "OpenAI", "model": model}},
    }


async def serve(args) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    port = sock.getsockname()[1]
    versions = [v for item in args.protocol_versions for v in item.split(",") if v]
    card = k.agent_card(args.namespace, args.name, "A weather agent for the kagent-evals A2A 1.0 tests.",
                        f"http://{args.host}:{port}", protocol_versions=versions,
                        skills=[(t["function"]["name"], t["function"]["description"]) for t in TOOLS])
    store = None
    if args.database_url:
        snap = snapshot(args.namespace, args.name, args.model)
        revision = args.revision or "sha256:" + hashlib.sha256(
            json.dumps(snap, sort_keys=True).encode()).hexdigest()
        store = await asyncio.to_thread(Store, args.database_url, args.namespace, args.name, revision, snap,
                                        k.serialize(card))
    executor = WeatherExecutor(args.model_url, args.model, store)
    handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=card)
    base = f"/agents/{args.namespace}/{args.name}"
    routes = create_jsonrpc_routes(handler, rpc_url=base, enable_v0_3_compat="0.3" in versions)
    routes += create_agent_card_routes(card, card_url=f"{base}/.well-known/agent-card.json")
    routes.append(Route("/health", lambda request: PlainTextResponse("OK"), methods=["GET"]))
    app = RequestLog(Starlette(routes=routes), args.log, args.busy)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if serving.done():
            await serving
            return
        await asyncio.sleep(0.02)
    print(f"listening on {args.host}:{port}", flush=True)
    await serving
    await handler.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--model-url", required=True, help="the scripted model's base URL, e.g. http://127.0.0.1:PORT/v1")
    parser.add_argument("--model", default="scripted-model", help="the model name sent to it")
    parser.add_argument("--namespace", default="kagent")
    parser.add_argument("--name", default="weather-agent")
    parser.add_argument("--protocol-versions", nargs="+", default=["1.0"],
                        help="the card's supportedInterfaces[].protocolVersion values (space or comma separated)")
    parser.add_argument("--log", help="JSONL file: every request's method, path, headers and JSON-RPC method")
    parser.add_argument("--database-url", help="postgres://... with schema-c.sql loaded: persist every update")
    parser.add_argument("--revision", help="the revision sessions are pinned to (default: a digest of the spec)")
    parser.add_argument("--busy", type=int, default=0,
                        help="refuse each SendMessage message id this many times first, as a busy session")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    try:
        asyncio.run(serve(args))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
