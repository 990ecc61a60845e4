//! Unit tests of validation against a compiled schema: each keyword, ratcheting, messages.

use super::*;
use serde_json::json;

/// The errors as strings, sorted (they come in document order).
fn errors(schema: Value, value: Value) -> Vec<String> {
    let mut all: Vec<String> =
        validate(&value, &Schema::compile(&schema).unwrap(), "").iter().map(ToString::to_string).collect();
    all.sort();
    all
}

#[test]
fn types_and_bounds_are_reported_at_their_paths() {
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "required": ["name"], "properties": {
        "replicas": {"type": "integer", "maximum": 10, "minimum": 0},
        "name": {"type": "string", "maxLength": 3, "pattern": "^[a-z]+$"},
        "mode": {"type": "string", "enum": ["a", "b"]},
        "tags": {"type": "array", "maxItems": 1, "items": {"type": "string"}}}}}});
    let errs = errors(schema.clone(), json!({"spec": {"replicas": 15, "mode": "c", "tags": ["x", 2]}}));
    assert_eq!(
        errs,
        [
            "spec.mode: Unsupported value: \"c\": supported values: \"a\", \"b\"",
            "spec.name: Required value",
            "spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10",
            "spec.tags: Too many: 2: must have at most 1 item",
            "spec.tags[1]: Invalid value: \"integer\": spec.tags[1] in body must be of type string: \"integer\"",
        ]
    );
    assert_eq!(
        errors(schema.clone(), json!({"spec": {"name": "ABCD"}})),
        [
            "spec.name: Invalid value: \"ABCD\": spec.name in body should match '^[a-z]+$'",
            "spec.name: Too long: may not be more than 3 bytes",
        ]
    );
    assert!(errors(schema, json!({"metadata": {"name": 5}, "spec": {"name": "ab", "replicas": 3}})).is_empty());
}

#[test]
fn nullable_int_or_string_and_combinators() {
    let schema = json!({"type": "object", "properties": {
        "port": {"x-kubernetes-int-or-string": true},
        "maybe": {"type": "string", "nullable": true},
        "never": {"type": "string"},
        "either": {"type": "integer", "oneOf": [{"minimum": 5}, {"maximum": 2}]}}});
    assert!(errors(schema.clone(), json!({"port": "http", "maybe": null, "either": 7})).is_empty());
    assert_eq!(
        errors(schema, json!({"port": 1.5, "never": null, "either": 3})),
        [
            "either: Invalid value: 3: must validate one and only one schema (oneOf)",
            "never: Invalid value: \"null\": never in body must be of type string: \"null\"",
            "port: Invalid value: \"number\": port in body must be of type integer,string: \"number\"",
        ]
    );
}

#[test]
fn messages_name_the_path_below_where_validation_started() {
    let schema =
        Schema::compile(&json!({"type": "object", "properties": {"num": {"type": "integer", "maximum": 10}}})).unwrap();
    let errs = validate(&json!({"num": 15}), &schema, "status");
    assert_eq!(errs[0].to_string(), "status.num: Invalid value: 15: num in body should be less than or equal to 10");
}

#[test]
fn set_and_map_lists_hold_each_entry_once() {
    let schema = json!({"type": "object", "properties": {
        "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "protocol"],
                  "items": {"type": "object", "properties": {"port": {"type": "integer"}, "protocol": {"type": "string"}, "name": {"type": "string"}}}},
        "free": {"type": "array", "items": {"type": "string"}}}});
    let value = json!({
        "tags": ["a", "b", "a"],
        "ports": [{"port": 80, "protocol": "TCP", "name": "http"}, {"port": 80, "protocol": "UDP"}, {"port": 80, "protocol": "TCP", "name": "again"}],
        "free": ["x", "x"]});
    assert_eq!(
        errors(schema, value),
        ["ports[2]: Duplicate value: {\"port\":80,\"protocol\":\"TCP\"}", "tags[2]: Duplicate value: \"a\"",]
    );
}

#[test]
fn list_errors_are_ratcheted_while_the_old_object_has_some() {
    let schema = Schema::compile(&json!({"type": "object", "properties": {
        "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        "ids": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "integer"}}}}))
    .unwrap();
    let new = json!({"tags": ["a", "a"], "ids": [1, 1]});
    let clean_old = json!({"tags": ["a"], "ids": [1]});
    let errs = validate_update(&new, Some(&clean_old), &schema, "", Root::Object).errors;
    assert_eq!(errs.len(), 2, "{errs:?}");
    let broken_old = json!({"tags": ["b", "b"], "ids": [2]});
    assert!(validate_update(&new, Some(&broken_old), &schema, "", Root::Object).errors.is_empty());
    assert_eq!(validate_update(&new, None, &schema, "", Root::Object).errors.len(), 2);
}

#[test]
fn formats_and_additional_properties() {
    let schema = json!({"type": "object", "properties": {
        "id": {"type": "string", "format": "uuid"},
        "small": {"type": "integer", "format": "int32"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "closed": {"type": "object", "additionalProperties": false}}});
    assert_eq!(
        errors(schema, json!({"id": "nope", "small": 4294967296i64, "labels": {"a": 1}, "closed": {"x": 1}})),
        [
            "closed.x: Forbidden: is a forbidden property",
            "id: Invalid value: \"nope\": id in body must be of type uuid: \"nope\"",
            "labels.a: Invalid value: \"integer\": labels.a in body must be of type string: \"integer\"",
            "small: Invalid value: 4294967296: small in body must be of type int32",
        ]
    );
}
