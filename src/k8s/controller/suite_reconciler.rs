//! The EvalSuite reconciler: gather the suite's runs from the shared store,
//! let [`super::suite_decision`] decide, and apply the decision. It is the
//! only writer of EvalSuite status.

use super::metrics::SuiteLabels;
use super::suite_decision::{SuiteDecision, decide, run_not_created};
use super::{Context, Error, MANAGER};
use crate::k8s::api_problem;
use crate::k8s::crd::{EvalRun, EvalSuite};
use jiff::Timestamp;
use kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use kube::runtime::controller::Action;
use kube::{Api, Resource, ResourceExt};
use std::sync::Arc;
use std::time::Duration;

pub async fn reconcile(suite: Arc<EvalSuite>, ctx: Arc<Context>) -> Result<Action, Error> {
    if !ctx.is_leader() {
        return Ok(Action::await_change());
    }
    // The runs come from the runs controller's cache; until it has listed
    // them once, a decision would not see the suite's history.
    tokio::time::timeout(Duration::from_secs(30), ctx.runs.wait_until_ready())
        .await
        .map_err(|_| Error::Serve("the EvalRun cache is not ready after 30s".into()))?
        .map_err(|e| Error::Serve(e.to_string()))?;
    let namespace = suite.namespace().unwrap_or_default();
    let name = suite.name_any();
    // Woken (by a run of its own, say) before the cache has this
    // controller's last write: that write's own event brings it back.
    {
        let mut superseded = ctx.superseded.lock().unwrap_or_else(|e| e.into_inner());
        let key = format!("{namespace}/{name}");
        match superseded.get(&key) {
            Some(version) if suite.resource_version().as_ref() == Some(version) => {
                return Ok(Action::requeue(Duration::from_secs(1)));
            }
            // The cache has moved past it.
            Some(_) => {
                superseded.remove(&key);
            }
            None => {}
        }
    }
    let runs: Vec<Arc<EvalRun>> = ctx
        .runs
        .state()
        .into_iter()
        .filter(|r| {
            r.namespace().as_deref() == Some(namespace.as_str()) && r.spec.suite_ref.name == name
        })
        .collect();
    let runs: Vec<&EvalRun> = runs.iter().map(Arc::as_ref).collect();
    let decision = decide(&suite, &runs, Timestamp::now());
    apply(&suite, decision, &ctx).await
}

async fn apply(suite: &EvalSuite, decision: SuiteDecision, ctx: &Context) -> Result<Action, Error> {
    let namespace = suite.namespace().unwrap_or_default();
    let name = suite.name_any();
    let reference = suite.object_ref(&());
    let runs: Api<EvalRun> = Api::namespaced(ctx.client.clone(), &namespace);
    for run in &decision.replace {
        ctx.cancel(&format!("{namespace}/{run}"));
        delete_run(&runs, run).await?;
    }
    for event in &decision.events {
        ctx.publish(event, None, Some(&reference)).await;
    }
    let mut decision = decision;
    if let Some(run) = &decision.create {
        let event = match create(&runs, run, &name).await {
            Ok(true) => decision.created_event.clone(),
            Ok(false) => None,
            Err(why) => {
                let event;
                (decision, event) = run_not_created(suite, decision, &why, Timestamp::now());
                event
            }
        };
        if let Some(event) = &event {
            ctx.publish(event, None, Some(&reference)).await;
        }
    }
    for stale in &decision.prune {
        delete_run(&runs, stale).await?;
    }
    ctx.metrics.record_suite(
        &SuiteLabels {
            namespace: namespace.clone(),
            suite: name.clone(),
        },
        &decision.metrics,
    );
    if Some(&decision.status) != suite.status.as_ref() {
        // Written only over the status it was decided from: a suite read
        // from the cache before this controller's last write would
        // otherwise take back what that write recorded (its
        // lastScheduleTime, and so the slot would look due again).
        let patch = serde_json::json!({
            "apiVersion": crate::k8s::crd::API_VERSION,
            "kind": "EvalSuite",
            "metadata": {"resourceVersion": suite.resource_version()},
            "status": decision.status,
        });
        let suites: Api<EvalSuite> = Api::namespaced(ctx.client.clone(), &namespace);
        match suites
            .patch_status(
                &name,
                &PatchParams::apply(MANAGER).force(),
                &Patch::Apply(&patch),
            )
            .await
        {
            // The write that made it stale wakes this suite again.
            Err(kube::Error::Api(e)) if e.code == 409 => {
                return Ok(Action::requeue(Duration::from_secs(1)));
            }
            Err(e) => return Err(e.into()),
            Ok(_) => {
                if let Some(version) = suite.resource_version() {
                    ctx.superseded
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(format!("{namespace}/{name}"), version);
                }
            }
        }
    }
    Ok(Action::requeue(decision.requeue))
}

/// Create the suite's scheduled run: `true` when created, `false` when this
/// suite's run of the slot exists already (another replica, or this one
/// before a restart), else why it could not be, in the API's words.
async fn create(runs: &Api<EvalRun>, run: &EvalRun, suite: &str) -> Result<bool, String> {
    let name = run.name_any();
    match runs.create(&PostParams::default(), run).await {
        Ok(_) => Ok(true),
        Err(kube::Error::Api(e)) if e.code == 409 => match runs.get_opt(&name).await {
            Ok(Some(found)) if found.spec.suite_ref.name == suite => Ok(false),
            Ok(Some(found)) => Err(format!(
                "an EvalRun named {name} already exists for suite {}",
                found.spec.suite_ref.name
            )),
            // Deleted meanwhile: the next look creates it.
            Ok(None) => Err(format!("EvalRun {name} existed, then was deleted")),
            Err(e) => Err(api_problem(&e)),
        },
        Err(e) => Err(api_problem(&e)),
    }
}

/// Delete a run that may already be gone.
async fn delete_run(api: &Api<EvalRun>, name: &str) -> Result<(), Error> {
    match api.delete(name, &DeleteParams::background()).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(e)) if e.code == 404 => Ok(()),
        Err(e) => Err(e.into()),
    }
}
