//! Rebuilding the index when the store opens, from every log entry. The log
//! is split by revision into one part per core; each part is read, decoded
//! and reduced to each key's last state on a thread of its own (reading sled
//! and copying values out of it is most of the cost), sorted by key, then the
//! parts are merged in revision order, the later winning, and the index is
//! built from the result in key order.

use std::cmp::Ordering;
use std::ops::Bound;

use super::index::{Entry, Index};
use super::{read_meta, sled_err};
use crate::storage::{codec, keys, Revision, StorageError};

/// Revisions below which the log is read on one thread: splitting it is
/// not worth a thread.
const SPLIT_AT_REVISIONS: i64 = 1024;
/// The most parts the log is read in.
const MAX_PARTS: usize = 8;

/// One key's last state in a part of the log.
enum Last {
    Put(Entry),
    Deleted(std::sync::Arc<str>),
}

impl Last {
    fn key(&self) -> &str {
        match self {
            Last::Put(entry) => entry.key(),
            Last::Deleted(key) => key,
        }
    }
}

/// What a part of the log leaves behind.
struct Part {
    /// The newest revision in the part, or where it started if it is empty.
    revision: Revision,
    /// Each key's last state, in key order, one per key.
    last: Vec<Last>,
}

/// Rebuilds the index from every log entry: the retained current values at
/// or below `compacted`, then the whole history after it, which must have no
/// gap. Returns the newest revision and the index.
pub(super) fn replay(tree: &sled::Tree, compacted: Revision) -> Result<(Revision, Index), StorageError> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_PARTS);
    replay_in(tree, compacted, cores, SPLIT_AT_REVISIONS)
}

/// `replay` in up to `parts` parts, when the log spans at least `split_at`
/// revisions.
fn replay_in(
    tree: &sled::Tree,
    compacted: Revision,
    parts: usize,
    split_at: i64,
) -> Result<(Revision, Index), StorageError> {
    let bounds = split(tree, compacted, parts, split_at)?;
    let parts: Vec<Result<Part, StorageError>> = if bounds.len() <= 2 {
        vec![read_part(tree, compacted, compacted, log_range(&bounds, 0))]
    } else {
        std::thread::scope(|scope| {
            let threads: Vec<_> = (0..bounds.len() - 1)
                .map(|i| {
                    let range = log_range(&bounds, i);
                    // Each part but the first starts right after the one before it.
                    let start = if i == 0 { compacted } else { compacted.max(bounds[i] - 1) };
                    std::thread::Builder::new()
                        .name("crdstore-replay".into())
                        .spawn_scoped(scope, move || read_part(tree, compacted, start, range))
                })
                .collect();
            threads
                .into_iter()
                .map(|t| match t {
                    Ok(handle) => handle.join().unwrap_or_else(|_| Err(internal("a replay thread panicked".into()))),
                    Err(err) => Err(internal(format!("spawn replay thread: {err}"))),
                })
                .collect()
        })
    };
    let mut revision = compacted;
    let mut merged: Vec<Last> = Vec::new();
    for (i, part) in parts.into_iter().enumerate() {
        let part = part?;
        // The part before this one must end where this one starts.
        if i > 0 && bounds[i] - 1 > compacted && revision != bounds[i] - 1 {
            return Err(missing(revision + 1));
        }
        revision = revision.max(part.revision);
        merged = if merged.is_empty() { part.last } else { merge(merged, part.last) };
    }
    let logged = read_meta(tree, keys::META_REVISION)?;
    if logged > revision {
        return Err(internal(format!("event log ends at {revision}, metadata says {logged}")));
    }
    let index = Index::from_sorted(merged.into_iter().filter_map(|last| match last {
        Last::Put(entry) => Some(entry),
        Last::Deleted(_) => None,
    }));
    Ok((revision, index))
}

fn internal(why: String) -> StorageError {
    StorageError::Internal(why)
}

fn missing(revision: Revision) -> StorageError {
    internal(format!("event log is missing revision {revision}"))
}

/// The revisions the log is split at: the first revision of each part, and
/// one past the last revision at the end.
fn split(tree: &sled::Tree, compacted: Revision, parts: usize, split_at: i64) -> Result<Vec<Revision>, StorageError> {
    let slot = |item: Option<sled::Result<sled::IVec>>| -> Result<Option<Revision>, StorageError> {
        match item {
            None => Ok(None),
            Some(key) => {
                let key = key.map_err(sled_err)?;
                let (rev, _) = keys::log_slot(&key).ok_or_else(|| internal("corrupt log key".into()))?;
                Ok(Some(rev))
            }
        }
    };
    let (Some(first), Some(last)) = (
        slot(tree.scan_prefix([keys::LOG_PREFIX]).keys().next())?,
        slot(tree.scan_prefix([keys::LOG_PREFIX]).keys().next_back())?,
    ) else {
        return Ok(vec![compacted + 1]);
    };
    // Parts of equal revision spans.
    let span = last.get() - first.get() + 1;
    let parts = if span < split_at { 1 } else { parts.max(1) as i64 };
    let mut bounds: Vec<Revision> = (0..parts).map(|i| first + span * i / parts).collect();
    bounds.dedup();
    bounds.push(last + 1);
    Ok(bounds)
}

/// The log keys of part `i`.
fn log_range(bounds: &[Revision], i: usize) -> (Bound<[u8; 13]>, Bound<[u8; 13]>) {
    let lower = keys::log_start(if i == 0 { Revision::ZERO } else { bounds[i] });
    let upper = if i + 2 >= bounds.len() {
        // Past every log key.
        let mut end = [0u8; 13];
        end[0] = keys::LOG_PREFIX + 1;
        end
    } else {
        keys::log_start(bounds[i + 1])
    };
    (Bound::Included(lower), Bound::Excluded(upper))
}

/// Reads one part of the log, in revision order, from `start` (the newest
/// revision before it): every revision above `compacted` must follow the one
/// before it.
fn read_part(
    tree: &sled::Tree,
    compacted: Revision,
    start: Revision,
    range: (Bound<[u8; 13]>, Bound<[u8; 13]>),
) -> Result<Part, StorageError> {
    let mut revision = start;
    let mut last: Vec<Last> = Vec::new();
    for item in tree.range(range) {
        let (k, v) = item.map_err(sled_err)?;
        let (rev, index) = keys::log_slot(&k).ok_or_else(|| internal("corrupt log key".into()))?;
        if rev > compacted && rev != revision && rev != revision + 1 {
            return Err(missing(revision + 1));
        }
        revision = revision.max(rev);
        last.push(match codec::decode_current(&v)? {
            (_, Some(current)) => Last::Put(Entry::new(current, index)),
            (key, None) => Last::Deleted(key),
        });
    }
    // In key order, the last state of each key kept (the sort is stable).
    last.sort_by(|a, b| a.key().cmp(b.key()));
    let mut kept: Vec<Last> = Vec::with_capacity(last.len());
    for state in last {
        match kept.last_mut() {
            Some(before) if before.key() == state.key() => *before = state,
            _ => kept.push(state),
        }
    }
    Ok(Part { revision, last: kept })
}

/// Two parts' last states in key order, `later`'s winning; a deletion
/// removes the key from `earlier` and is not kept.
fn merge(earlier: Vec<Last>, later: Vec<Last>) -> Vec<Last> {
    let mut out = Vec::with_capacity(earlier.len() + later.len());
    let (mut a, mut b) = (earlier.into_iter().peekable(), later.into_iter().peekable());
    loop {
        let order = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => x.key().cmp(y.key()),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => break,
        };
        let next = match order {
            Ordering::Less => a.next(),
            Ordering::Greater => b.next(),
            Ordering::Equal => {
                a.next();
                b.next()
            }
        };
        if let Some(Last::Put(entry)) = next {
            out.push(Last::Put(entry));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use super::*;
    use crate::storage::{Event, KeyValue};

    fn kv(key: &str, value: &str, created: i64, modified: i64) -> KeyValue {
        KeyValue {
            key: Arc::from(key),
            value: Arc::from(value.as_bytes()),
            create_revision: Revision::new(created),
            mod_revision: Revision::new(modified),
        }
    }

    /// A log of `revisions` commits of puts, updates, deletes and
    /// re-creates over a few keys, written straight into a tree, and the
    /// state it leads to, kept by a plain map.
    fn log(tree: &sled::Tree, revisions: i64) -> BTreeMap<String, KeyValue> {
        let mut state: BTreeMap<String, KeyValue> = BTreeMap::new();
        for rev in 1..=revisions {
            // Two events per commit, on keys that come back across parts.
            for (index, key) in [format!("/k/{}", rev % 7), format!("/j/{}", (rev * 3) % 11)].into_iter().enumerate() {
                let event = match state.get(&key) {
                    Some(before) if rev % 3 == 0 => {
                        Event::Delete { previous: before.clone(), revision: Revision::new(rev) }
                    }
                    before => {
                        let created = before.map_or(rev, |b| b.create_revision.get());
                        let current = kv(&key, &format!("{key}@{rev}"), created, rev);
                        Event::Put { current, previous: before.cloned() }
                    }
                };
                match &event {
                    Event::Put { current, .. } => state.insert(key.clone(), current.clone()),
                    Event::Delete { .. } => state.remove(&key),
                };
                tree.insert(keys::log_key(Revision::new(rev), index as u32), codec::encode_event(&event, 0)).unwrap();
            }
        }
        tree.insert(keys::META_REVISION, &codec::encode_revision(Revision::new(revisions))).unwrap();
        state
    }

    fn contents(index: &Index) -> Vec<KeyValue> {
        index.range_from(Bound::Unbounded).cloned().collect()
    }

    #[test]
    fn every_split_of_the_log_leads_to_the_state_it_logged() {
        let db = sled::Config::new().temporary(true).open().unwrap();
        let tree = db.open_tree(keys::TREE).unwrap();
        let state = log(&tree, 40);
        let expected: Vec<KeyValue> = state.into_values().collect();
        for parts in 1..=5 {
            let (revision, index) = replay_in(&tree, Revision::ZERO, parts, 0).unwrap();
            assert_eq!(revision, Revision::new(40), "{parts} parts");
            assert_eq!(contents(&index), expected, "{parts} parts");
            for kv in &expected {
                assert_eq!(index.slot(&kv.key).map(|(rev, _)| rev), Some(kv.mod_revision));
            }
        }
    }

    #[test]
    fn a_revision_missing_at_a_part_boundary_is_found() {
        let db = sled::Config::new().temporary(true).open().unwrap();
        let tree = db.open_tree(keys::TREE).unwrap();
        log(&tree, 40);
        // Two parts split at revision 21: the last revision of the first.
        for index in 0..2 {
            tree.remove(keys::log_key(Revision::new(20), index)).unwrap();
        }
        for parts in 1..=3 {
            let err = replay_in(&tree, Revision::ZERO, parts, 0).err().expect("a gap");
            assert!(err.to_string().contains("missing revision 20"), "{parts} parts: {err}");
        }
    }
}
