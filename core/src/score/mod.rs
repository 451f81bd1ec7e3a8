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
    /// No value to report (ADK's informational metrics say n/a).
    NotAvailable,
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Bool(b) => write!(f, "{b}"),
            Score::Number(n) => write!(f, "{}", (n * 1000.0).round() / 1000.0),
            Score::NotAvailable => f.write_str("n/a"),
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
    /// Limits left out because the session does not carry what they
    /// measure, under `unmeasured: skip`: each named with the reason.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
    /// A value reported for tracking, which never passes or fails.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub informational: bool,
}

impl Verdict {
    pub fn boolean(key: impl Into<String>, passed: bool, comment: Option<String>) -> Self {
        Verdict {
            key: key.into(),
            score: Score::Bool(passed),
            passed,
            comment: if passed { None } else { comment },
            skipped: Vec::new(),
            informational: false,
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
            skipped: Vec::new(),
            informational: false,
        }
    }
}

impl Verdict {
    /// A value reported for tracking that never passes or fails (ADK's
    /// informational metrics); `None` where there is none to report.
    pub fn informational(key: &str, value: Option<f64>) -> Verdict {
        Verdict {
            key: key.into(),
            score: value.map_or(Score::NotAvailable, Score::Number),
            passed: true,
            comment: None,
            skipped: Vec::new(),
            informational: true,
        }
    }
}

/// Scorer configuration that cannot be used (an unknown mode, say).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);
