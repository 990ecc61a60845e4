//! Validation of `spec.customFeatureGates` at definition write, every error
//! at its field path in Kubernetes' `field.Error` words: names present,
//! well formed and unique; stages known; the stage's default rules; the
//! deprecation warning only on deprecated gates; every path a simple dot
//! path, outside `metadata`, `apiVersion` and `kind`, guarded by one gate
//! only, and resolving in the storage version's schema unless it falls
//! under `x-kubernetes-preserve-unknown-fields`.

use std::collections::HashMap;

use serde_json::Value;

use super::{segments, CustomFeatureGates, STAGES};
use crate::apimachinery::dns;
use crate::error::FieldError;

/// Everything wrong with `gates` (at `path`, `spec.customFeatureGates`),
/// against the storage version's schema (`schema`, the openAPIV3Schema as
/// JSON) named `version`.
pub fn validate(gates: &CustomFeatureGates, schema: Option<&Value>, version: &str, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if let Some(component) = gates.component.as_deref().filter(|c| !c.is_empty()) {
        let problems = dns::dns1123_label(component);
        if !problems.is_empty() {
            errs.push(FieldError::invalid(format!("{path}.component"), component, problems.join(",")));
        }
    }
    let mut names: HashMap<&str, usize> = HashMap::new();
    let mut guarded: HashMap<Vec<String>, usize> = HashMap::new();
    for (i, gate) in gates.feature_gates.iter().enumerate() {
        let at = format!("{path}.featureGates[{i}]");
        if gate.name.is_empty() {
            errs.push(FieldError::required(format!("{at}.name"), ""));
        } else if !well_formed(&gate.name) {
            errs.push(FieldError::invalid(format!("{at}.name"), gate.name.as_str(), NAME_FORMAT));
        } else if names.insert(&gate.name, i).is_some() {
            errs.push(FieldError::duplicate(format!("{at}.name"), gate.name.as_str()));
        }
        errs.extend(stage_rules(gate, &at));
        if gate.field_paths.is_empty() {
            errs.push(FieldError::required(format!("{at}.fieldPaths"), "must name at least one field"));
        }
        for (j, field_path) in gate.field_paths.iter().enumerate() {
            let field = format!("{at}.fieldPaths[{j}]");
            let problems = path_problems(field_path, &field, schema, version);
            if !problems.is_empty() {
                errs.extend(problems);
            } else if guarded.insert(segments(field_path), i).is_some() {
                errs.push(FieldError::duplicate(field, field_path.as_str()));
            }
        }
    }
    errs
}

const NAME_FORMAT: &str = "a feature gate name must consist of alphanumeric characters and start with a letter \
     (e.g. 'ReplicasFeatureGate', regex used for validation is '[A-Za-z][A-Za-z0-9]*')";

fn well_formed(name: &str) -> bool {
    name.len() <= 63
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric())
}

/// The stage and its default rules: alpha defaults to and may only default
/// to false, stable to true; beta and deprecated must state their default;
/// `deprecatedWarning` only on a deprecated gate.
fn stage_rules(gate: &super::FeatureGate, at: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let stage = gate.pre_release.as_str();
    let field = format!("{at}.preRelease");
    if stage.is_empty() {
        errs.push(FieldError::required(field, ""));
    } else if !STAGES.contains(&stage) {
        errs.push(FieldError::not_supported(field, stage, STAGES));
    }
    let default = format!("{at}.default");
    match (stage, gate.default) {
        ("alpha", Some(true)) => errs.push(FieldError::invalid(default, true, "must be false for an alpha gate")),
        ("stable", Some(false)) => errs.push(FieldError::invalid(default, false, "must be true for a stable gate")),
        ("beta" | "deprecated", None) => {
            errs.push(FieldError::required(default, format!("must be set for a {stage} gate")))
        }
        _ => {}
    }
    if gate.deprecated_warning.is_some() && stage != "deprecated" {
        errs.push(FieldError::forbidden(
            format!("{at}.deprecatedWarning"),
            "may only be set when preRelease is deprecated",
        ));
    }
    errs
}

/// What is wrong with one field path: its form (as scale paths are
/// checked), its place, and whether the storage version's schema has it.
fn path_problems(path: &str, field: &str, schema: Option<&Value>, version: &str) -> Vec<FieldError> {
    if path.is_empty() {
        return vec![FieldError::required(field, "")];
    }
    if !path.starts_with('.') {
        return vec![FieldError::invalid(field, path, "must be a simple json path starting with .")];
    }
    if path.contains(['[', ']', '*']) {
        return vec![FieldError::invalid(
            field,
            path,
            "must be a simple json path without array notation or wildcards",
        )];
    }
    if path == "." || path[1..].split('.').any(str::is_empty) {
        return vec![FieldError::invalid(field, path, "must be a json path in the dot notation")];
    }
    let segments = segments(path);
    if matches!(segments[0].as_str(), "metadata" | "apiVersion" | "kind") {
        return vec![FieldError::forbidden(field, "must not be under metadata, apiVersion or kind")];
    }
    match schema {
        Some(schema) if !resolves(schema, &segments) => vec![FieldError::invalid(
            field,
            path,
            format!("must be a field of the schema of the storage version ({version})"),
        )],
        _ => Vec::new(),
    }
}

/// Whether `segments` name a field of `schema`: each is a property, or a
/// key of `additionalProperties`, or falls under
/// `x-kubernetes-preserve-unknown-fields`.
fn resolves(schema: &Value, segments: &[String]) -> bool {
    let mut node = schema;
    for segment in segments {
        if let Some(next) = node.get("properties").and_then(|p| p.get(segment.as_str())) {
            node = next;
        } else if let Some(next) = node.get("additionalProperties").filter(|a| a.is_object()) {
            node = next;
        } else {
            return node.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "replicas": {"type": "integer"},
                "foo": {"type": "object", "properties": {"qux": {"type": "integer"}}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
            "status": {"type": "object", "properties": {"ready": {"type": "integer"}}}}})
    }

    fn errors(gates: Value) -> Vec<String> {
        let gates: CustomFeatureGates = serde_json::from_value(gates).unwrap();
        validate(&gates, Some(&schema()), "v1", "spec.customFeatureGates").iter().map(|e| e.to_string()).collect()
    }

    fn one(gate: Value) -> Vec<String> {
        errors(json!({"featureGates": [gate]}))
    }

    #[test]
    fn a_good_gate_set_passes() {
        let found = errors(json!({"component": "istio", "featureGates": [
            {"name": "Foo", "preRelease": "alpha", "fieldPaths": [".spec.foo"]},
            {"name": "Qux", "preRelease": "beta", "default": true, "fieldPaths": [".spec.foo.qux", ".status.ready"]},
            {"name": "Free", "preRelease": "deprecated", "default": true, "deprecatedWarning": "going",
             "fieldPaths": [".spec.free.anything.below"]},
            {"name": "Done", "preRelease": "stable", "enabled": false, "fieldPaths": [".spec.replicas"]}]}));
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn names_are_required_well_formed_and_unique() {
        let found = errors(json!({"featureGates": [
            {"name": "", "preRelease": "alpha", "fieldPaths": [".spec.replicas"]},
            {"name": "9lives", "preRelease": "alpha", "fieldPaths": [".spec.foo"]},
            {"name": "A", "preRelease": "alpha", "fieldPaths": [".status.ready"]},
            {"name": "A", "preRelease": "alpha", "fieldPaths": [".spec.foo.qux"]}]}));
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found[0].starts_with("spec.customFeatureGates.featureGates[0].name: Required value"));
        assert!(found[1].starts_with("spec.customFeatureGates.featureGates[1].name: Invalid value: \"9lives\""));
        assert_eq!(found[2], "spec.customFeatureGates.featureGates[3].name: Duplicate value: \"A\"");
    }

    #[test]
    fn stages_and_defaults_follow_the_design() {
        let at = "spec.customFeatureGates.featureGates[0]";
        let path = json!([".spec.replicas"]);
        assert_eq!(one(json!({"name": "A", "fieldPaths": path}))[0], format!("{at}.preRelease: Required value"));
        assert!(one(json!({"name": "A", "preRelease": "gamma", "fieldPaths": path}))[0]
            .starts_with(&format!("{at}.preRelease: Unsupported value: \"gamma\": supported values: \"alpha\"")));
        assert_eq!(
            one(json!({"name": "A", "preRelease": "alpha", "default": true, "fieldPaths": path}))[0],
            format!("{at}.default: Invalid value: true: must be false for an alpha gate")
        );
        assert_eq!(
            one(json!({"name": "A", "preRelease": "stable", "default": false, "fieldPaths": path}))[0],
            format!("{at}.default: Invalid value: false: must be true for a stable gate")
        );
        assert_eq!(
            one(json!({"name": "A", "preRelease": "beta", "fieldPaths": path}))[0],
            format!("{at}.default: Required value: must be set for a beta gate")
        );
        assert_eq!(
            one(
                json!({"name": "A", "preRelease": "beta", "default": false, "deprecatedWarning": "x", "fieldPaths": path})
            )[0],
            format!("{at}.deprecatedWarning: Forbidden: may only be set when preRelease is deprecated")
        );
    }

    #[test]
    fn paths_are_simple_outside_metadata_unique_and_in_the_schema() {
        let found = errors(json!({"featureGates": [
            {"name": "A", "preRelease": "alpha", "fieldPaths": []},
            {"name": "B", "preRelease": "alpha", "fieldPaths": ["spec.x", ".spec.items[0]", ".spec..x", ".metadata.labels",
                ".kind", ".spec.nothere", ".spec.replicas", "", ".spec.*"]},
            {"name": "C", "preRelease": "alpha", "fieldPaths": [".spec.replicas"]}]}));
        let at = "spec.customFeatureGates.featureGates";
        let want = [
            format!("{at}[0].fieldPaths: Required value: must name at least one field"),
            format!("{at}[1].fieldPaths[0]: Invalid value: \"spec.x\": must be a simple json path starting with ."),
            format!("{at}[1].fieldPaths[1]: Invalid value: \".spec.items[0]\": must be a simple json path without array notation or wildcards"),
            format!("{at}[1].fieldPaths[2]: Invalid value: \".spec..x\": must be a json path in the dot notation"),
            format!("{at}[1].fieldPaths[3]: Forbidden: must not be under metadata, apiVersion or kind"),
            format!("{at}[1].fieldPaths[4]: Forbidden: must not be under metadata, apiVersion or kind"),
            format!("{at}[1].fieldPaths[5]: Invalid value: \".spec.nothere\": must be a field of the schema of the storage version (v1)"),
            format!("{at}[1].fieldPaths[7]: Required value"),
            format!("{at}[1].fieldPaths[8]: Invalid value: \".spec.*\": must be a simple json path without array notation or wildcards"),
            format!("{at}[2].fieldPaths[0]: Duplicate value: \".spec.replicas\""),
        ];
        assert_eq!(found, want);
    }

    #[test]
    fn a_component_must_be_a_label() {
        let found = errors(json!({"component": "Not A Label", "featureGates": []}));
        assert!(found[0].starts_with("spec.customFeatureGates.component: Invalid value"), "{found:?}");
    }
}
