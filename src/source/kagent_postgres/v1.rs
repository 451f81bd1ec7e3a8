//! kagent 1.0's database, read by the kagent PostgreSQL source when the
//! schema on connect is 1.0's (§1-§3 of the 1.0 contract): a Session's
//! history is A2A v1 protobuf in `session_task` and `session_task_event`,
//! its Agent and revision in `runtime_revision` (and, in the newest
//! generation C, `agent_revision`, joined in the `agent_runtime_revision`
//! and `session_record` views; generation B keeps them on `session` and
//! `runtime_revision`).
//!
//! As for 0.10: every query is read-only, the agent filter is part of the
//! query, a session is `(id, user id)`. Only published event rows are read;
//! deleted Sessions are left out; forked Sessions (from a checkpoint) are
//! left out of listings, being copies of another's history; "recent" is by
//! the Session's latest task time. A row whose bytes do not decode is an
//! issue naming the table, the row and where, and the Session fails closed.

use super::{Generation, KagentPostgres, key_lists};
use crate::core::a2a_v1::fixture;
use crate::core::a2a_v1::json::{self, Losses, Reading};
use crate::core::a2a_v1::timeline::{self, EventRow, TaskRow};
use crate::core::ingest::{Issue, KeepJson, Origin, RawEvents};
use crate::core::parallel::spawn_beside;
use crate::core::read_limits::{Held, ReadLimits};
use crate::core::session::{AgentRef, SessionKey};
use crate::core::task::Record;
use crate::source::{RawSession, SessionQuery, SessionSummary, SourceError, ahead_of_the_clock};
use futures::TryStreamExt;
use jiff::Timestamp;
use sqlx::Row;
use sqlx::postgres::PgRow;
use std::sync::Arc;

// The Sessions with their Agent and revision, for each generation; macros
// so that every query is one static text (sqlx takes no other).
macro_rules! sessions_c {
    ($also:literal) => {
        concat!("SELECT s.id::text AS id, s.user_id, s.history_id, s.source_checkpoint_id IS NOT NULL AS forked,
                r.namespace, r.agent_name, s.prepared_revision AS revision, (r.revision IS NULL OR r.deleted_at IS NOT NULL) AS revision_deleted
           FROM session_record s
           LEFT JOIN agent_runtime_revision r ON r.revision = s.prepared_revision
          WHERE s.state <> 'RUNTIME_STATE_DELETED'", $also)
    };
}

macro_rules! sessions_b {
    ($also:literal) => {
        concat!("SELECT s.id::text AS id, s.user_id, s.history_id, s.source_checkpoint_id IS NOT NULL AS forked,
                r.namespace, r.agent_name, s.prepared_revision AS revision, (r.revision IS NULL OR r.deleted_at IS NOT NULL) AS revision_deleted
           FROM session s
           LEFT JOIN runtime_revision r ON r.revision = s.prepared_revision
          WHERE s.state <> 'SESSION_STATE_DELETED'", $also)
    };
}

/// Recent Sessions: by their latest task time, forks left out.
macro_rules! list {
    ($sessions:expr) => {
        concat!(
            "WITH s AS (",
            $sessions,
            ")
         SELECT s.*, extract(epoch FROM u.updated)::float8 AS updated,
                CASE WHEN $5 THEN (SELECT count(*) FROM session_task_event e
                                    WHERE e.history_id = s.history_id AND e.published) END AS events
           FROM s
           LEFT JOIN LATERAL (SELECT max(", recent!("v.at"), ") AS updated
                                FROM session_task t, LATERAL (VALUES (t.status_timestamp), (t.created_at)) v(at)
                               WHERE t.history_id = s.history_id) u ON true
          WHERE ($1::text IS NULL OR (s.namespace = $1 AND s.agent_name = $2))
            AND ($3::float8 IS NULL OR u.updated >= to_timestamp($3))
            AND ($6 OR NOT s.forked)
          ORDER BY u.updated DESC NULLS LAST, s.id, s.user_id
          LIMIT $4"
        )
    };
}

/// The Sessions asked for by key: `(id, user)` pairs, or ids for any user.
macro_rules! fetch {
    ($sessions:expr) => {
        concat!(
            "WITH s AS (",
            $sessions,
            ")
         SELECT s.*,
                (SELECT max(v.at) FROM session_task t, LATERAL (VALUES (t.status_timestamp), (t.created_at)) v(at)
                  WHERE t.history_id = s.history_id AND v.at > now() + interval '1 day')::text AS ahead
           FROM s
          WHERE ((s.id, s.user_id) IN (SELECT * FROM unnest($1::text[], $2::text[])) OR s.id = ANY($3::text[]))
            AND ($4::text IS NULL OR (s.namespace = $4 AND s.agent_name = $5))
          ORDER BY s.id, s.user_id"
        )
    };
}

fn list_sql(generation: Generation) -> &'static str {
    match generation {
        Generation::C => list!(sessions_c!("")),
        Generation::B => list!(sessions_b!("")),
    }
}

fn fetch_sql(generation: Generation) -> &'static str {
    match generation {
        // The asked ids inside the CTE: by primary key, not a scan of
        // every Session (a key test on the ids as text cannot use one).
        Generation::C => fetch!(sessions_c!(" AND s.id = ANY($6::uuid[])")),
        Generation::B => fetch!(sessions_b!(" AND s.id = ANY($6::uuid[])")),
    }
}

const FETCH_TASKS: &str = concat!(
    "
SELECT k.place::int4 AS place, t.id, octet_length(t.data)::int8 AS size,
       CASE WHEN octet_length(t.data) <= $2 THEN t.data END AS data, ",
    micros!("t.created_at"),
    " AS created
  FROM unnest($1::uuid[]) WITH ORDINALITY AS k(history_id, place)
  JOIN session_task t ON t.history_id = k.history_id
 ORDER BY k.place, t.position"
);

/// A row of [`FETCH_TASKS`], by position (reading a column by its name
/// hashes the name, for every column of every row): place, id, size,
/// data (NULL over the row limit), created.
type TaskColumns = (i32, String, Option<i64>, Option<Vec<u8>>, Option<i64>);

const FETCH_EVENTS: &str = concat!(
    "
SELECT k.place::int4 AS place, e.sequence, e.task_id, e.message_id, octet_length(e.data)::int8 AS size,
       CASE WHEN octet_length(e.data) <= $2 THEN e.data END AS data, ",
    micros!("e.created_at"),
    " AS created
  FROM unnest($1::uuid[]) WITH ORDINALITY AS k(history_id, place)
  JOIN session_task_event e ON e.history_id = k.history_id AND e.published
 ORDER BY k.place, e.sequence"
);

/// A row of [`FETCH_EVENTS`], by position: place, sequence, task id,
/// message id, size, data (NULL over the row limit), created.
type EventColumns = (
    i32,
    i64,
    String,
    Option<String>,
    Option<i64>,
    Option<Vec<u8>>,
    Option<i64>,
);

/// The Agent of a row, unknown where its revision was deleted outright
/// (`prepared_revision` is then NULL, §2.1).
fn agent_id(row: &PgRow) -> Result<Option<String>, sqlx::Error> {
    let namespace: Option<String> = row.try_get("namespace")?;
    let name: Option<String> = row.try_get("agent_name")?;
    Ok(namespace
        .zip(name)
        .map(|(namespace, name)| AgentRef { namespace, name }.kagent_id()))
}

pub async fn list(
    source: &KagentPostgres,
    tx: &mut sqlx::PgConnection,
    generation: Generation,
    query: &SessionQuery,
) -> Result<Vec<SessionSummary>, SourceError> {
    let rows = sqlx::query(list_sql(generation))
        .bind(query.agent.as_ref().map(|a| a.namespace.clone()))
        .bind(query.agent.as_ref().map(|a| a.name.clone()))
        .bind(query.since.map(|t| t.as_millisecond() as f64 / 1000.0))
        .bind(query.limit.map(|l| l as i64))
        .bind(query.count_events)
        .bind(query.include_forked_sessions)
        .fetch_all(&mut *tx)
        .await
        .map_err(|e| source.unavailable(e))?;
    rows.iter()
        .map(|row| {
            let updated: Option<f64> = row.try_get("updated")?;
            Ok(SessionSummary {
                key: SessionKey::new(
                    row.try_get::<String, _>("id")?,
                    Some(row.try_get("user_id")?),
                ),
                agent_id: agent_id(row)?,
                revision: row.try_get("revision")?,
                events: row.try_get::<Option<i64>, _>("events")?.map(|n| n as u64),
                updated: updated.and_then(|s| Timestamp::from_microsecond((s * 1e6) as i64).ok()),
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(|e| source.unavailable(e))
}

/// One Session as listed, before its rows are read.
struct Listed {
    session: RawSession,
    history: uuid::Uuid,
    forked: bool,
    revision_deleted: bool,
    /// Its latest task time, when that is more than a day ahead.
    ahead: Option<String>,
}

pub async fn fetch(
    source: &KagentPostgres,
    tx: &mut sqlx::PgConnection,
    generation: Generation,
    keys: &[SessionKey],
    agent: Option<&AgentRef>,
) -> Result<Vec<RawSession>, SourceError> {
    let (pair_ids, pair_users, any_user) = key_lists(keys);
    // A Session id is a UUID; an id that is not one names no Session.
    let ids: Vec<uuid::Uuid> = keys
        .iter()
        .filter_map(|k| uuid::Uuid::parse_str(&k.id).ok())
        .collect();
    let listed: Vec<Listed> = sqlx::query(fetch_sql(generation))
        .bind(&pair_ids)
        .bind(&pair_users)
        .bind(&any_user)
        .bind(agent.map(|a| a.namespace.clone()))
        .bind(agent.map(|a| a.name.clone()))
        .bind(&ids)
        .fetch_all(&mut *tx)
        .await
        .map_err(|e| source.unavailable(e))?
        .iter()
        .map(|row| {
            Ok(Listed {
                session: RawSession {
                    key: SessionKey::new(
                        row.try_get::<String, _>("id")?,
                        Some(row.try_get("user_id")?),
                    ),
                    agent_id: agent_id(row)?,
                    raw: RawEvents::default(),
                    record: Record::Tasks,
                    revision: row.try_get("revision")?,
                    rows: None,
                },
                history: row.try_get("history_id")?,
                forked: row.try_get("forked")?,
                revision_deleted: row.try_get("revision_deleted")?,
                ahead: row.try_get("ahead")?,
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(|e| source.unavailable(e))?;
    let histories: Vec<uuid::Uuid> = listed.iter().map(|l| l.history).collect();
    // Rows over the limit come as their size alone.
    let row_bytes = i64::try_from(source.limits.row_bytes).unwrap_or(i64::MAX);
    let (name, keep, limits) = (source.name(), source.keep_json, source.limits);
    let mut rows: Vec<Held<SessionBytes>> = listed.iter().map(|_| Held::default()).collect();
    // The row's Session: rows come in the order of the Sessions' places,
    // which count from one, and none before `from`.
    let slot = |place: i32, from: usize| -> Result<usize, SourceError> {
        usize::try_from(place)
            .ok()
            .and_then(|p| p.checked_sub(1))
            .filter(|p| *p >= from && *p < listed.len())
            .ok_or_else(|| SourceError::Unavailable {
                source_name: source.describe_name(),
                detail: format!("a row of session number {place} of {}", listed.len()),
            })
    };
    {
        let mut stream = sqlx::query_as::<_, TaskColumns>(FETCH_TASKS)
            .bind(&histories)
            .bind(row_bytes)
            .fetch(&mut *tx);
        while let Some((place, id, size, data, created)) =
            stream.try_next().await.map_err(|e| source.unavailable(e))?
        {
            let at = slot(place, 0)?;
            if !admits(
                &mut rows[at],
                size,
                || format!("session_task row {id}"),
                source,
            ) {
                continue;
            }
            rows[at].rows_mut().tasks.push(BytesRow {
                id,
                message_id: None,
                sequence: 0,
                data: data.unwrap_or_default(),
                created,
            });
        }
    }
    // Each Session is read once its last event row is in, on another core,
    // while the next one's arrive: its events are held only until then.
    let mut reads = Vec::with_capacity(listed.len());
    let read_next = |rows: &mut Vec<Held<SessionBytes>>, reads: &mut Vec<_>| {
        let (name, session) = (name.clone(), std::mem::take(&mut rows[reads.len()]));
        reads.push(spawn_beside(move || {
            read_session(session, &name, keep, &limits)
        }));
    };
    {
        let mut stream = sqlx::query_as::<_, EventColumns>(FETCH_EVENTS)
            .bind(&histories)
            .bind(row_bytes)
            .fetch(&mut *tx);
        while let Some((place, sequence, task_id, message_id, size, data, created)) =
            stream.try_next().await.map_err(|e| source.unavailable(e))?
        {
            let at = slot(place, reads.len())?;
            while reads.len() < at {
                read_next(&mut rows, &mut reads);
            }
            if !admits(
                &mut rows[at],
                size,
                || format!("session_task_event row {sequence}"),
                source,
            ) {
                continue;
            }
            rows[at].rows_mut().events.push(BytesRow {
                id: task_id,
                message_id,
                sequence,
                data: data.unwrap_or_default(),
                created,
            });
        }
    }
    while reads.len() < listed.len() {
        read_next(&mut rows, &mut reads);
    }
    let read = futures::future::join_all(reads).await;
    Ok(listed
        .into_iter()
        .zip(read)
        .map(|(mut listed, (mut raw, rows))| {
            let session = SessionKey::new(listed.session.key.id.clone(), None);
            if listed.forked {
                raw.notes.push(Issue::new(
                    format!("session {session}"),
                    "a fork of another Session's checkpoint: its first turns are that Session's",
                ));
            }
            if let Some(ahead) = &listed.ahead {
                raw.notes.push(ahead_of_the_clock(&session, ahead));
            }
            if listed.revision_deleted {
                raw.notes.push(Issue::new(
                    format!("session {session}"),
                    format!(
                        "its revision {} no longer exists: what the Agent was then is unknown",
                        listed.session.revision.as_deref().unwrap_or("?")
                    ),
                ));
            }
            listed.session.raw = raw;
            listed.session.rows = rows;
            listed.session
        })
        .collect())
}

/// One Session's rows as they came: the bytes of each.
#[derive(Default)]
pub struct SessionBytes {
    pub tasks: Vec<BytesRow>,
    pub events: Vec<BytesRow>,
}

/// Whether a row of `size` bytes, named by `what`, is to be held in `held`.
fn admits(
    held: &mut Held<SessionBytes>,
    size: Option<i64>,
    what: impl FnOnce() -> String,
    source: &KagentPostgres,
) -> bool {
    held.admits(size.map_or(0, i64::unsigned_abs), &source.limits, || {
        Origin::Row {
            source: source.name(),
            event_id: what(),
        }
    })
}

/// A `session_task` row (`id` its task id) or a `session_task_event` row
/// (`id` the task it belongs to).
pub struct BytesRow {
    pub id: String,
    pub message_id: Option<String>,
    pub sequence: i64,
    pub data: Vec<u8>,
    /// Microseconds since the epoch.
    pub created: Option<i64>,
}

/// Decode a Session's rows and read them as its events; every row that
/// does not decode is an issue naming it. With `keep`, the decoded rows
/// too, as fixture lines.
pub fn read_session(
    rows: Held<SessionBytes>,
    source: &Arc<str>,
    keep: KeepJson,
    limits: &ReadLimits,
) -> (RawEvents, Option<Vec<serde_json::Value>>) {
    let mut raw = RawEvents::default();
    let rows = match rows.into_rows() {
        Ok(rows) => rows,
        Err(refused) => {
            raw.issues.push(refused);
            return (raw, None);
        }
    };
    let mut losses = Losses::default();
    let origin = |what: String| Origin::Row {
        source: source.clone(),
        event_id: what,
    };
    // `infinity` and times past the year 9999 keep their row's place and
    // give no time, said per row.
    let time = |micros: Option<i64>, row: String, raw: &mut RawEvents| {
        let time = micros.map(Timestamp::from_microsecond)?;
        if time.is_err() {
            raw.notes.push(Issue::new(
                origin(row),
                "created_at is beyond any time (infinity?): no time is taken from it",
            ));
        }
        time.ok()
    };
    let mut tasks = Vec::new();
    for row in rows.tasks {
        match json::task_from_bytes(&row.data, limits, &mut losses) {
            Ok(task) => tasks.push(TaskRow {
                created: time(
                    row.created,
                    format!("session_task row {}", row.id),
                    &mut raw,
                ),
                id: row.id,
                task,
            }),
            Err(failure) => raw.issues.push(Issue::new(
                origin(format!("session_task row {}", row.id)),
                failure.to_string(),
            )),
        }
    }
    // Unless the rows are kept, an update row is made JSON only as far as
    // the timeline reads it: most of a Session's rows repeat artifacts its
    // task projections hold.
    let projected = timeline::projected(&tasks);
    let mut events = Vec::new();
    for row in rows.events {
        let reading = match keep {
            KeepJson::Yes => Reading::Whole,
            KeepJson::No => Reading::ForTimeline(projected.get(row.id.as_str())),
        };
        let response = json::stream_response_from_bytes(&row.data, limits, &mut losses, reading);
        match response {
            Ok(response) => events.push(EventRow {
                created: time(
                    row.created,
                    format!("session_task_event row {}", row.sequence),
                    &mut raw,
                ),
                sequence: row.sequence,
                task_id: row.id,
                message_id: row.message_id,
                response,
            }),
            Err(failure) => raw.issues.push(Issue::new(
                origin(format!("session_task_event row {}", row.sequence)),
                failure.to_string(),
            )),
        }
    }
    for loss in losses.notes {
        raw.notes.push(Issue::new(origin("rows".into()), loss));
    }
    let kept = (keep == KeepJson::Yes).then(|| fixture::lines(&tasks, &events));
    timeline::read_rows(tasks, &events, source, keep, &mut raw);
    (raw, kept)
}
