//! Every decision of the resolver, without a cluster.

use super::*;
use crate::core::suite::spec::{
    AdkDatabaseSpec, AgentRefSpec, KagentApiSpec, KagentPostgresSpec, LocalObjectRef,
    ProbeReadFrom, ProbesSpec, SourceSpec,
};
use serde_json::json;

const NS: &str = "team-a";

fn operator() -> RunnerSettings {
    RunnerSettings {
        source: Some(SourceKind::KagentApi),
        api_url: Some("http://kagent-controller.kagent:8083".into()),
        api_user: Some("operator@kagent.dev".into()),
        api_token: Some(Secret::new("operator-token")),
        judge_url: Some("https://judge.internal/v1".into()),
        judge_model: Some("judge-model".into()),
        judge_api_key: Some(Secret::new("operator-key")),
        ..RunnerSettings::new(Party::Operator)
    }
}

fn with_database(kind: SourceKind) -> RunnerSettings {
    RunnerSettings {
        source: Some(kind),
        database_url: Some(Secret::new("postgres://op:pw@db.kagent:5432/kagent")),
        ..RunnerSettings::new(Party::Operator)
    }
}

fn cluster() -> ClusterFacts {
    let secret = |pairs: &[(&str, &str)]| -> Result<SecretData, String> {
        Ok(pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Some(Secret::new(*v))))
            .collect())
    };
    ClusterFacts {
        namespace: NS.into(),
        namespace_labels: None,
        agent_spec: Some(json!({"type": "Declarative"})),
        secrets: [
            ("api".to_string(), secret(&[("token", "suite-token")])),
            (
                "db".to_string(),
                secret(&[("url", "postgres://suite:pw@db.team-a:5432/kagent")]),
            ),
            (
                "file-db".to_string(),
                secret(&[("url", "sqlite:///data/sessions.db")]),
            ),
            ("judge".to_string(), secret(&[("key", "suite-key")])),
            ("azure".to_string(), secret(&[("key", "azure-key")])),
            (
                "forbidden".to_string(),
                Err("forbidden: the operator may not read Secrets in team-a".into()),
            ),
        ]
        .into_iter()
        .collect(),
        model_config: None,
    }
}

fn agent() -> AgentRef {
    format!("{NS}/weather").parse().unwrap()
}

fn suite(source: Option<SourceSpec>, judge: Option<JudgeSpec>) -> SuiteSpec {
    SuiteSpec {
        source,
        judge,
        ..SuiteSpec::default()
    }
}

fn api(url: Option<&str>, user: Option<&str>, token: Option<&str>) -> Option<SourceSpec> {
    Some(SourceSpec {
        kind: None,
        fixture: None,
        kagent_postgres: None,
        kagent_api: Some(KagentApiSpec {
            url: url.map(String::from),
            user_id: user.map(String::from),
            token_secret_ref: token.map(secret_ref),
        }),
        adk_database: None,
    })
}

fn secret_ref(spec: &str) -> SecretKeyRef {
    let (name, key) = spec.split_once('/').unwrap_or((spec, "url"));
    SecretKeyRef {
        name: name.into(),
        key: key.into(),
        namespace: None,
    }
}

fn in_cluster(
    spec: &SuiteSpec,
    agent: Option<&AgentRef>,
    defaults: &RunnerSettings,
    facts: &ClusterFacts,
    policy: &Policy,
) -> Result<Resolution, Refusal> {
    resolve(&Request {
        spec,
        agent,
        needs_judge: spec.judge.is_some() || defaults.judge_url.is_some(),
        needs_agent_endpoint: false,
        needs_source: true,
        defaults,
        base: Path::new("/"),
        cluster: Some(facts),
        policy,
    })
}

fn api_settings(resolution: &Resolution) -> (&str, &str, Option<&str>) {
    match &resolution.source.settings {
        SourceSettings::KagentApi {
            url, user, token, ..
        } => (
            url.as_str(),
            user.as_str(),
            token.as_ref().map(Secret::expose),
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_suites_own_api_url_never_gets_the_operators_token() {
    let (defaults, facts, policy) = (operator(), cluster(), Policy::default());
    let spec = suite(api(Some("http://listener.evil:9000"), None, None), None);
    let r = in_cluster(&spec, Some(&agent()), &defaults, &facts, &policy).unwrap();
    assert_eq!(
        api_settings(&r),
        ("http://listener.evil:9000", "operator@kagent.dev", None)
    );
    assert_eq!(r.source.party, Party::Suite);

    let spec = suite(
        api(
            Some("http://listener.evil:9000"),
            Some("bob"),
            Some("api/token"),
        ),
        None,
    );
    let r = in_cluster(&spec, Some(&agent()), &defaults, &facts, &policy).unwrap();
    assert_eq!(
        api_settings(&r),
        ("http://listener.evil:9000", "bob", Some("suite-token"))
    );
}

#[test]
fn the_operators_api_gets_the_operators_token_and_the_suites_user() {
    let (defaults, facts, policy) = (operator(), cluster(), Policy::default());
    for url in [None, Some("http://KAGENT-controller.kagent:8083/")] {
        let spec = suite(api(url, Some("alice@example.com"), None), None);
        let r = in_cluster(&spec, Some(&agent()), &defaults, &facts, &policy).unwrap();
        assert_eq!(
            api_settings(&r),
            (
                "http://kagent-controller.kagent:8083",
                "alice@example.com",
                Some("operator-token")
            ),
            "{url:?}"
        );
        assert_eq!(r.source.party, Party::Operator);
    }
    let r = in_cluster(
        &suite(None, None),
        Some(&agent()),
        &defaults,
        &facts,
        &policy,
    )
    .unwrap();
    assert_eq!(api_settings(&r).1, "operator@kagent.dev");
}

#[test]
fn the_operators_data_is_read_only_for_a_suite_with_an_agent() {
    let (facts, policy) = (cluster(), Policy::default());
    for (defaults, spec) in [
        (operator(), suite(None, None)),
        (operator(), suite(api(None, None, None), None)),
        (with_database(SourceKind::KagentPostgres), suite(None, None)),
        (with_database(SourceKind::AdkDatabase), suite(None, None)),
    ] {
        let refusal = in_cluster(&spec, None, &defaults, &facts, &policy).unwrap_err();
        assert_eq!(refusal.reason, RefusalReason::Forbidden, "{refusal}");
        assert!(
            refusal.message.contains("a suite without agentRef"),
            "{refusal}"
        );
    }
    // Its own database, from its own Secret, needs no Agent.
    let own = SourceSpec {
        kind: None,
        fixture: None,
        kagent_postgres: Some(KagentPostgresSpec {
            url_secret_ref: Some(secret_ref("db")),
            schema: None,
        }),
        kagent_api: None,
        adk_database: None,
    };
    let r = in_cluster(
        &suite(Some(own), None),
        None,
        &with_database(SourceKind::KagentPostgres),
        &facts,
        &policy,
    )
    .unwrap();
    assert_eq!(
        r.source.settings,
        SourceSettings::KagentPostgres {
            url: Secret::new("postgres://suite:pw@db.team-a:5432/kagent"),
            schema: None,
        }
    );
    assert_eq!(r.source.party, Party::Suite);
    // A schema goes with the suite's own database, never the operator's.
    let named = |url_secret_ref| SourceSpec {
        kind: None,
        fixture: None,
        kagent_postgres: Some(KagentPostgresSpec {
            url_secret_ref,
            schema: Some("evals".into()),
        }),
        kagent_api: None,
        adk_database: None,
    };
    let operators = with_database(SourceKind::KagentPostgres);
    let r = in_cluster(
        &suite(Some(named(Some(secret_ref("db")))), None),
        None,
        &operators,
        &facts,
        &policy,
    )
    .unwrap();
    assert!(matches!(
        r.source.settings,
        SourceSettings::KagentPostgres { schema: Some(ref s), .. } if s == "evals"
    ));
    let agent = AgentRef {
        namespace: NS.into(),
        name: "k8s-agent".into(),
    };
    let refused = in_cluster(
        &suite(Some(named(None)), None),
        Some(&agent),
        &operators,
        &facts,
        &policy,
    )
    .unwrap_err();
    assert_eq!(refused.reason, RefusalReason::InvalidSpec);
    assert!(
        refused.message.contains("the suite's own database"),
        "{refused}"
    );
}

fn adk(app: Option<&str>, secret: Option<&str>) -> Option<SourceSpec> {
    Some(SourceSpec {
        kind: None,
        fixture: None,
        kagent_postgres: None,
        kagent_api: None,
        adk_database: Some(AdkDatabaseSpec {
            url_secret_ref: secret.map(secret_ref),
            app_name: app.map(String::from),
        }),
    })
}

#[test]
fn the_operators_adk_database_is_read_only_for_the_agents_own_app() {
    let (defaults, facts, policy) = (
        with_database(SourceKind::AdkDatabase),
        cluster(),
        Policy::default(),
    );
    let r = in_cluster(
        &suite(adk(None, None), None),
        Some(&agent()),
        &defaults,
        &facts,
        &policy,
    )
    .unwrap();
    assert!(
        matches!(&r.source.settings, SourceSettings::AdkDatabase { app, .. } if app == "team_a__NS__weather")
    );
    let r = in_cluster(
        &suite(adk(Some("team_a__NS__weather"), None), None),
        Some(&agent()),
        &defaults,
        &facts,
        &policy,
    )
    .unwrap();
    assert_eq!(r.source.party, Party::Operator);
    let refusal = in_cluster(
        &suite(adk(Some("payroll"), None), None),
        Some(&agent()),
        &defaults,
        &facts,
        &policy,
    )
    .unwrap_err();
    assert_eq!(refusal.reason, RefusalReason::Forbidden);
    assert!(refusal.message.contains("not payroll"), "{refusal}");
    // A database of the suite's own may hold any app.
    let r = in_cluster(
        &suite(adk(Some("payroll"), Some("db")), None),
        Some(&agent()),
        &defaults,
        &facts,
        &policy,
    )
    .unwrap();
    assert!(
        matches!(&r.source.settings, SourceSettings::AdkDatabase { app, .. } if app == "payroll")
    );
    // ... but not a file on the operator's filesystem.
    let refusal = in_cluster(
        &suite(adk(Some("x"), Some("file-db")), None),
        Some(&agent()),
        &defaults,
        &facts,
        &policy,
    )
    .unwrap_err();
    assert_eq!(refusal.reason, RefusalReason::Forbidden);
    // The operator's kagent database is not an ADK database.
    let refusal = in_cluster(
        &suite(adk(None, None), None),
        Some(&agent()),
        &with_database(SourceKind::KagentPostgres),
        &facts,
        &policy,
    )
    .unwrap_err();
    assert_eq!(refusal.reason, RefusalReason::SourceUnavailable);
}

#[test]
fn hosts_the_operator_does_not_allow_are_refused_before_connecting() {
    let (defaults, facts) = (operator(), cluster());
    let policy = Policy {
        source_hosts: "*.svc.cluster.local".parse().unwrap(),
        judge_hosts: "api.openai.com".parse().unwrap(),
        ..Policy::default()
    };
    let refusal = in_cluster(
        &suite(api(Some("http://listener.evil:9000"), None, None), None),
        Some(&agent()),
        &defaults,
        &facts,
        &policy,
    )
    .unwrap_err();
    assert_eq!(refusal.reason, RefusalReason::Forbidden);
    assert!(
        refusal.message.contains("host listener.evil is not among"),
        "{refusal}"
    );
    assert!(
        in_cluster(
            &suite(
                api(
                    Some("http://kagent.team-a.svc.cluster.local:8083"),
                    None,
                    None
                ),
                None
            ),
            Some(&agent()),
            &defaults,
            &facts,
            &policy
        )
        .is_ok()
    );
    // The operator's own endpoints are not suite-chosen.
    assert!(
        in_cluster(
            &suite(None, None),
            Some(&agent()),
            &defaults,
            &facts,
            &policy
        )
        .is_ok()
    );
    let judge = JudgeSpec {
        url: Some("https://judge.evil/v1".into()),
        model: Some("m".into()),
        ..JudgeSpec::default()
    };
    let refusal = in_cluster(
        &suite(None, Some(judge)),
        Some(&agent()),
        &defaults,
        &facts,
        &policy,
    )
    .unwrap_err();
    assert_eq!(refusal.reason, RefusalReason::Forbidden);
}

#[test]
fn another_namespaces_agent_is_refused_before_anything_is_resolved() {
    let (defaults, mut facts, policy) = (operator(), cluster(), Policy::default());
    let theirs: AgentRef = "team-b/weather".parse().unwrap();
    let refusal = in_cluster(
        &suite(None, None),
        Some(&theirs),
        &defaults,
        &facts,
        &policy,
    )
    .unwrap_err();
    assert_eq!(refusal.reason, RefusalReason::Forbidden);
    facts.agent_spec = Some(
        json!({"allowedNamespaces": {"from": "Selector", "selector": {"matchLabels": {"evals": "yes"}}}}),
    );
    facts.namespace_labels = Some(Ok([("evals".to_string(), "yes".to_string())].into()));
    assert!(
        in_cluster(
            &suite(None, None),
            Some(&theirs),
            &defaults,
            &facts,
            &policy
        )
        .is_ok()
    );
}

fn judge_settings(resolution: &Resolution) -> (&str, &str, &JudgeAuth, Party) {
    let j = resolution.judge.as_ref().unwrap();
    (j.url.as_str(), j.model.as_str(), &j.auth, j.party)
}

#[test]
fn a_suites_own_judge_url_never_gets_the_operators_key() {
    let (defaults, facts, policy) = (operator(), cluster(), Policy::default());
    let own = |key: Option<&str>| JudgeSpec {
        url: Some("http://listener.evil:9000/v1".into()),
        model: Some("m".into()),
        api_key_secret_ref: key.map(secret_ref),
        ..JudgeSpec::default()
    };
    let r = in_cluster(
        &suite(None, Some(own(None))),
        Some(&agent()),
        &defaults,
        &facts,
        &policy,
    )
    .unwrap();
    assert_eq!(
        judge_settings(&r),
        (
            "http://listener.evil:9000/v1",
            "m",
            &JudgeAuth::None,
            Party::Suite
        )
    );
    let r = in_cluster(
        &suite(None, Some(own(Some("judge/key")))),
        Some(&agent()),
        &defaults,
        &facts,
        &policy,
    )
    .unwrap();
    assert_eq!(
        judge_settings(&r).2,
        &JudgeAuth::Bearer(Secret::new("suite-key"))
    );
    // The operator's judge, with the suite's model.
    let model_only = JudgeSpec {
        model: Some("bigger".into()),
        ..JudgeSpec::default()
    };
    let r = in_cluster(
        &suite(None, Some(model_only)),
        Some(&agent()),
        &defaults,
        &facts,
        &policy,
    )
    .unwrap();
    assert_eq!(
        judge_settings(&r),
        (
            "https://judge.internal/v1",
            "bigger",
            &JudgeAuth::Bearer(Secret::new("operator-key")),
            Party::Operator
        )
    );
    let refusal = in_cluster(
        &suite(None, Some(own(Some("forbidden/key")))),
        Some(&agent()),
        &defaults,
        &facts,
        &policy,
    )
    .unwrap_err();
    assert_eq!(refusal.reason, RefusalReason::JudgeUnavailable);
    assert!(
        refusal
            .message
            .contains("forbidden: the operator may not read Secrets"),
        "{refusal}"
    );
}

#[test]
fn a_model_config_judge_uses_its_providers_endpoint_and_key() {
    let (defaults, mut facts, policy) = (
        RunnerSettings::new(Party::Operator),
        cluster(),
        Policy::default(),
    );
    let judge = JudgeSpec {
        model_config_ref: Some(LocalObjectRef {
            name: "azure".into(),
        }),
        ..JudgeSpec::default()
    };
    facts.model_config = Some(Ok(json!({
        "provider": "AzureOpenAI", "model": "gpt-4o", "apiKeySecret": "azure", "apiKeySecretKey": "key",
        "azureOpenAI": {"azureEndpoint": "https://x.openai.azure.com", "apiVersion": "2024-06-01", "azureDeployment": "prod"}
    })));
    let spec = suite(
        Some(SourceSpec {
            kind: Some(SourceKind::KagentPostgres),
            fixture: None,
            kagent_postgres: Some(KagentPostgresSpec {
                url_secret_ref: Some(secret_ref("db")),
                schema: None,
            }),
            kagent_api: None,
            adk_database: None,
        }),
        Some(judge),
    );
    let r = in_cluster(&spec, Some(&agent()), &defaults, &facts, &policy).unwrap();
    let j = r.judge.unwrap();
    assert_eq!(j.url, "https://x.openai.azure.com/openai/deployments/prod");
    assert_eq!(j.model, "prod");
    assert_eq!(
        j.auth,
        JudgeAuth::Header("api-key", Secret::new("azure-key"))
    );
    assert_eq!(
        j.query,
        [("api-version".to_string(), "2024-06-01".to_string())]
    );

    facts.model_config = Some(Ok(
        json!({"provider": "Bedrock", "model": "m", "bedrock": {"region": "eu-west-1"}}),
    ));
    let refusal = in_cluster(&spec, Some(&agent()), &defaults, &facts, &policy).unwrap_err();
    assert_eq!(refusal.reason, RefusalReason::JudgeUnavailable);
    assert!(refusal.message.contains("provider Bedrock"), "{refusal}");
}

#[test]
fn a_judged_suite_without_any_judge_is_refused() {
    let defaults = with_database(SourceKind::KagentPostgres);
    let spec = suite(None, Some(JudgeSpec::default()));
    let refusal = in_cluster(
        &spec,
        Some(&agent()),
        &defaults,
        &cluster(),
        &Policy::default(),
    )
    .unwrap_err();
    assert_eq!(refusal.reason, RefusalReason::JudgeUnavailable);
}

fn on_command_line(spec: &SuiteSpec, defaults: &RunnerSettings) -> Result<Resolution, Refusal> {
    resolve(&Request {
        spec,
        agent: None,
        needs_judge: true,
        needs_agent_endpoint: false,
        needs_source: true,
        defaults,
        base: Path::new("suites"),
        cluster: None,
        policy: &Policy::default(),
    })
}

#[test]
fn on_the_command_line_flags_win_and_say_what_they_replace() {
    let defaults = RunnerSettings {
        api_url: Some("http://localhost:8083".into()),
        api_user: Some("me".into()),
        api_token: Some(Secret::new("cli-token")),
        ..RunnerSettings::new(Party::CommandLine)
    };
    let spec = suite(api(Some("http://kagent:8083"), Some("them"), None), None);
    let r = on_command_line(&spec, &defaults).unwrap();
    assert_eq!(
        api_settings(&r),
        ("http://localhost:8083", "me", Some("cli-token"))
    );
    assert_eq!(r.notes.len(), 2, "{:?}", r.notes);
    assert!(r.notes[0].contains("--api-user me replaces the suite's kagentApi.userId them"));
}

#[test]
fn on_the_command_line_a_token_goes_only_to_the_url_given_with_it() {
    let defaults = RunnerSettings {
        api_token: Some(Secret::new("cli-token")),
        judge_api_key: Some(Secret::new("cli-key")),
        ..RunnerSettings::new(Party::CommandLine)
    };
    let spec = suite(api(Some("http://user:pw@kagent:8083"), None, None), None);
    let refusal = on_command_line(&spec, &defaults).unwrap_err();
    assert_eq!(refusal.reason, RefusalReason::Forbidden);
    assert!(
        refusal.message.contains("goes only to --api-url"),
        "{refusal}"
    );
    assert!(!refusal.message.contains("pw"), "{refusal}");

    let fixture = RunnerSettings {
        fixture: Some("s.jsonl".into()),
        judge_api_key: Some(Secret::new("cli-key")),
        ..RunnerSettings::new(Party::CommandLine)
    };
    let judge = JudgeSpec {
        url: Some("https://judge.example/v1".into()),
        model: Some("m".into()),
        ..JudgeSpec::default()
    };
    let refusal = on_command_line(&suite(None, Some(judge.clone())), &fixture).unwrap_err();
    assert!(
        refusal.message.contains("goes only to --judge-url"),
        "{refusal}"
    );
    let keyless = RunnerSettings {
        fixture: Some("s.jsonl".into()),
        ..RunnerSettings::new(Party::CommandLine)
    };
    let r = on_command_line(&suite(None, Some(judge)), &keyless).unwrap();
    assert_eq!(
        judge_settings(&r),
        (
            "https://judge.example/v1",
            "m",
            &JudgeAuth::None,
            Party::Suite
        )
    );
}

#[test]
fn on_the_command_line_secret_references_are_explained() {
    let defaults = RunnerSettings {
        fixture: Some("s.jsonl".into()),
        ..RunnerSettings::new(Party::CommandLine)
    };
    let judge = JudgeSpec {
        model_config_ref: Some(LocalObjectRef {
            name: "openai".into(),
        }),
        ..JudgeSpec::default()
    };
    let refusal = on_command_line(&suite(None, Some(judge)), &defaults).unwrap_err();
    assert_eq!(refusal.reason, RefusalReason::InvalidSpec);
    assert!(
        refusal
            .message
            .contains("pass --judge-url and --judge-model"),
        "{refusal}"
    );
    let spec = suite(adk(Some("app"), Some("db")), None);
    let refusal = on_command_line(&spec, &RunnerSettings::new(Party::CommandLine)).unwrap_err();
    assert!(
        refusal
            .message
            .contains("spec.source.adkDatabase.urlSecretRef"),
        "{refusal}"
    );
}

#[test]
fn on_the_command_line_a_sqlite_url_or_an_app_means_an_adk_database() {
    let defaults = RunnerSettings {
        database_url: Some(Secret::new("sqlite:///tmp/sessions.db")),
        adk_app: Some("weather".into()),
        ..RunnerSettings::new(Party::CommandLine)
    };
    let r = on_command_line(&suite(None, None), &defaults).unwrap();
    assert!(
        matches!(&r.source.settings, SourceSettings::AdkDatabase { app, .. } if app == "weather")
    );
    let fixture = suite(
        Some(SourceSpec {
            kind: None,
            fixture: Some(crate::core::suite::spec::FixtureSourceSpec {
                path: "s.jsonl".into(),
            }),
            kagent_postgres: None,
            kagent_api: None,
            adk_database: None,
        }),
        None,
    );
    let r = on_command_line(&fixture, &RunnerSettings::new(Party::CommandLine)).unwrap();
    assert_eq!(
        r.source.settings,
        SourceSettings::Fixture {
            path: "suites/s.jsonl".into()
        }
    );
}

#[test]
fn probes_go_to_the_agent_through_the_operators_kagent_and_on_the_command_line_to_a2a_url() {
    let agent: AgentRef = "team/weather".parse().unwrap();
    let spec = SuiteSpec::default();
    let mut operator = RunnerSettings::new(Party::Operator);
    operator.api_url = Some("http://kagent-controller.kagent:8083/".into());
    operator.database_url = Some(Secret::new("postgres://u:p@db/kagent"));
    operator.source = Some(SourceKind::KagentPostgres);
    let facts = ClusterFacts {
        namespace: "team".into(),
        ..ClusterFacts::default()
    };
    let request = |defaults: &RunnerSettings, cluster: Option<&ClusterFacts>| {
        resolve(&Request {
            spec: &spec,
            agent: Some(&agent),
            needs_judge: false,
            needs_agent_endpoint: true,
            needs_source: true,
            defaults,
            base: Path::new("/"),
            cluster,
            policy: &Policy::default(),
        })
    };
    let resolved = request(&operator, Some(&facts)).unwrap();
    assert_eq!(
        resolved.agent_endpoint,
        Some(AgentEndpoint {
            url: "http://kagent-controller.kagent:8083/api/a2a/team/weather/".into(),
            protocol: ProtocolChoice::FromCard,
        })
    );
    operator.api_url = None;
    let refusal = request(&operator, Some(&facts)).unwrap_err();
    assert!(refusal.message.contains("kagent.api.url"), "{refusal}");

    let mut command_line = RunnerSettings::new(Party::CommandLine);
    command_line.fixture = Some("sessions".into());
    let refusal = request(&command_line, None).unwrap_err();
    assert!(refusal.message.contains("--a2a-url"), "{refusal}");
    command_line.a2a_url = Some("http://localhost:8083/api/a2a/team/weather/".into());
    let resolved = request(&command_line, None).unwrap();
    assert_eq!(resolved.agent_endpoint.map(|e| e.url), command_line.a2a_url);
}

/// A kagent 1.0 Agent is probed at kagent 1.0's route in A2A 1.0; a
/// version the suite or the command line names is spoken instead.
#[test]
fn a_1_0_agent_is_probed_at_its_route_in_a2a_1_0_unless_told_otherwise() {
    let agent: AgentRef = "team/weather".parse().unwrap();
    let mut spec = SuiteSpec {
        agent_ref: Some(AgentRefSpec {
            api_version: Some(AgentApiVersion::V1Alpha3),
            namespace: None,
            name: "weather".into(),
        }),
        ..SuiteSpec::default()
    };
    let mut operator = RunnerSettings::new(Party::Operator);
    operator.api_url = Some("http://kagent-controller.kagent:8083".into());
    operator.database_url = Some(Secret::new("postgres://u:p@db/kagent"));
    operator.source = Some(SourceKind::KagentPostgres);
    let facts = ClusterFacts {
        namespace: "team".into(),
        ..ClusterFacts::default()
    };
    let request = |spec: &SuiteSpec, defaults: &RunnerSettings, cluster: Option<&ClusterFacts>| {
        resolve(&Request {
            spec,
            agent: Some(&agent),
            needs_judge: false,
            needs_agent_endpoint: true,
            needs_source: true,
            defaults,
            base: Path::new("/"),
            cluster,
            policy: &Policy::default(),
        })
        .unwrap()
    };
    let resolved = request(&spec, &operator, Some(&facts));
    let endpoint = resolved.agent_endpoint.unwrap();
    assert_eq!(
        endpoint.url,
        "http://kagent-controller.kagent:8083/agents/team/weather"
    );
    assert_eq!(
        endpoint.protocol,
        ProtocolChoice::Given {
            protocol: A2aProtocol::V1_0,
            by: "the agentRef (a kagent 1.0 api.kagent.dev/v1alpha3 Agent)".into()
        }
    );
    spec.probes = Some(ProbesSpec {
        enabled: true,
        max_runs: 1,
        concurrency: 1,
        protocol: Some(A2aProtocol::V0_3),
        read_from: ProbeReadFrom::Source,
    });
    let chosen = request(&spec, &operator, Some(&facts))
        .agent_endpoint
        .unwrap()
        .protocol;
    assert_eq!(
        chosen,
        ProtocolChoice::Given {
            protocol: A2aProtocol::V0_3,
            by: "the suite's probes.protocol".into()
        }
    );
    let mut command_line = RunnerSettings::new(Party::CommandLine);
    command_line.fixture = Some("sessions".into());
    command_line.a2a_url = Some("http://localhost:8083/agents/team/weather".into());
    command_line.a2a_protocol = Some(A2aProtocol::V1_0);
    let resolved = request(&spec, &command_line, None);
    assert_eq!(
        resolved.agent_endpoint.unwrap().protocol,
        ProtocolChoice::Given {
            protocol: A2aProtocol::V1_0,
            by: "--a2a-protocol".into()
        }
    );
    assert!(
        resolved
            .notes
            .iter()
            .any(|n| n == "--a2a-protocol replaces the suite's probes.protocol"),
        "{:?}",
        resolved.notes
    );
}

/// Names that slipped past compile (a suite stored before names were
/// checked) still cannot leave the Agent's namespace in a probe's URL.
#[test]
fn a_probe_url_never_leaves_the_agents_namespace() {
    let (defaults, facts, policy) = (operator(), cluster(), Policy::default());
    let spec = suite(api(None, None, None), None);
    let probe = |agent: AgentRef| {
        resolve(&Request {
            spec: &spec,
            agent: Some(&agent),
            needs_judge: false,
            needs_agent_endpoint: true,
            needs_source: true,
            defaults: &defaults,
            base: Path::new("/"),
            cluster: Some(&facts),
            policy: &policy,
        })
    };
    // A name a decoding router would read as more of the path is refused
    // on both lines, as the suite's fault, escaped or not.
    let hostile = AgentRef {
        namespace: NS.into(),
        name: "../team-b/k8s-agent".into(),
    };
    let refused = probe(hostile.clone()).unwrap_err();
    assert_eq!(refused.reason, RefusalReason::InvalidSpec);
    assert!(refused.message.starts_with("spec.agentRef"), "{refused:?}");
    let mut v1 = suite(api(None, None, None), None);
    v1.agent_ref = Some(AgentRefSpec {
        api_version: Some(AgentApiVersion::V1Alpha3),
        namespace: None,
        name: hostile.name.clone(),
    });
    let refused = resolve(&Request {
        spec: &v1,
        agent: Some(&hostile),
        needs_judge: false,
        needs_agent_endpoint: true,
        needs_source: true,
        defaults: &defaults,
        base: Path::new("/"),
        cluster: Some(&facts),
        policy: &policy,
    })
    .unwrap_err();
    assert_eq!(refused.reason, RefusalReason::InvalidSpec);
    let url = probe(AgentRef {
        namespace: NS.into(),
        name: "k8s-agent".into(),
    })
    .unwrap()
    .agent_endpoint
    .unwrap()
    .url;
    assert!(url.ends_with(&format!("/api/a2a/{NS}/k8s-agent/")), "{url}");
    let dotted = AgentRef {
        namespace: NS.into(),
        name: "..".into(),
    };
    let refused = probe(dotted).unwrap_err();
    assert_eq!(refused.reason, RefusalReason::InvalidSpec);
    assert!(refused.message.starts_with("spec.agentRef"), "{refused:?}");
}

#[test]
fn read_limits_are_the_suites_with_the_command_lines_over_them_and_defaults_for_the_rest() {
    let mut spec = suite(api(Some("http://kagent:8083"), None, None), None);
    spec.sessions.limits = ReadLimitsSpec {
        row_bytes: Some(1_000),
        session_rows: Some(10),
        ..ReadLimitsSpec::default()
    };
    let defaults = RunnerSettings {
        read_limits: ReadLimitsSpec {
            session_rows: Some(20),
            ..ReadLimitsSpec::default()
        },
        ..RunnerSettings::new(Party::CommandLine)
    };
    let limits = on_command_line(&spec, &defaults).unwrap().read_limits;
    assert_eq!(
        limits,
        ReadLimits {
            row_bytes: 1_000,
            session_rows: 20,
            ..ReadLimits::default()
        }
    );
}

/// A suite whose every case probes and reads the Agent's own tasks.
fn reading_no_source(
    spec: &SuiteSpec,
    agent: Option<&AgentRef>,
    defaults: &RunnerSettings,
    facts: Option<&ClusterFacts>,
) -> Result<Resolution, Refusal> {
    resolve(&Request {
        spec,
        agent,
        needs_judge: false,
        needs_agent_endpoint: false,
        needs_source: false,
        defaults,
        base: Path::new("suites"),
        cluster: facts,
        policy: &Policy::default(),
    })
}

#[test]
fn a_suite_that_reads_no_source_opens_none_and_refuses_one_it_names() {
    let on_laptop = RunnerSettings::new(Party::CommandLine);
    let r = reading_no_source(&suite(None, None), None, &on_laptop, None).unwrap();
    assert_eq!(r.source.settings, SourceSettings::Nothing);
    assert!(r.notes.is_empty(), "{:?}", r.notes);

    let with_database = RunnerSettings {
        database_url: Some(Secret::new("postgres://db/kagent")),
        ..on_laptop
    };
    let r = reading_no_source(&suite(None, None), None, &with_database, None).unwrap();
    assert_eq!(r.source.settings, SourceSettings::Nothing);
    assert!(
        r.notes[0].contains("the source the command line names is not read"),
        "{:?}",
        r.notes
    );

    let named = suite(api(Some("http://kagent:8083"), None, None), None);
    let refusal = reading_no_source(&named, None, &with_database, None).unwrap_err();
    assert_eq!(refusal.reason, RefusalReason::InvalidSpec);
    assert!(
        refusal.message.starts_with("spec.source is not read"),
        "{}",
        refusal.message
    );

    // The operator's default database is not opened for it either; and
    // tenancy holds all the same.
    let r = reading_no_source(
        &suite(None, None),
        Some(&agent()),
        &operator(),
        Some(&cluster()),
    )
    .unwrap();
    assert_eq!(r.source.settings, SourceSettings::Nothing);
    let theirs: AgentRef = "team-b/weather".parse().unwrap();
    let refusal = reading_no_source(
        &suite(None, None),
        Some(&theirs),
        &operator(),
        Some(&cluster()),
    )
    .unwrap_err();
    assert_eq!(refusal.reason, RefusalReason::Forbidden);
}
