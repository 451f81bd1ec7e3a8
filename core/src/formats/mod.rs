//! Suite files in every format `run` reads: `EvalSuite` manifests, ADK
//! EvalSets (with their criteria files), kagent-agentevals suites and the
//! golden-case harness's JSONL golden sets (with their prices). Each
//! format becomes a [`crate::suite::loaded::LoadedSuite`]; every key is read
//! with its own tool's meaning or refused by name (file, line, field). A
//! new format is a module here that [`load`] dispatches to.

pub mod adk;
pub mod agentevals;
pub mod append;
pub mod golden_set;
pub mod load;
mod locate;

/// Where in a file a problem is, and what it is.
pub type Problem = (String, String);

fn problem(at: impl Into<String>, message: impl Into<String>) -> Problem {
    (at.into(), message.into())
}
