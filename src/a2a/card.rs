//! Which A2A version an Agent's card offers (pure). A 1.0 card lists its
//! interfaces (`supportedInterfaces[] {url, protocolBinding,
//! protocolVersion}`); a 0.3 card names one `protocolVersion` for its
//! `url` and `preferredTransport`, with `additionalInterfaces` beside.
//! Only the version is taken from a card: probes go to the URL they were
//! given, never to one a card names.

use crate::core::suite::spec::A2aProtocol;
use serde_json::Value;

/// The JSON-RPC versions a card offers, as written, in the card's order.
pub fn offered(card: &Value) -> Vec<String> {
    let mut versions: Vec<String> = Vec::new();
    let mut add = |version: &str| {
        if !versions.iter().any(|v| v == version) {
            versions.push(version.to_string());
        }
    };
    for interface in card["supportedInterfaces"].as_array().into_iter().flatten() {
        let binding = interface["protocolBinding"].as_str().unwrap_or("JSONRPC");
        if let (true, Some(version)) = (
            binding.eq_ignore_ascii_case("JSONRPC"),
            interface["protocolVersion"].as_str(),
        ) {
            add(version);
        }
    }
    let transport = card["preferredTransport"].as_str().unwrap_or("JSONRPC");
    let jsonrpc = transport.eq_ignore_ascii_case("JSONRPC")
        || card["additionalInterfaces"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|i| {
                i["transport"]
                    .as_str()
                    .is_some_and(|t| t.eq_ignore_ascii_case("JSONRPC"))
            });
    if let (true, Some(version)) = (jsonrpc, card["protocolVersion"].as_str()) {
        add(version);
    }
    versions
}

/// The version to speak with an Agent whose card offers `versions`: 1.0
/// when offered, else 0.3 (which 0.2 cards' `message/send` is too).
pub fn choose(versions: &[String]) -> Result<A2aProtocol, String> {
    let major_minor = |v: &str| -> Option<(u32, u32)> {
        let mut numbers = v.split('.').map(|n| n.parse::<u32>().ok());
        Some((numbers.next()??, numbers.next().flatten().unwrap_or(0)))
    };
    let parsed: Vec<Option<(u32, u32)>> = versions.iter().map(|v| major_minor(v)).collect();
    if parsed.iter().flatten().any(|(major, _)| *major == 1) {
        Ok(A2aProtocol::V1_0)
    } else if parsed
        .iter()
        .flatten()
        .any(|(major, minor)| *major == 0 && (2..=3).contains(minor))
    {
        Ok(A2aProtocol::V0_3)
    } else if versions.is_empty() {
        Err("its card names no protocol version over JSON-RPC".into())
    } else {
        Err(format!(
            "its card offers A2A {} over JSON-RPC; probes speak 0.3 (0.2 too) and 1.0",
            versions.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chosen(card: Value) -> Result<A2aProtocol, String> {
        choose(&offered(&card))
    }

    #[test]
    fn a_1_0_card_is_read_by_its_interfaces() {
        let card = json!({"supportedInterfaces": [
            {"url": "http://a/agents/ns/x", "protocolBinding": "GRPC", "protocolVersion": "2.0"},
            {"url": "http://a/agents/ns/x", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "http://a/agents/ns/x", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
        ]});
        assert_eq!(
            offered(&card),
            ["1.0", "0.3"],
            "gRPC's is not ours to speak"
        );
        assert_eq!(chosen(card), Ok(A2aProtocol::V1_0));
    }

    #[test]
    fn a_0_3_card_is_read_by_its_version() {
        let card = json!({"protocolVersion": "0.3.0", "url": "http://a/", "preferredTransport": "JSONRPC"});
        assert_eq!(chosen(card), Ok(A2aProtocol::V0_3));
        // A 0.2 card's JSON-RPC is the same message/send.
        assert_eq!(
            chosen(json!({"protocolVersion": "0.2.5"})),
            Ok(A2aProtocol::V0_3)
        );
        // A 0.3 card whose only JSON-RPC interface is an additional one.
        let grpc_first = json!({"protocolVersion": "0.3.0", "preferredTransport": "GRPC",
                                "additionalInterfaces": [{"url": "http://a/", "transport": "JSONRPC"}]});
        assert_eq!(chosen(grpc_first), Ok(A2aProtocol::V0_3));
    }

    #[test]
    fn a_card_offering_neither_names_what_it_offers() {
        let error = chosen(json!({"supportedInterfaces": [
            {"protocolBinding": "JSONRPC", "protocolVersion": "2.1"},
            {"protocolBinding": "JSONRPC", "protocolVersion": "0.1"}
        ]}))
        .unwrap_err();
        assert_eq!(
            error,
            "its card offers A2A 2.1, 0.1 over JSON-RPC; probes speak 0.3 (0.2 too) and 1.0"
        );
        let grpc_only = json!({"protocolVersion": "0.3.0", "preferredTransport": "GRPC"});
        assert!(
            chosen(grpc_only)
                .unwrap_err()
                .contains("names no protocol version")
        );
        assert!(chosen(json!({"name": "x"})).is_err());
    }
}
