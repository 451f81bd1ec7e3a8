"""The rows kagent 1.0 writes for a conversation, from A2A v1 protobuf updates.

Used by generate.py (the committed fixtures and the scale data) and by
tests/a2a/agent_v1.py (a live agent persisting into PostgreSQL). Needs a2a-sdk 1.3.0
(`hack/python-env.sh a2a1`); everything else is the standard library and protobuf.

The write path follows §2.4 of /work/shared/docs/kagent-1.0-contract.md: every
runtime update (one `lf.a2a.v1.StreamResponse`) is one transaction that

1. archives history messages as `session_task_event` rows with `message_id` set
   (payload `message`): the message of a `Message` event, the `history` of a `Task`
   event, and the previous status message when a status update or a message replaces
   it (the message A2A moves from `status.message` into `history`);
2. upserts the projection `session_task.data`: the current `Task` with status,
   artifacts and metadata, and no history (the archived rows are the history);
3. appends the update itself as a `session_task_event` row,
   `StreamResponse.SerializeToString(deterministic=True)`; a new task's first row has
   `task_position` set.

Where the contract is silent this module chooses, and SOURCE.md says so: the
creation event is written before the task's history rows; a `Task` event is stored
without its `history`; a status update's metadata is merged into `Task.metadata` (as
a2a-sdk's TaskManager does), which is how the usage extension reaches the task.

`kagent.api.v1alpha1.Session` is not in any installed package, so `session_bytes`
encodes it with a message class made at import time from a hand-built descriptor
(`descriptor_pb2.FileDescriptorProto` -> private `DescriptorPool` ->
`message_factory.GetMessageClass`), from the field table in §5.4 of the contract.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterable

from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory
from google.protobuf import struct_pb2, timestamp_pb2

from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentProvider,
    AgentSkill,
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

# --- metadata keys (§4.4) ------------------------------------------------------------

PART_TYPE = "kagent.dev/a2a/part-type"
TIMELINE = "kagent.dev/a2a/timeline-position"
USAGE = "kagent.dev/a2a/usage"
USAGE_EXTENSION = "https://kagent.dev/extensions/usage/v1"
# Older 1.0 alphas, and the 0.10 Python runtimes.
ADK_TYPE = "adk_type"
KAGENT_TYPE = "kagent_type"
ADK_USAGE = "adk_usage_metadata"
USAGE_TOTAL = "kagent_usage_total"

PART_TYPE_KEYS = {"canonical": PART_TYPE, "adk": ADK_TYPE, "kagent": KAGENT_TYPE}

TERMINAL_STATES = {
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_CANCELED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_REJECTED,
}


# --- time ---------------------------------------------------------------------------

def utc(ns: int) -> datetime:
    """A nanosecond epoch time as an aware datetime (microseconds, as PostgreSQL keeps)."""
    seconds, micros = divmod(ns // 1000, 1_000_000)
    return datetime.fromtimestamp(seconds, tz=timezone.utc).replace(microsecond=micros)


def timestamp(ns: int) -> timestamp_pb2.Timestamp:
    return timestamp_pb2.Timestamp(seconds=ns // 1_000_000_000, nanos=ns % 1_000_000_000)


def rfc3339_nano(ns: int) -> str:
    """Go's time.RFC3339Nano in UTC: trailing zeros of the fraction trimmed."""
    seconds, nanos = divmod(ns, 1_000_000_000)
    base = datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    fraction = f"{nanos:09d}".rstrip("0")
    return f"{base}.{fraction}Z" if fraction else f"{base}Z"


def now_ns() -> int:
    return int(datetime.now(timezone.utc).timestamp() * 1_000_000) * 1000


# --- parts and messages ---------------------------------------------------------------

def value(obj: Any) -> struct_pb2.Value:
    v = struct_pb2.Value()
    json_format.ParseDict(obj, v)
    return v


def text_part(text: str, metadata: dict | None = None) -> Part:
    return Part(text=text, metadata=metadata)


def data_part(data: Any, part_type: str | None = None, style: str = "canonical",
              metadata: dict | None = None) -> Part:
    """A data part; `part_type` ('function_call', 'function_response', ...) goes under
    the key of `style`: 'canonical' (kagent.dev/a2a/part-type), 'adk' (adk_type) or
    'kagent' (kagent_type)."""
    meta = dict(metadata or {})
    if part_type is not None:
        meta[PART_TYPE_KEYS[style]] = part_type
    return Part(data=value(data), metadata=meta or None)


def function_call(call_id: str, name: str, args: dict, style: str = "canonical") -> Part:
    return data_part({"id": call_id, "name": name, "args": args}, "function_call", style)


def function_response(call_id: str, name: str, response: Any, style: str = "canonical") -> Part:
    return data_part({"id": call_id, "name": name, "response": response}, "function_response", style)


def genai_usage(prompt: int, completion: int) -> dict:
    """ADK UsageMetadata JSON, camelCase (the per-artifact `kagent.dev/a2a/usage`)."""
    return {"promptTokenCount": prompt, "candidatesTokenCount": completion,
            "totalTokenCount": prompt + completion}


def usage_extension(calls: Iterable[tuple[str, int, int]]) -> dict:
    """The `https://kagent.dev/extensions/usage/v1` value for a task's model calls,
    given as (model, prompt tokens, completion tokens). Zero counts are left out."""
    per_model: dict[str, list[int]] = {}
    for model, prompt, completion in calls:
        totals = per_model.setdefault(model, [0, 0])
        totals[0] += prompt
        totals[1] += completion
    prompt = sum(t[0] for t in per_model.values())
    completion = sum(t[1] for t in per_model.values())
    return {
        "inputTokens": prompt, "outputTokens": completion, "totalTokens": prompt + completion,
        "models": [{"model": m, "inputTokens": p, "outputTokens": c, "totalTokens": p + c}
                   for m, (p, c) in sorted(per_model.items())],
    }


def message(message_id: str, role: int, parts: list[Part], *, context_id: str = "",
            task_id: str = "", metadata: dict | None = None) -> Message:
    return Message(message_id=message_id, role=role, parts=parts, context_id=context_id,
                   task_id=task_id, metadata=metadata)


def with_unknown(msg, unknown: bytes):
    """A copy of a protobuf message carrying `unknown` (valid wire bytes of a field
    number the schema does not define) as an unknown field."""
    return type(msg).FromString(msg.SerializeToString(deterministic=True) + unknown)


def unknown_varint_field(number: int, val: int) -> bytes:
    return _varint(number << 3) + _varint(val)


def unknown_bytes_field(number: int, data: bytes) -> bytes:
    return _varint((number << 3) | 2) + _varint(len(data)) + data


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def serialize(msg) -> bytes:
    return msg.SerializeToString(deterministic=True)


# --- the write path (§2.4) -----------------------------------------------------------

@dataclass
class TaskRow:
    """`session_task`: inserted when `new`, else updated (state, timestamp, data)."""
    history_id: str
    id: str
    state: str
    status_timestamp: datetime | None
    data: bytes
    created_at: datetime
    new: bool


@dataclass
class EventRow:
    """`session_task_event`. `creation` marks the task-creation event, whose
    `task_position` is the task's `session_task.position` (known to the database)."""
    history_id: str
    task_id: str
    data: bytes
    created_at: datetime
    message_id: str | None = None
    creation: bool = False
    published: bool = True
    kind: str = ""  # the StreamResponse payload: task, message, status_update, artifact_update


@dataclass
class Transaction:
    """What one runtime update writes, in order: the task row goes first (so the
    creation event can refer to its position), then the event rows by sequence."""
    task: TaskRow
    events: list[EventRow]


def _status_ts(task: Task) -> datetime | None:
    if not task.status.HasField("timestamp"):
        return None
    ts = task.status.timestamp
    return utc(ts.seconds * 1_000_000_000 + ts.nanos)


def _archive(history_id: str, task_id: str, msg: Message, at: datetime, published: bool) -> EventRow:
    return EventRow(history_id, task_id, serialize(StreamResponse(message=msg)), at,
                    message_id=msg.message_id, published=published, kind="message")


def _apply_artifact(task: Task, event: TaskArtifactUpdateEvent) -> None:
    for existing in task.artifacts:
        if existing.artifact_id == event.artifact.artifact_id:
            if event.append:
                existing.parts.extend(event.artifact.parts)
                if event.artifact.metadata:
                    existing.metadata.MergeFrom(event.artifact.metadata)
            else:
                existing.CopyFrom(event.artifact)
            return
    task.artifacts.append(event.artifact)


def apply_update(history_id: str, projection: Task | None, update: StreamResponse, at_ns: int,
                 *, published: bool = True, archived: set[str] | None = None
                 ) -> tuple[Task, Transaction]:
    """One update applied to a task's projection (None: the task is new): the new
    projection and the rows the transaction writes. `archived` holds the message ids
    already archived for this task, to keep a re-sent history from repeating rows; it
    is updated in place."""
    at = utc(at_ns)
    archived = archived if archived is not None else set()
    kind = update.WhichOneof("payload")
    events: list[EventRow] = []
    if kind == "task":
        incoming = update.task
        task_id = incoming.id
        new = projection is None
        task = Task()
        task.CopyFrom(incoming)
        task.ClearField("history")
        stored = StreamResponse()
        stored.CopyFrom(update)
        stored.task.ClearField("history")
        events.append(EventRow(history_id, task_id, serialize(stored), at, creation=new,
                               published=published, kind=kind))
        for msg in incoming.history:
            if msg.message_id not in archived:
                archived.add(msg.message_id)
                events.append(_archive(history_id, task_id, msg, at, published))
    else:
        if kind == "message":
            task_id = update.message.task_id
        elif kind == "status_update":
            task_id = update.status_update.task_id
        elif kind == "artifact_update":
            task_id = update.artifact_update.task_id
        else:
            raise ValueError("empty StreamResponse")
        if projection is None:
            raise ValueError(f"{kind} for task {task_id}, which has no Task event yet")
        new = False
        task = Task()
        task.CopyFrom(projection)
        if kind in ("message", "status_update") and task.status.HasField("message"):
            previous = task.status.message
            if previous.message_id not in archived:
                archived.add(previous.message_id)
                events.append(_archive(history_id, task_id, previous, at, published))
            task.status.ClearField("message")
        if kind == "message":
            msg = update.message
            archived.add(msg.message_id)
            events.append(EventRow(history_id, task_id, serialize(update), at,
                                   message_id=msg.message_id, published=published, kind=kind))
        else:
            if kind == "status_update":
                status_update = update.status_update
                task.status.CopyFrom(status_update.status)
                if status_update.metadata:
                    task.metadata.MergeFrom(status_update.metadata)
            else:
                _apply_artifact(task, update.artifact_update)
            events.append(EventRow(history_id, task_id, serialize(update), at,
                                   published=published, kind=kind))
    row = TaskRow(history_id, task_id, TaskState.Name(task.status.state), _status_ts(task),
                  serialize(task), at, new)
    return task, Transaction(row, events)


class HistoryWriter:
    """The write path for one history (one Session), keeping projections in memory."""

    def __init__(self, history_id: str):
        self.history_id = history_id
        self.projections: dict[str, Task] = {}
        self.archived: dict[str, set[str]] = {}
        self.created: dict[str, datetime] = {}

    def apply(self, update: StreamResponse, at_ns: int, published: bool = True) -> Transaction:
        task_id = task_id_of(update)
        task, tx = apply_update(self.history_id, self.projections.get(task_id), update, at_ns,
                                published=published,
                                archived=self.archived.setdefault(task_id, set()))
        self.projections[task_id] = task
        self.created.setdefault(task_id, tx.task.created_at)
        tx.task.created_at = self.created[task_id]
        return tx


def task_id_of(update: StreamResponse) -> str:
    kind = update.WhichOneof("payload")
    if kind == "task":
        return update.task.id
    return getattr(update, kind).task_id


# --- kagent.api.v1alpha1.Session (§5.4), from a hand-built descriptor --------------

def _session_class():
    fd = descriptor_pb2.FileDescriptorProto(
        name="kagent/api/v1alpha1/sessions_fixture.proto",
        package="kagent.api.v1alpha1",
        syntax="proto3",
        dependency=["google/protobuf/timestamp.proto"],
    )
    F = descriptor_pb2.FieldDescriptorProto
    string, enum, msg = F.TYPE_STRING, F.TYPE_ENUM, F.TYPE_MESSAGE
    for name, values in (
        ("SessionState", ["UNSPECIFIED", "CREATING", "READY", "SUSPENDED", "FAILED",
                          "DELETING", "DELETED"]),
        ("SessionOperation", ["UNSPECIFIED", "CREATE", "SUSPEND", "RESUME", "DELETE"]),
    ):
        prefix = "SESSION_STATE_" if name == "SessionState" else "SESSION_OPERATION_"
        e = fd.enum_type.add(name=name)
        for number, v in enumerate(values):
            e.value.add(name=prefix + v, number=number)

    def add(message, name, number, type_, type_name=None):
        f = message.field.add(name=name, number=number, type=type_, label=F.LABEL_OPTIONAL)
        if type_name:
            f.type_name = type_name
        f.json_name = "".join(w if i == 0 else w.capitalize() for i, w in enumerate(name.split("_")))

    ref = fd.message_type.add(name="ResourceReference")
    add(ref, "namespace", 1, string)
    add(ref, "name", 2, string)
    failure = fd.message_type.add(name="Failure")
    add(failure, "reason", 1, string)
    add(failure, "message", 2, string)
    session = fd.message_type.add(name="Session")
    add(session, "id", 1, string)
    add(session, "creator", 2, string)
    add(session, "prepared_revision", 5, string)
    add(session, "a2a_authority", 6, string)
    add(session, "state", 7, enum, ".kagent.api.v1alpha1.SessionState")
    add(session, "operation", 8, enum, ".kagent.api.v1alpha1.SessionOperation")
    add(session, "failure", 9, msg, ".kagent.api.v1alpha1.Failure")
    add(session, "created_at", 10, msg, ".google.protobuf.Timestamp")
    add(session, "updated_at", 11, msg, ".google.protobuf.Timestamp")
    add(session, "name", 13, string)
    add(session, "context_id", 14, string)
    add(session, "agent", 15, msg, ".kagent.api.v1alpha1.ResourceReference")
    for lo, hi in ((3, 5), (12, 13)):  # 3 harness, 4 agent_template, 12 labels
        session.reserved_range.add(start=lo, end=hi)

    pool = descriptor_pool.DescriptorPool()
    pool.Add(descriptor_pb2.FileDescriptorProto.FromString(
        timestamp_pb2.DESCRIPTOR.serialized_pb))
    pool.Add(fd)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("kagent.api.v1alpha1.Session"))


Session = _session_class()


def session_bytes(*, session_id: str, creator: str, namespace: str, name: str,
                  prepared_revision: str | None, state: str, created_ns: int, updated_ns: int,
                  display_name: str = "", operation: str = "SESSION_OPERATION_UNSPECIFIED",
                  failure: tuple[str, str] | None = None) -> bytes:
    """`session.data`. `state` is a SessionState name (SESSION_STATE_READY, ...)."""
    s = Session(id=session_id, creator=creator, context_id=session_id, name=display_name)
    s.agent.namespace = namespace
    s.agent.name = name
    if prepared_revision:
        s.prepared_revision = prepared_revision
    s.state = Session.DESCRIPTOR.fields_by_name["state"].enum_type.values_by_name[state].number
    s.operation = Session.DESCRIPTOR.fields_by_name["operation"].enum_type.values_by_name[operation].number
    if failure:
        s.failure.reason, s.failure.message = failure
    # The private pool has its own Timestamp class, so the fields are set one by one.
    s.created_at.seconds, s.created_at.nanos = divmod(created_ns, 1_000_000_000)
    s.updated_at.seconds, s.updated_at.nanos = divmod(updated_ns, 1_000_000_000)
    return serialize(s)


def decode_session(data: bytes) -> dict:
    return json_format.MessageToDict(Session.FromString(data))


# --- runtime state names -----------------------------------------------------------

RUNTIME_TO_SESSION_STATE = {
    "RUNTIME_STATE_CREATING": "SESSION_STATE_CREATING",
    "RUNTIME_STATE_READY": "SESSION_STATE_READY",
    "RUNTIME_STATE_SUSPENDED": "SESSION_STATE_SUSPENDED",
    "RUNTIME_STATE_FAILED": "SESSION_STATE_FAILED",
    "RUNTIME_STATE_DELETING": "SESSION_STATE_DELETING",
    "RUNTIME_STATE_DELETED": "SESSION_STATE_DELETED",
}


# --- agent card and revision rows --------------------------------------------------

def agent_card(namespace: str, name: str, description: str, base_url: str,
               protocol_versions: Iterable[str] = ("1.0",), version: str = "1.0.0",
               skills: Iterable[tuple[str, str]] = ()) -> AgentCard:
    """An A2A v1 card for /agents/{namespace}/{name}: one JSON-RPC interface per
    protocol version offered."""
    url = f"{base_url.rstrip('/')}/agents/{namespace}/{name}"
    return AgentCard(
        name=name,
        description=description,
        supported_interfaces=[AgentInterface(url=url, protocol_binding="JSONRPC",
                                             protocol_version=v) for v in protocol_versions],
        provider=AgentProvider(organization="kagent-evals tests", url="https://kagent.dev"),
        version=version,
        capabilities=AgentCapabilities(streaming=True, push_notifications=False),
        default_input_modes=["text"],
        default_output_modes=["text"],
        skills=[AgentSkill(id=sid, name=sid, description=desc, tags=["test"])
                for sid, desc in skills] or [AgentSkill(id=name, name=name, description=description,
                                                        tags=["test"])],
    )


@dataclass
class Revision:
    """One compiled revision of an Agent: the rows of runtime_revision and
    agent_revision (generation C), or runtime_revision alone (generation B)."""
    revision: str
    namespace: str
    agent_name: str
    agent_uid: str
    source_snapshot: dict
    agent_card: bytes
    created_ns: int
    deleted_ns: int | None = None
    egress_destinations: list[str] = field(default_factory=list)

    def rows_c(self) -> list[tuple[str, dict]]:
        return [
            ("runtime_revision", {
                "revision": self.revision, "kind": "agent", "namespace": self.namespace,
                "source_snapshot": Jsonb(self.source_snapshot),
                "egress_destinations": TextArray(self.egress_destinations),
                "credentials": None,
                "created_at": utc(self.created_ns), "updated_at": utc(self.deleted_ns or self.created_ns),
                "deleted_at": utc(self.deleted_ns) if self.deleted_ns else None,
            }),
            ("agent_revision", {
                "revision": self.revision, "agent_name": self.agent_name,
                "agent_uid": self.agent_uid, "agent_card": self.agent_card,
            }),
        ]

    def rows_b(self) -> list[tuple[str, dict]]:
        return [("runtime_revision", {
            "revision": self.revision, "namespace": self.namespace,
            "agent_name": self.agent_name, "agent_uid": self.agent_uid,
            "agent_card": self.agent_card,
            "source_snapshot": Jsonb(self.source_snapshot),
            "egress_destinations": TextArray(self.egress_destinations),
            "credentials": None,
            "created_at": utc(self.created_ns), "updated_at": utc(self.deleted_ns or self.created_ns),
            "deleted_at": utc(self.deleted_ns) if self.deleted_ns else None,
        })]


def agent_definition_row(namespace: str, name: str, uid: str, latest: str, created_ns: int,
                         updated_ns: int, desired: str | None = None) -> tuple[str, dict]:
    return ("agent_definition", {
        "namespace": namespace, "agent_name": name, "agent_uid": uid,
        "desired_revision": desired or latest, "latest_successful_revision": latest,
        "retired_at": None, "created_at": utc(created_ns), "updated_at": utc(updated_ns),
    })


@dataclass
class SessionRecord:
    """A Session's own rows (not its tasks)."""
    session_id: str
    history_id: str
    user_id: str
    namespace: str
    agent_name: str
    revision: str           # pinned at creation
    state: str = "RUNTIME_STATE_READY"
    created_ns: int = 0
    updated_ns: int = 0
    display_name: str = ""
    request_id: str | None = None
    source_checkpoint_id: str | None = None
    deletion_reason: str | None = None

    @property
    def deleted(self) -> bool:
        return self.state == "RUNTIME_STATE_DELETED"

    def data(self) -> bytes:
        # The payload keeps the revision it was created with; the column is what
        # deletion clears (the store overwrites payload fields from columns on read).
        return session_bytes(session_id=self.session_id, creator=self.user_id,
                             namespace=self.namespace, name=self.agent_name,
                             prepared_revision=self.revision,
                             state=RUNTIME_TO_SESSION_STATE[self.state],
                             created_ns=self.created_ns, updated_ns=self.updated_ns,
                             display_name=self.display_name)

    def _session_columns(self) -> dict:
        return {
            "data": self.data(), "context_id": self.session_id, "history_id": self.history_id,
            "source_checkpoint_id": self.source_checkpoint_id, "pinned_checkpoint_id": None,
            "actor_uid": None, "deletion_reason": self.deletion_reason,
            "dispatch_id": None, "dispatch_expires_at": None,
        }

    def rows_c(self) -> list[tuple[str, dict]]:
        return [
            ("runtime_instance", {
                "id": self.session_id, "kind": "agent", "user_id": self.user_id,
                "request_id": self.request_id,
                "prepared_revision": None if self.deleted else self.revision,
                "state": self.state, "operation": "RUNTIME_OPERATION_NONE",
                "operation_id": None, "executor_id": None, "executor_expires_at": None,
            }),
            ("a2a_context", {"id": self.history_id, "context_id": self.session_id}),
            ("session", {"id": self.session_id, **self._session_columns()}),
        ]

    def rows_b(self) -> list[tuple[str, dict]]:
        return [
            ("a2a_context", {"id": self.history_id, "context_id": self.session_id}),
            ("session", {
                "id": self.session_id, "user_id": self.user_id, "request_id": self.request_id,
                "prepared_revision": None if self.deleted else self.revision,
                "state": RUNTIME_TO_SESSION_STATE[self.state], "operation": "SESSION_OPERATION_NONE",
                **self._session_columns(),
            }),
        ]


# --- SQL text ------------------------------------------------------------------------

class Jsonb:
    def __init__(self, obj):
        self.obj = obj


class TextArray:
    def __init__(self, items):
        self.items = list(items)


class Sql:
    """A literal SQL expression (a subquery)."""
    def __init__(self, text):
        self.text = text


def sql_literal(v) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, (bytes, bytearray)):
        return f"decode('{bytes(v).hex()}', 'hex')"
    if isinstance(v, datetime):
        return "'" + v.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f+00") + "'"
    if isinstance(v, Jsonb):
        return sql_string(json.dumps(v.obj, sort_keys=True, separators=(",", ":"))) + "::jsonb"
    if isinstance(v, TextArray):
        return "ARRAY[" + ", ".join(sql_string(s) for s in v.items) + "]::text[]" if v.items else "'{}'::text[]"
    if isinstance(v, Sql):
        return v.text
    return sql_string(str(v))


def sql_string(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def insert_sql(table: str, row: dict) -> str:
    cols = ", ".join(row)
    vals = ", ".join(sql_literal(v) for v in row.values())
    return f"INSERT INTO {table} ({cols}) VALUES ({vals});"


def task_row_dict(t: TaskRow) -> dict:
    return {"history_id": t.history_id, "id": t.id, "state": t.state,
            "status_timestamp": t.status_timestamp, "data": t.data, "created_at": t.created_at}


def event_row_dict(e: EventRow) -> dict:
    position = None
    if e.creation:
        position = Sql(f"(SELECT position FROM session_task WHERE history_id = "
                       f"{sql_string(e.history_id)} AND id = {sql_string(e.task_id)})")
    return {"history_id": e.history_id, "task_id": e.task_id, "data": e.data,
            "created_at": e.created_at, "message_id": e.message_id, "task_position": position,
            "published": e.published}


# --- PostgreSQL (psycopg 3), for the live agent ---------------------------------------

def write_transaction(conn, tx: Transaction) -> None:
    """Writes one update's rows in the caller's open transaction (psycopg 3)."""
    t = tx.task
    with conn.cursor() as cur:
        if t.new:
            cur.execute(
                "INSERT INTO session_task (history_id, id, state, status_timestamp, data, created_at)"
                " VALUES (%s, %s, %s, %s, %s, %s) RETURNING position",
                (t.history_id, t.id, t.state, t.status_timestamp, t.data, t.created_at))
        else:
            cur.execute(
                "UPDATE session_task SET state = %s, status_timestamp = %s, data = %s"
                " WHERE history_id = %s AND id = %s RETURNING position",
                (t.state, t.status_timestamp, t.data, t.history_id, t.id))
        position = cur.fetchone()[0]
        for e in tx.events:
            cur.execute(
                "INSERT INTO session_task_event (history_id, task_id, data, created_at, message_id,"
                " task_position, published) VALUES (%s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (history_id, task_id, message_id) DO NOTHING",
                (e.history_id, e.task_id, e.data, e.created_at, e.message_id,
                 position if e.creation else None, e.published))


def load_projection(conn, history_id: str, task_id: str) -> Task | None:
    """The stored projection of a task, locked for the transaction (psycopg 3)."""
    with conn.cursor() as cur:
        cur.execute("SELECT data FROM session_task WHERE history_id = %s AND id = %s FOR UPDATE",
                    (history_id, task_id))
        row = cur.fetchone()
    return Task.FromString(bytes(row[0])) if row else None


def insert_rows(conn, rows: list[tuple[str, dict]], on_conflict: str = "DO NOTHING") -> None:
    """Plain INSERTs of (table, columns) pairs (psycopg 3)."""
    from psycopg.types.json import Jsonb as PgJsonb  # only the live agent needs psycopg

    with conn.cursor() as cur:
        for table, row in rows:
            params = []
            for v in row.values():
                if isinstance(v, Jsonb):
                    v = PgJsonb(v.obj)
                elif isinstance(v, TextArray):
                    v = v.items
                params.append(v)
            cols = ", ".join(row)
            marks = ", ".join(["%s"] * len(row))
            cur.execute(f"INSERT INTO {table} ({cols}) VALUES ({marks}) ON CONFLICT {on_conflict}",
                        params)


__all__ = [
    "Artifact", "Message", "Part", "Role", "StreamResponse", "Task", "TaskArtifactUpdateEvent",
    "TaskState", "TaskStatus", "TaskStatusUpdateEvent",
]
