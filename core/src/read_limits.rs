//! How much of a session a database reader holds: the bytes of one row,
//! the rows and bytes of one session, and the elements one row may decode
//! into. A row or session over a limit is refused before it is decoded
//! (the bytes of a row over `rowBytes` are not even sent), so that one
//! looping or hostile runtime cannot take the memory of the run that
//! reads it; the session is unreadable, and every other one is scored.

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
    pub fn check_json(&self, text: &[u8]) -> Result<(), String> {
        self.check_elements(json_elements(text, self.row_elements))
    }

    /// Why a row of `elements` elements is refused, if it is.
    pub fn check_elements(&self, elements: u64) -> Result<(), String> {
        if elements > self.row_elements {
            return Err(format!(
                "holds more than {} elements (messages, artifacts, parts and JSON values), the limit per row (sessions.limits.rowElements): not decoded",
                self.row_elements
            ));
        }
        Ok(())
    }
}

/// One session's rows counted as they arrive, against the limits.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    rows: u64,
    bytes: u64,
}

impl Tally {
    /// The rows counted, held or not.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Count a row of `size` bytes; why the session is refused, if this
    /// row puts it over a limit.
    pub fn add(&mut self, size: u64, limits: &ReadLimits) -> Result<(), String> {
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
