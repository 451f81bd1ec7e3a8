//! What the integration tests run against: a real control plane and a real
//! PostgreSQL, each started once per test binary and shared.

pub mod controlplane;
pub mod operator;
pub mod postgres;

use controlplane::ControlPlane;
use std::sync::{Arc, Mutex, OnceLock};

/// Set by `.ci/run`: a test that cannot get what it needs fails instead of
/// being skipped.
pub const REQUIRE_VAR: &str = "KAGENT_EVALS_REQUIRE_INTEGRATION";

pub fn required() -> bool {
    std::env::var_os(REQUIRE_VAR).is_some_and(|v| v == "1")
}

/// Where helm and kustomize are: `$KAGENT_EVALS_TOOLS` or `target/tools/current`.
pub fn tools() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("KAGENT_EVALS_TOOLS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools/current")
        });
    (dir.join("helm").is_file() && dir.join("kustomize").is_file()).then_some(dir)
}

/// A loopback port nothing listens on (until someone binds it).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The test binary's async runtime; kube clients are bound to it.
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    })
}

/// The shared control plane, or why it could not start (tried once).
static PLANE: Mutex<Option<Result<Arc<ControlPlane>, String>>> = Mutex::new(None);

/// Start the shared control plane (and install the CRDs). Called from the
/// harness's main thread: the children's parent-death signal follows the
/// thread that spawned them, and a test's thread ends with the test.
pub fn start_control_plane() {
    let mut slot = PLANE.lock().unwrap_or_else(|e| e.into_inner());
    slot.get_or_insert_with(|| {
        let binaries = controlplane::binaries().expect("checked before the tests ran");
        std::panic::catch_unwind(|| {
            let plane = Arc::new(ControlPlane::start(&binaries));
            eprintln!(
                "control plane up in {:.1}s at {}; {}",
                plane.started_in.as_secs_f64(),
                plane.server,
                plane.describe_logs()
            );
            runtime()
                .block_on(crds::install(&plane))
                .expect("CRDs install");
            plane
        })
        .map_err(|panic| {
            panic
                .downcast_ref::<String>()
                .cloned()
                .unwrap_or_else(|| "the control plane did not start".into())
        })
    });
}

/// The shared control plane started by the harness.
pub fn control_plane() -> Arc<ControlPlane> {
    match PLANE.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
        Some(Ok(plane)) => plane.clone(),
        Some(Err(why)) => panic!("{why}"),
        None => panic!("the harness did not start the control plane"),
    }
}

/// Where the shared control plane logs, once it has started.
pub fn logs_hint() -> Option<String> {
    match PLANE.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
        Some(Ok(plane)) => Some(plane.describe_logs()),
        _ => None,
    }
}

/// Stop the control plane once every test is done.
pub fn shut_down() {
    let plane = PLANE.lock().unwrap_or_else(|e| e.into_inner()).take();
    drop(plane);
}

pub mod crds {
    use super::controlplane::ControlPlane;
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    use kube::api::{Api, Patch, PatchParams};
    use kube::runtime::wait::{await_condition, conditions};

    /// Server-side apply each CRD and wait until it is Established.
    pub async fn install(plane: &ControlPlane) -> Result<Vec<CustomResourceDefinition>, String> {
        let client = plane.client().await;
        let api: Api<CustomResourceDefinition> = Api::all(client);
        let mut installed = Vec::new();
        for crd in all() {
            let name = crd.metadata.name.clone().unwrap();
            api.patch(
                &name,
                &PatchParams::apply("kagent-evals-tests").force(),
                &Patch::Apply(&crd),
            )
            .await
            .map_err(|e| format!("apply {name}: {e}"))?;
            let established = await_condition(api.clone(), &name, conditions::is_crd_established());
            let crd = tokio::time::timeout(std::time::Duration::from_secs(30), established)
                .await
                .map_err(|_| format!("{name} not Established after 30s"))?
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("{name} disappeared"))?;
            installed.push(crd);
        }
        Ok(installed)
    }

    /// Ours from `crds/`, as committed, and stand-ins for kagent 0.10's and 1.0's.
    pub fn all() -> Vec<CustomResourceDefinition> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files: Vec<_> = std::fs::read_dir(root.join("crds"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        files.push(root.join("tests/data/kagent-agent-crd.yaml"));
        files.push(root.join("tests/data/kagent-1.0-crds.yaml"));
        files.push(root.join("tests/data/monitoring-crds.yaml"));
        files
            .iter()
            .flat_map(|f| {
                serde_saphyr::from_multiple::<CustomResourceDefinition>(
                    &std::fs::read_to_string(f).unwrap(),
                )
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()))
            })
            .collect()
    }
}

/// Read limits that a session of six rows of a few hundred bytes each is
/// over, one limit at a time, and what the refusal says.
pub fn over_each_limit() -> [(kagent_evals::core::read_limits::ReadLimits, &'static str); 3] {
    use kagent_evals::core::read_limits::ReadLimits;
    [
        (
            ReadLimits {
                session_rows: 5,
                ..ReadLimits::default()
            },
            "row number 6, over the limit of 5 rows per session (sessions.limits.sessionRows)",
        ),
        (
            ReadLimits {
                session_bytes: 1_000,
                ..ReadLimits::default()
            },
            "over the limit of 1000 per session (sessions.limits.sessionBytes)",
        ),
        (
            ReadLimits {
                row_elements: 2,
                ..ReadLimits::default()
            },
            "more than 2 elements",
        ),
    ]
}

/// The sessions of `keys` in the kagent database at `url`, read under
/// `limits`: each one's id, its events and its issues.
pub async fn read_within(
    url: &str,
    keys: &[kagent_evals::core::session::SessionKey],
    limits: kagent_evals::core::read_limits::ReadLimits,
) -> Vec<(String, usize, Vec<String>)> {
    use kagent_evals::source::SessionSource;
    let source = kagent_evals::source::kagent_postgres::KagentPostgres::new(
        kagent_evals::secret::Secret::new(url.to_string()),
        None,
        limits,
    )
    .unwrap();
    source
        .fetch(keys, None, kagent_evals::core::task::RecordChoice::Auto)
        .await
        .unwrap()
        .into_iter()
        .map(|s| {
            let issues = s.raw.issues.iter().map(|i| i.to_string()).collect();
            (s.key.id, s.raw.events.len(), issues)
        })
        .collect()
}

/// Sessions as read (id, events, issues): none of each read, and each
/// refused with an issue that says `says`.
pub fn assert_refused(read: &[(String, usize, Vec<String>)], says: &str) {
    for (id, events, issues) in read {
        assert_eq!(*events, 0, "{id}: nothing of it is read");
        assert!(issues.iter().any(|i| i.contains(says)), "{id}: {issues:?}");
    }
}
