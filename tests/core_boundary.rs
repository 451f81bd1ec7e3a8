//! The domain core stays free of Kubernetes, databases and HTTP: its crate
//! may not depend on them, so the compiler refuses any use of them there.

#[test]
fn the_core_crate_depends_on_no_adapter_library() {
    let manifest = include_str!("../core/Cargo.toml");
    let dependencies: Vec<&str> = manifest
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#') && !l.starts_with('['))
        .filter_map(|l| l.split(['=', ' ']).next())
        .filter(|name| !name.is_empty())
        .collect();
    assert!(
        dependencies.contains(&"serde"),
        "the manifest is read: {dependencies:?}"
    );
    for forbidden in [
        "kube",
        "k8s-openapi",
        "sqlx",
        "reqwest",
        "hyper",
        "axum",
        "prometheus-client",
        "kube-runtime",
    ] {
        assert!(
            !dependencies.contains(&forbidden),
            "core/Cargo.toml depends on {forbidden}: adapters belong in src/"
        );
    }
}
