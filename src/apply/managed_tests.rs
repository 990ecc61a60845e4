//! Unit tests of managedFields: Update and Apply operations, conflicts, removal, capping, reset.

use serde_json::{json, Value};

use super::*;
use crate::error::Reason;
use crate::schema::Schema;

fn schema() -> Schema {
    Schema::compile(&json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "a": {"type": "string"}, "b": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"}}},
        "status": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}))
    .unwrap()
}

fn manager(s: &Schema) -> FieldManager<'_> {
    FieldManager {
        ty: Ty::root(Some(s)),
        api_version: "x.io/v1".into(),
        kind: "K".into(),
        subresource: String::new(),
        reset: crate::apply::reset_fields(true, false),
        now: "2026-01-01T00:00:00Z".into(),
    }
}

fn obj(spec: Value) -> Value {
    json!({"apiVersion": "x.io/v1", "kind": "K", "metadata": {"name": "o", "namespace": "d"}, "spec": spec})
}

fn fields(o: &Value) -> Vec<(String, String, Value)> {
    o["metadata"]["managedFields"]
        .as_array()
        .map(|l| {
            l.iter()
                .map(|e| {
                    (
                        e["manager"].as_str().unwrap().into(),
                        e["operation"].as_str().unwrap().into(),
                        e["fieldsV1"].clone(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_create_records_an_update_with_dots_and_without_server_metadata() {
    let s = schema();
    let mut new = obj(json!({"a": "1"}));
    new["status"] = json!({"ok": true});
    manager(&s).update(None, &mut new, "creator");
    assert_eq!(fields(&new), vec![("creator".into(), "Update".into(), json!({"f:spec": {".": {}, "f:a": {}}}))]);
    assert_eq!(new["metadata"]["managedFields"][0]["apiVersion"], "x.io/v1");
}

#[test]
fn apply_conflicts_then_force_takes_ownership() {
    let s = schema();
    let m = manager(&s);
    let first = m.apply(None, &obj(json!({"a": "1", "b": "1"})), "m1", false).unwrap();
    let err = m.apply(Some(&first), &obj(json!({"a": "2"})), "m2", false).unwrap_err();
    assert_eq!(err.reason, Reason::Conflict);
    assert_eq!(err.message, "Apply failed with 1 conflict: conflict with \"m1\": .spec.a");
    assert_eq!(err.details.causes[0].field, ".spec.a");
    assert_eq!(err.details.causes[0].body(), "conflict with \"m1\"");
    let same = m.apply(Some(&first), &obj(json!({"a": "1"})), "m2", false).unwrap();
    assert_eq!(fields(&same).len(), 2, "an equal value is shared, not a conflict");
    let forced = m.apply(Some(&first), &obj(json!({"a": "2"})), "m2", true).unwrap();
    assert_eq!(forced["spec"], json!({"a": "2", "b": "1"}));
    assert_eq!(
        fields(&forced),
        vec![
            ("m1".into(), "Apply".into(), json!({"f:spec": {"f:b": {}}})),
            ("m2".into(), "Apply".into(), json!({"f:spec": {"f:a": {}}}))
        ]
    );
}

#[test]
fn apply_removes_what_the_applier_no_longer_applies_unless_shared() {
    let s = schema();
    let m = manager(&s);
    let first = m.apply(None, &obj(json!({"a": "1", "b": "1", "tags": ["x", "y"]})), "m1", false).unwrap();
    let shared = m.apply(Some(&first), &obj(json!({"b": "1"})), "m2", false).unwrap();
    let second = m.apply(Some(&shared), &obj(json!({"tags": ["y"]})), "m1", false).unwrap();
    assert_eq!(second["spec"], json!({"b": "1", "tags": ["y"]}));
    let third = m.apply(Some(&second), &obj(json!({})), "m1", false).unwrap();
    assert_eq!(third["spec"], json!({"b": "1"}));
}

#[test]
fn updates_merge_per_manager_and_are_capped() {
    let s = schema();
    let m = manager(&s);
    let mut live = obj(json!({"a": "0"}));
    m.update(None, &mut live, "c");
    for i in 0..12 {
        let mut next = live.clone();
        next["spec"]["a"] = json!(format!("{i}"));
        if next["metadata"].get("labels").is_none() {
            next["metadata"]["labels"] = json!({});
        }
        next["metadata"]["labels"][format!("l{i}")] = json!("x");
        let fm = FieldManager { now: format!("2026-01-01T00:00:{i:02}Z"), ..manager(&s) };
        fm.update(Some(&live), &mut next, &format!("u{i}"));
        live = next;
    }
    let managers: Vec<String> = fields(&live).into_iter().map(|(m, _, _)| m).collect();
    assert_eq!(managers.len(), 10);
    assert!(managers.contains(&"ancient-changes".to_string()), "{managers:?}");
    assert!(!managers.contains(&"u2".to_string()) && managers.contains(&"u3".to_string()), "{managers:?}");
    let mut again = live.clone();
    again["metadata"]["labels"]["l11"] = json!("y");
    manager(&s).update(Some(&live), &mut again, "u11");
    assert_eq!(fields(&again).iter().filter(|(m, _, _)| m == "u11").count(), 1);
}

#[test]
fn invalid_managed_fields_are_reset_and_an_empty_list_clears() {
    let s = schema();
    let m = manager(&s);
    let mut live = obj(json!({"a": "1"}));
    m.update(None, &mut live, "c");
    let mut bad = live.clone();
    bad["metadata"]["managedFields"] = json!([{"manager": "x", "operation": "Nope", "fieldsType": "FieldsV1"}]);
    m.update(Some(&live), &mut bad, "d");
    assert_eq!(fields(&bad), fields(&live), "invalid ones fall back to the live object's");
    let mut cleared = live.clone();
    cleared["metadata"]["managedFields"] = json!([]);
    m.update(Some(&live), &mut cleared, "d");
    assert!(cleared["metadata"].get("managedFields").is_none());
}

#[test]
fn managers_come_from_the_user_agent_and_are_validated() {
    assert_eq!(manager_from("", "kubectl/v1.34.0 (linux/amd64) kubernetes/abc"), "kubectl");
    assert_eq!(manager_from("mine", "kubectl/v1"), "mine");
    assert_eq!(validate_field_manager(&"x".repeat(129))[0].cause, CauseType::TooLong);
    assert!(validate_field_manager("ok").is_empty());
}
