//! The `Maintenance` service: a backup of the running store, streamed as the
//! bytes of its snapshot file (`storage::snapshot`), read off the async
//! workers and sent as the client takes them. At most `--max-backups` run
//! at once, each on one blocking thread holding a few MiB (its snapshot's
//! buffers and one message queued); more are Kubernetes' TooManyRequests,
//! RESOURCE_EXHAUSTED, with the seconds to wait. A client that takes
//! nothing for the stall bound (`--body-timeout-seconds`) loses its backup,
//! with DEADLINE_EXCEEDED after what it was sent, so an unread backup holds
//! its slot only that long.

use std::io::{self, Write};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::mpsc::error::SendTimeoutError;
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use crate::error::Error;
use crate::pb::v1 as pb;
use crate::pb::v1::maintenance_server::Maintenance;
use crate::storage::snapshot::{self, Phase, SnapshotError};
use crate::storage::Storage;

/// The most snapshot bytes in one message (well under the 4 MiB clients
/// accept by default, and small, since a slow reader's backup holds a few).
const CHUNK_BYTES: usize = 256 * 1024;
/// Messages made and not yet taken by the transport: a slow reader holds
/// this one, the one being sent and the snapshot's buffers, and its
/// backup's thread waits.
const QUEUED: usize = 1;
/// Seconds a backup refused for the limit is told to wait.
const RETRY_SECONDS: u32 = 1;

/// The service over the store.
pub struct MaintenanceService {
    store: Arc<dyn Storage>,
    /// One permit per backup that may run at once.
    backups: Arc<Semaphore>,
    /// How long a backup waits for its client to take a message.
    stall: Duration,
}

impl MaintenanceService {
    /// The service, running at most `max_backups` backups at once, each
    /// ended once its client has taken nothing for `stall`.
    pub fn new(store: Arc<dyn Storage>, max_backups: usize, stall: Duration) -> Self {
        Self { store, backups: Arc::new(Semaphore::new(max_backups)), stall }
    }

    /// A slot for one more backup, held until its snapshot is written or its
    /// client is gone; none left is TooManyRequests with a retry delay.
    fn slot(&self) -> Result<OwnedSemaphorePermit, Status> {
        self.backups.clone().try_acquire_owned().map_err(|_| {
            let mut err =
                Error::too_many_requests("Too many requests, please try again later: too many backups are running");
            err.details.retry_after_seconds = Some(RETRY_SECONDS);
            Status::from(err)
        })
    }
}

type ChunkStream = Pin<Box<dyn Stream<Item = Result<pb::BackupChunk, Status>> + Send>>;

/// Sends what is written as `BackupChunk`s; fails once the client is gone,
/// which ends the backup.
struct Chunks {
    tx: mpsc::Sender<Result<pb::BackupChunk, Status>>,
    /// The runtime the backup's thread waits on for its client.
    runtime: tokio::runtime::Handle,
    stall: Duration,
    buffer: Vec<u8>,
    revision: i64,
    done: Arc<AtomicU64>,
    total: u64,
}

impl Chunks {
    fn send(&mut self, all: bool) -> io::Result<()> {
        while self.buffer.len() >= CHUNK_BYTES || (all && !self.buffer.is_empty()) {
            let rest = self.buffer.split_off(self.buffer.len().min(CHUNK_BYTES));
            let data = std::mem::replace(&mut self.buffer, rest);
            let chunk = pb::BackupChunk {
                data,
                revision: self.revision,
                records_done: self.done.load(Ordering::Relaxed),
                records_total: self.total,
            };
            match self.runtime.block_on(self.tx.send_timeout(Ok(chunk), self.stall)) {
                Ok(()) => {}
                Err(SendTimeoutError::Timeout(_)) => {
                    let why = format!("the client took nothing for {}s", self.stall.as_secs());
                    return Err(io::Error::new(io::ErrorKind::TimedOut, why));
                }
                Err(SendTimeoutError::Closed(_)) => {
                    return Err(io::Error::new(io::ErrorKind::BrokenPipe, "the client went away"))
                }
            }
        }
        Ok(())
    }
}

impl Write for Chunks {
    /// Takes at most what fills the buffer, so it never holds more than a
    /// message however large the record being written.
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let taken = bytes.len().min(CHUNK_BYTES - self.buffer.len());
        self.buffer.extend_from_slice(&bytes[..taken]);
        self.send(false)?;
        Ok(taken)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.send(true)
    }
}

fn status(err: SnapshotError) -> Status {
    match err {
        SnapshotError::Storage(err) => Error::from(err).into(),
        other => Error::internal(format!("backup failed: {other}")).into(),
    }
}

#[tonic::async_trait]
impl Maintenance for MaintenanceService {
    type BackupStream = ChunkStream;

    async fn backup(&self, _request: Request<pb::BackupRequest>) -> Result<Response<ChunkStream>, Status> {
        let slot = self.slot()?;
        // Off the workers: it waits for a compaction pass under way.
        let store = self.store.clone();
        let image = tokio::task::spawn_blocking(move || store.image())
            .await
            .map_err(|err| Error::internal(format!("backup task failed: {err}")))?
            .map_err(Error::from)?;
        let (tx, rx) = mpsc::channel(QUEUED);
        let done = Arc::new(AtomicU64::new(0));
        let mut chunks = Chunks {
            tx: tx.clone(),
            runtime: tokio::runtime::Handle::current(),
            stall: self.stall,
            buffer: Vec::with_capacity(CHUNK_BYTES),
            revision: image.revision.get(),
            done: done.clone(),
            total: image.objects + image.revisions(),
        };
        let progress: snapshot::Progress = Arc::new(move |phase, records, _| {
            if phase == Phase::Backup {
                done.store(records, Ordering::Relaxed);
            }
        });
        // What ends a stalled backup: its stream's last item, once the
        // messages it was sent are taken (the queue is full then).
        let stalled: Arc<Mutex<Option<Status>>> = Arc::default();
        let last = stalled.clone();
        tokio::task::spawn_blocking(move || {
            let _slot = slot;
            let written = snapshot::write(image, &mut chunks, &progress);
            match written {
                Err(SnapshotError::Io { source, .. }) if source.kind() == io::ErrorKind::TimedOut => {
                    tracing::info!(why = %source, "backup ended: its client stalled");
                    let err = Error::timeout(format!("backup ended: {source}"));
                    *stalled.lock().expect("backup lock") = Some(err.into());
                }
                Ok(summary) => {
                    tracing::info!(revision = %summary.header.revision, bytes = summary.bytes, "backup sent");
                }
                Err(SnapshotError::Io { source, .. }) if source.kind() == io::ErrorKind::BrokenPipe => {
                    tracing::info!("backup ended: the client went away");
                }
                Err(err) => {
                    tracing::warn!(error = %err, "backup failed");
                    let _ = tx.blocking_send(Err(status(err)));
                }
            }
        });
        let end = futures::stream::once(async move { last.lock().expect("backup lock").take().map(Err) });
        let stream = ReceiverStream::new(rx).chain(end.filter_map(std::future::ready));
        Ok(Response::new(Box::pin(stream)))
    }
}
