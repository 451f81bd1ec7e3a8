//! Running the operator inside a test: controllers scoped to the test's
//! namespace, seeded sessions, waiting for the cluster to reach a state,
//! and a kagent API whose answers can be held back to keep a run in flight.

use super::controlplane::ControlPlane;
use super::postgres::{SeedSession, TestDatabase};
use kagent_evals::k8s::controller::{self, ControllerConfig};
use kagent_evals::k8s::crd::{EvalRun, EvalSuite};
use kagent_evals::resolve::{Party, RunnerSettings};
use kagent_evals::secret::Secret;
use kube::Api;
use kube::api::{ListParams, Patch, PatchParams};
use serde_json::{Value, json};
use std::future::Future;
use std::time::{Duration, Instant};

/// A controller replica running in this process, on a runtime of its own
/// so that killing it stops every task it has, Lease renewal included.
pub struct Replica {
    pub identity: String,
    runtime: Option<tokio::runtime::Runtime>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    stopped: Option<tokio::sync::oneshot::Receiver<()>>,
}

impl Replica {
    /// Stop as a pod does on SIGTERM (the Lease is released).
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(stopped) = self.stopped.take() {
            let _ = tokio::time::timeout(Duration::from_secs(20), stopped).await;
        }
    }

    /// Die as a killed pod does: nothing cleaned up, the Lease left to expire.
    pub fn kill(mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

pub fn config(namespace: &str, identity: &str, database_url: Option<&str>) -> ControllerConfig {
    ControllerConfig {
        identity: identity.into(),
        lease_namespace: namespace.into(),
        lease_name: "kagent-evals-controller".into(),
        lease_seconds: 4,
        watch_namespace: Some(namespace.into()),
        defaults: RunnerSettings {
            source: database_url
                .map(|_| kagent_evals::core::suite::spec::SourceKind::KagentPostgres),
            database_url: database_url.map(Secret::new),
            ..RunnerSettings::new(Party::Operator)
        },
        ..ControllerConfig::default()
    }
}

pub async fn start(plane: &ControlPlane, config: ControllerConfig) -> Replica {
    launch(plane, config, None, None).await
}

/// A replica whose every request is made as `user` (impersonated by the
/// admin identity), e.g. the chart's ServiceAccount.
pub async fn start_as(
    plane: &ControlPlane,
    config: ControllerConfig,
    user: Option<String>,
) -> Replica {
    launch(plane, config, user, None).await
}

/// A replica that reaches kube-apiserver through `partition`, which the
/// test may cut to part it from the API server alone.
pub async fn start_behind(
    plane: &ControlPlane,
    config: ControllerConfig,
    partition: &Partition,
) -> Replica {
    launch(plane, config, None, Some(partition.url.clone())).await
}

async fn launch(
    plane: &ControlPlane,
    config: ControllerConfig,
    user: Option<String>,
    server: Option<String>,
) -> Replica {
    let identity = config.identity.clone();
    let (stop, shutdown) = tokio::sync::oneshot::channel::<()>();
    let (done, stopped) = tokio::sync::oneshot::channel::<()>();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name(identity.clone())
        .enable_all()
        .build()
        .unwrap();
    let kubeconfig = plane.kubeconfig.clone();
    runtime.spawn(async move {
        let kubeconfig = kube::config::Kubeconfig::read_from(&kubeconfig).unwrap();
        let options = kube::config::KubeConfigOptions::default();
        let mut client_config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
            .await
            .unwrap();
        client_config.auth_info.impersonate = user;
        if let Some(server) = server {
            client_config.cluster_url = server.parse().unwrap();
        }
        let shutdown = async move {
            let _ = shutdown.await;
        };
        if let Err(error) = controller::run(client_config, config, shutdown).await {
            eprintln!("controller stopped: {error}");
        }
        let _ = done.send(());
    });
    Replica {
        identity,
        runtime: Some(runtime),
        stop: Some(stop),
        stopped: Some(stopped),
    }
}

/// A TCP path to kube-apiserver that a test can cut and restore: one
/// replica parted from the API server while the others still reach it.
/// The server's certificate names 127.0.0.1, which the path listens on too.
pub struct Partition {
    pub url: String,
    open: std::sync::Arc<std::sync::atomic::AtomicBool>,
    connections: std::sync::Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>,
}

impl Partition {
    pub async fn to(plane: &ControlPlane) -> Partition {
        let target = plane.server.trim_start_matches("https://").to_string();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("https://{}", listener.local_addr().unwrap());
        let open = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let connections = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (accepting, held) = (open.clone(), connections.clone());
        super::runtime().spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if !accepting.load(std::sync::atomic::Ordering::SeqCst) {
                    continue;
                }
                let target = target.clone();
                held.lock().unwrap().push(tokio::spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(&target).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                }));
            }
        });
        Partition {
            url,
            open,
            connections,
        }
    }

    /// Drop every connection through it and refuse new ones.
    pub fn cut(&self) {
        self.open.store(false, std::sync::atomic::Ordering::SeqCst);
        for connection in self.connections.lock().unwrap().drain(..) {
            connection.abort();
        }
    }

    pub fn restore(&self) {
        self.open.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Poll until `check` gives a value, or fail after `timeout`.
pub async fn wait_for<T, F, Fut>(what: &str, timeout: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(
            Instant::now() < deadline,
            "timed out after {}s waiting for {what}",
            timeout.as_secs()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// The weather demo suite for an Agent of `namespace`, without a schedule.
pub fn weather_suite(namespace: &str, name: &str, agent: &str) -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/weather/suite.yaml"
    ))
    .unwrap();
    let mut suite: Value = serde_saphyr::from_str(&text).unwrap();
    suite["metadata"] = json!({"name": name, "namespace": namespace});
    suite["spec"]["agentRef"] = json!({"namespace": namespace, "name": agent});
    let spec = suite["spec"].as_object_mut().unwrap();
    spec.remove("schedule");
    spec.remove("timeZone");
    suite
}

pub async fn apply_suite(client: &kube::Client, namespace: &str, suite: &Value) -> EvalSuite {
    let api: Api<EvalSuite> = Api::namespaced(client.clone(), namespace);
    let name = suite["metadata"]["name"].as_str().unwrap();
    api.patch(
        name,
        &PatchParams::apply("test").force(),
        &Patch::Apply(suite),
    )
    .await
    .unwrap()
}

/// An EvalRun made by hand: just the suite it runs.
pub async fn run_now(client: &kube::Client, namespace: &str, name: &str, suite: &str) {
    let api: Api<EvalRun> = Api::namespaced(client.clone(), namespace);
    let run = json!({
        "apiVersion": "evals.kagent.dev/v1alpha1",
        "kind": "EvalRun",
        "metadata": {"name": name},
        "spec": {"suiteRef": {"name": suite}}
    });
    api.patch(name, &PatchParams::apply("test"), &Patch::Apply(&run))
        .await
        .unwrap();
}

pub async fn runs_of(client: &kube::Client, namespace: &str, suite: &str) -> Vec<EvalRun> {
    let api: Api<EvalRun> = Api::namespaced(client.clone(), namespace);
    let mut runs: Vec<EvalRun> = api
        .list(&ListParams::default())
        .await
        .unwrap()
        .into_iter()
        .filter(|r| r.spec.suite_ref.name == suite)
        .collect();
    runs.sort_by_key(|r| r.metadata.name.clone());
    runs
}

/// Wait until a run has finished, and return it.
pub async fn finished(
    client: &kube::Client,
    namespace: &str,
    name: &str,
    timeout: Duration,
) -> EvalRun {
    let api: Api<EvalRun> = Api::namespaced(client.clone(), namespace);
    let seen = std::sync::atomic::AtomicBool::new(false);
    wait_for(&format!("{name} to finish"), timeout, || async {
        let Some(run) = api.get_opt(name).await.unwrap() else {
            assert!(
                !seen.load(std::sync::atomic::Ordering::SeqCst),
                "{name} was deleted before it was seen finished"
            );
            return None;
        };
        seen.store(true, std::sync::atomic::Ordering::SeqCst);
        kagent_evals::k8s::controller::suite_decision::is_done(&run).then_some(run)
    })
    .await
}

/// The reasons of the Events about an object, in order.
pub async fn event_reasons(
    client: &kube::Client,
    namespace: &str,
    name: &str,
) -> Vec<(String, String)> {
    let api: Api<k8s_openapi::api::events::v1::Event> = Api::namespaced(client.clone(), namespace);
    let mut events: Vec<_> = api
        .list(&ListParams::default())
        .await
        .unwrap()
        .into_iter()
        .filter(|e| e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some(name))
        .collect();
    events.sort_by_key(|e| e.metadata.creation_timestamp.clone().map(|t| t.0));
    events
        .into_iter()
        .map(|e| (e.reason.unwrap_or_default(), e.note.unwrap_or_default()))
        .collect()
}

/// The event lines of a captured session under tests/data/kagent-captured.
pub fn captured(file: &str) -> Vec<String> {
    std::fs::read_to_string(format!(
        "{}/tests/data/kagent-captured/{file}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .lines()
    .filter(|l| !l.trim().is_empty())
    .map(String::from)
    .collect()
}

/// kagent's database with the weather captures for Agents of `namespace`.
pub async fn weather_database(label: &str, namespace: &str) -> TestDatabase {
    let db = TestDatabase::create(label).await;
    let agent = |name: &str| {
        format!("{namespace}/{name}")
            .replace('-', "_")
            .replace('/', "__NS__")
    };
    let (grounded, ungrounded) = (agent("weather-assistant"), agent("forgetful-assistant"));
    db.seed_kagent(&[
        SeedSession {
            id: "grounded",
            user: "admin@kagent.dev",
            agent_id: &grounded,
            source: None,
            age_seconds: 120,
            deleted: false,
            events: captured("weather-grounded.jsonl"),
        },
        SeedSession {
            id: "ungrounded",
            user: "admin@kagent.dev",
            agent_id: &ungrounded,
            source: None,
            age_seconds: 120,
            deleted: false,
            events: captured("weather-ungrounded.jsonl"),
        },
    ])
    .await;
    db
}

/// A kagent Agent object to be read (its generation and spec fingerprint).
pub async fn agent(client: &kube::Client, namespace: &str, name: &str, system_message: &str) {
    let resource = kube::api::ApiResource::from_gvk(&kube::api::GroupVersionKind::gvk(
        "kagent.dev",
        "v1alpha2",
        "Agent",
    ));
    let api: Api<kube::api::DynamicObject> =
        Api::namespaced_with(client.clone(), namespace, &resource);
    let body = json!({
        "apiVersion": "kagent.dev/v1alpha2",
        "kind": "Agent",
        "metadata": {"name": name},
        "spec": {"type": "Declarative", "declarative": {"systemMessage": system_message}}
    });
    api.patch(
        name,
        &PatchParams::apply("test").force(),
        &Patch::Apply(&body),
    )
    .await
    .unwrap();
}

/// A kagent API that answers the agent's session listing only when let go.
pub mod held_api {
    use axum::extract::{Path, State};
    use axum::routing::get;
    use axum::{Json, Router};
    use serde_json::{Value, json};
    use std::sync::Arc;
    use tokio::sync::watch;

    pub struct Held {
        release: watch::Sender<bool>,
        pub url: String,
    }

    impl Held {
        pub fn release(&self) {
            let _ = self.release.send(true);
        }
    }

    async fn sessions(
        State(released): State<Arc<watch::Receiver<bool>>>,
        Path((_, _)): Path<(String, String)>,
    ) -> Json<Value> {
        let mut released = (*released).clone();
        let _ = released.wait_for(|r| *r).await;
        Json(json!({"error": false, "data": [], "message": "ok"}))
    }

    pub async fn start() -> Held {
        let (release, released) = watch::channel(false);
        let app = Router::new()
            .route("/api/sessions/agent/{ns}/{name}", get(sessions))
            .with_state(Arc::new(released));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Held { release, url }
    }
}
