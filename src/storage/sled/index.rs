//! The in-memory index of current keys: a persistent ordered set, so that a
//! snapshot is an O(1) clone that readers keep while the writer moves on.
//! Each entry is one `Arc`, which keeps the copy-on-write node clones and
//! drops of a commit cheap. Each entry also knows where its value lives in
//! the event log (its slot), since the log is the only copy of it.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::ops::Bound;
use std::sync::Arc;

use crate::storage::KeyValue;

/// Where a value lives in the log: its revision and its index in that
/// revision's commit.
pub(super) type Slot = (crate::storage::Revision, u32);

struct Current {
    kv: KeyValue,
    index: u32,
}

/// One key's current state, ordered and looked up by its key.
#[derive(Clone)]
pub(super) struct Entry(Arc<Current>);

impl Entry {
    /// The current value of its key; `index` is its place among the events
    /// of its commit (`kv.mod_revision`).
    pub fn new(kv: KeyValue, index: u32) -> Self {
        Self(Arc::new(Current { kv, index }))
    }

    pub fn key(&self) -> &str {
        &self.0.kv.key
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.0.kv.key == other.0.kv.key
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.kv.key.cmp(&other.0.kv.key)
    }
}

impl Borrow<str> for Entry {
    fn borrow(&self) -> &str {
        &self.0.kv.key
    }
}

/// The current key-values, in key order.
#[derive(Clone, Default)]
pub(super) struct Index {
    set: imbl::OrdSet<Entry>,
}

impl Index {
    pub fn get(&self, key: &str) -> Option<&KeyValue> {
        self.entry(key).map(|c| &c.kv)
    }

    /// The log slot holding the current value of `key`.
    pub fn slot(&self, key: &str) -> Option<Slot> {
        self.entry(key).map(|c| (c.kv.mod_revision, c.index))
    }

    fn entry(&self, key: &str) -> Option<&Current> {
        self.set.get(key).map(|e| &*e.0)
    }

    /// Sets the current value of its key; `index` is its place among the
    /// events of its commit (`kv.mod_revision`).
    pub fn insert(&mut self, kv: KeyValue, index: u32) {
        self.set.insert(Entry::new(kv, index));
    }

    /// An index of `entries`, given in key order, one per key (a replay's):
    /// each goes in at the end, the cheapest insertion.
    pub fn from_sorted(entries: impl IntoIterator<Item = Entry>) -> Self {
        let mut set = imbl::OrdSet::new();
        for entry in entries {
            set.insert(entry);
        }
        Self { set }
    }

    pub fn remove(&mut self, key: &str) {
        self.set.remove(key);
    }

    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// Entries from `lower` on, in key order.
    pub fn range_from<'a>(&'a self, lower: Bound<&'a str>) -> impl Iterator<Item = &'a KeyValue> + 'a {
        self.set.range::<_, str>((lower, Bound::Unbounded)).map(|e| &e.0.kv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Revision;

    fn kv(key: &str) -> KeyValue {
        KeyValue {
            key: Arc::from(key),
            value: Arc::from(&b"v"[..]),
            create_revision: Revision::new(1),
            mod_revision: Revision::new(1),
        }
    }

    #[test]
    fn snapshots_are_independent_and_ordered() {
        let mut index = Index::default();
        for k in ["/b", "/a", "/c"] {
            index.insert(kv(k), 0);
        }
        let snapshot = index.clone();
        index.remove("/b");
        let keys = |i: &Index| i.range_from(Bound::Included("/")).map(|kv| kv.key.to_string()).collect::<Vec<_>>();
        assert_eq!(keys(&snapshot), ["/a", "/b", "/c"]);
        assert_eq!(keys(&index), ["/a", "/c"]);
        assert_eq!(index.range_from(Bound::Excluded("/a")).count(), 1);
        assert!(index.get("/b").is_none() && snapshot.get("/b").is_some());
        assert_eq!(snapshot.slot("/b"), Some((Revision::new(1), 0)));
    }

    #[test]
    fn a_lookup_finds_only_its_own_key() {
        let mut index = Index::default();
        for k in ["/r/a/x", "/r/a/xy", "/r/b", "/r/c"] {
            index.insert(kv(k), 0);
        }
        for k in ["/r/a/x", "/r/a/xy", "/r/b", "/r/c"] {
            assert_eq!(index.get(k).map(|kv| &*kv.key), Some(k));
        }
        // Before the first, between two, a prefix of one, past the last.
        for k in ["/", "/r/a", "/r/a/", "/r/a/xa", "/r/bb", "/r/d", "/s"] {
            assert!(index.get(k).is_none(), "{k}");
            assert!(index.slot(k).is_none(), "{k}");
        }
        assert!(Index::default().get("/r/a").is_none());
    }
}
