//! Suite files: `EvalSuite` manifests (one or many documents), kagent-agentevals
//! suites, and ADK EvalSet JSON. The last two are converted to the suite
//! spec. Every error names the file, the line and the field.

use super::locate::line_of;
use super::{adk, agentevals};
use crate::suite::compile::{CompiledSuite, SuiteError, compile};
use crate::suite::loaded::*;
use crate::suite::spec::*;
use serde_json::Value;

/// The `apiVersion` of an `EvalSuite` manifest file; the CRD the cluster
/// serves has the same (checked where the CRD is defined).
pub const MANIFEST_API_VERSION: &str = "evals.kagent.dev/v1alpha1";

/// One YAML document of a file and the line it starts on.
pub(super) struct Document<'t> {
    pub(super) text: &'t str,
    pub(super) first_line: u64,
}

/// Split on `---` lines; a document separator always starts at column 0.
pub(super) fn documents(text: &str) -> Vec<Document<'_>> {
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

/// Read every suite in a file; `file` names it in messages. `criteria` is
/// the ADK criteria file that goes with an ADK eval file (ADK's default
/// criteria when there is none).
pub fn load(
    file: &str,
    text: &str,
    criteria: Option<CriteriaFile<'_>>,
) -> Result<Vec<LoadedSuite>, LoadError> {
    // JSON lines are not YAML documents: a golden set is told by its name.
    if file.ends_with(".jsonl") {
        return golden_set(file, text, criteria).map(|suite| vec![suite]);
    }
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
            if manifest.kind != "EvalSuite" || manifest.api_version != MANIFEST_API_VERSION {
                return Err(at(
                    file,
                    doc,
                    "kind",
                    format!(
                        "expected apiVersion {MANIFEST_API_VERSION}, kind EvalSuite; found {} {}",
                        manifest.api_version, manifest.kind
                    ),
                ));
            }
            // The rules the API server's CEL applies, in its words.
            // Every rule broken at the first field with one, as the API
            // server lists them.
            let broken = crate::suite::rules::broken(spec_schema(), &value["spec"], "spec");
            if let Some((field, _)) = broken.first() {
                let messages: Vec<&str> = broken
                    .iter()
                    .filter(|(at, _)| at == field)
                    .map(|(_, message)| message.as_str())
                    .collect();
                return Err(at(file, doc, field, messages.join("; ")));
            }
            LoadedSuite {
                name: manifest.metadata.name,
                namespace: manifest.metadata.namespace,
                spec: manifest.spec,
                format: SuiteFormat::Manifest,
                not_run: Vec::new(),
                notes: Vec::new(),
            }
        } else if has("eval_cases") || has("evalCases") {
            adk::eval_set(&value, &adk_criteria(file, criteria)?)
                .map_err(|(field, message)| at(file, doc, &field, message))?
        } else if let Some(rows) = value
            .as_array()
            .filter(|rows| !rows.is_empty() && rows.iter().all(|r| r.get("query").is_some()))
        {
            adk::old_format(rows, &stem(file), &adk_criteria(file, criteria)?)
                .map_err(|(field, message)| at(file, doc, &field, message))?
        } else if has("cases") {
            let suite: agentevals::Suite = parse(file, doc)?;
            agentevals::suite(suite, stem(file))
                .map_err(|(field, message)| at(file, doc, &field, message))?
        } else {
            return Err(LoadError {
                file: file.into(),
                line: Some((doc.first_line, 1)),
                field: None,
                message: "not a suite: expected an EvalSuite manifest (apiVersion, kind, spec), a kagent-agentevals suite (cases), an ADK EvalSet (eval_cases) or an ADK .test.json list ({query, expected_tool_use, reference})".into(),
            });
        };
        if criteria.is_some_and(|c| c.explicit) && suite.format != SuiteFormat::AdkEvalSet {
            return Err(LoadError {
                file: file.into(),
                line: None,
                field: None,
                message: "a criteria file goes with ADK eval files only".into(),
            });
        }
        suites.push(suite);
    }
    if docs.len() > 1 && suites.iter().any(|s| s.format != SuiteFormat::Manifest) {
        return Err(LoadError {
            file: file.into(),
            line: None,
            field: None,
            message: "only EvalSuite manifests may share a file".into(),
        });
    }
    Ok(suites)
}

/// A golden set, with the prices of its `prices.json` (given as the file
/// that goes with it).
fn golden_set(
    file: &str,
    text: &str,
    prices: Option<CriteriaFile<'_>>,
) -> Result<LoadedSuite, LoadError> {
    let error = |file: &str, field: String, message: String| LoadError {
        file: file.into(),
        line: None,
        field: (!field.is_empty()).then_some(field),
        message,
    };
    if let Some(explicit) = prices.filter(|p| p.explicit) {
        return Err(error(
            explicit.name,
            String::new(),
            "a criteria file goes with ADK eval files only; a golden set's prices are read from prices.json beside it".into(),
        ));
    }
    let prices_value: Option<Value> = prices
        .map(|p| {
            serde_json::from_str(p.text)
                .map_err(|e| error(p.name, String::new(), format!("not JSON: {e}")))
        })
        .transpose()?;
    super::golden_set::golden_set(&stem(file), text, prices_value.as_ref())
        .map_err(|(field, message)| error(file, field, message))
}

/// The criteria of an ADK eval file: its criteria file's, or ADK's defaults.
fn adk_criteria(
    file: &str,
    criteria: Option<CriteriaFile<'_>>,
) -> Result<adk::Criteria, LoadError> {
    let Some(criteria) = criteria else {
        return Ok(adk::Criteria::default());
    };
    let value: Value = serde_json::from_str(criteria.text).map_err(|e| LoadError {
        file: criteria.name.into(),
        line: Some((e.line() as u64, e.column() as u64)),
        field: None,
        message: format!(
            "not JSON: {}",
            e.to_string().split(" at line ").next().unwrap_or_default()
        ),
    })?;
    adk::criteria(&value).map_err(|(field, message)| LoadError {
        file: format!("{} (for {file})", criteria.name),
        line: None,
        field: (!field.is_empty()).then_some(field),
        message,
    })
}

/// The schema of an EvalSuite's spec, subschemas inlined as in the CRD,
/// with its rules.
fn spec_schema() -> &'static Value {
    static SCHEMA: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    SCHEMA.get_or_init(|| {
        schemars::generate::SchemaSettings::draft2020_12()
            .with(|s| s.inline_subschemas = true)
            .into_generator()
            .into_root_schema_for::<SuiteSpec>()
            .to_value()
    })
}

/// Load and compile, keeping line numbers for compile errors.
pub fn load_compiled(
    file: &str,
    text: &str,
    criteria: Option<CriteriaFile<'_>>,
) -> Result<Vec<(LoadedSuite, CompiledSuite)>, LoadError> {
    load_selected(file, text, criteria, None)
}

/// The same, the cases chosen by `select` in place of each suite's own
/// `spec.select` (the command line's `--tag`, `--exclude-tag`, `--case`).
pub fn load_selected(
    file: &str,
    text: &str,
    criteria: Option<CriteriaFile<'_>>,
    select: Option<&SelectSpec>,
) -> Result<Vec<(LoadedSuite, CompiledSuite)>, LoadError> {
    let docs = documents(text);
    let suites = load(file, text, criteria)?;
    suites
        .into_iter()
        .enumerate()
        .map(|(i, mut suite)| {
            // The command line's choice replaces the suite's own.
            if select.is_some() {
                suite.spec.select = None;
            }
            let prefix = if suite.format == SuiteFormat::Manifest {
                "spec"
            } else {
                ""
            };
            if suite.spec.cases.is_empty() && !suite.not_run.is_empty() {
                let compiled = CompiledSuite::without_cases(&suite.name);
                return Ok((suite, compiled));
            }
            // As kubectl does, a suite that names no namespace is in `default`.
            let namespace = suite.namespace.as_deref().unwrap_or("default");
            let mut compiled = compile(&suite.name, &suite.spec, prefix, namespace).map_err(
                |SuiteError { path, message }| {
                    let path = path.trim_start_matches('.').to_string();
                    let line = (suite.format == SuiteFormat::Manifest)
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
            if let Some(select) = select {
                compiled.narrow(select).map_err(|e| LoadError {
                    file: file.into(),
                    line: None,
                    field: None,
                    message: format!("--case: {}", e.message),
                })?;
            }
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

fn stem(file: &str) -> String {
    std::path::Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().trim_end_matches(".evalset").to_string())
        .unwrap_or_else(|| "suite".into())
}

/// The EvalSuite manifest of a loaded suite, for `suite convert`.
pub fn manifest(suite: &LoadedSuite) -> SuiteManifest {
    SuiteManifest {
        api_version: MANIFEST_API_VERSION.into(),
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
