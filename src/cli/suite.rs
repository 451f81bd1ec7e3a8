//! `kagent-evals suite convert` and `kagent-evals crd`.

use super::output::emit;
use super::{CommandError, Status};
use crate::core::suite::load::{load_compiled, manifest};
use crate::k8s::crd::crd_yaml;
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum SuiteCommand {
    /// Print the EvalSuite manifest equivalent of a kagent-agentevals suite or an ADK EvalSet.
    Convert { file: PathBuf },
}

pub fn run(command: SuiteCommand) -> Result<Status, CommandError> {
    match command {
        SuiteCommand::Convert { file } => {
            let text = std::fs::read_to_string(&file)
                .map_err(|e| CommandError(format!("cannot read {}: {e}", file.display())))?;
            let suites = load_compiled(&file.display().to_string(), &text)
                .map_err(|e| CommandError(e.to_string()))?;
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
