//! Probes from the operator on the real control plane: the operator reaches
//! a real kagent agent (kagent-adk, a scripted model) through the kagent
//! controller's A2A route, scores the sessions it makes, and says so in the
//! EvalRun's status, its Events and the metrics.

#[path = "../support/live_agent.rs"]
mod live_agent;

use crate::crds::namespace;
use crate::support::operator::{
    agent, apply_suite, config, event_reasons, finished, run_now, start, wait_for,
};
use crate::support::{control_plane, runtime};
use crate::{Need, Test};
use kagent_evals::core::suite::spec::SourceKind;
use kagent_evals::k8s::crd::Phase;
use live_agent::LiveAgent;
use serde_json::json;
use std::time::Duration;

pub fn tests() -> Vec<Test> {
    vec![Test {
        name: "probes::the_operator_probes_a_live_agent_k_times_and_reports_an_agent_down",
        needs: &[Need::ControlPlane],
        run: probes_from_the_operator,
    }]
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
