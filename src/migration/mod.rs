//! Storage-version migration: rewrites every stored object of a definition
//! at the definition's current storage version, keeping its content and
//! generation, then trims `status.storedVersions` to that version (what
//! Kubernetes' `StorageVersionMigration` and its controller do). A
//! migration is a `StorageVersionMigration` object, served like every kind
//! and created through `Resources` (`start` does that for gRPC); `control`
//! is its controller: it follows the objects and runs each one not ended
//! (`run`, a page per commit), from where its status says, so a restart
//! resumes it. `watch` follows one.

pub mod record;
pub mod run;
#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use futures::stream::BoxStream;
use futures::StreamExt;

use serde_json::{json, Value};

use crate::apimachinery::options::WriteOptions;
use crate::error::{Error, Result};
use crate::resource::served::Catalog;
use crate::resource::{Ref, Resources};
use crate::storage::{keys, Event, Op, ReadAt, Storage, StorageError, WatchMessage};

pub use record::{Phase, Record};

/// The default `MigrationOptions::rate`: objects rewritten per second, low
/// enough that a migration leaves most of the store's write capacity to
/// clients.
pub const DEFAULT_RATE: u32 = 2_000;
/// The most objects rewritten in one commit.
pub const MAX_BATCH: usize = 250;

/// How fast migrations write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MigrationOptions {
    /// Objects rewritten per second, across a migration (0: no limit).
    pub rate: u32,
}

impl Default for MigrationOptions {
    fn default() -> Self {
        Self { rate: DEFAULT_RATE }
    }
}

impl MigrationOptions {
    /// Objects per commit: a tenth of a second's worth, 1 to `MAX_BATCH`.
    pub fn batch(&self) -> usize {
        match self.rate {
            0 => MAX_BATCH,
            rate => (rate as usize / 10).clamp(1, MAX_BATCH),
        }
    }
}

/// A migration as its object, read through its record.
#[derive(Debug, Clone, PartialEq)]
pub struct Migration {
    pub record: Record,
    /// The object, with its resourceVersion.
    pub object: Value,
}

impl Migration {
    fn new(object: Value) -> Result<Self> {
        Ok(Self { record: Record::from_object(&object)?, object })
    }
}

/// The migrations of a store.
pub struct Migrations {
    store: Arc<dyn Storage>,
    /// Where `start` creates the objects.
    resources: Arc<Resources>,
    catalog: Catalog,
    options: MigrationOptions,
    stopped: tokio::sync::watch::Receiver<bool>,
    /// Migrations with a run under way in this process.
    running: Mutex<HashSet<String>>,
}

const GROUP: &str = keys::MIGRATIONS_GROUP;
const RESOURCE: &str = keys::MIGRATIONS_RESOURCE;

fn decode(kv: &crate::storage::KeyValue) -> Result<Migration> {
    Migration::new(record::decode(kv)?)
}

impl Migrations {
    pub fn new(
        store: Arc<dyn Storage>,
        resources: Arc<Resources>,
        options: MigrationOptions,
        stopped: tokio::sync::watch::Receiver<bool>,
    ) -> Self {
        Self { store, resources, catalog: Catalog::default(), options, stopped, running: Mutex::default() }
    }

    /// Creates a migration of `group/resource` named `name` (generated from
    /// the definition's name when empty), as `kubectl create` does. The
    /// resource need not be served yet: as in Kubernetes, a migration of one
    /// that is not fails.
    pub async fn start(&self, name: &str, group: &str, resource: &str) -> Result<Migration> {
        let metadata = match name {
            "" => json!({"generateName": format!("{resource}.{group}-")}),
            name => json!({"name": name}),
        };
        let body = json!({"apiVersion": record::API_VERSION, "kind": record::KIND, "metadata": metadata,
            "spec": {"resource": {"group": group, "resource": resource}}});
        let r = Ref::new(GROUP, "v1", RESOURCE, "", "");
        let written = self
            .resources
            .create(&r, &serde_json::to_vec(&body).expect("JSON values serialize"), &WriteOptions::default())
            .await?;
        let created = Migration::new(written.object)?;
        tracing::info!(migration = %created.record.name, definition = %created.record.definition(),
            "storage version migration created");
        Ok(created)
    }

    /// Runs `name` on a task of its own, unless it already runs here.
    fn spawn(self: &Arc<Self>, name: &str) {
        if !self.running.lock().expect("migrations lock").insert(name.to_string()) {
            return;
        }
        let (this, name) = (self.clone(), name.to_string());
        tokio::spawn(async move {
            this.run(&name).await;
            this.running.lock().expect("migrations lock").remove(&name);
        });
    }

    /// Rewrites the records of earlier releases as the objects they are
    /// now: called once before the server serves.
    pub async fn upgrade_stored(&self) -> Result<()> {
        let range = self.store.range(&keys::migrations_prefix(), None, ReadAt::Latest, 0, &mut |_| true)?;
        for kv in range.items {
            let legacy = record::parse(&kv)?;
            if legacy.get("metadata").is_some() {
                continue;
            }
            let Some(object) = record::upgrade(&legacy) else { continue };
            let op = Op::update(kv.key.to_string(), kv.mod_revision, record::to_stored(&object));
            match self.store.commit(vec![op]).await {
                Ok(_) | Err(StorageError::PreconditionFailed { .. }) => {}
                Err(err) => return Err(err.into()),
            }
        }
        Ok(())
    }

    /// The controller: runs every migration not ended, and each one
    /// created or changed later, until the server stops.
    pub async fn control(self: Arc<Self>) {
        let mut stopped = self.stopped.clone();
        while !*stopped.borrow() {
            let from = self.store.current_revision();
            let follow = match self.list() {
                Ok(migrations) => {
                    migrations
                        .iter()
                        .filter(|m| !m.record.phase().is_terminal())
                        .for_each(|m| self.spawn(&m.record.name));
                    self.store.watch(&keys::migrations_prefix(), from).map_err(Error::from)
                }
                Err(err) => Err(err),
            };
            let mut changes = match follow {
                Ok(changes) => changes,
                Err(err) => {
                    tracing::warn!(error = %err, "the migration controller waits to list again");
                    tokio::select! {
                        _ = tokio::time::sleep(std::time::Duration::from_secs(1)) => continue,
                        _ = stopped.wait_for(|s| *s) => return,
                    }
                }
            };
            loop {
                let message = tokio::select! {
                    message = changes.next() => message,
                    _ = stopped.wait_for(|s| *s) => return,
                };
                let Some(Ok(message)) = message else { break };
                let WatchMessage::Events(events) = message else { continue };
                for event in events.iter() {
                    let Event::Put { current, .. } = event else { continue };
                    let Ok(m) = decode(current) else { continue };
                    if !m.record.phase().is_terminal() {
                        // Watchable before readable: the run reads it.
                        self.store.wait_for_revision(current.mod_revision, std::time::Duration::from_secs(10)).await;
                        self.spawn(&m.record.name);
                    }
                }
            }
        }
    }

    /// One migration.
    pub fn get(&self, name: &str) -> Result<Migration> {
        let kv = self.store.get(&keys::migration_key(name)).ok_or_else(|| Error::not_found(GROUP, RESOURCE, name))?;
        decode(&kv)
    }

    /// Every migration, by name.
    pub fn list(&self) -> Result<Vec<Migration>> {
        let range = self.store.range(&keys::migrations_prefix(), None, ReadAt::Latest, 0, &mut |_| true)?;
        range.items.iter().map(decode).collect()
    }

    /// The migration as it is now, then after every change, ending once
    /// it has ended (or is deleted).
    pub fn watch(&self, name: &str) -> Result<BoxStream<'static, Result<Migration>>> {
        let key = keys::migration_key(name);
        let kv = self.store.get(&key).ok_or_else(|| Error::not_found(GROUP, RESOURCE, name))?;
        let first = decode(&kv)?;
        let mut changes = self.store.watch(&key, kv.mod_revision)?;
        let stream = async_stream::stream! {
            let ended = first.record.phase().is_terminal();
            yield Ok(first);
            if ended {
                return;
            }
            while let Some(message) = changes.next().await {
                let events = match message {
                    Ok(WatchMessage::Events(events)) => events,
                    Ok(WatchMessage::Progress(_)) => continue,
                    Err(err) => {
                        yield Err(err.into());
                        return;
                    }
                };
                // The prefix is the key: longer names match it too.
                for event in events.iter().filter(|e| e.key() == key) {
                    let Event::Put { current, .. } = event else { return };
                    let migration = decode(current);
                    let ended = migration.as_ref().map_or(true, |m| m.record.phase().is_terminal());
                    yield migration;
                    if ended {
                        return;
                    }
                }
            }
        };
        Ok(stream.boxed())
    }
}
