//! `judge calibrate`: how a suite's judged evaluators agree with people, on
//! sessions a person has labelled pass or fail; a gate on Cohen's kappa so
//! that CI refuses a judge prompt or model that drifted.

use super::output::{emit, table};
use super::suite::{CriteriaArgs, read_suites};
use super::{CommandError, JudgeArgs, SourceArgs, Status, open_for_suite};
use crate::core::judge::calibration::{
    Confusion, Label, LabelledSession, best_threshold, read_labels,
};
use crate::core::judge::{Judge, JudgeUsage};
use crate::core::score::Score;
use crate::core::session::{Session, SessionKey};
use crate::core::suite::compile::{CompiledCase, CompiledSuite};
use crate::core::suite::evaluate::{SessionView, evaluate_judged};
use crate::resolve::Party;
use crate::source::fixture::FixtureSource;
use crate::source::{AnySource, SessionSource};
use futures::StreamExt;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(clap::Subcommand)]
pub enum JudgeCommand {
    /// How a suite's judged evaluators agree with human labels: agreement,
    /// Cohen's kappa, the confusion matrix and the threshold that would
    /// agree best; exit 1 when a kappa is below --min-kappa.
    Calibrate(CalibrateArgs),
}

#[derive(clap::Args)]
pub struct CalibrateArgs {
    /// The suite whose cases' judged evaluators are calibrated.
    suite: PathBuf,
    /// JSONL, one label a line: {"session": ID or "fixture": FILE, "case":
    /// NAME, "verdict": "pass"|"fail" or "score": N}. A fixture is relative
    /// to this file; a score passes at the evaluator's own threshold.
    #[arg(long, value_name = "FILE")]
    labels: PathBuf,
    /// Exit 1 when an evaluator's kappa is below K (and 2 when it could not
    /// be measured).
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    min_kappa: Option<f64>,
    #[arg(long, value_enum, default_value = "table")]
    format: CalibrationFormat,
    #[command(flatten)]
    source: SourceArgs,
    #[command(flatten)]
    judge: JudgeArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum CalibrationFormat {
    Table,
    Json,
}

/// One judged evaluator's agreement with the labels.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct EvaluatorCalibration {
    case: String,
    evaluator: String,
    labels: u32,
    agreement: f64,
    /// Absent when undefined: every verdict on both sides is one class.
    kappa: Option<f64>,
    confusion: Confusion,
    /// The threshold on the judge's score that would agree best, and that
    /// agreement (judges that answer yes or no have none).
    #[serde(skip_serializing_if = "Option::is_none")]
    best_threshold: Option<BestThreshold>,
    /// Labels the judge could not answer, each with why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    not_judged: Vec<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct BestThreshold {
    threshold: f64,
    agreement: f64,
    current: f64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CalibrationReport {
    suite: String,
    labels_file: String,
    evaluators: Vec<EvaluatorCalibration>,
    judge: JudgeUsage,
}

pub async fn run(command: JudgeCommand) -> Result<Status, CommandError> {
    let JudgeCommand::Calibrate(args) = command;
    if let Some(k) = args.min_kappa
        && !(-1.0..=1.0).contains(&k)
    {
        return Err(CommandError(format!(
            "--min-kappa {k}: a kappa lies between -1 and 1"
        )));
    }
    let mut suites = read_suites(&args.suite, &CriteriaArgs::default(), None)?;
    let [(loaded, compiled)] = suites.as_mut_slice() else {
        return Err(CommandError(format!(
            "{}: calibrate takes a file of one suite",
            args.suite.display()
        )));
    };
    args.judge.apply_to(compiled);
    let labels_name = args.labels.display().to_string();
    let text = std::fs::read_to_string(&args.labels)
        .map_err(|e| CommandError(format!("cannot read {labels_name}: {e}")))?;
    let labels = read_labels(&labels_name, &text, |case| {
        judged_case(compiled, case).and_then(|c| {
            c.evaluators
                .iter()
                .find_map(|e| e.evaluator.scorer().pass_threshold())
        })
    })
    .map_err(CommandError)?;
    let unknown: Vec<String> = labels
        .iter()
        .filter(|l| judged_case(compiled, &l.case).is_none())
        .map(|l| format!("{}: case {}", l.at, l.case))
        .collect();
    if !unknown.is_empty() {
        return Err(CommandError(format!(
            "labels name cases that are not judged cases of suite {}: {}",
            compiled.name,
            unknown.join("; ")
        )));
    }
    if !compiled.uses_judge() {
        return Err(CommandError(format!(
            "suite {} has no judged evaluator to calibrate",
            compiled.name
        )));
    }
    let mut defaults = args.source.defaults(Party::CommandLine)?;
    args.judge.add_to(&mut defaults)?;
    let labels_dir = args.labels.parent().unwrap_or(Path::new("")).to_path_buf();
    if labels
        .iter()
        .all(|l| matches!(l.session, LabelledSession::Fixture(_)))
    {
        // Every label brings its own file: no source is read but theirs.
        defaults.fixture.get_or_insert_with(|| labels_dir.clone());
    }
    let base = args.suite.parent().map(PathBuf::from).unwrap_or_default();
    let opened = open_for_suite(&loaded.spec, compiled, &defaults, &base)?;
    let sessions = read_sessions(&labels, &opened.source, compiled, &labels_dir).await?;
    let judge = opened.judge;
    judge
        .check()
        .await
        .map_err(|e| CommandError(e.to_string()))?;
    let compiled = &*compiled;
    let mut asks = Vec::new();
    for (label, session) in labels.iter().zip(&sessions) {
        let case = judged_case(compiled, &label.case).expect("checked above");
        asks.push(judge_label(case, session, &judge));
    }
    let answers: Vec<(Vec<Answer>, JudgeUsage)> = futures::stream::iter(asks)
        .buffered(compiled.judge_concurrency())
        .collect()
        .await;
    let mut usage = JudgeUsage::default();
    let mut by_evaluator: BTreeMap<(String, String), Vec<(&Label, Answer)>> = BTreeMap::new();
    for (label, (answers, used)) in labels.iter().zip(answers) {
        usage.merge(&used);
        for answer in answers {
            by_evaluator
                .entry((label.case.clone(), answer.evaluator.clone()))
                .or_default()
                .push((label, answer));
        }
    }
    let evaluators: Vec<EvaluatorCalibration> = by_evaluator
        .into_iter()
        .map(|((case, evaluator), answers)| calibrate(case, evaluator, &answers))
        .collect();
    let report = CalibrationReport {
        suite: compiled.name.clone(),
        labels_file: labels_name,
        evaluators,
        judge: usage,
    };
    let text = match args.format {
        CalibrationFormat::Json => {
            serde_json::to_string_pretty(&report).map_err(|e| CommandError(e.to_string()))? + "\n"
        }
        CalibrationFormat::Table => render(&report),
    };
    emit(None, &text)?;
    Ok(verdict(&report.evaluators, args.min_kappa))
}

/// The case named `name`, if it has a judged evaluator.
fn judged_case<'c>(suite: &'c CompiledSuite, name: &str) -> Option<&'c CompiledCase> {
    suite
        .cases
        .iter()
        .find(|c| c.name == name && c.evaluators.iter().any(|e| e.kind.is_judged()))
}

/// Each label's session: from its fixture file, or from the source by id.
/// Labels whose session cannot be found are named all at once.
async fn read_sessions(
    labels: &[Label],
    source: &AnySource,
    suite: &CompiledSuite,
    labels_dir: &Path,
) -> Result<Vec<Session>, CommandError> {
    let mut sessions = Vec::with_capacity(labels.len());
    let mut missing = Vec::new();
    for label in labels {
        let (found, whence) = match &label.session {
            LabelledSession::Id(id) => {
                let key = SessionKey::new(id.clone(), None);
                let found = source
                    .fetch(
                        std::slice::from_ref(&key),
                        suite.agent.as_ref(),
                        suite.record,
                    )
                    .await
                    .map_err(|e| CommandError(e.to_string()))?;
                (found, format!("session {id} in {}", source.describe()))
            }
            LabelledSession::Fixture(file) => {
                let path = labels_dir.join(file);
                if !path.is_file() {
                    missing.push(format!("{}: no file {}", label.at, path.display()));
                    continue;
                }
                let fixture =
                    FixtureSource::open(&path).map_err(|e| CommandError(e.to_string()))?;
                let key = SessionKey::new(file.clone(), None);
                let found = fixture
                    .fetch(std::slice::from_ref(&key), None, suite.record)
                    .await
                    .map_err(|e| CommandError(e.to_string()))?;
                (found, format!("fixture {}", path.display()))
            }
        };
        match found.into_iter().next() {
            Some(raw) => sessions.push(raw.normalise()),
            None => missing.push(format!("{}: {whence}", label.at)),
        }
    }
    if !missing.is_empty() {
        return Err(CommandError(format!(
            "labelled sessions not found: {}",
            missing.join("; ")
        )));
    }
    Ok(sessions)
}

/// One judged evaluator's answer on one labelled session.
struct Answer {
    evaluator: String,
    /// Passed, and the judge's score when it is a number; or why the judge
    /// gave none.
    judged: Result<(bool, Option<f64>), String>,
    current_threshold: Option<f64>,
}

/// Every judged evaluator of `case` on `session`.
async fn judge_label(
    case: &CompiledCase,
    session: &Session,
    judge: &impl Judge,
) -> (Vec<Answer>, JudgeUsage) {
    let mut usage = JudgeUsage::default();
    let view = SessionView::new(session, case.invocation_id.as_deref(), &case.convert);
    let mut answers = Vec::new();
    for e in case.evaluators.iter().filter(|e| e.kind.is_judged()) {
        let judged = match &view {
            Err(error) => Err(error.clone()),
            Ok(view) => evaluate_judged(&e.evaluator, view, judge, &mut usage)
                .await
                .map(|(verdict, _)| {
                    let score = match verdict.score {
                        Score::Number(n) => Some(n),
                        _ => None,
                    };
                    (verdict.passed, score)
                }),
        };
        answers.push(Answer {
            evaluator: e.name.clone(),
            judged,
            current_threshold: e.evaluator.scorer().pass_threshold(),
        });
    }
    (answers, usage)
}

fn calibrate(
    case: String,
    evaluator: String,
    answers: &[(&Label, Answer)],
) -> EvaluatorCalibration {
    let mut confusion = Confusion::default();
    let mut scored = Vec::new();
    let mut not_judged = Vec::new();
    for (label, answer) in answers {
        match &answer.judged {
            Ok((passed, score)) => {
                confusion.add(*passed, label.passed);
                if let Some(score) = score {
                    scored.push((*score, label.passed));
                }
            }
            Err(why) => not_judged.push(format!("{}: {why}", label.at)),
        }
    }
    let current = answers.iter().find_map(|(_, a)| a.current_threshold);
    let best_threshold = current
        .filter(|_| scored.len() == confusion.total() as usize)
        .and_then(|current| {
            best_threshold(&scored, current).map(|(threshold, agreement)| BestThreshold {
                threshold,
                agreement,
                current,
            })
        });
    EvaluatorCalibration {
        case,
        evaluator,
        labels: confusion.total(),
        agreement: confusion.agreement(),
        kappa: confusion.kappa(),
        confusion,
        best_threshold,
        not_judged,
    }
}

/// 2 when a label could not be judged or a gated kappa is undefined; 1
/// when a kappa is below the gate; else 0.
fn verdict(evaluators: &[EvaluatorCalibration], min_kappa: Option<f64>) -> Status {
    if evaluators.iter().any(|e| !e.not_judged.is_empty()) {
        return Status::Error;
    }
    let Some(min) = min_kappa else {
        return Status::Ok;
    };
    if evaluators.iter().any(|e| e.kappa.is_none()) {
        return Status::Error;
    }
    match evaluators.iter().all(|e| e.kappa >= Some(min)) {
        true => Status::Ok,
        false => Status::Failed,
    }
}

fn render(report: &CalibrationReport) -> String {
    let shown = |x: f64| format!("{:.3}", x);
    let mut text = format!(
        "judge calibration of suite {} on {}\n\n",
        report.suite, report.labels_file
    );
    text.push_str(&table(
        [
            "CASE",
            "EVALUATOR",
            "LABELS",
            "AGREEMENT",
            "KAPPA",
            "BOTH PASS",
            "JUDGE ONLY PASS",
            "JUDGE ONLY FAIL",
            "BOTH FAIL",
            "BEST THRESHOLD",
        ],
        report.evaluators.iter().map(|e| {
            [
                e.case.clone(),
                e.evaluator.clone(),
                e.labels.to_string(),
                shown(e.agreement),
                e.kappa.map_or("undefined".into(), shown),
                e.confusion.both_pass.to_string(),
                e.confusion.judge_only_pass.to_string(),
                e.confusion.judge_only_fail.to_string(),
                e.confusion.both_fail.to_string(),
                e.best_threshold.as_ref().map_or("-".into(), |b| {
                    format!(
                        "{} (agreement {}; now {})",
                        b.threshold,
                        shown(b.agreement),
                        b.current
                    )
                }),
            ]
        }),
    ));
    for e in &report.evaluators {
        for why in &e.not_judged {
            text.push_str(&format!(
                "not judged ({} / {}): {why}\n",
                e.case, e.evaluator
            ));
        }
        if e.kappa.is_none() {
            text.push_str(&format!(
                "{} / {}: kappa is undefined, every label and every verdict being one class; label sessions of the other class\n",
                e.case, e.evaluator
            ));
        }
    }
    if let Some(kappa) = report
        .evaluators
        .iter()
        .filter_map(|e| e.kappa)
        .min_by(f64::total_cmp)
    {
        let labels = report
            .evaluators
            .iter()
            .map(|e| e.labels)
            .max()
            .unwrap_or(0);
        text.push_str(&format!(
            "\nTo record it in the suite:\n  judge:\n    calibration: {{kappa: {kappa:.3}, labels: {labels}, labelsFile: {}, date: {}}}\n",
            report.labels_file,
            jiff::Zoned::now().date()
        ));
    }
    text
}
