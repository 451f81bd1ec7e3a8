//! Conversion and every deterministic evaluator, on real captured sessions.
//! `cargo bench`; figures are recorded in docs/benchmarks.md.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use kagent_evals::core::convert::{ConvertOptions, convert};
use kagent_evals::core::formats::load::load_compiled;
use kagent_evals::core::ingest::{KeepJson, read_jsonl};
use kagent_evals::core::score::match_case::MatchCase;
use kagent_evals::core::score::{difflib, rouge};
use kagent_evals::core::session::{Session, SessionKey};
use kagent_evals::core::suite::evaluate::{SessionView, evaluate};
use std::hint::black_box;
use std::path::Path;

fn data(path: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn session(text: &str) -> Session {
    let raw = read_jsonl(text.as_bytes(), "session.jsonl", KeepJson::No).unwrap();
    Session::from_raw(SessionKey::default(), None, raw)
}

fn conversion(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse_and_convert");
    for name in ["weather-grounded", "github-assistant-session"] {
        let text = data(&format!("tests/data/kagent-captured/{name}.jsonl"));
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), &text, |b, text| {
            b.iter(|| {
                let session = session(text);
                black_box(convert(&session.events, &ConvertOptions::default()));
            })
        });
    }
    group.finish();
}

/// Each evaluator as a suite runs it: the session view (conversion, split
/// by invocation) and the verdict.
fn evaluators(c: &mut Criterion) {
    let suite = load_compiled("benches/suite.yaml", &data("benches/suite.yaml"), None).unwrap();
    let session = session(&data("examples/weather/sessions/weather-grounded.jsonl"));
    let mut group = c.benchmark_group("evaluator");
    for case in &suite[0].1.cases {
        group.bench_function(&case.name, |b| {
            b.iter(|| {
                let view = SessionView::new(&session, case.invocation_id.as_deref(), &case.convert)
                    .unwrap();
                for evaluator in &case.evaluators {
                    black_box(evaluate(&evaluator.evaluator, &view).unwrap());
                }
            })
        });
    }
    group.finish();
}

/// The scoring kernels alone, on inputs larger than one captured session.
fn kernels(c: &mut Criterion) {
    let mut group = c.benchmark_group("kernel");
    let cases: Vec<MatchCase> = data("tests/conformance/vectors/agentevals_match.jsonl")
        .lines()
        .filter_map(|line| MatchCase::from_json(line, &Default::default()).ok())
        .collect();
    group.throughput(Throughput::Elements(cases.len() as u64));
    group.bench_function("agentevals_match_vectors", |b| {
        b.iter(|| {
            for case in &cases {
                let _ = black_box(case.score());
            }
        })
    });
    group.throughput(Throughput::Elements(1));
    let answer = "The current weather in London is partly cloudy, 12°C, with light winds from the south-west and a chance of rain later in the evening. ".repeat(8);
    let reference = "London is partly cloudy at 12 degrees Celsius; light south-westerly winds, rain likely this evening. ".repeat(8);
    group.bench_function("rouge1_paragraphs", |b| {
        b.iter(|| black_box(rouge::rouge1(&answer, &reference)))
    });
    let tools = ["get", "list", "describe", "logs", "apply", "delete"];
    let actual: Vec<&str> = (0..60).map(|i| tools[(i * 7) % tools.len()]).collect();
    let expected: Vec<&str> = (0..60).map(|i| tools[(i * 5) % tools.len()]).collect();
    group.bench_function("difflib_ratio_60_calls", |b| {
        b.iter(|| black_box(difflib::ratio(&actual, &expected)))
    });
    group.finish();
}

criterion_group!(benches, conversion, evaluators, kernels);
criterion_main!(benches);
