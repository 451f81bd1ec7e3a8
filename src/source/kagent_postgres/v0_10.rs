//! kagent v0.8 to 0.10's tables: ADK's `event` rows, and the A2A `task`
//! records of a session with no events (an agent on a runtime other than
//! ADK), in a second query of the same transaction.

use super::{KagentPostgres, key_lists};
use crate::core::ingest::{Issue, KeepJson, Origin, RawEvents};
use crate::core::parallel::spawn_beside;
use crate::core::read_limits::{Held, ReadLimits};
use crate::core::session::{AgentRef, SessionKey};
use crate::core::task::{Record, RecordChoice};
use crate::source::{
    RawSession, SessionQuery, SessionSummary, SourceError, StoredTask, TaskData,
    ahead_of_the_clock, read_held,
};
use futures::TryStreamExt;
use sqlx::Row;
use sqlx::postgres::PgRow;

const LIST_SESSIONS: &str = concat!(
    "
SELECT s.id, s.user_id, s.agent_id,
       extract(epoch FROM ",
    recent!("s.updated_at"),
    ")::float8 AS updated,
       CASE WHEN $5 THEN
         (SELECT count(*) FROM event e
           WHERE e.session_id = s.id AND e.user_id = s.user_id AND e.deleted_at IS NULL)
       END AS events
  FROM session s
 WHERE s.deleted_at IS NULL
   AND ($1::text IS NULL OR s.agent_id = $1)
   AND ($2::float8 IS NULL OR ",
    recent!("s.updated_at"),
    " >= to_timestamp($2))
   AND ($3::bool OR s.source IS NULL OR s.source <> 'agent')
 ORDER BY ",
    recent!("s.updated_at"),
    " DESC NULLS LAST, ",
    recent!("s.created_at"),
    " DESC NULLS LAST, s.id, s.user_id
 LIMIT $4"
);

/// The wanted sessions, joined on their keys so that the planner sees a
/// hundred sessions: an `OR` of the two key forms made it merge-join the
/// whole event table on every batch.
const FETCH_SESSIONS: &str = "
SELECT s.id, s.user_id, s.agent_id, CASE WHEN s.updated_at > now() + interval '1 day' THEN s.updated_at::text END AS ahead
  FROM session s
  JOIN unnest($1::text[], $2::text[]) AS k(id, user_id)
    ON s.id = k.id AND s.user_id = k.user_id
 WHERE s.deleted_at IS NULL AND ($4::text IS NULL OR s.agent_id = $4)
UNION
SELECT s.id, s.user_id, s.agent_id, CASE WHEN s.updated_at > now() + interval '1 day' THEN s.updated_at::text END
  FROM session s
 WHERE s.id = ANY($3::text[])
   AND s.deleted_at IS NULL AND ($4::text IS NULL OR s.agent_id = $4)
 ORDER BY 1, 2";

/// The event rows of those sessions, each named by its place in the list
/// rather than by its key and agent again: a fifth less for the server to
/// send and for us to decode.
const FETCH_EVENTS: &str = concat!(
    "
SELECT k.place::int4 AS place, e.id, octet_length(e.data)::int8 AS size,
       CASE WHEN octet_length(e.data) <= $3 THEN e.data END AS data, ",
    micros!("e.created_at"),
    " AS created
  FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS k(id, user_id, place)
  JOIN event e
    ON e.session_id = k.id AND e.user_id = k.user_id AND e.deleted_at IS NULL
 ORDER BY k.place, e.created_at NULLS FIRST, e.id"
);

/// The A2A tasks of sessions, oldest first. `protocol_version` (kagent
/// v0.9.7) and the task's own `user_id` (v0.10) are read through `to_jsonb`
/// so that older schemas without those columns are read too; a task owned
/// by another user of the same session id is not this session's.
const FETCH_TASKS: &str = "
SELECT k.id AS session_id, k.user_id, t.id, octet_length(t.data)::int8 AS size,
       CASE WHEN octet_length(t.data) <= $3 THEN t.data END AS data,
       to_jsonb(t)->>'protocol_version' AS protocol_version
  FROM unnest($1::text[], $2::text[]) AS k(id, user_id)
  JOIN task t
    ON t.session_id = k.id AND t.deleted_at IS NULL
   AND (to_jsonb(t)->>'user_id' IS NULL OR to_jsonb(t)->>'user_id' = k.user_id)
 ORDER BY k.id, k.user_id, t.created_at NULLS FIRST, t.id";

/// One session's event rows as they came.
type EventRows = Held<Vec<(Option<i64>, PgRow, Origin)>>;

/// How many rows the session had, and its events, read on another core
/// from now on.
fn read_events(
    held: EventRows,
    keep: KeepJson,
    limits: ReadLimits,
) -> (usize, impl Future<Output = RawEvents>) {
    let count = usize::try_from(held.rows_seen()).unwrap_or(usize::MAX);
    let read = spawn_beside(move || {
        // The text column's bytes as they came, not copied into a String:
        // the reader checks they are UTF-8 as it parses.
        read_held(held, keep, &limits, |row: &PgRow| {
            row.try_get_unchecked::<&[u8], _>("data")
                .map_err(|e| format!("the row cannot be read: {e}"))
        })
    });
    (count, read)
}

/// The sessions a query selects, most recent first.
pub(super) async fn list(
    source: &KagentPostgres,
    tx: &mut sqlx::PgConnection,
    query: &SessionQuery,
) -> Result<Vec<SessionSummary>, SourceError> {
    let rows = sqlx::query(LIST_SESSIONS)
        .bind(query.agent.as_ref().map(AgentRef::kagent_id))
        .bind(query.since.map(|t| t.as_millisecond() as f64 / 1000.0))
        .bind(query.include_sub_agent_sessions)
        .bind(query.limit.map(|l| l as i64))
        .bind(query.count_events)
        .fetch_all(tx)
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
                revision: None,
                agent_id: row.try_get("agent_id")?,
                events: row.try_get::<Option<i64>, _>("events")?.map(|n| n as u64),
                updated: updated
                    .and_then(|s| jiff::Timestamp::from_millisecond((s * 1000.0) as i64).ok()),
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(|e| source.unavailable(e))
}

/// The sessions of `keys`, read in `tx`, which is done (rolled back) before
/// their rows are parsed.
pub(super) async fn fetch(
    source: &KagentPostgres,
    mut tx: sqlx::Transaction<'static, sqlx::Postgres>,
    keys: &[SessionKey],
    agent: Option<&AgentRef>,
    record: RecordChoice,
) -> Result<Vec<RawSession>, SourceError> {
    let (pair_ids, pair_users, any_user) = key_lists(keys);
    let (mut sessions, ahead): (Vec<RawSession>, Vec<Option<String>>) = sqlx::query(FETCH_SESSIONS)
        .bind(&pair_ids)
        .bind(&pair_users)
        .bind(&any_user)
        .bind(agent.map(AgentRef::kagent_id))
        .fetch_all(&mut *tx)
        .await
        .map_err(|e| source.unavailable(e))?
        .into_iter()
        .map(|row| {
            let session = RawSession {
                key: SessionKey::new(row.try_get::<String, _>("id")?, row.try_get("user_id")?),
                agent_id: row.try_get("agent_id")?,
                raw: RawEvents::default(),
                record: Record::Events,
                revision: None,
                rows: None,
            };
            Ok((session, row.try_get("ahead")?))
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()
        .map_err(|e| source.unavailable(e))?
        .into_iter()
        .unzip();
    // Each session's rows as they arrive, read on another core once its
    // last row is in, while the next one's arrive: its rows are held only
    // until then.
    let name = source.name();
    let (keep, limits) = (source.keep_json, source.limits);
    let (mut reads, mut rows) = (Vec::with_capacity(sessions.len()), Vec::new());
    let mut filling = EventRows::default();
    {
        let ids: Vec<&str> = sessions.iter().map(|s| s.key.id.as_str()).collect();
        let users: Vec<Option<&str>> = sessions.iter().map(|s| s.key.user_id.as_deref()).collect();
        let mut stream = sqlx::query(FETCH_EVENTS)
            .bind(&ids)
            .bind(&users)
            .bind(i64::try_from(limits.row_bytes).unwrap_or(i64::MAX))
            .fetch(&mut *tx);
        while let Some(row) = stream.try_next().await.map_err(|e| source.unavailable(e))? {
            let place: i32 = row.try_get("place").map_err(|e| source.unavailable(e))?;
            // Places count from one, in the order the keys were given.
            let at = usize::try_from(place)
                .ok()
                .and_then(|place| place.checked_sub(1))
                .filter(|at| *at >= reads.len() && *at < sessions.len())
                .ok_or_else(|| SourceError::Unavailable {
                    source_name: source.describe_name(),
                    detail: format!(
                        "an event row of session number {place} of {}",
                        sessions.len()
                    ),
                })?;
            while reads.len() < at {
                let (count, read) = read_events(std::mem::take(&mut filling), keep, limits);
                rows.push(count);
                reads.push(read);
            }
            let event_id: String = row.try_get("id").map_err(|e| source.unavailable(e))?;
            let created: Option<i64> = row.try_get("created").map_err(|e| source.unavailable(e))?;
            let origin = Origin::Row {
                source: name.clone(),
                event_id,
            };
            let size: Option<i64> = row.try_get("size").map_err(|e| source.unavailable(e))?;
            if filling.admits(size.map_or(0, i64::unsigned_abs), &limits, || {
                origin.clone()
            }) {
                filling.rows_mut().push((created, row, origin));
            }
        }
    }
    while reads.len() < sessions.len() {
        let (count, read) = read_events(std::mem::take(&mut filling), keep, limits);
        rows.push(count);
        reads.push(read);
    }
    // The transaction is done before the rows are read, so that the
    // connection is free for the next batch meanwhile.
    let tasks = source.read_tasks(&mut tx, &sessions, &rows, record).await?;
    tx.rollback().await.map_err(|e| source.unavailable(e))?;
    let read = futures::future::join_all(reads).await;
    for (((session, raw), tasks), ahead) in sessions.iter_mut().zip(read).zip(tasks).zip(ahead) {
        session.raw = raw;
        match tasks {
            Some(Ok(tasks)) => session.use_tasks(tasks, &name, keep),
            // Read from tasks, of which one was over a limit: none is read.
            Some(Err(refused)) => {
                session.use_tasks(Vec::new(), &name, keep);
                session.raw.issues.push(refused);
            }
            None => {}
        }
        if let Some(ahead) = ahead {
            let key = SessionKey::new(session.key.id.clone(), None);
            session.raw.notes.push(ahead_of_the_clock(&key, &ahead));
        }
    }
    Ok(sessions)
}

impl KagentPostgres {
    /// The tasks of the sessions `record` reads from tasks, given each
    /// session's count of event rows, in the same transaction; `None` for a
    /// session read from its events.
    async fn read_tasks(
        &self,
        tx: &mut sqlx::Transaction<'static, sqlx::Postgres>,
        sessions: &[RawSession],
        rows: &[usize],
        record: RecordChoice,
    ) -> Result<Vec<Option<Result<Vec<StoredTask>, Issue>>>, SourceError> {
        let mut read: Vec<Option<Result<Vec<StoredTask>, Issue>>> =
            sessions.iter().map(|_| None).collect();
        let wanted: Vec<usize> = (0..sessions.len())
            .filter(|&i| record.wants_tasks(rows[i]))
            .collect();
        if wanted.is_empty() {
            return Ok(read);
        }
        let ids: Vec<&str> = wanted
            .iter()
            .map(|&i| sessions[i].key.id.as_str())
            .collect();
        let users: Vec<&str> = wanted
            .iter()
            .map(|&i| sessions[i].key.user_id.as_deref().unwrap_or_default())
            .collect();
        let rows = sqlx::query(FETCH_TASKS)
            .bind(&ids)
            .bind(&users)
            .bind(i64::try_from(self.limits.row_bytes).unwrap_or(i64::MAX))
            .fetch_all(&mut **tx)
            .await
            .map_err(|e| self.unavailable(e))?;
        let mut tasks: Vec<Held<Vec<StoredTask>>> =
            wanted.iter().map(|_| Held::default()).collect();
        for row in rows {
            let get = |column: &str| -> Result<Option<String>, SourceError> {
                row.try_get(column).map_err(|e| self.unavailable(e))
            };
            let (id, user) = (get("session_id")?, get("user_id")?);
            let Some(slot) = wanted.iter().position(|&i| {
                Some(&sessions[i].key.id) == id.as_ref() && sessions[i].key.user_id == user
            }) else {
                continue;
            };
            let task = get("id")?.unwrap_or_default();
            let size: Option<i64> = row.try_get("size").map_err(|e| self.unavailable(e))?;
            let origin = || Origin::Row {
                source: self.name(),
                event_id: format!("task {task}"),
            };
            let held = &mut tasks[slot];
            if !held.admits(size.map_or(0, i64::unsigned_abs), &self.limits, origin) {
                continue;
            }
            let data = get("data")?.unwrap_or_default();
            if let Err(why) = self.limits.check_json(data.as_bytes()) {
                held.refuse(origin(), why);
                continue;
            }
            held.rows_mut().push(StoredTask {
                id: task,
                data: TaskData::Text(data),
                protocol: get("protocol_version")?,
            });
        }
        for (slot, found) in tasks.into_iter().map(Held::into_rows).enumerate() {
            // With no task either, the session keeps its (empty) events.
            if found.as_ref().is_ok_and(Vec::is_empty) && record != RecordChoice::Tasks {
                continue;
            }
            read[wanted[slot]] = Some(found);
        }
        Ok(read)
    }
}
