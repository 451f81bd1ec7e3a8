use super::*;

fn agent(spec: Value) -> Value {
    json!({
        "apiVersion": "api.kagent.dev/v1alpha3",
        "kind": "Agent",
        "spec": spec,
        "status": {"observedGeneration": 3, "latestSuccessfulRevision": "rev-2", "desiredRevision": "rev-2"},
    })
}

fn template_spec() -> Value {
    json!({
        "modelConfig": {"name": "gpt"},
        "systemPrompt": "You answer questions about the weather.",
        "tools": [
            {"mcp": {"server": {"kind": "RemoteMCPServer", "name": "weather"}, "tools": ["forecast", "alerts"], "requireApproval": ["alerts"]}},
            {"subAgent": {"name": "helper", "description": "d"}},
            {"plugin": {"name": "x"}},
        ],
    })
}

#[test]
fn a_half_is_inline_or_named_and_never_both_or_neither() {
    let spec = json!({
        "templateRef": {"name": "weather"},
        "harness": {"kagent": {}},
    });
    assert_eq!(
        placement(&spec, Half::Template),
        Ok(Placement::Named("weather".into()))
    );
    assert_eq!(
        placement(&spec, Half::Harness),
        Ok(Placement::Inline(json!({"kagent": {}})))
    );
    let both = json!({"templateRef": {"name": "a"}, "template": {}});
    assert!(
        placement(&both, Half::Template)
            .unwrap_err()
            .contains("both template and templateRef")
    );
    let neither = json!({"templateRef": {}});
    let error = placement(&neither, Half::Template).unwrap_err();
    assert!(
        error.contains("spec has neither template nor templateRef.name"),
        "{error}"
    );
    assert!(error.contains("AgentTemplate"), "{error}");
    let hostile = json!({"templateRef": {"name": "../../team-b/agenttemplates/x"}});
    let error = placement(&hostile, Half::Template).unwrap_err();
    assert!(
        error.contains("must be a Kubernetes object name"),
        "{error}"
    );
}

#[test]
fn a_1_0_agent_is_recorded_by_revision_template_and_harness_without_its_prompt() {
    let object = agent(json!({"templateRef": {"name": "weather"}, "harness": {"claude": {}}}));
    let template = Resolved::new(
        Half::Template,
        &Placement::Named("weather".into()),
        template_spec(),
    );
    let harness = Resolved::new(
        Half::Harness,
        &Placement::Inline(json!({})),
        json!({"claude": {}, "env": [{"name": "K", "value": "secret-value"}]}),
    );
    let snapshot = v1alpha3_snapshot("team/weather".into(), Some(4), &object, &template, &harness);
    assert_eq!(snapshot.api_version, Some(AgentApiVersion::V1Alpha3));
    assert_eq!(snapshot.generation, Some(4));
    assert_eq!(snapshot.observed_generation, Some(3));
    assert_eq!(
        snapshot.latest_successful_revision.as_deref(),
        Some("rev-2")
    );
    let t = snapshot.template.clone().unwrap();
    assert_eq!(t.from, "AgentTemplate weather");
    assert_eq!(t.model_config.as_deref(), Some("gpt"));
    assert!(t.prompt.as_deref().unwrap().starts_with("inline (sha256 "));
    assert_eq!(
        t.tools,
        [
            "mcp RemoteMCPServer/weather: forecast, alerts (approval)",
            "subAgent helper",
            "unknown binding (plugin)",
        ]
    );
    let h = snapshot.harness.clone().unwrap();
    assert_eq!((h.from.as_str(), h.kind.as_str()), ("inline", "claude"));
    let written = serde_json::to_string(&snapshot).unwrap();
    for content in ["weather questions", "You answer", "secret-value"] {
        assert!(!written.contains(content), "{written}");
    }
}

#[test]
fn a_prompt_from_a_config_map_is_named_by_its_key() {
    let spec =
        json!({"systemPromptFrom": {"type": "ConfigMap", "name": "prompts", "key": "weather"}});
    assert_eq!(
        prompt(&spec).as_deref(),
        Some("ConfigMap prompts key weather")
    );
    assert_eq!(prompt(&json!({})), None);
}

#[test]
fn a_harness_names_the_one_kind_it_sets() {
    assert_eq!(
        harness_kind(&json!({"byo": {}, "workload": {"image": "x"}})),
        "byo"
    );
    assert!(harness_kind(&json!({})).starts_with("unknown"));
    assert_eq!(
        harness_kind(&json!({"kagent": {}, "codex": {}})),
        "unknown (sets kagent, codex)"
    );
}

#[test]
fn the_fingerprint_moves_with_a_referenced_template_though_the_agent_does_not() {
    let object = agent(json!({"templateRef": {"name": "weather"}, "harnessRef": {"name": "h"}}));
    let named = |name: &str| Placement::Named(name.into());
    let harness = Resolved::new(Half::Harness, &named("h"), json!({"kagent": {}}));
    let before = v1alpha3_snapshot(
        "team/weather".into(),
        Some(1),
        &object,
        &Resolved::new(Half::Template, &named("weather"), template_spec()),
        &harness,
    );
    let mut changed_spec = template_spec();
    changed_spec["systemPrompt"] = json!("You answer from memory.");
    changed_spec["modelConfig"]["name"] = json!("gpt-mini");
    let mut changed_object = object.clone();
    changed_object["status"]["latestSuccessfulRevision"] = json!("rev-3");
    let after = v1alpha3_snapshot(
        "team/weather".into(),
        Some(1),
        &changed_object,
        &Resolved::new(Half::Template, &named("weather"), changed_spec),
        &harness,
    );
    assert_ne!(before.fingerprint, after.fingerprint);
    let said = changes(&before, &after);
    assert_eq!(said.len(), 3, "{said:?}");
    assert_eq!(said[0], "revision rev-2 -> rev-3");
    assert_eq!(said[1], "model config gpt -> gpt-mini");
    assert!(said[2].starts_with("prompt inline (sha256 "), "{said:?}");
    assert!(changes(&before, &before).is_empty());
}
