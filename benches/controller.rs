//! The operator's memory and reconcile latency on the real control plane,
//! with the `kagent-evals controller` binary as a separate process:
//! resident memory idle, with 500 EvalSuites, and after a run of each.
//!
//!   cargo bench --bench controller
//!
//! Needs what the integration tests need: the control plane built by
//! hack/build-tools.sh and KAGENT_EVALS_TEST_DATABASE_URL. Figures are
//! recorded in docs/benchmarks.md.

// The integration tests' support, shared rather than copied; the bench
// uses only part of it.
#[allow(dead_code)]
#[path = "../tests/integration/support/mod.rs"]
mod support;

mod controller_process;

use controller_process::{Controller, memory};
use kagent_evals::k8s::crd::EvalSuite;
use kube::Api;
use kube::api::ListParams;
use std::collections::HashMap;
use std::process::Command;
use std::time::{Duration, Instant};
use support::operator::{agent, apply_suite, run_now, weather_database, weather_suite};

const SUITES: usize = 500;
const NAMESPACE: &str = "bench";

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index].as_secs_f64() * 1000.0
}

fn main() {
    let Some(binaries) = controller_process::control_plane_when_benching() else {
        return;
    };
    let plane = support::controlplane::ControlPlane::start(&binaries);
    let runtime = support::runtime();
    runtime.block_on(async {
        support::crds::install(&plane).await.unwrap();
        let client = plane.client().await;
        let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(client.clone());
        let namespace = serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}});
        namespaces
            .create(&Default::default(), &serde_json::from_value(namespace).unwrap())
            .await
            .unwrap();
        let db = weather_database("bench", NAMESPACE).await;
        agent(&client, NAMESPACE, "weather-assistant", "You report the weather from the tool.").await;

        let port = support::free_port();
        let controller = Controller(
            Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
                .args(["controller", "--identity", "bench", "--lease-namespace", NAMESPACE])
                .args(["--watch-namespace", NAMESPACE, "--source", "kagent-postgres"])
                .arg(format!("--metrics-address=127.0.0.1:{port}"))
                .env("KUBECONFIG", &plane.kubeconfig)
                .env("KAGENT_EVALS_DATABASE_URL", &db.url)
                .env("RUST_LOG", "warn")
                .spawn()
                .unwrap(),
        );
        let pid = controller.0.id();
        let http = reqwest::Client::new();
        let metrics = format!("http://127.0.0.1:{port}/metrics");
        support::operator::wait_for("the controller to lead", Duration::from_secs(60), || async {
            let text = http.get(&metrics).send().await.ok()?.text().await.ok()?;
            text.contains("kagent_evals_leader 1").then_some(())
        })
        .await;
        tokio::time::sleep(Duration::from_secs(5)).await;
        let (idle, _) = memory(pid);

        let suites: Api<EvalSuite> = Api::namespaced(client.clone(), NAMESPACE);
        let mut applied = HashMap::new();
        let started = Instant::now();
        for n in 0..SUITES {
            let name = format!("suite-{n:03}");
            apply_suite(&client, NAMESPACE, &weather_suite(NAMESPACE, &name, "weather-assistant")).await;
            applied.insert(name, Instant::now());
        }
        let mut latencies = Vec::new();
        while !applied.is_empty() {
            for suite in suites.list(&ListParams::default()).await.unwrap() {
                let name = suite.metadata.name.clone().unwrap();
                let observed = suite.status.as_ref().and_then(|s| s.observed_generation);
                if observed.is_some() && observed == suite.metadata.generation
                    && let Some(at) = applied.remove(&name)
                {
                    latencies.push(at.elapsed());
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let all_ready = started.elapsed();
        latencies.sort();
        tokio::time::sleep(Duration::from_secs(5)).await;
        let (with_suites, _) = memory(pid);

        let runs_started = Instant::now();
        for n in 0..SUITES {
            run_now(&client, NAMESPACE, &format!("run-{n:03}"), &format!("suite-{n:03}")).await;
        }
        let runs: Api<kagent_evals::k8s::crd::EvalRun> = Api::namespaced(client.clone(), NAMESPACE);
        support::operator::wait_for("every run to finish", Duration::from_secs(600), || async {
            let list = runs.list(&ListParams::default()).await.ok()?;
            let done = list
                .iter()
                .filter(|r| kagent_evals::k8s::controller::suite_decision::is_done(r))
                .count();
            (done == SUITES).then_some(())
        })
        .await;
        let runs_took = runs_started.elapsed();
        tokio::time::sleep(Duration::from_secs(5)).await;
        let (after_runs, peak) = memory(pid);

        println!("controller RSS idle:                 {idle:6.1} MiB");
        println!("controller RSS with {SUITES} EvalSuites:  {with_suites:6.1} MiB");
        println!("controller RSS after {SUITES} EvalRuns:   {after_runs:6.1} MiB (peak {peak:.1} MiB)");
        println!(
            "suite reconcile latency (apply to observedGeneration): p50 {:.0} ms, p95 {:.0} ms, max {:.0} ms; all {SUITES} in {:.1} s",
            percentile(&latencies, 0.5),
            percentile(&latencies, 0.95),
            percentile(&latencies, 1.0),
            all_ready.as_secs_f64()
        );
        println!(
            "{SUITES} manual EvalRuns created and finished in {:.1} s",
            runs_took.as_secs_f64()
        );
        drop(controller);
    });
}
