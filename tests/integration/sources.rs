//! The session sources against real databases and a real HTTP server:
//! kagent's PostgreSQL, ADK's own tables in SQLite and PostgreSQL, and the
//! kagent REST API (served here by a local axum server).

use crate::support::postgres::{SeedSession, TestDatabase};
use crate::support::runtime;
use crate::support::{assert_refused, over_each_limit, read_within};
use crate::{Need, Test};
use kagent_evals::core::convert::{ConvertOptions, convert};
use kagent_evals::core::ingest::{KeepJson, read_jsonl};
use kagent_evals::core::read_limits::ReadLimits;
use kagent_evals::core::session::{AgentRef, Session, SessionKey};
use kagent_evals::core::task::{Record, RecordChoice};
use kagent_evals::http_client::Retry;
use kagent_evals::secret::Secret;
use kagent_evals::source::adk_database::AdkDatabase;
use kagent_evals::source::kagent_api::KagentApi;
use kagent_evals::source::kagent_postgres::KagentPostgres;
use kagent_evals::source::{RawSession, SessionQuery, SessionSource};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

pub fn tests() -> Vec<Test> {
    vec![
        Test {
            name: "sources::an_infinite_time_fails_no_batch_and_holds_no_recent_window",
            needs: &[Need::Postgres],
            run: infinite_times,
        },
        Test {
            name: "sources::a_session_over_a_read_limit_is_unreadable_and_the_others_are_read",
            needs: &[Need::Postgres],
            run: over_limits,
        },
        Test {
            name: "sources::a_hostile_user_id_draws_no_row_of_its_own_in_the_listing",
            needs: &[Need::Postgres],
            run: hostile_listing,
        },
        Test {
            name: "sources::kagent_postgres_reads_back_the_captured_trajectories",
            needs: &[Need::Postgres],
            run: reads_back_captured,
        },
        Test {
            name: "sources::kagent_postgres_leaves_out_soft_deleted_rows",
            needs: &[Need::Postgres],
            run: soft_deletes,
        },
        Test {
            name: "sources::kagent_postgres_keeps_two_users_with_one_session_id_apart",
            needs: &[Need::Postgres],
            run: two_users,
        },
        Test {
            name: "sources::kagent_postgres_filters_agent_sub_agent_since_and_limit",
            needs: &[Need::Postgres],
            run: filters,
        },
        Test {
            name: "sources::kagent_postgres_refuses_writes",
            needs: &[Need::Postgres],
            run: refuses_writes,
        },
        Test {
            name: "sources::kagent_postgres_reports_a_broken_row_and_scores_the_rest",
            needs: &[Need::Postgres],
            run: broken_row,
        },
        Test {
            name: "sources::kagent_postgres_down_names_the_host_not_the_password",
            needs: &[Need::Postgres],
            run: database_down,
        },
        Test {
            name: "sources::adk_database_sqlite_file",
            needs: &[],
            run: adk_sqlite,
        },
        Test {
            name: "sources::adk_database_postgres",
            needs: &[Need::Postgres],
            run: adk_postgres,
        },
        Test {
            name: "sources::kagent_postgres_reads_a_sessions_tasks_when_it_has_no_events",
            needs: &[Need::Postgres],
            run: tasks_record,
        },
        Test {
            name: "sources::kagent_api_envelope_retries_and_errors",
            needs: &[],
            run: kagent_api,
        },
    ]
}

fn captured(name: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/kagent-captured")
        .join(name);
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(String::from)
        .collect()
}

fn trajectory(session: Session) -> Value {
    serde_json::to_value(convert(&session.events, &ConvertOptions::default()).messages).unwrap()
}

fn from_file(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/kagent-captured")
        .join(name);
    let raw = read_jsonl(std::fs::read(path).unwrap().as_slice(), name, KeepJson::No).unwrap();
    trajectory(Session::from_raw(SessionKey::new("s", None), None, raw))
}

const WEATHER: &str = "kagent__NS__weather_assistant";

fn weather() -> AgentRef {
    "kagent/weather-assistant".parse().unwrap()
}

fn seed<'a>(id: &'a str, user: &'a str, agent_id: &'a str, capture: &str) -> SeedSession<'a> {
    SeedSession {
        id,
        user,
        agent_id,
        source: None,
        age_seconds: 60,
        deleted: false,
        events: captured(capture),
    }
}

async fn kagent(db: &TestDatabase) -> KagentPostgres {
    KagentPostgres::new(Secret::new(db.url.clone()), None, ReadLimits::default()).unwrap()
}

async fn fetch(
    source: &impl SessionSource,
    keys: &[SessionKey],
    agent: Option<&AgentRef>,
) -> Vec<RawSession> {
    source.fetch(keys, agent, RecordChoice::Auto).await.unwrap()
}

fn reads_back_captured() {
    runtime().block_on(async {
        let db = TestDatabase::create("captured").await;
        let files = [
            "weather-grounded.jsonl",
            "weather-ungrounded.jsonl",
            "weather-wrong-city.jsonl",
            "github-assistant-session.jsonl",
        ];
        let sessions: Vec<SeedSession> = files
            .iter()
            .map(|f| {
                seed(
                    f.trim_end_matches(".jsonl"),
                    "admin@kagent.dev",
                    if f.starts_with("weather") {
                        WEATHER
                    } else {
                        "kagent__NS__github_assistant"
                    },
                    f,
                )
            })
            .collect();
        db.seed_kagent(&sessions).await;
        let source = kagent(&db).await;
        let keys: Vec<SessionKey> = files
            .iter()
            .map(|f| SessionKey::new(f.trim_end_matches(".jsonl"), None))
            .collect();
        let fetched = fetch(&source, &keys, None).await;
        assert_eq!(fetched.len(), 4);
        for raw in fetched {
            let file = format!("{}.jsonl", raw.key.id);
            assert!(raw.raw.issues.is_empty(), "{:?}", raw.raw.issues);
            assert_eq!(raw.key.user_id.as_deref(), Some("admin@kagent.dev"));
            assert_eq!(trajectory(raw.normalise()), from_file(&file), "{file}");
        }
        let listed = source
            .list(&SessionQuery {
                agent: Some(weather()),
                count_events: true,
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(listed.len(), 3);
        assert!(
            listed
                .iter()
                .all(|s| s.agent_id.as_deref() == Some(WEATHER))
        );
        assert_eq!(
            listed
                .iter()
                .find(|s| s.key.id == "weather-grounded")
                .unwrap()
                .events,
            Some(6)
        );
    });
}

fn soft_deletes() {
    runtime().block_on(async {
        let db = TestDatabase::create("softdelete").await;
        let mut gone = seed("gone", "u", WEATHER, "weather-grounded.jsonl");
        gone.deleted = true;
        db.seed_kagent(&[gone, seed("kept", "u", WEATHER, "weather-grounded.jsonl")])
            .await;
        db.execute(
            "UPDATE event SET deleted_at = now() WHERE session_id = 'kept' AND id LIKE '%-1'",
        )
        .await;
        let source = kagent(&db).await;
        let counted = SessionQuery {
            count_events: true,
            ..Default::default()
        };
        let listed = source.list(&counted).await.unwrap();
        assert_eq!(
            listed.iter().map(|s| s.key.id.as_str()).collect::<Vec<_>>(),
            ["kept"]
        );
        assert_eq!(listed[0].events, Some(5));
        // A run's listing does not ask for counts, and is not made to wait for them.
        let uncounted = source.list(&SessionQuery::default()).await.unwrap();
        assert_eq!(uncounted[0].events, None);
        let fetched = fetch(
            &source,
            &[SessionKey::new("gone", None), SessionKey::new("kept", None)],
            None,
        )
        .await;
        assert_eq!(fetched.len(), 1);
        assert_eq!(
            fetched[0].raw.events.len(),
            5,
            "the soft-deleted event is left out"
        );
    });
}

fn two_users() {
    runtime().block_on(async {
        let db = TestDatabase::create("twousers").await;
        db.seed_kagent(&[
            seed("shared", "alice", WEATHER, "weather-grounded.jsonl"),
            seed("shared", "bob", WEATHER, "weather-wrong-city.jsonl"),
        ])
        .await;
        let source = kagent(&db).await;
        let alice = fetch(
            &source,
            &[SessionKey::new("shared", Some("alice".into()))],
            None,
        )
        .await;
        assert_eq!(alice.len(), 1);
        assert_eq!(
            trajectory(alice[0].clone().normalise()),
            from_file("weather-grounded.jsonl")
        );
        let bob = fetch(
            &source,
            &[SessionKey::new("shared", Some("bob".into()))],
            None,
        )
        .await;
        assert_eq!(
            trajectory(bob[0].clone().normalise()),
            from_file("weather-wrong-city.jsonl")
        );
        let both = fetch(&source, &[SessionKey::new("shared", None)], None).await;
        let users: Vec<_> = both
            .iter()
            .map(|s| s.key.user_id.clone().unwrap())
            .collect();
        assert_eq!(users, ["alice", "bob"]);
        assert!(
            both.iter().all(|s| s.raw.events.len() == 6),
            "no events cross between the users"
        );
    });
}

fn filters() {
    runtime().block_on(async {
        let db = TestDatabase::create("filters").await;
        let mut sub = seed("sub", "u", WEATHER, "weather-grounded.jsonl");
        sub.source = Some("agent");
        let mut old = seed("old", "u", WEATHER, "weather-grounded.jsonl");
        old.age_seconds = 3 * 86_400;
        let mut newest = seed("newest", "u", WEATHER, "weather-grounded.jsonl");
        newest.age_seconds = 10;
        db.seed_kagent(&[
            seed("recent", "u", WEATHER, "weather-grounded.jsonl"),
            sub,
            old,
            newest,
            seed(
                "other-agent",
                "u",
                "kagent__NS__k8s_agent",
                "github-assistant-session.jsonl",
            ),
        ])
        .await;
        let source = kagent(&db).await;
        let ids = |listed: Vec<kagent_evals::source::SessionSummary>| {
            listed.into_iter().map(|s| s.key.id).collect::<Vec<_>>()
        };
        let agent = Some(weather());
        let all = source
            .list(&SessionQuery {
                agent: agent.clone(),
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(
            ids(all),
            ["newest", "recent", "old"],
            "sub-agent sessions are left out, most recent first"
        );
        let with_sub = source
            .list(&SessionQuery {
                agent: agent.clone(),
                include_sub_agent_sessions: true,
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(with_sub.len(), 4);
        let since = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(24);
        let recent = source
            .list(&SessionQuery {
                agent: agent.clone(),
                since: Some(since),
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(ids(recent), ["newest", "recent"]);
        let limited = source
            .list(&SessionQuery {
                agent: agent.clone(),
                limit: Some(1),
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(ids(limited), ["newest"]);
        // Naming another agent's session does not reach it.
        let other = fetch(
            &source,
            &[SessionKey::new("other-agent", None)],
            agent.as_ref(),
        )
        .await;
        assert!(other.is_empty());
    });
}

/// `infinity` is a valid `timestamptz`: on one row it must cost that row
/// its time, not every Session of the batch its score; on a Session it
/// must not make it the most recent forever.
fn hostile_listing() {
    runtime().block_on(async {
        let db = TestDatabase::create("hostile_listing").await;
        let user = "eve\nforged-session   root   kagent__NS__admin   9   2026-01-01 00:00:00\u{1b}]0;pwned\u{7}\u{202e}";
        db.seed_kagent(&[seed("real", user, WEATHER, "weather-grounded.jsonl")]).await;
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
            .args(["sessions", "--source", "kagent-postgres"])
            .env("KAGENT_EVALS_DATABASE_URL", &db.url)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let listing = String::from_utf8(output.stdout).unwrap();
        assert_eq!(listing.lines().count(), 2, "a header and one session: {listing}");
        assert!(
            listing.contains(r"eve\u{a}forged-session") && listing.contains(r"\u{1b}]0;pwned\u{7}\u{202e}"),
            "{listing}"
        );
        assert!(!listing.chars().any(|c| c.is_control() && c != '\n' || c == '\u{202e}'), "{listing:?}");
    });
}

fn over_limits() {
    runtime().block_on(async {
        let db = TestDatabase::create("limits").await;
        db.seed_kagent(&[
            seed("a", "u", WEATHER, "weather-grounded.jsonl"),
            seed("b", "u", WEATHER, "weather-grounded.jsonl"),
        ])
        .await;
        // One long row in session a: still its event, as trailing blanks.
        db.execute(
            "UPDATE event SET data = data || repeat(' ', 10000)
              WHERE session_id = 'a' AND id = (SELECT min(id) FROM event WHERE session_id = 'a')",
        )
        .await;
        let keys = [SessionKey::new("a", None), SessionKey::new("b", None)];
        let read = |limits| read_within(&db.url, &keys, limits);
        let whole = read(ReadLimits::default()).await;
        assert_eq!(
            whole,
            [("a".into(), 6, vec![]), ("b".into(), 6, vec![])],
            "under the defaults"
        );
        let row = read(ReadLimits {
            row_bytes: 5_000,
            ..ReadLimits::default()
        })
        .await;
        assert_eq!((row[0].1, row[0].2.len()), (0, 1), "{row:?}");
        assert!(
            row[0].2[0]
                .contains("bytes, over the limit of 5000 per row (sessions.limits.rowBytes)"),
            "{row:?}"
        );
        assert_eq!(row[1], whole[1], "the other session is read");
        for (limits, says) in over_each_limit() {
            assert_refused(&read(limits).await, says);
        }
    });
}

fn infinite_times() {
    runtime().block_on(async {
        let db = TestDatabase::create("infinite").await;
        let mut old = seed("old", "u", WEATHER, "weather-grounded.jsonl");
        old.age_seconds = 3 * 86_400;
        db.seed_kagent(&[
            seed("a", "u", WEATHER, "weather-grounded.jsonl"),
            seed("b", "u", WEATHER, "weather-grounded.jsonl"),
            old,
        ])
        .await;
        db.execute(
            "UPDATE event SET created_at = 'infinity' WHERE session_id = 'a' AND id = (SELECT min(id) FROM event WHERE session_id = 'a');
             UPDATE session SET updated_at = 'infinity', created_at = '294276-01-01' WHERE id = 'old'",
        )
        .await;
        let source = kagent(&db).await;
        let keys = [SessionKey::new("a", None), SessionKey::new("b", None)];
        let fetched = fetch(&source, &keys, None).await;
        assert_eq!(fetched.len(), 2);
        for session in &fetched {
            assert!(session.raw.issues.is_empty(), "{:?}", session.raw.issues);
            assert_eq!(session.raw.events.len(), 6, "{}", session.key);
        }
        let listed = |since| {
            let source = &source;
            async move {
                let query = SessionQuery {
                    agent: Some(weather()),
                    since,
                    ..Default::default()
                };
                let listed = source.list(&query).await.unwrap();
                listed.into_iter().map(|s| s.key.id).collect::<Vec<_>>()
            }
        };
        let all = listed(None).await;
        assert_eq!(all.last().map(String::as_str), Some("old"), "{all:?}");
        let day = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(24);
        assert!(!listed(Some(day)).await.contains(&"old".to_string()));
        // Read, it says why it is listed last.
        let old = fetch(&source, &[SessionKey::new("old", None)], None).await;
        let notes: Vec<String> = old[0].raw.notes.iter().map(|n| n.to_string()).collect();
        assert!(
            notes.iter().any(|n| n.contains("session old: dated infinity, more than a day after the database's clock")),
            "{notes:?}"
        );
        assert!(fetched.iter().all(|s| s.raw.notes.is_empty()));
    });
}

fn refuses_writes() {
    runtime().block_on(async {
        let db = TestDatabase::create("readonly").await;
        db.seed_kagent(&[seed("s", "u", WEATHER, "weather-grounded.jsonl")])
            .await;
        let source = kagent(&db).await;
        let mut tx = source.read_only().await.unwrap();
        let error = sqlx::query("DELETE FROM event")
            .execute(&mut *tx)
            .await
            .unwrap_err();
        assert!(
            error.to_string().contains("read-only transaction"),
            "{error}"
        );
        drop(tx);
        let counted = SessionQuery {
            count_events: true,
            ..Default::default()
        };
        assert_eq!(source.list(&counted).await.unwrap()[0].events, Some(6));
    });
}

fn broken_row() {
    runtime().block_on(async {
        let db = TestDatabase::create("broken").await;
        let mut events = captured("weather-grounded.jsonl");
        events[3] = "{this is not json".into();
        db.seed_kagent(&[SeedSession {
            events,
            ..seed("s", "u", WEATHER, "weather-grounded.jsonl")
        }])
        .await;
        let source = kagent(&db).await;
        let fetched = fetch(&source, &[SessionKey::new("s", None)], None).await;
        let raw = &fetched[0].raw;
        assert_eq!(raw.events.len(), 5);
        assert_eq!(raw.issues.len(), 1);
        let issue = raw.issues[0].to_string();
        assert!(issue.contains(": event s-u-3: not JSON"), "{issue}");
        assert!(
            issue.starts_with("kagent 0.10 PostgreSQL at 127.0.0.1:"),
            "{issue}"
        );
        let messages = trajectory(fetched[0].clone().normalise());
        assert_eq!(
            messages.as_array().unwrap().len(),
            3,
            "user, call, answer survive the broken tool result"
        );
    });
}

fn database_down() {
    let port = crate::support::free_port();
    let url = format!("postgres://kagent:hunter2-secret@127.0.0.1:{port}/kagent");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args([
            "run",
            concat!(env!("CARGO_MANIFEST_DIR"), "/examples/weather/suite.yaml"),
            "--source",
            "kagent-postgres",
        ])
        .env("KAGENT_EVALS_DATABASE_URL", &url)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "kagent PostgreSQL at 127.0.0.1:{port}/kagent is unavailable"
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("hunter2"), "{stderr}");
    assert!(!String::from_utf8_lossy(&output.stdout).contains("hunter2"));
}

fn adk_expectations(url: String) {
    runtime().block_on(async {
        let source = &AdkDatabase::new(
            Secret::new(url.clone()),
            "weather_app",
            ReadLimits::default(),
        )
        .unwrap();
        let listed = source.list(&SessionQuery::default()).await.unwrap();
        let mut keys: Vec<(String, String)> = listed
            .iter()
            .map(|s| (s.key.id.clone(), s.key.user_id.clone().unwrap()))
            .collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                ("grounded".to_string(), "alice".to_string()),
                ("grounded".into(), "bob".into()),
                ("ungrounded".into(), "alice".into())
            ]
        );
        assert!(
            listed
                .iter()
                .all(|s| s.agent_id.as_deref() == Some("weather_app"))
        );
        let alice = fetch(
            source,
            &[SessionKey::new("grounded", Some("alice".into()))],
            None,
        )
        .await;
        assert_eq!(alice.len(), 1);
        assert_eq!(
            trajectory(alice[0].clone().normalise()),
            from_file("weather-grounded.jsonl")
        );
        let bob = fetch(
            source,
            &[SessionKey::new("grounded", Some("bob".into()))],
            None,
        )
        .await;
        assert_eq!(
            trajectory(bob[0].clone().normalise()),
            from_file("weather-wrong-city.jsonl")
        );
        assert!(
            fetch(source, &[SessionKey::new("github", None)], None)
                .await
                .is_empty(),
            "another app's session is out of scope"
        );
        let limited = source
            .list(&SessionQuery {
                limit: Some(2),
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(limited.len(), 2);
        // The read limits hold on either backend, and name the limit.
        for (limits, says) in [
            (
                ReadLimits {
                    row_bytes: 10,
                    ..ReadLimits::default()
                },
                "over the limit of 10 per row (sessions.limits.rowBytes)",
            ),
            (
                ReadLimits {
                    session_rows: 1,
                    ..ReadLimits::default()
                },
                "over the limit of 1 rows per session (sessions.limits.sessionRows)",
            ),
            (
                ReadLimits {
                    row_elements: 2,
                    ..ReadLimits::default()
                },
                "more than 2 elements",
            ),
        ] {
            let source = AdkDatabase::new(Secret::new(url.clone()), "weather_app", limits).unwrap();
            let key = SessionKey::new("grounded", Some("alice".into()));
            let read = fetch(&source, &[key], None).await;
            assert!(read[0].raw.events.is_empty(), "{says}");
            let issues: Vec<String> = read[0].raw.issues.iter().map(|i| i.to_string()).collect();
            assert!(issues.iter().any(|i| i.contains(says)), "{issues:?}");
        }
    });
}

fn adk_sqlite() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/adk-database/sessions.db"
    );
    adk_expectations(format!("sqlite+aiosqlite:///{file}"));
}

fn adk_postgres() {
    let db = runtime().block_on(async {
        let db = TestDatabase::create("adk").await;
        let dump = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/adk-database/postgres.sql"
        ))
        .unwrap();
        db.execute(&dump).await;
        db
    });
    adk_expectations(db.url.replacen("postgres://", "postgresql+asyncpg://", 1));
}

/// A runtime's stored tasks (tests/data/kagent-tasks): the last body
/// saved under each task id, in creation order.
pub fn task_rows(case: &str) -> Vec<(String, String)> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/kagent-tasks/{case}.json"));
    let bodies: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut rows: Vec<(String, String)> = Vec::new();
    for body in bodies {
        let id = body["id"].as_str().unwrap().to_string();
        match rows.iter_mut().find(|(seen, _)| *seen == id) {
            Some(row) => row.1 = body.to_string(),
            None => rows.push((id, body.to_string())),
        }
    }
    rows
}

/// An ADK session's events as kagent-adk posted them to the controller.
fn adk_event_rows(case: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "tests/data/kagent-tasks/{case}.session-events.json"
    ));
    let rows: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    rows.iter()
        .map(|r| r["data"].as_str().unwrap().to_string())
        .collect()
}

fn tool_names(session: Session) -> Vec<String> {
    convert(&session.events, &ConvertOptions::default())
        .messages
        .iter()
        .flat_map(|m| {
            m.tool_calls
                .iter()
                .flatten()
                .map(|c| c.function.name.clone())
        })
        .collect()
}

fn tasks_record() {
    runtime().block_on(async {
        let db = TestDatabase::create("tasks").await;
        let session = |id, events| SeedSession {
            id,
            user: "admin@kagent.dev",
            agent_id: WEATHER,
            source: None,
            age_seconds: 60,
            deleted: false,
            events,
        };
        db.seed_kagent(&[
            session("langgraph", Vec::new()),
            session("adk", adk_event_rows("adk/tool-call")),
            session("broken", Vec::new()),
            session("nothing", Vec::new()),
        ])
        .await;
        let langgraph = task_rows("langgraph/tool-call");
        let adk = task_rows("adk/tool-call");
        let other_user = task_rows("langgraph/tool-error");
        let admin = Some("admin@kagent.dev");
        db.seed_tasks("langgraph", &[(&langgraph[0].0, &langgraph[0].1, admin)]).await;
        // Another user's task under the same session id is not this session's.
        db.seed_tasks("langgraph", &[(&other_user[0].0, &other_user[0].1, Some("bob"))]).await;
        db.seed_tasks("adk", &[(&adk[0].0, &adk[0].1, None)]).await;
        db.seed_tasks("broken", &[("broken-task", "{not json", admin)]).await;
        db.execute("INSERT INTO task (id, data, session_id, deleted_at) VALUES ('gone', '{}', 'nothing', now())").await;

        let source = kagent(&db).await;
        let key = |id: &str| SessionKey::new(id, None);
        let keys = [key("langgraph"), key("adk"), key("broken"), key("nothing")];
        let fetched = source.fetch(&keys, Some(&weather()), RecordChoice::Auto).await.unwrap();
        let by_id = |id: &str| fetched.iter().find(|s| s.key.id == id).unwrap().clone();
        let lg = by_id("langgraph");
        assert_eq!(lg.record, Record::Tasks);
        assert!(lg.raw.issues.is_empty(), "{:?}", lg.raw.issues);
        assert_eq!(tool_names(lg.normalise()), ["get_weather"], "one task: bob's is not read");
        assert_eq!(by_id("adk").record, Record::Events, "an ADK session keeps its events");
        let broken = by_id("broken");
        assert!(broken.raw.issues[0].to_string().contains("task broken-task message 0: the task is not JSON"), "{:?}", broken.raw.issues);
        let nothing = by_id("nothing");
        assert!(nothing.raw.events.is_empty() && nothing.record == Record::Events, "a deleted task is not read");

        // Asked for tasks, the ADK session reads the same from them.
        let from_tasks = source.fetch(&[key("adk")], None, RecordChoice::Tasks).await.unwrap();
        assert_eq!(from_tasks[0].record, Record::Tasks);
        let from_events = by_id("adk");
        assert_eq!(trajectory(from_tasks[0].clone().normalise()), trajectory(from_events.normalise()));

        // A suite scores the LangGraph agent's session from the command
        // line; the broken session, whose question cannot be read, may be
        // the one the case is about: it is the case's, unreadable (exit 2).
        let dir = tempfile::tempdir().unwrap();
        let suite = dir.path().join("suite.yaml");
        std::fs::write(&suite, "apiVersion: evals.kagent.dev/v1alpha1\nkind: EvalSuite\nmetadata: {name: lg}\nspec:\n  agentRef: {namespace: kagent, name: weather-assistant}\n  cases:\n    - name: looks-the-weather-up\n      match: {contains: weather in London}\n      evaluators:\n        - {name: tool, type: toolsUsed, toolsUsed: {expected: [get_weather]}}\n").unwrap();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
            .args(["run", suite.to_str().unwrap(), "--format", "json"])
            .env("KAGENT_EVALS_DATABASE_URL", &db.url)
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
        assert_eq!(output.status.code(), Some(2), "{report} {}", String::from_utf8_lossy(&output.stderr));
        let records: Vec<(&str, &str, bool)> = report["cases"][0]["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["sessionId"].as_str().unwrap(), s["record"].as_str().unwrap(), s["passed"] == true))
            .collect();
        assert_eq!(records, [("broken", "tasks", false), ("adk", "events", true), ("langgraph", "tasks", true)], "{report}");
        assert_eq!(report["summary"]["unreadableSessions"], 1, "{report}");

        // A task row longer than the command line allows is not read: the
        // session is unreadable and the case does not pass on it.
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
            .args(["run", suite.to_str().unwrap(), "--format", "json", "--max-row-bytes", "100"])
            .env("KAGENT_EVALS_DATABASE_URL", &db.url)
            .output()
            .unwrap();
        let report = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(2), "{report}");
        let summary = &serde_json::from_str::<Value>(&report).unwrap()["summary"];
        assert_eq!(summary["unreadableSessions"], 3, "{report}");
        assert!(report.contains("over the limit of 100 per row (sessions.limits.rowBytes)"), "{report}");
    });
}

/// A kagent API stand-in: the documented envelope, `data` as JSON text,
/// kagent's JSON 404s for what it does not know, and failures on demand.
mod api_server {
    use axum::extract::{Path, Query, State};
    use axum::http::{HeaderMap, StatusCode};
    use axum::routing::get;
    use axum::{Json, Router};
    use serde_json::{Value, json};
    use std::collections::HashMap;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[derive(Default)]
    pub struct Server {
        pub failures_left: AtomicU32,
        pub requests: AtomicU32,
        pub saw_token: std::sync::Mutex<Vec<String>>,
        sessions_in_flight: AtomicU32,
        /// The most session requests answered at once.
        pub most_sessions_in_flight: AtomicU32,
    }

    fn events(file: &str) -> Vec<Value> {
        super::captured(file)
            .into_iter()
            .enumerate()
            .map(|(i, data)| json!({"id": format!("ev-{i}"), "session_id": "s", "user_id": "admin@kagent.dev", "created_at": format!("2026-09-03T20:04:5{i}Z"), "data": data}))
            .collect()
    }

    async fn agent_sessions(
        State(s): State<Arc<Server>>,
        Path((ns, name)): Path<(String, String)>,
        headers: HeaderMap,
    ) -> (StatusCode, Json<Value>) {
        s.requests.fetch_add(1, Ordering::SeqCst);
        if let Some(auth) = headers.get("authorization") {
            s.saw_token
                .lock()
                .unwrap()
                .push(auth.to_str().unwrap().to_string());
        }
        if s.failures_left.load(Ordering::SeqCst) > 0 {
            s.failures_left.fetch_sub(1, Ordering::SeqCst);
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(json!({"error": true, "message": "try later"})),
            );
        }
        if ns != "kagent" || name != "weather-assistant" {
            return (
                StatusCode::NOT_FOUND,
                Json(json!({"error": "Agent not found: failed to get agent: record not found"})),
            );
        }
        let sessions = json!([
            {"id": "grounded", "user_id": "admin@kagent.dev", "agent_id": "kagent__NS__weather_assistant", "updated_at": "2026-09-03T20:05:01Z"},
            {"id": "broken", "user_id": "admin@kagent.dev", "agent_id": "kagent__NS__weather_assistant", "updated_at": "2026-09-02T20:05:01Z"}
        ]);
        (
            StatusCode::OK,
            Json(
                json!({"error": false, "data": sessions, "message": "Successfully listed sessions"}),
            ),
        )
    }

    async fn session(
        State(s): State<Arc<Server>>,
        Path(id): Path<String>,
        Query(q): Query<HashMap<String, String>>,
    ) -> (StatusCode, Json<Value>) {
        let now = s.sessions_in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        s.most_sessions_in_flight.fetch_max(now, Ordering::SeqCst);
        // Long enough for requests sent together to be answered together.
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        s.sessions_in_flight.fetch_sub(1, Ordering::SeqCst);
        if q.get("user_id").map(String::as_str) != Some("admin@kagent.dev") {
            return (
                StatusCode::BAD_REQUEST,
                Json(json!({"error": true, "message": "user_id is required"})),
            );
        }
        let mut events = match id.as_str() {
            "grounded" | "broken" | "as-tool" => events("weather-grounded.jsonl"),
            "langgraph" => Vec::new(),
            "other-agent" => events("github-assistant-session.jsonl"),
            _ => {
                return (
                    StatusCode::NOT_FOUND,
                    Json(
                        json!({"error": "Session not found: failed to get session: record not found"}),
                    ),
                );
            }
        };
        if id == "broken" {
            events[2]["data"] = json!("{not json");
        }
        let agent = if id == "other-agent" {
            "kagent__NS__github_assistant"
        } else {
            "kagent__NS__weather_assistant"
        };
        let session = json!({"id": id, "user_id": "admin@kagent.dev", "agent_id": agent});
        (
            StatusCode::OK,
            Json(
                json!({"error": false, "data": {"session": session, "events": events}, "message": "ok"}),
            ),
        )
    }

    /// A session's tasks as objects; kagent leaves `data` out of an empty list.
    async fn tasks(Path(id): Path<String>) -> Json<Value> {
        if id != "langgraph" {
            return Json(
                json!({"error": false, "message": "Successfully retrieved session tasks"}),
            );
        }
        let tasks: Vec<Value> = super::task_rows("langgraph/tool-call")
            .into_iter()
            .map(|(_, body)| serde_json::from_str(&body).unwrap())
            .collect();
        Json(
            json!({"error": false, "data": tasks, "message": "Successfully retrieved session tasks"}),
        )
    }

    /// The user's sessions, sub-agent ones included; a wrong token is refused.
    async fn all_sessions(headers: HeaderMap) -> (StatusCode, Json<Value>) {
        if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some("Bearer t0ken-value")
        {
            return (
                StatusCode::FORBIDDEN,
                Json(json!({"error": true, "message": "token rejected"})),
            );
        }
        let sessions = json!([
            {"id": "grounded", "user_id": "admin@kagent.dev", "agent_id": "kagent__NS__weather_assistant", "updated_at": "2026-09-03T20:05:01Z"},
            {"id": "as-tool", "user_id": "admin@kagent.dev", "agent_id": "kagent__NS__weather_assistant", "source": "agent", "updated_at": "2026-09-03T21:05:01Z"},
            {"id": "other-agent", "user_id": "admin@kagent.dev", "agent_id": "kagent__NS__github_assistant", "source": "agent", "updated_at": "2026-09-03T21:05:01Z"}
        ]);
        (
            StatusCode::OK,
            Json(json!({"error": false, "data": sessions, "message": "ok"})),
        )
    }

    pub async fn start(state: Arc<Server>) -> String {
        let app = Router::new()
            .route("/api/sessions/agent/{ns}/{name}", get(agent_sessions))
            .route("/api/sessions/{id}", get(session))
            .route("/api/sessions/{id}/tasks", get(tasks))
            .route("/api/sessions", get(all_sessions))
            .with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        format!("http://{address}")
    }
}

fn kagent_api() {
    use std::sync::Arc;
    use std::sync::atomic::Ordering;
    runtime().block_on(async {
        let state = Arc::new(api_server::Server::default());
        let base = api_server::start(state.clone()).await;
        let fast = Retry { attempts: 4, first_pause: Duration::from_millis(10) };
        let source = KagentApi::new(&base, "admin@kagent.dev".into(), Some(Secret::new("t0ken-value")), Duration::from_secs(5), fast).unwrap();

        state.failures_left.store(2, Ordering::SeqCst);
        let listed = source.list(&SessionQuery { agent: Some(weather()), limit: Some(1), ..Default::default() }).await.unwrap();
        assert_eq!(state.requests.load(Ordering::SeqCst), 3, "two 503s retried");
        assert_eq!(listed.iter().map(|s| s.key.id.as_str()).collect::<Vec<_>>(), ["grounded"]);
        assert!(state.saw_token.lock().unwrap().iter().all(|t| t == "Bearer t0ken-value"));

        let fetched = source.fetch(&[SessionKey::new("grounded", None), SessionKey::new("missing", None)], None, RecordChoice::Auto).await.unwrap();
        assert_eq!(fetched.len(), 1);
        assert_eq!(trajectory(fetched[0].clone().normalise()), from_file("weather-grounded.jsonl"));

        // A batch's sessions are asked for together and come back in key order.
        let keys = ["other-agent", "missing", "grounded", "as-tool", "broken", "langgraph"].map(|id| SessionKey::new(id, None));
        let fetched = source.fetch(&keys, None, RecordChoice::Auto).await.unwrap();
        let ids: Vec<&str> = fetched.iter().map(|s| s.key.id.as_str()).collect();
        assert_eq!(ids, ["other-agent", "grounded", "as-tool", "broken", "langgraph"]);
        assert!(state.most_sessions_in_flight.load(Ordering::SeqCst) > 1, "one session request at a time");

        // A session without events is read from its tasks, as from PostgreSQL.
        let langgraph = source.fetch(&[SessionKey::new("langgraph", None)], None, RecordChoice::Auto).await.unwrap();
        assert_eq!(langgraph[0].record, Record::Tasks);
        assert_eq!(tool_names(langgraph[0].clone().normalise()), ["get_weather"]);

        let broken = source.fetch(&[SessionKey::new("broken", None)], None, RecordChoice::Auto).await.unwrap();
        assert_eq!(broken[0].raw.events.len(), 5);
        assert!(broken[0].raw.issues[0].to_string().ends_with("event ev-2: not JSON: key must be a string at line 1 column 2"), "{:?}", broken[0].raw.issues);

        // A session of another agent, named by id, is not read for this agent.
        let scoped = source.fetch(&[SessionKey::new("other-agent", None)], Some(&weather()), RecordChoice::Auto).await.unwrap();
        assert!(scoped.is_empty());
        let unknown: AgentRef = "kagent/nope".parse().unwrap();
        assert!(source.list(&SessionQuery { agent: Some(unknown), ..Default::default() }).await.unwrap().is_empty());

        // Sub-agent sessions only when asked for, as the PostgreSQL source does;
        // one is found by id for its agent like any other.
        let with_sub_agents = SessionQuery { agent: Some(weather()), include_sub_agent_sessions: true, ..Default::default() };
        let mut ids: Vec<String> = source.list(&with_sub_agents).await.unwrap().into_iter().map(|s| s.key.id).collect();
        ids.sort();
        assert_eq!(ids, ["as-tool", "broken", "grounded"]);
        let by_id = source.fetch(&[SessionKey::new("as-tool", None)], Some(&weather()), RecordChoice::Auto).await.unwrap();
        assert_eq!(by_id.len(), 1);

        // A wrong base URL is an error naming the URL, never "no sessions".
        let wrong = KagentApi::new(&format!("{base}/kagent"), "admin@kagent.dev".into(), None, Duration::from_secs(5), fast).unwrap();
        let error = wrong.list(&SessionQuery { agent: Some(weather()), ..Default::default() }).await.unwrap_err().to_string();
        assert!(error.contains(&format!("kagent API at {base}/kagent is unavailable: GET /api/sessions/agent/kagent/weather-assistant answered 404 without kagent's JSON error")), "{error}");

        let refused = KagentApi::new(&base, "admin@kagent.dev".into(), Some(Secret::new("wr0ng-token")), Duration::from_secs(5), fast).unwrap();
        let error = refused.list(&SessionQuery::default()).await.unwrap_err().to_string();
        assert!(error.contains("GET /api/sessions answered 403 Forbidden: token rejected"), "{error}");
        assert!(!error.contains("wr0ng-token"));

        state.failures_left.store(10, Ordering::SeqCst);
        let error = source.list(&SessionQuery { agent: Some(weather()), ..Default::default() }).await.unwrap_err().to_string();
        assert!(error.contains("answered 503 Service Unavailable (after 4 attempts)"), "{error}");

        let down = KagentApi::new("http://127.0.0.1:9", "admin@kagent.dev".into(), None, Duration::from_secs(2), fast).unwrap();
        let error = down.list(&SessionQuery::default()).await.unwrap_err().to_string();
        assert!(error.starts_with("kagent API at http://127.0.0.1:9 is unavailable: GET /api/sessions: could not connect"), "{error}");
    });
}
