//! JSON values as CEL sees them, typed by their schema the way Kubernetes
//! types them: `number` is always a double, `integer` an int, strings with
//! format `date-time` are timestamps and with format `byte` bytes; at a
//! resource root only `apiVersion`, `kind` and `metadata.name` and
//! `.generateName` are visible besides the schema's own fields.

use std::collections::HashMap;
use std::sync::Arc;

use cel::objects::{Key, Map};
use serde_json::Value;

use crate::schema::{Additional, Schema};

/// `value` as a CEL value, typed by `schema` (None: below
/// `x-kubernetes-preserve-unknown-fields`, typed by the JSON alone).
pub fn to_cel(value: &Value, schema: Option<&Schema>) -> cel::Value {
    match value {
        Value::Null => cel::Value::Null,
        Value::Bool(b) => cel::Value::Bool(*b),
        Value::Number(n) => {
            let double = schema.and_then(|s| s.type_.as_deref()) == Some("number");
            match (n.as_i64(), double) {
                (Some(i), false) => cel::Value::Int(i),
                _ => cel::Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            }
        }
        Value::String(s) => string(s, schema.and_then(|s| s.format.as_deref())),
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.items.as_deref());
            cel::Value::List(Arc::new(items.iter().map(|item| to_cel(item, item_schema)).collect()))
        }
        Value::Object(map) => {
            let resource = schema.is_some_and(|s| s.embedded_resource);
            object(map, schema, resource)
        }
    }
}

/// The root of a resource: its schema's fields plus apiVersion, kind and
/// the name fields of metadata.
pub fn root_to_cel(value: &Value, schema: &Schema) -> cel::Value {
    match value {
        Value::Object(map) => object(map, Some(schema), true),
        other => to_cel(other, Some(schema)),
    }
}

fn object(map: &serde_json::Map<String, Value>, schema: Option<&Schema>, resource: bool) -> cel::Value {
    let mut out = HashMap::with_capacity(map.len());
    for (name, item) in map {
        let converted = match name.as_str() {
            "metadata" if resource => metadata(item),
            "apiVersion" | "kind" if resource => to_cel(item, None),
            _ => {
                let item_schema = match schema {
                    None => None,
                    Some(s) => match (s.property(name), &s.additional) {
                        (Some(p), _) => Some(p),
                        (None, Additional::Schema(a)) => Some(&**a),
                        (None, _) => None,
                    },
                };
                to_cel(item, item_schema)
            }
        };
        out.insert(Key::String(Arc::new(name.clone())), converted);
    }
    cel::Value::Map(Map { map: Arc::new(out) })
}

fn metadata(value: &Value) -> cel::Value {
    let mut out = HashMap::new();
    for field in ["name", "generateName"] {
        if let Some(Value::String(s)) = value.get(field) {
            out.insert(Key::String(Arc::new(field.to_string())), cel::Value::String(Arc::new(s.clone())));
        }
    }
    cel::Value::Map(Map { map: Arc::new(out) })
}

fn string(s: &str, format: Option<&str>) -> cel::Value {
    match format {
        Some("date-time") => match chrono::DateTime::parse_from_rfc3339(s) {
            Ok(t) => cel::Value::Timestamp(t),
            Err(_) => cel::Value::String(Arc::new(s.to_string())),
        },
        Some("byte") => {
            use base64::Engine as _;
            match base64::engine::general_purpose::STANDARD.decode(s) {
                Ok(bytes) => cel::Value::Bytes(Arc::new(bytes)),
                Err(_) => cel::Value::String(Arc::new(s.to_string())),
            }
        }
        _ => cel::Value::String(Arc::new(s.to_string())),
    }
}
