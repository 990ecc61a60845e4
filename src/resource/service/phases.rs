//! The phases of a write that every verb shares, beside the strategy
//! contract: admission's decoding by the kind's type, pruning and defaulting by the version's schema
//! (with `fieldValidation`'s verdict on what they dropped), the lock a kind
//! holds while it settles, and the checks a kind's state makes.

use serde_json::Value;

use super::{Endpoint, Resources};
use crate::apimachinery::decode;
use crate::apimachinery::meta;
use crate::apimachinery::options::WriteOptions;
use crate::error::{Error, Result};
use crate::resource::served::Served;

impl Resources {
    /// Decodes the body as its kind's type when the kind has one
    /// (`KindHooks::decode`), prunes what the schema of `version` does not
    /// know and notes fields the body repeated (refusing both under
    /// `Strict`, warning under `Warn`), then applies its defaults. On the
    /// status endpoint only what is under `status` counts.
    pub(super) fn admit(
        served: &Served,
        version: &str,
        obj: &mut Value,
        duplicates: &[String],
        endpoint: Endpoint,
        options: &WriteOptions,
    ) -> Result<Vec<String>> {
        if let Some(hooks) = &served.hooks {
            hooks.decode(obj)?;
        }
        let schema = served.schema(version);
        let mut dropped = match schema {
            Some(schema) => tracing::debug_span!("admission.prune").in_scope(|| crate::schema::prune(obj, schema)),
            None => Vec::new(),
        };
        let mut duplicates = duplicates.to_vec();
        if endpoint == Endpoint::Status {
            let in_status =
                |path: &String| path == "status" || path.starts_with("status.") || path.starts_with("status[");
            dropped.retain(in_status);
            duplicates.retain(in_status);
        }
        let mut unknown = decode::duplicate_fields(&duplicates);
        unknown.extend(dropped.iter().map(|path| format!("unknown field {}", crate::error::quoted(path))));
        let warnings = decode::field_validation(unknown, options.field_validation)?;
        if let Some(schema) = schema {
            tracing::debug_span!("admission.default").in_scope(|| crate::schema::apply_defaults(obj, schema));
        }
        Ok(warnings)
    }
}

/// Whether a write leaves `obj` deleted: being deleted, with no finalizer
/// (nor one of its kind's own) left.
pub(super) fn finished(served: &Served, obj: &Value) -> bool {
    meta::deleting(obj)
        && meta::finalizers(obj).is_empty()
        && !served.hooks.as_ref().is_some_and(|hooks| hooks.holds(obj))
}

/// The lock of the kind's writes, held from settling to the commit, when
/// the kind has one.
pub(super) async fn serial(served: &Served) -> Option<tokio::sync::MutexGuard<'_, ()>> {
    match served.hooks.as_ref().and_then(|hooks| hooks.serial()) {
        Some(lock) => Some(lock.lock().await),
        None => None,
    }
}

/// Kubernetes' forbidCreateAdmission: no create while the definition
/// terminates.
pub(super) fn forbid_create(served: &Served, name: &str) -> Error {
    let mut err = Error::forbidden(format!(
        "{}.{} {} is forbidden: create not allowed while custom resource definition is terminating",
        served.plural,
        served.group,
        crate::error::quoted(name)
    ));
    err.details.group = served.group.clone();
    err.details.kind = served.plural.clone();
    err.details.name = crate::error::shown(name).into_owned();
    err
}
