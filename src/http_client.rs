//! The HTTP client for the kagent API and judge endpoints: rustls on ring
//! (the TLS stack kube and sqlx use too), timeouts, and retries with
//! exponential backoff on connection errors, timeouts, 429 and 5xx. Other
//! 4xx answers are final: retrying a bad token does not fix it.

use std::time::Duration;

/// Attempts and the first pause; each later pause doubles.
#[derive(Clone, Copy, Debug)]
pub struct Retry {
    pub attempts: u32,
    pub first_pause: Duration,
}

impl Default for Retry {
    fn default() -> Self {
        Retry {
            attempts: 4,
            first_pause: Duration::from_millis(250),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// The server answered, with a status that retrying will not change.
    #[error("{status} {message}")]
    Status {
        status: reqwest::StatusCode,
        message: String,
    },
    /// No usable answer after every attempt.
    #[error("{0}")]
    Transport(String),
}

pub fn client(timeout: Duration) -> Result<reqwest::Client, String> {
    // Installing twice is harmless; the first provider stays.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(Duration::from_secs(10))
        .user_agent(concat!("kagent-evals/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| format!("cannot build an HTTP client: {e}"))
}

fn retryable(status: reqwest::StatusCode) -> bool {
    status.is_server_error() || status == reqwest::StatusCode::TOO_MANY_REQUESTS
}

/// Send the request `build` makes, again on transient failures.
pub async fn send(
    build: impl Fn() -> reqwest::RequestBuilder,
    retry: Retry,
) -> Result<reqwest::Response, HttpError> {
    let mut pause = retry.first_pause;
    let mut last = String::new();
    for attempt in 1..=retry.attempts.max(1) {
        match build().send().await {
            Ok(response) if response.status().is_success() => return Ok(response),
            Ok(response) if !retryable(response.status()) => {
                let status = response.status();
                let message = response.text().await.unwrap_or_default();
                return Err(HttpError::Status {
                    status,
                    message: message.chars().take(300).collect(),
                });
            }
            Ok(response) => last = format!("answered {}", response.status()),
            Err(e) => last = describe(&e),
        }
        if attempt < retry.attempts {
            tracing::debug!(
                attempt,
                pause_ms = pause.as_millis() as u64,
                "retrying: {last}"
            );
            tokio::time::sleep(pause).await;
            pause *= 2;
        }
    }
    Err(HttpError::Transport(format!(
        "{last} (after {} attempts)",
        retry.attempts.max(1)
    )))
}

/// A transport error without the URL reqwest puts in its message (a
/// URL may carry a query with credentials).
fn describe(error: &reqwest::Error) -> String {
    let kind = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "could not connect"
    } else {
        "request failed"
    };
    let mut source = std::error::Error::source(error);
    let mut detail = String::new();
    while let Some(cause) = source {
        detail = cause.to_string();
        source = cause.source();
    }
    if detail.is_empty() {
        kind.to_string()
    } else {
        format!("{kind}: {detail}")
    }
}
