//! Rendering stored objects for watchers: each changed object is turned
//! into what clients see once per version (`RenderCache`) and shared by
//! every watcher that delivers it, its JSON serialized once and each event
//! of it framed once per wire format (`Rendered`), so a thousand watchers
//! of a change cost one encoding and a thousand reference counts.

use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use serde_json::Value;

use crate::apimachinery::meta;
use crate::error::Result;
use crate::storage::{KeyValue, Revision};

/// The wire formats a transport frames events in; each event of an object
/// is framed once per format, whichever watcher asks first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A `{"type":...,"object":...}` line (Kubernetes' JSON watch stream).
    /// (gRPC needs no frame of its own: its event carries the shared JSON
    /// bytes, which prost writes straight into the transport's buffer.)
    JsonLine,
}

const FORMATS: usize = 1;
const KINDS: usize = 4;

/// An object as clients see it, rendered once and shared: every watcher of
/// the same change gets the same `Arc`, its JSON is serialized once, each
/// event of it is framed once per format, and its deletion is rendered once.
#[derive(Debug)]
pub struct Rendered {
    pub value: Value,
    json: OnceLock<Bytes>,
    frames: [OnceLock<Bytes>; FORMATS * KINDS],
    /// The object as a DELETED event shows it: its last state at the
    /// revision of the delete (a stored value is deleted at one revision).
    tombstone: OnceLock<(Revision, Object)>,
}

/// A shared rendered object.
pub type Object = Arc<Rendered>;

impl Rendered {
    pub fn new(value: Value) -> Object {
        Arc::new(Self { value, json: OnceLock::new(), frames: Default::default(), tombstone: OnceLock::new() })
    }

    /// The object as JSON bytes, serialized on first use.
    pub fn json(&self) -> &[u8] {
        self.json_bytes()
    }

    /// The object as shared JSON bytes, serialized on first use.
    pub fn json_bytes(&self) -> &Bytes {
        self.json.get_or_init(|| Bytes::from(serde_json::to_vec(&self.value).expect("JSON values serialize")))
    }

    /// The event of `kind` about this object in `format`, framed by
    /// `encode` on first use and shared after.
    pub fn frame(&self, format: Format, kind: EventType, encode: impl FnOnce(&Rendered) -> Bytes) -> Bytes {
        let slot = format as usize * KINDS + kind as usize;
        self.frames[slot].get_or_init(|| encode(self)).clone()
    }

    /// The object as the DELETED event at `revision` shows it (its last
    /// state with the delete's resourceVersion), rendered once for every
    /// watcher of the delete.
    pub fn deleted_at(&self, revision: Revision) -> Object {
        let (at, object) = self.tombstone.get_or_init(|| {
            let mut last = self.value.clone();
            meta::set_resource_version(&mut last, revision);
            (revision, Rendered::new(last))
        });
        if *at == revision {
            return object.clone();
        }
        // Not expected (a value is deleted once), but never wrong.
        let mut last = self.value.clone();
        meta::set_resource_version(&mut last, revision);
        Rendered::new(last)
    }
}

/// Renders each stored value once per version for every watcher that
/// delivers it. A stored value is one key at one mod revision, however it
/// reached the watcher: from the live fan-out, from the log when a watcher
/// catches up, or from the index for initial events (each of those holds
/// its own copy of the bytes, so the cache is keyed by what they stand
/// for, not by where they are). Entries are found by revision, spread over
/// shards, each behind a read-write lock: the thousand watchers of one
/// change all look in the same shard, and only the first writes to it, so
/// the rest read side by side instead of queueing. Each shard is bounded
/// and emptied when it fills.
pub struct RenderCache {
    shards: Vec<Shard>,
}

struct Shard {
    map: std::sync::RwLock<RenderShard>,
    /// Held while a large object of the shard renders, so the watchers
    /// that ask for it at once wait for one rendering instead of each
    /// making their own.
    rendering: std::sync::Mutex<()>,
}

/// By mod revision: each key written at it, its versions rendered.
type Entries = std::collections::HashMap<Revision, Vec<(Arc<str>, Arc<str>, Object)>, RevisionHash>;

/// One shard: its entries and what they cost (`rendering_cost`).
#[derive(Default)]
struct RenderShard {
    entries: Entries,
    bytes: usize,
}

/// Entries a render cache holds, over all shards, before shards start over.
const RENDER_CACHE_ENTRIES: usize = 16_384;
const RENDER_CACHE_SHARDS: usize = 16;
/// What the renderings a render cache holds cost at most, over all shards
/// (but for one entry a shard: an object larger than a shard's part still
/// renders once for the watchers of its change).
pub const RENDER_CACHE_BYTES: usize = 64 << 20;

/// What holding the rendering of a stored value costs, about: the value as
/// a `Value`, its JSON and a frame of it, each about the stored bytes.
fn rendering_cost(kv: &KeyValue) -> usize {
    3 * (kv.value.len() + kv.key.len()) + 256
}

/// A hasher for revisions: one multiplication (revisions are already unique).
#[derive(Default, Clone, Copy)]
pub struct RevisionHash;

impl std::hash::BuildHasher for RevisionHash {
    type Hasher = RevisionHasher;
    fn build_hasher(&self) -> RevisionHasher {
        RevisionHasher(0)
    }
}

pub struct RevisionHasher(u64);

impl std::hash::Hasher for RevisionHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(*b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_i64(&mut self, n: i64) {
        self.0 = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl Default for RenderCache {
    fn default() -> Self {
        let shard = || Shard { map: Default::default(), rendering: Default::default() };
        Self { shards: (0..RENDER_CACHE_SHARDS).map(|_| shard()).collect() }
    }
}

impl RenderCache {
    /// The rendered object for `kv` at `version`, rendering it with `render`
    /// the first time. A large object (`HEAVY_BYTES`) renders once however
    /// many ask for it at once, and off the async workers, its JSON with it:
    /// a hundred watches starting over objects of 1 MiB would otherwise
    /// hold every worker, and health checks wait behind them.
    pub fn get_or_render(
        &self,
        kv: &KeyValue,
        version: &Arc<str>,
        render: impl FnOnce() -> Result<Value> + Send,
    ) -> Result<Object> {
        let shard = &self.shards[(kv.mod_revision.get() as u64 % RENDER_CACHE_SHARDS as u64) as usize];
        if let Some(hit) = cached(&shard.map.read().expect("render cache lock"), kv, version) {
            return Ok(hit);
        }
        if kv.value.len() < HEAVY_BYTES {
            return Ok(insert(shard, kv, version, Rendered::new(render()?)));
        }
        off_workers(|| {
            let _one = shard.rendering.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if let Some(hit) = cached(&shard.map.read().expect("render cache lock"), kv, version) {
                return Ok(hit);
            }
            let object = Rendered::new(render()?);
            object.json_bytes();
            Ok(insert(shard, kv, version, object))
        })
    }
}

/// Stored values from this size on render off the async workers.
const HEAVY_BYTES: usize = 64 * 1024;

/// Runs `work` where it holds no async worker and yields the CPU to them:
/// on a thread of its own at the background `nice`, while on a
/// multi-threaded runtime the waiting worker's other tasks move to another
/// thread. Requests (health checks among them) come first when watches of
/// large objects want more CPU than the machine has.
fn off_workers<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    use tokio::runtime::{Handle, RuntimeFlavor};
    // Taken by the thread, or, when no thread can be had, by the caller.
    let work = std::sync::Mutex::new(Some(work));
    let take = || work.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take().expect("work runs once");
    let background = || {
        std::thread::scope(|scope| {
            let spawned = std::thread::Builder::new().name("crdstore-render".into()).spawn_scoped(scope, || {
                super::priority::lower_priority(super::priority::BACKGROUND_NICE);
                take()()
            });
            match spawned {
                Ok(thread) => thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(err) => {
                    tracing::warn!(%err, "no thread to render on; rendering in place");
                    take()()
                }
            }
        })
    };
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => tokio::task::block_in_place(background),
        _ => background(),
    }
}

/// The rendering of `kv` at `version` that `shard` holds.
fn cached(shard: &RenderShard, kv: &KeyValue, version: &Arc<str>) -> Option<Object> {
    let entries = shard.entries.get(&kv.mod_revision)?;
    let found = entries.iter().find(|(key, v, _)| {
        (Arc::ptr_eq(key, &kv.key) || **key == *kv.key) && (Arc::ptr_eq(v, version) || **v == **version)
    });
    found.map(|(_, _, o)| o.clone())
}

/// Keeps `object`, the rendering of `kv` at `version`, in `shard` (which
/// starts over when full), unless another rendering got there first: the
/// one kept is returned.
fn insert(shard: &Shard, kv: &KeyValue, version: &Arc<str>, object: Object) -> Object {
    let mut map = shard.map.write().expect("render cache lock");
    if let Some(raced) = cached(&map, kv, version) {
        return raced;
    }
    let cost = rendering_cost(kv);
    if map.entries.len() >= RENDER_CACHE_ENTRIES / RENDER_CACHE_SHARDS
        || map.bytes + cost > RENDER_CACHE_BYTES / RENDER_CACHE_SHARDS
    {
        map.entries.clear();
        map.bytes = 0;
    }
    map.bytes += cost;
    map.entries.entry(kv.mod_revision).or_default().push((kv.key.clone(), version.clone(), object.clone()));
    object
}

/// The kind of a watch event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    Added,
    Modified,
    Deleted,
    Bookmark,
}

impl EventType {
    /// Kubernetes' name of the event type (`ADDED`, ...), as watch frames carry it.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
            EventType::Bookmark => "BOOKMARK",
        }
    }
}

/// One event for a client.
#[derive(Debug, Clone)]
pub struct WatchEvent {
    pub kind: EventType,
    pub object: Object,
}

/// The stream of a running watch; ends with an error item when the watch
/// can not go on, without one on timeout, shutdown or a change of the
/// definition. It works when polled: no task runs per watch.
pub type WatchStream = futures::stream::BoxStream<'static, Result<WatchEvent>>;

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(key: &str, revision: i64, value: &str) -> KeyValue {
        let revision = Revision::new(revision);
        KeyValue {
            key: Arc::from(key),
            value: Arc::from(value.as_bytes()),
            create_revision: revision,
            mod_revision: revision,
        }
    }

    #[test]
    fn large_renderings_are_held_within_the_byte_budget() {
        let cache = RenderCache::default();
        let v1 = Arc::<str>::from("v1");
        let big = "x".repeat(1 << 20);
        let held = |cache: &RenderCache| cache.shards.iter().map(|s| s.map.read().unwrap().bytes).sum::<usize>();
        let one = rendering_cost(&stored("/k0", 1, &big));
        for revision in 1..=400 {
            let kv = stored(&format!("/k{revision}"), revision, &big);
            cache.get_or_render(&kv, &v1, || Ok(Value::Null)).unwrap();
            assert!(held(&cache) <= RENDER_CACHE_BYTES + RENDER_CACHE_SHARDS * one, "{} bytes held", held(&cache));
        }
        // Only over the budget did shards start over: the newest is cached.
        let again = stored("/k400", 400, &big);
        let rendered = cache.get_or_render(&again, &v1, || Ok(Value::from("again"))).unwrap();
        assert!(rendered.value.is_null(), "the newest rendering is still shared");
        assert!(held(&cache) >= RENDER_CACHE_BYTES / 4, "the cache still holds renderings");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn large_objects_render_once_at_background_priority_and_small_ones_in_place() {
        let nice = || rustix::process::getpriority_process(Some(rustix::thread::gettid())).unwrap();
        let (cache, v1, own) = (Arc::new(RenderCache::default()), Arc::<str>::from("v1"), nice());
        let small = cache.get_or_render(&stored("/s", 1, "{}"), &v1, || Ok(Value::from(nice()))).unwrap();
        assert_eq!(small.value, own);
        let big = stored("/b", 2, &"x".repeat(HEAVY_BYTES));
        let renders = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let watchers: Vec<_> = (0..8)
            .map(|_| {
                let (cache, big, v1, renders) = (cache.clone(), big.clone(), v1.clone(), renders.clone());
                tokio::spawn(async move {
                    cache.get_or_render(&big, &v1, || {
                        renders.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        std::thread::sleep(std::time::Duration::from_millis(50));
                        Ok(Value::from(nice()))
                    })
                })
            })
            .collect();
        for watcher in watchers {
            let rendered = watcher.await.unwrap().unwrap();
            assert_eq!(rendered.value, (own + crate::watch::priority::BACKGROUND_NICE).min(19));
        }
        assert_eq!(renders.load(std::sync::atomic::Ordering::Relaxed), 1, "eight at once, one rendering");
    }

    #[test]
    fn a_change_read_again_from_the_log_is_not_rendered_again() {
        // The live fan-out, the log a lagging watcher catches up from and
        // the index each hold their own copy of a change's bytes.
        let cache = RenderCache::default();
        let (v1, v2) = (Arc::<str>::from("v1"), Arc::<str>::from("v2"));
        let renders = std::sync::atomic::AtomicUsize::new(0);
        let render = || Ok(Value::from(renders.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1));
        let live = cache.get_or_render(&stored("/a", 7, "{}"), &v1, render).unwrap();
        let replayed = cache.get_or_render(&stored("/a", 7, "{}"), &Arc::from("v1"), render).unwrap();
        assert!(Arc::ptr_eq(&live, &replayed));
        assert_eq!(renders.load(std::sync::atomic::Ordering::Relaxed), 1);
        // Another key at the same revision, another version, another revision.
        cache.get_or_render(&stored("/b", 7, "{}"), &v1, render).unwrap();
        cache.get_or_render(&stored("/a", 7, "{}"), &v2, render).unwrap();
        cache.get_or_render(&stored("/a", 8, "{}"), &v1, render).unwrap();
        assert_eq!(renders.load(std::sync::atomic::Ordering::Relaxed), 4);
    }
}
