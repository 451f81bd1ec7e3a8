//! `kagent-evals extract`: one session as a trajectory, its per-event
//! account, its invocations, or its raw events with secrets redacted.

use super::output::{Output, say, table, warn_issues};
use super::{CommandError, SourceArgs, Status};
use crate::core::convert::{self, ConvertOptions, split_by_invocation};
use crate::core::redact;
use crate::core::render::terminal::terminal_safe;
use crate::core::session::SessionKey;
use crate::core::task::RecordChoice;
use crate::source::{RawSession, SessionSource};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct ExtractArgs {
    /// The session id.
    session: String,
    #[command(flatten)]
    source: SourceArgs,
    /// The session's user, where one id belongs to several users.
    #[arg(long)]
    user: Option<String>,
    /// Print what each event contributed, or why it contributed nothing.
    #[arg(long, conflicts_with_all = ["list_invocations", "raw"])]
    summary: bool,
    /// List the session's invocations (user turns).
    #[arg(long, conflicts_with = "raw")]
    list_invocations: bool,
    /// Only this invocation.
    #[arg(long, value_name = "ID")]
    invocation_id: Option<String>,
    /// Keep the runtime's own `adk_*` tools.
    #[arg(long)]
    include_internal: bool,
    /// Also drop this tool (repeatable).
    #[arg(long, value_name = "NAME")]
    drop_tool: Vec<String>,
    /// Keep streaming partial events.
    #[arg(long)]
    include_partial: bool,
    /// Keep model reasoning (`thought` parts).
    #[arg(long)]
    include_thoughts: bool,
    /// Leave tool results in their `{"result": ...}` / MCP envelopes.
    #[arg(long)]
    no_unwrap: bool,
    /// Write the raw events as JSONL, secrets redacted (for a regression fixture).
    #[arg(long)]
    raw: bool,
    /// Write here instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

impl ExtractArgs {
    fn options(&self) -> ConvertOptions {
        ConvertOptions {
            drop_internal_tools: !self.include_internal,
            deny_tools: self.drop_tool.clone(),
            include_partial: self.include_partial,
            unwrap_tool_output: !self.no_unwrap,
            include_thoughts: self.include_thoughts,
            ..ConvertOptions::default()
        }
    }
}

pub async fn run(args: ExtractArgs) -> Result<Status, CommandError> {
    let mut source = args.source.build()?;
    if args.raw {
        source.keep_event_json();
    }
    let raw = fetch_one(&source, &args.session, args.user.as_deref()).await?;
    if args.raw {
        return write_raw(raw, args.invocation_id.as_deref(), args.output.as_deref());
    }
    let session = raw.normalise();
    let issues = warn_issues(&session.issues);
    let events: Vec<_> = match &args.invocation_id {
        None => session.events.iter().collect(),
        Some(id) => {
            let group = split_by_invocation(&session.events)
                .into_iter()
                .find(|(key, _)| key == id)
                .map(|(_, group)| group);
            group.ok_or_else(|| {
                CommandError(format!("invocation {id} is not in session {}", session.key))
            })?
        }
    };
    let options = args.options();
    let mut unscorable = false;
    if session.events.is_empty() && issues == 0 {
        say(&format!("warning: session {} has no events", session.key));
        unscorable = true;
    }
    let mut out = Output::open(args.output.as_deref())?;
    if args.list_invocations {
        let rows = split_by_invocation(events.iter().copied())
            .into_iter()
            .map(|(id, group)| {
                let conversion = convert::convert(group.iter().copied(), &options);
                let tools = convert::tool_names(&conversion.messages)
                    .collect::<Vec<_>>()
                    .join(",");
                [
                    if id.is_empty() { "(none)".into() } else { id },
                    group.len().to_string(),
                    conversion.messages.len().to_string(),
                    if tools.is_empty() { "-".into() } else { tools },
                ]
            });
        out.write(&table(["INVOCATION", "EVENTS", "MESSAGES", "TOOLS"], rows))?;
    } else if args.summary {
        let conversion = convert::convert(events.iter().copied(), &options);
        let rows = conversion.account.iter().map(|row| {
            [
                row.index.to_string(),
                row.author.to_string(),
                row.role.to_string(),
                row.invocation_id.to_string(),
                redact::redact_text(&row.describe()).0,
            ]
        });
        let mut text = table(["#", "AUTHOR", "ROLE", "INVOCATION", "CONTRIBUTED"], rows);
        text.push_str(&terminal_safe(&conversion.footer()));
        text.push('\n');
        out.write(&text)?;
    } else {
        // Converted, checked and redacted one message at a time as it is
        // written: a large session's trajectory is never held whole.
        let mut unreadable = None;
        let messages = convert::messages_by_event(events.iter().copied(), &options)
            .enumerate()
            .inspect(|(index, message)| {
                if unreadable.is_none() {
                    unreadable = crate::core::trajectory::step(message, index + 1).err();
                }
            })
            .map(|(_, message)| redact::redact_message(message));
        out.write_json_list(messages)?;
        // What the scorers cannot read (arguments that are not an object,
        // say) is said too, as `run` would refuse the session for it.
        if let Some(e) = unreadable {
            say(&format!("warning: the trajectory cannot be scored: {e}"));
            unscorable = true;
        }
    }
    out.finish()?;
    if let Some(path) = &args.output {
        eprintln!("wrote {}", path.display());
    }
    for note in &session.notes {
        say(&format!("note: {note}"));
    }
    if let Some(failure) = session.final_failure() {
        say(&format!(
            "warning: session {} ended in a failed task: {failure}",
            session.key
        ));
    }
    Ok(if issues > 0 || unscorable {
        Status::Failed
    } else {
        Status::Ok
    })
}

/// The one session with this id (and user, when given).
pub async fn fetch_one(
    source: &impl SessionSource,
    id: &str,
    user: Option<&str>,
) -> Result<RawSession, CommandError> {
    let key = SessionKey::new(id, user.map(str::to_string));
    let mut found = source
        .fetch(std::slice::from_ref(&key), None, RecordChoice::Auto)
        .await?;
    match found.len() {
        0 => Err(CommandError(format!(
            "session {key} not found in {}",
            source.describe()
        ))),
        1 => Ok(found.remove(0)),
        n => Err(CommandError(format!(
            "session id {id} belongs to {n} users in {}; name one with --user",
            source.describe()
        ))),
    }
}

/// The events as JSONL with secrets redacted; says what was redacted. A
/// kagent 1.0 session is written as its decoded rows (the fixture form of
/// `a2a_v1::fixture`), so `--fixture` reads back what the database held.
pub fn write_raw(
    raw: RawSession,
    invocation: Option<&str>,
    output: Option<&Path>,
) -> Result<Status, CommandError> {
    let issues = warn_issues(&raw.raw.issues);
    // All of the session at once (one session, for a person to read): a
    // secret found in one event is masked wherever it recurs in another.
    let (events, unit) = raw.stored(invocation).map_err(CommandError)?;
    let secrets = redact::Secrets::of(&events);
    let mut out = Output::open(output)?;
    let mut redacted = Vec::new();
    let mut count = 0;
    let written = events.len();
    for mut value in events {
        let redaction = redact::redact_with(&mut value, &secrets);
        count += redaction.count;
        redacted.extend(redaction.paths);
        let mut line = serde_json::to_string(&value).map_err(|e| CommandError(e.to_string()))?;
        line.push('\n');
        out.write(&line)?;
    }
    out.finish()?;
    let target = output.map_or("stdout".into(), |p| p.display().to_string());
    eprintln!("wrote {written} {unit} to {target}");
    redacted.sort();
    redacted.dedup();
    if count == 0 {
        eprintln!("redacted: nothing (no credentials, tokens or credential URLs found)");
    } else {
        eprintln!(
            "redacted {count} secret(s) to REDACTED, at {}",
            redacted.join(", ")
        );
    }
    Ok(if issues > 0 {
        Status::Failed
    } else {
        Status::Ok
    })
}
