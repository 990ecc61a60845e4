//! A definition's schemas, compiled as they will be served: why one is not
//! structural, what is wrong with its CEL rules, each at its path. On an
//! update, the rules the definition already had are compiled as Kubernetes
//! compiles stored expressions: their calls are not refused again.

use std::collections::BTreeSet;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinitionSpec, CustomResourceDefinitionVersion, JSONSchemaProps,
};
use serde_json::Value;

use crate::error::FieldError;

/// A version's schema, reported at `path` (its `openAPIV3Schema`).
pub(super) fn validate_version_schema(
    version: &CustomResourceDefinitionVersion,
    path: &str,
    preexisting: &BTreeSet<String>,
    errs: &mut Vec<FieldError>,
) {
    match version.schema.as_ref().and_then(|s| s.open_api_v3_schema.as_ref()) {
        None => errs.push(FieldError::required(path, "schemas are required")),
        // The root's type is among the structural checks, as in Kubernetes.
        Some(schema) => {
            if let Some(why) = compile_errors(schema, path, preexisting, errs) {
                errs.push(FieldError::invalid_without_value(path, why));
            }
        }
    }
}

/// Compiles a version's schema and reports what is wrong with it: why it
/// is not structural and, as in Kubernetes only for a structural schema,
/// what is wrong with its CEL rules, each at its path. Returns why the
/// schema does not compile at all (a pattern that is not a regular
/// expression), if it does not.
fn compile_errors(
    schema: &JSONSchemaProps,
    path: &str,
    preexisting: &BTreeSet<String>,
    errs: &mut Vec<FieldError>,
) -> Option<String> {
    let json = serde_json::to_value(schema).ok()?;
    let structural = crate::schema::structural::check(&json, path);
    let (compiled, rule_errors) = crate::schema::Schema::compile_update(&json, path, preexisting);
    // A schema that is not structural does not compile either (an unknown
    // type, say): the structural errors already say why.
    if !structural.is_empty() {
        errs.extend(structural);
        return None;
    }
    errs.extend(rule_errors);
    compiled.err()
}

/// Every rule and message expression of `spec`'s schemas, all versions'
/// (Kubernetes' `findPreexistingExpressions`).
pub(super) fn preexisting(spec: &CustomResourceDefinitionSpec) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let schemas = spec.versions.iter().filter_map(|v| v.schema.as_ref()?.open_api_v3_schema.as_ref());
    for schema in schemas {
        if let Ok(json) = serde_json::to_value(schema) {
            collect(&json, &mut found);
        }
    }
    found
}

fn collect(json: &Value, found: &mut BTreeSet<String>) {
    match json {
        Value::Object(map) => {
            for rule in map.get("x-kubernetes-validations").and_then(Value::as_array).into_iter().flatten() {
                for key in ["rule", "messageExpression"] {
                    if let Some(text) = rule.get(key).and_then(Value::as_str) {
                        found.insert(text.trim().to_string());
                    }
                }
            }
            map.values().for_each(|v| collect(v, found));
        }
        Value::Array(items) => items.iter().for_each(|v| collect(v, found)),
        _ => {}
    }
}
