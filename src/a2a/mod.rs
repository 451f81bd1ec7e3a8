//! Probes over A2A: a golden task sent to an Agent as it runs, through the
//! A2A endpoint kagent serves for it, in the version the Agent speaks:
//! A2A 0.3 for kagent 0.10 (`message/send`, `tasks/get`) or A2A 1.0 for
//! kagent 1.0 (`SendMessage`, `GetTask`). The A2A `contextId` is the id of
//! the session the Agent records, so the run that follows reads exactly
//! that session; an answer in another conversation is refused.
//!
//! A probe acts as its own user (`X-User-Id`) and carries no credential:
//! whatever identity runs kagent-evals is never lent to the Agent, whose
//! runtime records request headers in the session. Redirects are not
//! followed and answers are read up to a bound.

pub mod card;
pub mod dialect;

use crate::core::judge::simulate::{self, Exchange, Next, Speaker};
use crate::core::judge::{Judge, JudgeError, JudgeUsage};
use crate::core::read_limits::ReadLimits;
use crate::core::suite::compile::{Probe, Turns};
use crate::core::suite::spec::{A2aProtocol, Approvals};
use crate::http_client::{self, HttpError, Retry};
use dialect::{Answer, Content, Pause, State, TaskView};
use serde_json::{Value, json};
use std::time::Duration;
use tokio::time::Instant;

/// How a probe run ended, when the Agent could be asked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ProbeEnd {
    /// Every turn was answered: the session is there to score.
    #[default]
    Completed,
    /// The run ended before its last answer (the task failed, timed out,
    /// or waited for an approval the case does not give): a failed run.
    Failed(String),
    /// The Agent answered in another conversation than the probe's: no
    /// session can be scored as this run's, an error of the run.
    Refused(String),
}

/// What one probe run did: how it ended and, for a simulated user, the
/// conversation it held, why it ended and the simulator's calls.
#[derive(Debug, Default)]
pub struct ProbeRun {
    pub end: ProbeEnd,
    /// The conversation the Agent recorded the run in: the one the probe
    /// named (A2A 0.3), or the Session kagent 1.0 opened for its first
    /// message; `None` when no answer named one.
    pub context: Option<String>,
    /// The tasks the Agent answered the run's turns in, in order, each
    /// once (a continuation stays in its task).
    pub tasks: Vec<String>,
    /// Turns answered with no task to read back: a bare message, or a
    /// task without an id.
    pub untasked_turns: Vec<usize>,
    pub transcript: Vec<Exchange>,
    pub ended: Option<String>,
    pub usage: JudgeUsage,
}

/// Why a probe run could not be done: the Agent, or the simulated user's
/// model.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error(transparent)]
    Agent(#[from] AgentUnavailable),
    #[error(transparent)]
    Simulator(#[from] JudgeError),
}

/// The Agent's endpoint is down or answered an error: the run itself
/// cannot be done.
#[derive(Debug, thiserror::Error)]
#[error("the Agent's A2A endpoint {url} {detail}")]
pub struct AgentUnavailable {
    pub url: String,
    pub detail: String,
}

/// How the A2A version of an Agent is to be chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtocolChoice {
    /// Decided before asking the Agent, and by what.
    Given { protocol: A2aProtocol, by: String },
    /// From the Agent's card.
    FromCard,
}

/// The version spoken with an Agent, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Negotiated {
    pub protocol: A2aProtocol,
    pub why: String,
}

impl Negotiated {
    /// `A2A 1.0, from the agent card (it offers 1.0, 0.3)`, for reports.
    pub fn describe(&self) -> String {
        format!("{}, {}", self.protocol.words(), self.why)
    }
}

/// The A2A endpoint of one Agent.
#[derive(Debug)]
pub struct A2aClient {
    url: String,
    client: reqwest::Client,
    choice: ProtocolChoice,
    negotiated: tokio::sync::OnceCell<Negotiated>,
    /// An answer holding more elements than a row may is not decoded.
    limits: ReadLimits,
}

/// Pause between polls of a task that is still working.
const POLL: Duration = Duration::from_millis(500);

/// kagent 1.0's reason for a send it did not accept, and dispatched
/// nothing of: the session is busy. Sent again, with the same message id,
/// after the `retryAfterMs` it gives (100 when it gives none), at most
/// this many times and never past the probe's deadline.
const NOT_ACCEPTED: &str = "KAGENT_SEND_NOT_ACCEPTED";
const NOT_ACCEPTED_SENDS: u32 = 20;
const DEFAULT_RETRY_AFTER: Duration = Duration::from_millis(100);
const LONGEST_RETRY_AFTER: Duration = Duration::from_secs(5);

/// JSON-RPC's "method not found": what an Agent of the other version says.
const METHOD_NOT_FOUND: i64 = -32601;

/// The largest answer read from an Agent, and the largest card.
const MAX_ANSWER_BYTES: usize = 16 << 20;
const MAX_CARD_BYTES: usize = 1 << 20;

/// Why one JSON-RPC call gave no result.
enum CallError {
    Unavailable(AgentUnavailable),
    /// The Agent answered a JSON-RPC error.
    Rpc {
        code: i64,
        message: String,
        data: Value,
    },
}

impl A2aClient {
    pub fn new(url: &str, choice: ProtocolChoice, limits: ReadLimits) -> Result<Self, String> {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(format!("the A2A URL {url} is not an http(s) URL"));
        }
        // Each request may wait for the Agent's whole turn; the probe's own
        // timeout bounds the run.
        let client = http_client::client(Duration::from_secs(3600))?;
        Ok(A2aClient {
            url: url.to_string(),
            client,
            choice,
            negotiated: tokio::sync::OnceCell::new(),
            limits,
        })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// The version to speak, decided once: as given, else from the card.
    pub async fn protocol(&self) -> Result<&Negotiated, AgentUnavailable> {
        self.negotiated
            .get_or_try_init(|| async {
                match &self.choice {
                    ProtocolChoice::Given { protocol, by } => Ok(Negotiated {
                        protocol: *protocol,
                        why: format!("set by {by}"),
                    }),
                    ProtocolChoice::FromCard => self.read_card().await,
                }
            })
            .await
    }

    /// The version the Agent's card offers. An Agent without a card (as
    /// kagent 0.10's controller may serve none) is spoken to in 0.3.
    async fn read_card(&self) -> Result<Negotiated, AgentUnavailable> {
        for name in ["agent-card.json", "agent.json"] {
            let url = http_client::endpoint(&self.url, &[".well-known", name])
                .map_err(|e| self.unavailable(e))?;
            let response =
                http_client::send(|| self.client.get(url.clone()), Retry::default()).await;
            let response = match response {
                Err(HttpError::Status { status, .. })
                    if status == reqwest::StatusCode::NOT_FOUND =>
                {
                    continue;
                }
                other => other.map_err(|e| self.unavailable(format!("card {url}: {e}")))?,
            };
            let body = http_client::read_bounded(response, MAX_CARD_BYTES)
                .await
                .map_err(|e| self.unavailable(format!("card {url}: {e}")))?;
            let card: Value = serde_json::from_slice(&body)
                .map_err(|e| self.unavailable(format!("card {url} is not JSON: {e}")))?;
            let offered = card::offered(&card);
            let protocol =
                card::choose(&offered).map_err(|e| self.unavailable(format!("card {url}: {e}")))?;
            return Ok(Negotiated {
                protocol,
                why: format!("from the agent card (it offers {})", offered.join(", ")),
            });
        }
        Ok(Negotiated {
            protocol: A2aProtocol::V0_3,
            why: "assumed: the Agent serves no card (.well-known/agent-card.json or agent.json), as kagent 0.10's controller may not".into(),
        })
    }

    /// Run one probe as attempt `attempt` (an id fresh for it): every turn
    /// in order (a script's, or those `simulator` writes as the scenario's
    /// user), approvals answered as the case says, within the probe's
    /// timeout. In A2A 0.3 the attempt's id is the conversation; in 1.0
    /// kagent opens one for the first message. Each message's id derives
    /// from the attempt's, so that a send repeated after a busy answer is
    /// the same message.
    pub async fn run(
        &self,
        probe: &Probe,
        attempt: &str,
        simulator: &impl Judge,
    ) -> Result<ProbeRun, ProbeError> {
        let protocol = self.protocol().await?.protocol;
        let deadline = Instant::now() + probe.timeout;
        let mut run = ProbeRun {
            context: (protocol == A2aProtocol::V0_3).then(|| attempt.to_string()),
            ..ProbeRun::default()
        };
        let turns = self.turns(protocol, probe, attempt, deadline, simulator, &mut run);
        run.end = match tokio::time::timeout_at(deadline, turns).await {
            Ok(ended) => ended?,
            Err(_) => ProbeEnd::Failed(format!("no answer within {}s", probe.timeout.as_secs())),
        };
        Ok(run)
    }

    async fn turns(
        &self,
        protocol: A2aProtocol,
        probe: &Probe,
        attempt: &str,
        deadline: Instant,
        simulator: &impl Judge,
        run: &mut ProbeRun,
    ) -> Result<ProbeEnd, ProbeError> {
        let user = probe.user_id.as_str();
        let mut next = match &probe.turns {
            Turns::Script(turns) => turns.first().cloned(),
            Turns::Scenario(scenario) => Some(scenario.starting_prompt.clone()),
        };
        // The task a question of the Agent's left open, which the
        // simulated user's answer continues.
        let mut open_task: Option<String> = None;
        // The case's answers not yet given, in the order questions come.
        let mut answers = probe.answers.as_slice();
        let mut turn = 0;
        while let Some(text) = next.take() {
            turn += 1;
            let mut step = 0;
            let mut message = dialect::user_message(
                protocol,
                &message_id(attempt, turn, step),
                run.context.as_deref(),
                open_task.as_deref(),
                Content::Text(&text),
            );
            open_task = None;
            run.transcript.push(Exchange {
                speaker: Speaker::User,
                text,
            });
            let reply = loop {
                let answer = self.send(protocol, user, &message, deadline).await?;
                if let Some(refused) = conversation(turn, answer.context(), &mut run.context) {
                    return Ok(refused);
                }
                let task = match answer {
                    Answer::Message { reply, .. } => {
                        run.untasked_turns.push(turn);
                        break reply;
                    }
                    Answer::Task(task) => self.settle(protocol, user, task, deadline).await?,
                };
                match &task.id {
                    Some(id) if !run.tasks.contains(id) => run.tasks.push(id.clone()),
                    Some(_) => {}
                    None => run.untasked_turns.push(turn),
                }
                if let Some(refused) = conversation(turn, task.context.as_deref(), &mut run.context)
                {
                    return Ok(refused);
                }
                match task.state {
                    State::Completed => break task.reply,
                    State::InputRequired => {
                        let answer = match (task.pause, probe.approvals) {
                            (None, _) if matches!(probe.turns, Turns::Scenario(_)) => {
                                // A question for the user: theirs to answer.
                                open_task = task.id.clone();
                                break task.reply;
                            }
                            (None, _) => {
                                return Ok(ProbeEnd::Failed(format!(
                                    "turn {turn}: the Agent asked the user a question; a probe only answers approvals"
                                )));
                            }
                            (Some(Pause::Questions { id, questions }), _) => {
                                if questions.len() > answers.len() {
                                    return Ok(ProbeEnd::Failed(format!(
                                        "turn {turn}: the Agent asked the user {}, and the case scripts no answer for {}",
                                        quoted(&questions),
                                        quoted(&questions[answers.len()..])
                                    )));
                                }
                                let (given, rest) = answers.split_at(questions.len());
                                answers = rest;
                                Content::Hitl {
                                    payload: dialect::questions_response(&id, given),
                                    text: "Answered",
                                }
                            }
                            (Some(pause), Approvals::Fail) => {
                                return Ok(ProbeEnd::Failed(format!(
                                    "turn {turn}: the Agent asked to approve a call to {}, and the probe's approvals are `fail`",
                                    tools_of(&pause)
                                )));
                            }
                            (Some(Pause::Confirmation { .. }), policy) => {
                                Content::Data(match policy {
                                    Approvals::Reject => json!({
                                        "decision_type": "reject",
                                        "rejection_reason": REJECTION
                                    }),
                                    _ => json!({"decision_type": "approve"}),
                                })
                            }
                            (Some(Pause::Approvals { tools }), policy) => {
                                let rejected = policy == Approvals::Reject;
                                Content::Hitl {
                                    payload: dialect::approvals_response(
                                        &tools,
                                        rejected.then_some(REJECTION),
                                    ),
                                    text: if rejected { "Rejected" } else { "Approved" },
                                }
                            }
                        };
                        step += 1;
                        message = dialect::user_message(
                            protocol,
                            &message_id(attempt, turn, step),
                            run.context.as_deref(),
                            task.id.as_deref(),
                            answer,
                        );
                    }
                    // The status message may quote the conversation: not said.
                    other => {
                        return Ok(ProbeEnd::Failed(format!(
                            "turn {turn}: the task ended {}",
                            other.words()
                        )));
                    }
                }
            };
            run.transcript.push(Exchange {
                speaker: Speaker::Agent,
                text: reply,
            });
            next = match &probe.turns {
                Turns::Script(turns) => turns.get(turn).cloned(),
                Turns::Scenario(scenario) => {
                    let said =
                        simulate::next_turn(scenario, &run.transcript, simulator, &mut run.usage)
                            .await?;
                    match said {
                        Next::Finished => {
                            run.ended = Some(format!(
                                "the simulated user finished its plan after {turn} turn(s)"
                            ));
                            None
                        }
                        Next::Say(_) if turn >= scenario.max_turns as usize => {
                            let why = format!(
                                "the simulated user had not finished its plan after maxTurns {} turns",
                                scenario.max_turns
                            );
                            run.ended = Some(why.clone());
                            return Ok(ProbeEnd::Failed(why));
                        }
                        Next::Say(text) => Some(text),
                    }
                }
            };
        }
        Ok(ProbeEnd::Completed)
    }

    /// Send one message, and read the answer. A send kagent 1.0 did not
    /// accept (busy, nothing dispatched) is sent again, the same message;
    /// any other failure is not, as the Agent may have received it.
    async fn send(
        &self,
        protocol: A2aProtocol,
        user: &str,
        message: &Value,
        deadline: Instant,
    ) -> Result<Answer, AgentUnavailable> {
        let method = dialect::send_method(protocol);
        let params = json!({"message": message});
        let mut refused = 0;
        let result = loop {
            let result = self.call(protocol, user, method, &params, 1).await;
            let wait = match &result {
                Err(CallError::Rpc { data, .. }) if protocol == A2aProtocol::V1_0 => {
                    retry_after(data)
                }
                _ => None,
            };
            match (result, wait) {
                (Err(CallError::Rpc { message, .. }), Some(wait)) => {
                    refused += 1;
                    if refused >= NOT_ACCEPTED_SENDS || Instant::now() + wait >= deadline {
                        return Err(self.unavailable(format!(
                            "{method}: the Agent did not accept the message {refused} time(s) ({message}); it was not dispatched"
                        )));
                    }
                    tokio::time::sleep(wait).await;
                }
                (Err(CallError::Unavailable(mut e)), _) => {
                    e.detail.push_str(
                        "; the Agent may have received the message, so it was not sent again",
                    );
                    return Err(e);
                }
                (result, _) => break result,
            }
        };
        let result = result.map_err(|e| self.failed_call(protocol, method, e))?;
        let answer = dialect::read_send(protocol, &result)
            .map_err(|e| self.unavailable(format!("{method}: {e}")))?;
        Ok(answer)
    }

    /// Wait for a task that is still working to settle.
    async fn settle(
        &self,
        protocol: A2aProtocol,
        user: &str,
        mut task: TaskView,
        deadline: Instant,
    ) -> Result<TaskView, AgentUnavailable> {
        while !task.state.is_settled() {
            let Some(id) = task.id.clone() else {
                return Err(self.unavailable(format!(
                    "answered a task without an id in state {:?}",
                    task.state.words()
                )));
            };
            tokio::time::sleep_until((Instant::now() + POLL).min(deadline)).await;
            task = self.get_task(protocol, user, json!({"id": id})).await?.0;
        }
        Ok(task)
    }

    /// The tasks a run's turns were answered in, as the Agent keeps them,
    /// each with its whole history (`historyLength` at its most: unset
    /// means "no limit" in A2A 1.0 but a server's default in some 0.3
    /// servers). A task in another conversation than `context` is refused.
    pub async fn read_tasks(
        &self,
        user: &str,
        tasks: &[String],
        context: &str,
    ) -> Result<Result<Vec<Value>, String>, AgentUnavailable> {
        let protocol = self.protocol().await?.protocol;
        let mut read = Vec::with_capacity(tasks.len());
        for id in tasks {
            let params = json!({"id": id, "historyLength": i32::MAX});
            let (view, task) = self.get_task(protocol, user, params).await?;
            if view.context.as_deref() != Some(context) {
                return Ok(Err(format!(
                    "the Agent's task {id} is in conversation {}, not {context}, the probe's: not scored as the probe's",
                    view.context.as_deref().unwrap_or("(none named)")
                )));
            }
            read.push(task);
        }
        Ok(Ok(read))
    }

    /// One task as the Agent keeps it, read, and as it came; safe to ask
    /// again.
    async fn get_task(
        &self,
        protocol: A2aProtocol,
        user: &str,
        params: Value,
    ) -> Result<(TaskView, Value), AgentUnavailable> {
        let method = dialect::get_method(protocol);
        let task = self
            .call(protocol, user, method, &params, Retry::default().attempts)
            .await
            .map_err(|e| self.failed_call(protocol, method, e))?;
        let view = dialect::read_get(protocol, &task)
            .map_err(|e| self.unavailable(format!("{method}: {e}")))?;
        Ok((view, task))
    }

    /// One JSON-RPC call; `attempts` > 1 only for calls that are safe to
    /// repeat (a message must not be sent twice).
    async fn call(
        &self,
        protocol: A2aProtocol,
        user: &str,
        method: &str,
        params: &Value,
        attempts: u32,
    ) -> Result<Value, CallError> {
        let body = json!({
            "jsonrpc": "2.0",
            "id": uuid::Uuid::new_v4().to_string(),
            "method": method,
            "params": params,
        });
        let retry = Retry {
            attempts,
            ..Retry::default()
        };
        let unavailable = |detail: String| CallError::Unavailable(self.unavailable(detail));
        let response = http_client::send(
            || {
                let mut request = self.client.post(&self.url).header("X-User-Id", user);
                for (name, value) in dialect::headers(protocol) {
                    request = request.header(*name, *value);
                }
                request.json(&body)
            },
            retry,
        )
        .await
        .map_err(|e| match e {
            HttpError::Status { status, message } => {
                unavailable(format!("answered {method} with {status}: {message}"))
            }
            HttpError::Transport(detail) => unavailable(format!("{method}: {detail}")),
        })?;
        let bytes = http_client::read_bounded(response, MAX_ANSWER_BYTES)
            .await
            .map_err(|e| unavailable(format!("answered {method}: {e}")))?;
        self.limits
            .check_json(&bytes)
            .map_err(|e| unavailable(format!("answered {method} with an answer that {e}")))?;
        let answer: Value = serde_json::from_slice(&bytes)
            .map_err(|e| unavailable(format!("answered {method} with something not JSON: {e}")))?;
        if let Some(error) = answer.get("error").filter(|e| !e.is_null()) {
            return Err(CallError::Rpc {
                code: error["code"].as_i64().unwrap_or(0),
                message: error["message"].as_str().unwrap_or("an error").to_string(),
                data: error["data"].clone(),
            });
        }
        answer
            .get("result")
            .cloned()
            .ok_or_else(|| unavailable(format!("answered {method} without a result")))
    }

    fn failed_call(
        &self,
        protocol: A2aProtocol,
        method: &str,
        error: CallError,
    ) -> AgentUnavailable {
        match error {
            CallError::Unavailable(e) => e,
            CallError::Rpc { code, message, .. } => {
                let hint = match code {
                    METHOD_NOT_FOUND => format!(
                        " (the Agent does not serve {method}: it may not speak {}; set probes.protocol, or --a2a-protocol)",
                        protocol.words()
                    ),
                    _ => String::new(),
                };
                self.unavailable(format!(
                    "answered {method} with error {code}: {message}{hint}"
                ))
            }
        }
    }

    fn unavailable(&self, detail: impl Into<String>) -> AgentUnavailable {
        AgentUnavailable {
            url: self.url.clone(),
            detail: detail.into(),
        }
    }
}

/// The words a probe rejects a call with.
const REJECTION: &str = "rejected by the kagent-evals probe";

/// The id of the message sent at `step` of `turn` (both from one): the
/// attempt's own for its first, derived for the others.
fn message_id(attempt: &str, turn: usize, step: usize) -> String {
    match (turn, step) {
        (1, 0) => attempt.to_string(),
        _ => format!("{attempt}/{turn}.{step}"),
    }
}

/// The tools a pause asks to approve, for a reason.
/// Questions as a list for a reason: `"Which city?", "Metric?"`.
fn quoted(questions: &[String]) -> String {
    questions
        .iter()
        .map(|q| format!("{q:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn tools_of(pause: &Pause) -> String {
    match pause {
        Pause::Confirmation { tool } => tool.clone(),
        Pause::Approvals { tools } => {
            let names: Vec<&str> = tools.iter().map(|(_, name)| name.as_str()).collect();
            names.join(", ")
        }
        Pause::Questions { .. } => "no tool".into(),
    }
}

/// How long to wait before sending again a message kagent 1.0 did not
/// accept: its `ErrorInfo` (in the JSON-RPC error's `data`, alone, in a
/// list, or in `details`) says `KAGENT_SEND_NOT_ACCEPTED`, with
/// `retryAfterMs` as a string. Any other error is no invitation to resend.
fn retry_after(data: &Value) -> Option<Duration> {
    let infos = match data {
        Value::Array(list) => list.iter().collect::<Vec<_>>(),
        Value::Object(object) => match object.get("details").and_then(Value::as_array) {
            Some(details) => details.iter().collect(),
            None => vec![data],
        },
        _ => Vec::new(),
    };
    let info = infos.into_iter().find(|i| i["reason"] == NOT_ACCEPTED)?;
    let after = &info["metadata"]["retryAfterMs"];
    let millis = after
        .as_str()
        .and_then(|t| t.trim().parse::<u64>().ok())
        .or_else(|| after.as_u64());
    Some(
        millis
            .map_or(DEFAULT_RETRY_AFTER, Duration::from_millis)
            .min(LONGEST_RETRY_AFTER),
    )
}

/// Whether an answer is in the probe's conversation: the first one that
/// names a conversation, when the probe named none (A2A 1.0), makes it
/// the probe's; another is refused, as scoring that session would score
/// someone else's.
fn conversation(
    turn: usize,
    answered: Option<&str>,
    context: &mut Option<String>,
) -> Option<ProbeEnd> {
    match (context.as_deref(), answered) {
        (None, Some(answered)) => {
            *context = Some(answered.to_string());
            None
        }
        (Some(ours), Some(other)) if other != ours => Some(ProbeEnd::Refused(format!(
            "turn {turn}: the Agent answered in conversation {other}, not {ours}, the probe's: its session is not the probe's"
        ))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_kagents_not_accepted_reason_invites_a_resend() {
        let info = |after: Value| {
            json!({"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": NOT_ACCEPTED,
                   "domain": "kagent.dev", "metadata": {"retryAfterMs": after}})
        };
        assert_eq!(
            retry_after(&info(json!("250"))),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            retry_after(&json!([info(json!("100"))])),
            Some(Duration::from_millis(100))
        );
        assert_eq!(
            retry_after(&json!({"details": [info(json!(null))]})),
            Some(DEFAULT_RETRY_AFTER)
        );
        assert_eq!(
            retry_after(&info(json!("3600000"))),
            Some(LONGEST_RETRY_AFTER)
        );
        assert_eq!(
            retry_after(&Value::Null),
            None,
            "a bare -32004 is A2A's UnsupportedOperation"
        );
        assert_eq!(retry_after(&json!({"reason": "OTHER"})), None);
    }

    #[test]
    fn the_first_conversation_named_is_the_probes_and_another_is_refused() {
        let mut context = None;
        assert_eq!(conversation(1, None, &mut context), None);
        assert_eq!(conversation(1, Some("s1"), &mut context), None);
        assert_eq!(context.as_deref(), Some("s1"));
        assert_eq!(conversation(2, Some("s1"), &mut context), None);
        assert!(matches!(
            conversation(2, Some("s2"), &mut context),
            Some(ProbeEnd::Refused(_))
        ));
        assert_eq!(message_id("a", 1, 0), "a");
        assert_eq!(message_id("a", 2, 1), "a/2.1");
    }
}
