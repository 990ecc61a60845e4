//! Patches of an object or its status: JSON, merge and strategic merge
//! patches applied to the object as read and written over it, retried on a
//! concurrent write; apply patches go to server-side apply.

use super::{apply, Resources, Target};
use crate::apimachinery::meta;
use crate::apimachinery::options::{WriteOptions, Written};
use crate::apimachinery::patch::{self, PatchType};
use crate::apimachinery::strategy::{retry, Operation};
use crate::error::{Error, Result};
use crate::resource::stored;
use crate::resource::strategy::{self, Ref};
use crate::resource::Endpoint;

impl Resources {
    /// Patches an object (`Endpoint::Main`) or its status
    /// (`Endpoint::Status`). A resourceVersion inside the patch result is a
    /// precondition; concurrent writes are retried.
    pub async fn patch(
        &self,
        r: &Ref,
        endpoint: Endpoint,
        patch_type: PatchType,
        patch: &[u8],
        options: &WriteOptions,
    ) -> Result<Written> {
        apply::check_patch_options(patch_type, options)?;
        let served = self.served_object(r)?;
        if endpoint == Endpoint::Status {
            Self::require_status(&served, r)?;
        }
        meta::check_body_size(patch)?;
        if patch_type == PatchType::Apply {
            return self.apply_at(&served, r, endpoint, patch, options).await;
        }
        retry(
            || self.patch_once(r, endpoint, patch_type, patch, options),
            || Error::stale(&served.group, &served.plural, &r.name),
        )
        .await
    }

    /// One attempt at a patch, resolved afresh; `None` after a concurrent
    /// write of the object or its definition.
    async fn patch_once(
        &self,
        r: &Ref,
        endpoint: Endpoint,
        patch_type: PatchType,
        patch: &[u8],
        options: &WriteOptions,
    ) -> Result<Option<Written>> {
        let served = &*self.served_object(r)?;
        let current = self.load(served, r)?;
        let before = stored::read(served, &r.version, &current).await?;
        let invalid = |causes| strategy::invalid(served, &r.name, causes);
        let mut patched = patch::apply(&before, patch_type, patch, served.strategic_merge_lists(), invalid)?;
        if !patched.is_object() {
            return Err(Error::bad_request("the patch must leave a JSON object"));
        }
        strategy::check_identity(served, r, &patched, Operation::Update)?;
        // The current resourceVersion is in the patched object unless the
        // patch changed it: then it is a precondition. A retry after a
        // concurrent write re-applies the patch to the fresh state, where
        // an explicit old resourceVersion no longer matches.
        let rv = meta::meta_str(&patched, "resourceVersion").to_string();
        if !rv.is_empty() && meta::parse_resource_version(&rv)? != Some(current.mod_revision) {
            return Err(Error::stale(&served.group, &served.plural, &r.name));
        }
        meta::strip_resource_version(&mut patched);
        let target = Target { served, r, current: &current, endpoint, options, read: Some(&before), applied: false };
        self.write_over(target, patched, &[]).await
    }
}
