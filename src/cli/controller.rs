//! `kagent-evals controller`: the operator.

use super::{CommandError, JudgeArgs, SourceArgs, Status};
use crate::core::suite::compile::parse_duration;
use crate::k8s::controller::{self, ControllerConfig};
use crate::resolve::hosts::AllowList;
use crate::resolve::tenancy::Allowed;
use crate::resolve::{Party, Policy};
use std::net::SocketAddr;

#[derive(clap::Args)]
pub struct ControllerArgs {
    /// The operator's own source, for suites that name none; its credentials
    /// come from the environment or mounted files (--database-url-file,
    /// --api-token-file) and go only to the operator's own endpoints.
    #[command(flatten)]
    source: SourceArgs,
    /// The operator's own judge, for judged suites that name none; its key
    /// goes only to this URL.
    #[command(flatten)]
    judge: JudgeArgs,
    /// Hosts a suite may name for a source of its own (with its own
    /// credentials): comma-separated hosts, `*.domain` or `*` (the default).
    #[arg(long, env = "KAGENT_EVALS_ALLOWED_SOURCE_HOSTS", value_name = "HOSTS")]
    allowed_source_hosts: Option<AllowList>,
    /// Hosts a suite (or its ModelConfig) may name for a judge of its own:
    /// comma-separated hosts, `*.domain` or `*` (the default).
    #[arg(long, env = "KAGENT_EVALS_ALLOWED_JUDGE_HOSTS", value_name = "HOSTS")]
    allowed_judge_hosts: Option<AllowList>,
    /// Where to serve /metrics, /healthz and /readyz.
    #[arg(
        long,
        env = "KAGENT_EVALS_METRICS_ADDRESS",
        default_value = "0.0.0.0:8080"
    )]
    metrics_address: SocketAddr,
    /// Namespace of the leader Lease (the controller's own).
    #[arg(long, env = "POD_NAMESPACE", default_value = "kagent-evals")]
    lease_namespace: String,
    #[arg(long, default_value = "kagent-evals-controller")]
    lease_name: String,
    /// This replica's identity in the Lease (default: the host name).
    #[arg(long, env = "POD_NAME")]
    identity: Option<String>,
    /// Seconds a dead leader keeps the Lease before a standby takes over.
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u64).range(3..))]
    lease_seconds: u64,
    /// Runs executed at once; the others stay Pending, waiting for a slot.
    #[arg(long, alias = "run-concurrency", default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..))]
    max_concurrent_runs: u16,
    /// A run still reading after this long ends in Error (e.g. 30m).
    #[arg(long, default_value = "30m")]
    run_timeout: String,
    /// Let suites of one namespace evaluate Agents of another:
    /// SUITE_NAMESPACE=AGENT_NAMESPACE, comma-separated or repeated.
    #[arg(long, env = "KAGENT_EVALS_ALLOW_CROSS_NAMESPACE", value_name = "PAIRS")]
    allow_cross_namespace: Vec<Allowed>,
    /// Watch only this namespace (default: all namespaces).
    #[arg(long, env = "KAGENT_EVALS_WATCH_NAMESPACE")]
    watch_namespace: Option<String>,
}

pub async fn run(args: ControllerArgs) -> Result<Status, CommandError> {
    let run_timeout = parse_duration(&args.run_timeout)
        .map_err(|e| CommandError(format!("--run-timeout: {e}")))?
        .unsigned_abs();
    let mut cross_namespace = Allowed::default();
    for pairs in args.allow_cross_namespace {
        cross_namespace.extend(pairs);
    }
    let identity = args.identity.unwrap_or_else(|| {
        std::fs::read_to_string("/etc/hostname")
            .map(|h| h.trim().to_string())
            .unwrap_or_else(|_| format!("kagent-evals-{}", std::process::id()))
    });
    if args.source.fixture.is_some() || args.source.adk_app.is_some() {
        return Err(CommandError(
            "--fixture and --adk-app are for the command line: in the cluster an ADK database is read for the app of each suite's Agent".into(),
        ));
    }
    let mut defaults = args.source.defaults(Party::Operator)?;
    args.judge.without_concurrency(
        "in the cluster each suite sets its own judge.concurrency, and --max-concurrent-runs bounds the runs",
    )?;
    args.judge.add_to(&mut defaults)?;
    let policy = Policy {
        cross_namespace,
        source_hosts: args.allowed_source_hosts.unwrap_or_default(),
        judge_hosts: args.allowed_judge_hosts.unwrap_or_default(),
    };
    let config = ControllerConfig {
        identity,
        lease_namespace: args.lease_namespace,
        lease_name: args.lease_name,
        lease_seconds: args.lease_seconds,
        metrics_address: Some(args.metrics_address),
        max_concurrent_runs: usize::from(args.max_concurrent_runs),
        run_timeout,
        defaults,
        policy,
        watch_namespace: args.watch_namespace,
        ..ControllerConfig::default()
    };
    let kube_config = kube::Config::infer()
        .await
        .map_err(|e| CommandError(format!("cannot reach the Kubernetes API: {e}")))?;
    controller::run(kube_config, config, shutdown_signal())
        .await
        .map_err(|e| CommandError(e.to_string()))?;
    Ok(Status::Ok)
}

/// SIGTERM (a pod stopping) or Ctrl-C.
async fn shutdown_signal() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate => {}
    }
    tracing::info!("shutting down");
}
