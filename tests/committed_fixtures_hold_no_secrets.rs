//! No committed file may carry a JWT or an unredacted authorization header:
//! captured sessions hold the caller's request headers.

use kagent_evals::core::redact::find_secrets;
use regex::Regex;
use std::path::{Path, PathBuf};

const SCANNED_DIRS: &[&str] = &[
    "tests", "examples", "config", "charts", "docs", "bench", "crds",
];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if !matches!(name, ".venv" | "target" | "__pycache__") {
                files(&path, out);
            }
        } else {
            out.push(path);
        }
    }
}

/// Problems in one file's text: JWT-shaped strings, and authorization
/// headers in JSON lines whose value is not `REDACTED`.
fn problems(text: &str) -> Vec<String> {
    let jwt = Regex::new(r"eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*").unwrap();
    let mut found: Vec<String> = jwt
        .find_iter(text)
        .map(|m| format!("JWT-shaped string at byte {}", m.start()))
        .collect();
    for (number, line) in text.lines().enumerate() {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        for path in find_secrets(&value) {
            let key = path.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
            if key == "authorization" || key == "proxy-authorization" {
                found.push(format!("line {}: unredacted {path}", number + 1));
            }
        }
    }
    found
}

#[test]
fn the_scanner_catches_what_it_looks_for() {
    let token = ["eyJhbGciOiJIUzI1NiJ9", "eyJzdWIiOiJ4In0", "c2lnbmF0dXJl"].join(".");
    assert_eq!(problems(&format!("x {token} y")).len(), 1);
    assert_eq!(
        problems(r#"{"actions": {"state_delta": {"headers": {"authorization": "Bearer abc"}}}}"#),
        ["line 1: unredacted actions.state_delta.headers.authorization"]
    );
    assert!(problems(r#"{"headers": {"authorization": "Bearer REDACTED"}}"#).is_empty());
}

#[test]
fn committed_fixtures_hold_no_jwt_or_unredacted_authorization() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    for dir in SCANNED_DIRS {
        files(&root.join(dir), &mut all);
    }
    assert!(
        all.iter().any(|p| p.ends_with("weather-grounded.jsonl")),
        "fixtures were scanned"
    );
    let mut failures = Vec::new();
    for path in all {
        if path.ends_with("committed_fixtures_hold_no_secrets.rs") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for problem in problems(&text) {
            failures.push(format!(
                "{}: {problem}",
                path.strip_prefix(root).unwrap().display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "secrets in committed files:\n{}",
        failures.join("\n")
    );
}
