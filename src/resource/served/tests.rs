//! Unit tests of the served catalog: a definition's shape, version order, deprecation warnings.

use super::*;

fn definition(versions: serde_json::Value) -> Definition {
    definition::from_json(serde_json::json!({"spec": {"group": "example.com",
        "names": {"plural": "widgets", "kind": "Widget"}, "scope": "Namespaced", "versions": versions}}))
    .unwrap()
}

#[test]
fn a_change_of_declarative_conversion_changes_the_shape() {
    let with = |rename_to: &str| {
        let mut crd = definition(serde_json::json!([
            {"name": "v1", "served": true, "storage": true,
             "conversion": {"declarative": {"v2": {"rename": {"from": ".spec.a", "to": rename_to}}}}},
            {"name": "v2", "served": true, "storage": false}]));
        crd.status = Some(
            serde_json::from_value(serde_json::json!({
            "acceptedNames": {"plural": "widgets", "kind": "Widget"},
            "conditions": [{"type": "Established", "status": "True"}, {"type": "NamesAccepted", "status": "True"}]}))
            .unwrap(),
        );
        Served::from_definition(&crd, crate::storage::Revision::ZERO).expect("served").shape
    };
    assert_ne!(with(".spec.b"), with(".spec.c"));
}

#[test]
fn versions_order_as_kubernetes_orders_them() {
    let mut all = vec!["v1alpha1", "foo", "v2", "v1beta2", "v1", "v1beta1", "v10", "bar", "v2alpha3"];
    all.sort_by(|a, b| compare_kube_aware(b, a));
    assert_eq!(all, ["v10", "v2", "v1", "v1beta2", "v1beta1", "v2alpha3", "v1alpha1", "bar", "foo"]);
}

#[test]
fn deprecated_versions_warn_with_their_text_or_kubernetes_default() {
    let crd = definition(serde_json::json!([
        {"name": "v1alpha1", "served": true, "storage": false, "deprecated": true},
        {"name": "v1beta1", "served": true, "storage": false, "deprecated": true, "deprecationWarning": "go away"},
        {"name": "v1", "served": true, "storage": true},
        {"name": "v2", "served": false, "storage": false},
        {"name": "v3alpha1", "served": true, "storage": false, "deprecated": true, "deprecationWarning": ""}]));
    let warnings: Vec<Option<String>> = crd.spec.versions.iter().map(|v| deprecation(&crd, v)).collect();
    assert_eq!(
        warnings,
        [
            Some("example.com/v1alpha1 Widget is deprecated; use example.com/v1 Widget".to_string()),
            Some("go away".to_string()),
            None,
            None,
            None,
        ]
    );
    let alone = definition(serde_json::json!([{"name": "v1", "served": true, "storage": true, "deprecated": true}]));
    assert_eq!(deprecation(&alone, &alone.spec.versions[0]).as_deref(), Some("example.com/v1 Widget is deprecated"));
}
