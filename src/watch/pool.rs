//! The watch pool: the clients' watch streams are produced (read from the
//! hub, decoded, matched against selectors, converted and rendered) on a
//! runtime of their own whose threads run at a lower OS priority than the
//! request runtime's, so that when watch delivery wants more CPU than the
//! machine has, requests are still served first and the watchers fall
//! behind instead, within the hub's budget (`storage::hub`), missing
//! nothing. A machine with CPU to spare sees no difference: the pool's
//! threads run whenever a core is free. Off by default (`--watch-nice`).

use futures::StreamExt;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use super::stream::{WatchEvent, WatchStream};
use crate::error::Result;

/// Events forwarded to the transport at once at most: what is ready goes
/// in one message of the channel, so a batch of changes costs one hand-off.
const BATCH_EVENTS: usize = 16;
/// Batches a watch may have produced and its transport not yet taken. With
/// `BATCH_EVENTS`, what a watcher has queued for the request runtime stays
/// small (48 events): that queue is work the request runtime does at its
/// own priority, ahead of a request that arrives after it (with 1,024
/// events a watcher, writes under the bench's watch load were still 7 s
/// behind; with 48, 0.7 s over gRPC and 0.14 s over HTTP, medians).
const BATCHES: usize = 2;
/// And bytes of events (their objects' JSON) in a batch at most, but for
/// one event: what a watch holds in the pool's queue is a few MiB however
/// large its objects (48 events of 3 MiB would be 144 MiB).
const BATCH_BYTES: usize = 1 << 20;

/// The default `nice` of the pool: 0, watches produced on the request
/// runtime. Under a watch load larger than the machine, a pool trades the
/// watchers' freshness for the writers' latency (README, "Watch priority").
pub const DEFAULT_NICE: i32 = 0;

use super::priority::lower_priority;
pub use super::priority::BACKGROUND_NICE;

/// Where watch streams are produced.
#[derive(Debug)]
pub struct Pool {
    /// None: on the caller's runtime, as any other task.
    runtime: Option<tokio::runtime::Runtime>,
}

impl Pool {
    /// A pool of one thread per core, each at `nice` (1 to 19) above the
    /// process's own; 0 (or less) produces watches on the caller's runtime.
    pub fn new(nice: i32) -> std::io::Result<Self> {
        if nice <= 0 {
            return Ok(Self::inline());
        }
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .thread_name("crdstore-watches")
            .on_thread_start(move || lower_priority(nice))
            .enable_all()
            .build()?;
        Ok(Self { runtime: Some(runtime) })
    }

    /// Watches produced on the caller's runtime.
    fn inline() -> Self {
        Self { runtime: None }
    }

    /// `events`, produced on the pool: the same events in the same order,
    /// ending where `events` ends. Dropping the returned stream ends the
    /// production (and drops `events`) at once, even while it waits for
    /// the next event.
    pub fn forward(&self, events: WatchStream) -> WatchStream {
        let Some(runtime) = &self.runtime else { return events };
        let (tx, rx) = mpsc::channel(BATCHES);
        runtime.spawn(async move {
            let mut batches = Box::pin(super::batch::ready(events, BATCH_EVENTS, BATCH_BYTES, size));
            loop {
                tokio::select! {
                    biased;
                    _ = tx.closed() => break,
                    batch = batches.next() => {
                        let Some(batch) = batch else { break };
                        if tx.send(batch).await.is_err() {
                            break;
                        }
                    }
                }
            }
        });
        ReceiverStream::new(rx).flat_map(futures::stream::iter).boxed()
    }

    /// Runs `work` on one of the pool's threads (the caller's runtime when
    /// inline) and answers what it returns: for tests.
    #[cfg(test)]
    async fn run<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> T {
        match &self.runtime {
            Some(runtime) => runtime.spawn(async move { work() }).await.expect("pool task"),
            None => work(),
        }
    }
}

impl Drop for Pool {
    /// Drops the runtime without waiting for its tasks (each ends with its
    /// watch, which the server's stop has already ended), as a runtime may
    /// be dropped inside another's task.
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// An event's bytes in a batch. Its JSON is serialized here, on the pool's
/// thread (every transport but tables sends it, and shares it).
fn size(event: &Result<WatchEvent>) -> usize {
    event.as_ref().map_or(0, |e| e.object.json().len())
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    use futures::stream;
    use serde_json::json;

    use super::*;
    use crate::error::Error;
    use crate::watch::stream::{EventType, Rendered, WatchEvent};

    fn event(name: &str) -> WatchEvent {
        WatchEvent { kind: EventType::Added, object: Rendered::new(json!({"metadata": {"name": name}})) }
    }

    fn names(events: &[crate::error::Result<WatchEvent>]) -> Vec<String> {
        events
            .iter()
            .map(|e| match e {
                Ok(e) => e.object.value["metadata"]["name"].as_str().unwrap_or_default().to_string(),
                Err(err) => format!("error: {}", err.message),
            })
            .collect()
    }

    /// Sets its flag when dropped.
    struct Dropped(Arc<AtomicBool>);

    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    #[tokio::test]
    async fn a_forwarded_watch_has_the_same_events_in_order_and_ends_with_its_source() {
        for pool in [Pool::new(BACKGROUND_NICE).unwrap(), Pool::inline()] {
            // More than a batch, and an error that ends the stream.
            let mut source: Vec<_> = (0..BATCH_EVENTS * 3 + 7).map(|i| Ok(event(&format!("w{i}")))).collect();
            source.push(Err(Error::internal("the end")));
            let expected = names(&source);
            let forwarded: Vec<_> = pool.forward(stream::iter(source).boxed()).collect().await;
            assert_eq!(names(&forwarded), expected);
        }
    }

    #[tokio::test]
    async fn dropping_a_forwarded_watch_drops_its_source_even_while_it_waits() {
        let pool = Pool::new(BACKGROUND_NICE).unwrap();
        let dropped = Arc::new(AtomicBool::new(false));
        let guard = Dropped(dropped.clone());
        // One event, then nothing ever again: the producer waits on it.
        let source = stream::once(async { Ok(event("w0")) })
            .chain(stream::pending().map(move |e| {
                let _guard = &guard;
                e
            }))
            .boxed();
        let mut forwarded = pool.forward(source);
        assert_eq!(names(&[forwarded.next().await.expect("an event")]), ["w0"]);
        assert!(!dropped.load(Ordering::SeqCst), "the source lives while the watch does");
        drop(forwarded);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while !dropped.load(Ordering::SeqCst) {
            assert!(tokio::time::Instant::now() < deadline, "the source was not dropped");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    #[tokio::test]
    async fn the_pools_threads_run_below_the_process_priority() {
        let own = rustix::process::getpriority_process(Some(rustix::thread::gettid())).unwrap();
        let nice = |pool: Pool| async move {
            pool.run(|| rustix::process::getpriority_process(Some(rustix::thread::gettid())).unwrap()).await
        };
        assert_eq!(nice(Pool::new(5).unwrap()).await, (own + 5).min(19));
        assert_eq!(nice(Pool::new(BACKGROUND_NICE).unwrap()).await, (own + BACKGROUND_NICE).min(19));
        assert_eq!(nice(Pool::new(DEFAULT_NICE).unwrap()).await, own, "the default is the caller's runtime");
        assert_eq!(nice(Pool::new(0).unwrap()).await, own, "0 is the caller's runtime");
    }
}
