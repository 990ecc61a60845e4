//! Binary encodings of the sled backend's records and log entries (postcard),
//! kept apart so that the layout in `keys` and the bytes here change together.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Event, KeyValue, Revision, StorageError};

/// A stored key-value without its key, as kept inside a log entry.
#[derive(Debug, Serialize, Deserialize)]
struct StoredValue<'a> {
    create_revision: Revision,
    mod_revision: Revision,
    #[serde(borrow, with = "serde_bytes")]
    value: &'a [u8],
}

/// The value of an `l` key: one event of one commit.
#[derive(Debug, Serialize, Deserialize)]
struct LogEntry<'a> {
    /// When the commit was made, in Unix milliseconds (for the time window).
    committed_at_ms: i64,
    key: &'a str,
    /// The state after the event; `None` for a delete.
    #[serde(borrow)]
    current: Option<StoredValue<'a>>,
    /// The state before the event; `None` for a create.
    #[serde(borrow)]
    previous: Option<StoredValue<'a>>,
}

fn internal(err: postcard::Error) -> StorageError {
    StorageError::Internal(format!("corrupt record: {err}"))
}

fn stored(kv: &KeyValue) -> StoredValue<'_> {
    StoredValue { create_revision: kv.create_revision, mod_revision: kv.mod_revision, value: &kv.value }
}

fn restore(key: &Arc<str>, sv: StoredValue<'_>) -> KeyValue {
    KeyValue {
        key: key.clone(),
        value: Arc::from(sv.value),
        create_revision: sv.create_revision,
        mod_revision: sv.mod_revision,
    }
}

pub fn encode_event(event: &Event, committed_at_ms: i64) -> Vec<u8> {
    let entry = match event {
        Event::Put { current, previous } => LogEntry {
            committed_at_ms,
            key: &current.key,
            current: Some(stored(current)),
            previous: previous.as_ref().map(stored),
        },
        Event::Delete { previous, .. } => {
            LogEntry { committed_at_ms, key: &previous.key, current: None, previous: Some(stored(previous)) }
        }
    };
    postcard::to_stdvec(&entry).expect("log entries always encode")
}

/// Decodes a log entry written at `revision`; returns the event and its
/// commit time.
pub fn decode_event(revision: Revision, bytes: &[u8]) -> Result<(Event, i64), StorageError> {
    let entry: LogEntry<'_> = postcard::from_bytes(bytes).map_err(internal)?;
    let key: Arc<str> = Arc::from(entry.key);
    let previous = entry.previous.map(|sv| restore(&key, sv));
    let event = match (entry.current, previous) {
        (Some(current), previous) => Event::Put { current: restore(&key, current), previous },
        (None, Some(previous)) => Event::Delete { previous, revision },
        (None, None) => return Err(StorageError::Internal(format!("log entry at {revision} has no state"))),
    };
    Ok((event, entry.committed_at_ms))
}

/// The key of a log entry and its state after it (`None`: deleted), the
/// state before it left in the bytes: all that opening the store reads.
pub fn decode_current(bytes: &[u8]) -> Result<(Arc<str>, Option<KeyValue>), StorageError> {
    let entry: LogEntry<'_> = postcard::from_bytes(bytes).map_err(internal)?;
    if entry.current.is_none() && entry.previous.is_none() {
        return Err(StorageError::Internal(format!("log entry of {} has no state", entry.key)));
    }
    let key: Arc<str> = Arc::from(entry.key);
    let current = entry.current.map(|sv| restore(&key, sv));
    Ok((key, current))
}

/// Only the key of a log entry (compaction reads nothing else).
pub fn decode_event_key(bytes: &[u8]) -> Result<&str, StorageError> {
    let entry: LogEntry<'_> = postcard::from_bytes(bytes).map_err(internal)?;
    Ok(entry.key)
}

/// Only the commit time of a log entry (compaction reads nothing else).
pub fn decode_commit_time(bytes: &[u8]) -> Result<i64, StorageError> {
    let entry: LogEntry<'_> = postcard::from_bytes(bytes).map_err(internal)?;
    Ok(entry.committed_at_ms)
}

pub fn encode_revision(revision: Revision) -> [u8; 8] {
    (revision.get() as u64).to_be_bytes()
}

pub fn decode_revision(bytes: &[u8]) -> Result<Revision, StorageError> {
    let arr: [u8; 8] = bytes.try_into().map_err(|_| StorageError::Internal("corrupt revision metadata".to_string()))?;
    Ok(Revision::new(u64::from_be_bytes(arr) as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(key: &str, value: &str, c: Revision, m: Revision) -> KeyValue {
        KeyValue { key: Arc::from(key), value: Arc::from(value.as_bytes()), create_revision: c, mod_revision: m }
    }

    #[test]
    fn events_round_trip() {
        let put = Event::Put {
            current: kv("/a", "2", Revision::new(1), Revision::new(4)),
            previous: Some(kv("/a", "1", Revision::new(1), Revision::new(1))),
        };
        let (back, at) = decode_event(Revision::new(4), &encode_event(&put, 99)).unwrap();
        assert_eq!(back, put);
        assert_eq!(at, 99);
        let del =
            Event::Delete { previous: kv("/a", "2", Revision::new(1), Revision::new(4)), revision: Revision::new(7) };
        assert_eq!(decode_event(Revision::new(7), &encode_event(&del, 1)).unwrap().0, del);
    }
}
