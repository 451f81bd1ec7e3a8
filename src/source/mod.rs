//! Where sessions come from. Each source is a thin adapter that lists
//! sessions and fetches their raw event rows, read-only; normalising and
//! scoring them is the core's job.

/// A `timestamptz` column as microseconds since the epoch: a time beyond
/// what a 64-bit count holds (`infinity`, the year 294276) becomes the end
/// of the line it is, instead of an error that fails every Session of the
/// batch (jiff then reads it as no time).
macro_rules! micros {
    ($column:literal) => {
        concat!(
            "CASE WHEN ",
            $column,
            " BETWEEN '0001-01-01Z' AND '9999-12-31Z' THEN (extract(epoch FROM ",
            $column,
            ") * 1000000)::int8 WHEN ",
            $column,
            " > '9999-12-31Z' THEN 9223372036854775807 WHEN ",
            $column,
            " < '0001-01-01Z' THEN -9223372036854775808 END"
        )
    };
}

/// A `timestamptz` column as a time that can be recent: one in the future
/// (beyond a day of clock skew) or not finite says nothing about when a
/// Session was used, and would hold a place in every `--since` window.
macro_rules! recent {
    ($column:literal) => {
        concat!(
            "CASE WHEN ",
            $column,
            " <= now() + interval '1 day' THEN ",
            $column,
            " END"
        )
    };
}

/// A database session's held event rows as its events, each row's JSON
/// got by `json` (or why it cannot be); a refused session is its issue.
pub(crate) fn read_held<R>(
    held: Held<Vec<(Option<i64>, R, Origin)>>,
    keep: KeepJson,
    limits: &ReadLimits,
    json: impl for<'r> Fn(&'r R) -> Result<&'r [u8], String>,
) -> RawEvents {
    let mut session = SessionRows::default();
    match held.into_rows() {
        Err(refused) => session.add(None, Err(refused)),
        Ok(rows) => {
            for (created, row, origin) in rows {
                let parsed = match json(&row) {
                    Ok(data) => parse_row(data, origin, keep, limits),
                    Err(why) => Err(Issue::new(&origin, why)),
                };
                session.add(created, parsed);
            }
        }
    }
    session.finish()
}

/// The note on a session dated `ahead`, more than a day after the
/// database's clock (a skewed clock, or a writer's lie): listings rank it
/// by its other times, so that it crowds out no real session.
pub(crate) fn ahead_of_the_clock(session: &SessionKey, ahead: &str) -> Issue {
    Issue::new(
        format!("session {session}"),
        format!(
            "dated {ahead}, more than a day after the database's clock: not taken as recent, it is listed by its other times"
        ),
    )
}

pub mod adk_database;
pub mod fixture;
pub mod kagent_api;
pub mod kagent_postgres;
pub mod open;

use crate::core::a2a_v1::json;
use crate::core::a2a_v1::timeline::{self, TaskRow};
use crate::core::ingest::{Issue, KeepJson, Origin, Parsed, RawEvent, RawEvents, parse_row};
use crate::core::read_limits::{Held, ReadLimits};
use crate::core::session::{AgentRef, Session, SessionKey};
use crate::core::task::{Protocol, Record, RecordChoice, task_events, task_origin};
use jiff::Timestamp;
use serde_json::Value;
use std::future::Future;
use std::sync::Arc;

/// Which sessions a run looks at.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionQuery {
    /// Only this agent's sessions; the filter is applied by the source itself.
    pub agent: Option<AgentRef>,
    /// Only sessions updated at or after this time.
    pub since: Option<Timestamp>,
    /// At most this many, most recently updated first.
    pub limit: Option<usize>,
    /// Also sessions a parent agent opened to call this one as a tool.
    pub include_sub_agent_sessions: bool,
    /// Also kagent 1.0 Sessions forked from another's checkpoint.
    pub include_forked_sessions: bool,
    /// Count each session's events, for a listing shown to a user; sources
    /// that must read a session to count it leave the count out otherwise.
    pub count_events: bool,
}

/// One row of a session listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionSummary {
    pub key: SessionKey,
    pub agent_id: Option<String>,
    pub events: Option<u64>,
    pub updated: Option<Timestamp>,
    /// The Agent revision the session ran on (kagent 1.0).
    pub revision: Option<String>,
}

/// The raw rows of one session, before normalisation.
#[derive(Clone, Debug, PartialEq)]
pub struct RawSession {
    pub key: SessionKey,
    pub agent_id: Option<String>,
    pub raw: RawEvents,
    /// ADK's events, or events read from the session's A2A tasks.
    pub record: Record,
    /// The Agent revision the session ran on (kagent 1.0).
    pub revision: Option<String>,
    /// A kagent 1.0 Session's decoded rows as fixture lines, kept when
    /// event JSON is kept: `capture` writes these rather than events.
    pub rows: Option<Vec<serde_json::Value>>,
}

impl RawSession {
    /// The session as stored, for a person to read: a kagent 1.0 Session's
    /// decoded rows, else each event's JSON (those of `invocation` alone,
    /// when given: rows hold whole tasks, so it cannot apply to them), and
    /// which of the two it is. `Err` names an event whose JSON was not kept.
    pub fn stored(
        &self,
        invocation: Option<&str>,
    ) -> Result<(Vec<serde_json::Value>, &'static str), String> {
        if let Some(rows) = self.rows.as_ref().filter(|_| invocation.is_none()) {
            return Ok((rows.clone(), "rows"));
        }
        let events = self
            .raw
            .events
            .iter()
            .filter(|row| invocation.is_none_or(|id| id == row.event.invocation()))
            .map(|row| {
                row.value()
                    .ok_or_else(|| format!("{}: the event's JSON was not kept", row.origin))
            })
            .collect::<Result<_, _>>()?;
        Ok((events, "events"))
    }

    pub fn normalise(self) -> Session {
        let mut session = Session::from_raw(self.key, self.agent_id, self.raw);
        session.record = self.record;
        session.revision = self.revision;
        session
    }

    /// A conversation as an Agent that is not kagent keeps it: its A2A
    /// 1.0 tasks (id and `GetTask` answer, in order) read as a kagent 1.0
    /// Session's task rows are.
    pub fn from_agent_tasks(
        key: SessionKey,
        tasks: Vec<(String, Value)>,
        source: &Arc<str>,
    ) -> RawSession {
        let rows: Vec<TaskRow> = tasks
            .into_iter()
            .map(|(id, mut task)| {
                json::whole_numbers(&mut task);
                TaskRow {
                    id,
                    task,
                    created: None,
                }
            })
            .collect();
        let mut raw = RawEvents::default();
        timeline::read_rows(rows, &[], source, KeepJson::No, &mut raw);
        RawSession {
            key,
            agent_id: None,
            raw,
            record: Record::Tasks,
            revision: None,
            rows: None,
        }
    }

    /// Read the session from its A2A tasks, oldest first, in place of
    /// whatever events it had.
    pub(crate) fn use_tasks(&mut self, tasks: Vec<StoredTask>, source: &Arc<str>, keep: KeepJson) {
        self.raw = tasks_to_events(tasks, source, keep);
        self.record = Record::Tasks;
    }
}

/// One stored A2A task: its id, its JSON (text from a database, an object
/// from the API) and its `protocol_version` column.
pub(crate) struct StoredTask {
    pub id: String,
    pub data: TaskData,
    pub protocol: Option<String>,
}

pub(crate) enum TaskData {
    Text(String),
    Json(Value),
}

/// A session's tasks as events; a task that cannot be read is an issue
/// naming it, so the session fails closed.
pub(crate) fn tasks_to_events(
    tasks: Vec<StoredTask>,
    source: &Arc<str>,
    keep: KeepJson,
) -> RawEvents {
    let mut raw = RawEvents::default();
    for task in tasks {
        let origin = task_origin(source, &task.id, 0);
        let value = match task.data {
            TaskData::Json(value) => Ok(value),
            TaskData::Text(text) => serde_json::from_str::<Value>(&text)
                .map_err(|e| Issue::new(&origin, format!("the task is not JSON: {e}"))),
        };
        let protocol =
            Protocol::from_column(task.protocol.as_deref()).map_err(|why| Issue::new(&origin, why));
        match value
            .and_then(|v| protocol.map(|p| (v, p)))
            .and_then(|(v, p)| task_events(v, p, source, keep))
        {
            Ok(events) => raw.events.extend(events),
            Err(issue) => raw.issues.push(issue),
        }
    }
    raw
}

/// Why a source could not answer. Messages name the source (host, file) and
/// never carry credentials.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("{source_name} is unavailable: {detail}")]
    Unavailable { source_name: String, detail: String },
    #[error("{0}")]
    Config(String),
}

/// The interface the pipeline and the controller read sessions through.
pub trait SessionSource: Send + Sync {
    /// A description for messages, e.g. `kagent PostgreSQL at db:5432/kagent`.
    fn describe(&self) -> String;

    /// Sessions matching the query, most recently updated first.
    fn list(
        &self,
        query: &SessionQuery,
    ) -> impl Future<Output = Result<Vec<SessionSummary>, SourceError>> + Send;

    /// The events of these sessions, oldest first within each. A key without
    /// a user matches the id for every user. With an `agent`, only that
    /// agent's sessions are returned: the source applies the filter itself,
    /// so a suite can never read another agent's sessions by naming them.
    /// Sessions not found are absent from the result. `record` says whether
    /// a session is read from its events or its A2A tasks.
    fn fetch(
        &self,
        keys: &[SessionKey],
        agent: Option<&AgentRef>,
        record: RecordChoice,
    ) -> impl Future<Output = Result<Vec<RawSession>, SourceError>> + Send;
}

/// A session's rows as they arrive from a database or the API, each with
/// the time it was stored, put in kagent's order when done.
#[derive(Default)]
pub(crate) struct SessionRows {
    rows: Vec<(Option<i64>, RawEvent)>,
    raw: RawEvents,
}

impl SessionRows {
    /// One row, parsed or not, stored at `created` (microseconds).
    pub fn add(&mut self, created: Option<i64>, parsed: Result<Parsed, Issue>) {
        match parsed {
            Ok(Parsed { event, note }) => {
                self.raw.notes.extend(note);
                self.rows.push((created, event));
            }
            Err(issue) => self.raw.issues.push(issue),
        }
    }

    pub fn finish(mut self) -> RawEvents {
        order_rows(&mut self.rows);
        self.raw.events = self.rows.into_iter().map(|(_, e)| e).collect();
        self.raw
    }
}

/// Order a session's rows as kagent does: insertion time, then the time
/// inside the event, then the event id.
fn order_rows(rows: &mut [(Option<i64>, RawEvent)]) {
    rows.sort_by(|(a_created, a), (b_created, b)| {
        let (a, b) = (&a.event, &b.event);
        (a_created, a.timestamp, a.id.as_deref()).cmp(&(b_created, b.timestamp, b.id.as_deref()))
    });
}

/// Any of the sources, chosen at run time by a suite or the command line.
#[derive(Debug)]
pub enum AnySource {
    Fixture(fixture::FixtureSource),
    KagentPostgres(kagent_postgres::KagentPostgres),
    KagentApi(kagent_api::KagentApi),
    AdkDatabase(adk_database::AdkDatabase),
    /// The source of a suite that reads none.
    Nothing(NoSource),
}

macro_rules! each_source {
    ($self:ident, $s:ident => $body:expr) => {
        match $self {
            AnySource::Fixture($s) => $body,
            AnySource::KagentPostgres($s) => $body,
            AnySource::KagentApi($s) => $body,
            AnySource::AdkDatabase($s) => $body,
            AnySource::Nothing($s) => $body,
        }
    };
}

impl AnySource {
    /// Keep each event's JSON beside it, for showing or saving events as
    /// stored.
    pub fn keep_event_json(&mut self) {
        match self {
            AnySource::Fixture(s) => s.keep_json = KeepJson::Yes,
            AnySource::KagentPostgres(s) => s.keep_json = KeepJson::Yes,
            AnySource::KagentApi(s) => s.keep_json = KeepJson::Yes,
            AnySource::AdkDatabase(s) => s.keep_json = KeepJson::Yes,
            AnySource::Nothing(_) => {}
        }
    }
}

/// No source: a suite whose every case probes the Agent and reads its
/// conversation from the Agent lists and holds no session.
#[derive(Debug)]
pub struct NoSource;

impl SessionSource for NoSource {
    fn describe(&self) -> String {
        "no source: the probes read the Agent's own tasks (probes.readFrom: agent)".into()
    }

    async fn list(&self, _: &SessionQuery) -> Result<Vec<SessionSummary>, SourceError> {
        Ok(Vec::new())
    }

    async fn fetch(
        &self,
        _: &[SessionKey],
        _: Option<&AgentRef>,
        _: RecordChoice,
    ) -> Result<Vec<RawSession>, SourceError> {
        Ok(Vec::new())
    }
}

impl SessionSource for AnySource {
    fn describe(&self) -> String {
        each_source!(self, s => s.describe())
    }

    async fn list(&self, query: &SessionQuery) -> Result<Vec<SessionSummary>, SourceError> {
        each_source!(self, s => s.list(query).await)
    }

    async fn fetch(
        &self,
        keys: &[SessionKey],
        agent: Option<&AgentRef>,
        record: RecordChoice,
    ) -> Result<Vec<RawSession>, SourceError> {
        each_source!(self, s => s.fetch(keys, agent, record).await)
    }
}
