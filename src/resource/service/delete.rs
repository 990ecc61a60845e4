//! Deletes of custom resources: one object (removed, or marked while it
//! has finalizers) and a collection. Objects are read, marked and stored at
//! the storage version; answers are converted to the request version before
//! they are returned (a collection's in one converter call).

use serde_json::Value;

use super::{Deleted, Resources, Selectors};
use crate::apimachinery::meta;
use crate::apimachinery::options::{DeleteOptions, ListOptions};
use crate::apimachinery::strategy::retry;
use crate::error::{Error, FieldError, Result};
use crate::resource::served::Served;
use crate::resource::stored;
use crate::resource::strategy::{self, Ref};
use crate::storage::{KeyValue, Op, StorageError};

impl Resources {
    /// Deletes an object, or marks it for deletion while it has finalizers.
    pub async fn delete(&self, r: &Ref, options: &DeleteOptions) -> Result<Deleted> {
        let served = self.served_object(r)?;
        check_propagation(options)?;
        let mut deleted = self.delete_stored(&served, r, options).await?;
        deleted.object = stored::convert_read(&served, &r.version, vec![deleted.object], false).await?.remove(0);
        Ok(deleted)
    }

    /// `delete`, answering the object's last state at the storage version,
    /// so it calls no converter (the cleanup of a terminating definition).
    pub(crate) async fn delete_unconverted(&self, r: &Ref, options: &DeleteOptions) -> Result<Deleted> {
        let served = self.served_object(r)?;
        check_propagation(options)?;
        self.delete_stored(&served, r, options).await
    }

    /// `delete`, answering the object's last state at the storage version.
    async fn delete_stored(&self, served: &Served, r: &Ref, options: &DeleteOptions) -> Result<Deleted> {
        retry(
            || async {
                // Resolved afresh: a mark is stored at the storage version.
                let served = self.served_object(r)?;
                let current = self.load(&served, r)?;
                self.delete_once(&served, r, &current, options).await
            },
            || Error::stale(&served.group, &served.plural, &r.name),
        )
        .await
    }

    /// One attempt at a delete; `None` when a concurrent write got in first
    /// (the caller reloads and tries again, preconditions included).
    async fn delete_once(
        &self,
        served: &Served,
        r: &Ref,
        current: &KeyValue,
        options: &DeleteOptions,
    ) -> Result<Option<Deleted>> {
        // Read, marked and stored at the storage version; the caller converts
        // the answer.
        let mut obj = stored::at_storage(served, current)?;
        let subject = meta::Subject { group: &served.group, resource: &served.plural, name: &r.name };
        meta::check_preconditions(
            &subject,
            &options.precondition_uid,
            meta::meta_str(&obj, "uid"),
            options.precondition_resource_version,
            current.mod_revision,
        )?;
        let key = Self::key(served, r, &r.name);
        // A built-in kind may mark the object itself (a namespace).
        let marked = match &served.hooks {
            Some(hooks) => hooks.on_delete(&mut obj)?,
            None => false,
        };
        // The collector's finalizers follow the policy, as the apiserver's
        // `deletionFinalizersForGarbageCollection`, even on an object
        // already being deleted (a second delete may change its policy).
        let changed = match gc_finalizers(&obj, options).filter(|_| !marked) {
            Some(finalizers) => {
                meta::metadata_mut(&mut obj).insert("finalizers".into(), finalizers.into());
                true
            }
            None => false,
        };
        let has_finalizers = marked || !meta::finalizers(&obj).is_empty();
        if !marked && has_finalizers && meta::deleting(&obj) && !changed {
            return Ok(Some(Deleted { object: obj, gone: false, marked }));
        }
        if changed && !has_finalizers {
            meta::metadata_mut(&mut obj).remove("finalizers");
        }
        if options.dry_run {
            if has_finalizers && !marked && !meta::deleting(&obj) {
                meta::mark_deleting(&mut obj);
            }
            return Ok(Some(Deleted { object: obj, gone: !has_finalizers, marked }));
        }
        let _serial = super::serial(served).await;
        let ops = if has_finalizers {
            if !marked && !meta::deleting(&obj) {
                meta::mark_deleting(&mut obj);
            }
            // Tied to the definition revision, as every write of an object.
            let op = Op::update(key, current.mod_revision, strategy::to_stored(served, &obj));
            Self::tie(served).into_iter().chain([op]).collect()
        } else {
            // The kind's own removals with it (a definition's group).
            let settled = self.settle(served, &r.name, None)?;
            [Op::delete(key, current.mod_revision)].into_iter().chain(settled).collect()
        };
        let committed = match self.store.commit(ops).await {
            Err(StorageError::PreconditionFailed { .. }) => return Ok(None),
            other => other?,
        };
        meta::set_resource_version(&mut obj, committed.revision);
        let gone = !has_finalizers || (marked && self.remove_marked(served, &r.name).await?);
        Ok(Some(Deleted { object: obj, gone, marked }))
    }

    /// Removes an object its kind has just marked for deletion when the kind
    /// says nothing holds it (`KindHooks::after_mark`); whether it went. A
    /// write that got in first leaves it marked, for the kind's cleanup.
    async fn remove_marked(&self, served: &Served, name: &str) -> Result<bool> {
        let Some(hooks) = &served.hooks else { return Ok(false) };
        let ops = hooks.after_mark(self.store.as_ref(), name)?;
        if ops.is_empty() {
            return Ok(false);
        }
        match self.store.commit(ops).await {
            Err(StorageError::PreconditionFailed { .. }) => Ok(false),
            other => other.map(|_| true).map_err(Into::into),
        }
    }

    /// Deletes (or marks) every object the selectors match; returns each
    /// one's last state.
    pub async fn delete_collection(
        &self,
        r: &Ref,
        list_options: &ListOptions,
        options: &DeleteOptions,
    ) -> Result<Vec<Value>> {
        check_propagation(options)?;
        let served = self.served_collection(r)?;
        let all = ListOptions { limit: 0, continue_token: String::new(), ..list_options.clone() };
        // Listed and deleted at the storage version; the answers converted
        // in one call. A selector on the version's selectable fields selects
        // what `list` at the request version selects.
        let selectors = Selectors::parse(&served, &r.version, &all.label_selector, &all.field_selector)?;
        let page = match selectors {
            Some(selectors) if selectors.needs_object() => self.list(r, &all).await?,
            other => {
                let matches = other.map(Selectors::into_matches);
                self.list_at(&served, r, &served.storage_version, &all, matches).await?
            }
        };
        let mut out = Vec::with_capacity(page.items.len());
        for item in page.items {
            let one = Ref {
                namespace: meta::meta_str(&item, "namespace").to_string(),
                name: meta::meta_str(&item, "name").to_string(),
                ..r.clone()
            };
            let item_options = DeleteOptions { precondition_resource_version: None, ..options.clone() };
            match self.delete_stored(&served, &one, &item_options).await {
                Ok(deleted) => out.push(deleted.object),
                Err(err) if err.reason == crate::error::Reason::NotFound => {}
                Err(err) => return Err(err),
            }
        }
        stored::convert_read(&served, &r.version, out, true).await
    }
}

/// The object's finalizers as the delete's policy leaves them, as the
/// apiserver's `deletionFinalizersForGarbageCollection`: `orphan` when
/// dependents are orphaned, `foregroundDeletion` when they are deleted
/// first; `None` when they stay as they are. An explicit
/// `orphanDependents` wins over `propagationPolicy`, either over the
/// finalizers already there, and custom resources default to Background.
pub(crate) fn gc_finalizers(obj: &Value, options: &DeleteOptions) -> Option<Vec<String>> {
    use crate::apimachinery::owner::{FOREGROUND, ORPHAN};
    let existing = meta::finalizers(obj);
    let from_finalizers =
        |wanted: &str| existing.iter().find(|f| *f == ORPHAN || *f == FOREGROUND).is_some_and(|f| f == wanted);
    let orphan = match (options.orphan_dependents, options.propagation_policy.as_str()) {
        (Some(orphan), _) => orphan,
        (None, "Orphan") => true,
        (None, "Background" | "Foreground") => false,
        _ => from_finalizers(ORPHAN),
    };
    let foreground = match (options.orphan_dependents, options.propagation_policy.as_str()) {
        (Some(_), _) => false,
        (None, "Foreground") => true,
        (None, "Orphan" | "Background") => false,
        _ => from_finalizers(FOREGROUND),
    };
    let mut finalizers: Vec<String> = existing.iter().filter(|f| *f != ORPHAN && *f != FOREGROUND).cloned().collect();
    if orphan {
        finalizers.push(ORPHAN.to_string());
    }
    if foreground {
        finalizers.push(FOREGROUND.to_string());
    }
    let before: std::collections::BTreeSet<&String> = existing.iter().collect();
    let after: std::collections::BTreeSet<&String> = finalizers.iter().collect();
    (before != after).then_some(finalizers)
}

/// `ValidateDeleteOptions`' checks of the policy.
fn check_propagation(options: &DeleteOptions) -> Result<()> {
    if options.orphan_dependents.is_some() && !options.propagation_policy.is_empty() {
        return Err(Error::invalid(
            "meta.k8s.io",
            "DeleteOptions",
            "",
            vec![FieldError::invalid(
                "propagationPolicy",
                options.propagation_policy.as_str(),
                "orphanDependents and deletionPropagation cannot be both set",
            )],
        ));
    }
    match options.propagation_policy.as_str() {
        "" | "Orphan" | "Background" | "Foreground" => Ok(()),
        other => Err(Error::invalid(
            "meta.k8s.io",
            "DeleteOptions",
            "",
            vec![FieldError::not_supported("propagationPolicy", other, &["Foreground", "Background", "Orphan"])],
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn options(policy: &str, orphan: Option<bool>) -> DeleteOptions {
        DeleteOptions { propagation_policy: policy.into(), orphan_dependents: orphan, ..Default::default() }
    }

    #[test]
    fn the_policy_sets_the_collectors_finalizers_as_the_apiserver_does() {
        let plain = json!({"metadata": {"finalizers": ["keep"]}});
        assert_eq!(gc_finalizers(&plain, &options("", None)), None, "custom resources default to Background");
        assert_eq!(gc_finalizers(&plain, &options("Background", None)), None);
        assert_eq!(gc_finalizers(&plain, &options("Orphan", None)), Some(vec!["keep".into(), "orphan".into()]));
        assert_eq!(
            gc_finalizers(&plain, &options("Foreground", None)),
            Some(vec!["keep".into(), "foregroundDeletion".into()])
        );
        assert_eq!(
            gc_finalizers(&plain, &options("Foreground", Some(true))),
            Some(vec!["keep".into(), "orphan".into()])
        );
        assert_eq!(gc_finalizers(&plain, &options("Orphan", Some(false))), None, "orphanDependents wins");
        let orphaned = json!({"metadata": {"finalizers": ["orphan"]}});
        assert_eq!(gc_finalizers(&orphaned, &options("", None)), None, "a finalizer already there is the default");
        assert_eq!(gc_finalizers(&orphaned, &options("Background", None)), Some(vec![]));
        assert_eq!(gc_finalizers(&orphaned, &options("Foreground", None)), Some(vec!["foregroundDeletion".into()]));
    }
}
