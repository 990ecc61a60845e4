//! Images of the sled store, for backups: a consistent read of every key and
//! the history window at one revision (`image`), and a new store built from
//! one (`SledStore::restore`). An image reads its objects from the readers'
//! snapshot, which never changes, and its history from the log, which
//! compaction leaves alone while the image lives.

use std::collections::{HashMap, VecDeque};
use std::ops::Bound;
use std::path::Path;
use std::sync::{Arc, Weak};

use super::{replay, sled_err, Shared, SledStore, State};
use crate::storage::keys;
use crate::storage::{codec, Event, Image, ImageItem, KeyValue, Revision, StorageError};

/// Objects read from the index per step.
const OBJECTS_PER_STEP: usize = 1024;
/// Revisions read from the log per step.
const REVISIONS_PER_STEP: i64 = 256;
/// Bytes a restore writes per sled batch.
const RESTORE_BATCH_BYTES: usize = 8 * 1024 * 1024;

/// Keeps compaction off the log while an image is read.
struct Hold(Weak<Shared>);

impl Hold {
    /// Holds the log; returns the compacted revision it holds it at (read
    /// under the lock compaction holds, so no compaction is half done).
    fn new(shared: &Arc<Shared>) -> Result<(Self, Revision), StorageError> {
        let mut images = shared.images.lock().map_err(|_| StorageError::Internal("image lock poisoned".into()))?;
        *images += 1;
        Ok((Self(Arc::downgrade(shared)), shared.compacted()))
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        if let Some(shared) = self.0.upgrade() {
            if let Ok(mut images) = shared.images.lock() {
                *images -= 1;
            }
        }
    }
}

/// An image of the store at its latest readable revision.
pub(super) fn image(shared: &Arc<Shared>) -> Result<Image, StorageError> {
    let (hold, compacted) = Hold::new(shared)?;
    // Loaded after the hold: every revision of it above `compacted` is in
    // the log, durable, and stays there.
    let state = shared.state.load_full();
    let revision = state.revision;
    let objects = state.map.len() as u64;
    let items = Items {
        shared: Arc::downgrade(shared),
        state,
        _hold: hold,
        last_key: None,
        objects_done: false,
        next: compacted + 1,
        end: revision,
        buffer: VecDeque::new(),
        failed: false,
    };
    Ok(Image { revision, compacted, objects, items: Box::new(items) })
}

struct Items {
    shared: Weak<Shared>,
    state: Arc<State>,
    _hold: Hold,
    last_key: Option<Arc<str>>,
    objects_done: bool,
    /// The next revision of history to read.
    next: Revision,
    end: Revision,
    buffer: VecDeque<ImageItem>,
    failed: bool,
}

impl Items {
    fn refill(&mut self) -> Result<(), StorageError> {
        if !self.objects_done {
            let lower = match &self.last_key {
                Some(key) => Bound::Excluded(&**key),
                None => Bound::Unbounded,
            };
            let step: Vec<KeyValue> = self.state.map.range_from(lower).take(OBJECTS_PER_STEP).cloned().collect();
            match step.last() {
                Some(last) => self.last_key = Some(last.key.clone()),
                None => self.objects_done = true,
            }
            self.buffer.extend(step.into_iter().map(ImageItem::Object));
            if !self.buffer.is_empty() {
                return Ok(());
            }
        }
        if self.next > self.end {
            return Ok(());
        }
        let shared = self.shared.upgrade().ok_or_else(super::closed)?;
        let to = (self.next + (REVISIONS_PER_STEP - 1)).min(self.end);
        // Up to `to`, or fewer revisions when they hold more than a read of
        // the log does (`history::READ_BYTES`): a backup of large objects
        // holds a few MiB of the log at a time.
        let chunk = super::history::read_shared_log(&shared, self.next, to, usize::MAX)?;
        self.next = chunk.last().map_or(to + 1, |l| l.revision + 1);
        self.buffer.extend(chunk.into_iter().map(|l| ImageItem::History {
            revision: l.revision,
            committed_at_ms: l.committed_at_ms,
            events: l.events,
        }));
        Ok(())
    }
}

impl Iterator for Items {
    type Item = Result<ImageItem, StorageError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        if self.buffer.is_empty() {
            if let Err(err) = self.refill() {
                self.failed = true;
                return Some(Err(err));
            }
        }
        self.buffer.pop_front().map(Ok)
    }
}

/// A running check of a sequence of objects: equal for equal sequences.
#[derive(Default)]
struct Digest(crc32fast::Hasher);

impl Digest {
    fn add(&mut self, kv: &KeyValue) {
        self.0.update(&(kv.key.len() as u64).to_be_bytes());
        self.0.update(kv.key.as_bytes());
        self.0.update(&(kv.value.len() as u64).to_be_bytes());
        self.0.update(&kv.value);
        self.0.update(&kv.create_revision.get().to_be_bytes());
        self.0.update(&kv.mod_revision.get().to_be_bytes());
    }
}

fn invalid(why: String) -> StorageError {
    StorageError::Internal(format!("invalid image: {why}"))
}

impl SledStore {
    /// Builds a new store in `dir`, which must hold none, from `image`; it is
    /// durable on return. Objects at or below the image's compacted revision
    /// become the log entries that hold current values, the history its
    /// log. The store is then replayed as `open` would and must come out as
    /// exactly the image's objects at its revision. On an error `dir` holds
    /// a partial store: build into a directory of its own and drop it then.
    pub fn restore(dir: &Path, image: Image) -> Result<(), StorageError> {
        let config = sled::Config::new().path(dir).mode(sled::Mode::HighThroughput);
        let db = super::lock::open(&config, dir, super::lock::LOCK_WAIT)?;
        let tree = db.open_tree(keys::TREE).map_err(sled_err)?;
        if !tree.is_empty() {
            return Err(StorageError::Internal(format!("{} already holds a store", dir.display())));
        }
        let (revision, compacted) = (image.revision, image.compacted);
        let mut batch = sled::Batch::default();
        batch.insert(keys::META_FORMAT, &keys::FORMAT_VERSION.to_be_bytes());
        let mut pending = 0usize;
        let mut slots: HashMap<Revision, u32> = HashMap::new();
        let mut digest = Digest::default();
        let mut objects = 0u64;
        let mut last_key: Option<Arc<str>> = None;
        let mut expected = compacted + 1;
        for item in image.items {
            match item? {
                ImageItem::Object(kv) => {
                    if expected != compacted + 1 {
                        return Err(invalid(format!("object {} after the history", kv.key)));
                    }
                    if last_key.as_ref().is_some_and(|last| *last >= kv.key) {
                        return Err(invalid(format!("object {} out of key order", kv.key)));
                    }
                    if kv.mod_revision > revision || kv.create_revision > kv.mod_revision || kv.create_revision < 1 {
                        return Err(invalid(format!("object {} has impossible revisions", kv.key)));
                    }
                    objects += 1;
                    digest.add(&kv);
                    last_key = Some(kv.key.clone());
                    // Later values come from the history.
                    if kv.mod_revision <= compacted {
                        let index = slots.entry(kv.mod_revision).or_insert(0);
                        let entry = codec::encode_event(&Event::Put { current: kv.clone(), previous: None }, 0);
                        pending += entry.len();
                        batch.insert(&keys::log_key(kv.mod_revision, *index), entry);
                        *index += 1;
                    }
                }
                ImageItem::History { revision: rev, committed_at_ms, events } => {
                    if rev != expected || rev > revision {
                        return Err(invalid(format!("history revision {rev} where {expected} was expected")));
                    }
                    if events.is_empty() || events.iter().any(|e| e.revision() != rev) {
                        return Err(invalid(format!("history revision {rev} has no events or others' events")));
                    }
                    expected += 1;
                    for (index, event) in events.iter().enumerate() {
                        let entry = codec::encode_event(event, committed_at_ms);
                        pending += entry.len();
                        batch.insert(&keys::log_key(rev, index as u32), entry);
                    }
                }
            }
            if pending >= RESTORE_BATCH_BYTES {
                tree.apply_batch(std::mem::take(&mut batch)).map_err(sled_err)?;
                pending = 0;
            }
        }
        if objects != image.objects {
            return Err(invalid(format!("{objects} objects where {} were announced", image.objects)));
        }
        if expected != revision + 1 {
            return Err(invalid(format!("history ends before revision {revision}, at {}", expected - 1)));
        }
        batch.insert(keys::META_REVISION, &codec::encode_revision(revision));
        batch.insert(keys::META_COMPACTED, &codec::encode_revision(compacted));
        tree.apply_batch(batch).map_err(sled_err)?;
        db.flush().map_err(sled_err)?;
        check_replayed(&tree, compacted, revision, objects, digest)
    }
}

/// The restored store, replayed as `open` replays it, holds exactly the
/// image's objects (`objects` of them, `digest` of their contents) at its
/// revision.
fn check_replayed(
    tree: &sled::Tree,
    compacted: Revision,
    revision: Revision,
    objects: u64,
    digest: Digest,
) -> Result<(), StorageError> {
    let (replayed, index) = replay(tree, compacted)?;
    let mut rebuilt = Digest::default();
    index.range_from(Bound::Unbounded).for_each(|kv| rebuilt.add(kv));
    if replayed != revision || index.len() as u64 != objects || rebuilt.0.finalize() != digest.0.finalize() {
        return Err(invalid(format!(
            "its history does not lead to its objects (revision {replayed} of {revision}, {} objects of {objects})",
            index.len()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::sled::SledOptions;
    use crate::storage::{HistoryWindow, Op, Storage};
    use std::time::Duration;

    fn options(min_revisions: u64) -> SledOptions {
        SledOptions {
            window: HistoryWindow { min_age: Duration::ZERO, min_revisions },
            compaction_interval: Duration::from_secs(3600),
            ..SledOptions::default()
        }
    }

    fn collect(image: Image) -> (Revision, Revision, Vec<ImageItem>) {
        (image.revision, image.compacted, image.items.collect::<Result<Vec<_>, _>>().unwrap())
    }

    #[tokio::test]
    async fn an_image_restores_to_the_same_store_with_its_history() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _bg) = SledStore::open(dir.path(), options(3)).unwrap();
        for i in 0..10 {
            store.commit(vec![Op::create(format!("/k/{i}"), b"v".to_vec())]).await.unwrap();
        }
        let put = store.get("/k/3").unwrap();
        store.commit(vec![Op::update("/k/3", put.mod_revision, b"w".to_vec())]).await.unwrap();
        store.commit(vec![Op::delete("/k/5", Revision::new(6))]).await.unwrap();
        assert_eq!(store.compact().await.unwrap(), Revision::new(9));
        let image = store.image().unwrap();
        // Compaction leaves the log alone while an image is held.
        store.commit(vec![Op::create("/k/x", b"x".to_vec())]).await.unwrap();
        assert_eq!(store.compact().await.unwrap(), Revision::new(9));
        let (revision, compacted, items) = collect(image);
        assert_eq!((revision, compacted), (Revision::new(12), Revision::new(9)));
        assert_eq!(items.iter().filter(|i| matches!(i, ImageItem::Object(_))).count(), 9);
        assert_eq!(items.len(), 9 + 3);
        let expected = store.range("/", None, crate::storage::ReadAt::Revision(revision), 0, &mut |_| true).unwrap();
        store.close().await;

        let target = tempfile::tempdir().unwrap();
        let image = Image { revision, compacted, objects: 9, items: Box::new(items.clone().into_iter().map(Ok)) };
        SledStore::restore(target.path(), image).unwrap();
        let (restored, _bg) = SledStore::open(target.path(), options(3)).unwrap();
        assert_eq!(restored.current_revision(), revision);
        assert_eq!(restored.compacted_revision(), compacted);
        let got = restored.range("/", None, crate::storage::ReadAt::Latest, 0, &mut |_| true).unwrap();
        assert_eq!(got.items, expected.items);
        let (_, _, again) = collect(restored.image().unwrap());
        assert_eq!(again, items);
        restored.close().await;
    }

    #[tokio::test]
    async fn large_revisions_are_read_a_few_mib_at_a_time_and_all_of_them() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _bg) = SledStore::open(dir.path(), options(100)).unwrap();
        for i in 0..12 {
            store.commit(vec![Op::create(format!("/k/{i}"), vec![b'x'; 1 << 20])]).await.unwrap();
        }
        let end = store.current_revision();
        let chunk = super::super::history::read_shared_log(&store.shared, Revision::new(1), end, usize::MAX).unwrap();
        assert!((1..=5).contains(&chunk.len()), "{} revisions of 1 MiB in one read", chunk.len());
        let (revision, compacted, items) = collect(store.image().unwrap());
        let history: Vec<Revision> = items
            .iter()
            .filter_map(|i| match i {
                ImageItem::History { revision, .. } => Some(*revision),
                ImageItem::Object(_) => None,
            })
            .collect();
        assert_eq!(history, (compacted.get() + 1..=revision.get()).map(Revision::new).collect::<Vec<_>>());
        assert_eq!(history.len(), 12);
        store.close().await;
    }

    #[tokio::test]
    async fn an_image_whose_history_disagrees_with_its_objects_is_refused() {
        let kv = |key: &str, rev: i64| KeyValue {
            key: Arc::from(key),
            value: Arc::from(&b"v"[..]),
            create_revision: Revision::new(rev),
            mod_revision: Revision::new(rev),
        };
        let items = vec![
            ImageItem::Object(kv("/a", 1)),
            ImageItem::Object(kv("/b", 2)),
            ImageItem::History {
                revision: Revision::new(2),
                committed_at_ms: 0,
                events: vec![Event::Put { current: kv("/c", 2), previous: None }],
            },
        ];
        let image = Image {
            revision: Revision::new(2),
            compacted: Revision::new(1),
            objects: 2,
            items: Box::new(items.into_iter().map(Ok)),
        };
        let dir = tempfile::tempdir().unwrap();
        let err = SledStore::restore(dir.path(), image).unwrap_err();
        assert!(err.to_string().contains("does not lead to its objects"), "{err}");
    }
}
