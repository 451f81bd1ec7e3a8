//! Suites: the `EvalSuite` format, its compilation into evaluators, scoring
//! sessions against it, and the reports.

pub mod adk;
pub mod agentevals;
pub mod compile;
pub mod evaluate;
pub mod evaluators;
pub mod html;
pub mod load;
mod locate;
pub mod render;
pub mod report;
pub mod spec;
