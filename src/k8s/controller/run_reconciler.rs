//! The EvalRun reconciler: the only writer of EvalRun status. A run goes
//! through named steps: start (decided by [`run_decision::start`]), claim,
//! then execute: gather from the API server (the suite, the Agent, Secrets,
//! the previous run), compile and resolve (pure), open and run the suite
//! ([`crate::pipeline`]), write the opt-in full report; then finish, which
//! alone builds the final status from the claimed one and the [`Ending`].
//!
//! A run is read afresh from the API server before anything is decided (the
//! cache may not have seen this replica's own last write), claimed with a
//! status write that fails if anyone else wrote in between, and kept alive
//! by a heartbeat while it executes; another replica takes a Running run
//! over only when that heartbeat is stale. Reading and scoring are
//! repeatable, so resuming is running again; after too many attempts the
//! run ends in Error, never left Running.

use super::metrics::SuiteLabels;
use super::run_decision::{self, Ending, Learnt, RunFacts, Start, Stopped, failure_of};
use super::suite_decision::{RUN_LABEL, SUITE_LABEL, TRIGGER_LABEL, is_done};
use super::{Context, Error, MANAGER, PlannedEvent, Regarding};
use crate::core::session::AgentRef;
use crate::core::suite::compile::{CompiledSuite, compile};
use crate::core::suite::gate::{apply_baseline, without_baseline};
use crate::core::suite::report::Report;
use crate::core::suite::rules::NameKind;
use crate::core::suite::spec::SuiteSpec;
use crate::core::suite::spec::{AgentApiVersion, Unmeasured};
use crate::k8s::crd::{API_VERSION, AgentSnapshot, EvalRun, EvalRunStatus, EvalSuite, TriggerType};
use crate::k8s::kagent_agent::{self, Half, Placement, Resolved};
use crate::k8s::names;
use crate::k8s::vocabulary::{EventReason, Failure};
use crate::pipeline::{ProbeIds, open, run_suite};
use crate::resolve::{
    ClusterFacts, Request, SecretData, SourceSettings, model_config, referenced_model_config,
    referenced_secrets, resolve,
};
use crate::secret::Secret;
use crate::source::SessionSource;
use jiff::{SignedDuration, Timestamp};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, ObjectReference, Secret as KubeSecret};
use kube::api::{ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams};
use kube::runtime::controller::Action;
use kube::{Api, Resource, ResourceExt};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

pub async fn reconcile(run: Arc<EvalRun>, ctx: Arc<Context>) -> Result<Action, Error> {
    if !ctx.is_leader() || is_done(&run) {
        return Ok(Action::await_change());
    }
    let namespace = run.namespace().unwrap_or_default();
    let key = format!("{namespace}/{}", run.name_any());
    let token = CancellationToken::new();
    {
        let mut running = ctx.running.lock().unwrap_or_else(|e| e.into_inner());
        if running.contains_key(&key) {
            return Ok(Action::await_change());
        }
        running.insert(key.clone(), token.clone());
    }
    let result = tokio::select! {
        result = reconcile_in_slot(&run, &ctx) => result,
        // Replaced, or leadership lost: leave the run as it is.
        _ = token.cancelled() => Ok(Action::await_change()),
    };
    ctx.running
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&key);
    result
}

/// Take one of the run slots, first saying in the run's status that it
/// waits when none is free, and reconcile the run holding it.
async fn reconcile_in_slot(cached: &EvalRun, ctx: &Context) -> Result<Action, Error> {
    let slot = match ctx.slots.clone().try_acquire_owned() {
        Ok(slot) => slot,
        Err(_) => {
            let status = cached.status.clone().unwrap_or_default();
            if let Some(waiting) = run_decision::waiting_for_slot(
                &status,
                ctx.config.max_concurrent_runs,
                cached.metadata.generation,
                Timestamp::now(),
            ) {
                let api =
                    Api::namespaced(ctx.client.clone(), &cached.namespace().unwrap_or_default());
                // Written only if nobody wrote since: an older view of the
                // run must not hide a newer status.
                match write_status(
                    &api,
                    &cached.name_any(),
                    &waiting,
                    cached.resource_version(),
                )
                .await
                {
                    Err(Error::Kube(kube::Error::Api(e))) if e.code == 409 => {}
                    other => other?,
                }
            }
            let Ok(slot) = ctx.slots.clone().acquire_owned().await else {
                return Ok(Action::await_change());
            };
            slot
        }
    };
    let action = reconcile_fresh(cached, ctx).await;
    drop(slot);
    action
}

async fn reconcile_fresh(cached: &EvalRun, ctx: &Context) -> Result<Action, Error> {
    let namespace = cached.namespace().unwrap_or_default();
    let api: Api<EvalRun> = Api::namespaced(ctx.client.clone(), &namespace);
    let Some(run) = api.get_opt(&cached.name_any()).await? else {
        return Ok(Action::await_change());
    };
    if is_done(&run) {
        return Ok(Action::await_change());
    }
    let status = run.status.clone().unwrap_or_default();
    let stale_after =
        SignedDuration::try_from(ctx.config.stale_after()).unwrap_or(SignedDuration::MAX);
    let mut execution = Execution::new(run, ctx, api).await?;
    match run_decision::start(
        &status,
        &ctx.config.identity,
        Timestamp::now(),
        stale_after,
        ctx.config.max_attempts,
    ) {
        Start::Wait(wait) => Ok(Action::requeue(wait)),
        Start::GiveUp { attempts } => {
            let message = format!(
                "started {attempts} times and interrupted each time (controller restarts or leader changes); not started again"
            );
            execution
                .finish(
                    status,
                    Ending::failed(Failure::Interrupted, message, Learnt::default()),
                )
                .await?;
            Ok(Action::await_change())
        }
        Start::Execute { attempt, resumed } => {
            let claimed = run_decision::claimed(
                &status,
                attempt,
                resumed,
                &ctx.config.identity,
                execution.run.metadata.generation,
                Timestamp::now(),
            );
            if !execution.claim(&claimed).await? {
                // Someone else wrote the run meanwhile: look again.
                return Ok(Action::requeue(Duration::from_secs(1)));
            }
            if resumed {
                let event = PlannedEvent {
                    warning: false,
                    reason: EventReason::EvalRunResumed,
                    note: format!("attempt {attempt}: the run was interrupted and starts again"),
                    regarding: Regarding::RunAndSuite,
                };
                execution.publish(&event).await;
            }
            let ending = tokio::select! {
                ending = execution.execute(resumed) => ending,
                error = execution.heartbeat(claimed.clone()) => return Err(error),
            };
            execution.finish(claimed, ending).await?;
            Ok(Action::await_change())
        }
    }
}

struct Execution<'a> {
    run: EvalRun,
    ctx: &'a Context,
    api: Api<EvalRun>,
    namespace: String,
    name: String,
    suite: Option<EvalSuite>,
    /// The suite as the run evaluates it, and its generation.
    spec: Option<(SuiteSpec, Option<i64>)>,
    /// The suite's latest finished run before this one, for regressions.
    previous: Option<Arc<EvalRun>>,
}

impl<'a> Execution<'a> {
    /// Read the run's suite and its previous run, and adopt a run made by
    /// hand: record the suite's snapshot, the owner and the labels, and go
    /// on with the run as the API server returns it, so conditions carry
    /// its new generation.
    async fn new(run: EvalRun, ctx: &'a Context, api: Api<EvalRun>) -> Result<Self, Error> {
        let namespace = run.namespace().unwrap_or_default();
        let name = run.name_any();
        let suites: Api<EvalSuite> = Api::namespaced(ctx.client.clone(), &namespace);
        // A name that is not a Kubernetes name is never put in a request.
        let suite = match NameKind::Object.allows(&run.spec.suite_ref.name) {
            true => suites.get_opt(&run.spec.suite_ref.name).await?,
            false => None,
        };
        let spec = match (&run.spec.suite, &suite) {
            (Some(snapshot), _) => Some((snapshot.clone(), run.spec.suite_generation)),
            (None, Some(suite)) => Some((suite.spec.suite.clone(), suite.metadata.generation)),
            (None, None) => None,
        };
        let previous = previous_run(ctx, &run);
        let mut execution = Execution {
            run,
            ctx,
            api,
            namespace,
            name,
            suite,
            spec,
            previous,
        };
        execution.adopt().await?;
        Ok(execution)
    }

    async fn adopt(&mut self) -> Result<(), Error> {
        let (Some(suite), Some((spec, generation))) = (&self.suite, &self.spec) else {
            return Ok(());
        };
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
        let mut patch = serde_json::json!({
            "apiVersion": API_VERSION,
            "kind": "EvalRun",
            "metadata": {
                "labels": {SUITE_LABEL: names::label_value(&suite.name_any()), TRIGGER_LABEL: trigger},
                "ownerReferences": suite.controller_owner_ref(&()).into_iter().collect::<Vec<_>>(),
            },
            "spec": {"suiteRef": self.run.spec.suite_ref}
        });
        // A suite that no longer compiles (stored before a rule it breaks)
        // is not copied: the API server would refuse the copy, and the run
        // ends InvalidSpec on the suite itself.
        if compile(&suite.name_any(), spec, "spec", &self.namespace).is_ok() {
            patch["spec"]["suite"] = serde_json::to_value(spec).unwrap_or_default();
            patch["spec"]["suiteGeneration"] = serde_json::json!(generation);
        }
        self.run = self
            .api
            .patch(
                &self.name,
                &PatchParams::apply(MANAGER).force(),
                &Patch::Apply(&patch),
            )
            .await?;
        Ok(())
    }

    /// Write the claimed status, unless the run changed since it was read.
    async fn claim(&mut self, status: &EvalRunStatus) -> Result<bool, Error> {
        match self
            .write(status, self.run.metadata.resource_version.clone())
            .await
        {
            Ok(()) => Ok(true),
            Err(Error::Kube(kube::Error::Api(e))) if e.code == 409 => Ok(false),
            Err(e) => Err(e),
        }
    }

    async fn write(
        &self,
        status: &EvalRunStatus,
        precondition: Option<String>,
    ) -> Result<(), Error> {
        write_status(&self.api, &self.name, status, precondition).await
    }

    /// Say every so often that the run is still being executed here; ends
    /// only when a write fails.
    async fn heartbeat(&self, mut status: EvalRunStatus) -> Error {
        loop {
            tokio::time::sleep(self.ctx.config.heartbeat()).await;
            if let Some(executor) = &mut status.executor {
                executor.heartbeat_time =
                    k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(Timestamp::now());
            }
            if let Err(error) = self.write(&status, None).await {
                return error;
            }
        }
    }

    fn reference(&self) -> ObjectReference {
        self.run.object_ref(&())
    }

    async fn publish(&self, event: &PlannedEvent) {
        let suite = self.suite.as_ref().map(|s| s.object_ref(&()));
        self.ctx
            .publish(event, Some(&self.reference()), suite.as_ref())
            .await;
    }

    /// The run proper: compile, gather, resolve, open, score, and write the
    /// opt-in report. What it learns is carried in the ending. `resumed`:
    /// an earlier execution may have sent the run's probes.
    async fn execute(&self, resumed: bool) -> Ending {
        let mut learnt = Learnt::default();
        match self.scored(&mut learnt, resumed).await {
            Ok(report) => Ending::Scored {
                report: Box::new(report),
                learnt,
            },
            Err((failure, message)) => Ending::failed(failure, message, learnt),
        }
    }

    async fn scored(
        &self,
        learnt: &mut Learnt,
        resumed: bool,
    ) -> Result<Report, (Failure, String)> {
        if !NameKind::Object.allows(&self.run.spec.suite_ref.name) {
            return Err((
                Failure::InvalidSpec,
                format!("spec.suiteRef.name: {}", NameKind::Object.message()),
            ));
        }
        let Some((spec, _)) = &self.spec else {
            return Err((
                Failure::SuiteNotFound,
                format!(
                    "EvalSuite {} not found in {}",
                    self.run.spec.suite_ref.name, self.namespace
                ),
            ));
        };
        let compiled = compile(&self.run.spec.suite_ref.name, spec, "spec", &self.namespace)
            .map_err(|e| (Failure::InvalidSpec, e.to_string()))?;
        for warning in compiled.warnings() {
            tracing::warn!(namespace = %self.namespace, run = %self.name, "{warning}");
        }
        let gathered = self.gather(spec, &compiled).await?;
        learnt.agent = gathered.agent;
        let config = &self.ctx.config;
        let resolution = resolve(&Request {
            spec,
            agent: compiled.agent.as_ref(),
            needs_judge: compiled.uses_judge(),
            needs_agent_endpoint: compiled.probe_cases().next().is_some(),
            needs_source: compiled.reads_recorded_sessions(),
            defaults: &config.defaults,
            base: std::path::Path::new("/"),
            cluster: Some(&gathered.facts),
            policy: &config.policy,
        })
        .map_err(|r| (failure_of(Stopped::Refused(&r)), r.message))?;
        let opened =
            open(&resolution).map_err(|e| (failure_of(Stopped::NotOpened(&e)), e.to_string()))?;
        let said_source = || {
            Some(match resolution.source.settings {
                SourceSettings::Nothing => opened.source.describe(),
                _ => format!("{} {}", resolution.source.party, opened.source.describe()),
            })
        };
        learnt.source = said_source();
        let full_report = spec.report.as_ref().is_some_and(|r| r.config_map);
        let report = tokio::time::timeout(
            config.run_timeout,
            run_suite(
                &compiled,
                &opened.source,
                &opened.judge,
                opened.agent.as_ref(),
                // Every replica names the run's probes alike: one taken
                // over sends nothing its earlier execution sent.
                &ProbeIds::Derived {
                    run: self.run.uid().unwrap_or_else(|| self.name.clone()),
                    resumed,
                },
                Timestamp::now(),
                full_report,
            ),
        )
        .await
        .map_err(|_| {
            (
                Failure::TimedOut,
                format!("still reading after {}s", config.run_timeout.as_secs()),
            )
        })?
        .map_err(|e| (failure_of(Stopped::Run(&e)), e.to_string()))?;
        let mut report = report;
        self.compare(&mut report, &compiled);
        // The line of a kagent database is known only once it was read.
        learnt.source = said_source();
        // The report carries ids, keys, scores and diagnostics, never
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
            let event = PlannedEvent {
                warning: true,
                reason: EventReason::ReportNotWritten,
                note: format!(
                    "the full report ConfigMap could not be written: {}",
                    kube_problem(&error)
                ),
                regarding: Regarding::RunAndSuite,
            };
            self.publish(&event).await;
        }
        Ok(report)
    }

    /// Hold the report to the suite's gates against its baseline run (the
    /// pinned one, else the latest Succeeded one). A suite's first run has
    /// none to compare with: its relative gates are skipped, and said to be.
    fn compare(&self, report: &mut Report, compiled: &CompiledSuite) {
        let runs = self.ctx.runs.state();
        let chosen = run_decision::baseline_run(
            &runs,
            &self.namespace,
            &self.run.spec.suite_ref.name,
            &self.name,
            compiled.baseline_run.as_deref(),
        );
        let gate = &compiled.run_gate;
        let baseline = match chosen {
            Err(why) => {
                without_baseline(report, gate, &why, compiled.unmeasured);
                return;
            }
            Ok(found) => {
                found.and_then(|run| Some((run.name_any(), run_decision::baseline_of(run)?)))
            }
        };
        let Some((name, baseline)) = baseline else {
            if gate.needs_baseline() {
                without_baseline(
                    report,
                    gate,
                    "no earlier Succeeded run of the suite that recorded cost, latency and tokens",
                    Unmeasured::Skip,
                );
            }
            return;
        };
        if let Err(why) = apply_baseline(report, &baseline, gate, compiled.unmeasured) {
            without_baseline(report, gate, &format!("{name}: {why}"), compiled.unmeasured);
        }
    }

    /// What the resolver needs from the cluster: the Agent, the namespace's
    /// labels when the Agent is elsewhere, the Secrets and ModelConfig the
    /// suite names. Also the Agent as evaluated, for the run's status.
    async fn gather(
        &self,
        spec: &SuiteSpec,
        compiled: &CompiledSuite,
    ) -> Result<Gathered, (Failure, String)> {
        let mut facts = ClusterFacts {
            namespace: self.namespace.clone(),
            ..ClusterFacts::default()
        };
        let mut agent = None;
        let api = spec
            .agent_ref
            .as_ref()
            .and_then(|a| a.api_version)
            .unwrap_or_default();
        if let Some(evaluated) = &compiled.agent {
            let (spec, snapshot) = read_evaluated_agent(self.ctx, evaluated, api).await?;
            facts.agent_spec = spec;
            agent = Some(snapshot);
            if evaluated.namespace != self.namespace {
                let namespaces: Api<Namespace> = Api::all(self.ctx.client.clone());
                facts.namespace_labels = Some(match namespaces.get(&self.namespace).await {
                    Ok(ns) => Ok(ns.metadata.labels.unwrap_or_default().into_iter().collect()),
                    Err(e) => Err(kube_problem(&e.into())),
                });
            }
        }
        let needs_judge = compiled.uses_judge();
        let mut names = referenced_secrets(spec, needs_judge);
        if let Some(name) = referenced_model_config(spec, needs_judge) {
            let config = read_model_config(self.ctx, api, &self.namespace, name).await;
            let own_key = spec
                .judge
                .as_ref()
                .is_some_and(|j| j.api_key_secret_ref.is_some());
            if let (Ok(config), false) = (&config, own_key) {
                // A name that is no Secret name is not read; the resolver
                // refuses it.
                names.extend(
                    model_config::key_secret(config)
                        .ok()
                        .flatten()
                        .map(|(name, _)| name),
                );
            }
            facts.model_config = Some(config);
        }
        let secrets: Api<KubeSecret> = Api::namespaced(self.ctx.client.clone(), &self.namespace);
        for name in names {
            let data = match secrets.get_opt(&name).await {
                Ok(Some(secret)) => Ok(secret_data(secret)),
                Ok(None) => Err("not found".to_string()),
                Err(e) => Err(kube_problem(&e.into())),
            };
            facts.secrets.insert(name, data);
        }
        Ok(Gathered { facts, agent })
    }

    /// The full report, conversations included, in a ConfigMap owned by the
    /// run: only where the suite's owner asked for it.
    async fn write_report(&self, report: &Report) -> Result<(), Error> {
        /// Below a ConfigMap's 1 MiB limit, with room for metadata.
        const LIMIT: usize = 900 * 1024;
        let mut text = serde_json::to_string_pretty(report).unwrap_or_default();
        if text.len() > LIMIT {
            text = serde_json::to_string_pretty(&report.without_trajectories()).unwrap_or_default();
        }
        let name = run_decision::report_config_map(&self.name);
        let owner = serde_json::json!({
            "apiVersion": API_VERSION,
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
                "labels": {
                    SUITE_LABEL: names::label_value(&self.run.spec.suite_ref.name),
                    RUN_LABEL: names::label_value(&self.name),
                },
                "ownerReferences": [owner],
            },
            "data": {"report.json": text},
        });
        let api: Api<ConfigMap> = Api::namespaced(self.ctx.client.clone(), &self.namespace);
        api.patch(
            &name,
            &PatchParams::apply(MANAGER).force(),
            &Patch::Apply(&config_map),
        )
        .await?;
        Ok(())
    }

    /// Write the run's last status, and publish and count its ending.
    async fn finish(&mut self, status: EvalRunStatus, ending: Ending) -> Result<(), Error> {
        if let Ending::Failed {
            failure, message, ..
        } = &ending
        {
            tracing::warn!(namespace = %self.namespace, run = %self.name, reason = failure.as_str(), "{message}");
        }
        let finished = run_decision::finish(
            &status,
            self.run.metadata.generation,
            ending,
            Timestamp::now(),
        );
        self.write(&finished.status, None).await?;
        self.ctx.metrics.record_run(
            &SuiteLabels {
                namespace: self.namespace.clone(),
                suite: self.run.spec.suite_ref.name.clone(),
            },
            finished.result,
            finished.seconds,
        );
        for event in &finished.events {
            self.publish(event).await;
        }
        if let Some(event) = self.regression(&finished.status) {
            self.publish(&event).await;
        }
        if let Some(event) = self.efficiency_regressed(&finished.status) {
            self.publish(&event).await;
        }
        Ok(())
    }

    /// The gates breached against the baseline run, attributed.
    fn efficiency_regressed(&self, status: &EvalRunStatus) -> Option<PlannedEvent> {
        let name = status
            .baseline
            .as_ref()?
            .baseline
            .strip_prefix("EvalRun ")?
            .to_string();
        let baseline =
            self.ctx.runs.state().into_iter().find(|r| {
                r.namespace().as_deref() == Some(&self.namespace) && r.name_any() == name
            })?;
        let baseline_status = baseline.status.clone().unwrap_or_default();
        run_decision::efficiency_regressed(
            RunFacts {
                name: &name,
                status: &baseline_status,
                suite_generation: baseline.spec.suite_generation,
            },
            RunFacts {
                name: &self.name,
                status,
                suite_generation: self.run.spec.suite_generation,
            },
        )
    }

    /// A regression against the suite's previous finished run, if any.
    fn regression(&self, status: &EvalRunStatus) -> Option<PlannedEvent> {
        let previous = self.previous.as_ref()?;
        let previous_status = previous.status.clone().unwrap_or_default();
        let previous_name = previous.name_any();
        run_decision::regression(
            RunFacts {
                name: &previous_name,
                status: &previous_status,
                suite_generation: previous.spec.suite_generation,
            },
            RunFacts {
                name: &self.name,
                status,
                suite_generation: self.run.spec.suite_generation,
            },
        )
    }
}

/// What the execution read from the API server for the resolver.
struct Gathered {
    facts: ClusterFacts,
    agent: Option<AgentSnapshot>,
}

/// Apply a run's status, if `precondition` (a resourceVersion) is still the
/// run's; a run deleted meanwhile (Replace, or pruned) is nothing to report to.
async fn write_status(
    api: &Api<EvalRun>,
    name: &str,
    status: &EvalRunStatus,
    precondition: Option<String>,
) -> Result<(), Error> {
    let mut patch = serde_json::json!({
        "apiVersion": API_VERSION,
        "kind": "EvalRun",
        "status": status,
    });
    if let Some(version) = precondition {
        patch["metadata"] = serde_json::json!({"resourceVersion": version});
    }
    match api
        .patch_status(
            name,
            &PatchParams::apply(MANAGER).force(),
            &Patch::Apply(&patch),
        )
        .await
    {
        Err(kube::Error::Api(e)) if e.code == 404 => Ok(()),
        other => other.map(|_| ()).map_err(Error::from),
    }
}

fn previous_run(ctx: &Context, run: &EvalRun) -> Option<Arc<EvalRun>> {
    let completed = |r: &EvalRun| r.status.as_ref().and_then(|s| s.completion_time.clone());
    ctx.runs
        .state()
        .into_iter()
        .filter(|r| {
            r.namespace() == run.namespace()
                && r.spec.suite_ref.name == run.spec.suite_ref.name
                && r.name_any() != run.name_any()
                && is_done(r)
        })
        .max_by_key(|r| (completed(r).map(|t| t.0), r.name_any()))
}

/// A Secret's keys, those that are not text marked as such.
fn secret_data(secret: KubeSecret) -> SecretData {
    secret
        .data
        .unwrap_or_default()
        .into_iter()
        .map(|(key, bytes)| (key, String::from_utf8(bytes.0).ok().map(Secret::new)))
        .collect()
}

/// A Kubernetes error as one short line for a status or an Event.
fn kube_problem(error: &Error) -> String {
    match error {
        Error::Kube(kube::Error::Api(e)) if e.code == 403 => {
            format!(
                "forbidden: the operator's service account may not read it ({})",
                e.message
            )
        }
        Error::Kube(kube::Error::Api(e)) if e.code == 404 => "not found".into(),
        Error::Kube(e) => crate::k8s::api_problem(e),
        other => other.to_string(),
    }
}

/// The evaluated Agent, read only: its spec (`None` when it, or its CRD, is
/// absent or may not be read), and what the run's status records of it. A
/// kagent 1.0 Agent's template and harness are resolved too; one that
/// cannot be read stops the run (`AgentUnreadable`) rather than scoring
/// against an Agent half seen.
async fn read_evaluated_agent(
    ctx: &Context,
    agent: &AgentRef,
    api: AgentApiVersion,
) -> Result<(Option<serde_json::Value>, AgentSnapshot), (Failure, String)> {
    let (group, version) = api.group_version();
    let found = read_object(
        ctx,
        &agent.namespace,
        (group, version, "Agent"),
        &agent.name,
    )
    .await
    .or_else(|e| match &e {
        Error::Kube(kube::Error::Api(a)) if a.code == 404 || a.code == 403 => Ok(None),
        _ => Err((Failure::SourceUnavailable, e.to_string())),
    })?;
    let name = agent.to_string();
    let Some(found) = found else {
        let snapshot = AgentSnapshot {
            name,
            api_version: (api == AgentApiVersion::V1Alpha3).then_some(api),
            ..AgentSnapshot::default()
        };
        return Ok((None, snapshot));
    };
    let generation = found.metadata.generation;
    let spec = found.data.get("spec").cloned();
    let snapshot = match api {
        AgentApiVersion::V1Alpha2 => {
            kagent_agent::v1alpha2_snapshot(name, generation, spec.as_ref())
        }
        AgentApiVersion::V1Alpha3 => {
            let spec = spec.clone().unwrap_or_default();
            let template = resolve_half(ctx, agent, &spec, Half::Template).await?;
            let harness = resolve_half(ctx, agent, &spec, Half::Harness).await?;
            kagent_agent::v1alpha3_snapshot(name, generation, &found.data, &template, &harness)
        }
    };
    Ok((spec, snapshot))
}

/// A kagent 1.0 Agent's template or harness: inline, or the local object
/// its reference names.
async fn resolve_half(
    ctx: &Context,
    agent: &AgentRef,
    spec: &serde_json::Value,
    half: Half,
) -> Result<Resolved, (Failure, String)> {
    let unreadable = |why: String| (Failure::AgentUnreadable, format!("Agent {agent}: {why}"));
    let placement = kagent_agent::placement(spec, half).map_err(unreadable)?;
    let resolved = match &placement {
        Placement::Inline(inline) => inline.clone(),
        Placement::Named(name) => {
            let (group, version) = AgentApiVersion::V1Alpha3.group_version();
            let read =
                read_object(ctx, &agent.namespace, (group, version, half.kind()), name).await;
            let why = match read {
                Ok(Some(object)) => {
                    return Ok(Resolved::new(half, &placement, object.data["spec"].clone()));
                }
                Ok(None) => "not found".to_string(),
                Err(e) => kube_problem(&e),
            };
            return Err(unreadable(format!(
                "its {} {name} (spec.{}.name) cannot be read: {why}",
                half.kind(),
                half.reference_field()
            )));
        }
    };
    Ok(Resolved::new(half, &placement, resolved))
}

/// One namespaced object of a kind the operator does not own, read only.
async fn read_object(
    ctx: &Context,
    namespace: &str,
    (group, version, kind): (&str, &str, &str),
    name: &str,
) -> Result<Option<DynamicObject>, Error> {
    let resource = ApiResource::from_gvk(&GroupVersionKind::gvk(group, version, kind));
    let api: Api<DynamicObject> = Api::namespaced_with(ctx.client.clone(), namespace, &resource);
    Ok(api.get_opt(name).await?)
}

/// The `spec` of a kagent ModelConfig, of the evaluated Agent's line, or
/// why it could not be read.
async fn read_model_config(
    ctx: &Context,
    api: AgentApiVersion,
    namespace: &str,
    name: &str,
) -> Result<serde_json::Value, String> {
    let (group, version) = api.group_version();
    match read_object(ctx, namespace, (group, version, "ModelConfig"), name).await {
        Ok(Some(config)) => Ok(config.data.get("spec").cloned().unwrap_or_default()),
        Ok(None) => Err("not found".into()),
        Err(e) => Err(kube_problem(&e)),
    }
}
