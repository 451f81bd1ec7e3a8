//! The operator as a platform team meets it, on the real control plane:
//! `kubectl wait` on a hand-made run, a run that errors executed once,
//! Events of their own per run, a regression blamed on what changed, a
//! schedule the API server cannot check reported, and a kagent API that
//! is not there an error even where no sessions would do.

use crate::crds::namespace;
use crate::support::operator::{
    agent, apply_suite, captured, config, event_reasons, finished, run_now, start, wait_for,
    weather_database, weather_suite,
};
use crate::support::postgres::{SeedSession, TestDatabase};
use crate::support::{control_plane, free_port, runtime};
use crate::{Need, Test};
use k8s_openapi::api::events::v1::Event;
use kagent_evals::k8s::crd::{EvalRun, EvalSuite, Phase};
use kube::Api;
use kube::api::{ListParams, Patch, PatchParams};
use serde_json::json;
use std::time::Duration;

pub fn tests() -> Vec<Test> {
    vec![
        Test {
            name: "journey::kubectl_wait_sees_a_hand_made_runs_conditions",
            needs: &[Need::ControlPlane, Need::Postgres],
            run: kubectl_wait,
        },
        Test {
            name: "journey::a_run_that_errors_is_executed_once",
            needs: &[Need::ControlPlane],
            run: errored_once,
        },
        Test {
            name: "journey::each_run_has_events_of_its_own_on_the_suite",
            needs: &[Need::ControlPlane, Need::Postgres],
            run: events_per_run,
        },
        Test {
            name: "journey::a_regression_names_what_changed",
            needs: &[Need::ControlPlane, Need::Postgres],
            run: regression_causes,
        },
        Test {
            name: "journey::a_dearer_nightly_fails_says_why_and_moves_the_cost_metric",
            needs: &[Need::ControlPlane, Need::Postgres],
            run: dearer_nightly,
        },
        Test {
            name: "journey::a_suites_select_chooses_the_cases_its_runs_score",
            needs: &[Need::ControlPlane, Need::Postgres],
            run: selected_cases,
        },
        Test {
            name: "journey::a_time_zone_the_api_server_cannot_check_is_reported",
            needs: &[Need::ControlPlane],
            run: invalid_time_zone,
        },
        Test {
            name: "journey::a_kagent_api_that_is_not_there_errors_even_where_no_sessions_would_pass",
            needs: &[Need::ControlPlane],
            run: missing_api,
        },
    ]
}

/// One suite file, a fast gate and a full nightly: `spec.select` leaves
/// cases out, and the run says so.
fn selected_cases() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "journey-select").await;
        let db = weather_database("journeyselect", &ns).await;
        let _replica = start(&plane, config(&ns, "replica-a", Some(&db.url))).await;
        let mut suite = weather_suite(&ns, "weather", "weather-assistant");
        suite["spec"]["select"] = json!({"cases": ["uses-no-tool-*", "looks-up-*"]});
        apply_suite(&client, &ns, &suite).await;
        run_now(&client, &ns, "selected", "weather").await;
        let status = finished(&client, &ns, "selected", Duration::from_secs(60))
            .await
            .status
            .unwrap();
        assert_eq!(status.phase, Some(Phase::Succeeded), "{status:?}");
        assert_eq!(
            status.selection.as_deref(),
            Some("selected 2 of 3 cases (cases uses-no-tool-*, looks-up-*)")
        );
        let names: Vec<&str> = status.results.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "uses-no-tool-outside-its-budget",
                "looks-up-the-city-the-user-asked-about"
            ]
        );

        // Without it, every case.
        suite["spec"].as_object_mut().unwrap().remove("select");
        apply_suite(&client, &ns, &suite).await;
        run_now(&client, &ns, "everything", "weather").await;
        let status = finished(&client, &ns, "everything", Duration::from_secs(60))
            .await
            .status
            .unwrap();
        assert_eq!(status.results.len(), 3, "{status:?}");
        assert_eq!(status.selection, None);
    });
}

/// `kubectl wait --for=condition=Complete` counts a condition only when its
/// observedGeneration is the object's generation.
fn kubectl_wait() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "journey-wait").await;
        let db = crate::support::operator::weather_database("journeywait", &ns).await;
        let _replica = start(&plane, config(&ns, "replica-a", Some(&db.url))).await;
        apply_suite(
            &client,
            &ns,
            &weather_suite(&ns, "weather", "weather-assistant"),
        )
        .await;
        run_now(&client, &ns, "weather-now", "weather").await;
        let run = finished(&client, &ns, "weather-now", Duration::from_secs(60)).await;
        let generation = run.metadata.generation;
        assert_eq!(
            generation,
            Some(2),
            "adopting the run recorded the suite in its spec"
        );
        let status = run.status.unwrap();
        for type_ in ["Complete", "Passed"] {
            let condition = status.conditions.iter().find(|c| c.type_ == type_).unwrap();
            assert_eq!(
                condition.observed_generation, generation,
                "{type_}: {condition:?}"
            );
            assert_eq!(condition.status, "True", "{type_}");
        }
    });
}

fn errored_once() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "journey-once").await;
        let closed = free_port();
        let metrics_port = free_port();
        let mut cfg = config(&ns, "replica-a", Some(&format!("postgres://kagent:pw@127.0.0.1:{closed}/kagent")));
        cfg.metrics_address = Some(([127, 0, 0, 1], metrics_port).into());
        let _replica = start(&plane, cfg).await;
        apply_suite(&client, &ns, &weather_suite(&ns, "down", "weather-assistant")).await;
        // Made as the schedule makes its runs.
        let runs: Api<EvalRun> = Api::namespaced(client.clone(), &ns);
        let run = json!({
            "apiVersion": "evals.kagent.dev/v1alpha1", "kind": "EvalRun", "metadata": {"name": "down-1"},
            "spec": {"suiteRef": {"name": "down"}, "trigger": {"type": "schedule"}}
        });
        runs.patch("down-1", &PatchParams::apply("test"), &Patch::Apply(&run)).await.unwrap();
        let started = std::time::Instant::now();
        let status = finished(&client, &ns, "down-1", Duration::from_secs(60)).await.status.unwrap();
        assert_eq!(status.phase, Some(Phase::Error));
        assert!(started.elapsed() < Duration::from_secs(15), "a refused connection is said at once, not after the pool's timeout");
        assert!(status.message.as_deref().unwrap().contains("refused"), "{status:?}");
        // Give a second execution every chance to happen.
        tokio::time::sleep(Duration::from_secs(5)).await;
        let status = runs.get("down-1").await.unwrap().status.unwrap();
        assert_eq!(status.attempts, Some(1), "{status:?}");
        let events = event_reasons(&client, &ns, "down-1").await;
        assert!(!events.iter().any(|(r, _)| r == "EvalRunResumed"), "{events:?}");
        assert_eq!(events.iter().filter(|(r, _)| r == "SourceUnavailable").count(), 1, "{events:?}");
        let metrics = reqwest::get(format!("http://127.0.0.1:{metrics_port}/metrics")).await.unwrap().text().await.unwrap();
        let line = format!("kagent_evals_runs_total{{namespace=\"{ns}\",suite=\"down\",result=\"Error\"}} 1");
        assert!(metrics.contains(&line), "missing {line} in\n{metrics}");
    });
}

/// The Events about a suite, with the run each names as related.
async fn suite_events(
    client: &kube::Client,
    ns: &str,
    suite: &str,
) -> Vec<(String, String, Option<String>)> {
    let api: Api<Event> = Api::namespaced(client.clone(), ns);
    api.list(&ListParams::default())
        .await
        .unwrap()
        .into_iter()
        .filter(|e| {
            e.regarding.as_ref().and_then(|r| r.kind.as_deref()) == Some("EvalSuite")
                && e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some(suite)
        })
        .map(|e| {
            (
                e.reason.unwrap_or_default(),
                e.note.unwrap_or_default(),
                e.related.and_then(|r| r.name),
            )
        })
        .collect()
}

fn events_per_run() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "journey-events").await;
        let db = crate::support::operator::weather_database("journeyevents", &ns).await;
        let _replica = start(&plane, config(&ns, "replica-a", Some(&db.url))).await;
        apply_suite(
            &client,
            &ns,
            &weather_suite(&ns, "weather", "weather-assistant"),
        )
        .await;
        for run in ["weather-1", "weather-2", "weather-3"] {
            run_now(&client, &ns, run, "weather").await;
            finished(&client, &ns, run, Duration::from_secs(60)).await;
        }
        let events = wait_for(
            "an Event per run on the suite",
            Duration::from_secs(20),
            || async {
                let events = suite_events(&client, &ns, "weather").await;
                (events
                    .iter()
                    .filter(|(r, _, _)| r == "EvalRunPassed")
                    .count()
                    == 3)
                    .then_some(events)
            },
        )
        .await;
        let mut related: Vec<String> = events
            .iter()
            .filter(|(r, _, _)| r == "EvalRunPassed")
            .filter_map(|(_, _, run)| run.clone())
            .collect();
        related.sort();
        assert_eq!(related, ["weather-1", "weather-2", "weather-3"]);
    });
}

fn regression_causes() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "journey-regress").await;
        let agent_id = format!("{ns}__NS__weather_assistant").replace('-', "_");
        let seed = |id, file| SeedSession { id, user: "u", agent_id: &agent_id, source: None, age_seconds: 60, deleted: false, events: captured(file) };
        let db = TestDatabase::create("journeyregress").await;
        db.seed_kagent(&[seed("grounded", "weather-grounded.jsonl"), seed("spare", "weather-wrong-city.jsonl")]).await;
        // The same session id in another database, holding the wrong city.
        let other = TestDatabase::create("journeyregress2").await;
        other.seed_kagent(&[seed("grounded", "weather-wrong-city.jsonl")]).await;
        // Swap the two sessions' events: the data changes, nothing else.
        let swap = "UPDATE event SET session_id = CASE session_id WHEN 'grounded' THEN 'spare' ELSE 'grounded' END WHERE session_id IN ('grounded', 'spare')";
        agent(&client, &ns, "weather-assistant", "v1").await;
        let replica = start(&plane, config(&ns, "replica-a", Some(&db.url))).await;
        let mut suite = weather_suite(&ns, "weather", "weather-assistant");
        suite["spec"]["cases"] = json!([{
            "name": "london", "sessionId": "grounded",
            "evaluators": [suite["spec"]["cases"][2]["evaluators"][0].clone()]
        }]);
        apply_suite(&client, &ns, &suite).await;
        let mut n = 0;
        let mut run = || {
            n += 1;
            format!("weather-{n}")
        };
        let regression = |name: String| {
            let client = client.clone();
            let ns = ns.clone();
            async move {
                run_now(&client, &ns, &name, "weather").await;
                let status = finished(&client, &ns, &name, Duration::from_secs(60)).await.status.unwrap();
                assert_eq!(status.phase, Some(Phase::Failed), "{name}: {status:?}");
                wait_for("RegressionDetected", Duration::from_secs(20), || async {
                    event_reasons(&client, &ns, &name).await.into_iter().find(|(r, _)| r == "RegressionDetected").map(|(_, note)| note)
                })
                .await
            }
        };
        let passes = |name: String| {
            let client = client.clone();
            let ns = ns.clone();
            async move {
                run_now(&client, &ns, &name, "weather").await;
                let status = finished(&client, &ns, &name, Duration::from_secs(60)).await.status.unwrap();
                assert_eq!(status.phase, Some(Phase::Succeeded), "{name}: {status:?}");
            }
        };

        passes(run()).await;
        db.execute(swap).await;
        let note = regression(run()).await;
        assert!(note.contains("nothing known changed") && note.contains("behave differently"), "{note}");

        db.execute(swap).await;
        passes(run()).await;
        agent(&client, &ns, "weather-assistant", "v2").await;
        db.execute(swap).await;
        let note = regression(run()).await;
        assert!(note.contains("changed since: the Agent (generation 1"), "{note}");
        assert!(!note.contains("the suite (") && !note.contains("the source ("), "{note}");

        db.execute(swap).await;
        passes(run()).await;
        suite["spec"]["defaults"] = json!({"denyTools": ["unused_tool"]});
        apply_suite(&client, &ns, &suite).await;
        db.execute(swap).await;
        let note = regression(run()).await;
        assert!(note.contains("changed since: the suite (generation 1 -> 2)"), "{note}");

        db.execute(swap).await;
        passes(run()).await;
        // The operator restarted with another default source.
        replica.stop().await;
        let _replica = start(&plane, config(&ns, "replica-b", Some(&other.url))).await;
        let note = regression(run()).await;
        assert!(note.contains("changed since: the source (the operator's kagent 0.10 PostgreSQL"), "{note}");
        assert!(!note.contains("the suite (") && !note.contains("the Agent ("), "{note}");
    });
}

fn invalid_time_zone() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "journey-zone").await;
        let _replica = start(&plane, config(&ns, "replica-a", None)).await;
        let mut suite = weather_suite(&ns, "mars", "weather-assistant");
        suite["spec"]["schedule"] = json!("0 2 * * *");
        suite["spec"]["timeZone"] = json!("Mars/Olympus_Mons");
        apply_suite(&client, &ns, &suite).await;
        let suites: Api<EvalSuite> = Api::namespaced(client.clone(), &ns);
        let ready = wait_for(
            "Ready=False InvalidSchedule",
            // Generous: with every integration test at once on two cores, a
            // new replica takes a while to lead.
            Duration::from_secs(90),
            || async {
                let status = suites.get("mars").await.unwrap().status?;
                status
                    .conditions
                    .into_iter()
                    .find(|c| c.type_ == "Ready" && c.reason == "InvalidSchedule")
            },
        )
        .await;
        assert_eq!(ready.status, "False");
        assert!(
            ready.message.contains("Mars/Olympus_Mons"),
            "{}",
            ready.message
        );
        let events = wait_for(
            "an InvalidSchedule Event",
            Duration::from_secs(20),
            || async {
                let events = suite_events(&client, &ns, "mars").await;
                events
                    .iter()
                    .any(|(r, _, _)| r == "InvalidSchedule")
                    .then_some(events)
            },
        )
        .await;
        assert_eq!(
            events
                .iter()
                .filter(|(r, _, _)| r == "InvalidSchedule")
                .count(),
            1
        );
    });
}

fn missing_api() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "journey-noapi").await;
        // Something answers, but not kagent's API: every path is a plain 404.
        let app = axum::Router::new();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        let _replica = start(&plane, config(&ns, "replica-a", None)).await;
        let mut suite = weather_suite(&ns, "lenient", "weather-assistant");
        suite["spec"]["source"] = json!({"kagentApi": {"url": url}});
        for case in suite["spec"]["cases"].as_array_mut().unwrap() {
            case["allowNoSessions"] = json!(true);
        }
        apply_suite(&client, &ns, &suite).await;
        run_now(&client, &ns, "lenient-1", "lenient").await;
        let status = finished(&client, &ns, "lenient-1", Duration::from_secs(60))
            .await
            .status
            .unwrap();
        assert_eq!(status.phase, Some(Phase::Error), "{status:?}");
        let complete = status
            .conditions
            .iter()
            .find(|c| c.type_ == "Complete")
            .unwrap();
        assert_eq!(complete.reason, "SourceUnavailable");
        assert!(
            complete
                .message
                .contains("answered 404 without kagent's JSON error"),
            "{}",
            complete.message
        );
    });
}

/// A nightly whose mean cost per session rose past the suite's gate
/// against its last Succeeded run: `Failed`, with an `EfficiencyRegressed`
/// Event carrying the numbers and what changed, and the cost metric moved.
fn dearer_nightly() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "journey-dearer").await;
        let db = weather_database("journeydearer", &ns).await;
        let metrics_port = free_port();
        let mut cfg = config(&ns, "replica-a", Some(&db.url));
        cfg.metrics_address = Some(([127, 0, 0, 1], metrics_port).into());
        let _replica = start(&plane, cfg).await;
        let mut suite = weather_suite(&ns, "nightly", "weather-assistant");
        suite["spec"]["cases"] = json!([suite["spec"]["cases"][0].clone()]);
        suite["spec"]["gates"] = json!({"maxIncrease": {"cost": 0.02}});
        let priced = |suite: &mut serde_json::Value, scale: f64| {
            suite["spec"]["prices"] =
                json!([{"promptPerMillionTokens": 0.4 * scale, "completionPerMillionTokens": 1.6 * scale}]);
        };
        priced(&mut suite, 1.0);
        apply_suite(&client, &ns, &suite).await;
        let mean_cost = || async {
            let metrics = reqwest::get(format!("http://127.0.0.1:{metrics_port}/metrics"))
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            let prefix = format!("kagent_evals_suite_last_run_mean_cost{{namespace=\"{ns}\",suite=\"nightly\"}} ");
            metrics
                .lines()
                .find_map(|l| l.strip_prefix(prefix.as_str()))
                .map(|v| v.parse::<f64>().unwrap())
        };

        run_now(&client, &ns, "nightly-1", "nightly").await;
        let first = finished(&client, &ns, "nightly-1", Duration::from_secs(60)).await.status.unwrap();
        assert_eq!(first.phase, Some(Phase::Succeeded), "{first:?}");
        let cost = first.efficiency.as_ref().unwrap().cost.mean.unwrap();
        let gate = first.gate.unwrap();
        assert_eq!(
            gate.skipped,
            ["maxIncrease.cost not evaluated: no earlier Succeeded run of the suite that recorded cost, latency and tokens"]
        );
        let before = wait_for("the mean cost metric", Duration::from_secs(30), || async {
            mean_cost().await.filter(|v| (v - cost).abs() < 1e-12)
        })
        .await;

        // The prices rise by 10%: the same sessions cost more.
        priced(&mut suite, 1.1);
        apply_suite(&client, &ns, &suite).await;
        run_now(&client, &ns, "nightly-2", "nightly").await;
        let second = finished(&client, &ns, "nightly-2", Duration::from_secs(60)).await.status.unwrap();
        assert_eq!(second.phase, Some(Phase::Failed), "{second:?}");
        assert_eq!(second.cases.unwrap().failed, 0, "the cases still pass");
        let comparison = second.baseline.unwrap();
        assert_eq!(comparison.baseline, "EvalRun nightly-1");
        let note = wait_for("EfficiencyRegressed", Duration::from_secs(20), || async {
            event_reasons(&client, &ns, "nightly-2")
                .await
                .into_iter()
                .find(|(r, _)| r == "EfficiencyRegressed")
                .map(|(_, note)| note)
        })
        .await;
        assert!(note.starts_with("mean cost per session rose 10.0% ("), "{note}");
        assert!(note.contains("against nightly-1; changed since: the suite (generation 1 -> 2)"), "{note}");
        let after = wait_for("the mean cost metric to move", Duration::from_secs(30), || async {
            mean_cost().await.filter(|v| *v > before)
        })
        .await;
        assert!((after / before - 1.1).abs() < 1e-9, "{before} -> {after}");
    });
}
