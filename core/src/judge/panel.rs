//! A panel of judges: the same question put to several models of the run's
//! judge endpoint, their verdicts combined by majority, unanimity or the
//! mean score. Every member's verdict is kept for the report.

use super::{Judge, JudgeAnswer, JudgeError, JudgeRequest, Judged};
use crate::score::{Score, Verdict};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a judged evaluator asks a panel rather than one model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PanelSpec {
    /// The models that judge, each asked on the run's judge endpoint (a
    /// gateway such as LiteLLM or OpenRouter serves several providers'
    /// models behind one endpoint and key).
    #[schemars(length(min = 2, max = 9))]
    pub models: Vec<String>,
    /// How their verdicts combine (default majority).
    #[serde(default)]
    pub combine: Combine,
    /// Members that must answer; the verdict is then combined over those
    /// that did. Default: every member, so one member's error is the
    /// panel's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub quorum: Option<u32>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Combine {
    /// More than half of the members that answered pass it.
    #[default]
    Majority,
    /// Every member that answered passes it.
    All,
    /// The mean of the members' scores reaches the evaluator's threshold
    /// (a yes counting 1 and a no 0, passing at one half).
    Mean,
}

/// One member's verdict, or why it gave none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PanelVote {
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// The member's reasoning; kept only with the trajectories.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl PanelSpec {
    /// The spec, checked: `at` is its path.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if !(2..=9).contains(&self.models.len()) {
            return Err(("models", "a panel has 2 to 9 models".into()));
        }
        if let Some(model) = self.models.iter().find(|m| m.trim().is_empty()) {
            return Err(("models", format!("{model:?} is not a model name")));
        }
        match self.quorum {
            Some(0) => Err(("quorum", "must be at least 1".into())),
            Some(q) if q as usize > self.models.len() => Err((
                "quorum",
                format!("{q} is more than the panel's {} models", self.models.len()),
            )),
            _ => Ok(()),
        }
    }

    /// The members' answers combined, passing at `threshold` for the mean
    /// (a yes-or-no judge's: one half). `Err` when fewer members answered
    /// than the quorum.
    pub fn combine(
        &self,
        votes: Vec<(String, Result<Judged, JudgeError>)>,
        threshold: Option<f64>,
    ) -> Result<(Verdict, Vec<PanelVote>), String> {
        let quorum = self.quorum.map_or(self.models.len(), |q| q as usize);
        let mut answered = Vec::new();
        let mut kept = Vec::new();
        let mut errors = Vec::new();
        for (model, result) in votes {
            match result {
                Ok(judged) => {
                    let score = number(&judged.verdict.score);
                    kept.push(PanelVote {
                        model: model.clone(),
                        passed: Some(judged.verdict.passed),
                        score,
                        reasoning: Some(judged.reasoning.clone()),
                        error: None,
                    });
                    answered.push((model, judged.verdict));
                }
                Err(error) => {
                    errors.push(format!("{model}: {error}"));
                    kept.push(PanelVote {
                        model,
                        passed: None,
                        score: None,
                        reasoning: None,
                        error: Some(error.to_string()),
                    });
                }
            }
        }
        if answered.len() < quorum {
            return Err(format!(
                "the panel's quorum is {quorum} and {} of {} members answered ({})",
                answered.len(),
                self.models.len(),
                errors.join("; ")
            ));
        }
        let passes = answered.iter().filter(|(_, v)| v.passed).count();
        let n = answered.len();
        let mean = answered
            .iter()
            .map(|(_, v)| number(&v.score).unwrap_or(if v.passed { 1.0 } else { 0.0 }))
            .sum::<f64>()
            / n as f64;
        let (passed, score) = match self.combine {
            Combine::Majority => (2 * passes > n, passes as f64 / n as f64),
            Combine::All => (passes == n, passes as f64 / n as f64),
            Combine::Mean => (mean >= threshold.unwrap_or(0.5), mean),
        };
        let key = answered
            .first()
            .map(|(_, v)| v.key.clone())
            .unwrap_or_default();
        let name = match self.combine {
            Combine::Majority => "majority",
            Combine::All => "all",
            Combine::Mean => "mean",
        };
        let verdict = Verdict {
            key,
            score: Score::Number(score),
            passed,
            comment: Some(format!(
                "panel ({name}): {passes} of {n} answering members passed it{}",
                if errors.is_empty() {
                    String::new()
                } else {
                    format!("; {} did not answer", errors.len())
                }
            )),
            skipped: Vec::new(),
            informational: false,
        };
        Ok((verdict, kept))
    }
}

fn number(score: &Score) -> Option<f64> {
    match score {
        Score::Number(n) => Some(*n),
        Score::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Score::NotAvailable => None,
    }
}

/// The run's judge, asking `model` instead of its own.
pub struct Member<'j, J> {
    pub judge: &'j J,
    pub model: &'j str,
}

impl<J: Judge> Judge for Member<'_, J> {
    async fn check(&self) -> Result<(), JudgeError> {
        self.judge.check().await
    }

    async fn ask(&self, request: &JudgeRequest) -> Result<JudgeAnswer, JudgeError> {
        let request = JudgeRequest {
            model: Some(self.model.to_string()),
            ..request.clone()
        };
        self.judge.ask(&request).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(passed: bool, score: Score) -> Result<Judged, JudgeError> {
        Ok(Judged {
            verdict: Verdict {
                key: "trajectory_accuracy".into(),
                score,
                passed,
                comment: None,
                skipped: Vec::new(),
                informational: false,
            },
            reasoning: "because".into(),
        })
    }

    fn panel(combine: Combine, quorum: Option<u32>) -> PanelSpec {
        PanelSpec {
            models: vec!["a".into(), "b".into(), "c".into()],
            combine,
            quorum,
        }
    }

    fn votes() -> Vec<(String, Result<Judged, JudgeError>)> {
        vec![
            ("a".into(), judged(true, Score::Number(0.9))),
            ("b".into(), judged(true, Score::Number(0.7))),
            ("c".into(), judged(false, Score::Number(0.2))),
        ]
    }

    #[test]
    fn a_disagreeing_panel_passes_by_majority_fails_by_all_and_means_its_scores() {
        let (majority, kept) = panel(Combine::Majority, None)
            .combine(votes(), Some(0.8))
            .unwrap();
        assert!(majority.passed);
        assert_eq!(kept.len(), 3);
        assert_eq!(kept[2].passed, Some(false));
        let (all, _) = panel(Combine::All, None)
            .combine(votes(), Some(0.8))
            .unwrap();
        assert!(!all.passed);
        // (0.9 + 0.7 + 0.2) / 3 = 0.6: under 0.8, over 0.5.
        let (mean, _) = panel(Combine::Mean, None)
            .combine(votes(), Some(0.8))
            .unwrap();
        assert!(!mean.passed);
        assert!(matches!(mean.score, Score::Number(s) if (s - 0.6).abs() < 1e-12));
        let (mean, _) = panel(Combine::Mean, None).combine(votes(), None).unwrap();
        assert!(mean.passed);
    }

    #[test]
    fn a_member_that_does_not_answer_is_the_panels_error_unless_a_quorum_allows_it() {
        let mut with_error = votes();
        with_error[0].1 = Err(JudgeError("a is down".into()));
        let error = panel(Combine::Majority, None)
            .combine(with_error.clone(), None)
            .unwrap_err();
        assert!(
            error.contains("quorum is 3 and 2 of 3") && error.contains("a is down"),
            "{error}"
        );
        // Over the two that answered: one pass, one fail is no majority.
        let (verdict, kept) = panel(Combine::Majority, Some(2))
            .combine(with_error, None)
            .unwrap();
        assert!(!verdict.passed);
        assert_eq!(kept[0].error.as_deref(), Some("judge: a is down"));
    }

    #[test]
    fn a_panel_is_checked() {
        let mut one = panel(Combine::Majority, None);
        one.models.truncate(1);
        assert_eq!(one.check().unwrap_err().0, "models");
        assert_eq!(
            panel(Combine::All, Some(4)).check().unwrap_err().0,
            "quorum"
        );
        assert_eq!(
            panel(Combine::All, Some(0)).check().unwrap_err().0,
            "quorum"
        );
        assert!(panel(Combine::All, Some(2)).check().is_ok());
    }
}
