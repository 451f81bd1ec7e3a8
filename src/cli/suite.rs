//! `kagent-evals suite convert` and `kagent-evals crd`.

use super::output::emit;
use super::{CommandError, Status};
use crate::core::formats::load::{load_compiled, manifest};
use crate::core::suite::compile::CompiledSuite;
use crate::core::suite::loaded::{CriteriaFile, LoadedSuite, SuiteFormat};
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
}

/// Which metrics score an ADK eval file.
#[derive(clap::Args)]
pub struct CriteriaArgs {
    /// ADK criteria (a `test_config.json`) for an ADK eval file. By default,
    /// as ADK does: the `test_config.json` beside the file, else ADK's
    /// default criteria.
    #[arg(long, value_name = "FILE")]
    criteria: Option<PathBuf>,
}

const ADK_CRITERIA_FILE: &str = "test_config.json";

/// Read and compile the suites of a file, with the ADK criteria that go
/// with it, saying on stderr which criteria were used.
pub fn read_suites(
    file: &Path,
    criteria: &CriteriaArgs,
) -> Result<Vec<(LoadedSuite, CompiledSuite)>, CommandError> {
    let read = |path: &Path| {
        std::fs::read_to_string(path)
            .map_err(|e| CommandError(format!("cannot read {}: {e}", path.display())))
    };
    let text = read(file)?;
    let (criteria_path, explicit) = match &criteria.criteria {
        Some(path) => (Some(path.clone()), true),
        None => {
            let beside = file
                .parent()
                .unwrap_or(Path::new(""))
                .join(ADK_CRITERIA_FILE);
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
    let suites = load_compiled(&file.display().to_string(), &text, criteria_file)
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
            let suites = read_suites(&file, &criteria)?;
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
    }
}

pub fn print_crds() -> Result<Status, CommandError> {
    let documents: Vec<String> = crd_yaml().into_iter().map(|(_, yaml)| yaml).collect();
    emit(None, &documents.join("---\n"))?;
    Ok(Status::Ok)
}
