//! Reading the past from the event log: whole revisions for watch replay and
//! recovery, and the state of a key range at an older revision (the current
//! snapshot with the log's previous values laid over it).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{sled_err, Shared};
use crate::storage::keys;
use crate::storage::{codec, Event, KeyValue, Revision, StorageError};

/// The events of one revision, and when it was committed (Unix ms).
pub(super) struct Logged {
    pub revision: Revision,
    pub committed_at_ms: i64,
    pub events: Vec<Event>,
}

/// What one read of the log holds at most, in bytes of the events' keys and
/// values (but for one revision, which is read whole): a watcher catching
/// up, a backup, an older read each hold about this much of the log at
/// once, however large its objects.
pub(super) const READ_BYTES: usize = 4 << 20;

/// Reads whole revisions `from..=to` from the log, checking none is missing,
/// stopping after about `max` entries or `READ_BYTES` bytes (the caller goes
/// on from the last). Watch replay, historical reads and backup images all
/// read it here.
pub(super) fn read_log(
    tree: &sled::Tree,
    compacted: &dyn Fn() -> Revision,
    from: Revision,
    to: Revision,
    max: usize,
) -> Result<Vec<Logged>, StorageError> {
    let mut out: Vec<Logged> = Vec::new();
    let mut bytes = 0;
    for (count, item) in tree.range(keys::log_start(from)..keys::log_start(to + 1)).enumerate() {
        let (k, v) = item.map_err(sled_err)?;
        let rev = keys::log_revision(&k).ok_or_else(|| StorageError::Internal("corrupt log key".into()))?;
        let (event, committed_at_ms) = codec::decode_event(rev, &v)?;
        bytes += k.len() + v.len();
        match out.last_mut() {
            Some(last) if last.revision == rev => last.events.push(event),
            last => {
                let expected = last.map_or(from, |l| l.revision + 1);
                if rev != expected {
                    return Err(gap(compacted(), expected));
                }
                if count >= max || (bytes > READ_BYTES && !out.is_empty()) {
                    return Ok(out);
                }
                out.push(Logged { revision: rev, committed_at_ms, events: vec![event] });
            }
        }
    }
    let reached = out.last().map_or(from - 1, |l| l.revision);
    if reached < to {
        return Err(gap(compacted(), reached + 1));
    }
    Ok(out)
}

/// The error for a revision missing from the log.
fn gap(compacted: Revision, missing: Revision) -> StorageError {
    if missing <= compacted {
        StorageError::Compacted { requested: missing - 1, compacted }
    } else {
        StorageError::Internal(format!("event log is missing revision {missing}"))
    }
}

/// Reads revisions of a live store's log.
pub(super) fn read_shared_log(
    shared: &Shared,
    from: Revision,
    to: Revision,
    max: usize,
) -> Result<Vec<Logged>, StorageError> {
    read_log(&shared.tree, &|| shared.compacted(), from, to, max)
}

/// The state at `revision` of every key under `prefix` (and after
/// `start_after`) changed since: `None` for keys absent then.
pub(super) fn overlay_at(
    shared: &Shared,
    prefix: &str,
    start_after: Option<&str>,
    revision: Revision,
    current: Revision,
) -> Result<BTreeMap<Arc<str>, Option<KeyValue>>, StorageError> {
    let mut overlay = BTreeMap::new();
    let mut from = revision + 1;
    while from <= current {
        let chunk = read_shared_log(shared, from, current, 4096)?;
        for logged in &chunk {
            for event in &logged.events {
                let key = event.key();
                if !key.starts_with(prefix) || start_after.is_some_and(|after| key <= after) {
                    continue;
                }
                let before = match event {
                    Event::Put { previous, .. } => previous.clone(),
                    Event::Delete { previous, .. } => Some(previous.clone()),
                };
                overlay.entry(Arc::from(key)).or_insert(before);
            }
        }
        from = chunk.last().map_or(current + 1, |l| l.revision + 1);
    }
    Ok(overlay)
}

/// Lays the older states in `overlay` over the key-ordered `current` items.
pub(super) fn merge_at_revision<'a>(
    current: impl Iterator<Item = KeyValue> + 'a,
    overlay: BTreeMap<Arc<str>, Option<KeyValue>>,
) -> impl Iterator<Item = KeyValue> + 'a {
    let mut current = current.peekable();
    let mut older = overlay.into_iter().peekable();
    std::iter::from_fn(move || loop {
        let take_current = match (current.peek(), older.peek()) {
            (None, None) => return None,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(c), Some((k, _))) => c.key < *k,
        };
        if take_current {
            return current.next();
        }
        let (key, then) = older.next().expect("peeked");
        if current.peek().is_some_and(|c| c.key == key) {
            current.next();
        }
        if let Some(kv) = then {
            return Some(kv);
        }
    })
}

/// Collects up to `limit` accepted items (0: all) and tells whether another
/// accepted one follows.
pub(super) fn take_page(
    items: impl Iterator<Item = KeyValue>,
    limit: usize,
    filter: &mut dyn FnMut(&KeyValue) -> bool,
) -> (Vec<KeyValue>, bool) {
    let mut out = Vec::new();
    for kv in items.filter(|kv| filter(kv)) {
        if limit > 0 && out.len() == limit {
            return (out, true);
        }
        out.push(kv);
    }
    (out, false)
}
