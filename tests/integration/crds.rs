//! The generated CRDs on a real API server: they install and become
//! Established, the repository's suites are accepted, invalid suites are
//! refused with a message naming the field, and status writes leave spec alone.

use crate::support::{self, control_plane, runtime};
use crate::{Need, Test};
use k8s_openapi::api::core::v1::Namespace;
use kagent_evals::core::formats::load::load_compiled;
use kagent_evals::core::suite::loaded::LoadError;
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
            name: "crds::invalid_suites_are_refused_alike_by_the_api_server_and_compile",
            needs: &[Need::ControlPlane],
            run: invalid_suites_are_refused_alike_by_the_api_server_and_compile,
        },
        Test {
            name: "crds::status_writes_do_not_touch_spec",
            needs: &[Need::ControlPlane],
            run: status_writes_do_not_touch_spec,
        },
        Test {
            name: "crds::a_run_names_its_suite_by_an_object_name_that_cannot_change",
            needs: &[Need::ControlPlane],
            run: run_suite_ref,
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
            "agents.api.kagent.dev",
            "agenttemplates.api.kagent.dev",
            "harnesses.api.kagent.dev",
            "modelconfigs.api.kagent.dev",
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
pub fn repository_suites() -> Vec<(String, Value)> {
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
    // As kubectl does by default: an unknown field is an error, not dropped.
    let params = PatchParams {
        field_validation: Some(kube::api::ValidationDirective::Strict),
        ..PatchParams::apply("kagent-evals-tests")
    };
    match api.patch("invalid", &params, &Patch::Apply(&body)).await {
        Ok(_) => panic!("accepted: {body}"),
        // Server-side apply refuses an undeclared field before validation (500).
        Err(kube::Error::Api(e)) => {
            assert!(
                e.code == 422 || e.message.contains("field not declared in schema"),
                "{e:?}"
            );
            e.message
        }
        Err(e) => panic!("{e}"),
    }
}

/// One invalid suite, the field both the API server and `compile` must
/// name, and the words both say when the rule is one of ours (a CEL rule;
/// the API server's own words for ranges, patterns and enums are its own).
struct Invalid {
    spec: Value,
    field: &'static str,
    same_words: Option<&'static str>,
}

fn invalid_suites() -> Vec<Invalid> {
    let case = |evaluator: Value| json!({"cases": [{"name": "a", "evaluators": [evaluator]}]});
    let loops = json!({"name": "e", "type": "loops", "loops": {}});
    let with = |extra: Value| {
        let mut spec = case(loops.clone());
        for (k, v) in extra.as_object().unwrap() {
            spec[k] = v.clone();
        }
        spec
    };
    let invalid = |spec: Value, field, same_words| Invalid {
        spec,
        field,
        same_words,
    };
    vec![
        invalid(json!({"schedule": "@daily"}), "spec.cases", None),
        invalid(
            case(json!({"name": "e", "type": "toolsUsed"})),
            "spec.cases[0].evaluators[0].toolsUsed",
            Some("an evaluator of type toolsUsed needs its settings in the `toolsUsed` field"),
        ),
        invalid(
            case(
                json!({"name": "e", "type": "toolsUsed", "toolsUsed": {"mode": "strict", "expected": ["x"]}}),
            ),
            "spec.cases[0].evaluators[0].toolsUsed.mode",
            Some("toolsUsed cannot be strict"),
        ),
        invalid(
            case(
                json!({"name": "e", "type": "loops", "loops": {}, "safety": {"forbidden": ["x"]}}),
            ),
            "spec.cases[0].evaluators[0]",
            Some("an evaluator has the settings field of its own type only"),
        ),
        invalid(
            case(json!({"name": "e", "type": "bogus"})),
            "spec.cases[0].evaluators[0].type",
            None,
        ),
        invalid(
            case(json!({"name": "e", "type": "safety", "safety": {}})),
            "spec.cases[0].evaluators[0].safety",
            Some("safety needs required or forbidden tools"),
        ),
        invalid(
            case(json!({"name": "e", "type": "budget", "budget": {}})),
            "spec.cases[0].evaluators[0].budget",
            Some("budget needs at least one limit"),
        ),
        invalid(
            case(json!({"name": "e", "type": "budget", "budget": {"maxCost": 1.0}})),
            "spec.cases[0].evaluators[0].budget.prices",
            Some("maxCost needs prices"),
        ),
        invalid(
            case(json!({"name": "e", "type": "budget", "budget": {"maxLatencySeconds": -5}})),
            "spec.cases[0].evaluators[0].budget.maxLatencySeconds",
            None,
        ),
        invalid(
            case(json!({"name": "e", "type": "loops", "loops": {"minRepeats": 1}})),
            "spec.cases[0].evaluators[0].loops.minRepeats",
            None,
        ),
        invalid(
            case(json!({"name": "e", "type": "responseMatch", "responseMatch": {}})),
            "spec.cases[0].evaluators[0].responseMatch",
            Some("responseMatch needs exactly one of reference or invocations"),
        ),
        invalid(
            case(json!({"name": "e", "type": "toolsUsed", "toolsUsed": {"expected": []}})),
            "spec.cases[0].evaluators[0].toolsUsed.expected",
            None,
        ),
        invalid(
            case(
                json!({"name": "e", "type": "trajectoryMatch", "trajectoryMatch": {"reference": [], "overrides": [{"tool": "t"}]}}),
            ),
            "spec.cases[0].evaluators[0].trajectoryMatch.overrides[0]",
            Some("an override sets exactly one of mode or keys"),
        ),
        invalid(
            json!({"cases": [{"name": "a", "sessionId": "s", "match": {"contains": "x"}, "evaluators": [loops.clone()]}]}),
            "spec.cases[0]",
            Some("a case selects sessions by sessionId or by match, not both"),
        ),
        invalid(
            json!({"cases": [{"name": "a", "match": {}, "evaluators": [loops.clone()]}]}),
            "spec.cases[0].match",
            Some("match needs exactly one of contains or regex"),
        ),
        invalid(
            json!({"cases": [{"name": "a", "minPassRate": 2, "evaluators": [loops.clone()]}]}),
            "spec.cases[0].minPassRate",
            None,
        ),
        invalid(
            with(json!({"schedule": "every night"})),
            "spec.schedule",
            None,
        ),
        invalid(
            with(json!({"schedule": "61 * * * *"})),
            "spec.schedule",
            Some("a cron schedule: five fields (minute 0-59, hour 0-23"),
        ),
        invalid(
            with(json!({"schedule": "0 0 * * 8"})),
            "spec.schedule",
            None,
        ),
        invalid(
            with(json!({"source": {}})),
            "spec.source",
            Some(
                "a source needs `type`, or exactly one of fixture, kagentPostgres, kagentApi and adkDatabase",
            ),
        ),
        invalid(
            with(json!({"source": {"type": "fixture"}})),
            "spec.source",
            Some("a fixture source needs `fixture`"),
        ),
        invalid(
            with(json!({"source": {"kagentApi": {}, "kagentPostgres": {}}})),
            "spec.source",
            Some("a source has the settings of one source type only"),
        ),
        invalid(
            with(json!({"source": {"type": "kagentApi", "kagentPostgres": {}}})),
            "spec.source",
            Some("`kagentPostgres` is for a source of type kagentPostgres"),
        ),
        invalid(
            with(
                json!({"source": {"kagentPostgres": {"urlSecretRef": {"name": "db", "key": "url", "namespace": "kagent"}}}}),
            ),
            "spec.source.kagentPostgres.urlSecretRef",
            Some("a Secret is read only in the suite's own namespace: remove namespace"),
        ),
        invalid(
            with(
                json!({"judge": {"apiKeySecretRef": {"name": "k", "key": "k", "namespace": "other"}}}),
            ),
            "spec.judge.apiKeySecretRef",
            Some("a Secret is read only in the suite's own namespace: remove namespace"),
        ),
        invalid(
            with(json!({"unknownSetting": true})),
            "spec.unknownSetting",
            None,
        ),
        invalid(
            with(json!({"unreadableEvents": "ignore"})),
            "spec.unreadableEvents",
            None,
        ),
        // Every name a suite gives is a Kubernetes name, so none can become
        // a path into another namespace.
        invalid(
            with(json!({"agentRef": {"name": "../team-b/k8s-agent"}})),
            "spec.agentRef.name",
            Some("must be a Kubernetes object name"),
        ),
        invalid(
            with(json!({"agentRef": {"name": "k8s-agent", "namespace": "../team-b"}})),
            "spec.agentRef.namespace",
            Some("must be a Kubernetes namespace"),
        ),
        invalid(
            with(
                json!({"source": {"kagentPostgres": {"urlSecretRef": {"name": "../../team-b/secrets/db", "key": "url"}}}}),
            ),
            "spec.source.kagentPostgres.urlSecretRef.name",
            Some("must be a Kubernetes object name"),
        ),
        invalid(
            with(json!({"source": {"kagentApi": {"tokenSecretRef": {"name": "a/b", "key": "t"}}}})),
            "spec.source.kagentApi.tokenSecretRef.name",
            Some("must be a Kubernetes object name"),
        ),
        invalid(
            with(
                json!({"judge": {"apiKeySecretRef": {"name": "../../team-b/secrets/b-openai", "key": "k"}}}),
            ),
            "spec.judge.apiKeySecretRef.name",
            Some("must be a Kubernetes object name"),
        ),
        invalid(
            with(json!({"judge": {"modelConfigRef": {"name": "%2F..%2Fteam-b"}}})),
            "spec.judge.modelConfigRef.name",
            Some("must be a Kubernetes object name"),
        ),
        // A session id goes into kagent's route, which decodes `%2F`.
        invalid(
            json!({"cases": [{"name": "a", "sessionId": "agent/team-b/k8s-agent", "evaluators": [loops.clone()]}]}),
            "spec.cases[0].sessionId",
            Some("must be an id"),
        ),
        invalid(
            json!({"cases": [{"name": "a", "sessionId": "..", "evaluators": [loops.clone()]}]}),
            "spec.cases[0].sessionId",
            Some("must be an id"),
        ),
        // Two bounds the command line once left to the schema alone.
        invalid(
            with(json!({"probes": {"enabled": true, "maxRuns": 101}})),
            "spec.probes.maxRuns",
            None,
        ),
        invalid(
            json!({"probes": {"enabled": true}, "cases": [{"name": "a", "evaluators": [loops.clone()],
                   "probe": {"conversation": vec!["turn"; 21]}}]}),
            "spec.cases[0].probe.conversation",
            None,
        ),
    ]
}

/// `compile`'s verdict on a suite, through the same loader the command line uses.
fn compiled(spec: &Value) -> Result<(), LoadError> {
    let manifest = json!({"apiVersion": "evals.kagent.dev/v1alpha1", "kind": "EvalSuite", "metadata": {"name": "invalid"}, "spec": spec});
    let text = serde_saphyr::to_string(&manifest).unwrap();
    load_compiled("invalid.yaml", &text, None).map(|_| ())
}

fn invalid_suites_are_refused_alike_by_the_api_server_and_compile() {
    let plane = control_plane();
    // `suite validate`, offline, on every one of them at once.
    let dir = tempfile::tempdir().unwrap();
    for (i, invalid) in invalid_suites().iter().enumerate() {
        let manifest = json!({"apiVersion": "evals.kagent.dev/v1alpha1", "kind": "EvalSuite", "metadata": {"name": "invalid"}, "spec": invalid.spec});
        let file = dir.path().join(format!("invalid-{i:02}.yaml"));
        std::fs::write(file, serde_saphyr::to_string(&manifest).unwrap()).unwrap();
    }
    let validated = std::process::Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args(["suite", "validate"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(validated.status.code(), Some(1));
    let said = String::from_utf8_lossy(&validated.stdout);
    for (i, invalid) in invalid_suites().iter().enumerate() {
        let line = said
            .lines()
            .find(|l| l.contains(&format!("invalid-{i:02}.yaml:")))
            .unwrap_or_else(|| panic!("suite validate accepted {}:\n{said}", invalid.spec));
        assert!(
            line.contains(&format!(": {}: ", invalid.field)),
            "suite validate names another field than {} for {}: {line}",
            invalid.field,
            invalid.spec
        );
    }
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "invalid-suites").await;
        let api: Api<EvalSuite> = Api::namespaced(client, &ns);
        for Invalid {
            spec,
            field,
            same_words,
        } in invalid_suites()
        {
            let server = refusal(&api, spec.clone()).await;
            let ours = compiled(&spec).expect_err(&format!("compile accepted {spec}"));
            // One line a person reads, never a pattern of a thousand characters.
            assert!(server.len() < 600, "{spec}: {server}");
            assert!(
                server.contains(field),
                "the API server does not name {field} for {spec}: {server}"
            );
            let our_field = ours.field.clone().unwrap_or_default();
            assert_eq!(
                our_field, field,
                "compile names another field for {spec}: {ours}"
            );
            if let Some(words) = same_words {
                assert!(
                    server.contains(words),
                    "the API server does not say {words:?} for {spec}: {server}"
                );
                assert!(
                    ours.message.contains(words),
                    "compile does not say {words:?} for {spec}: {ours}"
                );
            }
        }
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
            last_run: Some(LastRun { name: "s-1".into(), result: kagent_evals::k8s::vocabulary::RunResult::Passed, pass_rate: Some(1.0), completion_time: None, failed_cases: vec![] }),
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

fn run_suite_ref() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "run-suite-ref").await;
        let api: Api<kagent_evals::k8s::crd::EvalRun> = Api::namespaced(client, &ns);
        let run = |suite: &str| {
            json!({
                "apiVersion": "evals.kagent.dev/v1alpha1",
                "kind": "EvalRun",
                "metadata": {"name": "r"},
                "spec": {"suiteRef": {"name": suite}}
            })
        };
        for hostile in ["../team-b/k8s-agent", "a/b", "x?y", "%2F"] {
            let refused = api
                .patch(
                    "r",
                    &PatchParams::apply("user"),
                    &Patch::Apply(&run(hostile)),
                )
                .await
                .expect_err(hostile)
                .to_string();
            assert!(
                refused.contains("spec.suiteRef.name")
                    && refused.contains("must be a Kubernetes object name"),
                "{hostile}: {refused}"
            );
        }
        api.patch(
            "r",
            &PatchParams::apply("user"),
            &Patch::Apply(&run("nightly")),
        )
        .await
        .unwrap();
        let moved = api
            .patch(
                "r",
                &PatchParams::apply("user"),
                &Patch::Apply(&run("other")),
            )
            .await
            .expect_err("suiteRef is immutable")
            .to_string();
        assert!(moved.contains("suiteRef cannot change"), "{moved}");
    });
}
