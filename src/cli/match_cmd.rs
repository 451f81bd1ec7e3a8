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
use std::io::{Read, Write};
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
    // A few MiB a read: thousands of cases a block, two blocks in memory.
    let mut blocks = LineBlocks::new(file, 4 << 20);
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let mut tally = Tally::default();
    let mut block = blocks.next_block(path)?;
    while !block.lines.is_empty() {
        // The next block is read while this one is scored.
        let (scored, next) = rayon::join(
            || {
                map_in_order(block.lines, |(number, range)| {
                    score_line(path, number, &block.bytes[range], defaults)
                })
            },
            || blocks.next_block(path),
        );
        for result in scored {
            tally.count(&result);
            super::output::stdout_written(writeln!(stdout, "{}", result.line))?;
        }
        block = next?;
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

/// A file's lines read a block at a time: one read and one buffer for
/// thousands of lines, where reading line by line grew and copied a buffer
/// for each.
struct LineBlocks<R> {
    reader: R,
    /// The start of a line the last block cut off.
    carry: Vec<u8>,
    /// The number of the first line in `carry`.
    next_number: usize,
    /// Bytes asked of the reader at a time; a line longer than this is read
    /// on until it ends.
    read_bytes: usize,
}

/// Whole lines of the file, and each non-blank one's number and place.
struct Block {
    bytes: Vec<u8>,
    lines: Vec<(usize, std::ops::Range<usize>)>,
}

impl<R: Read> LineBlocks<R> {
    fn new(reader: R, read_bytes: usize) -> Self {
        LineBlocks {
            reader,
            carry: Vec::new(),
            next_number: 1,
            read_bytes,
        }
    }

    /// The next block of whole lines; one without lines only at the end of
    /// the file, however many blank lines come first.
    fn next_block(&mut self, path: &Path) -> Result<Block, CommandError> {
        loop {
            let (bytes, at_end) = self.read_whole_lines(path)?;
            let mut lines = Vec::new();
            let mut start = 0;
            while start < bytes.len() {
                let stop =
                    memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
                if !bytes[start..stop].trim_ascii().is_empty() {
                    lines.push((self.next_number, start..stop));
                }
                self.next_number += 1;
                start = stop + 1;
            }
            if !lines.is_empty() || at_end {
                return Ok(Block { bytes, lines });
            }
        }
    }

    /// Bytes up to the end of the last whole line read, and whether the file
    /// has ended (its last line then need not end in a newline).
    fn read_whole_lines(&mut self, path: &Path) -> Result<(Vec<u8>, bool), CommandError> {
        let mut bytes = std::mem::take(&mut self.carry);
        loop {
            let start = bytes.len();
            bytes.reserve(self.read_bytes);
            let read = (&mut self.reader)
                .take(self.read_bytes as u64)
                .read_to_end(&mut bytes)
                .map_err(|e| {
                    CommandError(format!("{}:{}: {e}", path.display(), self.next_number))
                })?;
            if read == 0 {
                return Ok((bytes, true));
            }
            if let Some(last) = memchr::memrchr(b'\n', &bytes[start..]) {
                self.carry = bytes[start + last + 1..].to_vec();
                bytes.truncate(start + last + 1);
                return Ok((bytes, false));
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::LineBlocks;
    use std::path::Path;

    /// Every non-blank line with its number, however the reads cut the
    /// file, and blocks that hold at least one line until the end.
    #[test]
    fn line_blocks_keep_every_line_and_its_number() {
        let text = b"{\"a\": 1}\n\n  \n\n\n\n{\"b\": \"a line longer than a read\"}\r\n\n{}";
        for read_bytes in [1, 2, 3, 5, 8, 13, 64] {
            let mut blocks = LineBlocks::new(&text[..], read_bytes);
            let mut seen = Vec::new();
            loop {
                let block = blocks.next_block(Path::new("cases.jsonl")).unwrap();
                if block.lines.is_empty() {
                    break;
                }
                for (number, range) in block.lines {
                    seen.push((
                        number,
                        String::from_utf8(block.bytes[range].to_vec()).unwrap(),
                    ));
                }
            }
            let expected = [
                (1, "{\"a\": 1}".to_string()),
                (7, "{\"b\": \"a line longer than a read\"}\r".to_string()),
                (9, "{}".to_string()),
            ];
            assert_eq!(seen, expected, "reading {read_bytes} bytes at a time");
        }
    }
}
