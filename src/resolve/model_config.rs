//! A judge endpoint from a kagent ModelConfig (`kagent.dev/v1alpha2`): the
//! URL, model and auth header of the provider's OpenAI-compatible
//! chat-completions API, or why the provider has none the judge can call.
//! Never another provider's endpoint: a ModelConfig for Bedrock does not
//! send its key to OpenAI.

use crate::core::suite::rules::NameKind;
use serde_json::Value;

/// How the API key goes on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyHeader {
    /// `Authorization: Bearer <key>`.
    Bearer,
    /// Azure's `api-key: <key>`.
    ApiKey,
}

/// Where a ModelConfig's provider takes chat completions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderEndpoint {
    pub provider: String,
    /// Base URL; the judge appends `/chat/completions`.
    pub url: String,
    pub model: Option<String>,
    pub key_header: KeyHeader,
    /// Query parameters of every request (Azure's `api-version`).
    pub query: Vec<(String, String)>,
    /// The ModelConfig's `defaultHeaders`.
    pub headers: Vec<(String, String)>,
}

/// The Secret and key holding the ModelConfig's API key, if it names one.
/// kagent's CRD lets `apiKeySecret` be any string, and the ModelConfig is
/// the tenant's: a name that is not a Secret name never reaches the
/// Secret's API path.
pub fn key_secret(spec: &Value) -> Result<Option<(String, String)>, String> {
    let field = |name: &str| spec.get(name).and_then(Value::as_str);
    let (Some(name), Some(key)) = (field("apiKeySecret"), field("apiKeySecretKey")) else {
        return Ok(None);
    };
    if !NameKind::Object.allows(name) {
        return Err(format!(
            "apiKeySecret {name:?} {}",
            NameKind::Object.message()
        ));
    }
    Ok(Some((name.to_string(), key.to_string())))
}

fn text<'v>(spec: &'v Value, pointer: &str) -> Option<&'v str> {
    spec.pointer(pointer)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// The endpoint of a ModelConfig's `spec`, or why the judge cannot use it.
pub fn endpoint(spec: &Value) -> Result<ProviderEndpoint, String> {
    let provider = text(spec, "/provider").unwrap_or("OpenAI").to_string();
    let model = text(spec, "/model").map(String::from);
    let unsupported = |why: &str| format!("provider {provider}: {why}");
    if spec.get("apiKeyPassthrough").and_then(Value::as_bool) == Some(true) {
        return Err(unsupported(
            "apiKeyPassthrough forwards a caller's token, and a judge has no caller; set judge.url and judge.apiKeySecretRef instead",
        ));
    }
    if spec.get("tls").is_some_and(|tls| !tls.is_null()) {
        return Err(unsupported(
            "its tls settings (a private CA or disabled verification) are not applied by the judge client; set judge.url to an endpoint with a publicly trusted certificate",
        ));
    }
    let headers = match spec.get("defaultHeaders") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| {
                v.as_str()
                    .map(|v| (k.clone(), v.to_string()))
                    .ok_or_else(|| unsupported(&format!("defaultHeaders.{k} is not a string")))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(unsupported("defaultHeaders is not an object")),
    };
    let endpoint = |url: String, model: Option<String>, key_header, query| ProviderEndpoint {
        provider: provider.clone(),
        url: url.trim_end_matches('/').to_string(),
        model,
        key_header,
        query,
        headers: headers.clone(),
    };
    let azure_flavour = |block: &str,
                         endpoint_field: &str,
                         deployment_field: &str,
                         default_version: Option<&str>| {
        let base = text(spec, &format!("/{block}/{endpoint_field}"))
            .ok_or_else(|| unsupported(&format!("{block}.{endpoint_field} is not set")))?;
        let deployment = text(spec, &format!("/{block}/{deployment_field}"))
            .map(String::from)
            .or(model.clone())
            .ok_or_else(|| unsupported(&format!("{block}.{deployment_field} is not set")))?;
        let version = text(spec, &format!("/{block}/apiVersion"))
            .or(default_version)
            .ok_or_else(|| unsupported(&format!("{block}.apiVersion is not set")))?;
        // Azure names the model by its deployment: the path carries it.
        Ok(endpoint(
            format!(
                "{}/openai/deployments/{deployment}",
                base.trim_end_matches('/')
            ),
            Some(deployment),
            KeyHeader::ApiKey,
            vec![("api-version".to_string(), version.to_string())],
        ))
    };
    match provider.as_str() {
        "OpenAI" => {
            if spec
                .pointer("/openAI/tokenExchange")
                .is_some_and(|v| !v.is_null())
            {
                return Err(unsupported(
                    "openAI.tokenExchange mints tokens the judge client cannot; set judge.url and judge.apiKeySecretRef instead",
                ));
            }
            let url = text(spec, "/openAI/baseUrl").unwrap_or("https://api.openai.com/v1");
            Ok(endpoint(
                url.to_string(),
                model,
                KeyHeader::Bearer,
                Vec::new(),
            ))
        }
        "AzureOpenAI" => azure_flavour("azureOpenAI", "azureEndpoint", "azureDeployment", None),
        "Foundry" => {
            if text(spec, "/foundry/endpoint").is_none()
                && spec.pointer("/foundry/endpointFrom").is_some()
            {
                return Err(unsupported(
                    "foundry.endpointFrom reads a ConfigMap the judge does not; set foundry.endpoint or judge.url",
                ));
            }
            azure_flavour("foundry", "endpoint", "deployment", Some("2024-10-21"))
        }
        "Ollama" => {
            // kagent's default host; Ollama serves the OpenAI API under /v1.
            let host = text(spec, "/ollama/host").unwrap_or("http://localhost:11434");
            let host = if host.contains("://") {
                host.to_string()
            } else {
                format!("http://{host}")
            };
            Ok(endpoint(
                format!("{}/v1", host.trim_end_matches('/')),
                model,
                KeyHeader::Bearer,
                Vec::new(),
            ))
        }
        // Google's and Anthropic's OpenAI-compatible endpoints.
        "Gemini" => Ok(endpoint(
            "https://generativelanguage.googleapis.com/v1beta/openai".into(),
            model,
            KeyHeader::Bearer,
            Vec::new(),
        )),
        "Anthropic" => {
            let base = text(spec, "/anthropic/baseUrl").unwrap_or("https://api.anthropic.com");
            Ok(endpoint(
                format!("{}/v1", base.trim_end_matches('/')),
                model,
                KeyHeader::Bearer,
                Vec::new(),
            ))
        }
        "GeminiVertexAI" | "AnthropicVertexAI" | "Bedrock" | "SAPAICore" => Err(unsupported(
            "it has no OpenAI-compatible chat-completions API with an API key; set judge.url to an OpenAI-compatible gateway in front of it",
        )),
        other => Err(format!(
            "provider {other} is not a kagent ModelConfig provider"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_provider_gets_its_own_url_and_key_header() {
        let cases = [
            (
                json!({"model": "gpt-4o"}),
                "https://api.openai.com/v1",
                KeyHeader::Bearer,
                "gpt-4o",
                vec![],
            ),
            (
                json!({"provider": "OpenAI", "model": "m", "openAI": {"baseUrl": "http://litellm:4000/v1/"}}),
                "http://litellm:4000/v1",
                KeyHeader::Bearer,
                "m",
                vec![],
            ),
            (
                json!({"provider": "AzureOpenAI", "model": "ignored", "azureOpenAI": {"azureEndpoint": "https://x.openai.azure.com/", "apiVersion": "2024-06-01", "azureDeployment": "gpt4o-prod"}}),
                "https://x.openai.azure.com/openai/deployments/gpt4o-prod",
                KeyHeader::ApiKey,
                "gpt4o-prod",
                vec![("api-version".to_string(), "2024-06-01".to_string())],
            ),
            (
                json!({"provider": "Foundry", "model": "m", "foundry": {"endpoint": "https://f.services.ai.azure.com", "deployment": "d"}}),
                "https://f.services.ai.azure.com/openai/deployments/d",
                KeyHeader::ApiKey,
                "d",
                vec![("api-version".to_string(), "2024-10-21".to_string())],
            ),
            (
                json!({"provider": "Ollama", "model": "llama3", "ollama": {"host": "ollama.models:11434"}}),
                "http://ollama.models:11434/v1",
                KeyHeader::Bearer,
                "llama3",
                vec![],
            ),
            (
                json!({"provider": "Gemini", "model": "gemini-2.5-pro"}),
                "https://generativelanguage.googleapis.com/v1beta/openai",
                KeyHeader::Bearer,
                "gemini-2.5-pro",
                vec![],
            ),
            (
                json!({"provider": "Anthropic", "model": "claude"}),
                "https://api.anthropic.com/v1",
                KeyHeader::Bearer,
                "claude",
                vec![],
            ),
        ];
        for (spec, url, header, model, query) in cases {
            let e = endpoint(&spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
            assert_eq!(
                (e.url.as_str(), e.key_header, e.model.as_deref(), e.query),
                (url, header, Some(model), query),
                "{spec}"
            );
        }
    }

    #[test]
    fn providers_without_an_openai_api_are_refused_by_name() {
        for provider in [
            "Bedrock",
            "GeminiVertexAI",
            "AnthropicVertexAI",
            "SAPAICore",
        ] {
            let why = endpoint(&json!({"provider": provider, "model": "m"})).unwrap_err();
            assert!(why.starts_with(&format!("provider {provider}:")), "{why}");
        }
        let why = endpoint(
            &json!({"provider": "AzureOpenAI", "model": "m", "azureOpenAI": {"apiVersion": "1"}}),
        )
        .unwrap_err();
        assert!(
            why.contains("azureOpenAI.azureEndpoint is not set"),
            "{why}"
        );
        assert!(endpoint(&json!({"model": "m", "apiKeyPassthrough": true})).is_err());
        assert!(endpoint(&json!({"model": "m", "tls": {"disableVerify": true}})).is_err());
        assert!(endpoint(&json!({"provider": "Nope", "model": "m"})).is_err());
    }

    #[test]
    fn default_headers_and_the_key_secret_are_read() {
        let spec = json!({"model": "m", "apiKeySecret": "openai", "apiKeySecretKey": "key", "defaultHeaders": {"x-route": "judge"}});
        assert_eq!(key_secret(&spec), Ok(Some(("openai".into(), "key".into()))));
        assert_eq!(
            endpoint(&spec).unwrap().headers,
            [("x-route".to_string(), "judge".to_string())]
        );
        assert_eq!(key_secret(&json!({"model": "m"})), Ok(None));
    }

    #[test]
    fn a_key_secret_that_is_no_secret_name_is_refused() {
        for hostile in [
            "../../team-b/secrets/b-openai",
            "a-openai?labelSelector=x",
            "a/b",
            "..",
            "A",
        ] {
            let spec = json!({"model": "m", "apiKeySecret": hostile, "apiKeySecretKey": "key"});
            let why = key_secret(&spec).unwrap_err();
            assert!(
                why.contains("must be a Kubernetes object name"),
                "{hostile}: {why}"
            );
        }
    }
}
