//! The report of a run: its verdicts per case and session, what every
//! renderer, the EvalRun status and a later run's baseline read. Scoring
//! fills it in ([`super::scoring`]).

use super::loaded::NotRun;
use super::spec::EvaluatorType;
use crate::efficiency::{Efficiency, EfficiencyStats};
use crate::ingest::Issue;
use crate::judge::JudgeUsage;
use crate::score::Score;
use crate::task::Record;
use serde::{Deserialize, Serialize};

pub use super::gate::{Comparison, GateReport};

/// The version of the report's JSON form; a baseline from a newer one is
/// refused rather than half read. Reports before the field are version 1.
pub const FORMAT_VERSION: u32 = 2;

fn version_one() -> u32 {
    1
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    #[serde(default = "version_one")]
    pub format_version: u32,
    pub suite: String,
    pub passed: bool,
    pub summary: Summary,
    /// Cost, latency and tokens over the distinct sessions scored.
    #[serde(default)]
    pub efficiency: EfficiencyStats,
    /// Whether the run passes its gates: blocking failures within the
    /// allowed rate, no breach against the baseline.
    #[serde(default)]
    pub gate: GateReport,
    /// The comparison with the baseline run, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Comparison>,
    /// Where the sessions were read, with the kagent line found there
    /// ("kagent 1.0 PostgreSQL at …").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The A2A version the run's probes spoke, and why ("A2A 1.0, set by
    /// the agentRef ...").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probed_with: Option<String>,
    /// The run's judge calls, when it has judged evaluators.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeUsage>,
    /// How the judge agreed with people, as the suite records it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_calibration: Option<crate::suite::spec::Calibration>,
    /// The cases selected by tag or name, and those left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<crate::suite::select::Selection>,
    pub cases: Vec<CaseReport>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub cases: usize,
    pub passed: usize,
    pub failed: usize,
    /// Cases that could not be done (an evaluator could not judge, or
    /// sessions could not be read).
    pub errors: usize,
    /// Cases that matched no session (counted in passed or failed too).
    pub no_sessions: usize,
    /// Distinct sessions scored by at least one case.
    pub sessions: usize,
    /// Distinct sessions with events that could not be read.
    #[serde(default)]
    pub unreadable_sessions: usize,
    /// Probe runs made, over every probe case, and how many passed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub probe_runs: usize,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub probe_runs_passed: usize,
    /// Budget limits left out because a session did not carry what they
    /// measure (`unmeasured: skip`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unmeasured_skipped: usize,
    /// Distinct sessions scored whose last turn failed, and how many of
    /// them the evaluators decided (`failedTasks: score`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failed_tasks: usize,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failed_tasks_scored: usize,
}

/// A probe case's k runs: pass^k (every run passed) and pass@k (one did).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbeSummary {
    pub runs: usize,
    pub passed: usize,
    /// pass@k: at least one run passed.
    pub pass_at_k: bool,
    /// pass^k: every run passed.
    pub pass_all_k: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Outcome {
    Passed,
    Failed,
    NoSessions,
    Error,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseReport {
    pub name: String,
    pub passed: bool,
    pub outcome: Outcome,
    /// Share of scored sessions that passed; absent when none was scored.
    pub pass_rate: Option<f64>,
    pub min_pass_rate: f64,
    /// Sessions the case looked at, and how many of them failed.
    pub session_count: usize,
    pub failed_sessions: usize,
    /// Why sessions are missing, e.g. a named session that was not found.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Details of at most [`super::scoring::SESSION_DETAIL`] sessions, failing first.
    pub sessions: Vec<SessionReport>,
    /// Sessions whose details were left out to bound the report.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub sessions_omitted: usize,
    /// For a probe case: its runs (each a session above).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<ProbeSummary>,
    /// ADK's judged metrics over a probe's runs, which decide the case as
    /// ADK decides it: the mean of every run's invocation scores.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pooled: Vec<PooledScore>,
    /// The tool calls each trajectory evaluator expects (the suite's own
    /// words), so a report can show a session's calls beside them; left out
    /// of the logged report.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<Reference>,
    /// Cost, latency and tokens over the case's sessions.
    #[serde(default)]
    pub efficiency: EfficiencyStats,
    /// `false`: its failure does not fail the run.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub blocking: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

/// The calls a trajectory evaluator expects, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reference {
    pub evaluator: String,
    pub calls: Vec<ReferenceCall>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReferenceCall {
    pub name: String,
    /// `null` where the evaluator compares names only.
    pub args: serde_json::Value,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PooledScore {
    pub evaluator: String,
    /// `None` when no invocation of any run could be judged.
    pub score: Option<f64>,
    pub threshold: f64,
    pub passed: bool,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionReport {
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    /// Read from ADK's events or from kagent's A2A task records.
    #[serde(default)]
    pub record: Record,
    /// The kagent 1.0 Agent revision the session ran on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    pub passed: bool,
    /// Why the session could not be scored at all.
    pub error: Option<String>,
    /// Events could not be read (or there were none): the session was not
    /// scored as if complete.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unreadable: bool,
    /// The session's last turn ended in an error (kagent's failed task, a
    /// model error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_task: Option<FailedTask>,
    pub messages: usize,
    pub tools: Vec<String>,
    /// Lines, rows or fields of the session that could not be read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub issues: Vec<Issue>,
    /// What was read with a loss (a number beyond a float's range, say),
    /// and other oddities worth knowing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<Issue>,
    pub evaluations: Vec<Evaluation>,
    /// What the session used; absent where it was not scored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub efficiency: Option<Efficiency>,
    /// The scored trajectory; only when asked for, since it is the
    /// conversation itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trajectory: Option<Vec<crate::trajectory::Message>>,
    /// A scenario probe's conversation as the simulated user held it, and
    /// why it ended; only with the trajectories.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulated: Option<SimulatedConversation>,
}

/// The error a session's last turn ended in, and whether it failed the
/// session (`failedTasks: fail`, the default) or the evaluators decided.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FailedTask {
    pub error: String,
    pub fails_case: bool,
}

impl FailedTask {
    /// The error, and that it was scored anyway when it did not fail the
    /// case.
    pub fn words(&self) -> String {
        match self.fails_case {
            true => self.error.clone(),
            false => format!("{} (scored anyway: failedTasks: score)", self.error),
        }
    }
}

/// What a simulated user said and heard, and why it stopped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SimulatedConversation {
    pub turns: Vec<crate::judge::simulate::Exchange>,
    pub ended: Option<String>,
}

impl SessionReport {
    /// The session as a reader names it: its id, and the 1.0 revision it
    /// ran on where known.
    pub fn label(&self) -> String {
        match &self.revision {
            Some(revision) => format!("{} (revision {revision})", self.session_id),
            None => self.session_id.clone(),
        }
    }

    /// A session that does not pass and cannot be said to fail: a failed
    /// task that fails the case is a failure, whatever else went wrong.
    pub(crate) fn is_error(&self) -> bool {
        self.failing_task().is_none()
            && (self.unreadable || self.evaluations.iter().any(|e| e.error.is_some()))
    }

    /// The failed last turn that fails the session, if there is one.
    pub fn failing_task(&self) -> Option<&FailedTask> {
        self.failed_task.as_ref().filter(|f| f.fails_case)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluation {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: EvaluatorType,
    pub key: Option<String>,
    pub score: Option<Score>,
    pub passed: bool,
    pub comment: Option<String>,
    /// The evaluator could not judge this session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// An LLM judge's reasoning; it may quote the conversation, so it is
    /// kept only with the trajectories.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// ADK's judged metrics: each invocation's score (`None`: not judged).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invocation_scores: Vec<Option<f64>>,
    /// Limits left out because the session does not carry what they
    /// measure (`unmeasured: skip`), each with the reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmeasured: Vec<String>,
    /// A value reported for tracking (ADK's efficiency metrics), which
    /// never passes or fails.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub informational: bool,
    /// A panel's members: each one's verdict (and, with the trajectories,
    /// its reasoning).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub panel: Vec<crate::judge::panel::PanelVote>,
}

impl Report {
    /// The report without conversations, for logs and status.
    pub fn without_trajectories(&self) -> Report {
        let mut copy = self.clone();
        for case in &mut copy.cases {
            case.references.clear();
        }
        for session in copy.cases.iter_mut().flat_map(|c| c.sessions.iter_mut()) {
            session.trajectory = None;
            for evaluation in &mut session.evaluations {
                evaluation.reasoning = None;
                for member in &mut evaluation.panel {
                    member.reasoning = None;
                }
            }
        }
        copy
    }

    /// Add the cases of the suite file that could not be run, each an error
    /// that says why: a gate never passes on a case it did not run.
    pub fn add_not_run(&mut self, cases: &[NotRun]) {
        for case in cases {
            self.cases.push(CaseReport {
                name: case.case.clone(),
                passed: false,
                outcome: Outcome::Error,
                pass_rate: None,
                min_pass_rate: 1.0,
                session_count: 0,
                failed_sessions: 0,
                notes: vec![format!("not run: {}", case.reason)],
                sessions: Vec::new(),
                sessions_omitted: 0,
                probe: None,
                pooled: Vec::new(),
                references: Vec::new(),
                efficiency: EfficiencyStats::default(),
                blocking: true,
                tags: Vec::new(),
            });
            self.summary.cases += 1;
            self.summary.errors += 1;
            self.passed = false;
        }
    }

    /// Settle the verdict from the gate: the run passes when nothing
    /// blocks it and everything could be done.
    pub fn settle(&mut self) {
        self.passed =
            !self.gate.blocked() && self.summary.errors == 0 && self.gate.errors.is_empty();
    }

    /// 0 the run passed its gates; 1 it did not (a blocking case failed
    /// beyond the allowed rate, or a gate against the baseline was
    /// breached), whatever else went wrong: a gate that saw a failure
    /// reports it; 2 a case or a gate could not be done, and nothing
    /// failed.
    pub fn exit_code(&self) -> u8 {
        if self.gate.blocked() {
            1
        } else if self.summary.errors > 0 || !self.gate.errors.is_empty() {
            2
        } else if self.passed {
            0
        } else {
            1
        }
    }
}
