//! `kagent-evals sessions` and `kagent-evals capture`.

use super::extract::{fetch_one, write_raw};
use super::output::{emit, table};
use super::{CommandError, SourceArgs, Status};
use crate::core::session::AgentRef;
use crate::core::suite::compile::parse_duration;
use crate::source::{SessionQuery, SessionSource};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct SessionsArgs {
    #[command(flatten)]
    source: SourceArgs,
    /// Only this agent's sessions (NAMESPACE/NAME).
    #[arg(long, value_name = "NS/NAME")]
    agent: Option<AgentRef>,
    /// Only sessions updated within this long, e.g. 24h, 7d.
    #[arg(long, value_name = "DURATION")]
    since: Option<String>,
    /// At most this many, most recent first.
    #[arg(long, default_value_t = 50)]
    limit: usize,
    /// Also sessions another agent opened to call this one as a tool.
    #[arg(long)]
    include_sub_agent_sessions: bool,
}

pub async fn list(args: SessionsArgs) -> Result<Status, CommandError> {
    let source = args.source.build()?;
    let since = match &args.since {
        Some(text) => {
            let duration =
                parse_duration(text).map_err(|e| CommandError(format!("--since: {e}")))?;
            Some(
                jiff::Timestamp::now()
                    .checked_sub(duration)
                    .map_err(|e| CommandError(format!("--since: {e}")))?,
            )
        }
        None => None,
    };
    let query = SessionQuery {
        agent: args.agent,
        since,
        limit: Some(args.limit),
        include_sub_agent_sessions: args.include_sub_agent_sessions,
        count_events: true,
    };
    let sessions = source.list(&query).await?;
    let rows = sessions.into_iter().map(|s| {
        [
            s.key.id,
            s.key.user_id.unwrap_or_else(|| "-".into()),
            s.agent_id.unwrap_or_else(|| "-".into()),
            s.events.map_or("?".into(), |n| n.to_string()),
            s.updated
                .map_or("-".into(), |t| t.strftime("%Y-%m-%d %H:%M:%S").to_string()),
        ]
    });
    emit(
        None,
        &table(["SESSION", "USER", "AGENT", "EVENTS", "UPDATED"], rows),
    )?;
    Ok(Status::Ok)
}

#[derive(clap::Args)]
pub struct CaptureArgs {
    /// The session id.
    session: String,
    #[command(flatten)]
    source: SourceArgs,
    /// The session's user, where one id belongs to several users.
    #[arg(long)]
    user: Option<String>,
    /// Write here instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

pub async fn capture(args: CaptureArgs) -> Result<Status, CommandError> {
    let mut source = args.source.build()?;
    source.keep_event_json();
    let raw = fetch_one(&source, &args.session, args.user.as_deref()).await?;
    write_raw(raw, None, args.output.as_deref())
}
