//! One migration run: reads a definition's stored objects in key order a
//! page at a time from the record's continue key, brings those not at the
//! storage version to it (`to_storage_version`, the one place a migration
//! converts), and commits each page's rewrites together with the record's
//! new progress, every rewrite conditional on the object's mod revision.
//! A page that loses a race to a client write is read again (the object
//! written meanwhile is already at the storage version, or is rewritten
//! now). Writes are paced to the configured rate. When a pass ends, a check
//! that no object is left at another version, then `status.storedVersions`
//! is trimmed to the storage version, only if the definition has not
//! changed since that check resolved it (every write of an object is tied
//! to the definition revision it resolved, so none at an older storage
//! version lands after the check); otherwise the check runs again, a new
//! pass if the storage version changed.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::record::{self, Phase, Progress, Record};
use super::Migrations;
use crate::apimachinery::options::WriteOptions;
use crate::error::{Error, Reason, Result};
use crate::resource::served::Served;
use crate::resource::stored::{self, split_mark, Storing};
use crate::storage::{keys, KeyValue, Op, ReadAt, StorageError};

/// Brings stored objects (each at the version its `apiVersion` names) to
/// the storage version, in order, through the definition's converter (one
/// webhook review for the page): the one place a migration converts.
pub async fn to_storage_version(served: &Served, objects: Vec<Value>) -> Result<Vec<Value>> {
    served.converter.convert(objects, &served.storage_version).await
}

/// A migration's object as stored (no resourceVersion), with its key-value.
struct Loaded {
    kv: KeyValue,
    object: Value,
}

/// What one step of a run did.
enum Step {
    /// More to do.
    Continue,
    /// The migration ended (or its record is gone).
    Done,
}

impl Migrations {
    /// Runs migration `name` until it ends, the server stops or its record
    /// is deleted. Failures of the store end the run without failing the
    /// migration: the next start resumes it.
    pub(super) async fn run(&self, name: &str) {
        let mut pace = Pace::new(self.options.rate);
        loop {
            if *self.stopped.borrow() {
                return;
            }
            match self.step(name, &mut pace).await {
                Ok(Step::Continue) => {}
                Ok(Step::Done) => return,
                Err(err) => {
                    tracing::warn!(migration = name, error = %err, "migration paused; it resumes at the next start");
                    return;
                }
            }
        }
    }

    /// The migration's object as stored, and its record.
    fn load(&self, name: &str) -> Option<(Loaded, Record)> {
        let kv = self.store.get(&keys::migration_key(name))?;
        let object = record::parse(&kv).ok()?;
        let record = Record::from_object(&object).ok()?;
        Some((Loaded { kv, object }, record))
    }

    /// `at`'s object with `record`'s status, to write over it.
    fn status_op(at: &Loaded, record: &Record) -> Op {
        let mut object = at.object.clone();
        record.write_status(&mut object);
        Op::update(at.kv.key.to_string(), at.kv.mod_revision, record::to_stored(&object))
    }

    /// Writes `record`'s status over the stored object at `at`; false when
    /// it changed meanwhile.
    async fn save(&self, at: &Loaded, record: &Record) -> Result<bool> {
        match self.store.commit(vec![Self::status_op(at, record)]).await {
            Ok(_) => Ok(true),
            Err(StorageError::PreconditionFailed { .. }) => Ok(false),
            Err(err) => Err(err.into()),
        }
    }

    async fn fail(&self, at: &Loaded, mut record: Record, message: String) -> Result<Step> {
        tracing::warn!(migration = %record.name, %message, "migration failed");
        record.finish(Phase::Failed, message);
        Ok(if self.save(at, &record).await? { Step::Done } else { Step::Continue })
    }

    async fn step(&self, name: &str, pace: &mut Pace) -> Result<Step> {
        let Some((at, mut record)) = self.load(name) else { return Ok(Step::Done) };
        if record.phase().is_terminal() {
            return Ok(Step::Done);
        }
        if record.resource_version.is_empty() {
            // First seen: Running, from the store's revision now.
            record.begin(self.store.current_revision());
            self.save(&at, &record).await?;
            return Ok(Step::Continue);
        }
        let Some(served) = self.catalog.resolve_any(self.store.as_ref(), &record.group, &record.resource) else {
            let message =
                format!("resource does not exist in discovery: {}.{} is not served", record.resource, record.group);
            return self.fail(&at, record, message).await;
        };
        let prefix = keys::resource_prefix(&served.group, &served.plural);
        if record.progress.target_version != served.storage_version {
            // A new pass: the first, or the storage version changed.
            record.progress.target_version = served.storage_version.clone();
            record.new_pass(self.store.count(&prefix) as u64);
            self.save(&at, &record).await?;
            return Ok(Step::Continue);
        }
        let target = served.api_version(&served.storage_version);
        let page = self.store.range(
            &prefix,
            record.progress.continue_key.as_deref(),
            ReadAt::Latest,
            self.options.batch(),
            &mut |_| true,
        )?;
        if page.items.is_empty() {
            return self.finish_pass(&at, record, &served, &prefix, &target).await;
        }
        let pending: Vec<&KeyValue> =
            page.items.iter().filter(|kv| stored::api_version(&kv.value).as_deref() != Some(&target)).collect();
        let mut objects = Vec::with_capacity(pending.len());
        for item in &pending {
            let obj: Value = serde_json::from_slice(split_mark(&item.value).0)
                .map_err(|e| Error::internal(format!("stored object {} is corrupt: {e}", item.key)))?;
            objects.push(obj);
        }
        let converted = match to_storage_version(&served, objects).await {
            Ok(converted) => converted,
            Err(err) => return self.fail(&at, record, format!("converting to {target}: {}", err.message)).await,
        };
        let mut ops = Vec::with_capacity(pending.len() + 1);
        for (item, obj) in pending.iter().zip(&converted) {
            let mut storing = Storing::new(&served, obj);
            ops.push(Op::update(item.key.to_string(), item.mod_revision, storing.take_bytes(Some(item))));
        }
        record.progress.continue_key = page.items.last().map(|kv| kv.key.to_string());
        record.progress.scanned += page.items.len() as u64;
        record.progress.migrated += pending.len() as u64;
        record.note_progress();
        ops.push(Self::status_op(&at, &record));
        if !pace.wait(pending.len(), &self.stopped).await {
            return Ok(Step::Done);
        }
        match self.store.commit(ops).await {
            Ok(_) => Ok(Step::Continue),
            // A client wrote an object of the page (or the record changed):
            // read the page again.
            Err(StorageError::PreconditionFailed { .. }) => Ok(Step::Continue),
            Err(err) => Err(err.into()),
        }
    }

    /// The end of a pass: any object still at another version (written by a
    /// request resolved before the storage version changed) starts another
    /// pass; else `storedVersions` is trimmed and the migration succeeds.
    async fn finish_pass(
        &self,
        at: &Loaded,
        mut record: Record,
        served: &Served,
        prefix: &str,
        target: &str,
    ) -> Result<Step> {
        let mut left = 0usize;
        self.store.range(prefix, None, ReadAt::Latest, 1, &mut |kv| {
            let other = stored::api_version(&kv.value).as_deref() != Some(target);
            left += usize::from(other);
            other
        })?;
        if left > 0 {
            record.new_pass(self.store.count(prefix) as u64);
            self.save(at, &record).await?;
            return Ok(Step::Continue);
        }
        match self.trim(served).await {
            Ok(true) => {
                record.finish(Phase::Succeeded, String::new());
                let Progress { migrated, target_version, .. } = &record.progress;
                tracing::info!(migration = %record.name, migrated, version = %target_version,
                    "storage version migration succeeded");
                self.save(at, &record).await?;
                Ok(Step::Continue)
            }
            // The definition changed since the pass resolved it: the next
            // step checks again (a new pass if the storage version changed).
            Ok(false) => Ok(Step::Continue),
            Err(err) if err.reason == Reason::NotFound => {
                self.fail(at, record, format!("the definition {} is gone", served.definition)).await
            }
            Err(err) => Err(err),
        }
    }

    /// Trims the definition's `status.storedVersions` to its storage
    /// version, only if the definition is still at the revision `served`
    /// was resolved at, before the pass's last check: every object written
    /// since was tied to that revision (`Resources::tie`), so to its
    /// storage version, and the trim cannot lie. False when the definition
    /// changed meanwhile.
    async fn trim(&self, served: &Served) -> Result<bool> {
        let version = served.storage_version.as_str();
        let at = crate::resource::definitions::at(&served.definition);
        let mut crd = self.resources.get(&at, Default::default()).await?.into_value()?;
        if crd["metadata"]["resourceVersion"].as_str() != Some(served.revision.to_string().as_str()) {
            return Ok(false);
        }
        if crd["status"]["storedVersions"] == serde_json::json!([version]) {
            return Ok(true);
        }
        crd["status"]["storedVersions"] = serde_json::json!([version]);
        let body = serde_json::to_vec(&crd).expect("JSON values serialize");
        // Conditional on that resourceVersion.
        match self.resources.update_status(&at, &body, &WriteOptions::default()).await {
            Ok(_) => Ok(true),
            Err(err) if err.reason == Reason::Conflict => Ok(false),
            Err(err) => Err(err),
        }
    }
}

/// Paces writes to `rate` objects per second (0: no limit) since the run
/// started: a batch waits until the objects before it and itself fit.
pub struct Pace {
    rate: u32,
    started: Instant,
    done: u64,
}

impl Pace {
    pub fn new(rate: u32) -> Self {
        Self { rate, started: Instant::now(), done: 0 }
    }

    /// How long `n` more objects must wait at `now`.
    pub fn delay(&mut self, n: usize, now: Instant) -> Duration {
        self.done += n as u64;
        if self.rate == 0 {
            return Duration::ZERO;
        }
        let due = self.started + Duration::from_secs_f64(self.done as f64 / f64::from(self.rate));
        due.saturating_duration_since(now)
    }

    /// Waits for `n` more objects; false when the server stops meanwhile.
    async fn wait(&mut self, n: usize, stopped: &tokio::sync::watch::Receiver<bool>) -> bool {
        let delay = self.delay(n, Instant::now());
        if delay.is_zero() {
            return true;
        }
        let mut stopped = stopped.clone();
        tokio::select! {
            _ = tokio::time::sleep(delay) => true,
            _ = stopped.wait_for(|s| *s) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pacing_spreads_objects_at_the_rate() {
        let mut pace = Pace::new(100);
        let start = pace.started;
        assert_eq!(pace.delay(50, start), Duration::from_millis(500));
        assert_eq!(pace.delay(50, start + Duration::from_millis(700)), Duration::from_millis(300));
        assert_eq!(pace.delay(10, start + Duration::from_secs(5)), Duration::ZERO);
        assert_eq!(Pace::new(0).delay(1_000_000, start), Duration::ZERO);
    }
}
