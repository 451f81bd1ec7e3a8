//! Writing results: to a file or stdout, and aligned text tables.

use super::CommandError;
use crate::core::render::terminal::{cell, terminal_safe};
use comfy_table::{Row, Table, presets::NOTHING};
use std::io::Write;
use std::path::Path;

/// Write `text` to `path`, or to stdout when there is none.
pub fn emit(path: Option<&Path>, text: &str) -> Result<(), CommandError> {
    let mut output = Output::open(path)?;
    output.write(text)?;
    output.finish()
}

/// Text written as it is made, to a file or stdout, so that a large output
/// is never held whole.
pub struct Output<'p> {
    writer: std::io::BufWriter<Box<dyn Write>>,
    path: Option<&'p Path>,
}

impl<'p> Output<'p> {
    pub fn open(path: Option<&'p Path>) -> Result<Output<'p>, CommandError> {
        let target: Box<dyn Write> = match path {
            Some(path) => Box::new(std::fs::File::create(path).map_err(|e| failed(path, e))?),
            None => Box::new(std::io::stdout().lock()),
        };
        Ok(Output {
            writer: std::io::BufWriter::with_capacity(1 << 16, target),
            path,
        })
    }

    pub fn write(&mut self, text: &str) -> Result<(), CommandError> {
        let result = self.writer.write_all(text.as_bytes());
        self.outcome(result)
    }

    /// `items` as a pretty JSON list and a newline, each item made as it
    /// is written.
    pub fn write_json_list<T: serde::Serialize>(
        &mut self,
        items: impl IntoIterator<Item = T>,
    ) -> Result<(), CommandError> {
        use serde::Serializer;
        let mut json = serde_json::Serializer::pretty(&mut self.writer);
        let result = (&mut json)
            .collect_seq(items)
            .map_err(std::io::Error::from)
            .and_then(|()| self.writer.write_all(b"\n"));
        self.outcome(result)
    }

    pub fn finish(mut self) -> Result<(), CommandError> {
        let result = self.writer.flush();
        self.outcome(result)
    }

    fn outcome(&self, result: std::io::Result<()>) -> Result<(), CommandError> {
        match self.path {
            Some(path) => result.map_err(|e| failed(path, e)),
            None => stdout_written(result),
        }
    }
}

fn failed(path: &Path, error: std::io::Error) -> CommandError {
    CommandError(format!("cannot write {}: {error}", path.display()))
}

/// The outcome of a write to stdout.
pub fn stdout_written(result: std::io::Result<()>) -> Result<(), CommandError> {
    match result {
        // A reader that stopped early (`| head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(|e| CommandError(format!("cannot write to stdout: {e}"))),
    }
}

/// A borderless table with a header row, as `kubectl get` prints. Each
/// cell is shown on one line, whatever a record put in it.
pub fn table<C: AsRef<str>, R: IntoIterator<Item = C>>(
    header: impl Into<Row>,
    rows: impl IntoIterator<Item = R>,
) -> String {
    let mut table = Table::new();
    table.load_preset(NOTHING).set_header(header);
    for row in rows {
        table.add_row(
            row.into_iter()
                .map(|text| cell(text.as_ref()).into_owned())
                .collect::<Vec<_>>(),
        );
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
        say(&format!("warning: {issue}"));
        count += 1;
    }
    count
}

/// One line on stderr, which may quote a record: shown, never steering the
/// terminal.
pub fn say(line: &str) {
    eprintln!("{}", terminal_safe(line));
}
