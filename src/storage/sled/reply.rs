//! A commit's answer channel, which carries the commit's trace span across
//! the writer, flusher and fan-out threads: the time a commit waits for its
//! group, its flush and its fan-out to watchers show as child spans of the
//! request that made it. Untraced (the usual case) it is the bare channel.

use tokio::sync::oneshot;
use tracing::Span;

use crate::storage::{Committed, StorageError};

/// Where a commit's result goes.
pub(in crate::storage::sled) struct Reply {
    sender: oneshot::Sender<Result<Committed, StorageError>>,
    /// The commit's span (`storage.commit`); none when untraced.
    span: Span,
    /// `storage.group_commit_wait`: open from the call until its flush
    /// starts.
    wait: Span,
}

impl Reply {
    /// A reply to a commit made inside the current span.
    pub(in crate::storage::sled) fn new(sender: oneshot::Sender<Result<Committed, StorageError>>) -> Self {
        let span = Span::current();
        let wait = if span.is_none() {
            Span::none()
        } else {
            tracing::debug_span!(parent: &span, "storage.group_commit_wait")
        };
        Self { sender, span, wait }
    }

    /// Answers the commit.
    pub(in crate::storage::sled) fn send(
        self,
        result: Result<Committed, StorageError>,
    ) -> Result<(), Result<Committed, StorageError>> {
        self.sender.send(result)
    }

    /// Ends the wait for the group; the `storage.fsync` span of its flush,
    /// when traced.
    pub(in crate::storage::sled) fn fsync(&mut self) -> Option<Span> {
        if self.span.is_none() {
            return None;
        }
        self.wait = Span::none();
        Some(tracing::debug_span!(parent: &self.span, "storage.fsync"))
    }

    /// The `watch.fan_out` span of publishing the commit to watchers, when
    /// traced.
    pub(in crate::storage::sled) fn fan_out(&self) -> Option<Span> {
        (!self.span.is_none()).then(|| tracing::debug_span!(parent: &self.span, "watch.fan_out"))
    }
}
