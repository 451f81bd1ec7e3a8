//! No secret in any output: credentials in URLs given as flags or in the
//! environment, secrets in suite files, and a corpus of events full of
//! credentials, through every command that prints. A test fails if any
//! secret survives anywhere a person could read it.

use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Output};

/// Built from its parts, so that this file holds no JWT-shaped string.
fn jwt() -> String {
    [
        "eyJhbGciOiJSUzI1NiJ9",
        "eyJzdWIiOiJtYWxsb3J5In0",
        "c2lnLXNpZ25hdHVyZS14eXo",
    ]
    .join(".")
}

/// Every secret the corpus and the flags plant.
const SECRETS: &[&str] = &[
    "PW-api-url-1",
    "TOKEN-query-2",
    "PW-database-3",
    "PW-judge-4",
    "KEY-judge-5",
    "sk-live-api-key-6",
    "tok-api-token-7",
    "sess-token-8",
    "very-secret-9",
    "PW-in-text-10",
    "bearer-token-in-text-11",
    "cookie-value-12",
    "not-trusted-13",
    "eyJzdWIiOiJtYWxsb3J5In0",
    "PW-env-14",
    "yaml-secret-15",
];

fn kagent_evals(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kagent-evals"));
    command.args(args);
    for var in [
        "KAGENT_EVALS_DATABASE_URL",
        "KAGENT_EVALS_API_URL",
        "KAGENT_EVALS_API_TOKEN",
        "KAGENT_EVALS_JUDGE_URL",
        "KAGENT_EVALS_JUDGE_API_KEY",
    ] {
        command.env_remove(var);
    }
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("binary runs")
}

fn assert_clean(what: &str, output: &Output) {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    for secret in SECRETS {
        assert!(!text.contains(secret), "{what} printed {secret}:\n{text}");
    }
}

fn assert_file_clean(what: &str, path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    for secret in SECRETS {
        assert!(!text.contains(secret), "{what} wrote {secret}:\n{text}");
    }
}

#[test]
fn credentials_in_urls_never_reach_errors_notes_or_help() {
    let dir = tempfile::tempdir().unwrap();
    let api = "http://mallory:PW-api-url-1@127.0.0.1:9/kagent?token=TOKEN-query-2";
    let database = "postgres://kagent:PW-database-3@127.0.0.1:9/kagent?password=PW-database-3";
    let judge = "http://u:PW-judge-4@127.0.0.1:9/v1?key=KEY-judge-5";
    let suite = dir.path().join("suite.yaml");
    std::fs::write(&suite, "apiVersion: evals.kagent.dev/v1alpha1\nkind: EvalSuite\nmetadata: {name: s}\nspec:\n  agentRef: {namespace: kagent, name: a}\n  cases:\n    - name: c\n      sessionId: x\n      evaluators:\n        - {name: o, type: outcomeJudge, outcomeJudge: {}}\n").unwrap();
    let suite = suite.to_str().unwrap();
    for args in [
        vec!["sessions", "--api-url", api],
        vec!["sessions", "--database-url", database],
        vec!["capture", "x", "--api-url", api],
        vec!["extract", "x", "--database-url", database],
        vec![
            "run",
            suite,
            "--api-url",
            api,
            "--judge-url",
            judge,
            "--judge-model",
            "m",
        ],
        vec![
            "run",
            suite,
            "--database-url",
            database,
            "--judge-url",
            judge,
            "--judge-model",
            "m",
        ],
        vec!["run", suite, "--api-url", "not a url with PW-api-url-1"],
    ] {
        let output = kagent_evals(&args, &[("KAGENT_EVALS_API_TOKEN", "TOKEN-query-2")]);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_clean(&format!("{args:?}"), &output);
    }
    let env = [
        ("KAGENT_EVALS_API_URL", "http://u:PW-env-14@kagent:8083"),
        ("KAGENT_EVALS_JUDGE_URL", "http://u:PW-env-14@judge/v1"),
        (
            "KAGENT_EVALS_DATABASE_URL",
            "postgres://u:PW-env-14@db/kagent",
        ),
    ];
    for command in [
        "run",
        "sessions",
        "capture",
        "extract",
        "controller",
        "score",
    ] {
        assert_clean(
            &format!("{command} --help"),
            &kagent_evals(&[command, "--help"], &env),
        );
    }
}

#[test]
fn errors_about_input_files_never_quote_them() {
    let dir = tempfile::tempdir().unwrap();
    let evaluator = dir.path().join("evaluator.yaml");
    std::fs::write(
        &evaluator,
        "name: e\ntype: loops\nloops: {window: [yaml-secret-15\n",
    )
    .unwrap();
    let messages = dir.path().join("m.yaml");
    std::fs::write(&messages, "- role: user\n  content: 'yaml-secret-15\n").unwrap();
    let output = kagent_evals(
        &[
            "score",
            "--evaluator",
            evaluator.to_str().unwrap(),
            "--trajectory",
            messages.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(2));
    assert_clean("score", &output);
    let output = kagent_evals(
        &[
            "match",
            "--outputs",
            messages.to_str().unwrap(),
            "--reference",
            messages.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(2));
    assert_clean("match", &output);
    let suite = dir.path().join("suite.yaml");
    std::fs::write(&suite, "apiVersion: evals.kagent.dev/v1alpha1\nkind: EvalSuite\nmetadata: {name: s}\nspec:\n  cases: [{name: c, evaluators: [{name: e, type: loops, loops: {window: yaml-secret-15}}]}]\n").unwrap();
    let output = kagent_evals(
        &["run", suite.to_str().unwrap(), "--fixture", "/dev/null"],
        &[],
    );
    assert_eq!(output.status.code(), Some(2));
    assert_clean("run", &output);
}

/// Events carrying every kind of secret the redaction knows.
fn corpus() -> String {
    let header = json!({
        "id": "h1", "invocation_id": "header_update", "author": "system", "content": null,
        "actions": {"state_delta": {"headers": {
            "authorization": format!("Bearer {}", jwt()),
            "x-user-id": "mallory@example.com",
            "cookie": "sid=cookie-value-12",
            "x-auth-token": "not-trusted-13 REDACTED"
        }}}
    });
    let user = json!({"id": "u1", "invocation_id": "i", "author": "user", "content": {"role": "user", "parts": [
        {"text": "connect to postgres://admin:PW-in-text-10@db/prod with Bearer bearer-token-in-text-11"}
    ]}});
    let call = json!({"id": "c1", "invocation_id": "i", "author": "agent", "content": {"role": "model", "parts": [
        {"function_call": {"id": "call-1", "name": "login", "args": {"api_key": "sk-live-api-key-6", "user": "admin"}}}
    ]}});
    let result = json!({"id": "r1", "invocation_id": "i", "author": "agent", "content": {"role": "user", "parts": [
        {"function_response": {"id": "call-1", "name": "login", "response": {"result": {
            "api_token": "tok-api-token-7", "session_token": "sess-token-8", "secret": "very-secret-9",
            "set_cookie_header": "Set-Cookie: sid=cookie-value-12; HttpOnly",
            jwt(): "a JWT as a key"
        }}}}
    ]}});
    let answer = json!({"id": "a1", "invocation_id": "i", "author": "agent", "content": {"role": "model", "parts": [{"text": "logged in"}]}});
    [header, user, call, result, answer]
        .iter()
        .map(|e| format!("{e}\n"))
        .collect()
}

#[test]
fn no_secret_of_the_corpus_survives_any_command() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = dir.path().join("s.jsonl");
    std::fs::write(&fixture, corpus()).unwrap();
    let fixture = fixture.to_str().unwrap();
    let captured = dir.path().join("captured.jsonl");
    let output = kagent_evals(
        &[
            "capture",
            "s",
            "--fixture",
            fixture,
            "-o",
            captured.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_clean("capture", &output);
    assert_file_clean("capture", &captured);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("redacted 12 secret(s)"),
        "the count is exact: {stderr}"
    );
    // Redacting what was captured finds nothing more.
    let again = dir.path().join("again.jsonl");
    let output = kagent_evals(
        &[
            "extract",
            "s",
            "--fixture",
            captured.to_str().unwrap(),
            "--raw",
            "-o",
            again.to_str().unwrap(),
        ],
        &[],
    );
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("redacted: nothing"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    for args in [
        vec!["extract", "s", "--fixture", fixture],
        vec!["extract", "s", "--fixture", fixture, "--summary"],
        vec![
            "extract",
            "s",
            "--fixture",
            fixture,
            "--include-internal",
            "--list-invocations",
        ],
        vec!["extract", "s", "--fixture", fixture, "--raw"],
    ] {
        assert_clean(&format!("{args:?}"), &kagent_evals(&args, &[]));
    }
    let suite = dir.path().join("suite.yaml");
    std::fs::write(&suite, "apiVersion: evals.kagent.dev/v1alpha1\nkind: EvalSuite\nmetadata: {name: s}\nspec:\n  cases:\n    - name: c\n      evaluators:\n        - {name: login, type: argumentCorrectness, argumentCorrectness: {calls: [{name: login, args: {api_key: other, user: root}}]}}\n").unwrap();
    for format in ["table", "json", "junit", "markdown"] {
        let output = kagent_evals(
            &[
                "run",
                suite.to_str().unwrap(),
                "--fixture",
                fixture,
                "--format",
                format,
                "--include-trajectories",
            ],
            &[],
        );
        assert_eq!(output.status.code(), Some(1), "{format}");
        assert_clean(&format!("run --format {format}"), &output);
    }
    let output = kagent_evals(
        &[
            "run",
            suite.to_str().unwrap(),
            "--fixture",
            fixture,
            "--format",
            "json",
            "--include-trajectories",
        ],
        &[],
    );
    let report: Value = serde_json::from_str(&String::from_utf8_lossy(&output.stdout)).unwrap();
    assert!(
        report["cases"][0]["sessions"][0]["trajectory"].is_array(),
        "the trajectory is there, redacted"
    );
}
