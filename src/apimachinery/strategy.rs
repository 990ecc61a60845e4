//! The strategy contract every kind's writes follow, as k8s.io/apiserver's
//! `rest.RESTCreateStrategy` and `rest.RESTUpdateStrategy`: what the server
//! owns on create and update is written once here, and each kind supplies
//! only its hooks (`Strategy`). A status endpoint is the main strategy plus
//! one override (`StatusStrategy`).
//!
//! A write runs these phases in order. Later work plugs in as a phase, never
//! as a branch inside a kind's create or update:
//!
//! 1. **decode** (the caller): parse the body, check its identity against
//!    the request (`Operation`), then prune and default it at the request
//!    version's schema. Conversion to the storage version belongs here.
//! 2. **preconditions** (update): the resourceVersion the client read is
//!    required and current (`require_resource_version`; a patch makes it
//!    optional), and a uid precondition holds (`meta::check_preconditions`).
//! 3. **prepare** (`before_create`, `before_update`): the server's metadata
//!    (uid, creationTimestamp, generation, deletion fields), then the kind's
//!    `prepare_for_*`, which may mutate, then `drop_disabled_fields`
//!    (field-level gates drop disabled fields here, as Kubernetes'
//!    `dropDisabledFields` does, with a warning each), then the generation.
//! 4. **validate**: the metadata every object follows, then the kind's
//!    `validate*`, which must not mutate; all errors are collected.
//! 5. **canonicalize**: the kind's last word on the stored form; then the
//!    **managed fields** (`before_create_tracked`, `before_update_tracked`):
//!    server-side apply's bookkeeping (`Track`, implemented by `apply/`)
//!    records the write in `metadata.managedFields` over the object as it
//!    will be stored, from the managedFields the request carried (prepare
//!    drops them from the object) and the live object. An apply merged its
//!    object before phase 1 and only keeps the managedFields it computed.
//! 6. **commit** (the caller): the stored form is refused over the size
//!    limit (`meta::check_stored_size`), then committed with the
//!    precondition it was prepared against. A concurrent write is retried
//!    from phase 2 under one policy (`retry`).

use std::future::Future;

use serde_json::Value;

use super::dns;
use super::meta;
pub use super::meta::Scope;
use crate::error::{Error, FieldError, Result};
use crate::storage::Revision;

/// How many times a read-modify-write loop tries before giving up, for
/// every such loop (patch, delete, scale, a create with a generated name):
/// Kubernetes' `maxNameGenerationCreateAttempts` and its patch retries.
pub const ATTEMPTS: usize = 8;

/// Runs one attempt of a read-modify-write at a time, until one gives an
/// answer (`Some`) or `ATTEMPTS` have lost to concurrent writes (`None`);
/// then `exhausted` is the error.
pub async fn retry<T, F, Fut>(mut attempt: F, exhausted: impl FnOnce() -> Error) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Option<T>>>,
{
    for _ in 0..ATTEMPTS {
        if let Some(answer) = attempt().await? {
            return Ok(answer);
        }
    }
    Err(exhausted())
}

/// Whether a write makes a new object or replaces one: the body checks
/// differ (an update's name must match the URL's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Create,
    Update,
}

/// What a write addresses: the object itself, its status subresource
/// (whose writes go through `StatusStrategy`), or a namespace's `finalize`
/// subresource (`FinalizeStrategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    Main,
    Status,
    Finalize,
}

/// How `metadata.name` is checked by the common metadata validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRule {
    /// A DNS-1123 subdomain (custom resources and most kinds).
    Dns1123Subdomain,
    /// By the kind's own `validate` (definitions, whose name must also be
    /// `<plural>.<group>`).
    KindValidates,
}

/// What a validation hook found: errors block the write, warnings travel
/// back with its answer.
#[derive(Debug, Default)]
pub struct Checked {
    pub errors: Vec<FieldError>,
    pub warnings: Vec<String>,
}

impl From<Vec<FieldError>> for Checked {
    fn from(errors: Vec<FieldError>) -> Self {
        Self { errors, warnings: Vec::new() }
    }
}

/// A kind's part of the contract. Objects are JSON values throughout, as
/// they are stored and served.
pub trait Strategy {
    /// Whether the kind's objects live in namespaces.
    fn scope(&self) -> Scope;

    /// How the common metadata validation checks `metadata.name`.
    fn name_rule(&self) -> NameRule {
        NameRule::Dns1123Subdomain
    }

    /// An Invalid error about an object of this kind.
    fn invalid(&self, name: &str, causes: Vec<FieldError>) -> Error;

    /// Runs on create after the server has set its metadata and before
    /// validation. May mutate `obj`: clear what the endpoint does not own,
    /// apply the kind's defaults.
    fn prepare_for_create(&self, obj: &mut Value);

    /// Runs on update after the server's metadata of `old` is carried into
    /// `obj` and before validation. May mutate `obj`, never `old`: keep what
    /// the endpoint does not own.
    fn prepare_for_update(&self, obj: &mut Value, old: &Value);

    /// The last step of prepare, as Kubernetes' `dropDisabledFields`: drops
    /// (or, when `old` has them, keeps as stored) the fields of disabled
    /// feature gates. Runs after `prepare_for_create` or
    /// `prepare_for_update` and before the generation is computed; returns
    /// a warning per field it dropped or ignored.
    fn drop_disabled_fields(&self, _obj: &mut Value, _old: Option<&Value>) -> Vec<String> {
        Vec::new()
    }

    /// Whether `obj` is a new generation of `old` (the spec changed). Runs
    /// after `prepare_for_update`; must not mutate.
    fn generation_changed(&self, obj: &Value, old: &Value) -> bool;

    /// The kind's checks of a new object. Must not mutate.
    fn validate(&self, obj: &Value) -> Checked;

    /// The kind's checks of an update. Must not mutate.
    fn validate_update(&self, obj: &Value, old: &Value) -> Checked;

    /// Runs last, once validation passed. May mutate `obj` into its
    /// canonical stored form.
    fn canonicalize(&self, _obj: &mut Value) {}

    /// The status endpoint's prepare (see `StatusStrategy`): by default
    /// `obj` becomes `old` with `obj`'s status. May mutate `obj`.
    fn prepare_for_status_update(&self, obj: &mut Value, old: &Value) {
        let status = obj.as_object_mut().and_then(|map| map.remove("status"));
        *obj = old.clone();
        set_status(obj, status);
    }

    /// The status endpoint's checks; by default the update's. Must not
    /// mutate.
    fn validate_status_update(&self, obj: &Value, old: &Value) -> Checked {
        self.validate_update(obj, old)
    }
}

/// Sets `obj`'s status to `status`, or removes it when there is none.
pub fn set_status(obj: &mut Value, status: Option<Value>) {
    let map = obj.as_object_mut().expect("objects are JSON objects");
    match status {
        Some(status) => map.insert("status".into(), status),
        None => map.remove("status"),
    };
}

/// The status endpoint of a kind: its main strategy with one override, the
/// update, which takes only status from the body and keeps everything else
/// of the stored object (`prepare_for_status_update`), and checks what the
/// status endpoint may change (`validate_status_update`), as
/// apiextensions-apiserver's `statusStrategy`.
pub struct StatusStrategy<'a, S>(pub &'a S);

impl<S: Strategy> Strategy for StatusStrategy<'_, S> {
    fn scope(&self) -> Scope {
        self.0.scope()
    }

    fn name_rule(&self) -> NameRule {
        self.0.name_rule()
    }

    fn invalid(&self, name: &str, causes: Vec<FieldError>) -> Error {
        self.0.invalid(name, causes)
    }

    fn prepare_for_create(&self, obj: &mut Value) {
        self.0.prepare_for_create(obj)
    }

    fn prepare_for_update(&self, obj: &mut Value, old: &Value) {
        self.0.prepare_for_status_update(obj, old)
    }

    fn drop_disabled_fields(&self, obj: &mut Value, old: Option<&Value>) -> Vec<String> {
        self.0.drop_disabled_fields(obj, old)
    }

    fn generation_changed(&self, obj: &Value, old: &Value) -> bool {
        self.0.generation_changed(obj, old)
    }

    fn validate(&self, obj: &Value) -> Checked {
        self.0.validate(obj)
    }

    fn validate_update(&self, obj: &Value, old: &Value) -> Checked {
        self.0.validate_status_update(obj, old)
    }

    fn canonicalize(&self, obj: &mut Value) {
        self.0.canonicalize(obj)
    }
}

/// The `finalize` subresource's override of a kind's strategy, as
/// Kubernetes' `namespaceFinalizeStrategy`: the body's spec (its
/// finalizers) and metadata are written, the status is kept; validation is
/// the main endpoint's.
pub struct FinalizeStrategy<'a, S>(pub &'a S);

impl<S: Strategy> Strategy for FinalizeStrategy<'_, S> {
    fn scope(&self) -> Scope {
        self.0.scope()
    }

    fn name_rule(&self) -> NameRule {
        self.0.name_rule()
    }

    fn invalid(&self, name: &str, causes: Vec<FieldError>) -> Error {
        self.0.invalid(name, causes)
    }

    fn prepare_for_create(&self, obj: &mut Value) {
        self.0.prepare_for_create(obj)
    }

    fn prepare_for_update(&self, obj: &mut Value, old: &Value) {
        match (old.get("status"), obj.as_object_mut()) {
            (Some(status), Some(new)) => new.insert("status".into(), status.clone()),
            (None, Some(new)) => new.remove("status"),
            _ => None,
        };
    }

    fn drop_disabled_fields(&self, obj: &mut Value, old: Option<&Value>) -> Vec<String> {
        self.0.drop_disabled_fields(obj, old)
    }

    fn generation_changed(&self, obj: &Value, old: &Value) -> bool {
        self.0.generation_changed(obj, old)
    }

    fn validate(&self, obj: &Value) -> Checked {
        self.0.validate(obj)
    }

    fn validate_update(&self, obj: &Value, old: &Value) -> Checked {
        self.0.validate_update(obj, old)
    }

    fn canonicalize(&self, obj: &mut Value) {
        self.0.canonicalize(obj)
    }
}

/// The server's side of a create, as `rest.BeforeCreate`: server metadata,
/// `prepare_for_create`, a generated name, validation, canonicalization.
/// `namespace` is the request's ("" for cluster-scoped kinds). Returns the
/// validation warnings.
pub fn before_create(strategy: &impl Strategy, obj: &mut Value, namespace: &str) -> Result<Vec<String>> {
    if !meta::meta_str(obj, "resourceVersion").is_empty() {
        return Err(Error::bad_request("resourceVersion should not be set on objects to be created"));
    }
    meta::keep_server_metadata(obj, None);
    let metadata = meta::metadata_mut(obj);
    metadata.insert("uid".into(), Value::String(meta::new_uid()));
    metadata.insert("creationTimestamp".into(), Value::String(meta::now_timestamp()));
    metadata.insert("generation".into(), Value::from(1));
    metadata.remove("resourceVersion");
    match strategy.scope() {
        Scope::Namespaced => metadata.insert("namespace".into(), Value::String(namespace.into())),
        Scope::Cluster => metadata.remove("namespace"),
    };
    strategy.prepare_for_create(obj);
    let mut warnings = strategy.drop_disabled_fields(obj, None);
    if meta::meta_str(obj, "name").is_empty() && !meta::meta_str(obj, "generateName").is_empty() {
        let name = meta::generate_name(meta::meta_str(obj, "generateName"));
        meta::metadata_mut(obj).insert("name".into(), Value::String(name));
    }
    let mut errors = validate_object_meta(strategy, obj);
    let checked = strategy.validate(obj);
    errors.extend(checked.errors);
    if !errors.is_empty() {
        return Err(strategy.invalid(meta::meta_str(obj, "name"), errors));
    }
    strategy.canonicalize(obj);
    warnings.extend(checked.warnings);
    Ok(warnings)
}

/// The server's side of an update, as `rest.BeforeUpdate`: the server
/// metadata of `old` carried over, `prepare_for_update`, the generation,
/// validation, canonicalization. Returns the validation warnings.
pub fn before_update(strategy: &impl Strategy, obj: &mut Value, old: &Value) -> Result<Vec<String>> {
    meta::keep_server_metadata(obj, Some(old));
    strategy.prepare_for_update(obj, old);
    let mut warnings = strategy.drop_disabled_fields(obj, Some(old));
    let generation = meta::generation(old) + i64::from(strategy.generation_changed(obj, old));
    let metadata = meta::metadata_mut(obj);
    metadata.insert("generation".into(), Value::from(generation));
    metadata.remove("resourceVersion");
    match old.get("metadata").and_then(|m| m.get("namespace")) {
        Some(namespace) => metadata.insert("namespace".into(), namespace.clone()),
        None => metadata.remove("namespace"),
    };
    let mut errors = validate_object_meta(strategy, obj);
    errors.extend(validate_finalizers_on_update(obj, old));
    let checked = strategy.validate_update(obj, old);
    errors.extend(checked.errors);
    if !errors.is_empty() {
        return Err(strategy.invalid(meta::meta_str(obj, "name"), errors));
    }
    strategy.canonicalize(obj);
    warnings.extend(checked.warnings);
    Ok(warnings)
}

/// The managed-fields phase (5b): records a write in `metadata.managedFields`.
pub trait Track {
    /// Records the write of `obj` over `old` (None: a create); `requested`
    /// is the request's `metadata.managedFields`, if it carried any.
    fn track(&self, obj: &mut Value, old: Option<&Value>, requested: Option<Value>);
}

fn take_managed_fields(obj: &mut Value) -> Option<Value> {
    obj.get_mut("metadata").and_then(Value::as_object_mut).and_then(|m| m.remove("managedFields"))
}

/// `before_create`, then the managed-fields phase.
pub fn before_create_tracked(
    strategy: &impl Strategy,
    obj: &mut Value,
    namespace: &str,
    track: &dyn Track,
) -> Result<Vec<String>> {
    let requested = take_managed_fields(obj);
    let warnings = before_create(strategy, obj, namespace)?;
    track.track(obj, None, requested);
    Ok(warnings)
}

/// `before_update`, then the managed-fields phase.
pub fn before_update_tracked(
    strategy: &impl Strategy,
    obj: &mut Value,
    old: &Value,
    track: &dyn Track,
) -> Result<Vec<String>> {
    let requested = take_managed_fields(obj);
    let warnings = before_update(strategy, obj, old)?;
    track.track(obj, Some(old), requested);
    Ok(warnings)
}

/// An update's resourceVersion: required, and the stored one (`stored`),
/// as for every kind that does not allow unconditional updates.
pub fn require_resource_version(
    strategy: &impl Strategy,
    subject: &meta::Subject<'_>,
    obj: &Value,
    stored: Revision,
) -> Result<()> {
    if let Some(cause) = meta::check_resource_version_type(obj) {
        return Err(strategy.invalid(subject.name, vec![cause]));
    }
    let rv = meta::meta_str(obj, "resourceVersion");
    if rv.is_empty() {
        let cause =
            FieldError::invalid("metadata.resourceVersion", Value::Null, "must be specified for an update").raw("0x0");
        return Err(strategy.invalid(subject.name, vec![cause]));
    }
    if meta::parse_resource_version(rv)? != Some(stored) {
        return Err(Error::stale(subject.group, subject.resource, subject.name));
    }
    Ok(())
}

/// The metadata rules every object follows, as `ValidateObjectMeta`: name,
/// namespace, owner references, labels, annotations, finalizers.
pub fn validate_object_meta(strategy: &impl Strategy, obj: &Value) -> Vec<FieldError> {
    let mut errs = match strategy.name_rule() {
        NameRule::Dns1123Subdomain => meta::validate_name(obj, dns::dns1123_subdomain),
        NameRule::KindValidates => Vec::new(),
    };
    if strategy.scope() == Scope::Namespaced {
        let namespace = meta::meta_str(obj, "namespace");
        for problem in dns::dns1123_label(namespace) {
            errs.push(FieldError::invalid("metadata.namespace", namespace, problem));
        }
    }
    let namespace = if strategy.scope() == Scope::Namespaced { meta::meta_str(obj, "namespace") } else { "" };
    errs.extend(super::owner::validate(obj, namespace));
    validate_string_map(obj, "labels", &mut errs);
    validate_string_map(obj, "annotations", &mut errs);
    if let Some(finalizers) = obj.get("metadata").and_then(|m| m.get("finalizers")) {
        match finalizers.as_array() {
            Some(items) => {
                for (i, f) in items.iter().enumerate() {
                    if !f.is_string() {
                        let path = format!("metadata.finalizers[{i}]");
                        errs.push(FieldError::type_invalid(path, f.clone(), "must be a string"));
                    }
                }
            }
            None => errs.push(FieldError::type_invalid(
                "metadata.finalizers",
                finalizers.clone(),
                "must be a list of strings",
            )),
        }
    }
    errs
}

/// Checks `metadata.labels` or `metadata.annotations`: a map of strings
/// with qualified-name keys (and, for labels, valid label values).
fn validate_string_map(obj: &Value, field: &str, errs: &mut Vec<FieldError>) {
    let path = format!("metadata.{field}");
    let Some(map) = obj.get("metadata").and_then(|m| m.get(field)) else { return };
    let Some(map) = map.as_object() else {
        errs.push(FieldError::type_invalid(path, map.clone(), "must be a map of strings"));
        return;
    };
    for (key, value) in map {
        let Some(value) = value.as_str() else {
            errs.push(FieldError::type_invalid(format!("{path}.{key}"), value.clone(), "must be a string"));
            continue;
        };
        for problem in dns::qualified_name(key) {
            errs.push(FieldError::invalid(path.clone(), key.as_str(), problem));
        }
        if field == "labels" {
            for problem in dns::label_value(value) {
                errs.push(FieldError::invalid(path.clone(), value, problem));
            }
        }
    }
}

/// No finalizer may be added once an object is being deleted.
pub fn validate_finalizers_on_update(obj: &Value, old: &Value) -> Vec<FieldError> {
    if !meta::deleting(old) {
        return Vec::new();
    }
    let before = meta::finalizers(old);
    let added: Vec<String> = meta::finalizers(obj).into_iter().filter(|f| !before.contains(f)).collect();
    if added.is_empty() {
        return Vec::new();
    }
    let quoted: Vec<String> = added.iter().map(|f| format!("{f:?}")).collect();
    vec![FieldError::forbidden(
        "metadata.finalizers",
        format!(
            "no new finalizers can be added if the object is being deleted, found new finalizers []string{{{}}}",
            quoted.join(", ")
        ),
    )]
}

#[cfg(test)]
#[path = "strategy_tests.rs"]
mod tests;
