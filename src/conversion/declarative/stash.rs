//! The round-trip annotation: what a conversion step finds that the
//! target version cannot hold is kept on the object, under
//! `conversion.crdstore.io/<sourceVersion>`, and put back when the object
//! is converted to that version again. Its value is JSON:
//! `{"fields": {"<JSON Pointer>": <value>, ...}, "absent": ["<JSON Pointer>", ...]}`,
//! `absent` naming fields the source did not have that converting back
//! would otherwise fill in (a default).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::path::{push_token, remove_pointer, set_pointer, RESERVED};
use crate::schema::{Additional, Schema};

/// The annotations' common prefix.
pub const ANNOTATION_PREFIX: &str = "conversion.crdstore.io/";

/// The annotation that holds what converting from `version` set aside.
pub fn annotation(version: &str) -> String {
    format!("{ANNOTATION_PREFIX}{version}")
}

/// What one step set aside.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Stash {
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub fields: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub absent: Vec<String>,
}

impl Stash {
    fn is_empty(&self) -> bool {
        self.fields.is_empty() && self.absent.is_empty()
    }
}

/// Moves every field of `obj` that `schema` cannot hold (not declared,
/// and not under `x-kubernetes-preserve-unknown-fields`) into `kept`.
pub fn set_aside(obj: &mut Value, schema: &Schema, kept: &mut Stash) {
    let mut pointer = String::new();
    walk(obj, schema, true, &mut pointer, kept);
}

fn walk(value: &mut Value, schema: &Schema, resource: bool, pointer: &mut String, kept: &mut Stash) {
    let len = pointer.len();
    match value {
        Value::Object(map) => {
            let mut unknown = Vec::new();
            for (name, item) in map.iter_mut() {
                if resource && RESERVED.contains(&name.as_str()) {
                    continue;
                }
                match schema.entry(name) {
                    Some(sub) => {
                        push_token(pointer, name);
                        walk(item, sub, sub.embedded_resource, pointer, kept);
                        pointer.truncate(len);
                    }
                    None if schema.preserve_unknown_fields || matches!(schema.additional, Additional::Schema(_)) => {}
                    None => unknown.push(name.clone()),
                }
            }
            for name in unknown {
                let item = map.shift_remove(&name).expect("listed from the map");
                push_token(pointer, &name);
                kept.fields.insert(pointer.clone(), item);
                pointer.truncate(len);
            }
        }
        Value::Array(items) => {
            if let Some(sub) = schema.items.as_deref() {
                for (i, item) in items.iter_mut().enumerate() {
                    push_token(pointer, &i.to_string());
                    walk(item, sub, sub.embedded_resource, pointer, kept);
                    pointer.truncate(len);
                }
            }
        }
        _ => {}
    }
}

fn annotations(obj: &mut Value) -> Option<&mut Map<String, Value>> {
    obj.get_mut("metadata")?.get_mut("annotations")?.as_object_mut()
}

/// Removes the annotation `name`, and the maps it leaves empty.
fn remove_annotation(obj: &mut Value, name: &str) -> Option<Value> {
    let held = annotations(obj)?.shift_remove(name)?;
    if annotations(obj).is_some_and(|a| a.is_empty()) {
        let metadata = obj["metadata"].as_object_mut().expect("metadata holds annotations");
        metadata.shift_remove("annotations");
        if metadata.is_empty() {
            obj.as_object_mut().expect("objects are JSON objects").shift_remove("metadata");
        }
    }
    Some(held)
}

/// Puts back what converting from `version` set aside, removing its
/// annotation. An annotation that is not what this engine writes is an
/// error (it says what is wrong).
pub fn restore(obj: &mut Value, version: &str) -> Result<(), String> {
    let name = annotation(version);
    let Some(held) = remove_annotation(obj, &name) else { return Ok(()) };
    let stash: Stash = held
        .as_str()
        .ok_or_else(|| "must be a string".to_string())
        .and_then(|text| serde_json::from_str(text).map_err(|e| e.to_string()))
        .map_err(|e| format!("{name} is not a conversion record: {e}"))?;
    for (pointer, value) in stash.fields {
        set_pointer(obj, &pointer, value);
    }
    for pointer in &stash.absent {
        remove_pointer(obj, pointer);
    }
    Ok(())
}

/// Records what converting from `version` set aside, replacing any record
/// of an earlier conversion from it.
pub fn keep(obj: &mut Value, version: &str, kept: Stash) {
    let name = annotation(version);
    if kept.is_empty() {
        remove_annotation(obj, &name);
        return;
    }
    let text = serde_json::to_string(&kept).expect("JSON values serialize");
    let Some(root) = obj.as_object_mut() else { return };
    let metadata = root.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    if !metadata.is_object() {
        *metadata = Value::Object(Map::new());
    }
    let annotations = metadata.as_object_mut().expect("made an object").entry("annotations");
    let annotations = annotations.or_insert_with(|| Value::Object(Map::new()));
    if !annotations.is_object() {
        *annotations = Value::Object(Map::new());
    }
    annotations.as_object_mut().expect("made an object").insert(name, Value::String(text));
}
