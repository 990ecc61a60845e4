//! A watch stream counted as the apiserver counts it: one of
//! `apiserver_registered_watchers` while it is open, and each event it
//! delivers in `apiserver_watch_events_total`, both by group, version and
//! kind. Events are added to the counter in runs (whenever the stream has
//! nothing more ready, and at its end), not one by one: a thousand
//! watchers of a busy collection would otherwise look up the same
//! attribute set a million times a second.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;
use opentelemetry::KeyValue;

use super::stream::{WatchEvent, WatchStream};
use crate::error::Result;
use crate::metrics;

/// Events counted at once at most, so a stream that is always ready still
/// shows in the counter.
const RUN: u64 = 256;

struct Metered {
    inner: WatchStream,
    labels: [KeyValue; 3],
    /// Events delivered and not yet added to the counter.
    uncounted: u64,
}

impl Metered {
    fn count(&mut self) {
        if self.uncounted > 0 {
            metrics::get().watch_events.add(std::mem::take(&mut self.uncounted), &self.labels);
        }
    }
}

/// `stream`, counted under `group`, `version` and `kind`.
pub fn metered(stream: WatchStream, group: &str, version: &str, kind: &str) -> WatchStream {
    let labels = [
        KeyValue::new("group", group.to_string()),
        KeyValue::new("version", version.to_string()),
        KeyValue::new("kind", kind.to_string()),
    ];
    metrics::get().registered_watchers.add(1, &labels);
    Box::pin(Metered { inner: stream, labels, uncounted: 0 })
}

impl Stream for Metered {
    type Item = Result<WatchEvent>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let polled = self.inner.as_mut().poll_next(cx);
        match &polled {
            Poll::Ready(Some(Ok(_))) => {
                self.uncounted += 1;
                if self.uncounted >= RUN {
                    self.count();
                }
            }
            _ => self.count(),
        }
        polled
    }
}

impl Drop for Metered {
    fn drop(&mut self) {
        self.count();
        metrics::get().registered_watchers.add(-1, &self.labels);
    }
}
