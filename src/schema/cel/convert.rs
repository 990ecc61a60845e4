//! JSON values as CEL sees them, typed by their schema the way Kubernetes
//! types them: `number` is always a double, `integer` an int, strings with
//! format `date-time` are timestamps and with format `byte` bytes; at a
//! resource root only `apiVersion`, `kind` and `metadata.name` and
//! `.generateName` are visible besides the schema's own fields.
//!
//! Values are built directly as the interpreter's `Val` tree, borrowing
//! strings from the JSON, and only as far as the rules read them (see
//! `need.rs`): converting is what evaluating rules costs most.

use std::borrow::Cow;
use std::collections::HashMap;

use cel::common::types::{
    CelBool, CelBytes, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelOptional, CelString, CelTimestamp,
};
use cel::common::value::Val;
use serde_json::Value;

use super::check::is_plain;
use super::escape;
use super::need::{Need, NOTHING};
use super::view::{ArrayView, ObjectView};

use crate::schema::{Schema, Type};

/// A converted value, borrowing from the JSON it was built from.
pub type Converted<'v> = Box<dyn Val + 'v>;

/// `value` typed by `schema` (None: below `x-kubernetes-preserve-unknown-fields`,
/// typed by the JSON alone).
pub fn to_cel<'v>(value: &'v Value, schema: Option<&'v Schema>) -> Converted<'v> {
    match value {
        Value::Null => Box::new(CelNull),
        Value::Bool(b) => Box::new(CelBool::from(*b)),
        Value::Number(n) => {
            let double = schema.and_then(|s| s.type_) == Some(Type::Number);
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

/// The value of a node with rules, converted as far as they read it; a
/// resource root (or embedded resource) also shows apiVersion, kind and the
/// name fields of metadata.
pub fn node_to_cel<'v>(value: &'v Value, schema: &'v Schema, resource: bool, need: &'v Need) -> Converted<'v> {
    match (value, need) {
        (Value::Object(map), Need::Part { .. }) => Box::new(ObjectView::new(map, schema, need, resource)),
        (Value::Object(map), Need::Whole) => object(map.iter(), Some(schema), resource),
        (other, _) => needed(other, Some(schema), need),
    }
}

/// `value` converted as far as `need` says: what is read only in part is a
/// view, converted as it is read.
pub(super) fn needed<'v>(value: &'v Value, schema: Option<&'v Schema>, need: &'v Need) -> Converted<'v> {
    let (Some(schema), Need::Part { entries, .. }) = (schema, need) else { return to_cel(value, schema) };
    match value {
        Value::Array(items) => Box::new(ArrayView::new(items, schema, entries.as_deref().unwrap_or(&NOTHING))),
        Value::Object(map) => Box::new(ObjectView::new(map, schema, need, schema.embedded_resource)),
        scalar => to_cel(scalar, Some(schema)),
    }
}

/// The field `name` of an object typed by `schema`, as CEL sees it.
pub(super) fn object_entry<'v>(
    name: &str,
    item: &'v Value,
    schema: Option<&'v Schema>,
    resource: bool,
    need: &'v Need,
) -> Converted<'v> {
    match name {
        "metadata" if resource => metadata(item),
        "apiVersion" | "kind" if resource => to_cel(item, None),
        _ => needed(item, schema.and_then(|s| s.entry(name)), need),
    }
}

/// The key an object's entry `name` has in CEL: a property goes by its CEL
/// name (`my__dash__field`), a map entry by its key.
pub(super) fn cel_name<'v>(schema: Option<&Schema>, name: &'v String) -> Cow<'v, str> {
    match schema.filter(|s| !is_plain(name) && s.properties.contains_key(name)).and_then(|_| escape(name)) {
        Some(escaped) => Cow::Owned(escaped),
        None => Cow::Borrowed(name),
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
    schema: Option<&'v Schema>,
    resource: bool,
) -> Converted<'v> {
    let out: HashMap<CelMapKey<'v>, Converted<'v>> = entries
        .map(|(name, item)| {
            (
                CelMapKey::String(CelString::from(cel_name(schema, name))),
                object_entry(name, item, schema, resource, &Need::Whole),
            )
        })
        .collect();
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
