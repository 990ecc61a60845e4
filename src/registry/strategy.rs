//! The strategy of definitions (`DefinitionStrategy`, the hooks of the
//! contract in `apimachinery::strategy`), as apiextensions-apiserver's
//! `customresourcedefinition.strategy`: Kubernetes' defaults, a fresh
//! status on create, the status and stored versions kept on update, the
//! cleanup finalizer kept while a definition terminates, and the status
//! endpoint, which takes only `storedVersions`. The hooks work on the typed
//! definition; objects travel the contract as JSON.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionStatus,
};

use super::definition::Definition;
use serde_json::Value;

use super::{definition, extensions, validation, CLEANUP_FINALIZER, GROUP};
use crate::apimachinery::strategy::{Checked, NameRule, Scope, Strategy};
use crate::error::{Error, FieldError};

/// The definitions' strategy.
pub struct DefinitionStrategy;

/// The typed definition behind a JSON one. Every object the contract hands
/// the hooks came from a parsed definition, so this holds; a hook that
/// meets one that does not leaves it to validation to refuse.
fn typed(obj: &Value) -> Option<Definition> {
    serde_json::from_value(obj.clone()).ok()
}

/// Writes `crd` back into `obj`.
fn store(obj: &mut Value, crd: &Definition) {
    *obj = definition::to_json(crd);
}

/// The status a definition starts with: only its storage version stored.
fn fresh_status(crd: &CustomResourceDefinition) -> CustomResourceDefinitionStatus {
    CustomResourceDefinitionStatus {
        stored_versions: definition::storage_version(crd).map(|v| vec![v.to_string()]),
        ..Default::default()
    }
}

fn not_a_definition() -> Checked {
    vec![FieldError::invalid_without_value("", "the object is not a CustomResourceDefinition")].into()
}

impl Strategy for DefinitionStrategy {
    fn scope(&self) -> Scope {
        Scope::Cluster
    }

    /// `validation::validate` checks the name, which must also be
    /// `<plural>.<group>`.
    fn name_rule(&self) -> NameRule {
        NameRule::KindValidates
    }

    fn invalid(&self, name: &str, causes: Vec<FieldError>) -> Error {
        Error::invalid(GROUP, definition::KIND, name, causes)
    }

    /// Kubernetes' defaults, and a status of the server's.
    fn prepare_for_create(&self, obj: &mut Value) {
        let Some(mut crd) = typed(obj) else { return };
        definition::apply_defaults(&mut crd);
        crd.status = Some(fresh_status(&crd));
        store(obj, &crd);
    }

    /// Kubernetes' defaults; the stored status, with a new storage version
    /// appended to `storedVersions`; the cleanup finalizer while the
    /// definition's instances are cleaned up.
    fn prepare_for_update(&self, obj: &mut Value, old: &Value) {
        let (Some(mut crd), Some(old)) = (typed(obj), typed(old)) else { return };
        definition::apply_defaults(&mut crd);
        let cleaning = old.metadata.finalizers.iter().flatten().any(|f| f == CLEANUP_FINALIZER);
        if old.metadata.deletion_timestamp.is_some() && cleaning {
            let finalizers = crd.metadata.finalizers.get_or_insert_with(Vec::new);
            if !finalizers.iter().any(|f| f == CLEANUP_FINALIZER) {
                finalizers.push(CLEANUP_FINALIZER.to_string());
            }
        }
        let mut status = old.status.clone().unwrap_or_default();
        if let Some(storage) = definition::storage_version(&crd) {
            let stored = status.stored_versions.get_or_insert_with(Vec::new);
            if !stored.iter().any(|v| v == storage) {
                stored.push(storage.to_string());
            }
        }
        crd.status = Some(status);
        store(obj, &crd);
    }

    fn generation_changed(&self, obj: &Value, old: &Value) -> bool {
        obj.get("spec") != old.get("spec")
    }

    fn validate(&self, obj: &Value) -> Checked {
        match typed(obj) {
            Some(crd) => {
                let mut errs = validation::validate(&crd);
                errs.extend(extensions::validate_gates(&crd));
                errs.extend(extensions::validate_declarative(&crd));
                errs.into()
            }
            None => not_a_definition(),
        }
    }

    fn validate_update(&self, obj: &Value, old: &Value) -> Checked {
        match (typed(obj), typed(old)) {
            (Some(crd), Some(old)) => {
                let mut errs = validation::validate_update(&crd, &old);
                errs.extend(extensions::validate_gates(&crd));
                errs.extend(extensions::validate_declarative(&crd));
                errs.into()
            }
            _ => not_a_definition(),
        }
    }

    /// Only `storedVersions` is taken from the body; accepted names and
    /// conditions are the server's.
    fn prepare_for_status_update(&self, obj: &mut Value, old: &Value) {
        let stored_versions = obj.pointer("/status/storedVersions").cloned().unwrap_or(Value::Array(Vec::new()));
        *obj = old.clone();
        let status = obj.as_object_mut().expect("objects are JSON objects").entry("status").or_insert(Value::Null);
        if !status.is_object() {
            *status = Value::Object(Default::default());
        }
        status["storedVersions"] = stored_versions;
    }

    fn validate_status_update(&self, obj: &Value, _old: &Value) -> Checked {
        match typed(obj) {
            Some(crd) => validation::validate_stored_versions(&crd).into(),
            None => not_a_definition(),
        }
    }
}
