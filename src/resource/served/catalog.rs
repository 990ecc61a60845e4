//! The catalog of what is served: resolving a request's group, version and
//! resource to the definition serving it, the kinds compiled into the
//! binary first, and caching each compiled definition by its revision.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use super::Served;
use crate::error::{Error, Result};
use crate::registry::definition;
use crate::storage::{keys, Storage};

/// Resolves and caches served definitions.
pub struct Catalog {
    /// By definition name (foldhash: every request looks its kind up here).
    cache: RwLock<HashMap<String, Arc<Served>, foldhash::fast::RandomState>>,
    /// The kinds compiled into the binary (a handful, looked through in
    /// order): they win over any stored definition.
    builtins: Vec<Arc<Served>>,
    /// The bound of every conversion webhook call.
    webhook_timeout: Duration,
}

impl Default for Catalog {
    fn default() -> Self {
        Self::new(crate::conversion::webhook::DEFAULT_TIMEOUT)
    }
}

/// `NotFound` for a resource type, in Kubernetes' words.
fn no_resource(group: &str, version: &str, plural: &str) -> Error {
    Error::no_resource(format_args!("{plural}.{version}.{group}"), "")
}

impl Catalog {
    /// An empty catalog whose definitions call conversion webhooks with
    /// `webhook_timeout`.
    pub fn new(webhook_timeout: Duration) -> Self {
        let definitions = Arc::new(crate::resource::definitions::served());
        Self { cache: RwLock::default(), builtins: vec![definitions], webhook_timeout }
    }

    /// Serves `builtins` beside the stored definitions (a later one of the
    /// same group and plural replaces an earlier one).
    pub fn with_builtins(mut self, builtins: impl IntoIterator<Item = Served>) -> Self {
        for served in builtins {
            self.builtins.retain(|b| (&b.group, &b.plural) != (&served.group, &served.plural));
            self.builtins.push(Arc::new(served));
        }
        self
    }

    /// The kinds compiled into the binary.
    pub fn builtins(&self) -> impl Iterator<Item = &Arc<Served>> {
        self.builtins.iter()
    }

    /// The definition serving `plural` in `group`, whatever the version.
    pub fn resolve_any(&self, store: &dyn Storage, group: &str, plural: &str) -> Option<Arc<Served>> {
        if let Some(builtin) = self.builtins.iter().find(|b| b.group == group && b.plural == plural) {
            return Some(builtin.clone());
        }
        let name = [plural, ".", group].concat();
        let kv = store.get(&keys::definition_key(&name))?;
        if let Some(hit) = self.cache.read().expect("catalog lock").get(&name) {
            if hit.revision == kv.mod_revision {
                return Some(hit.clone());
            }
        }
        let crd = definition::decode(&kv).ok()?;
        let served = Arc::new(Served::compile(&crd, kv.mod_revision, self.webhook_timeout)?);
        if served.plural != plural {
            return None;
        }
        self.cache.write().expect("catalog lock").insert(name, served.clone());
        Some(served)
    }

    /// The definition serving `group/version/plural`, or NotFound: unknown,
    /// names not accepted, or version not served.
    pub fn resolve(&self, store: &dyn Storage, group: &str, version: &str, plural: &str) -> Result<Arc<Served>> {
        match self.resolve_any(store, group, plural) {
            Some(served) if served.serves(version) => Ok(served),
            _ => Err(no_resource(group, version, plural)),
        }
    }
}
