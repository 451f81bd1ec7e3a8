//! The judge adapter: an OpenAI-compatible chat-completions endpoint
//! (OpenAI, Azure's v1 API, vLLM, Ollama, LiteLLM, ...). It asks for JSON
//! schema structured output; the core's parser reads answers from endpoints
//! that ignore it.

use crate::core::judge::{Judge, JudgeAnswer, JudgeError, JudgeRequest};
use crate::core::suite::spec::JudgeSpec;
use crate::http_client::{self, HttpError, Retry};
use crate::source::Secret;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Where the judge is and who we are to it.
#[derive(Clone, Debug)]
pub struct JudgeEndpoint {
    /// Base URL up to and including `/v1`.
    pub url: String,
    pub model: String,
    pub api_key: Option<Secret>,
    pub timeout: Duration,
}

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The judge a suite asks: its `judge` settings, each overridden by what
/// the command line or the operator provides. `None` when no URL or model
/// is known; a run that needs a judge then ends in an error saying so.
pub fn configure(
    spec: Option<&JudgeSpec>,
    url: Option<String>,
    model: Option<String>,
    api_key: Option<Secret>,
) -> Result<Option<OpenAiJudge>, JudgeError> {
    let url = url.or_else(|| spec.and_then(|s| s.url.clone()));
    let model = model.or_else(|| spec.and_then(|s| s.model.clone()));
    let (Some(url), Some(model)) = (url, model) else {
        return Ok(None);
    };
    let timeout = spec
        .and_then(|s| s.timeout_seconds)
        .map_or(DEFAULT_TIMEOUT, |s| Duration::from_secs(s.into()));
    OpenAiJudge::new(
        JudgeEndpoint {
            url,
            model,
            api_key,
            timeout,
        },
        Retry::default(),
    )
    .map(Some)
}

pub struct OpenAiJudge {
    base: String,
    model: String,
    api_key: Option<Secret>,
    client: reqwest::Client,
    retry: Retry,
    /// The endpoint for messages: scheme, host and path, no credentials.
    name: String,
    /// Set once the endpoint refused structured output; later requests go
    /// without it and rely on the answer parser.
    plain_json: AtomicBool,
}

impl OpenAiJudge {
    pub fn new(endpoint: JudgeEndpoint, retry: Retry) -> Result<Self, JudgeError> {
        let base = endpoint.url.trim_end_matches('/').to_string();
        let parsed = reqwest::Url::parse(&base)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"));
        let Some(parsed) = parsed else {
            return Err(JudgeError(
                "the judge URL must be an http:// or https:// URL".into(),
            ));
        };
        if endpoint.model.trim().is_empty() {
            return Err(JudgeError("the judge needs a model name".into()));
        }
        let name = format!(
            "{}://{}{}",
            parsed.scheme(),
            parsed.host_str().unwrap_or_default(),
            parsed.port().map(|p| format!(":{p}")).unwrap_or_default()
        ) + parsed.path();
        Ok(OpenAiJudge {
            client: http_client::client(endpoint.timeout).map_err(JudgeError)?,
            base,
            model: endpoint.model,
            api_key: endpoint.api_key,
            retry,
            name,
            plain_json: AtomicBool::new(false),
        })
    }

    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let request = self.client.request(method, format!("{}{path}", self.base));
        match &self.api_key {
            Some(key) => request.bearer_auth(key.expose()),
            None => request,
        }
    }

    /// An HTTP failure as the user should read it, without the key.
    fn failure(&self, error: HttpError) -> JudgeError {
        let message = match error {
            HttpError::Status { status, .. }
                if status == reqwest::StatusCode::UNAUTHORIZED
                    || status == reqwest::StatusCode::FORBIDDEN =>
            {
                format!("{} rejected the API key ({status})", self.name)
            }
            HttpError::Status { status, message } => {
                format!("{} answered {status}: {message}", self.name)
            }
            HttpError::Transport(detail) => format!("{} is unreachable: {detail}", self.name),
        };
        JudgeError(match &self.api_key {
            Some(key) => key.scrub(&message),
            None => message,
        })
    }
}

impl OpenAiJudge {
    async fn post(&self, body: &Value) -> Result<reqwest::Response, HttpError> {
        http_client::send(
            || {
                self.request(reqwest::Method::POST, "/chat/completions")
                    .json(body)
            },
            self.retry,
        )
        .await
    }
}

impl Judge for OpenAiJudge {
    /// `GET /models`, which every OpenAI-compatible server answers cheaply;
    /// a server without it (404, 405) is reachable, which is what counts.
    async fn check(&self) -> Result<(), JudgeError> {
        match http_client::send(|| self.request(reqwest::Method::GET, "/models"), self.retry).await
        {
            Ok(_) => Ok(()),
            Err(HttpError::Status { status, .. })
                if status == reqwest::StatusCode::NOT_FOUND
                    || status == reqwest::StatusCode::METHOD_NOT_ALLOWED =>
            {
                Ok(())
            }
            Err(error) => Err(self.failure(error)),
        }
    }

    async fn ask(&self, request: &JudgeRequest) -> Result<JudgeAnswer, JudgeError> {
        let mut body = json!({"model": self.model, "messages": request.messages});
        if let Some(temperature) = request.temperature {
            body["temperature"] = json!(temperature);
        }
        let started = Instant::now();
        let response = if self.plain_json.load(Ordering::Relaxed) {
            self.post(&body).await
        } else {
            let mut structured = body.clone();
            structured["response_format"] = json!({
                "type": "json_schema",
                "json_schema": {"name": request.schema_name, "strict": true, "schema": request.schema}
            });
            match self.post(&structured).await {
                // Older servers and some proxies refuse `response_format`;
                // the prompt states the schema, so ask again without it.
                Err(HttpError::Status { status, .. }) if status == reqwest::StatusCode::BAD_REQUEST => {
                    tracing::warn!(
                        "{} refused a request with structured output (400); asking without it from now on",
                        self.name
                    );
                    self.plain_json.store(true, Ordering::Relaxed);
                    self.post(&body).await
                }
                other => other,
            }
        }
        .map_err(|e| self.failure(e))?;
        let answer: Value = response
            .json()
            .await
            .map_err(|e| JudgeError(format!("{} sent a body that is not JSON: {e}", self.name)))?;
        let seconds = started.elapsed().as_secs_f64();
        let message = &answer["choices"][0]["message"];
        let content = match (&message["content"], &message["refusal"]) {
            (Value::String(content), _) => content.clone(),
            // The refusal's words may quote the conversation; they stay out.
            (_, Value::String(_)) => {
                return Err(JudgeError(format!(
                    "the model at {} refused to judge",
                    self.name
                )));
            }
            _ => {
                return Err(JudgeError(format!(
                    "{} answered without choices[0].message.content",
                    self.name
                )));
            }
        };
        let tokens = |field: &str| answer["usage"][field].as_u64().unwrap_or(0);
        Ok(JudgeAnswer {
            content,
            prompt_tokens: tokens("prompt_tokens"),
            completion_tokens: tokens("completion_tokens"),
            seconds,
        })
    }
}
