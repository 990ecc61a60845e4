//! The commit path, on dedicated threads (the first two do blocking sled
//! work).
//! The writer thread drains the queue of pending commits, checks each one's
//! preconditions against the state left by the ones before it, and writes
//! the group's log entries to sled (`Writes::apply`: as one atomic batch
//! with the new revision when a commit needs one).
//! The flusher thread makes everything written so far durable with one
//! flush and hands it to the fan-out thread (`run_fan_out`),
//! which publishes it to watchers, then to readers, then answers the callers,
//! in order: nothing is readable before it is watchable, so every revision
//! the store hands out is safe to watch from. The next group forms while the
//! last one flushes (group commit). The log is the only copy of each value: a write that
//! supersedes a value kept below the compacted revision removes that entry
//! in the same batch.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use super::index::{Index, Slot};
use super::{compaction, now_ms, Request, Shared, State};
use crate::storage::keys;
use crate::storage::{
    codec, Committed, Event, EventBatch, KeyValue, Mutation, Op, OpResult, Precondition, Revision, StorageError,
};

/// Most commits the writer puts in one group.
pub(super) const MAX_GROUP: usize = 1024;

pub(super) type Reply = super::reply::Reply;
pub(super) type Answer = (Reply, Result<Committed, StorageError>);

/// What the flusher hands the fan-out thread, in order.
pub(super) enum Publish {
    /// Durable groups: publish `events` to the hub, then make `state`
    /// readable, then send the answers. No state when nothing changed (or
    /// the flush failed, and the answers say so).
    Durable { state: Option<Arc<State>>, events: Vec<(Revision, EventBatch)>, answers: Vec<Answer> },
    /// Answered once everything handed over before it is published.
    Barrier(oneshot::Sender<()>),
    /// Ends every watch, then answers.
    Close(oneshot::Sender<()>),
}

/// A group applied to sled that is not durable yet.
struct Applied {
    /// The state after the group, published once it is durable.
    state: Arc<State>,
    /// The events of each revision, in order; none when the group wrote
    /// nothing.
    events: Vec<(Revision, EventBatch)>,
    answers: Vec<Answer>,
}

enum Stage {
    Group(Applied),
    Barrier(oneshot::Sender<()>),
    Close(oneshot::Sender<()>),
}

/// The writer thread: forms groups, applies them, hands them to the flusher
/// thread. Dedicated threads, because both do blocking sled work.
pub(super) fn run(shared: Arc<Shared>, mut rx: mpsc::Receiver<Request>) {
    let (stage_tx, stage_rx) = std::sync::mpsc::sync_channel(64);
    let flusher = {
        let shared = shared.clone();
        std::thread::Builder::new()
            .name("crdstore-flusher".into())
            .spawn(move || run_flusher(shared, stage_rx))
            .expect("spawn flusher thread")
    };
    let mut pending: Arc<State> = shared.state.load_full();
    let mut group: Vec<(Vec<Op>, Reply)> = Vec::with_capacity(MAX_GROUP);
    while let Some(first) = rx.blocking_recv() {
        let mut next = Some(first);
        let mut close = None;
        while let Some(request) = next.take() {
            match request {
                Request::Commit { ops, reply } => group.push((ops, reply)),
                Request::Compact { reply } => {
                    if !group.is_empty() {
                        let applied = apply_group(&shared, &pending, std::mem::take(&mut group));
                        pending = applied.state.clone();
                        if stage_tx.send(Stage::Group(applied)).is_err() {
                            break;
                        }
                    }
                    let _ = reply.send(compact_when_drained(&shared, &pending, &stage_tx));
                }
                Request::Close { reply } => {
                    close = Some(reply);
                    break;
                }
            }
            if group.len() < MAX_GROUP {
                next = rx.try_recv().ok();
            }
        }
        if !group.is_empty() {
            let applied = apply_group(&shared, &pending, std::mem::take(&mut group));
            pending = applied.state.clone();
            if stage_tx.send(Stage::Group(applied)).is_err() {
                break;
            }
        }
        if let Some(reply) = close {
            let _ = stage_tx.send(Stage::Close(reply));
            break;
        }
    }
    drop(stage_tx);
    let _ = flusher.join();
}

/// Waits until everything applied is durable and published (a barrier
/// through the flusher and the fan-out thread), then compacts, so that
/// compaction sees exactly the state a restart would rebuild.
fn compact_when_drained(
    shared: &Shared,
    pending: &Arc<State>,
    stages: &std::sync::mpsc::SyncSender<Stage>,
) -> Result<Revision, StorageError> {
    let (reply, drained) = oneshot::channel();
    if stages.send(Stage::Barrier(reply)).is_err() || drained.blocking_recv().is_err() {
        return Err(StorageError::Unavailable("storage is shutting down".into()));
    }
    if shared.failed.load(Ordering::Acquire) || shared.state.load().revision < pending.revision {
        return Err(StorageError::Unavailable("storage failed an earlier write".into()));
    }
    compaction::compact(shared, pending)
}

/// What one operation does, decided before anything is mutated.
enum Outcome {
    Unchanged(Option<KeyValue>),
    Put { current: KeyValue, previous: Option<KeyValue> },
    Delete(KeyValue),
}

/// A commit's effect: per-operation results, the events to log (none: it
/// changes nothing) and the log slots of the values it superseded.
struct Effect {
    results: Vec<OpResult>,
    events: Vec<Event>,
    superseded: Vec<Slot>,
}

/// Checks every operation of a commit (each seeing the ones before it) and,
/// when all hold, applies them to `map` at `revision`.
fn apply_ops(map: &mut Index, revision: Revision, ops: &[Op]) -> Result<Effect, StorageError> {
    let mut outcomes: Vec<(Arc<str>, Outcome)> = Vec::with_capacity(ops.len());
    for (index, op) in ops.iter().enumerate() {
        let earlier = outcomes.iter().rev().find(|(k, _)| &**k == op.key.as_str());
        let current = match earlier {
            Some((_, Outcome::Unchanged(kv))) => kv.clone(),
            Some((_, Outcome::Put { current, .. })) => Some(current.clone()),
            Some((_, Outcome::Delete(_))) => None,
            None => map.get(op.key.as_str()).cloned(),
        };
        let holds = match op.precondition {
            Precondition::None => true,
            Precondition::Absent => current.is_none(),
            Precondition::Present => current.is_some(),
            Precondition::ModRevision(rev) => current.as_ref().is_some_and(|kv| kv.mod_revision == rev),
        };
        if !holds {
            return Err(StorageError::PreconditionFailed { index, current });
        }
        let key: Arc<str> = current.as_ref().map_or_else(|| Arc::from(op.key.as_str()), |kv| kv.key.clone());
        let outcome = match (&op.mutation, current) {
            (Mutation::Put(value), Some(prev)) if *prev.value == value[..] => Outcome::Unchanged(Some(prev)),
            (Mutation::Put(value), previous) => Outcome::Put {
                current: KeyValue {
                    key: key.clone(),
                    value: Arc::from(value.as_slice()),
                    create_revision: previous.as_ref().map_or(revision, |p| p.create_revision),
                    mod_revision: revision,
                },
                previous,
            },
            (Mutation::Keep, current) => Outcome::Unchanged(current),
            (Mutation::Delete, None) => Outcome::Unchanged(None),
            (Mutation::Delete, Some(prev)) => Outcome::Delete(prev),
        };
        outcomes.push((key, outcome));
    }
    let mut effect = Effect { results: Vec::with_capacity(outcomes.len()), events: Vec::new(), superseded: Vec::new() };
    for (key, outcome) in outcomes {
        if !matches!(outcome, Outcome::Unchanged(_)) {
            effect.superseded.extend(map.slot(&key));
        }
        match outcome {
            Outcome::Unchanged(kv) => effect.results.push(OpResult { current: kv.clone(), previous: kv }),
            Outcome::Put { current, previous } => {
                map.insert(current.clone(), effect.events.len() as u32);
                effect.events.push(Event::Put { current: current.clone(), previous: previous.clone() });
                effect.results.push(OpResult { current: Some(current), previous });
            }
            Outcome::Delete(previous) => {
                map.remove(&key);
                effect.events.push(Event::Delete { previous: previous.clone(), revision });
                effect.results.push(OpResult { current: None, previous: Some(previous) });
            }
        }
    }
    Ok(effect)
}

fn unavailable(answers: impl IntoIterator<Item = Reply>, why: &str) -> Vec<Answer> {
    answers.into_iter().map(|reply| (reply, Err(StorageError::Unavailable(why.to_string())))).collect()
}

/// Checks and applies one group on top of `base` (which may be ahead of what
/// readers see) and writes its log entries to sled as one atomic batch, not
/// yet flushed.
fn apply_group(shared: &Shared, base: &Arc<State>, group: Vec<(Vec<Op>, Reply)>) -> Applied {
    let refused = |answers| Applied { state: base.clone(), events: Vec::new(), answers };
    crate::metrics::get().group_commit_size.record(group.len() as u64, &[]);
    if shared.failed.load(Ordering::Acquire) {
        return refused(unavailable(group.into_iter().map(|(_, r)| r), "storage failed an earlier write"));
    }
    let mut map = base.map.clone();
    let mut revision = base.revision;
    let compacted = shared.compacted();
    let committed_at = now_ms();
    let mut writes = Writes::default();
    let mut answers = Vec::with_capacity(group.len());
    let mut events_out: Vec<(Revision, EventBatch)> = Vec::new();
    for (ops, reply) in group {
        match apply_ops(&mut map, revision + 1, &ops) {
            Err(err) => answers.push((reply, Err(err))),
            Ok(Effect { results, events, .. }) if events.is_empty() => {
                answers.push((reply, Ok(Committed { revision, changed: false, results })));
            }
            Ok(Effect { results, events, superseded }) => {
                revision += 1;
                for (index, event) in events.iter().enumerate() {
                    writes.insert(keys::log_key(revision, index as u32), codec::encode_event(event, committed_at));
                }
                // Above the compacted revision, compaction drops them later.
                for (rev, index) in superseded.into_iter().filter(|(rev, _)| *rev <= compacted) {
                    writes.remove(keys::log_key(rev, index));
                }
                answers.push((reply, Ok(Committed { revision, changed: true, results })));
                events_out.push((revision, Arc::new(events)));
            }
        }
    }
    if !events_out.is_empty() {
        if let Err(err) = writes.apply(&shared.tree, revision) {
            tracing::error!(error = %err, "write failed; refusing further writes");
            shared.failed.store(true, Ordering::Release);
            return refused(unavailable(answers.into_iter().map(|(r, _)| r), &format!("commit failed: {err}")));
        }
    }
    Applied { state: Arc::new(State { revision, map }), events: events_out, answers }
}

/// A group's changes to the log, written as one atomic step when a commit
/// needs it.
#[derive(Default)]
struct Writes {
    inserts: Vec<([u8; 13], Vec<u8>)>,
    removes: Vec<[u8; 13]>,
}

impl Writes {
    fn insert(&mut self, key: [u8; 13], value: Vec<u8>) {
        self.inserts.push((key, value));
    }

    fn remove(&mut self, key: [u8; 13]) {
        self.removes.push(key);
    }

    /// Writes the changes and the log's newest `revision` as one sled
    /// batch; but a group whose commits each add one entry and that
    /// removes none (concurrent writers' creates, say) as one insert per
    /// commit, in revision order. Each insert is atomic on its own, and
    /// sled recovers a prefix of its log, so a crash keeps the commits up
    /// to some revision, never one without those before it: what a batch
    /// would give, and none of them was acknowledged before the flush. A
    /// batch costs sled a log buffer of its own for the batch's manifest,
    /// written and synced on the writer thread before the batch
    /// (`PageCache::pin_log`): a second sync on every flush. Replay takes
    /// the newest revision from the log itself; `META_REVISION` only has
    /// to stay at or below it, as it does when inserts leave it behind.
    fn apply(self, tree: &sled::Tree, revision: Revision) -> sled::Result<()> {
        // A commit's second entry is the only one at index 1 or above.
        let joint = self.inserts.iter().any(|(key, _)| keys::log_slot(key).is_some_and(|(_, index)| index > 0));
        if !joint && self.removes.is_empty() {
            for (key, value) in self.inserts {
                tree.insert(key, value)?;
            }
            return Ok(());
        }
        let mut batch = sled::Batch::default();
        for (key, value) in self.inserts {
            batch.insert(&key, value);
        }
        for key in self.removes {
            batch.remove(&key);
        }
        batch.insert(keys::META_REVISION, &codec::encode_revision(revision));
        tree.apply_batch(batch)
    }
}

/// Makes applied groups durable with one flush for all that are waiting,
/// then hands them to the fan-out thread, which publishes them and answers, in
/// order, while this thread starts the next flush.
fn run_flusher(shared: Arc<Shared>, rx: std::sync::mpsc::Receiver<Stage>) {
    while let Ok(first) = rx.recv() {
        let mut groups = Vec::new();
        let mut after = None;
        let mut next = Some(first);
        while let Some(stage) = next.take() {
            match stage {
                Stage::Group(applied) => groups.push(applied),
                Stage::Barrier(reply) => {
                    after = Some(Publish::Barrier(reply));
                    break;
                }
                Stage::Close(reply) => {
                    after = Some(Publish::Close(reply));
                    break;
                }
            }
            next = rx.try_recv().ok();
        }
        let durable = if groups.iter().any(|g| !g.events.is_empty()) {
            let fsync: Vec<_> =
                groups.iter_mut().flat_map(|g| g.answers.iter_mut()).filter_map(|(r, _)| r.fsync()).collect();
            let start = std::time::Instant::now();
            let flushed = shared.db.flush().map(|_| ()).map_err(|e| e.to_string());
            crate::metrics::get().fsync_duration.record(crate::metrics::since(start), &[]);
            drop(fsync);
            flushed
        } else {
            Ok(())
        };
        if let Err(why) = &durable {
            tracing::error!(error = %why, "flush failed; refusing further writes");
            shared.failed.store(true, Ordering::Release);
        }
        let (mut state, mut events, mut answers) = (None, Vec::new(), Vec::new());
        for applied in groups {
            match &durable {
                Ok(()) => {
                    if !applied.events.is_empty() {
                        state = Some(applied.state);
                        events.extend(applied.events);
                    }
                    answers.extend(applied.answers);
                }
                Err(why) => {
                    let replies = applied.answers.into_iter().map(|(r, _)| r);
                    answers.extend(unavailable(replies, &format!("flush failed: {why}")));
                }
            }
        }
        if !answers.is_empty() {
            let _ = shared.fan_out.send(Publish::Durable { state, events, answers });
        }
        match after {
            None => {}
            Some(Publish::Close(reply)) => {
                if let Err(unsent) = shared.fan_out.send(Publish::Close(reply)) {
                    // No fan-out thread any more: end the watches from here.
                    shared.hub.close();
                    if let Publish::Close(reply) = unsent.0 {
                        let _ = reply.send(());
                    }
                }
                return;
            }
            Some(other) => {
                let _ = shared.fan_out.send(other);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn revision_meta(tree: &sled::Tree) -> Option<Revision> {
        tree.get(keys::META_REVISION).unwrap().map(|v| codec::decode_revision(&v).unwrap())
    }

    #[test]
    fn single_entry_commits_are_inserts_and_anything_joint_one_batch_with_the_revision() {
        let dir = tempfile::tempdir().unwrap();
        let tree = sled::open(dir.path()).unwrap().open_tree("t").unwrap();
        let key = |rev: i64, index: u32| keys::log_key(Revision::new(rev), index);

        let mut one = Writes::default();
        one.insert(key(1, 0), b"a".to_vec());
        one.apply(&tree, Revision::new(1)).unwrap();
        assert_eq!(tree.get(key(1, 0)).unwrap().as_deref(), Some(&b"a"[..]));
        assert_eq!(revision_meta(&tree), None, "a lone entry leaves the revision to the log");

        let mut group = Writes::default();
        group.insert(key(2, 0), b"b".to_vec());
        group.insert(key(3, 0), b"c".to_vec());
        group.apply(&tree, Revision::new(3)).unwrap();
        assert_eq!(tree.get(key(3, 0)).unwrap().as_deref(), Some(&b"c"[..]));
        assert_eq!(revision_meta(&tree), None, "commits of one entry each are inserts");

        let mut two = Writes::default();
        two.insert(key(4, 0), b"d".to_vec());
        two.insert(key(4, 1), b"e".to_vec());
        two.apply(&tree, Revision::new(4)).unwrap();
        assert_eq!(revision_meta(&tree), Some(Revision::new(4)), "a commit of two entries is one batch");

        let mut superseding = Writes::default();
        superseding.insert(key(5, 0), b"f".to_vec());
        superseding.remove(key(1, 0));
        superseding.apply(&tree, Revision::new(5)).unwrap();
        assert_eq!(tree.get(key(1, 0)).unwrap(), None);
        assert_eq!(revision_meta(&tree), Some(Revision::new(5)), "an insert with a removal is one batch");
    }
}
