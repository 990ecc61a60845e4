//! Unit tests of definition validation: one per rule family, each
//! asserting the field paths Kubernetes reports.

use super::*;

fn crd(json: serde_json::Value) -> CustomResourceDefinition {
    let mut crd: CustomResourceDefinition = serde_json::from_value(json).unwrap();
    super::super::definition::apply_defaults(&mut crd);
    crd
}

fn valid() -> serde_json::Value {
    serde_json::json!({
        "metadata": {"name": "foos.example.com"},
        "spec": {
            "group": "example.com", "scope": "Namespaced",
            "names": {"plural": "foos", "kind": "Foo"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                          "schema": {"openAPIV3Schema": {"type": "object"}}}]
        }
    })
}

fn fields(errs: &[FieldError]) -> Vec<&str> {
    errs.iter().map(|e| e.field.as_str()).collect()
}

#[test]
fn a_valid_definition_has_no_errors() {
    assert!(validate(&crd(valid())).is_empty(), "{:?}", validate(&crd(valid())));
}

#[test]
fn name_must_be_plural_dot_group() {
    let mut v = valid();
    v["metadata"]["name"] = "bars.example.com".into();
    let errs = validate(&crd(v));
    assert_eq!(fields(&errs), ["metadata.name"]);
    assert_eq!(
        errs[0].to_string(),
        r#"metadata.name: Invalid value: "bars.example.com": must be spec.names.plural+"."+spec.group"#
    );
}

#[test]
fn group_needs_a_dot_and_names_are_labels() {
    let mut v = valid();
    v["spec"]["group"] = "example".into();
    v["metadata"]["name"] = "foos.example".into();
    v["spec"]["names"]["shortNames"] = serde_json::json!(["ok", "Not_OK"]);
    let errs = validate(&crd(v));
    assert_eq!(fields(&errs), ["spec.group", "spec.names.shortNames[1]"]);
    assert!(errs[0].to_string().ends_with("should be a domain with at least one dot"));
}

#[test]
fn exactly_one_storage_version_and_unique_names() {
    let mut v = valid();
    v["spec"]["versions"] = serde_json::json!([
        {"name": "v1", "served": true, "storage": false, "schema": {"openAPIV3Schema": {"type": "object"}}},
        {"name": "v1", "served": true, "storage": false, "schema": {"openAPIV3Schema": {"type": "string"}}}
    ]);
    let errs = validate(&crd(v));
    assert_eq!(
        fields(&errs),
        ["spec.versions", "spec.versions[1].name", "spec.versions[1].schema.openAPIV3Schema.type"]
    );
}

#[test]
fn webhook_conversion_needs_a_client_config_and_review_versions() {
    let mut v = valid();
    v["spec"]["conversion"] = serde_json::json!({"strategy": "Webhook", "webhook": {
        "clientConfig": {"url": "http://insecure.example.com/convert"}, "conversionReviewVersions": ["v2"]}});
    let errs = validate(&crd(v));
    assert_eq!(
        fields(&errs),
        ["spec.conversion.webhook.clientConfig.url", "spec.conversion.webhook.conversionReviewVersions"]
    );
}

#[test]
fn scale_paths_and_printer_columns_are_checked() {
    let mut v = valid();
    v["spec"]["versions"][0]["subresources"] = serde_json::json!({"scale": {
        "specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.items[0]", "labelSelectorPath": ".metadata.labels"}});
    v["spec"]["versions"][0]["additionalPrinterColumns"] =
        serde_json::json!([{"name": "", "type": "string", "jsonPath": "spec"}]);
    let errs = validate(&crd(v));
    assert_eq!(
        fields(&errs),
        [
            "spec.versions[0].subresources.scale.statusReplicasPath",
            "spec.versions[0].subresources.scale.labelSelectorPath",
            "spec.versions[0].additionalPrinterColumns[0].name",
            "spec.versions[0].additionalPrinterColumns[0].jsonPath",
        ]
    );
}

#[test]
fn kubernetes_groups_need_approval_and_apiextensions_is_reserved() {
    let mut v = valid();
    v["spec"]["group"] = "apps.k8s.io".into();
    v["metadata"]["name"] = "foos.apps.k8s.io".into();
    assert_eq!(fields(&validate(&crd(v.clone()))), ["metadata.annotations[api-approved.kubernetes.io]"]);
    v["metadata"]["annotations"] = serde_json::json!({"api-approved.kubernetes.io": "https://example.com/pr/1"});
    assert!(validate(&crd(v)).is_empty());
    let mut v = valid();
    v["spec"]["group"] = "apiextensions.k8s.io".into();
    v["spec"]["names"]["plural"] = "customresourcedefinitions".into();
    v["metadata"]["name"] = "customresourcedefinitions.apiextensions.k8s.io".into();
    v["metadata"]["annotations"] = serde_json::json!({"api-approved.kubernetes.io": "yes"});
    assert_eq!(fields(&validate(&crd(v))), ["spec.group"]);
}

#[test]
fn the_status_subresource_limits_the_schema_root() {
    let mut v = valid();
    v["spec"]["versions"][0]["subresources"] = serde_json::json!({"status": {}});
    v["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = serde_json::json!({"type": "object", "properties": {"spec": {"type": "object"}}, "oneOf": [{"required": ["spec"]}]});
    let errs = validate(&crd(v.clone()));
    assert_eq!(fields(&errs), ["spec.versions[0].schema.openAPIV3Schema"]);
    assert!(errs[0].to_string().ends_with("found oneOf"), "{}", errs[0]);
    v["spec"]["versions"][0]["schema"]["openAPIV3Schema"].as_object_mut().unwrap().remove("oneOf");
    assert!(validate(&crd(v)).is_empty());
}

#[test]
fn a_pattern_that_is_not_a_regular_expression_is_refused() {
    let mut v = valid();
    v["spec"]["versions"][0]["schema"]["openAPIV3Schema"] =
        serde_json::json!({"type": "object", "properties": {"name": {"type": "string", "pattern": "("}}});
    let errs = validate(&crd(v));
    assert_eq!(fields(&errs), ["spec.versions[0].schema.openAPIV3Schema"]);
    assert!(errs[0].to_string().contains("properties[name].pattern"), "{}", errs[0]);
}

#[test]
fn stored_versions_must_include_the_storage_version_and_exist() {
    let mut v = valid();
    v["status"] = serde_json::json!({"storedVersions": ["v0"]});
    let errs = validate_stored_versions(&crd(v));
    assert_eq!(fields(&errs), ["status.storedVersions", "status.storedVersions[0]"]);
}

#[test]
fn a_stored_version_missing_from_spec_is_refused_in_kubernetes_words() {
    let mut v = valid();
    v["status"] = serde_json::json!({"storedVersions": ["v0", "v1", "v0"]});
    let errs = validate_stored_versions(&crd(v));
    assert_eq!(fields(&errs), ["status.storedVersions[2]"], "a repeated name reports its last index");
    assert!(
        errs[0].to_string().contains(
            "missing from spec.versions; v0 was previously a storage version, and must remain in spec.versions \
             until a storage migration ensures no data remains persisted in v0 and removes v0 from \
             status.storedVersions"
        ),
        "{}",
        errs[0]
    );
}
