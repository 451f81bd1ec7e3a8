//! Where sessions come from. Each source is a thin adapter that lists
//! sessions and fetches their raw event rows; normalising and scoring them is
//! the core's job.

pub mod fixture;

use crate::core::ingest::RawEvents;
use crate::core::session::{AgentRef, Session, SessionKey};
use jiff::Timestamp;
use std::future::Future;

/// Which sessions a run looks at.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionQuery {
    /// Only this agent's sessions; the filter is applied by the source itself.
    pub agent: Option<AgentRef>,
    /// Only sessions updated at or after this time.
    pub since: Option<Timestamp>,
    /// At most this many, most recently updated first.
    pub limit: Option<usize>,
    /// Also sessions a parent agent opened to call this one as a tool.
    pub include_sub_agent_sessions: bool,
}

/// One row of a session listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionSummary {
    pub key: SessionKey,
    pub agent_id: Option<String>,
    pub events: Option<u64>,
    pub updated: Option<Timestamp>,
}

/// The raw rows of one session, before normalisation.
#[derive(Clone, Debug, PartialEq)]
pub struct RawSession {
    pub key: SessionKey,
    pub agent_id: Option<String>,
    pub raw: RawEvents,
}

impl RawSession {
    pub fn normalise(self) -> Session {
        Session::from_raw(self.key, self.agent_id, self.raw)
    }
}

/// Why a source could not answer. Messages name the source (host, file) and
/// never carry credentials.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("{source_name} is unavailable: {detail}")]
    Unavailable { source_name: String, detail: String },
    #[error("{0}")]
    Config(String),
}

/// The interface the runner and the controller read sessions through.
pub trait SessionSource: Send + Sync {
    /// A description for messages, e.g. `kagent PostgreSQL at db:5432/kagent`.
    fn describe(&self) -> String;

    /// Sessions matching the query, most recently updated first.
    fn list(
        &self,
        query: &SessionQuery,
    ) -> impl Future<Output = Result<Vec<SessionSummary>, SourceError>> + Send;

    /// The events of these sessions, oldest first within each. A key without
    /// a user matches the id for every user. Sessions not found are absent
    /// from the result.
    fn fetch(
        &self,
        keys: &[SessionKey],
    ) -> impl Future<Output = Result<Vec<RawSession>, SourceError>> + Send;
}

/// Any of the sources, chosen at run time by a suite or the command line.
#[derive(Debug)]
pub enum AnySource {
    Fixture(fixture::FixtureSource),
}

impl SessionSource for AnySource {
    fn describe(&self) -> String {
        match self {
            AnySource::Fixture(s) => s.describe(),
        }
    }

    async fn list(&self, query: &SessionQuery) -> Result<Vec<SessionSummary>, SourceError> {
        match self {
            AnySource::Fixture(s) => s.list(query).await,
        }
    }

    async fn fetch(&self, keys: &[SessionKey]) -> Result<Vec<RawSession>, SourceError> {
        match self {
            AnySource::Fixture(s) => s.fetch(keys).await,
        }
    }
}
