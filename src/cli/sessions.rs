//! `kagent-evals sessions` and `kagent-evals capture`.

use super::extract::{fetch_one, write_raw};
use super::output::{emit, table};
use super::{CommandError, SourceArgs, Status};
use crate::core::session::AgentRef;
use crate::core::session::SessionKey;
use crate::core::suite::compile::parse_duration;
use crate::core::task::RecordChoice;
use crate::source::{SessionQuery, SessionSource, SessionSummary};
use std::collections::HashMap;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct SessionsArgs {
    #[command(flatten)]
    source: SourceArgs,
    /// Only this agent's sessions: NAME, in the namespace of `-n` (else
    /// the current kube context's, else `default`, as kubectl), or
    /// NAMESPACE/NAME.
    #[arg(long, value_name = "NAME|NS/NAME")]
    agent: Option<String>,
    /// The namespace of `--agent NAME`.
    #[arg(short = 'n', long, value_name = "NS")]
    namespace: Option<String>,
    /// Show each session's first user message, truncated (opt-in: it is
    /// the conversation's content), to pick sessions to harvest.
    #[arg(long)]
    preview: bool,
    /// Only sessions updated within this long, e.g. 24h, 7d.
    #[arg(long, value_name = "DURATION")]
    since: Option<String>,
    /// At most this many, most recent first.
    #[arg(long, default_value_t = 50)]
    limit: usize,
    /// Also sessions another agent opened to call this one as a tool.
    #[arg(long)]
    include_sub_agent_sessions: bool,
    /// Also kagent 1.0 Sessions forked from another's checkpoint.
    #[arg(long)]
    include_forked_sessions: bool,
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
    let agent = args
        .agent
        .as_deref()
        .map(|agent| agent_ref(agent, args.namespace.as_deref()))
        .transpose()?;
    let query = SessionQuery {
        agent,
        since,
        limit: Some(args.limit),
        include_sub_agent_sessions: args.include_sub_agent_sessions,
        include_forked_sessions: args.include_forked_sessions,
        count_events: true,
    };
    let sessions = source.list(&query).await?;
    let previews = match args.preview {
        true => previews(&source, &sessions).await?,
        false => HashMap::new(),
    };
    // kagent 1.0 Sessions ran on an Agent revision; 0.10 sessions have none.
    let with_revision = sessions.iter().any(|s| s.revision.is_some());
    let mut header = vec!["SESSION", "USER", "AGENT"];
    header.extend(with_revision.then_some("REVISION"));
    header.extend(["EVENTS", "UPDATED"]);
    header.extend(args.preview.then_some("FIRST USER MESSAGE"));
    let rows = sessions.into_iter().map(|s| {
        let preview = args
            .preview
            .then(|| previews.get(&s.key).cloned().unwrap_or_else(|| "-".into()));
        let mut row = vec![
            s.key.id,
            s.key.user_id.unwrap_or_else(|| "-".into()),
            s.agent_id.unwrap_or_else(|| "-".into()),
        ];
        if with_revision {
            row.push(s.revision.unwrap_or_else(|| "-".into()));
        }
        row.push(s.events.map_or("?".into(), |n| n.to_string()));
        row.push(
            s.updated
                .map_or("-".into(), |t| t.strftime("%Y-%m-%d %H:%M:%S").to_string()),
        );
        row.extend(preview);
        row
    });
    let text = table(header, rows);
    emit(None, &text)?;
    Ok(Status::Ok)
}

/// Characters of a first user message `--preview` shows.
const PREVIEW_CHARS: usize = 60;

/// Each listed session's first user message on one line, secrets masked,
/// cut at [`PREVIEW_CHARS`].
async fn previews(
    source: &impl SessionSource,
    sessions: &[SessionSummary],
) -> Result<HashMap<SessionKey, String>, CommandError> {
    let keys: Vec<SessionKey> = sessions.iter().map(|s| s.key.clone()).collect();
    let fetched = source.fetch(&keys, None, RecordChoice::Auto).await?;
    Ok(fetched
        .into_iter()
        .map(|raw| {
            let session = raw.normalise();
            let text = session.first_user_text().unwrap_or("-");
            let (masked, _) = crate::core::redact::redact_text(text);
            let line = masked.split_whitespace().collect::<Vec<_>>().join(" ");
            let shown = match line.char_indices().nth(PREVIEW_CHARS) {
                Some((cut, _)) => format!("{}…", &line[..cut]),
                None => line,
            };
            (session.key, shown)
        })
        .collect())
}

/// `--agent` and `-n` as one Agent: NS/NAME as given, NAME in `-n`'s
/// namespace, else the current kube context's, else `default`.
fn agent_ref(agent: &str, namespace: Option<&str>) -> Result<AgentRef, CommandError> {
    if agent.contains('/') {
        if namespace.is_some() {
            return Err(CommandError(format!(
                "--agent {agent} names its namespace; leave out -n"
            )));
        }
        return agent
            .parse()
            .map_err(|e| CommandError(format!("--agent: {e}")));
    }
    let namespace = namespace
        .map(str::to_string)
        .or_else(context_namespace)
        .unwrap_or_else(|| "default".into());
    Ok(AgentRef {
        namespace,
        name: agent.to_string(),
    })
}

/// The namespace of the kubeconfig's current context, when it sets one.
fn context_namespace() -> Option<String> {
    namespace_of(&kube::config::Kubeconfig::read().ok()?)
}

fn namespace_of(config: &kube::config::Kubeconfig) -> Option<String> {
    let current = config.current_context.as_deref()?;
    config
        .contexts
        .iter()
        .find(|c| c.name == current)?
        .context
        .as_ref()?
        .namespace
        .clone()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_name_takes_its_namespace_from_n_and_ns_name_stands_alone() {
        let agent = agent_ref("weather", Some("kagent")).unwrap();
        assert_eq!(
            (agent.namespace.as_str(), agent.name.as_str()),
            ("kagent", "weather")
        );
        let agent = agent_ref("team/weather", None).unwrap();
        assert_eq!(
            (agent.namespace.as_str(), agent.name.as_str()),
            ("team", "weather")
        );
        let twice = agent_ref("team/weather", Some("kagent")).unwrap_err();
        assert!(twice.to_string().contains("leave out -n"), "{twice}");
    }

    #[test]
    fn the_current_contexts_namespace_is_read_from_the_kubeconfig() {
        let config = kube::config::Kubeconfig::from_yaml(
            "apiVersion: v1\nkind: Config\ncurrent-context: b\ncontexts:\n- name: a\n  context: {cluster: c, namespace: one}\n- name: b\n  context: {cluster: c, namespace: team}\n",
        )
        .unwrap();
        assert_eq!(namespace_of(&config).as_deref(), Some("team"));
        let without = kube::config::Kubeconfig::from_yaml(
            "apiVersion: v1\nkind: Config\ncurrent-context: a\ncontexts:\n- name: a\n  context: {cluster: c}\n",
        )
        .unwrap();
        assert_eq!(namespace_of(&without), None);
    }
}
