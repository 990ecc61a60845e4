//! Compaction of the event log, which is also the only copy of every value.
//! A revision outside the history window loses its log entries except those
//! that still hold some key's current value; those stay below the compacted
//! revision until a later write supersedes them, and that write removes them
//! in its own batch (`writer`). Compaction runs on the writer thread once
//! every applied group is durable and published, so it decides with exactly
//! the state a restart would rebuild.

use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};

use super::{now_ms, sled_err, Request, Shared, State};
use crate::storage::keys;
use crate::storage::{codec, Revision, StorageError};

/// Most log entries one pass examines (the next pass goes on).
const MAX_EXAMINED: usize = 50_000;

/// Drops log entries outside the history window that hold no current value,
/// whole revisions at a time, and records the new compacted revision.
/// `state` must be the durable, published state.
pub(super) fn compact(shared: &Shared, state: &State) -> Result<Revision, StorageError> {
    // Held to the end: an image being read keeps its history (`image`).
    let images = shared.images.lock().map_err(|_| StorageError::Internal("image lock poisoned".into()))?;
    let compacted = shared.compacted();
    if *images > 0 {
        return Ok(compacted);
    }
    let now = now_ms();
    let mut batch = sled::Batch::default();
    let mut examined = 0usize;
    let mut dropped = 0usize;
    let mut last_whole = compacted;
    let mut in_progress: Option<Revision> = None;
    for item in shared.tree.range(keys::log_start(compacted + 1)..keys::log_start(state.revision + 1)) {
        let (k, v) = item.map_err(sled_err)?;
        let (rev, index) = keys::log_slot(&k).ok_or_else(|| StorageError::Internal("corrupt log key".into()))?;
        if in_progress != Some(rev) {
            if let Some(done) = in_progress.take() {
                last_whole = done;
            }
            let committed_at = codec::decode_commit_time(&v)?;
            if examined >= MAX_EXAMINED || !shared.window.may_compact(rev, committed_at, state.revision, now) {
                break;
            }
            in_progress = Some(rev);
        }
        examined += 1;
        let key = codec::decode_event_key(&v)?;
        if state.map.slot(key) != Some((rev, index)) {
            batch.remove(k);
            dropped += 1;
        }
    }
    if let Some(done) = in_progress {
        last_whole = done;
    }
    if last_whole == compacted {
        return Ok(compacted);
    }
    // Readers learn of the new floor before the entries go, so one that raced
    // past the check finds a gap and reports it as compacted.
    shared.compacted.store(last_whole.get(), Ordering::Release);
    batch.insert(keys::META_COMPACTED, &codec::encode_revision(last_whole));
    shared.tree.apply_batch(batch).map_err(sled_err)?;
    tracing::debug!(compacted = %last_whole, examined, dropped, "compacted event log");
    crate::metrics::get().compactions.add(1, &[]);
    Ok(last_whole)
}

/// Asks the writer to compact every `every` until the store is gone.
pub(super) async fn run_timer(tx: mpsc::WeakSender<Request>, every: Duration) {
    let mut ticker = tokio::time::interval(every);
    ticker.tick().await;
    loop {
        ticker.tick().await;
        let Some(tx) = tx.upgrade() else { return };
        let (reply, done) = oneshot::channel();
        if tx.send(Request::Compact { reply }).await.is_err() {
            return;
        }
        drop(tx);
        match done.await {
            Ok(Err(err)) => tracing::warn!(error = %err, "compaction failed"),
            Ok(Ok(_)) => {}
            Err(_) => return,
        }
    }
}
