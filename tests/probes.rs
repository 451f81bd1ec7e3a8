//! Probes from the command line against a real kagent agent (kagent-adk
//! over A2A, a scripted model): a probe that passes, the same suite failing
//! when the agent skips its tool, k runs with one flaky, approvals given and
//! refused, an agent that is down, two users whose probes stay apart.

#[path = "support/live_agent.rs"]
mod live_agent;

use live_agent::LiveAgent;
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

/// The weather question: the tool, then the answer; occurrences listed in
/// `skips` answer from memory instead.
fn script(skips: &[u32]) -> Value {
    let memory = json!([{"text": "London is always rainy."}]);
    let variants: serde_json::Map<String, Value> = skips
        .iter()
        .map(|n| (n.to_string(), memory.clone()))
        .collect();
    json!({"model": "scripted-model", "conversations": [
        {"match": "weather in London",
         "turns": [{"tool": "get_weather", "args": {"city": "London"}, "usage": {"prompt_tokens": 20, "completion_tokens": 5}},
                   {"text": "It is sunny and 21 degrees Celsius in London.", "usage": {"prompt_tokens": 40, "completion_tokens": 9}}],
         "variants": variants},
        {"match": "delete /tmp/old.log",
         "turns": [{"tool": "delete_file", "args": {"path": "/tmp/old.log"}},
                   {"text": "Done."}]}
    ]})
}

fn suite(dir: &Path, name: &str, cases: Value) -> String {
    let file = dir.join(format!("{name}.yaml"));
    let body = json!({
        "apiVersion": "evals.kagent.dev/v1alpha1",
        "kind": "EvalSuite",
        "metadata": {"name": name},
        "spec": {"probes": {"enabled": true, "maxRuns": 10, "concurrency": 2}, "cases": cases}
    });
    std::fs::write(&file, serde_json::to_string_pretty(&body).unwrap()).unwrap();
    file.display().to_string()
}

fn weather_case(name: &str, runs: u32, user: &str) -> Value {
    json!({
        "name": name,
        "probe": {"input": "What is the weather in London?", "runs": runs, "userId": user},
        "evaluators": [
            {"name": "tool", "type": "toolsUsed", "toolsUsed": {"expected": ["get_weather"]}},
            {"name": "budget", "type": "budget", "budget": {"maxTokens": 1000}}
        ]
    })
}

struct Run {
    code: Option<i32>,
    report: Value,
    stderr: String,
}

fn run(agent: &LiveAgent, suite: &str, a2a_url: &str) -> Run {
    run_cli(
        &[
            suite,
            "--include-trajectories",
            "--a2a-url",
            a2a_url,
            "--api-url",
            &agent.controller_url,
        ],
        &[("KAGENT_EVALS_API_TOKEN", "cli-api-token")],
    )
}

/// `kagent-evals run ARGS --format json` with `env`, and no database URL
/// from the environment.
fn run_cli(args: &[&str], env: &[(&str, &str)]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .arg("run")
        .args(args)
        .args(["--format", "json"])
        .env_remove("KAGENT_EVALS_DATABASE_URL")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    Run {
        code: output.status.code(),
        report: serde_json::from_slice(&output.stdout).unwrap_or(Value::Null),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn case<'r>(report: &'r Value, name: &str) -> &'r Value {
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name} in {report}"))
}

#[test]
fn probes_against_a_live_kagent_agent() {
    // Occurrences of the weather question, in the order the runs below
    // ask it: 1 passes; 2..4 are k=3 with 3 flaky; 5, 6 two users; 7
    // skips; 8, 9 the ADK EvalSet.
    let agent = LiveAgent::start(&script(&[3, 7]));
    let dir = tempfile::tempdir().unwrap();
    // Through the controller's A2A route, as the operator reaches an Agent.
    let via_controller = format!("{}/api/a2a/kagent/weather-agent/", agent.controller_url);

    let one = suite(
        dir.path(),
        "one",
        json!([weather_case("looks-the-weather-up", 1, "probe-a")]),
    );
    let passed = run(&agent, &one, &via_controller);
    assert_eq!(passed.code, Some(0), "{} {}", passed.report, passed.stderr);
    let looked = case(&passed.report, "looks-the-weather-up");
    assert_eq!(
        looked["probe"],
        json!({"runs": 1, "passed": 1, "passAtK": true, "passAllK": true})
    );
    let session = &looked["sessions"][0];
    assert_eq!(session["userId"], "probe-a", "the probe's own identity");
    assert_eq!(session["tools"], json!(["get_weather"]));
    assert_eq!(session["evaluations"][1]["key"], "budget");
    assert_eq!(session["evaluations"][1]["passed"], true);
    assert_eq!(passed.report["summary"]["probeRuns"], 1);
    // The probe went as its own user, without the token the command line
    // holds for the kagent API (which the API reads did carry).
    let requests = agent.controller_requests();
    let header = |r: &Value, name: &str| -> Option<String> {
        r["headers"]
            .as_object()
            .unwrap()
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str().unwrap().to_string())
    };
    let probes: Vec<&Value> = requests
        .iter()
        .filter(|r| r["path"].as_str().unwrap().starts_with("/api/a2a/"))
        .collect();
    assert!(!probes.is_empty());
    for probe in &probes {
        if probe["method"] == "POST" {
            assert_eq!(header(probe, "x-user-id").as_deref(), Some("probe-a"));
        }
        assert_eq!(header(probe, "authorization"), None, "{probe}");
    }
    // The version spoken is the one the Agent's card offers.
    assert!(
        probes.iter().any(|r| r["method"] == "GET"
            && r["path"]
                .as_str()
                .unwrap()
                .ends_with("/.well-known/agent.json")),
        "{probes:?}"
    );
    assert_eq!(
        passed.report["probedWith"],
        "A2A 0.3, from the agent card (it offers 0.3.0)"
    );
    assert!(
        requests
            .iter()
            .any(|r| r["method"] == "GET" && header(r, "authorization").is_some()),
        "the API reads carried the token"
    );

    let flaky = suite(
        dir.path(),
        "flaky",
        json!([weather_case("three-times", 3, "probe-a")]),
    );
    let flaky = run(&agent, &flaky, &agent.a2a_url);
    assert_eq!(flaky.code, Some(1), "{}", flaky.report);
    let three = case(&flaky.report, "three-times");
    assert_eq!(
        three["probe"],
        json!({"runs": 3, "passed": 2, "passAtK": true, "passAllK": false})
    );
    assert_eq!(three["outcome"], "Failed");

    let users = suite(
        dir.path(),
        "users",
        json!([
            weather_case("as-alice", 1, "alice@example.com"),
            weather_case("as-bob", 1, "bob@example.com")
        ]),
    );
    let users = run(&agent, &users, &agent.a2a_url);
    assert_eq!(users.code, Some(0), "{}", users.report);
    let alice = &case(&users.report, "as-alice")["sessions"][0];
    let bob = &case(&users.report, "as-bob")["sessions"][0];
    assert_eq!(alice["userId"], "alice@example.com");
    assert_eq!(bob["userId"], "bob@example.com");
    assert_ne!(alice["sessionId"], bob["sessionId"]);
    for session in [alice, bob] {
        let users_seen: Vec<&str> = session["trajectory"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "user")
            .map(|m| m["content"].as_str().unwrap())
            .collect();
        assert_eq!(
            users_seen,
            ["What is the weather in London?"],
            "one conversation each"
        );
    }

    // The same one-case suite, and the agent answers from memory this time.
    let skipped = run(&agent, &one, &agent.a2a_url);
    assert_eq!(skipped.code, Some(1), "{}", skipped.report);
    let looked = case(&skipped.report, "looks-the-weather-up");
    assert_eq!(looked["outcome"], "Failed");
    assert_eq!(looked["sessions"][0]["tools"], json!([]));

    // An ADK EvalSet, unchanged, as probes: its user turns the script, its
    // criteria file the metrics, --probe-runs its num_runs.
    let adk = dir.path().join("adk");
    std::fs::create_dir(&adk).unwrap();
    std::fs::write(
        adk.join("weather.evalset.json"),
        json!({"eval_set_id": "weather", "eval_cases": [{"eval_id": "london", "conversation": [{
            "user_content": {"role": "user", "parts": [{"text": "What is the weather in London?"}]},
            "final_response": {"role": "model", "parts": [{"text": "It is sunny and 21 degrees Celsius in London."}]},
            "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "London"}}]}
        }]}]})
        .to_string(),
    )
    .unwrap();
    std::fs::write(
        adk.join("test_config.json"),
        r#"{"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}"#,
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args([
            "run",
            adk.join("weather.evalset.json").to_str().unwrap(),
            "--format",
            "json",
        ])
        .args([
            "--a2a-url",
            &agent.a2a_url,
            "--probe-runs",
            "2",
            "--api-url",
            &agent.controller_url,
        ])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{report} {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let london = case(&report, "london");
    assert_eq!(london["probe"]["runs"], 2);
    assert_eq!(
        london["sessions"][0]["evaluations"][0]["key"],
        "tool_trajectory_avg_score"
    );
    assert_eq!(london["sessions"][0]["evaluations"][1]["score"], 1.0);

    // An approval: given, refused, and not answered (the probe's default).
    let approvals = |policy: &str| {
        json!({
            "name": format!("delete-{policy}"),
            "probe": {"input": "Please delete /tmp/old.log", "approvals": policy},
            "evaluators": [{"name": "tool", "type": "toolsUsed", "toolsUsed": {"expected": ["delete_file"]}}]
        })
    };
    let approved = suite(
        dir.path(),
        "approve",
        json!([approvals("approve"), approvals("reject")]),
    );
    let approved = run(&agent, &approved, &agent.a2a_url);
    assert_eq!(
        approved.code,
        Some(0),
        "{} {}",
        approved.report,
        approved.stderr
    );
    let tool_result = |name: &str| -> String {
        case(&approved.report, name)["sessions"][0]["trajectory"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "tool")
            .map(|m| m["content"].as_str().unwrap().to_string())
            .unwrap()
    };
    assert_eq!(tool_result("delete-approve"), "Deleted /tmp/old.log.");
    assert!(tool_result("delete-reject").starts_with("Tool call was rejected by user"));
    let unanswered = suite(dir.path(), "fail", json!([approvals("fail")]));
    let unanswered = run(&agent, &unanswered, &agent.a2a_url);
    assert_eq!(unanswered.code, Some(1), "{}", unanswered.report);
    let error = case(&unanswered.report, "delete-fail")["sessions"][0]["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        error.contains("asked to approve a call to delete_file"),
        "{error}"
    );
}

#[test]
fn an_agent_that_is_down_is_a_run_error() {
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let down = format!("http://127.0.0.1:{port}/");
    let file = suite(
        dir.path(),
        "down",
        json!([weather_case("looks-the-weather-up", 1, "probe-a")]),
    );
    let output = Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args([
            "run",
            &file,
            "--a2a-url",
            &down,
            "--api-url",
            "http://127.0.0.1:9",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("the Agent's A2A endpoint {down}")),
        "{stderr}"
    );

    // A probe needs an endpoint; without one the run says so.
    let output = Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args(["run", &file, "--api-url", "http://127.0.0.1:9"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("pass --a2a-url"));
}

#[test]
fn a_probe_needs_the_suites_opt_in() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("suite.yaml");
    std::fs::write(
        &file,
        "apiVersion: evals.kagent.dev/v1alpha1\nkind: EvalSuite\nmetadata: {name: t}\nspec:\n  cases:\n    - name: c\n      probe: {input: hi}\n      evaluators:\n        - {name: e, type: toolsUsed, toolsUsed: {expected: [a]}}\n",
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args([
            "run",
            file.to_str().unwrap(),
            "--a2a-url",
            "http://127.0.0.1:9/",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr.contains("cases[0].probe") && stderr.contains("probes.enabled"),
        "{stderr}"
    );
}

/// A stand-in for an Agent that misbehaves in one way, `mode`: it answers
/// JSON-RPC at `/`, and every request it gets is counted.
mod hostile {
    use axum::Router;
    use axum::body::Body;
    use axum::extract::State;
    use axum::http::{StatusCode, header};
    use axum::response::{IntoResponse, Response};
    use axum::routing::post;
    use serde_json::{Value, json};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    pub struct Agent {
        pub url: String,
        pub requests: Arc<AtomicUsize>,
        /// The message id of every request, in order.
        pub message_ids: Arc<std::sync::Mutex<Vec<String>>>,
        _runtime: tokio::runtime::Runtime,
    }

    #[derive(Clone)]
    struct Mode {
        name: &'static str,
        requests: Arc<AtomicUsize>,
        message_ids: Arc<std::sync::Mutex<Vec<String>>>,
        redirect_to: Option<String>,
    }

    fn completed(context: &Value, state: &str, v1: bool) -> Value {
        let task = json!({"id": "t1", "contextId": context, "status": {"state": state}});
        if v1 {
            json!({"jsonrpc": "2.0", "id": "1", "result": {"task": task}})
        } else {
            let mut task = task;
            task["kind"] = json!("task");
            json!({"jsonrpc": "2.0", "id": "1", "result": task})
        }
    }

    async fn answer(State(mode): State<Mode>, body: axum::body::Bytes) -> Response {
        let seen = mode.requests.fetch_add(1, Ordering::SeqCst);
        let request: Value = serde_json::from_slice(&body).unwrap_or_default();
        // A first A2A 1.0 message names no conversation: the Agent opens one.
        let message = &request["params"]["message"];
        mode.message_ids.lock().unwrap().push(
            message["messageId"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        );
        let context = match &message["contextId"] {
            Value::Null => json!("opened-by-the-agent"),
            named => named.clone(),
        };
        let json = |value: Value| axum::Json(value).into_response();
        match mode.name {
            "0.3 body" => json(completed(&context, "completed", false)),
            "1.0 body" => json(completed(&context, "TASK_STATE_COMPLETED", true)),
            "another conversation" => json(completed(&json!("someone-else"), "completed", false)),
            // A task completed, in the version asked.
            "completes" => json(completed(
                &context,
                if request["method"] == "SendMessage" {
                    "TASK_STATE_COMPLETED"
                } else {
                    "completed"
                },
                request["method"] == "SendMessage",
            )),
            "busy twice" if seen < 2 => json(json!({"jsonrpc": "2.0", "id": "1", "error": {
                "code": -32004, "message": "input was not accepted; retry after the session becomes available",
                "data": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "KAGENT_SEND_NOT_ACCEPTED",
                          "domain": "kagent.dev", "metadata": {"retryAfterMs": "100"}}]}})),
            "busy twice" => json(completed(&context, "TASK_STATE_COMPLETED", true)),
            // Answers kept as tasks that cannot be read back as the probe's.
            "moves its task" | "bulky task" if request["method"] == "GetTask" => {
                let mut task = completed(
                    &json!("opened-by-the-agent"),
                    "TASK_STATE_COMPLETED",
                    true,
                )["result"]["task"]
                    .take();
                if mode.name == "moves its task" {
                    task["contextId"] = json!("someone-else");
                } else {
                    task["history"] = json!(vec![
                        json!({"role": "ROLE_USER", "parts": [{"text": "x"}]});
                        200
                    ]);
                }
                json(json!({"jsonrpc": "2.0", "id": "1", "result": task}))
            }
            "moves its task" | "bulky task" => {
                json(completed(&context, "TASK_STATE_COMPLETED", true))
            }
            "answers a message" => {
                json(json!({"jsonrpc": "2.0", "id": "1", "result": {"message": {
                "messageId": "m1", "contextId": context, "role": "ROLE_AGENT", "parts": [{"text": "Sunny."}]}}}))
            }
            // A2A's own -32004, UnsupportedOperation: no invitation to resend.
            "unsupported" => json(json!({"jsonrpc": "2.0", "id": "1", "error": {
                "code": -32004, "message": "this operation is not supported"}})),
            "endless" => {
                let chunk = axum::body::Bytes::from(vec![b' '; 1 << 20]);
                let stream =
                    futures::stream::repeat_with(move || Ok::<_, std::io::Error>(chunk.clone()));
                Response::new(Body::from_stream(stream))
            }
            "redirect" => (
                StatusCode::TEMPORARY_REDIRECT,
                [(header::LOCATION, mode.redirect_to.clone().unwrap())],
            )
                .into_response(),
            other => panic!("no mode {other}"),
        }
    }

    pub fn start(name: &'static str, redirect_to: Option<String>) -> Agent {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let requests = Arc::new(AtomicUsize::new(0));
        let message_ids = Arc::new(std::sync::Mutex::new(Vec::new()));
        let mode = Mode {
            name,
            requests: requests.clone(),
            message_ids: message_ids.clone(),
            redirect_to,
        };
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let app = Router::new().route("/", post(answer)).with_state(mode);
        runtime.spawn(async move { axum::serve(listener, app).await.unwrap() });
        Agent {
            url,
            requests,
            message_ids,
            _runtime: runtime,
        }
    }
}

/// An Agent that answers in the other version, in another conversation,
/// without end or with a redirect: the run names what happened and no
/// session is scored as the probe's; a busy session is asked again, the
/// same message, and nothing else is resent.
#[test]
fn a_misbehaving_agent_is_named_and_never_scored() {
    let dir = tempfile::tempdir().unwrap();
    let file = suite(
        dir.path(),
        "hostile",
        json!([{
            "name": "asks",
            "probe": {"input": "What is the weather in London?", "userId": "probe-a"},
            "evaluators": [{"name": "safe", "type": "safety", "safety": {"forbidden": ["delete_file"]}}]
        }]),
    );
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/weather/sessions/weather-grounded.jsonl"
    );
    let run = |agent: &str, protocol: &str| {
        let run = run_cli(
            &[
                &file,
                "--fixture",
                fixture,
                "--a2a-url",
                agent,
                "--a2a-protocol",
                protocol,
            ],
            &[],
        );
        (run.code, run.report, run.stderr)
    };

    let old = hostile::start("0.3 body", None);
    let (code, _, stderr) = run(&old.url, "1.0");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("answered an A2A 1.0 request with a body of A2A 0.3"),
        "{stderr}"
    );

    let new = hostile::start("1.0 body", None);
    let (code, _, stderr) = run(&new.url, "0.3");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("answered an A2A 0.3 request with a SendMessageResponse of A2A 1.0"),
        "{stderr}"
    );

    // In A2A 0.3 the probe names its conversation (in 1.0 the Agent opens
    // it, and a later turn answered elsewhere is refused the same way).
    let elsewhere = hostile::start("another conversation", None);
    let (code, report, stderr) = run(&elsewhere.url, "0.3");
    assert_eq!(
        code,
        Some(2),
        "an error of the case, not a verdict: {report} {stderr}"
    );
    let asks = &report["cases"][0];
    assert_eq!(asks["outcome"], "Error", "{report}");
    let error = asks["sessions"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("answered in conversation someone-else"),
        "{error}"
    );
    assert!(
        asks["sessions"][0]["evaluations"]
            .as_array()
            .is_none_or(Vec::is_empty),
        "{report}"
    );

    let busy = hostile::start("busy twice", None);
    let (code, report, stderr) = run(&busy.url, "1.0");
    assert_eq!(code, Some(0), "{report} {stderr}");
    let ids = busy.message_ids.lock().unwrap().clone();
    assert_eq!(ids.len(), 3, "sent again after each busy answer: {ids:?}");
    assert!(
        ids.iter().all(|id| *id == ids[0]),
        "the same message: {ids:?}"
    );
    assert_eq!(
        report["cases"][0]["sessions"][0]["sessionId"], "opened-by-the-agent",
        "the conversation the Agent opened is the one read back"
    );
    let unsupported = hostile::start("unsupported", None);
    let (code, _, stderr) = run(&unsupported.url, "1.0");
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(
        unsupported
            .requests
            .load(std::sync::atomic::Ordering::SeqCst),
        1,
        "A2A's UnsupportedOperation is not resent"
    );
    assert!(
        stderr.contains("error -32004: this operation is not supported"),
        "{stderr}"
    );

    let endless = hostile::start("endless", None);
    let (code, _, stderr) = run(&endless.url, "1.0");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("a body over 16777216 bytes, not read"),
        "{stderr}"
    );

    let elsewhere_host = hostile::start("1.0 body", None);
    let redirecting = hostile::start("redirect", Some(elsewhere_host.url.clone()));
    let (code, _, stderr) = run(&redirecting.url, "1.0");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("307"), "{stderr}");
    assert_eq!(
        elsewhere_host
            .requests
            .load(std::sync::atomic::Ordering::SeqCst),
        0,
        "the redirect is not followed"
    );
}

/// With `probes.readFrom: agent`, a run whose conversation cannot be read
/// back from the Agent's tasks is never scored, and says why: an answer
/// that is a message (no task to read), a task that moved to another
/// conversation, a task over the read limits.
#[test]
fn a_conversation_that_cannot_be_read_from_the_agent_is_never_scored() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("from-agent.yaml");
    let body = json!({
        "apiVersion": "evals.kagent.dev/v1alpha1",
        "kind": "EvalSuite",
        "metadata": {"name": "from-agent"},
        "spec": {"probes": {"enabled": true, "readFrom": "agent"}, "cases": [{
            "name": "asks",
            "probe": {"input": "What is the weather in London?", "userId": "probe-a"},
            "evaluators": [{"name": "safe", "type": "safety", "safety": {"forbidden": ["delete_file"]}}]
        }]}
    });
    std::fs::write(&file, body.to_string()).unwrap();
    let run = |agent: &str| {
        let run = run_cli(
            &[
                file.to_str().unwrap(),
                "--a2a-url",
                agent,
                "--a2a-protocol",
                "1.0",
                "--max-row-elements",
                "100",
            ],
            &[],
        );
        (run.code, run.report, run.stderr)
    };
    let not_scored = |report: &Value| -> String {
        let session = &report["cases"][0]["sessions"][0];
        assert!(
            session["evaluations"].as_array().is_none_or(Vec::is_empty),
            "{report}"
        );
        session["error"].as_str().unwrap_or_default().to_string()
    };

    let message = hostile::start("answers a message", None);
    let (code, report, stderr) = run(&message.url);
    assert_eq!(code, Some(2), "{report} {stderr}");
    assert!(
        not_scored(&report).contains("answered turn 1 with no task to read back"),
        "{report}"
    );

    let moved = hostile::start("moves its task", None);
    let (code, report, stderr) = run(&moved.url);
    assert_eq!(code, Some(2), "{report} {stderr}");
    assert!(
        not_scored(&report)
            .contains("task t1 is in conversation someone-else, not opened-by-the-agent"),
        "{report}"
    );

    let bulky = hostile::start("bulky task", None);
    let (code, _, stderr) = run(&bulky.url);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("GetTask with an answer that holds more than 100 elements"),
        "{stderr}"
    );
}

/// A run taken over after its controller stopped sends nothing new: its
/// probe ids derive from the run, so an A2A 0.3 conversation the earlier
/// execution made is read back, not sent again, and an A2A 1.0 message is
/// resent with the same id (kagent answers it with the same Session).
#[test]
fn a_run_taken_over_sends_no_new_probe() {
    use kagent_evals::a2a::{A2aClient, ProtocolChoice};
    use kagent_evals::core::formats::load::load_compiled;
    use kagent_evals::core::judge::NoJudge;
    use kagent_evals::core::read_limits::ReadLimits;
    use kagent_evals::core::suite::spec::A2aProtocol;
    use kagent_evals::pipeline::{ProbeIds, run_suite};
    use kagent_evals::source::fixture::FixtureSource;

    let text = r#"
apiVersion: evals.kagent.dev/v1alpha1
kind: EvalSuite
metadata: {name: takeover}
spec:
  probes: {enabled: true, maxRuns: 2}
  cases:
    - name: asks
      probe: {input: "What is the weather in London?", runs: 2, userId: probe-a}
      evaluators:
        - {name: tool, type: toolsUsed, toolsUsed: {expected: [get-weather-by-city_get-weather-by-city]}}
"#;
    let (_, suite) = load_compiled("takeover.yaml", text, None)
        .unwrap()
        .remove(0);
    // A fixture of one session holds whatever conversation is asked for:
    // the earlier execution's, as kagent would.
    let source = FixtureSource::open(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/weather/sessions/weather-grounded.jsonl"
    ))
    .unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let execute = |agent: &hostile::Agent, protocol: A2aProtocol, ids: ProbeIds| {
        let client = A2aClient::new(
            &agent.url,
            ProtocolChoice::Given {
                protocol,
                by: "the test".into(),
            },
            ReadLimits::default(),
        )
        .unwrap();
        runtime
            .block_on(run_suite(
                &suite,
                &source,
                &NoJudge::None,
                Some(&client),
                &ids,
                jiff::Timestamp::now(),
                false,
            ))
            .unwrap()
    };
    let run = |resumed| ProbeIds::Derived {
        run: "0b0e5b8c-run-uid".into(),
        resumed,
    };

    let agent = hostile::start("completes", None);
    let first = execute(&agent, A2aProtocol::V0_3, run(false));
    assert!(first.passed, "{first:?}");
    let sent = agent.message_ids.lock().unwrap().len();
    assert_eq!(sent, 2, "one message per run");
    let taken_over = execute(&agent, A2aProtocol::V0_3, run(true));
    assert!(taken_over.passed);
    assert_eq!(
        agent.message_ids.lock().unwrap().len(),
        sent,
        "nothing sent again"
    );
    let session = &taken_over.cases[0].sessions[0];
    assert!(
        session.notes.iter().any(|n| n
            .to_string()
            .contains("read back after the run was taken over")),
        "{session:?}"
    );

    let v1 = hostile::start("completes", None);
    execute(&v1, A2aProtocol::V1_0, run(false));
    execute(&v1, A2aProtocol::V1_0, run(true));
    let ids = v1.message_ids.lock().unwrap().clone();
    assert_eq!(ids.len(), 4);
    let (earlier, resent) = ids.split_at(2);
    let mut earlier = earlier.to_vec();
    let mut resent = resent.to_vec();
    earlier.sort();
    resent.sort();
    assert_eq!(earlier, resent, "the same two message ids, resent");
    assert_ne!(earlier[0], earlier[1], "each run its own");

    // Fresh ids for a run from the command line.
    let fresh = hostile::start("completes", None);
    execute(&fresh, A2aProtocol::V1_0, ProbeIds::Fresh);
    execute(&fresh, A2aProtocol::V1_0, ProbeIds::Fresh);
    let ids = fresh.message_ids.lock().unwrap().clone();
    assert!(ids[..2].iter().all(|id| !ids[2..].contains(id)), "{ids:?}");
}
