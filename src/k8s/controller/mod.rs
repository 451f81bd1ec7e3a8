//! The operator: `EvalSuite`s schedule `EvalRun`s, `EvalRun`s read
//! sessions, score them and report in their status and in Events.
//!
//! Every replica watches; only the holder of the leader Lease schedules,
//! runs and writes status. When leadership moves, the new leader looks at
//! everything again (`reconcile_all_on`) and resumes runs left Running once
//! their executor has gone quiet. Scheduled run names derive from the slot,
//! so a second writer meets AlreadyExists instead of creating a second run.
//!
//! Each reconciler gathers what it needs, lets pure decision functions
//! ([`suite_decision`], [`run_decision`], [`crate::resolve`]) decide, and
//! applies the decision.

mod leadership;
pub mod metrics;
mod metrics_server;
pub mod run_decision;
mod run_reconciler;
#[cfg(test)]
mod scenarios;
pub mod suite_decision;
mod suite_reconciler;

use crate::k8s::crd::{EvalRun, EvalSuite};
use crate::k8s::vocabulary::EventReason;
use crate::resolve::{Party, Policy, RunnerSettings};
use futures::{FutureExt, StreamExt};
use kube::runtime::controller::Action;
use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use kube::runtime::reflector::{self, Store};
use kube::runtime::{Controller, WatchStreamExt, watcher};
use kube::{Api, Client, ResourceExt};
use metrics::Metrics;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

/// The field manager of everything the controller writes.
pub const MANAGER: &str = "kagent-evals-controller";

#[derive(Clone, Debug)]
pub struct ControllerConfig {
    /// This replica's name in the Lease (the pod name).
    pub identity: String,
    pub lease_namespace: String,
    pub lease_name: String,
    /// Seconds a leader holds the Lease without renewing; a standby takes
    /// over within this after the leader dies.
    pub lease_seconds: u64,
    /// Where to serve /metrics, /healthz and /readyz; none in tests.
    pub metrics_address: Option<SocketAddr>,
    /// Runs executed at once; the others wait, Pending, for a slot.
    pub max_concurrent_runs: usize,
    /// A run still reading after this long ends in Error.
    pub run_timeout: Duration,
    /// Times a run is started (the first time and after interruptions)
    /// before it ends in Error.
    pub max_attempts: u32,
    /// The operator's own source and judge, for suites that name none.
    pub defaults: RunnerSettings,
    /// Cross-namespace pairs and the hosts suites may name.
    pub policy: Policy,
    /// Watch only this namespace (a namespace-scoped install); all when none.
    pub watch_namespace: Option<String>,
}

impl ControllerConfig {
    /// How often an executing run says it is alive.
    pub fn heartbeat(&self) -> Duration {
        Duration::from_secs(self.lease_seconds.div_ceil(2).max(1))
    }

    /// A run whose executor has been silent this long is taken over.
    pub fn stale_after(&self) -> Duration {
        Duration::from_secs(self.lease_seconds.max(1) * 3)
    }
}

impl Default for ControllerConfig {
    fn default() -> Self {
        ControllerConfig {
            identity: "kagent-evals".into(),
            lease_namespace: "default".into(),
            lease_name: "kagent-evals-controller".into(),
            lease_seconds: 15,
            metrics_address: None,
            max_concurrent_runs: 4,
            run_timeout: Duration::from_secs(30 * 60),
            max_attempts: 3,
            defaults: RunnerSettings::new(Party::Operator),
            policy: Policy::default(),
            watch_namespace: None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("Kubernetes API: {0}")]
    Kube(#[from] kube::Error),
    #[error("leader election: {0}")]
    Lease(#[from] kube_lease_manager::LeaseManagerError),
    #[error("{0}")]
    Serve(String),
}

impl Error {
    fn label(&self) -> String {
        match self {
            Error::Kube(kube::Error::Api(e)) => format!("api_{}", e.code),
            Error::Kube(_) => "kube".into(),
            Error::Lease(_) => "lease".into(),
            Error::Serve(_) => "serve".into(),
        }
    }
}

/// An Event a decision asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedEvent {
    pub warning: bool,
    pub reason: EventReason,
    pub note: String,
    pub regarding: Regarding,
}

/// What an Event is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Regarding {
    /// The run reconciled, and its suite (with the run as related object).
    RunAndSuite,
    /// The suite reconciled; a related run makes each run's Event its own
    /// instead of one aggregated under the first run's note.
    Suite { related_run: Option<String> },
}

pub struct Context {
    pub client: Client,
    pub config: ControllerConfig,
    pub metrics: Metrics,
    recorder: Recorder,
    leader: tokio::sync::watch::Receiver<bool>,
    /// Cancels in-flight runs: on Replace, and when leadership is lost.
    running: Mutex<HashMap<String, CancellationToken>>,
    /// One permit per run that may execute at once (`--max-concurrent-runs`).
    slots: Arc<Semaphore>,
    /// Every EvalRun the runs controller watches, shared with the suites'.
    runs: Store<EvalRun>,
    /// Per suite (`namespace/name`), the resourceVersion its last status
    /// write replaced: a suite still at that version in the cache is a
    /// view from before the write, and is not decided on again.
    superseded: Mutex<HashMap<String, String>>,
}

type Reference = k8s_openapi::api::core::v1::ObjectReference;

impl Context {
    pub fn is_leader(&self) -> bool {
        *self.leader.borrow()
    }

    /// Publish a planned Event about a run and its suite, or a suite; a
    /// failure to publish is logged, not fatal.
    async fn publish(
        &self,
        planned: &PlannedEvent,
        run: Option<&Reference>,
        suite: Option<&Reference>,
    ) {
        let (regarding, related) = match (&planned.regarding, run, suite) {
            (Regarding::RunAndSuite, Some(run), suite) => {
                self.emit(planned, run, None).await;
                match suite {
                    Some(suite) => (suite.clone(), Some(run.clone())),
                    None => return,
                }
            }
            (Regarding::Suite { related_run }, _, Some(suite)) => {
                let related = related_run.as_ref().map(|name| Reference {
                    api_version: Some(crate::k8s::crd::API_VERSION.into()),
                    kind: Some("EvalRun".into()),
                    name: Some(name.clone()),
                    namespace: suite.namespace.clone(),
                    ..Reference::default()
                });
                (suite.clone(), related)
            }
            _ => return,
        };
        self.emit(planned, &regarding, related).await;
    }

    async fn emit(
        &self,
        planned: &PlannedEvent,
        regarding: &Reference,
        related: Option<Reference>,
    ) {
        let note: String = planned.note.chars().take(1000).collect();
        let event = Event {
            type_: if planned.warning {
                EventType::Warning
            } else {
                EventType::Normal
            },
            reason: planned.reason.as_str().into(),
            note: Some(note),
            action: planned.reason.as_str().into(),
            secondary: related,
        };
        if let Err(error) = self.recorder.publish(&event, regarding).await {
            tracing::warn!(%error, reason = planned.reason.as_str(), "cannot publish an Event");
        }
    }

    fn cancel(&self, key: &str) {
        if let Some(token) = self
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(key)
        {
            token.cancel();
        }
    }

    fn cancel_all(&self) {
        for (_, token) in self
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain()
        {
            token.cancel();
        }
    }
}

/// Fires each time this replica becomes the leader.
fn leadership_gained(
    leader: tokio::sync::watch::Receiver<bool>,
) -> impl futures::Stream<Item = ()> + Send {
    futures::stream::unfold(leader, |mut rx| async move {
        loop {
            rx.changed().await.ok()?;
            if *rx.borrow_and_update() {
                return Some(((), rx));
            }
        }
    })
}

fn error_policy<K>(_: Arc<K>, error: &Error, ctx: Arc<Context>, controller: &str) -> Action {
    tracing::warn!(controller, error = %error, "reconcile failed; retrying");
    ctx.metrics
        .reconcile_errors
        .get_or_create(&metrics::ErrorLabels {
            controller: controller.into(),
            error: error.label(),
        })
        .inc();
    Action::requeue(Duration::from_secs(15))
}

/// A controller of the objects `api` lists and watches, its store
/// holding them without their managedFields: nothing here reads them,
/// and with status written field by field they are much of what a
/// fleet's runs take in memory.
fn controller_of<K>(api: Api<K>, config: watcher::Config) -> Controller<K>
where
    K: kube::Resource<DynamicType = ()>
        + Clone
        + serde::de::DeserializeOwned
        + std::fmt::Debug
        + Send
        + Sync
        + 'static,
{
    let writer = reflector::store::Writer::default();
    let reader = writer.as_reader();
    let objects = reflector::reflector(
        writer,
        watcher(api, config).modify(|object| object.managed_fields_mut().clear()),
    )
    .applied_objects();
    Controller::for_stream(objects, reader)
}

/// Run the operator until `shutdown` resolves, with a client of its own
/// made from `kube_config`, whose requests it counts.
pub async fn run(
    kube_config: kube::Config,
    config: ControllerConfig,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), Error> {
    let mut registry = prometheus_client::registry::Registry::default();
    let metrics = Metrics::register(&mut registry);
    let requests = metrics::KubeRequests::register(&mut registry);
    // Each replica names itself to the API server: its audit log then
    // tells which replica wrote what.
    let mut kube_config = kube_config;
    let agent = format!(
        "kagent-evals/{} ({})",
        env!("CARGO_PKG_VERSION"),
        config.identity
    );
    if let Ok(agent) = reqwest::header::HeaderValue::from_str(&agent) {
        kube_config
            .headers
            .push((reqwest::header::USER_AGENT, agent));
    }
    let client = kube::client::ClientBuilder::try_from(kube_config)?
        .with_layer(&requests)
        .build();
    let lease = kube_lease_manager::LeaseManagerBuilder::new(client.clone(), &config.lease_name)
        .with_namespace(&config.lease_namespace)
        .with_identity(&config.identity)
        .with_field_manager(MANAGER)
        .with_duration(config.lease_seconds)
        .with_grace(leadership::Timing::of(config.lease_seconds).grace_seconds)
        .build()
        .await?;
    let (held, lease_task) = lease.watch().await;
    // The controllers act on leadership as proven, not as the manager
    // last said it.
    let (proven, leader) = tokio::sync::watch::channel(false);
    let proof = tokio::spawn(leadership::prove(
        Api::namespaced(client.clone(), &config.lease_namespace),
        config.lease_name.clone(),
        config.identity.clone(),
        config.lease_seconds,
        held,
        proven,
    ));
    let (suite_api, run_api) = match &config.watch_namespace {
        Some(namespace) => (
            Api::<EvalSuite>::namespaced(client.clone(), namespace),
            Api::<EvalRun>::namespaced(client.clone(), namespace),
        ),
        None => (
            Api::<EvalSuite>::all(client.clone()),
            Api::<EvalRun>::all(client.clone()),
        ),
    };
    // Every run is reconciled at once, so a queued one can say it waits;
    // the slots bound how many execute.
    let runs_controller = controller_of(run_api.clone(), watcher::Config::default());
    let slots = config.max_concurrent_runs.max(1);
    let ctx = Arc::new(Context {
        client: client.clone(),
        recorder: Recorder::new(
            client.clone(),
            Reporter {
                controller: MANAGER.into(),
                instance: Some(config.identity.clone()),
            },
        ),
        config,
        metrics,
        leader: leader.clone(),
        running: Mutex::new(HashMap::new()),
        slots: Arc::new(Semaphore::new(slots)),
        runs: runs_controller.store(),
        superseded: Mutex::new(HashMap::new()),
    });
    let shutdown = shutdown.shared();
    let ready = Arc::new(AtomicBool::new(false));
    if let Some(address) = ctx.config.metrics_address {
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(|e| Error::Serve(format!("cannot listen on {address}: {e}")))?;
        tokio::spawn(metrics_server::serve(
            listener,
            Arc::new(registry),
            ready.clone(),
            shutdown.clone(),
        ));
    }
    let watcher_ctx = ctx.clone();
    let mut leader_changes = leader.clone();
    let leadership = tokio::spawn(async move {
        loop {
            let is_leader = *leader_changes.borrow_and_update();
            watcher_ctx.metrics.leader.set(i64::from(is_leader));
            tracing::info!(identity = %watcher_ctx.config.identity, leader = is_leader, "leadership");
            if !is_leader {
                // Runs in flight stop; the next leader resumes them.
                watcher_ctx.cancel_all();
            }
            if leader_changes.changed().await.is_err() {
                return;
            }
        }
    });

    let suites = controller_of(suite_api, watcher::Config::default().any_semantic())
        .owns(run_api.clone(), watcher::Config::default())
        .reconcile_all_on(leadership_gained(leader.clone()))
        .graceful_shutdown_on(shutdown.clone())
        .run(
            suite_reconciler::reconcile,
            |suite, error, ctx| error_policy(suite, error, ctx, "evalsuite"),
            ctx.clone(),
        )
        .for_each(|_| futures::future::ready(()));
    let runs = runs_controller
        .reconcile_all_on(leadership_gained(leader.clone()))
        .graceful_shutdown_on(shutdown.clone())
        .run(
            run_reconciler::reconcile,
            |run, error, ctx| error_policy(run, error, ctx, "evalrun"),
            ctx.clone(),
        )
        .for_each(|_| futures::future::ready(()));
    // Ready once the runs are listed and watched (standbys too, so that a
    // rollout and `helm install --wait` finish): from then a run created is
    // seen.
    let runs_store = ctx.runs.clone();
    tokio::spawn(async move {
        // Asked again each second: the store's readiness wakes only its
        // latest waiter, and the runs controller waits on it too.
        loop {
            match tokio::time::timeout(Duration::from_secs(1), runs_store.wait_until_ready()).await
            {
                Ok(Ok(())) => return ready.store(true, Ordering::SeqCst),
                Ok(Err(_)) => return,
                Err(_) => continue,
            }
        }
    });
    futures::join!(suites, runs);
    ctx.cancel_all();
    leadership.abort();
    drop(ctx);
    drop(leader);
    // The proof holds the manager's receiver: with it gone, every receiver
    // is, and the lease task releases the Lease.
    proof.abort();
    let _ = proof.await;
    match tokio::time::timeout(Duration::from_secs(5), lease_task).await {
        Ok(Ok(Err(e))) => tracing::warn!(error = %e, "releasing the lease"),
        Err(_) => tracing::warn!("the lease was not released within 5s"),
        _ => {}
    }
    Ok(())
}
