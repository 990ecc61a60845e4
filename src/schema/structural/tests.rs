//! Unit tests of the structural checks: each rule at its path, defaults, junctors.

use super::*;
use serde_json::json;

fn fields(schema: Value) -> Vec<String> {
    check(&schema, "s").into_iter().map(|e| e.field).collect()
}

#[test]
fn a_structural_schema_passes() {
    let schema = json!({"type": "object", "properties": {
        "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 20}}},
        "spec": {"type": "object", "properties": {
            "port": {"x-kubernetes-int-or-string": true},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "items": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                      "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}},
            "size": {"type": "integer", "default": 3}},
            "anyOf": [{"required": ["port"]}, {"properties": {"size": {"minimum": 1}}}]}}});
    assert!(check(&schema, "s").is_empty(), "{:?}", check(&schema, "s"));
}

#[test]
fn every_rule_reports_at_its_path() {
    let schema = json!({"type": "object", "nullable": true, "additionalProperties": false, "properties": {
        "metadata": {"type": "object", "properties": {"labels": {"type": "object"}}},
        "kind": {"type": "string", "default": "X"},
        "spec": {"type": "object", "properties": {
            "untyped": {"description": "no type"},
            "list": {"type": "array"},
            "tuple": {"type": "array", "items": [{"type": "string"}]},
            "ref": {"$ref": "#/definitions/x", "type": "object"},
            "uniq": {"type": "array", "uniqueItems": true, "items": {"type": "string"}},
            "both": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}},
            "bad_default": {"type": "integer", "default": "three"},
            "lt": {"type": "array", "x-kubernetes-list-type": "bag", "items": {"type": "string"}}},
            "oneOf": [{"type": "object", "properties": {"ghost": {"type": "string"}}}]}}});
    let got = fields(schema);
    for want in [
        "s.nullable",
        "s.additionalProperties",
        "s.properties[metadata]",
        "s.properties[kind].default",
        "s.properties[spec].properties[untyped].type",
        "s.properties[spec].properties[list].items",
        "s.properties[spec].properties[tuple].items",
        "s.properties[spec].properties[ref].$ref",
        "s.properties[spec].properties[uniq].uniqueItems",
        "s.properties[spec].properties[both].additionalProperties",
        "s.properties[spec].properties[lt].x-kubernetes-list-type",
        "s.properties[spec].oneOf[0].type",
        "s.properties[spec].oneOf[0].properties[ghost]",
    ] {
        assert!(got.iter().any(|f| f == want), "no error at {want}: {got:?}");
    }
    let mut sorted = check(&json!({"type": "object", "properties": {"b": {}, "a": {}}}), "s");
    assert_eq!(sorted.len(), 2);
    assert!(sorted.remove(0).to_string() < sorted.remove(0).to_string(), "sorted by text, as Kubernetes sorts");
}

/// Defaults are checked once the schema is structural, as Kubernetes'
/// `ValidateDefaults` runs only after `ValidateStructural` passed.
#[test]
fn defaults_only_once_structural() {
    let bad_default = json!({"type": "integer", "default": "three"});
    let structural = json!({"type": "object", "properties": {"n": bad_default}});
    assert_eq!(fields(structural), ["s.properties[n].default"]);
    let not = json!({"type": "object", "properties": {"n": bad_default, "untyped": {}}});
    assert_eq!(fields(not), ["s.properties[untyped].type"]);
}

/// Inside junctors, in Kubernetes' words; the int-or-string pattern is
/// skipped, in anyOf and in the first allOf's anyOf.
#[test]
fn junctors_as_kubernetes_words_them() {
    let schema = json!({"type": "object", "properties": {
        "ios": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}],
                "allOf": [{"pattern": "abc"}]},
        "ios2": {"x-kubernetes-int-or-string": true,
                 "allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}, {"pattern": "abc"}]},
        "swapped": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "string"}, {"type": "integer"}]},
        "e": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
        "not": {"properties": {"e": {"x-kubernetes-preserve-unknown-fields": true, "nullable": true,
                                     "x-kubernetes-list-type": "atomic", "additionalProperties": {}}}}});
    let got: Vec<String> = check(&schema, "s").iter().map(ToString::to_string).collect();
    assert_eq!(
        got,
        [
            "s.not.properties[e].additionalProperties: Forbidden: must be undefined to be structural",
            "s.not.properties[e].nullable: Forbidden: must be false to be structural",
            "s.not.properties[e].x-kubernetes-list-type: Forbidden: must be undefined to be structural",
            "s.not.properties[e].x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural",
            "s.properties[swapped].anyOf[0].type: Forbidden: must be empty to be structural",
            "s.properties[swapped].anyOf[1].type: Forbidden: must be empty to be structural",
        ]
    );
    let embedded =
        json!({"type": "", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true});
    let got: Vec<String> = check(&embedded, "s").iter().map(ToString::to_string).collect();
    assert_eq!(got, ["s.type: Required value: must be object if x-kubernetes-embedded-resource is true"]);
    let bare = json!({"type": "object", "x-kubernetes-embedded-resource": true});
    let got: Vec<String> = check(&bare, "s").iter().map(ToString::to_string).collect();
    assert_eq!(got, ["s.properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"]);
}
