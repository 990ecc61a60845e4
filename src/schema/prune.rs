//! Pruning, as Kubernetes' pruning algorithm: fields a schema does not know
//! are dropped, except below `x-kubernetes-preserve-unknown-fields`;
//! `apiVersion`, `kind` and `metadata` of the root and of embedded resources
//! are kept, and unknown fields inside `metadata` are always dropped.

use serde_json::{Map, Value};

use super::Schema;
use crate::apimachinery::Path;

/// The fields of `ObjectMeta`: anything else under `metadata` is dropped.
const OBJECT_META: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];

/// Drops from the object `value` every field `schema` does not know; returns
/// the paths of what was dropped, in document order.
pub fn prune(value: &mut Value, schema: &Schema) -> Vec<String> {
    walk(value, schema).dropped
}

/// `prune`, saying only whether it changed `value` (a field dropped, or a
/// null field of `metadata` left out).
pub fn prune_changed(value: &mut Value, schema: &Schema) -> bool {
    let walk = walk(value, schema);
    walk.nulls || !walk.dropped.is_empty()
}

/// Prunes the object `value`: what that did.
fn walk(value: &mut Value, schema: &Schema) -> Walk {
    let mut walk = Walk::default();
    prune_object_like(value, schema, &Path::Base(""), true, &mut walk);
    walk
}

/// What a prune did so far.
#[derive(Default)]
struct Walk {
    /// The paths of the fields dropped, in document order.
    dropped: Vec<String>,
    /// Whether a null field of `metadata` was left out (silently).
    nulls: bool,
}

fn prune_metadata(map: &mut Map<String, Value>, path: &Path<'_>, walk: &mut Walk) {
    if let Some(Value::Object(meta)) = map.get_mut("metadata") {
        let at = path.field("metadata");
        meta.retain(|key, value| {
            // A null field of ObjectMeta is its zero value, which Kubernetes
            // leaves out (`"labels": null` is no labels).
            if value.is_null() {
                walk.nulls = true;
                return false;
            }
            let known = OBJECT_META.contains(&key.as_str());
            if !known {
                walk.dropped.push(at.field(key).to_string());
            }
            known
        });
    }
}

/// Prunes an object; `resource` marks the root or an embedded resource.
fn prune_object_like(value: &mut Value, schema: &Schema, path: &Path<'_>, resource: bool, walk: &mut Walk) {
    match value {
        Value::Object(map) => {
            if resource {
                prune_metadata(map, path, walk);
            }
            map.retain(|key, item| {
                if resource && matches!(key.as_str(), "apiVersion" | "kind" | "metadata") {
                    return true;
                }
                match schema.entry(key) {
                    Some(item_schema) => {
                        prune_value(item, item_schema, &path.field(key), walk);
                        true
                    }
                    None if schema.preserve_unknown_fields => true,
                    None => {
                        walk.dropped.push(path.field(key).to_string());
                        false
                    }
                }
            });
        }
        Value::Array(items) => {
            if let Some(item_schema) = &schema.items {
                for (i, item) in items.iter_mut().enumerate() {
                    prune_value(item, item_schema, &path.index(i), walk);
                }
            }
        }
        _ => {}
    }
}

fn prune_value(value: &mut Value, schema: &Schema, path: &Path<'_>, walk: &mut Walk) {
    prune_object_like(value, schema, path, schema.embedded_resource, walk);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_fields_go_except_where_preserved() {
        let schema = Schema::compile(&json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "known": {"type": "string"},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                "list": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "integer"}}}},
                "map": {"type": "object", "additionalProperties": {"type": "object", "properties": {"b": {"type": "integer"}}}},
                "embedded": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": {"spec": {"type": "object"}}}}}}}))
        .unwrap();
        let mut obj = json!({
            "apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "a", "bogus": 1, "labels": null, "annotations": {"a": "b"}},
            "spec": {"known": "k", "x": 1, "free": {"anything": {"goes": true}},
                     "list": [{"a": 1, "z": 2}], "map": {"k": {"b": 1, "c": 2}},
                     "embedded": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "junk": 1}, "spec": {}, "extra": 1}},
            "status": {"gone": true}
        });
        let dropped = prune(&mut obj, &schema);
        assert_eq!(
            dropped,
            [
                "metadata.bogus",
                "spec.x",
                "spec.list[0].z",
                "spec.map.k.c",
                "spec.embedded.metadata.junk",
                "spec.embedded.extra",
                "status",
            ]
        );
        assert_eq!(obj["spec"]["free"]["anything"]["goes"], true);
        assert_eq!(obj["spec"]["embedded"]["kind"], "Pod");
        assert_eq!(obj["apiVersion"], "example.com/v1");
        // Null metadata fields are their zero values: left out, silently.
        assert_eq!(obj["metadata"], json!({"name": "a", "annotations": {"a": "b"}}));
    }

    #[test]
    fn pruning_says_whether_it_changed_the_object_silent_drops_included() {
        let schema = Schema::compile(&json!({"type": "object", "properties": {"spec": {"type": "object"}}})).unwrap();
        let mut clean = json!({"apiVersion": "v1", "kind": "K", "metadata": {"name": "a"}, "spec": {}});
        assert!(!prune_changed(&mut clean, &schema));
        let mut unknown = json!({"metadata": {"name": "a"}, "spec": {}, "extra": 1});
        assert!(prune_changed(&mut unknown, &schema));
        let mut null_labels = json!({"metadata": {"name": "a", "labels": null}});
        assert!(prune_changed(&mut null_labels, &schema), "a null metadata field goes without a path");
        assert!(prune(&mut json!({"metadata": {"labels": null}}), &schema).is_empty());
    }
}
