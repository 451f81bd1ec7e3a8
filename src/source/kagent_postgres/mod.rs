//! kagent's own PostgreSQL database, of either line: the connection, the
//! read-only transaction, and which line and schema a database is (here);
//! kagent v0.8 to 0.10's tables read by [`v0_10`], kagent 1.0's by [`v1`].
//! The two lines share this module and never each other.
//!
//! Every query runs in a `READ ONLY` transaction on connections whose
//! default is read-only too; soft-deleted rows are left out; a session is
//! `(id, user_id)`; the agent filter is part of each query. Event rows of a
//! batch of sessions come back in one round trip, streamed, each session
//! decoded on another core once its last row is in. A session with
//! no events (an agent on a runtime other than ADK) is read from its A2A
//! tasks, in a second query of the same transaction.

mod v0_10;
pub mod v1;

use crate::core::ingest::KeepJson;
use crate::core::read_limits::ReadLimits;
use crate::core::session::{AgentRef, SessionKey};
use crate::core::suite::rules::NameKind;
use crate::core::task::RecordChoice;
use crate::secret::Secret;
use crate::source::{RawSession, SessionQuery, SessionSource, SessionSummary, SourceError};
use sqlx::Row;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

/// Which kagent line a database is, from the tables it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    /// kagent 0.10: ADK's `event` table and A2A `task` records.
    V010,
    /// kagent 1.0, in one of the two schema generations the contract describes.
    V1(Generation),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generation {
    /// `session` holds the owner and revision; `runtime_revision` the Agent.
    B,
    /// `runtime_instance` and `agent_revision`, joined in views.
    C,
}

impl Line {
    pub fn words(self) -> &'static str {
        match self {
            Line::V010 => "kagent 0.10",
            Line::V1(Generation::B) => "kagent 1.0 (schema generation B)",
            Line::V1(Generation::C) => "kagent 1.0",
        }
    }
}

/// The schemas searched for kagent's tables when none is named: kagent's
/// Helm chart puts 1.0's in `kagent`; a database made by hand has them in
/// `public`.
pub const SCHEMAS_SEARCHED: [&str; 2] = ["kagent", "public"];

/// The newest goose migration of kagent 1.0 that this reader was verified
/// against (1.0.0 and 1.0.1: the baseline, `000001_initial.sql`).
pub const VERIFIED_GOOSE_VERSION: i64 = 1;

const DETECT: &str = "
SELECT table_schema::text AS schema, table_name::text AS name FROM information_schema.tables
 WHERE table_schema = ANY($1)
   AND table_name IN ('session', 'event', 'session_task', 'session_task_event',
                      'runtime_revision', 'session_record', 'agent_runtime_revision',
                      'goose_db_version')";

/// Where kagent's tables were found, and which line they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub line: Line,
    pub schema: String,
    /// Whether the schema has goose's version table (kagent 1.0).
    pub goose: bool,
}

/// The line of the database behind `tx`, in the first of `schemas` that
/// holds either line's tables, or what each schema lacks to be either.
pub async fn detect(
    tx: &mut sqlx::PgConnection,
    schemas: &[&str],
    source: &str,
) -> Result<Found, SourceError> {
    let found: Vec<(String, String)> = sqlx::query(DETECT)
        .bind(schemas)
        .fetch_all(&mut *tx)
        .await
        .map_err(|e| SourceError::Unavailable {
            source_name: source.to_string(),
            detail: format!("cannot read its tables: {e}"),
        })?
        .iter()
        .filter_map(|row| Some((row.try_get("schema").ok()?, row.try_get("name").ok()?)))
        .collect();
    let mut lacks = Vec::new();
    for schema in schemas {
        let tables: Vec<&str> = found
            .iter()
            .filter(|(s, _)| s == schema)
            .map(|(_, t)| t.as_str())
            .collect();
        match line_of(&tables) {
            Ok(line) => {
                return Ok(Found {
                    line,
                    schema: schema.to_string(),
                    goose: tables.contains(&"goose_db_version"),
                });
            }
            Err(Unfit::Lacks(why)) => lacks.push(format!("in schema {schema} {why}")),
            Err(Unfit::Ambiguous(why)) => {
                return Err(SourceError::Unavailable {
                    source_name: source.to_string(),
                    detail: format!("schema {schema} {why}"),
                });
            }
        }
    }
    Err(SourceError::Unavailable {
        source_name: source.to_string(),
        detail: format!("not a kagent 0.10 or 1.0 database: {}", lacks.join("; ")),
    })
}

/// Why a schema's tables make no line.
enum Unfit {
    /// They lack what either line needs: another schema may hold them.
    Lacks(String),
    /// They hold what cannot be told apart: an error, never a guess.
    Ambiguous(String),
}

/// The line that `tables` make, or why they make none.
fn line_of(tables: &[&str]) -> Result<Line, Unfit> {
    let has = |t: &str| tables.contains(&t);
    let missing = |wanted: &[&'static str]| -> Vec<&'static str> {
        wanted.iter().copied().filter(|t| !has(t)).collect()
    };
    let v010 = missing(&["session", "event"]);
    let v1 = missing(&[
        "session",
        "session_task",
        "session_task_event",
        "runtime_revision",
    ]);
    let views = (has("session_record"), has("agent_runtime_revision"));
    match (v010.is_empty(), v1.is_empty(), views) {
        (true, true, _) => Err(Unfit::Ambiguous(
            "holds both kagent 0.10's tables (session, event) and 1.0's (session_task, session_task_event, runtime_revision): kagent 1.0 never shares a database with 0.10, so which line it is cannot be told; name the schema that holds one of them".into(),
        )),
        (true, false, _) => Ok(Line::V010),
        (false, true, (true, true)) => Ok(Line::V1(Generation::C)),
        (false, true, (false, false)) => Ok(Line::V1(Generation::B)),
        (false, true, (record, _)) => Err(Unfit::Ambiguous(format!(
            "holds kagent 1.0's tables and the view {} without {}: neither schema generation B (no views) nor C (both)",
            if record { "session_record" } else { "agent_runtime_revision" },
            if record { "agent_runtime_revision" } else { "session_record" },
        ))),
        (false, false, _) => Err(Unfit::Lacks(format!(
            "for 0.10 it lacks the table(s) {}, for 1.0 {}",
            v010.join(", "),
            v1.join(", ")
        ))),
    }
}

/// Keys as either line's fetch binds them: the ids and users of `(id,
/// user)` pairs, and the ids asked for any user.
fn key_lists(keys: &[SessionKey]) -> (Vec<String>, Vec<String>, Vec<String>) {
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
    (pair_ids, pair_users, any_user)
}

/// The newest goose migration applied in `schema`, which has goose's
/// table and needs no quoting (it was searched or named as a
/// [`NameKind::SqlSchema`]).
pub async fn goose_version(
    tx: &mut sqlx::PgConnection,
    schema: &str,
) -> Result<Option<i64>, sqlx::Error> {
    debug_assert!(NameKind::SqlSchema.allows(schema));
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT max(version_id)::int8 FROM \"{schema}\".goose_db_version WHERE is_applied"
    )))
    .fetch_one(&mut *tx)
    .await
}

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
    /// How much of one session is held.
    limits: ReadLimits,
}

impl std::fmt::Debug for KagentPostgres {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KagentPostgres")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

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
    pub fn new(
        url: Secret,
        schema: Option<String>,
        limits: ReadLimits,
    ) -> Result<Self, SourceError> {
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
            limits,
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
            Some(v) if v > VERIFIED_GOOSE_VERSION => format!(
                ", goose version {v}, newer than the {} verified",
                VERIFIED_GOOSE_VERSION
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
                    None => &SCHEMAS_SEARCHED,
                };
                let found = detect(tx, schemas, &self.describe_name()).await?;
                let goose = match found.goose {
                    true => goose_version(tx, &found.schema)
                        .await
                        .map_err(|e| self.unavailable(e))?,
                    false => None,
                };
                if let Some(version) =
                    goose.filter(|v| *v > VERIFIED_GOOSE_VERSION)
                {
                    tracing::warn!(
                        database = %self.location,
                        schema = %found.schema,
                        "kagent's goose migration version {version} is newer than the {} this reader was verified against: read as kagent 1.0",
                        VERIFIED_GOOSE_VERSION
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
        let listed = match self.line() {
            Line::V1(generation) => v1::list(self, &mut tx, generation, query).await,
            Line::V010 => v0_10::list(self, &mut tx, query).await,
        };
        tx.rollback().await.map_err(|e| self.unavailable(e))?;
        listed
    }

    async fn fetch(
        &self,
        keys: &[SessionKey],
        agent: Option<&AgentRef>,
        record: RecordChoice,
    ) -> Result<Vec<RawSession>, SourceError> {
        let mut tx = self.read_only().await?;
        match self.line() {
            Line::V1(generation) => {
                let fetched = v1::fetch(self, &mut tx, generation, keys, agent).await;
                tx.rollback().await.map_err(|e| self.unavailable(e))?;
                fetched
            }
            Line::V010 => v0_10::fetch(self, tx, keys, agent, record).await,
        }
    }
}
