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

/// `base` with `segments` added to its path, one path segment each. A
/// segment holding what a router may read as structure is refused, not
/// escaped: kagent's router (gorilla/mux) matches the decoded path, so an
/// escaped `/` is a separator again there. Refused: `/`, `\`, `%`, `?`,
/// `#`, control characters, and an empty, `.` or `..` segment (a URL
/// parser would resolve it). Every URL built from a value a suite, a
/// tenant's object or a record supplies is built here. An empty last
/// segment gives a trailing slash.
pub fn endpoint(base: &str, segments: &[&str]) -> Result<reqwest::Url, String> {
    let mut url = reqwest::Url::parse(base).map_err(|e| format!("{base} is not a URL: {e}"))?;
    let last = segments.len().saturating_sub(1);
    for (i, segment) in segments.iter().enumerate() {
        if matches!(*segment, "." | "..") || (segment.is_empty() && i != last) {
            return Err(format!("{segment:?} cannot be a segment of a URL path"));
        }
        if let Some(c) = segment
            .chars()
            .find(|c| matches!(c, '/' | '\\' | '%' | '?' | '#'))
        {
            return Err(format!(
                "{segment:?} holds {c:?}, which a router may read as part of the path; refused"
            ));
        }
        if segment.chars().any(char::is_control) {
            return Err(format!("{segment:?} holds a control character"));
        }
    }
    url.path_segments_mut()
        .map_err(|()| format!("{base} cannot have a path"))?
        .pop_if_empty()
        .extend(segments);
    Ok(url)
}

/// A client that answers a redirect with the redirect itself: every party
/// we call gets a credential (a bearer token, an API key), and a redirect
/// is never followed with it, to another origin or to another path of the
/// same one.
pub fn client(timeout: Duration) -> Result<reqwest::Client, String> {
    builder(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| format!("cannot build an HTTP client: {e}"))
}

fn builder(timeout: Duration) -> reqwest::ClientBuilder {
    // Installing twice is harmless; the first provider stays.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(Duration::from_secs(10))
        .user_agent(concat!("kagent-evals/", env!("CARGO_PKG_VERSION")))
}

/// A response's body, refused once it passes `limit` bytes: a server that
/// never stops sending is not read into memory.
pub async fn read_bounded(
    mut response: reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, String> {
    if response
        .content_length()
        .is_some_and(|length| length > limit as u64)
    {
        return Err(format!("a body over {limit} bytes, not read"));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| describe(&e))? {
        if body.len() + chunk.len() > limit {
            return Err(format!("a body over {limit} bytes, not read"));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

fn retryable(status: reqwest::StatusCode) -> bool {
    status.is_server_error() || status == reqwest::StatusCode::TOO_MANY_REQUESTS
}

/// Send the request `build` makes, again on transient failures.
pub async fn send(
    build: impl Fn() -> reqwest::RequestBuilder,
    retry: Retry,
) -> Result<reqwest::Response, HttpError> {
    send_throttled(build, retry, None).await
}

/// The longest pause a `Retry-After` may ask for.
pub const RETRY_AFTER_CAP: Duration = Duration::from_secs(60);

/// One pause shared by every request to an endpoint: when it answers 429
/// or 503 with `Retry-After`, no request is sent to it before then (capped
/// at [`RETRY_AFTER_CAP`]), rather than each caller hammering it on its own
/// back-off.
#[derive(Debug, Default)]
pub struct Throttle {
    until: std::sync::Mutex<Option<tokio::time::Instant>>,
}

impl Throttle {
    async fn wait(&self) {
        let until = *self.until.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(until) = until {
            tokio::time::sleep_until(until).await;
        }
    }

    fn hold_for(&self, pause: Duration) {
        let until = tokio::time::Instant::now() + pause;
        let mut held = self.until.lock().unwrap_or_else(|e| e.into_inner());
        if held.is_none_or(|h| h < until) {
            *held = Some(until);
        }
    }
}

/// What a `Retry-After` header asks: seconds, or an HTTP date.
fn retry_after(response: &reqwest::Response, now: jiff::Timestamp) -> Option<Duration> {
    let value = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = jiff::fmt::rfc2822::parse(value).ok()?.timestamp();
    Some(at.duration_since(now).try_into().unwrap_or(Duration::ZERO))
}

/// [`send`], waiting for `throttle` before each attempt and holding it for
/// what a 429 or 503 says in `Retry-After`.
pub async fn send_throttled(
    build: impl Fn() -> reqwest::RequestBuilder,
    retry: Retry,
    throttle: Option<&Throttle>,
) -> Result<reqwest::Response, HttpError> {
    let mut pause = retry.first_pause;
    let mut last = String::new();
    for attempt in 1..=retry.attempts.max(1) {
        if let Some(throttle) = throttle {
            throttle.wait().await;
        }
        let mut asked = None;
        match build().send().await {
            Ok(response) if response.status().is_success() => return Ok(response),
            Ok(response) if response.status().is_redirection() => {
                let to = response
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|l| l.to_str().ok())
                    .map(crate::core::redact::url_for_display)
                    .unwrap_or_default();
                return Err(HttpError::Status {
                    status: response.status(),
                    message: format!("a redirect to {to:?}, not followed"),
                });
            }
            Ok(response) if !retryable(response.status()) => {
                let status = response.status();
                let message = response.text().await.unwrap_or_default();
                return Err(HttpError::Status {
                    status,
                    message: message.chars().take(300).collect(),
                });
            }
            Ok(response) => {
                last = format!("answered {}", response.status());
                asked = retry_after(&response, jiff::Timestamp::now())
                    .map(|asked| asked.min(RETRY_AFTER_CAP));
            }
            Err(e) => last = describe(&e),
        }
        if attempt < retry.attempts {
            let wait = match (asked, throttle) {
                (Some(asked), Some(throttle)) => {
                    throttle.hold_for(asked);
                    Duration::ZERO
                }
                (Some(asked), None) => asked,
                (None, _) => pause,
            };
            tracing::debug!(
                attempt,
                pause_ms = wait.as_millis() as u64,
                "retrying: {last}"
            );
            tokio::time::sleep(wait).await;
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

#[cfg(test)]
mod tests {
    use super::endpoint;

    #[test]
    fn a_segment_stays_one_segment_even_after_a_router_decodes_it() {
        let base = "http://kagent:8083/base/";
        let built = |segment: &str| {
            endpoint(base, &["api", "a2a", segment, "agent", ""]).map(|u| u.to_string())
        };
        for (segment, path) in [
            ("team-a", "/base/api/a2a/team-a/agent/"),
            ("équipe", "/base/api/a2a/%C3%A9quipe/agent/"),
            ("..a", "/base/api/a2a/..a/agent/"),
            ("a:b@c+d=e~f", "/base/api/a2a/a:b@c+d=e~f/agent/"),
        ] {
            let url = built(segment).unwrap();
            assert_eq!(url, format!("http://kagent:8083{path}"), "{segment:?}");
            let parsed = reqwest::Url::parse(&url).unwrap();
            assert_eq!(parsed.path_segments().unwrap().count(), 6, "{url}");
            assert_eq!(parsed.query(), None);
            assert_eq!(parsed.fragment(), None);
        }
        // Escaped, each of these is a separator again once decoded.
        for hostile in [
            "..", ".", "", "a\nb", "team/b", "%2F", "a%2Fb", "a?b", "a#b", "a\\b",
        ] {
            assert!(built(hostile).is_err(), "{hostile:?} was accepted");
        }
        assert_eq!(
            endpoint("http://judge/v1", &["chat", "completions"])
                .unwrap()
                .as_str(),
            "http://judge/v1/chat/completions"
        );
    }
}
