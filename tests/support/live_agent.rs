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
    let output = Command::new(root().join("hack/python-env.sh"))
        .arg("adk")
        .stderr(Stdio::inherit())
        .output()
        .expect("run hack/python-env.sh");
    assert!(output.status.success(), "hack/python-env.sh adk failed");
    PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
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
        let venv = python_env();
        let python = venv.join("bin/python");
        let dir = tempfile::tempdir().unwrap();
        let a2a = root().join("tests/a2a");
        let script_file = dir.path().join("script.json");
        std::fs::write(&script_file, script.to_string()).unwrap();
        let log = |name: &str| std::fs::File::create(dir.path().join(name)).unwrap();
        let mut model = Command::new(&python)
            .arg(a2a.join("scripted_model.py"))
            .args(["--port", "0", "--script"])
            .arg(&script_file)
            .arg("--log")
            .arg(dir.path().join("model.jsonl"))
            .stdout(Stdio::piped())
            .stderr(log("model.err"))
            .spawn()
            .unwrap();
        let model_port = listening(&mut model);
        let agent_port = free_port();
        let a2a_url = format!("http://127.0.0.1:{agent_port}/");
        let mut controller = Command::new(&python)
            .arg(a2a.join("task_store.py"))
            .args(["--port", "0", "--log"])
            .arg(dir.path().join("controller.jsonl"))
            .args(["--a2a-agent", &a2a_url])
            .stdout(Stdio::piped())
            .stderr(log("controller.err"))
            .spawn()
            .unwrap();
        let controller_port = listening(&mut controller);
        let model_url = format!("http://127.0.0.1:{model_port}/v1");
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
