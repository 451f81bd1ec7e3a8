//! kagent 1.0's database on a real PostgreSQL: the tables written from the
//! 1.0 contract (tests/data/kagent-1.0/schema-{b,c}.sql) holding rows whose
//! bytes the A2A project's own Python SDK made (generate.py). Each Session
//! reads back as what the generator built, which `expected.json` says
//! independently of any decoder: the user's turns, the tool calls with
//! their arguments, the final answer, the error, the usage, the revision.

use crate::support::postgres::TestDatabase;
use crate::support::runtime;
use crate::{Need, Test};
use kagent_evals::core::convert::{ConvertOptions, convert};
use kagent_evals::core::session::{AgentRef, SessionKey};
use kagent_evals::core::task::RecordChoice;
use kagent_evals::secret::Secret;
use kagent_evals::source::kagent_postgres::KagentPostgres;
use kagent_evals::source::{SessionQuery, SessionSource};
use serde_json::Value;
use std::path::Path;

pub fn tests() -> Vec<Test> {
    vec![
        Test {
            name: "kagent_v1::every_session_of_generation_c_reads_as_it_was_made",
            needs: &[Need::Postgres],
            run: || every_session_reads_as_made("c"),
        },
        Test {
            name: "kagent_v1::every_session_of_generation_b_reads_as_it_was_made",
            needs: &[Need::Postgres],
            run: || every_session_reads_as_made("b"),
        },
        Test {
            name: "kagent_v1::listing_leaves_out_deleted_and_forked_sessions_and_other_agents",
            needs: &[Need::Postgres],
            run: listing,
        },
        Test {
            name: "kagent_v1::an_undecodable_row_fails_its_session_closed_and_names_the_row",
            needs: &[Need::Postgres],
            run: undecodable_row,
        },
        Test {
            name: "kagent_v1::a_database_of_neither_line_is_said_to_be_so",
            needs: &[Need::Postgres],
            run: neither_line,
        },
    ]
}

fn data(file: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/kagent-1.0")
            .join(file),
    )
    .unwrap()
}

fn expected() -> Value {
    serde_json::from_str(&data("expected.json")).unwrap()
}

/// A database of kagent 1.0 in the given schema generation, loaded.
pub async fn kagent_v1_database(generation: &str) -> TestDatabase {
    let db = TestDatabase::create(&format!("kagent1_{generation}")).await;
    db.execute(&data(&format!("schema-{generation}.sql"))).await;
    db.execute(&data(&format!("rows-{generation}.sql"))).await;
    db
}

fn source(db: &TestDatabase) -> KagentPostgres {
    KagentPostgres::new(Secret::new(db.url.clone())).unwrap()
}

fn every_session_reads_as_made(generation: &str) {
    runtime().block_on(async {
        let db = kagent_v1_database(generation).await;
        let source = source(&db);
        let expected = expected();
        for (id, want) in expected["sessions"].as_object().unwrap() {
            if !want["generations"]
                .as_array()
                .unwrap()
                .iter()
                .any(|g| g == generation)
            {
                continue;
            }
            let user = want["user_id"].as_str().unwrap().to_string();
            let key = SessionKey::new(id.clone(), Some(user));
            let found = source
                .fetch(&[key], None, RecordChoice::Auto)
                .await
                .unwrap();
            if want["flags"]["deleted"] == true {
                assert!(found.is_empty(), "{id}: a deleted Session is read");
                continue;
            }
            assert_eq!(found.len(), 1, "{id}");
            let raw = found.into_iter().next().unwrap();
            let agent = AgentRef {
                namespace: want["agent"]["namespace"].as_str().unwrap().into(),
                name: want["agent"]["name"].as_str().unwrap().into(),
            }
            .kagent_id();
            assert_eq!(raw.agent_id.as_deref(), Some(agent.as_str()), "{id}");
            assert_eq!(
                raw.revision.as_deref(),
                want["revision"]["revision"].as_str(),
                "{id}"
            );
            let session = raw.normalise();
            assert!(session.issues.is_empty(), "{id}: {:?}", session.issues);
            let messages = convert(&session.events, &ConvertOptions::default()).messages;
            let users: Vec<&str> = messages
                .iter()
                .filter(|m| m.role == "user")
                .filter_map(|m| m.content.as_str())
                .collect();
            let wanted_users: Vec<&str> = want["user_turns"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap())
                .collect();
            assert_eq!(users, wanted_users, "{id}: the user's turns");
            let calls: Vec<(String, Value)> = messages
                .iter()
                .flat_map(|m| m.tool_calls.iter().flatten())
                .map(|c| {
                    let args = match &c.function.arguments {
                        Value::String(text) => serde_json::from_str(text).unwrap(),
                        other => other.clone(),
                    };
                    (c.function.name.clone(), args)
                })
                .collect();
            let wanted_calls: Vec<(String, Value)> = want["tool_calls"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| (c["name"].as_str().unwrap().to_string(), c["args"].clone()))
                .collect();
            assert_eq!(calls, wanted_calls, "{id}: the tool calls, in order");
            let results = messages.iter().filter(|m| m.role == "tool").count();
            assert_eq!(
                results,
                want["tool_results"].as_array().unwrap().len(),
                "{id}: one tool message per result"
            );
            if let Some(answer) = want["final_answer"].as_str() {
                let last = messages
                    .iter()
                    .rev()
                    .find(|m| {
                        m.role == "assistant" && m.content.as_str().is_some_and(|t| !t.is_empty())
                    })
                    .and_then(|m| m.content.as_str());
                assert_eq!(last, Some(answer), "{id}: the final answer");
            }
            if let Some(error) = want["error"].as_str() {
                assert!(
                    session.events.iter().any(|e| e
                        .error_message
                        .as_deref()
                        .is_some_and(|m| m.contains(error))),
                    "{id}: the error {error:?}"
                );
            }
            if let Some(total) = want["usage"]["total_tokens"].as_u64() {
                let read: u64 = session
                    .events
                    .iter()
                    .filter_map(|e| e.usage.as_ref())
                    .map(|u| u.total())
                    .sum();
                assert_eq!(
                    read, total,
                    "{id}: tokens, from {}",
                    want["usage"]["source"]
                );
            }
        }
    });
}

fn listing() {
    runtime().block_on(async {
        let db = kagent_v1_database("c").await;
        let source = source(&db);
        let expected = expected();
        let weather: AgentRef = "kagent/weather-agent".parse().unwrap();
        let listed = source
            .list(&SessionQuery {
                agent: Some(weather),
                ..Default::default()
            })
            .await
            .unwrap();
        let ids: Vec<&str> = listed.iter().map(|s| s.key.id.as_str()).collect();
        for (id, want) in expected["sessions"].as_object().unwrap() {
            let of_weather = want["agent"]["name"] == "weather-agent";
            let listable =
                of_weather && want["flags"]["deleted"] != true && want["flags"]["forked"] != true;
            assert_eq!(ids.contains(&id.as_str()), listable, "{id} in {ids:?}");
        }
        // Most recent task first.
        let times: Vec<_> = listed.iter().map(|s| s.updated.unwrap()).collect();
        assert!(times.windows(2).all(|w| w[0] >= w[1]), "{times:?}");
        assert!(
            source.describe().starts_with("kagent 1.0 PostgreSQL at"),
            "{}",
            source.describe()
        );
    });
}

fn undecodable_row() {
    runtime().block_on(async {
        let db = kagent_v1_database("c").await;
        let expected = expected();
        let (id, want) = expected["sessions"]
            .as_object()
            .unwrap()
            .iter()
            .find(|(_, s)| s["key"] == "weather-artifact-usage")
            .unwrap();
        let history = want["history_id"].as_str().unwrap();
        db.execute(&format!(
            "UPDATE session_task_event SET data = '\\x0aff01'::bytea
              WHERE sequence = (SELECT min(sequence) FROM session_task_event WHERE history_id = '{history}')"
        ))
        .await;
        let source = source(&db);
        let user = want["user_id"].as_str().unwrap().to_string();
        let found = source
            .fetch(&[SessionKey::new(id.clone(), Some(user))], None, RecordChoice::Auto)
            .await
            .unwrap();
        let session = found.into_iter().next().unwrap().normalise();
        assert_eq!(session.issues.len(), 1, "{:?}", session.issues);
        let issue = session.issues[0].to_string();
        assert!(issue.contains("session_task_event row"), "{issue}");
        assert!(issue.contains("not a protobuf lf.a2a.v1.StreamResponse"), "{issue}");
        assert!(issue.contains("at byte 0"), "{issue}");
    });
}

fn neither_line() {
    runtime().block_on(async {
        let db = TestDatabase::create("neither").await;
        db.execute("CREATE TABLE session (id text)").await;
        let error = source(&db)
            .list(&SessionQuery::default())
            .await
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("not a kagent 0.10 or 1.0 database"),
            "{error}"
        );
        assert!(
            error.contains("for 0.10 it lacks the table(s) event"),
            "{error}"
        );
        assert!(
            error.contains("for 1.0 session_task, session_task_event, runtime_revision"),
            "{error}"
        );
    });
}
