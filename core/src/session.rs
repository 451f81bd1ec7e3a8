//! A session: its key, its events in order, and what could not be read.

use crate::event::{Content, Event, Part};
use crate::ingest::{Issue, Origin, RawEvents};
use crate::task::Record;
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
    /// Lines, rows or fields that could not be used. A session with any is
    /// not scored as complete unless its suite says to score what was read.
    pub issues: Vec<Issue>,
    /// What was read with a loss, and oddities worth a word: repeated event
    /// ids, tool results without a call.
    pub notes: Vec<Issue>,
    /// Whether the events are ADK's or were read from A2A tasks.
    pub record: Record,
    /// The Agent revision the session ran on (kagent 1.0), when recorded.
    pub revision: Option<String>,
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
        let mut notes = raw.notes;
        let mut events = Vec::with_capacity(raw.events.len());
        let mut origins = Vec::with_capacity(raw.events.len());
        for row in raw.events {
            issues.extend(
                row.field_issues
                    .iter()
                    .map(|f| Issue::new(&row.origin, f.to_string())),
            );
            // What only measures was read with a loss: the event is scored,
            // the measure is not.
            let event = &row.event;
            for (problem, measure) in [
                (&event.time_problem, "its latency"),
                (&event.usage_problem, "its tokens and cost"),
            ] {
                if let Some(problem) = problem {
                    notes.push(Issue::new(
                        &row.origin,
                        format!("{problem}: {measure} unmeasured"),
                    ));
                }
            }
            events.push(*row.event);
            origins.push(row.origin);
        }
        notes.extend(oddities(&events, &origins));
        Session {
            key,
            agent_id,
            events,
            issues,
            notes,
            record: Record::Events,
            revision: None,
        }
    }

    /// The error the conversation ended with: its last turn's last word
    /// is an error event (kagent's failed task, ADK's model error) rather
    /// than anything the agent said or did.
    pub fn final_failure(&self) -> Option<TurnFailure> {
        let turn = self.events.last()?.invocation();
        self.events
            .iter()
            .rev()
            .take_while(|e| e.invocation() == turn)
            .filter(|e| !e.partial)
            .find_map(|e| match (&e.error_code, &e.content) {
                (Some(code), _) => Some(Some(TurnFailure {
                    turn: turn.to_string(),
                    code: code.clone(),
                    message: e.error_message.clone().unwrap_or_default(),
                })),
                (None, Content::Parts { .. }) => Some(None),
                (None, _) => None,
            })
            .flatten()
    }

    /// The first thing the user said, which suites match cases on.
    pub fn first_user_text(&self) -> Option<&str> {
        self.events
            .iter()
            .filter(|e| e.author.as_deref() == Some("user"))
            .find_map(|e| match &e.content {
                Content::Parts { parts, .. } => parts.iter().find_map(|p| match p {
                    Part::Text {
                        text,
                        thought: false,
                    } => Some(text.as_str()),
                    _ => None,
                }),
                _ => None,
            })
    }
}

/// A turn that ended in an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnFailure {
    pub turn: String,
    pub code: String,
    pub message: String,
}

impl fmt::Display for TurnFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let turn = match self.turn.as_str() {
            "" => "the last turn".to_string(),
            id => format!("turn {id}"),
        };
        match self.message.as_str() {
            "" => write!(f, "{turn} failed ({})", self.code),
            message => write!(f, "{turn} failed ({}): {message}", self.code),
        }
    }
}

/// Notes at most this many oddities of one kind.
const ODDITIES_NOTED: usize = 10;

/// Event ids seen more than once, and tool results whose call id no call
/// before them carries: signs of rows written twice or lost.
fn oddities(events: &[Event], origins: &[Origin]) -> Vec<Issue> {
    let mut notes = Vec::new();
    // foldhash: SipHash's resistance to chosen keys costs more here than
    // the ids are worth; foldhash is seeded per process as well.
    let mut seen_ids =
        foldhash::HashSet::with_capacity_and_hasher(events.len(), Default::default());
    let mut repeated = 0usize;
    let mut calls = foldhash::HashSet::default();
    let mut orphans = 0usize;
    for (event, origin) in events.iter().zip(origins) {
        if let Some(id) = event.id.as_deref().filter(|id| !id.is_empty())
            && !seen_ids.insert(id)
        {
            repeated += 1;
            if repeated <= ODDITIES_NOTED {
                notes.push(Issue::new(
                    origin,
                    format!("event id {id} appears more than once"),
                ));
            }
        }
        let Content::Parts { parts, .. } = &event.content else {
            continue;
        };
        for part in parts {
            match part {
                Part::FunctionCall { id: Some(id), .. } => {
                    calls.insert(id.as_str());
                }
                Part::FunctionResponse {
                    id: Some(id), name, ..
                } if !id.is_empty() && !calls.contains(id.as_str()) => {
                    orphans += 1;
                    if orphans <= ODDITIES_NOTED {
                        notes.push(Issue::new(
                            origin,
                            format!("a result of `{name}` answers call {id}, which no earlier event makes"),
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    for (count, what) in [
        (repeated, "repeated event ids"),
        (orphans, "results without a call"),
    ] {
        if count > ODDITIES_NOTED {
            notes.push(Issue::new(
                "(session)",
                format!("{} more {what}", count - ODDITIES_NOTED),
            ));
        }
    }
    notes
}

/// A kagent Agent, named as in Kubernetes.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct AgentRef {
    pub namespace: String,
    pub name: String,
}

impl AgentRef {
    /// kagent's database id for the agent: `<namespace>/<name>` with `-` as
    /// `_` and `/` as `__NS__` (`kagent/k8s-agent` is `kagent__NS__k8s_agent`).
    pub fn kagent_id(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
            .replace('-', "_")
            .replace('/', "__NS__")
    }

    /// The `author` of the agent's own events: its name with `_` for `-`.
    pub fn author(&self) -> String {
        self.name.replace('-', "_")
    }
}

impl fmt::Display for AgentRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

impl std::str::FromStr for AgentRef {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.split_once('/') {
            Some((namespace, name))
                if !namespace.is_empty() && !name.is_empty() && !name.contains('/') =>
            {
                Ok(AgentRef {
                    namespace: namespace.into(),
                    name: name.into(),
                })
            }
            _ => Err(format!("`{s}` is not NAMESPACE/NAME")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_ids_follow_kagent() {
        let agent: AgentRef = "kagent/k8s-agent".parse().unwrap();
        assert_eq!(agent.kagent_id(), "kagent__NS__k8s_agent");
        assert_eq!(agent.author(), "k8s_agent");
        assert!("k8s-agent".parse::<AgentRef>().is_err());
        assert!("a/b/c".parse::<AgentRef>().is_err());
    }

    #[test]
    fn a_conversation_fails_only_when_its_last_turn_ends_in_an_error() {
        let event = |value: serde_json::Value| Event::from_json(&value).0;
        let said = |turn: &str, text: &str| {
            event(serde_json::json!({"invocation_id": turn, "author": "agent",
                "content": {"parts": [{"text": text}]}}))
        };
        let error = |turn: &str| {
            event(serde_json::json!({"invocation_id": turn, "author": "agent",
                "error_code": "TASK_FAILED", "error_message": "llm error"}))
        };
        let session = |events: Vec<Event>| Session {
            events,
            ..Session::default()
        };
        let failed = session(vec![said("t1", "hi"), error("t2")]).final_failure();
        assert_eq!(
            failed.map(|f| f.to_string()).as_deref(),
            Some("turn t2 failed (TASK_FAILED): llm error")
        );
        let recovered = session(vec![error("t1"), said("t1", "retried: fine")]);
        assert_eq!(recovered.final_failure(), None, "an answer after the error");
        let earlier = session(vec![error("t1"), said("t2", "fine")]);
        assert_eq!(earlier.final_failure(), None, "an earlier turn failed");
        assert_eq!(session(Vec::new()).final_failure(), None);
    }
}
