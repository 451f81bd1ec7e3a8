//! The operator's words as types: results, condition types, condition
//! reasons and Event reasons. The CRDs, conditions, metric labels and Events
//! all use these, so that a misspelt reason is a compile error rather than
//! an alert that never fires. Each word's text is its variant's name,
//! derived once (strum); a nested failure speaks as the failure.

use prometheus_client::encoding::EncodeLabelValue;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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

/// The condition types the operator writes. `Ready`, `Reconciling` and
/// `Stalled` are kstatus's, which Flux, Helm's `--wait` and Argo CD read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::IntoStaticStr, strum::VariantArray)]
pub enum ConditionType {
    /// EvalRun: it has finished (whatever its result).
    Complete,
    /// EvalRun: every case passed.
    Passed,
    /// EvalRun: it finished with a verdict, passed or not. EvalSuite: its
    /// spec is valid and its last run could be done.
    Ready,
    /// EvalRun: pending or running. EvalSuite: its first run is pending.
    Reconciling,
    /// It cannot proceed as it is (an invalid spec, a forbidden Agent, a
    /// source, judge or Agent that cannot be reached), with the reason.
    Stalled,
    /// EvalSuite: its latest finished run passed.
    LastRunPassed,
}

impl ConditionType {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Why a run ended in Error; the reason of its conditions and its Event,
/// and the run status's `failure`.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
    EncodeLabelValue,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::VariantArray,
)]
pub enum Failure {
    SuiteNotFound,
    InvalidSpec,
    Forbidden,
    SourceUnavailable,
    JudgeUnavailable,
    /// The Agent's A2A endpoint, which probes go to, is down or answered an error.
    AgentUnavailable,
    /// The kagent 1.0 Agent's template or harness cannot be read.
    AgentUnreadable,
    /// A gate against the baseline could not be evaluated: a mean one of
    /// the runs did not measure on every session, or no baseline.
    GateNotEvaluated,
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
        self.into()
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The reason of a condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::IntoStaticStr)]
pub enum Reason {
    /// Complete=False, Reconciling=True while a run executes.
    Running,
    /// Reconciling=True: the run waits for one of the operator's run slots.
    WaitingForSlot,
    /// Reconciling=True: the suite's first run has not finished.
    FirstRunPending,
    /// Reconciling=False, Stalled=False: nothing left to do or to fix.
    Idle,
    /// Complete=True: the run scored every case.
    Finished,
    /// Passed=True, LastRunPassed=True.
    Passed,
    /// Passed=True: the run passed its gate, and cases that do not block
    /// it failed.
    PassedWithNonBlockingFailures,
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
    /// Ready=False, Stalled=True: the API server refused the suite's
    /// scheduled run.
    RunNotCreated,
    #[strum(transparent)]
    Failure(Failure),
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The reason of an Event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::IntoStaticStr)]
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
    /// Mean cost, latency or tokens rose, or the pass rate fell, beyond
    /// the suite's gates against its baseline run.
    EfficiencyRegressed,
    /// Cases that do not block the run failed.
    NonBlockingCasesFailed,
    ReportNotWritten,
    /// The API server refused the suite's scheduled run.
    RunNotCreated,
    /// A run ended in Error, for this reason.
    #[strum(transparent)]
    Failure(Failure),
}

impl EventReason {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl std::fmt::Display for EventReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;
    use strum::VariantArray;

    #[test]
    fn every_failure_reads_back_from_its_word() {
        for failure in Failure::VARIANTS {
            assert_eq!(Failure::from_str(failure.as_str()), Ok(*failure));
            assert_eq!(format!("{failure:?}"), failure.as_str());
        }
        assert!(Failure::from_str("Finished").is_err());
    }

    #[test]
    fn a_nested_failure_speaks_as_the_failure() {
        for failure in Failure::VARIANTS {
            assert_eq!(Reason::Failure(*failure).as_str(), failure.as_str());
            assert_eq!(EventReason::Failure(*failure).as_str(), failure.as_str());
        }
        assert_eq!(Reason::InvalidSchedule.as_str(), "InvalidSchedule");
        assert_eq!(
            EventReason::RegressionDetected.as_str(),
            "RegressionDetected"
        );
        for condition in ConditionType::VARIANTS {
            assert_eq!(format!("{condition:?}"), condition.as_str());
        }
    }
}
