//! Rendering stored objects for watchers: each changed object is turned
//! into what clients see once per version (`RenderCache`) and shared by
//! every watcher that delivers it, its JSON serialized once and each event
//! of it framed once per wire format (`Rendered`), so a thousand watchers
//! of a change cost one encoding and a thousand reference counts.

use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use serde_json::Value;

use super::stream::EventType;
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
/// delivers it. Watchers of a change all hold the same `Arc` of its bytes,
/// so the cache is keyed by that `Arc`'s address (each entry keeps the `Arc`
/// alive, so the address cannot be reused while cached), hashed by
/// multiplication and spread over shards to keep a thousand watchers from
/// queueing on one lock. Each shard is bounded and emptied when it fills.
pub struct RenderCache {
    shards: Vec<std::sync::Mutex<RenderShard>>,
}

type RenderShard = std::collections::HashMap<usize, (Arc<[u8]>, Vec<(Arc<str>, Object)>), AddressHash>;

/// Entries a render cache holds, over all shards, before shards start over.
const RENDER_CACHE_ENTRIES: usize = 16_384;
const RENDER_CACHE_SHARDS: usize = 16;

/// A hasher for addresses: one multiplication (addresses are already unique).
#[derive(Default, Clone, Copy)]
pub struct AddressHash;

impl std::hash::BuildHasher for AddressHash {
    type Hasher = AddressHasher;
    fn build_hasher(&self) -> AddressHasher {
        AddressHasher(0)
    }
}

pub struct AddressHasher(u64);

impl std::hash::Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(*b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl Default for RenderCache {
    fn default() -> Self {
        Self { shards: (0..RENDER_CACHE_SHARDS).map(|_| std::sync::Mutex::new(RenderShard::default())).collect() }
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
        let address = Arc::as_ptr(&kv.value) as *const u8 as usize;
        let shard = &self.shards[(address >> 4) % RENDER_CACHE_SHARDS];
        let cached = |map: &RenderShard| {
            map.get(&address)
                .and_then(|(_, versions)| versions.iter().find(|(v, _)| **v == **version))
                .map(|(_, o)| o.clone())
        };
        if let Some(hit) = cached(&shard.lock().expect("render cache lock")) {
            return Ok(hit);
        }
        let object = Rendered::new(render()?);
        let mut map = shard.lock().expect("render cache lock");
        if let Some(raced) = cached(&map) {
            return Ok(raced);
        }
        if map.len() >= RENDER_CACHE_ENTRIES / RENDER_CACHE_SHARDS {
            map.clear();
        }
        map.entry(address).or_insert_with(|| (kv.value.clone(), Vec::new())).1.push((version.clone(), object.clone()));
        Ok(object)
    }
}
