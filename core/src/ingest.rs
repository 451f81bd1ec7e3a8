//! Event rows before normalisation: JSONL lines and kagent API rows.
//!
//! Every way a line can be unusable (not UTF-8, not JSON, nested absurdly
//! deep, larger than any real event, not an object) becomes an [`Issue`] that
//! names where it was, and reading goes on with the next line.

use crate::event::{Event, FieldIssue, kind};
use crate::read_limits::ReadLimits;
use crate::typed;
use serde_json::Value;
use std::fmt;
use std::io::{self, BufRead};
use std::sync::Arc;

/// Lines longer than this are reported, not parsed: no real event is near it,
/// and a bound keeps a corrupt file from exhausting memory.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// Where an event came from, for messages a user can act on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    Line { file: Arc<str>, line: u64 },
    Row { source: Arc<str>, event_id: String },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Line { file, line } => write!(f, "{file}:{line}"),
            Origin::Row { source, event_id } => write!(f, "{source}: event {event_id}"),
        }
    }
}

/// Something in the input that could not be used, and where.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Issue {
    pub location: String,
    pub message: String,
}

impl Issue {
    pub fn new(location: impl fmt::Display, message: impl Into<String>) -> Self {
        Issue {
            location: location.to_string(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

/// One event as read: where it came from, its JSON text, and the event
/// read from it with what in it could not be used.
#[derive(Clone, Debug, PartialEq)]
pub struct RawEvent {
    pub origin: Origin,
    /// The event object's JSON (an API row's `data`, unwrapped), for the
    /// commands that show or save events as stored; kept when asked for,
    /// and always for events read the general way.
    json: Option<Box<str>>,
    /// Boxed: a session's rows are collected in a growing list, and a
    /// small row keeps the copies made as it grows small.
    pub event: Box<Event>,
    pub field_issues: Vec<FieldIssue>,
}

impl RawEvent {
    /// An event object read the general way; its JSON text kept when
    /// `keep` says so.
    pub fn from_value(origin: Origin, value: Value, keep: KeepJson) -> RawEvent {
        let (event, field_issues) = Event::from_json(&value);
        RawEvent {
            origin,
            json: (keep == KeepJson::Yes).then(|| value.to_string().into()),
            event: Box::new(event),
            field_issues,
        }
    }

    /// The event object as stored, when its JSON was kept.
    pub fn value(&self) -> Option<Value> {
        // The text was parsed when it was read; parsing it again cannot fail.
        serde_json::from_str(self.json.as_deref()?).ok()
    }
}

/// Whether a reader keeps each event's JSON text beside the event it read:
/// scoring needs only the event, and the text would double the memory a
/// session takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeepJson {
    #[default]
    No,
    Yes,
}

/// The rows of one source read so far, what could not be used, and what
/// was read with a loss.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawEvents {
    pub events: Vec<RawEvent>,
    pub issues: Vec<Issue>,
    pub notes: Vec<Issue>,
}

impl RawEvents {
    /// File what parsing one row gave: the event (and a note of what was
    /// read with a loss), or why it could not be read.
    pub fn accept(&mut self, parsed: Result<Parsed, Issue>) {
        match parsed {
            Ok(Parsed { event, note }) => {
                self.notes.extend(note);
                self.events.push(event);
            }
            Err(issue) => self.issues.push(issue),
        }
    }
}

/// One row, read.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub event: RawEvent,
    /// What was read with a loss: numbers beyond a float's range.
    pub note: Option<Issue>,
}

/// Numbers clamped in one row before giving up: a row of nothing but
/// huge numbers is not an event.
const CLAMPS_PER_ROW: usize = 64;

/// Parse the event JSON stored in one row or line. A number beyond a
/// float's range (`1e400`) loses its precision, becoming the largest float
/// of its sign, and is noted; it does not cost the event.
pub fn parse_event(bytes: &[u8], origin: Origin, keep: KeepJson) -> Result<Parsed, Issue> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Issue::new(
            &origin,
            format!("not UTF-8 (invalid byte at offset {})", e.valid_up_to()),
        )
    })?;
    let (event, clamped) = parse_text(text, origin, keep)?;
    let note = (clamped > 0).then(|| {
        Issue::new(
            &event.origin,
            format!(
                "{clamped} number(s) beyond a float's range read as the largest float of their sign"
            ),
        )
    });
    Ok(Parsed { event, note })
}

/// [`parse_event`] of a database row, unless `limits` refuse it for the
/// elements its JSON holds.
pub fn parse_row(
    bytes: &[u8],
    origin: Origin,
    keep: KeepJson,
    limits: &ReadLimits,
) -> Result<Parsed, Issue> {
    limits
        .check_json(bytes)
        .map_err(|why| Issue::new(&origin, why))?;
    parse_event(bytes, origin, keep)
}

/// The event in one row's JSON text, and how many numbers were clamped:
/// the typed reader for the plain shape, the general one for the rest.
fn parse_text(text: &str, origin: Origin, keep: KeepJson) -> Result<(RawEvent, usize), Issue> {
    if let Some(event) = typed::read_event(text) {
        let event = RawEvent {
            origin,
            json: (keep == KeepJson::Yes).then(|| text.into()),
            event: Box::new(event),
            field_issues: Vec::new(),
        };
        return Ok((event, 0));
    }
    let (value, clamped) = parse_lossy(text).map_err(|e| Issue::new(&origin, json_problem(&e)))?;
    let (event, inner_clamped) = unwrap_row(value, origin, keep)?;
    Ok((event, clamped + inner_clamped))
}

/// JSON, with numbers beyond a float's range clamped; how many were.
fn parse_lossy(text: &str) -> Result<(Value, usize), serde_json::Error> {
    let mut text = std::borrow::Cow::Borrowed(text);
    for clamped in 0..=CLAMPS_PER_ROW {
        match serde_json::from_str(&text) {
            Ok(value) => return Ok((value, clamped)),
            Err(e) => match clamp_number_at(&text, &e) {
                Some(fixed) if clamped < CLAMPS_PER_ROW => text = std::borrow::Cow::Owned(fixed),
                _ => return Err(e),
            },
        }
    }
    unreachable!("the loop returns")
}

/// The text with the out-of-range number the error points at replaced by
/// the largest float of its sign; `None` for any other error.
fn clamp_number_at(text: &str, error: &serde_json::Error) -> Option<String> {
    if !error.to_string().starts_with("number out of range") {
        return None;
    }
    // serde_json counts lines from 1 and columns in bytes from 1, pointing
    // at the number's last byte.
    let line_start: usize = text
        .split_inclusive('\n')
        .take(error.line().saturating_sub(1))
        .map(str::len)
        .sum();
    let end = (line_start + error.column()).min(text.len());
    let is_number_byte =
        |b: u8| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-');
    let bytes = text.as_bytes();
    let mut start = end;
    while start > 0 && is_number_byte(bytes[start - 1]) {
        start -= 1;
    }
    let mut stop = end;
    while stop < bytes.len() && is_number_byte(bytes[stop]) {
        stop += 1;
    }
    if start == stop {
        return None;
    }
    let largest = if bytes[start] == b'-' {
        "-1.7976931348623157e308"
    } else {
        "1.7976931348623157e308"
    };
    Some(format!("{}{largest}{}", &text[..start], &text[stop..]))
}

fn json_problem(error: &serde_json::Error) -> String {
    if error.to_string().starts_with("recursion limit exceeded") {
        format!("nested deeper than 128 levels (column {})", error.column())
    } else {
        format!("not JSON: {error}")
    }
}

/// A line may be a kagent API event row, `{"id": ..., "data": "<event JSON>"}`;
/// anything else must be the event object itself. Also how many numbers
/// the row's inner JSON had clamped.
fn unwrap_row(value: Value, origin: Origin, keep: KeepJson) -> Result<(RawEvent, usize), Issue> {
    let Value::Object(mut obj) = value else {
        return Err(Issue::new(
            &origin,
            format!("expected a JSON object, found {}", kind(&value)),
        ));
    };
    let is_row = obj.contains_key("data")
        && !["author", "Author", "content", "Content"]
            .iter()
            .any(|k| obj.contains_key(*k));
    if !is_row {
        // Read the general way: the JSON is kept whatever `keep` says, as
        // the fixture source tells a file of A2A tasks by it.
        return Ok((
            RawEvent::from_value(origin, Value::Object(obj), KeepJson::Yes),
            0,
        ));
    }
    let row_origin = match (&origin, obj.get("id").and_then(Value::as_str)) {
        (Origin::Line { file, line }, Some(id)) => Origin::Row {
            source: format!("{file}:{line}").into(),
            event_id: id.to_string(),
        },
        _ => origin,
    };
    match obj.remove("data") {
        Some(Value::String(inner)) => parse_text(&inner, row_origin, keep),
        Some(inner @ Value::Object(_)) => {
            Ok((RawEvent::from_value(row_origin, inner, KeepJson::Yes), 0))
        }
        Some(other) => Err(Issue::new(
            &row_origin,
            format!(
                "row `data` must be event JSON text or an object, found {}",
                kind(&other)
            ),
        )),
        None => unreachable!("checked above"),
    }
}

/// Read JSONL: one event (or kagent API row) per line, blank lines skipped.
/// Only an I/O error stops the read; bad lines become issues.
pub fn read_jsonl(mut reader: impl BufRead, file: &str, keep: KeepJson) -> io::Result<RawEvents> {
    let file: Arc<str> = file.into();
    let mut out = RawEvents::default();
    let mut buf = Vec::new();
    let mut line_no = 0u64;
    while let Some(length) = read_bounded_line(&mut reader, &mut buf, MAX_LINE_BYTES)? {
        line_no += 1;
        let origin = Origin::Line {
            file: file.clone(),
            line: line_no,
        };
        if length > MAX_LINE_BYTES {
            out.issues.push(Issue::new(
                &origin,
                format!(
                    "line is {length} bytes, over the {} MiB limit for one event",
                    MAX_LINE_BYTES >> 20
                ),
            ));
            continue;
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        // A JSON document (an array of events, or one pretty-printed event)
        // would otherwise give one puzzling error per line.
        if out.events.is_empty() && out.issues.is_empty() {
            let first = buf.trim_ascii();
            if first.starts_with(b"[") || first == b"{" {
                out.issues.push(Issue::new(
                    &origin,
                    "this is a JSON document, not JSONL (one event object per line); for an array of events, `jq -c '.[]' FILE` writes JSONL",
                ));
                return Ok(out);
            }
        }
        out.accept(parse_event(&buf, origin, keep));
    }
    Ok(out)
}

/// Read the next line into `buf` (without its terminator), keeping at most
/// `limit` bytes; returns the full line length, or `None` at end of input.
fn read_bounded_line(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    limit: usize,
) -> io::Result<Option<usize>> {
    buf.clear();
    let mut length = 0usize;
    let mut saw_any = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(available) => available,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(saw_any.then_some(length));
        }
        saw_any = true;
        let (chunk, consumed, done) = match memchr::memchr(b'\n', available) {
            Some(i) => (&available[..i], i + 1, true),
            None => (available, available.len(), false),
        };
        length += chunk.len();
        if length <= limit {
            buf.extend_from_slice(chunk);
        }
        reader.consume(consumed);
        if done {
            if buf.last() == Some(&b'\r') {
                buf.pop();
                length -= 1;
            }
            return Ok(Some(length));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &[u8]) -> RawEvents {
        read_jsonl(text, "s.jsonl", KeepJson::No).unwrap()
    }

    #[test]
    fn blank_lines_are_skipped_and_crlf_accepted() {
        let out = read(b"{\"author\":\"user\"}\r\n\n   \n{\"author\":\"a\"}");
        assert_eq!(out.events.len(), 2);
        assert!(out.issues.is_empty());
        assert_eq!(out.events[1].origin.to_string(), "s.jsonl:4");
    }

    #[test]
    fn every_bad_line_is_reported_with_its_line_and_the_rest_survive() {
        let mut input = Vec::new();
        input.extend_from_slice(b"{\"author\":\"user\"}\n");
        input.extend_from_slice(b"not json\n");
        input.extend_from_slice(b"[1,2]\n");
        input.extend_from_slice(b"{\"text\":\"\xff\xfe\"}\n");
        input.extend_from_slice(format!("{}{}\n", "[".repeat(200), "]".repeat(200)).as_bytes());
        input.extend_from_slice(b"{\"author\":\"agent\"}\n");
        let out = read(&input);
        assert_eq!(out.events.len(), 2);
        let messages: Vec<String> = out.issues.iter().map(|i| i.to_string()).collect();
        assert!(
            messages[0].starts_with("s.jsonl:2: not JSON"),
            "{messages:?}"
        );
        assert_eq!(
            messages[1],
            "s.jsonl:3: expected a JSON object, found a list"
        );
        assert_eq!(
            messages[2],
            "s.jsonl:4: not UTF-8 (invalid byte at offset 9)"
        );
        assert!(
            messages[3].starts_with("s.jsonl:5: nested deeper than 128 levels"),
            "{messages:?}"
        );
    }

    #[test]
    fn a_huge_line_is_reported_without_being_held() {
        let mut input = vec![b'x'; MAX_LINE_BYTES + 10];
        input.extend_from_slice(b"\n{\"author\":\"user\"}\n");
        let out = read(&input);
        assert_eq!(out.events.len(), 1);
        assert_eq!(
            out.issues[0].to_string(),
            format!(
                "s.jsonl:1: line is {} bytes, over the 16 MiB limit for one event",
                MAX_LINE_BYTES + 10
            )
        );
    }

    #[test]
    fn kagent_api_rows_are_unwrapped() {
        let out = read(
            br#"{"id":"ev-1","session_id":"s","data":"{\"author\":\"user\",\"content\":null}"}
{"id":"ev-2","data":"{broken"}
{"id":"ev-3","data":{"author":"agent"}}
"#,
        );
        assert_eq!(out.events.len(), 2);
        assert_eq!(out.events[0].event.author.as_deref(), Some("user"));
        assert_eq!(out.events[0].origin.to_string(), "s.jsonl:1: event ev-1");
        assert!(
            out.issues[0]
                .to_string()
                .starts_with("s.jsonl:2: event ev-2: not JSON")
        );
    }
}
