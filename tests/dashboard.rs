//! The Grafana dashboard and the chart's alerts query only what the operator
//! serves: every metric and label name in their PromQL is checked against
//! the real exposition, so a renamed metric or label fails here instead of
//! leaving a panel empty or an alert silent. Also checks the dashboard's
//! structure and that config/ carries the chart's copy.

use kagent_evals::k8s::controller::metrics::{
    CaseLabels, ErrorLabels, Metrics, RunLabels, SuiteAgentLabels, SuiteLabels,
};
use kagent_evals::k8s::vocabulary::RunResult;
use prometheus_client::registry::Registry;
use regex::Regex;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

const DASHBOARD: &str = "charts/kagent-evals/dashboards/kagent-evals.json";
const DASHBOARD_COPY: &str = "config/grafana/kagent-evals-dashboard.json";
const RULES: &str = "charts/kagent-evals/templates/prometheusrule.yaml";

/// Grafana's core panel types that the dashboard uses (no plugin needed).
const PANEL_TYPES: [&str; 5] = ["timeseries", "stat", "table", "state-timeline", "bargauge"];

/// Variables Grafana defines itself.
const BUILT_INS: [&str; 3] = ["__range", "__rate_interval", "__interval"];

/// What a family's samples append to its name in the text exposition.
const SUFFIXES: [&str; 5] = ["", "_total", "_bucket", "_sum", "_count"];

fn path(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(relative)
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(path(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

fn dashboard() -> Value {
    serde_json::from_str(&read(DASHBOARD)).unwrap()
}

/// /metrics as the operator serves it, with one sample in every family.
fn exposition() -> String {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let suite = SuiteLabels {
        namespace: "team".into(),
        suite: "nightly".into(),
    };
    let case = CaseLabels {
        namespace: "team".into(),
        suite: "nightly".into(),
        case: "lists-pods".into(),
    };
    for result in [RunResult::Passed, RunResult::Failed, RunResult::Error] {
        metrics
            .runs
            .get_or_create(&RunLabels {
                namespace: "team".into(),
                suite: "nightly".into(),
                result,
            })
            .inc();
    }
    metrics.run_duration.get_or_create(&suite).observe(1.0);
    metrics.last_run_passed.get_or_create(&suite).set(1);
    metrics
        .last_success
        .get_or_create(&suite)
        .set(1_700_000_000);
    metrics.schedule_interval.get_or_create(&suite).set(86_400);
    metrics.mean_cost.get_or_create(&suite).set(0.01);
    metrics.mean_latency.get_or_create(&suite).set(3.5);
    metrics.mean_tokens.get_or_create(&suite).set(1500.0);
    metrics.non_blocking_failures.get_or_create(&suite).set(1);
    metrics.case_passed.get_or_create(&case).set(1);
    metrics.case_probe_pass_rate.get_or_create(&case).set(0.5);
    metrics
        .suite_info
        .get_or_create(&SuiteAgentLabels {
            namespace: "team".into(),
            suite: "nightly".into(),
            agent: "kagent/k8s-agent".into(),
        })
        .set(1);
    metrics
        .reconcile_errors
        .get_or_create(&ErrorLabels {
            controller: "suite".into(),
            error: "Kube".into(),
        })
        .inc();
    metrics.leader.set(1);
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    text
}

/// The families the exposition declares (`# TYPE name kind`).
fn families(exposition: &str) -> Vec<String> {
    exposition
        .lines()
        .filter_map(|line| line.strip_prefix("# TYPE "))
        .map(|rest| rest.split(' ').next().unwrap().to_string())
        .collect()
}

/// Whether a sample or query name is one of the family's series.
fn of_family(name: &str, family: &str) -> bool {
    name.strip_prefix(family)
        .is_some_and(|suffix| SUFFIXES.contains(&suffix))
}

/// Metric name as served (`_total`, `_bucket`, ...) to its label names.
type Served = BTreeMap<String, BTreeSet<String>>;

fn served() -> Served {
    let text = exposition();
    let sample = Regex::new(r"^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{([^}]*)\})?\s").unwrap();
    let label = Regex::new(r#"([A-Za-z_][A-Za-z0-9_]*)="(?:[^"\\]|\\.)*""#).unwrap();
    let mut served = Served::new();
    for line in text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let found = sample
            .captures(line)
            .unwrap_or_else(|| panic!("not a sample: {line}"));
        let labels = served.entry(found[1].to_string()).or_default();
        if let Some(pairs) = found.get(2) {
            labels.extend(
                label
                    .captures_iter(pairs.as_str())
                    .map(|c| c[1].to_string()),
            );
        }
    }
    // A family left without a sample above would look unserved.
    for family in families(&text) {
        assert!(
            served.keys().any(|name| of_family(name, &family)),
            "{family} has no sample: set one in exposition()"
        );
    }
    served
}

/// The metric and label names one PromQL expression uses.
#[derive(Debug, Default)]
struct Names {
    metrics: BTreeSet<String>,
    labels: BTreeSet<String>,
}

/// Reads names from PromQL with a few regexes: enough for the selectors,
/// aggregations, vector matching and `label_values` these queries use.
fn scan(expr: &str) -> Names {
    // Quoted strings hold label values and Grafana variables, never names:
    // empty them first so that nothing in them is read as one.
    let strings = Regex::new(r#""(?:[^"\\]|\\.)*""#).unwrap();
    let expr = strings.replace_all(expr, "\"\"");
    // Any `kagent_` identifier, so that a misspelt prefix is caught as well.
    let metric = Regex::new(r"\bkagent_[a-z0-9_]*").unwrap();
    let selector = Regex::new(r"\bkagent_[a-z0-9_]*\s*\{([^}]*)\}").unwrap();
    let matcher = Regex::new(r#"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)\s*"""#).unwrap();
    let clause =
        Regex::new(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)").unwrap();
    let label_values = Regex::new(
        r"\blabel_values\s*\(\s*[A-Za-z_:][A-Za-z0-9_:]*\s*(?:\{[^}]*\})?\s*,\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)",
    )
    .unwrap();
    let mut names = Names::default();
    names
        .metrics
        .extend(metric.find_iter(&expr).map(|m| m.as_str().to_string()));
    for found in selector.captures_iter(&expr) {
        names
            .labels
            .extend(matcher.captures_iter(&found[1]).map(|c| c[1].to_string()));
    }
    for found in clause.captures_iter(&expr) {
        names.labels.extend(
            found[1]
                .split(',')
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string),
        );
    }
    for found in label_values.captures_iter(&expr) {
        names.labels.insert(found[1].to_string());
    }
    names
}

/// What is wrong with the names an expression uses: a metric not served,
/// or a label that none of its metrics has.
fn problems(expr: &str, served: &Served) -> Vec<String> {
    let names = scan(expr);
    let mut problems = Vec::new();
    if names.metrics.is_empty() {
        problems.push("names no kagent-evals metric".to_string());
    }
    // A `_bucket` series carries `le` itself, so bucket queries may use it.
    let mut known = BTreeSet::new();
    for metric in &names.metrics {
        match served.get(metric) {
            Some(labels) => known.extend(labels.iter().cloned()),
            None => problems.push(format!("{metric} is not served")),
        }
    }
    for label in names.labels.difference(&known) {
        problems.push(format!("no metric here has the label {label}"));
    }
    problems
}

fn variables(dashboard: &Value) -> &Vec<Value> {
    dashboard["templating"]["list"]
        .as_array()
        .expect("a templating.list array")
}

/// Every PromQL query the dashboard makes, with where it is made.
fn dashboard_queries(dashboard: &Value) -> Vec<(String, String)> {
    let mut queries = Vec::new();
    for panel in dashboard["panels"].as_array().into_iter().flatten() {
        for target in panel["targets"].as_array().into_iter().flatten() {
            if let Some(expr) = target["expr"].as_str() {
                let origin = format!("panel {} {}", panel["title"], target["refId"]);
                queries.push((origin, expr.to_string()));
            }
        }
    }
    for variable in variables(dashboard) {
        if variable["type"] == "query" {
            // Grafana keeps a variable's query as a string or as {query: ...}.
            let query = variable["query"]
                .as_str()
                .or(variable["query"]["query"].as_str())
                .unwrap_or_else(|| panic!("variable {}: no query", variable["name"]));
            queries.push((format!("variable {}", variable["name"]), query.to_string()));
        }
    }
    queries
}

/// The PrometheusRule's `expr`s, by alert, as the chart renders them by
/// default.
fn alert_exprs() -> Vec<(String, String)> {
    let template = read(RULES);
    let value = Regex::new(r"\{\{-?\s*\.Values\.[A-Za-z.]+\s*-?\}\}").unwrap();
    let mut alert = String::new();
    let mut exprs = Vec::new();
    let mut lines = template.lines().peekable();
    while let Some(line) = lines.next() {
        let key = line.trim_start();
        let indent = line.len() - key.len();
        if let Some(name) = key.strip_prefix("- alert:") {
            alert = name.trim().to_string();
        }
        let Some(rest) = key.strip_prefix("expr:") else {
            continue;
        };
        let mut expr = rest.trim().to_string();
        if expr == ">" || expr == "|" {
            // A block scalar: the lines indented deeper than `expr:`.
            let mut block = Vec::new();
            while let Some(next) = lines.next_if(|l| l.len() - l.trim_start().len() > indent) {
                block.push(next.trim());
            }
            expr = block.join(" ");
        }
        // The only value an expr takes is staleIntervals, 2 by default.
        let expr = value.replace_all(&expr, "2").into_owned();
        assert!(
            !expr.contains("{{"),
            "{alert}: the expr takes a Helm value this test does not fill in: {expr}"
        );
        exprs.push((format!("alert {alert}"), expr));
    }
    exprs
}

#[test]
fn every_dashboard_and_alert_query_names_served_metrics_and_labels() {
    let served = served();
    let alerts = alert_exprs();
    let rules = read(RULES).matches("- alert:").count();
    assert!(
        rules >= 2 && alerts.len() == rules,
        "read {} exprs for {rules} alerts: {alerts:?}",
        alerts.len()
    );
    let queries = dashboard_queries(&dashboard());
    assert!(
        queries
            .iter()
            .any(|(origin, _)| origin.starts_with("panel"))
            && queries
                .iter()
                .any(|(origin, _)| origin.starts_with("variable")),
        "no queries read from the dashboard: {queries:?}"
    );
    let mut wrong = Vec::new();
    for (origin, expr) in queries.iter().chain(&alerts) {
        for problem in problems(expr, &served) {
            wrong.push(format!("{origin}: {problem}\n    {expr}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The check above can fail: it flags each kind of wrong name.
#[test]
fn the_query_check_flags_unserved_metrics_and_unknown_labels() {
    let served = served();
    for (expr, problem) in [
        (
            "kagent_evals_run_total",
            "kagent_evals_run_total is not served",
        ),
        (
            "kagent_eval_runs_total",
            "kagent_eval_runs_total is not served",
        ),
        (r#"kagent_evals_suite_info{agnt="x"}"#, "the label agnt"),
        ("sum by (pod) (kagent_evals_leader)", "the label pod"),
        (
            "kagent_evals_case_passed * on (namespace) group_left (agent) kagent_evals_leader",
            "the label agent",
        ),
        (
            "label_values(kagent_evals_case_passed, agent)",
            "the label agent",
        ),
        (r#"up{job="kagent-evals"}"#, "names no kagent-evals metric"),
    ] {
        let found = problems(expr, &served);
        assert!(
            found.iter().any(|p| p.contains(problem)),
            "{expr}: {found:?}"
        );
    }
    for expr in [
        r#"max by (namespace, suite) (kagent_evals_suite_last_run_passed{suite=~"$suite"}) * on (namespace, suite) group_left (agent) kagent_evals_suite_info"#,
        "histogram_quantile(0.5, sum by (le) (rate(kagent_evals_run_duration_seconds_bucket[1d])))",
        r#"label_values(kagent_evals_suite_info{namespace=~"$namespace", agent!=""}, suite)"#,
    ] {
        assert_eq!(problems(expr, &served), Vec::<String>::new(), "{expr}");
    }
}

#[test]
fn the_dashboard_shows_every_metric_the_operator_serves() {
    let used: BTreeSet<String> = dashboard_queries(&dashboard())
        .iter()
        .flat_map(|(_, query)| scan(query).metrics)
        .collect();
    for family in families(&exposition()) {
        assert!(
            used.iter().any(|name| of_family(name, &family)),
            "no panel shows {family}"
        );
    }
}

/// Panels, targets and variables query the Prometheus the `datasource`
/// variable picks.
fn assert_uses_the_datasource_variable(datasource: &Value, what: &str) {
    assert_eq!(datasource["type"], "prometheus", "{what}: {datasource}");
    assert_eq!(datasource["uid"], "${datasource}", "{what}: {datasource}");
}

#[test]
fn the_dashboard_is_valid_for_its_schema_version() {
    let dashboard = dashboard();
    for key in ["title", "uid"] {
        assert!(
            dashboard[key].as_str().is_some_and(|s| !s.is_empty()),
            "no {key}"
        );
    }
    // Grafana refuses longer uids.
    assert!(dashboard["uid"].as_str().unwrap().len() <= 40);
    // From 36 on, datasources are referenced as {type, uid}, as here.
    let version = dashboard["schemaVersion"]
        .as_u64()
        .expect("a numeric schemaVersion");
    assert!(version >= 36, "schemaVersion {version}");

    let variables = variables(&dashboard);
    let names: BTreeSet<&str> = variables
        .iter()
        .map(|v| v["name"].as_str().expect("a variable name"))
        .collect();
    for name in ["datasource", "namespace", "suite"] {
        assert!(names.contains(name), "no variable {name}: {names:?}");
    }
    for variable in variables {
        match variable["type"].as_str() {
            Some("datasource") => assert_eq!(variable["query"], "prometheus"),
            Some("query") => assert_uses_the_datasource_variable(
                &variable["datasource"],
                &format!("variable {}", variable["name"]),
            ),
            other => panic!("variable {}: type {other:?}", variable["name"]),
        }
    }

    let panels = dashboard["panels"].as_array().expect("a panels array");
    assert!(!panels.is_empty());
    let mut ids = BTreeSet::new();
    let mut placed: Vec<(&str, [u64; 4])> = Vec::new();
    for panel in panels {
        let title = panel["title"]
            .as_str()
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| panic!("a panel without a title: {panel}"));
        let id = panel["id"]
            .as_u64()
            .unwrap_or_else(|| panic!("{title}: no numeric id"));
        assert!(ids.insert(id), "{title}: id {id} is taken");
        let kind = panel["type"].as_str().unwrap_or_default();
        assert!(PANEL_TYPES.contains(&kind), "{title}: type {kind:?}");

        let grid = &panel["gridPos"];
        let [x, y, w, h] = ["x", "y", "w", "h"].map(|k| {
            grid[k]
                .as_u64()
                .unwrap_or_else(|| panic!("{title}: gridPos.{k} is not an integer"))
        });
        assert!(w >= 1 && h >= 1 && x + w <= 24, "{title}: gridPos {grid}");
        // Grafana would push an overlapping panel down, out of the layout.
        for &(other, [ox, oy, ow, oh]) in &placed {
            let apart = x >= ox + ow || ox >= x + w || y >= oy + oh || oy >= y + h;
            assert!(apart, "{title} overlaps {other}");
        }
        placed.push((title, [x, y, w, h]));

        assert_uses_the_datasource_variable(&panel["datasource"], title);
        let targets = panel["targets"]
            .as_array()
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| panic!("{title}: no targets"));
        let mut refs = BTreeSet::new();
        for target in targets {
            let ref_id = target["refId"]
                .as_str()
                .filter(|r| !r.is_empty())
                .unwrap_or_else(|| panic!("{title}: a target without a refId"));
            assert!(refs.insert(ref_id), "{title}: refId {ref_id} is taken");
            assert!(
                target["expr"]
                    .as_str()
                    .is_some_and(|e| !e.trim().is_empty()),
                "{title} {ref_id}: no expr"
            );
            assert_uses_the_datasource_variable(
                &target["datasource"],
                &format!("{title} {ref_id}"),
            );
        }
    }

    let reference = Regex::new(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)").unwrap();
    let multi: Vec<&str> = variables
        .iter()
        .filter(|v| v["multi"] == true)
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    for (origin, query) in dashboard_queries(&dashboard) {
        for used in reference.captures_iter(&query) {
            let name = &used[1];
            assert!(
                names.contains(name) || BUILT_INS.contains(&name),
                "{origin}: ${name} is not a variable"
            );
        }
        // A multi-value variable becomes a regex, (a|b), which only =~ matches.
        for name in &multi {
            let exact = Regex::new(&format!(r#"\w\s*=\s*"[^"]*\$\{{?{name}\b"#)).unwrap();
            assert!(
                !exact.is_match(&query),
                "{origin}: ${name} can hold several values: match it with =~"
            );
        }
    }
}

#[test]
fn config_carries_the_charts_dashboard_unchanged() {
    let chart = std::fs::read(path(DASHBOARD)).unwrap();
    let copy = std::fs::read(path(DASHBOARD_COPY)).unwrap();
    assert!(
        chart == copy,
        "{DASHBOARD_COPY} differs from {DASHBOARD}: run hack/render-config.sh"
    );
}
