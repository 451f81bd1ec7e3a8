//! The EvalRun reconciler: execute a run once, and report. It is the only
//! writer of EvalRun status. A run found Running with nothing executing it
//! (the controller restarted, or leadership moved) is resumed: reading and
//! scoring are repeatable, so resuming is running it again; after too many
//! attempts it ends in Error, never left Running.

use super::metrics::{CaseLabels, RunLabels, SuiteLabels};
use super::plan::{self, Outcomes};
use super::suite_reconciler::{SUITE_LABEL, TRIGGER_LABEL};
use super::{Context, Error, MANAGER, tenancy};
use crate::core::pyjson::{Layout, dumps_sorted};
use crate::core::session::AgentRef;
use crate::core::suite::compile::compile;
use crate::core::suite::spec::{SecretKeyRef, SourceKind, SuiteSpec};
use crate::judge::{OpenAiJudge, configure};
use crate::k8s::conditions::{self, Want};
use crate::k8s::crd::{AgentSnapshot, EvalRun, EvalRunStatus, EvalSuite, Phase, TriggerType};
use crate::pipeline::{RunError, run_suite};
use crate::source::open::open;
use crate::source::{AnySource, Secret};
use jiff::Timestamp;
use k8s_openapi::api::core::v1::{ObjectReference, Secret as KubeSecret};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use kube::api::{ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams};
use kube::runtime::controller::Action;
use kube::runtime::events::EventType;
use kube::{Api, Resource, ResourceExt};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

pub async fn reconcile(run: Arc<EvalRun>, ctx: Arc<Context>) -> Result<Action, Error> {
    if !ctx.is_leader() || plan::is_done(&run) {
        return Ok(Action::await_change());
    }
    let key = format!("{}/{}", run.namespace().unwrap_or_default(), run.name_any());
    let token = CancellationToken::new();
    ctx.running
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key.clone(), token.clone());
    let result = tokio::select! {
        result = Execution::new(&run, &ctx).execute() => result,
        // Replaced, or leadership lost: leave the run as it is.
        _ = token.cancelled() => Ok(()),
    };
    ctx.running
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&key);
    result.map(|()| Action::await_change())
}

/// Why a run ended in Error, as the Complete condition's reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Failure {
    SuiteNotFound,
    InvalidSpec,
    Forbidden,
    SourceUnavailable,
    JudgeUnavailable,
    TimedOut,
    Interrupted,
}

impl Failure {
    fn reason(self) -> &'static str {
        match self {
            Failure::SuiteNotFound => "SuiteNotFound",
            Failure::InvalidSpec => "InvalidSpec",
            Failure::Forbidden => "Forbidden",
            Failure::SourceUnavailable => "SourceUnavailable",
            Failure::JudgeUnavailable => "JudgeUnavailable",
            Failure::TimedOut => "TimedOut",
            Failure::Interrupted => "Interrupted",
        }
    }
}

struct Execution<'a> {
    run: &'a EvalRun,
    ctx: &'a Context,
    namespace: String,
    name: String,
    status: EvalRunStatus,
    reference: ObjectReference,
    suite_reference: Option<ObjectReference>,
}

impl<'a> Execution<'a> {
    fn new(run: &'a EvalRun, ctx: &'a Context) -> Self {
        Execution {
            run,
            ctx,
            namespace: run.namespace().unwrap_or_default(),
            name: run.name_any(),
            status: run.status.clone().unwrap_or_default(),
            reference: run.object_ref(&()),
            suite_reference: None,
        }
    }

    fn runs(&self) -> Api<EvalRun> {
        Api::namespaced(self.ctx.client.clone(), &self.namespace)
    }

    async fn execute(mut self) -> Result<(), Error> {
        let suites: Api<EvalSuite> = Api::namespaced(self.ctx.client.clone(), &self.namespace);
        let suite = suites.get_opt(&self.run.spec.suite_ref.name).await?;
        self.suite_reference = suite.as_ref().map(|s| s.object_ref(&()));
        let spec = match (&self.run.spec.suite, &suite) {
            (Some(snapshot), _) => snapshot.clone(),
            (None, Some(suite)) => suite.spec.suite.clone(),
            (None, None) => {
                let message = format!(
                    "EvalSuite {} not found in {}",
                    self.run.spec.suite_ref.name, self.namespace
                );
                return self.fail(Failure::SuiteNotFound, message).await;
            }
        };
        if let Some(suite) = &suite {
            self.adopt(suite, &spec).await?;
        }
        let resuming = self.status.phase == Some(Phase::Running);
        let attempts = self.status.attempts.unwrap_or(0) + 1;
        if attempts > self.ctx.config.max_attempts {
            let message = format!(
                "interrupted {} times (controller restarts or leader changes); not resumed again",
                attempts - 1
            );
            return self.fail(Failure::Interrupted, message).await;
        }
        let now = Timestamp::now();
        self.status.phase = Some(Phase::Running);
        self.status.attempts = Some(attempts);
        self.status.start_time.get_or_insert(Time(now));
        self.status.message =
            resuming.then(|| "resumed after the controller stopped mid-run".to_string());
        self.set_conditions(&[Want {
            type_: "Complete",
            status: false,
            reason: "Running",
            message: String::new(),
        }]);
        self.write().await?;
        if resuming {
            self.event(
                EventType::Normal,
                "EvalRunResumed",
                format!("attempt {attempts}: the run was interrupted and starts again"),
            )
            .await;
        }

        let agent = match &spec.agent_ref {
            Some(agent) => read_agent(self.ctx, agent).await?,
            None => None,
        };
        if let Some(agent_ref) = &spec.agent_ref {
            let agent_spec = agent.as_ref().and_then(|a| a.data.get("spec"));
            if let Err(message) = tenancy::may_evaluate(
                &self.namespace,
                agent_ref,
                &self.ctx.config.cross_namespace,
                agent_spec,
            ) {
                self.event(EventType::Warning, "Forbidden", message.clone())
                    .await;
                return self.fail(Failure::Forbidden, message).await;
            }
            self.status.agent = Some(AgentSnapshot {
                name: agent_ref.to_string(),
                generation: agent.as_ref().and_then(|a| a.metadata.generation),
                fingerprint: agent
                    .as_ref()
                    .and_then(|a| a.data.get("spec"))
                    .map(fingerprint),
            });
        }
        let source = match self.source(&spec).await {
            Ok(source) => source,
            Err((failure, message)) => {
                if failure == Failure::SourceUnavailable {
                    self.event(EventType::Warning, "SourceUnavailable", message.clone())
                        .await;
                }
                return self.fail(failure, message).await;
            }
        };
        let compiled = match compile(&self.run.spec.suite_ref.name, &spec, "spec") {
            Ok(compiled) => compiled,
            Err(e) => return self.fail(Failure::InvalidSpec, e.to_string()).await,
        };
        for warning in compiled.warnings() {
            tracing::warn!(namespace = %self.namespace, run = %self.name, "{warning}");
        }
        // A judge is resolved (Secrets, ModelConfig) only for a suite that asks one.
        let judge = if compiled.uses_judge() {
            match self.judge(&spec).await {
                Ok(judge) => judge,
                Err((failure, message)) => return self.fail(failure, message).await,
            }
        } else {
            None
        };
        let full_report = spec.report.as_ref().is_some_and(|r| r.config_map);
        let report = match tokio::time::timeout(
            self.ctx.config.run_timeout,
            run_suite(&compiled, &source, &judge, Timestamp::now(), full_report),
        )
        .await
        {
            Err(_) => {
                let message = format!(
                    "still reading after {}s",
                    self.ctx.config.run_timeout.as_secs()
                );
                return self.fail(Failure::TimedOut, message).await;
            }
            Ok(Err(error)) => {
                let failure = match error {
                    RunError::Source(_) => Failure::SourceUnavailable,
                    RunError::Judge(_) => Failure::JudgeUnavailable,
                };
                let message = error.to_string();
                self.event(EventType::Warning, failure.reason(), message.clone())
                    .await;
                return self.fail(failure, message).await;
            }
            Ok(Ok(report)) => report,
        };
        // The full report carries ids, keys, scores and diagnostics, never
        // conversation text: it is safe at the default log level.
        tracing::info!(
            target: "kagent_evals::report",
            namespace = %self.namespace,
            run = %self.name,
            report = %serde_json::to_string(&report.without_trajectories()).unwrap_or_default(),
            "run report"
        );
        if full_report && let Err(error) = self.write_report(&report).await {
            // The run's result does not depend on the opt-in copy.
            self.event(
                EventType::Warning,
                "ReportNotWritten",
                format!("the full report ConfigMap could not be written: {error}"),
            )
            .await;
        }
        self.status.judge = report.judge.clone();
        let outcomes = plan::outcomes(&report);
        self.finish(outcomes, suite.as_ref()).await
    }

    /// The full report, conversations included, in a ConfigMap owned by the
    /// run: only where the suite's owner asked for it.
    async fn write_report(&self, report: &crate::core::suite::report::Report) -> Result<(), Error> {
        /// Below a ConfigMap's 1 MiB limit, with room for metadata.
        const LIMIT: usize = 900 * 1024;
        let mut text = serde_json::to_string_pretty(report).unwrap_or_default();
        if text.len() > LIMIT {
            text = serde_json::to_string_pretty(&report.without_trajectories()).unwrap_or_default();
        }
        let name = format!("{}-report", self.name);
        let owner = serde_json::json!({
            "apiVersion": "evals.kagent.dev/v1alpha1",
            "kind": "EvalRun",
            "name": self.name,
            "uid": self.run.uid().unwrap_or_default(),
            "controller": true,
        });
        let config_map = serde_json::json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": name,
                "labels": {SUITE_LABEL: self.run.spec.suite_ref.name, "evals.kagent.dev/run": self.name},
                "ownerReferences": [owner],
            },
            "data": {"report.json": text},
        });
        let api: Api<k8s_openapi::api::core::v1::ConfigMap> =
            Api::namespaced(self.ctx.client.clone(), &self.namespace);
        api.patch(
            &name,
            &PatchParams::apply(MANAGER).force(),
            &Patch::Apply(&config_map),
        )
        .await?;
        Ok(())
    }

    /// Record the suite snapshot, the owner and the labels of a run made by hand.
    async fn adopt(&self, suite: &EvalSuite, spec: &SuiteSpec) -> Result<(), Error> {
        let owned = self
            .run
            .metadata
            .owner_references
            .as_ref()
            .is_some_and(|o| o.iter().any(|o| o.uid == suite.uid().unwrap_or_default()));
        if self.run.spec.suite.is_some() && owned {
            return Ok(());
        }
        let trigger = match self.run.spec.trigger.kind {
            TriggerType::Schedule => "schedule",
            TriggerType::Manual => "manual",
        };
        let patch = serde_json::json!({
            "apiVersion": "evals.kagent.dev/v1alpha1",
            "kind": "EvalRun",
            "metadata": {
                "labels": {SUITE_LABEL: suite.name_any(), TRIGGER_LABEL: trigger},
                "ownerReferences": suite.controller_owner_ref(&()).into_iter().collect::<Vec<_>>(),
            },
            "spec": {
                "suiteRef": self.run.spec.suite_ref,
                "suite": spec,
            }
        });
        self.runs()
            .patch(
                &self.name,
                &PatchParams::apply(MANAGER).force(),
                &Patch::Apply(&patch),
            )
            .await?;
        Ok(())
    }

    /// The run's source: the suite's own (credentials from Secrets in its
    /// namespace) or the operator's default.
    async fn source(&self, spec: &SuiteSpec) -> Result<AnySource, (Failure, String)> {
        let config = &self.ctx.config;
        let kind = spec
            .source
            .as_ref()
            .map(|s| s.kind)
            .or(config.default_source)
            .ok_or((
                Failure::SourceUnavailable,
                "the suite names no source and the operator has no default".to_string(),
            ))?;
        let mut connection = config.defaults.clone();
        connection.fixture = None;
        let mut own_credentials = false;
        if let Some(source) = &spec.source {
            if kind == SourceKind::Fixture {
                return Err((Failure::InvalidSpec, "fixture sources are for the command line; in the cluster use kagentPostgres, kagentApi or adkDatabase".into()));
            }
            let reference = source
                .kagent_postgres
                .as_ref()
                .and_then(|s| s.url_secret_ref.as_ref())
                .or(source
                    .adk_database
                    .as_ref()
                    .and_then(|s| s.url_secret_ref.as_ref()));
            if let Some(reference) = reference {
                connection.database_url = Some(self.secret(reference).await?);
                own_credentials = true;
            }
            if let Some(api) = &source.kagent_api {
                connection.api_url = Some(api.url.clone());
                if let Some(reference) = &api.token_secret_ref {
                    connection.api_token = Some(self.secret(reference).await?);
                }
            }
        }
        if spec.agent_ref.is_none() && !own_credentials {
            return Err((
                Failure::Forbidden,
                "a suite without agentRef may only read a source of its own (a Secret in its namespace), not the operator's".into(),
            ));
        }
        open(
            kind,
            spec.source.as_ref(),
            &connection,
            std::path::Path::new("/"),
        )
        .map_err(|e| (Failure::SourceUnavailable, e.to_string()))
    }

    async fn secret(&self, reference: &SecretKeyRef) -> Result<Secret, (Failure, String)> {
        if reference
            .namespace
            .as_ref()
            .is_some_and(|n| *n != self.namespace)
        {
            return Err((
                Failure::Forbidden,
                format!(
                    "Secret {} is referenced in another namespace; references resolve in {}",
                    reference.name, self.namespace
                ),
            ));
        }
        let secrets: Api<KubeSecret> = Api::namespaced(self.ctx.client.clone(), &self.namespace);
        let unavailable = |why: String| {
            (
                Failure::SourceUnavailable,
                format!("Secret {}/{}: {why}", self.namespace, reference.name),
            )
        };
        let secret = secrets
            .get_opt(&reference.name)
            .await
            .map_err(|e| unavailable(e.to_string()))?
            .ok_or_else(|| unavailable("not found".into()))?;
        let bytes = secret
            .data
            .as_ref()
            .and_then(|d| d.get(&reference.key))
            .ok_or_else(|| unavailable(format!("has no key {}", reference.key)))?;
        String::from_utf8(bytes.0.clone())
            .map(Secret::new)
            .map_err(|_| unavailable(format!("key {} is not text", reference.key)))
    }

    /// The suite's judge: its own settings, filled in from a kagent
    /// ModelConfig where it names one. Everything resolves in the suite's
    /// namespace.
    async fn judge(&self, spec: &SuiteSpec) -> Result<Option<OpenAiJudge>, (Failure, String)> {
        let Some(settings) = &spec.judge else {
            return Ok(None);
        };
        let unavailable = |message: String| (Failure::JudgeUnavailable, message);
        let mut url = settings.url.clone();
        let mut model = settings.model.clone();
        let mut key = settings.api_key_secret_ref.clone();
        if let Some(reference) = &settings.model_config_ref {
            let config = read_model_config(self.ctx, &self.namespace, &reference.name)
                .await
                .map_err(|e| {
                    unavailable(format!(
                        "ModelConfig {}/{}: {e}",
                        self.namespace, reference.name
                    ))
                })?;
            let text = |pointer: &str| {
                config
                    .pointer(pointer)
                    .and_then(|v| v.as_str())
                    .map(String::from)
            };
            url = url
                .or_else(|| text("/openAI/baseUrl"))
                .or_else(|| Some(OPENAI_URL.to_string()));
            model = model.or_else(|| text("/model"));
            key = key.or_else(|| {
                Some(SecretKeyRef {
                    name: text("/apiKeySecret")?,
                    key: text("/apiKeySecretKey")?,
                    namespace: None,
                })
            });
        }
        let api_key = match &key {
            Some(reference) => Some(self.secret(reference).await.map_err(
                |(failure, message)| match failure {
                    Failure::Forbidden => (failure, message),
                    _ => unavailable(message),
                },
            )?),
            None => None,
        };
        configure(Some(settings), url, model, api_key)
            .map_err(|e| (Failure::InvalidSpec, e.to_string()))
    }

    fn set_conditions(&mut self, wants: &[Want]) {
        self.status.conditions = conditions::merge(
            &self.status.conditions,
            wants,
            self.run.metadata.generation,
            Timestamp::now(),
        );
    }

    async fn write(&self) -> Result<(), Error> {
        let patch = serde_json::json!({
            "apiVersion": "evals.kagent.dev/v1alpha1",
            "kind": "EvalRun",
            "status": self.status,
        });
        match self
            .runs()
            .patch_status(
                &self.name,
                &PatchParams::apply(MANAGER).force(),
                &Patch::Apply(&patch),
            )
            .await
        {
            // Deleted meanwhile (Replace, or pruned): nothing to report to.
            Err(kube::Error::Api(e)) if e.code == 404 => Ok(()),
            other => other.map(|_| ()).map_err(Error::from),
        }
    }

    async fn event(&self, type_: EventType, reason: &str, note: String) {
        self.ctx
            .event(&self.reference, type_, reason, note.clone())
            .await;
        if let Some(suite) = &self.suite_reference {
            self.ctx
                .event(suite, type_, reason, format!("{}: {note}", self.name))
                .await;
        }
    }

    fn suite_labels(&self) -> SuiteLabels {
        SuiteLabels {
            namespace: self.namespace.clone(),
            suite: self.run.spec.suite_ref.name.clone(),
        }
    }

    fn count(&self, result: &str) {
        let labels = self.suite_labels();
        self.ctx
            .metrics
            .runs
            .get_or_create(&RunLabels {
                namespace: labels.namespace.clone(),
                suite: labels.suite.clone(),
                result: result.into(),
            })
            .inc();
        if let Some(start) = &self.status.start_time {
            let seconds = Timestamp::now()
                .duration_since(start.0)
                .as_secs_f64()
                .max(0.0);
            self.ctx
                .metrics
                .run_duration
                .get_or_create(&labels)
                .observe(seconds);
        }
        self.ctx
            .metrics
            .last_run_passed
            .get_or_create(&labels)
            .set(i64::from(result == "Succeeded"));
    }

    async fn fail(mut self, failure: Failure, message: String) -> Result<(), Error> {
        tracing::warn!(namespace = %self.namespace, run = %self.name, reason = failure.reason(), "{message}");
        self.status.phase = Some(Phase::Error);
        self.status.message = Some(message.clone());
        self.status.completion_time = Some(Time(Timestamp::now()));
        self.set_conditions(&[
            Want {
                type_: "Complete",
                status: true,
                reason: failure.reason(),
                message: message.clone(),
            },
            Want {
                type_: "Passed",
                status: false,
                reason: failure.reason(),
                message,
            },
        ]);
        self.count("Error");
        self.write().await
    }

    async fn finish(mut self, outcomes: Outcomes, suite: Option<&EvalSuite>) -> Result<(), Error> {
        let summary = format!("{}/{}", outcomes.cases.passed, outcomes.cases.total);
        let (reason, passed) = match outcomes.phase {
            Phase::Succeeded => ("Passed", true),
            Phase::Error => ("EvaluatorError", false),
            _ => ("Failed", false),
        };
        let message = match (&outcomes.worst, outcomes.phase) {
            (Some(worst), Phase::Failed | Phase::Error) => {
                format!("{summary} cases passed; {worst}")
            }
            _ => format!(
                "{summary} cases passed over {} session(s)",
                outcomes.sessions
            ),
        };
        self.status.phase = Some(outcomes.phase);
        self.status.message = (outcomes.phase != Phase::Succeeded).then(|| message.clone());
        self.status.completion_time = Some(Time(Timestamp::now()));
        self.status.sessions_evaluated = Some(outcomes.sessions);
        self.status.summary = Some(summary);
        self.status.pass_rate = outcomes.pass_rate;
        self.status.results = outcomes.results.clone();
        self.status.results_truncated = outcomes.truncated;
        self.status.cases = Some(outcomes.cases.clone());
        self.set_conditions(&[
            Want {
                type_: "Complete",
                status: true,
                reason: if outcomes.phase == Phase::Error {
                    "EvaluatorError"
                } else {
                    "Finished"
                },
                message: message.clone(),
            },
            Want {
                type_: "Passed",
                status: passed,
                reason,
                message: message.clone(),
            },
        ]);
        self.write().await?;
        for result in &outcomes.results {
            let labels = CaseLabels {
                namespace: self.namespace.clone(),
                suite: self.run.spec.suite_ref.name.clone(),
                case: result.name.clone(),
            };
            self.ctx
                .metrics
                .case_passed
                .get_or_create(&labels)
                .set(i64::from(result.outcome == "Passed"));
        }
        self.count(match outcomes.phase {
            Phase::Succeeded => "Succeeded",
            Phase::Failed => "Failed",
            _ => "Error",
        });
        match outcomes.phase {
            Phase::Succeeded => {
                self.event(EventType::Normal, "EvalRunPassed", message)
                    .await
            }
            Phase::Error => {
                self.event(EventType::Warning, "EvalRunError", message)
                    .await
            }
            _ => {
                self.event(EventType::Warning, "EvalRunFailed", message)
                    .await
            }
        }
        self.detect_regression(suite).await
    }

    /// Cases that passed in the suite's previous run and fail now.
    async fn detect_regression(&self, suite: Option<&EvalSuite>) -> Result<(), Error> {
        let Some(previous) = suite
            .and_then(|s| s.status.as_ref())
            .and_then(|s| s.last_run.as_ref())
            .filter(|l| l.name != self.name)
        else {
            return Ok(());
        };
        let Some(before) = self.runs().get_opt(&previous.name).await? else {
            return Ok(());
        };
        let before_status = before.status.clone().unwrap_or_default();
        let passed_before: Vec<&str> = before_status
            .results
            .iter()
            .filter(|r| r.outcome == "Passed")
            .map(|r| r.name.as_str())
            .collect();
        let regressed: Vec<&str> = self
            .status
            .results
            .iter()
            .filter(|r| r.outcome != "Passed" && passed_before.contains(&r.name.as_str()))
            .map(|r| r.name.as_str())
            .collect();
        if regressed.is_empty() {
            return Ok(());
        }
        let describe = |a: &Option<AgentSnapshot>| match a {
            Some(a) => format!(
                "generation {}, fingerprint {}",
                a.generation.map_or("?".into(), |g| g.to_string()),
                a.fingerprint.as_deref().unwrap_or("?")
            ),
            None => "unknown".into(),
        };
        let change = if before_status.agent == self.status.agent {
            format!(
                "the Agent's spec is unchanged ({}): the model or its tools behave differently",
                describe(&self.status.agent)
            )
        } else {
            format!(
                "the Agent's spec changed since: {} -> {}",
                describe(&before_status.agent),
                describe(&self.status.agent)
            )
        };
        let note = format!(
            "case(s) {} passed in {} and fail now; {change}",
            regressed.join(", "),
            previous.name
        );
        self.event(EventType::Warning, "RegressionDetected", note)
            .await;
        Ok(())
    }
}

/// The evaluated Agent, read only; `None` when it (or its CRD) is absent.
async fn read_agent(ctx: &Context, agent: &AgentRef) -> Result<Option<DynamicObject>, Error> {
    let resource = ApiResource::from_gvk(&GroupVersionKind::gvk("kagent.dev", "v1alpha2", "Agent"));
    let api: Api<DynamicObject> =
        Api::namespaced_with(ctx.client.clone(), &agent.namespace, &resource);
    match api.get_opt(&agent.name).await {
        Ok(found) => Ok(found),
        Err(kube::Error::Api(e)) if e.code == 404 || e.code == 403 => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Where a ModelConfig without `openAI.baseUrl` sends requests.
const OPENAI_URL: &str = "https://api.openai.com/v1";

/// The `spec` of a kagent ModelConfig.
async fn read_model_config(
    ctx: &Context,
    namespace: &str,
    name: &str,
) -> Result<serde_json::Value, String> {
    let resource = ApiResource::from_gvk(&GroupVersionKind::gvk(
        "kagent.dev",
        "v1alpha2",
        "ModelConfig",
    ));
    let api: Api<DynamicObject> = Api::namespaced_with(ctx.client.clone(), namespace, &resource);
    match api.get_opt(name).await {
        Ok(Some(config)) => Ok(config.data.get("spec").cloned().unwrap_or_default()),
        Ok(None) => Err("not found".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// A short, stable digest of an Agent's spec (keys sorted).
fn fingerprint(spec: &serde_json::Value) -> String {
    let digest = Sha256::digest(dumps_sorted(spec, Layout::Compact).as_bytes());
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}
