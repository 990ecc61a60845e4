//! Owner references across kinds: which served definition an owner
//! reference's group and kind name (`served_kind`, the garbage collector's
//! lookup too), and the write-time rule that a cluster-scoped object may
//! not have a namespaced owner.

use std::sync::Arc;

use serde_json::Value;

use super::Resources;
use crate::apimachinery::owner;
use crate::apimachinery::strategy::Scope;
use crate::error::Result;
use crate::resource::served::Served;
use crate::resource::strategy;
use crate::storage::{keys, ReadAt};

impl Resources {
    /// The served definition of `kind` in `group`, whatever the version
    /// (an owner reference names a kind, not a resource).
    pub fn served_kind(&self, group: &str, kind: &str) -> Option<Arc<Served>> {
        let mut plural = None;
        let mut find = |kv: &crate::storage::KeyValue| {
            if plural.is_none() {
                if let Ok(crd) = crate::registry::definition::decode(kv) {
                    let accepted = crd.status.as_ref().and_then(|s| s.accepted_names.as_ref());
                    if crd.spec.group == group && accepted.is_some_and(|names| names.kind == kind) {
                        plural = Some(crd.spec.names.plural.clone());
                    }
                }
            }
            false
        };
        self.store.range(&keys::definitions_prefix(), None, ReadAt::Latest, 0, &mut find).ok()?;
        self.catalog.resolve_any(self.store.as_ref(), group, &plural?)
    }

    /// The served definition of `plural` in `group`, whatever the version.
    pub fn served_plural(&self, group: &str, plural: &str) -> Option<Arc<Served>> {
        self.catalog.resolve_any(self.store.as_ref(), group, plural)
    }

    /// Refuses (422 at the reference's path) a cluster-scoped object whose
    /// owner reference names a namespaced kind.
    pub(super) fn check_owner_scopes(&self, served: &Served, obj: &Value) -> Result<()> {
        if served.namespaced() || owner::owner_references(obj).is_empty() {
            return Ok(());
        }
        let errs = owner::validate_scopes(obj, Scope::Cluster, |group, kind| {
            self.served_kind(group, kind).map(|owner| owner.scope)
        });
        if errs.is_empty() {
            return Ok(());
        }
        Err(strategy::invalid(served, crate::apimachinery::meta::meta_str(obj, "name"), errs))
    }
}
