//! What follows a definition's delete (the delete itself is the one
//! store's, `resource::definitions`' `on_delete` marking it): its removal
//! right after the mark when nothing holds it, else the cleanup task woken;
//! and the server's own writes of the cleanup: the `Terminating` condition
//! while the task deletes the instances, then the cleanup finalizer
//! released, and the definition removed unless other finalizers hold it,
//! its group settled in the same commit.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use super::definition;
use super::group::{self, Stored};
use super::{conditions, name_of, Registry, CLEANUP_FINALIZER, GROUP, RESOURCE};
use crate::error::{Error, Result};
use crate::storage::{keys, KeyValue, Op, Storage, StorageError};

/// Wakes the cleanup task when a definition with instances starts
/// terminating.
static CLEANUP: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Resolves when a definition may need cleaning up.
pub async fn cleanup_requested() {
    CLEANUP.notified().await
}

/// Just after the delete of `name` marked it terminating: the commit that
/// removes it at once, its group settled, when neither instances nor other
/// finalizers hold it. With instances, none, and the cleanup task is woken
/// to delete them; held only by other finalizers, none: the cleanup's next
/// pass releases it to them, as Kubernetes' asynchronous finalizer
/// controller, so meanwhile it reads `Terminating=True`
/// (InstanceDeletionPending), as clients wait for
/// (TestApplyCRDuringCRDFinalization).
pub fn removal_after_mark(store: &dyn Storage, name: &str) -> Result<Vec<Op>> {
    let Some(kv) = store.get(&keys::definition_key(name)) else { return Ok(Vec::new()) };
    let crd = definition::decode(&kv)?;
    if has_instances(store, &crd) {
        CLEANUP.notify_one();
        return Ok(Vec::new());
    }
    if held_by_others(&crd) {
        return Ok(Vec::new());
    }
    removal(store, name, &kv)
}

/// The commit that removes the definition `name` stored as `kv`, its group
/// settled.
fn removal(store: &dyn Storage, name: &str, kv: &KeyValue) -> Result<Vec<Op>> {
    let mut ops = vec![Op::delete(keys::definition_key(name), kv.mod_revision)];
    ops.extend(group::settle(store, name, None)?);
    Ok(ops)
}

fn has_instances(store: &dyn Storage, crd: &CustomResourceDefinition) -> bool {
    store.count(&keys::resource_prefix(&crd.spec.group, &crd.spec.names.plural)) > 0
}

impl Registry {
    fn load(&self, name: &str) -> Option<Result<Stored>> {
        let kv = self.store.get(&keys::definition_key(name))?;
        Some(definition::decode(&kv).map(|crd| Stored { crd, kv }))
    }

    /// Removes a terminating definition whose instances are all gone (its
    /// cleanup finalizer released first while other finalizers hold it),
    /// and re-evaluates the names of its group in the same commit. Does
    /// nothing while instances remain; true when it is done.
    pub async fn finish_deletion(&self, name: &str) -> Result<bool> {
        let _serial = group::WRITES.lock().await;
        let Some(current) = self.load(name) else { return Ok(true) };
        let current = current?;
        if current.crd.metadata.deletion_timestamp.is_none() || has_instances(self.store.as_ref(), &current.crd) {
            return Ok(false);
        }
        self.release(current).await?;
        Ok(true)
    }

    /// Updates the `Terminating` condition of a definition being cleaned up.
    pub async fn note_cleanup(&self, name: &str, reason: &str, message: &str) -> Result<()> {
        let _serial = group::WRITES.lock().await;
        let Some(current) = self.load(name) else { return Err(Error::not_found(GROUP, RESOURCE, name)) };
        let current = current?;
        let mut crd = current.crd.clone();
        crd.metadata.resource_version = None;
        conditions::set(
            crd.status.get_or_insert_with(Default::default),
            conditions::condition("Terminating", "True", reason, message),
        );
        let bytes = definition::to_stored(&crd);
        match self.store.commit(vec![Op::update(keys::definition_key(name), current.kv.mod_revision, bytes)]).await {
            Ok(_) | Err(StorageError::PreconditionFailed { .. }) => Ok(()),
            Err(err) => Err(err.into()),
        }
    }

    /// Ends the cleanup of a terminating definition without instances: its
    /// cleanup finalizer goes (with `Terminating=False`,
    /// `InstanceDeletionCompleted`), and it is removed unless other
    /// finalizers hold it, as Kubernetes' store deletes an object only once
    /// its finalizers are all gone.
    async fn release(&self, terminating: Stored) -> Result<()> {
        let name = name_of(&terminating.crd).to_string();
        let ops = if !held_by_others(&terminating.crd) {
            removal(self.store.as_ref(), &name, &terminating.kv)?
        } else if terminating.crd.metadata.finalizers.iter().flatten().any(|f| f == CLEANUP_FINALIZER) {
            let mut crd = terminating.crd.clone();
            crd.metadata.resource_version = None;
            if let Some(finalizers) = crd.metadata.finalizers.as_mut() {
                finalizers.retain(|f| f != CLEANUP_FINALIZER);
            }
            conditions::set(
                crd.status.get_or_insert_with(Default::default),
                conditions::condition("Terminating", "False", "InstanceDeletionCompleted", "removed all instances"),
            );
            vec![Op::update(keys::definition_key(&name), terminating.kv.mod_revision, definition::to_stored(&crd))]
        } else {
            return Ok(());
        };
        match self.store.commit(ops).await {
            Err(StorageError::PreconditionFailed { .. }) => return Err(Error::stale(GROUP, RESOURCE, &name)),
            other => other?,
        };
        tracing::info!(definition = %name, "definition released by its cleanup");
        Ok(())
    }

    /// The definitions being deleted whose instances are still to be
    /// cleaned up (those held only by other finalizers are not).
    pub fn terminating(&self) -> Result<Vec<CustomResourceDefinition>> {
        let cleaning = |crd: &CustomResourceDefinition| {
            crd.metadata.deletion_timestamp.is_some()
                && crd.metadata.finalizers.iter().flatten().any(|f| f == CLEANUP_FINALIZER)
        };
        Ok(self.all()?.into_iter().filter(cleaning).collect())
    }
}

/// Whether finalizers other than the cleanup one hold `crd`.
fn held_by_others(crd: &CustomResourceDefinition) -> bool {
    crd.metadata.finalizers.iter().flatten().any(|f| f != CLEANUP_FINALIZER)
}
