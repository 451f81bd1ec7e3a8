//! The domain core of kagent-evals: ADK events and A2A tasks turned into
//! OpenAI-format trajectories, the scorers, the suite model, suite files in
//! every format, and the renderers of a run's report.
//!
//! Nothing in here knows about Kubernetes, databases or HTTP, and the
//! crate's manifest lists none of them, so the compiler keeps it so: the
//! sources, the judge client and the operator are adapters (in the
//! `kagent-evals` crate) that hand sessions in and take results out.

pub mod a2a_v1;
pub mod convert;
pub mod efficiency;
pub mod event;
pub mod formats;
pub mod ingest;
pub mod judge;
pub mod parallel;
pub mod pyjson;
pub mod read_limits;
pub mod redact;
pub mod render;
pub mod schedule;
pub mod score;
pub mod session;
pub mod suite;
pub mod task;
pub mod trajectory;
pub mod typed;
