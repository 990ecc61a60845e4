//! Correlating a new value with its old one on update, as Kubernetes'
//! `CorrelatedObject` does for ratcheting: items of `map` lists by their
//! keys, anything else by position or not at all.

use serde_json::Value;

use super::{field_of, Schema};

/// The old item a new item of a list corresponds to: only `map` lists
/// correlate (by their keys); items of other lists have no old value.
pub(super) fn correlated_item<'v>(schema: &Schema, item: &Value, old: Option<&'v Value>) -> Option<&'v Value> {
    if schema.list_type.as_deref() != Some("map") || schema.list_map_keys.is_empty() {
        return None;
    }
    let same_keys =
        |candidate: &&Value| schema.list_map_keys.iter().all(|k| field_of(candidate, k) == field_of(item, k));
    old?.as_array()?.iter().find(same_keys)
}

/// Whether `value` is unchanged from `old` as `CorrelatedObject.
/// CachedDeepEqual` sees it: a `map` list is unchanged when it has as many
/// items and each equals the old item with its keys, in any order (a
/// reordered list ratchets); every other value is compared as it is.
pub(super) fn unchanged(schema: &Schema, value: &Value, old: &Value) -> bool {
    if value == old {
        return true;
    }
    match (value, old) {
        (Value::Object(map), Value::Object(old_map)) => {
            map.len() == old_map.len()
                && map.iter().all(|(name, item)| match (old_map.get(name), schema.entry(name)) {
                    (Some(old_item), Some(item_schema)) => unchanged(item_schema, item, old_item),
                    (Some(old_item), None) => item == old_item,
                    (None, _) => false,
                })
        }
        (Value::Array(items), Value::Array(old_items)) if items.len() == old_items.len() => {
            let Some(item_schema) = schema.items.as_deref() else { return false };
            schema.list_type.as_deref() == Some("map")
                && !schema.list_map_keys.is_empty()
                && items.iter().all(|item| {
                    correlated_item(schema, item, Some(old)).is_some_and(|o| unchanged(item_schema, item, o))
                })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::schema::{validate_update, Root, Schema};

    /// The upstream suite's "Map Type List Reordering Grandfathers Invalid
    /// Key": a `map` list over its new maxItems, only reordered, ratchets;
    /// changed, or a reordered atomic list, does not.
    #[test]
    fn a_reordered_map_list_is_unchanged() {
        let list = |list_type: &str| {
            let mut field = json!({"type": "array", "maxItems": 2, "x-kubernetes-list-type": list_type,
                "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}});
            if list_type == "map" {
                field["x-kubernetes-list-map-keys"] = json!(["name"]);
            }
            Schema::compile(&json!({"type": "object", "properties": {"field": field}})).unwrap()
        };
        let old = json!({"field": [{"name": "a", "port": 1}, {"name": "b", "port": 2}, {"name": "c", "port": 3}]});
        let reordered =
            json!({"field": [{"name": "c", "port": 3}, {"name": "a", "port": 1}, {"name": "b", "port": 2}]});
        let changed = json!({"field": [{"name": "c", "port": 4}, {"name": "a", "port": 1}, {"name": "b", "port": 2}]});
        let errors = |schema: &Schema, new| validate_update(new, Some(&old), schema, "", Root::Object).errors;
        assert!(errors(&list("map"), &reordered).is_empty());
        let refused = errors(&list("map"), &changed);
        assert_eq!(refused.len(), 1, "{refused:?}");
        assert!(refused[0].to_string().contains("must have at most 2 items"), "{refused:?}");
        assert_eq!(errors(&list("atomic"), &reordered).len(), 1);
    }
}
