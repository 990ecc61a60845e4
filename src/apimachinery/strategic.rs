//! Strategic merge patch of the built-in kinds, as Kubernetes'
//! `strategicpatch` applies it with the patch strategies of a kind's Go
//! type: maps merge (null deletes); `metadata.finalizers` merges as a set
//! and `metadata.ownerReferences` by `uid` (ObjectMeta's tags, which every
//! kind has), plus the lists a kind's own type tags (`MergeList`); every
//! other list is replaced. The directives `$patch` (`replace`, `delete`,
//! `merge`), `$retainKeys`, `$deleteFromPrimitiveList/<field>` and
//! `$setElementOrder/<field>` are understood. Custom resources have no Go
//! type, so they have no strategic merge patch (`patch::apply` refuses it).

use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// A list with a patch strategy of merge: its dotted path in the object,
/// and the key its items merge by (`None`: a set of primitives), as a
/// type's `patchStrategy:"merge"` and `patchMergeKey` tags say.
pub type MergeList = (&'static str, Option<&'static str>);

/// ObjectMeta's merge lists, which every built-in kind has.
const OBJECT_META: &[MergeList] = &[("metadata.finalizers", None), ("metadata.ownerReferences", Some("uid"))];

/// `current` with the strategic merge patch `patch` applied, the kind's own
/// merge lists being `lists`.
pub fn apply(current: &Value, patch: &[u8], lists: &[MergeList]) -> Result<Value> {
    let doc: Value =
        serde_json::from_slice(patch).map_err(|e| Error::bad_request(format!("the patch is not valid JSON: {e}")))?;
    let Value::Object(doc) = doc else {
        return Err(Error::bad_request("a strategic merge patch must be a JSON object"));
    };
    let mut patched = current.clone();
    Merge { lists }.map(&mut patched, &doc, "")?;
    Ok(patched)
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// One strategic merge, with the kind's own merge lists.
struct Merge<'a> {
    lists: &'a [MergeList],
}

impl Merge<'_> {
    /// How a list at `path` merges: `Some(None)` as a set, `Some(Some(key))`
    /// by a key; `None` when it is replaced.
    fn list_strategy(&self, path: &str) -> Option<Option<&'static str>> {
        OBJECT_META.iter().chain(self.lists).find(|(at, _)| *at == path).map(|(_, key)| *key)
    }

    fn map(&self, target: &mut Value, patch: &Map<String, Value>, path: &str) -> Result<()> {
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
                    self.map(slot, inner, &at)?;
                    if slot.is_null() {
                        map.remove(key);
                    }
                }
                Value::Array(items) => match (self.list_strategy(&at), map.get_mut(key)) {
                    (Some(merge_key), Some(Value::Array(existing))) => self.list(existing, items, merge_key, &at),
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

    /// Merges `items` into the list at `path`, `existing`: primitives as a
    /// set, objects by `merge_key` (a `$patch: delete` item removes its
    /// match).
    fn list(&self, existing: &mut Vec<Value>, items: &[Value], merge_key: Option<&str>, path: &str) {
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
                                let _ = self.map(slot, patch, path);
                            }
                        }
                        (None, true) => {}
                        (None, false) => existing.push(item.clone()),
                    }
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
        let patched = apply(&current, patch, &[]).unwrap();
        assert_eq!(patched["metadata"]["labels"], json!({"x": "1", "z": "3"}));
        assert_eq!(patched["metadata"]["finalizers"], json!(["f1", "f2"]));
        assert_eq!(patched["spec"]["versions"], json!([{"name": "v3"}]));
        let removed =
            apply(&patched, br#"{"metadata": {"$deleteFromPrimitiveList/finalizers": ["f1"]}}"#, &[]).unwrap();
        assert_eq!(removed["metadata"]["finalizers"], json!(["f2"]));
        let replaced =
            apply(&patched, br#"{"metadata": {"labels": {"$patch": "replace", "only": "me"}}}"#, &[]).unwrap();
        assert_eq!(replaced["metadata"]["labels"], json!({"only": "me"}));
        assert_eq!(apply(&current, b"[1]", &[]).unwrap_err().message, "a strategic merge patch must be a JSON object");
    }

    #[test]
    fn a_kinds_own_lists_merge_by_their_key() {
        let current = json!({"status": {"conditions": [{"type": "A", "status": "True"}, {"type": "B", "status": "False"}]},
            "metadata": {"ownerReferences": [{"uid": "1", "name": "a"}]}});
        let patch = br#"{"status": {"conditions": [{"type": "B", "status": "True"}, {"type": "C", "status": "True"},
            {"type": "A", "$patch": "delete"}]}, "metadata": {"ownerReferences": [{"uid": "2", "name": "b"}]}}"#;
        let lists = [("status.conditions", Some("type"))];
        let patched = apply(&current, patch, &lists).unwrap();
        assert_eq!(
            patched["status"]["conditions"],
            json!([{"type": "B", "status": "True"}, {"type": "C", "status": "True"}])
        );
        assert_eq!(
            patched["metadata"]["ownerReferences"],
            json!([{"uid": "1", "name": "a"}, {"uid": "2", "name": "b"}])
        );
        // Without the kind's tag the list is replaced.
        let replaced = apply(&current, patch, &[]).unwrap();
        assert_eq!(replaced["status"]["conditions"].as_array().unwrap().len(), 3);
    }
}
