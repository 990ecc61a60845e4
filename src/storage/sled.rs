//! The embedded sled backend. One writer task owns every write: it drains the
//! queue of pending commits, checks each one's preconditions against the
//! state left by the ones before it, writes the whole group (records, log
//! entries and the revision) as one atomic sled batch, flushes once for the
//! group, and only then publishes the new state to readers and watchers and
//! answers the callers (group commit). Reads never touch sled for current
//! state: they use an immutable in-memory snapshot (`im::OrdMap`) swapped in
//! after each durable group, so a range sees one revision.

use std::ops::Bound;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use arc_swap::ArcSwap;
use async_trait::async_trait;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::codec;
use super::keys;
use super::{
    Committed, Event, EventBatch, KeyValue, Mutation, Op, OpResult, Precondition, Range, ReadAt, Revision, Storage,
    StorageError, WatchReceiver,
};
use crate::watch::{HistoryWindow, Hub};

/// Most commits the writer puts in one group.
const MAX_GROUP: usize = 1024;
/// Most log entries one compaction pass removes (it resumes on the next).
const MAX_COMPACT: usize = 50_000;
/// Log entries read per replay chunk when a watch catches up from history.
const REPLAY_CHUNK: usize = 512;
/// Buffered batches between a watch's feeder task and its consumer.
const WATCH_CHANNEL: usize = 256;

/// Options of the sled backend.
#[derive(Debug, Clone, Default)]
pub struct SledOptions {
    /// How much event history to keep.
    pub window: HistoryWindow,
}

/// The committed state readers see.
struct State {
    revision: Revision,
    map: im::OrdMap<Arc<str>, KeyValue>,
}

enum Request {
    Commit { ops: Vec<Op>, reply: oneshot::Sender<Result<Committed, StorageError>> },
    Compact { reply: Option<oneshot::Sender<Result<Revision, StorageError>>> },
    Close { reply: oneshot::Sender<()> },
}

struct Shared {
    db: sled::Db,
    tree: sled::Tree,
    state: ArcSwap<State>,
    compacted: AtomicI64,
    hub: Hub,
    window: HistoryWindow,
    failed: AtomicBool,
}

/// The sled-backed store.
pub struct SledStore {
    shared: Arc<Shared>,
    tx: mpsc::Sender<Request>,
    writer: std::sync::Mutex<Option<JoinHandle<()>>>,
}

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

fn sled_err(err: sled::Error) -> StorageError {
    StorageError::Unavailable(format!("sled: {err}"))
}

impl SledStore {
    /// Opens (or creates) the store in `dir` and starts its writer and
    /// compaction tasks on the current tokio runtime.
    pub fn open(dir: &Path, options: SledOptions) -> Result<Self, StorageError> {
        let db = sled::Config::new().path(dir).mode(sled::Mode::HighThroughput).open().map_err(sled_err)?;
        let tree = db.open_tree(keys::TREE).map_err(sled_err)?;
        check_format(&tree)?;
        let revision = read_meta(&tree, keys::META_REVISION)?;
        let compacted = read_meta(&tree, keys::META_COMPACTED)?;
        let mut map = im::OrdMap::new();
        for item in tree.scan_prefix([keys::DATA_PREFIX]) {
            let (k, v) = item.map_err(sled_err)?;
            let key = keys::storage_key(&k).ok_or_else(|| StorageError::Internal("corrupt data key".into()))?;
            let kv = codec::decode_record(key, &v)?;
            map.insert(kv.key.clone(), kv);
        }
        tracing::info!(revision, compacted, keys = map.len(), dir = %dir.display(), "opened sled store");
        let shared = Arc::new(Shared {
            db,
            tree,
            state: ArcSwap::from_pointee(State { revision, map }),
            compacted: AtomicI64::new(compacted),
            hub: Hub::new(revision),
            window: options.window,
            failed: AtomicBool::new(false),
        });
        let (tx, rx) = mpsc::channel(MAX_GROUP * 4);
        let writer = tokio::spawn(run_writer(shared.clone(), rx));
        tokio::spawn(run_compaction_timer(tx.downgrade(), options.window.compaction_interval));
        Ok(Self { shared, tx, writer: std::sync::Mutex::new(Some(writer)) })
    }

    /// Compacts the log now, as the timer would; returns the compacted
    /// revision.
    pub async fn compact(&self) -> Result<Revision, StorageError> {
        let (reply, rx) = oneshot::channel();
        self.send(Request::Compact { reply: Some(reply) }).await?;
        rx.await.map_err(|_| closed())?
    }

    async fn send(&self, request: Request) -> Result<(), StorageError> {
        self.tx.send(request).await.map_err(|_| closed())
    }

    /// The number of live watchers.
    pub fn watchers(&self) -> usize {
        self.shared.hub.watchers()
    }
}

fn closed() -> StorageError {
    StorageError::Unavailable("storage is shutting down".to_string())
}

fn check_format(tree: &sled::Tree) -> Result<(), StorageError> {
    match tree.get(keys::META_FORMAT).map_err(sled_err)? {
        None => {
            tree.insert(keys::META_FORMAT, &keys::FORMAT_VERSION.to_be_bytes()).map_err(sled_err)?;
            Ok(())
        }
        Some(v) if v.as_ref() == keys::FORMAT_VERSION.to_be_bytes() => Ok(()),
        Some(_) => Err(StorageError::Internal("data directory has an unknown layout version".into())),
    }
}

fn read_meta(tree: &sled::Tree, key: &[u8]) -> Result<Revision, StorageError> {
    match tree.get(key).map_err(sled_err)? {
        None => Ok(0),
        Some(v) => codec::decode_revision(&v),
    }
}

/// Applies `ops` at `revision` to `map`, or says which precondition failed.
/// Returns the per-operation results and the events (empty: no change).
fn apply_ops(
    map: &mut im::OrdMap<Arc<str>, KeyValue>,
    revision: Revision,
    ops: &[Op],
) -> Result<(Vec<OpResult>, Vec<Event>), StorageError> {
    let mut results = Vec::with_capacity(ops.len());
    let mut events = Vec::new();
    for (index, op) in ops.iter().enumerate() {
        let current = map.get(op.key.as_str()).cloned();
        let holds = match op.precondition {
            Precondition::None => true,
            Precondition::Absent => current.is_none(),
            Precondition::Present => current.is_some(),
            Precondition::ModRevision(rev) => current.as_ref().is_some_and(|kv| kv.mod_revision == rev),
        };
        if !holds {
            return Err(StorageError::PreconditionFailed { index, current });
        }
        match (&op.mutation, current) {
            (Mutation::Put(value), Some(prev)) if *prev.value == value[..] => {
                results.push(OpResult { current: Some(prev.clone()), previous: Some(prev) });
            }
            (Mutation::Put(value), previous) => {
                let key: Arc<str> = previous.as_ref().map(|p| p.key.clone()).unwrap_or_else(|| Arc::from(op.key.as_str()));
                let kv = KeyValue {
                    key: key.clone(),
                    value: Arc::from(value.as_slice()),
                    create_revision: previous.as_ref().map_or(revision, |p| p.create_revision),
                    mod_revision: revision,
                };
                map.insert(key, kv.clone());
                events.push(Event::Put { current: kv.clone(), previous: previous.clone() });
                results.push(OpResult { current: Some(kv), previous });
            }
            (Mutation::Delete, None) => results.push(OpResult { current: None, previous: None }),
            (Mutation::Delete, Some(prev)) => {
                map.remove(op.key.as_str());
                events.push(Event::Delete { previous: prev.clone(), revision });
                results.push(OpResult { current: None, previous: Some(prev) });
            }
        }
    }
    Ok((results, events))
}

type Reply = oneshot::Sender<Result<Committed, StorageError>>;

async fn run_writer(shared: Arc<Shared>, mut rx: mpsc::Receiver<Request>) {
    let mut group: Vec<(Vec<Op>, Reply)> = Vec::with_capacity(MAX_GROUP);
    while let Some(first) = rx.recv().await {
        let mut next = Some(first);
        let mut close: Option<oneshot::Sender<()>> = None;
        while let Some(request) = next.take() {
            match request {
                Request::Commit { ops, reply } => group.push((ops, reply)),
                Request::Compact { reply } => {
                    let result = compact(&shared);
                    if let Some(reply) = reply {
                        let _ = reply.send(result);
                    }
                }
                Request::Close { reply } => {
                    close = Some(reply);
                    break;
                }
            }
            if group.len() < MAX_GROUP {
                next = rx.try_recv().ok();
            }
        }
        if !group.is_empty() {
            commit_group(&shared, std::mem::take(&mut group)).await;
        }
        if let Some(reply) = close {
            if let Err(err) = shared.db.flush_async().await {
                tracing::error!(error = %err, "final flush failed");
            }
            shared.hub.close();
            let _ = reply.send(());
            return;
        }
    }
}

/// Writes one group durably, then publishes and answers.
async fn commit_group(shared: &Shared, group: Vec<(Vec<Op>, Reply)>) {
    if shared.failed.load(Ordering::Acquire) {
        for (_, reply) in group {
            let _ = reply.send(Err(StorageError::Unavailable("storage failed an earlier flush".into())));
        }
        return;
    }
    let state = shared.state.load_full();
    let mut map = state.map.clone();
    let mut revision = state.revision;
    let committed_at = now_ms();
    let mut batch = sled::Batch::default();
    let mut answers = Vec::with_capacity(group.len());
    let mut published: Vec<(Revision, EventBatch)> = Vec::new();
    for (ops, reply) in group {
        let mut attempt = map.clone();
        match apply_ops(&mut attempt, revision + 1, &ops) {
            Err(err) => answers.push((reply, Err(err))),
            Ok((results, events)) if events.is_empty() => {
                answers.push((reply, Ok(Committed { revision, changed: false, results })));
            }
            Ok((results, events)) => {
                revision += 1;
                map = attempt;
                for (index, event) in events.iter().enumerate() {
                    batch.insert(&keys::log_key(revision, index as u32), codec::encode_event(event, committed_at));
                    match event {
                        Event::Put { current, .. } => batch.insert(keys::data_key(&current.key), codec::encode_record(current)),
                        Event::Delete { previous, .. } => batch.remove(keys::data_key(&previous.key)),
                    }
                }
                answers.push((reply, Ok(Committed { revision, changed: true, results })));
                published.push((revision, Arc::new(events)));
            }
        }
    }
    if !published.is_empty() {
        batch.insert(keys::META_REVISION, &codec::encode_revision(revision));
        let durable = match shared.tree.apply_batch(batch) {
            Ok(()) => shared.db.flush_async().await.map(|_| ()),
            Err(err) => Err(err),
        };
        if let Err(err) = durable {
            tracing::error!(error = %err, "commit failed; refusing further writes");
            shared.failed.store(true, Ordering::Release);
            for (reply, _) in answers {
                let _ = reply.send(Err(StorageError::Unavailable(format!("commit failed: {err}"))));
            }
            return;
        }
        shared.state.store(Arc::new(State { revision, map }));
        for (rev, events) in published {
            shared.hub.publish(rev, events);
        }
    }
    for (reply, answer) in answers {
        let _ = reply.send(answer);
    }
}

/// Drops log entries outside the history window, whole revisions at a time.
fn compact(shared: &Shared) -> Result<Revision, StorageError> {
    let current = shared.state.load().revision;
    let compacted = shared.compacted.load(Ordering::Acquire);
    let now = now_ms();
    let mut batch = sled::Batch::default();
    let mut removed = 0usize;
    let mut last_whole = compacted;
    let mut in_progress: Option<Revision> = None;
    for item in shared.tree.range(keys::log_start(compacted + 1)..keys::log_start(current + 1)) {
        let (k, v) = item.map_err(sled_err)?;
        let rev = keys::log_revision(&k).ok_or_else(|| StorageError::Internal("corrupt log key".into()))?;
        if in_progress != Some(rev) {
            if let Some(done) = in_progress {
                last_whole = done;
            }
            if removed >= MAX_COMPACT || !shared.window.may_compact(rev, codec::decode_commit_time(&v)?, current, now) {
                in_progress = None;
                break;
            }
            in_progress = Some(rev);
        }
        batch.remove(k);
        removed += 1;
    }
    if let Some(done) = in_progress {
        last_whole = done;
    }
    if last_whole == compacted {
        return Ok(compacted);
    }
    // Readers learn of the new floor before the entries go, so a reader that
    // raced past the check sees a gap and reports it as compacted.
    shared.compacted.store(last_whole, Ordering::Release);
    batch.insert(keys::META_COMPACTED, &codec::encode_revision(last_whole));
    shared.tree.apply_batch(batch).map_err(sled_err)?;
    tracing::debug!(compacted = last_whole, removed, "compacted event log");
    Ok(last_whole)
}

async fn run_compaction_timer(tx: mpsc::WeakSender<Request>, every: Duration) {
    let mut ticker = tokio::time::interval(every);
    ticker.tick().await;
    loop {
        ticker.tick().await;
        let Some(tx) = tx.upgrade() else { return };
        if tx.send(Request::Compact { reply: None }).await.is_err() {
            return;
        }
    }
}

/// Reads the log entries of revisions `from..=to` (whole revisions), checking
/// that they are all there. At most about `max` entries.
fn read_log(shared: &Shared, from: Revision, to: Revision, max: usize) -> Result<Vec<(Revision, Vec<Event>)>, StorageError> {
    let mut out: Vec<(Revision, Vec<Event>)> = Vec::new();
    let mut count = 0;
    for item in shared.tree.range(keys::log_start(from)..keys::log_start(to + 1)) {
        let (k, v) = item.map_err(sled_err)?;
        let rev = keys::log_revision(&k).ok_or_else(|| StorageError::Internal("corrupt log key".into()))?;
        let (event, _) = codec::decode_event(rev, &v)?;
        match out.last_mut() {
            Some((last, events)) if *last == rev => events.push(event),
            last => {
                let expected = last.map_or(from, |(r, _)| *r + 1);
                if rev != expected {
                    return Err(gap(shared, expected));
                }
                if count >= max {
                    break;
                }
                out.push((rev, vec![event]));
            }
        }
        count += 1;
    }
    let reached = out.last().map_or(from - 1, |(r, _)| *r);
    if count < max && reached < to {
        return Err(gap(shared, reached + 1));
    }
    Ok(out)
}

fn gap(shared: &Shared, missing: Revision) -> StorageError {
    let compacted = shared.compacted.load(Ordering::Acquire);
    if missing <= compacted {
        StorageError::Compacted { requested: missing - 1, compacted }
    } else {
        StorageError::Internal(format!("event log is missing revision {missing}"))
    }
}

impl SledStore {
    fn check_revision(&self, requested: Revision, current: Revision) -> Result<(), StorageError> {
        let compacted = self.shared.compacted.load(Ordering::Acquire);
        if requested < compacted {
            return Err(StorageError::Compacted { requested, compacted });
        }
        if requested > current {
            return Err(StorageError::FutureRevision { requested, current });
        }
        Ok(())
    }

    /// The state at `revision` of every key under `prefix` changed after it:
    /// `None` for keys that did not exist then.
    fn history_overlay(
        &self,
        prefix: &str,
        revision: Revision,
        current: Revision,
    ) -> Result<std::collections::BTreeMap<Arc<str>, Option<KeyValue>>, StorageError> {
        let mut overlay = std::collections::BTreeMap::new();
        let mut from = revision + 1;
        while from <= current {
            let chunk = read_log(&self.shared, from, current, usize::MAX)?;
            for (_, events) in &chunk {
                for event in events {
                    if !event.key().starts_with(prefix) {
                        continue;
                    }
                    let key: Arc<str> = Arc::from(event.key());
                    let before = match event {
                        Event::Put { previous, .. } => previous.clone(),
                        Event::Delete { previous, .. } => Some(previous.clone()),
                    };
                    overlay.entry(key).or_insert(before);
                }
            }
            from = chunk.last().map_or(current + 1, |(r, _)| r + 1);
        }
        Ok(overlay)
    }
}

/// Collects up to `limit` accepted items from a key-ordered iterator, and
/// tells whether another accepted one follows.
fn take_page(items: impl Iterator<Item = KeyValue>, limit: usize, filter: &dyn Fn(&KeyValue) -> bool) -> (Vec<KeyValue>, bool) {
    let mut out = Vec::new();
    for kv in items.filter(|kv| filter(kv)) {
        if limit > 0 && out.len() == limit {
            return (out, true);
        }
        out.push(kv);
    }
    (out, false)
}

/// Merges the current items with the overlay of their older states.
fn merge_at_revision<'a>(
    current: impl Iterator<Item = KeyValue> + 'a,
    overlay: std::collections::BTreeMap<Arc<str>, Option<KeyValue>>,
) -> impl Iterator<Item = KeyValue> + 'a {
    let mut current = current.peekable();
    let mut older = overlay.into_iter().peekable();
    std::iter::from_fn(move || loop {
        let take_current = match (current.peek(), older.peek()) {
            (None, None) => return None,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(c), Some((k, _))) => c.key < *k,
        };
        if take_current {
            return current.next();
        }
        let (key, then) = older.next().expect("peeked");
        if current.peek().is_some_and(|c| c.key == key) {
            current.next();
        }
        if let Some(kv) = then {
            return Some(kv);
        }
    })
}

#[async_trait]
impl Storage for SledStore {
    fn current_revision(&self) -> Revision {
        self.shared.state.load().revision
    }

    fn compacted_revision(&self) -> Revision {
        self.shared.compacted.load(Ordering::Acquire)
    }

    fn get(&self, key: &str) -> Option<KeyValue> {
        self.shared.state.load().map.get(key).cloned()
    }

    fn range(
        &self,
        prefix: &str,
        start_after: Option<&str>,
        at: ReadAt,
        limit: usize,
        filter: &dyn Fn(&KeyValue) -> bool,
    ) -> Result<Range, StorageError> {
        let state = self.shared.state.load_full();
        let lower: Bound<Arc<str>> = match start_after {
            Some(after) if after >= prefix => Bound::Excluded(Arc::from(after)),
            _ => Bound::Included(Arc::from(prefix)),
        };
        let in_prefix = state
            .map
            .range((lower.clone(), Bound::Unbounded))
            .take_while(|(k, _)| k.starts_with(prefix))
            .map(|(_, v)| v.clone());
        let (revision, (items, more)) = match at {
            ReadAt::Revision(rev) if rev != state.revision => {
                self.check_revision(rev, state.revision)?;
                let mut overlay = self.history_overlay(prefix, rev, state.revision)?;
                if let Bound::Excluded(after) = &lower {
                    overlay = overlay.split_off(after);
                    overlay.remove(after);
                }
                (rev, take_page(merge_at_revision(in_prefix, overlay), limit, filter))
            }
            _ => (state.revision, take_page(in_prefix, limit, filter)),
        };
        Ok(Range { items, revision, more })
    }

    fn count(&self, prefix: &str) -> usize {
        let state = self.shared.state.load();
        state.map.range::<_, Arc<str>>(Arc::from(prefix)..).take_while(|(k, _)| k.starts_with(prefix)).count()
    }

    async fn commit(&self, ops: Vec<Op>) -> Result<Committed, StorageError> {
        let (reply, rx) = oneshot::channel();
        self.send(Request::Commit { ops, reply }).await?;
        rx.await.map_err(|_| closed())?
    }

    fn watch(&self, prefix: &str, after: Revision) -> Result<WatchReceiver, StorageError> {
        let compacted = self.compacted_revision();
        if after < compacted {
            return Err(StorageError::Compacted { requested: after, compacted });
        }
        let mut live = self.shared.hub.subscribe(prefix);
        let (tx, rx) = mpsc::channel(WATCH_CHANNEL);
        let shared = self.shared.clone();
        let prefix: Arc<str> = Arc::from(prefix);
        tokio::spawn(async move {
            let matching = |events: &[Event]| -> Option<EventBatch> {
                let kept: Vec<Event> = events.iter().filter(|e| e.key().starts_with(&*prefix)).cloned().collect();
                (!kept.is_empty()).then(|| Arc::new(kept))
            };
            // History first: (after, live.from], read in chunks off the runtime.
            let mut from = after + 1;
            while from <= live.from {
                let (shared2, to) = (shared.clone(), live.from);
                let chunk = tokio::task::spawn_blocking(move || read_log(&shared2, from, to, REPLAY_CHUNK)).await;
                let chunk = match chunk {
                    Ok(Ok(chunk)) => chunk,
                    Ok(Err(err)) => {
                        let _ = tx.send(Err(err)).await;
                        return;
                    }
                    Err(join) => {
                        let _ = tx.send(Err(StorageError::Internal(format!("replay task failed: {join}")))).await;
                        return;
                    }
                };
                from = chunk.last().map_or(live.from + 1, |(r, _)| r + 1);
                for (_, events) in chunk {
                    if let Some(batch) = matching(&events) {
                        if tx.send(Ok(batch)).await.is_err() {
                            return;
                        }
                    }
                }
            }
            // Then live batches; all are newer than live.from.
            loop {
                tokio::select! {
                    batch = live.recv() => match batch {
                        Some(batch) => {
                            if batch.first().is_some_and(|e| e.revision() <= after) {
                                continue;
                            }
                            if let Some(batch) = matching(&batch) {
                                if tx.send(Ok(batch)).await.is_err() {
                                    return;
                                }
                            }
                        }
                        None => {
                            if live.lagged() {
                                let _ = tx.send(Err(StorageError::WatcherTooSlow)).await;
                            }
                            return;
                        }
                    },
                    _ = tx.closed() => return,
                }
            }
        });
        Ok(rx)
    }

    async fn close(&self) {
        let (reply, rx) = oneshot::channel();
        if self.send(Request::Close { reply }).await.is_ok() {
            let _ = rx.await;
        }
        let writer = self.writer.lock().expect("writer lock").take();
        if let Some(writer) = writer {
            let _ = writer.await;
        }
    }
}
