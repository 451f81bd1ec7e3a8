//! The reconcilers' requests against a mock API server, in order, in the
//! style of kube-rs controller-rs: each scenario runs one reconcile with a
//! client whose every request a verifier answers and records, so the exact
//! sequence of reads and writes a run or a suite makes is pinned. The real
//! API server tests (tests/integration) cover what these cannot: watches,
//! server-side apply and preconditions as the API server applies them.

use super::*;
use crate::k8s::crd::{EvalRun, EvalSuite};
use http::{Method, Request, Response, StatusCode};
use kube::client::Body;
use kube::runtime::reflector::store::Writer;
use serde_json::{Value, json};

/// One request as the mock API server saw it.
#[derive(Clone, Debug)]
struct Seen {
    method: Method,
    path: String,
    body: Value,
}

impl Seen {
    fn line(&self) -> String {
        format!("{} {}", self.method, self.path)
    }
}

/// Answer every request with `answer` until the client is dropped, and
/// return what was asked, in order.
fn serve(
    mut handle: tower_test::mock::Handle<Request<Body>, Response<Body>>,
    answer: impl Fn(&Seen) -> (StatusCode, Value) + Send + 'static,
) -> tokio::task::JoinHandle<Vec<Seen>> {
    tokio::spawn(async move {
        let mut seen = Vec::new();
        while let Some((request, send)) = handle.next_request().await {
            let method = request.method().clone();
            let path = request.uri().path().to_string();
            let bytes = request.into_body().collect_bytes().await.unwrap();
            let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
            let request = Seen { method, path, body };
            let (status, reply) = answer(&request);
            seen.push(request);
            send.send_response(
                Response::builder()
                    .status(status)
                    .body(Body::from(serde_json::to_vec(&reply).unwrap()))
                    .unwrap(),
            );
        }
        seen
    })
}

fn not_found(what: &str) -> (StatusCode, Value) {
    (
        StatusCode::NOT_FOUND,
        json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404, "message": format!("{what} not found")}),
    )
}

/// What a write answers: the object written, as the server would return it.
fn echo(seen: &Seen, into: &Value) -> (StatusCode, Value) {
    let mut object = into.clone();
    if let Some(status) = seen.body.get("status") {
        object["status"] = status.clone();
    }
    if let Some(spec) = seen.body.get("spec") {
        object["spec"] = spec.clone();
    }
    if let Some(labels) = seen.body.pointer("/metadata/labels") {
        object["metadata"]["labels"] = labels.clone();
    }
    object["metadata"]["resourceVersion"] = json!("2");
    (StatusCode::OK, object)
}

fn context(client: Client, config: ControllerConfig, runs: &[EvalRun]) -> Arc<Context> {
    // As a watch's first listing fills the runs controller's cache.
    let mut writer: Writer<EvalRun> = Writer::default();
    writer.apply_watcher_event(&watcher::Event::Init);
    for run in runs {
        writer.apply_watcher_event(&watcher::Event::InitApply(run.clone()));
    }
    writer.apply_watcher_event(&watcher::Event::InitDone);
    let mut registry = prometheus_client::registry::Registry::default();
    let (_, leader) = tokio::sync::watch::channel(true);
    let slots = Arc::new(tokio::sync::Semaphore::new(config.max_concurrent_runs));
    Arc::new(Context {
        recorder: Recorder::new(
            client.clone(),
            Reporter {
                controller: MANAGER.into(),
                instance: Some("test".into()),
            },
        ),
        client,
        config,
        metrics: Metrics::register(&mut registry),
        leader,
        running: Mutex::new(HashMap::new()),
        slots,
        runs: writer.as_reader(),
        superseded: Mutex::new(HashMap::new()),
    })
}

/// A mock API server answering with `answer`, and a client talking to it.
fn mock(
    answer: impl Fn(&Seen) -> (StatusCode, Value) + Send + 'static,
) -> (Client, tokio::task::JoinHandle<Vec<Seen>>) {
    let (service, handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
    (Client::new(service, "default"), serve(handle, answer))
}

/// Reconcile `run` once against a mock API server; what it asked, in order.
async fn reconcile_run(
    run: Value,
    config: ControllerConfig,
    answer: impl Fn(&Seen) -> (StatusCode, Value) + Send + 'static,
) -> Vec<Seen> {
    let (client, verifier) = mock(answer);
    let ctx = context(client, config, &[]);
    let run: EvalRun = serde_json::from_value(run).unwrap();
    let action = run_reconciler::reconcile(Arc::new(run), ctx.clone())
        .await
        .unwrap();
    assert_eq!(action, Action::await_change());
    drop(ctx);
    verifier.await.unwrap()
}

fn lines(seen: &[Seen]) -> Vec<String> {
    seen.iter().map(Seen::line).collect()
}

const RUNS: &str = "/apis/evals.kagent.dev/v1alpha1/namespaces/team/evalruns";
const SUITES: &str = "/apis/evals.kagent.dev/v1alpha1/namespaces/team/evalsuites";
const EVENTS: &str = "/apis/events.k8s.io/v1/namespaces/team/events";

fn suite_json(spec: Value) -> Value {
    json!({
        "apiVersion": "evals.kagent.dev/v1alpha1",
        "kind": "EvalSuite",
        "metadata": {"name": "nightly", "namespace": "team", "uid": "suite-uid", "generation": 3,
                     "resourceVersion": "1", "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": spec,
    })
}

fn manual_run_json() -> Value {
    json!({
        "apiVersion": "evals.kagent.dev/v1alpha1",
        "kind": "EvalRun",
        "metadata": {"name": "by-hand", "namespace": "team", "uid": "run-uid", "generation": 1, "resourceVersion": "1"},
        "spec": {"suiteRef": {"name": "nightly"}},
    })
}

/// A kagent REST API that lists no sessions for any Agent.
async fn empty_kagent_api() -> String {
    let app = axum::Router::new().route(
        "/api/sessions/agent/{namespace}/{name}",
        axum::routing::get(|| async { axum::Json(json!({"error": false, "data": []})) }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

#[tokio::test]
async fn a_run_made_by_hand_is_adopted_claimed_reported_and_finished_in_that_order() {
    let api = empty_kagent_api().await;
    let suite = suite_json(json!({
        "agentRef": {"name": "weather"},
        "report": {"configMap": true},
        "cases": [{"name": "calls-the-tool", "evaluators": [
            {"name": "tool", "type": "toolsUsed", "toolsUsed": {"expected": ["get_weather"]}}]}],
    }));
    let run = manual_run_json();
    let (run_answer, suite_answer) = (run.clone(), suite.clone());
    let answer = move |seen: &Seen| {
        let path = seen.path.as_str();
        match (&seen.method, path) {
            (&Method::GET, p) if p == format!("{RUNS}/by-hand") => {
                (StatusCode::OK, run_answer.clone())
            }
            (&Method::GET, p) if p == format!("{SUITES}/nightly") => {
                (StatusCode::OK, suite_answer.clone())
            }
            (&Method::PATCH, p) if p.starts_with(RUNS) => echo(seen, &run_answer),
            (&Method::GET, p) if p.contains("/agents/") => not_found("agents.kagent.dev weather"),
            (&Method::PATCH, p) if p.contains("/configmaps/") => {
                (StatusCode::OK, seen.body.clone())
            }
            (&Method::POST, EVENTS) => (StatusCode::CREATED, seen.body.clone()),
            _ => not_found(path),
        }
    };
    let config = ControllerConfig {
        identity: "replica-a".into(),
        defaults: RunnerSettings {
            api_url: Some(api),
            ..RunnerSettings::new(Party::Operator)
        },
        ..ControllerConfig::default()
    };
    let seen = reconcile_run(run, config, answer).await;
    let lines = lines(&seen);
    assert_eq!(
        lines,
        [
            format!("GET {RUNS}/by-hand"),
            format!("GET {SUITES}/nightly"),
            format!("PATCH {RUNS}/by-hand"),
            format!("PATCH {RUNS}/by-hand/status"),
            "GET /apis/kagent.dev/v1alpha2/namespaces/team/agents/weather".into(),
            "PATCH /api/v1/namespaces/team/configmaps/by-hand-report".into(),
            format!("PATCH {RUNS}/by-hand/status"),
            format!("POST {EVENTS}"),
            format!("POST {EVENTS}"),
        ],
        "{lines:#?}"
    );
    // Adopted: the suite's snapshot, owner and labels.
    assert_eq!(seen[2].body["spec"]["suiteGeneration"], 3);
    assert_eq!(
        seen[2].body["metadata"]["ownerReferences"][0]["uid"],
        "suite-uid"
    );
    // Claimed only if nobody wrote since it was read.
    assert_eq!(seen[3].body["metadata"]["resourceVersion"], "2");
    assert_eq!(seen[3].body["status"]["phase"], "Running");
    assert_eq!(seen[3].body["status"]["executor"]["identity"], "replica-a");
    // The full report goes to the ConfigMap the suite asked for, owned by the run.
    assert_eq!(
        seen[5].body["metadata"]["ownerReferences"][0]["uid"],
        "run-uid"
    );
    assert!(seen[5].body["data"]["report.json"].is_string());
    // The last status: the verdict, what was learnt, no executor.
    let last = &seen[6].body["status"];
    assert_eq!(last["phase"], "Failed");
    assert!(last.get("executor").is_none());
    assert_eq!(last["agent"]["name"], "team/weather");
    assert!(
        last["source"]
            .as_str()
            .unwrap()
            .starts_with("the operator's"),
        "{last}"
    );
    assert!(last.get("failure").is_none(), "a failed case is a verdict");
    // One Event on the run, one on its suite naming the run.
    assert_eq!(seen[7].body["regarding"]["name"], "by-hand");
    assert_eq!(seen[8].body["regarding"]["name"], "nightly");
    assert_eq!(seen[8].body["related"]["name"], "by-hand");
    assert_eq!(seen[8].body["reason"], "EvalRunFailed");
}

#[tokio::test]
async fn a_run_whose_suite_is_gone_is_claimed_and_ends_in_error_with_its_reason() {
    let run = manual_run_json();
    let (service, handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
    let client = Client::new(service, "default");
    let run_answer = run.clone();
    let verifier = serve(handle, move |seen| {
        match (&seen.method, seen.path.as_str()) {
            (&Method::GET, p) if p == format!("{RUNS}/by-hand") => {
                (StatusCode::OK, run_answer.clone())
            }
            (&Method::PATCH, p) if p.starts_with(RUNS) => echo(seen, &run_answer),
            (&Method::POST, EVENTS) => (StatusCode::CREATED, seen.body.clone()),
            (_, p) => not_found(p),
        }
    });
    let ctx = context(client, ControllerConfig::default(), &[]);
    let run: EvalRun = serde_json::from_value(run).unwrap();
    run_reconciler::reconcile(Arc::new(run), ctx.clone())
        .await
        .unwrap();
    drop(ctx);
    let seen = verifier.await.unwrap();
    let lines: Vec<String> = seen.iter().map(Seen::line).collect();
    assert_eq!(
        lines,
        [
            format!("GET {RUNS}/by-hand"),
            format!("GET {SUITES}/nightly"),
            format!("PATCH {RUNS}/by-hand/status"),
            format!("PATCH {RUNS}/by-hand/status"),
            format!("POST {EVENTS}"),
        ],
        "{lines:#?}"
    );
    let last = &seen[3].body["status"];
    assert_eq!(last["phase"], "Error");
    assert_eq!(last["failure"], "SuiteNotFound");
    assert_eq!(seen[4].body["reason"], "SuiteNotFound");
}

#[tokio::test]
async fn a_run_without_a_free_slot_says_it_waits_once_and_starts_when_one_frees() {
    let run = manual_run_json();
    let (service, handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
    let client = Client::new(service, "default");
    let (asked, mut heard) = tokio::sync::mpsc::unbounded_channel();
    let run_answer = run.clone();
    let verifier = serve(handle, move |seen| {
        let _ = asked.send(seen.line());
        match (&seen.method, seen.path.as_str()) {
            (&Method::GET, p) if p == format!("{RUNS}/by-hand") => {
                (StatusCode::OK, run_answer.clone())
            }
            (&Method::PATCH, p) if p.starts_with(RUNS) => echo(seen, &run_answer),
            (&Method::POST, EVENTS) => (StatusCode::CREATED, seen.body.clone()),
            (_, p) => not_found(p),
        }
    });
    let config = ControllerConfig {
        max_concurrent_runs: 1,
        ..ControllerConfig::default()
    };
    let ctx = context(client, config, &[]);
    let busy = ctx.slots.clone().acquire_owned().await.unwrap();
    let run: EvalRun = serde_json::from_value(run).unwrap();
    let reconcile = tokio::spawn(run_reconciler::reconcile(Arc::new(run), ctx.clone()));
    assert_eq!(
        heard.recv().await.unwrap(),
        format!("PATCH {RUNS}/by-hand/status")
    );
    // Nothing more while every slot is taken.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert!(heard.try_recv().is_err(), "went on without a slot");
    drop(busy);
    reconcile.await.unwrap().unwrap();
    drop(ctx);
    let seen = verifier.await.unwrap();
    let waiting = &seen[0].body;
    // Written only over the run as it was read.
    assert_eq!(waiting["metadata"]["resourceVersion"], "1");
    assert_eq!(waiting["status"]["phase"], "Pending");
    let reconciling = waiting["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "Reconciling")
        .unwrap();
    assert_eq!(
        (&reconciling["status"], &reconciling["reason"]),
        (&json!("True"), &json!("WaitingForSlot"))
    );
    assert!(
        waiting["status"]["message"]
            .as_str()
            .unwrap()
            .contains("--max-concurrent-runs"),
        "{waiting}"
    );
    // Then the run as it goes when a slot is free: read afresh first.
    assert_eq!(seen[1].line(), format!("GET {RUNS}/by-hand"));
    assert_eq!(seen.last().unwrap().line(), format!("POST {EVENTS}"));
}

#[tokio::test]
async fn a_due_suite_creates_its_run_prunes_old_ones_and_writes_its_status_last() {
    let mut spec = json!({
        "schedule": "* * * * *",
        "successfulRunsHistoryLimit": 1,
        "cases": [{"name": "c", "evaluators": [{"name": "l", "type": "loops", "loops": {}}]}],
    });
    spec["concurrencyPolicy"] = json!("Allow");
    let mut suite = suite_json(spec);
    let finished = |name: &str, minute: u32| -> EvalRun {
        serde_json::from_value(json!({
            "apiVersion": "evals.kagent.dev/v1alpha1",
            "kind": "EvalRun",
            "metadata": {"name": name, "namespace": "team", "uid": format!("{name}-uid")},
            "spec": {"suiteRef": {"name": "nightly"}, "trigger": {"type": "schedule"}},
            "status": {"phase": "Succeeded", "completionTime": format!("2026-01-01T00:{minute:02}:00Z")},
        }))
        .unwrap()
    };
    let runs = [finished("nightly-1", 1), finished("nightly-2", 2)];
    // Both runs already recorded, so the older may go now.
    suite["status"] = json!({
        "lastScheduleTime": "2026-01-01T00:02:00Z",
        "recentResults": [{"name": "nightly-1", "result": "Passed"}, {"name": "nightly-2", "result": "Passed"}],
        "lastRun": {"name": "nightly-2", "result": "Passed", "completionTime": "2026-01-01T00:02:00Z"},
    });
    let (service, handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
    let client = Client::new(service, "default");
    let suite_answer = suite.clone();
    let verifier = serve(handle, move |seen| {
        match (&seen.method, seen.path.as_str()) {
            (&Method::POST, RUNS) => (StatusCode::CREATED, seen.body.clone()),
            (&Method::POST, EVENTS) => (StatusCode::CREATED, seen.body.clone()),
            (&Method::DELETE, p) if p.starts_with(RUNS) => (
                StatusCode::OK,
                json!({"kind": "Status", "apiVersion": "v1", "status": "Success"}),
            ),
            (&Method::PATCH, p) if p.starts_with(SUITES) => echo(seen, &suite_answer),
            (_, p) => not_found(p),
        }
    });
    let ctx = context(client, ControllerConfig::default(), &runs);
    let suite: EvalSuite = serde_json::from_value(suite).unwrap();
    let action = suite_reconciler::reconcile(Arc::new(suite), ctx.clone())
        .await
        .unwrap();
    assert!(action != Action::await_change());
    drop(ctx);
    let seen = verifier.await.unwrap();
    let lines = lines(&seen);
    assert_eq!(
        lines,
        [
            // The outage since 00:02 is said first, then the latest slot runs.
            format!("POST {EVENTS}"),
            format!("POST {RUNS}"),
            format!("POST {EVENTS}"),
            format!("DELETE {RUNS}/nightly-1"),
            format!("PATCH {SUITES}/nightly/status"),
        ],
        "{lines:#?}"
    );
    assert_eq!(seen[0].body["reason"], "MissedSchedules");
    let created = &seen[1].body;
    assert!(
        created["metadata"]["name"]
            .as_str()
            .unwrap()
            .starts_with("nightly-"),
        "{created}"
    );
    assert_eq!(
        created["metadata"]["ownerReferences"][0]["uid"],
        "suite-uid"
    );
    assert_eq!(seen[2].body["reason"], "EvalRunCreated");
    let status = &seen[4].body["status"];
    assert_eq!(status["active"].as_array().unwrap().len(), 1);
    assert_eq!(status["observedGeneration"], 3);
    // Over the status it was decided from, or not at all.
    assert_eq!(seen[4].body["metadata"]["resourceVersion"], "1");
}

#[tokio::test]
async fn a_run_the_api_server_refuses_leaves_the_slot_due_and_the_suite_stalled() {
    let spec = json!({
        "schedule": "* * * * *",
        "cases": [{"name": "c", "evaluators": [{"name": "l", "type": "loops", "loops": {}}]}],
    });
    let mut suite = suite_json(spec);
    suite["status"] = json!({"lastScheduleTime": "2026-01-01T00:02:00Z"});
    let (service, handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
    let client = Client::new(service, "default");
    let suite_answer = suite.clone();
    let verifier = serve(handle, move |seen| {
        match (&seen.method, seen.path.as_str()) {
            (&Method::POST, RUNS) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Invalid", "code": 422,
                       "message": "EvalRun.evals.kagent.dev \"nightly-1\" is invalid: metadata.labels: Invalid value"}),
            ),
            (&Method::POST, EVENTS) => (StatusCode::CREATED, seen.body.clone()),
            (&Method::PATCH, p) if p.starts_with(SUITES) => echo(seen, &suite_answer),
            (_, p) => not_found(p),
        }
    });
    let ctx = context(client, ControllerConfig::default(), &[]);
    let suite: EvalSuite = serde_json::from_value(suite).unwrap();
    let action = suite_reconciler::reconcile(Arc::new(suite), ctx.clone())
        .await
        .unwrap();
    assert!(action != Action::await_change());
    drop(ctx);
    let seen = verifier.await.unwrap();
    let lines = lines(&seen);
    let runs = format!("POST {RUNS}");
    let creates = lines.iter().filter(|l| **l == runs).count();
    assert_eq!(creates, 1, "{lines:#?}");
    let warned = seen
        .iter()
        .find(|s| s.body["reason"] == "RunNotCreated")
        .unwrap_or_else(|| panic!("no RunNotCreated Event: {lines:#?}"));
    assert_eq!(warned.body["type"], "Warning");
    let note = warned.body["note"].as_str().unwrap();
    assert!(note.contains("Invalid (422): EvalRun"), "{note}");
    assert!(
        !note.contains("ErrorResponse"),
        "no Rust debug output: {note}"
    );
    let status = &seen.last().unwrap().body["status"];
    assert_eq!(
        seen.last().unwrap().line(),
        format!("PATCH {SUITES}/nightly/status")
    );
    assert_eq!(
        status["lastScheduleTime"], "2026-01-01T00:02:00Z",
        "the slot stays due"
    );
    assert_eq!(status["active"].as_array().map_or(0, Vec::len), 0);
    let condition = |type_: &str| {
        status["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["type"] == type_)
            .cloned()
            .unwrap()
    };
    assert_eq!(condition("Ready")["status"], "False");
    assert_eq!(condition("Ready")["reason"], "RunNotCreated");
    assert_eq!(condition("Stalled")["status"], "True");
}
