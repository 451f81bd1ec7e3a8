//! Judged evaluations at scale: 400 sessions, each judged once by a
//! trajectory judge, against a local chat-completions stub that answers
//! every call after 250 ms. The ideal wall time is calls x latency /
//! concurrency; the run of `kagent-evals run` (the release binary, its
//! whole process: reading the sessions, the preflight, scoring, the
//! report) is set against it at concurrency 16, and beside it the serial
//! figure (concurrency 1, what every run did before `judge.concurrency`).
//!
//!   cargo bench --bench judge
//!
//! Figures are recorded in docs/benchmarks.md.

use axum::Json;
use axum::routing::post;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const SESSIONS: usize = 400;
const LATENCY: Duration = Duration::from_millis(250);

/// The stub judge: every answer after `LATENCY`; counts the calls and the
/// most in flight.
async fn judge() -> (String, Arc<[AtomicUsize; 3]>) {
    let counts = Arc::new([
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    ]);
    let seen = counts.clone();
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        post(move |Json(body): Json<Value>| {
            let counts = seen.clone();
            async move {
                let [calls, in_flight, most] = &*counts;
                if body.get("max_tokens") != Some(&json!(1)) {
                    calls.fetch_add(1, Ordering::SeqCst);
                }
                most.fetch_max(
                    in_flight.fetch_add(1, Ordering::SeqCst) + 1,
                    Ordering::SeqCst,
                );
                tokio::time::sleep(LATENCY).await;
                in_flight.fetch_sub(1, Ordering::SeqCst);
                Json(json!({
                    "model": "judge-model",
                    "choices": [{"index": 0, "message": {"role": "assistant",
                        "content": "{\"reasoning\": \"grounded\", \"score\": true}"}}],
                    "usage": {"prompt_tokens": 400, "completion_tokens": 20}
                }))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, counts)
}

fn main() {
    // `cargo test --all-targets` runs bench binaries too, without `--bench`.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (url, counts) = runtime.block_on(judge());
    let dir = tempfile::tempdir().unwrap();
    let events = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/weather/sessions/weather-grounded.jsonl"),
    )
    .unwrap();
    let sessions = dir.path().join("sessions");
    std::fs::create_dir(&sessions).unwrap();
    for i in 0..SESSIONS {
        std::fs::write(sessions.join(format!("s{i:04}.jsonl")), &events).unwrap();
    }
    let suite = dir.path().join("suite.yaml");
    let manifest = json!({
        "apiVersion": "evals.kagent.dev/v1alpha1", "kind": "EvalSuite",
        "metadata": {"name": "judged-at-scale"},
        "spec": {"cases": [{"name": "judged", "evaluators": [
            {"name": "judge", "type": "trajectoryJudge", "trajectoryJudge": {}}]}]}
    });
    std::fs::write(&suite, manifest.to_string()).unwrap();
    println!(
        "{SESSIONS} judged evaluations, the stub answering after {} ms",
        LATENCY.as_millis()
    );
    for concurrency in [16, 1] {
        let [calls, _, most] = &*counts;
        calls.store(0, Ordering::SeqCst);
        most.store(0, Ordering::SeqCst);
        let started = Instant::now();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
            .args([
                "run",
                suite.to_str().unwrap(),
                "--fixture",
                sessions.to_str().unwrap(),
            ])
            .args(["--judge-url", &url, "--judge-model", "judge-model"])
            .args([
                "--judge-concurrency",
                &concurrency.to_string(),
                "--format",
                "json",
            ])
            .env_remove("KAGENT_EVALS_JUDGE_API_KEY")
            .output()
            .unwrap();
        let wall = started.elapsed().as_secs_f64();
        let report: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
        assert_eq!(
            report["summary"]["passed"],
            1,
            "the run failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let calls = calls.load(Ordering::SeqCst);
        let ideal = calls as f64 * LATENCY.as_secs_f64() / concurrency as f64;
        println!(
            "concurrency {concurrency:>2}: {calls} calls in {wall:.2} s, at most {} in flight; ideal {ideal:.2} s; wall / ideal {:.3}",
            most.load(Ordering::SeqCst),
            wall / ideal
        );
    }
}
