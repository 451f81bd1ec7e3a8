//! Text from records made safe to print. Rows are written by agents,
//! which may write anything: an ESC sequence retitles a window or clears
//! the screen, a CR or BS overwrites what was printed, U+202E reverses
//! what follows, and a newline inside a field draws a row of its own.
//! Such characters are shown as escapes (`\u{1b}`), never sent raw.

use std::borrow::Cow;

/// Whether `c` changes how a terminal shows what comes after it: C0 and C1
/// controls, DEL, and the Unicode bidirectional and line-separating
/// format characters.
fn steers(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
                | '\u{2028}' | '\u{2029}'
        )
}

fn escaped(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(|c| steers(c) && !keep(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match steers(c) && !keep(c) {
            true => out.extend(c.escape_unicode()),
            false => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A field on one line: every steering character escaped, newlines and
/// tabs included.
pub fn one_line(text: &str) -> Cow<'_, str> {
    escaped(text, |_| false)
}

/// Characters a table cell shows at most: a table lays a cell out by its
/// width, at a cost that grows faster than its length, and no terminal
/// shows more of one line anyway.
pub const CELL_CHARS: usize = 1000;

/// A field as one table cell: [`one_line`], cut at [`CELL_CHARS`] with
/// what was cut said.
pub fn cell(text: &str) -> Cow<'_, str> {
    let line = one_line(text);
    match line.char_indices().nth(CELL_CHARS) {
        None => line,
        Some((cut, _)) => {
            let rest = line[cut..].chars().count();
            Cow::Owned(format!("{} ... ({rest} more characters)", &line[..cut]))
        }
    }
}

/// Text of several lines for a terminal: every steering character escaped
/// but the newlines and tabs that lay it out.
pub fn terminal_safe(text: &str) -> Cow<'_, str> {
    escaped(text, |c| c == '\n' || c == '\t')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_steers_a_terminal_is_shown_not_sent() {
        let hostile = "get_weather\u{1b}]0;pwned\u{7}\u{1b}[2J\rok\u{8}\u{202e}evil\u{9b}31m\u{7f}";
        let safe = terminal_safe(hostile);
        assert!(!safe.chars().any(steers), "{safe}");
        assert!(
            safe.starts_with("get_weather\\u{1b}]0;pwned\\u{7}"),
            "{safe}"
        );
        assert!(safe.contains("\\u{202e}evil"), "{safe}");
        assert_eq!(one_line("alice\nbob  2026"), "alice\\u{a}bob  2026");
        assert_eq!(terminal_safe("a\nb\tc"), "a\nb\tc");
        let long = "x".repeat(CELL_CHARS + 5);
        assert_eq!(
            cell(&long),
            format!("{} ... (5 more characters)", &long[..CELL_CHARS])
        );
        assert!(matches!(cell("short"), Cow::Borrowed("short")));
        assert!(matches!(
            terminal_safe("plain, ünïcode ✓"),
            Cow::Borrowed(_)
        ));
    }
}
