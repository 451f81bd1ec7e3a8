//! A session: its key, its events in order, and what could not be read.

use crate::core::event::{Content, Event, Part};
use crate::core::ingest::{Issue, RawEvents};
use std::fmt;

/// kagent keys sessions by `(id, user_id)`: the id alone is not unique.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionKey {
    pub id: String,
    pub user_id: Option<String>,
}

impl SessionKey {
    pub fn new(id: impl Into<String>, user_id: Option<String>) -> Self {
        SessionKey {
            id: id.into(),
            user_id,
        }
    }
}

impl fmt::Display for SessionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.user_id {
            Some(user) => write!(f, "{} (user {user})", self.id),
            None => f.write_str(&self.id),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Session {
    pub key: SessionKey,
    pub agent_id: Option<String>,
    pub events: Vec<Event>,
    /// Lines, rows or fields that could not be used; the session is scored
    /// from the rest and these travel with its results.
    pub issues: Vec<Issue>,
}

impl Default for SessionKey {
    fn default() -> Self {
        SessionKey::new("", None)
    }
}

impl Session {
    /// Normalise raw rows; field problems join the read problems, each named
    /// by where its event came from.
    pub fn from_raw(key: SessionKey, agent_id: Option<String>, raw: RawEvents) -> Session {
        let mut issues = raw.issues;
        let events = raw
            .events
            .iter()
            .map(|row| {
                let (event, field_issues) = Event::from_json(&row.value);
                issues.extend(field_issues.into_iter().map(|f| Issue::new(&row.origin, f.to_string())));
                event
            })
            .collect();
        Session {
            key,
            agent_id,
            events,
            issues,
        }
    }

    /// The first thing the user said, which suites match cases on.
    pub fn first_user_text(&self) -> Option<&str> {
        self.events
            .iter()
            .filter(|e| e.author.as_deref() == Some("user"))
            .find_map(|e| match &e.content {
                Content::Parts { parts, .. } => parts.iter().find_map(|p| match p {
                    Part::Text { text, thought: false } => Some(text.as_str()),
                    _ => None,
                }),
                _ => None,
            })
    }
}
