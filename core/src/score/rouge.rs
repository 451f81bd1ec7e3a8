//! ADK's `response_match_score`: ROUGE-1 F-measure with the Unicode-aware
//! tokenizer of ADK 2.x and rouge-score's Porter-stemmed ASCII tokens.

use super::porter;
use std::collections::HashMap;
use unicode_general_category::{GeneralCategory as G, get_general_category};
use unicode_normalization::UnicodeNormalization;

/// Precision, recall and F-measure of unigram overlap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RougeScore {
    pub precision: f64,
    pub recall: f64,
    pub fmeasure: f64,
}

/// ROUGE-1 of `candidate` against `reference`, computed in rouge-score's
/// order of operations so floats agree to the last bit.
pub fn rouge1(candidate: &str, reference: &str) -> RougeScore {
    let target = counts(tokenize(reference));
    let prediction = counts(tokenize(candidate));
    let overlap: usize = target
        .iter()
        .map(|(token, n)| (*n).min(prediction.get(token).copied().unwrap_or(0)))
        .sum();
    let target_total: usize = target.values().sum();
    let prediction_total: usize = prediction.values().sum();
    let precision = overlap as f64 / prediction_total.max(1) as f64;
    let recall = overlap as f64 / target_total.max(1) as f64;
    let fmeasure = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    RougeScore {
        precision,
        recall,
        fmeasure,
    }
}

fn counts(tokens: Vec<String>) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for token in tokens {
        *counts.entry(token).or_insert(0) += 1;
    }
    counts
}

/// CJK ideographs, kana and Hangul syllables: one token per character.
fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x4E00..=0x9FFF | 0x3040..=0x309F | 0x30A0..=0x30FF | 0xAC00..=0xD7AF)
}

/// Thai, Lao, Khmer, Myanmar: written without spaces; one token per base
/// character with its combining marks.
fn is_non_spaced_script(c: char) -> bool {
    matches!(c as u32, 0x0E00..=0x0E7F | 0x0E80..=0x0EFF | 0x1780..=0x17FF | 0x1000..=0x109F)
}

fn is_mark(c: char) -> bool {
    matches!(
        get_general_category(c),
        G::NonspacingMark | G::SpacingMark | G::EnclosingMark
    )
}

/// Python's `str.isalnum()` for one character: a letter or a number.
fn is_alnum(c: char) -> bool {
    matches!(
        get_general_category(c),
        G::UppercaseLetter
            | G::LowercaseLetter
            | G::TitlecaseLetter
            | G::ModifierLetter
            | G::OtherLetter
            | G::DecimalNumber
            | G::LetterNumber
            | G::OtherNumber
    )
}

/// ADK 2.x's `_UnicodeAwareTokenizer` with stemming on.
pub fn tokenize(text: &str) -> Vec<String> {
    let normalized: String = text.nfkc().collect::<String>().to_lowercase();
    let mut spaced = String::with_capacity(normalized.len() * 2);
    for c in normalized.chars() {
        if is_cjk(c) {
            spaced.push(' ');
            spaced.push(c);
            spaced.push(' ');
        } else if is_non_spaced_script(c) {
            if !is_mark(c) {
                spaced.push(' ');
            }
            spaced.push(c);
        } else if is_alnum(c) || is_mark(c) {
            spaced.push(c);
        } else {
            spaced.push(' ');
        }
    }
    crate::pyjson::split_whitespace(&spaced)
        .filter_map(|word| {
            if !word.is_ascii() {
                return Some(word.to_string());
            }
            // rouge-score's default tokenizer: only [a-z0-9] survive, and
            // words longer than three letters are stemmed.
            let word = word.to_ascii_lowercase();
            if word.is_empty()
                || !word
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            {
                return None;
            }
            Some(if word.len() > 3 {
                porter::stem(&word)
            } else {
                word
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_follow_adk() {
        assert_eq!(
            tokenize("The weather's FINE, 73.2°F!"),
            ["the", "weather", "s", "fine", "73", "2", "f"]
        );
        assert_eq!(tokenize("東京の天気"), ["東", "京", "の", "天", "気"]);
        assert_eq!(tokenize("Ｈｅｌｌｏ"), ["hello"]);
        assert_eq!(tokenize("café running"), ["café", "run"]);
        assert_eq!(tokenize("สวัสดี"), ["ส", "วั", "ส", "ดี"]);
    }

    #[test]
    fn scores_follow_rouge_score() {
        let s = rouge1("the cat sat", "the cat sat on the mat");
        assert_eq!(s.precision, 1.0);
        assert_eq!(s.recall, 0.5);
        assert_eq!(s.fmeasure, 2.0 / 3.0);
        assert_eq!(rouge1("", "").fmeasure, 0.0);
        assert_eq!(rouge1("x", "").fmeasure, 0.0);
    }
}
