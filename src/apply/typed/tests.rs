//! Unit tests of the typed view: field sets, compare, merge and removal per list and map type.

use serde_json::{json, Value};

use super::*;
use crate::schema::Schema;

fn schema() -> Schema {
    Schema::compile(&json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "replicas": {"type": "integer"},
            "atomicList": {"type": "array", "items": {"type": "string"}},
            "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
            "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "selector": {"type": "object", "x-kubernetes-map-type": "atomic",
                "properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "size": {"x-kubernetes-int-or-string": true},
            "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                "x-kubernetes-preserve-unknown-fields": true}}}}}))
    .unwrap()
}

fn fields(v: &Value) -> Value {
    let s = schema();
    to_field_set(v, Ty::root(Some(&s))).to_fields_v1()
}

#[test]
fn field_sets_follow_list_and_map_types() {
    let obj = json!({"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "a", "labels": {"l": "1"},
        "finalizers": ["f"]},
        "spec": {"replicas": 1, "atomicList": ["a"], "tags": ["x", "y"], "ports": [{"name": "http", "port": 80}],
            "labels": {"k": "v"}, "selector": {"a": "1"}, "free": {"deep": {"x": 1}, "list": [1]}, "size": "50%",
            "template": {"apiVersion": "v1", "metadata": {"labels": {"a": "b"}}, "spec": {"x": 1}}}});
    assert_eq!(
        fields(&obj),
        json!({"f:apiVersion": {}, "f:kind": {}, "f:metadata": {"f:finalizers": {"v:\"f\"": {}},
            "f:labels": {"f:l": {}}, "f:name": {}},
            "f:spec": {"f:atomicList": {}, "f:free": {"f:deep": {".": {}, "f:x": {}}, "f:list": {}},
                "f:labels": {"f:k": {}},
                "f:ports": {"k:{\"name\":\"http\"}": {".": {}, "f:name": {}, "f:port": {}}},
                "f:replicas": {}, "f:selector": {}, "f:size": {}, "f:tags": {"v:\"x\"": {}, "v:\"y\"": {}},
                "f:template": {"f:apiVersion": {}, "f:metadata": {"f:labels": {"f:a": {}}},
                    "f:spec": {".": {}, "f:x": {}}}}})
    );
}

#[test]
fn compare_reports_added_modified_and_removed_leaves() {
    let s = schema();
    let old = json!({"spec": {"replicas": 1, "ports": [{"name": "a", "port": 1}], "tags": ["x"]}});
    let new =
        json!({"spec": {"replicas": 2, "ports": [{"name": "b", "port": 2}], "tags": ["x"], "labels": {"k": "v"}}});
    let c = compare(&old, &new, Ty::root(Some(&s)));
    assert_eq!(c.modified.to_fields_v1(), json!({"f:spec": {"f:replicas": {}}}));
    assert_eq!(
        c.added.to_fields_v1(),
        json!({"f:spec": {"f:labels": {".": {}, "f:k": {}}, "f:ports": {"k:{\"name\":\"b\"}": {".": {}, "f:name": {}, "f:port": {}}}}})
    );
    assert_eq!(
        c.removed.to_fields_v1(),
        json!({"f:spec": {"f:ports": {"k:{\"name\":\"a\"}": {".": {}, "f:name": {}, "f:port": {}}}}})
    );
}

#[test]
fn merge_replaces_atomic_and_merges_granular() {
    let s = schema();
    let live = json!({"spec": {"atomicList": ["a", "b"], "tags": ["x"], "selector": {"a": "1", "b": "2"},
        "ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}], "labels": {"k": "v"}}});
    let config = json!({"spec": {"atomicList": ["c"], "tags": ["y"], "selector": {"a": "9"},
        "ports": [{"name": "b", "port": 3}, {"name": "c", "port": 4}], "labels": {"j": "w"}}});
    let merged = merge(&live, &config, Ty::root(Some(&s)));
    assert_eq!(
        merged,
        json!({"spec": {"atomicList": ["c"], "tags": ["x", "y"], "selector": {"a": "9"},
            "ports": [{"name": "a", "port": 1}, {"name": "b", "port": 3}, {"name": "c", "port": 4}],
            "labels": {"k": "v", "j": "w"}}})
    );
}

#[test]
fn remove_items_leaves_null_where_a_container_empties() {
    let s = schema();
    let obj = json!({"spec": {"replicas": 1, "tags": ["x", "y"]}});
    let mut set = Set::new();
    set.insert(&[PathElement::Field("spec".into()), PathElement::Field("replicas".into())]);
    set.insert(&[PathElement::Field("spec".into()), PathElement::Field("tags".into()), PathElement::Value(json!("x"))]);
    assert_eq!(remove_items(&obj, &set, Ty::root(Some(&s))), json!({"spec": {"tags": ["y"]}}));
    set.insert(&[PathElement::Field("spec".into()), PathElement::Field("tags".into()), PathElement::Value(json!("y"))]);
    assert_eq!(remove_items(&obj, &set, Ty::root(Some(&s))), json!({"spec": {"tags": null}}));
}

#[test]
fn comparing_unmanaged_is_comparing_without_managed_fields() {
    let s = schema();
    let ty = Ty::root(Some(&s));
    let managed =
        json!([{"manager": "m", "operation": "Update", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}}}]);
    let objects = [
        json!({"metadata": {"name": "a", "managedFields": managed}, "spec": {"replicas": 1}}),
        json!({"metadata": {"name": "a"}, "spec": {"replicas": 2}}),
        json!({"metadata": {"managedFields": managed}, "spec": {"replicas": 1}}),
        json!({"metadata": {}, "spec": {"replicas": 1}}),
        json!({"spec": {"replicas": 1, "template": {"metadata": {"managedFields": managed}}}}),
        json!({"metadata": {"name": "b", "managedFields": []}, "spec": {"free": {"managedFields": 1}}}),
    ];
    let clean = |v: &Value| {
        let mut v = v.clone();
        if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.remove("managedFields");
        }
        v
    };
    for old in &objects {
        for new in &objects {
            let (quick, full) = (compare_unmanaged(old, new, ty), compare(&clean(old), &clean(new), ty));
            assert_eq!(quick.added, full.added, "{old} -> {new}");
            assert_eq!(quick.modified, full.modified, "{old} -> {new}");
            assert_eq!(quick.removed, full.removed, "{old} -> {new}");
        }
    }
    let (old, new) = (&objects[0], &objects[1]);
    assert!(!compare(old, new, ty).removed.is_empty(), "a plain compare sees managedFields go");
}
