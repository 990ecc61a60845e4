//! Fan-out of committed event batches to watchers. Publishing never waits:
//! each watcher may have at most `WATCHER_BUFFER` events buffered (counted in
//! events, not batches, since batches grow with load), and a watcher that
//! would exceed it is cut off (it sees `lagged`) instead of holding up the
//! writer or the other watchers; the storage watch then catches up from the
//! log and subscribes again, so what a watcher holds stays bounded and it
//! misses nothing.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;

use crate::storage::{EventBatch, Revision};

/// Events a watcher may have buffered before it is cut off.
pub const WATCHER_BUFFER: usize = 4096;

struct Slot {
    prefix: Arc<str>,
    tx: mpsc::UnboundedSender<EventBatch>,
    lagged: Arc<AtomicBool>,
    /// Events sent and not yet received: the buffer's bound.
    pending: Arc<AtomicUsize>,
}

struct Inner {
    next_id: u64,
    published: Revision,
    slots: HashMap<u64, Slot>,
    closed: bool,
}

/// The hub. One per store.
pub struct Hub {
    inner: Mutex<Inner>,
}

/// A watcher's end of the hub: live batches published after `from`.
pub struct Subscription {
    rx: mpsc::UnboundedReceiver<EventBatch>,
    lagged: Arc<AtomicBool>,
    pending: Arc<AtomicUsize>,
    /// The revision published when the subscription was made; every batch
    /// received is newer.
    pub from: Revision,
}

impl Subscription {
    /// The next batch; `None` when the hub closed or cut this watcher off
    /// (then `lagged` tells which).
    pub async fn recv(&mut self) -> Option<EventBatch> {
        let batch = self.rx.recv().await?;
        self.pending.fetch_sub(batch.len(), Ordering::AcqRel);
        Some(batch)
    }

    /// Whether the hub cut this watcher off because its buffer was full.
    pub fn lagged(&self) -> bool {
        self.lagged.load(Ordering::Acquire)
    }
}

impl Hub {
    /// The last published revision when `sub` has received every batch
    /// published up to it (nothing buffered), else `None`. Checked under the
    /// publishing lock, so no batch can be in between.
    pub fn caught_up(&self, sub: &Subscription) -> Option<Revision> {
        let inner = self.inner.lock().expect("hub lock");
        sub.rx.is_empty().then_some(inner.published)
    }
}

impl Hub {
    pub fn new(published: Revision) -> Self {
        Self { inner: Mutex::new(Inner { next_id: 0, published, slots: HashMap::new(), closed: false }) }
    }

    /// Subscribes to batches that touch keys under `prefix`, atomically with
    /// reading the last published revision, so history up to `from` plus the
    /// live batches after it leave no gap.
    pub fn subscribe(&self, prefix: &str) -> Subscription {
        let (tx, rx) = mpsc::unbounded_channel();
        let lagged = Arc::new(AtomicBool::new(false));
        let pending = Arc::new(AtomicUsize::new(0));
        let mut inner = self.inner.lock().expect("hub lock");
        let from = inner.published;
        if !inner.closed {
            let id = inner.next_id;
            inner.next_id += 1;
            let slot = Slot { prefix: Arc::from(prefix), tx, lagged: lagged.clone(), pending: pending.clone() };
            inner.slots.insert(id, slot);
        }
        Subscription { rx, lagged, pending, from }
    }

    /// Publishes the batch committed at `revision`. Never blocks.
    pub fn publish(&self, revision: Revision, batch: EventBatch) {
        let mut inner = self.inner.lock().expect("hub lock");
        inner.published = revision;
        inner.slots.retain(|_, slot| {
            if !batch.iter().any(|e| e.key().starts_with(&*slot.prefix)) {
                return !slot.tx.is_closed();
            }
            if slot.pending.load(Ordering::Acquire) + batch.len() > WATCHER_BUFFER {
                slot.lagged.store(true, Ordering::Release);
                return false;
            }
            slot.pending.fetch_add(batch.len(), Ordering::AcqRel);
            slot.tx.send(batch.clone()).is_ok()
        });
    }

    /// The number of live watchers (for metrics and tests).
    pub fn watchers(&self) -> usize {
        self.inner.lock().expect("hub lock").slots.len()
    }

    /// Ends every subscription; later ones end at once.
    pub fn close(&self) {
        let mut inner = self.inner.lock().expect("hub lock");
        inner.closed = true;
        inner.slots.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{Event, KeyValue};

    fn batch(key: &str, rev: Revision) -> EventBatch {
        let kv =
            KeyValue { key: Arc::from(key), value: Arc::from(&b"{}"[..]), create_revision: rev, mod_revision: rev };
        Arc::new(vec![Event::Put { current: kv, previous: None }])
    }

    #[tokio::test]
    async fn delivers_only_matching_prefixes_after_subscription() {
        let hub = Hub::new(Revision::new(4));
        let mut sub = hub.subscribe("/a/");
        assert_eq!(sub.from, 4);
        hub.publish(Revision::new(5), batch("/b/x", Revision::new(5)));
        hub.publish(Revision::new(6), batch("/a/x", Revision::new(6)));
        assert_eq!(sub.recv().await.unwrap()[0].revision(), 6);
    }

    #[tokio::test]
    async fn a_full_watcher_is_cut_off_without_blocking_the_publisher() {
        let hub = Hub::new(Revision::new(0));
        let mut slow = hub.subscribe("/");
        let mut fast = hub.subscribe("/");
        for rev in 1..=(WATCHER_BUFFER as i64 + 1) {
            hub.publish(Revision::new(rev), batch("/k", Revision::new(rev)));
            fast.recv().await.unwrap();
        }
        let mut received = 0;
        while slow.recv().await.is_some() {
            received += 1;
        }
        assert_eq!(received, WATCHER_BUFFER);
        assert!(slow.lagged());
        assert!(!fast.lagged());
        assert_eq!(hub.watchers(), 1);
    }
}
