//! Where a run reads sessions and asks its judge, and with whose credentials.
//!
//! This is the one place where a suite's spec, the settings of whoever runs
//! kagent-evals (the operator's flags, or the command line's flags and
//! environment), the suite namespace's Secrets and ModelConfigs, the Agent
//! and the tenancy rules meet. Its rule: **a destination and its credentials
//! come from the same party.** The operator's credentials go only to the
//! operator's own endpoints; a suite that names its own URL brings its own
//! credentials from a Secret in its namespace, or goes without; on the
//! command line a token or key from the flags or environment goes only to
//! the URL the flags or environment name. Sources and judges are then opened
//! from fully resolved settings and merge nothing.
//!
//! Everything here is a pure function of what was gathered beforehand, so
//! every decision is tested without a cluster.

pub mod hosts;
pub mod model_config;
pub mod tenancy;

use crate::a2a::ProtocolChoice;
use crate::core::read_limits::ReadLimits;
use crate::core::session::AgentRef;
use crate::core::suite::spec::{
    A2aProtocol, AgentApiVersion, JudgeSpec, ReadLimitsSpec, SecretKeyRef, SourceKind, SourceSpec,
    SuiteSpec,
};
use crate::http_client;
use crate::secret::Secret;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The kagent user whose sessions are read when nobody names one (kagent's
/// own default in its unsecured mode).
pub const DEFAULT_API_USER: &str = "admin@kagent.dev";
/// How long a judge may take to answer, unless the suite says otherwise.
pub const DEFAULT_JUDGE_TIMEOUT: Duration = Duration::from_secs(60);

/// Who supplied a destination or a credential.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Party {
    /// The operator's flags and mounted Secrets.
    Operator,
    /// The flags and environment of a command run by hand or in CI.
    CommandLine,
    /// The suite: its spec, and Secrets and ModelConfigs in its namespace.
    Suite,
}

impl fmt::Display for Party {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Party::Operator => "the operator's",
            Party::CommandLine => "the command line's",
            Party::Suite => "the suite's own",
        })
    }
}

/// The settings of whoever runs kagent-evals: the operator's flags, or the
/// command line's flags and environment.
#[derive(Clone, Debug)]
pub struct RunnerSettings {
    /// `Operator` or `CommandLine`.
    pub party: Party,
    pub source: Option<SourceKind>,
    pub fixture: Option<PathBuf>,
    pub database_url: Option<Secret>,
    /// The schema of kagent's tables in `database_url` (`--database-schema`).
    pub database_schema: Option<String>,
    pub api_url: Option<String>,
    pub api_user: Option<String>,
    pub api_token: Option<Secret>,
    pub api_timeout: Duration,
    /// The ADK app of `--adk-app` (the command line only).
    pub adk_app: Option<String>,
    pub judge_url: Option<String>,
    pub judge_model: Option<String>,
    pub judge_api_key: Option<Secret>,
    /// The Agent's A2A endpoint for probes (`--a2a-url`, the command line
    /// only: the operator reaches Agents through its kagent API URL).
    pub a2a_url: Option<String>,
    /// The A2A version probes speak (`--a2a-protocol`), over the suite's.
    pub a2a_protocol: Option<A2aProtocol>,
    /// Read limits of the command line (`--max-row-bytes`, ...), over the
    /// suite's `sessions.limits`.
    pub read_limits: ReadLimitsSpec,
}

impl RunnerSettings {
    pub fn new(party: Party) -> Self {
        RunnerSettings {
            party,
            source: None,
            fixture: None,
            database_url: None,
            database_schema: None,
            api_url: None,
            api_user: None,
            api_token: None,
            api_timeout: Duration::from_secs(30),
            adk_app: None,
            judge_url: None,
            judge_model: None,
            judge_api_key: None,
            a2a_url: None,
            a2a_protocol: None,
            read_limits: ReadLimitsSpec::default(),
        }
    }

    /// The source the flags imply when neither `--source` nor the suite
    /// names one: the kagent API when its URL is given, else the database.
    fn implied_source(&self) -> Option<SourceKind> {
        self.api_url
            .as_ref()
            .map(|_| SourceKind::KagentApi)
            .or(self.database_url.as_ref().map(|_| self.database_kind()))
    }

    /// The kind of the database at `database_url`: an ADK database when
    /// `--source adk-database`, `--adk-app` or a `sqlite:` URL says so,
    /// else kagent's own.
    fn database_kind(&self) -> SourceKind {
        let sqlite = self
            .database_url
            .as_ref()
            .is_some_and(|url| url.expose().starts_with("sqlite"));
        match self.source {
            Some(SourceKind::AdkDatabase) => SourceKind::AdkDatabase,
            Some(SourceKind::KagentPostgres) => SourceKind::KagentPostgres,
            _ if sqlite || self.adk_app.is_some() => SourceKind::AdkDatabase,
            _ => SourceKind::KagentPostgres,
        }
    }
}

/// What the operator allows suites beyond their own namespace.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    pub cross_namespace: tenancy::Allowed,
    /// Hosts a suite may name for its own source.
    pub source_hosts: hosts::AllowList,
    /// Hosts a suite may name for its own judge (or its ModelConfig may).
    pub judge_hosts: hosts::AllowList,
}

/// A Secret as gathered: its keys, a value `None` where it is not text.
pub type SecretData = BTreeMap<String, Option<Secret>>;

/// What the operator read from the cluster for one run, before deciding.
#[derive(Clone, Debug, Default)]
pub struct ClusterFacts {
    /// The suite's (and the run's) namespace.
    pub namespace: String,
    /// Read when the Agent is in another namespace.
    pub namespace_labels: Option<tenancy::NamespaceLabels>,
    /// The Agent's `spec`, when the Agent exists and could be read.
    pub agent_spec: Option<Value>,
    /// The Secrets the suite refers to, by name, or why each could not be read.
    pub secrets: BTreeMap<String, Result<SecretData, String>>,
    /// The ModelConfig the judge names: its `spec`, or why it could not be read.
    pub model_config: Option<Result<Value, String>>,
}

/// Why a run cannot go ahead as asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefusalReason {
    /// The suite may not do this (another namespace's Agent, the operator's
    /// data without an Agent, a host the operator does not allow).
    Forbidden,
    /// The suite's settings cannot be used where it runs.
    InvalidSpec,
    /// A source's settings or credentials are missing or unreadable.
    SourceUnavailable,
    /// A judge's settings or credentials are missing or unreadable.
    JudgeUnavailable,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Refusal {
    pub reason: RefusalReason,
    pub message: String,
}

fn refuse(reason: RefusalReason, message: impl Into<String>) -> Refusal {
    Refusal {
        reason,
        message: message.into(),
    }
}

/// A source to open, with nothing left to merge.
#[derive(Clone, Debug, PartialEq)]
pub enum SourceSettings {
    Fixture {
        path: PathBuf,
    },
    KagentPostgres {
        url: Secret,
        /// The schema named for kagent's tables; searched when `None`.
        schema: Option<String>,
    },
    KagentApi {
        url: String,
        user: String,
        token: Option<Secret>,
        timeout: Duration,
    },
    AdkDatabase {
        url: Secret,
        app: String,
    },
    /// No source: every case probes the Agent and reads its conversation
    /// from the Agent (`probes.readFrom: agent`).
    Nothing,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ResolvedSource {
    pub settings: SourceSettings,
    /// Whose destination it is.
    pub party: Party,
}

/// How a judge's key goes on the wire.
#[derive(Clone, Debug, PartialEq)]
pub enum JudgeAuth {
    None,
    /// `Authorization: Bearer <key>`.
    Bearer(Secret),
    /// A header of its own, e.g. Azure's `api-key`.
    Header(&'static str, Secret),
}

/// A judge endpoint to ask, with nothing left to merge.
#[derive(Clone, Debug, PartialEq)]
pub struct JudgeSettings {
    /// Base URL of an OpenAI-compatible API (up to `/v1`, or Azure's deployment).
    pub url: String,
    pub model: String,
    pub auth: JudgeAuth,
    pub query: Vec<(String, String)>,
    pub headers: Vec<(String, String)>,
    pub timeout: Duration,
    pub party: Party,
}

/// Where a run reads and asks, and what the resolver had to say about it.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolution {
    pub source: ResolvedSource,
    pub judge: Option<JudgeSettings>,
    /// Where probes are sent: the Agent's A2A endpoint, and how the A2A
    /// version it speaks is chosen.
    pub agent_endpoint: Option<AgentEndpoint>,
    /// How much of a session the source holds.
    pub read_limits: ReadLimits,
    /// Settings of the suite replaced by explicit flags (command line only).
    pub notes: Vec<String>,
}

/// The Agent's A2A endpoint, for probes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentEndpoint {
    pub url: String,
    pub protocol: ProtocolChoice,
}

/// One run to resolve.
pub struct Request<'a> {
    pub spec: &'a SuiteSpec,
    /// The Agent evaluated, its namespace filled in.
    pub agent: Option<&'a AgentRef>,
    /// Whether any evaluator needs a judge.
    pub needs_judge: bool,
    /// Whether any case probes the Agent.
    pub needs_agent_endpoint: bool,
    /// Whether any case is scored on sessions a source records.
    pub needs_source: bool,
    pub defaults: &'a RunnerSettings,
    /// The suite file's folder, which its fixture paths are relative to.
    pub base: &'a Path,
    /// What the operator read from the cluster; `None` on the command line.
    pub cluster: Option<&'a ClusterFacts>,
    pub policy: &'a Policy,
}

/// Decide where a run reads and asks, or why it may not.
pub fn resolve(request: &Request<'_>) -> Result<Resolution, Refusal> {
    let mut notes = Vec::new();
    if let (Some(cluster), Some(agent)) = (request.cluster, request.agent) {
        tenancy::may_evaluate(
            &cluster.namespace,
            agent,
            &request.policy.cross_namespace,
            cluster.agent_spec.as_ref(),
            cluster.namespace_labels.as_ref(),
        )
        .map_err(|m| refuse(RefusalReason::Forbidden, m))?;
    }
    let source = match request.cluster {
        _ if !request.needs_source => no_source(request, &mut notes)?,
        Some(cluster) => source_in_cluster(request, cluster)?,
        None => source_on_command_line(request, &mut notes)?,
    };
    let judge = if request.needs_judge {
        resolve_judge(
            request.spec.judge.as_ref(),
            request.defaults,
            request.cluster,
            request.policy,
        )?
    } else {
        None
    };
    let agent_endpoint = if request.needs_agent_endpoint {
        Some(AgentEndpoint {
            url: agent_endpoint(request)?,
            protocol: protocol_choice(request, &mut notes),
        })
    } else {
        None
    };
    let read_limits = ReadLimits::from_spec(
        &request
            .spec
            .sessions
            .limits
            .overridden_by(&request.defaults.read_limits),
    );
    Ok(Resolution {
        source,
        judge,
        agent_endpoint,
        read_limits,
        notes,
    })
}

/// The A2A version probes speak: `--a2a-protocol`, else the suite's
/// `probes.protocol`, else 1.0 for a kagent 1.0 Agent, else what the
/// Agent's card offers.
fn protocol_choice(request: &Request<'_>, notes: &mut Vec<String>) -> ProtocolChoice {
    let suite = request.spec.probes.as_ref().and_then(|p| p.protocol);
    if let Some(protocol) = request.defaults.a2a_protocol {
        if suite.is_some_and(|s| s != protocol) {
            notes.push("--a2a-protocol replaces the suite's probes.protocol".into());
        }
        return ProtocolChoice::Given {
            protocol,
            by: "--a2a-protocol".into(),
        };
    }
    if let Some(protocol) = suite {
        return ProtocolChoice::Given {
            protocol,
            by: "the suite's probes.protocol".into(),
        };
    }
    match agent_api_version(request.spec) {
        AgentApiVersion::V1Alpha3 => ProtocolChoice::Given {
            protocol: A2aProtocol::V1_0,
            by: "the agentRef (a kagent 1.0 api.kagent.dev/v1alpha3 Agent)".into(),
        },
        AgentApiVersion::V1Alpha2 => ProtocolChoice::FromCard,
    }
}

/// Which kagent line's Agent the suite evaluates.
fn agent_api_version(spec: &SuiteSpec) -> AgentApiVersion {
    spec.agent_ref
        .as_ref()
        .and_then(|a| a.api_version)
        .unwrap_or_default()
}

/// The A2A endpoint probes go to. In the cluster it is the Agent's, as the
/// operator's kagent controller serves it (kagent 0.10:
/// `/api/a2a/NAMESPACE/NAME/`; 1.0: `/agents/NAMESPACE/NAME`); a suite
/// cannot point probes elsewhere. On the command line, `--a2a-url`.
fn agent_endpoint(request: &Request<'_>) -> Result<String, Refusal> {
    let defaults = request.defaults;
    match request.cluster {
        Some(_) => {
            let agent = request.agent.ok_or_else(|| {
                refuse(RefusalReason::InvalidSpec, "probes need the suite's agentRef: they are sent to that Agent")
            })?;
            let api = defaults.api_url.as_deref().ok_or_else(|| {
                refuse(
                    RefusalReason::InvalidSpec,
                    "probes are sent through kagent's controller, and the operator has no kagent API URL (kagent.api.url)",
                )
            })?;
            let (ns, name) = (agent.namespace.as_str(), agent.name.as_str());
            let (segments, marker): (&[&str], _) = match agent_api_version(request.spec) {
                AgentApiVersion::V1Alpha2 => (&["api", "a2a", ns, name, ""], "a2a"),
                AgentApiVersion::V1Alpha3 => (&["agents", ns, name], "agents"),
            };
            let url = http_client::endpoint(api, segments)
                .map_err(|e| refuse(RefusalReason::InvalidSpec, format!("spec.agentRef: {e}")))?;
            same_agent_namespace(&url, marker, ns)?;
            Ok(url.to_string())
        }
        None => defaults.a2a_url.clone().ok_or_else(|| {
            refuse(
                RefusalReason::InvalidSpec,
                "the suite probes the Agent: pass --a2a-url, the Agent's A2A endpoint (kagent 0.10 serves it at http://CONTROLLER:8083/api/a2a/NAMESPACE/NAME/, kagent 1.0 at http://CONTROLLER:8083/agents/NAMESPACE/NAME)",
            )
        }),
    }
}

/// Defence in depth: the namespace in the built path, the segment after
/// `marker` that the Agent's name follows, is the one tenancy allowed,
/// whatever the names held.
fn same_agent_namespace(url: &reqwest::Url, marker: &str, allowed: &str) -> Result<(), Refusal> {
    let mut segments: Vec<&str> = url
        .path_segments()
        .map(Iterator::collect)
        .unwrap_or_default();
    if segments.last() == Some(&"") {
        segments.pop();
    }
    let namespace = match segments.as_slice() {
        [.., before, namespace, _name] if *before == marker => Some(*namespace),
        _ => None,
    };
    if namespace == Some(allowed) {
        Ok(())
    } else {
        Err(refuse(
            RefusalReason::Forbidden,
            format!(
                "spec.agentRef.namespace: the probe URL would reach namespace {}, not {allowed}, which tenancy allowed",
                namespace.unwrap_or("(none)")
            ),
        ))
    }
}

/// The Secrets a suite refers to in its namespace, which the operator reads
/// before resolving (the ModelConfig's key Secret is read with the ModelConfig).
pub fn referenced_secrets(spec: &SuiteSpec, needs_judge: bool) -> BTreeSet<String> {
    let source = spec.source.as_ref();
    let mut refs: Vec<&SecretKeyRef> = [
        source
            .and_then(|s| s.kagent_postgres.as_ref())
            .and_then(|p| p.url_secret_ref.as_ref()),
        source
            .and_then(|s| s.kagent_api.as_ref())
            .and_then(|a| a.token_secret_ref.as_ref()),
        source
            .and_then(|s| s.adk_database.as_ref())
            .and_then(|a| a.url_secret_ref.as_ref()),
    ]
    .into_iter()
    .flatten()
    .collect();
    if needs_judge {
        refs.extend(
            spec.judge
                .as_ref()
                .and_then(|j| j.api_key_secret_ref.as_ref()),
        );
    }
    refs.into_iter()
        .filter(|r| r.namespace.is_none())
        .map(|r| r.name.clone())
        .collect()
}

/// The ModelConfig a judged suite names, which the operator reads first.
pub fn referenced_model_config(spec: &SuiteSpec, needs_judge: bool) -> Option<&str> {
    let judge = spec.judge.as_ref().filter(|_| needs_judge)?;
    judge
        .model_config_ref
        .as_ref()
        .filter(|_| judge.url.is_none())
        .map(|r| r.name.as_str())
}

// Sources ----------------------------------------------------------------

fn source_kind(source: Option<&SourceSpec>) -> Result<Option<SourceKind>, Refusal> {
    source
        .map(SourceSpec::kind)
        .transpose()
        .map_err(|m| refuse(RefusalReason::InvalidSpec, format!("spec.source: {m}")))
}

/// A suite without an Agent may not read data the operator holds for every agent.
fn needs_agent<'a>(agent: Option<&'a AgentRef>, what: &str) -> Result<&'a AgentRef, Refusal> {
    agent.ok_or_else(|| {
        refuse(
            RefusalReason::Forbidden,
            format!("a suite without agentRef reads only a source of its own (a Secret in its namespace), not {what}, which holds every agent's sessions"),
        )
    })
}

/// The source of a suite that reads none: a source the suite names is
/// refused, as it would not be read; one the runner's settings name is
/// let be, and said so on the command line.
fn no_source(request: &Request<'_>, notes: &mut Vec<String>) -> Result<ResolvedSource, Refusal> {
    const WHY: &str =
        "every case probes the Agent and reads its conversation from it (probes.readFrom: agent)";
    if request.spec.source.is_some() {
        return Err(refuse(
            RefusalReason::InvalidSpec,
            format!(
                "spec.source is not read: {WHY}; remove it, or read the probes' sessions from it (probes.readFrom: source)"
            ),
        ));
    }
    let defaults = request.defaults;
    let named = defaults.source.is_some() || defaults.fixture.is_some();
    if request.cluster.is_none() && (named || defaults.implied_source().is_some()) {
        notes.push(format!(
            "the source the command line names is not read: {WHY}"
        ));
    }
    Ok(ResolvedSource {
        settings: SourceSettings::Nothing,
        party: defaults.party,
    })
}

fn source_in_cluster(
    request: &Request<'_>,
    cluster: &ClusterFacts,
) -> Result<ResolvedSource, Refusal> {
    let defaults = request.defaults;
    let suite_source = request.spec.source.as_ref();
    let kind = match source_kind(suite_source)? {
        Some(kind) => kind,
        None => defaults
            .source
            .or(defaults.implied_source())
            .ok_or_else(|| {
                refuse(
                    RefusalReason::SourceUnavailable,
                    "the suite names no source and the operator has no default source",
                )
            })?,
    };
    let unavailable = RefusalReason::SourceUnavailable;
    match kind {
        SourceKind::Fixture => Err(refuse(
            RefusalReason::InvalidSpec,
            "spec.source: fixture sources are for the command line; in the cluster use kagentPostgres, kagentApi or adkDatabase",
        )),
        SourceKind::KagentPostgres => {
            let own = suite_source.and_then(|s| s.kagent_postgres.as_ref());
            let schema = own.and_then(|p| p.schema.clone());
            match own.and_then(|p| p.url_secret_ref.as_ref()) {
                Some(reference) => {
                    let at = "spec.source.kagentPostgres.urlSecretRef";
                    let url = secret(cluster, reference, at, unavailable)?;
                    check_database(&url, &request.policy.source_hosts, at)?;
                    Ok(ResolvedSource {
                        settings: SourceSettings::KagentPostgres { url, schema },
                        party: Party::Suite,
                    })
                }
                // The operator's database is read where the operator says.
                None if schema.is_some() => Err(refuse(
                    RefusalReason::InvalidSpec,
                    "spec.source.kagentPostgres.schema applies to the suite's own database (urlSecretRef); the operator's database is read in the schema the operator names (--database-schema)",
                )),
                None => {
                    let url = operator_database(defaults, SourceKind::KagentPostgres)?;
                    needs_agent(request.agent, "the operator's kagent database")?;
                    Ok(ResolvedSource {
                        settings: SourceSettings::KagentPostgres {
                            url,
                            schema: defaults.database_schema.clone(),
                        },
                        party: Party::Operator,
                    })
                }
            }
        }
        SourceKind::KagentApi => {
            let api = suite_source
                .and_then(|s| s.kagent_api.clone())
                .unwrap_or_default();
            let user = api
                .user_id
                .clone()
                .or(defaults.api_user.clone())
                .unwrap_or_else(|| DEFAULT_API_USER.into());
            let own_token = api
                .token_secret_ref
                .as_ref()
                .map(|r| {
                    secret(
                        cluster,
                        r,
                        "spec.source.kagentApi.tokenSecretRef",
                        unavailable,
                    )
                })
                .transpose()?;
            let operators = defaults.api_url.as_deref();
            match api.url {
                Some(url) if !same_endpoint(&url, operators) => {
                    check_url(
                        &url,
                        &request.policy.source_hosts,
                        "spec.source.kagentApi.url",
                    )?;
                    Ok(ResolvedSource {
                        settings: SourceSettings::KagentApi {
                            url,
                            user,
                            token: own_token,
                            timeout: defaults.api_timeout,
                        },
                        party: Party::Suite,
                    })
                }
                _ => {
                    let url = operators.map(String::from).ok_or_else(|| {
                        refuse(
                            unavailable,
                            "spec.source.kagentApi names no url and the operator has no kagent API",
                        )
                    })?;
                    needs_agent(request.agent, "the operator's kagent API")?;
                    Ok(ResolvedSource {
                        settings: SourceSettings::KagentApi {
                            url,
                            user,
                            token: own_token.or(defaults.api_token.clone()),
                            timeout: defaults.api_timeout,
                        },
                        party: Party::Operator,
                    })
                }
            }
        }
        SourceKind::AdkDatabase => {
            let adk = suite_source
                .and_then(|s| s.adk_database.clone())
                .unwrap_or_default();
            match &adk.url_secret_ref {
                Some(reference) => {
                    let at = "spec.source.adkDatabase.urlSecretRef";
                    let url = secret(cluster, reference, at, unavailable)?;
                    check_database(&url, &request.policy.source_hosts, at)?;
                    let app = adk
                        .app_name
                        .clone()
                        .or(request.agent.map(AgentRef::kagent_id))
                        .ok_or_else(|| {
                            refuse(
                                RefusalReason::InvalidSpec,
                                "spec.source.adkDatabase needs appName, or an agentRef whose app it reads",
                            )
                        })?;
                    Ok(ResolvedSource {
                        settings: SourceSettings::AdkDatabase { url, app },
                        party: Party::Suite,
                    })
                }
                None => {
                    let url = operator_database(defaults, SourceKind::AdkDatabase)?;
                    let agent = needs_agent(request.agent, "the operator's ADK database")?;
                    let app = agent.kagent_id();
                    if let Some(named) = adk.app_name.as_ref().filter(|n| **n != app) {
                        return Err(refuse(
                            RefusalReason::Forbidden,
                            format!(
                                "spec.source.adkDatabase.appName: the operator's ADK database is read only for the app of the suite's Agent ({app}), not {named}; to read another app, name a database of your own in urlSecretRef"
                            ),
                        ));
                    }
                    Ok(ResolvedSource {
                        settings: SourceSettings::AdkDatabase { url, app },
                        party: Party::Operator,
                    })
                }
            }
        }
    }
}

/// The operator's database, when it is of the kind the suite asks for.
fn operator_database(defaults: &RunnerSettings, kind: SourceKind) -> Result<Secret, Refusal> {
    let what = match kind {
        SourceKind::AdkDatabase => "an ADK database",
        _ => "a kagent database",
    };
    match &defaults.database_url {
        Some(url) if defaults.database_kind() == kind => Ok(url.clone()),
        Some(_) => Err(refuse(
            RefusalReason::SourceUnavailable,
            format!(
                "the operator's database is not {what}; give the suite a database of its own (urlSecretRef)"
            ),
        )),
        None => Err(refuse(
            RefusalReason::SourceUnavailable,
            format!(
                "the suite names no database of its own (urlSecretRef) and the operator has no {}",
                &what[2..]
            ),
        )),
    }
}

fn source_on_command_line(
    request: &Request<'_>,
    notes: &mut Vec<String>,
) -> Result<ResolvedSource, Refusal> {
    let defaults = request.defaults;
    let suite_source = request.spec.source.as_ref();
    let kind = defaults
        .source
        .or(defaults.fixture.as_ref().map(|_| SourceKind::Fixture))
        .or(source_kind(suite_source)?)
        .or(defaults.implied_source())
        .ok_or_else(|| {
            refuse(
                RefusalReason::SourceUnavailable,
                "no source: pass --fixture PATH, --api-url URL or --database-url URL (or set KAGENT_EVALS_DATABASE_URL), or give the suite a spec.source",
            )
        })?;
    let unavailable = |m: &str| refuse(RefusalReason::SourceUnavailable, m);
    let only_in_cluster = |field: &str, instead: &str| {
        refuse(
            RefusalReason::InvalidSpec,
            format!(
                "{field} names a Secret, which only the operator reads; on the command line {instead}"
            ),
        )
    };
    let mut replaced = |flag: &str, field: &str, suite: Option<&String>, flag_value: &str| {
        if let Some(suite) = suite.filter(|s| s.as_str() != flag_value) {
            notes.push(format!(
                "{flag} {flag_value} replaces the suite's {field} {suite}"
            ));
        }
    };
    let settings = match kind {
        SourceKind::Fixture => {
            let path = match (
                &defaults.fixture,
                suite_source.and_then(|s| s.fixture.as_ref()),
            ) {
                (Some(path), _) => path.clone(),
                (None, Some(fixture)) => request.base.join(&fixture.path),
                (None, None) => {
                    return Err(unavailable(
                        "a fixture source needs a path: pass --fixture PATH",
                    ));
                }
            };
            return Ok(ResolvedSource {
                settings: SourceSettings::Fixture { path },
                party: if defaults.fixture.is_some() {
                    Party::CommandLine
                } else {
                    Party::Suite
                },
            });
        }
        SourceKind::KagentPostgres => {
            let url = match &defaults.database_url {
                Some(url) => url.clone(),
                None if suite_source
                    .and_then(|s| s.kagent_postgres.as_ref())
                    .is_some_and(|p| p.url_secret_ref.is_some()) =>
                {
                    return Err(only_in_cluster(
                        "spec.source.kagentPostgres.urlSecretRef",
                        "pass --database-url or set KAGENT_EVALS_DATABASE_URL",
                    ));
                }
                None => {
                    return Err(unavailable(
                        "a kagentPostgres source needs a database URL: pass --database-url or set KAGENT_EVALS_DATABASE_URL",
                    ));
                }
            };
            // The command line's schema over the suite's.
            let schema = defaults.database_schema.clone().or_else(|| {
                suite_source
                    .and_then(|s| s.kagent_postgres.as_ref())
                    .and_then(|p| p.schema.clone())
            });
            SourceSettings::KagentPostgres { url, schema }
        }
        SourceKind::KagentApi => {
            let api = suite_source
                .and_then(|s| s.kagent_api.clone())
                .unwrap_or_default();
            let user = match &defaults.api_user {
                Some(user) => {
                    replaced("--api-user", "kagentApi.userId", api.user_id.as_ref(), user);
                    user.clone()
                }
                None => api
                    .user_id
                    .clone()
                    .unwrap_or_else(|| DEFAULT_API_USER.into()),
            };
            let (url, token) = match (&defaults.api_url, &api.url) {
                (Some(url), suite_url) => {
                    replaced("--api-url", "kagentApi.url", suite_url.as_ref(), url);
                    (url.clone(), defaults.api_token.clone())
                }
                (None, Some(url)) => {
                    if api.token_secret_ref.is_some() {
                        return Err(only_in_cluster(
                            "spec.source.kagentApi.tokenSecretRef",
                            "pass --api-url and --api-token-file (or KAGENT_EVALS_API_TOKEN)",
                        ));
                    }
                    if defaults.api_token.is_some() {
                        return Err(refuse(
                            RefusalReason::Forbidden,
                            format!(
                                "the suite names its own kagent API ({}); the token of --api-token-file or KAGENT_EVALS_API_TOKEN goes only to --api-url: pass --api-url to send it to that URL, or unset it",
                                crate::core::redact::url_for_display(url)
                            ),
                        ));
                    }
                    (url.clone(), None)
                }
                (None, None) => {
                    return Err(unavailable(
                        "a kagentApi source needs a URL: pass --api-url or set spec.source.kagentApi.url",
                    ));
                }
            };
            SourceSettings::KagentApi {
                url,
                user,
                token,
                timeout: defaults.api_timeout,
            }
        }
        SourceKind::AdkDatabase => {
            let adk = suite_source
                .and_then(|s| s.adk_database.clone())
                .unwrap_or_default();
            let url = match &defaults.database_url {
                Some(url) => url.clone(),
                None if adk.url_secret_ref.is_some() => {
                    return Err(only_in_cluster(
                        "spec.source.adkDatabase.urlSecretRef",
                        "pass --database-url",
                    ));
                }
                None => {
                    return Err(unavailable(
                        "an adkDatabase source needs a database URL: pass --database-url (sqlite:PATH or postgres://...)",
                    ));
                }
            };
            let app = match &defaults.adk_app {
                Some(app) => {
                    replaced("--adk-app", "adkDatabase.appName", adk.app_name.as_ref(), app);
                    app.clone()
                }
                None => adk
                    .app_name
                    .clone()
                    .or(request.agent.map(AgentRef::kagent_id))
                    .ok_or_else(|| unavailable("an adkDatabase source needs an app: pass --adk-app or set spec.source.adkDatabase.appName"))?,
            };
            SourceSettings::AdkDatabase { url, app }
        }
    };
    Ok(ResolvedSource {
        settings,
        party: Party::CommandLine,
    })
}

/// A Secret's key from what was gathered, refused when the reference leaves
/// the suite's namespace.
fn secret(
    cluster: &ClusterFacts,
    reference: &SecretKeyRef,
    at: &str,
    reason: RefusalReason,
) -> Result<Secret, Refusal> {
    if reference
        .namespace
        .as_ref()
        .is_some_and(|n| *n != cluster.namespace)
    {
        return Err(refuse(
            RefusalReason::Forbidden,
            format!(
                "{at}: Secret {} is referenced in another namespace; references resolve in {}",
                reference.name, cluster.namespace
            ),
        ));
    }
    let named = format!("{at}: Secret {}/{}", cluster.namespace, reference.name);
    let data = match cluster.secrets.get(&reference.name) {
        Some(Ok(data)) => data,
        Some(Err(why)) => return Err(refuse(reason, format!("{named}: {why}"))),
        None => return Err(refuse(reason, format!("{named} was not read"))),
    };
    match data.get(&reference.key) {
        Some(Some(value)) => Ok(value.clone()),
        Some(None) => Err(refuse(
            reason,
            format!("{named}: key {} is not text", reference.key),
        )),
        None => Err(refuse(
            reason,
            format!("{named} has no key {}", reference.key),
        )),
    }
}

/// The host of a URL, when it has one.
fn host_of(url: &str) -> Option<String> {
    reqwest::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
}

fn check_url(url: &str, allowed: &hosts::AllowList, at: &str) -> Result<(), Refusal> {
    match host_of(url) {
        Some(host) if allowed.permits(&host) => Ok(()),
        Some(host) => Err(refuse(
            RefusalReason::Forbidden,
            format!(
                "{at}: host {host} is not among the hosts the operator allows suites to name ({allowed})"
            ),
        )),
        None => Err(refuse(
            RefusalReason::InvalidSpec,
            format!("{at}: not a URL with a host"),
        )),
    }
}

/// A suite's own database URL: a server the operator may reach, never a
/// file on the operator's own filesystem.
fn check_database(url: &Secret, allowed: &hosts::AllowList, at: &str) -> Result<(), Refusal> {
    if url.expose().starts_with("sqlite") {
        return Err(refuse(
            RefusalReason::Forbidden,
            format!(
                "{at}: a SQLite file would be read from the operator's own filesystem; name a database server"
            ),
        ));
    }
    check_url(url.expose(), allowed, at)
}

/// Whether two base URLs name the same endpoint (scheme, host, port, path).
fn same_endpoint(a: &str, b: Option<&str>) -> bool {
    let key = |url: &str| {
        reqwest::Url::parse(url).ok().map(|u| {
            (
                u.scheme().to_string(),
                u.host_str().map(str::to_ascii_lowercase),
                u.port_or_known_default(),
                u.path().trim_end_matches('/').to_string(),
            )
        })
    };
    match (key(a), b.and_then(key)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

// Judges -----------------------------------------------------------------

/// The judge of judged evaluators, from the suite's `judge` and the
/// defaults; `None` when nobody names one.
pub fn resolve_judge(
    spec: Option<&JudgeSpec>,
    defaults: &RunnerSettings,
    cluster: Option<&ClusterFacts>,
    policy: &Policy,
) -> Result<Option<JudgeSettings>, Refusal> {
    match cluster {
        Some(cluster) => judge_in_cluster(spec, defaults, cluster, policy),
        None => judge_on_command_line(spec, defaults),
    }
}

fn judge_timeout(spec: Option<&JudgeSpec>) -> Duration {
    spec.and_then(|s| s.timeout_seconds)
        .map_or(DEFAULT_JUDGE_TIMEOUT, |s| Duration::from_secs(s.into()))
}

fn bearer(key: Option<Secret>) -> JudgeAuth {
    key.map_or(JudgeAuth::None, JudgeAuth::Bearer)
}

fn judge_on_command_line(
    spec: Option<&JudgeSpec>,
    defaults: &RunnerSettings,
) -> Result<Option<JudgeSettings>, Refusal> {
    let suite_url = spec.and_then(|s| s.url.clone());
    let (url, party) = match (&defaults.judge_url, &suite_url) {
        (Some(url), _) => (url.clone(), Party::CommandLine),
        (None, Some(url)) => (url.clone(), Party::Suite),
        (None, None) if spec.is_some_and(|s| s.model_config_ref.is_some()) => {
            return Err(refuse(
                RefusalReason::InvalidSpec,
                "spec.judge.modelConfigRef names a ModelConfig, which only the operator reads; on the command line pass --judge-url and --judge-model",
            ));
        }
        (None, None) => return Ok(None),
    };
    let key = match party {
        Party::Suite if spec.is_some_and(|s| s.api_key_secret_ref.is_some()) => {
            return Err(refuse(
                RefusalReason::InvalidSpec,
                "spec.judge.apiKeySecretRef names a Secret, which only the operator reads; on the command line pass --judge-url and --judge-api-key-file (or KAGENT_EVALS_JUDGE_API_KEY)",
            ));
        }
        Party::Suite if defaults.judge_api_key.is_some() => {
            return Err(refuse(
                RefusalReason::Forbidden,
                format!(
                    "the suite names its own judge ({}); the key of --judge-api-key-file or KAGENT_EVALS_JUDGE_API_KEY goes only to --judge-url: pass --judge-url to send it to that URL, or unset it",
                    crate::core::redact::url_for_display(&url)
                ),
            ));
        }
        Party::Suite => None,
        _ => defaults.judge_api_key.clone(),
    };
    let model = defaults
        .judge_model
        .clone()
        .or(spec.and_then(|s| s.model.clone()))
        .ok_or_else(|| {
            refuse(
                RefusalReason::JudgeUnavailable,
                "the judge needs a model: pass --judge-model or set spec.judge.model",
            )
        })?;
    Ok(Some(JudgeSettings {
        url,
        model,
        auth: bearer(key),
        query: Vec::new(),
        headers: Vec::new(),
        timeout: judge_timeout(spec),
        party,
    }))
}

fn judge_in_cluster(
    spec: Option<&JudgeSpec>,
    defaults: &RunnerSettings,
    cluster: &ClusterFacts,
    policy: &Policy,
) -> Result<Option<JudgeSettings>, Refusal> {
    let unavailable = RefusalReason::JudgeUnavailable;
    let own_key = spec
        .and_then(|s| s.api_key_secret_ref.as_ref())
        .map(|r| secret(cluster, r, "spec.judge.apiKeySecretRef", unavailable))
        .transpose()?;
    let suite_model = spec.and_then(|s| s.model.clone());
    let timeout = judge_timeout(spec);
    let no_model = |whose: &str| {
        refuse(
            unavailable,
            format!("the judge needs a model: set spec.judge.model ({whose} names none)"),
        )
    };
    if let Some(reference) = spec
        .and_then(|s| s.model_config_ref.as_ref())
        .filter(|_| spec.is_some_and(|s| s.url.is_none()))
    {
        let named = format!(
            "spec.judge.modelConfigRef: ModelConfig {}/{}",
            cluster.namespace, reference.name
        );
        let config = match &cluster.model_config {
            Some(Ok(config)) => config,
            Some(Err(why)) => return Err(refuse(unavailable, format!("{named}: {why}"))),
            None => return Err(refuse(unavailable, format!("{named} was not read"))),
        };
        let endpoint = model_config::endpoint(config)
            .map_err(|why| refuse(unavailable, format!("{named}: {why}")))?;
        check_url(&endpoint.url, &policy.judge_hosts, &named)?;
        let key = match own_key {
            Some(key) => Some(key),
            None => model_config::key_secret(config)
                .map_err(|why| refuse(RefusalReason::InvalidSpec, format!("{named}: {why}")))?
                .map(|(name, key)| {
                    let reference = SecretKeyRef {
                        name,
                        key,
                        namespace: None,
                    };
                    secret(
                        cluster,
                        &reference,
                        &format!("{named} (apiKeySecret)"),
                        unavailable,
                    )
                })
                .transpose()?,
        };
        let auth = match (key, endpoint.key_header) {
            (None, _) => JudgeAuth::None,
            (Some(key), model_config::KeyHeader::Bearer) => JudgeAuth::Bearer(key),
            (Some(key), model_config::KeyHeader::ApiKey) => JudgeAuth::Header("api-key", key),
        };
        let model = suite_model
            .or(endpoint.model)
            .ok_or_else(|| no_model("the ModelConfig"))?;
        return Ok(Some(JudgeSettings {
            url: endpoint.url,
            model,
            auth,
            query: endpoint.query,
            headers: endpoint.headers,
            timeout,
            party: Party::Suite,
        }));
    }
    let operators = defaults.judge_url.as_deref();
    match spec.and_then(|s| s.url.clone()) {
        Some(url) if !same_endpoint(&url, operators) => {
            check_url(&url, &policy.judge_hosts, "spec.judge.url")?;
            let model = suite_model.ok_or_else(|| no_model("the suite"))?;
            Ok(Some(JudgeSettings {
                url,
                model,
                auth: bearer(own_key),
                query: Vec::new(),
                headers: Vec::new(),
                timeout,
                party: Party::Suite,
            }))
        }
        _ => {
            let Some(url) = operators.map(String::from) else {
                return Err(refuse(
                    unavailable,
                    "the suite names no judge (spec.judge.url or modelConfigRef) and the operator has none",
                ));
            };
            let model = suite_model
                .or(defaults.judge_model.clone())
                .ok_or_else(|| no_model("the operator"))?;
            Ok(Some(JudgeSettings {
                url,
                model,
                auth: bearer(own_key.or(defaults.judge_api_key.clone())),
                query: Vec::new(),
                headers: Vec::new(),
                timeout,
                party: Party::Operator,
            }))
        }
    }
}

#[cfg(test)]
mod tests;
