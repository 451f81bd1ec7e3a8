//! The suite model: the `EvalSuite` spec as users write it, its compilation
//! into evaluators, scoring sessions against it, and the report that
//! scoring fills in. Files in other formats are read by [`crate::formats`];
//! reports are shown by [`crate::render`].

pub mod bounds;
pub mod compile;
pub mod evaluate;
pub mod evaluators;
pub mod gate;
pub mod harvest;
pub mod loaded;
pub mod report;
pub mod rules;
pub mod scoring;
pub mod select;
pub mod spec;
