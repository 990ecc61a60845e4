//! Deleting a definition: marked terminating first, which stops new
//! instances; removed at once when nothing holds it, else released by the
//! cleanup task once its instances are gone.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;

use super::definition;
use super::{check_preconditions, conditions, instances_prefix, name_of, now, Registry, Stored, CLEANUP_FINALIZER};
use super::{GROUP, RESOURCE};
use crate::apimachinery::options::DeleteOptions;
use crate::error::{Error, Result};
use crate::storage::{keys, Op, StorageError};

impl Registry {
    /// Deletes a definition. It is first marked terminating (deletionTimestamp,
    /// the cleanup finalizer, the `Terminating` condition), which stops new
    /// instances; without instances or other finalizers it is then removed at
    /// once, otherwise the cleanup task deletes the instances and releases it
    /// (`finish_deletion`). Returns its last state and whether it is gone.
    pub async fn delete(&self, name: &str, options: &DeleteOptions) -> Result<(Value, bool)> {
        let _serial = self.writes.lock().await;
        let old = self.load(name)?;
        check_preconditions(name, &options.precondition_uid, options.precondition_resource_version, &old)?;
        if options.dry_run {
            return Ok((definition::to_json(&old.crd), true));
        }
        let terminating = if old.crd.metadata.deletion_timestamp.is_some() {
            old
        } else {
            let mut crd = old.crd.clone();
            crd.metadata.resource_version = None;
            crd.metadata.deletion_timestamp = Some(now());
            let finalizers = crd.metadata.finalizers.get_or_insert_with(Vec::new);
            if !finalizers.iter().any(|f| f == CLEANUP_FINALIZER) {
                finalizers.push(CLEANUP_FINALIZER.to_string());
            }
            conditions::set(
                crd.status.get_or_insert_with(Default::default),
                conditions::condition(
                    "Terminating",
                    "True",
                    "InstanceDeletionPending",
                    "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
                ),
            );
            let op = Op::update(keys::definition_key(name), old.kv.mod_revision, definition::to_stored(&crd));
            let committed = match self.store.commit(vec![op]).await {
                Err(StorageError::PreconditionFailed { .. }) => return Err(Error::stale(GROUP, RESOURCE, name)),
                other => other?,
            };
            let kv = committed.current(0).cloned().ok_or_else(|| Error::internal("delete left no definition"))?;
            tracing::info!(definition = %name, "definition terminating");
            Stored { crd: definition::decode(&kv)?, kv }
        };
        if self.store.count(&instances_prefix(&terminating.crd)) > 0 {
            self.cleanup.notify_one();
            return Ok((definition::to_json(&terminating.crd), false));
        }
        // Held by other finalizers, it stays whatever the cleanup does, so
        // the cleanup is left to the cleanup task's next pass, as
        // Kubernetes' asynchronous finalizer controller: meanwhile it reads
        // `Terminating=True` (InstanceDeletionPending), as clients wait for
        // (TestApplyCRDuringCRDFinalization).
        if Self::held_by_others(&terminating.crd) {
            return Ok((definition::to_json(&terminating.crd), false));
        }
        self.release(terminating).await
    }

    /// Ends the cleanup of a terminating definition without instances: its
    /// cleanup finalizer goes (with `Terminating=False`,
    /// `InstanceDeletionCompleted`), and it is removed unless other
    /// finalizers hold it, as Kubernetes' store deletes an object only once
    /// its finalizers are all gone. Returns its state and whether it is gone.
    async fn release(&self, terminating: Stored) -> Result<(Value, bool)> {
        if !Self::held_by_others(&terminating.crd) {
            let last = definition::to_json(&terminating.crd);
            self.remove(terminating).await?;
            return Ok((last, true));
        }
        let name = name_of(&terminating.crd).to_string();
        let mut crd = terminating.crd.clone();
        if !crd.metadata.finalizers.iter().flatten().any(|f| f == CLEANUP_FINALIZER) {
            return Ok((definition::to_json(&crd), false));
        }
        crd.metadata.resource_version = None;
        if let Some(finalizers) = crd.metadata.finalizers.as_mut() {
            finalizers.retain(|f| f != CLEANUP_FINALIZER);
        }
        conditions::set(
            crd.status.get_or_insert_with(Default::default),
            conditions::condition("Terminating", "False", "InstanceDeletionCompleted", "removed all instances"),
        );
        let op = Op::update(keys::definition_key(&name), terminating.kv.mod_revision, definition::to_stored(&crd));
        let committed = match self.store.commit(vec![op]).await {
            Err(StorageError::PreconditionFailed { .. }) => return Err(Error::stale(GROUP, RESOURCE, &name)),
            other => other?,
        };
        let current = committed.current(0).ok_or_else(|| Error::internal("release left no definition"))?;
        tracing::info!(definition = %name, "definition held by finalizers");
        Ok((definition::decode_json(current)?, false))
    }

    /// Whether finalizers other than the cleanup one hold `crd`.
    fn held_by_others(crd: &CustomResourceDefinition) -> bool {
        crd.metadata.finalizers.iter().flatten().any(|f| f != CLEANUP_FINALIZER)
    }

    /// Removes a terminating definition whose instances are all gone, and
    /// re-evaluates the names of its group in the same commit. Called by the
    /// cleanup task; does nothing while instances remain.
    pub async fn finish_deletion(&self, name: &str) -> Result<bool> {
        let _serial = self.writes.lock().await;
        let Ok(current) = self.load(name) else { return Ok(true) };
        if current.crd.metadata.deletion_timestamp.is_none() || self.store.count(&instances_prefix(&current.crd)) > 0 {
            return Ok(false);
        }
        self.release(current).await?;
        Ok(true)
    }

    /// Updates the `Terminating` condition of a definition being cleaned up.
    pub async fn note_cleanup(&self, name: &str, reason: &str, message: &str) -> Result<()> {
        let _serial = self.writes.lock().await;
        let current = self.load(name)?;
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

    pub(super) async fn remove(&self, old: Stored) -> Result<()> {
        let name = name_of(&old.crd).to_string();
        let mut group = self.others_in_group(&old.crd.spec.group, &name)?;
        let mut ops = vec![Op::delete(keys::definition_key(&name), old.kv.mod_revision)];
        ops.extend(Self::settle_group(&old.crd.spec.group, &mut group, None));
        match self.store.commit(ops).await {
            Err(StorageError::PreconditionFailed { .. }) => return Err(Error::stale(GROUP, RESOURCE, &name)),
            other => other?,
        };
        tracing::info!(definition = %name, "deleted definition");
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

    /// Resolves when a definition may need cleaning up.
    pub async fn cleanup_requested(&self) {
        self.cleanup.notified().await
    }
}
