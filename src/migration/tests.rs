//! The migration's trim against writes resolved before the storage version
//! changed, made deterministic: the domain runs over a store that holds one
//! write at a chosen point (its read of the object, or its commit) while
//! the storage version changes and a migration runs to its end.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use futures::StreamExt;
use serde_json::{json, Value};

use super::{MigrationOptions, Migrations, Phase};
use crate::apimachinery::options::WriteOptions;
use crate::apimachinery::patch::PatchType;
use crate::resource::{stored, Endpoint, Ref, Resources};
use crate::storage::sled::{SledOptions, SledStore};
use crate::storage::{
    keys, Committed, KeyValue, Mutation, Op, Range, ReadAt, Revision, Storage, StorageError, WatchReceiver,
};
use crate::watch::stream::WatchDefaults;

/// Where the held write waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Point {
    /// In its read of the object, after it resolved the definition.
    Read,
    /// Just before its commit.
    Commit,
}

/// Holds the first read or commit of one key until released.
struct Gate {
    point: Point,
    key: String,
    reached: tokio::sync::oneshot::Sender<()>,
    release: std::sync::mpsc::Receiver<()>,
}

/// A store that holds one operation on one key at its gate, if armed.
struct Holding {
    inner: Arc<dyn Storage>,
    gate: Mutex<Option<Gate>>,
}

impl Holding {
    /// Waits at the gate if it is armed for `point` on `key`; the gate is
    /// then spent.
    fn hold(&self, point: Point, key: &str) {
        let gate = {
            let mut armed = self.gate.lock().unwrap();
            match armed.as_ref() {
                Some(gate) if gate.point == point && gate.key == key => armed.take(),
                _ => None,
            }
        };
        if let Some(gate) = gate {
            gate.reached.send(()).unwrap();
            tokio::task::block_in_place(|| gate.release.recv()).unwrap();
        }
    }
}

#[async_trait]
impl Storage for Holding {
    fn current_revision(&self) -> Revision {
        self.inner.current_revision()
    }
    fn compacted_revision(&self) -> Revision {
        self.inner.compacted_revision()
    }
    async fn wait_for_revision(&self, revision: Revision, timeout: std::time::Duration) -> Revision {
        self.inner.wait_for_revision(revision, timeout).await
    }
    fn image(&self) -> Result<crate::storage::Image, StorageError> {
        self.inner.image()
    }
    fn get(&self, key: &str) -> Option<KeyValue> {
        self.hold(Point::Read, key);
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
        for op in &ops {
            if matches!(op.mutation, Mutation::Put(_)) {
                self.hold(Point::Commit, &op.key);
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

const DEFINITION: &str = "widgets.example.com";

fn widget(version: &str, name: &str) -> Ref {
    Ref::new("example.com", version, "widgets", "default", name)
}

/// A patch of `w` at v1 resolves the definition while v1 is its storage
/// version and is held at `point`; meanwhile v2 becomes the storage version
/// and a migration runs to its end, trimming `storedVersions` to v2. Once
/// released, the patch must land at v2 (resolved again), or the trim lied.
async fn held_write_during_migration(point: Point) {
    let dir = tempfile::tempdir().unwrap();
    let (sled, background) = SledStore::open(dir.path(), SledOptions::default()).unwrap();
    tokio::spawn(background.run());
    let store = Arc::new(Holding { inner: Arc::new(sled), gate: Mutex::new(None) });
    let (_stop, stopped) = tokio::sync::watch::channel(false);
    let resources = Arc::new(Resources::new(store.clone(), WatchDefaults::default(), stopped.clone()));
    let definition = crate::resource::definitions::at(DEFINITION);
    let schema = json!({"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}});
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": DEFINITION},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                 "versions": [{"name": "v1", "served": true, "storage": true, "schema": schema},
                              {"name": "v2", "served": true, "storage": false, "schema": schema}]}});
    resources.create(&definition, &serde_json::to_vec(&crd).unwrap(), &WriteOptions::default()).await.unwrap();
    let options = MigrationOptions { rate: 0 };
    let migrations = Arc::new(Migrations::new(store.clone(), resources.clone(), options, stopped));
    tokio::spawn(migrations.clone().control());
    let body = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"n": 1}});
    resources.create(&widget("v1", ""), &serde_json::to_vec(&body).unwrap(), &WriteOptions::default()).await.unwrap();

    let (reached, at_gate) = tokio::sync::oneshot::channel();
    let (release, released) = std::sync::mpsc::channel();
    let key = keys::resource_key("example.com", "widgets", "default", "w");
    *store.gate.lock().unwrap() = Some(Gate { point, key: key.clone(), reached, release: released });
    let patching = tokio::spawn({
        let resources = resources.clone();
        async move {
            let patch = br#"{"spec": {"n": 2}}"#;
            resources.patch(&widget("v1", "w"), Endpoint::Main, PatchType::Merge, patch, &WriteOptions::default()).await
        }
    });
    at_gate.await.expect("the patch reaches the gate");

    let mut crd = resources.get(&definition, Default::default()).await.unwrap().into_value().unwrap();
    crd["spec"]["versions"][0]["storage"] = json!(false);
    crd["spec"]["versions"][1]["storage"] = json!(true);
    let body = serde_json::to_vec(&crd).unwrap();
    let updated = resources.update(&definition, &body, &WriteOptions::default()).await.unwrap();
    assert_eq!(updated.object["status"]["storedVersions"], json!(["v1", "v2"]));
    // The object `Migrations::start` creates through the served kind.
    let svm = json!({"apiVersion": super::record::API_VERSION, "kind": super::record::KIND,
        "metadata": {"name": "widgets-v2"}, "spec": {"resource": {"group": "example.com", "resource": "widgets"}}});
    let create = Op::create(keys::migration_key("widgets-v2"), super::record::to_stored(&svm));
    store.commit(vec![create]).await.unwrap();
    let mut follow = migrations.watch("widgets-v2").unwrap();
    let mut last = None;
    let bound = std::time::Duration::from_secs(60);
    while let Some(migration) = tokio::time::timeout(bound, follow.next()).await.expect("the migration ends") {
        last = Some(migration.unwrap());
    }
    let ended = last.unwrap().record;
    assert_eq!(ended.phase(), Phase::Succeeded, "{}", ended.message());
    assert_eq!(
        resources.get(&definition, Default::default()).await.unwrap().into_value().unwrap()["status"]["storedVersions"],
        json!(["v2"])
    );

    release.send(()).unwrap();
    let patched = patching.await.unwrap().expect("the held patch succeeds");
    assert_eq!(patched.object["apiVersion"], "example.com/v1");
    assert_eq!(patched.object["spec"]["n"], 2);

    // The trim holds: the object is stored at v2, as storedVersions says.
    let kv = store.get(&key).unwrap();
    assert_eq!(stored::api_version(&kv.value).as_deref(), Some("example.com/v2"), "held at {point:?}");
    assert_eq!(
        resources.get(&definition, Default::default()).await.unwrap().into_value().unwrap()["status"]["storedVersions"],
        json!(["v2"])
    );
    // And the store still serves, at both versions.
    for version in ["v1", "v2"] {
        let read: Value = resources.get(&widget(version, "w"), Default::default()).await.unwrap().into_value().unwrap();
        assert_eq!(read["apiVersion"], format!("example.com/{version}"));
        assert_eq!(read["spec"]["n"], 2);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_write_resolved_before_the_storage_version_changed_and_read_after_the_migration_lands_at_the_new_one() {
    held_write_during_migration(Point::Read).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_write_retried_after_the_migration_rewrote_its_object_lands_at_the_new_storage_version() {
    held_write_during_migration(Point::Commit).await;
}

#[tokio::test]
async fn records_of_an_earlier_release_become_objects_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let (sled, background) = SledStore::open(dir.path(), SledOptions::default()).unwrap();
    tokio::spawn(background.run());
    let store: Arc<dyn Storage> = Arc::new(sled);
    let (_stop, stopped) = tokio::sync::watch::channel(false);
    let legacy = json!({"name": "old", "uid": "u1", "creationTimestamp": "2026-01-01T00:00:00Z",
        "group": "example.com", "resource": "widgets", "targetVersion": "v2", "continueKey": null,
        "migrated": 7, "scanned": 7, "total": 7, "phase": "Succeeded", "message": "", "resourceVersion": "3",
        "conditions": [
            {"type": "Running", "status": "False", "lastTransitionTime": "2026-01-01T00:00:00Z", "reason": "R", "message": ""},
            {"type": "Succeeded", "status": "True", "lastTransitionTime": "2026-01-01T00:00:01Z", "reason": "S", "message": ""}]});
    let op = Op::create(keys::migration_key("old"), serde_json::to_vec(&legacy).unwrap());
    store.commit(vec![op]).await.unwrap();
    let resources = Arc::new(Resources::new(store.clone(), WatchDefaults::default(), stopped.clone()));
    let migrations = Migrations::new(store.clone(), resources, MigrationOptions::default(), stopped);
    migrations.upgrade_stored().await.unwrap();
    let upgraded = migrations.get("old").unwrap();
    assert_eq!(upgraded.object["kind"], "StorageVersionMigration");
    assert_eq!(upgraded.object["metadata"]["uid"], "u1");
    assert_eq!(upgraded.object["status"]["progress"]["migrated"], 7);
    assert_eq!(upgraded.record.phase(), Phase::Succeeded);
    // Once is enough: a second start changes nothing.
    let revision = store.current_revision();
    migrations.upgrade_stored().await.unwrap();
    assert_eq!(store.current_revision(), revision);
}
