//! The garbage collector over a store whose reads lag its watch, made
//! deterministic: the store publishes a commit to watchers before readers
//! see it, so a collector that reacts to an event with a live read can read
//! the state before it. Here reads stay at an old revision until someone
//! waits for a newer one (`Storage::wait_for_revision`), the one promise the
//! trait makes.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use crdstore::apimachinery::options::{DeleteOptions, WriteOptions};
use crdstore::error::Reason;
use crdstore::gc::GcOptions;
use crdstore::resource::{Ref, Resources};
use crdstore::storage::sled::{SledOptions, SledStore};
use crdstore::storage::{Committed, KeyValue, Op, Range, ReadAt, Revision, Storage, StorageError, WatchReceiver};
use crdstore::watch::stream::WatchDefaults;
use serde_json::{json, Value};
use tokio::time::Instant;

/// A store whose readers see revision `visible` until a caller waits for a
/// later one; its watch is live.
struct LaggingReads {
    inner: Arc<dyn Storage>,
    visible: AtomicI64,
}

impl LaggingReads {
    fn at(&self) -> Revision {
        Revision::new(self.visible.load(Ordering::SeqCst))
    }
}

#[async_trait]
impl Storage for LaggingReads {
    fn current_revision(&self) -> Revision {
        self.at()
    }
    fn compacted_revision(&self) -> Revision {
        self.inner.compacted_revision()
    }
    async fn wait_for_revision(&self, revision: Revision, timeout: Duration) -> Revision {
        let reached = self.inner.wait_for_revision(revision, timeout).await;
        self.visible.fetch_max(reached.min(revision).get(), Ordering::SeqCst);
        self.at()
    }
    fn image(&self) -> Result<crdstore::storage::Image, StorageError> {
        self.inner.image()
    }
    fn get(&self, key: &str) -> Option<KeyValue> {
        let mut exact = |kv: &KeyValue| &*kv.key == key;
        let found = self.inner.range(key, None, ReadAt::Revision(self.at()), 1, &mut exact).ok()?;
        found.items.into_iter().next()
    }
    fn range(
        &self,
        prefix: &str,
        start_after: Option<&str>,
        at: ReadAt,
        limit: usize,
        filter: &mut dyn FnMut(&KeyValue) -> bool,
    ) -> Result<Range, StorageError> {
        let at = match at {
            ReadAt::Latest => ReadAt::Revision(self.at()),
            at => at,
        };
        self.inner.range(prefix, start_after, at, limit, filter)
    }
    fn count(&self, prefix: &str) -> usize {
        self.range(prefix, None, ReadAt::Latest, 0, &mut |_| true).map_or(0, |r| r.items.len())
    }
    async fn commit(&self, ops: Vec<Op>) -> Result<Committed, StorageError> {
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
    resources: Arc<Resources>,
    _stop: tokio::sync::watch::Sender<bool>,
    _dir: tempfile::TempDir,
}

/// The API over the real store; the collector over the lagging one, its
/// reads frozen before the definition exists.
async fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let (sled, background) = SledStore::open(dir.path(), SledOptions::default()).unwrap();
    tokio::spawn(background.run());
    let store: Arc<dyn Storage> = Arc::new(sled);
    let lagging =
        Arc::new(LaggingReads { inner: store.clone(), visible: AtomicI64::new(store.current_revision().get()) });
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let resources = Arc::new(Resources::new(store.clone(), WatchDefaults::default(), stopped.clone()));
    tokio::spawn(crdstore::gc::run(lagging, resources.clone(), GcOptions::default(), stopped));
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                 "versions": [{"name": "v1", "served": true, "storage": true,
                               "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}});
    resources
        .create(&crdstore::resource::definitions::at(""), &serde_json::to_vec(&crd).unwrap(), &WriteOptions::default())
        .await
        .unwrap();
    Setup { resources, _stop: stop, _dir: dir }
}

fn widget(name: &str) -> Ref {
    Ref::new("example.com", "v1", "widgets", "default", name)
}

async fn create(s: &Setup, name: &str, owner: Option<&Value>) -> Value {
    let mut body = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name}});
    if let Some(owner) = owner {
        body["metadata"]["ownerReferences"] = json!([{"apiVersion": "example.com/v1", "kind": "Widget",
            "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"], "blockOwnerDeletion": true}]);
    }
    // The definition is served once the API's own watch has seen it.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match s.resources.create(&widget(name), &serde_json::to_vec(&body).unwrap(), &WriteOptions::default()).await {
            Ok(written) => return written.object,
            Err(err) if err.reason == Reason::NotFound && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(20)).await
            }
            Err(err) => panic!("create {name}: {err}"),
        }
    }
}

async fn delete(s: &Setup, name: &str, policy: &str) {
    let options = DeleteOptions { propagation_policy: policy.into(), ..DeleteOptions::default() };
    s.resources.delete(&widget(name), &options).await.unwrap();
}

/// Waits, within a generous bound, until `name` is gone.
async fn gone(s: &Setup, name: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match s.resources.get(&widget(name), Default::default()).await {
            Err(err) if err.reason == Reason::NotFound => return,
            Ok(obj) => assert!(Instant::now() < deadline, "{name} was never collected: {obj:?}"),
            Err(err) => panic!("{err}"),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_foreground_deletion_goes_on_when_reads_lag_the_watch() {
    // The collector's reads still predate the definition when the parent's
    // deletion reaches it: read then, the owner's kind is unknown and the
    // child is kept forever.
    let s = setup().await;
    let parent = create(&s, "parent", None).await;
    create(&s, "child", Some(&parent)).await;
    delete(&s, "parent", "Foreground").await;
    gone(&s, "child").await;
    gone(&s, "parent").await;
}

#[tokio::test]
async fn a_background_deletion_goes_on_when_reads_lag_the_watch() {
    // Read before the owner's deletion, the owner is solid and nothing
    // would look at its dependent again.
    let s = setup().await;
    let parent = create(&s, "parent", None).await;
    create(&s, "child", Some(&parent)).await;
    delete(&s, "parent", "Background").await;
    gone(&s, "parent").await;
    gone(&s, "child").await;
}
