//! The core's suite rules ([`crate::core::suite::rules`]) written as CEL, the
//! language of the API server's `x-kubernetes-validations`, so that
//! `kubectl apply` refuses what `compile()` refuses, in the same words.

use crate::core::suite::rules::{RULES_KEY, Rule, Validation};
use schemars::Schema;
use serde_json::{Map, Value, json};

/// A schemars transform for a CRD's spec: every rule of the schema below
/// it, written as CEL. It runs on the spec's inlined schema, before kube
/// turns it into the CRD's typed schema (which keeps only what Kubernetes
/// knows).
pub fn rules_as_cel(schema: &mut Schema) {
    if let Some(object) = schema.as_object_mut() {
        let mut value = Value::Object(std::mem::take(object));
        write_rules_as_cel(&mut value);
        if let Value::Object(written) = value {
            *object = written;
        }
    }
}

/// Replace every object's rules with their CEL, in place.
fn write_rules_as_cel(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.contains_key(RULES_KEY) {
                *map = std::mem::take(map)
                    .into_iter()
                    .map(|(key, value)| match key.as_str() {
                        RULES_KEY => ("x-kubernetes-validations".to_string(), validations(value)),
                        _ => (key, value),
                    })
                    .collect::<Map<String, Value>>();
            }
            map.values_mut().for_each(write_rules_as_cel);
        }
        Value::Array(items) => items.iter_mut().for_each(write_rules_as_cel),
        _ => {}
    }
}

fn validations(rules: Value) -> Value {
    let rules: Vec<Validation> = serde_json::from_value(rules).expect("the core's rules");
    rules.iter().map(validation).collect()
}

fn validation(v: &Validation) -> Value {
    let mut out = json!({"rule": cel(&v.rule), "message": v.message});
    if let Some(field) = &v.field {
        out["fieldPath"] = json!(format!(".{field}"));
    }
    if v.required {
        out["reason"] = json!("FieldValueRequired");
    }
    out
}

/// CEL's reserved words, which a field name must be escaped from as
/// `__word__` (Kubernetes' CEL property-name escaping).
const RESERVED: &[&str] = &[
    "as",
    "break",
    "const",
    "continue",
    "else",
    "false",
    "for",
    "function",
    "if",
    "import",
    "in",
    "let",
    "loop",
    "package",
    "namespace",
    "null",
    "return",
    "true",
    "var",
    "void",
    "while",
];

fn field_name(field: &str) -> String {
    if RESERVED.contains(&field) {
        format!("__{field}__")
    } else {
        field.to_string()
    }
}

fn has(field: &str) -> String {
    format!("has(self.{})", field_name(field))
}

fn non_empty(field: &str) -> String {
    let f = field_name(field);
    format!("(has(self.{f}) && size(self.{f}) > 0)")
}

fn set_count(fields: &[String]) -> String {
    let present: Vec<String> = fields.iter().map(|f| has(f)).collect();
    format!("[{}].filter(x, x).size()", present.join(", "))
}

fn cel(rule: &Rule) -> String {
    match rule {
        Rule::ExactlyOneOf { fields: [a, b] } => format!("{} != {}", has(a), has(b)),
        Rule::NotBoth { fields: [a, b] } => format!("!({} && {})", has(a), has(b)),
        Rule::Absent { field } => format!("!{}", has(field)),
        Rule::NotEqual { field, value } => format!("self.{} != '{value}'", field_name(field)),
        Rule::AnySet { fields } => fields
            .iter()
            .map(|f| has(f))
            .collect::<Vec<_>>()
            .join(" || "),
        Rule::AnyNonEmpty { fields } => fields
            .iter()
            .map(|f| non_empty(f))
            .collect::<Vec<_>>()
            .join(" || "),
        Rule::NonEmptyWhenSet { when, list } => format!("!{} || {}", has(when), non_empty(list)),
        Rule::AtMostOneOf { fields } => format!("{} <= 1", set_count(fields)),
        Rule::TagOrExactlyOneOf { tag, fields } => {
            format!("{} || {} == 1", has(tag), set_count(fields))
        }
        Rule::TagRequires {
            tag,
            value,
            field,
            tag_optional,
        } => {
            let t = field_name(tag);
            let base = format!("self.{t} != '{value}' || {}", has(field));
            if *tag_optional {
                format!("!{} || {base}", has(tag))
            } else {
                base
            }
        }
        Rule::Name { field, kind } => {
            let f = field_name(field);
            format!(
                "!has(self.{f}) || (size(self.{f}) <= {} && self.{f}.matches('{}'))",
                kind.max_length(),
                kind.pattern().replace('\\', "\\\\")
            )
        }
        Rule::FieldNamesTag { field, tag } => format!(
            "!{} || !{} || self.{} == '{field}'",
            has(field),
            has(tag),
            field_name(tag)
        ),
    }
}
