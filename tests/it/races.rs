//! Writes that lose a race, made deterministic: the domain runs over a store
//! that lets a delete land between a write's read and its commit.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use crdstore::apimachinery::options::WriteOptions;
use crdstore::apimachinery::patch::PatchType;
use crdstore::error::Reason;
use crdstore::resource::{Endpoint, Ref, Resources};
use crdstore::storage::sled::{SledOptions, SledStore};
use crdstore::storage::{
    Committed, KeyValue, Mutation, Op, Precondition, Range, ReadAt, Revision, Storage, StorageError, WatchReceiver,
};
use crdstore::watch::stream::WatchDefaults;
use serde_json::{json, Value};

/// A store whose next conditional put is preceded by a delete of its key,
/// as if a client deleted the object just after the writer read it.
struct DeleteFirst {
    inner: Arc<dyn Storage>,
    armed: AtomicBool,
}

#[async_trait]
impl Storage for DeleteFirst {
    fn current_revision(&self) -> Revision {
        self.inner.current_revision()
    }
    fn compacted_revision(&self) -> Revision {
        self.inner.compacted_revision()
    }
    async fn wait_for_revision(&self, revision: Revision, timeout: std::time::Duration) -> Revision {
        self.inner.wait_for_revision(revision, timeout).await
    }
    fn image(&self) -> Result<crdstore::storage::Image, StorageError> {
        self.inner.image()
    }
    fn get(&self, key: &str) -> Option<KeyValue> {
        self.inner.get(key)
    }
    fn range(
        &self,
        prefix: &str,
        start_after: Option<&str>,
        at: ReadAt,
        limit: usize,
        filter: &mut dyn FnMut(&KeyValue) -> bool,
    ) -> Result<Range, StorageError> {
        self.inner.range(prefix, start_after, at, limit, filter)
    }
    fn count(&self, prefix: &str) -> usize {
        self.inner.count(prefix)
    }
    async fn commit(&self, ops: Vec<Op>) -> Result<Committed, StorageError> {
        let target = ops.iter().find_map(|op| match (&op.precondition, &op.mutation) {
            (Precondition::ModRevision(rev), Mutation::Put(_)) => Some((op.key.clone(), *rev)),
            _ => None,
        });
        if let Some((key, rev)) = target {
            if self.armed.swap(false, Ordering::SeqCst) {
                self.inner.commit(vec![Op::delete(key, rev)]).await?;
            }
        }
        self.inner.commit(ops).await
    }
    fn watch(&self, prefix: &str, after: Revision) -> Result<WatchReceiver, StorageError> {
        self.inner.watch(prefix, after)
    }
    async fn compact(&self) -> Result<Revision, StorageError> {
        self.inner.compact().await
    }
    async fn close(&self) {
        self.inner.close().await
    }
}

struct Setup {
    store: Arc<DeleteFirst>,
    resources: Resources,
    _dir: tempfile::TempDir,
}

async fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let (sled, background) = SledStore::open(dir.path(), SledOptions::default()).unwrap();
    tokio::spawn(background.run());
    let sled: Arc<dyn Storage> = Arc::new(sled);
    let store = Arc::new(DeleteFirst { inner: sled, armed: AtomicBool::new(false) });
    let (_stop, stopped) = tokio::sync::watch::channel(false);
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                 "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
                               "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}});
    let resources = Resources::new(store.clone(), WatchDefaults::default(), stopped);
    resources
        .create(&crdstore::resource::definitions::at(""), &serde_json::to_vec(&crd).unwrap(), &WriteOptions::default())
        .await
        .unwrap();
    Setup { store, resources, _dir: dir }
}

fn widget_ref(name: &str) -> Ref {
    Ref::new("example.com", "v1", "widgets", "default", name)
}

async fn create(s: &Setup, name: &str) -> Value {
    let body = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name}, "spec": {"n": 1}});
    s.resources
        .create(&widget_ref(name), &serde_json::to_vec(&body).unwrap(), &WriteOptions::default())
        .await
        .unwrap()
        .object
}

#[tokio::test]
async fn an_update_that_races_a_delete_is_not_found() {
    let s = setup().await;
    let mut obj = create(&s, "w").await;
    obj["spec"]["n"] = json!(2);
    s.store.armed.store(true, Ordering::SeqCst);
    let err = s
        .resources
        .update(&widget_ref("w"), &serde_json::to_vec(&obj).unwrap(), &WriteOptions::default())
        .await
        .unwrap_err();
    assert_eq!(err.reason, Reason::NotFound, "{err:?}");
    assert_eq!(err.message, r#"widgets.example.com "w" not found"#);
}

#[tokio::test]
async fn a_status_update_that_races_a_delete_is_not_found() {
    let s = setup().await;
    let mut obj = create(&s, "w").await;
    obj["status"] = json!({"ready": true});
    s.store.armed.store(true, Ordering::SeqCst);
    let err = s
        .resources
        .update_status(&widget_ref("w"), &serde_json::to_vec(&obj).unwrap(), &WriteOptions::default())
        .await
        .unwrap_err();
    assert_eq!(err.reason, Reason::NotFound, "{err:?}");
}

#[tokio::test]
async fn a_patch_that_races_a_delete_is_not_found() {
    let s = setup().await;
    create(&s, "w").await;
    s.store.armed.store(true, Ordering::SeqCst);
    let patch = br#"{"spec": {"n": 3}}"#;
    let err = s
        .resources
        .patch(&widget_ref("w"), Endpoint::Main, PatchType::Merge, patch, &WriteOptions::default())
        .await
        .unwrap_err();
    assert_eq!(err.reason, Reason::NotFound, "{err:?}");
    // The store still serves: a new object of the same name can be made.
    create(&s, "w").await;
}
