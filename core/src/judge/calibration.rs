//! How well a judge agrees with people: human labels read from JSONL, and
//! per judged evaluator the confusion matrix, the agreement, Cohen's kappa
//! and the threshold on the judge's score that would agree best.

use serde::{Deserialize, Serialize};

/// One human verdict: a case's judged evaluators on one session.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    /// Where it was read: `FILE:LINE`.
    pub at: String,
    pub session: LabelledSession,
    pub case: String,
    /// The person's verdict: passes or not.
    pub passed: bool,
    /// The person's score, when they gave one rather than pass/fail.
    pub score: Option<f64>,
}

/// The session a label is about.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LabelledSession {
    /// A session id, read from the run's source.
    Id(String),
    /// A captured session file, relative to the labels file.
    Fixture(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LabelLine {
    #[serde(default)]
    session: Option<String>,
    #[serde(default)]
    fixture: Option<String>,
    case: String,
    #[serde(default)]
    verdict: Option<HumanVerdict>,
    #[serde(default)]
    score: Option<f64>,
}

#[derive(Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum HumanVerdict {
    Pass,
    Fail,
}

/// The labels of a JSONL file named `name`; a person's score passes at
/// `threshold_of(case)`, the case's own judged threshold. Each error names
/// the line.
pub fn read_labels(
    name: &str,
    text: &str,
    threshold_of: impl Fn(&str) -> Option<f64>,
) -> Result<Vec<Label>, String> {
    let mut labels = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let at = format!("{name}:{}", i + 1);
        if line.trim().is_empty() {
            continue;
        }
        let read: LabelLine = serde_json::from_str(line).map_err(|e| format!("{at}: {e}"))?;
        let session = match (read.session, read.fixture) {
            (Some(id), None) => LabelledSession::Id(id),
            (None, Some(file)) => LabelledSession::Fixture(file),
            _ => return Err(format!("{at}: give exactly one of `session` and `fixture`")),
        };
        let passed = match (read.verdict, read.score) {
            (Some(verdict), None) => matches!(verdict, HumanVerdict::Pass),
            (None, Some(score)) if score.is_finite() => {
                let threshold = threshold_of(&read.case).ok_or_else(|| {
                    format!(
                        "{at}: case {} has no judged threshold to read the score {score} against; label it pass or fail",
                        read.case
                    )
                })?;
                score >= threshold
            }
            (None, Some(score)) => return Err(format!("{at}: score {score} is not a number")),
            _ => return Err(format!("{at}: give exactly one of `verdict` and `score`")),
        };
        labels.push(Label {
            at,
            session,
            case: read.case,
            passed,
            score: read.score,
        });
    }
    if labels.is_empty() {
        return Err(format!("{name}: no labels"));
    }
    Ok(labels)
}

/// The judge's verdicts against the people's, pass being the positive class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Confusion {
    /// Both passed it.
    pub both_pass: u32,
    /// The judge passed what people failed.
    pub judge_only_pass: u32,
    /// The judge failed what people passed.
    pub judge_only_fail: u32,
    /// Both failed it.
    pub both_fail: u32,
}

impl Confusion {
    pub fn add(&mut self, judge_passed: bool, human_passed: bool) {
        match (judge_passed, human_passed) {
            (true, true) => self.both_pass += 1,
            (true, false) => self.judge_only_pass += 1,
            (false, true) => self.judge_only_fail += 1,
            (false, false) => self.both_fail += 1,
        }
    }

    pub fn total(&self) -> u32 {
        self.both_pass + self.judge_only_pass + self.judge_only_fail + self.both_fail
    }

    /// The share of labels the judge agreed with.
    pub fn agreement(&self) -> f64 {
        f64::from(self.both_pass + self.both_fail) / f64::from(self.total().max(1))
    }

    /// Cohen's kappa: agreement beyond what chance would give with each
    /// side's own rate of passes. `None` when chance agreement is total
    /// (every verdict on both sides is one class), where kappa is undefined.
    pub fn kappa(&self) -> Option<f64> {
        let n = f64::from(self.total());
        if n == 0.0 {
            return None;
        }
        let judge_pass = f64::from(self.both_pass + self.judge_only_pass) / n;
        let human_pass = f64::from(self.both_pass + self.judge_only_fail) / n;
        let chance = judge_pass * human_pass + (1.0 - judge_pass) * (1.0 - human_pass);
        if (1.0 - chance).abs() < f64::EPSILON {
            return None;
        }
        Some((self.agreement() - chance) / (1.0 - chance))
    }
}

/// The threshold on the judge's score that agrees best with the people
/// (passing at score >= threshold), and that agreement: among the scores
/// seen, the best; ties go to the one nearest `current`.
pub fn best_threshold(scored: &[(f64, bool)], current: f64) -> Option<(f64, f64)> {
    let mut candidates: Vec<f64> = scored.iter().map(|(s, _)| *s).collect();
    candidates.sort_by(f64::total_cmp);
    candidates.dedup();
    let agreement = |t: f64| {
        let agreed = scored
            .iter()
            .filter(|(s, human)| (*s >= t) == *human)
            .count();
        agreed as f64 / scored.len() as f64
    };
    candidates
        .into_iter()
        .map(|t| (t, agreement(t)))
        .max_by(|a, b| {
            a.1.total_cmp(&b.1)
                .then_with(|| (b.0 - current).abs().total_cmp(&(a.0 - current).abs()))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kappa_is_the_textbook_value_of_a_known_matrix() {
        // 50 labels: 20 both pass, 5 judge-only pass, 10 judge-only fail,
        // 15 both fail. Agreement 35/50 = 0.7. The judge passes 25/50, the
        // people 30/50: chance = 0.5*0.6 + 0.5*0.4 = 0.5. Kappa =
        // (0.7 - 0.5) / (1 - 0.5) = 0.4.
        let matrix = Confusion {
            both_pass: 20,
            judge_only_pass: 5,
            judge_only_fail: 10,
            both_fail: 15,
        };
        assert_eq!(matrix.total(), 50);
        assert!((matrix.agreement() - 0.7).abs() < 1e-12);
        assert!((matrix.kappa().unwrap() - 0.4).abs() < 1e-12);
        // Perfect agreement with both classes present: 1. Agreeing exactly
        // as often as chance: 0.
        let perfect = Confusion {
            both_pass: 3,
            both_fail: 2,
            ..Confusion::default()
        };
        assert_eq!(perfect.kappa(), Some(1.0));
        let chance = Confusion {
            both_pass: 1,
            judge_only_pass: 1,
            judge_only_fail: 1,
            both_fail: 1,
        };
        assert_eq!(chance.kappa(), Some(0.0));
        // All one class on both sides: undefined, never a pass.
        let one_class = Confusion {
            both_pass: 4,
            ..Confusion::default()
        };
        assert_eq!(one_class.kappa(), None);
    }

    #[test]
    fn the_best_threshold_is_the_one_that_agrees_most() {
        let scored = [
            (0.2, false),
            (0.5, false),
            (0.6, true),
            (0.9, true),
            (0.4, true),
        ];
        // At 0.6: 0.2, 0.5 fail (agree), 0.6, 0.9 pass (agree), 0.4 fails (disagrees): 4/5.
        assert_eq!(best_threshold(&scored, 0.8), Some((0.6, 0.8)));
        assert_eq!(best_threshold(&[], 0.8), None);
    }

    #[test]
    fn labels_name_their_line_when_they_cannot_be_read() {
        let threshold = |case: &str| (case == "judged").then_some(0.5);
        let text = "{\"session\": \"s1\", \"case\": \"judged\", \"verdict\": \"pass\"}\n\n{\"fixture\": \"f.jsonl\", \"case\": \"judged\", \"score\": 0.4}\n";
        let labels = read_labels("labels.jsonl", text, threshold).unwrap();
        assert_eq!(labels.len(), 2);
        assert!(labels[0].passed && !labels[1].passed);
        assert_eq!(labels[1].at, "labels.jsonl:3");
        for (bad, says) in [
            (
                "{\"case\": \"judged\", \"verdict\": \"pass\"}",
                "labels.jsonl:1: give exactly one of `session` and `fixture`",
            ),
            (
                "{\"session\": \"s\", \"case\": \"judged\"}",
                "labels.jsonl:1: give exactly one of `verdict` and `score`",
            ),
            (
                "{\"session\": \"s\", \"case\": \"other\", \"score\": 1}",
                "labels.jsonl:1: case other has no judged threshold",
            ),
            (
                "{\"session\": \"s\", \"case\": \"judged\", \"verdict\": \"maybe\"}",
                "labels.jsonl:1: unknown variant",
            ),
            (
                "{\"session\": \"s\", \"case\": \"judged\", \"verdict\": \"pass\", \"extra\": 1}",
                "labels.jsonl:1: unknown field `extra`",
            ),
        ] {
            let error = read_labels("labels.jsonl", bad, threshold).unwrap_err();
            assert!(error.starts_with(says), "{error}");
        }
    }
}
