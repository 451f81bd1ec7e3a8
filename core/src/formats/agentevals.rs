//! kagent-agentevals suites (`name`, `source`, `defaults`, `cases`) as
//! suites, with its defaults and its meanings. Where kagent-agentevals
//! would read a key it does not know, or a mistyped value, as something
//! else (it ignores unknown keys and takes `"no"` for true), the key or value
//! is refused by name instead: a suite is never scored by settings other
//! than the ones written.

use super::{Problem, problem};
use crate::score::args::ArgsMode;
use crate::score::trajectory_match::MatchMode;
use crate::suite::loaded::{LoadedSuite, SuiteFormat};
use crate::suite::spec::*;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    source: Option<Source>,
    #[serde(default)]
    defaults: PeerDefaults,
    cases: Vec<CaseEntry>,
}

/// Every key of kagent-agentevals' source block; which apply depends on `kind`.
#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Source {
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    base_url: Option<String>,
    #[serde(default)]
    user_id: Option<String>,
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    dsn: Option<String>,
    #[serde(default)]
    password: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    workload: Option<String>,
    #[serde(default)]
    user: Option<String>,
    #[serde(default)]
    database: Option<String>,
    #[serde(default)]
    context: Option<String>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PeerDefaults {
    #[serde(default)]
    tool_args_match_mode: Option<ArgsMode>,
    #[serde(default)]
    judge_model: Option<String>,
    #[serde(default)]
    drop_internal_tools: Option<bool>,
    #[serde(default)]
    extra_tool_denylist: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseEntry {
    #[serde(default)]
    name: Option<String>,
    session_id: String,
    #[serde(default)]
    invocation_id: Option<String>,
    evaluators: Vec<EvaluatorEntry>,
    #[serde(default)]
    drop_internal_tools: Option<bool>,
    #[serde(default)]
    extra_tool_denylist: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EvaluatorEntry {
    #[serde(rename = "type")]
    kind: Kind,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    mode: Option<MatchMode>,
    #[serde(default)]
    tool_args_match_mode: Option<ArgsMode>,
    #[serde(default)]
    reference: Vec<Value>,
    #[serde(default)]
    expected: Vec<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    continuous: Option<bool>,
    #[serde(default)]
    prompt: Option<String>,
    #[serde(default)]
    threshold: Option<f64>,
}

#[derive(Clone, Copy, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
enum Kind {
    ToolsUsed,
    TrajectoryMatch,
    LlmJudge,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::ToolsUsed => "tools_used",
            Kind::TrajectoryMatch => "trajectory_match",
            Kind::LlmJudge => "llm_judge",
        }
    }
}

/// kagent-agentevals' pass mark of a continuous judge without a threshold.
const PEER_JUDGE_THRESHOLD: f64 = 0.5;

/// The suite, and notes on settings carried with a meaning of this tool's.
pub fn suite(suite: Suite, stem: String) -> Result<LoadedSuite, Problem> {
    if suite.cases.is_empty() {
        return Err(problem("cases", "needs a non-empty list of cases"));
    }
    let mut notes = Vec::new();
    let source = suite
        .source
        .map(|s| source(s, &mut notes))
        .transpose()?
        .flatten();
    let mut judge_models = Vec::new();
    let cases = suite
        .cases
        .into_iter()
        .enumerate()
        .map(|(i, entry)| case(i, entry, &suite.defaults, &mut judge_models))
        .collect::<Result<Vec<_>, _>>()?;
    judge_models.sort();
    judge_models.dedup();
    let judge = match judge_models.as_slice() {
        [] => None,
        [model] => {
            // kagent-agentevals names models as LangChain does
            // (`provider:model`); the judge endpoint takes the model alone.
            let (provider, bare) = model.split_once(':').unwrap_or(("", model));
            if !provider.is_empty() {
                notes.push(format!(
                    "judge model {model}: asked of the judge endpoint (--judge-url) as {bare}; kagent-agentevals would call {provider} directly"
                ));
            }
            Some(JudgeSpec {
                model: Some(bare.to_string()),
                ..JudgeSpec::default()
            })
        }
        many => {
            return Err(problem(
                "defaults.judge_model",
                format!(
                    "one judge model per suite; this suite names {}",
                    many.join(", ")
                ),
            ));
        }
    };
    let defaults = SuiteDefaults {
        args_mode: suite.defaults.tool_args_match_mode.unwrap_or_default(),
        drop_internal_tools: suite.defaults.drop_internal_tools.unwrap_or(true),
        deny_tools: suite.defaults.extra_tool_denylist,
        // kagent-agentevals keeps model reasoning and leaves an MCP result
        // with structured content whole.
        include_thoughts: true,
        unwrap_structured_content: false,
    };
    Ok(LoadedSuite {
        name: suite.name.filter(|n| !n.is_empty()).unwrap_or(stem),
        namespace: None,
        spec: SuiteSpec {
            source,
            judge,
            defaults,
            cases,
            ..SuiteSpec::default()
        },
        format: SuiteFormat::KagentAgentevals,
        not_run: Vec::new(),
        notes,
    })
}

/// The source block. Credentials are never read from a suite file: they
/// come from the command line or the environment, as for every suite.
fn source(s: Source, notes: &mut Vec<String>) -> Result<Option<SourceSpec>, Problem> {
    let secret = |key: &str, instead: &str| {
        problem(
            format!("source.{key}"),
            format!("a credential in a suite file is refused; pass it with {instead}"),
        )
    };
    if s.token.is_some() {
        return Err(secret(
            "token",
            "--api-token-file or KAGENT_EVALS_API_TOKEN",
        ));
    }
    if s.dsn.is_some() {
        return Err(secret("dsn", "--database-url or KAGENT_EVALS_DATABASE_URL"));
    }
    if s.password.is_some() {
        return Err(secret(
            "password",
            "--database-url or KAGENT_EVALS_DATABASE_URL",
        ));
    }
    let kubectl_keys = [
        ("namespace", &s.namespace),
        ("workload", &s.workload),
        ("user", &s.user),
        ("database", &s.database),
        ("context", &s.context),
    ];
    let only = |allowed: &[&str], kind: &str| -> Result<(), Problem> {
        let given = [
            ("path", &s.path),
            ("base_url", &s.base_url),
            ("user_id", &s.user_id),
        ]
        .into_iter()
        .chain(kubectl_keys)
        .find(|(key, value)| value.is_some() && !allowed.contains(key));
        match given {
            Some((key, _)) => Err(problem(
                format!("source.{key}"),
                format!("not a setting of a {kind} source"),
            )),
            None => Ok(()),
        }
    };
    let spec = |kind: SourceKind| SourceSpec {
        kind: Some(kind),
        ..SourceSpec::default()
    };
    match s.kind.as_deref() {
        // The command line chooses (--source, --fixture).
        None => {
            only(&[], "kind-less")?;
            Ok(None)
        }
        Some("fixture") => {
            only(&["path"], "fixture")?;
            Ok(s.path.map(|path| SourceSpec {
                fixture: Some(FixtureSourceSpec { path }),
                ..spec(SourceKind::Fixture)
            }))
        }
        Some("api") => {
            only(&["base_url", "user_id"], "api")?;
            Ok(Some(SourceSpec {
                kagent_api: Some(KagentApiSpec {
                    url: s.base_url,
                    user_id: s.user_id,
                    token_secret_ref: None,
                }),
                ..spec(SourceKind::KagentApi)
            }))
        }
        Some("postgres") => {
            only(&[], "postgres")?;
            Ok(Some(SourceSpec {
                kagent_postgres: Some(KagentPostgresSpec::default()),
                ..spec(SourceKind::KagentPostgres)
            }))
        }
        // `kubectl exec psql` into kagent's database pod reads the same
        // tables this tool reads over a connection.
        Some("kubectl") => {
            only(
                &["namespace", "workload", "user", "database", "context"],
                "kubectl",
            )?;
            notes.push(
                "source kubectl: sessions are read from kagent's PostgreSQL database at --database-url (or KAGENT_EVALS_DATABASE_URL), not through kubectl exec".into(),
            );
            Ok(Some(SourceSpec {
                kagent_postgres: Some(KagentPostgresSpec::default()),
                ..spec(SourceKind::KagentPostgres)
            }))
        }
        Some(other) => Err(problem(
            "source.kind",
            format!("unknown source kind {other:?} (expected fixture, kubectl, postgres or api)"),
        )),
    }
}

fn case(
    index: usize,
    entry: CaseEntry,
    defaults: &PeerDefaults,
    judge_models: &mut Vec<String>,
) -> Result<Case, Problem> {
    let at = format!("cases[{index}]");
    if entry.session_id.is_empty() {
        return Err(problem(
            format!("{at}.session_id"),
            "a case needs its session id",
        ));
    }
    if entry.evaluators.is_empty() {
        return Err(problem(
            format!("{at}.evaluators"),
            "needs a non-empty list of evaluators",
        ));
    }
    let evaluators = entry
        .evaluators
        .into_iter()
        .enumerate()
        .map(|(j, e)| evaluator(e, &format!("{at}.evaluators[{j}]"), defaults, judge_models))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Case {
        name: entry
            .name
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| format!("case-{index}")),
        session_id: Some(entry.session_id),
        session_match: None,
        invocation_id: entry.invocation_id,
        evaluators,
        min_pass_rate: 1.0,
        allow_no_sessions: false,
        drop_internal_tools: entry.drop_internal_tools,
        deny_tools: entry.extra_tool_denylist.unwrap_or_default(),
        probe: None,
        tags: Vec::new(),
        blocking: true,
    })
}

fn evaluator(
    e: EvaluatorEntry,
    at: &str,
    defaults: &PeerDefaults,
    judge_models: &mut Vec<String>,
) -> Result<EvaluatorSpec, Problem> {
    // Keys another type reads, refused here rather than ignored.
    let given = [
        ("mode", e.mode.is_some()),
        ("tool_args_match_mode", e.tool_args_match_mode.is_some()),
        ("reference", !e.reference.is_empty()),
        ("expected", !e.expected.is_empty()),
        ("model", e.model.is_some()),
        ("continuous", e.continuous.is_some()),
        ("prompt", e.prompt.is_some()),
        ("threshold", e.threshold.is_some()),
    ];
    let only = |allowed: &[&str]| match given.iter().find(|(k, set)| *set && !allowed.contains(k)) {
        Some((key, _)) => Err(problem(
            format!("{at}.{key}"),
            format!("{} does not read {key}", e.kind.name()),
        )),
        None => Ok(()),
    };
    let name = e.name.clone().unwrap_or_else(|| e.kind.name().to_string());
    let spec = match e.kind {
        Kind::ToolsUsed => {
            only(&["mode", "expected"])?;
            if e.expected.is_empty() {
                return Err(problem(
                    format!("{at}.expected"),
                    "tools_used needs a non-empty list of tool names",
                ));
            }
            let mode = e.mode.unwrap_or(MatchMode::Superset);
            if mode == MatchMode::Strict {
                return Err(problem(
                    format!("{at}.mode"),
                    "tools_used mode must be subset, superset or unordered (strict compares whole messages)",
                ));
            }
            EvaluatorSpec::with_settings(
                &name,
                EvaluatorType::ToolsUsed,
                ToolsUsedSpec {
                    expected: e.expected,
                    mode,
                    matching: Default::default(),
                },
            )
        }
        Kind::TrajectoryMatch => {
            only(&["mode", "tool_args_match_mode", "reference"])?;
            if e.reference.is_empty() {
                return Err(problem(
                    format!("{at}.reference"),
                    "trajectory_match needs a reference trajectory",
                ));
            }
            EvaluatorSpec::with_settings(
                &name,
                EvaluatorType::TrajectoryMatch,
                TrajectoryMatchSpec {
                    reference: e.reference,
                    mode: e.mode.unwrap_or(MatchMode::Strict),
                    args_mode: e.tool_args_match_mode.or(defaults.tool_args_match_mode),
                    overrides: Vec::new(),
                    matching: Default::default(),
                },
            )
        }
        Kind::LlmJudge => {
            only(&["reference", "model", "continuous", "prompt", "threshold"])?;
            let model = e
                .model
                .clone()
                .filter(|m| !m.is_empty())
                .or_else(|| defaults.judge_model.clone())
                .ok_or_else(|| {
                    problem(
                        format!("{at}.model"),
                        "llm_judge needs model or defaults.judge_model",
                    )
                })?;
            judge_models.push(model);
            let prompt = e
                .prompt
                .as_deref()
                .filter(|p| !p.is_empty())
                .map(template)
                .transpose()
                .map_err(|m| problem(format!("{at}.prompt"), m))?;
            EvaluatorSpec::with_settings(
                &name,
                EvaluatorType::TrajectoryJudge,
                TrajectoryJudgeSpec {
                    reference: e.reference,
                    continuous: e.continuous.unwrap_or(false),
                    threshold: e.threshold.unwrap_or(PEER_JUDGE_THRESHOLD),
                    num_samples: 1,
                    temperature: None,
                    prompt,
                    panel: None,
                },
            )
        }
    };
    spec.map_err(|m| problem(at, m))
}

/// An agentevals prompt (a Python format string over `outputs` and
/// `reference_outputs`) as this tool's template.
fn template(prompt: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = prompt;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if let Some(after) = tail.strip_prefix("{{").or_else(|| tail.strip_prefix("}}")) {
            out.push_str(&tail[..1]);
            rest = after;
            continue;
        }
        let Some(end) = tail.strip_prefix('{').and_then(|t| t.find('}')) else {
            return Err("a single `{` or `}` (write `{{` or `}}` for a brace)".into());
        };
        let placeholder = &tail[1..=end];
        out.push_str(match placeholder {
            "outputs" => "{{trajectory}}",
            "reference_outputs" => "{{reference}}",
            other => {
                return Err(format!(
                    "unknown placeholder {{{other}}} (agentevals fills outputs and reference_outputs)"
                ));
            }
        });
        rest = &tail[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::template;

    #[test]
    fn agentevals_prompts_become_templates() {
        assert_eq!(
            template("Grade {outputs} against {reference_outputs}; answer {{\"score\": x}}")
                .unwrap(),
            "Grade {{trajectory}} against {{reference}}; answer {\"score\": x}"
        );
        assert!(
            template("{inputs}")
                .unwrap_err()
                .contains("unknown placeholder {inputs}")
        );
        assert!(template("a { b").is_err());
    }
}
