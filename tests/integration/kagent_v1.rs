//! kagent 1.0's database on a real PostgreSQL: the tables written from the
//! 1.0 contract (tests/data/kagent-1.0/schema-{b,c}.sql) holding rows whose
//! bytes the A2A project's own Python SDK made (generate.py). Each Session
//! reads back as what the generator built, which `expected.json` says
//! independently of any decoder: the user's turns, the tool calls with
//! their arguments, the final answer, the error, the usage, the revision.

use crate::crds::namespace;
use crate::support::operator::{
    apply_suite, config, event_reasons, finished, run_now, start, wait_for,
};
use crate::support::postgres::TestDatabase;
use crate::support::{assert_refused, over_each_limit, read_within};
use crate::support::{control_plane, runtime};
use crate::{Need, Test};
use kagent_evals::core::convert::{ConvertOptions, convert};
use kagent_evals::core::read_limits::ReadLimits;
use kagent_evals::core::session::{AgentRef, SessionKey};
use kagent_evals::core::task::RecordChoice;
use kagent_evals::k8s::crd::Phase;
use kagent_evals::k8s::vocabulary::Failure;
use kagent_evals::secret::Secret;
use kagent_evals::source::kagent_postgres::KagentPostgres;
use kagent_evals::source::{SessionQuery, SessionSource};
use kube::Api;
use kube::api::{ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams};
use serde_json::Value;
use serde_json::json;
use std::path::Path;
use std::time::Duration;

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
            name: "kagent_v1::an_infinite_time_fails_no_batch_and_holds_no_recent_window",
            needs: &[Need::Postgres],
            run: infinite_times,
        },
        Test {
            name: "kagent_v1::a_session_over_a_read_limit_is_unreadable_and_the_others_are_read",
            needs: &[Need::Postgres],
            run: over_limits,
        },
        Test {
            name: "kagent_v1::a_database_of_neither_line_is_said_to_be_so",
            needs: &[Need::Postgres],
            run: neither_line,
        },
        Test {
            name: "kagent_v1::both_lines_or_half_a_generation_is_an_error_not_a_guess",
            needs: &[Need::Postgres],
            run: no_guess,
        },
        Test {
            name: "kagent_v1::a_default_install_is_found_in_schema_kagent_with_its_goose_version",
            needs: &[Need::Postgres],
            run: schema_kagent,
        },
        Test {
            name: "kagent_v1::a_captured_session_reads_back_from_its_fixture_as_from_the_database",
            needs: &[Need::Postgres],
            run: captured_reads_back,
        },
        Test {
            name: "kagent_v1::the_operator_reads_a_1_0_agent_and_names_the_revision_a_regression_came_with",
            needs: &[Need::ControlPlane, Need::Postgres],
            run: operator_on_a_1_0_agent,
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

/// A kagent 1.0 database (generation C) with its tables and no rows.
pub async fn empty_v1_database() -> TestDatabase {
    let db = TestDatabase::create("kagent1_live").await;
    db.execute(&data("schema-c.sql")).await;
    db
}

/// A database of kagent 1.0 in the given schema generation, loaded.
pub async fn kagent_v1_database(generation: &str) -> TestDatabase {
    let db = TestDatabase::create(&format!("kagent1_{generation}")).await;
    db.execute(&data(&format!("schema-{generation}.sql"))).await;
    db.execute(&data(&format!("rows-{generation}.sql"))).await;
    db
}

fn source(db: &TestDatabase) -> KagentPostgres {
    KagentPostgres::new(Secret::new(db.url.clone()), None, ReadLimits::default()).unwrap()
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
            // The conversation's last task failed: the session says so.
            let failure = session.final_failure().map(|f| f.to_string());
            match want["terminal_state"].as_str() {
                Some("TASK_STATE_FAILED") => assert!(
                    failure
                        .as_deref()
                        .is_some_and(|f| f.contains(want["error"].as_str().unwrap())),
                    "{id}: {failure:?}"
                ),
                _ => assert_eq!(failure, None, "{id}"),
            }
            // One task is one user turn.
            let turns: std::collections::BTreeSet<&str> =
                session.events.iter().map(|e| e.invocation()).collect();
            assert_eq!(
                turns.len(),
                want["tasks"].as_array().unwrap().len(),
                "{id}: turns"
            );
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
        // Forks on request.
        let with_forks = source
            .list(&SessionQuery {
                agent: Some("kagent/weather-agent".parse().unwrap()),
                include_forked_sessions: true,
                ..Default::default()
            })
            .await
            .unwrap();
        let forked: Vec<&str> = expected["sessions"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(_, s)| s["flags"]["forked"] == true)
            .map(|(id, _)| id.as_str())
            .collect();
        assert!(!forked.is_empty());
        for id in forked {
            assert!(with_forks.iter().any(|s| s.key.id == id), "{id}");
        }
        assert_eq!(with_forks.len(), listed.len() + 1);
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

/// `infinity` on one row costs that row its time, nothing more; on a
/// task's status time it does not make its Session the most recent.
fn infinite_times() {
    runtime().block_on(async {
        let db = kagent_v1_database("c").await;
        let expected = expected();
        let source = source(&db);
        let list = |since: Option<jiff::Timestamp>| {
            let source = &source;
            async move {
                let query = SessionQuery {
                    agent: Some("kagent/weather-agent".parse().unwrap()),
                    since,
                    ..Default::default()
                };
                let listed = source.list(&query).await.unwrap();
                listed.into_iter().map(|s| s.key).collect::<Vec<_>>()
            }
        };
        let before = list(None).await;
        // The most recent Session gets an infinite row; the least recent
        // an infinite status time, which once made it the most recent.
        let (first, last) = (before[0].clone(), before.last().unwrap().clone());
        let history = |key: &SessionKey| {
            expected["sessions"][&key.id]["history_id"].as_str().unwrap().to_string()
        };
        db.execute(&format!(
            "UPDATE session_task_event SET created_at = 'infinity'
              WHERE sequence = (SELECT min(sequence) FROM session_task_event WHERE history_id = '{}');
             UPDATE session_task SET status_timestamp = 'infinity' WHERE history_id = '{}'",
            history(&first),
            history(&last)
        ))
        .await;
        let found = source
            .fetch(&[first.clone(), last.clone()], None, RecordChoice::Auto)
            .await
            .unwrap();
        assert_eq!(found.len(), 2);
        for raw in found {
            let session = raw.normalise();
            assert!(session.issues.is_empty(), "{:?}", session.issues);
            assert!(!session.events.is_empty());
            let noted = session
                .notes
                .iter()
                .any(|n| n.to_string().contains("created_at is beyond any time"));
            assert_eq!(noted, session.key.id == first.id, "{:?}", session.notes);
            // The Session dated ahead of the clock says so.
            let ahead = session.notes.iter().any(|n| {
                n.to_string()
                    .contains("dated infinity, more than a day after the database's clock")
            });
            assert_eq!(ahead, session.key.id == last.id, "{:?}", session.notes);
        }
        assert_eq!(list(None).await, before, "infinity is not the most recent");
        let hour = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(1);
        assert!(list(Some(hour)).await.is_empty(), "nor within every window");
    });
}

fn over_limits() {
    runtime().block_on(async {
        let db = kagent_v1_database("c").await;
        let expected = expected();
        let query = SessionQuery {
            agent: Some("kagent/weather-agent".parse().unwrap()),
            ..Default::default()
        };
        let keys: Vec<SessionKey> = source(&db)
            .list(&query)
            .await
            .unwrap()
            .into_iter()
            .take(2)
            .map(|s| s.key)
            .collect();
        // One long row in the first Session: 6,000 bytes more than it was
        // (not a message any longer, which no limit lets it be decoded as).
        db.execute(&format!(
            "UPDATE session_task_event SET data = data || decode(repeat('00', 6000), 'hex')
              WHERE sequence = (SELECT min(sequence) FROM session_task_event WHERE history_id = '{}')",
            expected["sessions"][&keys[0].id]["history_id"].as_str().unwrap()
        ))
        .await;
        let read = |limits| read_within(&db.url, &keys, limits);
        let order = |mut read: Vec<(String, usize, Vec<String>)>| {
            read.sort_by_key(|(id, ..)| keys.iter().position(|k| k.id == *id));
            read
        };
        let whole = order(read(ReadLimits::default()).await);
        assert!(
            whole[0].2.iter().any(|i| i.contains("not a protobuf")),
            "{whole:?}"
        );
        assert!(whole[1].2.is_empty() && whole[1].1 > 0, "{whole:?}");
        let row = order(
            read(ReadLimits {
                row_bytes: 5_000,
                ..ReadLimits::default()
            })
            .await,
        );
        assert_eq!((row[0].1, row[0].2.len()), (0, 1), "{row:?}");
        assert!(
            row[0].2[0].contains("session_task_event row")
                && row[0].2[0]
                    .contains("bytes, over the limit of 5000 per row (sessions.limits.rowBytes)"),
            "{row:?}"
        );
        assert_eq!(row[1], whole[1], "the other Session is read");
        for (limits, says) in over_each_limit() {
            assert_refused(&read(limits).await, says);
        }
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
        // Both schemas searched, each with what it lacks.
        assert!(
            error.contains("in schema kagent for 0.10 it lacks the table(s) session, event"),
            "{error}"
        );
        assert!(
            error.contains("in schema public for 0.10 it lacks the table(s) event"),
            "{error}"
        );
        assert!(
            error.contains("for 1.0 session_task, session_task_event, runtime_revision"),
            "{error}"
        );
    });
}

/// kagent's Helm chart puts 1.0's tables in schema `kagent`: a plain URL
/// finds them there, says so with the goose version, and warns by name
/// when the version is newer than the one verified. A schema named is the
/// only one read.
fn schema_kagent() {
    runtime().block_on(async {
        let db = TestDatabase::create("kagent1_schema").await;
        let in_kagent = |file: &str| format!("CREATE SCHEMA IF NOT EXISTS kagent; SET search_path TO kagent; {}", data(file));
        db.execute(&in_kagent("schema-c.sql")).await;
        db.execute(&in_kagent("rows-c.sql")).await;
        db.execute(
            "CREATE TABLE kagent.goose_db_version (id serial, version_id bigint NOT NULL, is_applied boolean NOT NULL);
             INSERT INTO kagent.goose_db_version (version_id, is_applied) VALUES (0, true), (1, true);",
        )
        .await;
        // A decoy in public, which the URL's own search path would find first.
        db.execute("CREATE TABLE public.session (id text); CREATE TABLE public.event (id text);")
            .await;
        let found = source(&db);
        let listed = found.list(&SessionQuery::default()).await.unwrap();
        assert!(!listed.is_empty(), "sessions in schema kagent are listed");
        assert!(found.describe().starts_with("kagent 1.0 PostgreSQL"), "{}", found.describe());
        assert!(found.describe().ends_with("(schema kagent, goose version 1)"), "{}", found.describe());

        db.execute("INSERT INTO kagent.goose_db_version (version_id, is_applied) VALUES (3, true)")
            .await;
        let newer = source(&db);
        newer.list(&SessionQuery::default()).await.unwrap();
        assert!(
            newer.describe().ends_with("(schema kagent, goose version 3, newer than the 1 verified)"),
            "{}",
            newer.describe()
        );

        // Named: that schema alone, here the decoy's 0.10 shape.
        let public = KagentPostgres::new(Secret::new(db.url.clone()), Some("public".into()), ReadLimits::default()).unwrap();
        let error = public.list(&SessionQuery::default()).await.map(|_| ()).unwrap_err().to_string();
        assert!(public.describe().contains("(schema public)"), "{} / {error}", public.describe());
        let elsewhere = KagentPostgres::new(Secret::new(db.url.clone()), Some("other".into()), ReadLimits::default()).unwrap();
        let error = elsewhere.list(&SessionQuery::default()).await.unwrap_err().to_string();
        assert!(error.contains("in schema other for 0.10 it lacks"), "{error}");
        assert!(!error.contains("schema kagent"), "only the schema named: {error}");
        // A schema that is no plain identifier never reaches a query.
        let hostile = KagentPostgres::new(Secret::new(db.url.clone()), Some("kagent\"; drop".into()), ReadLimits::default());
        assert!(hostile.is_err());
    });
}

/// `capture` writes a 1.0 Session as its decoded rows, and
/// `extract --fixture` of that file gives the trajectory the database gave.
fn captured_reads_back() {
    runtime().block_on(async {
        let db = kagent_v1_database("c").await;
        let dir = tempfile::tempdir().unwrap();
        let kagent_evals = |args: &[&str]| {
            let output = std::process::Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
                .args(args)
                .env("KAGENT_EVALS_DATABASE_URL", &db.url)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
            assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
            (String::from_utf8(output.stdout).unwrap(), stderr)
        };
        let expected = expected();
        let (listing, _) = kagent_evals(&["sessions", "--agent", "kagent/weather-agent"]);
        let header: Vec<&str> = listing.lines().next().unwrap().split_whitespace().collect();
        assert_eq!(
            header,
            ["SESSION", "USER", "AGENT", "REVISION", "EVENTS", "UPDATED"]
        );
        let r2 = expected["revisions"]["r2"]["revision"].as_str().unwrap();
        assert!(listing.lines().any(|l| l.contains(r2)), "{listing}");
        let mut compared = 0;
        for (id, want) in expected["sessions"].as_object().unwrap() {
            let readable = want["generations"]
                .as_array()
                .unwrap()
                .iter()
                .any(|g| g == "c")
                && want["flags"]["deleted"] != true;
            if !readable {
                continue;
            }
            let user = want["user_id"].as_str().unwrap();
            let file = dir.path().join(format!("{id}.jsonl"));
            let (_, said) =
                kagent_evals(&["capture", id, "--user", user, "-o", file.to_str().unwrap()]);
            assert!(said.contains(" rows to "), "{id}: {said}");
            let lines = std::fs::read_to_string(&file).unwrap();
            assert!(
                lines
                    .lines()
                    .all(|l| l.contains(r#""table":"session_task"#)),
                "{id}: {lines}"
            );
            let (from_database, _) = kagent_evals(&["extract", id, "--user", user]);
            let (from_fixture, _) =
                kagent_evals(&["extract", id, "--fixture", file.to_str().unwrap()]);
            assert!(from_database.contains("\"role\""), "{id}: {from_database}");
            assert_eq!(from_fixture, from_database, "{id}");
            compared += 1;
        }
        assert!(compared >= 10, "only {compared} sessions compared");
    });
}

/// Server-side apply of a kagent 1.0 object (`api.kagent.dev/v1alpha3`),
/// its status too when it has one.
pub async fn apply_v1(client: &kube::Client, namespace: &str, kind: &str, body: serde_json::Value) {
    let resource =
        ApiResource::from_gvk(&GroupVersionKind::gvk("api.kagent.dev", "v1alpha3", kind));
    let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), namespace, &resource);
    let name = body["metadata"]["name"].as_str().unwrap().to_string();
    let mut object = body.clone();
    object["apiVersion"] = json!("api.kagent.dev/v1alpha3");
    object["kind"] = json!(kind);
    let status = object.as_object_mut().unwrap().remove("status");
    let apply = PatchParams::apply("kagent-1.0-stand-in").force();
    api.patch(&name, &apply, &Patch::Apply(&object))
        .await
        .unwrap();
    if let Some(status) = status {
        let patch = json!({"apiVersion": object["apiVersion"], "kind": kind, "status": status});
        api.patch_status(&name, &apply, &Patch::Apply(&patch))
            .await
            .unwrap();
    }
}

async fn delete_v1(client: &kube::Client, namespace: &str, kind: &str, name: &str) {
    let resource =
        ApiResource::from_gvk(&GroupVersionKind::gvk("api.kagent.dev", "v1alpha3", kind));
    let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), namespace, &resource);
    api.delete(name, &Default::default()).await.unwrap();
}

/// The operator evaluates a kagent 1.0 Agent: its template (by reference)
/// and harness (inline) resolved into the run's status with the revision
/// new Sessions start on; the sessions grouped by the revision they ran
/// on; a regression named by the revision its failures came with and by
/// what changed in the template; an unreadable template an `Error`.
fn operator_on_a_1_0_agent() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "kagent-v1-operator").await;
        let db = kagent_v1_database("c").await;
        // The generated Agents live in `kagent`; this test's in its own namespace.
        db.execute(&format!(
            "UPDATE runtime_revision SET namespace = '{ns}' WHERE namespace = 'kagent';
             UPDATE agent_definition SET namespace = '{ns}' WHERE namespace = 'kagent';"
        ))
        .await;
        let expected = expected();
        let session_of = |key: &str| {
            expected["sessions"]
                .as_object()
                .unwrap()
                .iter()
                .find(|(_, s)| s["key"] == key)
                .map(|(id, _)| id.clone())
                .unwrap()
        };
        let revision = |label: &str| expected["revisions"][label]["revision"].as_str().unwrap().to_string();
        // The session on r0 (no tool called) is hidden until the second run.
        let on_r0 = session_of("deleted-revision");
        db.execute(&format!(
            "UPDATE runtime_instance SET state = 'RUNTIME_STATE_DELETED' WHERE id = '{on_r0}'"
        ))
        .await;
        let template = |model: &str| {
            json!({
                "metadata": {"name": "weather"},
                "spec": {
                    "modelConfig": {"name": model},
                    "systemPrompt": "You are a weather assistant. Always call get_weather before answering.",
                    "tools": [{"mcp": {"server": {"kind": "RemoteMCPServer", "name": "weather-tools"}, "tools": ["get_weather"]}}]
                }
            })
        };
        let agent = |latest: &str| {
            json!({
                "metadata": {"name": "weather-agent"},
                "spec": {"templateRef": {"name": "weather"}, "harness": {"kagent": {}}},
                "status": {"observedGeneration": 1, "latestSuccessfulRevision": latest}
            })
        };
        apply_v1(&client, &ns, "AgentTemplate", template("gpt-4.1")).await;
        apply_v1(&client, &ns, "Agent", agent(&revision("r2"))).await;
        let _replica = start(&plane, config(&ns, "replica-a", Some(&db.url))).await;
        let suite = json!({
            "apiVersion": "evals.kagent.dev/v1alpha1",
            "kind": "EvalSuite",
            "metadata": {"name": "weather-v1", "namespace": ns},
            "spec": {
                "agentRef": {"apiVersion": "api.kagent.dev/v1alpha3", "name": "weather-agent"},
                "cases": [{
                    "name": "weather-questions-call-the-tool",
                    "match": {"regex": "(?i)weather|rain|hello"},
                    "evaluators": [{"name": "tool", "type": "toolsUsed", "toolsUsed": {"expected": ["get_weather"]}}]
                }]
            }
        });
        apply_suite(&client, &ns, &suite).await;

        run_now(&client, &ns, "v1-1", "weather-v1").await;
        let first = finished(&client, &ns, "v1-1", Duration::from_secs(60)).await.status.unwrap();
        assert_eq!(first.phase, Some(Phase::Succeeded), "{first:?}");
        let source = first.source.as_deref().unwrap();
        assert!(source.contains("kagent 1.0 PostgreSQL"), "{source}");
        let seen = first.agent.clone().unwrap();
        assert_eq!(seen.latest_successful_revision.as_deref(), Some(revision("r2").as_str()));
        assert_eq!(seen.observed_generation, Some(1));
        let template_seen = seen.template.clone().unwrap();
        assert_eq!(template_seen.from, "AgentTemplate weather");
        assert_eq!(template_seen.model_config.as_deref(), Some("gpt-4.1"));
        let prompt = template_seen.prompt.unwrap();
        assert!(prompt.starts_with("inline (sha256 ") && !prompt.contains("weather"), "{prompt}");
        assert_eq!(template_seen.tools, ["mcp RemoteMCPServer/weather-tools: get_weather"]);
        let harness = seen.harness.clone().unwrap();
        assert_eq!((harness.from.as_str(), harness.kind.as_str()), ("inline", "kagent"));
        let by_revision: Vec<(String, u32, u32)> =
            first.revisions.iter().map(|r| (r.revision.clone(), r.sessions, r.failed_sessions)).collect();
        let mut by_revision_sorted = by_revision.clone();
        by_revision_sorted.sort();
        let mut wanted = vec![(revision("r2"), 4, 0), (revision("r1"), 2, 0)];
        wanted.sort();
        assert_eq!(by_revision_sorted, wanted, "{by_revision:?}");

        // The template moves to another model, kagent compiles a new
        // revision, and the session on r0 comes back: the next run fails.
        apply_v1(&client, &ns, "AgentTemplate", template("gpt-4.1-mini")).await;
        apply_v1(&client, &ns, "Agent", agent("sha256:next")).await;
        db.execute(&format!(
            "UPDATE runtime_instance SET state = 'RUNTIME_STATE_READY' WHERE id = '{on_r0}'"
        ))
        .await;
        run_now(&client, &ns, "v1-2", "weather-v1").await;
        let second = finished(&client, &ns, "v1-2", Duration::from_secs(60)).await.status.unwrap();
        assert_eq!(second.phase, Some(Phase::Failed), "{second:?}");
        assert!(
            second.revisions.iter().any(|r| r.revision == revision("r0") && r.failed_sessions == 1),
            "{:?}",
            second.revisions
        );
        let note = wait_for("RegressionDetected", Duration::from_secs(20), || async {
            event_reasons(&client, &ns, "v1-2")
                .await
                .into_iter()
                .find(|(r, _)| r == "RegressionDetected")
                .map(|(_, note)| note)
        })
        .await;
        let r2 = revision("r2");
        assert!(
            note.contains(&format!("the Agent (revision {r2} -> sha256:next; model config gpt-4.1 -> gpt-4.1-mini)")),
            "{note}"
        );
        let r0 = revision("r0");
        assert!(
            note.contains(&format!("the failures came with revision {r0} (1 of 1 sessions failed), new since the previous run")),
            "{note}"
        );

        // A template that cannot be read stops the run; it is not scored
        // against an Agent half seen.
        delete_v1(&client, &ns, "AgentTemplate", "weather").await;
        run_now(&client, &ns, "v1-3", "weather-v1").await;
        let third = finished(&client, &ns, "v1-3", Duration::from_secs(60)).await.status.unwrap();
        assert_eq!(third.phase, Some(Phase::Error), "{third:?}");
        assert_eq!(third.failure, Some(Failure::AgentUnreadable), "{third:?}");
        let message = third.message.clone().unwrap_or_default();
        assert!(message.contains("AgentTemplate weather (spec.templateRef.name) cannot be read: not found"), "{message}");
        assert_eq!(third.sessions_evaluated, None, "{third:?}");
    });
}

/// A stray 0.10 `event` table beside 1.0's tables, or one of generation
/// C's two views without the other: said, never read as one line or the
/// other.
fn no_guess() {
    runtime().block_on(async {
        let both = TestDatabase::create("kagent_both").await;
        both.execute(&data("schema-c.sql")).await;
        both.execute("CREATE TABLE event (id text)").await;
        let error = source(&both)
            .list(&SessionQuery::default())
            .await
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("schema public holds both kagent 0.10's tables"),
            "{error}"
        );

        let half = TestDatabase::create("kagent_half").await;
        half.execute(&data("schema-c.sql")).await;
        half.execute("DROP VIEW agent_runtime_revision CASCADE")
            .await;
        let error = source(&half)
            .list(&SessionQuery::default())
            .await
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("the view session_record without agent_runtime_revision"),
            "{error}"
        );
    });
}
