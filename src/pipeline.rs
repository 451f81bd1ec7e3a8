//! Running a compiled suite: open what a resolution names (the source, the
//! judge, the Agent's A2A endpoint), then list the selected sessions, fetch
//! them in batches and score each as it arrives. At most four batches are
//! in memory at a time: two being fetched, one waiting, one being scored.
//! The command line and the run reconciler both go this one way.

use crate::a2a::{A2aClient, AgentUnavailable, ProbeEnd, ProbeError, ProbeRun};
use crate::core::ingest::Issue;
use crate::core::judge::budget::Budgeted;
use crate::core::judge::{Judge, JudgeError, JudgeUsage};
use crate::core::parallel::map_in_order_beside;
use crate::core::session::{Session, SessionKey};
use crate::core::suite::compile::{CompiledSuite, Probe, Selector, Turns};
use crate::core::suite::report::{Report, SimulatedConversation};
use crate::core::suite::scoring::ReportBuilder;
use crate::core::suite::spec::{A2aProtocol, ProbeReadFrom};
use crate::core::task::Record;
use crate::http_client::Retry;
use crate::openai_judge::OpenAiJudge;
use crate::resolve::Resolution;
use crate::source::open::open_source;
use crate::source::{AnySource, RawSession, SessionQuery, SessionSource, SourceError};
use futures::{SinkExt, StreamExt, TryStreamExt};
use jiff::Timestamp;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

/// What one suite run reads, asks and probes, opened from its resolution.
pub struct Opened {
    pub source: AnySource,
    pub judge: Option<OpenAiJudge>,
    pub agent: Option<A2aClient>,
}

/// What could not be opened: each maps to the part of the run that is down.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error(transparent)]
    Judge(#[from] JudgeError),
    #[error("{0}")]
    Agent(String),
}

/// Open the source, the judge and the A2A client a resolution names;
/// nothing is merged or defaulted here.
pub fn open(resolution: &Resolution) -> Result<Opened, OpenError> {
    let judge = resolution
        .judge
        .as_ref()
        .map(|settings| OpenAiJudge::new(settings, Retry::default()))
        .transpose()?;
    let agent = resolution
        .agent_endpoint
        .as_ref()
        .map(|endpoint| {
            A2aClient::new(
                &endpoint.url,
                endpoint.protocol.clone(),
                resolution.read_limits,
            )
        })
        .transpose()
        .map_err(OpenError::Agent)?;
    Ok(Opened {
        source: open_source(&resolution.source.settings, resolution.read_limits)?,
        judge,
        agent,
    })
}

/// Sessions fetched per round trip.
pub const BATCH: usize = 100;

/// Sessions a run reads when its suite sets no `sessions.limit`: a busy
/// agent's history is not read whole by accident.
pub const DEFAULT_SESSION_LIMIT: usize = 1000;

/// The query for a suite's selected sessions at `now`.
pub fn query(suite: &CompiledSuite, now: Timestamp) -> SessionQuery {
    SessionQuery {
        agent: suite.agent.clone(),
        since: suite.since.and_then(|d| now.checked_sub(d).ok()),
        limit: Some(suite.limit.unwrap_or(DEFAULT_SESSION_LIMIT)),
        include_sub_agent_sessions: suite.include_sub_agent_sessions,
        include_forked_sessions: suite.include_forked_sessions,
        count_events: false,
    }
}

/// The sessions a query asks for, in words: `sessions of Agent team/weather
/// updated since 2026-12-02T10:00:00Z (at most 100) in kagent PostgreSQL at ...`.
pub fn describe(query: &SessionQuery, source: &str) -> String {
    let mut text = match &query.agent {
        Some(agent) => format!("the sessions of Agent {agent}"),
        None => "all sessions".to_string(),
    };
    if let Some(since) = query.since {
        text.push_str(&format!(
            " updated since {}",
            since.round(jiff::Unit::Second).unwrap_or(since)
        ));
    }
    if let Some(limit) = query.limit {
        text.push_str(&format!(" (at most {limit})"));
    }
    if query.include_sub_agent_sessions {
        text.push_str(", sub-agent sessions included,");
    }
    if query.include_forked_sessions {
        text.push_str(", forked sessions included,");
    }
    text.push_str(&format!(" in {source}"));
    text
}

/// Why a run could not be done.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error(transparent)]
    Judge(#[from] JudgeError),
    #[error(transparent)]
    Agent(#[from] AgentUnavailable),
    /// Probe cases that cannot be run as the suite asks: no A2A endpoint
    /// to send them to, or an Agent whose tasks cannot be read as asked.
    #[error("{0}")]
    CannotProbe(String),
}

impl From<ProbeError> for RunError {
    fn from(error: ProbeError) -> Self {
        match error {
            ProbeError::Agent(e) => RunError::Agent(e),
            ProbeError::Simulator(e) => RunError::Judge(e),
        }
    }
}

/// How long a probe's session may take to appear in the source after the
/// Agent answered (runtimes store events as they go, the last ones as the
/// turn ends).
const SESSION_SETTLE: Duration = Duration::from_secs(10);

/// What one probe run left: its session, or why there is none to score.
enum ProbeAttempt {
    /// The session, and how long the run took by the prober's own clock
    /// (none for a session read back, not sent).
    Session(Box<Session>, Option<f64>),
    NotScored {
        why: String,
        failed: bool,
    },
}

/// How a run names its probe attempts, and so every message it sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProbeIds {
    /// Fresh ids: a run from the command line is a new run each time.
    Fresh,
    /// Ids derived from the run (an EvalRun's UID), the same for every
    /// replica that executes it, so that a run taken over sends nothing
    /// new: `resumed` when an earlier execution may have sent them.
    Derived { run: String, resumed: bool },
}

impl ProbeIds {
    /// The id of run `k` of the probe of case `case`.
    fn attempt(&self, case: &str, k: u32) -> String {
        match self {
            ProbeIds::Fresh => uuid::Uuid::new_v4().to_string(),
            ProbeIds::Derived { run, .. } => {
                let digest = Sha256::digest(format!("kagent-evals/{run}/{case}/{k}"));
                let mut bytes = [0; 16];
                bytes.copy_from_slice(&digest[..16]);
                uuid::Builder::from_sha1_bytes(bytes)
                    .into_uuid()
                    .to_string()
            }
        }
    }

    fn resumed(&self) -> bool {
        matches!(self, ProbeIds::Derived { resumed: true, .. })
    }
}

/// Score `suite` on the sessions `source` holds, asking `judge` for judged
/// evaluators and probing `agent` with attempts named by `ids`;
/// `with_trajectories` keeps each scored conversation (and the judges'
/// reasoning) in the report.
pub async fn run_suite(
    suite: &CompiledSuite,
    source: &impl SessionSource,
    judge: &impl Judge,
    agent: Option<&A2aClient>,
    ids: &ProbeIds,
    now: Timestamp,
    with_trajectories: bool,
) -> Result<Report, RunError> {
    // A dead endpoint should stop the run before any session is read, not
    // turn every judged case into an error one by one.
    if suite.uses_judge() {
        judge.check().await?;
    }
    let judge = &Budgeted::new(judge, suite.judge.as_ref());
    let mut run = ReportBuilder::new(suite).with_trajectories(with_trajectories);
    run_probes(suite, source, judge, agent, ids, &mut run).await?;
    let needs_selection = suite
        .cases
        .iter()
        .any(|c| matches!(c.selector, Selector::FirstUserMessage(_) | Selector::All));
    let mut seen_ids = BTreeSet::new();
    if needs_selection {
        let query = query(suite, now);
        run.searched(describe(&query, &source.describe()));
        let listed: Vec<SessionKey> = source
            .list(&query)
            .await?
            .into_iter()
            .map(|s| s.key)
            .collect();
        fetch_and_score(
            &listed,
            true,
            suite,
            source,
            judge,
            &mut run,
            |_, fetched, _| {
                seen_ids.extend(fetched.iter().map(|raw| raw.key.id.clone()));
            },
        )
        .await?;
    }
    let named: BTreeSet<&str> = suite
        .cases
        .iter()
        .filter_map(|c| match &c.selector {
            Selector::SessionId(id) => Some(id.as_str()),
            _ => None,
        })
        .filter(|id| !seen_ids.contains(*id))
        .collect();
    let keys: Vec<SessionKey> = named.iter().map(|id| SessionKey::new(*id, None)).collect();
    let source_name = source.describe();
    fetch_and_score(
        &keys,
        false,
        suite,
        source,
        judge,
        &mut run,
        |batch, found, run| {
            for key in batch {
                if !found.iter().any(|raw| raw.key.id == key.id) {
                    run.missing(&key.id, &source_name);
                }
            }
        },
    )
    .await?;
    run.read_from(source.describe());
    Ok(run.finish())
}

/// Batches fetched at once: one arriving while another is read.
const FETCHES_IN_FLIGHT: usize = 2;

/// Fetch the sessions of `keys` in batches and score them (`selected`: by
/// the suite's selection, not by id), the next batches fetched while the
/// current one is normalised and scored. `fetched` sees each batch, in
/// order, before it is scored.
async fn fetch_and_score(
    keys: &[SessionKey],
    selected: bool,
    suite: &CompiledSuite,
    source: &impl SessionSource,
    judge: &impl Judge,
    run: &mut ReportBuilder<'_>,
    mut fetched: impl FnMut(&[SessionKey], &[RawSession], &mut ReportBuilder<'_>),
) -> Result<(), RunError> {
    // One batch waits between the fetches and the scoring (the channel
    // holds its buffer, none, plus one for its one sender); a failed fetch
    // closes the channel, and the run ends with its error.
    let (mut ready, mut arrived) = futures::channel::mpsc::channel(0);
    let fetching = async move {
        let mut batches = keys.chunks(BATCH);
        let mut in_flight = futures::stream::FuturesOrdered::new();
        loop {
            while in_flight.len() < FETCHES_IN_FLIGHT
                && let Some(batch) = batches.next()
            {
                in_flight.push_back(fetch_batch(batch, suite, source));
            }
            let Some((batch, sessions)) = in_flight.next().await else {
                break;
            };
            if ready.send((batch, sessions?)).await.is_err() {
                break;
            }
        }
        Ok::<(), SourceError>(())
    };
    let scoring = async {
        while let Some((batch, sessions)) = arrived.next().await {
            fetched(batch, &sessions, run);
            let sessions = map_in_order_beside(sessions, RawSession::normalise).await;
            run.score(&sessions, selected, judge).await;
        }
    };
    let (fetching, ()) = futures::join!(fetching, scoring);
    Ok(fetching?)
}

/// One batch of sessions, beside the keys it was asked for.
async fn fetch_batch<'k>(
    batch: &'k [SessionKey],
    suite: &CompiledSuite,
    source: &impl SessionSource,
) -> (&'k [SessionKey], Result<Vec<RawSession>, SourceError>) {
    (
        batch,
        source
            .fetch(batch, suite.agent.as_ref(), suite.record)
            .await,
    )
}

/// Send every probe case's task to the Agent, `runs` times each, at most
/// `concurrency` at once; then score each run's session with its case.
async fn run_probes(
    suite: &CompiledSuite,
    source: &impl SessionSource,
    judge: &impl Judge,
    agent: Option<&A2aClient>,
    ids: &ProbeIds,
    run: &mut ReportBuilder<'_>,
) -> Result<(), RunError> {
    let planned: Vec<(usize, &Probe, String)> = suite
        .probe_cases()
        .flat_map(|(index, case, probe)| {
            (0..probe.runs).map(move |k| (index, probe, ids.attempt(&case.name, k)))
        })
        .collect();
    if planned.is_empty() {
        return Ok(());
    }
    let Some(agent) = agent else {
        let (_, case, _) = suite.probe_cases().next().expect("planned above");
        return Err(RunError::CannotProbe(format!(
            "case {} probes the Agent, and no A2A endpoint is known (pass --a2a-url)",
            case.name
        )));
    };
    let negotiated = agent.protocol().await?;
    if suite.probes_read_from() == ProbeReadFrom::Agent && negotiated.protocol != A2aProtocol::V1_0
    {
        return Err(RunError::CannotProbe(format!(
            "probes.readFrom: agent reads each conversation from the Agent's A2A 1.0 tasks, and the Agent is spoken to in {}: read its sessions from a source instead (probes.readFrom: source)",
            negotiated.describe()
        )));
    }
    run.probed_with(negotiated.describe());
    let concurrency = suite.probes.map_or(1, |l| l.concurrency as usize);
    // Collected first, so the stream holds futures and not a closure, which
    // the compiler cannot prove `Send` for every lifetime in the controller.
    let mut runs = Vec::with_capacity(planned.len());
    let resumed = ids.resumed();
    for (index, probe, attempt) in planned {
        runs.push(probe_attempt(
            suite, source, agent, judge, index, probe, attempt, resumed,
        ));
    }
    let results: Vec<Attempted> = futures::stream::iter(runs)
        .buffered(concurrency)
        .try_collect()
        .await?;
    let mut sessions = Vec::new();
    for attempted in &results {
        run.add_judge_usage(&attempted.simulator_usage);
        match &attempted.outcome {
            ProbeAttempt::Session(session, witnessed) => {
                sessions.push((attempted.index, session.as_ref(), *witnessed))
            }
            ProbeAttempt::NotScored { why, failed } => run.probe_not_scored(
                attempted.index,
                &attempted.context,
                &attempted.user,
                why.clone(),
                *failed,
            ),
        }
    }
    run.score_probes(&sessions, judge).await;
    for attempted in results {
        if let Some(conversation) = attempted.simulated {
            let id = match &attempted.outcome {
                ProbeAttempt::Session(session, _) => session.key.id.clone(),
                ProbeAttempt::NotScored { .. } => attempted.context.clone(),
            };
            run.simulated(attempted.index, &id, conversation);
        }
    }
    Ok(())
}

/// One probe run of case `index`: its conversation id and user, what it
/// left, and, for a simulated user, what was said and what it cost.
struct Attempted {
    index: usize,
    context: String,
    user: String,
    outcome: ProbeAttempt,
    simulated: Option<SimulatedConversation>,
    simulator_usage: JudgeUsage,
}

/// One run of a probe in a fresh conversation, named `attempt`, and what
/// it left. A run taken over (`resumed`) sends an A2A 0.3 attempt again
/// only when its conversation is not in the source: one that is was sent
/// by the run's earlier execution and is read back, as sending it again
/// would make an acting agent act twice. (A 1.0 attempt is sent again
/// with the same message id, which kagent answers with the same Session.)
#[allow(clippy::too_many_arguments)]
async fn probe_attempt(
    suite: &CompiledSuite,
    source: &impl SessionSource,
    agent: &A2aClient,
    simulator: &impl Judge,
    index: usize,
    probe: &Probe,
    attempt: String,
    resumed: bool,
) -> Result<Attempted, RunError> {
    let protocol = agent.protocol().await?.protocol;
    let read_from = suite.probes_read_from();
    if resumed && read_from == ProbeReadFrom::Agent {
        return Ok(Attempted {
            index,
            context: attempt,
            user: probe.user_id.clone(),
            outcome: ProbeAttempt::NotScored {
                why: "not sent again after the run was taken over: its earlier execution may have sent it, and an Agent that is not kagent is not known to recognise a message sent again".into(),
                failed: false,
            },
            simulated: None,
            simulator_usage: JudgeUsage::default(),
        });
    }
    if resumed
        && protocol == A2aProtocol::V0_3
        && let Some(mut session) = sent_before(suite, source, &attempt, &probe.user_id).await?
    {
        session.notes.push(Issue::new(
            "(probe)",
            "read back after the run was taken over: its earlier execution had sent it, so it was not sent again",
        ));
        return Ok(Attempted {
            index,
            context: attempt,
            user: probe.user_id.clone(),
            outcome: ProbeAttempt::Session(session, None),
            simulated: None,
            simulator_usage: JudgeUsage::default(),
        });
    }
    // The witness: from the first message sent to the last answer settled.
    let started = tokio::time::Instant::now();
    let mut ran = agent.run(probe, &attempt, simulator).await?;
    let witnessed = started.elapsed().as_secs_f64();
    let outcome = match (std::mem::take(&mut ran.end), &ran.context) {
        (ProbeEnd::Failed(why), _) => ProbeAttempt::NotScored { why, failed: true },
        (ProbeEnd::Refused(why), _) => ProbeAttempt::NotScored { why, failed: false },
        (ProbeEnd::Completed, None) => ProbeAttempt::NotScored {
            why: "the Agent's answers named no conversation, so its session cannot be read back"
                .into(),
            failed: false,
        },
        (ProbeEnd::Completed, Some(context)) => {
            let read = match read_from {
                ProbeReadFrom::Source => {
                    probe_session(suite, source, context, &probe.user_id).await?
                }
                ProbeReadFrom::Agent => agent_session(agent, &ran, context, &probe.user_id).await?,
            };
            match read {
                Ok(session) => ProbeAttempt::Session(session, Some(witnessed)),
                Err(why) => ProbeAttempt::NotScored { why, failed: false },
            }
        }
    };
    // A run the Agent named no conversation for is reported by its attempt.
    let context = ran.context.unwrap_or(attempt);
    let simulated = matches!(probe.turns, Turns::Scenario(_)).then(|| SimulatedConversation {
        turns: ran.transcript,
        ended: ran.ended,
    });
    Ok(Attempted {
        index,
        context,
        user: probe.user_id.clone(),
        outcome,
        simulated,
        simulator_usage: ran.usage,
    })
}

/// The session an earlier execution of the run made for attempt
/// `context`, if the source holds it.
async fn sent_before(
    suite: &CompiledSuite,
    source: &impl SessionSource,
    context: &str,
    user: &str,
) -> Result<Option<Box<Session>>, RunError> {
    let key = SessionKey::new(context, Some(user.to_string()));
    let found = source
        .fetch(&[key], suite.agent.as_ref(), suite.record)
        .await?;
    Ok(found
        .into_iter()
        .next()
        .map(|raw| Box::new(raw.normalise())))
}

/// The conversation a probe run held, as the Agent keeps its tasks; or
/// why there is none to score (never an empty one).
async fn agent_session(
    agent: &A2aClient,
    ran: &ProbeRun,
    context: &str,
    user: &str,
) -> Result<Result<Box<Session>, String>, RunError> {
    if let Some(turn) = ran.untasked_turns.first() {
        return Ok(Err(format!(
            "the Agent answered turn {turn} with no task to read back (a message, or a task without an id), so the conversation cannot be read from it"
        )));
    }
    if ran.tasks.is_empty() {
        return Ok(Err("the Agent's answers named no task to read back".into()));
    }
    let tasks = match agent.read_tasks(user, &ran.tasks, context).await? {
        Ok(tasks) => tasks,
        Err(why) => return Ok(Err(why)),
    };
    let source: Arc<str> = format!("the Agent's tasks at {}", agent.url()).into();
    let key = SessionKey::new(context, Some(user.to_string()));
    let tasks = ran.tasks.iter().cloned().zip(tasks).collect();
    let raw = RawSession::from_agent_tasks(key, tasks, &source);
    Ok(Ok(Box::new(raw.normalise())))
}

/// The session a probe run made, read back by its context id: the probe
/// user's, else any user's with that id (the id is fresh, and a runtime
/// that does not honour `X-User-Id` records a user of its own); or why
/// there is none.
async fn probe_session(
    suite: &CompiledSuite,
    source: &impl SessionSource,
    context: &str,
    user: &str,
) -> Result<Result<Box<Session>, String>, RunError> {
    let keys = [
        SessionKey::new(context, Some(user.to_string())),
        SessionKey::new(context, None),
    ];
    let started = tokio::time::Instant::now();
    loop {
        let mut found = Vec::new();
        for key in &keys {
            found = source
                .fetch(
                    std::slice::from_ref(key),
                    suite.agent.as_ref(),
                    suite.record,
                )
                .await?;
            if !found.is_empty() {
                break;
            }
        }
        let complete = found
            .first()
            .is_some_and(|s| s.record == Record::Tasks || !s.raw.events.is_empty());
        if complete || started.elapsed() >= SESSION_SETTLE {
            return Ok(match found.into_iter().next() {
                Some(raw) => Ok(Box::new(raw.normalise())),
                None => Err(format!(
                    "the Agent answered, and its session {context} was not found in {}",
                    source.describe()
                )),
            });
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::formats::load::load_compiled;
    use crate::core::ingest::{KeepJson, read_jsonl};
    use crate::core::judge::NoJudge;
    use crate::core::session::AgentRef;
    use crate::core::task::RecordChoice;
    use crate::source::SessionSummary;

    /// `count` sessions that each asked for the weather and got it from the
    /// tool. The first batch arrives last; the batch holding `failing`
    /// cannot be fetched.
    struct Memory {
        count: usize,
        failing: Option<usize>,
    }

    const EVENTS: &str = concat!(
        r#"{"id":"e1","invocation_id":"i","author":"user","content":{"role":"user","parts":[{"text":"weather?"}]}}"#,
        "\n",
        r#"{"id":"e2","invocation_id":"i","author":"a","content":{"role":"model","parts":[{"function_call":{"id":"c","name":"get_weather","args":{}}}]}}"#,
        "\n",
    );

    fn id(n: usize) -> String {
        format!("s{n:04}")
    }

    impl SessionSource for Memory {
        fn describe(&self) -> String {
            "memory".into()
        }

        async fn list(&self, _: &SessionQuery) -> Result<Vec<SessionSummary>, SourceError> {
            Ok((0..self.count)
                .map(|n| SessionSummary {
                    key: SessionKey::new(id(n), Some("u".into())),
                    revision: None,
                    agent_id: None,
                    events: None,
                    updated: None,
                })
                .collect())
        }

        async fn fetch(
            &self,
            keys: &[SessionKey],
            _: Option<&AgentRef>,
            _: RecordChoice,
        ) -> Result<Vec<RawSession>, SourceError> {
            if keys[0].id == id(0) {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            if let Some(failing) = self.failing
                && keys.iter().any(|k| k.id == id(failing))
            {
                return Err(SourceError::Config("the batch cannot be read".into()));
            }
            Ok(keys
                .iter()
                .map(|key| RawSession {
                    key: key.clone(),
                    revision: None,
                    rows: None,
                    agent_id: None,
                    raw: read_jsonl(EVENTS.as_bytes(), "memory", KeepJson::No).unwrap(),
                    record: Record::Events,
                })
                .collect())
        }
    }

    fn suite() -> CompiledSuite {
        let text = "
apiVersion: evals.kagent.dev/v1alpha1
kind: EvalSuite
metadata: {name: weather}
spec:
  sessions: {limit: 1000}
  cases:
    - name: calls-the-tool
      evaluators:
        - name: tool
          type: toolsUsed
          toolsUsed: {mode: superset, expected: [get_weather]}
";
        load_compiled("suite.yaml", text, None).unwrap().remove(0).1
    }

    async fn run(source: &Memory) -> Result<Report, RunError> {
        run_suite(
            &suite(),
            source,
            &NoJudge::None,
            None,
            &ProbeIds::Fresh,
            Timestamp::now(),
            false,
        )
        .await
    }

    #[tokio::test]
    async fn batches_fetched_together_are_scored_in_listing_order() {
        let report = run(&Memory {
            count: 250,
            failing: None,
        })
        .await
        .unwrap();
        let case = &report.cases[0];
        assert_eq!(case.session_count, 250);
        let detailed: Vec<&str> = case
            .sessions
            .iter()
            .map(|s| s.session_id.as_str())
            .collect();
        let first_batch: Vec<String> = (0..100).map(id).collect();
        assert_eq!(detailed, first_batch);
    }

    #[tokio::test]
    async fn a_batch_that_cannot_be_fetched_fails_the_run() {
        for failing in [0, 120, 249] {
            let outcome = run(&Memory {
                count: 250,
                failing: Some(failing),
            })
            .await;
            assert!(
                matches!(outcome, Err(RunError::Source(SourceError::Config(_)))),
                "batch of {failing}: {outcome:?}"
            );
        }
    }
}
