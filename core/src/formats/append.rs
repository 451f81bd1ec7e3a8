//! A case added to the `cases` of an EvalSuite file as text, so that the
//! file's comments and layout stay as they were.

use super::load::{documents, load_compiled};
use super::locate::line_of;
use crate::suite::loaded::{LoadError, SuiteFormat};

/// `text` with `case` (one YAML list item, `- name: ...`) after the last
/// of the suite's cases. The result is loaded and compiled before it is
/// returned: a file that is not one EvalSuite, cases in flow style, or a
/// case the suite then refuses (a name it has already) is an error, and
/// the caller leaves the file as it was.
pub fn append_case(file: &str, text: &str, case: &str) -> Result<String, LoadError> {
    let refuse = |message: String| LoadError {
        file: file.into(),
        line: None,
        field: None,
        message,
    };
    let suites = super::load::load(file, text, None)?;
    match suites.as_slice() {
        [one] if one.format == SuiteFormat::Manifest => {}
        [_] => {
            return Err(refuse(
                "not an EvalSuite manifest: a case is added to an EvalSuite".into(),
            ));
        }
        many => {
            return Err(refuse(format!(
                "holds {} suites: add the case to a file of one EvalSuite",
                many.len()
            )));
        }
    }
    let doc = &documents(text)[0];
    let lines: Vec<&str> = doc.text.split_inclusive('\n').collect();
    // Where the list starts: its first `-` in block style, or `[` in flow.
    let (value_line, _) =
        line_of(doc.text, "spec.cases").ok_or_else(|| refuse("spec.cases: not found".into()))?;
    let value_index = value_line as usize - 1;
    if !lines[value_index].trim_start().starts_with('-') {
        return Err(LoadError {
            file: file.into(),
            line: Some((value_line + doc.first_line - 1, 1)),
            field: Some("spec.cases".into()),
            message: "the cases are written in flow style; add the case by hand".into(),
        });
    }
    let indent = |line: &str| line.len() - line.trim_start().len();
    let content = |line: &str| {
        let trimmed = line.trim();
        !trimmed.is_empty() && !trimmed.starts_with('#')
    };
    let item_indent = indent(lines[value_index]);
    // After the last line of the last case: the first line outside the
    // list ends it (a key of `spec` after `cases`, or the document's end).
    let mut last = value_index;
    for (i, line) in lines.iter().enumerate().skip(value_index + 1) {
        if !content(line) {
            continue;
        }
        let inside = indent(line) > item_indent
            || (indent(line) == item_indent && line.trim_start().starts_with('-'));
        if !inside {
            break;
        }
        last = i;
    }
    let pad = " ".repeat(item_indent);
    let mut block = String::new();
    for line in case.lines() {
        if line.is_empty() {
            block.push('\n');
        } else {
            block.push_str(&format!("{pad}{line}\n"));
        }
    }
    let offset = doc.text.as_ptr() as usize - text.as_ptr() as usize
        + lines[..=last].iter().map(|l| l.len()).sum::<usize>();
    let mut out = String::with_capacity(text.len() + block.len() + 1);
    out.push_str(&text[..offset]);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&block);
    out.push_str(&text[offset..]);
    load_compiled(file, &out, None)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CASE: &str = "- name: harvested\n  evaluators:\n  - name: t\n    type: toolsUsed\n    toolsUsed:\n      mode: superset\n      expected: [a]\n";

    #[test]
    fn a_case_goes_after_the_last_one_and_comments_stay() {
        let text = "# the suite\napiVersion: evals.kagent.dev/v1alpha1\nkind: EvalSuite\nmetadata:\n  name: s\nspec:\n  cases:\n    # the first\n    - name: first\n      evaluators:\n        - name: t\n          type: toolsUsed\n          toolsUsed: {mode: subset, expected: [a]}\n  # the schedule\n  schedule: \"0 2 * * *\"\n";
        let out = append_case("s.yaml", text, CASE).unwrap();
        assert!(out.starts_with("# the suite\n"), "{out}");
        assert!(
            out.contains("    # the first\n    - name: first\n"),
            "{out}"
        );
        let at = out
            .find("    - name: harvested\n")
            .expect("added at the cases' indentation");
        assert!(
            at > out.find("expected: [a]}").unwrap() && at < out.find("# the schedule").unwrap(),
            "{out}"
        );
        let suites = load_compiled("s.yaml", &out, None).unwrap();
        assert_eq!(suites[0].1.cases.len(), 2);
        assert!(out.ends_with("  schedule: \"0 2 * * *\"\n"));
    }

    #[test]
    fn a_file_that_is_no_suite_or_a_name_taken_is_refused() {
        let not_a_suite = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n";
        assert!(append_case("c.yaml", not_a_suite, CASE).is_err());
        let taken = "apiVersion: evals.kagent.dev/v1alpha1\nkind: EvalSuite\nmetadata:\n  name: s\nspec:\n  cases:\n  - name: harvested\n    evaluators:\n    - name: t\n      type: toolsUsed\n      toolsUsed: {mode: subset, expected: [a]}\n";
        let error = append_case("s.yaml", taken, CASE).unwrap_err();
        assert!(error.to_string().contains("names two cases"), "{error}");
    }
}
