//! The generated CRDs on a real API server: they install and become
//! Established, the repository's suites are accepted, invalid suites are
//! refused with a message naming the field, and status writes leave spec alone.

use crate::support::{self, control_plane, runtime};
use crate::{Need, Test};
use k8s_openapi::api::core::v1::Namespace;
use kagent_evals::k8s::crd::{EvalSuite, EvalSuiteStatus, LastRun};
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use std::path::Path;

pub fn tests() -> Vec<Test> {
    vec![
        Test {
            name: "crds::install_with_server_side_apply_and_become_established",
            needs: &[Need::ControlPlane],
            run: install_and_establish,
        },
        Test {
            name: "crds::the_repository_suites_are_accepted",
            needs: &[Need::ControlPlane],
            run: repository_suites_are_accepted,
        },
        Test {
            name: "crds::invalid_suites_are_refused_naming_the_field",
            needs: &[Need::ControlPlane],
            run: invalid_suites_are_refused,
        },
        Test {
            name: "crds::status_writes_do_not_touch_spec",
            needs: &[Need::ControlPlane],
            run: status_writes_do_not_touch_spec,
        },
    ]
}

/// A namespace of the test's own.
pub async fn namespace(client: &kube::Client, name: &str) -> String {
    let api: Api<Namespace> = Api::all(client.clone());
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
    match api.create(&PostParams::default(), &ns).await {
        Ok(_) => {}
        Err(kube::Error::Api(e)) if e.code == 409 => {}
        Err(e) => panic!("create namespace {name}: {e}"),
    }
    name.to_string()
}

fn install_and_establish() {
    let plane = control_plane();
    let installed = runtime().block_on(support::crds::install(&plane)).unwrap();
    let names: Vec<_> = installed
        .iter()
        .map(|c| c.metadata.name.clone().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "evalruns.evals.kagent.dev",
            "evalsuites.evals.kagent.dev",
            "agents.kagent.dev",
            "modelconfigs.kagent.dev",
            "servicemonitors.monitoring.coreos.com",
            "prometheusrules.monitoring.coreos.com"
        ]
    );
    for crd in &installed {
        let conditions = crd.status.as_ref().unwrap().conditions.as_ref().unwrap();
        assert!(
            conditions
                .iter()
                .any(|c| c.type_ == "NamesAccepted" && c.status == "True")
        );
        // A structural-schema problem would show as NonStructuralSchema.
        assert!(
            !conditions.iter().any(|c| c.type_ == "NonStructuralSchema"),
            "{conditions:?}"
        );
    }
}

/// Every EvalSuite manifest committed under examples/ and config/samples/.
fn repository_suites() -> Vec<(String, Value)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for dir in ["examples/weather", "config/samples"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "yaml") {
                let text = std::fs::read_to_string(&path).unwrap();
                for doc in serde_saphyr::from_multiple::<Value>(&text).unwrap() {
                    if doc["kind"] == "EvalSuite" {
                        found.push((path.strip_prefix(root).unwrap().display().to_string(), doc));
                    }
                }
            }
        }
    }
    found
}

fn repository_suites_are_accepted() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "accepted-suites").await;
        let suites = repository_suites();
        assert!(!suites.is_empty());
        let api: Api<EvalSuite> = Api::namespaced(client, &ns);
        for (file, mut doc) in suites {
            let name = doc["metadata"]["name"].as_str().unwrap().to_string();
            // Samples name the namespace they belong in; this test has its own.
            doc["metadata"].as_object_mut().unwrap().remove("namespace");
            let suite: EvalSuite =
                serde_json::from_value(doc).unwrap_or_else(|e| panic!("{file}: {e}"));
            api.patch(
                &name,
                &PatchParams::apply("kagent-evals-tests"),
                &Patch::Apply(&suite),
            )
            .await
            .unwrap_or_else(|e| panic!("{file} refused: {e}"));
        }
    });
}

/// Apply a raw EvalSuite and return the API server's error message.
async fn refusal(api: &Api<EvalSuite>, spec: Value) -> String {
    let body = json!({
        "apiVersion": "evals.kagent.dev/v1alpha1",
        "kind": "EvalSuite",
        "metadata": {"name": "invalid"},
        "spec": spec
    });
    match api
        .patch(
            "invalid",
            &PatchParams::apply("kagent-evals-tests"),
            &Patch::Apply(&body),
        )
        .await
    {
        Ok(_) => panic!("accepted: {body}"),
        Err(kube::Error::Api(e)) => {
            assert_eq!(e.code, 422, "{e:?}");
            e.message
        }
        Err(e) => panic!("{e}"),
    }
}

fn invalid_suites_are_refused() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "invalid-suites").await;
        let api: Api<EvalSuite> = Api::namespaced(client, &ns);
        let loops = json!({"name": "e", "type": "loops", "loops": {}});

        let message = refusal(&api, json!({"schedule": "@daily"})).await;
        assert!(message.contains("spec.cases: Required value"), "{message}");

        let message = refusal(&api, json!({"cases": [{"name": "a", "evaluators": [{"name": "e", "type": "toolsUsed"}]}]})).await;
        assert!(message.contains("spec.cases[0].evaluators[0].toolsUsed"), "{message}");
        assert!(message.contains("an evaluator of type toolsUsed needs its settings in the `toolsUsed` field"), "{message}");

        let message = refusal(&api, json!({"schedule": "every night", "cases": [{"name": "a", "evaluators": [loops]}]})).await;
        assert!(message.contains("spec.schedule: Invalid value: \"every night\""), "{message}");

        let message = refusal(
            &api,
            json!({"cases": [{"name": "a", "evaluators": [
                {"name": "e", "type": "toolsUsed", "toolsUsed": {"mode": "strict", "expected": ["x"]}}
            ]}]}),
        )
        .await;
        assert!(message.contains("spec.cases[0].evaluators[0].toolsUsed"), "{message}");
        assert!(message.contains("toolsUsed cannot be strict"), "{message}");

        let message = refusal(
            &api,
            json!({"cases": [{"name": "a", "evaluators": [
                {"name": "e", "type": "loops", "loops": {}, "safety": {"forbidden": ["x"]}}
            ]}]}),
        )
        .await;
        assert!(message.contains("the settings field of its own type only"), "{message}");
    });
}

fn status_writes_do_not_touch_spec() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "status-subresource").await;
        let api: Api<EvalSuite> = Api::namespaced(client, &ns);
        let suite = json!({
            "apiVersion": "evals.kagent.dev/v1alpha1",
            "kind": "EvalSuite",
            "metadata": {"name": "s"},
            "spec": {"cases": [{"name": "a", "evaluators": [{"name": "e", "type": "loops", "loops": {}}]}]}
        });
        let created = api.patch("s", &PatchParams::apply("user"), &Patch::Apply(&suite)).await.unwrap();
        let generation = created.metadata.generation;

        let mut smuggled = suite.clone();
        smuggled["spec"]["schedule"] = json!("@hourly");
        smuggled["status"] = serde_json::to_value(EvalSuiteStatus {
            last_run: Some(LastRun { name: "s-1".into(), result: kagent_evals::k8s::vocabulary::RunResult::Passed, pass_rate: Some(1.0), completion_time: None }),
            ..Default::default()
        })
        .unwrap();
        let after = api.patch_status("s", &PatchParams::apply("controller").force(), &Patch::Apply(&smuggled)).await.unwrap();
        assert_eq!(after.status.unwrap().last_run.unwrap().name, "s-1");
        assert_eq!(after.spec.suite.schedule, None, "spec ignored by the status subresource");
        assert_eq!(after.metadata.generation, generation);

        let mut plain = suite.clone();
        plain["status"] = json!({"observedGeneration": 7});
        let after = api.patch("s", &PatchParams::apply("user"), &Patch::Apply(&plain)).await.unwrap();
        assert_eq!(after.status.unwrap().observed_generation, None, "status ignored by the main resource");
    });
}
