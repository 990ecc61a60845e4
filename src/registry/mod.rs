//! The registry of custom resource definitions: what a definition is
//! (`definition`), its validation and strategy, the names of a group
//! settled in each write's commit (`group`, `naming`), its conditions, and
//! the reads and server writes the controllers make: the cleanup of a
//! terminating definition (`cleanup`). Definitions are written by clients
//! through the one resource store, as a kind (`resource::definitions`).

pub mod apply;
mod cleanup;
pub use cleanup::{cleanup_requested, removal_after_mark};
pub mod conditions;
pub mod definition;
pub mod discovery;
pub mod extensions;
pub mod group;
pub mod naming;
mod selectable;
pub mod strategy;
pub mod validation;

use std::sync::Arc;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use crate::error::Result;
use crate::storage::{keys, Storage};

use definition::Definition;

/// The definitions' API group, spelled once (in the key space, the lowest
/// layer that needs it).
pub const GROUP: &str = keys::DEFINITIONS_GROUP;
/// The finalizer a definition carries while its instances are deleted.
pub const CLEANUP_FINALIZER: &str = concat!("customresourcecleanup.", crate::storage::keys::definitions_group!());
const RESOURCE: &str = keys::DEFINITIONS_RESOURCE;

/// The stored definitions, as the controllers and discovery read them, and
/// the server's own writes of their cleanup.
pub struct Registry {
    store: Arc<dyn Storage>,
}

fn name_of(crd: &CustomResourceDefinition) -> &str {
    crd.metadata.name.as_deref().unwrap_or("")
}

impl Registry {
    pub fn new(store: Arc<dyn Storage>) -> Self {
        Self { store }
    }

    /// Every definition at the latest revision.
    pub fn all(&self) -> Result<Vec<CustomResourceDefinition>> {
        Ok(self.definitions()?.into_iter().map(|crd| crd.crd).collect())
    }

    /// Every definition at the latest revision, with its feature gates.
    pub fn definitions(&self) -> Result<Vec<Definition>> {
        Ok(group::all_stored(self.store.as_ref())?.into_iter().map(|s| s.crd).collect())
    }

    /// The field-level feature gates of every definition, in name then gate
    /// order; `definition` and `component`, when not empty, keep only those
    /// of that definition or component.
    pub fn feature_gates(&self, definition: &str, component: &str) -> Result<Vec<crate::gates::Listed>> {
        let mut listed = Vec::new();
        for crd in self.definitions()? {
            let name = name_of(&crd);
            let Some(gates) = &crd.gates else { continue };
            if (!definition.is_empty() && name != definition)
                || (!component.is_empty() && gates.component.as_deref().unwrap_or("") != component)
            {
                continue;
            }
            listed.extend(crate::gates::list(name, gates));
        }
        Ok(listed)
    }
}

/// `unrecognized format "x"` for each format of `crd`'s schemas that
/// Kubernetes does not recognize and `old` did not already use.
pub fn format_warnings(crd: &Definition, old: Option<&Definition>) -> Vec<String> {
    let formats = |crd: &Definition| -> Vec<String> {
        crd.spec
            .versions
            .iter()
            .filter_map(|v| v.schema.as_ref()?.open_api_v3_schema.as_ref())
            .filter_map(|s| serde_json::to_value(s).ok())
            .flat_map(|json| crate::schema::formats::unrecognized(&json))
            .collect()
    };
    let before = old.map(&formats).unwrap_or_default();
    let mut warnings: Vec<String> = Vec::new();
    for format in formats(crd).into_iter().filter(|f| !before.contains(f)) {
        let warning = format!("unrecognized format {format:?}");
        if !warnings.contains(&warning) {
            warnings.push(warning);
        }
    }
    warnings
}
