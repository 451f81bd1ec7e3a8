//! Names and label values the operator derives from others' names (a
//! suite's, a run's). Kubernetes bounds both: an object name at 253
//! characters, a label value at 63. A derived name that would pass its bound
//! keeps a readable prefix and gains a short hash of the whole stem, so two
//! stems sharing a long prefix never meet in one name, and no derived name
//! is refused for its length.

use sha2::{Digest, Sha256};

/// The longest label value Kubernetes allows.
pub const LABEL_VALUE_MAX: usize = 63;

/// Hex digits of the stem's SHA-256 kept in a shortened name: 40 bits.
const HASH_DIGITS: usize = 10;

/// `stem` then `suffix`, at most `max` characters: whole when it fits,
/// else the stem's start, `-`, a hash of the whole stem, then the suffix.
/// A stem that is a Kubernetes name gives a Kubernetes name (and a valid
/// label value within 63): the cut never ends in `-` or `.`.
pub fn bounded(stem: &str, suffix: &str, max: usize) -> String {
    if stem.len() + suffix.len() <= max {
        return format!("{stem}{suffix}");
    }
    let hash = short_hash(stem, HASH_DIGITS);
    let keep = max.saturating_sub(suffix.len() + HASH_DIGITS + 1);
    let cut = stem[..stem.floor_char_boundary(keep)].trim_end_matches(['-', '.']);
    match cut {
        "" => format!("{hash}{suffix}"),
        cut => format!("{cut}-{hash}{suffix}"),
    }
}

/// The first `digits` hex digits of `text`'s SHA-256: a short, stable
/// stand-in for a text too long, or too private, to show.
pub fn short_hash(text: &str, digits: usize) -> String {
    let mut hex = format!("{:x}", Sha256::digest(text.as_bytes()));
    hex.truncate(digits);
    hex
}

/// A label value naming an object: the name itself when it fits in 63
/// characters, else its shortened form. A label only helps a person select
/// (`kubectl get -l`); the operator finds a suite's runs by their
/// `spec.suiteRef`, never by label.
pub fn label_value(name: &str) -> String {
    bounded(name, "", LABEL_VALUE_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::suite::rules::NameKind;

    fn a_label_value(value: &str) -> bool {
        value.len() <= LABEL_VALUE_MAX
            && (value.is_empty()
                || (value.starts_with(|c: char| c.is_ascii_alphanumeric())
                    && value.ends_with(|c: char| c.is_ascii_alphanumeric())
                    && value
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))))
    }

    #[test]
    fn a_name_that_fits_is_kept_whole() {
        assert_eq!(bounded("nightly", "-29936280", 63), "nightly-29936280");
        assert_eq!(label_value("nightly"), "nightly");
        assert_eq!(label_value(&"a".repeat(63)), "a".repeat(63));
    }

    #[test]
    fn names_sharing_a_long_prefix_stay_apart_and_within_bounds() {
        let prefix = "a".repeat(54);
        let (one, two) = (format!("{prefix}-one"), format!("{prefix}-two"));
        for (suffix, max) in [("-29936280", 63), ("", 63), ("-report", 253)] {
            let (a, b) = (bounded(&one, suffix, max), bounded(&two, suffix, max));
            if one.len() + suffix.len() > max {
                assert_ne!(a, b, "{suffix} {max}");
            }
            for name in [&a, &b] {
                assert!(name.len() <= max, "{name}");
                assert!(name.ends_with(suffix), "{name}");
                assert!(NameKind::Object.allows(name), "{name}");
            }
        }
        for stem in [
            "x".repeat(253),
            // Cut just after a `.` or a `-`.
            format!("{}.{}", "a".repeat(51), "b".repeat(200)),
            format!("{}-{}", "a".repeat(51), "b".repeat(200)),
        ] {
            let value = label_value(&stem);
            assert!(a_label_value(&value), "{value}");
            assert!(NameKind::Object.allows(&value), "{value}");
            assert_eq!(value, label_value(&stem), "the same stem, the same value");
            let long = bounded(&stem, "-report", 253);
            assert!(
                long.len() <= 253 && NameKind::Object.allows(&long),
                "{long}"
            );
        }
    }
}
