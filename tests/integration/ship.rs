//! The install paths on the real control plane: the Helm chart and the
//! kustomize base pass server-side dry-run, config/ is what the chart
//! renders, the ServiceAccount may do what the controller does and nothing
//! more, and the controller works with exactly those permissions.

use crate::crds::namespace;
use crate::support::operator::{
    apply_suite, config, event_reasons, finished, run_now, start_as, wait_for, weather_database,
    weather_suite,
};
use crate::support::{control_plane, runtime, tools};
use crate::{Need, Test};
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use kagent_evals::k8s::crd::Phase;
use kube::Api;
use kube::api::{ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams, PostParams};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const PLANE_AND_TOOLS: &[Need] = &[Need::ControlPlane, Need::Tools];

pub fn tests() -> Vec<Test> {
    vec![
        Test {
            name: "ship::the_chart_passes_server_side_dry_run",
            needs: PLANE_AND_TOOLS,
            run: chart_dry_run,
        },
        Test {
            name: "ship::the_kustomize_base_passes_server_side_dry_run",
            needs: PLANE_AND_TOOLS,
            run: kustomize_dry_run,
        },
        Test {
            name: "ship::config_is_rendered_from_the_chart",
            needs: &[Need::Tools],
            run: config_matches_chart,
        },
        Test {
            name: "ship::the_values_schema_refuses_bad_values",
            needs: &[Need::Tools],
            run: values_schema,
        },
        Test {
            name: "ship::the_service_account_may_do_what_the_controller_does_and_no_more",
            needs: PLANE_AND_TOOLS,
            run: access_reviews,
        },
        Test {
            name: "ship::the_controller_works_with_exactly_the_charts_rbac",
            needs: &[Need::ControlPlane, Need::Tools, Need::Postgres],
            run: controller_with_chart_rbac,
        },
    ]
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// What the command printed, or its stderr when it failed.
fn stdout_of(command: &mut Command) -> Result<String, String> {
    let output = command.output().unwrap();
    if output.status.success() {
        Ok(String::from_utf8(output.stdout).unwrap())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

fn helm_template(release: &str, namespace: &str, sets: &[&str]) -> Result<String, String> {
    let mut command = Command::new(tools().unwrap().join("helm"));
    command
        .args(["template", release])
        .arg(root().join("charts/kagent-evals"))
        .args(["--namespace", namespace, "--kube-version", "1.37.2"]);
    for set in sets {
        command.args(["--set", set]);
    }
    stdout_of(&mut command)
}

fn documents(yaml: &str) -> Vec<Value> {
    serde_saphyr::from_multiple::<Value>(yaml)
        .unwrap()
        .into_iter()
        .filter(|d| d.is_object())
        .collect()
}

/// Server-side apply each object, as a dry run unless `for_real`.
async fn apply_all(client: &kube::Client, docs: &[Value], for_real: bool) {
    for doc in docs {
        let (group, version) = match doc["apiVersion"].as_str().unwrap().split_once('/') {
            Some((g, v)) => (g.to_string(), v.to_string()),
            None => (
                String::new(),
                doc["apiVersion"].as_str().unwrap().to_string(),
            ),
        };
        let kind = doc["kind"].as_str().unwrap();
        let (resource, capabilities) =
            kube::discovery::pinned_kind(client, &GroupVersionKind::gvk(&group, &version, kind))
                .await
                .unwrap();
        let api: Api<DynamicObject> =
            match (capabilities.scope, doc["metadata"]["namespace"].as_str()) {
                (kube::discovery::Scope::Namespaced, Some(ns)) => {
                    Api::namespaced_with(client.clone(), ns, &resource)
                }
                (kube::discovery::Scope::Namespaced, None) => {
                    Api::default_namespaced_with(client.clone(), &resource)
                }
                (kube::discovery::Scope::Cluster, _) => Api::all_with(client.clone(), &resource),
            };
        let name = doc["metadata"]["name"].as_str().unwrap();
        let mut params = PatchParams::apply("kagent-evals-tests").force();
        if !for_real {
            params = params.dry_run();
        }
        api.patch(name, &params, &Patch::Apply(doc))
            .await
            .unwrap_or_else(|e| panic!("{kind} {name} refused: {e}"));
    }
}

fn chart_dry_run() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        for ns in ["ship-chart", "ship-team-a", "ship-team-b"] {
            namespace(&client, ns).await;
        }
        let every_option = [
            "kagent.database.existingSecret=kagent-db",
            "kagent.database.schema=kagent",
            "kagent.api.url=http://kagent-controller.kagent:8083",
            "kagent.source=kagent-postgres",
            "kagent.api.tokenSecret=kagent-token",
            "secretNamespaces={ship-team-a,ship-team-b}",
            "allowCrossNamespace={ship-team-a=kagent}",
            "watchNamespace=ship-team-a",
            "fullReports=true",
            "metrics.serviceMonitor.enabled=true",
            "metrics.prometheusRule.enabled=true",
            "grafanaDashboard.enabled=true",
            "replicas=3",
            "kagent.judge.url=https://judge.example/v1",
            "kagent.judge.model=judge-model",
            "kagent.judge.apiKeySecret=judge-key",
            "allowedSourceHosts={*.svc.cluster.local}",
            "allowedJudgeHosts={judge.example,*.openai.azure.com}",
        ];
        for sets in [&[][..], &every_option[..]] {
            let docs = documents(&helm_template("kev", "ship-chart", sets).unwrap());
            let kinds: Vec<&str> = docs.iter().map(|d| d["kind"].as_str().unwrap()).collect();
            assert!(
                kinds.contains(&"Deployment") && kinds.contains(&"ClusterRole"),
                "{kinds:?}"
            );
            apply_all(&client, &docs, false).await;
        }
        let docs = documents(&helm_template("kev", "ship-chart", &every_option).unwrap());
        let deployment = docs.iter().find(|d| d["kind"] == "Deployment").unwrap();
        let pod = &deployment["spec"]["template"]["spec"];
        let container = &pod["containers"][0];
        assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
        assert_eq!(
            pod["securityContext"]["seccompProfile"]["type"],
            "RuntimeDefault"
        );
        assert_eq!(container["securityContext"]["readOnlyRootFilesystem"], true);
        assert_eq!(
            container["securityContext"]["capabilities"]["drop"][0],
            "ALL"
        );
        assert_eq!(container["livenessProbe"]["httpGet"]["path"], "/healthz");
        assert_eq!(container["readinessProbe"]["httpGet"]["path"], "/readyz");
        let args: Vec<&str> = container["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        for arg in [
            "--database-url-file=/var/run/kagent-evals/database/url",
            "--source=kagent-postgres",
            "--database-schema=kagent",
            "--judge-api-key-file=/var/run/kagent-evals/judge/key",
            "--allowed-judge-hosts=judge.example,*.openai.azure.com",
        ] {
            assert!(args.contains(&arg), "{arg} not in {args:?}");
        }
        assert!(
            !args.iter().any(|a| a.starts_with("--api-user")),
            "the chart replaces no suite's user unless told to: {args:?}"
        );
        // helm's default Kubernetes version is enough to render the chart.
        let mut plain = Command::new(tools().unwrap().join("helm"));
        plain
            .args(["template", "kev"])
            .arg(root().join("charts/kagent-evals"));
        stdout_of(&mut plain).expect("helm template without --kube-version");
        assert!(
            !serde_json::to_string(deployment)
                .unwrap()
                .contains("postgres://"),
            "no URL in the pod spec"
        );
        let rule = docs.iter().find(|d| d["kind"] == "PrometheusRule").unwrap();
        let alerts: Vec<&str> = rule["spec"]["groups"][0]["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["alert"].as_str().unwrap())
            .collect();
        assert_eq!(alerts, ["KagentEvalSuiteFailing", "KagentEvalSuiteStale"]);
        let dashboard = docs.iter().find(|d| d["kind"] == "ConfigMap").unwrap();
        assert_eq!(dashboard["metadata"]["labels"]["grafana_dashboard"], "1");
        let shipped = dashboard["data"]["kagent-evals.json"].as_str().unwrap();
        let path = root().join("charts/kagent-evals/dashboards/kagent-evals.json");
        let file = std::fs::read_to_string(path).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(shipped).unwrap(),
            serde_json::from_str::<Value>(&file).unwrap(),
            "the ConfigMap holds the chart's dashboard"
        );
    });
}

fn kustomize_dry_run() {
    let plane = control_plane();
    let built = stdout_of(
        Command::new(tools().unwrap().join("kustomize"))
            .arg("build")
            .arg(root().join("config/default")),
    )
    .unwrap_or_else(|stderr| panic!("{stderr}"));
    let docs = documents(&built);
    runtime().block_on(async {
        let client = plane.client().await;
        // The base creates its namespace; dry-running the rest needs it to exist.
        namespace(&client, "kagent-evals").await;
        apply_all(&client, &docs, false).await;
    });
    let kinds: Vec<&str> = docs.iter().map(|d| d["kind"].as_str().unwrap()).collect();
    for kind in [
        "CustomResourceDefinition",
        "ServiceAccount",
        "ClusterRole",
        "Role",
        "Deployment",
        "Service",
    ] {
        assert!(kinds.contains(&kind), "{kind} missing from {kinds:?}");
    }
}

fn config_matches_chart() {
    let dir = tempfile::tempdir().unwrap();
    stdout_of(
        Command::new(root().join("hack/render-config.sh"))
            .arg(dir.path())
            .env("HELM", tools().unwrap().join("helm")),
    )
    .unwrap_or_else(|stderr| panic!("{stderr}"));
    for file in [
        "base/kagent-evals.yaml",
        "crd/evalsuites.evals.kagent.dev.yaml",
        "crd/evalruns.evals.kagent.dev.yaml",
        "grafana/kagent-evals-dashboard.json",
    ] {
        let fresh = std::fs::read_to_string(dir.path().join(file)).unwrap();
        let committed = std::fs::read_to_string(root().join("config").join(file)).unwrap();
        assert!(
            fresh == committed,
            "config/{file} is not what the chart renders: run hack/render-config.sh"
        );
    }
}

fn values_schema() {
    for (set, complaint) in [
        ("replicas=0", "minimum: got 0, want 1"),
        ("bogus=1", "additional properties 'bogus' not allowed"),
        ("kagent.api.url=kagent:8083", "/kagent/api/url"),
        ("runs.timeout=forever", "/runs/timeout"),
        ("kagent.source=kagent-database", "/kagent/source"),
        ("kagent.database.schema=Kagent", "/kagent/database/schema"),
        ("allowCrossNamespace={nonsense}", "/allowCrossNamespace/0"),
    ] {
        let error = helm_template("kev", "ns", &[set]).unwrap_err();
        assert!(error.contains(complaint), "{set}: {error}");
    }
    // Two sources and no word on which: the chart says so, rather than one
    // of them being chosen in silence.
    let both = [
        "kagent.database.existingSecret=kagent-db",
        "kagent.api.url=http://kagent-controller.kagent:8083",
    ];
    let error = helm_template("kev", "ns", &both).unwrap_err();
    assert!(error.contains("choose where suites"), "{error}");
}

const RELEASE_NAMESPACE: &str = "ship-rbac";

/// The chart's RBAC objects of release `release`, whose service account
/// has the release's name. Tests that run at once use releases of their
/// own, so that one's install does not change another's grants.
async fn install_rbac(client: &kube::Client, release: &str, sets: &[&str]) {
    for ns in [RELEASE_NAMESPACE, "ship-tenant", "ship-secrets"] {
        namespace(client, ns).await;
    }
    let docs: Vec<Value> = documents(&helm_template(release, RELEASE_NAMESPACE, sets).unwrap())
        .into_iter()
        .filter(|d| {
            matches!(
                d["kind"].as_str(),
                Some(
                    "ServiceAccount"
                        | "ClusterRole"
                        | "ClusterRoleBinding"
                        | "Role"
                        | "RoleBinding"
                )
            )
        })
        .collect();
    apply_all(client, &docs, true).await;
}

async fn allowed(
    client: &kube::Client,
    release: &str,
    verb: &str,
    group: &str,
    resource: &str,
    namespace: Option<&str>,
) -> bool {
    let (resource, subresource) = match resource.split_once('/') {
        Some((r, s)) => (r, Some(s.to_string())),
        None => (resource, None),
    };
    let review = SubjectAccessReview {
        spec: SubjectAccessReviewSpec {
            user: Some(format!(
                "system:serviceaccount:{RELEASE_NAMESPACE}:{release}"
            )),
            groups: Some(vec![
                "system:serviceaccounts".into(),
                format!("system:serviceaccounts:{RELEASE_NAMESPACE}"),
            ]),
            resource_attributes: Some(ResourceAttributes {
                verb: Some(verb.into()),
                group: Some(group.into()),
                resource: Some(resource.into()),
                subresource,
                namespace: namespace.map(String::from),
                ..ResourceAttributes::default()
            }),
            ..SubjectAccessReviewSpec::default()
        },
        ..SubjectAccessReview::default()
    };
    let api: Api<SubjectAccessReview> = Api::all(client.clone());
    api.create(&PostParams::default(), &review)
        .await
        .unwrap()
        .status
        .unwrap()
        .allowed
}

fn access_reviews() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let release = "kev-reviewed";
        install_rbac(&client, release, &["secretNamespaces={ship-secrets}"]).await;
        let evals = "evals.kagent.dev";
        let tenant = Some("ship-tenant");
        for (verb, group, resource, ns) in [
            ("list", evals, "evalsuites", None),
            ("watch", evals, "evalsuites", None),
            ("watch", evals, "evalruns", None),
            ("create", evals, "evalruns", tenant),
            ("patch", evals, "evalruns", tenant),
            ("delete", evals, "evalruns", tenant),
            ("patch", evals, "evalruns/status", tenant),
            ("patch", evals, "evalsuites/status", tenant),
            ("get", "kagent.dev", "agents", tenant),
            ("watch", "kagent.dev", "agents", None),
            ("get", "kagent.dev", "modelconfigs", tenant),
            ("get", "api.kagent.dev", "agents", tenant),
            ("get", "api.kagent.dev", "agenttemplates", tenant),
            ("get", "api.kagent.dev", "harnesses", tenant),
            ("get", "api.kagent.dev", "modelconfigs", tenant),
            ("get", "", "namespaces", None),
            ("create", "events.k8s.io", "events", tenant),
            (
                "update",
                "coordination.k8s.io",
                "leases",
                Some(RELEASE_NAMESPACE),
            ),
            ("get", "", "secrets", Some("ship-secrets")),
        ] {
            assert!(
                allowed(&client, release, verb, group, resource, ns).await,
                "may not {verb} {group}/{resource} in {ns:?}"
            );
        }
        for (verb, group, resource, ns) in [
            ("get", "", "secrets", Some("default")),
            ("get", "", "secrets", tenant),
            ("list", "", "secrets", None),
            ("update", "kagent.dev", "agents", tenant),
            ("patch", "kagent.dev", "agents", tenant),
            ("delete", "kagent.dev", "agents", tenant),
            ("update", "kagent.dev", "modelconfigs", tenant),
            ("list", "kagent.dev", "modelconfigs", None),
            ("patch", "api.kagent.dev", "agents", tenant),
            ("update", "api.kagent.dev", "agenttemplates", tenant),
            ("list", "api.kagent.dev", "harnesses", None),
            ("delete", "api.kagent.dev", "modelconfigs", tenant),
            ("get", "api.kagent.dev", "remotemcpservers", tenant),
            ("delete", evals, "evalsuites", tenant),
            ("patch", evals, "evalsuites", tenant),
            ("update", "coordination.k8s.io", "leases", tenant),
            ("delete", "", "pods", tenant),
            ("create", "", "configmaps", tenant),
        ] {
            assert!(
                !allowed(&client, release, verb, group, resource, ns).await,
                "may {verb} {group}/{resource} in {ns:?}"
            );
        }
        install_rbac(&client, release, &["fullReports=true"]).await;
        assert!(
            allowed(&client, release, "create", "", "configmaps", tenant).await,
            "fullReports grants ConfigMap writes"
        );
    });
}

fn controller_with_chart_rbac() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let release = "kev";
        install_rbac(&client, release, &[]).await;
        let db = weather_database("shiprbac", "ship-tenant").await;
        let mut cfg = config("ship-tenant", "replica-sa", Some(&db.url));
        cfg.lease_namespace = RELEASE_NAMESPACE.into();
        let service_account = format!("system:serviceaccount:{RELEASE_NAMESPACE}:{release}");
        let _replica = start_as(&plane, cfg, Some(service_account)).await;
        apply_suite(
            &client,
            "ship-tenant",
            &weather_suite("ship-tenant", "weather", "weather-assistant"),
        )
        .await;
        run_now(&client, "ship-tenant", "as-sa", "weather").await;
        let run = finished(&client, "ship-tenant", "as-sa", Duration::from_secs(60)).await;
        assert_eq!(
            run.status.unwrap().phase,
            Some(Phase::Succeeded),
            "the chart's RBAC is enough to run a suite"
        );

        // A judge whose key Secret the chart gives no access to: an Error
        // with a Warning Event that says so in a line, not a dumped response.
        let mut judged = weather_suite("ship-tenant", "judged", "weather-assistant");
        judged["spec"]["judge"] = serde_json::json!({"url": "https://judge.example/v1", "model": "m", "apiKeySecretRef": {"name": "judge-key", "key": "key"}});
        judged["spec"]["cases"] = serde_json::json!([{"name": "goal", "evaluators": [{"name": "o", "type": "outcomeJudge", "outcomeJudge": {}}]}]);
        apply_suite(&client, "ship-tenant", &judged).await;
        run_now(&client, "ship-tenant", "judged-now", "judged").await;
        let status = finished(&client, "ship-tenant", "judged-now", Duration::from_secs(60)).await.status.unwrap();
        assert_eq!(status.phase, Some(Phase::Error));
        let message = status.message.unwrap();
        assert!(message.starts_with("spec.judge.apiKeySecretRef: Secret ship-tenant/judge-key: forbidden"), "{message}");
        assert!(!message.contains("ErrorResponse") && !message.contains("Status {"), "{message}");
        let events = wait_for("a JudgeUnavailable Event", Duration::from_secs(20), || async {
            let events = event_reasons(&client, "ship-tenant", "judged-now").await;
            events.iter().any(|(r, _)| r == "JudgeUnavailable").then_some(events)
        })
        .await;
        assert!(events.iter().any(|(r, n)| r == "JudgeUnavailable" && n.contains("forbidden")), "{events:?}");

        // The samples run with the chart's defaults: no Secret, no judge.
        for (file, mut doc) in crate::crds::repository_suites() {
            if !file.starts_with("config/samples") {
                continue;
            }
            let name = doc["metadata"]["name"].as_str().unwrap().to_string();
            doc["metadata"]["namespace"] = serde_json::json!("ship-tenant");
            doc["spec"]["agentRef"].as_object_mut().unwrap().remove("namespace");
            apply_suite(&client, "ship-tenant", &doc).await;
            let run = format!("{name}-sample");
            run_now(&client, "ship-tenant", &run, &name).await;
            let status = finished(&client, "ship-tenant", &run, Duration::from_secs(60)).await.status.unwrap();
            assert_ne!(status.phase, Some(Phase::Error), "{file}: {status:?}");
        }

        let resource =
            ApiResource::from_gvk(&GroupVersionKind::gvk("coordination.k8s.io", "v1", "Lease"));
        let leases: Api<DynamicObject> =
            Api::namespaced_with(client.clone(), RELEASE_NAMESPACE, &resource);
        let lease = leases.get("kagent-evals-controller").await.unwrap();
        assert_eq!(lease.data["spec"]["holderIdentity"], "replica-sa");
    });
}
