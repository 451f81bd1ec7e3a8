//! The trust boundary on the real control plane: a destination and its
//! credentials come from the same party. Local listeners record every
//! request's headers, so the tests see exactly which credential reached
//! which endpoint.

use crate::crds::namespace;
use crate::support::operator::{
    agent, apply_suite, captured, config, finished, run_now, start, weather_suite,
};
use crate::support::postgres::TestDatabase;
use crate::support::{control_plane, runtime};
use crate::{Need, Test};
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use k8s_openapi::api::core::v1::Secret as KubeSecret;
use kagent_evals::core::suite::spec::SourceKind;
use kagent_evals::k8s::crd::{EvalRunStatus, Phase};
use kagent_evals::resolve::{Party, RunnerSettings};
use kagent_evals::secret::Secret;
use kube::Api;
use kube::api::{DynamicObject, Patch, PatchParams};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub fn tests() -> Vec<Test> {
    vec![
        Test {
            name: "trust::the_operators_api_token_goes_only_to_the_operators_api",
            needs: &[Need::ControlPlane],
            run: api_tokens,
        },
        Test {
            name: "trust::the_operators_judge_key_goes_only_to_the_operators_judge",
            needs: &[Need::ControlPlane],
            run: judge_keys,
        },
        Test {
            name: "trust::model_configs_reach_their_providers_endpoint_or_refuse",
            needs: &[Need::ControlPlane],
            run: model_configs,
        },
        Test {
            name: "trust::no_token_reaches_a_path_outside_the_agent_through_a_decoding_router",
            needs: &[Need::ControlPlane],
            run: decoding_router,
        },
        Test {
            name: "trust::the_operators_adk_database_is_read_only_for_the_agents_app",
            needs: &[Need::ControlPlane, Need::Postgres],
            run: adk_database,
        },
    ]
}

/// One request as a listener saw it.
#[derive(Clone, Debug)]
struct Seen {
    path: String,
    query: String,
    authorization: Option<String>,
    api_key: Option<String>,
}

/// A listener that answers as kagent's API (one session, the grounded
/// capture, owned by the agent last listed) and as an OpenAI-compatible
/// judge (always satisfied), recording every request.
async fn listener() -> (String, Arc<Mutex<Vec<Seen>>>) {
    #[derive(Default)]
    struct Listener {
        seen: Arc<Mutex<Vec<Seen>>>,
        agent: Mutex<String>,
    }
    async fn answer(State(listener): State<Arc<Listener>>, request: Request) -> Response {
        let header = |name: &str| {
            request
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(String::from)
        };
        let path = request.uri().path().to_string();
        listener.seen.lock().unwrap().push(Seen {
            path: path.clone(),
            query: request.uri().query().unwrap_or_default().to_string(),
            authorization: header("authorization"),
            api_key: header("api-key"),
        });
        if path.ends_with("/chat/completions") {
            axum::Json(json!({
                "choices": [{"message": {"role": "assistant", "content": "{\"reasoning\": \"fine\", \"score\": 5, \"goal_met\": true}"}}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1}
            }))
            .into_response()
        } else if let Some(agent) = path.strip_prefix("/api/sessions/agent/") {
            *listener.agent.lock().unwrap() = agent.replace('-', "_").replace('/', "__NS__");
            let session = json!({"id": "grounded", "user_id": "u", "updated_at": jiff::Timestamp::now().to_string()});
            axum::Json(json!({"error": false, "data": [session], "message": "ok"})).into_response()
        } else if path == "/api/sessions/grounded" {
            let events: Vec<Value> = captured("weather-grounded.jsonl")
                .into_iter()
                .enumerate()
                .map(|(i, data)| json!({"id": format!("ev-{i}"), "data": data}))
                .collect();
            let agent = listener.agent.lock().unwrap().clone();
            axum::Json(json!({"error": false, "data": {"session": {"id": "grounded", "agent_id": agent}, "events": events}})).into_response()
        } else {
            StatusCode::NOT_FOUND.into_response()
        }
    }
    let state = Arc::new(Listener::default());
    let seen = state.seen.clone();
    let app = axum::Router::new().fallback(answer).with_state(state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, seen)
}

async fn secret(client: &kube::Client, ns: &str, name: &str, key: &str, value: &str) {
    let api: Api<KubeSecret> = Api::namespaced(client.clone(), ns);
    let body = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "stringData": {key: value}});
    api.patch(
        name,
        &PatchParams::apply("test").force(),
        &Patch::Apply(&body),
    )
    .await
    .unwrap();
}

/// Apply a suite, run it by hand and return the finished run's status.
async fn run_suite(client: &kube::Client, ns: &str, name: &str, suite: Value) -> EvalRunStatus {
    apply_suite(client, ns, &suite).await;
    let run = format!("{name}-now");
    run_now(client, ns, &run, name).await;
    finished(client, ns, &run, Duration::from_secs(60))
        .await
        .status
        .unwrap()
}

fn drain(seen: &Arc<Mutex<Vec<Seen>>>) -> Vec<Seen> {
    std::mem::take(&mut *seen.lock().unwrap())
}

fn api_tokens() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "trust-api").await;
        agent(&client, &ns, "weather-assistant", "weather").await;
        let (operators, operator_seen) = listener().await;
        let (suites, suite_seen) = listener().await;
        secret(&client, &ns, "own-token", "token", "suite-token-1a2b").await;
        let mut cfg = config(&ns, "replica-a", None);
        cfg.defaults = RunnerSettings {
            source: Some(SourceKind::KagentApi),
            api_url: Some(operators.clone()),
            api_token: Some(Secret::new("operator-token-9z8y")),
            api_user: Some("operator@kagent.dev".into()),
            ..RunnerSettings::new(Party::Operator)
        };
        let _replica = start(&plane, cfg).await;

        // A suite naming its own URL, without a token of its own.
        let mut suite = weather_suite(&ns, "own-url", "weather-assistant");
        suite["spec"]["source"] = json!({"kagentApi": {"url": suites, "userId": "alice@example.com"}});
        let status = run_suite(&client, &ns, "own-url", suite).await;
        assert_ne!(status.phase, Some(Phase::Error), "{status:?}");
        let seen = drain(&suite_seen);
        assert!(!seen.is_empty());
        assert!(seen.iter().all(|s| s.authorization.is_none()), "{seen:?}");
        assert!(seen.iter().all(|s| s.query.contains("user_id=alice%40example.com") || s.query.contains("user_id=u")), "the suite's user is honoured: {seen:?}");
        assert!(seen.iter().any(|s| s.query.contains("user_id=alice%40example.com")), "{seen:?}");
        assert!(drain(&operator_seen).is_empty());
        assert!(status.source.unwrap().starts_with("the suite's own kagent API at"));

        // With its own Secret, exactly that token.
        let mut suite = weather_suite(&ns, "own-token", "weather-assistant");
        suite["spec"]["source"] = json!({"kagentApi": {"url": suites, "tokenSecretRef": {"name": "own-token", "key": "token"}}});
        run_suite(&client, &ns, "own-token", suite).await;
        let seen = drain(&suite_seen);
        assert!(!seen.is_empty() && seen.iter().all(|s| s.authorization.as_deref() == Some("Bearer suite-token-1a2b")), "{seen:?}");
        assert!(seen.iter().any(|s| s.query.contains("user_id=operator%40kagent.dev")), "{seen:?}");

        // No source of its own: the operator's API, token and default user.
        let suite = weather_suite(&ns, "operators", "weather-assistant");
        let status = run_suite(&client, &ns, "operators", suite).await;
        let seen = drain(&operator_seen);
        assert!(!seen.is_empty() && seen.iter().all(|s| s.authorization.as_deref() == Some("Bearer operator-token-9z8y")), "{seen:?}");
        assert!(status.source.unwrap().starts_with("the operator's kagent API at"));
        assert!(drain(&suite_seen).is_empty());
    });
}

fn judged(ns: &str, name: &str, judge: Value) -> Value {
    let mut suite = weather_suite(ns, name, "weather-assistant");
    suite["spec"]["source"] = json!({"kagentApi": {}});
    suite["spec"]["judge"] = judge;
    suite["spec"]["cases"] = json!([{
        "name": "goal",
        "evaluators": [{"name": "outcome", "type": "outcomeJudge", "outcomeJudge": {}}]
    }]);
    suite
}

fn judge_keys() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "trust-judge").await;
        agent(&client, &ns, "weather-assistant", "weather").await;
        let (api, _) = listener().await;
        let (operators, operator_seen) = listener().await;
        let (suites, suite_seen) = listener().await;
        secret(&client, &ns, "own-key", "key", "suite-key-3c4d").await;
        let mut cfg = config(&ns, "replica-a", None);
        cfg.defaults = RunnerSettings {
            source: Some(SourceKind::KagentApi),
            api_url: Some(api),
            judge_url: Some(format!("{operators}/v1")),
            judge_model: Some("operator-model".into()),
            judge_api_key: Some(Secret::new("operator-key-7e6f")),
            ..RunnerSettings::new(Party::Operator)
        };
        let _replica = start(&plane, cfg).await;

        run_suite(&client, &ns, "judge-own-url", judged(&ns, "judge-own-url", json!({"url": format!("{suites}/v1"), "model": "m"}))).await;
        let seen = drain(&suite_seen);
        assert!(seen.iter().any(|s| s.path == "/v1/chat/completions"), "the judge was asked: {seen:?}");
        assert!(seen.iter().all(|s| s.authorization.is_none()), "{seen:?}");
        assert!(drain(&operator_seen).is_empty());

        let own = json!({"url": format!("{suites}/v1"), "model": "m", "apiKeySecretRef": {"name": "own-key", "key": "key"}});
        run_suite(&client, &ns, "judge-own-key", judged(&ns, "judge-own-key", own)).await;
        let seen = drain(&suite_seen);
        assert!(seen.iter().any(|s| s.path == "/v1/chat/completions"), "{seen:?}");
        assert!(seen.iter().all(|s| s.authorization.as_deref() == Some("Bearer suite-key-3c4d")), "{seen:?}");

        run_suite(&client, &ns, "judge-operators", judged(&ns, "judge-operators", json!({}))).await;
        let seen = drain(&operator_seen);
        assert!(seen.iter().any(|s| s.path == "/v1/chat/completions"), "{seen:?}");
        assert!(seen.iter().all(|s| s.authorization.as_deref() == Some("Bearer operator-key-7e6f")), "{seen:?}");
        assert!(drain(&suite_seen).is_empty());
    });
}

fn model_configs() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "trust-models").await;
        agent(&client, &ns, "weather-assistant", "weather").await;
        let (api, _) = listener().await;
        let (azure, azure_seen) = listener().await;
        secret(&client, &ns, "azure-key", "key", "azure-key-5g6h").await;
        let resource = kube::api::ApiResource::from_gvk(&kube::api::GroupVersionKind::gvk("kagent.dev", "v1alpha2", "ModelConfig"));
        let configs: Api<DynamicObject> = Api::namespaced_with(client.clone(), &ns, &resource);
        for (name, spec) in [
            ("azure", json!({"provider": "AzureOpenAI", "model": "gpt-4o", "apiKeySecret": "azure-key", "apiKeySecretKey": "key",
                             "azureOpenAI": {"azureEndpoint": azure, "apiVersion": "2024-06-01", "azureDeployment": "prod"}})),
            ("bedrock", json!({"provider": "Bedrock", "model": "anthropic.claude", "apiKeySecret": "azure-key", "bedrock": {"region": "eu-west-1"}})),
        ] {
            let body = json!({"apiVersion": "kagent.dev/v1alpha2", "kind": "ModelConfig", "metadata": {"name": name}, "spec": spec});
            configs.patch(name, &PatchParams::apply("test"), &Patch::Apply(&body)).await.unwrap();
        }
        let mut cfg = config(&ns, "replica-a", None);
        cfg.defaults = RunnerSettings {
            source: Some(SourceKind::KagentApi),
            api_url: Some(api),
            ..RunnerSettings::new(Party::Operator)
        };
        let _replica = start(&plane, cfg).await;

        let status = run_suite(&client, &ns, "azure-judged", judged(&ns, "azure-judged", json!({"modelConfigRef": {"name": "azure"}}))).await;
        assert_ne!(status.phase, Some(Phase::Error), "{status:?}");
        let seen = drain(&azure_seen);
        let chat: Vec<&Seen> = seen.iter().filter(|s| s.path.ends_with("/chat/completions")).collect();
        // The one-token preflight, then the judged call: both the same way.
        assert_eq!(chat.len(), 2, "{seen:?}");
        for chat in chat {
            assert_eq!(chat.path, "/openai/deployments/prod/chat/completions");
            assert_eq!(chat.query, "api-version=2024-06-01");
            assert_eq!(chat.api_key.as_deref(), Some("azure-key-5g6h"));
        }
        assert!(seen.iter().all(|s| s.authorization.is_none()), "{seen:?}");

        let status = run_suite(&client, &ns, "bedrock-judged", judged(&ns, "bedrock-judged", json!({"modelConfigRef": {"name": "bedrock"}}))).await;
        assert_eq!(status.phase, Some(Phase::Error));
        let passed = status.conditions.iter().find(|c| c.type_ == "Passed").unwrap();
        assert_eq!(passed.reason, "JudgeUnavailable");
        assert!(passed.message.contains("provider Bedrock"), "{}", passed.message);
        assert!(drain(&azure_seen).is_empty(), "nothing was sent anywhere");
    });
}

fn adk_database() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "trust-adk").await;
        agent(&client, &ns, "weather-assistant", "weather").await;
        let db = TestDatabase::create("trustadk").await;
        let dump = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/adk-database/postgres.sql")).unwrap();
        db.execute(&dump).await;
        let mut cfg = config(&ns, "replica-a", None);
        cfg.defaults = RunnerSettings {
            source: Some(SourceKind::AdkDatabase),
            database_url: Some(Secret::new(db.url.clone())),
            ..RunnerSettings::new(Party::Operator)
        };
        let _replica = start(&plane, cfg).await;

        // The operator's ADK database holds every app; a suite reads its Agent's only.
        let mut suite = weather_suite(&ns, "other-app", "weather-assistant");
        suite["spec"]["source"] = json!({"adkDatabase": {"appName": "weather_app"}});
        let status = run_suite(&client, &ns, "other-app", suite).await;
        assert_eq!(status.phase, Some(Phase::Error));
        let complete = status.conditions.iter().find(|c| c.type_ == "Complete").unwrap();
        assert_eq!(complete.reason, "Forbidden");
        assert!(complete.message.contains("not weather_app"), "{}", complete.message);

        // A database of its own, from its own Secret, may hold any app.
        secret(&client, &ns, "own-db", "url", &db.url).await;
        let mut suite = weather_suite(&ns, "own-db", "weather-assistant");
        suite["spec"]["source"] = json!({"adkDatabase": {"appName": "weather_app", "urlSecretRef": {"name": "own-db", "key": "url"}}});
        suite["spec"]["cases"] = json!([{"name": "read", "evaluators": [{"name": "l", "type": "loops", "loops": {}}]}]);
        suite["spec"]["sessions"] = json!({});
        let status = run_suite(&client, &ns, "own-db", suite).await;
        assert_eq!(status.phase, Some(Phase::Succeeded), "{status:?}");
        assert_eq!(status.sessions_evaluated, Some(3));
        assert!(status.source.unwrap().starts_with("the suite's own ADK PostgreSQL database"));
    });
}

/// A path as gorilla/mux matches it with its default settings: decoded
/// (`%2F` is a `/` again), then cleaned as Go's `path.Clean` does; a path
/// that cleaning changes is answered with a 301 to the clean one.
fn as_gorilla_sees_it(raw: &str) -> (String, bool) {
    let decoded = percent_encoding::percent_decode_str(raw)
        .decode_utf8_lossy()
        .to_string();
    let mut clean: Vec<&str> = Vec::new();
    for segment in decoded.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                clean.pop();
            }
            s => clean.push(s),
        }
    }
    let mut cleaned = format!("/{}", clean.join("/"));
    if decoded.ends_with('/') && cleaned != "/" {
        cleaned.push('/');
    }
    let moved = cleaned != decoded;
    (cleaned, moved)
}

/// What the decoding router saw: each request's decoded, cleaned path and
/// its bearer token.
type Routed = Arc<Mutex<Vec<(String, Option<String>)>>>;

/// kagent's session routes behind a router that decodes and cleans paths.
/// The agent `weather-assistant` of `ns` lists, beside its one real
/// session, ids that a decoding router reads as other routes; the agent
/// `redirecting` lists one session whose route answers a redirect into
/// another namespace.
async fn decoding_kagent(ns: &str) -> (String, Routed) {
    struct Routes {
        seen: Routed,
        owner: String,
    }
    async fn answer(State(routes): State<Arc<Routes>>, request: Request) -> Response {
        let (path, moved) = as_gorilla_sees_it(request.uri().path());
        let token = request
            .headers()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(String::from);
        routes.seen.lock().unwrap().push((path.clone(), token));
        if moved {
            return (StatusCode::MOVED_PERMANENTLY, [("location", path)]).into_response();
        }
        let listing = |ids: &[&str]| {
            let now = jiff::Timestamp::now().to_string();
            let sessions: Vec<Value> = ids
                .iter()
                .map(|id| json!({"id": id, "user_id": "u", "updated_at": now}))
                .collect();
            axum::Json(json!({"error": false, "data": sessions})).into_response()
        };
        let listed = path.strip_prefix("/api/sessions/agent/");
        match path.as_str() {
            _ if listed.is_some_and(|a| a.ends_with("/weather-assistant")) => listing(&[
                "grounded",
                "agent/team-b/k8s-agent",
                "..",
                "../../api/sessions/agent/team-b/k8s-agent",
                "a%2Fb",
                "a\\b",
                "a?b",
            ]),
            _ if listed.is_some_and(|a| a.ends_with("/redirecting")) => listing(&["redirected"]),
            "/api/sessions/redirected" => (
                StatusCode::MOVED_PERMANENTLY,
                [("location", "/api/sessions/agent/team-b/k8s-agent")],
            )
                .into_response(),
            "/api/sessions/grounded" => {
                let events: Vec<Value> = captured("weather-grounded.jsonl")
                    .into_iter()
                    .enumerate()
                    .map(|(i, data)| json!({"id": format!("ev-{i}"), "data": data}))
                    .collect();
                let session = json!({"id": "grounded", "agent_id": routes.owner});
                axum::Json(json!({"error": false, "data": {"session": session, "events": events}}))
                    .into_response()
            }
            _ => (
                StatusCode::NOT_FOUND,
                axum::Json(json!({"error": "not found"})),
            )
                .into_response(),
        }
    }
    let routes = Arc::new(Routes {
        seen: Routed::default(),
        owner: format!("{ns}__NS__weather_assistant").replace('-', "_"),
    });
    let seen = routes.seen.clone();
    let app = axum::Router::new().fallback(answer).with_state(routes);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, seen)
}

/// Session ids listed by kagent that a decoding router reads as other
/// routes are never asked for, and a redirect is never followed: the
/// operator's token reaches only the suite's Agent's routes.
fn decoding_router() {
    let plane = control_plane();
    runtime().block_on(async {
        let client = plane.client().await;
        let ns = namespace(&client, "trust-routes").await;
        agent(&client, &ns, "weather-assistant", "weather").await;
        agent(&client, &ns, "redirecting", "weather").await;
        let (url, seen) = decoding_kagent(&ns).await;
        let mut cfg = config(&ns, "replica-a", None);
        cfg.defaults = RunnerSettings {
            source: Some(SourceKind::KagentApi),
            api_url: Some(url),
            api_token: Some(Secret::new("operator-token-9z8y")),
            ..RunnerSettings::new(Party::Operator)
        };
        let replica = start(&plane, cfg).await;
        let hostile = run_suite(
            &client,
            &ns,
            "hostile-ids",
            weather_suite(&ns, "hostile-ids", "weather-assistant"),
        )
        .await;
        let redirected = run_suite(
            &client,
            &ns,
            "redirected",
            weather_suite(&ns, "redirected", "redirecting"),
        )
        .await;
        replica.stop().await;

        let seen = std::mem::take(&mut *seen.lock().unwrap());
        let allowed = [
            format!("/api/sessions/agent/{ns}/weather-assistant"),
            format!("/api/sessions/agent/{ns}/redirecting"),
            "/api/sessions/grounded".to_string(),
            "/api/sessions/grounded/tasks".to_string(),
            "/api/sessions/redirected".to_string(),
        ];
        assert!(
            seen.iter()
                .any(|(path, _)| path == "/api/sessions/grounded"),
            "{seen:?}"
        );
        assert!(
            seen.iter()
                .any(|(path, _)| path == "/api/sessions/redirected"),
            "{seen:?}"
        );
        let strayed: Vec<_> = seen
            .iter()
            .filter(|(path, _)| !allowed.contains(path))
            .collect();
        assert!(
            strayed.is_empty(),
            "requests outside the Agent's routes: {strayed:?}"
        );
        // The ids were refused, and said to be: the run does not pass on
        // sessions it did not read.
        assert_ne!(hostile.phase, Some(Phase::Succeeded), "{hostile:?}");
        assert_eq!(redirected.phase, Some(Phase::Error), "{redirected:?}");
        assert!(
            redirected
                .message
                .as_deref()
                .unwrap_or("")
                .contains("not followed"),
            "{redirected:?}"
        );
    });
}
