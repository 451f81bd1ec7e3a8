//! The judged evaluators against a local HTTP server that speaks the
//! chat-completions protocol: the request we send, the answers we can read,
//! votes, retries, the liveness check, and the line between a failed case
//! (exit 1) and a judge that could not answer (exit 2).

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex};

const API_KEY: &str = "sk-judge-test-0123456789abcdef";
const SESSION: &str = "examples/weather/sessions/weather-grounded.jsonl";

/// One scripted reply of the chat endpoint.
enum Reply {
    Content(&'static str),
    Status(u16),
    /// An answer that comes only after this many seconds.
    Late(u64),
}

#[derive(Default)]
struct Server {
    replies: Mutex<VecDeque<Reply>>,
    /// Status of `GET /models`.
    models_status: Mutex<u16>,
    /// Answer 400 to requests that ask for structured output, as servers
    /// without `response_format` support do.
    rejects_structured: Mutex<bool>,
    /// Bodies of the chat requests, with their Authorization header.
    requests: Mutex<Vec<(Option<String>, Value)>>,
}

async fn models(State(server): State<Arc<Server>>) -> (StatusCode, Json<Value>) {
    let status = *server.models_status.lock().unwrap();
    (
        StatusCode::from_u16(status).unwrap(),
        Json(json!({"object": "list", "data": [{"id": "judge-model"}]})),
    )
}

async fn chat(
    State(server): State<Arc<Server>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> (StatusCode, Json<Value>) {
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(String::from);
    let refused =
        *server.rejects_structured.lock().unwrap() && body.get("response_format").is_some();
    server.requests.lock().unwrap().push((auth, body));
    if refused {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": {"message": "response_format is not supported"}})),
        );
    }
    let reply = server.replies.lock().unwrap().pop_front();
    if let Some(Reply::Late(seconds)) = reply {
        tokio::time::sleep(std::time::Duration::from_secs(seconds)).await;
        return (StatusCode::OK, Json(json!({"choices": []})));
    }
    match reply {
        Some(Reply::Content(content)) => (
            StatusCode::OK,
            Json(json!({
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}
            })),
        ),
        Some(Reply::Status(status)) => (
            StatusCode::from_u16(status).unwrap(),
            Json(json!({"error": {"message": "scripted failure"}})),
        ),
        Some(Reply::Late(_)) | None => (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(json!({"error": {"message": "the script ran out"}})),
        ),
    }
}

/// A server on a free loopback port, answering `replies` in order.
fn serve(runtime: &tokio::runtime::Runtime, replies: Vec<Reply>) -> (Arc<Server>, String) {
    let server = Arc::new(Server {
        replies: Mutex::new(replies.into()),
        models_status: Mutex::new(200),
        rejects_structured: Mutex::new(false),
        requests: Mutex::default(),
    });
    let app = axum::Router::new()
        .route("/v1/models", get(models))
        .route("/v1/chat/completions", post(chat))
        .with_state(server.clone());
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    runtime.spawn(async move { axum::serve(listener, app).await });
    (server, url)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

/// A suite of one case with the given judged evaluator.
fn suite(dir: &Path, evaluator: Value) -> String {
    suite_with(dir, evaluator, None)
}

/// The same suite, with the suite-level `judge` settings given.
fn suite_with(dir: &Path, evaluator: Value, judge: Option<Value>) -> String {
    let mut manifest = json!({
        "apiVersion": "evals.kagent.dev/v1alpha1",
        "kind": "EvalSuite",
        "metadata": {"name": "judged"},
        "spec": {"cases": [{"name": "judged-case", "evaluators": [evaluator]}]}
    });
    if let Some(judge) = judge {
        manifest["spec"]["judge"] = judge;
    }
    let path = dir.join("suite.yaml");
    // JSON is YAML.
    std::fs::write(&path, manifest.to_string()).unwrap();
    path.display().to_string()
}

fn trajectory_judge(settings: Value) -> Value {
    json!({"name": "judge", "type": "trajectoryJudge", "trajectoryJudge": settings})
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    report: Value,
}

fn session() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(SESSION)
        .display()
        .to_string()
}

/// The binary with the judge's key in its environment (and no judge from
/// the caller's); its stdout read as JSON when it is.
fn kagent_evals(args: &[&str]) -> Run {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args(args)
        .env("KAGENT_EVALS_JUDGE_API_KEY", API_KEY)
        .env_remove("KAGENT_EVALS_JUDGE_URL")
        .env_remove("KAGENT_EVALS_JUDGE_MODEL")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        !stdout.contains(API_KEY) && !stderr.contains(API_KEY),
        "the API key leaked:\n{stdout}\n{stderr}"
    );
    Run {
        code: output.status.code(),
        report: serde_json::from_str(&stdout).unwrap_or(Value::Null),
        stdout,
        stderr,
    }
}

/// `run` of a suite on the captured session, judged by the server at `url`.
fn run(suite: &str, url: &str, extra: &[&str]) -> Run {
    let session = session();
    let mut args = vec!["run", suite, "--fixture", &session];
    args.extend(["--judge-url", url, "--judge-model", "judge-model"]);
    args.extend(["--format", "json"]);
    args.extend(extra);
    kagent_evals(&args)
}

fn evaluation(report: &Value) -> &Value {
    &report["cases"][0]["sessions"][0]["evaluations"][0]
}

#[test]
fn the_request_is_a_chat_completion_with_a_json_schema_and_the_key() {
    let runtime = runtime();
    let (server, url) = serve(
        &runtime,
        vec![Reply::Content(
            r#"{"reasoning": "grounded", "score": true}"#,
        )],
    );
    let dir = tempfile::tempdir().unwrap();
    let suite = suite(dir.path(), trajectory_judge(json!({"temperature": 0.2})));
    let run = run(&suite, &url, &[]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let requests = server.requests.lock().unwrap();
    let (auth, body) = &requests[0];
    assert_eq!(auth.as_deref(), Some(&*format!("Bearer {API_KEY}")));
    assert_eq!(body["model"], "judge-model");
    assert_eq!(body["temperature"], 0.2);
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"][1]["role"], "user");
    let prompt = body["messages"][1]["content"].as_str().unwrap();
    assert!(
        prompt.contains("<trajectory>") && prompt.contains("called "),
        "{prompt}"
    );
    let format = &body["response_format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["json_schema"]["name"], "trajectory_judgement");
    assert_eq!(format["json_schema"]["strict"], true);
    assert_eq!(
        format["json_schema"]["schema"]["properties"]["score"]["type"],
        "boolean"
    );

    let evaluation = evaluation(&run.report);
    assert_eq!(evaluation["key"], "trajectory_accuracy");
    assert_eq!(evaluation["score"], true);
    assert_eq!(run.report["judge"]["calls"], 1);
    assert_eq!(run.report["judge"]["promptTokens"], 120);
    assert_eq!(run.report["judge"]["completionTokens"], 30);
    // The reasoning may quote the conversation: only with the trajectories.
    assert!(evaluation.get("reasoning").is_none(), "{evaluation}");
}

#[test]
fn a_fenced_answer_is_read_and_the_reasoning_travels_with_the_trajectories() {
    let runtime = runtime();
    let (_server, url) = serve(
        &runtime,
        vec![Reply::Content(
            "Sure.\n```json\n{\"reasoning\": \"called get_weather first\", \"score\": true}\n```",
        )],
    );
    let dir = tempfile::tempdir().unwrap();
    let suite = suite(dir.path(), trajectory_judge(json!({})));
    let run = run(&suite, &url, &["--include-trajectories"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        evaluation(&run.report)["reasoning"],
        "called get_weather first"
    );
}

#[test]
fn a_poor_judgement_fails_the_case_with_exit_1() {
    let runtime = runtime();
    let (_server, url) = serve(
        &runtime,
        vec![Reply::Content(
            r#"{"reasoning": "answered from memory", "score": 2, "goal_met": false}"#,
        )],
    );
    let dir = tempfile::tempdir().unwrap();
    let outcome = json!({"name": "outcome", "type": "outcomeJudge", "outcomeJudge": {}});
    let run = run(&suite(dir.path(), outcome), &url, &[]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let evaluation = evaluation(&run.report);
    assert_eq!(evaluation["key"], "outcome_score");
    assert_eq!(evaluation["score"], 2.0);
    let comment = evaluation["comment"].as_str().unwrap();
    assert!(
        comment.contains("needs 4") && comment.contains("goal not met"),
        "{comment}"
    );
    assert_eq!(run.report["cases"][0]["outcome"], "Failed");
}

#[test]
fn an_answer_unreadable_after_every_attempt_is_an_error_with_exit_2() {
    let runtime = runtime();
    let (server, url) = serve(
        &runtime,
        vec![
            Reply::Content("I would say it is fine."),
            Reply::Content("{\"verdict\": \"fine\"}"),
            Reply::Content(""),
        ],
    );
    let dir = tempfile::tempdir().unwrap();
    let run = run(&suite(dir.path(), trajectory_judge(json!({}))), &url, &[]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_eq!(server.requests.lock().unwrap().len(), 3);
    assert_eq!(run.report["cases"][0]["outcome"], "Error");
    let error = evaluation(&run.report)["error"].as_str().unwrap();
    assert!(
        error.contains("no readable answer in 3 attempts"),
        "{error}"
    );
}

#[test]
fn server_errors_are_retried_and_samples_are_voted() {
    let runtime = runtime();
    let (server, url) = serve(
        &runtime,
        vec![
            Reply::Status(503),
            Reply::Content(r#"{"reasoning": "a", "score": true}"#),
            Reply::Content(r#"{"reasoning": "b", "score": false}"#),
            Reply::Status(429),
            Reply::Content(r#"{"reasoning": "c", "score": true}"#),
        ],
    );
    let dir = tempfile::tempdir().unwrap();
    let settings = json!({"numSamples": 3, "temperature": 0.7});
    let run = run(&suite(dir.path(), trajectory_judge(settings)), &url, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(server.requests.lock().unwrap().len(), 5);
    // Answered calls only: a retried request is one call.
    assert_eq!(run.report["judge"]["calls"], 3);
    assert!(!run.stderr.contains("warning"), "{}", run.stderr);
}

#[test]
fn a_vote_at_temperature_zero_is_warned_about() {
    let runtime = runtime();
    let answer = r#"{"reasoning": "a", "score": true}"#;
    let (_server, url) = serve(
        &runtime,
        vec![Reply::Content(answer), Reply::Content(answer)],
    );
    let dir = tempfile::tempdir().unwrap();
    let settings = json!({"numSamples": 2, "temperature": 0});
    let run = run(&suite(dir.path(), trajectory_judge(settings)), &url, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr.contains("warning:") && run.stderr.contains("temperature 0"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_rejected_key_stops_the_run_before_any_judged_case() {
    let runtime = runtime();
    let (server, url) = serve(&runtime, vec![]);
    *server.models_status.lock().unwrap() = 401;
    let dir = tempfile::tempdir().unwrap();
    let run = run(&suite(dir.path(), trajectory_judge(json!({}))), &url, &[]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains("rejected the API key"),
        "{}",
        run.stderr
    );
    assert!(server.requests.lock().unwrap().is_empty());
}

#[test]
fn an_endpoint_that_is_down_is_an_error_naming_it() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let dir = tempfile::tempdir().unwrap();
    let run = run(&suite(dir.path(), trajectory_judge(json!({}))), &url, &[]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains("unreachable") && run.stderr.contains(&format!("127.0.0.1:{port}")),
        "{}",
        run.stderr
    );
}

#[test]
fn a_judged_suite_without_an_endpoint_says_how_to_give_one() {
    let dir = tempfile::tempdir().unwrap();
    let suite = suite(dir.path(), trajectory_judge(json!({})));
    let run = kagent_evals(&["run", &suite, "--fixture", &session()]);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("--judge-url"), "{}", run.stderr);
}

#[test]
fn a_kagent_agentevals_llm_judge_runs_as_a_trajectory_judge_with_its_reference() {
    let runtime = runtime();
    let (server, url) = serve(
        &runtime,
        vec![Reply::Content(
            r#"{"reasoning": "equivalent", "score": true}"#,
        )],
    );
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("agentevals.yaml");
    std::fs::write(
        &suite,
        r#"name: judged-agentevals
cases:
  - name: judged
    session_id: fixture
    evaluators:
      - type: llm_judge
        model: openai:judge-model
        reference:
          - {role: user, content: current weather in London}
          - role: assistant
            content: ""
            tool_calls:
              - {type: function, function: {name: get_weather, arguments: '{"city": "London"}'}}
"#,
    )
    .unwrap();
    let run = run(suite.to_str().unwrap(), &url, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(evaluation(&run.report)["key"], "trajectory_accuracy");
    let requests = server.requests.lock().unwrap();
    let prompt = requests[0].1["messages"][1]["content"].as_str().unwrap();
    assert!(
        prompt.contains("<reference>") && prompt.contains("get_weather({\"city\": \"London\"})"),
        "{prompt}"
    );
}

#[test]
fn an_endpoint_without_structured_output_is_asked_plainly_from_then_on() {
    let runtime = runtime();
    let answer = "```json\n{\"reasoning\": \"fine\", \"score\": true}\n```";
    let (server, url) = serve(
        &runtime,
        vec![Reply::Content(answer), Reply::Content(answer)],
    );
    *server.rejects_structured.lock().unwrap() = true;
    let dir = tempfile::tempdir().unwrap();
    let settings = json!({"numSamples": 2, "temperature": 0.5});
    let run = run(&suite(dir.path(), trajectory_judge(settings)), &url, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let requests = server.requests.lock().unwrap();
    let structured: Vec<bool> = requests
        .iter()
        .map(|(_, body)| body.get("response_format").is_some())
        .collect();
    // Refused once, then never asked for again.
    assert_eq!(structured, [true, false, false]);
    let prompt = requests[1].1["messages"][1]["content"].as_str().unwrap();
    assert!(
        prompt.contains("JSON schema"),
        "the prompt states the schema: {prompt}"
    );
}

#[test]
fn score_asks_the_judge_for_one_evaluator() {
    let runtime = runtime();
    let (server, url) = serve(
        &runtime,
        vec![Reply::Content(
            r#"{"reasoning": "r", "score": 3, "goal_met": true}"#,
        )],
    );
    let dir = tempfile::tempdir().unwrap();
    let evaluator = dir.path().join("evaluator.json");
    let spec = json!({"name": "outcome", "type": "outcomeJudge", "outcomeJudge": {"minScore": 3}});
    std::fs::write(&evaluator, spec.to_string()).unwrap();
    let run = kagent_evals(&[
        "score",
        "--evaluator",
        evaluator.to_str().unwrap(),
        "--trajectory",
        &session(),
        "--judge-url",
        &url,
        "--judge-model",
        "judge-model",
    ]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert_eq!(run.report["key"], "outcome_score");
    assert_eq!(run.report["score"], 3.0);
    assert_eq!(server.requests.lock().unwrap().len(), 1);
}

#[test]
fn the_key_file_is_sent_in_place_of_the_environment() {
    let runtime = runtime();
    let (server, url) = serve(
        &runtime,
        vec![Reply::Content(r#"{"reasoning": "ok", "score": true}"#)],
    );
    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("key");
    std::fs::write(&key_file, "sk-from-a-file-4242\n").unwrap();
    let suite = suite(dir.path(), trajectory_judge(json!({})));
    let run = run(
        &suite,
        &url,
        &["--judge-api-key-file", key_file.to_str().unwrap()],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(!run.stdout.contains("sk-from-a-file") && !run.stderr.contains("sk-from-a-file"));
    let requests = server.requests.lock().unwrap();
    assert_eq!(requests[0].0.as_deref(), Some("Bearer sk-from-a-file-4242"));
}

#[test]
fn an_answer_slower_than_the_timeout_is_an_error_after_the_retries() {
    let runtime = runtime();
    let (server, url) = serve(&runtime, (0..4).map(|_| Reply::Late(3)).collect());
    let dir = tempfile::tempdir().unwrap();
    let judge = json!({"timeoutSeconds": 1});
    let suite = suite_with(dir.path(), trajectory_judge(json!({})), Some(judge));
    let run = run(&suite, &url, &[]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_eq!(
        server.requests.lock().unwrap().len(),
        4,
        "every attempt timed out"
    );
    let error = evaluation(&run.report)["error"].as_str().unwrap();
    assert!(
        error.contains("timed out") && error.contains("after 4 attempts"),
        "{error}"
    );
}

fn adk_judge(settings: Value) -> Value {
    json!({"name": "quality", "type": "adkJudge", "adkJudge": settings})
}

#[test]
fn adks_rubric_metric_votes_its_samples_and_reads_adks_answer_format() {
    let runtime = runtime();
    let yes = "ID: temp\nProperty: The response states the temperature.\nRationale: it does\nVerdict: yes\nID: city\nProperty: The response names the city.\nRationale: it does\nVerdict: yes";
    let no_city = "ID: temp\nProperty: The response states the temperature.\nRationale: it does\nVerdict: yes\nID: city\nProperty: The response names the city.\nRationale: it does not\nVerdict: no";
    // Three samples: the city rubric 2 yes to 1 no, the temperature 3 yes.
    let (server, url) = serve(
        &runtime,
        vec![
            Reply::Content(yes),
            Reply::Content(no_city),
            Reply::Content(yes),
        ],
    );
    let settings = json!({
        "metric": "rubricBasedFinalResponseQualityV1",
        "threshold": 1.0,
        "numSamples": 3,
        "rubrics": [
            {"id": "temp", "text": "The response states the temperature."},
            {"id": "city", "text": "The response names the city."}
        ]
    });
    let dir = tempfile::tempdir().unwrap();
    let passed = run(&suite(dir.path(), adk_judge(settings.clone())), &url, &[]);
    assert_eq!(passed.code, Some(0), "{} {}", passed.stdout, passed.stderr);
    let judged = evaluation(&passed.report);
    assert_eq!(judged["key"], "rubric_based_final_response_quality_v1");
    assert_eq!(judged["score"], 1.0);
    assert_eq!(
        judged["comment"],
        "rubrics: temp yes, city yes; 1/1 invocation(s) judged"
    );
    let requests = server.requests.lock().unwrap();
    assert_eq!(requests.len(), 3);
    let prompt = requests[0].1["messages"][1]["content"].as_str().unwrap();
    assert!(
        prompt.contains("[id: city] The response names the city."),
        "{prompt}"
    );
    assert!(
        requests[0].1.get("response_format").is_none(),
        "ADK's text format, not a schema"
    );
    drop(requests);

    // An unreadable answer is no verdict (ADK does not ask again), a failed
    // call leaves the invocation not judged: nothing to score is an error.
    let (_, url) = serve(
        &runtime,
        vec![
            Reply::Status(400),
            Reply::Content("I think so"),
            Reply::Content(yes),
        ],
    );
    let unjudged = run(&suite(dir.path(), adk_judge(settings.clone())), &url, &[]);
    assert_eq!(unjudged.code, Some(2), "{}", unjudged.stdout);
    assert!(
        evaluation(&unjudged.report)["error"]
            .as_str()
            .unwrap()
            .contains("none of the 1 invocation(s) could be judged")
    );

    // A tie of samples is a no, as in ADK.
    let (_, url) = serve(&runtime, vec![Reply::Content(yes), Reply::Content(no_city)]);
    let mut two = settings.clone();
    two["numSamples"] = json!(2);
    let tied = run(&suite(dir.path(), adk_judge(two)), &url, &[]);
    assert_eq!(tied.code, Some(1), "{}", tied.stdout);
    assert_eq!(evaluation(&tied.report)["score"], 0.5);

    // A judge that is down stops the run before any session is read.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let down = kagent_evals(&[
        "run",
        &suite(dir.path(), adk_judge(settings)),
        "--fixture",
        &session(),
        "--judge-url",
        &format!("http://127.0.0.1:{port}/v1"),
        "--judge-model",
        "judge-model",
    ]);
    assert_eq!(down.code, Some(2), "{}", down.stderr);
}

#[test]
fn an_adk_eval_set_with_judged_criteria_is_scored_by_the_judge() {
    let runtime = runtime();
    let (server, url) = serve(
        &runtime,
        vec![Reply::Content(
            "{\"reasoning\": \"same facts\", \"is_the_agent_response_valid\": \"valid\"}",
        )],
    );
    let dir = tempfile::tempdir().unwrap();
    let evalset = dir.path().join("weather.evalset.json");
    std::fs::write(
        &evalset,
        json!({"eval_set_id": "weather", "eval_cases": [{"eval_id": "london", "conversation": [{
            "user_content": {"role": "user", "parts": [{"text": "current weather in London"}]},
            "final_response": {"role": "model", "parts": [{"text": "It is 73.2°F and clear in London."}]}
        }]}]})
        .to_string(),
    )
    .unwrap();
    let config = dir.path().join("full_eval_config.json");
    std::fs::write(
        &config,
        r#"{"criteria": {"final_response_match_v2": {"threshold": 0.7, "judge_model_options": {"num_samples": 1}}}}"#,
    )
    .unwrap();
    let scored = run(
        evalset.to_str().unwrap(),
        &url,
        &["--criteria", config.to_str().unwrap()],
    );
    assert_eq!(scored.code, Some(0), "{} {}", scored.stdout, scored.stderr);
    assert_eq!(evaluation(&scored.report)["key"], "final_response_match_v2");
    assert_eq!(evaluation(&scored.report)["score"], 1.0);
    let requests = server.requests.lock().unwrap();
    let prompt = requests[0].1["messages"][1]["content"].as_str().unwrap();
    assert!(
        prompt.contains("It is 73.2°F and clear in London."),
        "the expected response: {prompt}"
    );
}
