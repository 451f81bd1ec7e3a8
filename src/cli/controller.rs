//! `kagent-evals controller`: the operator.

use super::{CommandError, SourceArgs, Status};
use crate::core::suite::compile::parse_duration;
use crate::k8s::controller::{self, ControllerConfig, tenancy::Allowed};
use std::net::SocketAddr;

#[derive(clap::Args)]
pub struct ControllerArgs {
    /// The default source for suites that name none; its credentials come
    /// from the environment or mounted files (--database-url-file, --api-token-file).
    #[command(flatten)]
    source: SourceArgs,
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
    #[arg(long, default_value_t = 15)]
    lease_seconds: u64,
    /// Runs executed at once.
    #[arg(long, default_value_t = 4)]
    run_concurrency: u16,
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
    let connection = args.source.connection()?;
    let default_source = args.source.source.map(Into::into).or(
        match (&connection.api_url, &connection.database_url) {
            (Some(_), _) => Some(crate::core::suite::spec::SourceKind::KagentApi),
            (None, Some(_)) => Some(crate::core::suite::spec::SourceKind::KagentPostgres),
            (None, None) => None,
        },
    );
    let config = ControllerConfig {
        identity,
        lease_namespace: args.lease_namespace,
        lease_name: args.lease_name,
        lease_seconds: args.lease_seconds,
        metrics_address: Some(args.metrics_address),
        run_concurrency: args.run_concurrency,
        run_timeout,
        default_source,
        defaults: connection,
        cross_namespace,
        watch_namespace: args.watch_namespace,
        ..ControllerConfig::default()
    };
    let client = kube::Client::try_default()
        .await
        .map_err(|e| CommandError(format!("cannot reach the Kubernetes API: {e}")))?;
    controller::run(client, config, shutdown_signal())
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
