//! A real kagent agent for tests: kagent-adk serving the weather agent of
//! tests/a2a/ over A2A, its model a scripted OpenAI-compatible server, and
//! a stand-in for kagent's controller (tests/a2a/task_store.py) that keeps
//! its sessions and tasks, serves them as kagent's REST API does, and
//! forwards `/api/a2a/NAMESPACE/NAME/` to the agent. All on loopback; the
//! Python environment comes from `hack/python-env.sh adk`.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct LiveAgent {
    /// The agent's own A2A endpoint.
    #[allow(dead_code)] // each test crate uses what it needs
    pub a2a_url: String,
    /// The controller stand-in: kagent's REST API, and its A2A route.
    pub controller_url: String,
    children: Vec<Child>,
    pub dir: tempfile::TempDir,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Python environment with kagent-adk, built on first use.
pub fn python_env() -> PathBuf {
    python_env_named("adk")
}

/// The Python environment `name` of hack/python-env.sh, built on first use.
fn python_env_named(name: &str) -> PathBuf {
    let output = Command::new(root().join("hack/python-env.sh"))
        .arg(name)
        .stderr(Stdio::inherit())
        .output()
        .expect("run hack/python-env.sh");
    assert!(output.status.success(), "hack/python-env.sh {name} failed");
    PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
}

/// The scripted model of tests/a2a/scripted_model.py answering `script`,
/// logging to `dir`/model.jsonl; its base URL.
fn scripted_model(python: &Path, dir: &Path, script: &Value) -> (Child, String) {
    let script_file = dir.join("script.json");
    std::fs::write(&script_file, script.to_string()).unwrap();
    let mut model = Command::new(python)
        .arg(root().join("tests/a2a/scripted_model.py"))
        .args(["--port", "0", "--script"])
        .arg(&script_file)
        .arg("--log")
        .arg(dir.join("model.jsonl"))
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(dir.join("model.err")).unwrap())
        .spawn()
        .unwrap();
    let port = listening(&mut model);
    (model, format!("http://127.0.0.1:{port}/v1"))
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Start a server that prints `listening on HOST:PORT`, and return its port.
fn listening(child: &mut Child) -> u16 {
    let stdout = child.stdout.take().unwrap();
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    line.trim()
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {line:?}"))
}

/// `GET path` on a loopback port: the status code, or none when closed.
fn status(port: u16, path: &str) -> Option<u16> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).ok()?;
    std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
}

impl LiveAgent {
    /// The agent answering as `script` tells its model (scripted_model.py's format).
    #[allow(dead_code)] // each test crate uses what it needs
    pub fn start(script: &Value) -> LiveAgent {
        Self::start_in("kagent", script)
    }

    /// The same, as an Agent of `namespace` (its app and session agent id).
    pub fn start_in(namespace: &str, script: &Value) -> LiveAgent {
        Self::start_serving(namespace, script, None)
    }

    /// The same, its controller stand-in also serving kagent 1.0's route
    /// `/agents/NS/NAME` from the A2A 1.0 agent at `v1_agent` (a base URL).
    pub fn start_serving(namespace: &str, script: &Value, v1_agent: Option<&str>) -> LiveAgent {
        let venv = python_env();
        let python = venv.join("bin/python");
        let dir = tempfile::tempdir().unwrap();
        let a2a = root().join("tests/a2a");
        let log = |name: &str| std::fs::File::create(dir.path().join(name)).unwrap();
        let (model, model_url) = scripted_model(&python, dir.path(), script);
        let agent_port = free_port();
        let a2a_url = format!("http://127.0.0.1:{agent_port}/");
        let mut controller = Command::new(&python)
            .arg(a2a.join("task_store.py"))
            .args(["--port", "0", "--log"])
            .arg(dir.path().join("controller.jsonl"))
            .args(["--a2a-agent", &a2a_url])
            .args(
                v1_agent
                    .map(|base| ["--a2a-v1-agent", base])
                    .into_iter()
                    .flatten(),
            )
            .stdout(Stdio::piped())
            .stderr(log("controller.err"))
            .spawn()
            .unwrap();
        let controller_port = listening(&mut controller);
        let work = dir.path().join("agent");
        let laid_out = Command::new(&python)
            .arg(a2a.join("agent/workdir.py"))
            .arg(&work)
            .args(["--model-url", &model_url, "--agent-url", &a2a_url])
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(laid_out.success());
        // A clean environment: none of the caller's keys or proxies.
        let mut agent = Command::new(venv.join("bin/kagent-adk"))
            .args([
                "run",
                "weather_agent",
                "--working-dir",
                ".",
                "--host",
                "127.0.0.1",
                "--port",
            ])
            .arg(agent_port.to_string())
            .current_dir(&work)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", dir.path())
            .env("LANG", "C.UTF-8")
            .env("KAGENT_NAME", "weather-agent")
            .env("KAGENT_NAMESPACE", namespace)
            .env("KAGENT_URL", format!("http://127.0.0.1:{controller_port}"))
            .env("OPENAI_API_KEY", "scripted")
            .stdout(log("agent.out"))
            .stderr(log("agent.err"))
            .spawn()
            .unwrap();
        let started = Instant::now();
        while status(agent_port, "/.well-known/agent-card.json") != Some(200) {
            if let Ok(Some(exit)) = agent.try_wait() {
                let err = std::fs::read_to_string(dir.path().join("agent.err")).unwrap_or_default();
                panic!("kagent-adk exited with {exit}: {err}");
            }
            assert!(
                started.elapsed() < Duration::from_secs(180),
                "kagent-adk did not start in 180s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        LiveAgent {
            a2a_url,
            controller_url: format!("http://127.0.0.1:{controller_port}"),
            children: vec![agent, controller, model],
            dir,
        }
    }

    /// The requests the controller stand-in got, as task_store.py logs
    /// them (`authorization` headers logged as `REDACTED`).
    #[allow(dead_code)] // each test crate uses what it needs
    pub fn controller_requests(&self) -> Vec<Value> {
        std::fs::read_to_string(self.dir.path().join("controller.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// Stop the agent, leaving its endpoint down.
    #[allow(dead_code)] // each test crate uses what it needs
    pub fn stop_agent(&mut self) {
        let mut agent = self.children.remove(0);
        let _ = agent.kill();
        let _ = agent.wait();
    }
}

impl Drop for LiveAgent {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A real A2A 1.0 agent for tests: tests/a2a/agent_v1.py, served by the
/// A2A project's own Python SDK (a2a-sdk 1.3.0), at kagent 1.0's route
/// `/agents/NAMESPACE/NAME`, its model a scripted OpenAI-compatible
/// server; with a `database_url`, every update is written to kagent 1.0's
/// tables there (generation C, loaded beforehand), and without one it is
/// an A2A agent that is not kagent, its tasks kept only in the SDK's store.
#[allow(dead_code)] // each test crate uses what it needs
pub struct LiveAgentV1 {
    /// The agent's A2A endpoint: `http://127.0.0.1:PORT/agents/NS/NAME`.
    pub url: String,
    children: Vec<Child>,
    pub dir: tempfile::TempDir,
}

#[allow(dead_code)] // each test crate uses what it needs
impl LiveAgentV1 {
    /// `versions`: what its card offers (`1.0`; with `0.3` the SDK's 0.3
    /// adapter answers `message/send` too).
    pub fn start(
        namespace: &str,
        name: &str,
        script: &Value,
        database_url: Option<&str>,
        versions: &[&str],
    ) -> LiveAgentV1 {
        Self::start_busy(namespace, name, script, database_url, versions, 0)
    }

    /// An agent whose session is busy for the first `busy` sends of each
    /// message id, as kagent 1.0's gateway answers them.
    pub fn start_busy(
        namespace: &str,
        name: &str,
        script: &Value,
        database_url: Option<&str>,
        versions: &[&str],
        busy: u32,
    ) -> LiveAgentV1 {
        let python = python_env_named("a2a1").join("bin/python");
        let dir = tempfile::tempdir().unwrap();
        let (model, model_url) = scripted_model(&python, dir.path(), script);
        let mut agent = Command::new(&python)
            .arg(root().join("tests/a2a/agent_v1.py"))
            .args(["--port", "0", "--model-url", &model_url])
            .args(["--namespace", namespace, "--name", name])
            .args(
                database_url
                    .map(|url| ["--database-url", url])
                    .into_iter()
                    .flatten(),
            )
            .arg("--protocol-versions")
            .args(versions)
            .arg("--log")
            .arg(dir.path().join("requests.jsonl"))
            .args(["--busy", &busy.to_string()])
            .env_remove("KAGENT_EVALS_TEST_DATABASE_URL")
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(dir.path().join("agent.err")).unwrap())
            .spawn()
            .unwrap();
        let port = listening(&mut agent);
        LiveAgentV1 {
            url: format!("http://127.0.0.1:{port}/agents/{namespace}/{name}"),
            children: vec![agent, model],
            dir,
        }
    }

    /// Scheme, host and port, without kagent 1.0's route.
    pub fn base(&self) -> &str {
        &self.url[..self.url.find("/agents/").unwrap()]
    }

    /// Every request the agent got: method, path, headers, JSON-RPC method.
    pub fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(self.dir.path().join("requests.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// Stop the agent, leaving its endpoint down.
    pub fn stop_agent(&mut self) {
        let mut agent = self.children.remove(0);
        let _ = agent.kill();
        let _ = agent.wait();
    }
}

impl Drop for LiveAgentV1 {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
