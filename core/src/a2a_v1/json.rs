//! Decoded A2A v1 messages as their proto3 JSON (camelCase names, enum
//! names as strings, no `kind`, default values left out): the form the
//! JSON-RPC binding speaks, committed fixtures hold, and the rest of the
//! reader works on. `google.protobuf.Struct` and `Value` become JSON.

use super::proto::*;
use crate::read_limits::ReadLimits;
use base64::Engine;
use serde_json::{Map, Number, Value as Json, json};
use std::collections::HashSet;

/// Why bytes are not the message they should be: prost's account of the
/// field it failed in, and where the top-level framing breaks when it does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeFailure {
    pub message: String,
    pub offset: Option<usize>,
}

impl std::fmt::Display for DecodeFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.offset {
            Some(offset) => write!(f, "{} (at byte {offset})", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// JSON cannot hold what some values were, said once per value; and why a
/// `Struct` or `Value` inside could not be read at all.
#[derive(Default)]
pub struct Losses {
    pub notes: Vec<String>,
    unreadable: Option<String>,
}

/// The messages a row's elements are, as [`elements`] walks them: A2A's
/// own, and the `google.protobuf.Struct` and `Value` inside them.
#[derive(Clone, Copy)]
enum Shape {
    Task,
    Status,
    Message,
    Artifact,
    Part,
    StreamResponse,
    StatusUpdate,
    ArtifactUpdate,
    Struct,
    Entry,
    Value,
    List,
}

impl Shape {
    /// The element in field `field` of this one, if it holds one.
    fn child(self, field: u64) -> Option<Shape> {
        use Shape::*;
        Some(match (self, field) {
            (Task, 3) | (StatusUpdate, 3) => Status,
            (Task, 4) | (ArtifactUpdate, 3) => Artifact,
            (Task, 5) | (Status, 2) | (StreamResponse, 2) => Message,
            (Message, 5) | (Artifact, 4) => Part,
            (StreamResponse, 1) => Task,
            (StreamResponse, 3) => StatusUpdate,
            (StreamResponse, 4) => ArtifactUpdate,
            (Task, 6)
            | (Message, 6)
            | (Artifact, 5)
            | (Part, 5)
            | (StatusUpdate, 4)
            | (ArtifactUpdate, 6)
            | (Value, 5) => Struct,
            (Struct, 1) => Entry,
            (Part, 4) | (Entry, 2) | (List, 1) => Value,
            (Value, 6) => List,
            _ => return None,
        })
    }
}

/// Count the elements of `bytes`, a `shape`, into `count`, on the wire
/// alone, before anything is allocated for them; stops past `limit`.
/// Framing errors and nesting past what the decoder accepts end the count
/// quietly: the decoder says what is wrong.
fn elements(bytes: &[u8], shape: Shape, depth: usize, count: &mut u64, limit: u64) {
    *count += 1;
    if *count > limit || depth > 3 * MAX_NESTING + 8 {
        return;
    }
    let mut wire = Wire::new(bytes);
    while let Ok(Some((field, kind))) = wire.field() {
        if kind != DELIMITED {
            if wire.skip(kind).is_err() {
                return;
            }
            continue;
        }
        let Ok(inner) = wire.delimited() else { return };
        if let Some(child) = shape.child(field) {
            elements(inner, child, depth + 1, count, limit);
            if *count > limit {
                return;
            }
        }
    }
}

fn decode<M: prost::Message + Default>(bytes: &[u8], what: &str) -> Result<M, DecodeFailure> {
    M::decode(bytes).map_err(|e| DecodeFailure {
        message: format!("not a protobuf {what}: {e}"),
        offset: broken_framing(bytes),
    })
}

/// A row read as JSON by `read`, failing as a whole when a `Struct` or
/// `Value` in it could not be read.
fn row<M: prost::Message + Default>(
    bytes: &[u8],
    (what, shape): (&str, Shape),
    limits: &ReadLimits,
    losses: &mut Losses,
    read: impl FnOnce(&M, &mut Losses) -> Json,
) -> Result<Json, DecodeFailure> {
    limits
        .check_protobuf(bytes, |limit| {
            let mut count = 0;
            elements(bytes, shape, 0, &mut count, limit);
            count
        })
        .map_err(|message| DecodeFailure {
            message,
            offset: None,
        })?;
    let message = decode::<M>(bytes, what)?;
    let json = read(&message, losses);
    match losses.unreadable.take() {
        None => Ok(json),
        Some(why) => Err(DecodeFailure {
            message: format!("not a protobuf {what}: {why}"),
            offset: None,
        }),
    }
}

/// `session_task.data`: a `lf.a2a.v1.Task`.
pub fn task_from_bytes(
    bytes: &[u8],
    limits: &ReadLimits,
    losses: &mut Losses,
) -> Result<Json, DecodeFailure> {
    row(bytes, ("lf.a2a.v1.Task", Shape::Task), limits, losses, task)
}

/// How much of an update row is made JSON.
#[derive(Clone, Copy)]
pub enum Reading<'a> {
    /// All of it, as `capture` keeps it.
    Whole,
    /// What `timeline::task_with_history` reads of it, and no more: an
    /// artifact update of an artifact its task's projection holds (these
    /// artifact ids, the projection's of the row's task) gives its id and
    /// `append`, as the projection gives the artifact; a status update
    /// its message's id; a task snapshot its id. The row is decoded all
    /// the same (a row that does not decode fails its Session); a test
    /// below holds both readings to the same conversation.
    ForTimeline(Option<&'a HashSet<&'a str>>),
}

/// `session_task_event.data`: a `lf.a2a.v1.StreamResponse`, read as far
/// as `reading` says.
pub fn stream_response_from_bytes(
    bytes: &[u8],
    limits: &ReadLimits,
    losses: &mut Losses,
    reading: Reading<'_>,
) -> Result<Json, DecodeFailure> {
    let projects = |artifact: &Option<Artifact>| match (reading, artifact) {
        (Reading::ForTimeline(Some(ids)), Some(a)) => ids.contains(a.artifact_id.as_str()),
        _ => false,
    };
    let placed = matches!(reading, Reading::ForTimeline(_));
    row(
        bytes,
        ("lf.a2a.v1.StreamResponse", Shape::StreamResponse),
        limits,
        losses,
        |r: &StreamResponse, losses| match &r.payload {
            Some(Payload::ArtifactUpdate(u)) if projects(&u.artifact) => {
                let id = u.artifact.as_ref().map(|a| a.artifact_id.as_str());
                json!({"artifactUpdate": {"artifact": {"artifactId": id}, "append": u.append}})
            }
            Some(Payload::StatusUpdate(u)) if placed => {
                let id = u
                    .status
                    .as_ref()
                    .and_then(|s| s.message.as_ref())
                    .map(|m| m.message_id.as_str());
                json!({"statusUpdate": {"status": {"message": {"messageId": id}}}})
            }
            Some(Payload::Task(t)) if placed => json!({"task": {"id": t.id}}),
            _ => stream_response(r, losses),
        },
    )
}

/// `session.data`: a `kagent.api.v1alpha1.Session`.
pub fn session_from_bytes(bytes: &[u8]) -> Result<Json, DecodeFailure> {
    decode::<Session>(bytes, "kagent.api.v1alpha1.Session").map(|s| session(&s))
}

/// The offset of the first top-level field whose key or length does not
/// fit the bytes, if the framing breaks there (a field deeper in may be at
/// fault instead: prost's message names it).
fn broken_framing(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    while at < bytes.len() {
        let start = at;
        let key = varint(bytes, &mut at)?;
        let length = match key & 7 {
            0 => varint(bytes, &mut at).map(|_| 0),
            1 => Some(8),
            2 => varint(bytes, &mut at),
            5 => Some(4),
            _ => None,
        };
        match length {
            Some(length)
                if at
                    .checked_add(length as usize)
                    .is_some_and(|end| end <= bytes.len()) =>
            {
                at += length as usize;
            }
            _ => return Some(start),
        }
    }
    None
}

fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

fn insert(map: &mut Map<String, Json>, key: &str, value: Json) {
    let empty = match &value {
        Json::Null => true,
        Json::String(s) => s.is_empty(),
        Json::Array(a) => a.is_empty(),
        Json::Bool(b) => !b,
        _ => false,
    };
    if !empty {
        map.insert(key.to_string(), value);
    }
}

fn timestamp(t: &prost_types::Timestamp) -> Json {
    match jiff::Timestamp::new(t.seconds, t.nanos) {
        Ok(t) => json!(t.to_string()),
        Err(_) => Json::Null,
    }
}

pub fn task(t: &Task, losses: &mut Losses) -> Json {
    let mut map = Map::new();
    insert(&mut map, "id", json!(t.id));
    insert(&mut map, "contextId", json!(t.context_id));
    if let Some(status) = &t.status {
        map.insert("status".into(), task_status(status, losses));
    }
    let artifacts: Vec<Json> = t.artifacts.iter().map(|a| artifact(a, losses)).collect();
    insert(&mut map, "artifacts", Json::Array(artifacts));
    let history: Vec<Json> = t.history.iter().map(|m| message(m, losses)).collect();
    insert(&mut map, "history", Json::Array(history));
    if let Some(metadata) = &t.metadata {
        map.insert("metadata".into(), structure(metadata, losses));
    }
    Json::Object(map)
}

fn task_status(s: &TaskStatus, losses: &mut Losses) -> Json {
    let mut map = Map::new();
    map.insert(
        "state".into(),
        enum_name(
            TaskState::try_from(s.state).map(TaskState::proto_name),
            s.state,
        ),
    );
    if let Some(m) = &s.message {
        map.insert("message".into(), message(m, losses));
    }
    if let Some(t) = &s.timestamp {
        insert(&mut map, "timestamp", timestamp(t));
    }
    Json::Object(map)
}

/// An enum by name, or by number when this reader does not know it (as
/// proto3 JSON prints an unknown value).
fn enum_name(name: Result<&'static str, prost::UnknownEnumValue>, number: i32) -> Json {
    match name {
        Ok(name) => json!(name),
        Err(_) => json!(number),
    }
}

pub fn message(m: &Message, losses: &mut Losses) -> Json {
    let mut map = Map::new();
    insert(&mut map, "messageId", json!(m.message_id));
    insert(&mut map, "contextId", json!(m.context_id));
    insert(&mut map, "taskId", json!(m.task_id));
    map.insert(
        "role".into(),
        enum_name(Role::try_from(m.role).map(Role::proto_name), m.role),
    );
    let parts: Vec<Json> = m.parts.iter().map(|p| part(p, losses)).collect();
    map.insert("parts".into(), Json::Array(parts));
    if let Some(metadata) = &m.metadata {
        map.insert("metadata".into(), structure(metadata, losses));
    }
    insert(&mut map, "extensions", json!(m.extensions));
    insert(&mut map, "referenceTaskIds", json!(m.reference_task_ids));
    Json::Object(map)
}

fn part(p: &Part, losses: &mut Losses) -> Json {
    let mut map = Map::new();
    match &p.content {
        Some(PartContent::Text(text)) => {
            map.insert("text".into(), json!(text));
        }
        Some(PartContent::Raw(bytes)) => {
            map.insert(
                "raw".into(),
                json!(base64::engine::general_purpose::STANDARD.encode(bytes)),
            );
        }
        Some(PartContent::Url(url)) => {
            map.insert("url".into(), json!(url));
        }
        Some(PartContent::Data(value)) => {
            map.insert("data".into(), value_json(value, losses));
        }
        None => {}
    }
    if let Some(metadata) = &p.metadata {
        map.insert("metadata".into(), structure(metadata, losses));
    }
    insert(&mut map, "filename", json!(p.filename));
    insert(&mut map, "mediaType", json!(p.media_type));
    Json::Object(map)
}

pub fn artifact(a: &Artifact, losses: &mut Losses) -> Json {
    let mut map = Map::new();
    insert(&mut map, "artifactId", json!(a.artifact_id));
    insert(&mut map, "name", json!(a.name));
    insert(&mut map, "description", json!(a.description));
    let parts: Vec<Json> = a.parts.iter().map(|p| part(p, losses)).collect();
    map.insert("parts".into(), Json::Array(parts));
    if let Some(metadata) = &a.metadata {
        map.insert("metadata".into(), structure(metadata, losses));
    }
    insert(&mut map, "extensions", json!(a.extensions));
    Json::Object(map)
}

pub fn stream_response(r: &StreamResponse, losses: &mut Losses) -> Json {
    match &r.payload {
        Some(Payload::Task(t)) => wrapped("task", task(t, losses)),
        Some(Payload::Message(m)) => wrapped("message", message(m, losses)),
        Some(Payload::StatusUpdate(u)) => {
            let mut map = Map::new();
            insert(&mut map, "taskId", json!(u.task_id));
            insert(&mut map, "contextId", json!(u.context_id));
            if let Some(status) = &u.status {
                map.insert("status".into(), task_status(status, losses));
            }
            if let Some(metadata) = &u.metadata {
                map.insert("metadata".into(), structure(metadata, losses));
            }
            wrapped("statusUpdate", Json::Object(map))
        }
        Some(Payload::ArtifactUpdate(u)) => {
            let mut map = Map::new();
            insert(&mut map, "taskId", json!(u.task_id));
            insert(&mut map, "contextId", json!(u.context_id));
            if let Some(a) = &u.artifact {
                map.insert("artifact".into(), artifact(a, losses));
            }
            insert(&mut map, "append", json!(u.append));
            insert(&mut map, "lastChunk", json!(u.last_chunk));
            if let Some(metadata) = &u.metadata {
                map.insert("metadata".into(), structure(metadata, losses));
            }
            wrapped("artifactUpdate", Json::Object(map))
        }
        None => json!({}),
    }
}

/// `{key: value}`, the value moved in (`json!` would copy it whole).
fn wrapped(key: &str, value: Json) -> Json {
    let mut map = Map::new();
    map.insert(key.into(), value);
    Json::Object(map)
}

pub fn session(s: &Session) -> Json {
    let mut map = Map::new();
    insert(&mut map, "id", json!(s.id));
    insert(&mut map, "creator", json!(s.creator));
    if let Some(agent) = &s.agent {
        map.insert(
            "agent".into(),
            json!({"namespace": agent.namespace, "name": agent.name}),
        );
    }
    insert(&mut map, "preparedRevision", json!(s.prepared_revision));
    insert(&mut map, "name", json!(s.name));
    if let Some(t) = &s.created_at {
        insert(&mut map, "createdAt", timestamp(t));
    }
    if let Some(t) = &s.updated_at {
        insert(&mut map, "updatedAt", timestamp(t));
    }
    if let Some(failure) = &s.failure {
        map.insert(
            "failure".into(),
            json!({"reason": failure.reason, "message": failure.message}),
        );
    }
    Json::Object(map)
}

/// Objects and lists a `Struct` or `Value` may nest: far beyond what a
/// tool's arguments hold, and shallow enough for any thread's stack.
pub const MAX_NESTING: usize = 256;

/// A `Struct`'s bytes as a JSON object; `Null` with the reason recorded
/// when they cannot be read.
fn structure(bytes: &[u8], losses: &mut Losses) -> Json {
    guarded(losses, |losses| struct_json(bytes, 0, losses))
}

/// A `Value`'s bytes as JSON, likewise.
fn value_json(bytes: &[u8], losses: &mut Losses) -> Json {
    guarded(losses, |losses| wire_value(bytes, 0, losses))
}

fn guarded(losses: &mut Losses, read: impl FnOnce(&mut Losses) -> Result<Json, String>) -> Json {
    read(losses).unwrap_or_else(|why| {
        losses.unreadable.get_or_insert(why);
        Json::Null
    })
}

/// The protobuf wire format, as `Struct`, `Value` and `ListValue` use it.
struct Wire<'b> {
    bytes: &'b [u8],
    at: usize,
}

const VARINT: u64 = 0;
const FIXED64: u64 = 1;
const DELIMITED: u64 = 2;
const FIXED32: u64 = 5;

impl<'b> Wire<'b> {
    fn new(bytes: &'b [u8]) -> Self {
        Wire { bytes, at: 0 }
    }

    fn varint(&mut self) -> Result<u64, String> {
        varint(self.bytes, &mut self.at).ok_or_else(|| "a varint runs past the end".to_string())
    }

    /// The next field's number and wire type.
    fn field(&mut self) -> Result<Option<(u64, u64)>, String> {
        if self.at >= self.bytes.len() {
            return Ok(None);
        }
        let key = self.varint()?;
        Ok(Some((key >> 3, key & 7)))
    }

    fn take(&mut self, n: usize) -> Result<&'b [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|end| *end <= self.bytes.len())
            .ok_or_else(|| "a field runs past the end".to_string())?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn delimited(&mut self) -> Result<&'b [u8], String> {
        let n = self.varint()?;
        self.take(usize::try_from(n).map_err(|_| "a length past any size".to_string())?)
    }

    fn skip(&mut self, wire: u64) -> Result<(), String> {
        match wire {
            VARINT => self.varint().map(drop),
            FIXED64 => self.take(8).map(drop),
            DELIMITED => self.delimited().map(drop),
            FIXED32 => self.take(4).map(drop),
            other => Err(format!("wire type {other} in a google.protobuf.Value")),
        }
    }
}

fn text(bytes: &[u8]) -> Result<String, String> {
    String::from_utf8(bytes.to_vec()).map_err(|_| "a string that is not UTF-8".to_string())
}

fn deeper(depth: usize) -> Result<usize, String> {
    match depth + 1 {
        d if d > MAX_NESTING => Err(format!(
            "objects and lists nested deeper than {MAX_NESTING} levels"
        )),
        d => Ok(d),
    }
}

/// `Struct { map<string, Value> fields = 1 }`: entries have no order on
/// the wire, so keys are sorted; a repeated key keeps its last value.
fn struct_json(bytes: &[u8], depth: usize, losses: &mut Losses) -> Result<Json, String> {
    let mut fields = Vec::new();
    let mut wire = Wire::new(bytes);
    while let Some((number, kind)) = wire.field()? {
        if (number, kind) != (1, DELIMITED) {
            wire.skip(kind)?;
            continue;
        }
        let mut entry = Wire::new(wire.delimited()?);
        let (mut key, mut value) = (String::new(), Json::Null);
        while let Some((number, kind)) = entry.field()? {
            match (number, kind) {
                (1, DELIMITED) => key = text(entry.delimited()?)?,
                (2, DELIMITED) => value = wire_value(entry.delimited()?, depth, losses)?,
                _ => entry.skip(kind)?,
            }
        }
        fields.push((key, value));
    }
    // Stable, and a key collected twice keeps the later value.
    fields.sort_by(|(a, _), (b, _)| a.cmp(b));
    Ok(Json::Object(fields.into_iter().collect()))
}

/// The largest integer a double holds exactly.
const EXACT: f64 = 9_007_199_254_740_992.0;

fn whole(n: f64) -> Option<i64> {
    (n.fract() == 0.0 && n.abs() < EXACT).then_some(n as i64)
}

/// Proto3 JSON made elsewhere (an Agent's `GetTask` answer, a fixture),
/// read as this reader prints rows: a whole `Struct` number is an integer,
/// though a2a-sdk's Python prints it `20.0`, so that token counts in
/// metadata read the same from the Agent as from kagent's database.
pub fn whole_numbers(value: &mut Json) {
    match value {
        Json::Number(n) => {
            if let Some(w) = n.as_f64().filter(|_| n.is_f64()).and_then(whole) {
                *value = json!(w);
            }
        }
        Json::Array(items) => items.iter_mut().for_each(whole_numbers),
        Json::Object(fields) => fields.values_mut().for_each(whole_numbers),
        _ => {}
    }
}

/// `Value`: one of null (1), number (2), string (3), bool (4), struct (5),
/// list (6); the last one on the wire wins, as protobuf merges a oneof.
fn wire_value(bytes: &[u8], depth: usize, losses: &mut Losses) -> Result<Json, String> {
    let mut out = Json::Null;
    let mut wire = Wire::new(bytes);
    while let Some((number, kind)) = wire.field()? {
        out = match (number, kind) {
            (1, VARINT) => wire.varint().map(|_| Json::Null)?,
            (2, FIXED64) => {
                let raw: [u8; 8] = wire.take(8)?.try_into().map_err(|_| "a short double")?;
                number_json(f64::from_le_bytes(raw), losses)
            }
            (3, DELIMITED) => Json::String(text(wire.delimited()?)?),
            (4, VARINT) => Json::Bool(wire.varint()? != 0),
            (5, DELIMITED) => struct_json(wire.delimited()?, deeper(depth)?, losses)?,
            (6, DELIMITED) => {
                let (list, depth) = (wire.delimited()?, deeper(depth)?);
                let mut items = Vec::new();
                let mut values = Wire::new(list);
                while let Some((number, kind)) = values.field()? {
                    match (number, kind) {
                        (1, DELIMITED) => {
                            items.push(wire_value(values.delimited()?, depth, losses)?)
                        }
                        _ => values.skip(kind)?,
                    }
                }
                Json::Array(items)
            }
            _ => {
                wire.skip(kind)?;
                continue;
            }
        };
    }
    Ok(out)
}

/// Struct numbers are doubles; a whole one prints as an integer, as
/// protojson and Python's json print it.
fn number_json(n: f64, losses: &mut Losses) -> Json {
    if let Some(whole) = whole(n) {
        return json!(whole);
    }
    match Number::from_f64(n) {
        Some(n) => Json::Number(n),
        None => {
            losses.notes.push(format!(
                "a number that JSON cannot hold ({n}) is read as null"
            ));
            Json::Null
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message as _;

    /// The timeline reads a Session the same from its update rows made
    /// JSON whole (as `capture` keeps them) and placed (as a run reads
    /// them): projected artifacts, one the projection lacks, streamed
    /// chunks, archived and status messages, a task snapshot.
    #[test]
    fn update_rows_read_placed_give_the_timeline_what_whole_ones_do() {
        use super::super::timeline::{EventRow, TaskRow, conversation, projected};
        use prost_types::value::Kind;
        let stamped = |position: &str| {
            let fields = [(
                super::super::timeline::TIMELINE_POSITION.to_string(),
                value(Kind::StringValue(position.into())),
            )];
            prost_types::Struct {
                fields: fields.into(),
            }
            .encode_to_vec()
        };
        let text = |text: &str| Part {
            content: Some(PartContent::Text(text.into())),
            ..Part::default()
        };
        let call = Part {
            content: Some(PartContent::Data(
                value(Kind::StructValue(prost_types::Struct {
                    fields: [
                        ("id".to_string(), value(Kind::StringValue("c1".into()))),
                        (
                            "name".to_string(),
                            value(Kind::StringValue("get_weather".into())),
                        ),
                    ]
                    .into(),
                }))
                .encode_to_vec(),
            )),
            metadata: Some(
                prost_types::Struct {
                    fields: [(
                        "kagent.dev/a2a/part-type".to_string(),
                        value(Kind::StringValue("function_call".into())),
                    )]
                    .into(),
                }
                .encode_to_vec(),
            ),
            ..Part::default()
        };
        let artifact = |id: &str, parts: Vec<Part>, position: &str| Artifact {
            artifact_id: id.into(),
            parts,
            metadata: Some(stamped(position)),
            ..Artifact::default()
        };
        let message = |id: &str, role: Role, says: &str| Message {
            message_id: id.into(),
            role: role as i32,
            parts: vec![text(says)],
            ..Message::default()
        };
        let status = |state: TaskState, message: Option<Message>| TaskStatus {
            state: state as i32,
            message,
            timestamp: None,
        };
        let task = Task {
            id: "t1".into(),
            context_id: "s".into(),
            status: Some(status(
                TaskState::Completed,
                Some(message("done", Role::Agent, "Done.")),
            )),
            artifacts: vec![
                artifact("call", vec![call.clone()], "2026-11-20T09:00:02Z"),
                // Streamed: one part per chunk, joined when read.
                artifact(
                    "answer",
                    vec![text("Sun"), text("ny")],
                    "2026-11-20T09:00:04Z",
                ),
            ],
            history: vec![message("u", Role::User, "Weather?")],
            ..Task::default()
        };
        let update = |payload: Payload| StreamResponse {
            payload: Some(payload),
        };
        let artifact_update = |artifact: Artifact, append: bool| {
            update(Payload::ArtifactUpdate(TaskArtifactUpdateEvent {
                task_id: "t1".into(),
                artifact: Some(artifact),
                append,
                ..TaskArtifactUpdateEvent::default()
            }))
        };
        let status_update = |state: TaskState, id: &str, says: &str| {
            update(Payload::StatusUpdate(TaskStatusUpdateEvent {
                task_id: "t1".into(),
                status: Some(status(state, Some(message(id, Role::Agent, says)))),
                ..TaskStatusUpdateEvent::default()
            }))
        };
        let updates = [
            (None, update(Payload::Task(task.clone()))),
            (None, status_update(TaskState::Working, "w", "Working")),
            (None, artifact_update(task.artifacts[0].clone(), false)),
            (
                None,
                artifact_update(
                    artifact("answer", vec![text("Sun")], "2026-11-20T09:00:04Z"),
                    false,
                ),
            ),
            (
                None,
                artifact_update(
                    artifact("answer", vec![text("ny")], "2026-11-20T09:00:04Z"),
                    true,
                ),
            ),
            (
                None,
                artifact_update(
                    artifact("lost", vec![text("Also windy")], "2026-11-20T09:00:05Z"),
                    false,
                ),
            ),
            (
                Some("kept"),
                update(Payload::Message(message(
                    "kept",
                    Role::User,
                    "And tomorrow?",
                ))),
            ),
            (None, status_update(TaskState::Completed, "done", "Done.")),
        ];
        let limits = ReadLimits::default();
        let mut losses = Losses::default();
        let tasks = vec![TaskRow {
            id: "t1".into(),
            task: task_from_bytes(&task.encode_to_vec(), &limits, &mut losses).unwrap(),
            created: None,
        }];
        let held = projected(&tasks);
        let rows = |reading: Reading<'_>, losses: &mut Losses| -> Vec<EventRow> {
            updates
                .iter()
                .enumerate()
                .map(|(sequence, (message_id, response))| {
                    let bytes = response.encode_to_vec();
                    let response = stream_response_from_bytes(&bytes, &limits, losses, reading);
                    EventRow {
                        sequence: sequence as i64 + 1,
                        task_id: "t1".into(),
                        message_id: message_id.map(str::to_string),
                        response: response.unwrap(),
                        created: None,
                    }
                })
                .collect()
        };
        let whole = rows(Reading::Whole, &mut losses);
        let placed = rows(Reading::ForTimeline(held.get("t1")), &mut losses);
        assert_ne!(whole, placed, "the placed rows are smaller");
        let read = conversation(tasks.clone(), &whole);
        assert_eq!(read, conversation(tasks, &placed));
        let history: Vec<&Json> = read.tasks[0]["history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.get("messageId").or(m.get("kagentEvalsArtifact")).unwrap())
            .collect();
        assert_eq!(
            history,
            [
                &json!("u"),
                &json!("kept"),
                &json!("done"),
                &json!("call"),
                &json!("answer"),
                &json!("lost")
            ],
            "{read:?}"
        );
        assert!(losses.notes.is_empty());
    }

    #[test]
    fn whole_numbers_of_json_made_elsewhere_read_as_integers() {
        let mut made: Json =
            serde_json::from_str(r#"{"a": 20.0, "b": [1.5, 3.0, -0.0], "c": 7, "d": 1e300}"#)
                .unwrap();
        whole_numbers(&mut made);
        assert_eq!(made, json!({"a": 20, "b": [1.5, 3, 0], "c": 7, "d": 1e300}));
        assert!(made["a"].is_i64());
    }

    fn value(kind: prost_types::value::Kind) -> prost_types::Value {
        prost_types::Value { kind: Some(kind) }
    }

    #[test]
    fn a_task_reads_as_proto3_json_and_unknown_fields_are_skipped() {
        use prost_types::value::Kind;
        let data = prost_types::Struct {
            fields: [
                ("id".to_string(), value(Kind::StringValue("c1".into()))),
                ("n".to_string(), value(Kind::NumberValue(3.0))),
                ("x".to_string(), value(Kind::NumberValue(0.5))),
            ]
            .into(),
        };
        let task = Task {
            id: "t".into(),
            context_id: "ctx".into(),
            status: Some(TaskStatus {
                state: TaskState::Completed as i32,
                message: None,
                timestamp: Some(prost_types::Timestamp {
                    seconds: 1_764_000_000,
                    nanos: 0,
                }),
            }),
            artifacts: vec![Artifact {
                artifact_id: "a".into(),
                parts: vec![Part {
                    content: Some(PartContent::Data(
                        value(Kind::StructValue(data)).encode_to_vec(),
                    )),
                    ..Part::default()
                }],
                ..Artifact::default()
            }],
            ..Task::default()
        };
        let mut bytes = task.encode_to_vec();
        // Field 4242, varint 1: a field this reader does not know.
        bytes.extend([0x90, 0x89, 0x02, 0x01]);
        let mut losses = Losses::default();
        let read = task_from_bytes(&bytes, &ReadLimits::default(), &mut losses).unwrap();
        assert_eq!(
            read,
            json!({"id": "t", "contextId": "ctx",
                   "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2025-11-24T16:00:00Z"},
                   "artifacts": [{"artifactId": "a", "parts": [{"data": {"id": "c1", "n": 3, "x": 0.5}}]}]})
        );
        assert!(losses.notes.is_empty());
    }

    /// Tool arguments `levels` objects deep (`{"a": {"a": ...}}`), in a
    /// message's part, written byte by byte: no Rust value that deep is
    /// ever built or dropped.
    #[test]
    fn elements_are_counted_before_decoding_and_a_row_over_the_limit_is_refused() {
        let message = |parts: usize| {
            message_of(vec![
                Part {
                    content: Some(PartContent::Text("x".into())),
                    ..Part::default()
                };
                parts
            ])
        };
        let limits = |row_elements| ReadLimits {
            row_elements,
            ..ReadLimits::default()
        };
        let mut losses = Losses::default();
        // The response, its message and three parts.
        assert!(
            stream_response_from_bytes(&message(3), &limits(5), &mut losses, Reading::Whole)
                .is_ok()
        );
        let refused =
            stream_response_from_bytes(&message(3), &limits(4), &mut losses, Reading::Whole)
                .unwrap_err();
        assert!(
            refused.message.contains("more than 4 elements"),
            "{refused}"
        );
        // JSON values count too: the response, message and part, the
        // outer Value, then a Struct, its entry and a Value per level.
        let mut count = 0;
        elements(&nested(5), Shape::StreamResponse, 0, &mut count, u64::MAX);
        assert_eq!(count, 4 + 3 * 5);
        // A million empty parts in a few megabytes: refused on the count.
        let huge = message(1_000_000);
        assert!(
            stream_response_from_bytes(&huge, &ReadLimits::default(), &mut losses, Reading::Whole)
                .is_err()
        );
    }

    /// The densest rows there are, empty parts of two bytes each: one
    /// element over the limit is walked and refused, the limit itself is
    /// read.
    #[test]
    fn a_row_short_enough_to_be_within_the_limit_is_read_unwalked_and_no_longer_one() {
        let empty_parts = |parts: usize| message_of(vec![Part::default(); parts]);
        let limits = ReadLimits {
            row_elements: 10,
            ..ReadLimits::default()
        };
        let mut losses = Losses::default();
        let read = |row: &[u8], losses: &mut Losses| {
            stream_response_from_bytes(row, &limits, losses, Reading::Whole)
        };
        // The response, its message and eight parts in 18 bytes.
        assert_eq!(empty_parts(8).len(), 18);
        assert!(read(&empty_parts(8), &mut losses).is_ok());
        // Eleven elements in 20 bytes.
        let refused = read(&empty_parts(9), &mut losses).unwrap_err();
        assert!(
            refused.message.contains("more than 10 elements"),
            "{refused}"
        );
    }

    /// An update row that is a message of `parts`.
    fn message_of(parts: Vec<Part>) -> Vec<u8> {
        StreamResponse {
            payload: Some(Payload::Message(Message {
                parts,
                ..Message::default()
            })),
        }
        .encode_to_vec()
    }

    /// A length-delimited field, its key byte given, written by hand.
    fn field(key: u8, body: &[u8]) -> Vec<u8> {
        let mut out = vec![key];
        prost::encoding::encode_varint(body.len() as u64, &mut out);
        out.extend_from_slice(body);
        out
    }

    #[test]
    fn a_struct_reads_with_its_keys_in_order_and_a_key_twice_as_its_last_value() {
        let entry = |key: &str, text: &str| {
            let value = field(0x1a, text.as_bytes());
            field(
                0x0a,
                &[field(0x0a, key.as_bytes()), field(0x12, &value)].concat(),
            )
        };
        let bytes = [entry("b", "first"), entry("a", "x"), entry("b", "last")].concat();
        let json = struct_json(&bytes, 0, &mut Losses::default()).unwrap();
        assert_eq!(json.to_string(), r#"{"a":"x","b":"last"}"#);
    }

    fn nested(levels: usize) -> Vec<u8> {
        let mut value = field(0x1a, b"bottom");
        for _ in 0..levels {
            let entry = [field(0x0a, b"a"), field(0x12, &value)].concat();
            value = field(0x2a, &field(0x0a, &entry));
        }
        let response = StreamResponse {
            payload: Some(Payload::Message(Message {
                message_id: "m".into(),
                parts: vec![Part {
                    content: Some(PartContent::Data(value)),
                    ..Part::default()
                }],
                ..Message::default()
            })),
        };
        response.encode_to_vec()
    }

    #[test]
    fn arguments_nest_as_deep_as_the_limit_and_no_deeper() {
        let mut losses = Losses::default();
        let read = stream_response_from_bytes(
            &nested(MAX_NESTING),
            &ReadLimits::default(),
            &mut losses,
            Reading::Whole,
        )
        .unwrap();
        let mut data = &read["message"]["parts"][0]["data"];
        for _ in 0..MAX_NESTING {
            data = &data["a"];
        }
        assert_eq!(data, "bottom");
        let refused = stream_response_from_bytes(
            &nested(MAX_NESTING + 1),
            &ReadLimits::default(),
            &mut losses,
            Reading::Whole,
        )
        .unwrap_err();
        assert_eq!(
            refused.to_string(),
            format!(
                "not a protobuf lf.a2a.v1.StreamResponse: objects and lists nested deeper than {MAX_NESTING} levels"
            )
        );
        // Deep enough to overflow a stack read naively: refused, not a crash.
        assert!(
            stream_response_from_bytes(
                &nested(5_000),
                &ReadLimits::default(),
                &mut losses,
                Reading::Whole
            )
            .is_err()
        );
    }

    #[test]
    fn bytes_that_are_not_the_message_say_where() {
        let mut losses = Losses::default();
        // Field 1 (a string) whose length runs past the end.
        let broken = [0x0a, 0x10, b'a', b'b'];
        let failure = task_from_bytes(&broken, &ReadLimits::default(), &mut losses).unwrap_err();
        assert_eq!(failure.offset, Some(0));
        assert!(
            failure
                .to_string()
                .contains("not a protobuf lf.a2a.v1.Task"),
            "{failure}"
        );
        let later = [0x0a, 0x01, b'a', 0x12, 0x09, b'x'];
        assert_eq!(
            task_from_bytes(&later, &ReadLimits::default(), &mut losses)
                .unwrap_err()
                .offset,
            Some(3)
        );
    }
}
