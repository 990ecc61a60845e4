//! The status and scale subresources of the resource service
//! (`subresources.md`): the main write path plus one override each. Status
//! writes go through `write_over` with `Endpoint::Status`; scale writes turn
//! a Scale's `spec.replicas` into a main-endpoint write whose managedFields
//! are the Scale's mapped onto the object's (`scale::managed_fields`).

use serde_json::Value;

use super::{Endpoint, Resources, Target};
use crate::apimachinery::options::WriteOptions;
use crate::apimachinery::patch::{self, PatchType};
use crate::apimachinery::strategy::{require_resource_version, retry, Operation};
use crate::apimachinery::{decode, meta, Written};
use crate::apply::managed;
use crate::error::{Error, Result};
use crate::resource::scale;
use crate::resource::served::{ScalePaths, Served};
use crate::resource::stored;
use crate::resource::strategy::{self, Ref, ResourceStrategy};
use crate::storage::KeyValue;

impl Resources {
    /// Replaces the status of an object: only `status` is taken from the
    /// body; a current resourceVersion is required. NotFound unless the
    /// version enables the status subresource.
    pub async fn update_status(&self, r: &Ref, body: &[u8], options: &WriteOptions) -> Result<Written> {
        super::apply::check_field_manager("UpdateOptions", options)?;
        let served = self.served_object(r)?;
        Self::require_status(&served, r)?;
        self.replace(&served, r, Endpoint::Status, body, options).await
    }

    /// Replaces an object through its `finalize` subresource (a
    /// namespace's: its `spec.finalizers`, as Kubernetes' finalize REST),
    /// keeping its status. A resourceVersion, when given, must be current.
    /// NotFound for a kind without the subresource.
    pub async fn update_finalize(&self, r: &Ref, body: &[u8], options: &WriteOptions) -> Result<Written> {
        let served = self.served_object(r)?;
        if !served.hooks.as_ref().is_some_and(|hooks| hooks.finalizes()) {
            return Err(Error::no_resource(format!("{}/finalize.{}.{}", r.resource, r.version, r.group), ""));
        }
        let (mut obj, duplicates) = decode::object(body)?;
        strategy::default_type_meta(&served, r, &mut obj);
        strategy::check_identity(&served, r, &obj, Operation::Update)?;
        let current = self.load(&served, r)?;
        if !meta::meta_str(&obj, "resourceVersion").is_empty() {
            let main = ResourceStrategy { served: &served, version: &r.version };
            require_resource_version(&main, &Self::subject(&served, r), &obj, current.mod_revision)?;
        }
        let target = Target {
            served: &served,
            r,
            current: &current,
            endpoint: Endpoint::Finalize,
            options,
            read: None,
            applied: false,
        };
        self.write_over(target, obj, &duplicates)
            .await?
            .ok_or_else(|| Error::stale(&served.group, &served.plural, &r.name))
    }

    pub(super) fn require_status(served: &Served, r: &Ref) -> Result<()> {
        if served.has_status(&r.version) {
            return Ok(());
        }
        let what = format!("{}/status.{}.{}", r.resource, r.version, r.group);
        Err(Error::no_resource(what, "the status subresource is not enabled"))
    }

    fn require_scale<'a>(served: &'a Served, r: &Ref) -> Result<&'a ScalePaths> {
        served.scale_paths(&r.version).ok_or_else(|| {
            let what = format!("{}/scale.{}.{}", r.resource, r.version, r.group);
            Error::no_resource(what, "the scale subresource is not enabled")
        })
    }

    /// Reads the `autoscaling/v1` Scale of an object, through the request
    /// version's paths of the object converted to that version.
    pub async fn get_scale(&self, r: &Ref) -> Result<Value> {
        let served = self.served_object(r)?;
        let paths = Self::require_scale(&served, r)?;
        scale::read(&stored::read(&served, &r.version, &self.load(&served, r)?).await?, paths)
    }

    /// Writes the `spec.replicas` of a Scale into the object; everything
    /// else in the Scale is ignored. Its resourceVersion, when set, is a
    /// precondition. Returns the resulting Scale.
    pub async fn update_scale(&self, r: &Ref, body: &[u8], options: &WriteOptions) -> Result<Written> {
        let served = self.served_object(r)?;
        Self::require_scale(&served, r)?;
        let (wanted, _) = decode::object(body)?;
        retry(
            || async {
                // Resolved afresh: the definition may have changed meanwhile.
                let served = self.served_object(r)?;
                let paths = Self::require_scale(&served, r)?;
                let current = self.load(&served, r)?;
                self.write_scale(&served, paths, r, &current, &wanted, options).await
            },
            || Error::stale(&served.group, &served.plural, &r.name),
        )
        .await
    }

    /// Patches the Scale of an object, then writes it as `update_scale` does.
    pub async fn patch_scale(
        &self,
        r: &Ref,
        patch_type: PatchType,
        patch: &[u8],
        options: &WriteOptions,
    ) -> Result<Written> {
        let served = self.served_object(r)?;
        Self::require_scale(&served, r)?;
        meta::check_body_size(patch)?;
        retry(
            || async {
                let served = self.served_object(r)?;
                let paths = Self::require_scale(&served, r)?;
                let current = self.load(&served, r)?;
                let before = scale::read(&stored::read(&served, &r.version, &current).await?, paths)?;
                let invalid = |causes| Error::invalid("autoscaling", "Scale", &r.name, causes);
                // A Scale of a custom resource takes the patches a custom
                // resource takes, as apiextensions-apiserver serves it.
                let wanted = patch::apply(&before, patch_type, patch, None, invalid)?;
                self.write_scale(&served, paths, r, &current, &wanted, options).await
            },
            || Error::stale(&served.group, &served.plural, &r.name),
        )
        .await
    }

    /// One attempt at writing a Scale: the Scale written and the write's
    /// warnings (a gated `.spec.replicas`, say); `None` after a concurrent
    /// write.
    async fn write_scale(
        &self,
        served: &Served,
        paths: &ScalePaths,
        r: &Ref,
        current: &KeyValue,
        wanted: &Value,
        options: &WriteOptions,
    ) -> Result<Option<Written>> {
        let rv = meta::meta_str(wanted, "resourceVersion");
        if !rv.is_empty() && meta::parse_resource_version(rv)? != Some(current.mod_revision) {
            return Err(Error::stale(&served.group, &served.plural, &r.name));
        }
        let replicas = scale::desired_replicas(wanted, &r.name)?;
        let read = stored::read(served, &r.version, current).await?;
        let mut obj = scale::apply(&read, paths, replicas);
        // The Scale's managedFields mapped onto the object's, as Kubernetes'
        // scale handler does; written as they are (as an apply's).
        let entries = read.get("metadata").and_then(|m| m.get("managedFields")).unwrap_or(&Value::Null);
        let changed = scale::get(&read, &paths.spec_replicas).and_then(Value::as_i64) != Some(replicas);
        let entries = scale::managed_fields(
            managed::decode(entries).unwrap_or_default(),
            &scale::path_mappings(served),
            &served.api_version(&r.version),
            &options.field_manager,
            changed,
        );
        managed::set_managed_fields(&mut obj, entries);
        let target = Target { served, r, current, endpoint: Endpoint::Main, options, read: Some(&read), applied: true };
        match self.write_over(target, obj, &[]).await? {
            Some(written) => {
                let object = scale::read(&written.object, paths)?;
                Ok(Some(Written::new(object, written.warnings)))
            }
            // Tried again: a stale resourceVersion is then refused above.
            None => Ok(None),
        }
    }
}
