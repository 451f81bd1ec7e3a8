//! Probes from the operator on the real control plane: the operator reaches
//! a real kagent agent (kagent-adk, a scripted model) through the kagent
//! controller's A2A route, scores the sessions it makes, and says so in the
//! EvalRun's status, its Events and the metrics.

#[path = "../support/live_agent.rs"]
mod live_agent;

use crate::crds::namespace;
use crate::kagent_v1::{apply_v1, empty_v1_database};
use crate::support::operator::{
    agent, apply_suite, config, event_reasons, finished, run_now, start, wait_for,
};
use crate::support::{control_plane, runtime};
use crate::{Need, Test};
use kagent_evals::core::suite::spec::SourceKind;
use kagent_evals::k8s::crd::Phase;
use live_agent::{LiveAgent, LiveAgentV1};
use serde_json::{Value, json};
use std::process::Command;
use std::time::Duration;

pub fn tests() -> Vec<Test> {
    vec![
        Test {
            name: "probes::the_operator_probes_a_live_agent_k_times_and_reports_an_agent_down",
            needs: &[Need::ControlPlane],
            run: probes_from_the_operator,
        },
        Test {
            name: "probes::the_operator_plays_a_simulated_user_and_keeps_the_conversation_out_of_status",
            needs: &[Need::ControlPlane],
            run: scenario_from_the_operator,
        },
        Test {
            name: "probes::the_operator_probes_a_0_10_and_a_1_0_agent_in_their_own_versions_at_once",
            needs: &[Need::ControlPlane, Need::Postgres],
            run: both_lines_from_the_operator,
        },
        Test {
            name: "probes::an_a2a_1_0_agent_is_probed_in_1_0_and_its_sessions_read_from_kagent_1_0",
            needs: &[Need::Postgres],
            run: probes_in_a2a_1_0,
        },
        Test {
            name: "probes::an_a2a_agent_that_is_not_kagent_is_scored_on_its_own_tasks_with_no_source",
            needs: &[],
            run: probes_read_from_the_agent,
        },
    ]
}

fn probes_from_the_operator() {
    let plane = control_plane();
    let client = runtime().block_on(plane.client());
    let ns = runtime().block_on(namespace(&client, "op-probes"));
    // The weather question's occurrences: 1 passes, 2..4 are k=3 with 3
    // answering from memory.
    let script = json!({"model": "scripted-model", "conversations": [
        {"match": "weather in London",
         "turns": [{"tool": "get_weather", "args": {"city": "London"}},
                   {"text": "It is sunny and 21 degrees Celsius in London."}],
         "variants": {"3": [{"text": "London is always rainy."}]}}
    ]});
    let mut live = LiveAgent::start_in(&ns, &script);
    runtime().block_on(async {
        agent(&client, &ns, "weather-agent", "You report the weather from the tool.").await;
        let mut settings = config(&ns, "replica-a", None);
        settings.defaults.source = Some(SourceKind::KagentApi);
        settings.defaults.api_url = Some(live.controller_url.clone());
        let _replica = start(&plane, settings).await;
        let suite = |name: &str, runs: u32| {
            json!({
                "apiVersion": "evals.kagent.dev/v1alpha1",
                "kind": "EvalSuite",
                "metadata": {"name": name, "namespace": ns},
                "spec": {
                    "agentRef": {"name": "weather-agent"},
                    "probes": {"enabled": true},
                    "cases": [{
                        "name": "looks-the-weather-up",
                        "probe": {"input": "What is the weather in London?", "runs": runs},
                        "evaluators": [{"name": "tool", "type": "toolsUsed", "toolsUsed": {"expected": ["get_weather"]}}]
                    }]
                }
            })
        };
        apply_suite(&client, &ns, &suite("once", 1)).await;
        run_now(&client, &ns, "once-1", "once").await;
        let status = finished(&client, &ns, "once-1", Duration::from_secs(120)).await.status.unwrap();
        assert_eq!(status.phase, Some(Phase::Succeeded), "{status:?}");
        let probe = status.results[0].probe.unwrap();
        assert!(probe.pass_all_k && probe.runs == 1);

        apply_suite(&client, &ns, &suite("thrice", 3)).await;
        run_now(&client, &ns, "thrice-1", "thrice").await;
        let status = finished(&client, &ns, "thrice-1", Duration::from_secs(180)).await.status.unwrap();
        assert_eq!(status.phase, Some(Phase::Failed), "{status:?}");
        let probe = status.results[0].probe.unwrap();
        assert_eq!((probe.runs, probe.passed, probe.pass_at_k, probe.pass_all_k), (3, 2, true, false));
        let failed = wait_for("EvalRunFailed", Duration::from_secs(20), || async {
            let events = event_reasons(&client, &ns, "thrice-1").await;
            events.into_iter().find(|(r, _)| r == "EvalRunFailed")
        })
        .await;
        assert!(failed.1.contains("case looks-the-weather-up Failed"), "{failed:?}");
        assert!(!failed.1.contains("London"), "no probe content in Events: {failed:?}");

        live.stop_agent();
        run_now(&client, &ns, "once-2", "once").await;
        let status = finished(&client, &ns, "once-2", Duration::from_secs(120)).await.status.unwrap();
        assert_eq!(status.phase, Some(Phase::Error), "{status:?}");
        let complete = status.conditions.iter().find(|c| c.type_ == "Complete").unwrap();
        assert_eq!(complete.reason, "AgentUnavailable", "{complete:?}");
        assert!(complete.message.contains(&format!("/api/a2a/{ns}/weather-agent/")), "{}", complete.message);
    });
}

/// A stand-in user simulator on loopback: asked which city, it says
/// London; told the weather, it is done.
async fn simulator() -> String {
    use axum::{Json, routing::post};
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        post(|Json(body): Json<Value>| async move {
            let last = body["messages"].as_array().and_then(|m| m.last()).cloned().unwrap_or_default();
            let said = last["content"].as_str().unwrap_or_default();
            let content = if body["max_tokens"] == 1 {
                "ready".to_string()
            } else if said.contains("Which city") {
                json!({"finished": false, "message": "London"}).to_string()
            } else {
                json!({"finished": true, "message": ""}).to_string()
            };
            Json(json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
                        "usage": {"prompt_tokens": 40, "completion_tokens": 4, "total_tokens": 44}}))
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

fn scenario_from_the_operator() {
    let plane = control_plane();
    let client = runtime().block_on(plane.client());
    let ns = runtime().block_on(namespace(&client, "op-scenario"));
    let script = json!({"model": "scripted-model", "conversations": [
        {"match": "need the weather", "turns": [{"text": "Which city would you like the weather for?"}]},
        {"match": "London",
         "turns": [{"tool": "get_weather", "args": {"city": "London"}},
                   {"text": "It is sunny and 21 degrees Celsius in London."}]}
    ]});
    let live = LiveAgent::start_in(&ns, &script);
    runtime().block_on(async {
        agent(&client, &ns, "weather-agent", "You report the weather from the tool.").await;
        let simulator = simulator().await;
        let mut settings = config(&ns, "replica-a", None);
        settings.defaults.source = Some(SourceKind::KagentApi);
        settings.defaults.api_url = Some(live.controller_url.clone());
        let _replica = start(&plane, settings).await;
        let suite = json!({
            "apiVersion": "evals.kagent.dev/v1alpha1",
            "kind": "EvalSuite",
            "metadata": {"name": "chat", "namespace": ns},
            "spec": {
                "agentRef": {"name": "weather-agent"},
                "probes": {"enabled": true},
                "judge": {"url": simulator, "model": "simulator"},
                "cases": [{
                    "name": "weather-chat",
                    "probe": {"scenario": {"startingPrompt": "I need the weather",
                                           "plan": "Get the weather for London."}},
                    "evaluators": [{"name": "tool", "type": "toolsUsed", "toolsUsed": {"expected": ["get_weather"]}}]
                }]
            }
        });
        apply_suite(&client, &ns, &suite).await;
        run_now(&client, &ns, "chat-1", "chat").await;
        let run = finished(&client, &ns, "chat-1", Duration::from_secs(120)).await;
        let status = run.status.clone().unwrap();
        assert_eq!(status.phase, Some(Phase::Succeeded), "{status:?}");
        assert_eq!(status.results[0].probe.unwrap().passed, 1);
        // The simulator's two turns are the run's judge calls.
        assert_eq!(status.judge.as_ref().unwrap().calls, 2, "{:?}", status.judge);
        // The conversation stays out of the status and the Events.
        let written = serde_json::to_string(&status).unwrap();
        assert!(!written.contains("London") && !written.contains("need the weather"), "{written}");
        let events = event_reasons(&client, &ns, "chat-1").await;
        assert!(events.iter().all(|(_, note)| !note.contains("London")), "{events:?}");
    });
}

/// `kagent-evals run` with JSON output: its exit code, report and stderr.
fn run_cli(args: &[&str]) -> (Option<i32>, Value, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .arg("run")
        .args(args)
        .args(["--format", "json", "--include-trajectories"])
        .env_remove("KAGENT_EVALS_DATABASE_URL")
        .output()
        .unwrap();
    (
        output.status.code(),
        serde_json::from_slice(&output.stdout).unwrap_or(Value::Null),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn probe_suite(dir: &std::path::Path, name: &str, agent_ref: Value, cases: Value) -> String {
    let file = dir.join(format!("{name}.json"));
    let body = json!({
        "apiVersion": "evals.kagent.dev/v1alpha1",
        "kind": "EvalSuite",
        "metadata": {"name": name, "namespace": "team"},
        "spec": {"agentRef": agent_ref, "probes": {"enabled": true, "maxRuns": 10, "concurrency": 2}, "cases": cases}
    });
    std::fs::write(&file, body.to_string()).unwrap();
    file.display().to_string()
}

fn weather_probe(name: &str, runs: u32) -> Value {
    json!({
        "name": name,
        "probe": {"input": "What is the weather in London?", "runs": runs, "userId": "probe-a"},
        "evaluators": [
            {"name": "tool", "type": "toolsUsed", "toolsUsed": {"expected": ["get_weather"]}},
            {"name": "budget", "type": "budget", "budget": {"maxTokens": 1000}}
        ]
    })
}

/// The command line probes an A2A 1.0 agent (a2a-sdk 1.3.0's server, as
/// kagent 1.0 serves its Agents) and reads each probe's session back from
/// kagent 1.0's tables by its contextId: a pass, k=3 with one flaky run,
/// the tool skipped, approvals, the version from the card, a card that
/// offers neither, the wrong version forced, and the agent down.
fn probes_in_a2a_1_0() {
    let db = runtime().block_on(empty_v1_database());
    // Occurrences of the weather question, in the order asked below: 1
    // passes; 2..4 are k=3 with 3 answering from memory; 5 skips the tool.
    let memory = json!([{"text": "London is always rainy."}]);
    let script = json!({"model": "scripted-model", "conversations": [
        {"match": "weather in London",
         "turns": [{"tool": "get_weather", "args": {"city": "London"}, "usage": {"prompt_tokens": 20, "completion_tokens": 5}},
                   {"text": "It is sunny and 21 degrees Celsius in London.", "usage": {"prompt_tokens": 40, "completion_tokens": 9}}],
         "variants": {"3": memory, "5": memory}},
        {"match": "delete /tmp/old.log",
         "turns": [{"tool": "delete_file", "args": {"path": "/tmp/old.log"}}, {"text": "Done."}]},
        {"match": "Plan a trip",
         "turns": [{"tool": "ask_user", "args": {"questions": [
                       {"question": "Which city?", "choices": ["Paris", "Rome"], "multiple": false},
                       {"question": "Which extras?", "choices": ["museum", "food"], "multiple": true}]}},
                   {"text": "Planned."}]}
    ]});
    // Every send is refused twice as busy first, as kagent 1.0's gateway
    // refuses a send to a busy session.
    let mut agent = LiveAgentV1::start_busy("team", "weather", &script, Some(&db.url), &["1.0"], 2);
    let dir = tempfile::tempdir().unwrap();
    let v1 = json!({"apiVersion": "api.kagent.dev/v1alpha3", "name": "weather"});
    let url = agent.url.clone();
    let from = |suite: &str, extra: &[&str]| {
        let mut args = vec![
            suite.to_string(),
            "--a2a-url".into(),
            url.clone(),
            "--database-url".into(),
            db.url.clone(),
        ];
        args.extend(extra.iter().map(|a| a.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run_cli(&args)
    };
    let case = |report: &Value, name: &str| -> Value {
        report["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} in {report}"))
    };

    let one = probe_suite(
        dir.path(),
        "one",
        v1.clone(),
        json!([weather_probe("looks-the-weather-up", 1)]),
    );
    let (code, report, stderr) = from(&one, &[]);
    assert_eq!(code, Some(0), "{report} {stderr}");
    assert_eq!(
        report["probedWith"],
        "A2A 1.0, set by the agentRef (a kagent 1.0 api.kagent.dev/v1alpha3 Agent)"
    );
    assert!(
        report["source"]
            .as_str()
            .unwrap()
            .starts_with("kagent 1.0 PostgreSQL"),
        "{report}"
    );
    let looked = case(&report, "looks-the-weather-up");
    assert_eq!(
        looked["probe"],
        json!({"runs": 1, "passed": 1, "passAtK": true, "passAllK": true})
    );
    let session = &looked["sessions"][0];
    assert_eq!(
        session["userId"], "probe-a",
        "the probe's own identity, as kagent 1.0 recorded it"
    );
    assert_eq!(session["tools"], json!(["get_weather"]));
    assert_eq!(
        session["evaluations"][1]["passed"], true,
        "tokens read from the 1.0 rows"
    );
    assert!(
        session["revision"].as_str().unwrap().starts_with("sha256:"),
        "{session}"
    );
    // The prober's own clock, beside what the agent recorded.
    let witnessed = session["efficiency"]["probeLatencySeconds"]
        .as_f64()
        .unwrap();
    assert!(witnessed > 0.0, "{session}");
    assert_eq!(
        session["efficiency"]["totalTokens"], 74,
        "20+5 and 40+9, as the agent stamped them"
    );
    assert_eq!(
        looked["efficiency"]["probeLatencySeconds"]["measured"], 1,
        "{looked}"
    );
    let probes: Vec<Value> = agent
        .requests()
        .into_iter()
        .filter(|r| r["method"] == "POST")
        .collect();
    assert!(!probes.is_empty());
    for request in &probes {
        let headers = &request["headers"];
        assert_eq!(headers["a2a-version"], "1.0", "{request}");
        assert_eq!(
            headers["a2a-extensions"],
            "https://kagent.dev/extensions/usage/v1,https://kagent.dev/extensions/hitl/v1"
        );
        assert_eq!(headers["x-user-id"], "probe-a", "{request}");
        assert!(headers.get("authorization").is_none(), "{request}");
        assert_eq!(request["jsonrpc"]["method"], "SendMessage", "{request}");
    }
    // One message, sent three times with the same id: refused twice as
    // busy, then taken; the first names no conversation, so kagent opens
    // the Session, whose id the probe read back.
    let sends: Vec<&Value> = probes.iter().map(|r| &r["jsonrpc"]).collect();
    assert_eq!(sends.len(), 3, "{sends:?}");
    assert!(
        sends
            .iter()
            .all(|s| s["messageId"] == sends[0]["messageId"])
    );
    assert!(sends.iter().all(|s| s["contextId"].is_null()), "{sends:?}");
    assert_eq!(
        probes.iter().filter(|r| r["refusedBusy"] == true).count(),
        2
    );
    assert_ne!(session["sessionId"], sends[0]["messageId"]);

    let flaky = probe_suite(
        dir.path(),
        "flaky",
        v1.clone(),
        json!([weather_probe("three-times", 3)]),
    );
    let (code, report, _) = from(&flaky, &[]);
    assert_eq!(code, Some(1), "{report}");
    let three = case(&report, "three-times");
    assert_eq!(
        three["probe"],
        json!({"runs": 3, "passed": 2, "passAtK": true, "passAllK": false})
    );
    assert_eq!(three["outcome"], "Failed");

    // A 0.10-style agentRef: the version comes from the card.
    let by_card = probe_suite(
        dir.path(),
        "by-card",
        json!({"name": "weather"}),
        json!([weather_probe("skips", 1)]),
    );
    let (code, report, _) = from(&by_card, &[]);
    assert_eq!(code, Some(1), "the tool skipped: {report}");
    assert_eq!(
        report["probedWith"],
        "A2A 1.0, from the agent card (it offers 1.0)"
    );
    let skipped = case(&report, "skips");
    assert_eq!(skipped["outcome"], "Failed");
    assert_eq!(skipped["sessions"][0]["tools"], json!([]));

    let approvals = |policy: &str| {
        json!({
            "name": format!("delete-{policy}"),
            "probe": {"input": "Please delete /tmp/old.log", "approvals": policy},
            "evaluators": [{"name": "tool", "type": "toolsUsed", "toolsUsed": {"expected": ["delete_file"]}}]
        })
    };
    let approved = probe_suite(
        dir.path(),
        "approve",
        v1.clone(),
        json!([approvals("approve"), approvals("reject"), approvals("fail")]),
    );
    let (code, report, _) = from(&approved, &[]);
    assert_eq!(code, Some(1), "{report}");
    let tool_result = |report: &Value, name: &str| -> String {
        case(report, name)["sessions"][0]["trajectory"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "tool")
            .map(|m| m["content"].as_str().unwrap().to_string())
            .unwrap_or_else(|| panic!("no tool result in {name}: {report}"))
    };
    assert_eq!(
        tool_result(&report, "delete-approve"),
        "Deleted /tmp/old.log."
    );
    assert!(tool_result(&report, "delete-reject").starts_with("Tool call was rejected by user"));
    let unanswered = case(&report, "delete-fail");
    assert_eq!(unanswered["outcome"], "Failed");
    let error = unanswered["sessions"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("asked to approve a call to delete_file"),
        "{error}"
    );

    // Questions for the user: answered from the case's script, in order,
    // as kagent's runtimes read an ask_user_response; one too few fails
    // the run naming the question left.
    let asks = |name: &str, answers: Value| {
        json!({
            "name": name,
            "probe": {"input": "Plan a trip for me", "answers": answers},
            "evaluators": [{"name": "tool", "type": "toolsUsed", "toolsUsed": {"expected": ["ask_user"]}}]
        })
    };
    let asked = probe_suite(
        dir.path(),
        "asks",
        v1.clone(),
        json!([
            asks("answered", json!([["Paris"], ["museum", "food"]])),
            asks("one-short", json!([["Rome"]]))
        ]),
    );
    let (code, report, _) = from(&asked, &[]);
    assert_eq!(code, Some(1), "{report}");
    let answered: Value = serde_json::from_str(&tool_result(&report, "answered")).unwrap();
    assert_eq!(
        answered,
        json!({"answers": [{"answer": ["Paris"]}, {"answer": ["museum", "food"]}]}),
        "{report}"
    );
    assert_eq!(case(&report, "answered")["outcome"], "Passed", "{report}");
    let short = case(&report, "one-short");
    assert_eq!(short["outcome"], "Failed");
    let error = short["sessions"][0]["error"].as_str().unwrap();
    assert!(
        error.contains(r#"asked the user "Which city?", "Which extras?", and the case scripts no answer for "Which extras?""#),
        "{error}"
    );

    // 0.3 forced on an agent that serves only 1.0: the run cannot be done.
    let (code, _, stderr) = from(&one, &["--a2a-protocol", "0.3"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("message/send"), "{stderr}");

    // A card that offers neither version.
    let other_db = runtime().block_on(empty_v1_database());
    let future = LiveAgentV1::start("team", "weather", &script, Some(&other_db.url), &["2.0"]);
    let (code, _, stderr) = run_cli(&[
        &by_card,
        "--a2a-url",
        &future.url,
        "--database-url",
        &other_db.url,
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr
            .contains("its card offers A2A 2.0 over JSON-RPC; probes speak 0.3 (0.2 too) and 1.0"),
        "{stderr}"
    );

    agent.stop_agent();
    let (code, _, stderr) = from(&one, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("the Agent's A2A endpoint {url}")),
        "{stderr}"
    );
}

/// An A2A agent that is not kagent (a2a-sdk 1.3.0's server, no kagent
/// table anywhere) probed with `probes.readFrom: agent` and no source:
/// each run's conversation is its tasks, read back with GetTask and their
/// whole history, and converted as kagent 1.0's are: a pass, the tool
/// skipped, a conversation of two turns in two tasks; the same agent
/// spoken to in A2A 0.3 is refused (its tasks are not 1.0's); a suite that
/// also names a session needs a source.
fn probes_read_from_the_agent() {
    let script = json!({"model": "scripted-model", "conversations": [
        {"match": "weather in London",
         "turns": [{"tool": "get_weather", "args": {"city": "London"}, "usage": {"prompt_tokens": 20, "completion_tokens": 5}},
                   {"text": "It is sunny and 21 degrees Celsius in London.", "usage": {"prompt_tokens": 40, "completion_tokens": 9}}],
         "variants": {"2": [{"text": "London is always rainy."}]}},
        {"match": "umbrella", "turns": [{"text": "No umbrella needed today."}]}
    ]});
    let agent = LiveAgentV1::start("team", "weather", &script, None, &["1.0", "0.3"]);
    let dir = tempfile::tempdir().unwrap();
    let suite = |name: &str, cases: Value| {
        let file = dir.path().join(format!("{name}.yaml"));
        let body = json!({
            "apiVersion": "evals.kagent.dev/v1alpha1",
            "kind": "EvalSuite",
            "metadata": {"name": name},
            "spec": {"probes": {"enabled": true, "readFrom": "agent"}, "cases": cases}
        });
        std::fs::write(&file, body.to_string()).unwrap();
        file.display().to_string()
    };
    let weather = |name: &str| {
        json!({
            "name": name,
            "probe": {"input": "What is the weather in London?", "userId": "probe-a"},
            "evaluators": [
                {"name": "tool", "type": "toolsUsed", "toolsUsed": {"expected": ["get_weather"]}},
                {"name": "budget", "type": "budget", "budget": {"maxTokens": 1000}}
            ]
        })
    };
    let two_turns = json!({
        "name": "two-turns",
        "probe": {"conversation": ["What is the weather in London?", "Do I need an umbrella?"]},
        "evaluators": [{"name": "answer", "type": "responseMatch",
                        "responseMatch": {"reference": "No umbrella needed today."}}]
    });
    let passes = suite("passes", json!([weather("looks-it-up")]));
    let (code, report, stderr) = run_cli(&[&passes, "--a2a-url", &agent.url]);
    assert_eq!(code, Some(0), "{report} {stderr}");
    assert_eq!(
        report["source"],
        "no source: the probes read the Agent's own tasks (probes.readFrom: agent)"
    );
    let session = &report["cases"][0]["sessions"][0];
    assert_eq!(session["tools"], json!(["get_weather"]), "{session}");
    assert_eq!(session["userId"], "probe-a");
    assert_eq!(
        session["efficiency"]["totalTokens"], 74,
        "the usage the agent stamped on its task"
    );
    let gets: Vec<Value> = agent
        .requests()
        .into_iter()
        .map(|r| r["jsonrpc"].clone())
        .filter(|r| r["method"] == "GetTask")
        .collect();
    assert!(
        gets.iter().any(|g| g["historyLength"] == i32::MAX),
        "the task read with its whole history: {gets:?}"
    );

    // The second run of the weather question answers from memory.
    let skips = suite("skips", json!([weather("skips-it")]));
    let (code, report, _) = run_cli(&[&skips, "--a2a-url", &agent.url]);
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(report["cases"][0]["sessions"][0]["tools"], json!([]));

    let talk = suite("talk", json!([two_turns]));
    let (code, report, stderr) = run_cli(&[&talk, "--a2a-url", &agent.url]);
    assert_eq!(code, Some(0), "{report} {stderr}");
    let trajectory = report["cases"][0]["sessions"][0]["trajectory"]
        .as_array()
        .unwrap();
    let roles: Vec<&str> = trajectory
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "tool",
            "assistant",
            "user",
            "assistant"
        ],
        "both turns' tasks read, in order: {report}"
    );
    assert_eq!(trajectory[4]["content"], "Do I need an umbrella?");

    // The same agent in A2A 0.3: its tasks are not read as 1.0's.
    let (code, _, stderr) = run_cli(&[&talk, "--a2a-url", &agent.url, "--a2a-protocol", "0.3"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("probes.readFrom: agent reads each conversation from the Agent's A2A 1.0 tasks, and the Agent is spoken to in A2A 0.3, set by --a2a-protocol"),
        "{stderr}"
    );

    // A case on a named session needs a source, which none names.
    let named = suite(
        "named",
        json!([{"name": "by-id", "sessionId": "s1",
                "evaluators": [{"name": "tool", "type": "toolsUsed", "toolsUsed": {"expected": ["get_weather"]}}]}]),
    );
    let (code, _, stderr) = run_cli(&[&named, "--a2a-url", &agent.url]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("no source"), "{stderr}");
}

/// One operator probes a kagent 0.10 Agent (kagent-adk, A2A 0.3, through
/// the controller's `/api/a2a/` route) and a kagent 1.0 Agent (a2a-sdk
/// 1.3.0's server, A2A 1.0, at `/agents/`) in two suites run at once, each
/// in the version it speaks, each session read from its own line's store;
/// then the 1.0 Agent with `probes.readFrom: agent`, read from its tasks.
fn both_lines_from_the_operator() {
    let plane = control_plane();
    let client = runtime().block_on(plane.client());
    let ns = runtime().block_on(namespace(&client, "op-probes-lines"));
    let db = runtime().block_on(empty_v1_database());
    let script = json!({"model": "scripted-model", "conversations": [
        {"match": "weather in London",
         "turns": [{"tool": "get_weather", "args": {"city": "London"}},
                   {"text": "It is sunny and 21 degrees Celsius in London."}]}
    ]});
    let v1 = LiveAgentV1::start(&ns, "weather-v1", &script, Some(&db.url), &["1.0"]);
    let live = LiveAgent::start_serving(&ns, &script, Some(v1.base()));
    runtime().block_on(async {
        agent(&client, &ns, "weather-agent", "You report the weather from the tool.").await;
        apply_v1(&client, &ns, "Agent", json!({
            "metadata": {"name": "weather-v1"},
            "spec": {"template": {"modelConfig": {"name": "scripted"}, "systemPrompt": "Report the weather."},
                     "harness": {"kagent": {}}}
        }))
        .await;
        let secrets: kube::Api<k8s_openapi::api::core::v1::Secret> = kube::Api::namespaced(client.clone(), &ns);
        let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "kagent-1-db"}, "stringData": {"url": db.url}});
        secrets
            .patch("kagent-1-db", &kube::api::PatchParams::apply("test").force(), &kube::api::Patch::Apply(&secret))
            .await
            .unwrap();
        let mut settings = config(&ns, "replica-a", None);
        settings.defaults.source = Some(SourceKind::KagentApi);
        settings.defaults.api_url = Some(live.controller_url.clone());
        let _replica = start(&plane, settings).await;
        let suite = |name: &str, agent_ref: Value| {
            json!({
                "apiVersion": "evals.kagent.dev/v1alpha1",
                "kind": "EvalSuite",
                "metadata": {"name": name, "namespace": ns},
                "spec": {
                    "agentRef": agent_ref,
                    "probes": {"enabled": true},
                    "cases": [{
                        "name": "looks-the-weather-up",
                        "probe": {"input": "What is the weather in London?"},
                        "evaluators": [{"name": "tool", "type": "toolsUsed", "toolsUsed": {"expected": ["get_weather"]}}]
                    }]
                }
            })
        };
        apply_suite(&client, &ns, &suite("old-line", json!({"name": "weather-agent"}))).await;
        let mut new_line = suite("new-line", json!({"apiVersion": "api.kagent.dev/v1alpha3", "name": "weather-v1"}));
        new_line["spec"]["source"] = json!({"type": "kagentPostgres", "kagentPostgres": {"urlSecretRef": {"name": "kagent-1-db", "key": "url"}}});
        apply_suite(&client, &ns, &new_line).await;
        run_now(&client, &ns, "old-line-1", "old-line").await;
        run_now(&client, &ns, "new-line-1", "new-line").await;
        let old = finished(&client, &ns, "old-line-1", Duration::from_secs(120)).await.status.unwrap();
        let new = finished(&client, &ns, "new-line-1", Duration::from_secs(120)).await.status.unwrap();
        assert_eq!(old.phase, Some(Phase::Succeeded), "{old:?}");
        assert_eq!(new.phase, Some(Phase::Succeeded), "{new:?}");
        assert_eq!(old.probe_protocol.as_deref(), Some("A2A 0.3, from the agent card (it offers 0.3.0)"));
        assert_eq!(
            new.probe_protocol.as_deref(),
            Some("A2A 1.0, set by the agentRef (a kagent 1.0 api.kagent.dev/v1alpha3 Agent)")
        );
        assert!(new.source.as_deref().unwrap().contains("kagent 1.0 PostgreSQL"), "{new:?}");
        assert_eq!(new.revisions.len(), 1, "{new:?}");
        assert_eq!((new.revisions[0].sessions, new.revisions[0].failed_sessions), (1, 0));
        let posted: Vec<Value> = v1.requests().into_iter().filter(|r| r["method"] == "POST").collect();
        assert_eq!(posted.len(), 1, "{posted:?}");
        assert_eq!(posted[0]["path"], format!("/agents/{ns}/weather-v1"));
        assert_eq!(posted[0]["headers"]["a2a-version"], "1.0");
        assert!(posted[0]["headers"].get("authorization").is_none());

        // The same Agent read from its own tasks: no source is opened,
        // not even the operator's default.
        let mut from_agent = suite("from-agent", json!({"apiVersion": "api.kagent.dev/v1alpha3", "name": "weather-v1"}));
        from_agent["spec"]["probes"]["readFrom"] = json!("agent");
        apply_suite(&client, &ns, &from_agent).await;
        run_now(&client, &ns, "from-agent-1", "from-agent").await;
        let read = finished(&client, &ns, "from-agent-1", Duration::from_secs(120)).await.status.unwrap();
        assert_eq!(read.phase, Some(Phase::Succeeded), "{read:?}");
        assert_eq!(
            read.source.as_deref(),
            Some("no source: the probes read the Agent's own tasks (probes.readFrom: agent)")
        );
        assert!(
            v1.requests().iter().any(|r| r["jsonrpc"]["method"] == "GetTask"),
            "the task read back from the Agent"
        );
    });
}
