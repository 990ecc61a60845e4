//! OpenAPI v3 schemas of definition versions: compiled once per definition
//! revision (`Schema::compile`), then used to validate objects with every
//! error at its field path (`validate`). Validation here covers the value
//! keywords; pruning of unknown fields (`prune`) and defaulting
//! (`apply_defaults`) follow Kubernetes' algorithms. Structural checks at
//! definition time, CEL rules and ratcheting come with the schemas issue.

mod default;
mod prune;
pub mod structural;
mod validate;

use std::collections::BTreeMap;

use regex::Regex;
use serde_json::Value;

pub use default::apply_defaults;
pub use prune::prune;
pub use validate::validate;

/// What `additionalProperties` allows.
#[derive(Debug, Clone)]
pub enum Additional {
    /// Not set: unknown fields are not a validation error (pruning is separate).
    Unset,
    /// `false`: no property beyond `properties`.
    Forbidden,
    /// A schema every other property must match.
    Schema(Box<Schema>),
}

/// A compiled schema node.
#[derive(Debug, Clone)]
pub struct Schema {
    pub type_: Option<String>,
    pub nullable: bool,
    pub int_or_string: bool,
    pub preserve_unknown_fields: bool,
    pub format: Option<String>,
    /// `x-kubernetes-embedded-resource`: apiVersion, kind and metadata are kept.
    pub embedded_resource: bool,
    /// The value a missing (or non-nullable null) field gets.
    pub default: Option<Value>,
    /// Whether this node or any below it has a default (defaulting skips
    /// subtrees without).
    pub has_defaults: bool,
    pub properties: BTreeMap<String, Schema>,
    pub additional: Additional,
    pub items: Option<Box<Schema>>,
    pub required: Vec<String>,
    pub enum_: Option<Vec<Value>>,
    pub minimum: Option<f64>,
    pub exclusive_minimum: bool,
    pub maximum: Option<f64>,
    pub exclusive_maximum: bool,
    pub multiple_of: Option<f64>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    /// The pattern's source and its compiled form.
    pub pattern: Option<(String, Regex)>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    /// `x-kubernetes-list-type`: "atomic", "set" or "map" (None: atomic).
    pub list_type: Option<String>,
    /// `x-kubernetes-list-map-keys` of a `map` list.
    pub list_map_keys: Vec<String>,
    pub min_properties: Option<u64>,
    pub max_properties: Option<u64>,
    pub all_of: Vec<Schema>,
    pub any_of: Vec<Schema>,
    pub one_of: Vec<Schema>,
    pub not: Option<Box<Schema>>,
}

impl Schema {
    /// Compiles a schema from its JSON (an `openAPIV3Schema`). A pattern
    /// that does not compile is reported with its path.
    pub fn compile(json: &Value) -> Result<Self, String> {
        compile_at(json, "openAPIV3Schema")
    }

    /// The schema of property `name`, if declared.
    pub fn property(&self, name: &str) -> Option<&Schema> {
        self.properties.get(name)
    }
}

fn number(json: &Value, key: &str) -> Option<f64> {
    json.get(key).and_then(Value::as_f64)
}

fn count(json: &Value, key: &str) -> Option<u64> {
    json.get(key).and_then(Value::as_u64)
}

fn flag(json: &Value, key: &str) -> bool {
    json.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn compile_list(json: &Value, key: &str, path: &str) -> Result<Vec<Schema>, String> {
    json.get(key)
        .and_then(Value::as_array)
        .map(|all| all.iter().enumerate().map(|(i, s)| compile_at(s, &format!("{path}.{key}[{i}]"))).collect())
        .unwrap_or_else(|| Ok(Vec::new()))
}

fn compile_at(json: &Value, path: &str) -> Result<Schema, String> {
    let properties = json
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .map(|(k, v)| compile_at(v, &format!("{path}.properties[{k}]")).map(|s| (k.clone(), s)))
                .collect()
        })
        .unwrap_or_else(|| Ok(BTreeMap::new()))?;
    let additional = match json.get("additionalProperties") {
        Some(Value::Bool(false)) => Additional::Forbidden,
        Some(schema @ Value::Object(_)) => {
            Additional::Schema(Box::new(compile_at(schema, &format!("{path}.additionalProperties"))?))
        }
        _ => Additional::Unset,
    };
    let pattern = match json.get("pattern").and_then(Value::as_str) {
        Some(source) => {
            let regex = Regex::new(source).map_err(|e| format!("{path}.pattern: {e}"))?;
            Some((source.to_string(), regex))
        }
        None => None,
    };
    let mut schema = Schema {
        type_: json.get("type").and_then(Value::as_str).filter(|t| !t.is_empty()).map(String::from),
        nullable: flag(json, "nullable"),
        int_or_string: flag(json, "x-kubernetes-int-or-string"),
        preserve_unknown_fields: flag(json, "x-kubernetes-preserve-unknown-fields"),
        format: json.get("format").and_then(Value::as_str).map(String::from),
        embedded_resource: flag(json, "x-kubernetes-embedded-resource"),
        default: json.get("default").cloned(),
        has_defaults: false,
        properties,
        additional,
        items: match json.get("items") {
            Some(items @ Value::Object(_)) => Some(Box::new(compile_at(items, &format!("{path}.items"))?)),
            _ => None,
        },
        required: json
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).map(String::from).collect())
            .unwrap_or_default(),
        enum_: json.get("enum").and_then(Value::as_array).cloned(),
        minimum: number(json, "minimum"),
        exclusive_minimum: flag(json, "exclusiveMinimum"),
        maximum: number(json, "maximum"),
        exclusive_maximum: flag(json, "exclusiveMaximum"),
        multiple_of: number(json, "multipleOf"),
        min_length: count(json, "minLength"),
        max_length: count(json, "maxLength"),
        pattern,
        min_items: count(json, "minItems"),
        max_items: count(json, "maxItems"),
        list_type: json.get("x-kubernetes-list-type").and_then(Value::as_str).map(String::from),
        list_map_keys: json
            .get("x-kubernetes-list-map-keys")
            .and_then(Value::as_array)
            .map(|k| k.iter().filter_map(Value::as_str).map(String::from).collect())
            .unwrap_or_default(),
        min_properties: count(json, "minProperties"),
        max_properties: count(json, "maxProperties"),
        all_of: compile_list(json, "allOf", path)?,
        any_of: compile_list(json, "anyOf", path)?,
        one_of: compile_list(json, "oneOf", path)?,
        not: match json.get("not") {
            Some(not @ Value::Object(_)) => Some(Box::new(compile_at(not, &format!("{path}.not"))?)),
            _ => None,
        },
    };
    schema.has_defaults = schema.default.is_some()
        || schema.properties.values().any(|p| p.has_defaults)
        || schema.items.as_ref().is_some_and(|i| i.has_defaults)
        || matches!(&schema.additional, Additional::Schema(a) if a.has_defaults);
    Ok(schema)
}
