//! Suite files: `EvalSuite` manifests (one or many documents), kagent-agentevals
//! suites, and ADK EvalSet JSON. The last two are converted to the suite
//! spec. Every error names the file, the line and the field.

use super::compile::{CompiledSuite, SuiteError, compile};
use super::locate::line_of;
use super::spec::*;
use crate::core::score::args::ArgsMode;
use crate::core::score::trajectory_match::MatchMode;
use serde::Deserialize;
use serde_json::{Value, json};
use std::fmt;

/// What a suite file was written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Manifest,
    KagentAgentevals,
    AdkEvalSet,
}

/// One suite read from a file.
#[derive(Clone, Debug)]
pub struct LoadedSuite {
    pub name: String,
    pub namespace: Option<String>,
    pub spec: SuiteSpec,
    pub format: Format,
}

/// A problem in a suite file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub file: String,
    pub line: Option<(u64, u64)>,
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some((line, column)) = self.line {
            write!(f, ":{line}:{column}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for LoadError {}

/// One YAML document of a file and the line it starts on.
struct Document<'t> {
    text: &'t str,
    first_line: u64,
}

/// Split on `---` lines; a document separator always starts at column 0.
fn documents(text: &str) -> Vec<Document<'_>> {
    let mut out = Vec::new();
    let (mut start, mut start_line, mut offset) = (0usize, 1u64, 0usize);
    for (number, line) in text.split_inclusive('\n').enumerate() {
        let trimmed = line.trim_end();
        if trimmed == "---" || trimmed.starts_with("--- #") {
            out.push(Document {
                text: &text[start..offset],
                first_line: start_line,
            });
            start = offset + line.len();
            start_line = number as u64 + 2;
        }
        offset += line.len();
    }
    out.push(Document {
        text: &text[start..],
        first_line: start_line,
    });
    out.retain(|d| {
        d.text
            .lines()
            .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
    });
    out
}

/// Read every suite in a file; `file` names it in messages.
pub fn load(file: &str, text: &str) -> Result<Vec<LoadedSuite>, LoadError> {
    let docs = documents(text);
    if docs.is_empty() {
        return Err(LoadError {
            file: file.into(),
            line: None,
            field: None,
            message: "no suite in this file".into(),
        });
    }
    let mut suites = Vec::new();
    for doc in &docs {
        let value: Value = parse(file, doc)?;
        let obj = value.as_object();
        let has = |k: &str| obj.is_some_and(|o| o.contains_key(k));
        let suite = if has("apiVersion") || has("kind") {
            let manifest: SuiteManifest = parse(file, doc)?;
            if manifest.kind != "EvalSuite" || manifest.api_version != API_VERSION {
                return Err(at(
                    file,
                    doc,
                    "kind",
                    format!(
                        "expected apiVersion {API_VERSION}, kind EvalSuite; found {} {}",
                        manifest.api_version, manifest.kind
                    ),
                ));
            }
            LoadedSuite {
                name: manifest.metadata.name,
                namespace: manifest.metadata.namespace,
                spec: manifest.spec,
                format: Format::Manifest,
            }
        } else if has("eval_cases") || has("evalCases") {
            from_adk_eval_set(&value).map_err(|(field, message)| at(file, doc, &field, message))?
        } else if has("cases") {
            let suite: AgentevalsSuite = parse(file, doc)?;
            from_agentevals(suite, file)
                .map_err(|(field, message)| at(file, doc, &field, message))?
        } else {
            return Err(LoadError {
                file: file.into(),
                line: Some((doc.first_line, 1)),
                field: None,
                message: "not a suite: expected an EvalSuite manifest (apiVersion, kind, spec), a kagent-agentevals suite (cases) or an ADK EvalSet (eval_cases)".into(),
            });
        };
        suites.push(suite);
    }
    if docs.len() > 1 && suites.iter().any(|s| s.format != Format::Manifest) {
        return Err(LoadError {
            file: file.into(),
            line: None,
            field: None,
            message: "only EvalSuite manifests may share a file".into(),
        });
    }
    Ok(suites)
}

/// Load and compile, keeping line numbers for compile errors.
pub fn load_compiled(
    file: &str,
    text: &str,
) -> Result<Vec<(LoadedSuite, CompiledSuite)>, LoadError> {
    let docs = documents(text);
    let suites = load(file, text)?;
    suites
        .into_iter()
        .enumerate()
        .map(|(i, suite)| {
            let prefix = if suite.format == Format::Manifest {
                "spec"
            } else {
                ""
            };
            // As kubectl does, a suite that names no namespace is in `default`.
            let namespace = suite.namespace.as_deref().unwrap_or("default");
            let compiled = compile(&suite.name, &suite.spec, prefix, namespace).map_err(
                |SuiteError { path, message }| {
                    let path = path.trim_start_matches('.').to_string();
                    let line = (suite.format == Format::Manifest)
                        .then(|| {
                            docs.get(i).and_then(|d| {
                                line_of(d.text, &path).map(|(l, c)| (l + d.first_line - 1, c))
                            })
                        })
                        .flatten();
                    LoadError {
                        file: file.into(),
                        line,
                        field: Some(path),
                        message,
                    }
                },
            )?;
            Ok((suite, compiled))
        })
        .collect()
}

fn at(file: &str, doc: &Document<'_>, field: &str, message: impl Into<String>) -> LoadError {
    LoadError {
        file: file.into(),
        line: line_of(doc.text, field).map(|(l, c)| (l + doc.first_line - 1, c)),
        field: Some(field.into()),
        message: message.into(),
    }
}

/// Deserialize one document with serde-saphyr, recording the field path.
fn parse<T: serde::de::DeserializeOwned>(file: &str, doc: &Document<'_>) -> Result<T, LoadError> {
    let mut field = None;
    let result = serde_saphyr::with_deserializer_from_str(doc.text, |de| {
        serde_path_to_error::deserialize::<_, T>(de).map_err(|e| {
            let path = e.path().to_string();
            if path != "." {
                field = Some(path);
            }
            e.into_inner()
        })
    });
    result.map_err(|e: serde_saphyr::Error| {
        let plain = e.without_snippet();
        let line = plain
            .location()
            .map(|l| (l.line() + doc.first_line - 1, l.column()));
        let message = plain.to_string();
        // The message repeats the location ("line L column C: ..." or "... at line L, column C").
        let message = match message.split_once(": ") {
            Some((head, rest)) if head.contains("line ") && head.contains(" column ") => {
                rest.to_string()
            }
            _ => message,
        };
        let message = match message.rsplit_once(" at line ") {
            Some((head, tail)) if tail.contains(", column ") => head.to_string(),
            _ => message,
        };
        // A field that is missing or not known is the field, not its parent.
        let named = ["missing field `", "unknown field `"]
            .iter()
            .find_map(|prefix| message.strip_prefix(prefix))
            .and_then(|rest| rest.split_once('`'))
            .map(|(name, _)| name.to_string());
        let field = match (field, named) {
            (Some(path), Some(name)) if path.ends_with(&format!(".{name}")) || path == name => {
                Some(path)
            }
            (Some(parent), Some(name)) => Some(format!("{parent}.{name}")),
            (None, Some(name)) => Some(name),
            (field, None) => field,
        };
        LoadError {
            file: file.into(),
            line,
            field,
            message,
        }
    })
}

// kagent-agentevals suites -------------------------------------------------

// kagent-agentevals reads its suites with `dict.get` and ignores other keys;
// so do these types.
#[derive(Deserialize)]
struct AgentevalsSuite {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    source: Option<AgentevalsSource>,
    #[serde(default)]
    defaults: AgentevalsDefaults,
    cases: Vec<AgentevalsCase>,
}

#[derive(Deserialize)]
struct AgentevalsSource {
    kind: String,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    base_url: Option<String>,
    #[serde(default)]
    user_id: Option<String>,
}

#[derive(Default, Deserialize)]
struct AgentevalsDefaults {
    #[serde(default)]
    tool_args_match_mode: Option<ArgsMode>,
    #[serde(default)]
    drop_internal_tools: Option<bool>,
    #[serde(default)]
    extra_tool_denylist: Vec<String>,
}

#[derive(Deserialize)]
struct AgentevalsCase {
    #[serde(default)]
    name: Option<String>,
    session_id: String,
    #[serde(default)]
    invocation_id: Option<String>,
    evaluators: Vec<AgentevalsEvaluator>,
    #[serde(default)]
    drop_internal_tools: Option<bool>,
    #[serde(default)]
    extra_tool_denylist: Vec<String>,
}

#[derive(Deserialize)]
struct AgentevalsEvaluator {
    #[serde(rename = "type")]
    kind: AgentevalsType,
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
}

#[derive(Clone, Copy, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
enum AgentevalsType {
    ToolsUsed,
    TrajectoryMatch,
    LlmJudge,
}

fn from_agentevals(suite: AgentevalsSuite, file: &str) -> Result<LoadedSuite, (String, String)> {
    let source = suite.source.and_then(|s| match s.kind.as_str() {
        "fixture" => s.path.map(|path| SourceSpec {
            kind: Some(SourceKind::Fixture),
            fixture: Some(FixtureSourceSpec { path }),
            kagent_postgres: None,
            kagent_api: None,
            adk_database: None,
        }),
        "postgres" => Some(SourceSpec {
            kind: Some(SourceKind::KagentPostgres),
            fixture: None,
            kagent_postgres: Some(KagentPostgresSpec::default()),
            kagent_api: None,
            adk_database: None,
        }),
        "api" => s.base_url.map(|url| SourceSpec {
            kind: Some(SourceKind::KagentApi),
            fixture: None,
            kagent_postgres: None,
            kagent_api: Some(KagentApiSpec {
                url: Some(url),
                user_id: s.user_id,
                token_secret_ref: None,
            }),
            adk_database: None,
        }),
        // `kubectl exec` into the database pod has no equivalent: the
        // operator's default source (or --source) is used instead.
        _ => None,
    });
    let defaults = Defaults {
        args_mode: suite.defaults.tool_args_match_mode.unwrap_or_default(),
        drop_internal_tools: suite.defaults.drop_internal_tools.unwrap_or(true),
        deny_tools: suite.defaults.extra_tool_denylist,
        include_thoughts: false,
    };
    let cases = suite
        .cases
        .into_iter()
        .enumerate()
        .map(|(i, case)| {
            let evaluators = case
                .evaluators
                .into_iter()
                .enumerate()
                .map(|(j, e)| {
                    evaluator_from_agentevals(e)
                        .map_err(|m| (format!("cases[{i}].evaluators[{j}].type"), m))
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok::<_, (String, String)>(Case {
                name: case.name.unwrap_or_else(|| format!("case-{i}")),
                session_id: Some(case.session_id),
                session_match: None,
                invocation_id: case.invocation_id,
                evaluators,
                min_pass_rate: 1.0,
                allow_no_sessions: false,
                drop_internal_tools: case.drop_internal_tools,
                deny_tools: case.extra_tool_denylist,
            })
        })
        .collect::<Result<Vec<_>, (String, String)>>()?;
    Ok(LoadedSuite {
        name: suite.name.unwrap_or_else(|| stem(file)),
        namespace: None,
        spec: SuiteSpec {
            source,
            defaults,
            cases,
            ..SuiteSpec::default()
        },
        format: Format::KagentAgentevals,
    })
}

fn evaluator_from_agentevals(e: AgentevalsEvaluator) -> Result<EvaluatorSpec, String> {
    let name = |default: &str| e.name.clone().unwrap_or_else(|| default.to_string());
    match e.kind {
        AgentevalsType::ToolsUsed => {
            let mut spec = empty_evaluator(name("tools_used"), EvaluatorType::ToolsUsed);
            spec.tools_used = Some(ToolsUsedSpec {
                expected: e.expected,
                mode: e.mode.unwrap_or(MatchMode::Superset),
                matching: Default::default(),
            });
            Ok(spec)
        }
        AgentevalsType::TrajectoryMatch => {
            let mut spec =
                empty_evaluator(name("trajectory_match"), EvaluatorType::TrajectoryMatch);
            spec.trajectory_match = Some(TrajectoryMatchSpec {
                reference: e.reference,
                mode: e.mode.unwrap_or(MatchMode::Strict),
                args_mode: e.tool_args_match_mode,
                overrides: Vec::new(),
                matching: Default::default(),
            });
            Ok(spec)
        }
        // agentevals' trajectory LLM-as-judge, with its reference when given.
        AgentevalsType::LlmJudge => {
            let mut spec = empty_evaluator(name("llm_judge"), EvaluatorType::TrajectoryJudge);
            spec.trajectory_judge = Some(TrajectoryJudgeSpec {
                reference: e.reference,
                continuous: false,
                threshold: 0.8,
                num_samples: 1,
                temperature: None,
                prompt: None,
            });
            Ok(spec)
        }
    }
}

fn empty_evaluator(name: String, kind: EvaluatorType) -> EvaluatorSpec {
    EvaluatorSpec {
        name,
        kind,
        tools_used: None,
        trajectory_match: None,
        tool_trajectory: None,
        response_match: None,
        tool_selection: None,
        argument_correctness: None,
        trajectory_drift: None,
        loops: None,
        safety: None,
        budget: None,
        trajectory_judge: None,
        outcome_judge: None,
    }
}

fn stem(file: &str) -> String {
    std::path::Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().trim_end_matches(".evalset").to_string())
        .unwrap_or_else(|| "suite".into())
}

// ADK EvalSets --------------------------------------------------------------

/// A field in either of ADK's spellings (pydantic writes camelCase aliases;
/// older files are snake_case).
fn field<'v>(value: &'v Value, snake: &str, camel: &str) -> Option<&'v Value> {
    value
        .get(snake)
        .or_else(|| value.get(camel))
        .filter(|v| !v.is_null())
}

fn content_text(content: Option<&Value>) -> Option<String> {
    let parts = content?.get("parts")?.as_array()?;
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .filter(|t| !t.is_empty())
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

fn from_adk_eval_set(value: &Value) -> Result<LoadedSuite, (String, String)> {
    let cases_key = if value.get("eval_cases").is_some() {
        "eval_cases"
    } else {
        "evalCases"
    };
    let cases = field(value, "eval_cases", "evalCases")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            (
                cases_key.to_string(),
                "expected a list of eval cases".to_string(),
            )
        })?;
    let name = field(value, "eval_set_id", "evalSetId")
        .or_else(|| value.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("adk-eval-set")
        .to_string();
    let cases = cases
        .iter()
        .enumerate()
        .map(|(i, case)| {
            let at = format!("{cases_key}[{i}]");
            let conversation = field(case, "conversation", "conversation")
                .and_then(Value::as_array)
                .ok_or_else(|| {
                    (
                        format!("{at}.conversation"),
                        "expected a list of invocations".to_string(),
                    )
                })?;
            let first_user = conversation
                .first()
                .and_then(|inv| content_text(field(inv, "user_content", "userContent")))
                .ok_or_else(|| {
                    (
                        format!("{at}.conversation[0]"),
                        "the first invocation has no user text to match sessions by".to_string(),
                    )
                })?;
            let tool_uses = conversation
                .iter()
                .map(|inv| {
                    let uses = field(inv, "intermediate_data", "intermediateData")
                        .and_then(|d| field(d, "tool_uses", "toolUses"))
                        .cloned()
                        .unwrap_or_else(|| json!([]));
                    let uses: Vec<crate::core::score::adk::ToolUse> =
                        serde_json::from_value(strip_ids(uses)).map_err(|e| {
                            (format!("{at}.conversation"), format!("tool uses: {e}"))
                        })?;
                    Ok(ExpectedInvocation { tool_uses: uses })
                })
                .collect::<Result<Vec<_>, (String, String)>>()?;
            let responses: Vec<Option<String>> = conversation
                .iter()
                .map(|inv| content_text(field(inv, "final_response", "finalResponse")))
                .collect();
            let mut trajectory = empty_evaluator(
                "tool_trajectory_avg_score".into(),
                EvaluatorType::ToolTrajectory,
            );
            trajectory.tool_trajectory = Some(ToolTrajectorySpec {
                invocations: tool_uses,
                match_type: None,
                threshold: 1.0,
            });
            let mut evaluators = vec![trajectory];
            if responses.iter().all(Option::is_some) {
                let mut response =
                    empty_evaluator("response_match_score".into(), EvaluatorType::ResponseMatch);
                response.response_match = Some(ResponseMatchSpec {
                    reference: None,
                    invocations: Some(
                        responses
                            .into_iter()
                            .map(|r| ExpectedResponse {
                                final_response: r.unwrap_or_default(),
                            })
                            .collect(),
                    ),
                    threshold: 0.8,
                });
                evaluators.push(response);
            }
            Ok::<_, (String, String)>(Case {
                name: field(case, "eval_id", "evalId")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("case-{i}"), String::from),
                session_id: None,
                session_match: Some(SessionMatch {
                    contains: Some(first_user),
                    regex: None,
                }),
                invocation_id: None,
                evaluators,
                min_pass_rate: 1.0,
                allow_no_sessions: false,
                drop_internal_tools: None,
                deny_tools: Vec::new(),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(LoadedSuite {
        name,
        namespace: None,
        spec: SuiteSpec {
            cases,
            ..SuiteSpec::default()
        },
        format: Format::AdkEvalSet,
    })
}

/// ADK tool uses carry ids; expectations compare names and arguments only.
fn strip_ids(mut uses: Value) -> Value {
    if let Value::Array(items) = &mut uses {
        for item in items {
            if let Value::Object(obj) = item {
                obj.retain(|k, _| k == "name" || k == "args");
            }
        }
    }
    uses
}

/// The EvalSuite manifest of a loaded suite, for `suite convert`.
pub fn manifest(suite: &LoadedSuite) -> SuiteManifest {
    SuiteManifest {
        api_version: API_VERSION.into(),
        kind: "EvalSuite".into(),
        metadata: ManifestMetadata {
            name: kubernetes_name(&suite.name),
            namespace: suite.namespace.clone(),
            other: Default::default(),
        },
        spec: suite.spec.clone(),
    }
}

/// A DNS-1123 name from a free-form one.
fn kubernetes_name(name: &str) -> String {
    let lowered: String = name
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let trimmed = lowered.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    let mut name: String = trimmed.chars().take(63).collect();
    if name.is_empty() {
        name = "suite".into();
    }
    name
}
