//! The operator's words as types: results, condition types, condition
//! reasons and Event reasons. The CRDs, conditions, metric labels and Events
//! all use these, so that a misspelt reason is a compile error rather than
//! an alert that never fires.

use prometheus_client::encoding::EncodeLabelValue;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How a finished run went.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, EncodeLabelValue,
)]
pub enum RunResult {
    /// Every case passed.
    Passed,
    /// A case failed.
    Failed,
    /// The run could not be done.
    Error,
}

/// The condition types the operator writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConditionType {
    /// EvalRun: it has finished (whatever its result).
    Complete,
    /// EvalRun: every case passed.
    Passed,
    /// EvalSuite: its spec is valid and its last run could reach its source.
    Ready,
    /// EvalSuite: its latest finished run passed.
    LastRunPassed,
}

impl ConditionType {
    pub fn as_str(self) -> &'static str {
        match self {
            ConditionType::Complete => "Complete",
            ConditionType::Passed => "Passed",
            ConditionType::Ready => "Ready",
            ConditionType::LastRunPassed => "LastRunPassed",
        }
    }
}

/// Why a run ended in Error; the reason of its conditions and its Event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, EncodeLabelValue)]
pub enum Failure {
    SuiteNotFound,
    InvalidSpec,
    Forbidden,
    SourceUnavailable,
    JudgeUnavailable,
    /// The Agent's A2A endpoint, which probes go to, is down or answered an error.
    AgentUnavailable,
    /// An evaluator could not judge a session.
    EvaluatorError,
    /// Sessions held events that could not be read, and the suite does not
    /// score partial sessions.
    UnreadableSessions,
    TimedOut,
    /// Interrupted (restarts, leader changes) more often than allowed.
    Interrupted,
}

impl Failure {
    pub fn as_str(self) -> &'static str {
        match self {
            Failure::SuiteNotFound => "SuiteNotFound",
            Failure::InvalidSpec => "InvalidSpec",
            Failure::Forbidden => "Forbidden",
            Failure::SourceUnavailable => "SourceUnavailable",
            Failure::JudgeUnavailable => "JudgeUnavailable",
            Failure::AgentUnavailable => "AgentUnavailable",
            Failure::EvaluatorError => "EvaluatorError",
            Failure::UnreadableSessions => "UnreadableSessions",
            Failure::TimedOut => "TimedOut",
            Failure::Interrupted => "Interrupted",
        }
    }

    /// A failure that says the suite cannot run as configured, so it is
    /// not Ready, rather than that one run went wrong.
    pub fn makes_suite_unready(self) -> bool {
        matches!(
            self,
            Failure::SourceUnavailable | Failure::Forbidden | Failure::JudgeUnavailable
        )
    }

    pub fn from_reason(reason: &str) -> Option<Failure> {
        [
            Failure::SuiteNotFound,
            Failure::InvalidSpec,
            Failure::Forbidden,
            Failure::SourceUnavailable,
            Failure::JudgeUnavailable,
            Failure::AgentUnavailable,
            Failure::EvaluatorError,
            Failure::UnreadableSessions,
            Failure::TimedOut,
            Failure::Interrupted,
        ]
        .into_iter()
        .find(|f| f.as_str() == reason)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The reason of a condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Complete=False while a run executes.
    Running,
    /// Complete=True: the run scored every case.
    Finished,
    /// Passed=True, LastRunPassed=True.
    Passed,
    /// Passed=False, LastRunPassed=False: a case failed.
    Failed,
    /// LastRunPassed=False: the latest run ended in Error.
    Error,
    /// Ready=True for a suite without a schedule.
    Ready,
    /// Ready=True for a scheduled suite.
    Scheduled,
    /// Ready=True for a suspended suite.
    Suspended,
    /// The schedule or time zone cannot be used.
    InvalidSchedule,
    Failure(Failure),
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Running => "Running",
            Reason::Finished => "Finished",
            Reason::Passed => "Passed",
            Reason::Failed => "Failed",
            Reason::Error => "Error",
            Reason::Ready => "Ready",
            Reason::Scheduled => "Scheduled",
            Reason::Suspended => "Suspended",
            Reason::InvalidSchedule => "InvalidSchedule",
            Reason::Failure(failure) => failure.as_str(),
        }
    }
}

/// The reason of an Event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventReason {
    EvalRunCreated,
    EvalRunReplaced,
    EvalRunResumed,
    EvalRunPassed,
    EvalRunFailed,
    MissedSchedule,
    MissedSchedules,
    /// The suite's spec, schedule or time zone cannot be used.
    InvalidSpec,
    InvalidSchedule,
    RegressionDetected,
    ReportNotWritten,
    /// A run ended in Error, for this reason.
    Failure(Failure),
}

impl EventReason {
    pub fn as_str(self) -> &'static str {
        match self {
            EventReason::EvalRunCreated => "EvalRunCreated",
            EventReason::EvalRunReplaced => "EvalRunReplaced",
            EventReason::EvalRunResumed => "EvalRunResumed",
            EventReason::EvalRunPassed => "EvalRunPassed",
            EventReason::EvalRunFailed => "EvalRunFailed",
            EventReason::MissedSchedule => "MissedSchedule",
            EventReason::MissedSchedules => "MissedSchedules",
            EventReason::InvalidSpec => "InvalidSpec",
            EventReason::InvalidSchedule => "InvalidSchedule",
            EventReason::RegressionDetected => "RegressionDetected",
            EventReason::ReportNotWritten => "ReportNotWritten",
            EventReason::Failure(failure) => failure.as_str(),
        }
    }
}

impl fmt::Display for EventReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
