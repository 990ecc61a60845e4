//! The embedded sled backend, the default store: one process on one machine
//! is a complete system.
//!
//! Commits go through one writer task that groups them and writes only their
//! log entries (`writer`); reads use an immutable in-memory snapshot
//! (`im::OrdMap`) swapped in after each durable group, so a range sees one
//! revision and never touches sled; the past is read from the log
//! (`history`); opening the store rebuilds the index from the log, read in
//! parts on every core (`replay`); compaction trims the log to the history
//! window, keeping the entries that hold current values, because the log is
//! the only copy (`compaction`).

mod compaction;
mod history;
mod image;
mod index;
mod lock;
mod replay;
mod reply;
mod writer;

use std::ops::Bound;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use arc_swap::ArcSwap;
use async_trait::async_trait;
use tokio::sync::{mpsc, oneshot};

use self::replay::replay;
use super::keys;
use super::{
    codec, Committed, Event, EventBatch, Image, KeyValue, Op, Range, ReadAt, Revision, Storage, StorageError,
    WatchMessage, WatchReceiver,
};
use crate::storage::{HistoryWindow, Hub};

/// Log entries read per chunk when a watch catches up from history.
const REPLAY_CHUNK: usize = 512;
/// sled's page cache. Readers never touch sled (the index holds every
/// current value), so its cache serves only the writer and history reads
/// (watch replay, ranges at an older revision); sled's default of 1 GiB
/// would hold a second copy of the store in memory.
const SLED_CACHE_BYTES: u64 = 64 << 20;
/// How often an idle watch is told how far it has got.
const PROGRESS_EVERY: Duration = Duration::from_millis(500);

/// Options of the sled backend.
#[derive(Debug, Clone)]
pub struct SledOptions {
    /// How much event history to keep.
    pub window: HistoryWindow,
    /// How often compaction runs.
    pub compaction_interval: Duration,
    /// Bytes of events a watcher may fall behind before it catches up
    /// from the log (see `hub`).
    pub watch_buffer: usize,
}

impl Default for SledOptions {
    fn default() -> Self {
        Self {
            window: HistoryWindow::default(),
            compaction_interval: Duration::from_secs(10),
            watch_buffer: crate::storage::hub::WATCH_BUFFER_BYTES,
        }
    }
}

/// The committed, durable state readers see.
struct State {
    revision: Revision,
    map: index::Index,
}

enum Request {
    Commit { ops: Vec<Op>, reply: writer::Reply },
    Compact { reply: oneshot::Sender<Result<Revision, StorageError>> },
    Close { reply: oneshot::Sender<()> },
}

/// What the writer, the flusher and the readers share.
struct Shared {
    db: sled::Db,
    tree: sled::Tree,
    state: ArcSwap<State>,
    compacted: AtomicI64,
    hub: Hub,
    /// Durable groups on their way to the hub, then readers (`run_fan_out`).
    fan_out: mpsc::UnboundedSender<writer::Publish>,
    /// The revision readers see, for those waiting for one.
    readable: tokio::sync::watch::Sender<Revision>,
    window: HistoryWindow,
    failed: AtomicBool,
    /// Images being read (`image`): compaction waits for none, so the history
    /// they read is not dropped under them.
    images: std::sync::Mutex<usize>,
}

impl Shared {
    /// The newest revision whose history is gone.
    fn compacted(&self) -> Revision {
        Revision::new(self.compacted.load(Ordering::Acquire))
    }
}

/// The task of an open store that belongs on the caller's runtime: the
/// compaction timer. It ends once the store is closed or gone.
#[must_use = "history is compacted only while the store's background runs"]
pub struct Background {
    work: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
}

impl Background {
    /// Runs until the store is closed or dropped.
    pub async fn run(self) {
        self.work.await
    }
}

/// The sled-backed store.
pub struct SledStore {
    shared: Arc<Shared>,
    tx: mpsc::Sender<Request>,
    writer: std::sync::Mutex<Option<std::thread::JoinHandle<()>>>,
}

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

fn sled_err(err: sled::Error) -> StorageError {
    StorageError::Unavailable(format!("sled: {err}"))
}

fn closed() -> StorageError {
    StorageError::Unavailable("storage is shutting down".to_string())
}

impl SledStore {
    /// Opens (or creates) the store in `dir`: replays the log to rebuild
    /// the index and starts the writer threads. The store's tasks come back
    /// as `Background`, for the caller to run on its runtime: history is
    /// compacted only while it runs. The writer, flusher and fan-out threads
    /// are the store's own.
    pub fn open(dir: &Path, options: SledOptions) -> Result<(Self, Background), StorageError> {
        let config = sled::Config::new().path(dir).mode(sled::Mode::HighThroughput).cache_capacity(SLED_CACHE_BYTES);
        let db = lock::open(&config, dir, lock::LOCK_WAIT)?;
        let tree = db.open_tree(keys::TREE).map_err(sled_err)?;
        check_format(&tree)?;
        let compacted = read_meta(&tree, keys::META_COMPACTED)?;
        let (revision, map) = replay(&tree, compacted)?;
        tracing::info!(%revision, %compacted, keys = map.len(), dir = %dir.display(), "opened sled store");
        let (fan_out, fan_out_rx) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            db,
            tree,
            state: ArcSwap::from_pointee(State { revision, map }),
            compacted: AtomicI64::new(compacted.get()),
            hub: Hub::new(revision, options.watch_buffer),
            fan_out,
            readable: tokio::sync::watch::Sender::new(revision),
            window: options.window,
            failed: AtomicBool::new(false),
            images: std::sync::Mutex::new(0),
        });
        {
            let shared = Arc::downgrade(&shared);
            std::thread::Builder::new()
                .name("crdstore-fanout".into())
                .spawn(move || run_fan_out(shared, fan_out_rx))
                .map_err(|e| StorageError::Internal(format!("spawn fan-out thread: {e}")))?;
        }
        let (tx, rx) = mpsc::channel(writer::MAX_GROUP * 4);
        let writer = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("crdstore-writer".into())
                .spawn(move || writer::run(shared, rx))
                .map_err(|e| StorageError::Internal(format!("spawn writer thread: {e}")))?
        };
        let background =
            Background { work: Box::pin(compaction::run_timer(tx.downgrade(), options.compaction_interval)) };
        Ok((Self { shared, tx, writer: std::sync::Mutex::new(Some(writer)) }, background))
    }

    /// The number of live watchers.
    pub fn watchers(&self) -> usize {
        self.shared.hub.watchers()
    }

    fn check_revision(&self, requested: Revision, current: Revision) -> Result<(), StorageError> {
        let compacted = self.shared.compacted();
        if requested < compacted {
            return Err(StorageError::Compacted { requested, compacted });
        }
        if requested > current {
            return Err(StorageError::FutureRevision { requested, current });
        }
        Ok(())
    }
}

/// Publishes durable groups, in order, on the fan-out thread: first to the
/// hub, then to readers, then answers the callers, so that nothing is
/// readable before it is watchable. All that one flush made durable goes out
/// as one batch, so a watcher is woken once per flush rather than once per
/// revision: under load, batches grow instead of wake-ups. It runs on a
/// thread of its own, as the writer and the flusher do, so commits are
/// answered however busy the runtime is with watchers and requests; the next
/// group flushes while this one is published.
fn run_fan_out(shared: std::sync::Weak<Shared>, mut rx: mpsc::UnboundedReceiver<writer::Publish>) {
    while let Some(publish) = rx.blocking_recv() {
        let Some(shared) = shared.upgrade() else { return };
        match publish {
            writer::Publish::Durable { state, events, answers } => {
                let fan_out: Vec<_> = answers.iter().filter_map(|(reply, _)| reply.fan_out()).collect();
                match events.len() {
                    0 => {}
                    1 => {
                        let (revision, events) = events.into_iter().next().expect("one group");
                        shared.hub.publish(revision, events);
                    }
                    _ => {
                        let last = events.last().map(|(r, _)| *r).expect("groups");
                        let merged: Vec<Event> = events.iter().flat_map(|(_, events)| events.iter().cloned()).collect();
                        shared.hub.publish(last, Arc::new(merged));
                    }
                }
                if let Some(state) = state {
                    let revision = state.revision;
                    shared.state.store(state);
                    shared.readable.send_replace(revision);
                }
                drop(fan_out);
                for (reply, answer) in answers {
                    let _ = reply.send(answer);
                }
            }
            writer::Publish::Barrier(reply) => {
                let _ = reply.send(());
            }
            writer::Publish::Close(reply) => {
                shared.hub.close();
                // The store (and sled's lock on its directory) must be free
                // once `close` returns, so it can be opened again at once.
                drop(shared);
                let _ = reply.send(());
                return;
            }
        }
    }
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
        None => Ok(Revision::ZERO),
        Some(v) => codec::decode_revision(&v),
    }
}

/// One watch: history after `after` up to what the hub had published when
/// it subscribed, then live batches; only events under `prefix`. A stream
/// polled by its consumer: no task of its own.
///
/// A watcher that falls `SledOptions::watch_buffer` behind is cut off by the
/// hub, which never waits for it; it then catches up from the log, as
/// etcd's unsynced watchers do, and subscribes again: it misses nothing
/// and holds no more than its buffer, and it ends (`Compacted`, a 410) only
/// if it falls behind the history window.
fn watch_stream(
    shared: std::sync::Weak<Shared>,
    mut live: crate::storage::Subscription,
    prefix: Arc<str>,
    after: Revision,
) -> WatchReceiver {
    Box::pin(async_stream::stream! {
        // Every change up to `reached` has been delivered.
        let mut reached = after;
        let mut progress = tokio::time::interval(PROGRESS_EVERY);
        progress.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let mut from = reached + 1;
            let mut delivered = reached;
            while from <= live.from {
                let Some(strong) = shared.upgrade() else { return };
                let to = live.from;
                let chunk = match read_chunk(strong, from, to).await {
                    Ok(chunk) => chunk,
                    Err(err) => {
                        yield Err(err);
                        return;
                    }
                };
                from = chunk.last().map_or(to + 1, |l| l.revision + 1);
                for logged in chunk {
                    if let Some(batch) = matching(&prefix, &Arc::new(logged.events)) {
                        delivered = logged.revision;
                        yield Ok(WatchMessage::Events(batch));
                    }
                }
            }
            // Everything up to `live.from` is delivered: say so when the last
            // revisions replayed were not this watch's (a watch that caught up
            // past other keys' changes learns it at once).
            reached = delivered;
            if live.from > reached {
                reached = live.from;
                yield Ok(WatchMessage::Progress(reached));
            }
            // Live batches until the hub closes (the end) or cuts this
            // watcher off (then around again, from the log).
            loop {
                tokio::select! {
                    batch = live.recv() => match batch {
                        Some(batch) => {
                            let Some(last) = batch.last().map(Event::revision) else { continue };
                            if last <= reached {
                                continue;
                            }
                            let batch = undelivered(batch, reached);
                            reached = last;
                            if let Some(batch) = matching(&prefix, &batch) {
                                yield Ok(WatchMessage::Events(batch));
                            } else {
                                yield Ok(WatchMessage::Progress(last));
                            }
                        }
                        None => break,
                    },
                    _ = progress.tick() => {
                        let Some(caught_up) = caught_up(&shared, &live) else { return };
                        if let Some(published) = caught_up.filter(|p| *p > reached) {
                            reached = published;
                            yield Ok(WatchMessage::Progress(published));
                        }
                    }
                }
            }
            if !live.lagged() {
                return;
            }
            let Some(strong) = shared.upgrade() else { return };
            tracing::debug!(prefix = %prefix, %reached, "watcher fell behind; catching up from the log");
            live = strong.hub.subscribe(&prefix);
        }
    })
}

/// The events of `events` under `prefix`, if any (the batch itself when
/// they all are).
fn matching(prefix: &str, events: &EventBatch) -> Option<EventBatch> {
    if events.iter().all(|e| e.key().starts_with(prefix)) {
        return Some(events.clone());
    }
    let kept: Vec<Event> = events.iter().filter(|e| e.key().starts_with(prefix)).cloned().collect();
    (!kept.is_empty()).then(|| Arc::new(kept))
}

/// Only the part of `batch` after what was delivered (`reached`): a batch
/// may span revisions on both sides of it.
fn undelivered(batch: EventBatch, reached: Revision) -> EventBatch {
    if batch[0].revision() <= reached {
        Arc::new(batch.iter().filter(|e| e.revision() > reached).cloned().collect())
    } else {
        batch
    }
}

/// The log from `from` to `to` (at most a chunk of it), read off the
/// runtime's threads.
async fn read_chunk(shared: Arc<Shared>, from: Revision, to: Revision) -> Result<Vec<history::Logged>, StorageError> {
    match tokio::task::spawn_blocking(move || history::read_shared_log(&shared, from, to, REPLAY_CHUNK)).await {
        Ok(read) => read,
        Err(join) => Err(StorageError::Internal(format!("replay task failed: {join}"))),
    }
}

/// What the hub has published that `live` has all of, if anything (None:
/// the store is gone).
fn caught_up(shared: &std::sync::Weak<Shared>, live: &crate::storage::Subscription) -> Option<Option<Revision>> {
    let strong = shared.upgrade()?;
    let caught_up = strong.hub.caught_up(live);
    Some(caught_up)
}

#[async_trait]
impl Storage for SledStore {
    fn current_revision(&self) -> Revision {
        self.shared.state.load().revision
    }

    fn compacted_revision(&self) -> Revision {
        self.shared.compacted()
    }

    async fn wait_for_revision(&self, revision: Revision, timeout: Duration) -> Revision {
        let mut readable = self.shared.readable.subscribe();
        let _ = tokio::time::timeout(timeout, readable.wait_for(|r| *r >= revision)).await;
        self.current_revision()
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
        filter: &mut dyn FnMut(&KeyValue) -> bool,
    ) -> Result<Range, StorageError> {
        let state = self.shared.state.load_full();
        let lower: Bound<&str> = match start_after {
            Some(after) if after >= prefix => Bound::Excluded(after),
            _ => Bound::Included(prefix),
        };
        let in_prefix = state.map.range_from(lower).take_while(|kv| kv.key.starts_with(prefix)).cloned();
        let (revision, (items, more)) = match at {
            ReadAt::Revision(rev) if rev != state.revision => {
                self.check_revision(rev, state.revision)?;
                let overlay = history::overlay_at(&self.shared, prefix, start_after, rev, state.revision)?;
                (rev, history::take_page(history::merge_at_revision(in_prefix, overlay), limit, filter))
            }
            _ => (state.revision, history::take_page(in_prefix, limit, filter)),
        };
        Ok(Range { items, revision, more })
    }

    fn count(&self, prefix: &str) -> usize {
        let state = self.shared.state.load();
        state.map.range_from(Bound::Included(prefix)).take_while(|kv| kv.key.starts_with(prefix)).count()
    }

    async fn commit(&self, ops: Vec<Op>) -> Result<Committed, StorageError> {
        let start = std::time::Instant::now();
        let committed = async {
            let (reply, rx) = oneshot::channel();
            let reply = reply::Reply::new(reply);
            self.tx.send(Request::Commit { ops, reply }).await.map_err(|_| closed())?;
            rx.await.map_err(|_| closed())?
        };
        let committed = tracing::Instrument::instrument(committed, tracing::debug_span!("storage.commit")).await;
        crate::metrics::get().commit_duration.record(crate::metrics::since(start), &[]);
        committed
    }

    fn watch(&self, prefix: &str, after: Revision) -> Result<WatchReceiver, StorageError> {
        let compacted = self.compacted_revision();
        if after < compacted {
            return Err(StorageError::Compacted { requested: after, compacted });
        }
        let live = self.shared.hub.subscribe(prefix);
        // Every revision readers have seen is published: one ahead of the hub
        // was never handed out.
        if after > live.from {
            return Err(StorageError::FutureRevision { requested: after, current: live.from });
        }
        // Only a weak reference: a watch must not keep a closed store open.
        Ok(watch_stream(Arc::downgrade(&self.shared), live, Arc::from(prefix), after))
    }

    fn image(&self) -> Result<Image, StorageError> {
        image::image(&self.shared)
    }

    async fn compact(&self) -> Result<Revision, StorageError> {
        let (reply, rx) = oneshot::channel();
        self.tx.send(Request::Compact { reply }).await.map_err(|_| closed())?;
        rx.await.map_err(|_| closed())?
    }

    async fn close(&self) {
        let (reply, rx) = oneshot::channel();
        if self.tx.send(Request::Close { reply }).await.is_ok() {
            let _ = rx.await;
        }
        let writer = self.writer.lock().expect("writer lock").take();
        if let Some(writer) = writer {
            let _ = tokio::task::spawn_blocking(move || writer.join()).await;
        }
    }
}
