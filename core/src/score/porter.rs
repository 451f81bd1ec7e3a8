//! The Porter stemmer as NLTK runs it by default (`NLTK_EXTENSIONS` mode),
//! which is what rouge-score, and so ADK's `response_match_score`, stems with.
//! It differs from Martin Porter's own and from Snowball in a dozen places
//! (`dying` -> `die`, `-ies` on four letters, `-alli`, `-logi`, ...), so no
//! general-purpose stemmer crate gives the same tokens.
//!
//! Words here are lowercase ASCII: the tokenizer stems nothing else.

/// Stem one lowercase ASCII word.
pub fn stem(word: &str) -> String {
    if let Some(stem) = irregular(word) {
        return stem.to_string();
    }
    if word.len() <= 2 {
        return word.to_string();
    }
    let mut w = word.to_string();
    for step in [step1a, step1b, step1c, step2, step3, step4, step5a, step5b] {
        w = step(w);
    }
    w
}

/// NLTK's pool of irregular forms.
fn irregular(word: &str) -> Option<&'static str> {
    Some(match word {
        "sky" | "skies" => "sky",
        "dying" => "die",
        "lying" => "lie",
        "tying" => "tie",
        "news" => "news",
        "innings" | "inning" => "inning",
        "outings" | "outing" => "outing",
        "cannings" | "canning" => "canning",
        "howe" => "howe",
        "proceed" => "proceed",
        "exceed" => "exceed",
        "succeed" => "succeed",
        _ => return None,
    })
}

fn is_vowel_letter(c: u8) -> bool {
    matches!(c, b'a' | b'e' | b'i' | b'o' | b'u')
}

/// Consonant flags for every letter: `y` is a consonant when it starts the
/// word or follows a vowel.
fn consonants(word: &[u8]) -> Vec<bool> {
    let mut flags: Vec<bool> = Vec::with_capacity(word.len());
    for (i, &c) in word.iter().enumerate() {
        let consonant = if is_vowel_letter(c) {
            false
        } else if c == b'y' {
            i == 0 || !flags[i - 1]
        } else {
            true
        };
        flags.push(consonant);
    }
    flags
}

fn is_consonant(word: &[u8], i: usize) -> bool {
    consonants(&word[..=i])[i]
}

/// The measure m of `[C](VC){m}[V]`: the number of vowel-consonant runs.
fn measure(stem: &[u8]) -> usize {
    let flags = consonants(stem);
    flags.windows(2).filter(|w| !w[0] && w[1]).count()
}

fn contains_vowel(stem: &[u8]) -> bool {
    consonants(stem).iter().any(|c| !c)
}

fn ends_double_consonant(word: &[u8]) -> bool {
    let n = word.len();
    n >= 2 && word[n - 1] == word[n - 2] && is_consonant(word, n - 1)
}

/// `*o`: ends consonant-vowel-consonant, the last not w, x or y; NLTK also
/// accepts a two-letter vowel-consonant word.
fn ends_cvc(word: &[u8]) -> bool {
    let n = word.len();
    let flags = consonants(word);
    (n >= 3
        && flags[n - 3]
        && !flags[n - 2]
        && flags[n - 1]
        && !matches!(word[n - 1], b'w' | b'x' | b'y'))
        || (n == 2 && !flags[0] && flags[1])
}

/// A rule's condition on the stem left after removing the suffix.
type Condition<'a> = Option<&'a dyn Fn(&[u8]) -> bool>;

/// Apply the first rule whose suffix matches: if its condition holds, swap
/// the suffix; either way stop. `*d` stands for a double consonant ending.
fn apply_rules(word: String, rules: &[(&str, &str, Condition<'_>)]) -> String {
    let bytes = word.as_bytes();
    for (suffix, replacement, condition) in rules {
        if *suffix == "*d" {
            if ends_double_consonant(bytes) {
                let stem = &bytes[..bytes.len() - 2];
                return if condition.is_none_or(|c| c(stem)) {
                    format!("{}{replacement}", &word[..word.len() - 2])
                } else {
                    word
                };
            }
            continue;
        }
        if let Some(stem) = word.strip_suffix(suffix) {
            return if condition.is_none_or(|c| c(stem.as_bytes())) {
                format!("{stem}{replacement}")
            } else {
                word
            };
        }
    }
    word
}

fn positive_measure(stem: &[u8]) -> bool {
    measure(stem) > 0
}

fn step1a(word: String) -> String {
    if word.len() == 4 && word.ends_with("ies") {
        return format!("{}ie", &word[..1]);
    }
    apply_rules(
        word,
        &[
            ("sses", "ss", None),
            ("ies", "i", None),
            ("ss", "ss", None),
            ("s", "", None),
        ],
    )
}

fn step1b(word: String) -> String {
    if let Some(stem) = word.strip_suffix("ied") {
        return if word.len() == 4 {
            format!("{stem}ie")
        } else {
            format!("{stem}i")
        };
    }
    if let Some(stem) = word.strip_suffix("eed") {
        return if measure(stem.as_bytes()) > 0 {
            format!("{stem}ee")
        } else {
            word
        };
    }
    let Some(stem) = ["ed", "ing"]
        .iter()
        .filter_map(|suffix| word.strip_suffix(suffix))
        .find(|stem| contains_vowel(stem.as_bytes()))
    else {
        return word;
    };
    let stem = stem.to_string();
    let last = stem.as_bytes().last().copied().unwrap_or(b' ');
    let single = (last as char).to_string();
    let not_lsz = move |_: &[u8]| !matches!(last, b'l' | b's' | b'z');
    let short_cvc = |s: &[u8]| measure(s) == 1 && ends_cvc(s);
    apply_rules(
        stem,
        &[
            ("at", "ate", None),
            ("bl", "ble", None),
            ("iz", "ize", None),
            ("*d", &single, Some(&not_lsz)),
            ("", "e", Some(&short_cvc)),
        ],
    )
}

fn step1c(word: String) -> String {
    let after_consonant = |stem: &[u8]| stem.len() > 1 && is_consonant(stem, stem.len() - 1);
    apply_rules(word, &[("y", "i", Some(&after_consonant))])
}

fn step2(word: String) -> String {
    if let Some(stem) = word.strip_suffix("alli")
        && positive_measure(stem.as_bytes())
    {
        return step2(format!("{stem}al"));
    }
    let m: &dyn Fn(&[u8]) -> bool = &positive_measure;
    // NLTK's `logi` rule measures the word less its last three letters.
    let logi_stem = word
        .get(..word.len().saturating_sub(3))
        .unwrap_or("")
        .as_bytes()
        .to_vec();
    let logi = move |_: &[u8]| positive_measure(&logi_stem);
    apply_rules(
        word,
        &[
            ("ational", "ate", Some(m)),
            ("tional", "tion", Some(m)),
            ("enci", "ence", Some(m)),
            ("anci", "ance", Some(m)),
            ("izer", "ize", Some(m)),
            ("bli", "ble", Some(m)),
            ("alli", "al", Some(m)),
            ("entli", "ent", Some(m)),
            ("eli", "e", Some(m)),
            ("ousli", "ous", Some(m)),
            ("ization", "ize", Some(m)),
            ("ation", "ate", Some(m)),
            ("ator", "ate", Some(m)),
            ("alism", "al", Some(m)),
            ("iveness", "ive", Some(m)),
            ("fulness", "ful", Some(m)),
            ("ousness", "ous", Some(m)),
            ("aliti", "al", Some(m)),
            ("iviti", "ive", Some(m)),
            ("biliti", "ble", Some(m)),
            ("fulli", "ful", Some(m)),
            ("logi", "log", Some(&logi)),
        ],
    )
}

fn step3(word: String) -> String {
    let m: &dyn Fn(&[u8]) -> bool = &positive_measure;
    apply_rules(
        word,
        &[
            ("icate", "ic", Some(m)),
            ("ative", "", Some(m)),
            ("alize", "al", Some(m)),
            ("iciti", "ic", Some(m)),
            ("ical", "ic", Some(m)),
            ("ful", "", Some(m)),
            ("ness", "", Some(m)),
        ],
    )
}

fn step4(word: String) -> String {
    let gt1 = |stem: &[u8]| measure(stem) > 1;
    let m: &dyn Fn(&[u8]) -> bool = &gt1;
    let ion = |stem: &[u8]| measure(stem) > 1 && matches!(stem.last(), Some(b's' | b't'));
    apply_rules(
        word,
        &[
            ("al", "", Some(m)),
            ("ance", "", Some(m)),
            ("ence", "", Some(m)),
            ("er", "", Some(m)),
            ("ic", "", Some(m)),
            ("able", "", Some(m)),
            ("ible", "", Some(m)),
            ("ant", "", Some(m)),
            ("ement", "", Some(m)),
            ("ment", "", Some(m)),
            ("ent", "", Some(m)),
            ("ion", "", Some(&ion)),
            ("ou", "", Some(m)),
            ("ism", "", Some(m)),
            ("ate", "", Some(m)),
            ("iti", "", Some(m)),
            ("ous", "", Some(m)),
            ("ive", "", Some(m)),
            ("ize", "", Some(m)),
        ],
    )
}

fn step5a(word: String) -> String {
    if let Some(stem) = word.strip_suffix('e') {
        let m = measure(stem.as_bytes());
        if m > 1 || (m == 1 && !ends_cvc(stem.as_bytes())) {
            return stem.to_string();
        }
    }
    word
}

fn step5b(word: String) -> String {
    // The condition measures the word less one letter, not the stem.
    let minus_one = word.as_bytes()[..word.len().saturating_sub(1)].to_vec();
    let condition = move |_: &[u8]| measure(&minus_one) > 1;
    apply_rules(word, &[("ll", "l", Some(&condition))])
}

#[cfg(test)]
mod tests {
    use super::stem;

    #[test]
    fn nltk_extensions_and_classic_examples() {
        for (word, expected) in [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "tie"),
            ("cats", "cat"),
            ("feed", "feed"),
            ("agreed", "agre"),
            ("plastered", "plaster"),
            ("motoring", "motor"),
            ("sing", "sing"),
            ("conflated", "conflat"),
            ("hopping", "hop"),
            ("falling", "fall"),
            ("filing", "file"),
            ("happy", "happi"),
            ("enjoy", "enjoy"),
            ("relational", "relat"),
            ("radically", "radic"),
            ("dying", "die"),
            ("skies", "sky"),
            ("generously", "gener"),
            ("analogously", "analog"),
            ("controlling", "control"),
            ("weather", "weather"),
            ("london", "london"),
            ("temperature", "temperatur"),
            ("humidity", "humid"),
            ("a", "a"),
            ("is", "is"),
        ] {
            assert_eq!(stem(word), expected, "{word}");
        }
    }
}
