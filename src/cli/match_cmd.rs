//! `kagent-evals match`: agentevals' trajectory match on two message files.

use super::documents::load_value;
use super::{CommandError, Status};
use crate::core::score::args::{ArgsConfig, ArgsMode, Override};
use crate::core::score::trajectory_match::{MatchConfig, MatchMode, Matching, trajectory_match};
use crate::core::trajectory::{messages_from_value, steps};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct MatchArgs {
    /// strict, unordered, subset, superset or inOrder.
    #[arg(long, default_value = "strict")]
    mode: MatchMode,
    /// exact, ignore, subset or superset.
    #[arg(long, default_value = "exact")]
    args_mode: ArgsMode,
    /// Per-tool args matching: `TOOL=MODE`, or `TOOL=key,other.key` for key paths (`TOOL=key,` for one).
    #[arg(long = "override", value_name = "TOOL=MODE_OR_KEYS", value_parser = parse_override)]
    overrides: Vec<(String, Override)>,
    /// The agent's trajectory: OpenAI-format messages, JSON or YAML.
    #[arg(long, value_name = "FILE")]
    outputs: PathBuf,
    /// The reference trajectory, same format.
    #[arg(long, value_name = "FILE")]
    reference: PathBuf,
    /// greedy (agentevals) or optimal (maximum bipartite matching).
    #[arg(long, default_value = "greedy")]
    matching: Matching,
}

fn parse_override(text: &str) -> Result<(String, Override), String> {
    let (tool, spec) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not TOOL=MODE_OR_KEYS"))?;
    Ok((
        tool.to_string(),
        spec.parse()
            .map_err(|e: crate::core::score::ConfigError| e.0)?,
    ))
}

fn read_steps(path: &Path) -> Result<Vec<crate::core::trajectory::Step>, CommandError> {
    let messages = messages_from_value(load_value(path)?)
        .map_err(|e| CommandError(format!("{}: {e}", path.display())))?;
    steps(&messages).map_err(|e| CommandError(format!("{}: {e}", path.display())))
}

pub fn run(args: MatchArgs) -> Result<Status, CommandError> {
    let config = MatchConfig {
        mode: args.mode,
        args: ArgsConfig {
            default: args.args_mode,
            overrides: args.overrides.into_iter().collect(),
        },
        matching: args.matching,
    };
    let outputs = read_steps(&args.outputs)?;
    let reference = read_steps(&args.reference)?;
    let verdict = trajectory_match(&outputs, &reference, &config);
    let line =
        serde_json::json!({"key": verdict.key, "score": verdict.score, "comment": verdict.comment});
    super::output::emit(None, &format!("{line}\n"))?;
    Ok(if verdict.passed {
        Status::Ok
    } else {
        Status::Failed
    })
}
