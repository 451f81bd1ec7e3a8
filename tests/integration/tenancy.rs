//! Tenancy and privacy on the real control plane: a suite reaches only what
//! its namespace may, and a run's status, Events, metrics and logs carry no
//! conversation text, argument value or credential.

use crate::crds::namespace;
use crate::support::operator::{
    agent, apply_suite, captured, config, event_reasons, finished, run_now, start, wait_for,
    weather_suite,
};
use crate::support::postgres::{SeedSession, TestDatabase};
use crate::support::{control_plane, runtime};
use crate::{Need, Test};
use kagent_evals::core::suite::report::Outcome;
use kagent_evals::k8s::crd::{EvalRun, EvalSuite, Phase};
use kube::Api;
use kube::api::{Patch, PatchParams};
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

pub fn tests() -> Vec<Test> {
    vec![
        Test {
            name: "tenancy::another_namespaces_agent_is_refused_without_reading",
            needs: &[Need::ControlPlane],
            run: cross_namespace_agent,
        },
        Test {
            name: "tenancy::a_cross_namespace_secret_reference_is_refused",
            needs: &[Need::ControlPlane],
            run: cross_namespace_secret,
        },
        Test {
            name: "tenancy::two_agents_sessions_stay_apart",
            needs: &[Need::ControlPlane, Need::Postgres],
            run: agents_apart,
        },
        Test {
            name: "tenancy::a_failing_run_reveals_no_conversation_or_credential",
            needs: &[Need::ControlPlane, Need::Postgres],
            run: nothing_leaks,
        },
    ]
}

/// A kagent API that counts the requests it gets and knows no sessions.
async fn counting_api() -> (String, Arc<AtomicU32>) {
    use axum::Router;
    use axum::routing::get;
    let count = Arc::new(AtomicU32::new(0));
    let counter = count.clone();
    let app = Router::new().fallback(get(move || {
        let counter = counter.clone();
        async move {
            counter.fetch_add(1, Ordering::SeqCst);
            axum::Json(json!({"error": false, "data": [], "message": "ok"}))
        }
    }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, count)
}

fn cross_namespace_agent() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let theirs = namespace(&client, "ten-agents").await;
        let ours = namespace(&client, "ten-suites").await;
        agent(&client, &theirs, "weather-assistant", "theirs").await;
        let (url, requests) = counting_api().await;
        let _replica = start(&plane, config(&ours, "replica-a", None)).await;
        let mut suite = weather_suite(&ours, "reaching", "weather-assistant");
        suite["spec"]["agentRef"]["namespace"] = json!(theirs);
        suite["spec"]["source"] = json!({"type": "kagentApi", "kagentApi": {"url": url}});
        apply_suite(&client, &ours, &suite).await;

        run_now(&client, &ours, "reaching-1", "reaching").await;
        let run = finished(&client, &ours, "reaching-1", Duration::from_secs(60)).await;
        let status = run.status.unwrap();
        assert_eq!(status.phase, Some(Phase::Error));
        let complete = status.conditions.iter().find(|c| c.type_ == "Complete").unwrap();
        assert_eq!(complete.reason, "Forbidden");
        assert!(complete.message.contains(&format!("namespace {ours} may not evaluate Agent {theirs}/weather-assistant")), "{}", complete.message);
        assert_eq!(requests.load(Ordering::SeqCst), 0, "no session was read");
        let events = wait_for("a Forbidden Event", Duration::from_secs(20), || async {
            let events = event_reasons(&client, &ours, "reaching-1").await;
            events.iter().any(|(r, _)| r == "Forbidden").then_some(events)
        })
        .await;
        assert!(!events.is_empty());

        // The Agent's owner grants access with kagent's own allowedNamespaces
        // (a list of names is not what kagent's Agent schema takes).
        let resource = kube::api::ApiResource::from_gvk(&kube::api::GroupVersionKind::gvk("kagent.dev", "v1alpha2", "Agent"));
        let agents: Api<kube::api::DynamicObject> = Api::namespaced_with(client.clone(), &theirs, &resource);
        let allow = |rule: serde_json::Value| {
            let agents = agents.clone();
            async move {
                let body = json!({"apiVersion": "kagent.dev/v1alpha2", "kind": "Agent", "metadata": {"name": "weather-assistant"},
                                  "spec": {"type": "Declarative", "allowedNamespaces": rule}});
                agents.patch("weather-assistant", &PatchParams::apply("test").force(), &Patch::Apply(&body)).await
            }
        };
        assert!(allow(json!([ours])).await.is_err(), "kagent's schema refuses a list");
        let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(client.clone());
        let label = |value: Option<&str>| {
            let namespaces = namespaces.clone();
            let ours = ours.clone();
            let body = json!({"metadata": {"labels": {"evals.example.com/team": value}}});
            async move { namespaces.patch(&ours, &PatchParams::default(), &Patch::Merge(&body)).await.unwrap() }
        };
        let selector = json!({"from": "Selector", "selector": {"matchLabels": {"evals.example.com/team": "qa"}}});
        for (run, rule, team, allowed) in [
            ("reaching-2", selector.clone(), None, false),
            ("reaching-3", selector.clone(), Some("qa"), true),
            ("reaching-4", selector, Some("ops"), false),
            ("reaching-5", json!({"from": "All"}), None, true),
            ("reaching-6", json!({"from": "Same"}), Some("qa"), false),
        ] {
            allow(rule.clone()).await.unwrap();
            label(team).await;
            let before = requests.load(Ordering::SeqCst);
            run_now(&client, &ours, run, "reaching").await;
            let status = finished(&client, &ours, run, Duration::from_secs(60)).await.status.unwrap();
            let complete = status.conditions.iter().find(|c| c.type_ == "Complete").unwrap();
            assert_eq!(complete.reason != "Forbidden", allowed, "{rule} with team {team:?}: {}", complete.message);
            assert_eq!(requests.load(Ordering::SeqCst) > before, allowed, "{rule} with team {team:?}");
        }
    });
}

fn cross_namespace_secret() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "ten-secrets").await;
        let api: Api<EvalSuite> = Api::namespaced(client.clone(), &ns);
        let mut suite = weather_suite(&ns, "borrowing", "weather-assistant");
        suite["spec"]["source"] = json!({"type": "kagentPostgres", "kagentPostgres": {"urlSecretRef": {"name": "db", "key": "url", "namespace": "kagent"}}});
        let error = api.patch("borrowing", &PatchParams::apply("test"), &Patch::Apply(&suite)).await.unwrap_err();
        let kube::Error::Api(status) = error else { panic!("{error}") };
        assert_eq!(status.code, 422);
        assert!(status.message.contains("spec.source.kagentPostgres.urlSecretRef"), "{}", status.message);
        assert!(status.message.contains("a Secret is read only in the suite's own namespace"), "{}", status.message);
    });
}

fn agents_apart() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "ten-apart").await;
        let db = TestDatabase::create("tenapart").await;
        let mine = format!("{ns}__NS__weather_assistant").replace('-', "_");
        let other = format!("{ns}__NS__other_assistant").replace('-', "_");
        let session = |id, agent_id, file| SeedSession {
            id,
            user: "u",
            agent_id,
            source: None,
            age_seconds: 60,
            deleted: false,
            events: captured(file),
        };
        db.seed_kagent(&[
            session("mine", &mine, "weather-grounded.jsonl"),
            session("theirs", &other, "weather-ungrounded.jsonl"),
            session("theirs-too", &other, "weather-ungrounded.jsonl"),
        ])
        .await;
        let _replica = start(&plane, config(&ns, "replica-a", Some(&db.url))).await;
        let mut suite = weather_suite(&ns, "mine", "weather-assistant");
        // One case names the other agent's session outright.
        suite["spec"]["cases"].as_array_mut().unwrap().push(json!({
            "name": "reach-for-theirs", "sessionId": "theirs",
            "evaluators": [{"name": "any", "type": "loops", "loops": {}}]
        }));
        apply_suite(&client, &ns, &suite).await;
        run_now(&client, &ns, "mine-1", "mine").await;
        let status = finished(&client, &ns, "mine-1", Duration::from_secs(60))
            .await
            .status
            .unwrap();
        assert_eq!(
            status.sessions_evaluated,
            Some(1),
            "only this agent's session"
        );
        let reach = status
            .results
            .iter()
            .find(|r| r.name == "reach-for-theirs")
            .unwrap();
        assert_eq!(reach.outcome, Outcome::NoSessions);
        assert_eq!(reach.sessions, 0);
        assert!(
            reach
                .message
                .as_deref()
                .unwrap()
                .contains("session theirs not found"),
            "{reach:?}"
        );
    });
}

fn nothing_leaks() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "ten-private").await;
        let db = TestDatabase::create("tenprivate").await;
        let agent_id = format!("{ns}__NS__weather_assistant").replace('-', "_");
        db.seed_kagent(&[SeedSession {
            id: "wrong-city",
            user: "u",
            agent_id: &agent_id,
            source: None,
            age_seconds: 60,
            deleted: false,
            events: captured("weather-wrong-city.jsonl"),
        }])
        .await;
        // The operator's credentials, under a password no output may show.
        let password = "Pr1vate-operator-pw";
        db.execute(&format!(
            "DO $$ BEGIN CREATE ROLE private_reader LOGIN PASSWORD '{password}'; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
             GRANT SELECT ON ALL TABLES IN SCHEMA public TO private_reader;"
        ))
        .await;
        let server = db.url.split_once('@').unwrap().1;
        let reader_url = format!("postgres://private_reader:{password}@{server}");

        let metrics_port = crate::support::free_port();
        let mut cfg = config(&ns, "replica-a", Some(&reader_url));
        cfg.metrics_address = Some(([127, 0, 0, 1], metrics_port).into());
        let _replica = start(&plane, cfg).await;
        let mut suite = weather_suite(&ns, "private", "weather-assistant");
        suite["spec"]["report"] = json!({"configMap": true});
        apply_suite(&client, &ns, &suite).await;
        run_now(&client, &ns, "private-1", "private").await;
        let run = finished(&client, &ns, "private-1", Duration::from_secs(60)).await;
        assert_eq!(run.status.as_ref().unwrap().phase, Some(Phase::Failed));
        let events = wait_for("the failure Event", Duration::from_secs(20), || async {
            let events = event_reasons(&client, &ns, "private-1").await;
            events.iter().any(|(r, _)| r == "EvalRunFailed").then_some(events)
        })
        .await;
        let suite_status = Api::<EvalSuite>::namespaced(client.clone(), &ns).get("private").await.unwrap().status;
        let run_again = Api::<EvalRun>::namespaced(client.clone(), &ns).get("private-1").await.unwrap();
        let metrics = reqwest::get(format!("http://127.0.0.1:{metrics_port}/metrics")).await.unwrap().text().await.unwrap();
        let logs_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/integration-logs");
        let logs = std::fs::read_to_string(logs_dir.join(format!("controllers-{}.log", std::process::id()))).unwrap();
        assert!(logs.contains("run=private-1"), "the run's report is in the log");
        let outputs = [
            ("run status", serde_json::to_string(&run_again.status).unwrap()),
            ("suite status", serde_json::to_string(&suite_status).unwrap()),
            ("events", format!("{events:?}")),
            ("metrics", metrics),
            ("controller logs", logs),
        ];
        // Text from the conversation: the question, the argument the agent
        // passed, the tool's output and the answer.
        for secret in ["current weather in London", "Paris", "Temperature: 73.2", "63% humidity", password, "toolu_017JDdjaJNimRyUWBwdYwAmF"] {
            for (what, text) in &outputs {
                assert!(!text.contains(secret), "{what} contains {secret:?}");
            }
        }
        // The opt-in: the full report, conversation included, in a ConfigMap.
        let config_maps: Api<k8s_openapi::api::core::v1::ConfigMap> = Api::namespaced(client.clone(), &ns);
        let report = config_maps.get("private-1-report").await.unwrap();
        let text = &report.data.unwrap()["report.json"];
        assert!(text.contains("current weather in London") && text.contains("Paris"));
        assert_eq!(report.metadata.owner_references.unwrap()[0].name, "private-1");
    });
}
