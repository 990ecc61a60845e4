//! The events' time-to-live (kube-apiserver's `--event-ttl`, one hour by
//! default): a background sweep deletes, through the ordinary delete, every
//! event written longer ago than the TTL. It reads a page at a time, so a
//! sweep is bounded, and it starts from the store, so it resumes after a
//! restart.

use std::sync::Arc;
use std::time::Duration;

use super::event::last_written;
use crate::apimachinery::meta;
use crate::apimachinery::options::{DeleteOptions, ListOptions};
use crate::error::Reason;
use crate::resource::{Ref, Resources};
use crate::watch::stream::until_stopped;

/// Kubernetes' default `--event-ttl`.
pub const DEFAULT_TTL: Duration = Duration::from_secs(3600);
/// Events read per page of a sweep.
const PAGE: i64 = 500;

/// How often the sweep runs for a TTL: half of it, within 1 s and 1 min.
pub fn period(ttl: Duration) -> Duration {
    (ttl / 2).clamp(Duration::from_secs(1), Duration::from_secs(60))
}

/// Runs until the server stops.
pub async fn run(resources: Arc<Resources>, ttl: Duration, stopped: tokio::sync::watch::Receiver<bool>) {
    let stop = until_stopped(stopped);
    tokio::pin!(stop);
    loop {
        // Both APIs serve the same stored events: one sweep covers both.
        let r = Ref { group: String::new(), version: "v1".into(), resource: "events".into(), ..Ref::default() };
        if let Err(err) = sweep(&resources, &r, ttl).await {
            tracing::warn!(error = %err, "event sweep failed; will retry");
        }
        tokio::select! {
            _ = &mut stop => return,
            _ = tokio::time::sleep(period(ttl)) => {}
        }
    }
}

/// Deletes every expired event of one API; the number deleted.
pub async fn sweep(resources: &Resources, r: &Ref, ttl: Duration) -> crate::error::Result<usize> {
    let cutoff = jiff::Timestamp::now() - jiff::SignedDuration::try_from(ttl).unwrap_or(jiff::SignedDuration::MAX);
    let mut options = ListOptions { limit: PAGE, ..ListOptions::default() };
    let mut deleted = 0;
    loop {
        let page = resources.list(r, &options).await?;
        for event in &page.items {
            if last_written(event).is_none_or(|t| t > cutoff) {
                continue;
            }
            let one = Ref {
                namespace: meta::meta_str(event, "namespace").into(),
                name: meta::meta_str(event, "name").into(),
                ..r.clone()
            };
            let uid = meta::meta_str(event, "uid").to_string();
            match resources.delete(&one, &DeleteOptions { precondition_uid: uid, ..DeleteOptions::default() }).await {
                Ok(_) => deleted += 1,
                Err(err) if matches!(err.reason, Reason::NotFound | Reason::Conflict) => {}
                Err(err) => return Err(err),
            }
        }
        if page.continue_token.is_empty() {
            return Ok(deleted);
        }
        options.continue_token = page.continue_token;
    }
}
