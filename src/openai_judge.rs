//! The judge adapter: an OpenAI-compatible chat-completions endpoint
//! (OpenAI, Azure's v1 API, vLLM, Ollama, LiteLLM, ...). It asks for JSON
//! schema structured output; the core's parser reads answers from endpoints
//! that ignore it.

use crate::core::judge::{Judge, JudgeAnswer, JudgeError, JudgeRequest};
use crate::http_client::{self, HttpError, Retry, Throttle};
use crate::resolve::{JudgeAuth, JudgeSettings};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

pub struct OpenAiJudge {
    completions: reqwest::Url,
    model: String,
    auth: JudgeAuth,
    query: Vec<(String, String)>,
    headers: Vec<(String, String)>,
    client: reqwest::Client,
    retry: Retry,
    /// The endpoint for messages: scheme, host and path, no credentials.
    name: String,
    /// Set once the endpoint refused structured output; later requests go
    /// without it and rely on the answer parser.
    plain_json: AtomicBool,
    /// Shared by the run's concurrent calls: a 429 or 503 with
    /// `Retry-After` pauses them all.
    throttle: Throttle,
}

impl OpenAiJudge {
    pub fn new(settings: &JudgeSettings, retry: Retry) -> Result<Self, JudgeError> {
        let base = settings.url.trim_end_matches('/').to_string();
        let parsed = reqwest::Url::parse(&base)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"));
        let Some(parsed) = parsed else {
            return Err(JudgeError(
                "the judge URL must be an http:// or https:// URL".into(),
            ));
        };
        if settings.model.trim().is_empty() {
            return Err(JudgeError("the judge needs a model name".into()));
        }
        let name = format!(
            "{}://{}{}",
            parsed.scheme(),
            parsed.host_str().unwrap_or_default(),
            parsed.port().map(|p| format!(":{p}")).unwrap_or_default()
        ) + parsed.path();
        let route = |segments: &[&str]| http_client::endpoint(&base, segments).map_err(JudgeError);
        Ok(OpenAiJudge {
            client: http_client::client(settings.timeout).map_err(JudgeError)?,
            completions: route(&["chat", "completions"])?,

            model: settings.model.clone(),
            auth: settings.auth.clone(),
            query: settings.query.clone(),
            headers: settings.headers.clone(),
            retry,
            name,
            plain_json: AtomicBool::new(false),
            throttle: Throttle::default(),
        })
    }

    fn request(&self, method: reqwest::Method, url: &reqwest::Url) -> reqwest::RequestBuilder {
        let mut request = self.client.request(method, url.clone()).query(&self.query);
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        match &self.auth {
            JudgeAuth::None => request,
            JudgeAuth::Bearer(key) => request.bearer_auth(key.expose()),
            JudgeAuth::Header(name, key) => request.header(*name, key.expose()),
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
        JudgeError(match &self.auth {
            JudgeAuth::Bearer(key) | JudgeAuth::Header(_, key) => key.scrub(&message),
            JudgeAuth::None => message,
        })
    }
}

impl OpenAiJudge {
    async fn post(&self, body: &Value) -> Result<reqwest::Response, HttpError> {
        http_client::send_throttled(
            || {
                self.request(reqwest::Method::POST, &self.completions)
                    .json(body)
            },
            self.retry,
            Some(&self.throttle),
        )
        .await
    }
}

impl Judge for OpenAiJudge {
    /// One chat completion of one token from the configured model: a
    /// wrong model name, a key without chat permission or a proxy that
    /// lists models but refuses completions all fail here, once, rather
    /// than every judged case one by one. Models that refuse `max_tokens`
    /// (OpenAI's reasoning models) are asked with `max_completion_tokens`.
    async fn check(&self) -> Result<(), JudgeError> {
        let ask = |limit: &str| {
            json!({
                "model": self.model,
                "messages": [{"role": "user", "content": "Answer with one word: ready."}],
                limit: 1,
            })
        };
        let response = match self.post(&ask("max_tokens")).await {
            Err(HttpError::Status { status, message })
                if status == reqwest::StatusCode::BAD_REQUEST
                    && message.contains("max_completion_tokens") =>
            {
                self.post(&ask("max_completion_tokens")).await
            }
            other => other,
        }
        .map_err(|e| {
            JudgeError(format!(
                "a one-token completion from model {} failed: {}",
                self.model,
                self.failure(e).0
            ))
        })?;
        let answer: Value = response.json().await.map_err(|e| {
            JudgeError(format!(
                "{} answered a one-token completion with a body that is not JSON: {e}",
                self.name
            ))
        })?;
        if answer["choices"].as_array().is_none_or(Vec::is_empty) {
            return Err(JudgeError(format!(
                "{} answered a one-token completion from model {} without choices",
                self.name, self.model
            )));
        }
        Ok(())
    }

    async fn ask(&self, request: &JudgeRequest) -> Result<JudgeAnswer, JudgeError> {
        let model = request.model.as_deref().unwrap_or(&self.model);
        let mut body = json!({"model": model, "messages": request.messages});
        if let Some(temperature) = request.temperature {
            body["temperature"] = json!(temperature);
        }
        let started = Instant::now();
        // A null schema is a request for text, in a format the prompt states.
        let response = if self.plain_json.load(Ordering::Relaxed) || request.schema.is_null() {
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
            model: answer["model"]
                .as_str()
                .map_or_else(|| model.to_string(), String::from),
            content,
            prompt_tokens: tokens("prompt_tokens"),
            completion_tokens: tokens("completion_tokens"),
            seconds,
        })
    }
}
