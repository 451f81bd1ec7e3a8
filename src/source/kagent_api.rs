//! The REST API of the kagent controller (v0.9, v0.10; port 8083).
//!
//! Responses are `{"error", "data", "message"}` envelopes; event rows carry
//! the ADK event as JSON text in `data`. The API lists an agent's sessions
//! by route, so the agent filter is in the request; a session asked for by
//! id is scored for an agent only when the session itself names that agent.
//!
//! kagent answers a missing agent or session with a JSON `{"error": ...}`
//! and 404; any other 404 (a plain `404 page not found` from its router, or
//! from whatever else answers at the base URL) means the route is not
//! there, which is an error of the run, never "no sessions".

use super::{
    RawSession, SessionQuery, SessionRows, SessionSource, SessionSummary, SourceError, StoredTask,
    TaskData,
};
use crate::core::ingest::{Issue, KeepJson, Origin, Parsed, RawEvent, RawEvents, parse_event};
use crate::core::parallel::map_in_order_beside;
use crate::core::session::{AgentRef, SessionKey};
use crate::core::suite::rules::NameKind;
use crate::core::task::{Record, RecordChoice};
use crate::http_client::{self, HttpError, Retry};
use crate::secret::Secret;
use futures::{StreamExt, TryStreamExt};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

pub struct KagentApi {
    base: String,
    user: String,
    token: Option<Secret>,
    client: reqwest::Client,
    retry: Retry,
    name: Arc<str>,
    /// Whether each event's JSON is kept beside it (`extract --raw`).
    pub(super) keep_json: KeepJson,
}

impl std::fmt::Debug for KagentApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KagentApi")
            .field("base", &crate::core::redact::url_for_display(&self.base))
            .field("user", &self.user)
            .finish_non_exhaustive()
    }
}

/// Not found is an answer, not a failure.
enum Answer {
    Data(Value),
    NotFound,
}

/// Whether a 404's body is kagent's own `{"error": "..."}`.
fn is_kagent_not_found(body: &str) -> bool {
    serde_json::from_str::<Value>(body)
        .ok()
        .is_some_and(|v| v.get("error").is_some_and(Value::is_string))
}

impl KagentApi {
    pub fn new(
        base: &str,
        user: String,
        token: Option<Secret>,
        timeout: Duration,
        retry: Retry,
    ) -> Result<Self, SourceError> {
        let base = base.trim_end_matches('/').to_string();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(SourceError::Config(
                "the kagent API URL must start with http:// or https://".into(),
            ));
        }
        let client = http_client::client(timeout).map_err(SourceError::Config)?;
        Ok(KagentApi {
            name: format!(
                "kagent API at {}",
                crate::core::redact::url_for_display(&base)
            )
            .into(),
            base,
            user,
            token,
            client,
            retry,
            keep_json: KeepJson::No,
        })
    }

    /// `GET` of the route `path`, one segment each (ids escaped, never
    /// read as structure).
    async fn get(
        &self,
        path: &[&str],
        user: &str,
        query: &[(&str, &str)],
    ) -> Result<Answer, SourceError> {
        let url = http_client::endpoint(&self.base, path)
            .map_err(|e| SourceError::Config(format!("kagent API: {e}")))?;
        // The route below the base URL, as kagent names its routes.
        let base_path = reqwest::Url::parse(&self.base)
            .map(|b| b.path().trim_end_matches('/').to_string())
            .unwrap_or_default();
        let route = url
            .path()
            .strip_prefix(base_path.as_str())
            .unwrap_or(url.path())
            .to_string();
        let response = http_client::send(
            || {
                let mut request = self
                    .client
                    .get(url.clone())
                    .query(&[("user_id", user)])
                    .query(query);
                if let Some(token) = &self.token {
                    request = request.bearer_auth(token.expose());
                }
                request
            },
            self.retry,
        )
        .await;
        let response = match response {
            Ok(response) => response,
            Err(HttpError::Status { status, message })
                if status == reqwest::StatusCode::NOT_FOUND && is_kagent_not_found(&message) =>
            {
                return Ok(Answer::NotFound);
            }
            Err(HttpError::Status { status, .. }) if status == reqwest::StatusCode::NOT_FOUND => {
                return Err(SourceError::Unavailable {
                    source_name: self.name.to_string(),
                    detail: format!(
                        "GET {route} answered 404 without kagent's JSON error: the route is not there (is this the kagent controller's REST API, port 8083, of kagent v0.9 or v0.10?)"
                    ),
                });
            }
            Err(HttpError::Status { status, message }) => {
                let message = envelope_message(&message).unwrap_or(message);
                return Err(SourceError::Unavailable {
                    source_name: self.name.to_string(),
                    detail: self.scrub(&format!("GET {route} answered {status}: {message}")),
                });
            }
            Err(HttpError::Transport(detail)) => {
                return Err(SourceError::Unavailable {
                    source_name: self.name.to_string(),
                    detail: self.scrub(&format!("GET {route}: {detail}")),
                });
            }
        };
        let body: Value = response
            .json()
            .await
            .map_err(|e| SourceError::Unavailable {
                source_name: self.name.to_string(),
                detail: format!("GET {route}: the answer is not JSON: {e}"),
            })?;
        if body.get("error").and_then(Value::as_bool) == Some(true) {
            return Err(SourceError::Unavailable {
                source_name: self.name.to_string(),
                detail: format!(
                    "GET {route}: {}",
                    body.get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("error")
                ),
            });
        }
        Ok(Answer::Data(match body {
            Value::Object(mut envelope) if envelope.contains_key("data") => {
                envelope.remove("data").unwrap_or(Value::Null)
            }
            other => other,
        }))
    }

    fn scrub(&self, message: &str) -> String {
        let message = crate::core::redact::urls_for_display(message);
        match &self.token {
            Some(token) => token.scrub(&message),
            None => message,
        }
    }

    /// The sessions the API lists for an agent (its own, not those another
    /// agent opened to call it as a tool), or all of the user's.
    async fn sessions(&self, agent: Option<&AgentRef>) -> Result<Vec<SessionSummary>, SourceError> {
        let path: Vec<&str> = match agent {
            Some(a) => vec!["api", "sessions", "agent", &a.namespace, &a.name],
            None => vec!["api", "sessions"],
        };
        let data = match self.get(&path, &self.user, &[]).await? {
            Answer::Data(data) => data,
            // kagent's JSON 404 for an agent it does not know: no sessions.
            Answer::NotFound => return Ok(Vec::new()),
        };
        Ok(self.summaries(&data, |_| true))
    }

    /// The sessions another agent opened to call `agent` as a tool: the
    /// user's listing holds them, marked `source: agent`.
    async fn sub_agent_sessions(
        &self,
        agent: &AgentRef,
    ) -> Result<Vec<SessionSummary>, SourceError> {
        let data = match self.get(&["api", "sessions"], &self.user, &[]).await? {
            Answer::Data(data) => data,
            Answer::NotFound => return Ok(Vec::new()),
        };
        let id = agent.kagent_id();
        Ok(self.summaries(&data, |s| {
            s.get("agent_id").and_then(Value::as_str) == Some(id.as_str())
                && s.get("source").and_then(Value::as_str) == Some("agent")
        }))
    }

    fn summaries(&self, data: &Value, keep: impl Fn(&Value) -> bool) -> Vec<SessionSummary> {
        data.as_array()
            .into_iter()
            .flatten()
            .filter(|s| keep(s))
            .filter_map(|s| {
                let id = s.get("id")?.as_str()?.to_string();
                let user = s
                    .get("user_id")
                    .and_then(Value::as_str)
                    .unwrap_or(&self.user)
                    .to_string();
                Some(SessionSummary {
                    key: SessionKey::new(id, Some(user)),
                    revision: None,
                    agent_id: s.get("agent_id").and_then(Value::as_str).map(String::from),
                    events: None,
                    updated: s
                        .get("updated_at")
                        .or_else(|| s.get("created_at"))
                        .and_then(Value::as_str)
                        .and_then(|t| t.parse().ok()),
                })
            })
            .collect()
    }
}

fn envelope_message(body: &str) -> Option<String> {
    let value: Value = serde_json::from_str(body).ok()?;
    value
        .get("message")
        .and_then(Value::as_str)
        .map(String::from)
}

impl SessionSource for KagentApi {
    fn describe(&self) -> String {
        self.name.to_string()
    }

    /// The API has no time or count filters: those apply to its listing.
    async fn list(&self, query: &SessionQuery) -> Result<Vec<SessionSummary>, SourceError> {
        let mut sessions = self.sessions(query.agent.as_ref()).await?;
        if query.include_sub_agent_sessions
            && let Some(agent) = &query.agent
        {
            sessions.extend(self.sub_agent_sessions(agent).await?);
        }
        if let Some(since) = query.since {
            sessions.retain(|s| s.updated.is_some_and(|u| u >= since));
        }
        sessions.sort_by(|a, b| b.updated.cmp(&a.updated).then_with(|| a.key.cmp(&b.key)));
        if let Some(limit) = query.limit {
            sessions.truncate(limit);
        }
        Ok(sessions)
    }

    async fn fetch(
        &self,
        keys: &[SessionKey],
        agent: Option<&AgentRef>,
        record: RecordChoice,
    ) -> Result<Vec<RawSession>, SourceError> {
        // A few sessions asked for at once, answers kept in key order: one
        // round trip after another made a batch as slow as its latencies.
        // The futures are built first: a closure over `&SessionKey` inside the
        // stream would not be `Send` for every lifetime the trait needs.
        let requests: Vec<_> = keys
            .iter()
            .map(|key| self.fetch_one(key, agent, record))
            .collect();
        let answered: Vec<Option<Answered>> = futures::stream::iter(requests)
            .buffered(SESSIONS_IN_FLIGHT)
            .try_collect()
            .await?;
        // Reading the events is most of the work: on every core, off the
        // runtime's threads.
        let (source, keep) = (self.name.clone(), self.keep_json);
        let answered = answered.into_iter().flatten().collect();
        Ok(map_in_order_beside(answered, move |answer| answer.read(&source, keep)).await)
    }
}

/// Sessions of one batch asked for at once (two batches are fetched at a
/// time): a handful of requests in flight, not a burst on the controller.
const SESSIONS_IN_FLIGHT: usize = 4;

/// A session as the API served it, its events not read yet.
struct Answered {
    key: SessionKey,
    agent_id: Option<String>,
    events: Vec<Value>,
    /// Its A2A tasks, when the session is read from them instead.
    tasks: Option<Vec<StoredTask>>,
    /// Why it was not asked for: an id listed by kagent that is no session
    /// id cannot go into a path.
    refused: Option<String>,
}

impl KagentApi {
    /// One session; `None` when kagent has no such session, or it is
    /// another agent's.
    async fn fetch_one(
        &self,
        key: &SessionKey,
        agent: Option<&AgentRef>,
        record: RecordChoice,
    ) -> Result<Option<Answered>, SourceError> {
        let user = key.user_id.clone().unwrap_or_else(|| self.user.clone());
        if !NameKind::Id.allows(&key.id) {
            return Ok(Some(Answered {
                key: SessionKey::new(key.id.clone(), Some(user)),
                agent_id: agent.map(AgentRef::kagent_id),
                events: Vec::new(),
                tasks: None,
                refused: Some(format!(
                    "kagent listed the session id {:?}, which {}; not asked for",
                    key.id,
                    NameKind::Id.message()
                )),
            }));
        }
        let path = ["api", "sessions", key.id.as_str()];
        let mut data = match self.get(&path, &user, &[("order", "asc")]).await? {
            Answer::Data(data) => data,
            Answer::NotFound => return Ok(None),
        };
        let owner = data
            .get("session")
            .and_then(|s| s.get("agent_id"))
            .and_then(Value::as_str)
            .map(String::from);
        // Another agent's session, named by id, is not this agent's to read.
        if let Some(agent) = agent
            && owner.as_deref() != Some(agent.kagent_id().as_str())
        {
            return Ok(None);
        }
        let events = match data.get_mut("events").map(Value::take) {
            Some(Value::Array(events)) => events,
            _ => Vec::new(),
        };
        let mut tasks = None;
        if record.wants_tasks(events.len()) {
            let found = self.tasks(&key.id, &user).await?;
            if !found.is_empty() || record == RecordChoice::Tasks {
                tasks = Some(found);
            }
        }
        Ok(Some(Answered {
            key: SessionKey::new(key.id.clone(), Some(user)),
            agent_id: owner,
            events,
            tasks,
            refused: None,
        }))
    }
}

impl KagentApi {
    /// A session's A2A tasks, oldest first, as kagent serves them: task
    /// objects in A2A 0.3's shape (no `A2A-Version` header is sent).
    async fn tasks(&self, id: &str, user: &str) -> Result<Vec<StoredTask>, SourceError> {
        let path = ["api", "sessions", id, "tasks"];
        let listed = match self.get(&path, user, &[]).await? {
            Answer::Data(Value::Array(tasks)) => tasks,
            // kagent leaves `data` out of an empty list.
            Answer::Data(Value::Null) | Answer::NotFound => Vec::new(),
            Answer::Data(_) => {
                return Err(SourceError::Unavailable {
                    source_name: self.name.to_string(),
                    detail: format!("GET /{}: `data` is not a list of tasks", path.join("/")),
                });
            }
        };
        Ok(listed
            .into_iter()
            .enumerate()
            .map(|(i, task)| StoredTask {
                id: task
                    .get("id")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("#{}", i + 1), String::from),
                data: TaskData::Json(task),
                protocol: None,
            })
            .collect())
    }
}

impl Answered {
    /// The session, read from its events or, where chosen, its tasks.
    fn read(self, source: &Arc<str>, keep: KeepJson) -> RawSession {
        let mut session = RawSession {
            key: self.key,
            agent_id: self.agent_id,
            raw: Default::default(),
            record: Record::Events,
            revision: None,
            rows: None,
        };
        match (self.refused, self.tasks) {
            (Some(why), _) => session.raw.issues.push(Issue::new(source, why)),
            (None, Some(tasks)) => session.use_tasks(tasks, source, keep),
            (None, None) => session.raw = read_events(self.events, source, keep),
        }
        session
    }
}

/// Event rows in kagent's order, each read or reported by its id.
fn read_events(events: Vec<Value>, source: &Arc<str>, keep: KeepJson) -> RawEvents {
    let mut rows = SessionRows::default();
    for (i, mut row) in events.into_iter().enumerate() {
        let event_id = row
            .get("id")
            .and_then(Value::as_str)
            .map_or_else(|| format!("#{}", i + 1), String::from);
        let origin = Origin::Row {
            source: source.clone(),
            event_id,
        };
        let created = row
            .get("created_at")
            .and_then(Value::as_str)
            .and_then(|t| t.parse::<jiff::Timestamp>().ok())
            .map(|t| t.as_microsecond());
        let parsed = match row.get_mut("data").map(Value::take) {
            Some(Value::String(text)) => parse_event(text.as_bytes(), origin, keep),
            Some(value @ Value::Object(_)) => Ok(Parsed {
                event: RawEvent::from_value(origin, value, keep),
                note: None,
            }),
            _ => Err(Issue::new(&origin, "event row has no `data`")),
        };
        rows.add(created, parsed);
    }
    rows.finish()
}
