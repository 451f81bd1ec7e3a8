//! `crds/` holds the CRDs exactly as the types generate them, and the Helm
//! chart and the kustomize base carry the same files. To update them all:
//! `KAGENT_EVALS_WRITE_CRDS=1 cargo test --test crds_are_generated`.

use kagent_evals::k8s::crd::crd_yaml;
use std::path::Path;

const COPIES: [&str; 3] = ["crds", "charts/kagent-evals/crds", "config/crd"];

#[test]
fn committed_crds_match_the_types() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let write = std::env::var_os("KAGENT_EVALS_WRITE_CRDS").is_some();
    let mut stale = Vec::new();
    for dir in COPIES {
        for (name, yaml) in crd_yaml() {
            let path = root.join(dir).join(&name);
            if write {
                std::fs::write(&path, &yaml).unwrap();
            } else if std::fs::read_to_string(&path).ok().as_deref() != Some(yaml.as_str()) {
                stale.push(format!("{dir}/{name}"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "crds/ is out of date for {stale:?}: run KAGENT_EVALS_WRITE_CRDS=1 cargo test --test crds_are_generated"
    );
}

#[test]
fn crds_carry_printer_columns_short_names_category_and_status() {
    let all: String = crd_yaml().into_iter().map(|(_, y)| y).collect();
    for needle in [
        "shortNames:\n    - evs",
        "shortNames:\n    - evr",
        "categories:\n    - evals",
        "name: Last Result",
        "name: Pass Rate",
        "jsonPath: .status.summary",
        "subresources:\n      status: {}",
        "x-kubernetes-validations",
        "self.type != 'toolsUsed' || has(self.toolsUsed)",
        "name: Ready",
    ] {
        assert!(all.contains(needle), "missing {needle:?}");
    }
    // kubectl warns about formats the API server does not know.
    for format in ["uint8", "uint16", "uint32", "uint64", "uint"] {
        assert!(
            !all.contains(&format!("format: {format}\n")),
            "format {format} in the CRDs"
        );
    }
}
