//! `kagent-evals report`: the HTML page opened in a real headless browser
//! (Debian's Chromium, which `.ci/run` installs): no console errors,
//! nothing fetched, the differing call and argument path marked in the
//! DOM, and a screenshot under target/ for a person to look at.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn kagent_evals(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args(args)
        .output()
        .unwrap()
}

fn chromium() -> PathBuf {
    let path = PathBuf::from("/usr/bin/chromium");
    assert!(
        path.exists(),
        "Debian's chromium is needed (apt-get install chromium); .ci/run installs it"
    );
    path
}

/// The page of the wrong-city session, which fails the strict match on the
/// `city` argument.
fn page(dir: &Path, with_trajectories: bool) -> PathBuf {
    let report = dir.join("report.json");
    let mut args = vec![
        "run",
        "examples/weather/suite.yaml",
        "--fixture",
        "examples/weather/sessions/weather-wrong-city.jsonl",
        "--format",
        "json",
        "--output",
        report.to_str().unwrap(),
    ];
    if with_trajectories {
        args.push("--include-trajectories");
    }
    let run = Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args(&args)
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let html = dir.join("report.html");
    let rendered = kagent_evals(&[
        "report",
        report.to_str().unwrap(),
        "-o",
        html.to_str().unwrap(),
    ]);
    assert!(
        rendered.status.success(),
        "{}",
        String::from_utf8_lossy(&rendered.stderr)
    );
    html
}

#[test]
fn the_report_page_marks_the_differing_argument_in_a_real_browser() {
    let dir = tempfile::tempdir().unwrap();
    let html = page(dir.path(), true);
    let text = std::fs::read_to_string(&html).unwrap();
    // Self-contained: nothing to run, nothing to fetch.
    assert!(!text.contains("<script"), "no script");
    assert!(
        !text.contains("src=") && !text.contains("href=") && !text.contains("@import"),
        "nothing fetched"
    );

    let url = format!("file://{}", html.display());
    let dom = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            &url,
        ])
        .output()
        .unwrap();
    let dom_text = String::from_utf8_lossy(&dom.stdout);
    let log = String::from_utf8_lossy(&dom.stderr);
    assert!(dom.status.success(), "{log}");
    let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE(")).collect();
    assert!(console.is_empty(), "console messages: {console:?}");
    // The strict match failed on call 1's `city`: the row is marked and
    // names the path, with both values beside it.
    let row = dom_text
        .split("<tr")
        .find(|r| r.contains("class=\"differs\""))
        .unwrap_or_else(|| panic!("no marked row in {dom_text}"));
    assert!(row.contains("data-path=\"city\""), "{row}");
    assert!(row.contains("Paris") && row.contains("London"), "{row}");

    let screenshot = root().join("target/report-screenshot.png");
    let shot = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=1200,1600",
        ])
        .arg(format!("--screenshot={}", screenshot.display()))
        .arg(&url)
        .output()
        .unwrap();
    assert!(
        shot.status.success(),
        "{}",
        String::from_utf8_lossy(&shot.stderr)
    );
    assert!(
        std::fs::metadata(&screenshot).unwrap().len() > 10_000,
        "a screenshot with something in it"
    );
}

#[test]
fn without_trajectories_the_page_shows_no_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(page(dir.path(), false)).unwrap();
    assert!(text.contains("only with --include-trajectories"), "{text}");
    assert!(
        !text.contains("Paris") && !text.contains("London"),
        "no argument values"
    );
}

#[test]
fn a_file_that_is_not_a_report_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"not\": \"a report\"}").unwrap();
    let output = kagent_evals(&["report", bad.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bad.json is not a kagent-evals JSON report"),
        "{stderr}"
    );
}
