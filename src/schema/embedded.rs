//! Embedded resources (`x-kubernetes-embedded-resource`): objects that are
//! resources themselves must name their apiVersion and kind, and their
//! metadata follows the rules of object metadata.

use serde_json::{Map, Value};

use crate::apimachinery::dns;
use crate::error::FieldError;

/// Every way the embedded resource `map` at `path` is not one.
pub fn validate(map: &Map<String, Value>, path: &str) -> Vec<FieldError> {
    let at = |field: &str| if path.is_empty() { field.to_string() } else { format!("{path}.{field}") };
    let mut errs = Vec::new();
    for field in ["apiVersion", "kind"] {
        match map.get(field) {
            Some(Value::String(s)) if !s.is_empty() => {}
            Some(Value::String(_)) | None | Some(Value::Null) => {
                errs.push(FieldError::required(at(field), "must not be empty"));
            }
            Some(other) => errs.push(FieldError::type_invalid(at(field), other.clone(), "must be of type string")),
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
