//! A real Kubernetes control plane on loopback, as controller-runtime's
//! envtest runs one: etcd and kube-apiserver built from pinned Go modules
//! (hack/build-tools.sh), generated certificates, an admin client
//! certificate, RBAC authorization on. No controller-manager runs: nothing
//! garbage-collects and namespaces never finish deleting, so each test works
//! in a namespace of its own.

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct ControlPlane {
    /// etcd's data and the certificates, removed when dropped.
    _data: tempfile::TempDir,
    /// Process logs, kept under target/ after the run for a failing test to point at.
    pub logs: PathBuf,
    pub kubeconfig: PathBuf,
    pub server: String,
    etcd: Child,
    apiserver: Child,
    apiserver_args: Vec<String>,
    binaries: PathBuf,
    pub started_in: Duration,
}

/// Where the built binaries are: `$KAGENT_EVALS_CONTROLPLANE` or
/// `target/controlplane/current`.
pub fn binaries() -> Option<PathBuf> {
    let dir = std::env::var_os("KAGENT_EVALS_CONTROLPLANE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("target/controlplane/current")
        });
    ["kube-apiserver", "etcd", "kubectl"]
        .iter()
        .all(|binary| dir.join(binary).is_file())
        .then_some(dir)
}

/// Children die with the test process, even when it is killed.
fn spawn(binary: &Path, args: &[String], log: &Path) -> Child {
    let out = std::fs::File::create(log).unwrap();
    let mut command = Command::new(binary);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out);
    // SAFETY: prctl is async-signal-safe and touches only this process.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
    command
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()))
}

struct Pki {
    ca: String,
    serving_cert: String,
    serving_key: String,
    admin_cert: String,
    admin_key: String,
    service_account_key: String,
    service_account_public_key: String,
}

fn pki() -> Pki {
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "kagent-evals test CA");
    ca_params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();

    let serving_key = KeyPair::generate().unwrap();
    let mut serving =
        CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()]).unwrap();
    serving
        .distinguished_name
        .push(DnType::CommonName, "kube-apiserver");
    serving.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let serving_cert = serving.signed_by(&serving_key, &ca).unwrap();

    let admin_key = KeyPair::generate().unwrap();
    let mut admin = CertificateParams::new(Vec::<String>::new()).unwrap();
    admin.distinguished_name.push(DnType::CommonName, "admin");
    admin
        .distinguished_name
        .push(DnType::OrganizationName, "system:masters");
    admin.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    let admin_cert = admin.signed_by(&admin_key, &ca).unwrap();
    let service_account = KeyPair::generate().unwrap();

    Pki {
        ca: ca.pem(),
        serving_cert: serving_cert.pem(),
        serving_key: serving_key.serialize_pem(),
        admin_cert: admin_cert.pem(),
        admin_key: admin_key.serialize_pem(),
        service_account_key: service_account.serialize_pem(),
        service_account_public_key: service_account.public_key_pem(),
    }
}

fn b64(text: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(text)
}

impl ControlPlane {
    pub fn start(binaries: &Path) -> ControlPlane {
        let started = Instant::now();
        let data = tempfile::Builder::new()
            .prefix("kagent-evals-controlplane")
            .tempdir()
            .unwrap();
        let logs = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target/integration-logs")
            .join(format!(
                "run-{}-{}",
                std::process::id(),
                jiff::Timestamp::now().as_second()
            ));
        std::fs::create_dir_all(&logs).unwrap();
        let pki = pki();
        let file = |name: &str, text: &str| {
            let path = data.path().join(name);
            std::fs::write(&path, text).unwrap();
            path.display().to_string()
        };
        let ca = file("ca.crt", &pki.ca);
        let serving_cert = file("apiserver.crt", &pki.serving_cert);
        let serving_key = file("apiserver.key", &pki.serving_key);
        let sa_key = file("service-account.key", &pki.service_account_key);
        let sa_public_key = file("service-account.pub", &pki.service_account_public_key);

        // Every request the API server serves, for tests to say what was
        // (and was not) asked.
        let audit_policy = file(
            "audit-policy.yaml",
            "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n",
        );
        let (client, peer, secure) = (super::free_port(), super::free_port(), super::free_port());
        let etcd = spawn(
            &binaries.join("etcd"),
            &[
                format!("--data-dir={}", data.path().join("etcd").display()),
                format!("--listen-client-urls=http://127.0.0.1:{client}"),
                format!("--advertise-client-urls=http://127.0.0.1:{client}"),
                format!("--listen-peer-urls=http://127.0.0.1:{peer}"),
                format!("--initial-advertise-peer-urls=http://127.0.0.1:{peer}"),
                format!("--initial-cluster=default=http://127.0.0.1:{peer}"),
                "--unsafe-no-fsync".into(),
                "--log-level=warn".into(),
            ],
            &logs.join("etcd.log"),
        );
        let apiserver_args: Vec<String> = vec![
            format!("--etcd-servers=http://127.0.0.1:{client}"),
            "--bind-address=127.0.0.1".into(),
            "--advertise-address=127.0.0.1".into(),
            format!("--secure-port={secure}"),
            format!("--cert-dir={}", data.path().join("certs").display()),
            format!("--tls-cert-file={serving_cert}"),
            format!("--tls-private-key-file={serving_key}"),
            format!("--client-ca-file={ca}"),
            "--authorization-mode=RBAC".into(),
            "--service-cluster-ip-range=10.0.0.0/24".into(),
            "--service-account-issuer=https://kubernetes.default.svc".into(),
            format!("--service-account-key-file={sa_public_key}"),
            format!("--service-account-signing-key-file={sa_key}"),
            // Nothing here mints service account tokens.
            "--disable-admission-plugins=ServiceAccount".into(),
            // The default reconciler refuses a loopback address for the
            // kubernetes Service endpoints; envtest turns it off too.
            "--endpoint-reconciler-type=none".into(),
            "--allow-privileged=true".into(),
            format!("--audit-policy-file={audit_policy}"),
            format!("--audit-log-path={}", logs.join("audit.log").display()),
            "--audit-log-mode=blocking".into(),
            "--v=1".into(),
        ];
        let apiserver = spawn(
            &binaries.join("kube-apiserver"),
            &apiserver_args,
            &logs.join("kube-apiserver.log"),
        );
        let server = format!("https://127.0.0.1:{secure}");
        let kubeconfig = logs.join("kubeconfig");
        std::fs::write(
            &kubeconfig,
            format!(
                "apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    server: {server}\n    certificate-authority-data: {}\nusers:\n- name: admin\n  user:\n    client-certificate-data: {}\n    client-key-data: {}\ncontexts:\n- name: test\n  context: {{cluster: test, user: admin, namespace: default}}\ncurrent-context: test\n",
                b64(&pki.ca),
                b64(&pki.admin_cert),
                b64(&pki.admin_key)
            ),
        )
        .unwrap();
        let mut plane = ControlPlane {
            _data: data,
            logs,
            kubeconfig,
            server,
            etcd,
            apiserver,
            apiserver_args,
            binaries: binaries.to_path_buf(),
            started_in: Duration::ZERO,
        };
        plane.wait_ready();
        plane.started_in = started.elapsed();
        plane
    }

    /// Kill kube-apiserver and start it again on the same port and etcd.
    pub fn restart_apiserver(&mut self) {
        let _ = self.apiserver.kill();
        let _ = self.apiserver.wait();
        self.apiserver = spawn(
            &self.binaries.join("kube-apiserver"),
            &self.apiserver_args,
            &self.logs.join("kube-apiserver-restarted.log"),
        );
        self.wait_ready();
    }

    /// Poll `/readyz` with the admin identity until every check passes.
    fn wait_ready(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(120);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        loop {
            if let Some(status) = self.apiserver.try_wait().unwrap() {
                panic!(
                    "kube-apiserver exited with {status}; see {}",
                    self.logs.join("kube-apiserver.log").display()
                );
            }
            let ready = runtime.block_on(async {
                let client = self.client().await;
                let request = http::Request::get("/readyz").body(Vec::new()).unwrap();
                client
                    .request_text(request)
                    .await
                    .is_ok_and(|t| t.trim() == "ok")
            });
            if ready {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "kube-apiserver not ready after 120s; see {}",
                self.logs.display()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// A client with the admin identity (system:masters).
    pub async fn client(&self) -> kube::Client {
        let kubeconfig = kube::config::Kubeconfig::read_from(&self.kubeconfig).unwrap();
        let config = kube::Config::from_custom_kubeconfig(
            kubeconfig,
            &kube::config::KubeConfigOptions::default(),
        )
        .await
        .unwrap();
        kube::Client::try_from(config).unwrap()
    }

    /// kubectl of the API server's own release (hack/build-tools.sh), as
    /// admin on this API server. Nothing of the user's is read: not
    /// `$KUBECONFIG` or ~/.kube/config, which could name another cluster,
    /// nor ~/.kube/kuberc's defaults; and the discovery cache stays with this
    /// control plane, as a later run can get the same port.
    pub fn kubectl(&self) -> Command {
        let mut command = Command::new(self.binaries.join("kubectl"));
        command
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .arg("--cache-dir")
            .arg(self._data.path().join("kubectl-cache"))
            .env("KUBERC", "off");
        command
    }

    /// The audit log's entries so far: one JSON object per request served.
    pub fn audit(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.logs.join("audit.log"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// Where to look when a test on this control plane fails.
    pub fn describe_logs(&self) -> String {
        format!("control plane logs: {}", self.logs.display())
    }
}

impl Drop for ControlPlane {
    fn drop(&mut self) {
        for child in [&mut self.apiserver, &mut self.etcd] {
            // SIGTERM first so etcd and the apiserver shut down cleanly.
            unsafe {
                libc::kill(child.id() as i32, libc::SIGTERM);
            }
            let deadline = Instant::now() + Duration::from_secs(10);
            while child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
