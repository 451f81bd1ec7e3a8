//! The operator on the real control plane and the real PostgreSQL: manual
//! runs that pass and fail, a schedule with two replicas, Forbid and
//! Replace, history, a source outage and its recovery, a killed leader.

use crate::crds::namespace;
use crate::support::operator::{
    Partition, agent, apply_suite, config, event_reasons, finished, held_api, run_now, runs_of,
    start, start_behind, wait_for, weather_database, weather_suite,
};
use crate::support::postgres::{SeedSession, TestDatabase};
use crate::support::{control_plane, runtime};
use crate::{Need, Test};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Secret;
use kagent_evals::core::suite::report::Outcome;
use kagent_evals::k8s::conditions::is_true;
use kagent_evals::k8s::crd::{EvalRun, EvalSuite, Phase};
use kagent_evals::k8s::vocabulary::{ConditionType, RunResult};
use kube::Api;
use kube::api::{Patch, PatchParams};
use serde_json::json;
use std::time::Duration;

const BOTH: &[Need] = &[Need::ControlPlane, Need::Postgres];

pub fn tests() -> Vec<Test> {
    vec![
        Test {
            name: "operator::a_manual_run_passes_and_another_fails",
            needs: BOTH,
            run: manual_runs,
        },
        Test {
            name: "operator::a_schedule_fires_once_per_slot_with_two_replicas",
            needs: BOTH,
            run: schedule_with_two_replicas,
        },
        Test {
            name: "operator::forbid_keeps_one_run_and_starts_the_slot_after_it",
            needs: &[Need::ControlPlane],
            run: forbid,
        },
        Test {
            name: "operator::replace_stops_the_active_run_for_the_new_one",
            needs: &[Need::ControlPlane],
            run: replace,
        },
        Test {
            name: "operator::history_keeps_the_newest_runs",
            needs: BOTH,
            run: history,
        },
        Test {
            name: "operator::a_source_outage_errors_and_the_next_run_recovers",
            needs: BOTH,
            run: outage_and_recovery,
        },
        Test {
            name: "operator::a_standby_resumes_the_run_of_a_killed_leader",
            needs: &[Need::ControlPlane],
            run: killed_leader,
        },
        Test {
            name: "operator::a_langgraph_agent_is_scored_from_its_task_records",
            needs: BOTH,
            run: langgraph_agent,
        },
        Test {
            name: "operator::watches_recover_after_an_apiserver_restart",
            needs: BOTH,
            run: apiserver_restart,
        },
        Test {
            name: "operator::a_replica_parted_from_the_api_server_writes_nothing_past_its_lease",
            needs: &[Need::ControlPlane],
            run: no_write_past_the_lease,
        },
    ]
}

fn manual_runs() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "op-manual").await;
        let db = weather_database("opmanual", &ns).await;
        agent(&client, &ns, "weather-assistant", "You report the weather from the tool.").await;
        let metrics_port = crate::support::free_port();
        let mut with_metrics = config(&ns, "replica-a", Some(&db.url));
        with_metrics.metrics_address = Some(([127, 0, 0, 1], metrics_port).into());
        let _replica = start(&plane, with_metrics).await;
        apply_suite(&client, &ns, &weather_suite(&ns, "weather", "weather-assistant")).await;
        apply_suite(&client, &ns, &weather_suite(&ns, "forgetful", "forgetful-assistant")).await;

        run_now(&client, &ns, "weather-now", "weather").await;
        let run = finished(&client, &ns, "weather-now", Duration::from_secs(60)).await;
        let status = run.status.clone().unwrap();
        assert_eq!(status.phase, Some(Phase::Succeeded), "{status:?}");
        assert_eq!(status.summary.as_deref(), Some("3/3"));
        assert_eq!(status.sessions_evaluated, Some(1));
        assert_eq!(status.pass_rate, Some(1.0));
        assert!(is_true(&status.conditions, ConditionType::Complete) && is_true(&status.conditions, ConditionType::Passed));
        let agent_seen = status.agent.unwrap();
        assert_eq!(agent_seen.generation, Some(1));
        assert_eq!(agent_seen.fingerprint.as_deref().map(str::len), Some(16));
        // A run made by hand is adopted: suite snapshot, owner and labels.
        assert!(run.spec.suite.is_some());
        assert_eq!(run.metadata.owner_references.unwrap()[0].name, "weather");
        assert_eq!(run.metadata.labels.unwrap()["evals.kagent.dev/trigger"], "manual");
        let events = wait_for("EvalRunPassed", Duration::from_secs(20), || async {
            let events = event_reasons(&client, &ns, "weather-now").await;
            events.iter().any(|(r, _)| r == "EvalRunPassed").then_some(events)
        })
        .await;
        assert!(events.iter().any(|(_, note)| note.contains("3/3 cases passed over 1 session(s)")), "{events:?}");

        run_now(&client, &ns, "forgetful-now", "forgetful").await;
        let run = finished(&client, &ns, "forgetful-now", Duration::from_secs(60)).await;
        let status = run.status.unwrap();
        assert_eq!(status.phase, Some(Phase::Failed));
        assert_eq!(status.summary.as_deref(), Some("1/3"));
        assert!(is_true(&status.conditions, ConditionType::Complete) && !is_true(&status.conditions, ConditionType::Passed));
        assert_eq!(status.results[0].outcome, Outcome::Failed, "failing cases first");
        assert_eq!(status.results.last().unwrap().outcome, Outcome::Passed);
        let events = wait_for("EvalRunFailed", Duration::from_secs(20), || async {
            let events = event_reasons(&client, &ns, "forgetful-now").await;
            events.iter().find(|(r, _)| r == "EvalRunFailed").cloned()
        })
        .await;
        assert!(events.1.starts_with("1/3 cases passed; case answer-comes-from-the-weather-tool Failed"), "{events:?}");
        assert!(!events.1.contains("London"), "no conversation text in Events");

        let suites: Api<EvalSuite> = Api::namespaced(client.clone(), &ns);
        let suite = wait_for("the suite's last run", Duration::from_secs(30), || async {
            let suite = suites.get("forgetful").await.unwrap();
            suite.status.clone().filter(|s| s.last_run.is_some()).map(|_| suite)
        })
        .await;
        let status = suite.status.unwrap();
        assert_eq!(status.last_run.unwrap().result, RunResult::Failed);
        assert!(!is_true(&status.conditions, ConditionType::LastRunPassed));
        assert!(is_true(&status.conditions, ConditionType::Ready));

        let http = reqwest::Client::new();
        let base = format!("http://127.0.0.1:{metrics_port}");
        for path in ["/healthz", "/readyz"] {
            assert_eq!(http.get(format!("{base}{path}")).send().await.unwrap().status(), 200, "{path}");
        }
        let metrics = http.get(format!("{base}/metrics")).send().await.unwrap().text().await.unwrap();
        for line in [
            format!("kagent_evals_runs_total{{namespace=\"{ns}\",suite=\"weather\",result=\"Passed\"}} 1"),
            format!("kagent_evals_runs_total{{namespace=\"{ns}\",suite=\"forgetful\",result=\"Failed\"}} 1"),
            format!("kagent_evals_suite_last_run_passed{{namespace=\"{ns}\",suite=\"forgetful\"}} 0"),
            format!("kagent_evals_case_passed{{namespace=\"{ns}\",suite=\"forgetful\",case=\"uses-no-tool-outside-its-budget\"}} 1"),
            "kagent_evals_leader 1".to_string(),
        ] {
            assert!(metrics.contains(&line), "missing {line} in\n{metrics}");
        }
        assert!(metrics.contains("kagent_evals_run_duration_seconds_count{"), "{metrics}");
    });
}

/// An agent on kagent's LangGraph runtime writes no events, only A2A tasks.
fn langgraph_agent() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "op-langgraph").await;
        let db = TestDatabase::create("oplanggraph").await;
        let agent_id = format!("{}__NS__lg_agent", ns.replace('-', "_"));
        db.seed_kagent(&[SeedSession {
            id: "lg-session",
            user: "admin@kagent.dev",
            agent_id: &agent_id,
            source: None,
            age_seconds: 60,
            deleted: false,
            events: Vec::new(),
        }])
        .await;
        let tasks = crate::sources::task_rows("langgraph/tool-call");
        db.seed_tasks("lg-session", &[(&tasks[0].0, &tasks[0].1, Some("admin@kagent.dev"))]).await;
        agent(&client, &ns, "lg-agent", "You report the weather from the tool.").await;
        let _replica = start(&plane, config(&ns, "replica-a", Some(&db.url))).await;
        let suite = json!({
            "apiVersion": "evals.kagent.dev/v1alpha1",
            "kind": "EvalSuite",
            "metadata": {"name": "langgraph", "namespace": ns},
            "spec": {
                "agentRef": {"name": "lg-agent"},
                "cases": [{"name": "looks-the-weather-up", "evaluators": [
                    {"name": "tool", "type": "toolsUsed", "toolsUsed": {"expected": ["get_weather"]}}
                ]}]
            }
        });
        apply_suite(&client, &ns, &suite).await;
        run_now(&client, &ns, "langgraph-now", "langgraph").await;
        let run = finished(&client, &ns, "langgraph-now", Duration::from_secs(60)).await;
        let status = run.status.unwrap();
        assert_eq!(status.phase, Some(Phase::Succeeded), "{status:?}");
        assert_eq!(status.summary.as_deref(), Some("1/1"));
        assert_eq!(status.sessions_evaluated, Some(1));
    });
}

fn apiserver_restart() {
    use crate::support::controlplane::{ControlPlane, binaries};
    // A control plane of this test's own, so restarting it disturbs no other test.
    let mut plane = ControlPlane::start(&binaries().unwrap());
    runtime()
        .block_on(crate::support::crds::install(&plane))
        .unwrap();
    let ns = "op-restart";
    let (db, replica) = runtime().block_on(async {
        let client = plane.client().await;
        namespace(&client, ns).await;
        let db = weather_database("oprestart", ns).await;
        let replica = start(&plane, config(ns, "replica-a", Some(&db.url))).await;
        apply_suite(
            &client,
            ns,
            &weather_suite(ns, "weather", "weather-assistant"),
        )
        .await;
        run_now(&client, ns, "before", "weather").await;
        assert_eq!(
            finished(&client, ns, "before", Duration::from_secs(60))
                .await
                .status
                .unwrap()
                .phase,
            Some(Phase::Succeeded)
        );
        (db, replica)
    });
    plane.restart_apiserver();
    runtime().block_on(async {
        let client = plane.client().await;
        run_now(&client, ns, "after", "weather").await;
        let run = finished(&client, ns, "after", Duration::from_secs(120)).await;
        assert_eq!(
            run.status.unwrap().phase,
            Some(Phase::Succeeded),
            "the controller's watches came back"
        );
        replica.stop().await;
    });
    drop(db);
}

fn schedule_with_two_replicas() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "op-schedule").await;
        let db = weather_database("opschedule", &ns).await;
        let _a = start(&plane, config(&ns, "replica-a", Some(&db.url))).await;
        let _b = start(&plane, config(&ns, "replica-b", Some(&db.url))).await;
        let mut suite = weather_suite(&ns, "nightly", "weather-assistant");
        suite["spec"]["schedule"] = json!("* * * * *");
        apply_suite(&client, &ns, &suite).await;
        let first = wait_for(
            "the first scheduled run",
            Duration::from_secs(75),
            || async { runs_of(&client, &ns, "nightly").await.into_iter().next() },
        )
        .await;
        let name = first.metadata.name.clone().unwrap();
        let slot = first.spec.trigger.scheduled_time.clone().unwrap().0;
        assert_eq!(name, format!("nightly-{}", slot.as_second() / 60));
        finished(&client, &ns, &name, Duration::from_secs(60)).await;
        tokio::time::sleep(Duration::from_secs(3)).await;
        let same_slot: Vec<_> = runs_of(&client, &ns, "nightly")
            .await
            .into_iter()
            .filter(|r| r.spec.trigger.scheduled_time.as_ref().map(|t| t.0) == Some(slot))
            .collect();
        assert_eq!(same_slot.len(), 1, "one run for the slot");
        let suites: Api<EvalSuite> = Api::namespaced(client.clone(), &ns);
        let status = suites.get("nightly").await.unwrap().status.unwrap();
        assert!(status.last_schedule_time.map(|t| t.0) >= Some(slot));
        let holder = lease_holder(&client, &ns).await;
        assert!(holder == "replica-a" || holder == "replica-b");
    });
}

/// Who holds the controllers' leader Lease in `ns`.
async fn lease_holder(client: &kube::Client, ns: &str) -> String {
    let leases: Api<Lease> = Api::namespaced(client.clone(), ns);
    leases
        .get("kagent-evals-controller")
        .await
        .unwrap()
        .spec
        .unwrap()
        .holder_identity
        .unwrap()
}

/// A suite reading the held kagent API every minute.
async fn held_suite(client: &kube::Client, ns: &str, name: &str, policy: &str, api: &str) {
    let mut suite = weather_suite(ns, name, "weather-assistant");
    suite["spec"]["schedule"] = json!("* * * * *");
    suite["spec"]["concurrencyPolicy"] = json!(policy);
    suite["spec"]["source"] = json!({"type": "kagentApi", "kagentApi": {"url": api}});
    suite["spec"]["failedRunsHistoryLimit"] = json!(10);
    apply_suite(client, ns, &suite).await;
}

/// The suite's first run to reach Running (its source holds it there).
async fn running_run(client: &kube::Client, ns: &str, suite: &str) -> EvalRun {
    wait_for("a running run", Duration::from_secs(75), || async {
        runs_of(client, ns, suite)
            .await
            .into_iter()
            .find(|r| r.status.as_ref().and_then(|s| s.phase) == Some(Phase::Running))
    })
    .await
}

fn forbid() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "op-forbid").await;
        let held = held_api::start().await;
        let _replica = start(&plane, config(&ns, "replica-a", None)).await;
        held_suite(&client, &ns, "held", "Forbid", &held.url).await;
        let first = running_run(&client, &ns, "held").await;
        let first_slot = first.spec.trigger.scheduled_time.clone().unwrap().0;
        // Past the next slot, the first run is still the only one.
        let next_slot = first_slot + jiff::SignedDuration::from_secs(60);
        tokio::time::sleep(Duration::from_secs_f64(
            next_slot
                .duration_since(jiff::Timestamp::now())
                .as_secs_f64()
                .max(0.0)
                + 8.0,
        ))
        .await;
        let runs = runs_of(&client, &ns, "held").await;
        assert_eq!(runs.len(), 1, "Forbid starts nothing while a run is active");
        let suites: Api<EvalSuite> = Api::namespaced(client.clone(), &ns);
        let active = suites.get("held").await.unwrap().status.unwrap().active;
        assert_eq!(active.len(), 1);
        held.release();
        finished(
            &client,
            &ns,
            first.metadata.name.as_deref().unwrap(),
            Duration::from_secs(60),
        )
        .await;
        // The slot that waited runs as soon as the active one is done.
        let later = wait_for(
            "the waiting slot's run",
            Duration::from_secs(30),
            || async {
                runs_of(&client, &ns, "held").await.into_iter().find(|r| {
                    r.spec.trigger.scheduled_time.as_ref().map(|t| t.0) > Some(first_slot)
                })
            },
        )
        .await;
        assert!(later.spec.trigger.scheduled_time.unwrap().0 >= next_slot);
    });
}

fn replace() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "op-replace").await;
        let held = held_api::start().await;
        let _replica = start(&plane, config(&ns, "replica-a", None)).await;
        held_suite(&client, &ns, "held", "Replace", &held.url).await;
        let first = running_run(&client, &ns, "held").await;
        let first_name = first.metadata.name.clone().unwrap();
        let second = wait_for("the replacing run", Duration::from_secs(80), || async {
            let runs = runs_of(&client, &ns, "held").await;
            let replaced = !runs
                .iter()
                .any(|r| r.metadata.name.as_deref() == Some(first_name.as_str()));
            runs.into_iter()
                .find(|r| r.metadata.name.as_deref() != Some(first_name.as_str()))
                .filter(|_| replaced)
        })
        .await;
        assert!(
            second.spec.trigger.scheduled_time.unwrap().0
                > first.spec.trigger.scheduled_time.unwrap().0
        );
        let suite_events = event_reasons(&client, &ns, "held").await;
        assert!(
            suite_events
                .iter()
                .any(|(r, n)| r == "EvalRunReplaced" && n.contains(&first_name)),
            "{suite_events:?}"
        );
        held.release();
    });
}

fn history() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "op-history").await;
        let db = weather_database("ophistory", &ns).await;
        let _replica = start(&plane, config(&ns, "replica-a", Some(&db.url))).await;
        let mut suite = weather_suite(&ns, "kept", "weather-assistant");
        suite["spec"]["successfulRunsHistoryLimit"] = json!(2);
        suite["spec"]["failedRunsHistoryLimit"] = json!(1);
        apply_suite(&client, &ns, &suite).await;
        // A run made by hand is its maker's to delete; the limits keep the
        // schedule's runs (made here as the schedule makes them) in check.
        run_now(&client, &ns, "by-hand", "kept").await;
        finished(&client, &ns, "by-hand", Duration::from_secs(60)).await;
        let runs: Api<EvalRun> = Api::namespaced(client.clone(), &ns);
        for i in 1..=4 {
            let name = format!("kept-{i}");
            let run = json!({
                "apiVersion": "evals.kagent.dev/v1alpha1", "kind": "EvalRun", "metadata": {"name": name},
                "spec": {"suiteRef": {"name": "kept"}, "trigger": {"type": "schedule"}}
            });
            runs.patch(&name, &PatchParams::apply("test"), &Patch::Apply(&run)).await.unwrap();
            finished(&client, &ns, &name, Duration::from_secs(60)).await;
        }
        let left = wait_for("pruning", Duration::from_secs(30), || async {
            let runs = runs_of(&client, &ns, "kept").await;
            (runs.len() == 3).then_some(runs)
        })
        .await;
        let names: Vec<_> = left
            .iter()
            .map(|r| r.metadata.name.clone().unwrap())
            .collect();
        assert_eq!(names, ["by-hand", "kept-3", "kept-4"]);
        let suites: Api<EvalSuite> = Api::namespaced(client.clone(), &ns);
        // Pruning deletes before the same reconcile writes the status.
        let health = wait_for("health over five runs", Duration::from_secs(30), || async {
            suites
                .get("kept")
                .await
                .unwrap()
                .status?
                .health
                .filter(|h| h.runs == 5)
        })
        .await;
        assert_eq!((health.pass_rate, health.flip_rate), (1.0, 0.0));
    });
}

fn outage_and_recovery() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "op-outage").await;
        let db = weather_database("opoutage", &ns).await;
        let closed = crate::support::free_port();
        let secrets: Api<Secret> = Api::namespaced(client.clone(), &ns);
        let set_url = |url: String| {
            let secrets = secrets.clone();
            async move {
                let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "kagent-db"}, "stringData": {"url": url}});
                secrets.patch("kagent-db", &PatchParams::apply("test").force(), &Patch::Apply(&secret)).await.unwrap();
            }
        };
        set_url(format!("postgres://kagent:hunter2-secret@127.0.0.1:{closed}/kagent")).await;
        let _replica = start(&plane, config(&ns, "replica-a", None)).await;
        let mut suite = weather_suite(&ns, "remote", "weather-assistant");
        suite["spec"]["source"] = json!({"type": "kagentPostgres", "kagentPostgres": {"urlSecretRef": {"name": "kagent-db", "key": "url"}}});
        apply_suite(&client, &ns, &suite).await;

        run_now(&client, &ns, "remote-1", "remote").await;
        let run = finished(&client, &ns, "remote-1", Duration::from_secs(90)).await;
        let status = run.status.unwrap();
        assert_eq!(status.phase, Some(Phase::Error));
        let message = status.message.unwrap();
        assert!(message.contains(&format!("kagent PostgreSQL at 127.0.0.1:{closed}/kagent is unavailable")), "{message}");
        assert!(!message.contains("hunter2"));
        let events = wait_for("SourceUnavailable", Duration::from_secs(20), || async {
            let events = event_reasons(&client, &ns, "remote-1").await;
            events.iter().any(|(r, _)| r == "SourceUnavailable").then_some(events)
        })
        .await;
        assert!(events.iter().all(|(_, n)| !n.contains("hunter2")));
        let suites: Api<EvalSuite> = Api::namespaced(client.clone(), &ns);
        let ready = wait_for("Ready=False SourceUnavailable", Duration::from_secs(30), || async {
            let status = suites.get("remote").await.unwrap().status?;
            status.conditions.into_iter().find(|c| c.type_ == "Ready" && c.reason == "SourceUnavailable")
        })
        .await;
        assert_eq!(ready.status, "False");

        set_url(db.url.clone()).await;
        run_now(&client, &ns, "remote-2", "remote").await;
        let run = finished(&client, &ns, "remote-2", Duration::from_secs(60)).await;
        assert_eq!(run.status.unwrap().phase, Some(Phase::Succeeded));
        wait_for("Ready again", Duration::from_secs(30), || async {
            let status = suites.get("remote").await.unwrap().status?;
            is_true(&status.conditions, ConditionType::Ready).then_some(())
        })
        .await;
        assert_eq!(runs_of(&client, &ns, "remote").await.len(), 2, "nothing ran twice");
    });
}

fn killed_leader() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "op-failover").await;
        let held = held_api::start().await;
        let a = start(&plane, config(&ns, "replica-a", None)).await;
        let b = start(&plane, config(&ns, "replica-b", None)).await;
        let mut suite = weather_suite(&ns, "held", "weather-assistant");
        suite["spec"]["source"] = json!({"type": "kagentApi", "kagentApi": {"url": held.url}});
        apply_suite(&client, &ns, &suite).await;
        run_now(&client, &ns, "held-1", "held").await;
        let api: Api<kagent_evals::k8s::crd::EvalRun> = Api::namespaced(client.clone(), &ns);
        wait_for("the run to be Running", Duration::from_secs(30), || async {
            let run = api.get("held-1").await.unwrap();
            (run.status.and_then(|s| s.phase) == Some(Phase::Running)).then_some(())
        })
        .await;
        let holder = lease_holder(&client, &ns).await;
        let standby = if holder == a.identity {
            a.kill();
            b
        } else {
            b.kill();
            a
        };
        let resumed = wait_for("the standby to resume", Duration::from_secs(40), || async {
            let run = api.get("held-1").await.unwrap();
            (run.status.as_ref().and_then(|s| s.attempts) == Some(2)).then_some(run)
        })
        .await;
        assert_eq!(resumed.status.unwrap().phase, Some(Phase::Running));
        held.release();
        let run = finished(&client, &ns, "held-1", Duration::from_secs(60)).await;
        assert_ne!(run.status.as_ref().unwrap().phase, Some(Phase::Running));
        let events = event_reasons(&client, &ns, "held-1").await;
        assert!(
            events.iter().any(|(r, _)| r == "EvalRunResumed"),
            "{events:?}"
        );
        let holder = lease_holder(&client, &ns).await;
        assert_eq!(holder, standby.identity);
        standby.stop().await;
    });
}

/// Two replicas; the leader is parted from kube-apiserver (its renewals
/// fail, the standby takes the Lease once it expires), then reaches it
/// again while runs are being made. The audit log, which names each
/// replica by its user agent, shows that no replica wrote anything at a
/// time its last successful renewal could not cover.
fn no_write_past_the_lease() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "op-lease").await;
        let mut suite = weather_suite(&ns, "down", "weather-assistant");
        let closed = format!("http://127.0.0.1:{}", crate::support::free_port());
        suite["spec"]["source"] = json!({"type": "kagentApi", "kagentApi": {"url": closed}});
        apply_suite(&client, &ns, &suite).await;
        let partition = Partition::to(&plane).await;
        let leader_config = config(&ns, "parted-leader", None);
        let lease_seconds = leader_config.lease_seconds;
        let leader = start_behind(&plane, leader_config, &partition).await;
        wait_for(
            "the first replica to lead",
            Duration::from_secs(30),
            || async {
                (lease_holder_opt(&client, &ns).await.as_deref() == Some("parted-leader"))
                    .then_some(())
            },
        )
        .await;
        let standby = start(&plane, config(&ns, "standby", None)).await;
        run_now(&client, &ns, "before", "down").await;
        finished(&client, &ns, "before", Duration::from_secs(60)).await;

        partition.cut();
        wait_for(
            "the standby to take the Lease",
            Duration::from_secs(60),
            || async {
                (lease_holder_opt(&client, &ns).await.as_deref() == Some("standby")).then_some(())
            },
        )
        .await;
        partition.restore();
        let runs: Vec<String> = (0..8).map(|i| format!("after-{i}")).collect();
        for run in &runs {
            run_now(&client, &ns, run, "down").await;
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        for run in &runs {
            finished(&client, &ns, run, Duration::from_secs(90)).await;
        }
        leader.stop().await;
        standby.stop().await;

        let served: Vec<serde_json::Value> = plane
            .audit()
            .into_iter()
            .filter(|e| e["stage"] == "ResponseComplete")
            .filter(|e| {
                e["responseStatus"]["code"]
                    .as_i64()
                    .is_some_and(|c| c < 300)
            })
            .collect();
        let at = |e: &serde_json::Value| -> jiff::Timestamp {
            e["requestReceivedTimestamp"]
                .as_str()
                .unwrap()
                .parse()
                .unwrap()
        };
        let writes = ["create", "update", "patch", "delete"];
        let lease = jiff::SignedDuration::from_secs(lease_seconds as i64);
        let mut checked = 0;
        for replica in ["parted-leader", "standby"] {
            let by = format!("({replica})");
            let mine: Vec<&serde_json::Value> = served
                .iter()
                .filter(|e| e["userAgent"].as_str().is_some_and(|a| a.contains(&by)))
                .filter(|e| writes.contains(&e["verb"].as_str().unwrap_or("")))
                .collect();
            let renewals: Vec<jiff::Timestamp> = mine
                .iter()
                .filter(|e| e["objectRef"]["resource"] == "leases")
                .map(|e| at(e))
                .collect();
            for write in mine
                .iter()
                .filter(|e| e["objectRef"]["resource"] != "leases")
            {
                let t = at(write);
                let renewed = renewals.iter().filter(|r| **r <= t).max();
                assert!(
                    renewed.is_some_and(|r| t.duration_since(*r) < lease),
                    "{replica} wrote {} {} at {t}, past its lease (last renewed at {renewed:?})",
                    write["verb"],
                    write["requestURI"],
                );
                checked += 1;
            }
        }
        assert!(checked > 8, "writes by the replicas were seen: {checked}");
    });
}

/// Who holds the controllers' leader Lease in `ns`, if anyone.
async fn lease_holder_opt(client: &kube::Client, ns: &str) -> Option<String> {
    let leases: Api<Lease> = Api::namespaced(client.clone(), ns);
    leases
        .get_opt("kagent-evals-controller")
        .await
        .ok()??
        .spec?
        .holder_identity
}
