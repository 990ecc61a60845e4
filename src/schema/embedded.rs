//! Embedded resources (`x-kubernetes-embedded-resource`): objects that are
//! resources themselves must name their apiVersion and kind, and their
//! metadata follows the rules of object metadata. Metadata whose fields are
//! not of `ObjectMeta`'s types (the root's or an embedded resource's) is a
//! body Kubernetes' decoder cannot handle at all (`mistyped_metadata`).

use serde_json::{Map, Value};

use super::Schema;
use crate::apimachinery::dns;
use crate::error::FieldError;

/// How Go's encoding/json names a JSON value's type in its errors.
fn json_kind(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(_) => "bool".into(),
        Value::Number(n) if n.is_i64() || n.is_u64() => "number".into(),
        Value::Number(n) => format!("number {n}"),
        Value::String(_) => "string".into(),
        Value::Array(_) => "array".into(),
        Value::Object(_) => "object".into(),
    }
}

/// Go's error unmarshalling `metadata` into `ObjectMeta`, when a field has
/// the wrong type: `json: cannot unmarshal number into Go struct field
/// ObjectMeta.labels of type string`. Null is every field's zero value.
pub fn object_meta_error(metadata: &Value) -> Option<String> {
    let fail = |found: &Value, field: &str, go_type: &str| {
        Some(format!(
            "json: cannot unmarshal {} into Go struct field ObjectMeta.{field} of type {go_type}",
            json_kind(found)
        ))
    };
    let Value::Object(meta) = metadata else {
        return match metadata {
            Value::Null => None,
            other => Some(format!("json: cannot unmarshal {} into Go value of type v1.ObjectMeta", json_kind(other))),
        };
    };
    for (field, value) in meta {
        match (field.as_str(), value) {
            (_, Value::Null) => {}
            // resourceVersion is left to the preconditions, which report it
            // as Invalid at its field.
            ("name" | "generateName" | "namespace" | "selfLink" | "uid", Value::String(_)) => {}
            ("name" | "generateName" | "namespace" | "selfLink" | "uid", other) => {
                return fail(other, field, "string");
            }
            ("creationTimestamp" | "deletionTimestamp", Value::String(_)) => {}
            ("creationTimestamp" | "deletionTimestamp", other) => return fail(other, field, "v1.Time"),
            ("generation" | "deletionGracePeriodSeconds", Value::Number(n)) if n.is_i64() => {}
            ("generation" | "deletionGracePeriodSeconds", other) => return fail(other, field, "int64"),
            ("labels" | "annotations", Value::Object(map)) => {
                if let Some((_, bad)) = map.iter().find(|(_, v)| !v.is_string() && !v.is_null()) {
                    return fail(bad, field, "string");
                }
            }
            ("labels" | "annotations", other) => return fail(other, field, "map[string]string"),
            ("finalizers", Value::Array(items)) => {
                if let Some(bad) = items.iter().find(|v| !v.is_string() && !v.is_null()) {
                    return fail(bad, field, "string");
                }
            }
            ("finalizers", other) => return fail(other, field, "[]string"),
            ("ownerReferences" | "managedFields", Value::Array(_)) => {}
            ("ownerReferences", other) => return fail(other, field, "[]v1.OwnerReference"),
            ("managedFields", other) => return fail(other, field, "[]v1.ManagedFieldsEntry"),
            _ => {}
        }
    }
    None
}

/// Object metadata Kubernetes' decoder cannot coerce into `ObjectMeta`
/// (`objectmeta.Coerce`): the root's is Go's error alone, an embedded
/// resource's an Invalid error at its `metadata`, both in words for a
/// BadRequest "cannot be handled" message.
pub fn mistyped_metadata(obj: &Value, schema: Option<&Schema>) -> Option<String> {
    if let Some(err) = obj.get("metadata").and_then(object_meta_error) {
        return Some(err);
    }
    let schema = schema?;
    let Value::Object(map) = obj else { return None };
    map.iter()
        .filter(|(name, _)| !matches!(name.as_str(), "metadata" | "apiVersion" | "kind"))
        .find_map(|(name, value)| nested(value, schema.entry(name)?, name))
}

/// The first embedded resource at or under `value` whose metadata is mistyped.
fn nested(value: &Value, schema: &Schema, path: &str) -> Option<String> {
    match value {
        Value::Object(map) => {
            if schema.embedded_resource {
                if let Some(metadata) = map.get("metadata") {
                    if let Some(err) = object_meta_error(metadata) {
                        return Some(
                            FieldError::invalid(format!("{path}.metadata"), metadata.clone(), err).to_string(),
                        );
                    }
                }
            }
            map.iter()
                .filter(|(name, _)| !schema.embedded_resource || name.as_str() != "metadata")
                .find_map(|(name, item)| nested(item, schema.entry(name)?, &format!("{path}.{name}")))
        }
        Value::Array(items) => {
            let item_schema = schema.items.as_deref()?;
            items.iter().enumerate().find_map(|(i, item)| nested(item, item_schema, &format!("{path}[{i}]")))
        }
        _ => None,
    }
}

/// Every way the embedded resource `map` at `path` is not one.
pub fn validate(map: &Map<String, Value>, path: &str) -> Vec<FieldError> {
    let at = |field: &str| if path.is_empty() { field.to_string() } else { format!("{path}.{field}") };
    let mut errs = Vec::new();
    // As Kubernetes' `validateEmbeddedResource`.
    for field in ["apiVersion", "kind"] {
        match map.get(field) {
            None => errs.push(FieldError::required(at(field), "")),
            Some(Value::String(s)) if s.is_empty() => {
                errs.push(FieldError::invalid(at(field), "", "must not be empty"))
            }
            Some(Value::String(s)) if field == "apiVersion" && s.matches('/').count() > 1 => {
                errs.push(FieldError::invalid(at(field), s.as_str(), format!("unexpected GroupVersion string: {s}")))
            }
            Some(Value::String(s)) if field == "kind" => {
                let problems = dns::dns1035_label(&s.to_lowercase());
                if !problems.is_empty() {
                    let detail = format!("may have mixed case, but should otherwise match: {}", problems.join(","));
                    errs.push(FieldError::invalid(at(field), s.as_str(), detail));
                }
            }
            Some(Value::String(_)) => {}
            Some(other) => errs.push(FieldError::invalid(at(field), other.clone(), "must be a string")),
        }
    }
    match map.get("metadata") {
        None | Some(Value::Null) => {}
        Some(Value::Object(meta)) => {
            for (field, check) in
                [("name", dns::dns1123_subdomain as fn(&str) -> Vec<String>), ("namespace", dns::dns1123_label)]
            {
                match meta.get(field) {
                    Some(Value::String(s)) if !s.is_empty() => {
                        for why in check(s) {
                            errs.push(FieldError::invalid(at(&format!("metadata.{field}")), s.as_str(), why));
                        }
                    }
                    None | Some(Value::String(_)) => {}
                    Some(other) => errs.push(FieldError::type_invalid(
                        at(&format!("metadata.{field}")),
                        other.clone(),
                        "must be of type string",
                    )),
                }
            }
        }
        Some(other) => errs.push(FieldError::type_invalid(at("metadata"), other.clone(), "must be of type object")),
    }
    errs
}
