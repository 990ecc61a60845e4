//! `?watch=true`: a chunked stream of `{"type": ..., "object": ...}` lines.
//! A revision too old to watch from is one ERROR event carrying a 410
//! Status, as Kubernetes sends it; so is an error that ends a stream.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::header::CONTENT_TYPE;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use bytes::BytesMut;
use futures::StreamExt;
use serde_json::{json, Value};
use tokio::sync::OwnedSemaphorePermit;

use super::codec::failure;
use super::status::status_object;
use crate::error::{Error, Reason, Result};
use crate::resource::served::Served;
use crate::resource::table::{table, Shape};
use crate::watch::render::Format;
use crate::watch::stream::{EventType, WatchEvent, WatchStream};

/// Renders a watched object as a one-row Table, for clients that asked for tables.
pub type Tabulate = Box<dyn Fn(&Value) -> Value + Send + Sync>;

/// Tables of a resource's objects at `version`.
pub fn resource_tables(served: Arc<Served>, version: String, shape: Shape) -> Tabulate {
    Box::new(move |object| table(&served, &version, std::slice::from_ref(object), None, jiff::Timestamp::now(), shape))
}

/// An event's line. Without tables it is the object's shared JSON-line
/// frame, framed once for every watcher of the event; a table is per watch
/// (its columns are the watch's own).
fn line(event: &WatchEvent, tabulate: Option<&Tabulate>) -> Bytes {
    match tabulate {
        Some(tabulate) if event.kind != EventType::Bookmark => {
            let rows = serde_json::to_vec(&tabulate(&event.object.value)).expect("JSON values serialize");
            frame(event.kind, &rows)
        }
        _ => event.object.frame(Format::JsonLine, event.kind, |object| frame(event.kind, object.json())),
    }
}

fn frame(kind: EventType, object: &[u8]) -> Bytes {
    let kind = kind.as_str();
    let mut out = BytesMut::with_capacity(object.len() + kind.len() + 24);
    out.extend_from_slice(b"{\"type\":\"");
    out.extend_from_slice(kind.as_bytes());
    out.extend_from_slice(b"\",\"object\":");
    out.extend_from_slice(object);
    out.extend_from_slice(b"}\n");
    out.freeze()
}

/// Events written at once at most: what is ready goes out in one chunk, so
/// a batch of changes costs a watcher one write, not one per event.
const CHUNK_EVENTS: usize = 256;
/// And bytes in a chunk, about: a chunk stops growing once past this (a
/// line longer than it goes alone, shared, not copied). The body is pulled
/// by hyper as the socket drains, so an unread watch holds a chunk and
/// hyper's write buffer, never its whole initial list.
const CHUNK_BYTES: usize = 64 * 1024;

fn error_line(err: &Error) -> Bytes {
    let event = json!({"type": "ERROR", "object": status_object(err)});
    let mut out = serde_json::to_vec(&event).expect("JSON values serialize");
    out.push(b'\n');
    Bytes::from(out)
}

/// The response for a watch: its events as they come, as tables when
/// `tabulate` is set, in chunks of what is ready (up to `CHUNK_EVENTS`
/// lines and about `CHUNK_BYTES`), made only when hyper asks for the next;
/// the first error is the last line. The stream holds its watch `slot`
/// until it ends.
pub fn stream(events: Result<WatchStream>, tabulate: Option<Tabulate>, slot: OwnedSemaphorePermit) -> Response {
    let events = match events {
        Ok(events) => events,
        Err(err) if err.reason == Reason::Expired => {
            return (StatusCode::OK, [(CONTENT_TYPE, "application/json")], Body::from(error_line(&err))).into_response()
        }
        Err(err) => return failure(&err),
    };
    // Each event's line; an error's is the last, and nothing is read after it.
    let lines = futures::stream::unfold((events, tabulate, false), |(mut events, tabulate, ended)| async move {
        if ended {
            return None;
        }
        let (line, ended) = match events.next().await? {
            Ok(event) => (line(&event, tabulate.as_ref()), false),
            Err(err) => (error_line(&err), true),
        };
        Some((line, (events, tabulate, ended)))
    });
    let chunks = crate::watch::batch::ready(Box::pin(lines), CHUNK_EVENTS, CHUNK_BYTES, Bytes::len).map(move |lines| {
        let _slot = &slot;
        Ok::<_, std::convert::Infallible>(join(lines))
    });
    (StatusCode::OK, [(CONTENT_TYPE, "application/json")], Body::from_stream(chunks)).into_response()
}

/// The lines as one chunk: a single line as it is (shared, not copied).
fn join(mut lines: Vec<Bytes>) -> Bytes {
    if lines.len() == 1 {
        return lines.pop().expect("one line");
    }
    let mut out = BytesMut::with_capacity(lines.iter().map(Bytes::len).sum());
    for line in &lines {
        out.extend_from_slice(line);
    }
    out.freeze()
}
