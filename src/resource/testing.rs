//! A registry and resources over a sled store in a temporary directory:
//! where the crate's own tests of the layers above storage start.

use std::sync::Arc;

use serde_json::Value;

use super::Resources;
use crate::apimachinery::options::WriteOptions;
use crate::registry::Registry;
use crate::storage::sled::{SledOptions, SledStore};
use crate::storage::Storage;
use crate::watch::stream::WatchDefaults;

/// The store, a registry and resources over it, and what must live while
/// they are used: the stop signal and the data directory.
pub struct Stack {
    pub store: Arc<dyn Storage>,
    pub registry: Registry,
    pub resources: Arc<Resources>,
    pub stop: tokio::sync::watch::Sender<bool>,
    pub dir: tempfile::TempDir,
}

impl Stack {
    /// A fresh stack; the store's background task runs on the current
    /// tokio runtime.
    pub fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let (sled, background) = SledStore::open(dir.path(), SledOptions::default()).unwrap();
        tokio::spawn(background.run());
        let store: Arc<dyn Storage> = Arc::new(sled);
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let registry = Registry::new(store.clone());
        let resources = Arc::new(Resources::new(store.clone(), WatchDefaults::default(), stopped));
        Self { store, registry, resources, stop, dir }
    }

    /// Registers the definition `crd`.
    pub async fn define(&self, crd: &Value) {
        let body = serde_json::to_vec(crd).unwrap();
        self.resources.create(&super::definitions::at(""), &body, &WriteOptions::default()).await.unwrap();
    }
}
