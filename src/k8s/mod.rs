//! The Kubernetes adapter: custom resources and, built on them, the operator.

pub mod cel;
pub mod conditions;
pub mod controller;
pub mod crd;
pub mod kagent_agent;
pub mod names;
pub mod vocabulary;

/// An error of the Kubernetes API as one readable line: the verb's answer
/// (reason, code, message), never the response dumped whole.
pub fn api_problem(error: &kube::Error) -> String {
    match error {
        kube::Error::Api(e) => format!("{} ({}): {}", e.reason, e.code, e.message),
        other => other.to_string(),
    }
}
