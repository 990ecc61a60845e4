//! Unit tests of definition validation: one per rule family, each
//! asserting the field paths Kubernetes reports.

use super::*;
use crate::registry::extensions::validate_declarative;

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
        "specReplicasPath": ".spec.replicas", "statusReplicasPath": "status.replicas", "labelSelectorPath": ".metadata.labels"}});
    v["spec"]["versions"][0]["additionalPrinterColumns"] =
        serde_json::json!([{"name": "", "type": "string", "jsonPath": "spec"}]);
    let errs = validate(&crd(v));
    assert_eq!(
        fields(&errs),
        [
            "spec.subresources.scale.statusReplicasPath",
            "spec.subresources.scale.labelSelectorPath",
            "spec.additionalPrinterColumns[0].name",
            "spec.additionalPrinterColumns[0].JSONPath",
        ]
    );
}

#[test]
fn paths_only_need_to_start_with_a_dot_as_upstream() {
    let mut v = valid();
    v["spec"]["versions"][0]["subresources"] = serde_json::json!({"scale": {
        "specReplicasPath": ".spec.replicas[0]", "statusReplicasPath": ".status.items[0].n"}});
    v["spec"]["versions"][0]["additionalPrinterColumns"] = serde_json::json!([
        {"name": "Ready", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"Ready\")].status"},
        {"name": "Odd", "type": "text", "format": "hex", "jsonPath": ".spec..x"}]);
    let errs: Vec<String> = validate(&crd(v)).iter().map(ToString::to_string).collect();
    assert_eq!(
        errs,
        [
            "spec.additionalPrinterColumns[1].type: Invalid value: \"text\": must be one of boolean,date,integer,number,string",
            "spec.additionalPrinterColumns[1].format: Invalid value: \"hex\": must be one of byte,date,date-time,double,float,int32,int64,password",
        ]
    );
}

#[test]
fn kubernetes_groups_need_approval_and_apiextensions_is_reserved() {
    let mut v = valid();
    v["spec"]["group"] = "apps.k8s.io".into();
    v["metadata"]["name"] = "foos.apps.k8s.io".into();
    assert_eq!(fields(&validate(&crd(v.clone()))), ["metadata.annotations[api-approved.kubernetes.io]"]);
    v["metadata"]["annotations"] = serde_json::json!({"api-approved.kubernetes.io": "yes"});
    let errs: Vec<String> = validate(&crd(v.clone())).iter().map(ToString::to_string).collect();
    assert_eq!(
        errs,
        [
            r#"metadata.annotations[api-approved.kubernetes.io]: Invalid value: "yes": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111"#
        ]
    );
    // An update that keeps the state is not refused for it.
    assert!(validate_update(&crd(v.clone()), &crd(v.clone()))
        .iter()
        .all(|e| !e.field.starts_with("metadata.annotations")));
    v["metadata"]["annotations"] = serde_json::json!({"api-approved.kubernetes.io": "https://example.com/pr/1"});
    assert!(validate(&crd(v)).is_empty());
    let mut v = valid();
    v["spec"]["group"] = "apiextensions.k8s.io".into();
    v["spec"]["names"]["plural"] = "customresourcedefinitions".into();
    v["metadata"]["name"] = "customresourcedefinitions.apiextensions.k8s.io".into();
    v["metadata"]["annotations"] = serde_json::json!({"api-approved.kubernetes.io": "unapproved"});
    assert_eq!(fields(&validate(&crd(v))), ["spec.group"]);
}

#[test]
fn the_status_subresource_limits_the_schema_root() {
    let mut v = valid();
    v["spec"]["versions"][0]["subresources"] = serde_json::json!({"status": {}});
    v["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = serde_json::json!({"type": "object", "properties": {"spec": {"type": "object"}}, "oneOf": [{"required": ["spec"]}]});
    let errs = validate(&crd(v.clone()));
    assert_eq!(fields(&errs), ["spec.validation.openAPIV3Schema"]);
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
    assert_eq!(fields(&errs), ["spec.validation.openAPIV3Schema"]);
    assert!(errs[0].to_string().contains("properties[name].pattern"), "{}", errs[0]);
}

#[test]
fn stored_versions_must_include_the_storage_version_and_exist() {
    let mut v = valid();
    v["status"] = serde_json::json!({"storedVersions": ["v0"]});
    let errs = validate_stored_versions(&crd(v));
    assert_eq!(fields(&errs), ["status.storedVersions", "status.storedVersions[0]"]);
}

fn two_versions(strategy: &str, declared: serde_json::Value) -> super::super::definition::Definition {
    let mut v = valid();
    v["spec"]["conversion"] = serde_json::json!({"strategy": strategy});
    let schema = |field: &str| {
        serde_json::json!({"openAPIV3Schema": {"type": "object", "properties": {
            "spec": {"type": "object", "properties": {field: {"type": "string"}}}}}})
    };
    v["spec"]["versions"] = serde_json::json!([
        {"name": "v1", "served": true, "storage": true, "schema": schema("a"), "conversion": declared},
        {"name": "v2", "served": true, "storage": false, "schema": schema("b")}]);
    let mut crd = super::super::definition::from_json(v).unwrap();
    super::super::definition::apply_defaults(&mut crd);
    crd
}

#[test]
fn declarative_conversion_is_validated_at_its_paths() {
    let rename = serde_json::json!({"declarative": {"v2": {"rename": {"from": ".spec.a", "to": ".spec.b"}}}});
    let ok = two_versions("Declarative", rename.clone());
    assert!(validate(&ok).is_empty() && validate_declarative(&ok).is_empty(), "{:?}", validate_declarative(&ok));
    let mut webhook = two_versions("Declarative", rename.clone());
    webhook.spec.conversion.as_mut().unwrap().webhook = Some(Default::default());
    assert_eq!(fields(&validate(&webhook)), ["spec.conversion.webhook"]);
    let none = two_versions("None", rename);
    assert_eq!(fields(&validate_declarative(&none)), ["spec.versions[0].conversion.declarative"]);
    let wrong = two_versions(
        "Declarative",
        serde_json::json!({"declarative": {"v2": {"rename": {"from": ".spec.a", "to": ".spec.c"}}}}),
    );
    assert_eq!(fields(&validate_declarative(&wrong)), ["spec.versions[0].conversion.declarative.v2.rename.to"]);
    let missing = two_versions("Declarative", serde_json::json!(null));
    assert_eq!(fields(&validate_declarative(&missing)), ["spec.versions[1].conversion.declarative"]);
}

#[test]
fn what_every_version_shares_is_reported_once_at_the_spec() {
    let mut v = valid();
    let version = v["spec"]["versions"][0].clone();
    let mut second = version.clone();
    second["name"] = "v2".into();
    second["storage"] = false.into();
    v["spec"]["versions"] = serde_json::json!([version, second]);
    let bad = serde_json::json!({"openAPIV3Schema": {"x-kubernetes-preserve-unknown-fields": true, "x-kubernetes-int-or-string": true}});
    v["spec"]["versions"][0]["schema"] = bad.clone();
    v["spec"]["versions"][1]["schema"] = bad;
    let errs: Vec<String> = validate(&crd(v.clone())).iter().map(ToString::to_string).collect();
    assert!(
        errs.contains(&"spec.validation.openAPIV3Schema.x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true".to_string()),
        "{errs:?}"
    );
    assert!(errs.iter().all(|e| !e.starts_with("spec.versions[")), "{errs:?}");
    // Schemas that differ are reported per version.
    v["spec"]["versions"][1]["schema"] = serde_json::json!({"openAPIV3Schema": {"type": "object"}});
    let errs = validate(&crd(v));
    let paths = fields(&errs);
    assert!(
        !paths.is_empty() && paths.iter().all(|f| f.starts_with("spec.versions[0].schema.openAPIV3Schema")),
        "{paths:?}"
    );
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
