//! Secrets out of saved events.
//!
//! kagent records the caller's request headers in `header_update` events
//! (`actions.state_delta.headers`), bearer JWTs and user ids included. Before
//! events are written anywhere a person may read them, every value under a
//! credential-like key and every JWT-shaped string becomes `REDACTED`.

use regex::Regex;
use serde_json::Value;
use std::sync::LazyLock;

pub const REDACTED: &str = "REDACTED";

/// Keys whose values are credentials or identities wherever they appear.
const SECRET_KEYS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "x-user-id",
    "x-api-key",
    "api-key",
    "apikey",
    "x-auth-token",
    "x-access-token",
    "x-id-token",
    "x-csrf-token",
    "x-forwarded-access-token",
    "x-amz-security-token",
    "x-goog-api-key",
    "password",
    "client_secret",
    "access_token",
    "refresh_token",
    "id_token",
];

/// A JWT: base64url of a JSON header (`{"` encodes as `eyJ`), payload, signature.
static JWT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*").expect("valid regex")
});

fn is_secret_key(key: &str) -> bool {
    SECRET_KEYS.iter().any(|k| k.eq_ignore_ascii_case(key))
}

/// Already scrubbed: `REDACTED` or `Bearer REDACTED`.
fn is_scrubbed(value: &Value) -> bool {
    match value {
        Value::String(s) => s == REDACTED || s.ends_with(" REDACTED"),
        Value::Null => true,
        _ => false,
    }
}

/// Redact in place; returns the paths of the values changed.
pub fn redact(value: &mut Value) -> Vec<String> {
    let mut changed = Vec::new();
    walk(value, &mut String::new(), &mut |path, v, whole| {
        changed.push(path.to_string());
        *v = match v {
            Value::String(s) if !whole => Value::String(JWT.replace_all(s, REDACTED).into_owned()),
            _ => Value::String(REDACTED.into()),
        };
    });
    changed
}

/// The paths of unredacted secrets, leaving the value as it is.
pub fn find_secrets(value: &Value) -> Vec<String> {
    let mut copy = value.clone();
    let mut found = Vec::new();
    walk(&mut copy, &mut String::new(), &mut |path, _, _| {
        found.push(path.to_string())
    });
    found
}

/// Visit every value that holds a secret: the whole value of a secret key
/// (unless already scrubbed; `whole` is true) and every other string that
/// contains a JWT (`whole` is false: only the token is secret).
fn walk(value: &mut Value, path: &mut String, found: &mut dyn FnMut(&str, &mut Value, bool)) {
    match value {
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                if is_secret_key(key) && !is_scrubbed(item) {
                    found(path, item, true);
                } else {
                    walk(item, path, found);
                }
                path.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                walk(item, path, found);
                path.truncate(len);
            }
        }
        Value::String(s) if JWT.is_match(s) => {
            let at = if path.is_empty() {
                "(value)".to_string()
            } else {
                path.clone()
            };
            found(&at, value, false);
        }
        _ => {}
    }
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
        let mut paths = redact(&mut event);
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
        let headers = &event["actions"]["state_delta"]["headers"];
        assert_eq!(headers["Authorization"], "REDACTED");
        assert_eq!(headers["accept"], "*/*");
        assert_eq!(
            event["content"]["parts"][0]["text"],
            "token was REDACTED, keep this"
        );
        assert!(find_secrets(&event).is_empty());
        assert!(redact(&mut event).is_empty(), "redaction is idempotent");
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

    #[test]
    fn already_scrubbed_values_are_left_alone() {
        let event = json!({"headers": {"authorization": "Bearer REDACTED", "x-user-id": null}});
        assert!(find_secrets(&event).is_empty());
        let event = json!({"headers": {"authorization": "Bearer abc"}});
        assert_eq!(find_secrets(&event), ["headers.authorization"]);
    }
}
