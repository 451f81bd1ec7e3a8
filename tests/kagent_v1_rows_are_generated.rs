//! The committed kagent 1.0 rows (tests/data/kagent-1.0) are exactly what
//! their generator makes with the A2A project's own Python SDK (a2a-sdk
//! 1.3.0, `a2a.types` ... `SerializeToString()`): a change to either is a
//! change to both.

use std::path::Path;
use std::process::{Command, Stdio};

#[test]
fn the_committed_rows_are_what_the_generator_makes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let venv = Command::new(root.join("hack/python-env.sh"))
        .arg("a2a1")
        .stderr(Stdio::inherit())
        .output()
        .expect("run hack/python-env.sh");
    if !venv.status.success() {
        assert!(
            std::env::var_os("KAGENT_EVALS_REQUIRE_INTEGRATION").is_none(),
            "hack/python-env.sh a2a1 failed"
        );
        eprintln!("skipped: no Python environment with a2a-sdk (hack/python-env.sh a2a1 failed)");
        return;
    }
    let python = Path::new(String::from_utf8(venv.stdout).unwrap().trim()).join("bin/python");
    let check = Command::new(python)
        .arg(root.join("tests/data/kagent-1.0/generate.py"))
        .arg("--check")
        .output()
        .expect("run generate.py");
    assert!(
        check.status.success(),
        "generate.py --check: {}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
}
