//! What GitOps tools read of EvalSuites and EvalRuns, on objects from the
//! real API server: kstatus's verdict (Flux's health checks, Helm's
//! `--wait`), `kubectl wait --for=condition=Ready`, and the Argo CD health
//! scripts the chart ships, run by a real Lua 5.1 interpreter as Argo CD's
//! gopher-lua would. Also the run slots: a queued run says it waits, and
//! every schedule slot still gets its one run.

use crate::crds::namespace;
use crate::support::operator::{
    agent, apply_suite, config, finished, held_api, run_now, runs_of, start, wait_for,
    weather_database, weather_suite,
};
use crate::support::{control_plane, runtime};
use crate::{Need, Test};
use kagent_evals::k8s::crd::{EvalRun, EvalSuite, Phase};
use kube::Api;
use serde_json::{Value, json};
use std::time::Duration;

pub fn tests() -> Vec<Test> {
    vec![
        Test {
            name: "gitops::kstatus_argo_cd_and_kubectl_wait_tell_pending_verdicts_and_stalls_apart",
            needs: &[Need::ControlPlane, Need::Postgres],
            run: health_as_gitops_tools_read_it,
        },
        Test {
            name: "gitops::the_argo_cd_scripts_read_any_status_shape",
            needs: &[],
            run: any_status_shape,
        },
    ]
}

/// kstatus's status of a custom resource, by the rules its documentation
/// gives (sigs.k8s.io/cli-utils/pkg/kstatus, "Conditions" and the generic
/// rules for types it does not know):
/// - a deletionTimestamp: Terminating;
/// - status.observedGeneration present and not metadata.generation: InProgress;
/// - the first of Reconciling=True or Stalled=True: InProgress or Failed;
/// - otherwise Current.
fn kstatus(object: &Value) -> &'static str {
    if object.pointer("/metadata/deletionTimestamp").is_some() {
        return "Terminating";
    }
    let observed = object.pointer("/status/observedGeneration");
    if observed.is_some() && observed != object.pointer("/metadata/generation") {
        return "InProgress";
    }
    let empty = Vec::new();
    let conditions = object
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    for condition in conditions {
        match (condition["type"].as_str(), condition["status"].as_str()) {
            (Some("Reconciling"), Some("True")) => return "InProgress",
            (Some("Stalled"), Some("True")) => return "Failed",
            _ => {}
        }
    }
    "Current"
}

/// Argo CD's health of `object`: its kind's script from the chart's
/// argocd-cm, run on the object as Argo CD passes it (`obj`).
fn argo_health(object: &Value) -> (String, String) {
    let kind = object["kind"].as_str().unwrap();
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/charts/kagent-evals/argocd/argocd-cm.yaml"
    ))
    .unwrap();
    let cm: Value = serde_saphyr::from_str(&text).unwrap();
    let key = format!("resource.customizations.health.evals.kagent.dev_{kind}");
    let script = cm["data"][&key]
        .as_str()
        .unwrap_or_else(|| panic!("no {key}"));
    let lua = mlua::Lua::new();
    use mlua::LuaSerdeExt;
    // Argo CD hands the object over as plain tables: no null sentinel.
    let options = mlua::serde::SerializeOptions::new()
        .serialize_none_to_null(false)
        .serialize_unit_to_null(false);
    let obj = lua.to_value_with(object, options).unwrap();
    lua.globals().set("obj", obj).unwrap();
    let hs: mlua::Table = lua
        .load(script)
        .set_name(&key)
        .eval()
        .unwrap_or_else(|e| panic!("{key} on {object}: {e}"));
    let status: String = hs.get("status").unwrap();
    let message: Option<String> = hs.get("message").unwrap();
    (status, message.unwrap_or_default())
}

async fn run_json(client: &kube::Client, ns: &str, name: &str) -> Value {
    let api: Api<EvalRun> = Api::namespaced(client.clone(), ns);
    serde_json::to_value(api.get(name).await.unwrap()).unwrap()
}

async fn suite_json(client: &kube::Client, ns: &str, name: &str) -> Value {
    let api: Api<EvalSuite> = Api::namespaced(client.clone(), ns);
    serde_json::to_value(api.get(name).await.unwrap()).unwrap()
}

fn reconciling_reason(object: &Value) -> Option<String> {
    object["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == "Reconciling" && c["status"] == "True")
        .map(|c| c["reason"].as_str().unwrap_or_default().to_string())
}

/// `kubectl wait --for=condition=Ready` on `resource`, started now.
fn kubectl_wait(
    plane: &crate::support::controlplane::ControlPlane,
    ns: &str,
    resource: &str,
) -> std::process::Child {
    plane
        .kubectl()
        .args([
            "wait",
            "--for=condition=Ready",
            "--timeout=120s",
            "-n",
            ns,
            resource,
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

fn waited(child: std::process::Child, resource: &str) {
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "kubectl wait {resource}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn health_as_gitops_tools_read_it() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "gitops").await;
        let db = weather_database("gitops", &ns).await;
        agent(
            &client,
            &ns,
            "weather-assistant",
            "You report the weather from the tool.",
        )
        .await;
        agent(
            &client,
            &ns,
            "forgetful-assistant",
            "You answer from memory.",
        )
        .await;
        let held = held_api::start().await;

        // One run slot: the held run takes it, every other run queues.
        let mut one_slot = config(&ns, "replica-a", Some(&db.url));
        one_slot.max_concurrent_runs = 1;
        let _replica = start(&plane, one_slot).await;

        let mut held_suite = weather_suite(&ns, "held", "weather-assistant");
        held_suite["spec"]["source"] = json!({"type": "kagentApi", "kagentApi": {"url": held.url}});
        apply_suite(&client, &ns, &held_suite).await;
        apply_suite(
            &client,
            &ns,
            &weather_suite(&ns, "weather", "weather-assistant"),
        )
        .await;
        apply_suite(
            &client,
            &ns,
            &weather_suite(&ns, "forgetful", "forgetful-assistant"),
        )
        .await;
        let mut down = weather_suite(&ns, "down", "weather-assistant");
        let closed = format!("http://127.0.0.1:{}", crate::support::free_port());
        down["spec"]["source"] = json!({"type": "kagentApi", "kagentApi": {"url": closed}});
        apply_suite(&client, &ns, &down).await;
        // Every minute, Allow: slots keep firing while the only run slot is taken.
        let mut nightly = weather_suite(&ns, "nightly", "weather-assistant");
        nightly["spec"]["schedule"] = json!("* * * * *");
        nightly["spec"]["concurrencyPolicy"] = json!("Allow");
        apply_suite(&client, &ns, &nightly).await;

        // A suite the operator has not looked at yet is Progressing to Argo CD.
        let unseen = json!({"apiVersion": "evals.kagent.dev/v1alpha1", "kind": "EvalSuite",
                            "metadata": {"name": "unseen", "generation": 1}, "spec": {}});
        assert_eq!(argo_health(&unseen).0, "Progressing");

        let suite_wait = kubectl_wait(&plane, &ns, "evalsuite/weather");
        run_now(&client, &ns, "held-1", "held").await;
        wait_for("held-1 to run", Duration::from_secs(60), || async {
            let run = run_json(&client, &ns, "held-1").await;
            (run["status"]["phase"] == "Running").then_some(())
        })
        .await;
        // Its suite's first run is pending: Reconciling, InProgress, Progressing.
        let suite = wait_for(
            "held to be reconciling",
            Duration::from_secs(30),
            || async {
                let suite = suite_json(&client, &ns, "held").await;
                (reconciling_reason(&suite).as_deref() == Some("FirstRunPending")).then_some(suite)
            },
        )
        .await;
        assert_eq!(kstatus(&suite), "InProgress", "{suite}");
        assert_eq!(argo_health(&suite).0, "Progressing");
        let run = run_json(&client, &ns, "held-1").await;
        assert_eq!(kstatus(&run), "InProgress");
        assert_eq!(argo_health(&run).0, "Progressing");

        for (run, suite) in [
            ("weather-1", "weather"),
            ("forgetful-1", "forgetful"),
            ("down-1", "down"),
        ] {
            run_now(&client, &ns, run, suite).await;
        }
        let run_wait = kubectl_wait(&plane, &ns, "evalrun/weather-1");
        // Queued: Pending, and it says why, to kubectl, kstatus and Argo CD.
        let queued = wait_for(
            "weather-1 to wait for a slot",
            Duration::from_secs(30),
            || async {
                let run = run_json(&client, &ns, "weather-1").await;
                (reconciling_reason(&run).as_deref() == Some("WaitingForSlot")).then_some(run)
            },
        )
        .await;
        assert_eq!(queued["status"]["phase"], "Pending");
        assert_eq!(kstatus(&queued), "InProgress");
        let (health, message) = argo_health(&queued);
        assert_eq!(health, "Progressing");
        assert!(message.contains("run slots"), "{message}");
        // A schedule slot that fires meanwhile gets its run, queued too.
        let scheduled = wait_for(
            "nightly's run to queue",
            Duration::from_secs(75),
            || async {
                runs_of(&client, &ns, "nightly")
                    .await
                    .into_iter()
                    .find(|r| r.status.as_ref().and_then(|s| s.phase) == Some(Phase::Pending))
            },
        )
        .await;
        let scheduled = scheduled.metadata.name.unwrap();
        assert_eq!(
            reconciling_reason(&run_json(&client, &ns, &scheduled).await).as_deref(),
            Some("WaitingForSlot")
        );
        assert_eq!(
            run_json(&client, &ns, "held-1").await["status"]["phase"],
            "Running",
            "one slot: the held run still has it"
        );

        held.release();
        for run in [
            "held-1",
            "weather-1",
            "forgetful-1",
            "down-1",
            scheduled.as_str(),
        ] {
            finished(&client, &ns, run, Duration::from_secs(90)).await;
        }
        waited(run_wait, "evalrun/weather-1");
        waited(suite_wait, "evalsuite/weather");

        // A pass: Current and Healthy.
        let passed = run_json(&client, &ns, "weather-1").await;
        assert_eq!(
            (kstatus(&passed), argo_health(&passed).0.as_str()),
            ("Current", "Healthy")
        );
        // A failed eval is a verdict: Current to kstatus (the resource is
        // fine), Degraded to Argo CD with the failed cases named.
        let failed = run_json(&client, &ns, "forgetful-1").await;
        assert_eq!(failed["status"]["phase"], "Failed");
        assert_eq!(kstatus(&failed), "Current");
        let (health, message) = argo_health(&failed);
        assert_eq!(health, "Degraded");
        assert!(
            message.contains("answer-comes-from-the-weather-tool"),
            "{message}"
        );
        assert!(
            !message.contains("uses-no-tool-outside-its-budget"),
            "only failed cases: {message}"
        );
        let suite = wait_for("forgetful's last run", Duration::from_secs(30), || async {
            let suite = suite_json(&client, &ns, "forgetful").await;
            (suite["status"]["lastRun"]["name"] == "forgetful-1").then_some(suite)
        })
        .await;
        assert_eq!(kstatus(&suite), "Current");
        let (health, message) = argo_health(&suite);
        assert_eq!(health, "Degraded");
        assert!(
            message.contains("forgetful-1")
                && message.contains("answer-comes-from-the-weather-tool"),
            "{message}"
        );
        // A run that could not be done has stalled, with the reason.
        let stalled = run_json(&client, &ns, "down-1").await;
        assert_eq!(kstatus(&stalled), "Failed", "{stalled}");
        let (health, message) = argo_health(&stalled);
        assert_eq!(health, "Degraded");
        assert!(message.starts_with("SourceUnavailable"), "{message}");
        let suite = wait_for("down's last run", Duration::from_secs(30), || async {
            let suite = suite_json(&client, &ns, "down").await;
            (suite["status"]["lastRun"]["name"] == "down-1").then_some(suite)
        })
        .await;
        assert_eq!(kstatus(&suite), "Failed", "{suite}");
        assert!(argo_health(&suite).1.starts_with("SourceUnavailable"));
        // The held suite's first run finished: nothing pending any more.
        let suite = wait_for("held's last run", Duration::from_secs(30), || async {
            let suite = suite_json(&client, &ns, "held").await;
            (suite["status"]["lastRun"]["name"] == "held-1").then_some(suite)
        })
        .await;
        assert_eq!(kstatus(&suite), "Current", "{suite}");
        // Every slot of the schedule got one run, none twice.
        let mut slots: Vec<_> = runs_of(&client, &ns, "nightly")
            .await
            .into_iter()
            .map(|r| r.spec.trigger.scheduled_time.unwrap().0)
            .collect();
        slots.sort();
        let mut unique = slots.clone();
        unique.dedup();
        assert_eq!(slots.len(), unique.len(), "one run per slot: {slots:?}");
    });
}

/// Shapes a status can have on its way: none yet, conditions without
/// messages, a suite edited but not yet seen, runs written before Ready.
fn any_status_shape() {
    let suite = |status: Value| {
        json!({"apiVersion": "evals.kagent.dev/v1alpha1", "kind": "EvalSuite",
               "metadata": {"name": "s", "generation": 2}, "spec": {"suspend": true}, "status": status})
    };
    let run = |status: Value| {
        json!({"apiVersion": "evals.kagent.dev/v1alpha1", "kind": "EvalRun",
               "metadata": {"name": "r", "generation": 1}, "spec": {}, "status": status})
    };
    let cases = [
        (suite(json!({})), "Progressing"),
        (
            suite(json!({"observedGeneration": 1, "conditions": []})),
            "Progressing",
        ),
        (
            suite(
                json!({"observedGeneration": 2, "conditions": [{"type": "Ready", "status": "True"}]}),
            ),
            "Suspended",
        ),
        (
            suite(
                json!({"observedGeneration": 2, "conditions": [{"type": "Stalled", "status": "True"}]}),
            ),
            "Degraded",
        ),
        (
            suite(json!({"observedGeneration": 2, "lastRun": {"name": "s-1"},
                      "conditions": [{"type": "LastRunPassed", "status": "False"}]})),
            "Degraded",
        ),
        (run(json!({})), "Progressing"),
        (run(json!({"phase": "Pending"})), "Progressing"),
        (
            run(
                json!({"conditions": [{"type": "Reconciling", "status": "True", "reason": "Running"}]}),
            ),
            "Progressing",
        ),
        (
            run(
                json!({"conditions": [{"type": "Complete", "status": "True"}, {"type": "Passed", "status": "True"}]}),
            ),
            "Healthy",
        ),
        (
            run(json!({"conditions": [{"type": "Complete", "status": "True"}]})),
            "Degraded",
        ),
    ];
    for (object, want) in cases {
        assert_eq!(argo_health(&object).0, want, "{object}");
    }
    // Many failed cases: the first ten are named, and how many more.
    let many: Vec<String> = (0..25).map(|i| format!("case-{i}")).collect();
    let (_, message) = argo_health(&suite(
        json!({"observedGeneration": 2, "lastRun": {"name": "s-9", "failedCases": many},
        "conditions": [{"type": "LastRunPassed", "status": "False"}]}),
    ));
    assert!(
        message.contains("case-9")
            && !message.contains("case-10")
            && message.ends_with("and 15 more"),
        "{message}"
    );
}
