//! The storage contract: a revisioned key-value store with conditional
//! multi-key commits, consistent ranges at a revision, and watches that
//! resume from any revision in the history window.
//!
//! Revisions: one global revision only grows. Every commit that changes
//! something gets the next revision; every key changed by it gets that
//! revision as its `mod_revision` (a key keeps the `create_revision` of its
//! first write). An object's resourceVersion is its `mod_revision`. A commit
//! that would change nothing (every put writes the bytes already stored)
//! consumes no revision and is not logged.

pub mod codec;
pub mod hub;
pub mod keys;
pub mod sled;
pub mod snapshot;
pub mod window;

pub use hub::{Hub, Subscription};
pub use window::HistoryWindow;

use std::sync::Arc;

use async_trait::async_trait;

use crate::error::Error;

/// A revision of the store: the number of the commit that made a state.
/// Zero means "none": no write has happened yet. An object's resourceVersion
/// is the revision that last changed it, written in decimal.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Revision(i64);

impl Revision {
    /// No revision: before the first write.
    pub const ZERO: Revision = Revision(0);

    pub const fn new(number: i64) -> Self {
        Self(number)
    }

    /// The revision as a number.
    pub const fn get(self) -> i64 {
        self.0
    }

    /// How many revisions `self` is after `earlier` (negative before it).
    pub const fn since(self, earlier: Revision) -> i64 {
        self.0 - earlier.0
    }
}

impl std::fmt::Display for Revision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl From<i64> for Revision {
    fn from(number: i64) -> Self {
        Self(number)
    }
}

impl std::ops::Add<i64> for Revision {
    type Output = Revision;
    fn add(self, n: i64) -> Revision {
        Revision(self.0 + n)
    }
}

impl std::ops::AddAssign<i64> for Revision {
    fn add_assign(&mut self, n: i64) {
        self.0 += n;
    }
}

impl std::str::FromStr for Revision {
    type Err = std::num::ParseIntError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        text.parse().map(Revision)
    }
}

impl std::ops::Sub<i64> for Revision {
    type Output = Revision;
    fn sub(self, n: i64) -> Revision {
        Revision(self.0 - n)
    }
}

/// Tests and callers compare revisions with numbers they know.
impl PartialEq<i64> for Revision {
    fn eq(&self, other: &i64) -> bool {
        self.0 == *other
    }
}

impl PartialOrd<i64> for Revision {
    fn partial_cmp(&self, other: &i64) -> Option<std::cmp::Ordering> {
        self.0.partial_cmp(other)
    }
}

/// One key as stored at some revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyValue {
    /// The full storage key, see `keys`.
    pub key: Arc<str>,
    /// The value bytes (JSON for everything crdstore stores).
    pub value: Arc<[u8]>,
    /// The revision of the commit that created the key.
    pub create_revision: Revision,
    /// The revision of the commit that last changed the key.
    pub mod_revision: Revision,
}

/// What must hold for an operation of a commit to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precondition {
    /// Nothing: the operation applies whatever the key's state.
    None,
    /// The key must not exist (create).
    Absent,
    /// The key must exist.
    Present,
    /// The key must exist with exactly this `mod_revision`.
    ModRevision(Revision),
}

/// What an operation does to its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mutation {
    /// Store these bytes. Identical bytes change nothing.
    Put(Vec<u8>),
    /// Remove the key. Removing an absent key changes nothing.
    Delete,
    /// Change nothing: the operation only checks its precondition (a commit
    /// that depends on another key's state).
    Keep,
}

/// One operation of a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Op {
    pub key: String,
    pub precondition: Precondition,
    pub mutation: Mutation,
}

impl Op {
    pub fn create(key: impl Into<String>, value: Vec<u8>) -> Self {
        Self { key: key.into(), precondition: Precondition::Absent, mutation: Mutation::Put(value) }
    }

    pub fn update(key: impl Into<String>, expected: Revision, value: Vec<u8>) -> Self {
        Self { key: key.into(), precondition: Precondition::ModRevision(expected), mutation: Mutation::Put(value) }
    }

    pub fn delete(key: impl Into<String>, expected: Revision) -> Self {
        Self { key: key.into(), precondition: Precondition::ModRevision(expected), mutation: Mutation::Delete }
    }

    /// Fails the commit unless `key` is still at `expected`; writes nothing.
    pub fn check(key: impl Into<String>, expected: Revision) -> Self {
        Self { key: key.into(), precondition: Precondition::ModRevision(expected), mutation: Mutation::Keep }
    }
}

/// The outcome of one operation of a successful commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpResult {
    /// The key after the commit; `None` once deleted.
    pub current: Option<KeyValue>,
    /// The key before the commit.
    pub previous: Option<KeyValue>,
}

/// A successful commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committed {
    /// The revision the commit got, or the store's revision when it changed
    /// nothing.
    pub revision: Revision,
    /// Whether anything changed (and so a revision was consumed).
    pub changed: bool,
    /// One result per operation, in request order.
    pub results: Vec<OpResult>,
}

impl Committed {
    /// The key-value an operation left, if any.
    pub fn current(&self, index: usize) -> Option<&KeyValue> {
        self.results.get(index).and_then(|r| r.current.as_ref())
    }
}

/// Which revision a range reads at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadAt {
    /// The latest committed revision.
    Latest,
    /// Exactly this revision; it must be in the history window.
    Revision(Revision),
}

/// A page of a range read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Range {
    /// Matching keys in key order.
    pub items: Vec<KeyValue>,
    /// The revision the range was read at.
    pub revision: Revision,
    /// Whether more matching keys follow the last item.
    pub more: bool,
}

/// One change to one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The key was created or changed; `previous` is its state before.
    Put { current: KeyValue, previous: Option<KeyValue> },
    /// The key was removed at `revision`; `previous` is its last state.
    Delete { previous: KeyValue, revision: Revision },
}

impl Event {
    pub fn key(&self) -> &str {
        match self {
            Event::Put { current, .. } => &current.key,
            Event::Delete { previous, .. } => &previous.key,
        }
    }

    pub fn revision(&self) -> Revision {
        match self {
            Event::Put { current, .. } => current.mod_revision,
            Event::Delete { revision, .. } => *revision,
        }
    }
}

/// Events in revision order, then operation order: one or more whole
/// commits.
pub type EventBatch = Arc<Vec<Event>>;

/// Why a storage call failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StorageError {
    /// Operation `index` of a commit found its key in another state;
    /// `current` is that state. Nothing of the commit was applied.
    #[error("precondition of operation {index} failed")]
    PreconditionFailed { index: usize, current: Option<KeyValue> },
    /// The revision asked for is older than the history window.
    #[error("required revision {requested} has been compacted (oldest available {compacted})")]
    Compacted { requested: Revision, compacted: Revision },
    /// The revision asked for is newer than anything committed.
    #[error("revision {requested} is newer than the current revision {current}")]
    FutureRevision { requested: Revision, current: Revision },
    /// A watcher did not keep up with the event rate and was ended.
    #[error("watcher fell too far behind")]
    WatcherTooSlow,
    /// The store can not accept writes (a failed flush, shutting down).
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    /// Corrupt data or an unexpected engine failure.
    #[error("storage internal error: {0}")]
    Internal(String),
}

impl StorageError {
    /// The domain error for failures that are not about a particular object
    /// (preconditions are turned into conflicts by the caller, who knows the
    /// object's name).
    pub fn into_error(self) -> Error {
        match self {
            StorageError::PreconditionFailed { index, .. } => {
                Error::internal(format!("unhandled precondition failure of operation {index}"))
            }
            StorageError::Compacted { requested, compacted } => {
                Error::expired(format!("too old resource version: {requested} ({compacted})"))
            }
            StorageError::FutureRevision { requested, current } => {
                Error::too_large_resource_version(requested, current)
            }
            StorageError::WatcherTooSlow => Error::too_many_requests(
                "watcher fell too far behind the event stream; resume from the last resourceVersion received",
            ),
            StorageError::Unavailable(msg) => Error::unavailable(msg),
            StorageError::Internal(msg) => Error::internal(msg),
        }
    }
}

impl From<StorageError> for Error {
    fn from(err: StorageError) -> Self {
        err.into_error()
    }
}

/// One item of a storage watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchMessage {
    /// The events of one or more consecutive revisions, in revision and
    /// then operation order; never a part of a revision.
    Events(EventBatch),
    /// Every change up to this revision has been delivered: resuming after it
    /// misses nothing. Sent now and then while the watch is idle.
    Progress(Revision),
}

/// A watch: events in revision order, each revision once, with progress
/// notes in between. The stream ends with an error item when the watch can
/// not go on (`Compacted`, `WatcherTooSlow`, `Unavailable`), and without one
/// when the store shuts down. It does its work when polled: no task runs
/// per watch, and dropping it ends it.
pub type WatchReceiver = futures::stream::BoxStream<'static, Result<WatchMessage, StorageError>>;

/// One record of a store image (`Storage::image`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageItem {
    /// A key as it is at the image's revision. Every object comes first, in
    /// key order.
    Object(KeyValue),
    /// The events of one revision of the history window, after the objects,
    /// in revision order; `committed_at_ms` is when it was committed (Unix
    /// ms, for the time-based window).
    History { revision: Revision, committed_at_ms: i64, events: Vec<Event> },
}

/// A consistent image of a whole store at one revision: every key as it is
/// then, and the history window up to it, so that watches resume from any
/// revision in (`compacted`, `revision`] of a store rebuilt from it. What a
/// backup holds, whatever the backend.
pub struct Image {
    /// The revision the image is at: a store rebuilt from it is at this one.
    pub revision: Revision,
    /// The newest revision whose history is not in the image; the image holds
    /// every revision after it, up to `revision`.
    pub compacted: Revision,
    /// How many objects the image holds.
    pub objects: u64,
    /// `objects` objects, then the `revision - compacted` revisions of
    /// history. Reading may block (a backend reads its log): iterate off the
    /// async workers.
    pub items: Box<dyn Iterator<Item = Result<ImageItem, StorageError>> + Send>,
}

impl Image {
    /// How many revisions of history the image holds.
    pub fn revisions(&self) -> u64 {
        self.revision.since(self.compacted).max(0) as u64
    }
}

impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Image")
            .field("revision", &self.revision)
            .field("compacted", &self.compacted)
            .field("objects", &self.objects)
            .finish_non_exhaustive()
    }
}

/// The revisioned store every domain module writes through.
#[async_trait]
pub trait Storage: Send + Sync + 'static {
    /// The latest committed (durable) revision.
    fn current_revision(&self) -> Revision;

    /// The newest revision whose history is gone; history after it is kept.
    fn compacted_revision(&self) -> Revision;

    /// Waits, for at most `timeout`, until the latest committed revision is
    /// at least `revision` (woken by the commit that reaches it, not by
    /// polling); returns the latest revision then.
    async fn wait_for_revision(&self, revision: Revision, timeout: std::time::Duration) -> Revision;

    /// Reads one key at the latest revision.
    fn get(&self, key: &str) -> Option<KeyValue>;

    /// Reads keys starting with `prefix`, in key order, strictly after
    /// `start_after` when given, keeping those `filter` accepts, until
    /// `limit` are found (0: no limit). Every item is as it was at one
    /// revision: the latest, or the one asked for when it is in the window
    /// (`Compacted` below it, `FutureRevision` above the latest).
    fn range(
        &self,
        prefix: &str,
        start_after: Option<&str>,
        at: ReadAt,
        limit: usize,
        filter: &mut dyn FnMut(&KeyValue) -> bool,
    ) -> Result<Range, StorageError>;

    /// Counts keys starting with `prefix` at the latest revision.
    fn count(&self, prefix: &str) -> usize;

    /// Applies every operation or none, atomically, and returns once the
    /// commit is durable. Operations see the effects of earlier operations of
    /// the same commit. The commit gets the next revision when it changes
    /// anything; a commit that changes nothing is not written.
    async fn commit(&self, ops: Vec<Op>) -> Result<Committed, StorageError>;

    /// Streams every change to keys starting with `prefix` after revision
    /// `after`, in revision order, without gaps or duplicates, from the
    /// durable history and then live. `after` below the compacted revision
    /// gives `Compacted` at once, above the latest `FutureRevision` (every
    /// revision the store has handed out, by a read, a commit or a progress
    /// note, is safe to watch from: nothing is readable before it is
    /// watchable). Revisions after `after` that touch no key under `prefix`
    /// are reported by progress notes: at once when the watch has caught up
    /// past them, and now and then while it is idle.
    fn watch(&self, prefix: &str, after: Revision) -> Result<WatchReceiver, StorageError>;

    /// A consistent image of the whole store at the latest revision, with its
    /// whole history window (for a backup, `snapshot`). The window is not
    /// compacted while the image lives, so reading it never finds a gap.
    fn image(&self) -> Result<Image, StorageError>;

    /// Drops the history outside the history window now (a backend also does
    /// it periodically); returns the compacted revision.
    async fn compact(&self) -> Result<Revision, StorageError>;

    /// Stops accepting writes, waits for those under way, flushes, and ends
    /// every watch.
    async fn close(&self);
}
