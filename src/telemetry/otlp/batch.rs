//! The export queue: each span is encoded into it as it ends, in batches
//! of at most `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` spans, and a task on the
//! runtime sends a batch as soon as it is full, and whatever is there every
//! `OTEL_BSP_SCHEDULE_DELAY`. Past `OTEL_BSP_MAX_QUEUE_SIZE` spans waiting,
//! a span is dropped and counted, as the SDK's batch span processor does;
//! unlike it, no span is copied to a thread of its own or kept as a struct
//! of strings until its batch is sent.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;

use super::encode::{self, Finished};
use super::SpanExporter;
use crate::telemetry::env;

/// How spans are batched, from the `OTEL_BSP_*` variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::telemetry) struct Batching {
    pub delay: Duration,
    pub max_queue: usize,
    pub max_batch: usize,
}

impl Default for Batching {
    /// The SDK's delay (5 s), a queue and batches four times the SDK's
    /// (8192 and 2048 spans): a create makes eight spans, so at thousands
    /// of requests a second the SDK's 2048 would drop spans between two
    /// exports and its batches of 512 would make an export call every 64
    /// creates.
    fn default() -> Self {
        Self { delay: Duration::from_secs(5), max_queue: 8192, max_batch: 2048 }
    }
}

impl Batching {
    /// The variables where set to a number, else the defaults (as the SDK
    /// reads them); a batch is never larger than the queue.
    pub(in crate::telemetry) fn from_env() -> Self {
        Self::from_lookup(env)
    }

    fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Self {
        let number = |name: &str| get(name).and_then(|v| v.trim().parse::<u64>().ok());
        let default = Self::default();
        let max_queue = number("OTEL_BSP_MAX_QUEUE_SIZE").map_or(default.max_queue, |n| n.max(1) as usize);
        let max_batch = number("OTEL_BSP_MAX_EXPORT_BATCH_SIZE").map_or(default.max_batch, |n| n.max(1) as usize);
        Self {
            delay: number("OTEL_BSP_SCHEDULE_DELAY").map_or(default.delay, Duration::from_millis),
            max_queue,
            max_batch: max_batch.min(max_queue),
        }
    }
}

/// A run of encoded spans and how many they are.
type Batch = (Vec<u8>, usize);

#[derive(Default)]
struct Pending {
    /// Batches that reached the batch size, oldest first.
    full: VecDeque<Batch>,
    /// The batch being filled.
    current: Batch,
    /// Spans in `full` and `current`.
    queued: usize,
    /// Spans dropped since the exporter last said so.
    dropped: u64,
    /// Shut down: spans are no longer taken.
    closed: bool,
}

/// Ended spans waiting to be sent.
pub(in crate::telemetry) struct Queue {
    pending: Mutex<Pending>,
    /// Woken when a batch is full, and on shutdown.
    ready: Notify,
    batching: Batching,
}

impl Queue {
    pub(in crate::telemetry) fn new(batching: Batching) -> Self {
        Self { pending: Mutex::new(Pending::default()), ready: Notify::new(), batching }
    }

    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Encodes an ended span into the batch being filled, or drops it when
    /// the queue is full or shut down.
    pub(in crate::telemetry) fn push(&self, span: &Finished<'_>) {
        let mut pending = self.lock();
        if pending.closed || pending.queued >= self.batching.max_queue {
            pending.dropped += 1;
            return;
        }
        encode::span(&mut pending.current.0, span);
        pending.current.1 += 1;
        pending.queued += 1;
        if pending.current.1 >= self.batching.max_batch {
            let capacity = pending.current.0.capacity();
            let full = std::mem::replace(&mut pending.current, (Vec::with_capacity(capacity), 0));
            pending.full.push_back(full);
            drop(pending);
            self.ready.notify_one();
        }
    }

    /// The oldest full batch; with `partial`, the one being filled when
    /// none is full.
    pub(in crate::telemetry) fn take(&self, partial: bool) -> Option<Batch> {
        let mut pending = self.lock();
        let batch = match pending.full.pop_front() {
            Some(batch) => batch,
            None if partial && pending.current.1 > 0 => std::mem::take(&mut pending.current),
            None => return None,
        };
        pending.queued -= batch.1;
        Some(batch)
    }

    /// The spans dropped since the last call.
    fn dropped(&self) -> u64 {
        std::mem::take(&mut self.lock().dropped)
    }

    fn close(&self) {
        self.lock().closed = true;
        self.ready.notify_one();
    }

    fn closed(&self) -> bool {
        self.lock().closed
    }
}

/// The task sending the queue's batches.
pub(in crate::telemetry) struct Exporter {
    queue: Arc<Queue>,
    task: tokio::task::JoinHandle<()>,
}

impl Exporter {
    /// Starts sending `queue`'s batches with `sender`, on its runtime.
    pub(in crate::telemetry) fn start(queue: Arc<Queue>, sender: SpanExporter) -> Self {
        let runtime = sender.runtime.clone();
        let task = runtime.spawn(run(queue.clone(), sender));
        Self { queue, task }
    }

    /// Stops taking spans and sends those waiting, within the export
    /// timeout. Blocks: call it off the runtime's workers.
    pub(in crate::telemetry) fn shutdown(self) {
        self.queue.close();
        let _ = futures::executor::block_on(self.task);
    }
}

async fn run(queue: Arc<Queue>, sender: SpanExporter) {
    loop {
        let timer = tokio::select! {
            () = queue.ready.notified() => false,
            () = tokio::time::sleep(queue.batching.delay) => true,
        };
        // Read once: a shutdown that comes while this round sends is seen
        // by the next round (its wake-up is kept), which then takes all.
        let closing = queue.closed();
        // On shutdown the rest goes within one export timeout in all, not
        // one per batch: a collector that is gone holds the exit no longer.
        let deadline = closing.then(|| tokio::time::Instant::now() + sender.timeout);
        while let Some((spans, _)) = queue.take(timer || closing) {
            let body = sender.encoder.request(&spans);
            match deadline {
                Some(deadline) => {
                    let _ = tokio::time::timeout_at(deadline, sender.send(body)).await;
                }
                None => {
                    let _ = sender.send(body).await;
                }
            }
        }
        let dropped = queue.dropped();
        if dropped > 0 {
            tracing::warn!(dropped, "OTLP spans dropped: the export queue was full or shut down");
        }
        if closing {
            return;
        }
    }
}

#[cfg(test)]
#[path = "batch_tests.rs"]
mod tests;
