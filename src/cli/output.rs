//! Writing results: to a file or stdout, and aligned text tables.

use super::CommandError;
use comfy_table::{Table, presets::NOTHING};
use std::io::Write;
use std::path::Path;

/// Write `text` to `path`, or to stdout when there is none.
pub fn emit(path: Option<&Path>, text: &str) -> Result<(), CommandError> {
    match path {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| CommandError(format!("cannot write {}: {e}", path.display()))),
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout_written(
                stdout
                    .write_all(text.as_bytes())
                    .and_then(|_| stdout.flush()),
            )
        }
    }
}

/// The outcome of a write to stdout.
pub fn stdout_written(result: std::io::Result<()>) -> Result<(), CommandError> {
    match result {
        // A reader that stopped early (`| head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(|e| CommandError(format!("cannot write to stdout: {e}"))),
    }
}

/// A borderless table with a header row, as `kubectl get` prints.
pub fn table<const N: usize>(
    header: [&str; N],
    rows: impl IntoIterator<Item = [String; N]>,
) -> String {
    let mut table = Table::new();
    table.load_preset(NOTHING).set_header(header);
    for row in rows {
        table.add_row(row);
    }
    for column in table.column_iter_mut() {
        column.set_padding((0, 3));
    }
    let mut text = table
        .lines()
        .map(|line| line.trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n");
    text.push('\n');
    text
}

/// Report what could not be read, once per problem, on stderr.
pub fn warn_issues<'a>(issues: impl IntoIterator<Item = &'a crate::core::ingest::Issue>) -> usize {
    let mut count = 0;
    for issue in issues {
        eprintln!("warning: {issue}");
        count += 1;
    }
    count
}
