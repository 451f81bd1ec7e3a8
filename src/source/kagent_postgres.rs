//! kagent's own PostgreSQL database: kagent v0.8 to 0.10 here, and kagent
//! 1.0, whose schema is told apart on connect and read by
//! [`super::kagent_v1`].
//!
//! Every query runs in a `READ ONLY` transaction on connections whose
//! default is read-only too; soft-deleted rows are left out; a session is
//! `(id, user_id)`; the agent filter is part of each query. Event rows of a
//! batch of sessions come back in one round trip, streamed. A session with
//! no events (an agent on a runtime other than ADK) is read from its A2A
//! tasks, in a second query of the same transaction.

use super::kagent_v1::{self, Found, Line};
use super::{
    RawSession, SessionQuery, SessionRows, SessionSource, SessionSummary, SourceError, StoredTask,
    TaskData,
};
use crate::core::ingest::{Issue, KeepJson, Origin, RawEvents, parse_event};
use crate::core::parallel::map_in_order_beside;
use crate::core::session::{AgentRef, SessionKey};
use crate::core::suite::rules::NameKind;
use crate::core::task::{Record, RecordChoice};
use crate::secret::Secret;
use futures::TryStreamExt;
use sqlx::Row;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions, PgRow};
use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

pub struct KagentPostgres {
    pool: PgPool,
    // Boxed: the options are large and only read before the first connection.
    options: Box<PgConnectOptions>,
    /// `host:port/database`.
    location: String,
    /// The schema named for kagent's tables; `kagent`, then `public`, are
    /// searched when none is.
    schema: Option<String>,
    /// Where kagent's tables are and which kagent's they are, once connected.
    located: tokio::sync::OnceCell<Located>,
    url: Secret,
    /// Whether each event's JSON is kept beside it (`extract --raw`).
    pub(super) keep_json: KeepJson,
}

impl std::fmt::Debug for KagentPostgres {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KagentPostgres")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

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
SELECT s.id, s.user_id, s.agent_id
  FROM session s
  JOIN unnest($1::text[], $2::text[]) AS k(id, user_id)
    ON s.id = k.id AND s.user_id = k.user_id
 WHERE s.deleted_at IS NULL AND ($4::text IS NULL OR s.agent_id = $4)
UNION
SELECT s.id, s.user_id, s.agent_id
  FROM session s
 WHERE s.id = ANY($3::text[])
   AND s.deleted_at IS NULL AND ($4::text IS NULL OR s.agent_id = $4)
 ORDER BY 1, 2";

/// The event rows of those sessions, each named by its place in the list
/// rather than by its key and agent again: a fifth less for the server to
/// send and for us to decode.
const FETCH_EVENTS: &str = concat!(
    "
SELECT k.place::int4 AS place, e.id, e.data, ",
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
SELECT k.id AS session_id, k.user_id, t.id, t.data,
       to_jsonb(t)->>'protocol_version' AS protocol_version
  FROM unnest($1::text[], $2::text[]) AS k(id, user_id)
  JOIN task t
    ON t.session_id = k.id AND t.deleted_at IS NULL
   AND (to_jsonb(t)->>'user_id' IS NULL OR to_jsonb(t)->>'user_id' = k.user_id)
 ORDER BY k.id, k.user_id, t.created_at NULLS FIRST, t.id";

/// Where kagent's tables were found, and its goose migration version.
struct Located {
    found: Found,
    goose: Option<i64>,
}

/// Set the transaction's search path to `schema` alone: every query then
/// reads that schema's tables (pg_catalog aside), whatever the URL's
/// options set. `schema` needs no quoting ([`NameKind::SqlSchema`]).
async fn search_in(tx: &mut sqlx::PgConnection, schema: &str) -> Result<(), sqlx::Error> {
    debug_assert!(NameKind::SqlSchema.allows(schema));
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "SET LOCAL search_path TO \"{schema}\""
    )))
    .execute(&mut *tx)
    .await
    .map(|_| ())
}

/// Connections to one kagent database, all runs together: the operator
/// runs up to `--max-concurrent-runs` at once, and a pool each would open
/// that many times this many connections, and connect anew every run.
pub const POOL_SIZE: u32 = 4;

/// The one pool of a database URL in this process. Keyed by the URL
/// itself (it holds the credentials, so two suites with other passwords
/// never share connections), held only in memory.
fn shared_pool(url: &Secret, options: &PgConnectOptions) -> PgPool {
    static POOLS: std::sync::LazyLock<std::sync::Mutex<HashMap<String, PgPool>>> =
        std::sync::LazyLock::new(Default::default);
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    pools
        .entry(url.expose().to_string())
        .or_insert_with(|| {
            PgPoolOptions::new()
                .max_connections(POOL_SIZE)
                .acquire_timeout(Duration::from_secs(15))
                .connect_lazy_with(options.clone())
        })
        .clone()
}

impl KagentPostgres {
    /// Connections are opened on first use, so a bad host shows up as the
    /// source being unavailable when the run reads it.
    pub fn new(url: Secret, schema: Option<String>) -> Result<Self, SourceError> {
        if let Some(schema) = schema.as_deref().filter(|s| !NameKind::SqlSchema.allows(s)) {
            return Err(SourceError::Config(format!(
                "the database schema {schema:?} {}",
                NameKind::SqlSchema.message()
            )));
        }
        if !(url.expose().starts_with("postgres://") || url.expose().starts_with("postgresql://")) {
            return Err(SourceError::Config(
                "the kagent database URL is not a postgres:// URL: kagent keeps its sessions in PostgreSQL".into(),
            ));
        }
        let options = PgConnectOptions::from_str(url.expose())
            .map_err(|e| {
                SourceError::Config(format!(
                    "the kagent database URL is not valid: {}",
                    url.scrub(&e.to_string())
                ))
            })?
            .application_name("kagent-evals")
            .options([("default_transaction_read_only", "on")]);
        let location = format!(
            "{}:{}/{}",
            options.get_host(),
            options.get_port(),
            options.get_database().unwrap_or("kagent")
        );
        let pool = shared_pool(&url, &options);
        Ok(KagentPostgres {
            pool,
            options: Box::new(options),
            location,
            schema,
            located: tokio::sync::OnceCell::new(),
            url,
            keep_json: KeepJson::No,
        })
    }

    /// Before the pool's first connection, one direct attempt: the pool
    /// retries a failing connect until its timeout and then says only that
    /// it timed out, where this says why (refused, no such host, a rejected
    /// password) at once.
    async fn check_reachable(&self) -> Result<(), SourceError> {
        use sqlx::Connection;
        if self.pool.size() > 0 {
            return Ok(());
        }
        let attempt = sqlx::PgConnection::connect_with(&self.options);
        match tokio::time::timeout(Duration::from_secs(15), attempt).await {
            Ok(Ok(connection)) => {
                let _ = connection.close().await;
                Ok(())
            }
            Ok(Err(cause)) => Err(self.unavailable(cause)),
            Err(_) => Err(SourceError::Unavailable {
                source_name: self.describe_name(),
                detail: "no connection within 15s".into(),
            }),
        }
    }

    /// What messages call this source: which kagent's database, in which
    /// schema and at which goose migration, once known.
    pub(super) fn describe_name(&self) -> String {
        let Some(located) = self.located.get() else {
            return format!("kagent PostgreSQL at {}", self.location);
        };
        let goose = match located.goose {
            Some(v) if v > kagent_v1::VERIFIED_GOOSE_VERSION => format!(
                ", goose version {v}, newer than the {} verified",
                kagent_v1::VERIFIED_GOOSE_VERSION
            ),
            Some(v) => format!(", goose version {v}"),
            None => String::new(),
        };
        format!(
            "{} PostgreSQL at {} (schema {}{goose})",
            located.found.line.words(),
            self.location,
            located.found.schema
        )
    }

    pub(super) fn name(&self) -> Arc<str> {
        self.describe_name().into()
    }

    /// The line of the database, found by the first transaction.
    fn line(&self) -> Line {
        self.located.get().map_or(Line::V010, |l| l.found.line)
    }

    /// Where kagent's tables are, found on the first transaction: in the
    /// schema named, else the first of `kagent` and `public` holding them.
    async fn locate(&self, tx: &mut sqlx::PgConnection) -> Result<&Located, SourceError> {
        self.located
            .get_or_try_init(|| async {
                let named = self.schema.as_deref().map(|s| [s]);
                let schemas: &[&str] = match &named {
                    Some(named) => named,
                    None => &kagent_v1::SCHEMAS_SEARCHED,
                };
                let found = kagent_v1::detect(tx, schemas, &self.describe_name()).await?;
                let goose = match found.goose {
                    true => kagent_v1::goose_version(tx, &found.schema)
                        .await
                        .map_err(|e| self.unavailable(e))?,
                    false => None,
                };
                if let Some(version) =
                    goose.filter(|v| *v > kagent_v1::VERIFIED_GOOSE_VERSION)
                {
                    tracing::warn!(
                        database = %self.location,
                        schema = %found.schema,
                        "kagent's goose migration version {version} is newer than the {} this reader was verified against: read as kagent 1.0",
                        kagent_v1::VERIFIED_GOOSE_VERSION
                    );
                }
                Ok(Located { found, goose })
            })
            .await
    }

    pub(super) fn unavailable(&self, error: sqlx::Error) -> SourceError {
        SourceError::Unavailable {
            source_name: self.describe_name(),
            detail: self.url.scrub(&error.to_string()),
        }
    }

    /// The transaction every query runs in: `BEGIN READ ONLY`, on a
    /// connection whose default is read-only as well, with its search path
    /// set to the one schema holding kagent's tables (whatever the URL's
    /// options say).
    pub async fn read_only(
        &self,
    ) -> Result<sqlx::Transaction<'static, sqlx::Postgres>, SourceError> {
        self.check_reachable().await?;
        let mut tx = self
            .pool
            .begin_with("BEGIN READ ONLY")
            .await
            .map_err(|e| self.unavailable(e))?;
        let schema = self.locate(&mut tx).await?.found.schema.clone();
        search_in(&mut tx, &schema)
            .await
            .map_err(|e| self.unavailable(e))?;
        Ok(tx)
    }
}

impl SessionSource for KagentPostgres {
    fn describe(&self) -> String {
        self.describe_name()
    }

    async fn list(&self, query: &SessionQuery) -> Result<Vec<SessionSummary>, SourceError> {
        let mut tx = self.read_only().await?;
        if let Line::V1(generation) = self.line() {
            let listed = kagent_v1::list(self, &mut tx, generation, query).await;
            tx.rollback().await.map_err(|e| self.unavailable(e))?;
            return listed;
        }
        let rows = sqlx::query(LIST_SESSIONS)
            .bind(query.agent.as_ref().map(AgentRef::kagent_id))
            .bind(query.since.map(|t| t.as_millisecond() as f64 / 1000.0))
            .bind(query.include_sub_agent_sessions)
            .bind(query.limit.map(|l| l as i64))
            .bind(query.count_events)
            .fetch_all(&mut *tx)
            .await
            .map_err(|e| self.unavailable(e))?;
        tx.rollback().await.map_err(|e| self.unavailable(e))?;
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
            .map_err(|e| self.unavailable(e))
    }

    async fn fetch(
        &self,
        keys: &[SessionKey],
        agent: Option<&AgentRef>,
        record: RecordChoice,
    ) -> Result<Vec<RawSession>, SourceError> {
        let (mut pair_ids, mut pair_users, mut any_user) = (Vec::new(), Vec::new(), Vec::new());
        for key in keys {
            match &key.user_id {
                Some(user) => {
                    pair_ids.push(key.id.clone());
                    pair_users.push(user.clone());
                }
                None => any_user.push(key.id.clone()),
            }
        }
        let mut tx = self.read_only().await?;
        if let Line::V1(generation) = self.line() {
            let fetched = kagent_v1::fetch(self, &mut tx, generation, keys, agent).await;
            tx.rollback().await.map_err(|e| self.unavailable(e))?;
            return fetched;
        }
        let mut sessions: Vec<RawSession> = sqlx::query(FETCH_SESSIONS)
            .bind(&pair_ids)
            .bind(&pair_users)
            .bind(&any_user)
            .bind(agent.map(AgentRef::kagent_id))
            .fetch_all(&mut *tx)
            .await
            .map_err(|e| self.unavailable(e))?
            .into_iter()
            .map(|row| {
                Ok(RawSession {
                    key: SessionKey::new(row.try_get::<String, _>("id")?, row.try_get("user_id")?),
                    agent_id: row.try_get("agent_id")?,
                    raw: RawEvents::default(),
                    record: Record::Events,
                    revision: None,
                    rows: None,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| self.unavailable(e))?;
        // Each session's rows as they arrive, read once the batch is in.
        let name = self.name();
        let mut unread: Vec<Vec<(Option<i64>, PgRow, Origin)>> =
            sessions.iter().map(|_| Vec::new()).collect();
        {
            let ids: Vec<&str> = sessions.iter().map(|s| s.key.id.as_str()).collect();
            let users: Vec<Option<&str>> =
                sessions.iter().map(|s| s.key.user_id.as_deref()).collect();
            let mut stream = sqlx::query(FETCH_EVENTS)
                .bind(&ids)
                .bind(&users)
                .fetch(&mut *tx);
            while let Some(row) = stream.try_next().await.map_err(|e| self.unavailable(e))? {
                let place: i32 = row.try_get("place").map_err(|e| self.unavailable(e))?;
                let event_id: String = row.try_get("id").map_err(|e| self.unavailable(e))?;
                let created: Option<i64> =
                    row.try_get("created").map_err(|e| self.unavailable(e))?;
                let origin = Origin::Row {
                    source: name.clone(),
                    event_id,
                };
                // Places count from one, in the order the keys were given.
                let rows = usize::try_from(place)
                    .ok()
                    .and_then(|place| unread.get_mut(place.checked_sub(1)?))
                    .ok_or_else(|| SourceError::Unavailable {
                        source_name: self.describe_name(),
                        detail: format!(
                            "an event row of session number {place} of {}",
                            sessions.len()
                        ),
                    })?;
                rows.push((created, row, origin));
            }
        }
        // The transaction is done before the rows are read, so that the
        // connection is free for the next batch meanwhile.
        let rows: Vec<usize> = unread.iter().map(Vec::len).collect();
        let tasks = self.read_tasks(&mut tx, &sessions, &rows, record).await?;
        tx.rollback().await.map_err(|e| self.unavailable(e))?;
        // Reading the JSON is most of the work: on every core, beside
        // whatever the caller is doing meanwhile.
        let keep = self.keep_json;
        let read = map_in_order_beside(unread, move |rows| {
            let mut session = SessionRows::default();
            for (created, row, origin) in rows {
                // The text column's bytes as they came, not copied into a
                // String: the reader checks they are UTF-8 as it parses.
                let parsed = match row.try_get_unchecked::<&[u8], _>("data") {
                    Ok(data) => parse_event(data, origin, keep),
                    Err(e) => Err(Issue::new(&origin, format!("the row cannot be read: {e}"))),
                };
                session.add(created, parsed);
            }
            session.finish()
        })
        .await;
        for ((session, raw), tasks) in sessions.iter_mut().zip(read).zip(tasks) {
            session.raw = raw;
            if let Some(tasks) = tasks {
                session.use_tasks(tasks, &name, keep);
            }
        }
        Ok(sessions)
    }
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
    ) -> Result<Vec<Option<Vec<StoredTask>>>, SourceError> {
        let mut read: Vec<Option<Vec<StoredTask>>> = sessions.iter().map(|_| None).collect();
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
            .fetch_all(&mut **tx)
            .await
            .map_err(|e| self.unavailable(e))?;
        let mut tasks: Vec<Vec<StoredTask>> = wanted.iter().map(|_| Vec::new()).collect();
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
            tasks[slot].push(StoredTask {
                id: get("id")?.unwrap_or_default(),
                data: TaskData::Text(get("data")?.unwrap_or_default()),
                protocol: get("protocol_version")?,
            });
        }
        for (slot, found) in tasks.into_iter().enumerate() {
            // With no task either, the session keeps its (empty) events.
            if !found.is_empty() || record == RecordChoice::Tasks {
                read[wanted[slot]] = Some(found);
            }
        }
        Ok(read)
    }
}
