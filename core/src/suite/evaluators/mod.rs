//! The evaluator types. Each is one module: its settings as a suite writes
//! them (their schema, and the rules the types cannot say, as
//! [`crate::suite::rules`] data), how they are checked and compiled
//! ([`Settings`]), and how a session is scored ([`Scorer`]).
//! `evaluator_types!` below is the one table listing them: a new evaluator
//! is a module and a line there.

mod adk_efficiency;
mod adk_judge;
mod argument_correctness;
mod budget;
mod conversation_judge;
mod loops;
mod outcome_judge;
mod response_match;
mod safety;
mod safety_judge;
mod tool_selection;
mod tool_trajectory;
mod tools_used;
mod trajectory_drift;
mod trajectory_judge;
mod trajectory_match;

pub use crate::judge::adk::AdkJudge;
pub use adk_efficiency::{AdkEfficiencyMetric, AdkEfficiencySpec};
pub use adk_judge::{AdkJudgeSpec, AdkJudgedMetric, RubricSpec};
pub use argument_correctness::{ArgumentCorrectnessSpec, ExpectedCallSpec};
pub use budget::{BudgetSpec, PriceSpec};
pub use conversation_judge::ConversationJudgeSpec;
pub use loops::LoopsSpec;
pub use outcome_judge::OutcomeJudgeSpec;
pub use response_match::{ExpectedResponse, ResponseMatchSpec};
pub use safety::SafetySpec;
pub use safety_judge::SafetyJudgeSpec;
pub use tool_selection::{SelectionMetric, ToolSelectionSpec};
pub use tool_trajectory::{ExpectedInvocation, ToolTrajectorySpec};
pub use tools_used::ToolsUsedSpec;
pub use trajectory_drift::TrajectoryDriftSpec;
pub use trajectory_judge::TrajectoryJudgeSpec;
pub use trajectory_match::{ArgsOverride, TrajectoryMatchSpec};

use super::compile::SuiteError;
use super::evaluate::{Judgement, SessionView};
use super::report::ReferenceCall;
use super::spec::{SuiteDefaults, SuiteSpec, Unmeasured};
use crate::judge::{Judge, JudgeUsage};
use crate::score::Verdict;
use crate::suite::rules::{Rule, Ruled, Validation, attach};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::future::Future;

/// What of its suite an evaluator compiles against.
#[derive(Clone, Copy, Debug)]
pub struct SuiteScope<'a> {
    pub defaults: &'a SuiteDefaults,
    pub unmeasured: Unmeasured,
}

impl<'a> SuiteScope<'a> {
    pub fn of(spec: &'a SuiteSpec) -> Self {
        SuiteScope {
            defaults: &spec.defaults,
            unmeasured: spec.unmeasured,
        }
    }
}

/// Where an evaluator's settings are, for the errors that name them.
pub struct CompileContext<'a> {
    pub suite: SuiteScope<'a>,
    /// The evaluator's path, e.g. `spec.cases[0].evaluators[1]`.
    pub at: &'a str,
    /// Its settings field, e.g. `toolsUsed`.
    pub field: &'static str,
}

impl CompileContext<'_> {
    /// The path of one setting: `spec.cases[0].evaluators[1].toolsUsed.mode`.
    pub fn here(&self, setting: &str) -> String {
        format!("{}.{}.{setting}", self.at, self.field)
    }

    /// The path of the settings field itself.
    pub fn settings(&self) -> String {
        format!("{}.{}", self.at, self.field)
    }
}

/// An evaluator's settings, checked and compiled into its scorer.
pub trait Settings {
    type Scorer: Scorer;
    fn compile(&self, c: &CompileContext<'_>) -> Result<Self::Scorer, SuiteError>;
}

/// A compiled evaluator.
pub trait Scorer: Send + Sync {
    /// The verdict on one session, or `Err` when the evaluator could not
    /// judge it (an error of the run, not a failure of the agent).
    fn score(&self, view: &SessionView<'_>) -> Result<Verdict, String>;

    /// The verdict, asking `judge` where the evaluator is judged.
    fn score_judged(
        &self,
        view: &SessionView<'_>,
        _judge: &impl Judge,
        _usage: &mut JudgeUsage,
    ) -> impl Future<Output = Result<(Verdict, Judgement), String>> + Send {
        let scored = Scorer::score(self, view).map(|v| (v, Judgement::default()));
        async move { scored }
    }

    /// Samples asked of a judge per verdict, and at which temperature.
    fn sampling(&self) -> Option<(u32, Option<f64>)> {
        None
    }

    /// A judged evaluator's passing score, on its judge's scale (none for
    /// a yes-or-no judge), which a person's score is read against.
    fn pass_threshold(&self) -> Option<f64> {
        None
    }

    /// The tool calls the evaluator expects, for a report to show beside
    /// a session's.
    fn reference_calls(&self) -> Option<Vec<ReferenceCall>> {
        None
    }

    /// The invocations a session is expected to have, where it says.
    fn expected_invocations(&self) -> Option<usize> {
        None
    }

    /// ADK's judged metrics: the settings that decide a case over a
    /// probe's runs and its effective threshold.
    fn adk_judge(&self) -> Option<&AdkJudge> {
        None
    }
}

fn needs_settings<'a, T>(
    field: &'a Option<T>,
    c: &CompileContext<'_>,
) -> Result<&'a T, SuiteError> {
    field.as_ref().ok_or_else(|| {
        super::compile::error(
            c.settings(),
            format!(
                "an evaluator of type {0} needs its settings in the `{0}` field",
                c.field
            ),
        )
    })
}

/// The table: type, settings field, settings type, YAML name, whether an
/// LLM judge gives the verdict.
macro_rules! evaluator_types {
    ($( $variant:ident ($field:ident: $settings:ty) = $yaml:literal, judged: $judged:literal; )*) => {
        /// The evaluator types; each has a field of the same name with its settings.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase")]
        pub enum EvaluatorType {
            $( $variant, )*
        }

        impl EvaluatorType {
            pub const ALL: &'static [EvaluatorType] = &[$( EvaluatorType::$variant, )*];

            /// Whether an LLM judge gives the verdict.
            pub fn is_judged(self) -> bool {
                match self {
                    $( EvaluatorType::$variant => $judged, )*
                }
            }

            /// The name in YAML, which is also the name of its settings field.
            pub fn field(self) -> &'static str {
                match self {
                    $( EvaluatorType::$variant => $yaml, )*
                }
            }
        }

        /// One evaluator: a name, a type, and the settings field that type names.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        #[schemars(transform = attach::<Self>)]
        pub struct EvaluatorSpec {
            #[schemars(length(min = 1))]
            pub name: String,
            #[serde(rename = "type")]
            pub kind: EvaluatorType,
            $(
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $field: Option<$settings>,
            )*
        }

        impl EvaluatorSpec {
            pub fn has_settings(&self, kind: EvaluatorType) -> bool {
                match kind {
                    $( EvaluatorType::$variant => self.$field.is_some(), )*
                }
            }

            /// The settings of its own type, compiled.
            pub(crate) fn compile_settings(&self, suite: SuiteScope<'_>, at: &str) -> Result<Evaluator, SuiteError> {
                let c = CompileContext { suite, at, field: self.kind.field() };
                Ok(match self.kind {
                    $( EvaluatorType::$variant => Evaluator::$variant(needs_settings(&self.$field, &c)?.compile(&c)?), )*
                })
            }
        }

        /// A compiled evaluator, ready to score.
        #[derive(Clone, Debug)]
        pub enum Evaluator {
            $( $variant(<$settings as Settings>::Scorer), )*
        }

        impl Evaluator {
            /// Its scorer, for what every type answers the same way.
            pub fn scorer(&self) -> &dyn ScorerInfo {
                match self {
                    $( Evaluator::$variant(s) => s, )*
                }
            }

            pub async fn score_judged(
                &self,
                view: &SessionView<'_>,
                judge: &impl Judge,
                usage: &mut JudgeUsage,
            ) -> Result<(Verdict, Judgement), String> {
                match self {
                    $( Evaluator::$variant(s) => s.score_judged(view, judge, usage).await, )*
                }
            }
        }
    };
}

evaluator_types! {
    ToolsUsed(tools_used: ToolsUsedSpec) = "toolsUsed", judged: false;
    TrajectoryMatch(trajectory_match: TrajectoryMatchSpec) = "trajectoryMatch", judged: false;
    ToolTrajectory(tool_trajectory: ToolTrajectorySpec) = "toolTrajectory", judged: false;
    ResponseMatch(response_match: ResponseMatchSpec) = "responseMatch", judged: false;
    ToolSelection(tool_selection: ToolSelectionSpec) = "toolSelection", judged: false;
    ArgumentCorrectness(argument_correctness: ArgumentCorrectnessSpec) = "argumentCorrectness", judged: false;
    TrajectoryDrift(trajectory_drift: TrajectoryDriftSpec) = "trajectoryDrift", judged: false;
    Loops(loops: LoopsSpec) = "loops", judged: false;
    Safety(safety: SafetySpec) = "safety", judged: false;
    Budget(budget: BudgetSpec) = "budget", judged: false;
    TrajectoryJudge(trajectory_judge: TrajectoryJudgeSpec) = "trajectoryJudge", judged: true;
    OutcomeJudge(outcome_judge: OutcomeJudgeSpec) = "outcomeJudge", judged: true;
    SafetyJudge(safety_judge: SafetyJudgeSpec) = "safetyJudge", judged: true;
    ConversationJudge(conversation_judge: ConversationJudgeSpec) = "conversationJudge", judged: true;
    AdkJudge(adk_judge: AdkJudgeSpec) = "adkJudge", judged: true;
    AdkEfficiency(adk_efficiency: AdkEfficiencySpec) = "adkEfficiency", judged: false;
}

/// What every scorer answers without a judge, for dynamic use.
pub trait ScorerInfo {
    fn score(&self, view: &SessionView<'_>) -> Result<Verdict, String>;
    fn sampling(&self) -> Option<(u32, Option<f64>)>;
    fn reference_calls(&self) -> Option<Vec<ReferenceCall>>;
    fn expected_invocations(&self) -> Option<usize>;
    fn adk_judge(&self) -> Option<&AdkJudge>;
    fn pass_threshold(&self) -> Option<f64>;
}

impl<T: Scorer> ScorerInfo for T {
    fn score(&self, view: &SessionView<'_>) -> Result<Verdict, String> {
        Scorer::score(self, view)
    }
    fn sampling(&self) -> Option<(u32, Option<f64>)> {
        Scorer::sampling(self)
    }
    fn reference_calls(&self) -> Option<Vec<ReferenceCall>> {
        Scorer::reference_calls(self)
    }
    fn expected_invocations(&self) -> Option<usize> {
        Scorer::expected_invocations(self)
    }
    fn adk_judge(&self) -> Option<&AdkJudge> {
        Scorer::adk_judge(self)
    }
    fn pass_threshold(&self) -> Option<f64> {
        Scorer::pass_threshold(self)
    }
}

impl std::fmt::Display for EvaluatorType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.field())
    }
}

impl EvaluatorSpec {
    /// An evaluator of `kind` with the settings of that kind.
    pub fn with_settings(
        name: &str,
        kind: EvaluatorType,
        settings: impl Serialize,
    ) -> Result<Self, String> {
        let settings = serde_json::to_value(settings).map_err(|e| e.to_string())?;
        let mut spec = serde_json::json!({"name": name, "type": kind});
        spec[kind.field()] = settings;
        serde_json::from_value(spec).map_err(|e| format!("{name}: {e}"))
    }
}

/// The field the type names is set, and no other type's field is.
impl Ruled for EvaluatorSpec {
    fn rules() -> Vec<Validation> {
        let fields: Vec<String> = EvaluatorType::ALL
            .iter()
            .map(|t| t.field().to_string())
            .collect();
        let mut rules: Vec<Validation> = fields
            .iter()
            .map(|f| {
                Validation::new(
                    Rule::TagRequires {
                        tag: "type".into(),
                        value: f.clone(),
                        field: f.clone(),
                        tag_optional: false,
                    },
                    format!("an evaluator of type {f} needs its settings in the `{f}` field"),
                )
                .at(f)
                .required()
            })
            .collect();
        rules.push(Validation::new(
            Rule::AtMostOneOf { fields },
            "an evaluator has the settings field of its own type only",
        ));
        rules
    }
}
