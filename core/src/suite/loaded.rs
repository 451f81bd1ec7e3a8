//! A suite as read from a file, before it is compiled: what every format
//! ([`crate::formats`]) produces and what scoring reports of a file's cases
//! that could not be run.

use super::spec::SuiteSpec;
use std::fmt;

/// What a suite file was written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SuiteFormat {
    Manifest,
    KagentAgentevals,
    AdkEvalSet,
    /// The golden-case harness's JSONL golden set.
    GoldenSet,
}

/// One suite read from a file.
#[derive(Clone, Debug)]
pub struct LoadedSuite {
    pub name: String,
    pub namespace: Option<String>,
    pub spec: SuiteSpec,
    pub format: SuiteFormat,
    /// Cases of the file that cannot be run as passive checks, and why.
    pub not_run: Vec<NotRun>,
    /// Settings of the file carried with this tool's meaning, said once.
    pub notes: Vec<String>,
}

/// A case of a file that is not run, and why: said, never skipped in silence.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NotRun {
    pub case: String,
    pub reason: String,
}

/// A criteria file (ADK's `test_config.json`) for ADK eval files.
#[derive(Clone, Copy, Debug)]
pub struct CriteriaFile<'a> {
    pub name: &'a str,
    pub text: &'a str,
    /// Named by the user rather than found beside the suite file: then it is
    /// an error for a file that is not an ADK eval file.
    pub explicit: bool,
}

/// A problem in a suite file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub file: String,
    pub line: Option<(u64, u64)>,
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some((line, column)) = self.line {
            write!(f, ":{line}:{column}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for LoadError {}
