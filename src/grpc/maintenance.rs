//! The `Maintenance` service: a backup of the running store, streamed as the
//! bytes of its snapshot file (`storage::snapshot`), read off the async
//! workers and sent as the client takes them.

use std::io::{self, Write};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use crate::error::Error;
use crate::pb::v1 as pb;
use crate::pb::v1::maintenance_server::Maintenance;
use crate::storage::snapshot::{self, Phase, SnapshotError};
use crate::storage::Storage;

/// The most snapshot bytes in one message (well under the 4 MiB clients
/// accept by default).
const CHUNK_BYTES: usize = 1024 * 1024;

/// The service over the store.
pub struct MaintenanceService {
    store: Arc<dyn Storage>,
}

impl MaintenanceService {
    pub fn new(store: Arc<dyn Storage>) -> Self {
        Self { store }
    }
}

type ChunkStream = Pin<Box<dyn Stream<Item = Result<pb::BackupChunk, Status>> + Send>>;

/// Sends what is written as `BackupChunk`s; fails once the client is gone,
/// which ends the backup.
struct Chunks {
    tx: mpsc::Sender<Result<pb::BackupChunk, Status>>,
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
            self.tx
                .blocking_send(Ok(chunk))
                .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the client went away"))?;
        }
        Ok(())
    }
}

impl Write for Chunks {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        self.send(false)?;
        Ok(bytes.len())
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
        // Off the workers: it waits for a compaction pass under way.
        let store = self.store.clone();
        let image = tokio::task::spawn_blocking(move || store.image())
            .await
            .map_err(|err| Error::internal(format!("backup task failed: {err}")))?
            .map_err(Error::from)?;
        let (tx, rx) = mpsc::channel(4);
        let done = Arc::new(AtomicU64::new(0));
        let mut chunks = Chunks {
            tx: tx.clone(),
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
        tokio::task::spawn_blocking(move || {
            let written = snapshot::write(image, &mut chunks, &progress);
            match written {
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
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }
}
