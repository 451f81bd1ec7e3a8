//! What the benches that run `kagent-evals controller` as its own process
//! on the real control plane share: when to run, what they need, the
//! process, and its memory.

use std::path::PathBuf;
use std::process::Child;

/// The control plane's binaries when the bench was asked for (`cargo
/// test --all-targets` runs bench binaries too, without `--bench`: minutes
/// of control plane for no test); exit 2 naming what is missing.
pub fn control_plane_when_benching() -> Option<PathBuf> {
    if !std::env::args().any(|a| a == "--bench") {
        return None;
    }
    let Some(binaries) = crate::support::controlplane::binaries() else {
        eprintln!("the control plane is not built: run hack/build-tools.sh");
        std::process::exit(2);
    };
    if crate::support::postgres::admin_url().is_none() {
        eprintln!("set KAGENT_EVALS_TEST_DATABASE_URL to a PostgreSQL superuser URL");
        std::process::exit(2);
    }
    Some(binaries)
}

/// The controller process, killed when dropped.
pub struct Controller(pub Child);

impl Drop for Controller {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Resident and peak resident memory of a process, in MiB.
pub fn memory(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse::<f64>().ok())
            .unwrap_or(0.0)
            / 1024.0
    };
    (field("VmRSS:"), field("VmHWM:"))
}
