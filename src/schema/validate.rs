//! Validating a value against a compiled schema: every error, each at its
//! field path, none stopping the others.

use serde_json::Value;

use super::{Additional, Schema};
use crate::error::FieldError;

/// Every way `value` breaks `schema`, at paths under `path` ("" for the
/// object root, whose `metadata`, `apiVersion` and `kind` are checked
/// elsewhere).
pub fn validate(value: &Value, schema: &Schema, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    check(value, schema, path, &mut errs);
    errs
}

fn child(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn has_type(value: &Value, wanted: &str) -> bool {
    let actual = type_name(value);
    actual == wanted || (wanted == "number" && actual == "integer")
}

fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

fn check(value: &Value, schema: &Schema, path: &str, errs: &mut Vec<FieldError>) {
    if value.is_null() {
        if !schema.nullable && schema.type_.is_some() {
            let wanted = schema.type_.as_deref().unwrap_or_default();
            errs.push(FieldError::type_invalid(path, Value::Null, format!("must be of type {wanted}")));
        }
        return;
    }
    if schema.int_or_string {
        if !matches!(type_name(value), "integer" | "string") {
            errs.push(FieldError::type_invalid(path, value.clone(), "must be an integer or a string"));
            return;
        }
    } else if let Some(wanted) = schema.type_.as_deref() {
        if !has_type(value, wanted) {
            errs.push(FieldError::type_invalid(path, value.clone(), format!("must be of type {wanted}")));
            return;
        }
    }
    if let Some(allowed) = &schema.enum_ {
        if !allowed.contains(value) {
            let shown: Vec<String> =
                allowed.iter().map(|v| v.as_str().map_or_else(|| v.to_string(), String::from)).collect();
            let shown: Vec<&str> = shown.iter().map(String::as_str).collect();
            errs.push(FieldError::not_supported(path, value.clone(), &shown));
        }
    }
    match value {
        Value::Number(n) => check_number(n.as_f64().unwrap_or(0.0), value, schema, path, errs),
        Value::String(s) => check_string(s, schema, path, errs),
        Value::Array(items) => check_array(items, schema, path, errs),
        Value::Object(_) => check_object(value, schema, path, errs),
        _ => {}
    }
    check_format(value, schema, path, errs);
    check_combinators(value, schema, path, errs);
}

fn check_number(n: f64, value: &Value, schema: &Schema, path: &str, errs: &mut Vec<FieldError>) {
    if let Some(max) = schema.maximum {
        if n > max || (schema.exclusive_maximum && n >= max) {
            let how = if schema.exclusive_maximum { "less than" } else { "less than or equal to" };
            errs.push(FieldError::invalid(path, value.clone(), format!("should be {how} {}", format_number(max))));
        }
    }
    if let Some(min) = schema.minimum {
        if n < min || (schema.exclusive_minimum && n <= min) {
            let how = if schema.exclusive_minimum { "greater than" } else { "greater than or equal to" };
            errs.push(FieldError::invalid(path, value.clone(), format!("should be {how} {}", format_number(min))));
        }
    }
    if let Some(m) = schema.multiple_of.filter(|m| *m > 0.0) {
        let ratio = n / m;
        if (ratio - ratio.round()).abs() > 1e-9 {
            errs.push(FieldError::invalid(
                path,
                value.clone(),
                format!("should be a multiple of {}", format_number(m)),
            ));
        }
    }
}

fn check_string(s: &str, schema: &Schema, path: &str, errs: &mut Vec<FieldError>) {
    let len = s.chars().count() as u64;
    if let Some(max) = schema.max_length.filter(|max| len > *max) {
        errs.push(FieldError::invalid(path, s, format!("should be at most {max} chars long")));
    }
    if let Some(min) = schema.min_length.filter(|min| len < *min) {
        errs.push(FieldError::invalid(path, s, format!("should be at least {min} chars long")));
    }
    if let Some((source, regex)) = &schema.pattern {
        if !regex.is_match(s) {
            errs.push(FieldError::invalid(path, s, format!("should match '{source}'")));
        }
    }
}

fn check_array(items: &[Value], schema: &Schema, path: &str, errs: &mut Vec<FieldError>) {
    let n = items.len() as u64;
    if let Some(max) = schema.max_items.filter(|max| n > *max) {
        errs.push(FieldError::invalid(path, Value::from(n), format!("should have at most {max} items")));
    }
    if let Some(min) = schema.min_items.filter(|min| n < *min) {
        errs.push(FieldError::invalid(path, Value::from(n), format!("should have at least {min} items")));
    }
    if let Some(item_schema) = &schema.items {
        for (i, item) in items.iter().enumerate() {
            check(item, item_schema, &format!("{path}[{i}]"), errs);
        }
    }
    check_list_uniqueness(items, schema, path, errs);
}

/// `set` lists hold each value once; `map` lists each combination of their
/// key fields once. A repeat is reported at its own index.
fn check_list_uniqueness(items: &[Value], schema: &Schema, path: &str, errs: &mut Vec<FieldError>) {
    let identity = |item: &Value| -> Value {
        match schema.list_type.as_deref() {
            Some("map") => {
                let keys =
                    schema.list_map_keys.iter().map(|k| (k.clone(), item.get(k).cloned().unwrap_or(Value::Null)));
                Value::Object(keys.collect())
            }
            _ => item.clone(),
        }
    };
    if !matches!(schema.list_type.as_deref(), Some("set" | "map")) {
        return;
    }
    let mut seen: Vec<Value> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let id = identity(item);
        if seen.contains(&id) {
            errs.push(FieldError::duplicate(format!("{path}[{i}]"), id));
        } else {
            seen.push(id);
        }
    }
}

fn check_object(value: &Value, schema: &Schema, path: &str, errs: &mut Vec<FieldError>) {
    let map = value.as_object().expect("checked as an object");
    let at_root = path.is_empty();
    for name in &schema.required {
        if !map.contains_key(name) {
            errs.push(FieldError::required(child(path, name), ""));
        }
    }
    let n = map.len() as u64;
    if let Some(max) = schema.max_properties.filter(|max| n > *max) {
        errs.push(FieldError::invalid(path, Value::from(n), format!("should have at most {max} properties")));
    }
    if let Some(min) = schema.min_properties.filter(|min| n < *min) {
        errs.push(FieldError::invalid(path, Value::from(n), format!("should have at least {min} properties")));
    }
    for (name, item) in map {
        if at_root && matches!(name.as_str(), "metadata" | "apiVersion" | "kind") {
            continue;
        }
        let item_path = child(path, name);
        match (schema.property(name), &schema.additional) {
            (Some(property), _) => check(item, property, &item_path, errs),
            (None, Additional::Schema(other)) => check(item, other, &item_path, errs),
            (None, Additional::Forbidden) => errs.push(FieldError::forbidden(item_path, "is a forbidden property")),
            (None, Additional::Unset) => {}
        }
    }
}

fn check_format(value: &Value, schema: &Schema, path: &str, errs: &mut Vec<FieldError>) {
    let Some(format) = schema.format.as_deref() else { return };
    let ok = match (format, value) {
        ("int32", Value::Number(n)) => n.as_i64().is_some_and(|v| i32::try_from(v).is_ok()),
        ("int64", Value::Number(n)) => n.as_i64().is_some(),
        ("date-time", Value::String(s)) => s.parse::<jiff::Timestamp>().is_ok(),
        ("date", Value::String(s)) => s.parse::<jiff::civil::Date>().is_ok(),
        ("uuid", Value::String(s)) => uuid::Uuid::parse_str(s).is_ok(),
        ("ipv4", Value::String(s)) => s.parse::<std::net::Ipv4Addr>().is_ok(),
        ("ipv6", Value::String(s)) => s.parse::<std::net::Ipv6Addr>().is_ok(),
        ("byte", Value::String(s)) => {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD.decode(s).is_ok()
        }
        _ => true,
    };
    if !ok {
        errs.push(FieldError::invalid(path, value.clone(), format!("must be of type {format}")));
    }
}

fn check_combinators(value: &Value, schema: &Schema, path: &str, errs: &mut Vec<FieldError>) {
    for sub in &schema.all_of {
        check(value, sub, path, errs);
    }
    let passes = |sub: &Schema| validate(value, sub, path).is_empty();
    if !schema.any_of.is_empty() && !schema.any_of.iter().any(passes) {
        errs.push(FieldError::invalid(path, value.clone(), "must validate at least one schema (anyOf)"));
    }
    if !schema.one_of.is_empty() && schema.one_of.iter().filter(|s| passes(s)).count() != 1 {
        errs.push(FieldError::invalid(path, value.clone(), "must validate one and only one schema (oneOf)"));
    }
    if let Some(not) = &schema.not {
        if passes(not) {
            errs.push(FieldError::invalid(path, value.clone(), "must not validate the schema (not)"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The errors as strings, sorted (they come in document order).
    fn errors(schema: Value, value: Value) -> Vec<String> {
        let mut all: Vec<String> =
            validate(&value, &Schema::compile(&schema).unwrap(), "").iter().map(ToString::to_string).collect();
        all.sort();
        all
    }

    #[test]
    fn types_and_bounds_are_reported_at_their_paths() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "required": ["name"], "properties": {
            "replicas": {"type": "integer", "maximum": 10, "minimum": 0},
            "name": {"type": "string", "maxLength": 3, "pattern": "^[a-z]+$"},
            "mode": {"type": "string", "enum": ["a", "b"]},
            "tags": {"type": "array", "maxItems": 1, "items": {"type": "string"}}}}}});
        let errs = errors(schema.clone(), json!({"spec": {"replicas": 15, "mode": "c", "tags": ["x", 2]}}));
        assert_eq!(
            errs,
            [
                "spec.mode: Unsupported value: \"c\": supported values: \"a\", \"b\"",
                "spec.name: Required value",
                "spec.replicas: Invalid value: 15: should be less than or equal to 10",
                "spec.tags: Invalid value: 2: should have at most 1 items",
                "spec.tags[1]: Invalid value: 2: must be of type string",
            ]
        );
        assert_eq!(
            errors(schema.clone(), json!({"spec": {"name": "ABCD"}})),
            [
                "spec.name: Invalid value: \"ABCD\": should be at most 3 chars long",
                "spec.name: Invalid value: \"ABCD\": should match '^[a-z]+$'",
            ]
        );
        assert!(errors(schema, json!({"metadata": {"name": 5}, "spec": {"name": "ab", "replicas": 3}})).is_empty());
    }

    #[test]
    fn nullable_int_or_string_and_combinators() {
        let schema = json!({"type": "object", "properties": {
            "port": {"x-kubernetes-int-or-string": true},
            "maybe": {"type": "string", "nullable": true},
            "never": {"type": "string"},
            "either": {"type": "integer", "oneOf": [{"minimum": 5}, {"maximum": 2}]}}});
        assert!(errors(schema.clone(), json!({"port": "http", "maybe": null, "either": 7})).is_empty());
        assert_eq!(
            errors(schema, json!({"port": 1.5, "never": null, "either": 3})),
            [
                "either: Invalid value: 3: must validate one and only one schema (oneOf)",
                "never: Invalid value: null: must be of type string",
                "port: Invalid value: 1.5: must be an integer or a string",
            ]
        );
    }

    #[test]
    fn set_and_map_lists_hold_each_entry_once() {
        let schema = json!({"type": "object", "properties": {
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "protocol"],
                      "items": {"type": "object", "properties": {"port": {"type": "integer"}, "protocol": {"type": "string"}, "name": {"type": "string"}}}},
            "free": {"type": "array", "items": {"type": "string"}}}});
        let value = json!({
            "tags": ["a", "b", "a"],
            "ports": [{"port": 80, "protocol": "TCP", "name": "http"}, {"port": 80, "protocol": "UDP"}, {"port": 80, "protocol": "TCP", "name": "again"}],
            "free": ["x", "x"]});
        assert_eq!(
            errors(schema, value),
            ["ports[2]: Duplicate value: {\"port\":80,\"protocol\":\"TCP\"}", "tags[2]: Duplicate value: \"a\"",]
        );
    }

    #[test]
    fn formats_and_additional_properties() {
        let schema = json!({"type": "object", "properties": {
            "id": {"type": "string", "format": "uuid"},
            "small": {"type": "integer", "format": "int32"},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "closed": {"type": "object", "additionalProperties": false}}});
        assert_eq!(
            errors(schema, json!({"id": "nope", "small": 4294967296i64, "labels": {"a": 1}, "closed": {"x": 1}})),
            [
                "closed.x: Forbidden: is a forbidden property",
                "id: Invalid value: \"nope\": must be of type uuid",
                "labels.a: Invalid value: 1: must be of type string",
                "small: Invalid value: 4294967296: must be of type int32",
            ]
        );
    }
}
