//! Every numeric bound of the suite format, named once. The schema's
//! `range`/`length` attributes and [`super::compile`] both read these, so
//! `kubectl apply` and the command line refuse the same values.

use super::compile::{SuiteError, error};
use std::fmt::Display;

/// Inclusive bounds of one setting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds<T> {
    pub min: T,
    pub max: T,
}

impl<T: PartialOrd + Display + Copy> Bounds<T> {
    /// `value` when it is within the bounds, else an error at `path`.
    pub fn check(&self, value: T, path: impl Into<String>) -> Result<T, SuiteError> {
        if self.min <= value && value <= self.max {
            Ok(value)
        } else {
            Err(error(
                path,
                format!("must be between {} and {}", self.min, self.max),
            ))
        }
    }
}

/// A share: thresholds, pass rates.
pub const UNIT: Bounds<f64> = Bounds { min: 0.0, max: 1.0 };

/// Cases of one suite.
pub const CASES: Bounds<usize> = Bounds { min: 1, max: 256 };
/// Evaluators of one case.
pub const EVALUATORS: Bounds<usize> = Bounds { min: 1, max: 64 };

/// `probes.maxRuns`: probe runs (cases times runs) in one EvalRun.
pub const PROBE_RUNS_PER_RUN: Bounds<u32> = Bounds { min: 1, max: 100 };
/// `probes.concurrency`: probe runs in flight at once.
pub const PROBE_CONCURRENCY: Bounds<u32> = Bounds { min: 1, max: 10 };
/// `probe.runs`: k, the times one probe is sent.
pub const RUNS_PER_PROBE: Bounds<u32> = Bounds { min: 1, max: 20 };
/// `probe.conversation`: the user turns of one probe.
pub const CONVERSATION_TURNS: Bounds<usize> = Bounds { min: 0, max: 20 };
/// `probe.scenario.maxTurns`: user turns of one simulated conversation.
pub const SCENARIO_TURNS: Bounds<u32> = Bounds { min: 1, max: 20 };
/// Simulated user turns one run may make at most, over every scenario
/// probe and run: each is a call to the simulator's model.
pub const SIMULATED_TURNS_PER_RUN: u32 = 200;
/// `probe.timeoutSeconds`.
pub const PROBE_TIMEOUT_SECONDS: Bounds<u32> = Bounds { min: 1, max: 3600 };

/// The longest object name and namespace Kubernetes allows.
pub const OBJECT_NAME_MAX: usize = 253;
pub const NAMESPACE_MAX: usize = 63;
/// The longest session or user id a suite may give.
pub const ID_MAX: usize = 256;

/// `sessions.limit`.
pub const SESSION_LIMIT_MIN: u32 = 1;
/// `judge.timeoutSeconds`.
pub const JUDGE_TIMEOUT_SECONDS_MIN: u32 = 1;
/// `judge.concurrency`: judge calls in flight at once.
pub const JUDGE_CONCURRENCY: Bounds<u32> = Bounds { min: 1, max: 64 };
/// Judge calls in flight when the suite does not say.
pub const JUDGE_CONCURRENCY_DEFAULT: u32 = 4;

/// Judge answers per evaluation (`numSamples`).
pub const SAMPLES: Bounds<u32> = Bounds { min: 1, max: 9 };
/// A judge's sampling temperature.
pub const TEMPERATURE: Bounds<f64> = Bounds { min: 0.0, max: 2.0 };
/// Rubrics of one ADK judged metric.
pub const RUBRICS: Bounds<usize> = Bounds { min: 0, max: 20 };
/// `outcomeJudge.minScore`, on the judge's 1-5 scale.
pub const OUTCOME_SCORE: Bounds<u8> = Bounds { min: 1, max: 5 };
/// `loops.minRepeats`: a repeat needs a second call.
pub const LOOP_REPEATS_MIN: u32 = 2;

#[cfg(test)]
mod tests {
    use crate::formats::load::load_compiled;

    /// The field `compile` names for a suite with `spec` (YAML flow text).
    fn refused_at(spec: &str) -> String {
        let text = format!(
            "apiVersion: evals.kagent.dev/v1alpha1\nkind: EvalSuite\nmetadata: {{name: s}}\nspec: {spec}\n"
        );
        load_compiled("s.yaml", &text, None)
            .map(|_| ())
            .expect_err(spec)
            .field
            .unwrap_or_default()
    }

    const LOOPS: &str = "{name: l, type: loops, loops: {}}";

    #[test]
    fn each_bound_the_schema_states_compile_applies() {
        let turns = vec!["t"; 21].join(", ");
        let cases = [
            (
                format!("{{probes: {{enabled: true, maxRuns: 101}}, cases: [{{name: a, evaluators: [{LOOPS}]}}]}}"),
                "spec.probes.maxRuns",
            ),
            (
                format!("{{probes: {{enabled: true, concurrency: 11}}, cases: [{{name: a, evaluators: [{LOOPS}]}}]}}"),
                "spec.probes.concurrency",
            ),
            (
                format!("{{probes: {{enabled: true}}, cases: [{{name: a, probe: {{conversation: [{turns}]}}, evaluators: [{LOOPS}]}}]}}"),
                "spec.cases[0].probe.conversation",
            ),
            (
                format!("{{probes: {{enabled: true}}, cases: [{{name: a, probe: {{input: x, runs: 21}}, evaluators: [{LOOPS}]}}]}}"),
                "spec.cases[0].probe.runs",
            ),
            (
                format!("{{sessions: {{limit: 0}}, cases: [{{name: a, evaluators: [{LOOPS}]}}]}}"),
                "spec.sessions.limit",
            ),
            (
                format!("{{startingDeadlineSeconds: -1, cases: [{{name: a, evaluators: [{LOOPS}]}}]}}"),
                "spec.startingDeadlineSeconds",
            ),
            (
                "{cases: [{name: a, evaluators: [{name: j, type: adkJudge, adkJudge: {metric: hallucinationsV1, threshold: 0.5, temperature: 3}}]}]}".to_string(),
                "spec.cases[0].evaluators[0].adkJudge.temperature",
            ),
        ];
        for (spec, field) in cases {
            assert_eq!(refused_at(&spec), field, "{spec}");
        }
    }
}
