//! A suite's names are Kubernetes names: tried as a tenant would, no `..`
//! or `/` from a suite reaches a URL or an API path. The API server refuses
//! such a suite at apply time (`crds::invalid_suites_...` covers each field);
//! here a suite stored before the rule existed is refused by the operator
//! before any request leaves it, as the API server's audit log and a
//! listener standing in for kagent's controller both show.

use crate::crds::namespace;
use crate::support::controlplane::{ControlPlane, binaries};
use crate::support::operator::{
    agent, apply_suite, config, finished, run_now, runs_of, start, wait_for, weather_database,
    weather_suite,
};
use crate::support::{control_plane, crds, runtime};
use crate::{Need, Test};
use axum::extract::Request;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kagent_evals::k8s::crd::{EvalSuite, Phase, TriggerType};
use kagent_evals::k8s::vocabulary::Failure;
use kube::Api;
use kube::api::{Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub fn tests() -> Vec<Test> {
    vec![
        Test {
            name: "names::a_suite_stored_with_hostile_names_is_refused_before_any_request",
            needs: &[Need::ControlPlane],
            run: stored_hostile_suite,
        },
        Test {
            name: "names::suites_with_long_names_run_each_slot_and_by_hand",
            needs: &[Need::ControlPlane, Need::Postgres],
            run: long_suite_names,
        },
    ]
}

/// The CRDs as they were before names were checked: without the name rules
/// and the name lengths.
fn without_name_rules(crd: &CustomResourceDefinition) -> CustomResourceDefinition {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                if let Some(Value::Array(rules)) = map.get_mut("x-kubernetes-validations") {
                    rules.retain(|r| !r["rule"].as_str().unwrap_or("").contains(".matches("));
                    if rules.is_empty() {
                        map.remove("x-kubernetes-validations");
                    }
                }
                map.remove("maxLength");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut value = serde_json::to_value(crd).unwrap();
    strip(&mut value);
    serde_json::from_value(value).unwrap()
}

async fn apply_crds(plane: &ControlPlane, crds: Vec<CustomResourceDefinition>) {
    let api: Api<CustomResourceDefinition> = Api::all(plane.client().await);
    for crd in crds {
        let name = crd.metadata.name.clone().unwrap();
        api.patch(
            &name,
            &PatchParams::apply("kagent-evals-tests").force(),
            &Patch::Apply(&crd),
        )
        .await
        .unwrap();
    }
    // Established, and the new schema in force for writes.
    tokio::time::sleep(Duration::from_secs(2)).await;
}

/// A stand-in for kagent's controller that records every path it is asked.
async fn recording_controller() -> (String, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let app = axum::Router::new().fallback(move |request: Request| {
        let record = record.clone();
        async move {
            record
                .lock()
                .unwrap()
                .push(request.uri().path().to_string());
            axum::Json(json!({"error": false, "data": []}))
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, seen)
}

fn hostile_suite() -> Value {
    json!({
        "apiVersion": "evals.kagent.dev/v1alpha1",
        "kind": "EvalSuite",
        "metadata": {"name": "reaching"},
        "spec": {
            "agentRef": {"name": "../team-b/k8s-agent"},
            "probes": {"enabled": true},
            "judge": {"model": "m", "apiKeySecretRef": {"name": "../../team-b/secrets/b-openai", "key": "k"}},
            "cases": [{
                "name": "applies-a-manifest",
                "probe": {"input": "apply this"},
                "evaluators": [{"name": "j", "type": "outcomeJudge", "outcomeJudge": {}}],
            }],
        },
    })
}

fn stored_hostile_suite() {
    // A control plane of its own: its CRDs change under the test.
    let plane = ControlPlane::start(&binaries().expect("built by hack/build-tools.sh"));
    runtime().block_on(async {
        let client = plane.client().await;
        let old: Vec<_> = crds::all().iter().map(without_name_rules).collect();
        apply_crds(&plane, old).await;
        let ours = namespace(&client, "team-a").await;
        let theirs = namespace(&client, "team-b").await;
        let secrets: Api<k8s_openapi::api::core::v1::Secret> =
            Api::namespaced(client.clone(), &theirs);
        let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "b-openai"}, "stringData": {"k": "sk-team-b"}});
        secrets
            .create(&PostParams::default(), &serde_json::from_value(secret).unwrap())
            .await
            .unwrap();
        let suites: Api<EvalSuite> = Api::namespaced(client.clone(), &ours);
        let params = PatchParams::apply("tenant-a");
        suites
            .patch("reaching", &params, &Patch::Apply(&hostile_suite()))
            .await
            .expect("the old schema stores it");

        apply_crds(&plane, crds::all()).await;
        let mut again = hostile_suite();
        again["metadata"]["name"] = json!("reaching-again");
        let refused = suites
            .patch("reaching-again", &params, &Patch::Apply(&again))
            .await
            .expect_err("the schema now refuses it");
        assert!(
            refused.to_string().contains("spec.agentRef.name"),
            "{refused}"
        );

        let (controller, seen) = recording_controller().await;
        let mut operator = config(&ours, "replica-a", None);
        operator.defaults.api_url = Some(controller);
        operator.defaults.judge_url = Some("http://127.0.0.1:9/v1".into());
        let replica = start(&plane, operator).await;
        run_now(&client, &ours, "reaching-1", "reaching").await;
        let run = finished(&client, &ours, "reaching-1", Duration::from_secs(60)).await;
        replica.stop().await;
        let status = run.status.unwrap();
        assert_eq!(status.phase, Some(Phase::Error));
        assert_eq!(status.failure, Some(Failure::InvalidSpec));
        assert!(
            status.message.as_deref().unwrap_or("").contains("spec.agentRef.name"),
            "{:?}",
            status.message
        );
        assert!(
            seen.lock().unwrap().is_empty(),
            "kagent's controller was asked {:?}",
            seen.lock().unwrap()
        );
        let into_team_b: Vec<String> = plane
            .audit()
            .into_iter()
            .filter(|e| e["objectRef"]["namespace"] == theirs.as_str())
            .filter(|e| e["verb"] != "create")
            .map(|e| format!("{} {}", e["verb"], e["requestURI"]))
            .collect();
        assert!(
            into_team_b.is_empty(),
            "requests into {theirs}: {into_team_b:?}"
        );
        // The API server's own informers watch Secrets; nobody else read one.
        let secret_reads: Vec<Value> = plane
            .audit()
            .into_iter()
            .filter(|e| e["objectRef"]["resource"] == "secrets" && e["verb"] != "create")
            .filter(|e| e["user"]["username"] != "system:apiserver")
            .collect();
        assert!(secret_reads.is_empty(), "Secrets read: {secret_reads:?}");
    });
}

/// Two valid 59-character suite names sharing their first 54 characters,
/// and a 253-character one: each suite gets its own run of the same slot,
/// none is refused for a label, and a run made by hand for the longest
/// completes, so `kubectl wait` returns.
fn long_suite_names() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "long-names").await;
        let db = weather_database("long_names", &ns).await;
        agent(
            &client,
            &ns,
            "weather-assistant",
            "You report the weather from the tool.",
        )
        .await;
        let replica = start(&plane, config(&ns, "replica-a", Some(&db.url))).await;
        let prefix = "n".repeat(54);
        let longest = format!("{}.{}", "l".repeat(126), "m".repeat(126));
        let suites = [format!("{prefix}-nine"), format!("{prefix}-nein"), longest];
        for name in &suites {
            let mut suite = weather_suite(&ns, name, "weather-assistant");
            suite["spec"]["schedule"] = json!("* * * * *");
            apply_suite(&client, &ns, &suite).await;
        }
        let mut slots = Vec::new();
        for name in &suites {
            let run = wait_for(
                &format!("{name}'s first scheduled run"),
                Duration::from_secs(100),
                || async {
                    runs_of(&client, &ns, name)
                        .await
                        .into_iter()
                        .find(|r| r.spec.trigger.kind == TriggerType::Schedule)
                },
            )
            .await;
            let run_name = run.metadata.name.clone().unwrap();
            assert!(run_name.len() <= 63, "{run_name}");
            let done = finished(&client, &ns, &run_name, Duration::from_secs(90)).await;
            assert_eq!(
                done.status.and_then(|s| s.phase),
                Some(Phase::Succeeded),
                "{run_name}"
            );
            let label = done.metadata.labels.unwrap_or_default()["evals.kagent.dev/suite"].clone();
            assert!(label.len() <= 63, "{label}");
            slots.push(run.spec.trigger.scheduled_time.map(|t| t.0));
        }
        // The twins ran the same slot, each its own run (a third suite
        // started a minute later may have met the next slot).
        let (nine, nein) = (
            &runs_of(&client, &ns, &suites[0]).await,
            &runs_of(&client, &ns, &suites[1]).await,
        );
        let slots_of = |runs: &[kagent_evals::k8s::crd::EvalRun]| {
            runs.iter()
                .map(|r| r.spec.trigger.scheduled_time.clone().map(|t| t.0))
                .collect::<Vec<_>>()
        };
        assert!(
            slots_of(nine).iter().any(|s| slots_of(nein).contains(s)),
            "the twins never shared a slot: {slots:?}"
        );
        let suites_api: Api<EvalSuite> = Api::namespaced(client.clone(), &ns);
        for name in &suites {
            let suite = suites_api.get(name).await.unwrap();
            let status = suite.status.unwrap_or_default();
            // The printer column's Agent, with the namespace agentRef left out.
            assert_eq!(status.agent, Some(format!("{ns}/weather-assistant")));
            let ready = status
                .conditions
                .into_iter()
                .find(|c| c.type_ == "Ready")
                .unwrap();
            assert_eq!(
                (ready.status.as_str(), ready.reason.as_str()),
                ("True", "Scheduled"),
                "{name}: {}",
                ready.message
            );
        }

        let by_hand = "longest-by-hand";
        run_now(&client, &ns, by_hand, &suites[2]).await;
        let wait = plane
            .kubectl()
            .args([
                "wait",
                "--for=condition=Complete",
                "--timeout=120s",
                "-n",
                &ns,
            ])
            .arg(format!("evalrun/{by_hand}"))
            .output();
        let done = finished(&client, &ns, by_hand, Duration::from_secs(90)).await;
        replica.stop().await;
        assert_eq!(done.status.and_then(|s| s.phase), Some(Phase::Succeeded));
        let out = wait.unwrap();
        assert!(
            out.status.success(),
            "kubectl wait: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    });
}
