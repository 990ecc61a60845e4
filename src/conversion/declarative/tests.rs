//! The engine's rules one by one, and each validation error at its path.

use serde_json::{json, Value};

use super::*;

/// A three-version definition's versions as JSON: v1 -> v2 declared on v1,
/// v2 -> v3 declared on v2.
pub(super) fn three_versions() -> Vec<(String, Value, Value)> {
    let int = json!({"type": "integer"});
    let string = json!({"type": "string"});
    let list = json!({"type": "array", "items": {"type": "object", "properties": {"n": int}}});
    let v1 = json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "a": string, "size": int, "moved": {"type": "object", "properties": {"x": int}},
            "keep": string, "extra1": string, "list": list,
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
        "status": {"type": "object", "properties": {"phase": string}}}});
    let v2 = json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "b": string, "sizeStr": string, "place": {"type": "object", "properties": {"x": int}},
            "keep": string, "mode": string, "list": list,
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
        "status": {"type": "object", "properties": {"phase": string}}}});
    let v3 = json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "b": string, "sizeStr": string, "place": {"type": "object", "properties": {"x": int}},
            "mode": string, "tier": string,
            "list": {"type": "array", "items": {"type": "object", "properties": {}}},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
        "status": {"type": "object", "properties": {"phase": string, "keep": string}}}});
    let c1 = json!({"declarative": {"v2": {"rules": [
        {"rename": {"from": ".spec.a", "to": ".spec.b"}},
        {"cel": {"from": ".spec.size", "to": ".spec.sizeStr",
                 "forward": "string(self) + 'Gi'", "backward": "int(self.substring(0, size(self) - 2))"}},
        {"rename": {"from": ".spec.moved.x", "to": ".spec.place.x"}},
        {"default": {"path": ".spec.mode", "value": "fast"}}]}}});
    let c2 = json!({"declarative": {"v3": {"rules": [
        {"rename": {"from": ".spec.keep", "to": ".status.keep"}},
        {"default": {"path": ".spec.tier", "value": "gold"}}]}}});
    vec![("v1".into(), v1, c1), ("v2".into(), v2, c2), ("v3".into(), v3, json!({}))]
}

pub(super) fn compile(versions: &[(String, Value, Value)]) -> Result<Declarative> {
    let conversions: Vec<VersionConversion> =
        versions.iter().map(|(_, _, c)| serde_json::from_value(c.clone()).unwrap()).collect();
    let input: Vec<Version<'_>> = versions
        .iter()
        .zip(&conversions)
        .enumerate()
        .map(|(i, ((name, schema, _), conversion))| Version {
            name,
            served: true,
            storage: i == 0,
            schema: Some(schema),
            conversion: Some(conversion),
        })
        .collect();
    Declarative::compile(&input)
}

fn errors(versions: &[(String, Value, Value)]) -> Vec<FieldError> {
    let conversions: Vec<VersionConversion> =
        versions.iter().map(|(_, _, c)| serde_json::from_value(c.clone()).unwrap()).collect();
    let input: Vec<Version<'_>> = versions
        .iter()
        .zip(&conversions)
        .enumerate()
        .map(|(i, ((name, schema, _), conversion))| Version {
            name,
            served: true,
            storage: i == 0,
            schema: Some(schema),
            conversion: Some(conversion),
        })
        .collect();
    validate(&input)
}

use crate::error::FieldError;

fn object(version: &str, spec: Value) -> Value {
    json!({"apiVersion": format!("example.com/{version}"), "kind": "Widget", "metadata": {"name": "w"}, "spec": spec})
}

fn stash_of(obj: &Value, version: &str) -> Value {
    let text = obj["metadata"]["annotations"][annotation(version)].as_str().expect("an annotation");
    serde_json::from_str(text).unwrap()
}

#[test]
fn the_three_versions_are_valid() {
    assert_eq!(errors(&three_versions()), vec![]);
}

#[test]
fn rename_moves_and_reverses() {
    let d = compile(&three_versions()).unwrap();
    let v2 = d.convert(object("v1", json!({"a": "x", "moved": {"x": 3}})), "v2").unwrap();
    assert_eq!(v2["apiVersion"], "example.com/v2");
    assert_eq!(v2["spec"], json!({"b": "x", "place": {"x": 3}, "mode": "fast"}));
    let back = d.convert(v2, "v1").unwrap();
    assert_eq!(back, object("v1", json!({"a": "x", "moved": {"x": 3}})));
}

#[test]
fn the_seed_shape_is_one_rename() {
    let mut versions = three_versions();
    versions[0].2 = json!({"declarative": {"v2": {"rename": {"from": ".spec.a", "to": ".spec.b"}}}});
    versions[1].2 = json!({});
    versions.truncate(2);
    let d = compile(&versions).unwrap();
    let v2 = d.convert(object("v1", json!({"a": "x"})), "v2").unwrap();
    assert_eq!(v2["spec"], json!({"b": "x"}));
}

#[test]
fn a_default_fills_in_and_a_different_value_survives_the_round_trip() {
    let d = compile(&three_versions()).unwrap();
    let v2 = object("v2", json!({"mode": "slow"}));
    let v1 = d.convert(v2.clone(), "v1").unwrap();
    assert_eq!(v1["spec"], json!({}), "taking a default back leaves its parent: {v1}");
    assert_eq!(stash_of(&v1, "v2"), json!({"fields": {"/spec/mode": "slow"}}));
    assert_eq!(d.convert(v1, "v2").unwrap(), v2);
    // Absent at v2 stays absent on the way back.
    let bare = object("v2", json!({"b": "y"}));
    let v1 = d.convert(bare.clone(), "v1").unwrap();
    assert_eq!(stash_of(&v1, "v2"), json!({"absent": ["/spec/mode"]}));
    assert_eq!(d.convert(v1, "v2").unwrap(), bare);
}

#[test]
fn a_default_goes_only_into_a_parent_that_exists_so_empty_and_absent_parents_come_back() {
    let d = compile(&three_versions()).unwrap();
    // An empty spec gets the default, and is empty again on the way back.
    let empty = object("v2", json!({}));
    let v3 = d.convert(empty.clone(), "v3").unwrap();
    assert_eq!(v3["spec"], json!({"tier": "gold"}));
    assert!(v3["metadata"].get("annotations").is_none(), "nothing to keep: {v3}");
    assert_eq!(d.convert(v3, "v2").unwrap(), empty);
    // No spec at all: no default (as OpenAPI defaulting), nothing made up.
    let mut bare = object("v2", json!({}));
    bare.as_object_mut().unwrap().remove("spec");
    let v3 = d.convert(bare.clone(), "v3").unwrap();
    assert!(v3.get("spec").is_none(), "{v3}");
    assert_eq!(d.convert(v3, "v2").unwrap(), bare);
}

#[test]
fn cel_computes_each_way_and_keeps_what_does_not_come_back() {
    let d = compile(&three_versions()).unwrap();
    let v2 = d.convert(object("v1", json!({"size": 10})), "v2").unwrap();
    assert_eq!(v2["spec"]["sizeStr"], "10Gi");
    assert!(v2["metadata"].get("annotations").is_none());
    assert_eq!(d.convert(v2, "v1").unwrap()["spec"], json!({"size": 10}));
    // "010Gi" reads back as 10, which is "10Gi": the original is kept.
    let v2 = object("v2", json!({"sizeStr": "010Gi", "mode": "fast"}));
    let v1 = d.convert(v2.clone(), "v1").unwrap();
    assert_eq!(v1["spec"]["size"], 10);
    assert_eq!(d.convert(v1, "v2").unwrap(), v2);
}

#[test]
fn a_failing_expression_names_the_versions_and_the_rule() {
    let d = compile(&three_versions()).unwrap();
    let err = d.convert(object("v2", json!({"sizeStr": "G"})), "v1").unwrap_err();
    assert_eq!(err.reason, crate::error::Reason::InternalError);
    assert!(
        err.message.contains("conversion from version v2 to version v1 failed at spec.versions[0].conversion.declarative.v2.rules[1].cel.backward"),
        "{}",
        err.message
    );
}

#[test]
fn fields_the_target_cannot_hold_are_kept_and_restored() {
    let d = compile(&three_versions()).unwrap();
    let v1 = object("v1", json!({"extra1": "e", "list": [{"n": 1}, {"n": 2}], "free": {"any": {"thing": 1}}}));
    let v2 = d.convert(v1.clone(), "v2").unwrap();
    assert!(v2["spec"].get("extra1").is_none());
    assert_eq!(v2["spec"]["free"], json!({"any": {"thing": 1}}));
    assert_eq!(stash_of(&v2, "v1"), json!({"fields": {"/spec/extra1": "e"}}));
    let v3 = d.convert(v2, "v3").unwrap();
    assert_eq!(v3["spec"]["list"], json!([{}, {}]));
    assert_eq!(stash_of(&v3, "v2"), json!({"fields": {"/spec/list/0/n": 1, "/spec/list/1/n": 2}}));
    assert_eq!(d.convert(v3, "v1").unwrap(), v1);
}

#[test]
fn converting_walks_the_graph_and_reports_unknown_versions() {
    let d = compile(&three_versions()).unwrap();
    let v1 = object("v1", json!({"a": "x", "keep": "k"}));
    let v3 = d.convert(v1.clone(), "v3").unwrap();
    assert_eq!(v3["apiVersion"], "example.com/v3");
    assert_eq!(v3["status"], json!({"keep": "k"}));
    assert_eq!(v3["spec"], json!({"b": "x", "mode": "fast", "tier": "gold"}));
    assert_eq!(d.convert(v3, "v1").unwrap(), v1);
    let same = object("v1", json!({"whatever": 1}));
    assert_eq!(d.convert(same.clone(), "v1").unwrap(), same);
    let err = d.convert(v1.clone(), "v9").unwrap_err();
    assert!(err.message.contains("to an invalid group/version: v9"), "{}", err.message);
    let err = d.convert(object("v7", json!({})), "v1").unwrap_err();
    assert!(err.message.contains("from an invalid group/version: example.com/v7"), "{}", err.message);
}

fn one_rule(rule: Value) -> Vec<(String, Value, Value)> {
    let mut versions = three_versions();
    versions[0].2 = json!({"declarative": {"v2": {"rules": [{"rename": {"from": ".spec.a", "to": ".spec.b"}}, rule]}}});
    versions
}

fn fields(errs: &[FieldError]) -> Vec<(String, String)> {
    errs.iter().map(|e| (e.field.clone(), e.body())).collect()
}

#[test]
fn each_rule_error_is_at_its_path() {
    let at = "spec.versions[0].conversion.declarative.v2.rules[1]";
    let cases = [
        (json!({"rename": {"from": ".spec.keep", "to": ".spec.nope"}}), format!("{at}.rename.to")),
        (json!({"rename": {"from": "spec.a", "to": ".spec.keep"}}), format!("{at}.rename.from")),
        (json!({"rename": {"from": ".spec.a[0]", "to": ".spec.keep"}}), format!("{at}.rename.from")),
        (json!({"rename": {"from": ".metadata.name", "to": ".spec.keep"}}), format!("{at}.rename.from")),
        (json!({"rename": {"to": ".spec.keep"}}), format!("{at}.rename.from")),
        (json!({"default": {"path": ".spec.keep", "value": "k"}}), format!("{at}.default.path")),
        (json!({"default": {"path": ".spec.mode"}}), format!("{at}.default.value")),
        (json!({"default": {"path": ".spec.mode", "value": 3}}), format!("{at}.default.value")),
        (
            json!({"cel": {"from": ".spec.size", "to": ".spec.sizeStr", "forward": "self.nope", "backward": "1"}}),
            format!("{at}.cel.forward"),
        ),
        (
            json!({"cel": {"from": ".spec.size", "to": ".spec.sizeStr", "forward": "self +", "backward": "1"}}),
            format!("{at}.cel.forward"),
        ),
        (
            json!({"cel": {"from": ".spec.size", "to": ".spec.sizeStr", "forward": "self", "backward": ""}}),
            format!("{at}.cel.backward"),
        ),
        (
            json!({"cel": {"from": ".spec.size", "to": ".spec.sizeStr", "forward": "self",
            "backward": "[1,2,3].all(x, x > 0) ? size(self) : 2"}}),
            String::new(),
        ),
        (json!({}), at.to_string()),
        (
            json!({"rename": {"from": ".spec.keep", "to": ".spec.keep"}, "default": {"path": ".spec.mode", "value": 1}}),
            at.to_string(),
        ),
        (json!({"rename": {"from": ".spec.keep", "to": ".spec.b"}}), format!("{at}.rename.to")),
        (json!({"default": {"path": ".spec.b", "value": "z"}}), format!("{at}.default.path")),
    ];
    for (rule, field) in cases {
        let errs = errors(&one_rule(rule.clone()));
        if field.is_empty() {
            assert_eq!(errs, vec![], "{rule}");
            continue;
        }
        assert_eq!(errs.len(), 1, "{rule}: {:?}", fields(&errs));
        assert_eq!(errs[0].field, field, "{rule}: {:?}", fields(&errs));
    }
    let cost = one_rule(json!({"cel": {"from": ".spec.keep", "to": ".spec.keep", "forward": "self",
        "backward": "self.split('').all(a, self.split('').all(b, self.split('').all(c, a == b)))"}}));
    let errs = errors(&cost);
    assert!(
        errs.iter().any(|e| e.field == format!("{at}.cel.backward") && e.body().contains("exceeds budget")),
        "{:?}",
        fields(&errs)
    );
}

#[test]
fn moving_under_a_parent_another_rule_writes_overlaps() {
    let errs = errors(&one_rule(json!({"rename": {"from": ".spec.keep", "to": ".spec.place"}})));
    let errs2 = errors(&one_rule(json!({"rename": {"from": ".spec.moved", "to": ".spec.b"}})));
    assert_eq!(errs.len(), 0, "{:?}", fields(&errs));
    assert_eq!(errs2.len(), 1, "{:?}", fields(&errs2));
}

#[test]
fn the_graph_has_no_loop_and_reaches_every_served_version() {
    let mut versions = three_versions();
    versions[2].2 = json!({"declarative": {"v1": {}}});
    let errs = errors(&versions);
    assert_eq!(fields(&errs), vec![(
        "spec.versions[2].conversion.declarative.v1".to_string(),
        "Invalid value: null: closes a loop in the conversion graph: v3 -> v1 -> v2 -> v3; declare each conversion once, its reverse is derived from it".to_string()
    )]);
    let mut versions = three_versions();
    versions[1].2 = json!({"declarative": {"v1": {}}});
    let errs = errors(&versions);
    assert_eq!(errs.len(), 2, "{:?}", fields(&errs));
    assert!(errs[0].detail.contains("v2 -> v1 -> v2"), "{:?}", fields(&errs));
    assert_eq!(errs[1].field, "spec.versions[2].conversion.declarative");
    assert!(errs[1].detail.contains("no declared conversion connects version v3 to version v1"), "{:?}", fields(&errs));
    let mut versions = three_versions();
    versions[0].2 = json!({"declarative": {"v9": {}, "v1": {}}});
    let errs = errors(&versions);
    assert_eq!(errs[0].field, "spec.versions[0].conversion.declarative.v1");
    assert_eq!(errs[1].field, "spec.versions[0].conversion.declarative.v9");
}
