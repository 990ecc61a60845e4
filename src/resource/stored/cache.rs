//! The declarative conversions of a page, kept: each object's JSON at a
//! version that converts, by (storage key, mod revision, the compiled
//! declaration's process-unique id, version), which fix it (the
//! Declarative strategy is a pure function of the stored bytes and the
//! definition revision it was compiled from; the id, not the revision,
//! so two stores in one process never share an entry). Bounded by the bytes
//! it holds, not by entries: two generations of at most half the budget
//! each; when the newer fills, the older is dropped and the newer becomes
//! it, and a hit in the older is moved to the newer (a cheap LRU).

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex, OnceLock};

use crate::storage::{KeyValue, Revision};

/// What the cache may hold, in bytes (JSON, keys and bookkeeping).
pub const BUDGET: usize = 64 * 1024 * 1024;

/// The bookkeeping an entry costs beyond its JSON and key.
const OVERHEAD: usize = 96;

struct Entry {
    key: Arc<str>,
    mod_revision: Revision,
    definition: u64,
    version: Box<str>,
    json: Arc<[u8]>,
}

impl Entry {
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
    fn insert(&mut self, hash: u64, entry: Entry, budget: usize) {
        let size = entry.size();
        if size > budget / 2 {
            return;
        }
        if self.newer_bytes + size > budget / 2 {
            self.older = std::mem::take(&mut self.newer);
            self.newer_bytes = 0;
        }
        self.newer_bytes += size;
        if let Some(old) = self.newer.insert(hash, entry) {
            self.newer_bytes -= old.size();
        }
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
    /// declaration `definition`.
    pub fn get(&self, kv: &KeyValue, definition: u64, version: &str) -> Option<Arc<[u8]>> {
        let hash = self.hash(kv, definition, version);
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(entry) = inner.newer.get(&hash).filter(|e| e.is(kv, definition, version)) {
            return Some(entry.json.clone());
        }
        let entry = inner.older.remove(&hash).filter(|e| e.is(kv, definition, version))?;
        let json = entry.json.clone();
        let budget = self.budget;
        inner.insert(hash, entry, budget);
        Some(json)
    }

    /// Keeps `json`, what `kv` reads as at `version` by `definition`.
    pub fn put(&self, kv: &KeyValue, definition: u64, version: &str, json: &[u8]) {
        let hash = self.hash(kv, definition, version);
        let entry = Entry {
            key: kv.key.clone(),
            mod_revision: kv.mod_revision,
            definition,
            version: version.into(),
            json: json.into(),
        };
        let budget = self.budget;
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).insert(hash, entry, budget);
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
        cache.put(&a, def, "v2", b"{\"a\":1}");
        assert_eq!(cache.get(&a, def, "v2").as_deref(), Some(&b"{\"a\":1}"[..]));
        assert!(cache.get(&kv("a", 6), def, "v2").is_none(), "another revision of the object");
        assert!(cache.get(&a, 3, "v2").is_none(), "another revision of the definition");
        assert!(cache.get(&a, def, "v3").is_none(), "another version");
        assert!(cache.get(&kv("b", 5), def, "v2").is_none(), "another object");
        let json = vec![b' '; 1000];
        for i in 0..1000 {
            cache.put(&kv(&format!("o{i}"), 1), def, "v2", &json);
            assert!(cache.bytes() <= 64 * 1024, "{} bytes held", cache.bytes());
        }
        assert!(cache.get(&kv("o999", 1), def, "v2").is_some(), "the newest are kept");
        assert!(cache.get(&a, def, "v2").is_none(), "the oldest went");
        cache.clear();
        assert_eq!(cache.bytes(), 0);
    }
}
