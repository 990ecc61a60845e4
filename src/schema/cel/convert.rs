//! JSON values as CEL sees them, typed by their schema the way Kubernetes
//! types them: `number` is always a double, `integer` an int, strings with
//! format `date-time` are timestamps and with format `byte` bytes; at a
//! resource root only `apiVersion`, `kind` and `metadata.name` and
//! `.generateName` are visible besides the schema's own fields.
//!
//! Values are built directly as the interpreter's `Val` tree, borrowing
//! strings from the JSON: converting is what evaluating rules costs most.

use std::collections::HashMap;

use cel::common::types::{
    CelBool, CelBytes, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelOptional, CelString, CelTimestamp,
};
use cel::common::value::Val;
use serde_json::Value;

use crate::schema::{Additional, Schema};

/// A converted value, borrowing from the JSON it was built from.
pub type Converted<'v> = Box<dyn Val + 'v>;

/// `value` typed by `schema` (None: below `x-kubernetes-preserve-unknown-fields`,
/// typed by the JSON alone).
pub fn to_cel<'v>(value: &'v Value, schema: Option<&Schema>) -> Converted<'v> {
    match value {
        Value::Null => Box::new(CelNull),
        Value::Bool(b) => Box::new(CelBool::from(*b)),
        Value::Number(n) => {
            let double = schema.and_then(|s| s.type_.as_deref()) == Some("number");
            match (n.as_i64(), double) {
                (Some(i), false) => Box::new(CelInt::from(i)),
                _ => Box::new(CelDouble::from(n.as_f64().unwrap_or(f64::NAN))),
            }
        }
        Value::String(s) => string(s, schema.and_then(|s| s.format.as_deref())),
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.items.as_deref());
            let items: Vec<Converted<'v>> = items.iter().map(|item| to_cel(item, item_schema)).collect();
            Box::new(CelList::from(items))
        }
        Value::Object(map) => {
            let resource = schema.is_some_and(|s| s.embedded_resource);
            object(map.iter(), schema, resource)
        }
    }
}

/// The value of a node with rules; a resource root (or embedded resource)
/// also shows apiVersion, kind and the name fields of metadata. With
/// `fields`, only those fields of an object are converted: the rules read
/// no others.
pub fn node_to_cel<'v>(value: &'v Value, schema: &Schema, resource: bool, fields: Option<&[&str]>) -> Converted<'v> {
    match (value, fields) {
        (Value::Object(map), Some(fields)) => {
            let picked = map.iter().filter(|(name, _)| fields.contains(&name.as_str()));
            object(picked, Some(schema), resource)
        }
        (Value::Object(map), None) => object(map.iter(), Some(schema), resource),
        (other, _) => to_cel(other, Some(schema)),
    }
}

/// `oldSelf` of a rule with `optionalOldSelf`.
pub fn optional(value: Option<Converted<'_>>) -> Converted<'_> {
    match value {
        Some(v) => Box::new(CelOptional::of(v)),
        None => Box::new(CelOptional::none()),
    }
}

fn object<'v>(
    entries: impl Iterator<Item = (&'v String, &'v Value)>,
    schema: Option<&Schema>,
    resource: bool,
) -> Converted<'v> {
    let mut out: HashMap<CelMapKey<'v>, Converted<'v>> = HashMap::new();
    for (name, item) in entries {
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
        out.insert(CelMapKey::from(name.as_str()), converted);
    }
    Box::new(CelMap::from(out))
}

fn metadata(value: &Value) -> Converted<'_> {
    let mut out: HashMap<CelMapKey<'_>, Converted<'_>> = HashMap::new();
    for field in ["name", "generateName"] {
        if let Some(Value::String(s)) = value.get(field) {
            out.insert(CelMapKey::from(field), Box::new(CelString::from(s.as_str())));
        }
    }
    Box::new(CelMap::from(out))
}

fn string<'v>(s: &'v str, format: Option<&str>) -> Converted<'v> {
    match format {
        Some("date-time") => match chrono::DateTime::parse_from_rfc3339(s) {
            Ok(t) => Box::new(CelTimestamp::from(t)),
            Err(_) => Box::new(CelString::from(s)),
        },
        Some("byte") => {
            use base64::Engine as _;
            match base64::engine::general_purpose::STANDARD.decode(s) {
                Ok(bytes) => Box::new(CelBytes::from(bytes)),
                Err(_) => Box::new(CelString::from(s)),
            }
        }
        _ => Box::new(CelString::from(s)),
    }
}
