//! kagent-evals: regression tests for kagent agents.
//!
//! [`core`] turns ADK events into OpenAI-format trajectories and scores them;
//! the other modules read sessions from where kagent keeps them, run suites
//! from the command line, and run them in the cluster as an operator.

pub mod a2a;
pub mod cli;
pub mod core;
pub mod http_client;
pub mod judge;
pub mod k8s;
pub mod pipeline;
pub mod resolve;
pub mod source;
