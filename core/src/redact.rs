//! Secrets out of anything a person may read: saved events, printed
//! trajectories, URLs in messages.
//!
//! kagent records the caller's request headers in `header_update` events
//! (`actions.state_delta.headers`), bearer JWTs and user ids included, and
//! tools return tokens and connection strings in their output. Before events
//! are written anywhere a person may read them, every value under a
//! credential-like key becomes `REDACTED`, and in every string (object keys
//! included) JWTs, bearer and basic credentials, cookie headers and the user
//! info of URLs do too. Only a value that is exactly a redaction is taken as
//! already scrubbed.

use regex::Regex;
use serde_json::{Map, Value};
use std::sync::LazyLock;

pub const REDACTED: &str = "REDACTED";

/// Whole keys whose values are credentials or identities.
const SECRET_KEYS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "x-user-id",
    "apikey",
    "passwd",
    "pwd",
];

/// The last word of a key that makes it a credential (`api_token`,
/// `sessionToken`, `client_secret`); `max_tokens` and `token_count` are not.
const SECRET_LAST_WORDS: &[&str] = &[
    "token",
    "secret",
    "password",
    "passphrase",
    "credential",
    "credentials",
    "cookie",
    "auth",
    "authorization",
    "apikey",
];

/// Pairs of words that name a key (`api_key`, `x-goog-api-key`, `private_key`).
const SECRET_KEY_WORDS: &[&str] = &["api", "access", "private", "secret", "signing", "session"];

/// The words of a key: split on `_`, `-`, `.` and camelCase, lower-cased.
fn words(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in key.chars() {
        if c == '_' || c == '-' || c == '.' || c == ' ' {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

pub fn is_secret_key(key: &str) -> bool {
    if SECRET_KEYS.iter().any(|k| k.eq_ignore_ascii_case(key)) {
        return true;
    }
    let words = words(key);
    match words.as_slice() {
        [.., last] if SECRET_LAST_WORDS.contains(&last.as_str()) => true,
        [.., before, last] if last == "key" => SECRET_KEY_WORDS.contains(&before.as_str()),
        _ => false,
    }
}

/// A JWT: base64url of a JSON header (`{"` encodes as `eyJ`), payload, signature.
static JWT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*").expect("valid regex")
});

/// Credentials in text: `Bearer <token>`, `Basic <base64>`, the value of a
/// `Cookie:` or `Set-Cookie:` header, and the user info of a URL.
static CREDENTIALS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)(?P<scheme>\b(?:bearer|basic|token)\s+)(?P<token>[A-Za-z0-9\-._~+/]{8,}=*)",
        r"|(?P<header>\b(?:set-cookie|cookie)\s*:\s*)(?P<cookie>[^\r\n]+)",
        r"|(?P<url>\b[a-z][a-z0-9+.\-]*://)(?P<userinfo>[^\s/@:]+:[^\s/@]*|[^\s/@:]+)@",
        // Said in prose: "my password is X", "token: X", "api key = X".
        r#"|(?P<said>\b(?:password|passwd|passphrase|pwd|secret|token|api[ _-]?key|access[ _-]?key)s?\s*(?:is|was|:|=)\s*)(?P<spoken>[^\s,;"'`]{3,})"#,
    ))
    .expect("valid regex")
});

/// Shorter secrets are not masked where they recur: a two-letter value
/// would mask half the words of a conversation.
const MIN_RECURRING_SECRET: usize = 4;

/// Exactly a redaction: left as it is.
fn is_scrubbed(value: &Value) -> bool {
    match value {
        Value::String(s) => s == REDACTED || s == "Bearer REDACTED" || s == "Basic REDACTED",
        Value::Null => true,
        _ => false,
    }
}

/// The text with every credential in it redacted, and how many there were.
pub fn redact_text(text: &str) -> (String, usize) {
    let mut count = 0;
    let jwt_free = JWT.replace_all(text, |_: &regex::Captures<'_>| {
        count += 1;
        REDACTED
    });
    let clean = CREDENTIALS.replace_all(&jwt_free, |c: &regex::Captures<'_>| {
        let (kept, secret) = if let Some(scheme) = c.name("scheme") {
            (scheme.as_str(), c.name("token").map_or("", |m| m.as_str()))
        } else if let Some(said) = c.name("said") {
            (said.as_str(), c.name("spoken").map_or("", |m| m.as_str()))
        } else if let Some(header) = c.name("header") {
            (header.as_str(), c.name("cookie").map_or("", |m| m.as_str()))
        } else {
            (
                c.name("url").map_or("", |m| m.as_str()),
                c.name("userinfo").map_or("", |m| m.as_str()),
            )
        };
        if secret == REDACTED {
            return c[0].to_string();
        }
        count += 1;
        let tail = if c.name("url").is_some() { "@" } else { "" };
        format!("{kept}{REDACTED}{tail}")
    });
    (clean.into_owned(), count)
}

/// What [`redact`] did: how many secrets it replaced, and where.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Redaction {
    pub count: usize,
    /// Paths of the changed values (keys as redacted), each once.
    pub paths: Vec<String>,
}

/// Redact in place: every credential where it is found, and then, as CI
/// systems mask a secret in every log line, wherever else its value
/// recurs (a password under `custom_metadata.password` also in the
/// user's message and in a `note`).
pub fn redact(value: &mut Value) -> Redaction {
    let secrets = Secrets::of([&*value]);
    redact_with(value, &secrets)
}

/// Redact in place, masking too every value of `secrets`: those of a whole
/// session, for one of its events or a case made from it.
pub fn redact_with(value: &mut Value, secrets: &Secrets) -> Redaction {
    let mut redaction = Redaction::default();
    walk(value, &mut String::new(), &mut redaction, true, secrets);
    redaction.paths.dedup();
    redaction
}

/// The paths of unredacted secrets, leaving the value as it is.
pub fn find_secrets(value: &Value) -> Vec<String> {
    let secrets = Secrets::of([value]);
    let mut copy = value.clone();
    let mut redaction = Redaction::default();
    walk(
        &mut copy,
        &mut String::new(),
        &mut redaction,
        false,
        &secrets,
    );
    redaction.paths
}

/// Secret values found in some values, longest first, to mask wherever
/// they recur. Never printed: it holds the secrets themselves.
pub struct Secrets(Vec<String>);

impl Secrets {
    /// Every secret value in `values`: under a credential-like key, and
    /// the credentials in their strings.
    pub fn of<'v>(values: impl IntoIterator<Item = &'v Value>) -> Secrets {
        let mut found = Vec::new();
        for value in values {
            collect_secrets(value, false, &mut found);
        }
        found.retain(|s| s.chars().count() >= MIN_RECURRING_SECRET && s != REDACTED);
        found.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        found.dedup();
        Secrets(found)
    }

    /// The text with every known secret masked, and how many there were.
    fn mask(&self, text: &str) -> (String, usize) {
        let mut count = 0;
        let mut out = text.to_string();
        for secret in &self.0 {
            let found = out.matches(secret.as_str()).count();
            if found > 0 {
                count += found;
                out = out.replace(secret.as_str(), REDACTED);
            }
        }
        (out, count)
    }
}

fn collect_secrets(value: &Value, secret_key: bool, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                collect_secrets(item, is_secret_key(key), found);
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|i| collect_secrets(i, secret_key, found)),
        Value::String(text) => {
            if text.trim_start().starts_with('{')
                && let Ok(inner @ Value::Object(_)) = serde_json::from_str::<Value>(text)
            {
                return collect_secrets(&inner, false, found);
            }
            if secret_key && !is_scrubbed(value) {
                found.push(text.clone());
                // `Bearer X`: X recurs on its own.
                found.extend(text.split_whitespace().skip(1).map(String::from));
            }
            found.extend(JWT.find_iter(text).map(|m| m.as_str().to_string()));
            for c in CREDENTIALS.captures_iter(text) {
                for name in ["token", "spoken", "cookie"] {
                    found.extend(c.name(name).map(|m| m.as_str().to_string()));
                }
                // A URL's password, not its user name.
                let password = c.name("userinfo").and_then(|m| m.as_str().split_once(':'));
                found.extend(password.map(|(_, p)| p.to_string()));
            }
        }
        Value::Number(n) if secret_key => found.push(n.to_string()),
        _ => {}
    }
}

fn record(redaction: &mut Redaction, path: &str, count: usize) {
    redaction.count += count;
    let path = if path.is_empty() { "(value)" } else { path };
    if redaction.paths.last().map(String::as_str) != Some(path) {
        redaction.paths.push(path.to_string());
    }
}

fn walk(
    value: &mut Value,
    path: &mut String,
    redaction: &mut Redaction,
    rename_keys: bool,
    known: &Secrets,
) {
    match value {
        Value::Object(map) => {
            let entries = std::mem::take(map);
            let mut rebuilt = Map::new();
            for (key, mut item) in entries {
                let (clean_key, in_text) = redact_text(&key);
                let (mut clean_key, recurring) = known.mask(&clean_key);
                let in_key = in_text + recurring;
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&clean_key);
                if in_key > 0 {
                    record(redaction, path, in_key);
                }
                if !rename_keys {
                    clean_key = key.clone();
                }
                if is_secret_key(&key) && !is_scrubbed(&item) {
                    record(redaction, path, 1);
                    item = Value::String(REDACTED.into());
                } else {
                    walk(&mut item, path, redaction, rename_keys, known);
                }
                path.truncate(len);
                // Two keys redacted to one name stay two entries.
                let mut unique = clean_key.clone();
                let mut n = 2;
                while rebuilt.contains_key(&unique) {
                    unique = format!("{clean_key}-{n}");
                    n += 1;
                }
                rebuilt.insert(unique, item);
            }
            *map = rebuilt;
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                walk(item, path, redaction, rename_keys, known);
                path.truncate(len);
            }
        }
        Value::String(text) => {
            // JSON held in a string (tool arguments, a tool's output) is
            // redacted as JSON, so its secret-named keys are found too.
            if text.trim_start().starts_with('{')
                && let Ok(mut inner @ Value::Object(_)) = serde_json::from_str::<Value>(text)
            {
                let before = redaction.count;
                walk(&mut inner, path, redaction, rename_keys, known);
                if redaction.count > before {
                    *text = inner.to_string();
                }
                return;
            }
            let (clean, count) = redact_text(text);
            let (clean, recurring) = known.mask(&clean);
            if count + recurring > 0 {
                record(redaction, path, count + recurring);
                *text = clean;
            }
        }
        _ => {}
    }
}

/// Messages as they may be shown: every credential in them redacted.
pub fn redact_messages(messages: &[crate::trajectory::Message]) -> Vec<crate::trajectory::Message> {
    messages.iter().cloned().map(redact_message).collect()
}

/// One message with its secrets redacted.
pub fn redact_message(message: crate::trajectory::Message) -> crate::trajectory::Message {
    let mut value = serde_json::to_value(&message).expect("messages serialise");
    if redact(&mut value).count == 0 {
        return message;
    }
    serde_json::from_value(value).unwrap_or(message)
}

/// Query parameters whose values are credentials (`?token=`, `&api_key=`).
fn is_secret_parameter(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [
        "token",
        "key",
        "secret",
        "password",
        "passwd",
        "pwd",
        "auth",
        "signature",
        "sig",
        "credential",
        "session",
    ]
    .iter()
    .any(|part| name.contains(part))
}

/// A URL as it may be shown: the password of its user info and the values
/// of credential-like query parameters replaced by `REDACTED`. Anything
/// that is not a URL is returned as it is.
pub fn url_for_display(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return url.to_string();
    };
    let authority_start = scheme_end + 3;
    let authority_end = url[authority_start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| authority_start + i);
    let authority = &url[authority_start..authority_end];
    let mut out = url[..authority_start].to_string();
    match authority.rsplit_once('@') {
        Some((user_info, host)) => {
            let user = user_info.split_once(':').map_or(user_info, |(u, _)| u);
            out.push_str(&format!("{user}:{REDACTED}@{host}"));
        }
        None => out.push_str(authority),
    }
    let rest = &url[authority_end..];
    let (before_fragment, fragment) = rest
        .split_once('#')
        .map_or((rest, None), |(a, b)| (a, Some(b)));
    match before_fragment.split_once('?') {
        Some((path, query)) => {
            out.push_str(path);
            out.push('?');
            let parameters: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((name, _)) if is_secret_parameter(name) => format!("{name}={REDACTED}"),
                    _ => pair.to_string(),
                })
                .collect();
            out.push_str(&parameters.join("&"));
        }
        None => out.push_str(before_fragment),
    }
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
    out
}

/// URLs anywhere in a text (an error from a library, say).
static URL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>`]+"#).expect("valid regex"));

/// A message with every URL in it shown as [`url_for_display`] shows it.
pub fn urls_for_display(text: &str) -> String {
    URL.replace_all(text, |c: &regex::Captures<'_>| {
        // Punctuation after a URL in prose is not part of it.
        let url = c[0].trim_end_matches(|ch| ")],.;:".contains(ch));
        format!("{}{}", url_for_display(url), &c[0][url.len()..])
    })
    .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const TOKEN: &str = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ";

    #[test]
    fn headers_and_jwts_become_redacted() {
        let mut event = json!({
            "actions": {"state_delta": {"headers": {
                "Authorization": format!("Bearer {TOKEN}"),
                "x-user-id": "alice@example.com",
                "cookie": "session=abc",
                "accept": "*/*"
            }}},
            "content": {"parts": [{"text": format!("token was {TOKEN}, keep this")}]}
        });
        let redaction = redact(&mut event);
        let mut paths = redaction.paths.clone();
        paths.sort();
        assert_eq!(
            paths,
            [
                "actions.state_delta.headers.Authorization",
                "actions.state_delta.headers.cookie",
                "actions.state_delta.headers.x-user-id",
                "content.parts[0].text",
            ]
        );
        assert_eq!(redaction.count, 4);
        let headers = &event["actions"]["state_delta"]["headers"];
        assert_eq!(headers["Authorization"], "REDACTED");
        assert_eq!(headers["accept"], "*/*");
        assert_eq!(
            event["content"]["parts"][0]["text"],
            "token was REDACTED, keep this"
        );
        assert!(find_secrets(&event).is_empty());
        assert_eq!(
            redact(&mut event),
            Redaction::default(),
            "redaction is idempotent"
        );
    }

    #[test]
    fn secret_names_are_told_from_counts_and_limits() {
        for key in [
            "api_key",
            "apiKey",
            "x-api-key",
            "token",
            "api_token",
            "session_token",
            "sessionToken",
            "secret",
            "client_secret",
            "password",
            "access_token",
            "x-goog-api-key",
            "private_key",
            "Authorization",
            "set-cookie",
            "X-Amz-Security-Token",
            "auth",
        ] {
            assert!(is_secret_key(key), "{key}");
        }
        for key in [
            "max_tokens",
            "total_token_count",
            "prompt_token_count",
            "tokens",
            "key",
            "keys",
            "city",
            "keyword",
            "tokenizer",
            "author",
        ] {
            assert!(!is_secret_key(key), "{key}");
        }
    }

    #[test]
    fn credentials_in_text_and_keys_are_found_and_counted_exactly() {
        let mut event = json!({
            "text": "connect with postgres://kagent:hunter2@db:5432/kagent then curl -H 'Authorization: Bearer abcdefghijklmnop' and Basic dXNlcjpwYXNz",
            "log": "Set-Cookie: sid=s3cr3t; HttpOnly\nnext line",
            TOKEN: "a JWT used as a key",
            "nested": {"api_key": {"value": 1}, "note": "ends in REDACTED"},
            "authorization": "Bearer not-really REDACTED"
        });
        let redaction = redact(&mut event);
        assert_eq!(redaction.count, 7, "{redaction:?}\n{event}");
        let text = event.to_string();
        for secret in [
            "hunter2",
            "abcdefghijklmnop",
            "dXNlcjpwYXNz",
            "s3cr3t",
            TOKEN,
            "not-really",
        ] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        assert!(
            text.contains("postgres://REDACTED@db:5432/kagent"),
            "{text}"
        );
        assert!(text.contains("next line"), "{text}");
        assert!(
            !redaction.paths.iter().any(|p| p.contains("eyJ")),
            "{:?}",
            redaction.paths
        );
        assert_eq!(event["nested"]["note"], "ends in REDACTED");
        assert!(
            find_secrets(&event).is_empty(),
            "{:?}",
            find_secrets(&event)
        );
    }

    #[test]
    fn a_secret_is_masked_wherever_it_recurs_and_where_prose_says_it() {
        let mut session = json!({
            "custom_metadata": {"password": "hunter2-horse"},
            "content": {"parts": [{"text": "log me in, my password is hunter2-horse please"}]},
            "note": "tried hunter2-horse twice",
            "args": "{\"api_token\": \"tok-4242-abcd\", \"q\": \"weather\"}",
            "reply": "using tok-4242-abcd now; token: zq81-x2 and the api key = k_live_77aa",
            "short": {"pwd": "ab"},
            "other": "abacus"
        });
        let redaction = redact(&mut session);
        let text = session.to_string();
        for secret in ["hunter2-horse", "tok-4242-abcd", "zq81-x2", "k_live_77aa"] {
            assert!(!text.contains(secret), "{secret} survives: {text}");
        }
        assert_eq!(
            session["content"]["parts"][0]["text"],
            "log me in, my password is REDACTED please"
        );
        assert_eq!(session["note"], "tried REDACTED twice");
        // A two-letter password is masked where it is, not in every word.
        assert_eq!(session["other"], "abacus");
        assert!(
            redaction.paths.contains(&"note".to_string()),
            "{redaction:?}"
        );
    }

    #[test]
    fn json_inside_strings_is_redacted_as_json() {
        let mut call = json!({"function": {"name": "login", "arguments": "{\"user\": \"bob\", \"api_key\": \"sk-live-1234\"}"}});
        let redaction = redact(&mut call);
        assert_eq!(redaction.count, 1);
        let arguments: Value =
            serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(arguments, json!({"user": "bob", "api_key": "REDACTED"}));
        let mut plain = json!({"arguments": "{\"city\": \"London\"}"});
        assert_eq!(redact(&mut plain).count, 0);
        assert_eq!(
            plain["arguments"], "{\"city\": \"London\"}",
            "untouched when clean"
        );
    }

    #[test]
    fn only_an_exact_redaction_counts_as_scrubbed() {
        let event = json!({"headers": {"authorization": "Bearer REDACTED", "x-user-id": null}});
        assert!(find_secrets(&event).is_empty());
        let event = json!({"headers": {"authorization": "Bearer abc"}});
        assert_eq!(find_secrets(&event), ["headers.authorization"]);
        let event = json!({"headers": {"authorization": "sk-live-123 REDACTED"}});
        assert_eq!(find_secrets(&event), ["headers.authorization"]);
    }

    #[test]
    fn urls_are_shown_without_passwords_or_credential_parameters() {
        assert_eq!(
            url_for_display("postgres://kagent:s3cret@db:5432/kagent?sslmode=disable&password=x"),
            "postgres://kagent:REDACTED@db:5432/kagent?sslmode=disable&password=REDACTED"
        );
        assert_eq!(
            url_for_display("http://u:p@host/api?token=abc&user_id=bob#frag"),
            "http://u:REDACTED@host/api?token=REDACTED&user_id=bob#frag"
        );
        assert_eq!(
            url_for_display("https://api.openai.com/v1"),
            "https://api.openai.com/v1"
        );
        assert_eq!(url_for_display("not a url"), "not a url");
        assert_eq!(
            urls_for_display("error sending request for url (http://a:b@h:1/x?api_key=k): refused"),
            "error sending request for url (http://a:REDACTED@h:1/x?api_key=REDACTED): refused"
        );
    }
}
