//! agentevals' tool-argument matchers, and per-tool overrides.

use super::ConfigError;
use crate::pyjson;
use crate::trajectory::Args;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// How two calls' arguments must relate. A matcher is always called as
/// `matches(first, second)`; which side is the output depends on the
/// trajectory mode, exactly as in agentevals.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ArgsMode {
    /// Equal, with Python equality.
    #[default]
    Exact,
    /// Not compared.
    Ignore,
    /// Every key of the first is in the second with an equal value.
    Subset,
    /// Every key of the second is in the first with an equal value.
    Superset,
}

impl FromStr for ArgsMode {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<Self, ConfigError> {
        match s {
            "exact" => Ok(ArgsMode::Exact),
            "ignore" => Ok(ArgsMode::Ignore),
            "subset" => Ok(ArgsMode::Subset),
            "superset" => Ok(ArgsMode::Superset),
            other => Err(ConfigError(format!(
                "unknown tool args match mode `{other}` (expected exact, ignore, subset or superset)"
            ))),
        }
    }
}

impl fmt::Display for ArgsMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ArgsMode::Exact => "exact",
            ArgsMode::Ignore => "ignore",
            ArgsMode::Subset => "subset",
            ArgsMode::Superset => "superset",
        })
    }
}

/// A per-tool override: a mode, or the dotted key paths that must agree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Override {
    Mode(ArgsMode),
    Keys(Vec<String>),
}

impl FromStr for Override {
    type Err = ConfigError;

    /// A mode (`exact`), or key paths when there is a comma or a dot
    /// (`city,units`, `opts.units`, `city,`). A bare word must be a mode:
    /// agentevals reads an unknown one as `ignore`, which hides typos.
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        if !s.contains([',', '.']) {
            return s.parse().map(Override::Mode).map_err(|e: ConfigError| {
                ConfigError(format!("{e}; for a single key path write `{s},`"))
            });
        }
        let keys: Vec<String> = s
            .split(',')
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .map(String::from)
            .collect();
        if keys.is_empty() {
            return Err(ConfigError(format!("`{s}` names no key paths")));
        }
        Ok(Override::Keys(keys))
    }
}

/// The default mode and the per-tool overrides of one evaluator.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArgsConfig {
    pub default: ArgsMode,
    pub overrides: BTreeMap<String, Override>,
}

/// The matcher for one tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgsMatcher<'a> {
    Mode(ArgsMode),
    Keys(&'a [String]),
}

impl ArgsConfig {
    pub fn matcher(&self, tool: &str) -> ArgsMatcher<'_> {
        match self.overrides.get(tool) {
            // An empty key list falls back to the default, as in agentevals.
            Some(Override::Keys(keys)) if !keys.is_empty() => ArgsMatcher::Keys(keys),
            Some(Override::Mode(mode)) => ArgsMatcher::Mode(*mode),
            _ => ArgsMatcher::Mode(self.default),
        }
    }
}

/// agentevals' dotted-path lookup: missing keys, explicit nulls and paths
/// through non-objects all read as `None`; there are no list indexes.
fn nested<'v>(args: &'v Args, path: &str) -> Option<&'v Value> {
    let mut parts = path.split('.');
    let mut current = args.get(parts.next()?)?;
    for part in parts {
        if current.is_null() {
            return None;
        }
        current = current.as_object()?.get(part)?;
    }
    (!current.is_null()).then_some(current)
}

fn nested_eq(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => pyjson::eq(x, y),
        _ => false,
    }
}

/// Every key of `small` is in `large` with an equal value.
fn contained(small: &Args, large: &Args) -> bool {
    small
        .iter()
        .all(|(k, v)| large.get(k).is_some_and(|w| pyjson::eq(v, w)))
}

impl ArgsMatcher<'_> {
    pub fn matches(&self, first: &Args, second: &Args) -> bool {
        match self {
            ArgsMatcher::Mode(ArgsMode::Exact) => {
                first.len() == second.len() && contained(first, second)
            }
            ArgsMatcher::Mode(ArgsMode::Ignore) => true,
            ArgsMatcher::Mode(ArgsMode::Subset) => contained(first, second),
            ArgsMatcher::Mode(ArgsMode::Superset) => contained(second, first),
            ArgsMatcher::Keys(keys) => keys
                .iter()
                .all(|k| nested_eq(nested(first, k), nested(second, k))),
        }
    }

    /// Why `matches(first, second)` is false, naming paths, never values.
    pub fn mismatch(&self, first: &Args, second: &Args, sides: [&str; 2]) -> String {
        let [first_side, second_side] = sides;
        let missing = |key: &str, side: &str| format!("`{key}` is missing in the {side}");
        match self {
            ArgsMatcher::Mode(ArgsMode::Exact) => exact_difference(first, second, "", sides)
                .unwrap_or_else(|| "arguments differ".into()),
            ArgsMatcher::Mode(ArgsMode::Ignore) => "arguments differ".into(),
            ArgsMatcher::Mode(mode @ (ArgsMode::Subset | ArgsMode::Superset)) => {
                let (small, large, large_side) = if *mode == ArgsMode::Subset {
                    (first, second, second_side)
                } else {
                    (second, first, first_side)
                };
                sorted(small)
                    .find_map(|(k, v)| match large.get(k) {
                        None => Some(missing(k, large_side)),
                        Some(w) if !pyjson::eq(v, w) => {
                            Some(differs(k, [v, w], [first_side, second_side]))
                        }
                        _ => None,
                    })
                    .unwrap_or_else(|| "arguments differ".into())
            }
            ArgsMatcher::Keys(keys) => keys
                .iter()
                .find_map(|k| {
                    let (a, b) = (nested(first, k), nested(second, k));
                    (!nested_eq(a, b)).then(|| match (a, b) {
                        (Some(a), Some(b)) => differs(k, [a, b], sides),
                        (None, _) => format!("`{k}` is missing in the {first_side}"),
                        (_, None) => format!("`{k}` is missing in the {second_side}"),
                    })
                })
                .unwrap_or_else(|| "arguments differ".into()),
        }
    }
}

/// `` `path` differs ``, with each side's value described by its shape only:
/// diagnostics end up in cluster status readable by people who may not
/// read the conversation.
fn differs(path: &str, values: [&Value; 2], sides: [&str; 2]) -> String {
    format!(
        "`{path}` differs ({}: {}, {}: {})",
        sides[0],
        shape(values[0]),
        sides[1],
        shape(values[1])
    )
}

/// A value's kind and size, never its content.
pub fn shape(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(_) => "a boolean".into(),
        Value::Number(_) => "a number".into(),
        Value::String(s) => format!("a string of {} characters", s.chars().count()),
        Value::Array(a) => format!("a list of {}", a.len()),
        Value::Object(o) => format!("an object of {} keys", o.len()),
    }
}

/// An object argument matching reads: a call's arguments, or an object
/// nested in them.
trait Object {
    fn value(&self, key: &str) -> Option<&Value>;
    fn entries(&self) -> impl Iterator<Item = (&String, &Value)>;
}

impl Object for Args {
    fn value(&self, key: &str) -> Option<&Value> {
        self.get(key)
    }

    fn entries(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.iter()
    }
}

impl Object for Map<String, Value> {
    fn value(&self, key: &str) -> Option<&Value> {
        self.get(key)
    }

    fn entries(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.iter()
    }
}

fn sorted(object: &impl Object) -> impl Iterator<Item = (&String, &Value)> {
    let mut entries: Vec<_> = object.entries().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries.into_iter()
}

/// The first path at which two argument objects differ.
fn exact_difference(
    a: &impl Object,
    b: &impl Object,
    prefix: &str,
    sides: [&str; 2],
) -> Option<String> {
    let path = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    for (k, v) in sorted(a) {
        match b.value(k) {
            None => return Some(format!("`{}` is missing in the {}", path(k), sides[1])),
            Some(w) if !pyjson::eq(v, w) => {
                return Some(match (v, w) {
                    (Value::Object(x), Value::Object(y)) => exact_difference(x, y, &path(k), sides)
                        .unwrap_or_else(|| differs(&path(k), [v, w], sides)),
                    _ => differs(&path(k), [v, w], sides),
                });
            }
            _ => {}
        }
    }
    sorted(b)
        .find(|(k, _)| a.value(k).is_none())
        .map(|(k, _)| format!("`{}` is missing in the {}", path(k), sides[0]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Args {
        v.as_object().unwrap().clone().into()
    }

    #[test]
    fn modes_compare_like_agentevals() {
        let a = obj(json!({"city": "London", "units": "c"}));
        let b = obj(json!({"city": "London"}));
        let m = |mode| ArgsMatcher::Mode(mode);
        assert!(!m(ArgsMode::Exact).matches(&a, &b));
        assert!(m(ArgsMode::Exact).matches(&obj(json!({"n": 1})), &obj(json!({"n": 1.0}))));
        assert!(m(ArgsMode::Superset).matches(&a, &b));
        assert!(!m(ArgsMode::Subset).matches(&a, &b));
        assert!(m(ArgsMode::Subset).matches(&b, &a));
        assert!(m(ArgsMode::Ignore).matches(&a, &obj(json!({}))));
    }

    #[test]
    fn key_paths_treat_missing_and_null_alike_and_have_no_indexes() {
        let keys = ["a.b".to_string(), "c".to_string()];
        let m = ArgsMatcher::Keys(&keys);
        assert!(m.matches(
            &obj(json!({"a": {"b": 1}, "x": 1})),
            &obj(json!({"a": {"b": 1.0}, "c": null}))
        ));
        assert!(m.matches(&obj(json!({"a": null})), &obj(json!({"a": {"b": null}}))));
        assert!(!m.matches(&obj(json!({"a": {"b": 1}})), &obj(json!({"a": {"b": 2}}))));
        let indexed = ["a.0".to_string()];
        assert!(
            ArgsMatcher::Keys(&indexed).matches(&obj(json!({"a": [1]})), &obj(json!({"a": [2]})))
        );
    }

    #[test]
    fn overrides_resolve_per_tool_and_empty_falls_back() {
        let mut config = ArgsConfig::default();
        config
            .overrides
            .insert("search".into(), "ignore".parse().unwrap());
        config
            .overrides
            .insert("lookup".into(), "city,units".parse().unwrap());
        config
            .overrides
            .insert("empty".into(), Override::Keys(vec![]));
        assert_eq!(
            config.matcher("search"),
            ArgsMatcher::Mode(ArgsMode::Ignore)
        );
        assert!(matches!(config.matcher("lookup"), ArgsMatcher::Keys(k) if k.len() == 2));
        assert_eq!(config.matcher("empty"), ArgsMatcher::Mode(ArgsMode::Exact));
        assert_eq!(config.matcher("other"), ArgsMatcher::Mode(ArgsMode::Exact));
        assert!("bogus".parse::<Override>().is_err());
        assert!("bogus".parse::<ArgsMode>().is_err());
        assert_eq!(
            "city,".parse::<Override>().unwrap(),
            Override::Keys(vec!["city".into()])
        );
    }

    #[test]
    fn mismatches_name_the_path() {
        let out = obj(json!({"city": "Paris", "opts": {"units": "f"}}));
        let reference = obj(json!({"city": "London", "opts": {"units": "c"}, "day": 1}));
        let sides = ["output", "reference"];
        let exact = ArgsMatcher::Mode(ArgsMode::Exact);
        assert_eq!(
            exact.mismatch(&out, &reference, sides),
            "`city` differs (output: a string of 5 characters, reference: a string of 6 characters)"
        );
        let same_city = obj(json!({"city": "London", "opts": {"units": "f"}}));
        assert_eq!(
            exact.mismatch(&same_city, &reference, sides),
            "`opts.units` differs (output: a string of 1 characters, reference: a string of 1 characters)"
        );
        let superset = ArgsMatcher::Mode(ArgsMode::Superset);
        assert_eq!(
            superset.mismatch(
                &obj(json!({"city": "London", "opts": {"units": "c"}})),
                &reference,
                sides
            ),
            "`day` is missing in the output"
        );
    }
}
