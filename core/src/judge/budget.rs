//! A run's judge with its budget: `judge.maxCalls` and `judge.maxTokens`.
//! Past either, a call is not made and its evaluation is an error saying
//! why, never a skipped or passed one.

use super::{Judge, JudgeAnswer, JudgeError, JudgeRequest};
use crate::suite::spec::JudgeSpec;
use std::sync::atomic::{AtomicU64, Ordering};

pub struct Budgeted<'j, J> {
    judge: &'j J,
    max_calls: Option<u64>,
    max_tokens: Option<u64>,
    calls: AtomicU64,
    tokens: AtomicU64,
}

impl<'j, J: Judge> Budgeted<'j, J> {
    /// `judge` within the budget `spec` sets (none: unbounded).
    pub fn new(judge: &'j J, spec: Option<&JudgeSpec>) -> Self {
        Budgeted {
            judge,
            max_calls: spec.and_then(|s| s.max_calls),
            max_tokens: spec.and_then(|s| s.max_tokens),
            calls: AtomicU64::new(0),
            tokens: AtomicU64::new(0),
        }
    }
}

impl<J: Judge> Judge for Budgeted<'_, J> {
    async fn check(&self) -> Result<(), JudgeError> {
        self.judge.check().await
    }

    async fn ask(&self, request: &JudgeRequest) -> Result<JudgeAnswer, JudgeError> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst);
        if let Some(max) = self.max_calls.filter(|&max| call >= max) {
            return Err(JudgeError(format!(
                "the run's judge budget of {max} calls (judge.maxCalls) is spent; this evaluation was not judged"
            )));
        }
        // Calls already in flight may pass the token budget; none starts
        // once it is passed.
        let spent = self.tokens.load(Ordering::SeqCst);
        if let Some(max) = self.max_tokens.filter(|&max| spent >= max) {
            return Err(JudgeError(format!(
                "the run's judge budget of {max} tokens (judge.maxTokens) is spent ({spent} used); this evaluation was not judged"
            )));
        }
        let answer = self.judge.ask(request).await?;
        self.tokens.fetch_add(
            answer.prompt_tokens + answer.completion_tokens,
            Ordering::SeqCst,
        );
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::ChatMessage;

    struct Answers;

    impl Judge for Answers {
        async fn check(&self) -> Result<(), JudgeError> {
            Ok(())
        }

        async fn ask(&self, _: &JudgeRequest) -> Result<JudgeAnswer, JudgeError> {
            Ok(JudgeAnswer {
                model: "m".into(),
                content: "{}".into(),
                prompt_tokens: 60,
                completion_tokens: 40,
                seconds: 0.1,
            })
        }
    }

    fn request() -> JudgeRequest {
        JudgeRequest {
            messages: vec![ChatMessage {
                role: "user",
                content: "?".into(),
            }],
            schema_name: "verdict",
            schema: serde_json::Value::Null,
            temperature: None,
            model: None,
        }
    }

    fn outcomes(spec: JudgeSpec, asks: usize) -> Vec<Result<(), String>> {
        let budgeted = Budgeted::new(&Answers, Some(&spec));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        (0..asks)
            .map(|_| {
                runtime
                    .block_on(budgeted.ask(&request()))
                    .map(|_| ())
                    .map_err(|e| e.0)
            })
            .collect()
    }

    #[test]
    fn calls_past_the_budget_are_errors_that_say_which_budget() {
        let spec = JudgeSpec {
            max_calls: Some(2),
            ..JudgeSpec::default()
        };
        let got = outcomes(spec, 3);
        assert!(got[0].is_ok() && got[1].is_ok());
        assert!(
            got[2]
                .as_ref()
                .unwrap_err()
                .contains("2 calls (judge.maxCalls)")
        );
        // 100 tokens a call: the third call starts with 200 spent.
        let spec = JudgeSpec {
            max_tokens: Some(150),
            ..JudgeSpec::default()
        };
        let got = outcomes(spec, 3);
        assert!(got[0].is_ok() && got[1].is_ok(), "{got:?}");
        assert!(
            got[2]
                .as_ref()
                .unwrap_err()
                .contains("150 tokens (judge.maxTokens)")
        );
        assert!(outcomes(JudgeSpec::default(), 5).iter().all(Result::is_ok));
    }
}
