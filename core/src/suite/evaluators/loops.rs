//! Loops: a call repeating its tool and arguments within a window.

use super::{CompileContext, Scorer, Settings};
use crate::score::golden;
use crate::score::{Score, Verdict};
use crate::suite::bounds;
use crate::suite::compile::{SuiteError, error};
use crate::suite::evaluate::SessionView;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LoopsSpec {
    /// Calls before each call that a repeat of its tool and arguments is
    /// looked for in (default 3, as the reference harness; 0: all of them).
    #[serde(default = "three")]
    pub window: u32,
    /// Occurrences of one (tool, args) signature, among a call and the window before it, that make a loop (default 2).
    #[serde(default = "two")]
    #[schemars(range(min = bounds::LOOP_REPEATS_MIN))]
    pub min_repeats: u32,
}

fn three() -> u32 {
    3
}

fn two() -> u32 {
    2
}

#[derive(Clone, Debug)]
pub struct Loops {
    window: usize,
    min_repeats: usize,
}

impl Settings for LoopsSpec {
    type Scorer = Loops;

    fn compile(&self, c: &CompileContext<'_>) -> Result<Loops, SuiteError> {
        if self.min_repeats < bounds::LOOP_REPEATS_MIN {
            return Err(error(
                c.here("minRepeats"),
                format!("must be at least {}", bounds::LOOP_REPEATS_MIN),
            ));
        }
        Ok(Loops {
            window: self.window as usize,
            min_repeats: self.min_repeats as usize,
        })
    }
}

impl Scorer for Loops {
    fn score(&self, view: &SessionView<'_>) -> Result<Verdict, String> {
        let loops = golden::loops(&view.calls(), self.window, self.min_repeats);
        let within = match self.window {
            0 => "all calls before it".to_string(),
            w => format!("the {w} calls before it"),
        };
        let comment = loops
            .iter()
            .map(|l| {
                format!(
                    "call {} `{}` repeats its arguments ({} times among it and {within})",
                    l.at_call, l.tool, l.occurrences
                )
            })
            .collect::<Vec<_>>()
            .join("; ");
        Ok(Verdict {
            key: "loops".into(),
            score: Score::Number(loops.len() as f64),
            passed: loops.is_empty(),
            comment: (!loops.is_empty()).then_some(comment),
            skipped: Vec::new(),
            informational: false,
        })
    }
}
