//! Prometheus metrics. Labels are names only (namespace, suite, case,
//! result): never a session id, a user or anything from a conversation.

use crate::k8s::vocabulary::RunResult;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use std::sync::atomic::AtomicU64;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SuiteLabels {
    pub namespace: String,
    pub suite: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RunLabels {
    pub namespace: String,
    pub suite: String,
    pub result: RunResult,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CaseLabels {
    pub namespace: String,
    pub suite: String,
    pub case: String,
}

/// A suite and the Agent it evaluates, for joining suite metrics to agents.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SuiteAgentLabels {
    pub namespace: String,
    pub suite: String,
    /// `NAMESPACE/NAME` of the Agent, empty for a suite without one.
    pub agent: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ErrorLabels {
    pub controller: String,
    pub error: String,
}

pub struct Metrics {
    pub runs: Family<RunLabels, Counter>,
    pub run_duration: Family<SuiteLabels, Histogram>,
    pub last_run_passed: Family<SuiteLabels, Gauge>,
    pub case_passed: Family<CaseLabels, Gauge>,
    pub case_probe_pass_rate: Family<CaseLabels, Gauge<f64, AtomicU64>>,
    pub last_success: Family<SuiteLabels, Gauge>,
    pub schedule_interval: Family<SuiteLabels, Gauge>,
    pub reconcile_errors: Family<ErrorLabels, Counter>,
    pub suite_info: Family<SuiteAgentLabels, Gauge>,
    /// The Agent last published per suite, so a changed one replaces it.
    suite_agents: std::sync::Mutex<std::collections::HashMap<(String, String), String>>,
    pub leader: Gauge,
}

/// The gauges of one suite, from its latest finished run: what a suite
/// decision asks to be set.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SuiteMetrics {
    /// `NAMESPACE/NAME` of the Agent the suite evaluates, empty for none.
    pub agent: String,
    pub last_run_passed: Option<bool>,
    pub last_success: Option<i64>,
    pub schedule_interval: Option<i64>,
    /// Each case of the latest run, and whether it passed.
    pub cases: Vec<(String, bool)>,
    /// Each probe case of the latest run, and the share of its runs that passed.
    pub probe_pass_rates: Vec<(String, f64)>,
}

impl Metrics {
    /// Set a suite's gauges; a value the decision has none for is left as is.
    pub fn record_suite(&self, labels: &SuiteLabels, suite: &SuiteMetrics) {
        self.set_suite_agent(&labels.namespace, &labels.suite, suite.agent.clone());
        if let Some(passed) = suite.last_run_passed {
            self.last_run_passed
                .get_or_create(labels)
                .set(i64::from(passed));
        }
        if let Some(success) = suite.last_success {
            self.last_success.get_or_create(labels).set(success);
        }
        if let Some(interval) = suite.schedule_interval {
            self.schedule_interval.get_or_create(labels).set(interval);
        }
        let case = |case: &str| CaseLabels {
            namespace: labels.namespace.clone(),
            suite: labels.suite.clone(),
            case: case.to_string(),
        };
        for (name, passed) in &suite.cases {
            self.case_passed
                .get_or_create(&case(name))
                .set(i64::from(*passed));
        }
        for (name, rate) in &suite.probe_pass_rates {
            self.case_probe_pass_rate
                .get_or_create(&case(name))
                .set(*rate);
        }
    }

    /// Count a finished run, and how long it took.
    pub fn record_run(&self, labels: &SuiteLabels, result: RunResult, seconds: Option<f64>) {
        self.runs
            .get_or_create(&RunLabels {
                namespace: labels.namespace.clone(),
                suite: labels.suite.clone(),
                result,
            })
            .inc();
        if let Some(seconds) = seconds {
            self.run_duration.get_or_create(labels).observe(seconds);
        }
    }

    /// Say which Agent a suite evaluates: one series per suite, so that
    /// dashboards can join on it (an Agent changed is a series replaced).
    fn set_suite_agent(&self, namespace: &str, suite: &str, agent: String) {
        let mut known = self.suite_agents.lock().unwrap_or_else(|e| e.into_inner());
        let key = (namespace.to_string(), suite.to_string());
        if let Some(old) = known.insert(key, agent.clone())
            && old != agent
        {
            self.suite_info.remove(&SuiteAgentLabels {
                namespace: namespace.into(),
                suite: suite.into(),
                agent: old,
            });
        }
        self.suite_info
            .get_or_create(&SuiteAgentLabels {
                namespace: namespace.into(),
                suite: suite.into(),
                agent,
            })
            .set(1);
    }

    pub fn register(registry: &mut Registry) -> Metrics {
        let metrics = Metrics {
            runs: Family::default(),
            run_duration: Family::new_with_constructor(|| {
                Histogram::new(exponential_buckets(0.05, 2.0, 16))
            }),
            last_run_passed: Family::default(),
            case_passed: Family::default(),
            case_probe_pass_rate: Family::default(),
            last_success: Family::default(),
            schedule_interval: Family::default(),
            reconcile_errors: Family::default(),
            suite_info: Family::default(),
            suite_agents: Default::default(),
            leader: Gauge::default(),
        };
        registry.register(
            "kagent_evals_runs",
            "Finished EvalRuns by result",
            metrics.runs.clone(),
        );
        registry.register(
            "kagent_evals_run_duration_seconds",
            "Time from a run's start to its end",
            metrics.run_duration.clone(),
        );
        registry.register(
            "kagent_evals_suite_last_run_passed",
            "1 when the suite's latest run passed, 0 when it failed or errored",
            metrics.last_run_passed.clone(),
        );
        registry.register(
            "kagent_evals_suite_last_success_timestamp_seconds",
            "When the suite's latest passing run finished (Unix seconds)",
            metrics.last_success.clone(),
        );
        registry.register(
            "kagent_evals_suite_schedule_interval_seconds",
            "Seconds between the suite's scheduled runs, for staleness alerts",
            metrics.schedule_interval.clone(),
        );
        registry.register(
            "kagent_evals_case_passed",
            "1 when the case passed in the suite's latest run",
            metrics.case_passed.clone(),
        );
        registry.register(
            "kagent_evals_case_probe_pass_rate",
            "Share of the probe case's runs that passed in the suite's latest run (pass^k when 1)",
            metrics.case_probe_pass_rate.clone(),
        );
        registry.register(
            "kagent_evals_suite_info",
            "1 for each suite, labelled with the Agent it evaluates (join on namespace and suite)",
            metrics.suite_info.clone(),
        );
        registry.register(
            "kagent_evals_reconcile_errors",
            "Reconciliations that failed, by controller and error",
            metrics.reconcile_errors.clone(),
        );
        registry.register(
            "kagent_evals_leader",
            "1 while this replica holds the leader lease",
            metrics.leader.clone(),
        );
        metrics
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chart's alerts query these names; each must be served.
    #[test]
    fn every_metric_the_alerts_use_is_served() {
        let mut registry = Registry::default();
        let metrics = Metrics::register(&mut registry);
        let labels = SuiteLabels {
            namespace: "team".into(),
            suite: "nightly".into(),
        };
        metrics.last_run_passed.get_or_create(&labels).set(1);
        metrics
            .last_success
            .get_or_create(&labels)
            .set(1_700_000_000);
        metrics.schedule_interval.get_or_create(&labels).set(86_400);
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        let rule = include_str!("../../../charts/kagent-evals/templates/prometheusrule.yaml");
        for name in [
            "kagent_evals_suite_last_run_passed",
            "kagent_evals_suite_last_success_timestamp_seconds",
            "kagent_evals_suite_schedule_interval_seconds",
        ] {
            assert!(rule.contains(name), "the alerts no longer use {name}");
            let sample = format!("{name}{{namespace=\"team\",suite=\"nightly\"}} ");
            assert!(text.contains(&sample), "{name} is not served:\n{text}");
        }
    }
}
