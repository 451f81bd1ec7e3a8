//! The domain core: ADK events, trajectories, scorers and suites.
//!
//! Nothing in here knows about Kubernetes, databases or HTTP; the sources and
//! the controller are adapters that hand sessions in and take results out.

pub mod convert;
pub mod event;
pub mod ingest;
pub mod judge;
pub mod parallel;
pub mod pyjson;
pub mod redact;
pub mod schedule;
pub mod score;
pub mod session;
pub mod suite;
pub mod task;
pub mod trajectory;
pub mod typed;
