//! Server-side apply of custom resources (a PATCH of type
//! `application/apply-patch+yaml`: the engine of `apply/` merges, then the
//! merge is written as any patch is, so defaulting, pruning, validation,
//! conversion and gates apply to it), and the managed-fields phase every
//! other write runs (`tracking`).

use serde_json::Value;

use super::{Endpoint, Resources, Target};
use crate::apimachinery::meta;
use crate::apimachinery::options::{WriteOptions, Written};
use crate::apimachinery::patch::PatchType;
use crate::apimachinery::strategy::{retry, Operation};
use crate::apply::{self, FieldManager, Tracking, Ty};
use crate::error::{Error, Result};
use crate::resource::served::Served;
use crate::resource::stored;
use crate::resource::strategy::{self, Ref};

/// The field manager of `version` at `endpoint`.
pub(super) fn field_manager<'s>(served: &'s Served, version: &str, endpoint: Endpoint) -> FieldManager<'s> {
    let status = endpoint == Endpoint::Status;
    FieldManager {
        ty: Ty::root(served.schema(version)),
        api_version: served.api_version(version),
        kind: served.kind.clone(),
        subresource: match endpoint {
            Endpoint::Main => String::new(),
            Endpoint::Status => "status".into(),
            Endpoint::Finalize => "finalize".into(),
        },
        reset: apply::reset_fields(served.has_status(version), status),
        now: apply::now(),
    }
}

/// How a write records its managedFields: an Update by the request's
/// manager, or an apply's own.
pub(super) fn tracking<'s>(
    served: &'s Served,
    version: &str,
    endpoint: Endpoint,
    options: &WriteOptions,
    applied: bool,
) -> Tracking<'s> {
    match applied {
        true => Tracking::Applied,
        false => {
            Tracking::Update { fm: field_manager(served, version, endpoint), manager: options.field_manager.clone() }
        }
    }
}

pub(super) use crate::apply::{check_field_manager, check_patch_options};

impl Resources {
    /// Applies `patch` (the applied configuration as JSON) by
    /// `options.field_manager` (a PATCH of type Apply); creates the object
    /// when it does not exist (`Written::created`).
    pub async fn apply(&self, r: &Ref, endpoint: Endpoint, patch: &[u8], options: &WriteOptions) -> Result<Written> {
        check_patch_options(PatchType::Apply, options)?;
        let served = self.served_object(r)?;
        if endpoint == Endpoint::Status {
            Self::require_status(&served, r)?;
        }
        meta::check_body_size(patch)?;
        self.apply_at(&served, r, endpoint, patch, options).await
    }

    pub(super) async fn apply_at(
        &self,
        served: &Served,
        r: &Ref,
        endpoint: Endpoint,
        patch: &[u8],
        options: &WriteOptions,
    ) -> Result<Written> {
        let (config, _) = crate::apimachinery::decode::object(patch)?;
        retry(
            || self.apply_once(r, endpoint, &config, options),
            || Error::stale(&served.group, &served.plural, &r.name),
        )
        .await
    }

    /// One attempt, resolved afresh: the definition may have changed since
    /// the last.
    async fn apply_once(
        &self,
        r: &Ref,
        endpoint: Endpoint,
        config: &Value,
        options: &WriteOptions,
    ) -> Result<Option<Written>> {
        let served = &*self.served_object(r)?;
        let fm = field_manager(served, &r.version, endpoint);
        let key = Self::key(served, r, &r.name);
        let Some(current) = self.store.get(&key) else {
            if endpoint == Endpoint::Status {
                return Err(Self::not_found(served, &r.name));
            }
            let mut merged = fm.apply(None, config, &options.field_manager, options.force)?;
            strategy::check_identity(served, r, &merged, Operation::Update)?;
            meta::strip_resource_version(&mut merged);
            return Ok(self.create_once(r, merged, &[], false, options, true).await?.map(|w| w.made(true)));
        };
        let before = stored::read(served, &r.version, &current).await?;
        let mut merged = fm.apply(Some(&before), config, &options.field_manager, options.force)?;
        strategy::check_identity(served, r, &merged, Operation::Update)?;
        let rv = meta::meta_str(&merged, "resourceVersion").to_string();
        if !rv.is_empty() && meta::parse_resource_version(&rv)? != Some(current.mod_revision) {
            return Err(Error::stale(&served.group, &served.plural, &r.name));
        }
        meta::strip_resource_version(&mut merged);
        let target = Target { served, r, current: &current, endpoint, options, read: Some(&before), applied: true };
        self.write_over(target, merged, &[]).await
    }
}
