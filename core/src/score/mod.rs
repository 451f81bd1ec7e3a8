//! Scorers: pure functions from trajectories (and references) to verdicts.
//!
//! Each reproduces a tool users already trust, including its odd corners:
//! agentevals' trajectory match, ADK's tool-trajectory and ROUGE-1 response
//! metrics, and the golden-case metrics. Where we differ on purpose the
//! difference is an option or a documented default.

pub mod adk;
pub mod args;
pub mod difflib;
pub mod golden;
pub mod match_case;
pub mod porter;
pub mod rouge;
pub mod trajectory_match;

use serde::Serialize;
use std::fmt;

/// A score as the reference tools report it: agentevals' booleans, ADK's floats.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum Score {
    Bool(bool),
    Number(f64),
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Bool(b) => write!(f, "{b}"),
            Score::Number(n) => write!(f, "{}", (n * 1000.0).round() / 1000.0),
        }
    }
}

/// One evaluator's result on one trajectory.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// The reference tool's feedback key, e.g. `trajectory_superset_match`.
    pub key: String,
    pub score: Score,
    pub passed: bool,
    /// Why it failed, briefly; never quotes message text or argument values.
    pub comment: Option<String>,
}

impl Verdict {
    pub fn boolean(key: impl Into<String>, passed: bool, comment: Option<String>) -> Self {
        Verdict {
            key: key.into(),
            score: Score::Bool(passed),
            passed,
            comment: if passed { None } else { comment },
        }
    }

    /// A number that passes at or above `threshold`.
    pub fn threshold(
        key: impl Into<String>,
        score: f64,
        threshold: f64,
        comment: Option<String>,
    ) -> Self {
        let passed = score >= threshold;
        Verdict {
            key: key.into(),
            score: Score::Number(score),
            passed,
            comment: if passed { None } else { comment },
        }
    }
}

/// Scorer configuration that cannot be used (an unknown mode, say).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);
