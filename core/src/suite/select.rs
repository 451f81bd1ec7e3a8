//! Which cases a run is made of: `spec.select`, or the command line's
//! `--tag`, `--exclude-tag` and `--case` in its place.

use crate::suite::compile::{CompiledCase, SuiteError, error};
use crate::suite::spec::SelectSpec;
use regex::Regex;
use serde::{Deserialize, Serialize};

/// What a selection kept and left out, for the report to say.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Selection {
    pub select: SelectSpec,
    pub selected: Vec<String>,
    pub left_out: Vec<String>,
    /// The tags of the cases left out, to say what could have been chosen.
    #[serde(skip)]
    pub tags_left_out: Vec<String>,
}

impl Selection {
    /// "selected 2 of 5 cases (tags fast; excluding tags slow)"
    pub fn counted(&self) -> String {
        format!(
            "selected {} of {} cases ({})",
            self.selected.len(),
            self.selected.len() + self.left_out.len(),
            self.select.describe()
        )
    }

    /// The same, and the names of the cases left out.
    pub fn describe(&self) -> String {
        let mut line = self.counted();
        if !self.left_out.is_empty() {
            line.push_str(&format!("; left out: {}", self.left_out.join(", ")));
        }
        line
    }
}

/// Keep the cases `select` chooses, in their order, and say which were
/// left out. Whether none may be chosen is the caller's to say.
pub fn select(
    cases: Vec<CompiledCase>,
    select: &SelectSpec,
    at: &str,
) -> Result<(Vec<CompiledCase>, Option<Selection>), SuiteError> {
    if select.is_empty() {
        return Ok((cases, None));
    }
    let globs = select
        .cases
        .iter()
        .enumerate()
        .map(|(i, glob)| {
            glob_regex(glob).map_err(|e| error(format!("{at}.cases[{i}]"), e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let chosen = |case: &CompiledCase| {
        let tagged = |tags: &[String]| tags.iter().any(|t| case.tags.contains(t));
        (select.tags.is_empty() || tagged(&select.tags))
            && !tagged(&select.exclude_tags)
            && (globs.is_empty() || globs.iter().any(|g| g.is_match(&case.name)))
    };
    let (kept, left): (Vec<_>, Vec<_>) = cases.into_iter().partition(chosen);
    let mut known: Vec<String> = left.iter().flat_map(|c| c.tags.clone()).collect();
    known.sort_unstable();
    known.dedup();
    let selection = Selection {
        select: select.clone(),
        selected: kept.iter().map(|c| c.name.clone()).collect(),
        left_out: left.iter().map(|c| c.name.clone()).collect(),
        tags_left_out: known,
    };
    Ok((kept, Some(selection)))
}

impl Selection {
    /// Why a selection of nothing is refused: a run of no case would be a
    /// green run that checked nothing.
    pub fn nothing_selected(&self) -> String {
        format!(
            "no case selected: {} (the cases' tags: {})",
            self.describe(),
            if self.tags_left_out.is_empty() {
                "none".to_string()
            } else {
                self.tags_left_out.join(", ")
            }
        )
    }
}

/// `*` any run of characters, `?` one; everything else as written.
fn glob_regex(glob: &str) -> Result<Regex, regex::Error> {
    let mut pattern = String::from("^");
    for c in glob.chars() {
        match c {
            '*' => pattern.push_str(".*"),
            '?' => pattern.push('.'),
            c => pattern.push_str(&regex::escape(&c.to_string())),
        }
    }
    pattern.push('$');
    Regex::new(&pattern)
}

#[cfg(test)]
mod tests {
    use crate::suite::compile::compile;
    use crate::suite::spec::SuiteSpec;

    fn spec(select: serde_json::Value) -> SuiteSpec {
        let evaluator = serde_json::json!({"name": "t", "type": "toolsUsed",
            "toolsUsed": {"mode": "superset", "expected": ["a"]}});
        serde_json::from_value(serde_json::json!({
            "select": select,
            "cases": [
                {"name": "fast-one", "tags": ["fast"], "evaluators": [evaluator]},
                {"name": "slow-one", "tags": ["slow", "nightly"], "evaluators": [evaluator]},
                {"name": "fast-flaky", "tags": ["fast", "flaky"], "evaluators": [evaluator]},
            ]
        }))
        .unwrap()
    }

    fn selected(select: serde_json::Value) -> Result<Vec<String>, String> {
        compile("s", &spec(select), "spec", "default")
            .map(|c| c.cases.iter().map(|c| c.name.clone()).collect())
            .map_err(|e| format!("{}: {}", e.path, e.message))
    }

    #[test]
    fn tags_exclusions_and_globs_choose_the_cases() {
        assert_eq!(
            selected(serde_json::json!({"tags": ["fast"]})).unwrap(),
            ["fast-one", "fast-flaky"]
        );
        assert_eq!(
            selected(serde_json::json!({"tags": ["fast"], "excludeTags": ["flaky"]})).unwrap(),
            ["fast-one"]
        );
        assert_eq!(
            selected(serde_json::json!({"cases": ["*-one"]})).unwrap(),
            ["fast-one", "slow-one"]
        );
        assert_eq!(
            selected(
                serde_json::json!({"cases": ["fast-?ne", "slow-one"], "excludeTags": ["nightly"]})
            )
            .unwrap(),
            ["fast-one"]
        );
        assert_eq!(selected(serde_json::json!({})).unwrap().len(), 3);
    }

    #[test]
    fn a_selection_of_nothing_is_refused_and_names_the_tags_there_are() {
        let refused = selected(serde_json::json!({"tags": ["smoke"]})).unwrap_err();
        assert!(
            refused
                .starts_with("spec.select: no case selected: selected 0 of 3 cases (tags smoke)")
                && refused.contains("the cases' tags: fast, flaky, nightly, slow"),
            "{refused}"
        );
    }

    #[test]
    fn the_selection_says_what_it_left_out() {
        let suite = compile(
            "s",
            &spec(serde_json::json!({"excludeTags": ["slow"]})),
            "spec",
            "default",
        )
        .unwrap();
        let selection = suite.selection.unwrap();
        assert_eq!(selection.left_out, ["slow-one"]);
        assert_eq!(
            selection.describe(),
            "selected 2 of 3 cases (excluding tags slow); left out: slow-one"
        );
    }
}
