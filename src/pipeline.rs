//! Running a compiled suite against a session source: list the selected
//! sessions, fetch them in batches, score each as it arrives. Only one
//! batch of sessions is in memory at a time.

use crate::core::judge::{Judge, JudgeError};
use crate::core::session::SessionKey;
use crate::core::suite::compile::{CompiledSuite, Selector};
use crate::core::suite::report::{Report, ReportBuilder};
use crate::source::{SessionQuery, SessionSource, SourceError};
use jiff::Timestamp;
use std::collections::BTreeSet;

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
}

/// Score `suite` on the sessions `source` holds, asking `judge` for judged
/// evaluators; `with_trajectories` keeps each scored conversation (and the
/// judges' reasoning) in the report.
pub async fn run_suite(
    suite: &CompiledSuite,
    source: &impl SessionSource,
    judge: &impl Judge,
    now: Timestamp,
    with_trajectories: bool,
) -> Result<Report, RunError> {
    // A dead endpoint should stop the run before any session is read, not
    // turn every judged case into an error one by one.
    if suite.uses_judge() {
        judge.check().await?;
    }
    let mut run = ReportBuilder::new(suite).with_trajectories(with_trajectories);
    let needs_selection = suite
        .cases
        .iter()
        .any(|c| !matches!(c.selector, Selector::SessionId(_)));
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
        for batch in listed.chunks(BATCH) {
            for raw in source
                .fetch(batch, suite.agent.as_ref(), suite.record)
                .await?
            {
                seen_ids.insert(raw.key.id.clone());
                run.score(&raw.normalise(), true, judge).await;
            }
        }
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
    for batch in keys.chunks(BATCH) {
        let found = source
            .fetch(batch, suite.agent.as_ref(), suite.record)
            .await?;
        for key in batch {
            if !found.iter().any(|raw| raw.key.id == key.id) {
                run.missing(&key.id, &source.describe());
            }
        }
        for raw in found {
            run.score(&raw.normalise(), false, judge).await;
        }
    }
    Ok(run.finish())
}
