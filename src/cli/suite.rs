//! `kagent-evals suite convert` and `kagent-evals crd`.

use super::output::emit;
use super::{CommandError, Status};
use crate::core::formats::load::{load_selected, manifest};
use crate::core::suite::compile::CompiledSuite;
use crate::core::suite::loaded::{CriteriaFile, LoadedSuite, SuiteFormat};
use crate::core::suite::spec::SelectSpec;
use crate::k8s::crd::crd_yaml;
use std::path::{Path, PathBuf};

#[derive(clap::Subcommand)]
pub enum SuiteCommand {
    /// Print the EvalSuite manifest equivalent of a kagent-agentevals suite,
    /// an ADK EvalSet or an ADK `.test.json` file.
    Convert {
        file: PathBuf,
        #[command(flatten)]
        criteria: CriteriaArgs,
    },
    /// Check suite files as the API server would (the CRD's schema and
    /// rules) and as a run compiles them, without a cluster: each error
    /// with its file, line and field. Exit 0 all valid, 1 one is not.
    Validate {
        /// Suite files, or folders of them (as `run` takes them).
        #[arg(required = true, value_name = "FILE|DIR")]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        criteria: CriteriaArgs,
    },
}

/// Which metrics score an ADK eval file.
#[derive(clap::Args, Default)]
pub struct CriteriaArgs {
    /// ADK criteria (a `test_config.json`) for an ADK eval file. By default,
    /// as ADK does: the `test_config.json` beside the file, else ADK's
    /// default criteria.
    #[arg(long, value_name = "FILE")]
    criteria: Option<PathBuf>,
}

const ADK_CRITERIA_FILE: &str = "test_config.json";
const GOLDEN_SET_PRICES_FILE: &str = "prices.json";

/// Read and compile the suites of a file, with the ADK criteria that go
/// with it, saying on stderr which criteria were used.
pub fn read_suites(
    file: &Path,
    criteria: &CriteriaArgs,
    select: Option<&SelectSpec>,
) -> Result<Vec<(LoadedSuite, CompiledSuite)>, CommandError> {
    let read = |path: &Path| {
        std::fs::read_to_string(path)
            .map_err(|e| CommandError(format!("cannot read {}: {e}", path.display())))
    };
    let text = read(file)?;
    let (criteria_path, explicit) = match &criteria.criteria {
        Some(path) => (Some(path.clone()), true),
        None => {
            // The file that goes with the suite file: an ADK eval file's
            // criteria, a golden set's prices.
            let companion = match file.extension().is_some_and(|e| e == "jsonl") {
                true => GOLDEN_SET_PRICES_FILE,
                false => ADK_CRITERIA_FILE,
            };
            let beside = file.parent().unwrap_or(Path::new("")).join(companion);
            (beside.is_file().then_some(beside), false)
        }
    };
    let criteria_text = criteria_path.as_deref().map(read).transpose()?;
    let criteria_name = criteria_path.as_ref().map(|p| p.display().to_string());
    let criteria_file =
        criteria_text
            .as_deref()
            .zip(criteria_name.as_deref())
            .map(|(text, name)| CriteriaFile {
                name,
                text,
                explicit,
            });
    let suites = load_selected(&file.display().to_string(), &text, criteria_file, select)
        .map_err(|e| CommandError(e.to_string()))?;
    for note in suites.iter().flat_map(|(loaded, _)| &loaded.notes) {
        eprintln!("note: {note}");
    }
    if suites
        .iter()
        .any(|(loaded, _)| loaded.format == SuiteFormat::AdkEvalSet)
    {
        match &criteria_name {
            Some(name) => eprintln!("criteria: {name}"),
            None => eprintln!(
                "criteria: ADK's defaults (tool_trajectory_avg_score 1.0, response_match_score 0.8): no {ADK_CRITERIA_FILE} beside {}",
                file.display()
            ),
        }
    }
    Ok(suites)
}

pub fn run(command: SuiteCommand) -> Result<Status, CommandError> {
    match command {
        SuiteCommand::Convert { file, criteria } => {
            let suites = read_suites(&file, &criteria, None)?;
            for (loaded, compiled) in &suites {
                for warning in compiled.warnings() {
                    eprintln!("warning: {warning}");
                }
                for case in &loaded.not_run {
                    eprintln!(
                        "warning: case {} is not converted: {}",
                        case.case, case.reason
                    );
                }
            }
            let documents = suites
                .iter()
                .map(|(loaded, _)| {
                    serde_saphyr::to_string(&manifest(loaded))
                        .map_err(|e| CommandError(e.to_string()))
                })
                .collect::<Result<Vec<_>, _>>()?;
            emit(None, &documents.join("---\n"))?;
            Ok(Status::Ok)
        }
        SuiteCommand::Validate { paths, criteria } => {
            let mut invalid = 0;
            for file in suite_files(&paths)? {
                match read_suites(&file, &criteria, None) {
                    Ok(suites) => {
                        for (loaded, compiled) in &suites {
                            for warning in compiled.warnings() {
                                eprintln!("warning: {warning}");
                            }
                            println!(
                                "{}: {} is valid ({} cases)",
                                file.display(),
                                loaded.name,
                                compiled.cases.len() + loaded.not_run.len()
                            );
                        }
                    }
                    Err(error) => {
                        invalid += 1;
                        println!("{error}");
                    }
                }
            }
            Ok(if invalid == 0 {
                Status::Ok
            } else {
                Status::Failed
            })
        }
    }
}

pub fn print_crds() -> Result<Status, CommandError> {
    let documents: Vec<String> = crd_yaml().into_iter().map(|(_, yaml)| yaml).collect();
    emit(None, &documents.join("---\n"))?;
    Ok(Status::Ok)
}

/// Which cases run, over each suite's own `select`.
#[derive(clap::Args, Default)]
pub struct SelectArgs {
    /// Run only the cases carrying this tag (repeat it: any of them). It
    /// and the two below replace the suites' own `select`.
    #[arg(long = "tag", value_name = "TAG")]
    tags: Vec<String>,
    /// Leave out the cases carrying this tag (repeatable).
    #[arg(long = "exclude-tag", value_name = "TAG")]
    exclude_tags: Vec<String>,
    /// Run only the case of this name, or the cases whose names match this
    /// glob (`*`, `?`; repeatable).
    #[arg(long = "case", value_name = "NAME|GLOB")]
    cases: Vec<String>,
}

impl SelectArgs {
    /// The selection asked for, if any was.
    pub fn spec(&self) -> Option<SelectSpec> {
        let select = SelectSpec {
            tags: self.tags.clone(),
            exclude_tags: self.exclude_tags.clone(),
            cases: self.cases.clone(),
        };
        (!select.is_empty()).then_some(select)
    }
}

/// The suite files named, folders walked: beneath a folder, every YAML
/// file holding an EvalSuite and every ADK `*.test.json` and
/// `*.evalset.json`, in path order. Anything else there (session
/// fixtures, CI files, ADK criteria) is not a suite; each is named on
/// stderr so that nothing is left out unsaid.
pub fn suite_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, CommandError> {
    let mut files = Vec::new();
    for path in paths {
        let metadata = std::fs::metadata(path)
            .map_err(|e| CommandError(format!("cannot read {}: {e}", path.display())))?;
        if !metadata.is_dir() {
            files.push(path.clone());
            continue;
        }
        let mut found = Vec::new();
        walk(path, &mut found)?;
        found.sort();
        let before = files.len();
        for file in found {
            match is_suite_file(&file)? {
                true => files.push(file),
                false => eprintln!("note: {} is not a suite file; left out", file.display()),
            }
        }
        if files.len() == before {
            return Err(CommandError(format!(
                "no suite file beneath {} (an EvalSuite YAML, an ADK *.test.json or *.evalset.json)",
                path.display()
            )));
        }
    }
    Ok(files)
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), CommandError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| CommandError(format!("cannot read {}: {e}", dir.display())))?;
    for entry in entries {
        let entry =
            entry.map_err(|e| CommandError(format!("cannot read {}: {e}", dir.display())))?;
        let path = entry.path();
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        match entry.file_type() {
            Ok(kind) if kind.is_dir() && !hidden => walk(&path, found)?,
            Ok(kind) if kind.is_file() && !hidden => found.push(path),
            _ => {}
        }
    }
    Ok(())
}

/// An ADK eval file by its name; a YAML file when one of its documents
/// says `kind: EvalSuite` at the top (a file that says so and does not
/// load is an error later, not a file passed over; a Flux Kustomization
/// naming EvalSuites in its health checks is no suite).
fn is_suite_file(path: &Path) -> Result<bool, CommandError> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    if name.ends_with(".test.json") || name.ends_with(".evalset.json") {
        return Ok(true);
    }
    if !(name.ends_with(".yaml") || name.ends_with(".yml")) {
        return Ok(false);
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| CommandError(format!("cannot read {}: {e}", path.display())))?;
    Ok(text.lines().any(|line| {
        line.strip_prefix("kind:")
            .is_some_and(|kind| kind.trim().trim_matches(['"', '\'']) == "EvalSuite")
    }))
}
