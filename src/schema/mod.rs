//! OpenAPI v3 schemas of definition versions: compiled once per definition
//! revision (`Schema::compile`), CEL rules included, then used to validate
//! objects with every error at its field path, ratcheting unchanged values
//! on update (`validate`, `validate_update`). Pruning of unknown fields
//! (`prune`) and defaulting (`apply_defaults`) follow Kubernetes'
//! algorithms; `structural` checks a schema when a definition is written.

pub mod cel;
mod correlate;
mod default;
pub mod embedded;
pub mod formats;

mod prune;
pub mod structural;
mod validate;

use std::collections::BTreeSet;

use indexmap::IndexMap;
use regex::Regex;
use serde_json::Value;

pub use default::apply_defaults;
pub use prune::{prune, prune_changed};
pub use validate::{validate, validate_update, Root, Validation};

use crate::error::FieldError;

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

/// A node's `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Array,
    Boolean,
    Integer,
    Number,
    Object,
    String,
}

impl Type {
    const ALL: [Type; 6] = [Type::Array, Type::Boolean, Type::Integer, Type::Number, Type::Object, Type::String];
    /// The names of the types a structural schema may use, in the order of
    /// `ALL` (and of the variants).
    pub const NAMES: &[&str] = &["array", "boolean", "integer", "number", "object", "string"];

    /// The type named `name`, if it is one of [`Type::NAMES`].
    pub fn named(name: &str) -> Option<Type> {
        Type::NAMES.iter().position(|n| *n == name).map(|i| Type::ALL[i])
    }

    pub fn as_str(self) -> &'static str {
        Type::NAMES[self as usize]
    }
}

/// A node's `properties`, by name.
pub type Properties = IndexMap<String, Schema, foldhash::fast::FixedState>;

/// A compiled schema node.
#[derive(Debug, Clone)]
pub struct Schema {
    pub type_: Option<Type>,
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
    /// In the schema's order; looked up once per field of every object
    /// validated, so hashed with a fast (non-DoS-resistant) hasher: the
    /// names are the definition's, not the request's.
    pub properties: Properties,
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
    /// `x-kubernetes-map-type`: "granular" or "atomic" (None: granular).
    pub map_type: Option<String>,
    pub min_properties: Option<u64>,
    pub max_properties: Option<u64>,
    pub all_of: Vec<Schema>,
    pub any_of: Vec<Schema>,
    pub one_of: Vec<Schema>,
    pub not: Option<Box<Schema>>,
    /// The compiled `x-kubernetes-validations` rules of this node.
    pub rules: Vec<cel::Rule>,
    /// What of this node's value its rules read, all rules together.
    pub rule_need: cel::Need,
    /// Whether this node or any below it has rules (the CEL pass skips
    /// subtrees without).
    pub has_rules: bool,
}

impl Schema {
    /// Compiles a schema from its JSON (an `openAPIV3Schema`). A pattern
    /// that does not compile is reported with its path.
    pub fn compile(json: &Value) -> Result<Self, String> {
        Self::compile_checked(json, "openAPIV3Schema").0
    }

    /// Compiles a schema and reports every problem of its CEL rules at its
    /// path under `path` (the schema's own path in the definition), the
    /// schema-wide cost budget included. A rule that does not compile stays
    /// in the compiled schema and fails every evaluation with its compile
    /// error, as Kubernetes does (so a stored definition whose rule no
    /// longer compiles refuses writes instead of skipping the rule).
    pub fn compile_checked(json: &Value, path: &str) -> (Result<Self, String>, Vec<FieldError>) {
        Self::compile_update(json, path, &BTreeSet::new())
    }

    /// [`Schema::compile_checked`] for an update of a definition whose
    /// rules and message expressions were `preexisting`: the calls of those
    /// are not checked again (see `cel::Place::preexisting`).
    pub fn compile_update(
        json: &Value,
        path: &str,
        preexisting: &BTreeSet<String>,
    ) -> (Result<Self, String>, Vec<FieldError>) {
        let mut compiling = Compiling { errs: Vec::new(), total_cost: 0, preexisting };
        let place = Place { resource: true, cardinality: 1, uncorrelatable: None };
        let schema = compile_at(json, path, &place, &mut compiling);
        let mut errs = compiling.errs;
        if compiling.total_cost > cel::STATIC_ESTIMATED_CRD_COST_LIMIT {
            errs.push(FieldError::forbidden(
                path,
                cel::cost_message(
                    "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                    compiling.total_cost,
                    cel::STATIC_ESTIMATED_CRD_COST_LIMIT,
                ),
            ));
        }
        (schema, errs)
    }

    /// The schema of property `name`, if declared. A few properties are
    /// scanned, as `entry_of` scans small objects.
    pub fn property(&self, name: &str) -> Option<&Schema> {
        if self.properties.len() <= SCANNED {
            self.properties.iter().find(|(key, _)| key.as_str() == name).map(|(_, s)| s)
        } else {
            self.properties.get(name)
        }
    }

    /// The schema of an object's entry `name`: its property, else the
    /// `additionalProperties` schema; None when neither types it.
    pub fn entry(&self, name: &str) -> Option<&Schema> {
        match (self.property(name), &self.additional) {
            (Some(property), _) => Some(property),
            (None, Additional::Schema(other)) => Some(other),
            (None, _) => None,
        }
    }
}

/// Up to how many entries a map is scanned for a name rather than the name
/// hashed: comparing names (mostly by length alone) costs less than hashing
/// one, and objects are mostly small (a container, a port).
const SCANNED: usize = 16;

/// The entry `name` of a JSON object, scanned for when the object is small
/// (a JSON map hashes every name looked up with SipHash).
pub fn entry_of<'v>(map: &'v serde_json::Map<String, Value>, name: &str) -> Option<(&'v String, &'v Value)> {
    if map.len() <= SCANNED {
        map.iter().find(|(key, _)| key.as_str() == name)
    } else {
        map.get_key_value(name)
    }
}

/// The field `name` of `value`, if it is an object that has one.
pub fn field_of<'v>(value: &'v Value, name: &str) -> Option<&'v Value> {
    match value {
        Value::Object(map) => entry_of(map, name).map(|(_, v)| v),
        _ => None,
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

/// What compiling a whole schema collects: CEL problems and cost.
struct Compiling<'p> {
    errs: Vec<FieldError>,
    total_cost: u64,
    preexisting: &'p BTreeSet<String>,
}

/// Where a node sits, for its CEL rules.
struct Place {
    /// A resource root or embedded resource.
    resource: bool,
    /// How many times the node can occur in one object.
    cardinality: u64,
    /// The path of the first non-`map` list's items above, if any.
    uncorrelatable: Option<String>,
}

impl Place {
    fn property(&self, json: &Value) -> Place {
        Place {
            resource: flag(json, "x-kubernetes-embedded-resource"),
            cardinality: self.cardinality,
            uncorrelatable: self.uncorrelatable.clone(),
        }
    }

    /// The place of the entries of the list or map `json`, at `path`.
    fn entries(&self, json: &Value, entry: &Value, path: &str, array: bool) -> Place {
        let bound = count(json, if array { "maxItems" } else { "maxProperties" });
        let entry_type = entry.get("type").and_then(Value::as_str);
        let map_list = json.get("x-kubernetes-list-type").and_then(Value::as_str) == Some("map");
        Place {
            resource: flag(entry, "x-kubernetes-embedded-resource"),
            cardinality: self.cardinality.saturating_mul(cel::check::cardinality_bound(array, bound, entry_type)),
            uncorrelatable: match &self.uncorrelatable {
                None if array && !map_list => Some(path.to_string()),
                other => other.clone(),
            },
        }
    }
}

fn compile_list(
    json: &Value,
    key: &str,
    path: &str,
    place: &Place,
    c: &mut Compiling<'_>,
) -> Result<Vec<Schema>, String> {
    json.get(key)
        .and_then(Value::as_array)
        .map(|all| {
            all.iter().enumerate().map(|(i, s)| compile_at(s, &format!("{path}.{key}[{i}]"), place, c)).collect()
        })
        .unwrap_or_else(|| Ok(Vec::new()))
}

/// Compiles the schema node `json` at `path` (where `place` says it sits),
/// its subschemas first, then its CEL rules.
fn compile_at(json: &Value, path: &str, place: &Place, c: &mut Compiling<'_>) -> Result<Schema, String> {
    let properties = compile_properties(json, path, place, c)?;
    let additional = compile_additional(json, path, place, c)?;
    let pattern = compile_pattern(json, path)?;
    let type_ = compile_type(json, path)?;
    let mut schema = Schema {
        type_,
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
            Some(items @ Value::Object(_)) => {
                let at = format!("{path}.items");
                Some(Box::new(compile_at(items, &at, &place.entries(json, items, &at, true), c)?))
            }
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
        map_type: json.get("x-kubernetes-map-type").and_then(Value::as_str).map(String::from),
        min_properties: count(json, "minProperties"),
        max_properties: count(json, "maxProperties"),
        all_of: compile_list(json, "allOf", path, place, c)?,
        any_of: compile_list(json, "anyOf", path, place, c)?,
        one_of: compile_list(json, "oneOf", path, place, c)?,
        not: match json.get("not") {
            Some(not @ Value::Object(_)) => Some(Box::new(compile_at(not, &format!("{path}.not"), place, c)?)),
            _ => None,
        },
        rules: Vec::new(),
        rule_need: cel::Need::Whole,
        has_rules: false,
    };
    compile_rules(&mut schema, json, path, place, c);
    Ok(schema)
}

/// The compiled `properties` of `json`, each at its place.
fn compile_properties(json: &Value, path: &str, place: &Place, c: &mut Compiling<'_>) -> Result<Properties, String> {
    json.get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .map(|(k, v)| {
                    compile_at(v, &format!("{path}.properties[{k}]"), &place.property(v), c).map(|s| (k.clone(), s))
                })
                .collect()
        })
        .unwrap_or_else(|| Ok(Properties::default()))
}

/// The `additionalProperties` of `json`: forbidden, a compiled schema for
/// the entries, or unset.
fn compile_additional(json: &Value, path: &str, place: &Place, c: &mut Compiling<'_>) -> Result<Additional, String> {
    Ok(match json.get("additionalProperties") {
        Some(Value::Bool(false)) => Additional::Forbidden,
        Some(schema @ Value::Object(_)) => {
            let at = format!("{path}.additionalProperties");
            let entries = place.entries(json, schema, &at, false);
            Additional::Schema(Box::new(compile_at(schema, &at, &entries, c)?))
        }
        _ => Additional::Unset,
    })
}

/// The `pattern` of `json` with its compiled regex.
fn compile_pattern(json: &Value, path: &str) -> Result<Option<(String, Regex)>, String> {
    Ok(match json.get("pattern").and_then(Value::as_str) {
        Some(source) => {
            let regex = Regex::new(source).map_err(|e| format!("{path}.pattern: {e}"))?;
            Some((source.to_string(), regex))
        }
        None => None,
    })
}

/// The `type` of `json`, if it names one.
fn compile_type(json: &Value, path: &str) -> Result<Option<Type>, String> {
    Ok(match json.get("type").and_then(Value::as_str).filter(|t| !t.is_empty()) {
        Some(name) => Some(Type::named(name).ok_or_else(|| format!("{path}.type: unsupported type {name:?}"))?),
        None => None,
    })
}

/// Compiles the node's CEL rules into `schema` and marks whether it or a
/// subschema has rules or defaults.
fn compile_rules(schema: &mut Schema, json: &Value, path: &str, place: &Place, c: &mut Compiling<'_>) {
    let cel_place = cel::Place {
        path,
        resource: place.resource,
        cardinality: place.cardinality,
        uncorrelatable: place.uncorrelatable.as_deref(),
        preexisting: c.preexisting,
    };
    schema.rules = cel::compile(json, schema, &cel_place, &mut c.errs, &mut c.total_cost);
    schema.rule_need = cel::Need::merge_all(schema.rules.iter().map(|r| &r.need));
    schema.has_rules = !schema.rules.is_empty()
        || schema.properties.values().any(|p| p.has_rules)
        || schema.items.as_ref().is_some_and(|i| i.has_rules)
        || matches!(&schema.additional, Additional::Schema(a) if a.has_rules);
    schema.has_defaults = schema.default.is_some()
        || schema.properties.values().any(|p| p.has_defaults)
        || schema.items.as_ref().is_some_and(|i| i.has_defaults)
        || matches!(&schema.additional, Additional::Schema(a) if a.has_defaults);
}

#[cfg(test)]
mod tests {
    use super::Type;

    #[test]
    fn every_type_is_named_by_its_own_name() {
        for name in Type::NAMES {
            assert_eq!(Type::named(name).map(Type::as_str), Some(*name));
        }
        assert_eq!(Type::named("null"), None);
    }
}
