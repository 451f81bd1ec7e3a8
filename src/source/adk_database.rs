//! Google ADK's `DatabaseSessionService` tables, where kagent's sandbox
//! agents and plain ADK apps keep sessions: a SQLite file (ADK's embedded
//! default) or PostgreSQL. ADK 2.x keeps each event as JSON in
//! `events.event_data` (its schema version 1, learnt from a database made by
//! google-adk 2.6.3: tests/data/adk-database).
//!
//! Sessions are `(app_name, user_id, id)`; the app is the source's scope and
//! is part of every query. Connections are read-only.

use super::{RawSession, SessionQuery, SessionSource, SessionSummary, SourceError, read_held};
use crate::core::ingest::{KeepJson, Origin};
use crate::core::parallel::map_in_order_beside;
use crate::core::read_limits::{Held, ReadLimits};
use crate::core::session::{AgentRef, SessionKey};
use crate::core::task::{Record, RecordChoice};
use crate::secret::Secret;
use futures::TryStreamExt;
use sqlx::Row;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Backend {
    Sqlite,
    Postgres,
}

pub struct AdkDatabase {
    pool: sqlx::Pool<sqlx::Any>,
    backend: Backend,
    app: String,
    name: Arc<str>,
    url: Secret,
    /// Whether each event's JSON is kept beside it (`extract --raw`).
    pub(super) keep_json: KeepJson,
    /// How much of one session is held.
    limits: ReadLimits,
}

impl std::fmt::Debug for AdkDatabase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdkDatabase")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// SQLAlchemy spellings (`sqlite+aiosqlite:///app.db`,
/// `postgresql+asyncpg://...`) as sqlx URLs, read-only, and a description.
fn connection(url: &str) -> Result<(Backend, String, String), String> {
    let (scheme, rest) = url
        .split_once(':')
        .ok_or("not a URL: expected sqlite:PATH or postgres://...")?;
    let scheme = scheme.split('+').next().unwrap_or(scheme);
    match scheme {
        "sqlite" => {
            let rest = rest.split('?').next().unwrap_or(rest);
            // SQLAlchemy (what ADK takes) reads sqlite:///x.db as relative and
            // sqlite:////x.db as absolute; sqlx reads sqlite:///x.db as
            // absolute. Take the relative file when it exists, else the absolute.
            let candidates: Vec<String> = match rest.strip_prefix("///") {
                Some(path) if path.starts_with('/') => vec![path.to_string()],
                Some(path) => vec![path.to_string(), format!("/{path}")],
                None => vec![rest.strip_prefix("//").unwrap_or(rest).to_string()],
            };
            if candidates.iter().all(|p| p.is_empty() || p == ":memory:") {
                return Err("an ADK SQLite database needs a file".into());
            }
            let file = candidates
                .iter()
                .map(std::path::PathBuf::from)
                .find(|p| p.is_file())
                .ok_or_else(|| format!("no such file: {}", candidates[0]))?;
            let absolute = std::path::absolute(&file).map_err(|e| e.to_string())?;
            Ok((
                Backend::Sqlite,
                format!("sqlite://{}?mode=ro", absolute.display()),
                format!("ADK SQLite database {}", absolute.display()),
            ))
        }
        "postgres" | "postgresql" => {
            let sqlx_url = format!("postgres:{rest}");
            let options: sqlx::postgres::PgConnectOptions =
                sqlx_url.parse().map_err(|e: sqlx::Error| e.to_string())?;
            let separator = if sqlx_url.contains('?') { '&' } else { '?' };
            Ok((
                Backend::Postgres,
                format!("{sqlx_url}{separator}options=-c%20default_transaction_read_only%3Don"),
                format!(
                    "ADK PostgreSQL database at {}:{}/{}",
                    options.get_host(),
                    options.get_port(),
                    options.get_database().unwrap_or("postgres")
                ),
            ))
        }
        other => Err(format!(
            "unsupported database `{other}`: expected sqlite or postgres"
        )),
    }
}

impl AdkDatabase {
    pub fn new(
        url: Secret,
        app: impl Into<String>,
        limits: ReadLimits,
    ) -> Result<Self, SourceError> {
        sqlx::any::install_default_drivers();
        let (backend, sqlx_url, name) = connection(url.expose()).map_err(|e| {
            SourceError::Config(format!(
                "the ADK database URL is not usable: {}",
                url.scrub(&e)
            ))
        })?;
        let pool = sqlx::pool::PoolOptions::<sqlx::Any>::new()
            .max_connections(2)
            .acquire_timeout(std::time::Duration::from_secs(15))
            .connect_lazy(&sqlx_url)
            .map_err(|e| SourceError::Config(url.scrub(&e.to_string())))?;
        Ok(AdkDatabase {
            pool,
            backend,
            app: app.into(),
            name: name.into(),
            url,
            keep_json: KeepJson::No,
            limits,
        })
    }

    fn unavailable(&self, error: sqlx::Error) -> SourceError {
        let detail = self.url.scrub(&error.to_string());
        if detail.contains("event_data") {
            return SourceError::Config(format!(
                "{} has no events.event_data column: it was written by google-adk before 2.0; migrate it with google-adk's session migration first",
                self.name
            ));
        }
        SourceError::Unavailable {
            source_name: self.name.to_string(),
            detail,
        }
    }

    /// The same statement for both backends: `$n` placeholders become
    /// SQLite's `?n`. Times and JSON are read `CAST(... AS TEXT)`, which
    /// both spell alike and sqlx's Any driver can decode.
    fn sql(&self, statement: &str) -> String {
        match self.backend {
            Backend::Sqlite => statement.replace('$', "?"),
            Backend::Postgres => statement.to_string(),
        }
    }

    async fn read_only(&self) -> Result<sqlx::Transaction<'static, sqlx::Any>, SourceError> {
        let begin = match self.backend {
            Backend::Sqlite => "BEGIN",
            Backend::Postgres => "BEGIN READ ONLY",
        };
        self.pool
            .begin_with(begin)
            .await
            .map_err(|e| self.unavailable(e))
    }

    /// ADK writes naive UTC times: `2026-09-03 20:05:01.065516`.
    fn time(text: &str) -> Option<jiff::Timestamp> {
        let civil: jiff::civil::DateTime = text.trim().replace(' ', "T").parse().ok()?;
        civil
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()
            .map(|z| z.timestamp())
    }
}

const LIST_SESSIONS: &str = "
SELECT s.id, s.user_id, CAST(s.update_time AS TEXT) AS updated,
       (SELECT count(*) FROM events e
         WHERE e.app_name = s.app_name AND e.user_id = s.user_id AND e.session_id = s.id) AS events
  FROM sessions s
 WHERE s.app_name = $1
 ORDER BY s.update_time DESC, s.id, s.user_id";

const SESSIONS_BY_ID: &str = "SELECT id, user_id FROM sessions WHERE app_name = $1 AND id = $2";

const EVENTS_OF_SESSION: &str = "
SELECT id, CAST(octet_length(CAST(event_data AS TEXT)) AS BIGINT) AS size,
       CASE WHEN octet_length(CAST(event_data AS TEXT)) <= $4 THEN CAST(event_data AS TEXT) END AS data,
       CAST(\"timestamp\" AS TEXT) AS at
  FROM events
 WHERE app_name = $1 AND user_id = $2 AND session_id = $3
 ORDER BY \"timestamp\", id";

impl SessionSource for AdkDatabase {
    fn describe(&self) -> String {
        self.name.to_string()
    }

    async fn list(&self, query: &SessionQuery) -> Result<Vec<SessionSummary>, SourceError> {
        let mut tx = self.read_only().await?;
        let rows = sqlx::query(sqlx::AssertSqlSafe(self.sql(LIST_SESSIONS)))
            .bind(&self.app)
            .fetch_all(&mut *tx)
            .await
            .map_err(|e| self.unavailable(e))?;
        tx.rollback().await.map_err(|e| self.unavailable(e))?;
        let mut out = Vec::new();
        for row in rows {
            let updated: Option<String> =
                row.try_get("updated").map_err(|e| self.unavailable(e))?;
            let updated = updated.as_deref().and_then(Self::time);
            if query
                .since
                .is_some_and(|since| updated.is_none_or(|u| u < since))
            {
                continue;
            }
            out.push(SessionSummary {
                key: SessionKey::new(
                    row.try_get::<String, _>("id")
                        .map_err(|e| self.unavailable(e))?,
                    Some(row.try_get("user_id").map_err(|e| self.unavailable(e))?),
                ),
                revision: None,
                agent_id: Some(self.app.clone()),
                events: Some(
                    row.try_get::<i64, _>("events")
                        .map_err(|e| self.unavailable(e))? as u64,
                ),
                updated,
            });
            if query.limit.is_some_and(|l| out.len() >= l) {
                break;
            }
        }
        Ok(out)
    }

    /// ADK has no agents table: the app is the scope, whatever `agent` says.
    async fn fetch(
        &self,
        keys: &[SessionKey],
        _agent: Option<&AgentRef>,
        record: RecordChoice,
    ) -> Result<Vec<RawSession>, SourceError> {
        if record == RecordChoice::Tasks {
            return Err(SourceError::Config(format!(
                "{} holds ADK's events only, no A2A tasks",
                self.name
            )));
        }
        let mut tx = self.read_only().await?;
        let mut found = Vec::new();
        for key in keys {
            let sessions = sqlx::query(sqlx::AssertSqlSafe(self.sql(SESSIONS_BY_ID)))
                .bind(&self.app)
                .bind(&key.id)
                .fetch_all(&mut *tx)
                .await
                .map_err(|e| self.unavailable(e))?;
            for session in sessions {
                let user: String = session
                    .try_get("user_id")
                    .map_err(|e| self.unavailable(e))?;
                if key.user_id.as_ref().is_some_and(|u| *u != user) {
                    continue;
                }
                let mut rows = sqlx::query(sqlx::AssertSqlSafe(self.sql(EVENTS_OF_SESSION)))
                    .bind(&self.app)
                    .bind(&user)
                    .bind(&key.id)
                    .bind(i64::try_from(self.limits.row_bytes).unwrap_or(i64::MAX))
                    .fetch(&mut *tx);
                let mut held: Held<Vec<_>> = Held::default();
                while let Some(row) = rows.try_next().await.map_err(|e| self.unavailable(e))? {
                    let event_id: String = row.try_get("id").map_err(|e| self.unavailable(e))?;
                    let data: Option<String> =
                        row.try_get("data").map_err(|e| self.unavailable(e))?;
                    let at: Option<String> = row.try_get("at").map_err(|e| self.unavailable(e))?;
                    let origin = Origin::Row {
                        source: self.name.clone(),
                        event_id,
                    };
                    let stored = at
                        .as_deref()
                        .and_then(Self::time)
                        .map(|t| t.as_microsecond());
                    let size: Option<i64> = row.try_get("size").map_err(|e| self.unavailable(e))?;
                    if held.admits(size.map_or(0, i64::unsigned_abs), &self.limits, || {
                        origin.clone()
                    }) {
                        held.rows_mut()
                            .push((stored, data.unwrap_or_default(), origin));
                    }
                }
                drop(rows);
                found.push((SessionKey::new(key.id.clone(), Some(user)), held));
            }
        }
        tx.rollback().await.map_err(|e| self.unavailable(e))?;
        // Reading the JSON is most of the work: on every core, off the
        // runtime's threads.
        let keep = self.keep_json;
        let (app, limits) = (self.app.clone(), self.limits);
        Ok(map_in_order_beside(found, move |(key, held)| RawSession {
            key,
            agent_id: Some(app.clone()),
            raw: read_held(held, keep, &limits, |data: &String| Ok(data.as_bytes())),
            record: Record::Events,
            revision: None,
            rows: None,
        })
        .await)
    }
}

#[cfg(test)]
mod tests {
    use super::connection;

    #[test]
    fn sqlalchemy_urls_are_understood() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("app.db");
        std::fs::write(&file, b"").unwrap();
        // An absolute path in SQLAlchemy's four-slash and sqlx's three-slash spellings.
        for spelling in [
            format!("sqlite+aiosqlite:///{}", file.display()),
            format!("sqlite://{}", file.display()),
        ] {
            let (_, url, _) = connection(&spelling).unwrap();
            assert_eq!(
                url,
                format!("sqlite://{}?mode=ro", file.display()),
                "{spelling}"
            );
        }
        let (_, url, name) = connection(&format!("sqlite:{}", file.display())).unwrap();
        assert_eq!(url, format!("sqlite://{}?mode=ro", file.display()));
        assert!(name.starts_with("ADK SQLite database"));
        let (_, url, name) = connection("postgresql+asyncpg://adk:pw@db:5432/adk").unwrap();
        assert_eq!(
            url,
            "postgres://adk:pw@db:5432/adk?options=-c%20default_transaction_read_only%3Don"
        );
        assert_eq!(name, "ADK PostgreSQL database at db:5432/adk");
        assert!(!name.contains("pw"));
        assert!(connection("mysql://x").is_err());
        assert!(connection("sqlite:///no/such/file.db").is_err());
    }
}
