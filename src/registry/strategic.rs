//! Strategic merge patch of definitions, a built-in kind, as Kubernetes'
//! `strategicpatch` applies it with `CustomResourceDefinition`'s patch
//! strategies: maps merge (null deletes), `metadata.finalizers` merges as a
//! set and `metadata.ownerReferences` by `uid`, every other list is
//! replaced (the definition types declare no other strategy). The
//! directives `$patch` (`replace`, `delete`, `merge`), `$retainKeys`,
//! `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>` are
//! understood.

use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// `current` with the strategic merge patch `patch` applied.
pub fn apply(current: &Value, patch: &[u8]) -> Result<Value> {
    let doc: Value =
        serde_json::from_slice(patch).map_err(|e| Error::bad_request(format!("the patch is not valid JSON: {e}")))?;
    let Value::Object(doc) = doc else {
        return Err(Error::bad_request("a strategic merge patch must be a JSON object"));
    };
    let mut patched = current.clone();
    merge_map(&mut patched, &doc, "")?;
    Ok(patched)
}

/// How a list at `path` merges: by set membership, by a key, or replaced.
fn list_strategy(path: &str) -> Option<Option<&'static str>> {
    match path {
        "metadata.finalizers" => Some(None),
        "metadata.ownerReferences" => Some(Some("uid")),
        _ => None,
    }
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn merge_map(target: &mut Value, patch: &Map<String, Value>, path: &str) -> Result<()> {
    match patch.get("$patch").and_then(Value::as_str) {
        Some("replace") => {
            let mut replaced = patch.clone();
            replaced.remove("$patch");
            *target = Value::Object(replaced);
            return Ok(());
        }
        Some("delete") => {
            *target = Value::Null;
            return Ok(());
        }
        Some("merge") | None => {}
        Some(other) => return Err(Error::bad_request(format!("Unknown patch type: {other} in map: {path}"))),
    }
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let map = target.as_object_mut().expect("made an object");
    for (key, value) in patch {
        if key == "$patch" || key == "$retainKeys" || key.starts_with("$setElementOrder/") {
            continue;
        }
        if let Some(field) = key.strip_prefix("$deleteFromPrimitiveList/") {
            if let (Some(Value::Array(items)), Value::Array(gone)) = (map.get_mut(field), value) {
                items.retain(|item| !gone.contains(item));
            }
            continue;
        }
        let at = child(path, key);
        match value {
            Value::Null => {
                map.remove(key);
            }
            Value::Object(inner) => {
                let slot = map.entry(key.clone()).or_insert(Value::Null);
                merge_map(slot, inner, &at)?;
                if slot.is_null() {
                    map.remove(key);
                }
            }
            Value::Array(items) => match (list_strategy(&at), map.get_mut(key)) {
                (Some(merge_key), Some(Value::Array(existing))) => merge_list(existing, items, merge_key),
                _ => {
                    map.insert(key.clone(), value.clone());
                }
            },
            other => {
                map.insert(key.clone(), other.clone());
            }
        }
    }
    if let Some(Value::Array(keep)) = patch.get("$retainKeys") {
        map.retain(|key, _| keep.iter().any(|k| k == key.as_str()));
    }
    Ok(())
}

/// Merges `items` into `existing`: primitives as a set, objects by
/// `merge_key` (a `$patch: delete` item removes its match).
fn merge_list(existing: &mut Vec<Value>, items: &[Value], merge_key: Option<&str>) {
    for item in items {
        match merge_key {
            None => {
                if !existing.contains(item) {
                    existing.push(item.clone());
                }
            }
            Some(key) => {
                let id = item.get(key);
                let found = existing.iter().position(|e| id.is_some() && e.get(key) == id);
                let delete = item.get("$patch").and_then(Value::as_str) == Some("delete");
                match (found, delete) {
                    (Some(i), true) => {
                        existing.remove(i);
                    }
                    (Some(i), false) => {
                        if let (Value::Object(patch), slot) = (item, &mut existing[i]) {
                            let _ = merge_map(slot, patch, "");
                        }
                    }
                    (None, true) => {}
                    (None, false) => existing.push(item.clone()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn maps_merge_finalizers_union_and_other_lists_replace() {
        let current = json!({"metadata": {"name": "a", "labels": {"x": "1", "y": "2"}, "finalizers": ["f1"]},
            "spec": {"versions": [{"name": "v1"}, {"name": "v2"}]}});
        let patch = br#"{"metadata": {"labels": {"y": null, "z": "3"}, "finalizers": ["f2"]}, "spec": {"versions": [{"name": "v3"}]}}"#;
        let patched = apply(&current, patch).unwrap();
        assert_eq!(patched["metadata"]["labels"], json!({"x": "1", "z": "3"}));
        assert_eq!(patched["metadata"]["finalizers"], json!(["f1", "f2"]));
        assert_eq!(patched["spec"]["versions"], json!([{"name": "v3"}]));
        let removed = apply(&patched, br#"{"metadata": {"$deleteFromPrimitiveList/finalizers": ["f1"]}}"#).unwrap();
        assert_eq!(removed["metadata"]["finalizers"], json!(["f2"]));
        let replaced = apply(&patched, br#"{"metadata": {"labels": {"$patch": "replace", "only": "me"}}}"#).unwrap();
        assert_eq!(replaced["metadata"]["labels"], json!({"only": "me"}));
        assert_eq!(apply(&current, b"[1]").unwrap_err().message, "a strategic merge patch must be a JSON object");
    }
}
