//! Where in a YAML document a field path (`spec.cases[1].name`) is, so that
//! problems found after parsing still point at a line.

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

/// A YAML node with the location of every child.
enum Node {
    Map(Vec<(String, Spanned<Node>)>),
    Seq(Vec<Spanned<Node>>),
    Scalar,
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NodeVisitor;
        impl<'de> Visitor<'de> for NodeVisitor {
            type Value = Node;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any YAML node")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
                let mut entries = Vec::new();
                while let Some((key, value)) = map.next_entry::<KeyText, Spanned<Node>>()? {
                    entries.push((key.0, value));
                }
                Ok(Node::Map(entries))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<Spanned<Node>>()? {
                    items.push(item);
                }
                Ok(Node::Seq(items))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_none<E: de::Error>(self) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
        }
        deserializer.deserialize_any(NodeVisitor)
    }
}

/// Map keys of any scalar type, as text.
struct KeyText(String);

impl<'de> Deserialize<'de> for KeyText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        Ok(KeyText(match value {
            serde_json::Value::String(s) => s,
            other => other.to_string(),
        }))
    }
}

/// Line and column (1-based) of the node at `path` within `document`,
/// or of the deepest ancestor that exists.
pub fn line_of(document: &str, path: &str) -> Option<(u64, u64)> {
    let root: Spanned<Node> = serde_saphyr::from_str(document).ok()?;
    let mut current = &root;
    let mut best = (current.referenced.line(), current.referenced.column());
    for segment in segments(path) {
        let next = match (&current.value, segment) {
            (Node::Map(entries), Segment::Key(key)) => {
                entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
            }
            (Node::Seq(items), Segment::Index(i)) => items.get(i),
            _ => None,
        };
        match next {
            Some(node) => {
                current = node;
                best = (current.referenced.line(), current.referenced.column());
            }
            None => break,
        }
    }
    Some(best)
}

enum Segment<'p> {
    Key(&'p str),
    Index(usize),
}

fn segments(path: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if !key.is_empty() {
            out.push(Segment::Key(key));
        }
        while let Some((index, after)) = rest.split_once(']') {
            if let Ok(i) = index.parse() {
                out.push(Segment::Index(i));
            }
            rest = after.trim_start_matches('[');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::line_of;

    #[test]
    fn finds_nested_fields_and_falls_back_to_the_deepest_ancestor() {
        let doc =
            "spec:\n  cases:\n    - name: a\n    - name: b\n      evaluators:\n        - name: e\n";
        assert_eq!(line_of(doc, "spec.cases[1].name").map(|l| l.0), Some(4));
        assert_eq!(
            line_of(doc, "spec.cases[1].evaluators[0].name").map(|l| l.0),
            Some(6)
        );
        assert_eq!(
            line_of(doc, "spec.cases[1].evaluators[0].toolsUsed").map(|l| l.0),
            Some(6)
        );
    }
}
