//! Storage-version migration: rewrites every stored object of a definition
//! at the definition's current storage version, keeping its content and
//! generation, then trims `status.storedVersions` to that version (what
//! Kubernetes' `StorageVersionMigration` and its controller do). A
//! migration is a record in the store (`record`), started by `start`,
//! advanced a page per commit by `run`, resumed by `resume` when the
//! server starts, followed by `watch`.

pub mod record;
pub mod run;
#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use futures::stream::BoxStream;
use futures::StreamExt;

use crate::apimachinery::{dns, meta};
use crate::error::{Error, FieldError, Result};
use crate::registry::Registry;
use crate::resource::served::Catalog;
use crate::storage::{keys, Op, ReadAt, Revision, Storage, StorageError, WatchMessage};

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

/// A migration as its record and the record's revision.
#[derive(Debug, Clone, PartialEq)]
pub struct Migration {
    pub record: Record,
    pub revision: Revision,
}

/// The migrations of a store.
pub struct Migrations {
    store: Arc<dyn Storage>,
    registry: Arc<Registry>,
    catalog: Catalog,
    options: MigrationOptions,
    stopped: tokio::sync::watch::Receiver<bool>,
    /// Migrations with a run under way in this process.
    running: Mutex<HashSet<String>>,
}

const GROUP: &str = keys::MIGRATIONS_GROUP;
const RESOURCE: &str = keys::MIGRATIONS_RESOURCE;

fn decode(kv: &crate::storage::KeyValue) -> Result<Migration> {
    Ok(Migration { record: Record::decode(kv)?, revision: kv.mod_revision })
}

impl Migrations {
    pub fn new(
        store: Arc<dyn Storage>,
        registry: Arc<Registry>,
        options: MigrationOptions,
        stopped: tokio::sync::watch::Receiver<bool>,
    ) -> Self {
        Self { store, registry, catalog: Catalog::default(), options, stopped, running: Mutex::default() }
    }

    /// Starts a migration of `group/resource` named `name` (generated from
    /// the definition's name when empty). The resource need not be served
    /// yet: as in Kubernetes, a migration of one that is not fails.
    pub async fn start(self: &Arc<Self>, name: &str, group: &str, resource: &str) -> Result<Migration> {
        let mut causes = Vec::new();
        if resource.is_empty() {
            causes.push(FieldError::required("spec.resource.resource", ""));
        }
        let name = if name.is_empty() { meta::generate_name(&format!("{resource}.{group}-")) } else { name.into() };
        for msg in dns::dns1123_subdomain(&name) {
            causes.push(FieldError::invalid("metadata.name", name.as_str(), msg));
        }
        if !causes.is_empty() {
            return Err(Error::invalid(GROUP, record::KIND, &name, causes));
        }
        let record = Record::new(&name, group, resource, self.store.current_revision());
        let committed = match self.store.commit(vec![Op::create(record.key(), record.to_bytes())]).await {
            Err(StorageError::PreconditionFailed { .. }) => return Err(Error::already_exists(GROUP, RESOURCE, &name)),
            other => other?,
        };
        tracing::info!(migration = %name, definition = %record.definition(), "storage version migration started");
        self.spawn(&name);
        Ok(Migration { record, revision: committed.revision })
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

    /// Resumes every migration that had not ended: called once the server
    /// serves.
    pub fn resume(self: &Arc<Self>) -> Result<()> {
        for migration in self.list()? {
            if !migration.record.phase.is_terminal() {
                tracing::info!(migration = %migration.record.name, "resuming storage version migration");
                self.spawn(&migration.record.name);
            }
        }
        Ok(())
    }

    /// One migration.
    pub fn get(&self, name: &str) -> Result<Migration> {
        let kv = self.store.get(&keys::migration_key(name)).ok_or_else(|| Error::not_found(GROUP, RESOURCE, name))?;
        decode(&kv)
    }

    /// The revision a list of migrations is at.
    pub fn list_revision(&self) -> Revision {
        self.store.current_revision()
    }

    /// Every migration, by name.
    pub fn list(&self) -> Result<Vec<Migration>> {
        let range = self.store.range(&keys::migrations_prefix(), None, ReadAt::Latest, 0, &mut |_| true)?;
        range.items.iter().map(decode).collect()
    }

    /// Deletes a migration; a run under way stops at its next page.
    pub async fn delete(&self, name: &str) -> Result<Migration> {
        let kv = self.store.get(&keys::migration_key(name)).ok_or_else(|| Error::not_found(GROUP, RESOURCE, name))?;
        let last = decode(&kv)?;
        match self.store.commit(vec![Op::delete(kv.key.to_string(), kv.mod_revision)]).await {
            Err(StorageError::PreconditionFailed { .. }) => Err(Error::stale(GROUP, RESOURCE, name)),
            other => other.map(|_| last).map_err(Error::from),
        }
    }

    /// The migration as it is now, then after every change, ending once
    /// it has ended (or is deleted).
    pub fn watch(&self, name: &str) -> Result<BoxStream<'static, Result<Migration>>> {
        let key = keys::migration_key(name);
        let kv = self.store.get(&key).ok_or_else(|| Error::not_found(GROUP, RESOURCE, name))?;
        let first = decode(&kv)?;
        let mut changes = self.store.watch(&key, kv.mod_revision)?;
        let stream = async_stream::stream! {
            let ended = first.record.phase.is_terminal();
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
                    let crate::storage::Event::Put { current, .. } = event else { return };
                    let migration = decode(current);
                    let ended = migration.as_ref().map_or(true, |m| m.record.phase.is_terminal());
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
