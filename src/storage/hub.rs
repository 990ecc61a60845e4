//! Fan-out of committed event batches to watchers, as a shared log per
//! watched prefix (a `Topic`): publishing appends each batch once to the
//! topics it touches and hands the wake-ups of their waiting watchers to a
//! thread of the hub's own, so the commit path does the same small amount
//! of work however many watchers there are, and never waits for one. Each
//! watcher reads the log at its own cursor. A topic keeps what its slowest
//! watcher has not read, up to a budget in bytes (`WATCH_BUFFER_BYTES` by
//! default: the events' keys and values, and what each event costs besides,
//! since batches grow with load and objects differ in size); a watcher that
//! falls further behind is cut off (it sees `lagged`) instead of holding up
//! the writer or the other watchers; the storage watch then catches up from
//! the store's log and subscribes again, so what a watcher holds stays
//! bounded and it misses nothing. The budget is large because catching up
//! is dear: each cut-off watcher reads and decodes the log on its own,
//! where the topic's batches are shared by every watcher. All topics
//! together hold at most `TOPICS_IN_BUDGET` budgets: past that, the topic
//! that holds most gives up its oldest batches first.

use std::collections::{HashMap, VecDeque};
use std::future::poll_fn;
use std::sync::{mpsc, Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use crate::storage::{EventBatch, Revision};

/// Bytes of events (`cost`) a watcher may be behind the newest batch of its
/// prefix before it is cut off: about a minute of 1 KB objects written at
/// 1,000 a second.
pub const WATCH_BUFFER_BYTES: usize = 64 << 20;

/// How many topics' budgets the hub holds at most, all topics together.
const TOPICS_IN_BUDGET: usize = 4;

/// What an event held by a topic costs, in bytes: its keys and values, and
/// the event and key-values around them.
fn cost(batch: &[crate::storage::Event]) -> usize {
    use crate::storage::{Event, KeyValue};
    const EACH: usize = std::mem::size_of::<Event>() + 2 * 16;
    let kv = |kv: &KeyValue| kv.key.len() + kv.value.len();
    batch
        .iter()
        .map(|event| {
            EACH + match event {
                Event::Put { current, previous } => kv(current) + previous.as_ref().map_or(0, kv),
                Event::Delete { previous, .. } => kv(previous),
            }
        })
        .sum::<usize>()
        + std::mem::size_of::<EventBatch>()
}

/// The batches that touch one prefix, shared by all its watchers.
struct Topic {
    /// Newest last, each with its `cost`; `base` is the sequence number of
    /// the first.
    log: VecDeque<(EventBatch, usize)>,
    base: u64,
    /// The `cost` of the batches in `log`.
    bytes: usize,
    subscribers: usize,
    /// Each subscriber's cursor, by subscription id: batches every one of
    /// them has read are dropped.
    cursors: HashMap<u64, u64>,
    /// Watchers waiting for the batch after the newest, by subscription id.
    waiting: HashMap<u64, Waker>,
    closed: bool,
}

impl Topic {
    fn end(&self) -> u64 {
        self.base + self.log.len() as u64
    }

    /// Appends `batch`, which costs `bytes`, then drops what every watcher
    /// has read and what is over `budget` (but for the newest batch).
    /// Returns the change in `self.bytes`.
    fn push(&mut self, batch: EventBatch, bytes: usize, budget: usize) -> isize {
        let before = self.bytes;
        self.bytes += bytes;
        self.log.push_back((batch, bytes));
        // Once per batch, not per read: what every watcher has read goes,
        // so an idle prefix holds nothing its watchers have seen.
        let read = self.cursors.values().copied().min().unwrap_or(self.end() - 1);
        while (self.base < read || self.bytes > budget) && self.log.len() > 1 {
            self.drop_oldest();
        }
        self.bytes as isize - before as isize
    }

    /// Drops the oldest batch (watchers that have not read it are cut off);
    /// returns its cost.
    fn drop_oldest(&mut self) -> usize {
        let (_, dropped) = self.log.pop_front().expect("a batch");
        self.bytes -= dropped;
        self.base += 1;
        dropped
    }
}

fn lock(topic: &Mutex<Topic>) -> MutexGuard<'_, Topic> {
    topic.lock().expect("hub topic lock")
}

struct Inner {
    next_id: u64,
    /// Each topic's `budget`.
    budget: usize,
    /// The `bytes` of every topic together.
    held: usize,
    published: Revision,
    topics: HashMap<Arc<str>, Arc<Mutex<Topic>>>,
    closed: bool,
}

/// The hub. One per store.
pub struct Hub {
    inner: Arc<Mutex<Inner>>,
    /// Wake-ups for the hub's waker thread, which ends with the hub.
    wake: mpsc::Sender<Vec<Waker>>,
}

/// A watcher's end of the hub: live batches published after `from`.
pub struct Subscription {
    id: u64,
    prefix: Arc<str>,
    topic: Arc<Mutex<Topic>>,
    /// To leave the topic when dropped (weak: a watch keeps no hub alive).
    hub: std::sync::Weak<Mutex<Inner>>,
    /// Sequence number of the next batch to read.
    cursor: u64,
    lagged: bool,
    /// The revision published when the subscription was made; every batch
    /// received is newer.
    pub from: Revision,
}

impl Subscription {
    /// The next batch; `None` when the hub closed or cut this watcher off
    /// (then `lagged` tells which). Cancel-safe: a batch is taken only when
    /// it is returned.
    pub async fn recv(&mut self) -> Option<EventBatch> {
        poll_fn(|cx| self.poll_recv(cx)).await
    }

    fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<EventBatch>> {
        let mut topic = lock(&self.topic);
        if topic.closed {
            return Poll::Ready(None);
        }
        if self.cursor < topic.base {
            self.lagged = true;
            topic.waiting.remove(&self.id);
            return Poll::Ready(None);
        }
        if self.cursor < topic.end() {
            let batch = topic.log[(self.cursor - topic.base) as usize].0.clone();
            self.cursor += 1;
            topic.cursors.insert(self.id, self.cursor);
            return Poll::Ready(Some(batch));
        }
        match topic.waiting.get(&self.id) {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            _ => {
                topic.waiting.insert(self.id, cx.waker().clone());
            }
        }
        Poll::Pending
    }

    /// Whether the hub cut this watcher off because it fell too far behind.
    pub fn lagged(&self) -> bool {
        self.lagged
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let Some(hub) = self.hub.upgrade() else { return };
        let mut inner = hub.lock().expect("hub lock");
        let mut topic = lock(&self.topic);
        topic.waiting.remove(&self.id);
        topic.cursors.remove(&self.id);
        topic.subscribers -= 1;
        if topic.subscribers == 0 && inner.topics.get(&self.prefix).is_some_and(|t| Arc::ptr_eq(t, &self.topic)) {
            inner.held = inner.held.saturating_sub(topic.bytes);
            drop(topic);
            inner.topics.remove(&self.prefix);
        }
    }
}

impl Hub {
    /// The last published revision when `sub` has received every batch
    /// published up to it (nothing buffered), else `None`. Checked under the
    /// publishing lock, so no batch can be in between.
    pub fn caught_up(&self, sub: &Subscription) -> Option<Revision> {
        let inner = self.inner.lock().expect("hub lock");
        let topic = lock(&sub.topic);
        (sub.cursor >= topic.end()).then_some(inner.published)
    }
}

impl Hub {
    /// A hub whose watchers may each fall `budget` bytes of events behind
    /// (`WATCH_BUFFER_BYTES`, say) before they are cut off.
    pub fn new(published: Revision, budget: usize) -> Self {
        let (wake, wakes) = mpsc::channel::<Vec<Waker>>();
        // Waking a thousand watchers is the waker thread's work, not the
        // committer's; it ends when the hub is dropped.
        let spawned = std::thread::Builder::new().name("crdstore-watch-wake".into()).spawn(move || {
            while let Ok(wakers) = wakes.recv() {
                wakers.into_iter().for_each(Waker::wake);
            }
        });
        if let Err(err) = spawned {
            tracing::warn!(%err, "no thread to wake watchers on; watchers are woken by the publisher");
        }
        let inner = Inner { next_id: 0, budget, held: 0, published, topics: HashMap::new(), closed: false };
        Self { inner: Arc::new(Mutex::new(inner)), wake }
    }

    /// Subscribes to batches that touch keys under `prefix`, atomically with
    /// reading the last published revision, so history up to `from` plus the
    /// live batches after it leave no gap.
    pub fn subscribe(&self, prefix: &str) -> Subscription {
        let mut inner = self.inner.lock().expect("hub lock");
        let id = inner.next_id;
        inner.next_id += 1;
        let from = inner.published;
        let closed = inner.closed;
        let topic = inner
            .topics
            .entry(Arc::from(prefix))
            .or_insert_with(|| {
                Arc::new(Mutex::new(Topic {
                    log: VecDeque::new(),
                    base: 0,
                    bytes: 0,
                    subscribers: 0,
                    cursors: HashMap::new(),
                    waiting: HashMap::new(),
                    closed,
                }))
            })
            .clone();
        let cursor = {
            let mut t = lock(&topic);
            t.subscribers += 1;
            let end = t.end();
            t.cursors.insert(id, end);
            end
        };
        Subscription {
            id,
            prefix: Arc::from(prefix),
            topic,
            hub: Arc::downgrade(&self.inner),
            cursor,
            lagged: false,
            from,
        }
    }

    /// Publishes the batch committed at `revision`: appends it to the
    /// topics it touches and hands their waiting watchers to the waker
    /// thread. Never blocks on a watcher.
    pub fn publish(&self, revision: Revision, batch: EventBatch) {
        let mut wakers = Vec::new();
        {
            let mut inner = self.inner.lock().expect("hub lock");
            let inner = &mut *inner;
            inner.published = revision;
            // Counted once, for the first topic it goes to.
            let mut bytes = None;
            for (prefix, topic) in &inner.topics {
                if !batch.iter().any(|e| e.key().starts_with(&**prefix)) {
                    continue;
                }
                let mut topic = lock(topic);
                inner.held = inner.held.saturating_add_signed(topic.push(
                    batch.clone(),
                    *bytes.get_or_insert_with(|| cost(&batch)),
                    inner.budget,
                ));
                wakers.extend(topic.waiting.drain().map(|(_, w)| w));
            }
            while inner.held > inner.budget.saturating_mul(TOPICS_IN_BUDGET) {
                let fattest = inner.topics.values().map(|t| (lock(t).bytes, t)).max_by_key(|(bytes, _)| *bytes);
                let Some((_, topic)) = fattest else { break };
                let mut topic = lock(topic);
                if topic.log.len() <= 1 {
                    break;
                }
                inner.held = inner.held.saturating_sub(topic.drop_oldest());
            }
        }
        self.wake(wakers);
    }

    fn wake(&self, wakers: Vec<Waker>) {
        if wakers.is_empty() {
            return;
        }
        if let Err(mpsc::SendError(wakers)) = self.wake.send(wakers) {
            wakers.into_iter().for_each(Waker::wake);
        }
    }

    /// The number of live watchers (for metrics and tests).
    pub fn watchers(&self) -> usize {
        let inner = self.inner.lock().expect("hub lock");
        inner.topics.values().map(|t| lock(t).subscribers).sum()
    }

    /// Ends every subscription; later ones end at once.
    pub fn close(&self) {
        let mut wakers = Vec::new();
        {
            let mut inner = self.inner.lock().expect("hub lock");
            inner.closed = true;
            inner.held = 0;
            for topic in inner.topics.values() {
                let mut topic = lock(topic);
                topic.closed = true;
                topic.log.clear();
                topic.bytes = 0;
                wakers.extend(topic.waiting.drain().map(|(_, w)| w));
            }
        }
        // Woken here, not by the waker thread: closing must not race the
        // hub's end.
        wakers.into_iter().for_each(Waker::wake);
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
        let hub = Hub::new(Revision::new(4), WATCH_BUFFER_BYTES);
        let mut sub = hub.subscribe("/a/");
        assert_eq!(sub.from, 4);
        hub.publish(Revision::new(5), batch("/b/x", Revision::new(5)));
        hub.publish(Revision::new(6), batch("/a/x", Revision::new(6)));
        assert_eq!(sub.recv().await.unwrap()[0].revision(), 6);
    }

    #[tokio::test]
    async fn batches_every_watcher_has_read_are_not_kept() {
        let hub = Hub::new(Revision::new(0), WATCH_BUFFER_BYTES);
        let mut a = hub.subscribe("/p/");
        let mut b = hub.subscribe("/p/");
        for rev in 1..=10 {
            hub.publish(Revision::new(rev), batch("/p/k", Revision::new(rev)));
            a.recv().await.unwrap();
        }
        let held = |s: &Subscription| lock(&s.topic).log.len();
        assert_eq!(held(&a), 10, "b has read none of them");
        for _ in 1..=10 {
            b.recv().await.unwrap();
        }
        hub.publish(Revision::new(11), batch("/p/k", Revision::new(11)));
        assert_eq!(held(&a), 1, "only the batch neither has read");
        assert_eq!(a.recv().await.unwrap()[0].revision(), 11);
        assert_eq!(b.recv().await.unwrap()[0].revision(), 11);
    }

    #[tokio::test]
    async fn a_full_watcher_is_cut_off_without_blocking_the_publisher() {
        let budget = 10 * cost(&batch("/k", Revision::new(1)));
        let hub = Hub::new(Revision::new(0), budget);
        let mut slow = hub.subscribe("/");
        let mut fast = hub.subscribe("/");
        for rev in 1..=10 {
            hub.publish(Revision::new(rev), batch("/k", Revision::new(rev)));
            fast.recv().await.unwrap();
        }
        assert_eq!(slow.recv().await.unwrap()[0].revision(), 1, "ten batches are within the budget");
        hub.publish(Revision::new(11), batch("/k", Revision::new(11)));
        hub.publish(Revision::new(12), batch("/k", Revision::new(12)));
        assert!(slow.recv().await.is_none(), "the eleventh unread batch is over it");
        assert!(slow.lagged());
        assert!(!fast.lagged());
        drop(slow);
        assert_eq!(hub.watchers(), 1);
    }

    #[tokio::test]
    async fn all_topics_together_hold_a_few_budgets_and_the_fattest_gives_way() {
        let one = cost(&batch("/t0/k", Revision::new(1)));
        let hub = Hub::new(Revision::new(0), 10 * one);
        // One more prefix than the hub holds budgets for, each with a
        // watcher that reads nothing; eight batches each is within every
        // topic's budget and, but for one batch, within the hub's.
        let mut stalled: Vec<_> = (0..=TOPICS_IN_BUDGET).map(|t| hub.subscribe(&format!("/t{t}/"))).collect();
        let mut rev = 0;
        let mut write = |t: usize| {
            rev += 1;
            hub.publish(Revision::new(rev), batch(&format!("/t{t}/k"), Revision::new(rev)));
        };
        for t in 0..=TOPICS_IN_BUDGET {
            (0..8).for_each(|_| write(t));
        }
        let held = |hub: &Hub| hub.inner.lock().unwrap().held;
        assert_eq!(held(&hub), 40 * one);
        write(TOPICS_IN_BUDGET);
        assert_eq!(held(&hub), 40 * one, "the fattest topic gave up its oldest batch");
        let mut last = stalled.pop().unwrap();
        assert!(last.recv().await.is_none() && last.lagged(), "its watcher is cut off");
        for (t, sub) in stalled.iter_mut().enumerate() {
            assert_eq!(sub.recv().await.unwrap()[0].revision(), 1 + 8 * t as i64, "the others keep theirs");
        }
        drop(last);
        assert_eq!(held(&hub), 32 * one, "a topic's bytes go with its last watcher");
    }

    #[tokio::test]
    async fn a_waiting_watcher_is_woken_by_the_next_batch_and_a_closed_hub_ends_it() {
        let hub = Arc::new(Hub::new(Revision::new(0), WATCH_BUFFER_BYTES));
        let mut subs: Vec<_> = (0..100).map(|_| hub.subscribe("/w/")).collect();
        let readers: Vec<_> = subs
            .drain(..)
            .map(|mut sub| {
                tokio::spawn(async move {
                    let mut revisions = Vec::new();
                    while let Some(batch) = sub.recv().await {
                        revisions.extend(batch.iter().map(Event::revision));
                    }
                    (revisions, sub.lagged())
                })
            })
            .collect();
        for rev in 1..=50 {
            hub.publish(Revision::new(rev), batch("/w/k", Revision::new(rev)));
            tokio::task::yield_now().await;
        }
        while hub.caught_up_all().is_none() {
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
        hub.close();
        for reader in readers {
            let (revisions, lagged) = reader.await.unwrap();
            assert_eq!(revisions, (1..=50).map(Revision::new).collect::<Vec<_>>());
            assert!(!lagged);
        }
        assert_eq!(hub.watchers(), 0);
    }

    #[tokio::test]
    async fn a_topic_is_dropped_with_its_last_watcher() {
        let hub = Hub::new(Revision::new(0), WATCH_BUFFER_BYTES);
        let a = hub.subscribe("/a/");
        let b = hub.subscribe("/a/");
        drop(a);
        hub.publish(Revision::new(1), batch("/a/x", Revision::new(1)));
        drop(b);
        assert_eq!(hub.watchers(), 0);
        assert!(hub.inner.lock().unwrap().topics.is_empty());
        let mut c = hub.subscribe("/a/");
        hub.publish(Revision::new(2), batch("/a/y", Revision::new(2)));
        assert_eq!(c.recv().await.unwrap()[0].revision(), 2);
    }

    impl Hub {
        /// Whether every topic's watchers have all read everything.
        fn caught_up_all(&self) -> Option<()> {
            let inner = self.inner.lock().unwrap();
            inner
                .topics
                .values()
                .all(|t| {
                    let t = lock(t);
                    t.waiting.len() == t.subscribers
                })
                .then_some(())
        }
    }
}
