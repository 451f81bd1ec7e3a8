"""Write the kagent 1.0 fixture rows: rows-c.sql, rows-b.sql and expected.json.

    venv=$(hack/python-env.sh a2a1)
    $venv/bin/python tests/data/kagent-1.0/generate.py            # rewrite the files
    $venv/bin/python tests/data/kagent-1.0/generate.py --check    # exit 1 if they differ
    $venv/bin/python tests/data/kagent-1.0/generate.py --scale 10000 --events-per-session 20 \
        --out DIR [--load postgres://...]

Everything is fixed: ids are uuid5 of names, times start at 2026-11-20T09:00:00Z and
advance by set steps, and every protobuf is serialised with deterministic=True, so
the output is byte-for-byte the same on every run. The conversations are built here
with a2a-sdk 1.3.0's `a2a.types` classes and turned into rows by kagent1_rows.py;
expected.json is written from the same builder calls (what was put in), never from
decoding the rows.

rows-c.sql loads after schema-c.sql, rows-b.sql after schema-b.sql, each in one go
(sqlx raw_sql or psql -f) into an empty database.

--scale writes into DIR: one COPY text file per table and manifest.json (the COPY
statement for each file, in load order, and a statement to run afterwards), loadable
into an empty schema-c database; and events.frames, every session_task_event.data in
row order as u32 little-endian length + bytes, for a bare-decode benchmark. --load
URL also loads the files into that database (psycopg).
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import kagent1_rows as k  # noqa: E402
from kagent1_rows import (  # noqa: E402
    Artifact,
    Role,
    StreamResponse,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)

NAMESPACE = uuid.UUID("6f1c9f0e-3d52-4b8e-9a57-0c1d2e3f4a5b")
T0 = 1_795_165_200 * 1_000_000_000  # 2026-11-20T09:00:00Z
MINUTE = 60 * 1_000_000_000


def uid(*parts: str) -> str:
    return str(uuid.uuid5(NAMESPACE, "/".join(parts)))


def token(prefix: str, *parts: str, length: int = 24) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    n = int.from_bytes(hashlib.sha256("/".join(parts).encode()).digest(), "big")
    out = []
    for _ in range(length):
        n, r = divmod(n, len(alphabet))
        out.append(alphabet[r])
    return prefix + "".join(out)


# --- agents and revisions -------------------------------------------------------------

API = "api.kagent.dev/v1alpha3"


@dataclass
class Agent:
    namespace: str
    name: str
    harness: str          # kagent, claude
    adk_name: str         # the ADK agent name (older alphas' adk_author)

    @property
    def uid(self) -> str:
        return uid("k8s-uid", self.namespace, self.name)


@dataclass
class Rev:
    label: str
    agent: Agent
    model: str
    system_prompt: str
    tools: list
    require_approval: list
    generation: int
    created_ns: int
    deleted_ns: int | None = None

    def snapshot(self) -> dict:
        a = self.agent
        template = f"{a.name}-template"
        harness = f"{a.name}-harness"
        model_config = f"{a.name}-model"
        harness_spec = {"kagent": {}} if a.harness == "kagent" else {
            a.harness: {}, "workload": {"image": f"ghcr.io/kagent-dev/{a.harness}-harness:1.0.0"}}
        return {
            "agent": {"apiVersion": API, "kind": "Agent",
                      "metadata": {"namespace": a.namespace, "name": a.name, "uid": a.uid,
                                   "generation": self.generation},
                      "spec": {"template": {"ref": {"name": template}},
                               "harness": {"ref": {"name": harness}}}},
            "agentTemplate": {"apiVersion": API, "kind": "AgentTemplate",
                              "metadata": {"namespace": a.namespace, "name": template},
                              "spec": {"description": f"The {a.name} of the kagent-evals fixtures.",
                                       "modelConfig": {"name": model_config},
                                       "systemPrompt": self.system_prompt,
                                       "tools": [{"mcp": {"server": {"kind": "RemoteMCPServer",
                                                                     "name": "kagent-tool-server"},
                                                          "tools": self.tools,
                                                          "requireApproval": self.require_approval}}]}},
            "harness": {"apiVersion": API, "kind": "Harness",
                        "metadata": {"namespace": a.namespace, "name": harness},
                        "spec": {**harness_spec,
                                 "substrate": {"workerPoolRef": {"name": "default"}}}},
            "modelConfig": {"apiVersion": API, "kind": "ModelConfig",
                            "metadata": {"namespace": a.namespace, "name": model_config},
                            "spec": {"provider": "Anthropic" if "claude" in self.model else "OpenAI",
                                     "model": self.model}},
        }

    @property
    def revision(self) -> str:
        canonical = json.dumps(self.snapshot(), sort_keys=True, separators=(",", ":"))
        return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()

    def record(self) -> k.Revision:
        a = self.agent
        card = k.agent_card(a.namespace, a.name, f"The {a.name} of the kagent-evals fixtures.",
                            "http://kagent-controller.kagent.svc:8083", version=self.label)
        return k.Revision(self.revision, a.namespace, a.name, a.uid, self.snapshot(),
                          k.serialize(card), self.created_ns, self.deleted_ns,
                          egress_destinations=["api.openai.com:443"] if "gpt" in self.model
                          else ["api.anthropic.com:443"])


WEATHER = Agent("kagent", "weather-agent", "kagent", "weather_agent")
K8S = Agent("team-a", "k8s-agent", "kagent", "k8s_agent")
CLAUDE = Agent("team-a", "claude-helper", "claude", "claude_helper")

WEATHER_TOOLS = ["get_weather", "delete_file"]
R0 = Rev("r0", WEATHER, "gpt-4o-mini", "You answer weather questions.", WEATHER_TOOLS, ["delete_file"],
         1, T0 - 30 * 24 * 60 * MINUTE, deleted_ns=T0 - 2 * 24 * 60 * MINUTE)
R1 = Rev("r1", WEATHER, "gpt-4.1-mini",
         "You are a weather assistant. Always call get_weather before answering.",
         WEATHER_TOOLS, ["delete_file"], 2, T0 - 7 * 24 * 60 * MINUTE)
R2 = Rev("r2", WEATHER, "gpt-4.1",
         "You are a weather assistant. Always call get_weather before answering, "
         "and give the temperature in degrees Celsius.",
         WEATHER_TOOLS, ["delete_file"], 3, T0 - 24 * 60 * MINUTE)
K1 = Rev("k1", K8S, "gpt-4.1", "You help with Kubernetes workloads in team-a.",
         ["k8s_get_pods", "k8s_describe_pod", "k8s_get_pod_logs", "get_current_time"], [], 1,
         T0 - 3 * 24 * 60 * MINUTE)
C1 = Rev("c1", CLAUDE, "claude-sonnet-4-5", "You help the team-a developers.", ["Bash"], [], 1,
         T0 - 3 * 24 * 60 * MINUTE)
REVISIONS = [R0, R1, R2, K1, C1]
# agent -> the revision agent_definition.latest_successful_revision names
LATEST = {WEATHER.name: R2, K8S.name: K1, CLAUDE.name: C1}

SANDBOX_REVISION = "sha256:" + hashlib.sha256(b"kagent-evals sandbox template").hexdigest()
SANDBOX_ID = uid("sandbox", "instance")

ALICE, BOB, ADMIN = "alice@example.com", "bob@example.com", "admin@kagent.dev"


# --- a conversation builder -----------------------------------------------------------

class Conv:
    """One Session: the A2A v1 updates its runtime sends, and what was put in them.

    style: 'canonical' (kagent.dev/a2a/part-type), 'adk' (older alphas: adk_type and
    other adk_* keys), 'kagent' (kagent_type). usage: the places usage goes, of
    'artifact' (kagent.dev/a2a/usage per model output), 'adk_artifact'
    (adk_usage_metadata), 'extension' (usage/v1 on the terminal status update, so
    also Task.metadata), 'total' (kagent_usage_total there), 'status_message'
    (kagent.dev/a2a/usage on the terminal status message, with numTurns)."""

    def __init__(self, key: str, *, rev: Rev, user: str, start: int, style: str = "canonical",
                 usage: tuple = ("artifact",), timeline: bool = True, total_shape: str = "openai",
                 title: str = "", tool_activity: str = "artifacts"):
        self.key, self.rev, self.agent, self.user = key, rev, rev.agent, user
        self.sid, self.hid = uid(key, "session"), uid(key, "history")
        self.start = self.t = start
        self.style, self.usage, self.timeline, self.total_shape = style, usage, timeline, total_shape
        self.title, self.tool_activity = title, tool_activity
        self.updates: list[tuple[StreamResponse, int, bool, int]] = []  # update, at, published, task index
        self.tasks: list[dict] = []
        self.minted: list[list[str]] = []    # uuids minted per task (for forks)
        self.steps = 0
        self.record = k.SessionRecord(self.sid, self.hid, user, rev.agent.namespace, rev.agent.name,
                                      rev.revision)
        self.flags: dict = {"forked": False, "source_checkpoint_id": None, "forked_from": None,
                            "deleted": False, "deletion_reason": None, "unpublished_rows": 0,
                            "unpublished": [], "revision_deleted": rev.deleted_ns is not None,
                            "unknown_fields": []}
        self.unknown: dict[str, bytes] = {}  # where -> unknown field bytes to add

    # time and ids
    def tick(self, ms: int) -> None:
        self.steps += 1
        # whole milliseconds plus a deterministic sub-millisecond part, down to the
        # nanosecond (timeline positions keep it; PostgreSQL keeps microseconds)
        self.t += ms * 1_000_000 + (self.steps * 7919) % 1000 * 1000 + (self.steps * 389) % 1000

    def mint(self, what: str) -> str:
        value = uid(self.key, what, str(len(self.tasks)), str(self.steps), str(sum(map(len, self.minted))))
        self.minted[-1].append(value)
        return value

    def call_id(self, name: str) -> str:
        if self.agent.harness == "claude":
            return token("toolu_01", self.key, name, str(self.steps), length=22)
        return token("call_", self.key, name, str(self.steps))

    def meta(self, extra: dict | None = None) -> dict | None:
        m = {k.TIMELINE: k.rfc3339_nano(self.t)} if self.timeline else {}
        if self.style == "adk":
            m["adk_author"] = self.agent.adk_name
            m["adk_invocation_id"] = "e-" + uid(self.key, "invocation", str(len(self.tasks)))
        m.update(extra or {})
        return m or None

    def emit(self, update: StreamResponse, published: bool = True) -> None:
        self.updates.append((update, self.t, published, len(self.tasks) - 1))

    @property
    def cur(self) -> dict:
        return self.tasks[-1]

    # the runtime's updates
    def begin(self, text: str, *, pause_ms: int = 0) -> None:
        self.tick(pause_ms)
        self.minted.append([])
        task_id = uid(self.key, "task", str(len(self.tasks) + 1))
        self.tasks.append({"task_id": task_id, "state": None, "user_turns": [text], "tool_calls": [],
                           "tool_results": [], "approvals": [], "final_answer": None, "error": None,
                           "transcript": [{"role": "user", "text": text}], "_calls": []})
        user = k.message(self.mint("message"), Role.ROLE_USER, [k.text_part(text)],
                         context_id=self.sid, task_id=task_id, metadata=self.meta_plain())
        task = Task(id=task_id, context_id=self.sid,
                    status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED, timestamp=k.timestamp(self.t)),
                    history=[user])
        if "task" in self.unknown:
            task = k.with_unknown(task, self.unknown["task"])
        self.emit(StreamResponse(task=task))
        self.tick(40)
        self.status(TaskState.TASK_STATE_WORKING)

    def meta_plain(self) -> dict | None:
        """Message metadata: the timeline key only (the gateway stamps user messages)."""
        return {k.TIMELINE: k.rfc3339_nano(self.t)} if self.timeline else None

    def status(self, state, message=None, metadata=None, published: bool = True) -> None:
        status = TaskStatus(state=state, timestamp=k.timestamp(self.t))
        if message is not None:
            status.message.CopyFrom(message)
        self.emit(StreamResponse(status_update=TaskStatusUpdateEvent(
            task_id=self.cur["task_id"], context_id=self.sid, status=status, metadata=metadata)),
            published)

    def artifact(self, parts, metadata, *, artifact_id=None, append=False, last_chunk=True,
                 unknown_key=None) -> str:
        artifact_id = artifact_id or self.mint("artifact")
        update = StreamResponse(artifact_update=TaskArtifactUpdateEvent(
            task_id=self.cur["task_id"], context_id=self.sid,
            artifact=Artifact(artifact_id=artifact_id, parts=parts, metadata=metadata),
            append=append, last_chunk=last_chunk))
        if unknown_key and unknown_key in self.unknown:
            update = k.with_unknown(update, self.unknown[unknown_key])
        self.emit(update)
        return artifact_id

    def _usage_meta(self, prompt: int, completion: int) -> dict:
        extra = {}
        if "artifact" in self.usage:
            extra[k.USAGE] = k.genai_usage(prompt, completion)
        if "adk_artifact" in self.usage:
            extra[k.ADK_USAGE] = k.genai_usage(prompt, completion)
        return extra

    def model(self, calls=(), text=None, prompt=120, completion=18, ms=900, chunks=None) -> list[str]:
        """One model output, as one artifact (or `chunks` appended to one artifact)."""
        self.tick(ms)
        self.cur["_calls"].append((self.rev.model, prompt, completion))
        parts, ids = [], []
        if text is not None and chunks is None:
            parts.append(k.text_part(text))
        for name, args in calls:
            cid = self.call_id(name)
            ids.append(cid)
            parts.append(k.function_call(cid, name, args, self.style))
            self.cur["tool_calls"].append({"id": cid, "name": name, "args": args})
        if text is not None:
            self.cur["transcript"].append({"role": "assistant", "text": text})
            if not calls:
                self.cur["final_answer"] = text
        for cid, (name, args) in zip(ids, calls):
            self.cur["transcript"].append({"tool_call": {"id": cid, "name": name, "args": args}})
        meta = self.meta(self._usage_meta(prompt, completion))
        if chunks is None:
            self.artifact(parts, meta)
        else:
            assert "".join(chunks) == text
            artifact_id = None
            for i, chunk in enumerate(chunks):
                if i:
                    self.tick(120)
                last = i == len(chunks) - 1
                artifact_id = self.artifact([k.text_part(chunk)], meta if i == 0 else None,
                                            artifact_id=artifact_id, append=i > 0, last_chunk=last)
        return ids

    def tools(self, results, ms=350) -> None:
        """Tool results, as one artifact: (call id, name, response)."""
        self.tick(ms)
        parts = []
        for cid, name, response in results:
            parts.append(k.function_response(cid, name, response, self.style))
            is_error = isinstance(response, dict) and response.get("isError") is True
            self.cur["tool_results"].append({"id": cid, "name": name, "response": response,
                                             "is_error": is_error})
            self.cur["transcript"].append({"tool_result": {"id": cid, "name": name, "response": response}})
        if "result_part" in self.unknown:
            parts[0] = k.with_unknown(parts[0], self.unknown["result_part"])
        self.artifact(parts, self.meta(), unknown_key="tool_event")

    def _terminal_meta(self) -> dict:
        calls = self.cur["_calls"]
        meta = {}
        if "extension" in self.usage:
            meta[k.USAGE_EXTENSION] = k.usage_extension(calls)
        if "total" in self.usage:
            prompt = sum(c[1] for c in calls)
            completion = sum(c[2] for c in calls)
            if self.total_shape == "openai":
                meta[k.USAGE_TOTAL] = {"prompt_tokens": prompt, "completion_tokens": completion,
                                       "total_tokens": prompt + completion, "model": self.rev.model}
            else:
                meta[k.USAGE_TOTAL] = k.genai_usage(prompt, completion)
        return meta

    def complete(self, ms=60, published=True) -> None:
        self.tick(ms)
        self.status(TaskState.TASK_STATE_COMPLETED, metadata=self._terminal_meta() or None,
                    published=published)
        self.cur["state"] = "TASK_STATE_COMPLETED"
        if not published:
            self.flags["unpublished"].append({"task_id": self.cur["task_id"], "kind": "status_update",
                                              "state": "TASK_STATE_COMPLETED"})

    def fail(self, llm_message: str, ms=1500) -> None:
        self.tick(ms)
        error = f'llm error response: "{llm_message}"'
        msg = k.message(self.mint("message"), Role.ROLE_AGENT, [k.text_part(error)],
                        context_id=self.sid, task_id=self.cur["task_id"], metadata=self.meta_plain())
        self.status(TaskState.TASK_STATE_FAILED, msg, {"error": error, **self._terminal_meta()})
        self.cur["state"] = "TASK_STATE_FAILED"
        self.cur["error"] = error

    def ask_approval(self, call_id: str, name: str, args: dict, ms=30) -> None:
        """TASK_STATE_INPUT_REQUIRED; the status message carries the pending call as
        ADK's adk_request_confirmation function call (the 0.3 shape, see SOURCE.md)."""
        self.tick(ms)
        confirmation_id = "adk-" + uid(self.key, "confirmation", call_id)
        data = {"id": confirmation_id, "name": "adk_request_confirmation",
                "args": {"originalFunctionCall": {"id": call_id, "name": name, "args": args},
                         "toolConfirmation": {"hint": f"Tool '{name}' requires approval before execution.",
                                              "confirmed": False}}}
        msg = k.message(self.mint("message"), Role.ROLE_AGENT,
                        [k.data_part(data, "function_call", self.style)],
                        context_id=self.sid, task_id=self.cur["task_id"], metadata=self.meta_plain())
        self.status(TaskState.TASK_STATE_INPUT_REQUIRED, msg)
        self.cur["approvals"].append({"confirmation_id": confirmation_id, "name": "adk_request_confirmation",
                                      "original_call": {"id": call_id, "name": name, "args": args},
                                      "in": "status_message", "decision": None})
        self.cur["transcript"].append({"approval_request": {"id": confirmation_id, "call_id": call_id}})

    def reply(self, data: dict, pause_ms: int) -> None:
        """The user's continuation: a message of the same contextId and taskId."""
        self.tick(pause_ms)
        msg = k.message(self.mint("message"), Role.ROLE_USER, [k.data_part(data)],
                        context_id=self.sid, task_id=self.cur["task_id"], metadata=self.meta_plain())
        self.emit(StreamResponse(message=msg))
        self.cur["approvals"][-1]["decision"] = data
        self.cur["transcript"].append({"role": "user", "data": data})
        self.tick(30)
        self.status(TaskState.TASK_STATE_WORKING)

    # other harnesses: tool activity in messages
    def agent_message(self, text, calls, prompt, completion, ms=1200) -> list[str]:
        self.tick(ms)
        self.cur["_calls"].append((self.rev.model, prompt, completion))
        parts = [k.text_part(text)] if text else []
        ids = []
        for name, args in calls:
            cid = self.call_id(name)
            ids.append(cid)
            parts.append(k.function_call(cid, name, args, self.style))
            self.cur["tool_calls"].append({"id": cid, "name": name, "args": args})
        if text:
            self.cur["transcript"].append({"role": "assistant", "text": text})
        for cid, (name, args) in zip(ids, calls):
            self.cur["transcript"].append({"tool_call": {"id": cid, "name": name, "args": args}})
        msg = k.message(self.mint("message"), Role.ROLE_AGENT, parts, context_id=self.sid,
                        task_id=self.cur["task_id"], metadata=self.meta_plain())
        self.emit(StreamResponse(message=msg))
        return ids

    def status_tool_results(self, results, ms=800) -> None:
        self.tick(ms)
        parts = []
        for cid, name, response in results:
            parts.append(k.function_response(cid, name, response, self.style))
            self.cur["tool_results"].append({"id": cid, "name": name, "response": response,
                                             "is_error": False})
            self.cur["transcript"].append({"tool_result": {"id": cid, "name": name, "response": response}})
        msg = k.message(self.mint("message"), Role.ROLE_AGENT, parts, context_id=self.sid,
                        task_id=self.cur["task_id"], metadata=self.meta_plain())
        self.status(TaskState.TASK_STATE_WORKING, msg)

    def complete_in_status(self, text, prompt, completion, num_turns, ms=1500) -> None:
        self.tick(ms)
        self.cur["_calls"].append((self.rev.model, prompt, completion))
        calls = self.cur["_calls"]
        p, c = sum(x[1] for x in calls), sum(x[2] for x in calls)
        usage = {**k.genai_usage(p, c), "numTurns": num_turns}
        meta = dict(self.meta_plain() or {})
        meta[k.USAGE] = usage
        msg = k.message(self.mint("message"), Role.ROLE_AGENT, [k.text_part(text)], context_id=self.sid,
                        task_id=self.cur["task_id"], metadata=meta)
        self.status(TaskState.TASK_STATE_COMPLETED, msg)
        self.cur["state"] = "TASK_STATE_COMPLETED"
        self.cur["final_answer"] = text
        self.cur["transcript"].append({"role": "assistant", "text": text})

    # forks
    def copy_task(self, source: "Conv", index: int, ms: int = 5) -> None:
        """Copies task `index` of `source` into this Session, as a fork of a checkpoint
        after it: every update again, with this Session's context id and fresh task,
        message and artifact ids (same lengths, so the bytes stay valid protobuf);
        timestamps and timeline positions are the source's, created_at is now."""
        self.minted.append([])
        expected = copy.deepcopy(source.tasks[index])
        mapping = {source.sid: self.sid}
        old_task = expected["task_id"]
        expected["task_id"] = uid(self.key, "task", str(len(self.tasks) + 1))
        mapping[old_task] = expected["task_id"]
        for old in source.minted[index]:
            mapping[old] = self.mint("copied")
        self.tasks.append(expected)
        for update, _, published, task_index in source.updates:
            if task_index != index:
                continue
            data = k.serialize(update)
            for old, new in mapping.items():
                assert len(old) == len(new)
                data = data.replace(old.encode(), new.encode())
            self.tick(ms)
            self.emit(StreamResponse.FromString(data), published)

    # results
    def rows(self):
        """(session rows per generation, [(transaction, at)]) from the write path."""
        writer = k.HistoryWriter(self.hid)
        txs = [(writer.apply(update, at, published), at) for update, at, published, _ in self.updates]
        self.record.created_ns = self.start
        self.record.updated_ns = self.updates[-1][1]
        self.record.display_name = self.title
        return writer, txs

    def expected(self, txs) -> dict:
        tasks = []
        for t in self.tasks:
            calls = t["_calls"]
            usage = None
            if calls and self.usage:
                p, c = sum(x[1] for x in calls), sum(x[2] for x in calls)
                usage = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c,
                         "places": list(self.usage), "source": usage_source(self.usage)}
            tasks.append({key: value for key, value in t.items() if not key.startswith("_")} |
                         {"usage": usage})
        events = [e for tx, _ in txs for e in tx.events]
        last = tasks[-1]
        total = None
        if any(t["usage"] for t in tasks):
            total = {name: sum(t["usage"][name] for t in tasks if t["usage"])
                     for name in ("prompt_tokens", "completion_tokens", "total_tokens")}
            total |= {"places": list(self.usage), "source": usage_source(self.usage)}
        rev_deleted = self.record.deleted
        self.flags["unpublished_rows"] = sum(1 for e in events if not e.published)
        return {
            "session_id": self.sid,
            "history_id": self.hid,
            "title": self.title,
            "generations": ["b", "c"],
            "agent": {"namespace": self.agent.namespace, "name": self.agent.name,
                      "harness": self.agent.harness},
            "user_id": self.user,
            "revision": None if rev_deleted else {"label": self.rev.label, "revision": self.rev.revision},
            "revision_in_payload": {"label": self.rev.label, "revision": self.rev.revision},
            "state": {"c": self.record.state, "b": k.RUNTIME_TO_SESSION_STATE[self.record.state]},
            "created_at": k.rfc3339_nano(self.start),
            "updated_at": k.rfc3339_nano(self.updates[-1][1]),
            "flags": self.flags,
            "metadata_style": self.style,
            "timeline_positions": self.timeline,
            "tool_activity": self.tool_activity,
            "user_turns": [u for t in tasks for u in t["user_turns"]],
            "tool_calls": [c for t in tasks for c in t["tool_calls"]],
            "tool_results": [r for t in tasks for r in t["tool_results"]],
            "final_answer": last["final_answer"],
            "terminal_state": last["state"],
            "error": last["error"],
            "usage": total,
            "tasks": tasks,
            "rows": {"session_task": len(self.tasks),
                     "session_task_event": len(events),
                     "message_rows": sum(1 for e in events if e.message_id is not None),
                     "unpublished": sum(1 for e in events if not e.published)},
        }


def usage_source(places) -> str | None:
    """Where a reader following §4.4's order takes the usage from."""
    for place, source in (("extension", "usage_extension"), ("artifact", "artifact_usage"),
                          ("status_message", "status_message_usage"), ("total", "kagent_usage_total")):
        if place in places:
            return source
    return None


def weather(city: str) -> dict:
    return {"result": f"Sunny, 21 degrees Celsius in {city}."}


# --- the committed conversations -----------------------------------------------------

def conversations() -> list[Conv]:
    convs = []

    c = Conv("weather-artifact-usage", rev=R2, user=ALICE, start=T0, title="What is the weather in London?")
    c.begin("What is the weather in London?")
    [call] = c.model([("get_weather", {"city": "London"})], prompt=182, completion=16)
    c.tools([(call, "get_weather", weather("London"))])
    c.model(text="It is sunny and 21 degrees Celsius in London.", prompt=231, completion=14)
    c.complete()
    convs.append(c)

    c = Conv("weather-usage-extension", rev=R2, user=ALICE, start=T0 + 5 * MINUTE,
             usage=("extension",), title="Is it raining in Dublin?")
    c.begin("Is it raining in Dublin?")
    [call] = c.model([("get_weather", {"city": "Dublin"})], prompt=180, completion=16)
    c.tools([(call, "get_weather", {"result": "Light rain, 12 degrees Celsius in Dublin."})])
    answer = "Yes, there is light rain in Dublin and it is 12 degrees Celsius."
    c.model(text=answer, prompt=229, completion=17,
            chunks=["Yes, there is light rain ", "in Dublin and it is ", "12 degrees Celsius."])
    c.complete()
    convs.append(c)

    c = Conv("alpha-adk-type", rev=R1, user=BOB, start=T0 + 10 * MINUTE, style="adk",
             usage=("adk_artifact", "total"), title="What's the weather in Madrid?")
    c.begin("What's the weather in Madrid?")
    [call] = c.model([("get_weather", {"city": "Madrid"})], prompt=150, completion=15)
    c.tools([(call, "get_weather", weather("Madrid"))])
    c.model(text="Madrid is sunny, 21 degrees Celsius.", prompt=196, completion=11)
    c.complete()
    convs.append(c)

    c = Conv("alpha-kagent-type", rev=R1, user=BOB, start=T0 + 15 * MINUTE, style="kagent",
             usage=("total",), total_shape="genai", timeline=False, title="Weather in Rome?")
    c.begin("Weather in Rome?")
    [call] = c.model([("get_weather", {"city": "Rome"})], prompt=141, completion=15)
    c.tools([(call, "get_weather", weather("Rome"))])
    c.model(text="Rome: sunny, 21 degrees Celsius.", prompt=187, completion=10)
    c.complete()
    convs.append(c)

    c = Conv("tool-results", rev=K1, user=ADMIN, start=T0 + 20 * MINUTE,
             usage=("artifact", "extension"), title="Which team-a pods are unhealthy?")
    c.begin("Which pods in team-a are unhealthy, and why?")
    pods, clock = c.model([("k8s_get_pods", {"namespace": "team-a"}), ("get_current_time", {})],
                          prompt=402, completion=41)
    c.tools([(pods, "k8s_get_pods", {"output": {"pods": [
                {"name": "api-7f9c", "status": "CrashLoopBackOff", "restarts": 12},
                {"name": "web-5d8b", "status": "Running", "restarts": 0}]}}),
             (clock, "get_current_time", {"result": "2026-11-20T09:20:02Z"})])
    [describe] = c.model([("k8s_describe_pod", {"namespace": "team-a", "name": "api-7f9"})],
                         prompt=530, completion=28)
    c.tools([(describe, "k8s_describe_pod",
              {"content": [{"type": "text", "text": 'pods "api-7f9" not found'}], "isError": True})])
    c.model(text="api-7f9c is in CrashLoopBackOff with 12 restarts; I could not describe it "
                 "(pod api-7f9 not found). web-5d8b is running.", prompt=601, completion=35)
    c.complete()
    convs.append(c)

    c = Conv("failed-llm-error", rev=K1, user=ADMIN, start=T0 + 25 * MINUTE,
             title="Why is api-7f9c crashing?")
    c.begin("Why is api-7f9c crashing?")
    [logs] = c.model([("k8s_get_pod_logs", {"namespace": "team-a", "name": "api-7f9c"})],
                     prompt=390, completion=30)
    c.tools([(logs, "k8s_get_pod_logs", {"output": {"logs": "panic: missing DATABASE_URL\n"}})])
    c.fail("429 Too Many Requests: rate limit exceeded, retry after 20s")
    convs.append(c)

    approval = Conv("approval", rev=R2, user=ALICE, start=T0 + 30 * MINUTE,
                    usage=("artifact", "extension"), title="Please delete /tmp/old.log")
    c = approval
    c.begin("Please delete /tmp/old.log")
    [call] = c.model([("delete_file", {"path": "/tmp/old.log"})], prompt=175, completion=17)
    c.ask_approval(call, "delete_file", {"path": "/tmp/old.log"})
    convs.append(c)

    two = Conv("two-turn", rev=R2, user=ADMIN, start=T0 + 32 * MINUTE,
               usage=("artifact", "extension"), title="What is the weather in Oslo?")
    c = two
    c.begin("What is the weather in Oslo?")
    [call] = c.model([("get_weather", {"city": "Oslo"})], prompt=181, completion=16)
    c.tools([(call, "get_weather", {"result": "Snow, -3 degrees Celsius in Oslo."})])
    c.model(text="It is snowing in Oslo, -3 degrees Celsius.", prompt=228, completion=13)
    c.complete()
    # The approval is given while the two-turn session runs: their rows interleave.
    approval.reply({"decision_type": "approve"}, pause_ms=150_000)
    approval.tools([(call_of(approval, "delete_file"), "delete_file", {"result": "Deleted /tmp/old.log."})])
    approval.model(text="Done: /tmp/old.log is deleted.", prompt=240, completion=9)
    approval.complete()
    c.begin("And in Paris?", pause_ms=8 * MINUTE // 1_000_000)
    [call] = c.model([("get_weather", {"city": "Paris"})], prompt=260, completion=16)
    c.tools([(call, "get_weather", weather("Paris"))])
    c.model(text="Paris is sunny, 21 degrees Celsius.", prompt=305, completion=11)
    c.complete()
    convs.append(c)

    c = Conv("forked", rev=R2, user=ADMIN, start=T0 + 45 * MINUTE,
             usage=("artifact", "extension"), title="What is the weather in Oslo?")
    c.flags.update(forked=True, source_checkpoint_id=uid("two-turn", "checkpoint", "1"),
                   forked_from=two.sid)
    c.record.source_checkpoint_id = c.flags["source_checkpoint_id"]
    c.copy_task(two, 0)
    c.begin("What about Berlin?", pause_ms=20_000)
    [call] = c.model([("get_weather", {"city": "Berlin"})], prompt=262, completion=16)
    c.tools([(call, "get_weather", {"result": "Cloudy, 9 degrees Celsius in Berlin."})])
    c.model(text="Berlin is cloudy, 9 degrees Celsius.", prompt=309, completion=11)
    c.complete()
    convs.append(c)

    c = Conv("deleted", rev=R1, user=ALICE, start=T0 + 50 * MINUTE, title="Weather in Tokyo?")
    c.begin("Weather in Tokyo?")
    [call] = c.model([("get_weather", {"city": "Tokyo"})], prompt=140, completion=15)
    c.tools([(call, "get_weather", weather("Tokyo"))])
    c.model(text="Tokyo is sunny, 21 degrees Celsius.", prompt=186, completion=11)
    c.complete()
    c.record.state = "RUNTIME_STATE_DELETED"
    c.record.deletion_reason = "user_requested"
    c.flags.update(deleted=True, deletion_reason="user_requested")
    convs.append(c)

    c = Conv("unpublished", rev=R2, user=BOB, start=T0 + 55 * MINUTE, title="Weather in Lisbon?")
    c.begin("Weather in Lisbon?")
    [call] = c.model([("get_weather", {"city": "Lisbon"})], prompt=180, completion=16)
    c.tools([(call, "get_weather", weather("Lisbon"))])
    c.model(text="Lisbon is sunny, 21 degrees Celsius.", prompt=227, completion=11)
    c.complete(published=False)
    convs.append(c)

    c = Conv("deleted-revision", rev=R0, user=ALICE, start=T0 + 60 * MINUTE, title="Hello, what can you do?")
    c.begin("Hello, what can you do?")
    c.model(text="I can look up the weather in any city for you.", prompt=98, completion=13)
    c.complete()
    convs.append(c)

    c = Conv("unknown-fields", rev=K1, user=ADMIN, start=T0 + 65 * MINUTE,
             usage=("artifact", "extension"), title="How many pods run in team-a?")
    c.unknown = {
        "task": k.unknown_varint_field(4242, 7),
        "result_part": k.unknown_bytes_field(4243, b"future-part-field"),
        "tool_event": k.unknown_bytes_field(4244, b"future-stream-response-field"),
    }
    c.flags["unknown_fields"] = [
        "Task field 4242 (varint 7): the creation event's task and session_task.data",
        "Part field 4243 (bytes): the tool result's function_response part",
        "StreamResponse field 4244 (bytes): the tool-result artifact_update row",
    ]
    c.begin("How many pods run in team-a?")
    [call] = c.model([("k8s_get_pods", {"namespace": "team-a"})], prompt=380, completion=20)
    c.tools([(call, "k8s_get_pods", {"output": {"pods": [
        {"name": "api-7f9c", "status": "Running", "restarts": 0},
        {"name": "web-5d8b", "status": "Running", "restarts": 0}]}})])
    c.model(text="Two pods run in team-a: api-7f9c and web-5d8b.", prompt=455, completion=15)
    c.complete()
    convs.append(c)

    c = Conv("other-harness", rev=C1, user=ALICE, start=T0 + 70 * MINUTE, usage=("status_message",),
             tool_activity="messages", title="List the pods in team-a")
    c.begin("List the pods in team-a")
    [call] = c.agent_message("I'll list them with kubectl.",
                             [("Bash", {"command": "kubectl get pods -n team-a"})], prompt=850, completion=60)
    c.status_tool_results([(call, "Bash", {"output": "NAME       READY   STATUS\napi-7f9c   1/1     Running\n"
                                                     "web-5d8b   1/1     Running\n"})])
    c.complete_in_status("There are two pods in team-a, api-7f9c and web-5d8b, both running.",
                         prompt=1020, completion=25, num_turns=2)
    convs.append(c)
    return convs


def call_of(conv: Conv, name: str) -> str:
    return [c["id"] for c in conv.cur["tool_calls"] if c["name"] == name][-1]


# --- SQL -------------------------------------------------------------------------------

HEADER = """-- Generated by tests/data/kagent-1.0/generate.py; do not edit (generate.py --check).
-- kagent 1.0 generation {GEN} rows; load after schema-{gen}.sql into an empty database.
-- bytea columns hold protobuf: session.data kagent.api.v1alpha1.Session,
-- session_task.data lf.a2a.v1.Task, session_task_event.data lf.a2a.v1.StreamResponse,
-- agent_revision.agent_card (runtime_revision.agent_card in B) lf.a2a.v1.AgentCard.
"""


def build():
    convs = conversations()
    built = []
    for index, conv in enumerate(convs):
        writer, txs = conv.rows()
        built.append((index, conv, writer, txs))

    # Task rows: the final projection, in creation order; event rows in time order
    # across sessions (the order a real database appends them in).
    task_rows, event_rows = [], []
    for index, conv, writer, txs in built:
        final = {}
        for tx, at in txs:
            final.setdefault(tx.task.id, [tx.task.created_at, index, None])[2] = tx.task
        for created, idx, row in final.values():
            task_rows.append((created, idx, row))
        for n, (tx, at) in enumerate(txs):
            for m, e in enumerate(tx.events):
                event_rows.append(((at, index, n, m), e))
    task_rows.sort(key=lambda r: (r[0], r[1]))
    event_rows.sort(key=lambda r: r[0])

    def tables(gen: str) -> str:
        out = [HEADER.format(GEN=gen.upper(), gen=gen)]
        revs = sorted(REVISIONS, key=lambda r: r.created_ns)
        out.append("-- revisions")
        for rev in revs:
            rows = rev.record().rows_c() if gen == "c" else rev.record().rows_b()
            out += [k.insert_sql(t, r) for t, r in rows]
        if gen == "c":
            out.append(k.insert_sql("runtime_revision", {
                "revision": SANDBOX_REVISION, "kind": "sandbox", "namespace": "team-a",
                "source_snapshot": k.Jsonb({"sandboxTemplate": {"apiVersion": API, "kind": "SandboxTemplate",
                                                                "metadata": {"namespace": "team-a",
                                                                             "name": "python-sandbox"}}}),
                "egress_destinations": k.TextArray([]), "credentials": None,
                "created_at": k.utc(T0 - 3 * 24 * 60 * MINUTE), "updated_at": k.utc(T0 - 3 * 24 * 60 * MINUTE),
                "deleted_at": None}))
        out.append("-- agents: latest_successful_revision of weather-agent is r2")
        for agent, rev in LATEST.items():
            first = min((r for r in REVISIONS if r.agent.name == agent), key=lambda r: r.created_ns)
            table, row = k.agent_definition_row(rev.agent.namespace, agent, rev.agent.uid, rev.revision,
                                                first.created_ns, rev.created_ns)
            out.append(k.insert_sql(table, row))
        out.append("-- sessions")
        for index, conv, writer, txs in built:
            out.append(f"-- {conv.key}: {conv.title}")
            rows = conv.record.rows_c() if gen == "c" else conv.record.rows_b()
            out += [k.insert_sql(t, r) for t, r in rows]
        if gen == "c":
            out.append("-- a sandbox: a runtime_instance that is not a Session")
            out.append(k.insert_sql("runtime_instance", {
                "id": SANDBOX_ID, "kind": "sandbox", "user_id": ADMIN, "request_id": "sandbox-1",
                "prepared_revision": SANDBOX_REVISION, "state": "RUNTIME_STATE_READY",
                "operation": "RUNTIME_OPERATION_NONE", "operation_id": None, "executor_id": None,
                "executor_expires_at": None}))
        out.append("-- tasks (final projections, in creation order)")
        out += [k.insert_sql("session_task", k.task_row_dict(row)) for _, _, row in task_rows]
        out.append("-- events (append order)")
        out += [k.insert_sql("session_task_event", k.event_row_dict(e)) for _, e in event_rows]
        return "\n".join(out) + "\n"

    expected = {
        "generated_by": "tests/data/kagent-1.0/generate.py",
        "note": "What the generator put into each Session, independent of any decoder. "
                "Sessions have the same ids in rows-b.sql and rows-c.sql.",
        "revisions": {rev.label: {"revision": rev.revision, "namespace": rev.agent.namespace,
                                  "agent": rev.agent.name, "model": rev.model,
                                  "system_prompt": rev.system_prompt,
                                  "deleted": rev.deleted_ns is not None,
                                  "latest_successful": LATEST[rev.agent.name] is rev}
                      for rev in REVISIONS},
        "agent_definitions": {f"{rev.agent.namespace}/{name}": {"latest_successful_revision": rev.label}
                              for name, rev in LATEST.items()},
        "not_sessions": {"c": [{"runtime_instance": SANDBOX_ID, "kind": "sandbox"}]},
        "sessions": {conv.sid: conv.expected(txs) | {"key": conv.key} for _, conv, _, txs in built},
    }
    return {
        "rows-c.sql": tables("c"),
        "rows-b.sql": tables("b"),
        "expected.json": json.dumps(expected, indent=1, ensure_ascii=False) + "\n",
    }


# --- scale mode --------------------------------------------------------------------------

def plan(n: int) -> list[int]:
    """Task lengths (rows) adding up to n: 7 (tool call) mostly, with 9 (two calls) and
    5 (no tool) mixed in; 4, 6 and 8 are the same without the working status update."""
    out, turn = [], 0
    while n > 12:
        length = (7, 9, 7, 5)[turn % 4]
        out.append(length)
        n -= length
        turn += 1
    if n <= 9:
        out.append(n)
    else:
        out += [n // 2, n - n // 2]
    return [x for x in out if x > 0]


CITIES = ["London", "Paris", "Berlin", "Madrid", "Rome", "Oslo", "Lisbon", "Dublin", "Vienna", "Prague",
          "Warsaw", "Athens"]


def scale(sessions: int, per_session: int, out: Path, load_url: str | None) -> None:
    started = time.monotonic()
    out.mkdir(parents=True, exist_ok=True)
    revs = [R2, K1]
    users = [ALICE, BOB, ADMIN] + [f"user{i}@example.com" for i in range(7)]
    files = {name: open(out / f"{name}.copy", "w", encoding="utf-8") for name in
             ("runtime_revision", "agent_revision", "agent_definition", "runtime_instance",
              "a2a_context", "session", "session_task", "session_task_event")}
    frames = open(out / "events.frames", "wb")
    columns = {
        "runtime_revision": ["revision", "kind", "namespace", "source_snapshot", "egress_destinations",
                             "credentials", "created_at", "updated_at", "deleted_at"],
        "agent_revision": ["revision", "agent_name", "agent_uid", "agent_card"],
        "agent_definition": ["namespace", "agent_name", "agent_uid", "desired_revision",
                             "latest_successful_revision", "retired_at", "created_at", "updated_at"],
        "runtime_instance": ["id", "kind", "user_id", "request_id", "prepared_revision", "state", "operation",
                             "operation_id", "executor_id", "executor_expires_at"],
        "a2a_context": ["id", "context_id"],
        "session": ["id", "data", "context_id", "history_id", "source_checkpoint_id", "pinned_checkpoint_id",
                    "actor_uid", "deletion_reason", "dispatch_id", "dispatch_expires_at"],
        "session_task": ["history_id", "id", "state", "status_timestamp", "data", "created_at", "position"],
        "session_task_event": ["history_id", "task_id", "data", "created_at", "message_id", "task_position",
                               "published"],
    }
    counts = dict.fromkeys(files, 0)

    def put(table: str, row: dict) -> None:
        files[table].write("\t".join(copy_text(row[c]) for c in columns[table]) + "\n")
        counts[table] += 1

    for rev in revs:
        for table, row in rev.record().rows_c():
            put(table, row)
        table, row = k.agent_definition_row(rev.agent.namespace, rev.agent.name, rev.agent.uid, rev.revision,
                                            rev.created_ns, rev.created_ns)
        put(table, row)

    position = 0
    events = 0
    for n in range(sessions):
        rev = revs[n % len(revs)]
        conv = Conv(f"scale/{n}", rev=rev, user=users[n % len(users)], start=T0 + n * 1_000_000_000,
                    usage=("artifact", "extension"), title="scale")
        tasks = plan(per_session)
        for t_index, length in enumerate(tasks):
            city = CITIES[(n + t_index) % len(CITIES)]
            mark = len(conv.updates)
            # rows: task event + user message (2), working (1), per tool: call + result (2),
            # answer (1), completed (1)
            tools = {1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: 1, 7: 1, 8: 2, 9: 2}[length]
            working = length in (5, 7, 9)
            conv.begin(f"What is the weather in {city}?", pause_ms=30_000)
            if not working:
                conv.updates.pop()
            for i in range(tools):
                [call] = conv.model([("get_weather", {"city": city})], prompt=180 + 40 * i, completion=16)
                conv.tools([(call, "get_weather", weather(city))])
            conv.model(text=f"It is sunny and 21 degrees Celsius in {city}.", prompt=230, completion=14)
            conv.complete()
            # updates -> rows: the first update is two rows; cut to `length` rows
            # (below 4 the task is left unfinished)
            del conv.updates[mark + max(length - 1, 1):]
        writer = k.HistoryWriter(conv.hid)
        final = {}
        session_events = []
        for update, at, published, _ in conv.updates:
            tx = writer.apply(update, at, published)
            if tx.task.new:
                position += 1
                final[tx.task.id] = [position, tx.task]
            else:
                final[tx.task.id][1] = tx.task
            for e in tx.events:
                session_events.append((e, final[tx.task.id][0]))
        conv.record.created_ns = conv.start
        conv.record.updated_ns = conv.updates[-1][1]
        conv.record.display_name = f"session {n}"
        for table, row in conv.record.rows_c():
            put(table, row)
        for pos, row in final.values():
            put("session_task", {**k.task_row_dict(row), "position": pos})
        for e, pos in session_events:
            row = k.event_row_dict(e)
            row["task_position"] = pos if e.creation else None
            put("session_task_event", row)
            frames.write(len(e.data).to_bytes(4, "little"))
            frames.write(e.data)
            events += 1
    for f in files.values():
        f.close()
    frames.close()
    manifest = {
        "generated_by": "tests/data/kagent-1.0/generate.py --scale",
        "sessions": sessions, "events_per_session": per_session, "events": events,
        "schema": "schema-c.sql (an empty database)",
        "tables": [{"table": t, "file": f"{t}.copy", "rows": counts[t],
                    "copy": f"COPY {t} ({', '.join(columns[t])}) FROM STDIN"} for t in files],
        "after": "SELECT setval(pg_get_serial_sequence('session_task', 'position'), "
                 "(SELECT max(position) FROM session_task))",
        "frames": {"file": "events.frames", "format": "u32 little-endian length, then that many bytes "
                                                       "(one session_task_event.data), repeated",
                   "count": events},
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"scale: {sessions} sessions, {events} events in {time.monotonic() - started:.1f} s -> {out}",
          file=sys.stderr)
    if load_url:
        load(out, manifest, load_url)


def copy_text(v) -> str:
    """A value in COPY's text format."""
    if v is None:
        return r"\N"
    if isinstance(v, bool):
        return "t" if v else "f"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, (bytes, bytearray)):
        return "\\\\x" + bytes(v).hex()
    if isinstance(v, k.datetime):
        return v.strftime("%Y-%m-%d %H:%M:%S.%f+00")
    if isinstance(v, k.Jsonb):
        v = json.dumps(v.obj, sort_keys=True, separators=(",", ":"))
    elif isinstance(v, k.TextArray):
        v = "{" + ",".join('"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"' for s in v.items) + "}"
    return str(v).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def load(out: Path, manifest: dict, url: str) -> None:
    import psycopg

    started = time.monotonic()
    with psycopg.connect(url) as conn:
        with conn.cursor() as cur:
            for table in manifest["tables"]:
                with cur.copy(table["copy"]) as cp, open(out / table["file"], "rb") as f:
                    while chunk := f.read(1 << 20):
                        cp.write(chunk)
            cur.execute(manifest["after"])
    print(f"scale: loaded in {time.monotonic() - started:.1f} s", file=sys.stderr)


# --- main ----------------------------------------------------------------------------------

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed files differ")
    parser.add_argument("--scale", type=int, metavar="SESSIONS")
    parser.add_argument("--events-per-session", type=int, default=20, metavar="N")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--load", metavar="DATABASE_URL", help="with --scale: load the files there")
    args = parser.parse_args()
    if args.scale is not None:
        if args.out is None:
            parser.error("--scale needs --out DIR")
        scale(args.scale, args.events_per_session, args.out, args.load)
        return 0
    files = build()
    if args.check:
        differing = [name for name, text in files.items()
                     if not (HERE / name).exists() or (HERE / name).read_text(encoding="utf-8") != text]
        for name in differing:
            print(f"generate.py --check: {HERE / name} differs from what generate.py writes", file=sys.stderr)
        return 1 if differing else 0
    for name, text in files.items():
        (HERE / name).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
