//! Requests too heavy for the async workers: a write whose body is over
//! [`HEAVY_BYTES`] (a 1.8 MiB merge patch: parsing, merging, validating,
//! pruning and encoding it hold a thread for hundreds of milliseconds) runs
//! on a runtime of its own, with one thread per two cores, so the workers
//! that answer `/healthz` and small requests are never all held by it. The
//! operating system shares the cores between both runtimes' threads; heavy
//! writes beyond the pool's threads wait their turn there, not on the
//! workers.

use std::future::Future;
use std::sync::LazyLock;

use tracing::Instrument;

use crate::error::{Error, Result};

/// The body size from which a write runs on the heavy pool.
pub const HEAVY_BYTES: usize = 256 * 1024;

static POOL: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads((cores / 2).max(1))
        .thread_name("crdstore-heavy")
        .enable_all()
        .build()
        .expect("the heavy pool's runtime starts")
});

/// Runs `work`, a request with a body of `bytes`, on the heavy pool when
/// the body is over [`HEAVY_BYTES`], else where it is.
pub async fn run<T, F>(bytes: usize, work: F) -> Result<T>
where
    T: Send + 'static,
    F: Future<Output = Result<T>> + Send + 'static,
{
    if bytes <= HEAVY_BYTES {
        return work.await;
    }
    POOL.spawn(work.instrument(tracing::Span::current()))
        .await
        .map_err(|e| Error::internal(format!("the request failed: {e}")))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn heavy_work_runs_on_the_pool_and_light_work_where_it_is() {
        let name = || std::thread::current().name().map(str::to_string);
        let here = name();
        assert_eq!(run(10, async move { Ok(name()) }).await.unwrap(), here);
        let heavy = run(HEAVY_BYTES + 1, async move { Ok(name()) }).await.unwrap();
        assert_eq!(heavy.as_deref(), Some("crdstore-heavy"));
        let err = run(HEAVY_BYTES + 1, async { Err::<(), _>(Error::bad_request("no")) }).await.unwrap_err();
        assert_eq!(err.message, "no");
    }
}
