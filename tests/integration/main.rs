//! Tests against the real Kubernetes control plane and the real PostgreSQL.
//!
//! One harness for all of them: the control plane starts once and is shared,
//! and when something a test needs is missing, one line says which tests did
//! not run. With KAGENT_EVALS_REQUIRE_INTEGRATION=1 (set by `.ci/run`) a
//! missing prerequisite is a failure instead.

mod crds;
mod gitops;
mod journey;
mod judge;
mod kagent_v1;
mod names;
mod operator;
mod probes;
mod ship;
mod sources;
mod support;
mod tenancy;
mod trust;

use libtest_mimic::{Arguments, Failed, Trial};
use std::panic::AssertUnwindSafe;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Need {
    ControlPlane,
    Postgres,
    /// helm and kustomize, built by hack/build-tools.sh.
    Tools,
}

pub struct Test {
    pub name: &'static str,
    pub needs: &'static [Need],
    pub run: fn(),
}

fn tests() -> Vec<Test> {
    let mut all = Vec::new();
    all.extend(crds::tests());
    all.extend(gitops::tests());
    all.extend(sources::tests());
    all.extend(operator::tests());
    all.extend(probes::tests());
    all.extend(judge::tests());
    all.extend(journey::tests());
    all.extend(tenancy::tests());
    all.extend(trust::tests());
    all.extend(names::tests());
    all.extend(kagent_v1::tests());
    all.extend(ship::tests());
    all
}

fn missing(need: Need) -> Option<&'static str> {
    match need {
        Need::ControlPlane if support::controlplane::binaries().is_none() => Some(
            "kube-apiserver, etcd and kubectl are not built (hack/build-tools.sh builds them into target/controlplane)",
        ),
        Need::Postgres if support::postgres::admin_url().is_none() => Some(
            "no PostgreSQL (set KAGENT_EVALS_TEST_DATABASE_URL to a superuser URL; .ci/run starts one)",
        ),
        _ => None,
    }
}

/// Logs of the controllers the tests run in-process, under target/ beside
/// the control plane's (RUST_LOG sets the level; info by default).
fn init_logging() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/integration-logs");
    std::fs::create_dir_all(&dir).unwrap();
    let file =
        std::fs::File::create(dir.join(format!("controllers-{}.log", std::process::id()))).unwrap();
    let filter =
        tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(std::sync::Mutex::new(file))
        .try_init();
}

fn main() {
    init_logging();
    let mut args = Arguments::from_args();
    // Most of these tests wait on the cluster or the clock, not the CPU.
    args.test_threads = args.test_threads.or(Some(12));
    let tests = tests();
    let mut unavailable = Vec::new();
    for need in [Need::ControlPlane, Need::Postgres, Need::Tools] {
        if let Some(why) = missing(need) {
            let count = tests.iter().filter(|t| t.needs.contains(&need)).count();
            if count > 0 {
                unavailable.push((need, format!("{count} integration test(s) not run: {why}")));
            }
        }
    }
    for (_, line) in &unavailable {
        eprintln!("{line}");
    }
    if support::required() && !unavailable.is_empty() {
        eprintln!(
            "{} is set: failing because of the above",
            support::REQUIRE_VAR
        );
        std::process::exit(1);
    }
    let needs_plane = tests.iter().any(|t| t.needs.contains(&Need::ControlPlane));
    if needs_plane && !unavailable.iter().any(|(n, _)| *n == Need::ControlPlane) {
        support::start_control_plane();
    }
    let trials = tests
        .into_iter()
        .map(|test| {
            let skip = test
                .needs
                .iter()
                .any(|n| unavailable.iter().any(|(u, _)| u == n));
            let run = test.run;
            let uses_plane = test.needs.contains(&Need::ControlPlane);
            Trial::test(test.name, move || {
                std::panic::catch_unwind(AssertUnwindSafe(run)).map_err(|panic| {
                    let message = panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_else(|| "test panicked".into());
                    let logs = match support::logs_hint() {
                        Some(hint) if uses_plane => format!("\n{hint}"),
                        _ => String::new(),
                    };
                    Failed::from(format!("{message}{logs}"))
                })
            })
            .with_ignored_flag(skip)
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    support::shut_down();
    conclusion.exit();
}
