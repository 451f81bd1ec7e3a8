//! Python's view of JSON values.
//!
//! The tools users compare us with are Python: they test `a == b` on what
//! `json.loads` returned, dump arguments with `json.dumps(..., sort_keys=True)`
//! and trim text with `str.strip()`. Each of those differs from the obvious
//! Rust spelling in a corner (`1 == 1.0`, `true == 1`, `1e+16`, `\x1c` being
//! whitespace), so they live here, once.

use serde_json::{Map, Value};
use std::fmt::Write;

/// `a == b` for the values Python's `json.loads` would have produced.
pub fn eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| eq(v, w)))
        }
        _ => match (Numeric::of(a), Numeric::of(b)) {
            (Some(x), Some(y)) => x.equals(y),
            _ => false,
        },
    }
}

/// Python's `bool(value)`.
pub fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// A number as Python holds it: `bool` and `int` are integers, the rest floats.
#[derive(Clone, Copy)]
enum Numeric {
    Int(i128),
    Float(f64),
}

impl Numeric {
    fn of(value: &Value) -> Option<Self> {
        match value {
            Value::Bool(b) => Some(Self::Int(i128::from(*b))),
            Value::Number(n) => Some(if let Some(i) = n.as_i64() {
                Self::Int(i128::from(i))
            } else if let Some(u) = n.as_u64() {
                Self::Int(i128::from(u))
            } else {
                Self::Float(n.as_f64().unwrap_or(f64::NAN))
            }),
            _ => None,
        }
    }

    /// Python compares an int with a float exactly, not by rounding the int.
    fn equals(self, other: Self) -> bool {
        match (self, other) {
            (Self::Int(a), Self::Int(b)) => a == b,
            (Self::Float(a), Self::Float(b)) => a == b,
            (Self::Int(i), Self::Float(f)) | (Self::Float(f), Self::Int(i)) => {
                const LIMIT: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0; // 2^127
                f.is_finite() && f.fract() == 0.0 && f.abs() < LIMIT && f as i128 == i
            }
        }
    }
}

/// How `json.dumps` lays out containers.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// The default separators `", "` and `": "`.
    Spaced,
    /// `separators=(",", ":")`.
    Compact,
}

/// `json.dumps(value, ensure_ascii=False, sort_keys=True)` with the given layout.
pub fn dumps_sorted(value: &Value, layout: Layout) -> String {
    let mut out = String::new();
    write_sorted(&mut out, value, layout);
    out
}

fn write_sorted(out: &mut String, value: &Value, layout: Layout) {
    let (item_sep, key_sep) = match layout {
        Layout::Spaced => (", ", ": "),
        Layout::Compact => (",", ":"),
    };
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(item_sep);
                }
                write_sorted(out, item, layout);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in sorted_entries(map).into_iter().enumerate() {
                if i > 0 {
                    out.push_str(item_sep);
                }
                write_string(out, key);
                out.push_str(key_sep);
                write_sorted(out, item, layout);
            }
            out.push('}');
        }
    }
}

/// Keys in code-point order, which is what Python's `sorted` gives for `str`.
fn sorted_entries(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<_> = map.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
}

fn write_string(out: &mut String, s: &str) {
    // serde_json escapes exactly the set Python does with ensure_ascii=False:
    // quote, backslash, and control characters (short forms for \b\f\n\r\t,
    // lowercase \u00XX for the rest).
    out.push_str(&serde_json::to_string(s).unwrap_or_default());
}

fn write_number(out: &mut String, n: &serde_json::Number) {
    if n.is_f64() {
        out.push_str(&float_repr(n.as_f64().unwrap_or(0.0)));
    } else {
        let _ = write!(out, "{n}");
    }
}

/// Python's `repr(float)`: the shortest round-tripping digits, in fixed
/// notation unless the decimal exponent is below -4 or above 15, where it
/// switches to `1e+16` / `1e-05` style.
pub fn float_repr(value: f64) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let sign = if value.is_sign_negative() { "-" } else { "" };
    if value == 0.0 {
        return format!("{sign}0.0");
    }
    let mut buffer = ryu::Buffer::new();
    let shortest = buffer.format_finite(value.abs());
    let (mantissa, exponent) = match shortest.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (shortest, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits: String = format!("{whole}{fraction}");
    let leading_zeros = all_digits.len() - all_digits.trim_start_matches('0').len();
    let digits = all_digits.trim_start_matches('0').trim_end_matches('0');
    // Position of the decimal point relative to the first significant digit:
    // value = 0.d1d2... * 10^point.
    let point = whole.len() as i32 + exponent - leading_zeros as i32;
    let mut out = String::from(sign);
    if point <= -4 || point > 16 {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let e = point - 1;
        let _ = write!(out, "e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    } else if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        out.push_str(digits);
    } else if (point as usize) < digits.len() {
        let (int_part, frac_part) = digits.split_at(point as usize);
        let _ = write!(out, "{int_part}.{frac_part}");
    } else {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', point as usize - digits.len()));
        out.push_str(".0");
    }
    out
}

/// Python's `str(value)` for what `json.loads` returns: strings as they are,
/// `None`/`True`/`False`, and `repr` for containers.
pub fn py_str(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => {
            let mut out = String::new();
            write_repr(&mut out, other);
            out
        }
    }
}

fn write_repr(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_str_repr(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_str_repr(out, key);
                out.push_str(": ");
                write_repr(out, item);
            }
            out.push('}');
        }
    }
}

fn write_str_repr(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_printable(c) => out.push(c),
            c if (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push(quote);
}

/// Python's `str.isprintable()` for one character: everything but the
/// "Other" and "Separator" categories, except the ASCII space.
fn is_printable(c: char) -> bool {
    use unicode_general_category::{GeneralCategory as G, get_general_category};
    if c == ' ' {
        return true;
    }
    !matches!(
        get_general_category(c),
        G::Control
            | G::Format
            | G::Surrogate
            | G::PrivateUse
            | G::Unassigned
            | G::LineSeparator
            | G::ParagraphSeparator
            | G::SpaceSeparator
    )
}

/// Python's `str.isspace()` for one character. Rust's `char::is_whitespace`
/// lacks the four ASCII information separators U+001C..U+001F.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()`.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// Python's `str.split()` (no argument): runs of whitespace separate words.
pub fn split_whitespace(s: &str) -> impl Iterator<Item = &str> {
    s.split(is_space).filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_compare_like_python() {
        assert!(eq(&json!(1), &json!(1.0)));
        assert!(eq(&json!(true), &json!(1)));
        assert!(eq(&json!(false), &json!(0.0)));
        assert!(!eq(&json!(true), &json!(2)));
        assert!(!eq(
            &json!(9007199254740993_u64),
            &json!(9007199254740992.0)
        ));
        assert!(!eq(&json!("1"), &json!(1)));
        assert!(!eq(&json!(null), &json!({})));
    }

    #[test]
    fn containers_compare_deeply_ignoring_key_order() {
        let a: Value = serde_json::from_str(r#"{"a": [1, {"b": 2.0}], "c": null}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"c": null, "a": [1.0, {"b": 2}]}"#).unwrap();
        assert!(eq(&a, &b));
        assert!(!eq(&json!([1, 2]), &json!([2, 1])));
        assert!(!eq(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
    }

    #[test]
    fn dumps_matches_python_layouts() {
        let v: Value =
            serde_json::from_str(r#"{"b": [1, 2.5, "é\n"], "a": {"y": null, "x": true}}"#).unwrap();
        assert_eq!(
            dumps_sorted(&v, Layout::Spaced),
            r#"{"a": {"x": true, "y": null}, "b": [1, 2.5, "é\n"]}"#
        );
        assert_eq!(
            dumps_sorted(&v, Layout::Compact),
            r#"{"a":{"x":true,"y":null},"b":[1,2.5,"é\n"]}"#
        );
        assert_eq!(dumps_sorted(&json!({}), Layout::Spaced), "{}");
        assert_eq!(dumps_sorted(&json!("\u{1}"), Layout::Spaced), r#""\u0001""#);
    }

    #[test]
    fn floats_print_like_python_repr() {
        for (value, expected) in [
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (0.1, "0.1"),
            (100.0, "100.0"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.5e-7, "1.5e-07"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (123.456, "123.456"),
            (1.2345678901234568e17, "1.2345678901234568e+17"),
            (1788468523.8731716, "1788468523.8731716"),
            (-2.5e-300, "-2.5e-300"),
        ] {
            assert_eq!(float_repr(value), expected, "{value:e}");
        }
    }

    #[test]
    fn floats_are_parsed_correctly_rounded() {
        // Vectors and arguments round-trip through Python's repr; serde_json's
        // fast path is off by one ulp on some of them without float_roundtrip.
        for text in [
            "0.1176470588235294",
            "0.9032258064516128",
            "0.09523809523809525",
        ] {
            let parsed: f64 = serde_json::from_str(text).unwrap();
            assert_eq!(parsed, text.parse::<f64>().unwrap(), "{text}");
            assert_eq!(float_repr(parsed), text);
        }
    }

    #[test]
    fn python_str_and_repr() {
        assert_eq!(py_str(&json!("x")), "x");
        assert_eq!(py_str(&json!(null)), "None");
        assert_eq!(py_str(&json!(true)), "True");
        assert_eq!(py_str(&json!(2.0)), "2.0");
        let v: Value = serde_json::from_str(r#"{"b": [1, "it's"], "a": "\u0007"}"#).unwrap();
        assert_eq!(py_str(&v), r#"{'b': [1, "it's"], 'a': '\x07'}"#);
    }

    #[test]
    fn whitespace_is_pythons() {
        assert_eq!(strip("\u{1c} a \u{3000}"), "a");
        assert_eq!(
            split_whitespace(" a\u{1f}b  c ").collect::<Vec<_>>(),
            ["a", "b", "c"]
        );
        assert!(!is_space('\u{200b}'));
    }

    #[test]
    fn truthiness_is_pythons() {
        for falsy in [
            json!(null),
            json!(false),
            json!(0),
            json!(0.0),
            json!(""),
            json!([]),
            json!({}),
        ] {
            assert!(!truthy(&falsy), "{falsy}");
        }
        for t in [
            json!(true),
            json!(-1),
            json!("0"),
            json!([0]),
            json!({"a": null}),
        ] {
            assert!(truthy(&t), "{t}");
        }
    }
}
