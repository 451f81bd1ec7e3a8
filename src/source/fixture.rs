//! Captured sessions on disk: a JSONL file is one session, a directory of
//! `*.jsonl` files is one session per file, the id being the file stem.
//!
//! A single file stands in for whichever session a suite asks for, as the
//! kagent-agentevals fixture source does: that is how a suite written for the
//! cluster runs unchanged against one captured session. In a directory,
//! sessions are looked up by file stem. Agent and time filters do not apply
//! to files.

use super::{
    RawSession, SessionQuery, SessionSource, SessionSummary, SourceError, StoredTask, TaskData,
};
use crate::core::a2a_v1::{fixture, timeline};
use crate::core::ingest::{KeepJson, RawEvents, read_jsonl};
use crate::core::parallel::map_in_order;
use crate::core::session::{AgentRef, SessionKey};
use crate::core::task::{Record, RecordChoice};
use std::path::{Path, PathBuf};

#[derive(Clone, Debug)]
pub struct FixtureSource {
    root: PathBuf,
    files: Vec<(String, PathBuf)>,
    single: bool,
    /// Whether each event's JSON is kept beside it (`extract --raw`).
    pub(super) keep_json: KeepJson,
}

impl FixtureSource {
    pub fn open(path: impl AsRef<Path>) -> Result<Self, SourceError> {
        let root = path.as_ref().to_path_buf();
        let unavailable = |detail: String| SourceError::Unavailable {
            source_name: format!("fixture {}", root.display()),
            detail,
        };
        let meta = std::fs::metadata(&root).map_err(|e| unavailable(e.to_string()))?;
        let (files, single) = if meta.is_dir() {
            let mut files = Vec::new();
            for entry in std::fs::read_dir(&root).map_err(|e| unavailable(e.to_string()))? {
                let path = entry.map_err(|e| unavailable(e.to_string()))?.path();
                if path.extension().is_some_and(|e| e == "jsonl") {
                    // A session file that cannot be read is said, not skipped.
                    regular_file(&path)?;
                    files.push((stem(&path), path));
                }
            }
            files.sort();
            (files, false)
        } else {
            regular_file(&root)?;
            (vec![(stem(&root), root.clone())], true)
        };
        Ok(FixtureSource {
            root,
            files,
            single,
            keep_json: KeepJson::No,
        })
    }

    /// A file of events, or of A2A task records (one task per line, a
    /// later line of the same task replacing the earlier, as kagent's task
    /// store keeps the last save).
    fn read(&self, id: &str, path: &Path, record: RecordChoice) -> Result<RawSession, SourceError> {
        if let Some(lines) = kagent_v1_rows(path)? {
            if record == RecordChoice::Events {
                return Err(SourceError::Config(format!(
                    "{} holds a kagent 1.0 Session's rows, not ADK events",
                    path.display()
                )));
            }
            let (tasks, events) = fixture::rows(lines)
                .map_err(|e| SourceError::Config(format!("{}: {e}", path.display())))?;
            let mut raw = RawEvents::default();
            timeline::read_rows(
                tasks,
                &events,
                &self.describe().into(),
                self.keep_json,
                &mut raw,
            );
            return Ok(RawSession {
                key: SessionKey::new(id, None),
                agent_id: None,
                raw,
                record: Record::Tasks,
                revision: None,
                rows: None,
            });
        }
        let raw = read_file(path, self.keep_json)?;
        let mut session = RawSession {
            key: SessionKey::new(id, None),
            agent_id: None,
            raw,
            record: Record::Events,
            revision: None,
            rows: None,
        };
        // Task records are read the general way, which keeps their JSON; the
        // first row that is not one makes this a file of events.
        let task_records: Option<Vec<serde_json::Value>> = match session.raw.events.is_empty() {
            true => None,
            false => session
                .raw
                .events
                .iter()
                .map(|e| e.value().filter(is_task))
                .collect(),
        };
        let wrong = |holds: &str| SourceError::Config(format!("{} holds {holds}", path.display()));
        match (task_records, record) {
            (Some(_), RecordChoice::Events) => Err(wrong("A2A tasks, not ADK events")),
            (None, RecordChoice::Tasks) => Err(wrong("ADK events, not A2A tasks")),
            (None, _) => Ok(session),
            (Some(records), _) => {
                session.raw.events.clear();
                let mut tasks: Vec<StoredTask> = Vec::new();
                for value in records {
                    let id = value
                        .get("id")
                        .and_then(|v| v.as_str())
                        .unwrap_or("")
                        .to_string();
                    let task = StoredTask {
                        id: id.clone(),
                        data: TaskData::Json(value),
                        protocol: None,
                    };
                    match tasks.iter_mut().find(|t| t.id == id) {
                        Some(earlier) => *earlier = task,
                        None => tasks.push(task),
                    }
                }
                let issues = std::mem::take(&mut session.raw.issues);
                session.use_tasks(tasks, &self.describe().into(), self.keep_json);
                session.raw.issues.splice(0..0, issues);
                Ok(session)
            }
        }
    }
}

/// Only regular files: a FIFO would hang, a device (`/dev/zero`) never ends,
/// and a broken link is a session that cannot be read.
fn regular_file(path: &Path) -> Result<(), SourceError> {
    let unavailable = |detail: String| SourceError::Unavailable {
        source_name: format!("fixture {}", path.display()),
        detail,
    };
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => Ok(()),
        Ok(_) => Err(unavailable(
            "not a regular file (a directory, device, FIFO or socket)".into(),
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && path.is_symlink() => {
            Err(unavailable("a symbolic link to nothing".into()))
        }
        Err(e) => Err(unavailable(e.to_string())),
    }
}

/// A JSONL file of events, streamed: a line over the limit is never held.
pub fn read_file(path: &Path, keep: KeepJson) -> Result<RawEvents, SourceError> {
    regular_file(path)?;
    let unavailable = |e: std::io::Error| SourceError::Unavailable {
        source_name: format!("fixture {}", path.display()),
        detail: e.to_string(),
    };
    let file = std::fs::File::open(path).map_err(unavailable)?;
    read_jsonl(
        std::io::BufReader::with_capacity(1 << 16, file),
        &path.display().to_string(),
        keep,
    )
    .map_err(unavailable)
}

/// A file of a kagent 1.0 Session's rows (as `capture` writes them): its
/// lines' JSON, where the first line is a row. Rows are recognised before
/// anything is read as an ADK event, whose reader would take a row for one.
fn kagent_v1_rows(path: &Path) -> Result<Option<Vec<serde_json::Value>>, SourceError> {
    use std::io::BufRead;
    let unavailable = |e: std::io::Error| SourceError::Unavailable {
        source_name: format!("fixture {}", path.display()),
        detail: e.to_string(),
    };
    let file = std::fs::File::open(path).map_err(unavailable)?;
    // Only the first line is read to decide; an events file is then read
    // by its own reader, which says which of its lines are not UTF-8.
    let mut lines = std::io::BufReader::new(file)
        .split(b'\n')
        .enumerate()
        .filter(|(_, line)| !line.as_ref().is_ok_and(|l| l.trim_ascii().is_empty()));
    let Some((_, first)) = lines.next() else {
        return Ok(None);
    };
    let first = first.map_err(unavailable)?;
    match serde_json::from_slice(&first) {
        Ok(value) if fixture::is_row(&value) => {
            let mut rows = vec![value];
            for (index, line) in lines {
                let line = line.map_err(unavailable)?;
                rows.push(serde_json::from_slice(&line).map_err(|e| {
                    SourceError::Config(format!("{}:{}: not JSON: {e}", path.display(), index + 1))
                })?);
            }
            Ok(Some(rows))
        }
        _ => Ok(None),
    }
}

/// An A2A task object rather than an ADK event.
fn is_task(value: &serde_json::Value) -> bool {
    value.get("kind").and_then(|k| k.as_str()) == Some("task")
        || (value.get("history").is_some() && value.get("status").is_some())
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

impl SessionSource for FixtureSource {
    fn describe(&self) -> String {
        format!("fixture {}", self.root.display())
    }

    async fn list(&self, query: &SessionQuery) -> Result<Vec<SessionSummary>, SourceError> {
        let listed: Vec<&(String, PathBuf)> = self
            .files
            .iter()
            .take(query.limit.unwrap_or(usize::MAX))
            .collect();
        // Counting means reading; a run reads each session once, when it
        // fetches it.
        map_in_order(listed, |(id, path)| {
            let events = match query.count_events {
                true => Some(self.read(id, path, RecordChoice::Auto)?.raw.events.len() as u64),
                false => None,
            };
            let updated = std::fs::metadata(path)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| jiff::Timestamp::try_from(t).ok());
            Ok(SessionSummary {
                key: SessionKey::new(id.clone(), None),
                revision: None,
                agent_id: None,
                events,
                updated,
            })
        })
        .into_iter()
        .collect()
    }

    async fn fetch(
        &self,
        keys: &[SessionKey],
        _agent: Option<&AgentRef>,
        record: RecordChoice,
    ) -> Result<Vec<RawSession>, SourceError> {
        let found: Vec<(&str, &Path)> = keys
            .iter()
            .filter_map(|key| {
                let found = if self.single {
                    self.files.first()
                } else {
                    self.files
                        .binary_search_by(|(id, _)| id.as_str().cmp(&key.id))
                        .ok()
                        .map(|at| &self.files[at])
                };
                found.map(|(_, path)| (key.id.as_str(), path.as_path()))
            })
            .collect();
        // Files are read on every core, the way sessions are scored.
        map_in_order(found, |(id, path)| self.read(id, path, record))
            .into_iter()
            .collect()
    }
}
