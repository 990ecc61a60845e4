//! What is served: what a request needs from a definition (names accepted,
//! versions served, scope, schemas, conversion), compiled once per
//! definition revision so the hot path never re-parses a definition, and
//! the catalog resolving a request to it (`catalog.rs`).

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinitionNames, CustomResourceDefinitionVersion,
};

use crate::conversion::Converter;
use crate::error::Result;
use crate::gates::Gates;
use crate::registry::definition::Definition;
use crate::registry::{conditions, definition, naming};
use crate::storage::{Revision, Storage};

pub use crate::apimachinery::strategy::{NameRule, Scope};
pub use catalog::Catalog;
pub use hooks::KindHooks;

mod catalog;
mod hooks;

/// A kind's own table: its columns, and each object's cells.
pub type TableCells = (Vec<PrinterColumn>, Vec<Vec<serde_json::Value>>);

/// The value of selectable `field` in stored `obj`, for a kind with `hooks`.
pub fn field_value(hooks: Option<&dyn KindHooks>, obj: &serde_json::Value, field: &str) -> String {
    if let Some(meta) = field.strip_prefix("metadata.") {
        return crate::apimachinery::meta::meta_str(obj, meta).to_string();
    }
    let own = hooks.into_iter().flat_map(|h| h.selectable_fields().iter());
    let pointers = own.filter(|(f, _)| *f == field).flat_map(|(_, pointers)| pointers.iter());
    let mut values = pointers.filter_map(|p| obj.pointer(p).and_then(serde_json::Value::as_str));
    values.find(|v| !v.is_empty()).unwrap_or("").to_string()
}

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

/// What a create must pass beyond its kind's strategy (Kubernetes'
/// `NamespaceLifecycle` admission, which `builtin` supplies).
pub trait Admission: Send + Sync {
    /// Refuses a create of `name` into `namespace`, or answers an operation
    /// to commit with it (a check of the namespace's revision, so no create
    /// lands once the namespace has started terminating).
    fn admit_create(
        &self,
        store: &dyn Storage,
        served: &Served,
        namespace: &str,
        name: &str,
    ) -> Result<Option<crate::storage::Op>>;
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
    /// The warning every request at a deprecated version gets: its
    /// `deprecationWarning`, or Kubernetes' default text. None when the
    /// version is not deprecated (or its warning is empty).
    pub deprecation: Option<String>,
    /// A read at this version is the read at the storage version with only
    /// `apiVersion` changed: the storage version itself, or any version
    /// under strategy `None` (Kubernetes prunes and defaults what it reads
    /// by the storage version's schema only). Such reads splice stored
    /// bytes; others convert, then take this version's schema.
    pub plain: bool,
    /// The field labels of `selectableFields` (each `jsonPath` without its
    /// leading dot), which field selectors at this version may use beside
    /// `metadata.name` and `metadata.namespace`.
    pub selectable: Vec<String>,
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
    /// A built-in kind's strategy hooks; `None` for custom resources (and
    /// then the create is tied to the stored definition's revision).
    pub hooks: Option<Arc<dyn KindHooks>>,
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
        let shape = shape(crd, accepted);
        let storage_version = definition::storage_version(crd)?.to_string();
        let storage_schema = storage_schema(crd, &storage_version);
        let converter =
            Converter::compile(&crd.spec.group, crd.spec.conversion.as_ref(), webhook_timeout, || crd.declarative());
        // Strategy None reads every version as Kubernetes does: the stored
        // object pruned and defaulted by the storage version's schema, with
        // only `apiVersion` changed (a version's own defaults apply to
        // what is written at it).
        let plain = |name: &str| name == storage_version || converter.is_none();
        Some(Self {
            definition: crd.metadata.name.clone().unwrap_or_default(),
            revision,
            group: crd.spec.group.clone(),
            plural: accepted.plural.clone(),
            singular: accepted.singular.clone().unwrap_or_default(),
            kind: accepted.kind.clone(),
            list_kind: accepted.list_kind.clone().unwrap_or_default(),
            scope: if crd.spec.scope == "Cluster" { Scope::Cluster } else { Scope::Namespaced },
            versions: crd.spec.versions.iter().map(|v| compile_version(crd, v, plain(&v.name))).collect(),
            storage_mark: super::stored::mark::fingerprint(storage_schema.as_deref()),
            storage_version,
            terminating: crd.metadata.deletion_timestamp.is_some() || conditions::is_true(crd, "Terminating"),
            shape,
            gates: Gates::compile(crd.gates.as_ref()),
            converter: Arc::new(converter),
            hooks: None,
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

    /// The warning a request at `version` gets, when it is deprecated.
    pub fn deprecation(&self, version: &str) -> Option<&str> {
        self.version(version).and_then(|v| v.deprecation.as_deref())
    }

    /// Whether a read at `version` needs the converter: anything but the
    /// storage version, unless the strategy is `None` (whose reads only
    /// rewrite `apiVersion`).
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
    /// `<version>` alone in the core group, as Kubernetes spells it.
    pub fn api_version(&self, version: &str) -> String {
        if self.group.is_empty() {
            return version.to_string();
        }
        format!("{}/{version}", self.group)
    }

    /// The merge lists of a strategic merge patch of this kind, beyond
    /// ObjectMeta's; `None` for a custom resource, which has none.
    pub fn strategic_merge_lists(&self) -> Option<&'static [crate::apimachinery::strategic::MergeList]> {
        self.hooks.as_ref().map(|hooks| hooks.merge_lists())
    }

    /// The fields a field selector may name.
    pub fn selectable_fields(&self) -> Vec<&'static str> {
        let meta: &[&str] =
            if self.namespaced() { &["metadata.name", "metadata.namespace"] } else { &["metadata.name"] };
        let own = self.hooks.iter().flat_map(|h| h.selectable_fields().iter().map(|(field, _)| *field));
        meta.iter().copied().chain(own).collect()
    }

    pub fn namespaced(&self) -> bool {
        self.scope == Scope::Namespaced
    }
}

/// A hash of what a definition serves (its spec, declarative conversions
/// and accepted names): a change of it is a change of how objects read.
fn shape(crd: &Definition, accepted: &CustomResourceDefinitionNames) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_string(&crd.spec).unwrap_or_default().hash(&mut h);
    // The versions' declarative conversion is outside k8s-openapi's
    // spec: a change of it changes how objects read, as a schema does.
    serde_json::to_string(&crd.conversions).unwrap_or_default().hash(&mut h);
    serde_json::to_string(accepted).unwrap_or_default().hash(&mut h);
    h.finish()
}

/// The storage version's schema as JSON text, if it has one.
fn storage_schema(crd: &Definition, storage_version: &str) -> Option<String> {
    crd.spec
        .versions
        .iter()
        .find(|v| v.name == storage_version)
        .and_then(|v| v.schema.as_ref())
        .and_then(|s| s.open_api_v3_schema.as_ref())
        .map(|s| serde_json::to_string(s).unwrap_or_default())
}

/// One version of a definition as served: its schema compiled, its printer
/// columns, selectable fields, subresources and deprecation (`plain`: read
/// with only `apiVersion` changed).
fn compile_version(crd: &Definition, v: &CustomResourceDefinitionVersion, plain: bool) -> Version {
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
    Version {
        plain,
        selectable: v
            .selectable_fields
            .iter()
            .flatten()
            .map(|f| f.json_path.strip_prefix('.').unwrap_or(&f.json_path).to_string())
            .collect(),
        name: v.name.clone(),
        served: v.served,
        deprecation: deprecation(crd, v),
        schema,
        columns,
        status: subresources.is_some_and(|s| s.status.is_some()),
        scale: subresources.and_then(|s| s.scale.as_ref()).map(|scale| ScalePaths {
            spec_replicas: scale.spec_replicas_path.clone(),
            status_replicas: scale.status_replicas_path.clone(),
            label_selector: scale.label_selector_path.clone().filter(|p| !p.is_empty()),
        }),
    }
}

/// The warning of a deprecated version: its own, or Kubernetes' default
/// (`defaultDeprecationWarning`), which names the newest served version
/// that is not deprecated and is newer than it, if any. An empty warning
/// is no warning, as Kubernetes' recorder drops empty ones.
fn deprecation(crd: &Definition, version: &CustomResourceDefinitionVersion) -> Option<String> {
    if version.deprecated != Some(true) {
        return None;
    }
    if let Some(warning) = &version.deprecation_warning {
        return Some(warning.clone()).filter(|w| !w.is_empty());
    }
    let (group, kind) = (&crd.spec.group, &crd.spec.names.kind);
    let mut text = format!("{group}/{} {kind} is deprecated", version.name);
    let newer = crd
        .spec
        .versions
        .iter()
        .filter(|v| v.served && v.deprecated != Some(true))
        .filter(|v| compare_kube_aware(&version.name, &v.name).is_lt())
        .max_by(|a, b| compare_kube_aware(&a.name, &b.name));
    if let Some(newer) = newer {
        text.push_str(&format!("; use {group}/{} {kind}", newer.name));
    }
    Some(text)
}

/// Kubernetes' `CompareKubeAwareVersionStrings`: versions like v2, v1beta2
/// and v1alpha1 order GA over beta over alpha, then by major and minor
/// number; any of them is newer than a version not of that form, and those
/// order in reverse lexical order.
pub fn compare_kube_aware(a: &str, b: &str) -> std::cmp::Ordering {
    /// (stage: alpha 0, beta 1, GA 2; major; minor)
    fn parse(v: &str) -> Option<(u8, u64, u64)> {
        let digits = v.strip_prefix('v')?;
        let end = digits.find(|c: char| !c.is_ascii_digit()).unwrap_or(digits.len());
        let major = digits[..end].parse().ok()?;
        match &digits[end..] {
            "" => Some((2, major, 0)),
            rest => {
                let (stage, minor) = match rest.strip_prefix("alpha") {
                    Some(minor) => (0, minor),
                    None => (1, rest.strip_prefix("beta")?),
                };
                (!minor.is_empty() && minor.bytes().all(|b| b.is_ascii_digit()))
                    .then(|| minor.parse().ok().map(|minor| (stage, major, minor)))
                    .flatten()
            }
        }
    }
    if a == b {
        return std::cmp::Ordering::Equal;
    }
    match (parse(a), parse(b)) {
        (None, None) => b.cmp(a),
        (None, Some(_)) => std::cmp::Ordering::Less,
        (Some(_), None) => std::cmp::Ordering::Greater,
        (Some(x), Some(y)) => x.cmp(&y),
    }
}

#[cfg(test)]
mod tests;
