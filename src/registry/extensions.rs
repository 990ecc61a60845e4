//! Validation of crdstore's extensions to a definition, which Kubernetes'
//! types have no field for: `spec.customFeatureGates` and each version's
//! declarative `conversion`.

use crate::error::FieldError;

/// Everything wrong with `spec.customFeatureGates`: its paths resolve in
/// the storage version's schema (when exactly one version is the storage
/// version; otherwise the versions' own errors say so).
pub fn validate_gates(crd: &super::definition::Definition) -> Vec<FieldError> {
    let Some(gates) = &crd.gates else { return Vec::new() };
    let storage = crd.spec.versions.iter().find(|v| v.storage);
    let schema =
        storage.and_then(|v| v.schema.as_ref()?.open_api_v3_schema.as_ref()).and_then(|s| serde_json::to_value(s).ok());
    let version = storage.map(|v| v.name.as_str()).unwrap_or("");
    crate::gates::validate(gates, schema.as_ref(), version, "spec.customFeatureGates")
}

/// Everything wrong with the versions' declarative conversion
/// (`spec.versions[i].conversion`): only with `spec.conversion.strategy:
/// Declarative`, and then as `conversion::declarative::validate` says.
pub fn validate_declarative(crd: &super::definition::Definition) -> Vec<FieldError> {
    let declarative = crd.spec.conversion.as_ref().is_some_and(|c| c.strategy == "Declarative");
    if !declarative {
        return crd
            .spec
            .versions
            .iter()
            .enumerate()
            .filter(|(_, v)| crd.conversions.get(&v.name).is_some_and(|c| !c.declarative.is_empty()))
            .map(|(i, _)| {
                FieldError::forbidden(
                    format!("spec.versions[{i}].conversion.declarative"),
                    "may only be set when spec.conversion.strategy is Declarative",
                )
            })
            .collect();
    }
    let schemas = crd.schemas();
    crate::conversion::declarative::validate(&crd.declarative_versions(&schemas))
}
