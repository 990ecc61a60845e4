//! What is served: resolving a request's group, version and resource to the
//! definition that serves it (names accepted, version served, scope), and
//! caching what a request needs from a definition by the definition's
//! revision, so the hot path never re-parses a definition.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use crate::conversion::Converter;
use crate::error::{Error, Result};
use crate::gates::Gates;
use crate::registry::definition::Definition;
use crate::registry::{conditions, definition, naming};
use crate::storage::{keys, Revision, Storage};

pub use crate::apimachinery::strategy::Scope;

/// The scale subresource of a version: where its numbers live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScalePaths {
    /// `.spec.replicas`-style path of the desired replicas.
    pub spec_replicas: String,
    /// Path of the observed replicas, under `.status`.
    pub status_replicas: String,
    /// Path of the serialized label selector, when any.
    pub label_selector: Option<String>,
}

/// One version of a definition, as served.
#[derive(Debug, Clone)]
pub struct Version {
    pub name: String,
    pub served: bool,
    /// The status subresource is enabled.
    pub status: bool,
    /// The scale subresource, when enabled.
    pub scale: Option<ScalePaths>,
    /// The version's schema, compiled once per definition revision.
    pub schema: Option<Arc<crate::schema::Schema>>,
    /// `additionalPrinterColumns`, for tables.
    pub columns: Vec<PrinterColumn>,
    /// A read at this version is the read at the storage version with only
    /// `apiVersion` changed: the storage version itself, or (strategy
    /// `None`) a version whose schema prunes and defaults as the storage
    /// version's does. Such reads splice stored bytes; others convert.
    pub plain: bool,
}

/// A column of the version's tables (`additionalPrinterColumns`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrinterColumn {
    pub name: String,
    /// integer, number, string, boolean or date.
    pub type_: String,
    pub format: String,
    pub description: String,
    pub priority: i32,
    pub json_path: String,
}

/// What a request needs to know about the definition serving it.
#[derive(Debug)]
pub struct Served {
    /// The definition's name and revision (a change means re-resolving).
    pub definition: String,
    pub revision: Revision,
    pub group: String,
    pub plural: String,
    pub singular: String,
    pub kind: String,
    pub list_kind: String,
    pub scope: Scope,
    pub versions: Vec<Version>,
    pub storage_version: String,
    /// The definition is being deleted: creates are refused.
    pub terminating: bool,
    /// The fingerprint of the storage version's schema: stored objects
    /// marked with it are already pruned and defaulted by it
    /// (`stored::render`).
    pub storage_mark: u64,
    /// A fingerprint of what open watches depend on (spec and accepted
    /// names): when it changes, they end so clients re-list.
    pub shape: u64,
    /// `spec.customFeatureGates`, compiled: applied to every write before
    /// it is stored. Not part of `shape`: a toggle changes no stored
    /// object, so open watches go on.
    pub gates: Gates,
    /// `spec.conversion`, compiled: every read and write at a version other
    /// than the storage version converts through it.
    pub converter: Arc<Converter>,
}

impl Served {
    #[cfg(test)]
    pub(crate) fn from_definition(crd: &Definition, revision: Revision) -> Option<Self> {
        Self::compile(crd, revision, crate::conversion::webhook::DEFAULT_TIMEOUT)
    }

    /// `from_definition`, with conversion webhook calls bounded by
    /// `webhook_timeout`.
    pub(crate) fn compile(crd: &Definition, revision: Revision, webhook_timeout: Duration) -> Option<Self> {
        if !naming::is_served(crd) {
            return None;
        }
        let accepted = crd.status.as_ref()?.accepted_names.as_ref()?;
        let shape = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            serde_json::to_string(&crd.spec).unwrap_or_default().hash(&mut h);
            serde_json::to_string(accepted).unwrap_or_default().hash(&mut h);
            h.finish()
        };
        let storage_version = definition::storage_version(crd)?.to_string();
        let storage_schema = crd
            .spec
            .versions
            .iter()
            .find(|v| v.name == storage_version)
            .and_then(|v| v.schema.as_ref())
            .and_then(|s| s.open_api_v3_schema.as_ref())
            .map(|s| serde_json::to_string(s).unwrap_or_default());
        let converter = Converter::compile(&crd.spec.group, crd.spec.conversion.as_ref(), webhook_timeout);
        let plain = |name: &str, schema: Option<String>| {
            name == storage_version || (converter.is_none() && (schema.is_none() || schema == storage_schema))
        };
        Some(Self {
            definition: crd.metadata.name.clone().unwrap_or_default(),
            revision,
            group: crd.spec.group.clone(),
            plural: accepted.plural.clone(),
            singular: accepted.singular.clone().unwrap_or_default(),
            kind: accepted.kind.clone(),
            list_kind: accepted.list_kind.clone().unwrap_or_default(),
            scope: if crd.spec.scope == "Cluster" { Scope::Cluster } else { Scope::Namespaced },
            versions: crd
                .spec
                .versions
                .iter()
                .map(|v| {
                    let subresources = v.subresources.as_ref();
                    let schema = v
                        .schema
                        .as_ref()
                        .and_then(|s| s.open_api_v3_schema.as_ref())
                        .and_then(|s| serde_json::to_value(s).ok())
                        .and_then(|json| crate::schema::Schema::compile(&json).ok())
                        .map(Arc::new);
                    let columns = v
                        .additional_printer_columns
                        .iter()
                        .flatten()
                        .map(|c| PrinterColumn {
                            name: c.name.clone(),
                            type_: c.type_.clone(),
                            format: c.format.clone().unwrap_or_default(),
                            description: c.description.clone().unwrap_or_default(),
                            priority: c.priority.unwrap_or(0),
                            json_path: c.json_path.clone(),
                        })
                        .collect();
                    let own_schema = v
                        .schema
                        .as_ref()
                        .and_then(|s| s.open_api_v3_schema.as_ref())
                        .map(|s| serde_json::to_string(s).unwrap_or_default());
                    Version {
                        plain: plain(&v.name, own_schema),
                        name: v.name.clone(),
                        served: v.served,
                        schema,
                        columns,
                        status: subresources.is_some_and(|s| s.status.is_some()),
                        scale: subresources.and_then(|s| s.scale.as_ref()).map(|scale| ScalePaths {
                            spec_replicas: scale.spec_replicas_path.clone(),
                            status_replicas: scale.status_replicas_path.clone(),
                            label_selector: scale.label_selector_path.clone().filter(|p| !p.is_empty()),
                        }),
                    }
                })
                .collect(),
            storage_mark: super::stored::fingerprint(storage_schema.as_deref()),
            storage_version,
            terminating: crd.metadata.deletion_timestamp.is_some() || conditions::is_true(crd, "Terminating"),
            shape,
            gates: Gates::compile(crd.gates.as_ref()),
            converter: Arc::new(converter),
        })
    }

    /// Whether `version` is served.
    pub fn serves(&self, version: &str) -> bool {
        self.versions.iter().any(|v| v.name == version && v.served)
    }

    /// The served version named `version`.
    pub fn version(&self, version: &str) -> Option<&Version> {
        self.versions.iter().find(|v| v.name == version && v.served)
    }

    /// The scale paths of `version`, when it has the scale subresource.
    pub fn scale_paths(&self, version: &str) -> Option<&ScalePaths> {
        self.version(version).and_then(|v| v.scale.as_ref())
    }

    /// The compiled schema of the storage version (served or not).
    pub fn storage_schema(&self) -> Option<&crate::schema::Schema> {
        self.versions.iter().find(|v| v.name == self.storage_version).and_then(|v| v.schema.as_deref())
    }

    /// The compiled schema of `version`.
    pub fn schema(&self, version: &str) -> Option<&crate::schema::Schema> {
        self.version(version).and_then(|v| v.schema.as_deref())
    }

    /// Whether a read at `version` needs the converter: anything but the
    /// storage version, unless the strategy is `None` (whose reads only
    /// rewrite `apiVersion` and default at the read version, in place).
    pub fn converts(&self, version: &str) -> bool {
        version != self.storage_version && !self.converter.is_none()
    }

    /// Whether a read at `version` is the storage version's read with only
    /// `apiVersion` changed (`Version::plain`).
    pub fn plain(&self, version: &str) -> bool {
        version == self.storage_version || self.versions.iter().any(|v| v.name == version && v.plain)
    }

    /// Whether `version` has the status subresource.
    pub fn has_status(&self, version: &str) -> bool {
        self.version(version).is_some_and(|v| v.status)
    }

    /// `<group>/<version>`.
    pub fn api_version(&self, version: &str) -> String {
        format!("{}/{version}", self.group)
    }

    pub fn namespaced(&self) -> bool {
        self.scope == Scope::Namespaced
    }
}

/// Resolves and caches served definitions.
pub struct Catalog {
    cache: RwLock<HashMap<String, Arc<Served>>>,
    /// The bound of every conversion webhook call.
    webhook_timeout: Duration,
}

impl Default for Catalog {
    fn default() -> Self {
        Self::new(crate::conversion::webhook::DEFAULT_TIMEOUT)
    }
}

/// `NotFound` for a resource type, in Kubernetes' words.
fn no_resource(group: &str, version: &str, plural: &str) -> Error {
    Error::no_resource(format_args!("{plural}.{version}.{group}"), "")
}

impl Catalog {
    /// An empty catalog whose definitions call conversion webhooks with
    /// `webhook_timeout`.
    pub fn new(webhook_timeout: Duration) -> Self {
        Self { cache: RwLock::default(), webhook_timeout }
    }

    /// The definition serving `plural` in `group`, whatever the version.
    pub fn resolve_any(&self, store: &dyn Storage, group: &str, plural: &str) -> Option<Arc<Served>> {
        let name = format!("{plural}.{group}");
        let kv = store.get(&keys::definition_key(&name))?;
        if let Some(hit) = self.cache.read().expect("catalog lock").get(&name) {
            if hit.revision == kv.mod_revision {
                return Some(hit.clone());
            }
        }
        let crd = definition::decode(&kv).ok()?;
        let served = Arc::new(Served::compile(&crd, kv.mod_revision, self.webhook_timeout)?);
        if served.plural != plural {
            return None;
        }
        self.cache.write().expect("catalog lock").insert(name, served.clone());
        Some(served)
    }

    /// The definition serving `group/version/plural`, or NotFound: unknown,
    /// names not accepted, or version not served.
    pub fn resolve(&self, store: &dyn Storage, group: &str, version: &str, plural: &str) -> Result<Arc<Served>> {
        match self.resolve_any(store, group, plural) {
            Some(served) if served.serves(version) => Ok(served),
            _ => Err(no_resource(group, version, plural)),
        }
    }
}
