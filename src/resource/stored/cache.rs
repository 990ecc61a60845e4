//! The declarative conversions of a page, kept: each object's JSON at a
//! version that converts, by (storage key, mod revision, the compiled
//! declaration's process-unique id, version), which fix it (the
//! Declarative strategy is a pure function of the stored bytes and the
//! definition revision it was compiled from; the id, not the revision,
//! so two stores in one process never share an entry). Bounded by the bytes
//! it holds, not by entries: two generations of at most half the budget
//! each; when the newer fills, the older is dropped and the newer becomes
//! it, and a hit in the older is moved to the newer (a cheap LRU). A part
//! of a page is looked up, and what it converted kept, under one lock each
//! (`get_page`, `put_page`): the lock is taken twice a part, not twice an
//! object, so a page split over every core does not queue on it. An entry
//! is the converted buffer itself, shared with the pages it was sent in.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex, OnceLock};

use bytes::Bytes;

use crate::storage::{KeyValue, Revision};

/// What the cache may hold, in bytes (JSON, keys and bookkeeping).
pub const BUDGET: usize = 64 * 1024 * 1024;

/// The bookkeeping an entry costs beyond its JSON and key.
const OVERHEAD: usize = 96;

struct Entry {
    key: Arc<str>,
    mod_revision: Revision,
    definition: u64,
    version: Arc<str>,
    /// Shared with the pages it was sent in.
    json: Bytes,
}

impl Entry {
    /// What the entry is counted as: its JSON's length (the writer trims a
    /// buffer with more than an eighth spare before it is kept), its key
    /// and its bookkeeping.
    fn size(&self) -> usize {
        self.json.len() + self.key.len() + self.version.len() + OVERHEAD
    }

    fn is(&self, kv: &KeyValue, definition: u64, version: &str) -> bool {
        self.mod_revision == kv.mod_revision
            && self.definition == definition
            && &*self.version == version
            && self.key == kv.key
    }
}

#[derive(Default)]
struct Generations {
    newer: HashMap<u64, Entry>,
    newer_bytes: usize,
    older: HashMap<u64, Entry>,
}

impl Generations {
    /// Inserts `entry` in the newer generation; the generation dropped to
    /// make room, if one was, which the caller drops once the lock is
    /// released (tens of megabytes are freed there).
    #[must_use]
    fn insert(&mut self, hash: u64, entry: Entry, budget: usize) -> Option<HashMap<u64, Entry>> {
        let size = entry.size();
        if size > budget / 2 {
            return None;
        }
        let mut dropped = None;
        if self.newer_bytes + size > budget / 2 {
            dropped = Some(std::mem::replace(&mut self.older, std::mem::take(&mut self.newer)));
            self.newer_bytes = 0;
        }
        self.newer_bytes += size;
        if let Some(old) = self.newer.insert(hash, entry) {
            self.newer_bytes -= old.size();
        }
        dropped
    }
}

/// A bounded cache of converted objects.
pub struct Converted {
    budget: usize,
    hasher: foldhash::fast::FixedState,
    inner: Mutex<Generations>,
}

impl Converted {
    pub fn new(budget: usize) -> Self {
        Self { budget, hasher: foldhash::fast::FixedState::default(), inner: Mutex::default() }
    }

    /// The process's cache.
    pub fn global() -> &'static Self {
        static CACHE: OnceLock<Converted> = OnceLock::new();
        CACHE.get_or_init(|| Self::new(BUDGET))
    }

    fn hash(&self, kv: &KeyValue, definition: u64, version: &str) -> u64 {
        self.hasher.hash_one((&*kv.key, kv.mod_revision, definition, version))
    }

    /// The JSON kept for `kv` read at `version` by the compiled
    /// declaration `definition` (pages use `get_page`).
    #[cfg(test)]
    pub fn get(&self, kv: &KeyValue, definition: u64, version: &str) -> Option<Bytes> {
        self.get_page(std::slice::from_ref(kv), definition, version).pop().flatten()
    }

    /// `get` of each of `kvs`, in order, under one lock.
    pub fn get_page(&self, kvs: &[KeyValue], definition: u64, version: &str) -> Vec<Option<Bytes>> {
        let hashes: Vec<u64> = kvs.iter().map(|kv| self.hash(kv, definition, version)).collect();
        let budget = self.budget;
        let mut dropped = Vec::new();
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if inner.newer.is_empty() && inner.older.is_empty() {
            return vec![None; kvs.len()];
        }
        let found = kvs
            .iter()
            .zip(hashes)
            .map(|(kv, hash)| {
                if let Some(entry) = inner.newer.get(&hash).filter(|e| e.is(kv, definition, version)) {
                    return Some(entry.json.clone());
                }
                let entry = inner.older.remove(&hash).filter(|e| e.is(kv, definition, version))?;
                let json = entry.json.clone();
                dropped.extend(inner.insert(hash, entry, budget));
                Some(json)
            })
            .collect();
        drop(inner);
        drop(dropped);
        found
    }

    /// Keeps `json`, what `kv` reads as at `version` by `definition`
    /// (pages use `put_page`).
    #[cfg(test)]
    pub fn put(&self, kv: &KeyValue, definition: u64, version: &str, json: Bytes) {
        self.put_page([(kv, json)], definition, version);
    }

    /// `put` of each of `converted`, under one lock: the entries are made
    /// before it is taken.
    pub fn put_page<'a>(
        &self,
        converted: impl IntoIterator<Item = (&'a KeyValue, Bytes)>,
        definition: u64,
        version: &str,
    ) {
        let version: Arc<str> = version.into();
        let entries: Vec<(u64, Entry)> = converted
            .into_iter()
            .map(|(kv, json)| {
                let entry = Entry {
                    key: kv.key.clone(),
                    mod_revision: kv.mod_revision,
                    definition,
                    version: version.clone(),
                    json,
                };
                (self.hash(kv, definition, &version), entry)
            })
            .collect();
        if entries.is_empty() {
            return;
        }
        let budget = self.budget;
        let size: usize = entries.iter().map(|(_, e)| e.size()).sum();
        let mut dropped = Vec::new();
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        // Room for them all at once, only when they all fit in the newer
        // generation (else it is rotated on the way, and the room with it).
        if inner.newer_bytes + size <= budget / 2 {
            inner.newer.reserve(entries.len());
        }
        for (hash, entry) in entries {
            dropped.extend(inner.insert(hash, entry, budget));
        }
        drop(inner);
        drop(dropped);
    }

    /// The bytes held.
    pub fn bytes(&self) -> usize {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.newer_bytes + inner.older.values().map(Entry::size).sum::<usize>()
    }

    /// Forgets everything (the bench times cold lists with it).
    pub fn clear(&self) {
        *self.inner.lock().unwrap_or_else(|e| e.into_inner()) = Generations::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(name: &str, rev: i64) -> KeyValue {
        KeyValue {
            key: format!("/registry/g/w/ns/{name}").into(),
            value: b"{}".to_vec().into(),
            create_revision: Revision::new(1),
            mod_revision: Revision::new(rev),
        }
    }

    #[test]
    fn entries_are_found_by_every_part_of_their_key_and_memory_stays_bounded() {
        let cache = Converted::new(64 * 1024);
        let (a, def) = (kv("a", 5), 2);
        cache.put(&a, def, "v2", Bytes::from_static(b"{\"a\":1}"));
        assert_eq!(cache.get(&a, def, "v2").as_deref(), Some(&b"{\"a\":1}"[..]));
        assert!(cache.get(&kv("a", 6), def, "v2").is_none(), "another revision of the object");
        assert!(cache.get(&a, 3, "v2").is_none(), "another revision of the definition");
        assert!(cache.get(&a, def, "v3").is_none(), "another version");
        assert!(cache.get(&kv("b", 5), def, "v2").is_none(), "another object");
        let json = Bytes::from(vec![b' '; 1000]);
        for i in 0..1000 {
            cache.put(&kv(&format!("o{i}"), 1), def, "v2", json.clone());
            assert!(cache.bytes() <= 64 * 1024, "{} bytes held", cache.bytes());
        }
        assert!(cache.get(&kv("o999", 1), def, "v2").is_some(), "the newest are kept");
        assert!(cache.get(&a, def, "v2").is_none(), "the oldest went");
        cache.clear();
        assert_eq!(cache.bytes(), 0);
    }
}
