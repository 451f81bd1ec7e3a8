//! `kagent-evals score`: one evaluator against one trajectory.

use super::documents::load_value;
use super::{CommandError, JudgeArgs, Status};
use crate::core::convert::ConvertOptions;
use crate::core::ingest::KeepJson;
use crate::core::judge::{Judge, JudgeUsage};
use crate::core::session::{Session, SessionKey};
use crate::core::suite::compile::compile_evaluator;
use crate::core::suite::evaluate::{SessionView, evaluate_judged};
use crate::core::suite::evaluators::SuiteScope;
use crate::core::suite::spec::{EvaluatorSpec, SuiteSpec};
use crate::core::trajectory::messages_from_value;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct ScoreArgs {
    /// One evaluator as in a case (name, type, and its settings), YAML or JSON.
    #[arg(long, value_name = "FILE")]
    evaluator: PathBuf,
    /// OpenAI-format messages (JSON/YAML), or ADK events (`.jsonl`).
    #[arg(long, value_name = "FILE")]
    trajectory: PathBuf,
    /// The judge of a trajectoryJudge or outcomeJudge evaluator.
    #[command(flatten)]
    judge: JudgeArgs,
}

pub async fn run(args: ScoreArgs) -> Result<Status, CommandError> {
    let file = args.evaluator.display().to_string();
    let spec: EvaluatorSpec = serde_json::from_value(load_value(&args.evaluator)?)
        .map_err(|e| CommandError(format!("{file}: {e}")))?;
    let suite = SuiteSpec::default();
    let compiled = compile_evaluator(&spec, SuiteScope::of(&suite), "")
        .map_err(|e| CommandError(format!("{file}: {e}")))?;
    let session;
    let options = ConvertOptions::default();
    let view = if args.trajectory.extension().is_some_and(|e| e == "jsonl") {
        let raw = crate::source::fixture::read_file(&args.trajectory, KeepJson::No)?;
        session = Session::from_raw(SessionKey::new("trajectory", None), None, raw);
        if super::output::warn_issues(&session.issues) > 0 || session.events.is_empty() {
            return Err(CommandError(format!(
                "{}: the session is not complete (see the warnings above), so it is not scored",
                args.trajectory.display()
            )));
        }
        SessionView::new(&session, None, &options)
    } else {
        let messages = messages_from_value(load_value(&args.trajectory)?)
            .map_err(|e| CommandError(format!("{}: {e}", args.trajectory.display())))?;
        SessionView::from_messages(messages)
    }
    .map_err(|e| CommandError(format!("{}: {e}", args.trajectory.display())))?;
    let judge = if spec.kind.is_judged() {
        let mut defaults = crate::resolve::RunnerSettings::new(crate::resolve::Party::CommandLine);
        args.judge
            .without_concurrency("score asks the judge about one session, one evaluator")?;
        args.judge.add_to(&mut defaults)?;
        let judge = crate::resolve::resolve_judge(None, &defaults, None, &Default::default())?
            .map(|settings| {
                crate::openai_judge::OpenAiJudge::new(
                    &settings,
                    crate::http_client::Retry::default(),
                )
            })
            .transpose()
            .map_err(|e| CommandError(e.to_string()))?;
        judge
            .check()
            .await
            .map_err(|e| CommandError(e.to_string()))?;
        judge
    } else {
        None
    };
    let mut usage = JudgeUsage::default();
    let (verdict, _reasoning) = evaluate_judged(&compiled.evaluator, &view, &judge, &mut usage)
        .await
        .map_err(CommandError)?;
    let line = serde_json::json!({"key": verdict.key, "score": verdict.score, "passed": verdict.passed, "comment": verdict.comment});
    super::output::emit(None, &format!("{line}\n"))?;
    Ok(if verdict.passed {
        Status::Ok
    } else {
        Status::Failed
    })
}
