//! Judged suites in the cluster: the judge named through a kagent
//! ModelConfig and its key Secret, its calls in the run's status, and a
//! judge that cannot answer ending the run in Error, never Failed.

use crate::crds::namespace;
use crate::support::operator::{
    agent, apply_suite, config, event_reasons, finished, run_now, start, wait_for,
    weather_database, weather_suite,
};
use crate::support::{control_plane, runtime};
use crate::{Need, Test};
use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::post;
use k8s_openapi::api::core::v1::Secret;
use kagent_evals::k8s::conditions::is_true;
use kagent_evals::k8s::crd::Phase;
use kagent_evals::k8s::vocabulary::ConditionType;
use kube::Api;
use kube::api::{DynamicObject, Patch, PatchParams};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const API_KEY: &str = "sk-cluster-judge-9f8e7d6c5b4a";

pub fn tests() -> Vec<Test> {
    vec![Test {
        name: "judge::a_model_config_judge_scores_the_run_and_a_dead_one_errors_it",
        needs: &[Need::ControlPlane, Need::Postgres],
        run: model_config_and_dead_judge,
    }]
}

/// A chat-completions endpoint that approves everything, recording the
/// Authorization header of each request.
async fn judge_server() -> (String, Arc<Mutex<Vec<String>>>) {
    async fn chat(
        State(seen): State<Arc<Mutex<Vec<String>>>>,
        headers: HeaderMap,
        Json(_): Json<Value>,
    ) -> Json<Value> {
        let auth = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        seen.lock().unwrap().push(auth.to_string());
        Json(json!({
            "choices": [{"message": {"role": "assistant", "content": "{\"reasoning\": \"grounded in the tool\", \"score\": 5, \"goal_met\": true}"}}],
            "usage": {"prompt_tokens": 200, "completion_tokens": 20}
        }))
    }
    let seen = Arc::new(Mutex::new(Vec::new()));
    let app = axum::Router::new()
        .route("/v1/chat/completions", post(chat))
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, seen)
}

fn judged_suite(ns: &str, name: &str, judge: Value) -> Value {
    let mut suite = weather_suite(ns, name, "weather-assistant");
    suite["spec"]["judge"] = judge;
    suite["spec"]["cases"] = json!([{
        "name": "goal-met-safely",
        "evaluators": [{"name": "outcome", "type": "outcomeJudge", "outcomeJudge": {"forbiddenTools": ["k8s_delete_resource"]}}]
    }]);
    suite
}

fn model_config_and_dead_judge() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "judge-cluster").await;
        let db = weather_database("judgecluster", &ns).await;
        agent(&client, &ns, "weather-assistant", "You report the weather from the tool.").await;
        let (url, seen) = judge_server().await;
        let secrets: Api<Secret> = Api::namespaced(client.clone(), &ns);
        let secret = json!({
            "apiVersion": "v1", "kind": "Secret", "metadata": {"name": "judge-key"},
            "stringData": {"OPENAI_API_KEY": API_KEY}
        });
        secrets.patch("judge-key", &PatchParams::apply("test"), &Patch::Apply(&secret)).await.unwrap();
        let resource = kube::api::ApiResource::from_gvk(&kube::api::GroupVersionKind::gvk("kagent.dev", "v1alpha2", "ModelConfig"));
        let configs: Api<DynamicObject> = Api::namespaced_with(client.clone(), &ns, &resource);
        let model_config = json!({
            "apiVersion": "kagent.dev/v1alpha2", "kind": "ModelConfig", "metadata": {"name": "judge"},
            "spec": {"provider": "OpenAI", "model": "judge-model", "apiKeySecret": "judge-key",
                     "apiKeySecretKey": "OPENAI_API_KEY", "openAI": {"baseUrl": url}}
        });
        configs.patch("judge", &PatchParams::apply("test"), &Patch::Apply(&model_config)).await.unwrap();
        let _replica = start(&plane, config(&ns, "judge-replica", Some(&db.url))).await;

        apply_suite(&client, &ns, &judged_suite(&ns, "judged", json!({"modelConfigRef": {"name": "judge"}}))).await;
        run_now(&client, &ns, "judged-now", "judged").await;
        let run = finished(&client, &ns, "judged-now", Duration::from_secs(60)).await;
        let status = run.status.unwrap();
        assert_eq!(status.phase, Some(Phase::Succeeded), "{status:?}");
        let usage = status.judge.expect("the judge's calls are in the status");
        assert_eq!((usage.calls, usage.prompt_tokens, usage.completion_tokens), (1, 200, 20));
        // The one-token preflight, then the judged call.
        assert_eq!(*seen.lock().unwrap(), [format!("Bearer {API_KEY}"), format!("Bearer {API_KEY}")]);

        // Nothing listens on port 9 of loopback.
        let dead = json!({"url": "http://127.0.0.1:9/v1", "model": "judge-model", "apiKeySecretRef": {"name": "judge-key", "key": "OPENAI_API_KEY"}});
        apply_suite(&client, &ns, &judged_suite(&ns, "dead-judge", dead)).await;
        run_now(&client, &ns, "dead-judge-now", "dead-judge").await;
        let run = finished(&client, &ns, "dead-judge-now", Duration::from_secs(60)).await;
        let status = run.status.unwrap();
        assert_eq!(status.phase, Some(Phase::Error), "{status:?}");
        assert!(is_true(&status.conditions, ConditionType::Complete) && !is_true(&status.conditions, ConditionType::Passed));
        let passed = status.conditions.iter().find(|c| c.type_ == "Passed").unwrap();
        assert_eq!(passed.reason, "JudgeUnavailable");
        let message = status.message.unwrap();
        assert!(message.contains("unreachable") && !message.contains(API_KEY), "{message}");
        // The Event follows the status: wait for it, as the other tests do.
        let note = wait_for("a JudgeUnavailable Event", Duration::from_secs(20), || async {
            let events = event_reasons(&client, &ns, "dead-judge-now").await;
            events.into_iter().find(|(reason, _)| reason == "JudgeUnavailable").map(|(_, note)| note)
        })
        .await;
        assert!(!note.contains(API_KEY), "{note}");
        assert_eq!(seen.lock().unwrap().len(), 2, "the dead judge's run asked no one");
    });
}
