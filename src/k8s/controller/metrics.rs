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
use std::task::{Context, Poll};

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
    pub mean_cost: Family<SuiteLabels, Gauge<f64, AtomicU64>>,
    pub mean_latency: Family<SuiteLabels, Gauge<f64, AtomicU64>>,
    pub mean_tokens: Family<SuiteLabels, Gauge<f64, AtomicU64>>,
    pub non_blocking_failures: Family<SuiteLabels, Gauge>,
    pub judge_calls: Family<SuiteLabels, Gauge>,
    pub judge_tokens: Family<SuiteLabels, Gauge>,
    pub judge_cost: Family<SuiteLabels, Gauge<f64, AtomicU64>>,
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
    /// The latest run's means over its sessions, when it scored any.
    pub means: Option<RunMeans>,
    /// Cases of the latest run that failed without blocking it.
    pub non_blocking_failures: Option<usize>,
    /// What the latest run's judges used, when it judged anything.
    pub judge: Option<RunJudge>,
}

/// A run's judge calls, their tokens, and their cost when every model
/// that answered is priced.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunJudge {
    pub calls: u64,
    pub tokens: u64,
    pub cost: Option<f64>,
}

/// A run's mean cost, latency and tokens per session; `None` for one its
/// sessions did not all measure.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunMeans {
    pub cost: Option<f64>,
    pub latency_seconds: Option<f64>,
    pub tokens: Option<f64>,
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
        if let Some(means) = suite.means {
            // A mean the latest run did not measure is no series, not the
            // value of an older run.
            for (family, value) in [
                (&self.mean_cost, means.cost),
                (&self.mean_latency, means.latency_seconds),
                (&self.mean_tokens, means.tokens),
            ] {
                match value {
                    Some(value) => {
                        family.get_or_create(labels).set(value);
                    }
                    None => {
                        family.remove(labels);
                    }
                }
            }
        }
        if let Some(failures) = suite.non_blocking_failures {
            self.non_blocking_failures
                .get_or_create(labels)
                .set(failures as i64);
        }
        if let Some(judge) = suite.judge {
            self.judge_calls
                .get_or_create(labels)
                .set(judge.calls as i64);
            self.judge_tokens
                .get_or_create(labels)
                .set(judge.tokens as i64);
            // An unpriced run is no cost series, not an older run's cost.
            match judge.cost {
                Some(cost) => {
                    self.judge_cost.get_or_create(labels).set(cost);
                }
                None => {
                    self.judge_cost.remove(labels);
                }
            }
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
            mean_cost: Family::default(),
            mean_latency: Family::default(),
            mean_tokens: Family::default(),
            non_blocking_failures: Family::default(),
            judge_calls: Family::default(),
            judge_tokens: Family::default(),
            judge_cost: Family::default(),
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
            "kagent_evals_suite_last_run_mean_cost",
            "Mean cost per session of the suite's latest run, at the suite's prices (absent when not every session measured it)",
            metrics.mean_cost.clone(),
        );
        registry.register(
            "kagent_evals_suite_last_run_mean_latency_seconds",
            "Mean latency per session of the suite's latest run (absent when not every session measured it)",
            metrics.mean_latency.clone(),
        );
        registry.register(
            "kagent_evals_suite_last_run_mean_tokens",
            "Mean total tokens per session of the suite's latest run (absent when not every session measured it)",
            metrics.mean_tokens.clone(),
        );
        registry.register(
            "kagent_evals_suite_last_run_non_blocking_failures",
            "Cases of the suite's latest run that failed without blocking it",
            metrics.non_blocking_failures.clone(),
        );
        registry.register(
            "kagent_evals_suite_last_run_judge_calls",
            "Judge calls of the suite's latest run (absent for a suite that judges nothing)",
            metrics.judge_calls.clone(),
        );
        registry.register(
            "kagent_evals_suite_last_run_judge_tokens",
            "Judge prompt and completion tokens of the suite's latest run",
            metrics.judge_tokens.clone(),
        );
        registry.register(
            "kagent_evals_suite_last_run_judge_cost",
            "What the judge calls of the suite's latest run cost, at the judge's prices (absent when a model that answered has none)",
            metrics.judge_cost.clone(),
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

/// The operator's requests to the Kubernetes API, by verb.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    pub verb: &'static str,
}

/// Counts every request the operator's client sends, as a tower layer on
/// the client's stack (outside its retries: a request retried is counted
/// once). Its own family, registered beside [`Metrics`].
#[derive(Clone, Debug, Default)]
pub struct KubeRequests {
    pub requests: Family<RequestLabels, Counter>,
}

impl KubeRequests {
    pub fn register(registry: &mut Registry) -> KubeRequests {
        let requests = KubeRequests::default();
        registry.register(
            "kagent_evals_kube_requests",
            "Requests sent to the Kubernetes API, by verb (get, list, watch, create, update, patch, delete, deletecollection)",
            requests.requests.clone(),
        );
        requests
    }
}

impl<S> tower::Layer<S> for KubeRequests {
    type Service = CountedRequests<S>;

    fn layer(&self, inner: S) -> Self::Service {
        CountedRequests {
            inner,
            requests: self.requests.clone(),
        }
    }
}

/// A client stack whose requests [`KubeRequests`] counts.
#[derive(Clone, Debug)]
pub struct CountedRequests<S> {
    inner: S,
    requests: Family<RequestLabels, Counter>,
}

impl<S, B> tower::Service<axum::http::Request<B>> for CountedRequests<S>
where
    S: tower::Service<axum::http::Request<B>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: axum::http::Request<B>) -> Self::Future {
        let verb = verb(request.method(), request.uri());
        self.requests.get_or_create(&RequestLabels { verb }).inc();
        self.inner.call(request)
    }
}

/// The Kubernetes verb of a request: its method, and for a read or a
/// delete whether it names one object or a collection.
pub fn verb(method: &axum::http::Method, uri: &axum::http::Uri) -> &'static str {
    use axum::http::Method;
    let watch = uri
        .query()
        .is_some_and(|q| q.split('&').any(|p| p == "watch=true" || p == "watch=1"));
    let segments: Vec<&str> = uri.path().split('/').filter(|s| !s.is_empty()).collect();
    // After /api/v1 or /apis/GROUP/VERSION: RESOURCE[/NAME...], or the
    // same under namespaces/NAMESPACE/ (`namespaces/NAME` is a namespace).
    let rest = match segments.first() {
        Some(&"api") => segments.get(2..),
        Some(&"apis") => segments.get(3..),
        _ => None,
    }
    .unwrap_or_default();
    let collection = matches!(rest, [_] | ["namespaces", _, _]);
    match *method {
        Method::GET if watch => "watch",
        Method::GET if collection => "list",
        Method::GET => "get",
        Method::POST => "create",
        Method::PUT => "update",
        Method::PATCH => "patch",
        Method::DELETE if collection => "deletecollection",
        Method::DELETE => "delete",
        _ => "other",
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

    #[test]
    fn a_judged_runs_cost_replaces_the_last_and_an_unpriced_one_removes_it() {
        let mut registry = Registry::default();
        let metrics = Metrics::register(&mut registry);
        let labels = SuiteLabels {
            namespace: "team".into(),
            suite: "nightly".into(),
        };
        let judged = |cost| SuiteMetrics {
            judge: Some(RunJudge {
                calls: 4,
                tokens: 880,
                cost,
            }),
            ..SuiteMetrics::default()
        };
        let served = || {
            let mut text = String::new();
            prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
            text
        };
        metrics.record_suite(&labels, &judged(Some(0.25)));
        let text = served();
        for sample in [
            "kagent_evals_suite_last_run_judge_calls{namespace=\"team\",suite=\"nightly\"} 4",
            "kagent_evals_suite_last_run_judge_tokens{namespace=\"team\",suite=\"nightly\"} 880",
            "kagent_evals_suite_last_run_judge_cost{namespace=\"team\",suite=\"nightly\"} 0.25",
        ] {
            assert!(text.contains(sample), "{sample} is not served:\n{text}");
        }
        metrics.record_suite(&labels, &judged(None));
        let text = served();
        assert!(!text.contains("judge_cost{"), "{text}");
        assert!(text.contains("judge_calls{namespace=\"team\",suite=\"nightly\"} 4"));
    }

    #[test]
    fn requests_are_counted_by_kubernetes_verb() {
        use axum::http::{Method, Uri};
        let cases = [
            ("GET", "/api/v1/namespaces/team/secrets/key", "get"),
            ("GET", "/api/v1/namespaces/team", "get"),
            ("GET", "/api/v1/namespaces", "list"),
            (
                "GET",
                "/apis/evals.kagent.dev/v1alpha1/evalruns?&limit=500",
                "list",
            ),
            (
                "GET",
                "/apis/evals.kagent.dev/v1alpha1/namespaces/team/evalruns",
                "list",
            ),
            (
                "GET",
                "/apis/evals.kagent.dev/v1alpha1/evalruns?watch=true&resourceVersion=1",
                "watch",
            ),
            (
                "POST",
                "/apis/events.k8s.io/v1/namespaces/team/events",
                "create",
            ),
            (
                "PATCH",
                "/apis/evals.kagent.dev/v1alpha1/namespaces/team/evalruns/r/status",
                "patch",
            ),
            (
                "PUT",
                "/apis/coordination.k8s.io/v1/namespaces/team/leases/l",
                "update",
            ),
            (
                "DELETE",
                "/apis/evals.kagent.dev/v1alpha1/namespaces/team/evalruns/r",
                "delete",
            ),
            (
                "DELETE",
                "/apis/evals.kagent.dev/v1alpha1/namespaces/team/evalruns",
                "deletecollection",
            ),
            ("GET", "/version", "get"),
        ];
        for (method, uri, want) in cases {
            let method: Method = method.parse().unwrap();
            let uri: Uri = uri.parse().unwrap();
            assert_eq!(verb(&method, &uri), want, "{method} {uri}");
        }
    }

    #[test]
    fn the_request_counter_is_served() {
        let mut registry = Registry::default();
        let requests = KubeRequests::register(&mut registry);
        requests
            .requests
            .get_or_create(&RequestLabels { verb: "patch" })
            .inc();
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        assert!(
            text.contains("kagent_evals_kube_requests_total{verb=\"patch\"} 1"),
            "{text}"
        );
    }
}
