//! Scenario probes from the command line: a simulated user holds the
//! conversation with a real kagent agent (kagent-adk over A2A, a scripted
//! model), its turns written by an OpenAI-compatible stub whose answers
//! depend on the Agent's last reply, so a wrong answer changes the next
//! user turn.

#[path = "support/live_agent.rs"]
mod live_agent;

use axum::Json;
use axum::routing::post;
use live_agent::LiveAgent;
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};

/// The weather agent asks which city, looks it up (or, in the occurrences
/// listed in `skips`, answers from memory), then answers about umbrellas.
fn script(skips: &[u32]) -> Value {
    let memory = json!([{"text": "London is always rainy."}]);
    let variants: serde_json::Map<String, Value> = skips
        .iter()
        .map(|n| (n.to_string(), memory.clone()))
        .collect();
    json!({"model": "scripted-model", "conversations": [
        {"match": "need the weather", "turns": [{"text": "Which city would you like the weather for?"}]},
        {"match": "umbrella", "turns": [{"text": "No need: it is sunny."}]},
        {"match": "London",
         "turns": [{"tool": "get_weather", "args": {"city": "London"}},
                   {"text": "It is sunny and 21 degrees Celsius in London."}],
         "variants": variants},
        {"turns": [{"text": "I cannot say more."}]}
    ]})
}

/// The simulated user's next turn, from the Agent's last reply (the last
/// message of the request, which the simulator reads as the user's).
fn simulated_turn(body: &Value) -> Value {
    let last = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default();
    let (finished, message) = if last.contains("Which city") {
        (false, "London")
    } else if last.contains("sunny and 21") {
        (false, "Thanks. Do I need an umbrella?")
    } else if last.contains("rainy") {
        (false, "Are you sure? Please check the weather service.")
    } else {
        (true, "")
    };
    json!({"finished": finished, "message": message})
}

/// An OpenAI-compatible stub playing the user; records what it was asked.
fn simulator(runtime: &tokio::runtime::Runtime) -> (String, Arc<Mutex<Vec<Value>>>) {
    let asked: Arc<Mutex<Vec<Value>>> = Arc::default();
    let seen = asked.clone();
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        post(move |Json(body): Json<Value>| {
            let seen = seen.clone();
            async move {
                // The one-token preflight is not a turn.
                let content = if body["max_tokens"] == 1 {
                    "ready".to_string()
                } else {
                    seen.lock().unwrap().push(body.clone());
                    simulated_turn(&body).to_string()
                };
                Json(json!({
                    "id": "chatcmpl-1", "object": "chat.completion", "model": "simulator",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55}
                }))
            }
        }),
    );
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    runtime.spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, asked)
}

fn suite(dir: &Path, name: &str, cases: Value) -> String {
    let file = dir.join(format!("{name}.yaml"));
    let body = json!({
        "apiVersion": "evals.kagent.dev/v1alpha1",
        "kind": "EvalSuite",
        "metadata": {"name": name},
        "spec": {"probes": {"enabled": true, "maxRuns": 10, "concurrency": 1}, "cases": cases}
    });
    std::fs::write(&file, serde_json::to_string_pretty(&body).unwrap()).unwrap();
    file.display().to_string()
}

fn weather_scenario(name: &str, runs: u32, max_turns: u32) -> Value {
    json!({
        "name": name,
        "probe": {"runs": runs, "scenario": {
            "startingPrompt": "I need the weather",
            "plan": "Get the weather for London, then ask whether you need an umbrella.",
            "persona": "a terse commuter",
            "maxTurns": max_turns}},
        "evaluators": [{"name": "tool", "type": "toolsUsed", "toolsUsed": {"expected": ["get_weather"]}}]
    })
}

struct Run {
    code: Option<i32>,
    report: Value,
    stderr: String,
}

/// `run` of a suite probing `agent`, its user simulated by the model at
/// `simulator_url`, its sessions read back from the controller stand-in.
fn run(agent: &LiveAgent, suite: &str, simulator_url: &str) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args(["run", suite, "--format", "json", "--include-trajectories"])
        .args([
            "--a2a-url",
            &agent.a2a_url,
            "--api-url",
            &agent.controller_url,
        ])
        .args(["--judge-url", simulator_url, "--judge-model", "simulator"])
        .env_remove("KAGENT_EVALS_DATABASE_URL")
        .env("KAGENT_EVALS_JUDGE_API_KEY", "simulator-key")
        .env("KAGENT_EVALS_API_TOKEN", "cli-api-token")
        .output()
        .unwrap();
    Run {
        code: output.status.code(),
        report: serde_json::from_slice(&output.stdout).unwrap_or(Value::Null),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn user_turns(session: &Value) -> Vec<String> {
    session["simulated"]["turns"]
        .as_array()
        .unwrap_or_else(|| panic!("no simulated conversation in {session}"))
        .iter()
        .filter(|t| t["speaker"] == "user")
        .map(|t| t["text"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_simulated_user_holds_the_conversation_with_a_live_agent() {
    // Occurrences of the London turn, in the order the runs below make
    // it: 1 passes; 2 skips the tool; 3..5 are k=3 with 4 flaky; 6 runs
    // out of turns.
    let agent = LiveAgent::start(&script(&[2, 4]));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (simulator_url, asked) = simulator(&runtime);
    let dir = tempfile::tempdir().unwrap();
    let with_api = |suite: &str| run(&agent, suite, &simulator_url);

    // Three turns, the plan done: the session has the tool call.
    let three = suite(
        dir.path(),
        "three",
        json!([weather_scenario("weather-chat", 1, 5)]),
    );
    let passed = with_api(&three);
    assert_eq!(passed.code, Some(0), "{} {}", passed.report, passed.stderr);
    let session = &passed.report["cases"][0]["sessions"][0];
    assert_eq!(session["tools"], json!(["get_weather"]));
    assert_eq!(
        user_turns(session),
        [
            "I need the weather",
            "London",
            "Thanks. Do I need an umbrella?"
        ]
    );
    assert_eq!(
        session["simulated"]["ended"],
        "the simulated user finished its plan after 3 turn(s)"
    );
    // The simulator saw the replies, never a tool call, and its prompt.
    let first = asked.lock().unwrap()[0].clone();
    assert!(
        first["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("a terse commuter")
    );
    assert!(!first.to_string().contains("get_weather"), "{first}");
    // Its calls are the run's judge calls: three turns asked.
    assert_eq!(
        passed.report["judge"]["calls"], 3,
        "{}",
        passed.report["judge"]
    );

    // The Agent skips its tool on turn 2: the user's next turn is another.
    let skipped = with_api(&three);
    assert_eq!(skipped.code, Some(1), "{}", skipped.report);
    let session = &skipped.report["cases"][0]["sessions"][0];
    assert_eq!(session["tools"], json!([]));
    assert_eq!(
        user_turns(session)[2],
        "Are you sure? Please check the weather service."
    );

    // k=3, one run flaky: pass@k but not pass^k.
    let flaky = suite(
        dir.path(),
        "flaky",
        json!([weather_scenario("weather-chat", 3, 5)]),
    );
    let flaky = with_api(&flaky);
    assert_eq!(flaky.code, Some(1), "{}", flaky.report);
    assert_eq!(
        flaky.report["cases"][0]["probe"],
        json!({"runs": 3, "passed": 2, "passAtK": true, "passAllK": false})
    );

    // Out of turns before the plan is done: a failed run that says so.
    let short = suite(
        dir.path(),
        "short",
        json!([weather_scenario("weather-chat", 1, 2)]),
    );
    let short = with_api(&short);
    assert_eq!(short.code, Some(1), "{}", short.report);
    let session = &short.report["cases"][0]["sessions"][0];
    assert_eq!(
        session["error"],
        "the simulated user had not finished its plan after maxTurns 2 turns"
    );

    // The simulator's endpoint down: exit 2 before any probe is sent.
    let before = agent.controller_requests().len();
    let down = run(&agent, &three, "http://127.0.0.1:9/v1");
    assert_eq!(down.code, Some(2), "{}", down.stderr);
    assert!(down.stderr.contains("127.0.0.1:9"), "{}", down.stderr);
    assert_eq!(
        agent.controller_requests().len(),
        before,
        "nothing was sent"
    );
}

#[test]
fn a_scenario_without_a_plan_or_a_starting_prompt_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (scenario, field) in [
        (json!({"startingPrompt": "hi"}), "plan"),
        (json!({"plan": "ask"}), "startingPrompt"),
        (
            json!({"startingPrompt": " ", "plan": "ask"}),
            "startingPrompt",
        ),
    ] {
        let file = suite(
            dir.path(),
            "bad",
            json!([{"name": "c", "probe": {"scenario": scenario},
                    "evaluators": [{"name": "t", "type": "toolsUsed", "toolsUsed": {"expected": ["a"]}}]}]),
        );
        let output = Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
            .args(["suite", "validate", &file])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        let said = String::from_utf8_lossy(&output.stdout);
        assert!(said.contains(field), "{field}: {said}");
    }
    // Input and scenario both: the API server's words.
    let file = suite(
        dir.path(),
        "both",
        json!([{"name": "c", "probe": {"input": "hi", "scenario": {"startingPrompt": "hi", "plan": "ask"}},
                "evaluators": [{"name": "t", "type": "toolsUsed", "toolsUsed": {"expected": ["a"]}}]}]),
    );
    let output = Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args(["suite", "validate", &file])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&output.stdout)
            .contains("a probe has exactly one of input, conversation and scenario")
    );
}
