//! Scoring sessions against a compiled suite, one session at a time, into a
//! report. Sessions arrive in any order and are not kept; each case keeps
//! counts and the details of at most [`SESSION_DETAIL`] sessions, failing
//! ones first, so memory is bounded by the suite, not by the traffic.
//!
//! Fail closed: a session with an event that could not be read is not
//! scored as if complete (unless the suite opts in to scoring what was
//! read), and a session without events is reported, never passed. Either
//! makes its case an Error unless the case fails on what it did score.

use super::compile::{CompiledCase, CompiledSuite, Selector};
use super::evaluate::{Judgement, SessionView, evaluate, evaluate_judged};
use super::gate;
use super::report::{
    CaseReport, Evaluation, FORMAT_VERSION, FailedTask, Outcome, PooledScore, ProbeSummary,
    Reference, Report, SessionReport, SimulatedConversation, Summary,
};
use super::spec::{FailedTasks, PriceSpec, UnreadableEvents};
use crate::efficiency::{Efficiency, Price, Samples, measure};
use crate::judge::{Judge, JudgeUsage};
use crate::parallel::map_in_order;
use crate::score::Verdict;
use crate::session::Session;
use crate::task::Record;
use futures::StreamExt;
use std::collections::BTreeSet;

/// Sessions of a case whose details the report keeps, failing first.
pub const SESSION_DETAIL: usize = 100;

/// The reference calls of a case's trajectory evaluators.
fn references(case: &CompiledCase) -> Vec<Reference> {
    case.evaluators
        .iter()
        .filter_map(|e| {
            Some(Reference {
                evaluator: e.name.clone(),
                calls: e.evaluator.scorer().reference_calls()?,
            })
        })
        .collect()
}

/// One case's verdict on one session, before it is filed.
enum Scored {
    /// Not scored: it could not be read whole.
    Unreadable(SessionReport),
    /// Scored, with the invocation scores of ADK's judged metrics a probe
    /// pools over its runs.
    Scored(SessionReport, Vec<(String, Vec<Option<f64>>)>),
}

/// One case's sessions so far.
#[derive(Default)]
struct CaseTally {
    /// Kept details, at most [`SESSION_DETAIL`].
    details: Vec<SessionReport>,
    omitted: usize,
    total: usize,
    passed: usize,
    errors: usize,
    notes: Vec<String>,
    /// Every scored session's efficiency, for the case's statistics.
    samples: Samples,
    unmeasured_skipped: usize,
    /// ADK's judged metrics of a probe: every run's invocation scores.
    pooled: std::collections::BTreeMap<String, Vec<Option<f64>>>,
}

impl CaseTally {
    fn add(&mut self, report: SessionReport) {
        self.total += 1;
        if let Some(efficiency) = &report.efficiency {
            self.samples.add(efficiency);
        }
        self.unmeasured_skipped += report
            .evaluations
            .iter()
            .map(|e| e.unmeasured.len())
            .sum::<usize>();
        if report.passed {
            self.passed += 1;
        } else if report.is_error() {
            self.errors += 1;
        }
        if self.details.len() < SESSION_DETAIL {
            self.details.push(report);
            return;
        }
        self.omitted += 1;
        // A failing session displaces a passing one: what matters is kept.
        if !report.passed
            && let Some(slot) = self.details.iter().position(|s| s.passed)
        {
            self.details[slot] = report;
        }
    }
}

/// One session's views, each built once for every case that converts it
/// the same way (most suites' cases do), and what it used, measured once.
struct Views<'a> {
    session: &'a Session,
    built: Vec<(&'a CompiledCase, Result<SessionView<'a>, String>)>,
    efficiency: Option<Efficiency>,
}

impl<'a> Views<'a> {
    fn new(session: &'a Session) -> Self {
        Views {
            session,
            built: Vec::new(),
            efficiency: None,
        }
    }

    /// What the session used, priced at `prices`.
    fn efficiency(&mut self, prices: &[Price]) -> &mut Efficiency {
        let session = self.session;
        self.efficiency.get_or_insert_with(|| {
            let events: Vec<&crate::event::Event> = session.events.iter().collect();
            measure(&events, prices)
        })
    }

    /// The session as `case` sees it.
    fn of(&mut self, case: &'a CompiledCase) -> &Result<SessionView<'a>, String> {
        let same = |built: &CompiledCase| {
            built.invocation_id == case.invocation_id && built.convert == case.convert
        };
        let at = match self.built.iter().position(|(built, _)| same(built)) {
            Some(at) => at,
            None => {
                let view =
                    SessionView::new(self.session, case.invocation_id.as_deref(), &case.convert);
                self.built.push((case, view));
                self.built.len() - 1
            }
        };
        &self.built[at].1
    }
}

/// A run in progress.
pub struct ReportBuilder<'s> {
    suite: &'s CompiledSuite,
    with_trajectories: bool,
    cases: Vec<CaseTally>,
    scored: BTreeSet<(String, Option<String>)>,
    unreadable: BTreeSet<(String, Option<String>)>,
    /// Scored sessions whose last turn failed.
    failed_tasks: BTreeSet<(String, Option<String>)>,
    judge_usage: JudgeUsage,
    /// The sessions the run looked through, for cases that matched none.
    searched: Option<String>,
    source: Option<String>,
    probed_with: Option<String>,
    /// The distinct sessions' efficiency, for the run's statistics.
    samples: Samples,
}

impl<'s> ReportBuilder<'s> {
    pub fn new(suite: &'s CompiledSuite) -> Self {
        ReportBuilder {
            suite,
            with_trajectories: false,
            cases: suite.cases.iter().map(|_| CaseTally::default()).collect(),
            scored: Default::default(),
            unreadable: Default::default(),
            failed_tasks: Default::default(),
            judge_usage: JudgeUsage::default(),
            searched: None,
            source: None,
            probed_with: None,
            samples: Samples::default(),
        }
    }

    /// Keep each scored trajectory in the report.
    pub fn with_trajectories(mut self, keep: bool) -> Self {
        self.with_trajectories = keep;
        self
    }

    /// Which sessions the selection looked through (`sessions of Agent X
    /// updated in the last 24h in ...`), said of cases that matched none.
    pub fn searched(&mut self, description: String) {
        self.searched = Some(description);
    }

    /// Where the run's sessions were read, said once they were (a source
    /// may learn which kagent line it is only on its first read).
    pub fn read_from(&mut self, source: String) {
        self.source = Some(source);
    }

    /// The A2A version the run's probes spoke, and why.
    pub fn probed_with(&mut self, protocol: String) {
        self.probed_with = Some(protocol);
    }

    /// Score sessions with every case they belong to. `selected` says the
    /// sessions are among the run's selected sessions (cases without a
    /// `sessionId` score only those); sessions fetched by id are not.
    /// Judged evaluators ask `judge`, `judge.concurrency` sessions at a
    /// time; suites without them are scored on every core. Either way the report is the same, in
    /// the same order, as scoring the sessions one by one.
    pub async fn score(&mut self, sessions: &[Session], selected: bool, judge: &impl Judge) {
        if !self.suite.uses_judge() {
            let this = &*self;
            let scored = map_in_order(sessions.iter().collect(), |session| {
                this.score_offline(session, selected)
            });
            for (session, results) in sessions.iter().zip(scored) {
                for (index, outcome) in results {
                    self.record(index, session, outcome);
                }
            }
            return;
        }
        // Sessions are judged `judge_concurrency` at once, each making its
        // calls one after another, so no more calls than that are in
        // flight; the results are filed in the sessions' order.
        let this = &*self;
        let mut judging = Vec::with_capacity(sessions.len());
        for session in sessions {
            judging.push(this.score_judged(session, selected, judge));
        }
        let judged: Vec<(Vec<(usize, Scored)>, JudgeUsage)> = futures::stream::iter(judging)
            .buffered(self.suite.judge_concurrency())
            .collect()
            .await;
        for (session, (results, usage)) in sessions.iter().zip(judged) {
            self.judge_usage.merge(&usage);
            for (index, outcome) in results {
                self.record(index, session, outcome);
            }
        }
    }

    /// Score the sessions probe runs made, each with its case (`index`)
    /// and how long the prober's own clock saw it take; judged as
    /// [`Self::score`] judges, and filed in the order given.
    pub async fn score_probes(
        &mut self,
        probes: &[(usize, &Session, Option<f64>)],
        judge: &impl Judge,
    ) {
        let this = &*self;
        let mut judging = Vec::with_capacity(probes.len());
        for &(index, session, witnessed) in probes {
            judging.push(async move {
                let mut views = Views::new(session);
                views.efficiency(&this.suite.prices).probe_latency_seconds = witnessed;
                let mut usage = JudgeUsage::default();
                let scored = this.case_scored(index, &mut views, judge, &mut usage).await;
                (scored, usage)
            });
        }
        let judged: Vec<(Scored, JudgeUsage)> = futures::stream::iter(judging)
            .buffered(self.suite.judge_concurrency())
            .collect()
            .await;
        for (&(index, session, _), (scored, usage)) in probes.iter().zip(judged) {
            self.judge_usage.merge(&usage);
            self.record(index, session, scored);
        }
    }

    /// A scenario probe's conversation, beside the session of case `index`
    /// it made; kept only with the trajectories, since it is the
    /// conversation.
    pub fn simulated(
        &mut self,
        index: usize,
        session_id: &str,
        conversation: SimulatedConversation,
    ) {
        if !self.with_trajectories {
            return;
        }
        let sessions = &mut self.cases[index].details;
        if let Some(session) = sessions
            .iter_mut()
            .rev()
            .find(|s| s.session_id == session_id)
        {
            session.simulated = Some(conversation);
        }
    }

    /// Judge calls made beside the evaluators' (a simulated user's).
    pub fn add_judge_usage(&mut self, usage: &JudgeUsage) {
        self.judge_usage.merge(usage);
    }

    /// A probe run of case `index` that left no session to score: the
    /// Agent failed, timed out or asked for an approval the case does not
    /// give (`failed`: the run fails), or its session could not be read
    /// back (an error: nothing was seen).
    pub fn probe_not_scored(
        &mut self,
        index: usize,
        context: &str,
        user: &str,
        why: String,
        failed: bool,
    ) {
        let report = SessionReport {
            session_id: context.to_string(),
            user_id: Some(user.to_string()),
            record: Record::Events,
            revision: None,
            passed: false,
            error: Some(why),
            unreadable: !failed,
            failed_task: None,
            messages: 0,
            tools: Vec::new(),
            issues: Vec::new(),
            notes: Vec::new(),
            evaluations: Vec::new(),
            efficiency: None,
            trajectory: None,
            simulated: None,
        };
        self.cases[index].add(report);
    }

    /// Every case's verdict on one session, asking `judge` for the judged
    /// evaluators, and the judge calls that took.
    async fn score_judged(
        &self,
        session: &Session,
        selected: bool,
        judge: &impl Judge,
    ) -> (Vec<(usize, Scored)>, JudgeUsage) {
        let first_user = session.first_user_text();
        let mut views = Views::new(session);
        let mut usage = JudgeUsage::default();
        let mut results = Vec::new();
        for index in 0..self.suite.cases.len() {
            if self.applies(index, session, first_user, selected) {
                let scored = self.case_scored(index, &mut views, judge, &mut usage).await;
                results.push((index, scored));
            }
        }
        (results, usage)
    }

    /// Case `index`'s verdict on the session of `views`, its evaluators
    /// asking `judge` one after another.
    async fn case_scored<'a>(
        &self,
        index: usize,
        views: &mut Views<'a>,
        judge: &impl Judge,
        usage: &mut JudgeUsage,
    ) -> Scored
    where
        's: 'a,
    {
        match self.view(index, views) {
            Err(scored) => *scored,
            Ok((report, view)) => {
                let mut results = Vec::new();
                for e in &self.suite.cases[index].evaluators {
                    results.push(evaluate_judged(&e.evaluator, view, judge, usage).await);
                }
                self.complete(index, report, view, results)
            }
        }
    }

    /// Every case's verdict on one session, without a judge.
    fn score_offline(&self, session: &Session, selected: bool) -> Vec<(usize, Scored)> {
        let first_user = session.first_user_text();
        let mut views = Views::new(session);
        (0..self.suite.cases.len())
            .filter(|&index| self.applies(index, session, first_user, selected))
            .map(|index| {
                let scored = match self.view(index, &mut views) {
                    Err(scored) => *scored,
                    Ok((report, view)) => {
                        let results = self.suite.cases[index]
                            .evaluators
                            .iter()
                            .map(|e| {
                                evaluate(&e.evaluator, view).map(|v| (v, Judgement::default()))
                            })
                            .collect();
                        self.complete(index, report, view, results)
                    }
                };
                (index, scored)
            })
            .collect()
    }

    /// Whether case `index` scores `session`, whose first user message is
    /// `first_user`.
    fn applies(
        &self,
        index: usize,
        session: &Session,
        first_user: Option<&str>,
        selected: bool,
    ) -> bool {
        match &self.suite.cases[index].selector {
            Selector::SessionId(id) => *id == session.key.id,
            // A session whose first user message could not be read may be
            // the one the case is about: it is the case's, unreadable.
            Selector::FirstUserMessage(m) => {
                selected
                    && match first_user {
                        Some(text) => m.matches(text),
                        None => !session.issues.is_empty(),
                    }
            }
            Selector::All => selected,
            // Only the sessions its own runs made, given by the run.
            Selector::Probe(_) => false,
        }
    }

    /// The session's report so far and what the case sees of it; or, when
    /// it cannot be scored (no events, events that could not be read, or no
    /// view for the case), its report saying why.
    fn view<'v, 'a>(
        &self,
        index: usize,
        views: &'v mut Views<'a>,
    ) -> Result<(SessionReport, &'v SessionView<'a>), Box<Scored>>
    where
        's: 'a,
    {
        let suite: &'s CompiledSuite = self.suite;
        let session = views.session;
        let mut report = SessionReport {
            session_id: session.key.id.clone(),
            user_id: session.key.user_id.clone(),
            record: session.record,
            revision: session.revision.clone(),
            passed: false,
            error: None,
            unreadable: false,
            failed_task: None,
            messages: 0,
            tools: Vec::new(),
            issues: session.issues.clone(),
            notes: session.notes.clone(),
            evaluations: Vec::new(),
            efficiency: None,
            trajectory: None,
            simulated: None,
        };
        let incomplete = match (session.events.is_empty(), session.issues.len()) {
            (true, 0) => Some("the session has no events: nothing to score".to_string()),
            (true, n) => Some(format!(
                "none of the session's events could be read ({n} problem(s))"
            )),
            (false, 0) => None,
            (false, _) if self.suite.unreadable_events == UnreadableEvents::Skip => None,
            (false, n) => Some(format!(
                "{n} event(s) or field(s) could not be read, so the session was not scored (set unreadableEvents: skip to score what was read)"
            )),
        };
        if let Some(why) = incomplete {
            report.unreadable = true;
            report.error = Some(why);
            return Err(Box::new(Scored::Unreadable(report)));
        }
        report.efficiency = Some(views.efficiency(&suite.prices).clone());
        report.failed_task = session.final_failure().map(|failure| FailedTask {
            error: failure.to_string(),
            fails_case: suite.failed_tasks == FailedTasks::Fail,
        });
        match views.of(&suite.cases[index]) {
            Ok(view) => Ok((report, view)),
            Err(error) => {
                report.error = Some(error.clone());
                Err(Box::new(Scored::Scored(report, Vec::new())))
            }
        }
    }

    /// The report with the evaluators' results on the session's view.
    fn complete(
        &self,
        index: usize,
        mut report: SessionReport,
        view: &SessionView<'_>,
        results: Vec<Result<(Verdict, Judgement), String>>,
    ) -> Scored {
        let case = &self.suite.cases[index];
        for (e, result) in case.evaluators.iter().zip(results) {
            report.evaluations.push(match result {
                Ok((v, judgement)) => Evaluation {
                    name: e.name.clone(),
                    kind: e.kind,
                    key: Some(v.key),
                    score: Some(v.score),
                    passed: v.passed,
                    comment: v.comment,
                    error: None,
                    reasoning: judgement
                        .reasoning
                        .filter(|_| self.with_trajectories)
                        .map(|r| crate::redact::redact_text(&r).0),
                    invocation_scores: judgement.invocation_scores,
                    panel: judgement
                        .panel
                        .into_iter()
                        .map(|mut member| {
                            member.reasoning = member
                                .reasoning
                                .filter(|_| self.with_trajectories)
                                .map(|r| crate::redact::redact_text(&r).0);
                            member
                        })
                        .collect(),
                    unmeasured: v.skipped,
                    informational: v.informational,
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
                    invocation_scores: Vec::new(),
                    panel: Vec::new(),
                    unmeasured: Vec::new(),
                    informational: false,
                },
            });
        }
        // A probe's runs are scored together by ADK's metrics (see
        // `finish`): a run alone does not decide them.
        let probing = matches!(case.selector, Selector::Probe(_));
        let pooled = |e: &Evaluation| {
            probing
                && case
                    .evaluators
                    .iter()
                    .any(|c| c.name == e.name && c.evaluator.scorer().adk_judge().is_some())
        };
        let pooled_scores: Vec<(String, Vec<Option<f64>>)> = report
            .evaluations
            .iter()
            .filter(|e| pooled(e))
            .map(|e| (e.name.clone(), e.invocation_scores.clone()))
            .collect();
        report.passed = report.failing_task().is_none()
            && report
                .evaluations
                .iter()
                .filter(|e| !(pooled(e) && e.error.is_none()))
                .all(|e| e.passed);
        report.messages = view.messages.len();
        report.tools = view.tool_names().into_iter().map(String::from).collect();
        report.trajectory = self
            .with_trajectories
            .then(|| crate::redact::redact_messages(&view.messages));
        Scored::Scored(report, pooled_scores)
    }

    /// File one case's verdict on one session.
    fn record(&mut self, index: usize, session: &Session, scored: Scored) {
        let key = (session.key.id.clone(), session.key.user_id.clone());
        let first = self.scored.insert(key.clone());
        if let (true, Scored::Scored(report, _)) = (first, &scored)
            && let Some(efficiency) = &report.efficiency
        {
            self.samples.add(efficiency);
        }
        let report = match scored {
            Scored::Unreadable(report) => {
                self.unreadable.insert(key);
                report
            }
            Scored::Scored(report, pooled) => {
                if report.failed_task.is_some() {
                    self.failed_tasks.insert(key);
                }
                for (name, scores) in pooled {
                    self.cases[index]
                        .pooled
                        .entry(name)
                        .or_default()
                        .extend(scores);
                }
                report
            }
        };
        self.cases[index].add(report);
    }

    /// A session a case names could not be found.
    pub fn missing(&mut self, id: &str, source: &str) {
        for (index, case) in self.suite.cases.iter().enumerate() {
            if matches!(&case.selector, Selector::SessionId(wanted) if wanted == id) {
                self.cases[index]
                    .notes
                    .push(format!("session {id} not found in {source}"));
            }
        }
    }

    pub fn finish(self) -> Report {
        let mut summary = Summary {
            cases: self.suite.cases.len(),
            sessions: self.scored.len(),
            unreadable_sessions: self.unreadable.len(),
            failed_tasks: self.failed_tasks.len(),
            failed_tasks_scored: match self.suite.failed_tasks {
                FailedTasks::Fail => 0,
                FailedTasks::Score => self.failed_tasks.len(),
            },
            ..Summary::default()
        };
        let searched = self.searched;
        let cases: Vec<CaseReport> = self
            .suite
            .cases
            .iter()
            .zip(self.cases)
            .map(|(case, mut tally)| {
                // Failing sessions first, so a bounded view shows what matters.
                tally.details.sort_by_key(|s| s.passed);
                let total = tally.total;
                let pass_rate = (total > 0).then(|| tally.passed as f64 / total as f64);
                // Were every session that could not be done a pass, would
                // the case still fail? Then it fails, whatever went wrong.
                let best = (total > 0).then(|| (tally.passed + tally.errors) as f64 / total as f64);
                let pooled: Vec<PooledScore> = case
                    .evaluators
                    .iter()
                    .filter_map(|e| match e.evaluator.scorer().adk_judge() {
                        Some(j) => {
                            let scores = tally.pooled.get(&e.name)?;
                            let score = crate::judge::adk::mean_of_scored(scores.iter().copied());
                            Some(PooledScore {
                                evaluator: e.name.clone(),
                                score,
                                threshold: j.threshold,
                                passed: score.is_some_and(|s| s >= j.threshold),
                            })
                        }
                        None => None,
                    })
                    .collect();
                let (outcome, passed) = match (pass_rate, best) {
                    (Some(_), Some(best)) if best < case.min_pass_rate => (Outcome::Failed, false),
                    _ if tally.errors > 0 => (Outcome::Error, false),
                    (None, _) => (Outcome::NoSessions, case.allow_no_sessions),
                    _ if pooled.iter().any(|p| p.score.is_some() && !p.passed) => {
                        (Outcome::Failed, false)
                    }
                    // ADK: not evaluated, which its gate counts as failing.
                    _ if pooled.iter().any(|p| p.score.is_none()) => (Outcome::Error, false),
                    (Some(rate), _) if rate >= case.min_pass_rate => (Outcome::Passed, true),
                    (Some(_), _) => (Outcome::Failed, false),
                };
                match outcome {
                    Outcome::Error => summary.errors += 1,
                    _ if passed => summary.passed += 1,
                    _ => summary.failed += 1,
                }
                let mut notes = tally.notes;
                if outcome == Outcome::NoSessions {
                    summary.no_sessions += 1;
                    if notes.is_empty()
                        && let Some(searched) = &searched
                    {
                        notes.push(format!("no session matched among {searched}"));
                    }
                }
                let probe = matches!(case.selector, Selector::Probe(_)).then(|| ProbeSummary {
                    runs: total,
                    passed: tally.passed,
                    pass_at_k: tally.passed > 0,
                    pass_all_k: total > 0 && tally.passed == total,
                });
                if let Some(p) = &probe {
                    summary.probe_runs += p.runs;
                    summary.probe_runs_passed += p.passed;
                }
                summary.unmeasured_skipped += tally.unmeasured_skipped;
                CaseReport {
                    probe,
                    pooled,
                    references: references(case),
                    name: case.name.clone(),
                    passed,
                    outcome,
                    pass_rate,
                    min_pass_rate: case.min_pass_rate,
                    session_count: total,
                    failed_sessions: total - tally.passed,
                    notes,
                    sessions: tally.details,
                    sessions_omitted: tally.omitted,
                    efficiency: tally.samples.stats(),
                    blocking: case.blocking,
                    tags: case.tags.clone(),
                }
            })
            .collect();
        let gate = gate::judge(&cases, &self.suite.run_gate);
        let mut report = Report {
            format_version: FORMAT_VERSION,
            suite: self.suite.name.clone(),
            passed: false,
            summary,
            efficiency: self.samples.stats(),
            gate,
            baseline: None,
            source: self.source,
            probed_with: self.probed_with,
            judge: self.suite.uses_judge().then(|| {
                let mut usage = self.judge_usage;
                let prices: Vec<Price> = (self.suite.judge.iter())
                    .flat_map(|j| j.prices.iter().map(PriceSpec::price))
                    .collect();
                usage.price(&prices);
                usage
            }),
            judge_calibration: (self.suite.judge.as_ref())
                .filter(|_| self.suite.uses_judge())
                .and_then(|j| j.calibration.clone()),
            selection: self.suite.selection.clone(),
            cases,
        };
        report.settle();
        report
    }
}
