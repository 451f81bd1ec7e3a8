//! A database of its own for each test, in the PostgreSQL that `.ci/run`
//! starts (`KAGENT_EVALS_TEST_DATABASE_URL`, a superuser URL).

use sqlx::{Connection, Executor, PgConnection};
use std::sync::atomic::{AtomicU32, Ordering};

pub const URL_VAR: &str = "KAGENT_EVALS_TEST_DATABASE_URL";

pub fn admin_url() -> Option<String> {
    std::env::var(URL_VAR).ok().filter(|u| !u.is_empty())
}
/// A fresh, empty database; its URL carries the admin credentials.
pub struct TestDatabase {
    pub url: String,
}

impl TestDatabase {
    pub async fn create(label: &str) -> TestDatabase {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let admin = admin_url().expect("checked before the tests ran");
        let name = format!(
            "t_{}_{}_{}",
            label,
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let mut conn = PgConnection::connect(&admin)
            .await
            .expect("connect to the test PostgreSQL");
        // The name is made here from a label, a pid and a counter: no injection.
        conn.execute(sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
            "CREATE DATABASE {name}"
        ))))
        .await
        .expect("create database");
        let url = match admin.rsplit_once('/') {
            Some((server, tail)) => {
                let query = tail
                    .split_once('?')
                    .map(|(_, q)| format!("?{q}"))
                    .unwrap_or_default();
                format!("{server}/{name}{query}")
            }
            None => panic!("{URL_VAR} has no database path"),
        };
        TestDatabase { url }
    }
}

/// A session to put into kagent's tables.
pub struct SeedSession<'a> {
    pub id: &'a str,
    pub user: &'a str,
    pub agent_id: &'a str,
    /// `agent` for a session a parent agent opened.
    pub source: Option<&'a str>,
    /// Seconds before now of the last update.
    pub age_seconds: i64,
    pub deleted: bool,
    /// Event JSON texts in order.
    pub events: Vec<String>,
}

impl TestDatabase {
    /// Create kagent's schema and insert sessions with their events, each
    /// event a second after the one before, as kagent inserts them.
    pub async fn seed_kagent(&self, sessions: &[SeedSession<'_>]) {
        let mut conn = PgConnection::connect(&self.url).await.unwrap();
        let schema = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/kagent-schema.sql"
        ))
        .unwrap();
        conn.execute(sqlx::raw_sql(sqlx::AssertSqlSafe(schema)))
            .await
            .unwrap();
        for s in sessions {
            sqlx::query(
                "INSERT INTO session (id, user_id, name, created_at, updated_at, deleted_at, agent_id, source)
                 VALUES ($1, $2, $1, now() - make_interval(secs => $3 + 100), now() - make_interval(secs => $3),
                         CASE WHEN $4 THEN now() END, $5, $6)",
            )
            .bind(s.id)
            .bind(s.user)
            .bind(s.age_seconds as f64)
            .bind(s.deleted)
            .bind(s.agent_id)
            .bind(s.source)
            .execute(&mut conn)
            .await
            .unwrap();
            for (i, data) in s.events.iter().enumerate() {
                sqlx::query(
                    "INSERT INTO event (id, user_id, session_id, created_at, updated_at, data)
                     VALUES ($1, $2, $3, now() - make_interval(secs => $4 + 100 - $5), now(), $6)",
                )
                .bind(format!("{}-{}-{i}", s.id, s.user))
                .bind(s.user)
                .bind(s.id)
                .bind(s.age_seconds as f64)
                .bind(i as f64)
                .bind(data)
                .execute(&mut conn)
                .await
                .unwrap();
            }
        }
    }

    /// A2A task rows of a session, a second apart, as kagent's task store
    /// writes them: `(task id, JSON, owner)`, `protocol_version` NULL.
    pub async fn seed_tasks(&self, session: &str, tasks: &[(&str, &str, Option<&str>)]) {
        let mut conn = PgConnection::connect(&self.url).await.unwrap();
        for (i, (id, data, owner)) in tasks.iter().enumerate() {
            sqlx::query(
                "INSERT INTO task (id, created_at, updated_at, data, session_id, user_id)
                 VALUES ($1, now() - make_interval(secs => 100 - $2), now(), $3, $4, $5)",
            )
            .bind(id)
            .bind(i as f64)
            .bind(data)
            .bind(session)
            .bind(owner)
            .execute(&mut conn)
            .await
            .unwrap();
        }
    }

    pub async fn execute(&self, sql: &str) {
        let mut conn = PgConnection::connect(&self.url).await.unwrap();
        conn.execute(sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_string())))
            .await
            .unwrap();
    }
}
