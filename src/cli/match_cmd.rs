//! `kagent-evals match`: agentevals' trajectory match on two message files,
//! or on a JSON-lines file of cases.

use super::documents::load_value;
use super::{CommandError, Status};
use crate::core::parallel::map_in_order;
use crate::core::score::Verdict;
use crate::core::score::args::{ArgsConfig, ArgsMode, Override};
use crate::core::score::match_case::MatchCase;
use crate::core::score::trajectory_match::{MatchConfig, MatchMode, Matching, trajectory_match};
use crate::core::trajectory::{messages_from_value, steps};
use std::io::{BufRead, Write};
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
    #[arg(long, value_name = "FILE", required_unless_present = "cases")]
    outputs: Option<PathBuf>,
    /// The reference trajectory, same format.
    #[arg(long, value_name = "FILE", required_unless_present = "cases")]
    reference: Option<PathBuf>,
    /// Score many comparisons: one JSON object per line with `outputs`,
    /// `reference` and optionally `name`, `mode`, `args_mode`, `overrides`
    /// (agentevals' argument names; the flags above are the defaults).
    /// Prints one result line per case.
    #[arg(long, value_name = "FILE.jsonl", conflicts_with_all = ["outputs", "reference"])]
    cases: Option<PathBuf>,
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
    let (Some(outputs), Some(reference)) = (args.outputs, args.reference) else {
        let cases = args.cases.expect("clap requires --cases without --outputs");
        return run_cases(&cases, &config);
    };
    let verdict = trajectory_match(&read_steps(&outputs)?, &read_steps(&reference)?, &config);
    super::output::emit(None, &format!("{}\n", result_line(None, &verdict)))?;
    Ok(if verdict.passed {
        Status::Ok
    } else {
        Status::Failed
    })
}

fn result_line(name: Option<&str>, verdict: &Verdict) -> serde_json::Value {
    let mut line =
        serde_json::json!({"key": verdict.key, "score": verdict.score, "comment": verdict.comment});
    if let Some(name) = name {
        line["name"] = name.into();
    }
    line
}

/// Stream the cases in chunks scored on every core, results in file order.
/// A bad line is reported with its number and the rest are still scored; it
/// makes the run exit 2, a failed case 1.
fn run_cases(path: &Path, defaults: &MatchConfig) -> Result<Status, CommandError> {
    let file = std::fs::File::open(path)
        .map_err(|e| CommandError(format!("cannot read {}: {e}", path.display())))?;
    // Lines as bytes: one that is not UTF-8 is that line's error, not the batch's.
    let mut lines = std::io::BufReader::new(file).split(b'\n').enumerate();
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let mut tally = Tally::default();
    let mut chunk = read_chunk(path, &mut lines)?;
    while !chunk.is_empty() {
        // The next chunk is read while this one is scored.
        let (scored, next) = rayon::join(
            || {
                map_in_order(chunk, |(number, line)| {
                    score_line(path, number, &line, defaults)
                })
            },
            || read_chunk(path, &mut lines),
        );
        for result in scored {
            tally.count(&result);
            super::output::stdout_written(writeln!(stdout, "{}", result.line))?;
        }
        chunk = next?;
    }
    super::output::stdout_written(stdout.flush())?;
    eprintln!(
        "{} passed, {} failed, {} could not be scored",
        tally.passed, tally.failed, tally.errors
    );
    Ok(if tally.errors > 0 {
        Status::Error
    } else if tally.failed > 0 {
        Status::Failed
    } else {
        Status::Ok
    })
}

/// The next non-blank lines with their numbers; none only at the end of the
/// file, however many blank lines come first.
fn read_chunk(
    path: &Path,
    lines: &mut impl Iterator<Item = (usize, std::io::Result<Vec<u8>>)>,
) -> Result<Vec<(usize, Vec<u8>)>, CommandError> {
    const CHUNK_LINES: usize = 1024;
    let mut chunk = Vec::with_capacity(CHUNK_LINES);
    while chunk.len() < CHUNK_LINES {
        let Some((index, line)) = lines.next() else {
            break;
        };
        let line =
            line.map_err(|e| CommandError(format!("{}:{}: {e}", path.display(), index + 1)))?;
        if !line.trim_ascii().is_empty() {
            chunk.push((index + 1, line));
        }
    }
    Ok(chunk)
}

enum Outcome {
    Passed,
    Failed,
    Error,
}

struct Scored {
    outcome: Outcome,
    /// The result line as written, made on the scoring thread.
    line: String,
}

#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    errors: usize,
}

impl Tally {
    fn count(&mut self, scored: &Scored) {
        match scored.outcome {
            Outcome::Passed => self.passed += 1,
            Outcome::Failed => self.failed += 1,
            Outcome::Error => self.errors += 1,
        }
    }
}

fn score_line(path: &Path, number: usize, line: &[u8], defaults: &MatchConfig) -> Scored {
    let scored = std::str::from_utf8(line)
        .map_err(|e| format!("not UTF-8 (invalid byte at offset {})", e.valid_up_to()))
        .and_then(|line| MatchCase::from_json(line, defaults).map_err(|e| e.0))
        .and_then(|case| case.score().map(|verdict| (case, verdict)).map_err(|e| e.0));
    match scored {
        Ok((case, verdict)) => Scored {
            outcome: if verdict.passed {
                Outcome::Passed
            } else {
                Outcome::Failed
            },
            line: result_line(case.name.as_deref(), &verdict).to_string(),
        },
        Err(why) => {
            let message = format!("{}:{number}: {why}", path.display());
            tracing::error!("{message}");
            Scored {
                outcome: Outcome::Error,
                line: serde_json::json!({"line": number, "error": message}).to_string(),
            }
        }
    }
}
