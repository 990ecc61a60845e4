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
    shards: Vec<std::sync::RwLock<RenderShard>>,
}

/// By mod revision: each key written at it, its versions rendered.
type RenderShard = std::collections::HashMap<Revision, Vec<(Arc<str>, Arc<str>, Object)>, RevisionHash>;

/// Entries a render cache holds, over all shards, before shards start over.
const RENDER_CACHE_ENTRIES: usize = 16_384;
const RENDER_CACHE_SHARDS: usize = 16;

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
        Self { shards: (0..RENDER_CACHE_SHARDS).map(|_| std::sync::RwLock::new(RenderShard::default())).collect() }
    }
}

impl RenderCache {
    /// The rendered object for `kv` at `version`, rendering it with `render`
    /// the first time.
    pub fn get_or_render(
        &self,
        kv: &KeyValue,
        version: &Arc<str>,
        render: impl FnOnce() -> Result<Value>,
    ) -> Result<Object> {
        let revision = kv.mod_revision;
        let shard = &self.shards[(revision.get() as u64 % RENDER_CACHE_SHARDS as u64) as usize];
        let cached = |map: &RenderShard| {
            map.get(&revision)
                .and_then(|entries| {
                    entries.iter().find(|(key, v, _)| {
                        (Arc::ptr_eq(key, &kv.key) || **key == *kv.key) && (Arc::ptr_eq(v, version) || **v == **version)
                    })
                })
                .map(|(_, _, o)| o.clone())
        };
        if let Some(hit) = cached(&shard.read().expect("render cache lock")) {
            return Ok(hit);
        }
        let object = Rendered::new(render()?);
        let mut map = shard.write().expect("render cache lock");
        if let Some(raced) = cached(&map) {
            return Ok(raced);
        }
        if map.len() >= RENDER_CACHE_ENTRIES / RENDER_CACHE_SHARDS {
            map.clear();
        }
        map.entry(revision).or_default().push((kv.key.clone(), version.clone(), object.clone()));
        Ok(object)
    }
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
    fn a_change_read_again_from_the_log_is_not_rendered_again() {
        // The live fan-out, the log a lagging watcher catches up from and
        // the index each hold their own copy of a change's bytes.
        let cache = RenderCache::default();
        let (v1, v2) = (Arc::<str>::from("v1"), Arc::<str>::from("v2"));
        let renders = std::cell::Cell::new(0);
        let render = || {
            renders.set(renders.get() + 1);
            Ok(Value::from(renders.get()))
        };
        let live = cache.get_or_render(&stored("/a", 7, "{}"), &v1, render).unwrap();
        let replayed = cache.get_or_render(&stored("/a", 7, "{}"), &Arc::from("v1"), render).unwrap();
        assert!(Arc::ptr_eq(&live, &replayed));
        assert_eq!(renders.get(), 1);
        // Another key at the same revision, another version, another revision.
        cache.get_or_render(&stored("/b", 7, "{}"), &v1, render).unwrap();
        cache.get_or_render(&stored("/a", 7, "{}"), &v2, render).unwrap();
        cache.get_or_render(&stored("/a", 8, "{}"), &v1, render).unwrap();
        assert_eq!(renders.get(), 4);
    }
}
