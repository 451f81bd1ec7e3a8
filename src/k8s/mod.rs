//! The Kubernetes adapter: custom resources and, built on them, the operator.

pub mod cel;
pub mod conditions;
pub mod controller;
pub mod crd;
pub mod kagent_agent;
pub mod vocabulary;
