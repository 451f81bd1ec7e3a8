//! Rules about one object of a suite that its types alone cannot say
//! (exactly one of two fields, a list that must not be empty when another
//! field is set, the settings block a `type` names). The core states them
//! as data in the schema it generates, under [`RULES_KEY`]; the Kubernetes
//! layer writes them as CEL for the API server, and [`Validation::check`]
//! applies them to a JSON object, so both say the same words.

use super::bounds;
use schemars::Schema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The schema extension the rules travel under until the CRD layer
/// replaces it with `x-kubernetes-validations`.
pub const RULES_KEY: &str = "x-kagent-evals-rules";

/// What must hold of an object's fields. "Set" means present (any value);
/// "non-empty" means present and holding at least one item.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "rule")]
pub enum Rule {
    /// Exactly one of two fields is set.
    ExactlyOneOf { fields: [String; 2] },
    /// Not both of two fields are set.
    NotBoth { fields: [String; 2] },
    /// The field is not set.
    Absent { field: String },
    /// The field does not hold this string.
    NotEqual { field: String, value: String },
    /// At least one of the fields is set.
    AnySet { fields: Vec<String> },
    /// At least one of the lists is non-empty.
    AnyNonEmpty { fields: Vec<String> },
    /// When `when` is set, the list `list` is non-empty.
    NonEmptyWhenSet { when: String, list: String },
    /// At most one of the fields is set.
    AtMostOneOf { fields: Vec<String> },
    /// `tag` is set, or exactly one of the fields is.
    TagOrExactlyOneOf { tag: String, fields: Vec<String> },
    /// When `tag` holds `value`, `field` is set (`tag` may be unset).
    TagRequires {
        tag: String,
        value: String,
        field: String,
        tag_optional: bool,
    },
    /// When `field` is set and `tag` is, `tag` holds the field's name.
    FieldNamesTag { field: String, tag: String },
    /// When `field` is set, it is a name of this kind.
    Name { field: String, kind: NameKind },
}

/// What a name that ends up in a URL or an API path may be: every name a
/// suite gives for an object, a namespace or a session must be one, so that
/// none can become a `..` or a `/` there, even after a router decodes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NameKind {
    /// An object's name: a DNS-1123 subdomain.
    Object,
    /// A namespace: a DNS-1123 label.
    Namespace,
    /// A session or user id: letters, digits and `-_.:@+=~`, starting with
    /// a letter or digit. Nothing a router decodes into a separator (`/`,
    /// `\\`, `%`, `?`, `#`), never `.` or `..`, and nothing a header
    /// cannot carry.
    Id,
    /// A PostgreSQL schema that goes into a query: lowercase letters,
    /// digits and `_`, starting with a letter or `_` (an identifier that
    /// needs no quoting).
    SqlSchema,
}

impl NameKind {
    /// The longest name of this kind.
    pub fn max_length(self) -> usize {
        match self {
            NameKind::Object => bounds::OBJECT_NAME_MAX,
            NameKind::Namespace => bounds::NAMESPACE_MAX,
            NameKind::Id => bounds::ID_MAX,
            NameKind::SqlSchema => bounds::NAMESPACE_MAX,
        }
    }

    /// The regular expression a name of this kind matches (with its length).
    pub fn pattern(self) -> &'static str {
        match self {
            NameKind::Object => {
                r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
            }
            NameKind::Namespace => "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
            NameKind::Id => "^[A-Za-z0-9][-A-Za-z0-9_.:@+=~]*$",
            NameKind::SqlSchema => "^[a-z_][a-z0-9_]*$",
        }
    }

    /// What is said of a name that is not of this kind.
    pub fn message(self) -> &'static str {
        match self {
            NameKind::Object => {
                "must be a Kubernetes object name (a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters)"
            }
            NameKind::Namespace => {
                "must be a Kubernetes namespace (a DNS-1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters)"
            }
            NameKind::SqlSchema => {
                "must be a PostgreSQL schema: lowercase letters, digits and '_', starting with a letter or '_', at most 63 characters"
            }
            NameKind::Id => {
                "must be an id: letters, digits and '-_.:@+=~', starting with a letter or digit, at most 256 characters (no '/', '\\', '%', '?' or '#', which a router may read as structure)"
            }
        }
    }

    /// Whether `name` is a name of this kind.
    pub fn allows(self, name: &str) -> bool {
        let label = |l: &str| {
            !l.is_empty()
                && l.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        };
        name.len() <= self.max_length()
            && match self {
                NameKind::Object => name.split('.').all(label),
                NameKind::Namespace => label(name),
                NameKind::SqlSchema => {
                    name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
                        && name
                            .bytes()
                            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
                }
                NameKind::Id => {
                    name.starts_with(|c: char| c.is_ascii_alphanumeric())
                        && name
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b"-_.:@+=~".contains(&b))
                }
            }
    }
}

/// A rule, what is said when it does not hold, and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Validation {
    pub rule: Rule,
    pub message: String,
    /// The field the message is about, below the object (`mode`), when it
    /// is not the object itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// A missing field rather than a wrong value (`FieldValueRequired`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
}

impl Validation {
    pub fn new(rule: Rule, message: impl Into<String>) -> Self {
        Validation {
            rule,
            message: message.into(),
            field: None,
            required: false,
        }
    }

    /// The same, about one field of the object.
    pub fn at(mut self, field: &str) -> Self {
        self.field = Some(field.to_string());
        self
    }

    /// The same, saying the field is missing.
    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// Whether the rule holds of `object`.
    pub fn check(&self, object: &Map<String, Value>) -> bool {
        let set = |f: &str| object.contains_key(f);
        let non_empty = |f: &str| {
            object
                .get(f)
                .is_some_and(|v| v.as_array().is_some_and(|a| !a.is_empty()))
        };
        let count = |fields: &[String]| fields.iter().filter(|f| set(f)).count();
        match &self.rule {
            Rule::ExactlyOneOf { fields: [a, b] } => set(a) != set(b),
            Rule::NotBoth { fields: [a, b] } => !(set(a) && set(b)),
            Rule::Absent { field } => !set(field),
            Rule::NotEqual { field, value } => {
                object.get(field).and_then(Value::as_str) != Some(value.as_str())
            }
            Rule::AnySet { fields } => fields.iter().any(|f| set(f)),
            Rule::AnyNonEmpty { fields } => fields.iter().any(|f| non_empty(f)),
            Rule::NonEmptyWhenSet { when, list } => !set(when) || non_empty(list),
            Rule::AtMostOneOf { fields } => count(fields) <= 1,
            Rule::TagOrExactlyOneOf { tag, fields } => set(tag) || count(fields) == 1,
            Rule::TagRequires {
                tag, value, field, ..
            } => object.get(tag).and_then(Value::as_str) != Some(value.as_str()) || set(field),
            Rule::FieldNamesTag { field, tag } => {
                !set(field)
                    || object
                        .get(tag)
                        .is_none_or(|t| t.as_str() == Some(field.as_str()))
            }
            Rule::Name { field, kind } => object
                .get(field)
                .is_none_or(|v| v.as_str().is_some_and(|name| kind.allows(name))),
        }
    }
}

/// The rules of one suite type; [`attach`] puts them in its schema.
pub trait Ruled {
    fn rules() -> Vec<Validation>;
}

/// A schemars transform: `#[schemars(transform = attach::<Self>)]`.
pub fn attach<T: Ruled>(schema: &mut Schema) {
    let rules = serde_json::to_value(T::rules()).expect("rules serialise");
    schema.insert(RULES_KEY.into(), rules);
}

/// `field` is a name of `kind`, said at that field.
pub fn name_rule(field: &str, kind: NameKind) -> Validation {
    Validation::new(
        Rule::Name {
            field: field.to_string(),
            kind,
        },
        kind.message(),
    )
    .at(field)
}

/// Two field names, for the rules of a pair.
pub fn pair(a: &str, b: &str) -> [String; 2] {
    [a.to_string(), b.to_string()]
}

/// Field names, for the rules of several.
pub fn names(fields: &[&str]) -> Vec<String> {
    fields.iter().map(|f| f.to_string()).collect()
}

/// Every rule of `schema` (a schema the core generated, subschemas
/// inlined) that `value` breaks: the path of the field it names, and its
/// message, as the API server's CEL would say them.
pub fn broken(schema: &Value, value: &Value, path: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    walk(schema, value, path, &mut found);
    found
}

fn walk(schema: &Value, value: &Value, path: &str, found: &mut Vec<(String, String)>) {
    if let (Some(rules), Some(object)) = (schema.get(RULES_KEY), value.as_object()) {
        let rules: Vec<Validation> = serde_json::from_value(rules.clone()).unwrap_or_default();
        for rule in rules.iter().filter(|r| !r.check(object)) {
            let at = match &rule.field {
                Some(field) => format!("{path}.{field}"),
                None => path.to_string(),
            };
            found.push((at, rule.message.clone()));
        }
    }
    for sub in schema["allOf"].as_array().into_iter().flatten() {
        walk(sub, value, path, found);
    }
    // An optional or untagged value: the one branch of its JSON type.
    for key in ["anyOf", "oneOf"] {
        let branches: Vec<&Value> = schema[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|b| of_type(b, value))
            .collect();
        if let [branch] = branches[..] {
            walk(branch, value, path, found);
        }
    }
    match value {
        Value::Object(object) => {
            let properties = schema["properties"].as_object();
            for (key, child) in object {
                match properties.and_then(|p| p.get(key)) {
                    Some(sub) => walk(sub, child, &format!("{path}.{key}"), found),
                    None if schema["additionalProperties"].is_object() => walk(
                        &schema["additionalProperties"],
                        child,
                        &format!("{path}.{key}"),
                        found,
                    ),
                    None => {}
                }
            }
        }
        Value::Array(items) if schema["items"].is_object() => {
            for (i, item) in items.iter().enumerate() {
                walk(&schema["items"], item, &format!("{path}[{i}]"), found);
            }
        }
        _ => {}
    }
}

/// Whether a branch's `type` admits the value (a branch without one may).
fn of_type(branch: &Value, value: &Value) -> bool {
    let name = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let admits = |t: &Value| t == name || (name == "integer" && t == "number");
    match &branch["type"] {
        Value::Null => true,
        Value::Array(types) => types.iter().any(admits),
        t => admits(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn names_are_what_their_path_segment_allows() {
        let regex = |kind: NameKind| regex::Regex::new(kind.pattern()).unwrap();
        let kinds = [NameKind::Object, NameKind::Namespace, NameKind::Id];
        // Allowed as an object name, a namespace, a session id.
        for (name, allowed) in [
            ("k8s-agent", [true, true, true]),
            ("a.b", [true, false, true]),
            ("..", [false, false, false]),
            (".", [false, false, false]),
            ("../team-b/k8s-agent", [false, false, false]),
            ("agent/team-b/k8s-agent", [false, false, false]),
            ("a/b", [false, false, false]),
            ("a\\b", [false, false, false]),
            ("%2F", [false, false, false]),
            ("a%2Fb", [false, false, false]),
            ("a?b", [false, false, false]),
            ("a#b", [false, false, false]),
            ("a b", [false, false, false]),
            ("a\nb", [false, false, false]),
            ("agént", [false, false, false]),
            ("-a", [false, false, false]),
            ("a-", [false, false, true]),
            ("A", [false, false, true]),
            ("", [false, false, false]),
            ("3f0c2a8e-1b7d-4c1e-9a55-0d6f1e2b7c44", [true, true, true]),
            ("ctx_01:user@team+x=1~2", [false, false, true]),
            (&"a".repeat(64), [true, false, true]),
            (&"a".repeat(254), [false, false, true]),
            (&"a".repeat(257), [false, false, false]),
        ] {
            for (kind, allowed) in kinds.into_iter().zip(allowed) {
                assert_eq!(kind.allows(name), allowed, "{kind:?} {name:?}");
                let matched = regex(kind).is_match(name) && name.len() <= kind.max_length();
                assert_eq!(
                    matched, allowed,
                    "the CEL pattern and the check agree on {kind:?} {name:?}"
                );
            }
        }
    }

    #[test]
    fn a_sql_schema_needs_no_quoting() {
        let regex = regex::Regex::new(NameKind::SqlSchema.pattern()).unwrap();
        for (name, allowed) in [
            ("kagent", true),
            ("_kagent_2", true),
            ("public", true),
            ("Kagent", false),
            ("2kagent", false),
            ("kagent\"; drop table session; --", false),
            ("kagent.public", false),
            ("", false),
            (&"k".repeat(64), false),
        ] {
            assert_eq!(NameKind::SqlSchema.allows(name), allowed, "{name:?}");
            let matched = regex.is_match(name) && name.len() <= NameKind::SqlSchema.max_length();
            assert_eq!(matched, allowed, "the CEL pattern agrees on {name:?}");
        }
    }

    #[test]
    fn each_rule_holds_and_fails_as_it_says() {
        let mut cases = vec![
            (
                Rule::ExactlyOneOf {
                    fields: pair("a", "b"),
                },
                json!({"a": 1}),
                json!({}),
            ),
            (
                Rule::NotBoth {
                    fields: pair("a", "b"),
                },
                json!({"b": 1}),
                json!({"a": 1, "b": 2}),
            ),
            (
                Rule::Absent { field: "a".into() },
                json!({}),
                json!({"a": null}),
            ),
            (
                Rule::NotEqual {
                    field: "m".into(),
                    value: "x".into(),
                },
                json!({"m": "y"}),
                json!({"m": "x"}),
            ),
            (
                Rule::AnySet {
                    fields: names(&["a", "b"]),
                },
                json!({"b": 0}),
                json!({"c": 1}),
            ),
            (
                Rule::AnyNonEmpty {
                    fields: names(&["a", "b"]),
                },
                json!({"a": [], "b": [1]}),
                json!({"a": []}),
            ),
            (
                Rule::NonEmptyWhenSet {
                    when: "c".into(),
                    list: "p".into(),
                },
                json!({}),
                json!({"c": 1, "p": []}),
            ),
            (
                Rule::AtMostOneOf {
                    fields: names(&["a", "b", "c"]),
                },
                json!({"a": 1}),
                json!({"a": 1, "c": 1}),
            ),
            (
                Rule::TagOrExactlyOneOf {
                    tag: "type".into(),
                    fields: names(&["a", "b"]),
                },
                json!({"type": "a", "a": 1, "b": 1}),
                json!({}),
            ),
            (
                Rule::TagRequires {
                    tag: "type".into(),
                    value: "a".into(),
                    field: "a".into(),
                    tag_optional: true,
                },
                json!({"type": "b"}),
                json!({"type": "a"}),
            ),
            (
                Rule::FieldNamesTag {
                    field: "a".into(),
                    tag: "type".into(),
                },
                json!({"a": 1}),
                json!({"a": 1, "type": "b"}),
            ),
        ];
        for kind in [NameKind::Object, NameKind::Namespace, NameKind::Id] {
            cases.push((
                Rule::Name {
                    field: "name".into(),
                    kind,
                },
                json!({"name": "team-b"}),
                json!({"name": "../team-b/k8s-agent"}),
            ));
        }
        for (rule, holds, fails) in cases {
            let v = Validation::new(rule, "m");
            assert!(v.check(&object(holds.clone())), "{v:?} on {holds}");
            assert!(!v.check(&object(fails.clone())), "{v:?} on {fails}");
        }
    }
}
