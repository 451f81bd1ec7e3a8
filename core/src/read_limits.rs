//! How much of a session a database reader holds: the bytes of one row,
//! the rows and bytes of one session, and the elements one row may decode
//! into. A row or session over a limit is refused before it is decoded
//! (the bytes of a row over `rowBytes` are not even sent), so that one
//! looping or hostile runtime cannot take the memory of the run that
//! reads it; the session is unreadable, and every other one is scored.

use crate::ingest::{Issue, Origin};
use crate::suite::spec::ReadLimitsSpec;

/// The limits in force; each is the suite's (or the command line's), else
/// a default far above what a real agent writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadLimits {
    pub row_bytes: u64,
    pub session_bytes: u64,
    pub session_rows: u64,
    pub row_elements: u64,
}

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            row_bytes: 16 << 20,
            session_bytes: 64 << 20,
            session_rows: 20_000,
            row_elements: 100_000,
        }
    }
}

impl ReadLimits {
    /// The defaults, with what `spec` sets in their place.
    pub fn from_spec(spec: &ReadLimitsSpec) -> Self {
        let default = ReadLimits::default();
        ReadLimits {
            row_bytes: spec.row_bytes.unwrap_or(default.row_bytes),
            session_bytes: spec.session_bytes.unwrap_or(default.session_bytes),
            session_rows: spec.session_rows.unwrap_or(default.session_rows),
            row_elements: spec.row_elements.unwrap_or(default.row_elements),
        }
    }

    /// Why a row of JSON `text` is refused for its elements, if it is.
    /// Each element counted is a byte of the text (`{`, `[` or `,`), so a
    /// text no longer than the limit is within it without a count.
    pub fn check_json(&self, text: &[u8]) -> Result<(), String> {
        if text.len() as u64 <= self.row_elements {
            return Ok(());
        }
        self.check_elements(json_elements(text, self.row_elements))
    }

    /// Why a protobuf row of `bytes` is refused for its elements, if it
    /// is; `count` counts them, stopping past the limit it is given. Every
    /// element inside a row takes two of its bytes at least (its key and
    /// its length), so a row too short to hold more than the limit is
    /// within it without a count.
    pub fn check_protobuf(
        &self,
        bytes: &[u8],
        count: impl FnOnce(u64) -> u64,
    ) -> Result<(), String> {
        if bytes.len() as u64 / 2 < self.row_elements {
            return Ok(());
        }
        self.check_elements(count(self.row_elements))
    }

    /// Why a row of `elements` elements is refused, if it is.
    fn check_elements(&self, elements: u64) -> Result<(), String> {
        if elements > self.row_elements {
            return Err(format!(
                "holds more than {} elements (messages, artifacts, parts and JSON values), the limit per row (sessions.limits.rowElements): not decoded",
                self.row_elements
            ));
        }
        Ok(())
    }
}

/// One session's rows `R` held as they arrive, against the limits; once
/// a row takes the session over one, none of it is held any longer, and
/// the issue says why. Every database source holds its rows in one.
#[derive(Clone, Debug, Default)]
pub struct Held<R> {
    rows: R,
    tally: Tally,
    refused: Option<Issue>,
}

impl<R: Default> Held<R> {
    /// Whether a row of `size` bytes is to be held: not when the session
    /// was refused, nor when this row, named by `origin`, takes it over a
    /// limit.
    pub fn admits(
        &mut self,
        size: u64,
        limits: &ReadLimits,
        origin: impl FnOnce() -> Origin,
    ) -> bool {
        if self.refused.is_some() {
            return false;
        }
        match self.tally.add(size, limits) {
            Ok(()) => true,
            Err(why) => {
                self.refuse(origin(), why);
                false
            }
        }
    }

    /// Refuse the session for what its row `origin` is: what it held is
    /// let go.
    pub fn refuse(&mut self, origin: Origin, why: String) {
        self.refused = Some(Issue::new(origin, why));
        self.rows = R::default();
    }

    /// The rows held so far, to add the one admitted.
    pub fn rows_mut(&mut self) -> &mut R {
        &mut self.rows
    }

    /// The rows the session had, held or not, up to the one refused.
    pub fn rows_seen(&self) -> u64 {
        self.tally.rows
    }

    /// What is held, or why the session was refused.
    pub fn into_rows(self) -> Result<R, Issue> {
        match self.refused {
            Some(refused) => Err(refused),
            None => Ok(self.rows),
        }
    }
}

/// One session's rows counted as they arrive, against the limits.
#[derive(Clone, Debug, Default)]
struct Tally {
    rows: u64,
    bytes: u64,
}

impl Tally {
    /// Count a row of `size` bytes; why the session is refused, if this
    /// row puts it over a limit.
    fn add(&mut self, size: u64, limits: &ReadLimits) -> Result<(), String> {
        self.rows += 1;
        self.bytes = self.bytes.saturating_add(size);
        if size > limits.row_bytes {
            return Err(format!(
                "is {size} bytes, over the limit of {} per row (sessions.limits.rowBytes): the session is not read",
                limits.row_bytes
            ));
        }
        if self.rows > limits.session_rows {
            return Err(format!(
                "is the session's row number {}, over the limit of {} rows per session (sessions.limits.sessionRows): the session is not read",
                self.rows, limits.session_rows
            ));
        }
        if self.bytes > limits.session_bytes {
            return Err(format!(
                "brings the session to {} bytes, over the limit of {} per session (sessions.limits.sessionBytes): the session is not read",
                self.bytes, limits.session_bytes
            ));
        }
        Ok(())
    }
}

/// The elements of a JSON text as a parser would allocate them: every
/// object, array and value after the first, counted on the bytes alone
/// (`{`, `[` and `,` outside strings), stopping past `limit`.
pub fn json_elements(text: &[u8], limit: u64) -> u64 {
    let (mut count, mut in_string, mut escaped) = (0u64, false, false);
    for &byte in text {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' | b',' => {
                count += 1;
                if count > limit {
                    break;
                }
            }
            _ => {}
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> ReadLimits {
        ReadLimits {
            row_bytes: 10,
            session_bytes: 25,
            session_rows: 3,
            row_elements: 4,
        }
    }

    #[test]
    fn a_row_over_the_row_limit_is_refused_and_names_the_limit() {
        let why = Tally::default().add(11, &small()).unwrap_err();
        assert!(
            why.contains("11 bytes") && why.contains("rowBytes"),
            "{why}"
        );
        assert!(Tally::default().add(10, &small()).is_ok());
    }

    #[test]
    fn a_session_is_refused_at_the_row_that_takes_it_over() {
        let mut tally = Tally::default();
        for _ in 0..2 {
            tally.add(10, &small()).unwrap();
        }
        let why = tally.add(10, &small()).unwrap_err();
        assert!(
            why.contains("30 bytes") && why.contains("sessionBytes"),
            "{why}"
        );
        let mut tally = Tally::default();
        for _ in 0..3 {
            tally.add(1, &small()).unwrap();
        }
        let why = tally.add(1, &small()).unwrap_err();
        assert!(
            why.contains("row number 4") && why.contains("sessionRows"),
            "{why}"
        );
    }

    #[test]
    fn a_refused_session_lets_go_of_what_it_held_and_holds_nothing_more() {
        let origin = |n: u32| Origin::Row {
            source: "db".into(),
            event_id: format!("row {n}"),
        };
        let mut held: Held<Vec<u32>> = Held::default();
        for n in 1..=3 {
            assert!(held.admits(8, &small(), || origin(n)));
            held.rows_mut().push(n);
        }
        assert!(!held.admits(8, &small(), || origin(4)), "32 bytes");
        assert!(!held.admits(1, &small(), || origin(5)), "refused for good");
        assert_eq!(held.rows_seen(), 4);
        let refused = held.into_rows().unwrap_err();
        assert!(refused.to_string().contains("row 4"), "{refused}");
    }

    /// The densest JSON there is, one element a byte: a text as long as
    /// the limit is within it, one byte more is counted and refused.
    #[test]
    fn a_json_text_no_longer_than_the_limit_is_within_it_and_no_longer_one() {
        assert!(small().check_json(b"[[[[").is_ok());
        assert!(small().check_json(b"[[[[[").is_err());
    }

    #[test]
    fn json_elements_are_counted_outside_strings_only() {
        assert_eq!(json_elements(br#"{"a": [1, 2, {"b": "x,{[\"]"}]}"#, 100), 5);
        assert_eq!(json_elements(b"[[[[[[[[", 3), 4);
        assert!(small().check_elements(5).is_err());
        assert!(small().check_elements(4).is_ok());
    }

    #[test]
    fn a_spec_sets_what_it_names_and_keeps_the_defaults_of_the_rest() {
        let spec = ReadLimitsSpec {
            session_rows: Some(7),
            ..ReadLimitsSpec::default()
        };
        let limits = ReadLimits::from_spec(&spec);
        assert_eq!(limits.session_rows, 7);
        assert_eq!(limits.row_bytes, ReadLimits::default().row_bytes);
    }
}
