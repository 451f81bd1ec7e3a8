//! Scoring sessions against a compiled suite, one session at a time, into a
//! report. Sessions arrive in any order and are not kept: memory stays
//! bounded by the report, not by the sessions.

use super::compile::{CompiledSuite, Selector};
use super::evaluate::{SessionView, evaluate_judged};
use super::spec::EvaluatorType;
use crate::core::ingest::Issue;
use crate::core::judge::{Judge, JudgeUsage};
use crate::core::score::Score;
use crate::core::session::Session;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub suite: String,
    pub passed: bool,
    pub summary: Summary,
    /// The run's judge calls, when it has judged evaluators.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeUsage>,
    pub cases: Vec<CaseReport>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub cases: usize,
    pub passed: usize,
    pub failed: usize,
    /// Cases an evaluator could not judge: the run could not be done.
    pub errors: usize,
    /// Cases that matched no session (counted in passed or failed too).
    pub no_sessions: usize,
    /// Distinct sessions scored by at least one case.
    pub sessions: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Outcome {
    Passed,
    Failed,
    NoSessions,
    Error,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseReport {
    pub name: String,
    pub passed: bool,
    pub outcome: Outcome,
    /// Share of scored sessions that passed; absent when none was scored.
    pub pass_rate: Option<f64>,
    pub min_pass_rate: f64,
    /// Why sessions are missing, e.g. a named session that was not found.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub sessions: Vec<SessionReport>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionReport {
    pub session_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    pub passed: bool,
    /// Why the session could not be scored at all.
    pub error: Option<String>,
    pub messages: usize,
    pub tools: Vec<String>,
    /// Lines, rows or fields of the session that could not be read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub issues: Vec<Issue>,
    pub evaluations: Vec<Evaluation>,
    /// The scored trajectory; only when asked for, since it is the
    /// conversation itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trajectory: Option<Vec<crate::core::trajectory::Message>>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// An LLM judge's reasoning; it may quote the conversation, so it is
    /// kept only with the trajectories.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
}

impl Report {
    /// The report without conversations, for logs and status.
    pub fn without_trajectories(&self) -> Report {
        let mut copy = self.clone();
        for session in copy.cases.iter_mut().flat_map(|c| c.sessions.iter_mut()) {
            session.trajectory = None;
            for evaluation in &mut session.evaluations {
                evaluation.reasoning = None;
            }
        }
        copy
    }

    /// 0 all passed, 1 a case failed, 2 the run could not be done.
    pub fn exit_code(&self) -> u8 {
        if self.summary.errors > 0 {
            2
        } else if self.passed {
            0
        } else {
            1
        }
    }
}

/// A run in progress.
pub struct ReportBuilder<'s> {
    suite: &'s CompiledSuite,
    with_trajectories: bool,
    sessions: Vec<Vec<SessionReport>>,
    notes: Vec<Vec<String>>,
    scored: std::collections::BTreeSet<(String, Option<String>)>,
    judge_usage: JudgeUsage,
}

impl<'s> ReportBuilder<'s> {
    pub fn new(suite: &'s CompiledSuite) -> Self {
        ReportBuilder {
            suite,
            with_trajectories: false,
            sessions: vec![Vec::new(); suite.cases.len()],
            notes: vec![Vec::new(); suite.cases.len()],
            scored: Default::default(),
            judge_usage: JudgeUsage::default(),
        }
    }

    /// Keep each scored trajectory in the report.
    pub fn with_trajectories(mut self, keep: bool) -> Self {
        self.with_trajectories = keep;
        self
    }

    /// Score one session with every case it belongs to. `selected` says the
    /// session is one of the run's selected sessions (cases without a
    /// `sessionId` score only those); a session fetched by id is not.
    /// Judged evaluators ask `judge`.
    pub async fn score(&mut self, session: &Session, selected: bool, judge: &impl Judge) {
        let first_user = session.first_user_text();
        for (index, case) in self.suite.cases.iter().enumerate() {
            let applies = match &case.selector {
                Selector::SessionId(id) => *id == session.key.id,
                Selector::FirstUserMessage(m) => {
                    selected && first_user.is_some_and(|t| m.matches(t))
                }
                Selector::All => selected,
            };
            if !applies {
                continue;
            }
            self.scored
                .insert((session.key.id.clone(), session.key.user_id.clone()));
            let report = match SessionView::new(session, case) {
                Err(error) => SessionReport {
                    session_id: session.key.id.clone(),
                    user_id: session.key.user_id.clone(),
                    passed: false,
                    error: Some(error),
                    messages: 0,
                    tools: Vec::new(),
                    issues: session.issues.clone(),
                    evaluations: Vec::new(),
                    trajectory: None,
                },
                Ok(view) => {
                    let mut evaluations = Vec::with_capacity(case.evaluators.len());
                    for e in &case.evaluators {
                        let result =
                            evaluate_judged(&e.evaluator, &view, judge, &mut self.judge_usage)
                                .await;
                        evaluations.push(match result {
                            Ok((v, reasoning)) => Evaluation {
                                name: e.name.clone(),
                                kind: e.kind,
                                key: Some(v.key),
                                score: Some(v.score),
                                passed: v.passed,
                                comment: v.comment,
                                error: None,
                                reasoning: reasoning.filter(|_| self.with_trajectories),
                            },
                            Err(error) => Evaluation {
                                name: e.name.clone(),
                                kind: e.kind,
                                key: None,
                                score: None,
                                passed: false,
                                comment: None,
                                error: Some(error),
                                reasoning: None,
                            },
                        });
                    }
                    SessionReport {
                        session_id: session.key.id.clone(),
                        user_id: session.key.user_id.clone(),
                        passed: evaluations.iter().all(|e| e.passed),
                        error: None,
                        messages: view.messages.len(),
                        tools: view.tool_names().into_iter().map(String::from).collect(),
                        issues: session.issues.clone(),
                        evaluations,
                        trajectory: self.with_trajectories.then(|| view.messages.clone()),
                    }
                }
            };
            self.sessions[index].push(report);
        }
    }

    /// A session a case names could not be found.
    pub fn missing(&mut self, id: &str, source: &str) {
        for (index, case) in self.suite.cases.iter().enumerate() {
            if matches!(&case.selector, Selector::SessionId(wanted) if wanted == id) {
                self.notes[index].push(format!("session {id} not found in {source}"));
            }
        }
    }

    pub fn finish(self) -> Report {
        let mut summary = Summary {
            cases: self.suite.cases.len(),
            sessions: self.scored.len(),
            ..Summary::default()
        };
        let cases: Vec<CaseReport> = self
            .suite
            .cases
            .iter()
            .zip(self.sessions)
            .zip(self.notes)
            .map(|((case, mut sessions), notes)| {
                // Failing sessions first, so a bounded view shows what matters.
                sessions.sort_by_key(|s| s.passed);
                let errored = sessions
                    .iter()
                    .any(|s| s.evaluations.iter().any(|e| e.error.is_some()));
                let pass_rate = (!sessions.is_empty()).then(|| {
                    sessions.iter().filter(|s| s.passed).count() as f64 / sessions.len() as f64
                });
                let (outcome, passed) = match pass_rate {
                    _ if errored => (Outcome::Error, false),
                    None => (Outcome::NoSessions, case.allow_no_sessions),
                    Some(rate) if rate >= case.min_pass_rate => (Outcome::Passed, true),
                    Some(_) => (Outcome::Failed, false),
                };
                match outcome {
                    Outcome::Error => summary.errors += 1,
                    _ if passed => summary.passed += 1,
                    _ => summary.failed += 1,
                }
                if outcome == Outcome::NoSessions {
                    summary.no_sessions += 1;
                }
                CaseReport {
                    name: case.name.clone(),
                    passed,
                    outcome,
                    pass_rate,
                    min_pass_rate: case.min_pass_rate,
                    notes,
                    sessions,
                }
            })
            .collect();
        Report {
            suite: self.suite.name.clone(),
            passed: summary.passed == summary.cases,
            summary,
            judge: self.suite.uses_judge().then_some(self.judge_usage),
            cases,
        }
    }
}
