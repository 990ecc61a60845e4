//! `?watch=true`: a chunked stream of `{"type": ..., "object": ...}` lines.
//! A revision too old to watch from is one ERROR event carrying a 410
//! Status, as Kubernetes sends it; so is an error that ends a stream.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::header::CONTENT_TYPE;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::{json, Value};
use tokio::sync::OwnedSemaphorePermit;

use super::codec::failure;
use super::status::status_object;
use crate::error::{Error, Reason, Result};
use crate::resource::served::Served;
use crate::resource::table::{definitions_table, table};
use crate::watch::stream::{EventType, WatchEvent, WatchStream};

fn type_name(kind: EventType) -> &'static str {
    match kind {
        EventType::Added => "ADDED",
        EventType::Modified => "MODIFIED",
        EventType::Deleted => "DELETED",
        EventType::Bookmark => "BOOKMARK",
    }
}

/// Renders a watched object as a one-row Table, for clients that asked for tables.
pub type Tabulate = Box<dyn Fn(&Value) -> Value + Send + Sync>;

/// Tables of a resource's objects at `version`.
pub fn resource_tables(served: Arc<Served>, version: String) -> Tabulate {
    Box::new(move |object| table(&served, &version, std::slice::from_ref(object), None, jiff::Timestamp::now()))
}

/// Tables of definitions.
pub fn definition_tables() -> Tabulate {
    Box::new(|object| definitions_table(std::slice::from_ref(object), None, jiff::Timestamp::now()))
}

fn line(event: &WatchEvent, tabulate: Option<&Tabulate>) -> Bytes {
    let mut out = Vec::with_capacity(event.object.json().len() + 32);
    out.extend_from_slice(format!("{{\"type\":\"{}\",\"object\":", type_name(event.kind)).as_bytes());
    match tabulate {
        Some(tabulate) if event.kind != EventType::Bookmark => {
            let rows = tabulate(&event.object.value);
            out.extend_from_slice(&serde_json::to_vec(&rows).expect("JSON values serialize"));
        }
        _ => out.extend_from_slice(event.object.json()),
    }
    out.extend_from_slice(b"}\n");
    Bytes::from(out)
}

fn error_line(err: &Error) -> Bytes {
    let event = json!({"type": "ERROR", "object": status_object(err)});
    let mut out = serde_json::to_vec(&event).expect("JSON values serialize");
    out.push(b'\n');
    Bytes::from(out)
}

/// The response for a watch: its events as they come, as tables when
/// `tabulate` is set. The stream holds its watch `slot` until it ends.
pub fn stream(events: Result<WatchStream>, tabulate: Option<Tabulate>, slot: OwnedSemaphorePermit) -> Response {
    let body = match events {
        Ok(events) => Body::from_stream(events.scan(false, move |ended, item| {
            let _slot = &slot;
            if *ended {
                return futures::future::ready(None);
            }
            let chunk = match item {
                Ok(event) => line(&event, tabulate.as_ref()),
                Err(err) => {
                    *ended = true;
                    error_line(&err)
                }
            };
            futures::future::ready(Some(Ok::<_, std::convert::Infallible>(chunk)))
        })),
        Err(err) if err.reason == Reason::Expired => Body::from(error_line(&err)),
        Err(err) => return failure(&err),
    };
    (StatusCode::OK, [(CONTENT_TYPE, "application/json")], body).into_response()
}
