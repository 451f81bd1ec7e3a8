//! kagent-evals: regression tests for kagent agents.
//!
//! [`core`] turns ADK events into OpenAI-format trajectories and scores them;
//! the other modules read sessions from where kagent keeps them, run suites
//! from the command line, and run them in the cluster as an operator.

/// The domain core, a crate of its own so that it cannot reach Kubernetes,
/// databases or HTTP; re-exported so every adapter names it `crate::core`.
pub use kagent_evals_core as core;

pub mod a2a;
pub mod cli;
pub mod http_client;
pub mod k8s;
pub mod openai_judge;
pub mod pipeline;
pub mod resolve;
pub mod secret;
pub mod source;
