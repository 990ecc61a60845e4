//! A watch stream counted as the apiserver counts it: one of
//! `apiserver_registered_watchers` while it is open, and each event it
//! delivers in `apiserver_watch_events_total`, both by group, version and
//! kind.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;
use opentelemetry::KeyValue;

use super::stream::{WatchEvent, WatchStream};
use crate::error::Result;
use crate::metrics;

struct Metered {
    inner: WatchStream,
    labels: [KeyValue; 3],
}

/// `stream`, counted under `group`, `version` and `kind`.
pub fn metered(stream: WatchStream, group: &str, version: &str, kind: &str) -> WatchStream {
    let labels = [
        KeyValue::new("group", group.to_string()),
        KeyValue::new("version", version.to_string()),
        KeyValue::new("kind", kind.to_string()),
    ];
    metrics::get().registered_watchers.add(1, &labels);
    Box::pin(Metered { inner: stream, labels })
}

impl Stream for Metered {
    type Item = Result<WatchEvent>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let polled = self.inner.as_mut().poll_next(cx);
        if let Poll::Ready(Some(Ok(_))) = &polled {
            metrics::get().watch_events.add(1, &self.labels);
        }
        polled
    }
}

impl Drop for Metered {
    fn drop(&mut self) {
        metrics::get().registered_watchers.add(-1, &self.labels);
    }
}
