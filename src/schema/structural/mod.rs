//! Structural schemas: the subset of OpenAPI v3 Kubernetes accepts for
//! definitions, checked when a definition is written, every violation at
//! its path (`...openAPIV3Schema.properties[spec].type`). Defaults are
//! checked too: valid against their own schema, already pruned, and never
//! under `metadata`, `apiVersion` or `kind`. As Kubernetes'
//! `ValidateStructural`, the errors are sorted by their text, and defaults
//! are only checked once the schema is structural.

use serde_json::{Map, Value};

use super::{prune, validate, Schema, Type};
use crate::error::FieldError;

const FORBIDDEN: &[&str] = &["$ref", "definitions", "dependencies", "patternProperties", "additionalItems"];
const JUNCTORS: &[&str] = &["allOf", "anyOf", "oneOf"];

/// Where a node sits, for the rules that depend on it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Root,
    Property,
    Items,
    /// Inside allOf, anyOf, oneOf or not.
    Junctor,
}

/// Every way the schema `json` at `path` is not structural, sorted by
/// text; when it is structural, what is wrong with its defaults.
pub fn check(json: &Value, path: &str) -> Vec<FieldError> {
    let (mut errs, mut defaults) = (Vec::new(), Vec::new());
    node(json, path, Place::Root, &mut errs, &mut defaults);
    if let Some(props) = json.get("properties").and_then(Value::as_object) {
        root_properties(props, path, &mut errs);
    }
    errs.sort_by_cached_key(ToString::to_string);
    if errs.is_empty() {
        return defaults;
    }
    errs
}

/// `anyOf: [{type: integer}, {type: string}]`, exactly: the int-or-string
/// pattern Kubernetes skips checking in junctors.
fn int_or_string_any_of(node: &Value) -> bool {
    node.get("anyOf") == Some(&serde_json::json!([{"type": "integer"}, {"type": "string"}]))
}

/// What a schema inside allOf, anyOf, oneOf or not may not say, in
/// Kubernetes' words (`validateNestedValueValidation`).
fn junctor_rules(node: &Map<String, Value>, path: &str, errs: &mut Vec<FieldError>) {
    let forbid = |errs: &mut Vec<FieldError>, key: &str, detail: &str| {
        errs.push(FieldError::forbidden(format!("{path}.{key}"), detail));
    };
    let non_empty = |key: &str| match node.get(key) {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(_) => true,
    };
    if non_empty("type") {
        forbid(errs, "type", "must be empty to be structural");
    }
    if node.contains_key("additionalProperties") {
        forbid(errs, "additionalProperties", "must be undefined to be structural");
    }
    if node.contains_key("default") {
        forbid(errs, "default", "must be undefined to be structural");
    }
    for key in ["title", "description"] {
        if non_empty(key) {
            forbid(errs, key, "must be empty to be structural");
        }
    }
    for key in [
        "nullable",
        "x-kubernetes-preserve-unknown-fields",
        "x-kubernetes-embedded-resource",
        "x-kubernetes-int-or-string",
    ] {
        if flag(node, key) {
            forbid(errs, key, "must be false to be structural");
        }
    }
    for key in ["x-kubernetes-list-map-keys", "x-kubernetes-validations"] {
        if non_empty(key) {
            forbid(errs, key, "must be empty to be structural");
        }
    }
    for key in ["x-kubernetes-list-type", "x-kubernetes-map-type"] {
        if node.contains_key(key) {
            forbid(errs, key, "must be undefined to be structural");
        }
    }
    if node.get("properties").and_then(Value::as_object).is_some_and(|p| p.contains_key("metadata")) {
        forbid(errs, "properties[metadata]", "must not be specified in a nested context");
    }
}

fn flag(node: &Map<String, Value>, key: &str) -> bool {
    node.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// Checks the schema node `json` at `path` (where `place` says it sits)
/// and, through `children`, every node under it; defaults are checked
/// into `defaults`, once the schema is structural.
fn node(json: &Value, path: &str, place: Place, errs: &mut Vec<FieldError>, defaults: &mut Vec<FieldError>) {
    let Some(node) = json.as_object() else {
        errs.push(FieldError::type_invalid(path, json.clone(), "must be a schema object"));
        return;
    };
    for key in FORBIDDEN {
        if node.contains_key(*key) {
            errs.push(FieldError::forbidden(format!("{path}.{key}"), format!("{key} is not supported")));
        }
    }
    if flag(node, "uniqueItems") {
        errs.push(FieldError::forbidden(
            format!("{path}.uniqueItems"),
            "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
        ));
    }
    let type_ = node.get("type").and_then(Value::as_str).unwrap_or("");
    type_rules(node, path, place, type_, errs);
    flag_rules(node, path, place, type_, errs);
    if node.contains_key("properties") && node.get("additionalProperties").is_some_and(|a| a != &Value::Bool(true)) {
        errs.push(FieldError::forbidden(
            format!("{path}.additionalProperties"),
            "additionalProperties and properties are mutual exclusive",
        ));
    }
    if place != Place::Junctor {
        extensions(node, path, type_, errs);
    }
    children(json, path, place, type_, errs, defaults);
    if place != Place::Junctor {
        junctor_coverage(node, path, errs);
        if let Some(default) = node.get("default") {
            check_default(json, default, path, defaults);
        }
    }
}

/// The node's `type`: required unless int-or-string or preserved (or in a
/// junctor, which has its own rules), one Kubernetes knows, and at the
/// root an object, neither nullable nor with additionalProperties.
fn type_rules(node: &Map<String, Value>, path: &str, place: Place, type_: &str, errs: &mut Vec<FieldError>) {
    let int_or_string = flag(node, "x-kubernetes-int-or-string");
    let preserve = flag(node, "x-kubernetes-preserve-unknown-fields");
    let embedded = flag(node, "x-kubernetes-embedded-resource");
    if place == Place::Junctor {
        junctor_rules(node, path, errs);
    } else if embedded && type_ != "object" {
        // Reported below; Kubernetes reports no empty type beside it.
    } else if type_.is_empty() {
        if !int_or_string && !preserve {
            let detail = match place {
                Place::Root => "must not be empty at the root",
                Place::Items => "must not be empty for specified array items",
                _ => "must not be empty for specified object fields",
            };
            errs.push(FieldError::required(format!("{path}.type"), detail));
        }
    } else if Type::named(type_).is_none() {
        errs.push(FieldError::not_supported(format!("{path}.type"), type_, Type::NAMES));
    }
    if place == Place::Root && !type_.is_empty() && type_ != "object" {
        errs.push(FieldError::invalid(format!("{path}.type"), type_, "must be object at the root"));
    }
    if place == Place::Root && node.contains_key("additionalProperties") {
        errs.push(FieldError::forbidden(format!("{path}.additionalProperties"), "must not be used at the root"));
    }
    if place == Place::Root && flag(node, "nullable") {
        errs.push(FieldError::forbidden(format!("{path}.nullable"), "must be false at the root"));
    }
}

/// The `x-kubernetes-int-or-string`, `-preserve-unknown-fields` and
/// `-embedded-resource` flags: each alone, and what each asks of the type
/// and properties.
fn flag_rules(node: &Map<String, Value>, path: &str, place: Place, type_: &str, errs: &mut Vec<FieldError>) {
    let int_or_string = flag(node, "x-kubernetes-int-or-string");
    let preserve = flag(node, "x-kubernetes-preserve-unknown-fields");
    let embedded = flag(node, "x-kubernetes-embedded-resource");
    if int_or_string {
        for key in ["x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource"] {
            if flag(node, key) {
                errs.push(FieldError::invalid(
                    format!("{path}.{key}"),
                    true,
                    "must be false if x-kubernetes-int-or-string is true",
                ));
            }
        }
    }
    if int_or_string && !type_.is_empty() {
        errs.push(FieldError::invalid(
            format!("{path}.type"),
            type_,
            "must be empty if x-kubernetes-int-or-string is true",
        ));
    }
    if node.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(false)) {
        errs.push(FieldError::invalid(
            format!("{path}.x-kubernetes-preserve-unknown-fields"),
            false,
            "must be true or undefined",
        ));
    }
    if embedded && place != Place::Junctor && type_.is_empty() {
        errs.push(FieldError::required(
            format!("{path}.type"),
            "must be object if x-kubernetes-embedded-resource is true",
        ));
    } else if embedded && place != Place::Junctor && type_ != "object" {
        errs.push(FieldError::invalid(
            format!("{path}.type"),
            type_,
            "must be object if x-kubernetes-embedded-resource is true",
        ));
    }
    if embedded
        && place != Place::Junctor
        && !preserve
        && node.get("properties").and_then(Value::as_object).is_none_or(Map::is_empty)
    {
        errs.push(FieldError::required(
            format!("{path}.properties"),
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
        ));
    }
}

fn extensions(node: &Map<String, Value>, path: &str, type_: &str, errs: &mut Vec<FieldError>) {
    if let Some(list_type) = node.get("x-kubernetes-list-type").and_then(Value::as_str) {
        let field = format!("{path}.x-kubernetes-list-type");
        if !["atomic", "set", "map"].contains(&list_type) {
            errs.push(FieldError::not_supported(field, list_type, &["atomic", "set", "map"]));
        } else if type_ != "array" {
            errs.push(FieldError::invalid(field, list_type, "must only be used if type is array"));
        } else if list_type == "map" {
            let keys: Vec<&str> = node
                .get("x-kubernetes-list-map-keys")
                .and_then(Value::as_array)
                .map(|k| k.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if keys.is_empty() {
                errs.push(FieldError::required(
                    format!("{path}.x-kubernetes-list-map-keys"),
                    "must not be empty if x-kubernetes-list-type is map",
                ));
            }
            let item_props = node.get("items").and_then(|i| i.get("properties")).and_then(Value::as_object);
            for key in keys {
                let scalar = item_props.and_then(|p| p.get(key)).and_then(|k| k.get("type")).and_then(Value::as_str);
                if !matches!(scalar, Some("string" | "integer" | "number" | "boolean")) {
                    errs.push(FieldError::invalid(
                        format!("{path}.x-kubernetes-list-map-keys"),
                        key,
                        "entries must all be names of item properties of scalar type",
                    ));
                }
            }
        }
    }
    if node.contains_key("x-kubernetes-list-map-keys")
        && node.get("x-kubernetes-list-type").and_then(Value::as_str) != Some("map")
    {
        errs.push(FieldError::forbidden(
            format!("{path}.x-kubernetes-list-map-keys"),
            "must only be used if x-kubernetes-list-type is map",
        ));
    }
    if let Some(map_type) = node.get("x-kubernetes-map-type").and_then(Value::as_str) {
        let field = format!("{path}.x-kubernetes-map-type");
        if !["atomic", "granular"].contains(&map_type) {
            errs.push(FieldError::not_supported(field, map_type, &["atomic", "granular"]));
        } else if type_ != "object" {
            errs.push(FieldError::invalid(field, map_type, "must only be used if type is object"));
        }
    }
}

fn children(
    json: &Value,
    path: &str,
    place: Place,
    type_: &str,
    errs: &mut Vec<FieldError>,
    defaults: &mut Vec<FieldError>,
) {
    let Some(node) = json.as_object() else { return };
    let inner = |p: Place| if place == Place::Junctor { Place::Junctor } else { p };
    if let Some(props) = node.get("properties").and_then(Value::as_object) {
        for (name, prop) in props {
            self::node(prop, &format!("{path}.properties[{name}]"), inner(Place::Property), errs, defaults);
        }
    }
    match node.get("items") {
        Some(items @ Value::Object(_)) => {
            self::node(items, &format!("{path}.items"), inner(Place::Items), errs, defaults)
        }
        Some(Value::Array(_)) => {
            errs.push(FieldError::forbidden(format!("{path}.items"), "items must be a schema object and not an array"))
        }
        Some(_) => errs.push(FieldError::invalid_without_value(format!("{path}.items"), "must be a schema object")),
        None if type_ == "array" && place != Place::Junctor => {
            errs.push(FieldError::required(format!("{path}.items"), "must be specified"));
        }
        None => {}
    }
    // Inside a junctor additionalProperties is refused, not walked.
    if let Some(additional @ Value::Object(_)) = node.get("additionalProperties").filter(|_| place != Place::Junctor) {
        self::node(additional, &format!("{path}.additionalProperties"), inner(Place::Property), errs, defaults);
    }
    // Kubernetes skips the int-or-string pattern in anyOf (and in the
    // first allOf's anyOf).
    let skip_any_of = int_or_string_any_of(json);
    let skip_first_all_of_any_of =
        node.get("allOf").and_then(Value::as_array).and_then(|a| a.first()).is_some_and(int_or_string_any_of);
    for junctor in JUNCTORS {
        if *junctor == "anyOf" && skip_any_of {
            continue;
        }
        for (i, sub) in node.get(*junctor).and_then(Value::as_array).into_iter().flatten().enumerate() {
            let sub_path = format!("{path}.{junctor}[{i}]");
            if *junctor == "allOf" && i == 0 && skip_first_all_of_any_of {
                let mut without = sub.clone();
                if let Some(o) = without.as_object_mut() {
                    o.remove("anyOf");
                }
                self::node(&without, &sub_path, Place::Junctor, errs, defaults);
                continue;
            }
            self::node(sub, &sub_path, Place::Junctor, errs, defaults);
        }
    }
    if let Some(not) = node.get("not") {
        self::node(not, &format!("{path}.not"), Place::Junctor, errs, defaults);
    }
}

/// Every property a junctor names must exist outside of it too.
fn junctor_coverage(node: &Map<String, Value>, path: &str, errs: &mut Vec<FieldError>) {
    let outside = node.get("properties").and_then(Value::as_object);
    let mut subs: Vec<(String, &Value)> = Vec::new();
    for junctor in JUNCTORS {
        for (i, sub) in node.get(*junctor).and_then(Value::as_array).into_iter().flatten().enumerate() {
            subs.push((format!("{path}.{junctor}[{i}]"), sub));
        }
    }
    if let Some(not) = node.get("not") {
        subs.push((format!("{path}.not"), not));
    }
    for (sub_path, sub) in subs {
        for name in sub.get("properties").and_then(Value::as_object).into_iter().flat_map(|p| p.keys()) {
            if !outside.is_some_and(|o| o.contains_key(name)) {
                errs.push(FieldError::forbidden(
                    format!("{sub_path}.properties[{name}]"),
                    "must have a corresponding property outside of junctors (anyOf, allOf, oneOf, not) to be structural",
                ));
            }
        }
    }
}

/// Root `metadata` may only constrain name and generateName; nothing under
/// `metadata`, `apiVersion` or `kind` may have a default.
fn root_properties(props: &Map<String, Value>, path: &str, errs: &mut Vec<FieldError>) {
    if let Some(metadata) = props.get("metadata").and_then(Value::as_object) {
        let allowed = ["type", "properties", "description"];
        let names_ok = metadata
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(|p| p.keys().all(|k| k == "name" || k == "generateName"));
        if !names_ok || metadata.keys().any(|k| !allowed.contains(&k.as_str())) {
            errs.push(FieldError::forbidden(
                format!("{path}.properties[metadata]"),
                "must not specify anything other than name and generateName, but metadata is implicitly specified",
            ));
        }
    }
    for name in ["metadata", "apiVersion", "kind"] {
        if let Some(prop) = props.get(name) {
            if has_default(prop) {
                errs.push(FieldError::forbidden(
                    format!("{path}.properties[{name}].default"),
                    "must not be set under metadata, apiVersion or kind",
                ));
            }
        }
    }
}

fn has_default(json: &Value) -> bool {
    json.get("default").is_some()
        || json.get("properties").and_then(Value::as_object).is_some_and(|p| p.values().any(has_default))
        || json.get("items").is_some_and(has_default)
}

/// A default must be valid against its own schema and already pruned.
fn check_default(json: &Value, default: &Value, path: &str, errs: &mut Vec<FieldError>) {
    let Ok(schema) = Schema::compile(json) else { return };
    let field = format!("{path}.default");
    for err in validate(default, &schema, "") {
        errs.push(FieldError::invalid(field.clone(), default.clone(), err.to_string()));
    }
    if default.is_object() {
        let mut pruned = default.clone();
        if !prune(&mut pruned, &schema).is_empty() {
            errs.push(FieldError::invalid(
                field,
                default.clone(),
                "must not have fields the schema does not know (defaults must be pruned)",
            ));
        }
    }
}

#[cfg(test)]
mod tests;
