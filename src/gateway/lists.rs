//! A list answered as JSON while its items render: the envelope first,
//! then the items in chunks, each rendered on a blocking thread (two at a
//! time, so both cores render while the socket takes the last), as
//! Kubernetes streams a list since its `StreamingCollectionEncodingToJSON`.
//! The first chunk renders before the answer starts, so an error there is
//! an ordinary `Status`; an error in a later chunk can only cut the body
//! short, which the client sees as a broken response.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::header::CONTENT_TYPE;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use futures::{stream, StreamExt};
use serde_json::{json, Value};

use super::codec::{failure, respond_json};
use crate::error::{Error, Result};
use crate::resource::{JsonItems, JsonPage};
use crate::storage::Revision;

/// Items per chunk of a streamed list: about half a megabyte of 1 KB
/// objects, and what a list shorter than it is sent in one piece.
const CHUNK: usize = 500;

/// A list's `metadata`.
pub fn metadata(revision: Revision, continue_token: &str, remaining: Option<i64>) -> Value {
    let mut metadata = json!({"resourceVersion": revision.to_string()});
    if !continue_token.is_empty() {
        metadata["continue"] = json!(continue_token);
    }
    if let Some(remaining) = remaining.filter(|n| *n > 0) {
        metadata["remainingItemCount"] = json!(remaining);
    }
    metadata
}

/// The list `page` of `kind` at `api_version`, as JSON: byte for byte what
/// serialising the list of its parsed items gives.
pub async fn respond(api_version: &str, kind: &str, page: JsonPage) -> Response {
    let head = json!({"apiVersion": api_version, "kind": kind,
                      "metadata": metadata(page.revision, &page.continue_token, page.remaining)});
    let mut head = serde_json::to_vec(&head).expect("JSON values serialize");
    head.pop(); // the closing brace
    head.extend_from_slice(br#","items":["#);
    const TAIL: &[u8] = b"]}";
    let items = Arc::new(page.items);
    let count = items.len();
    if count <= CHUNK {
        // Short enough to render here, and to send in one piece.
        return match items.render(0..count) {
            Ok(all) => {
                head.extend_from_slice(&all);
                head.extend_from_slice(TAIL);
                respond_json(StatusCode::OK, head)
            }
            Err(e) => failure(&e),
        };
    }
    let first = match render(&items, 0, count).await {
        Ok(first) => first,
        Err(e) => return failure(&e),
    };
    let rest = (CHUNK..count).step_by(CHUNK).map(move |start| {
        let items = items.clone();
        async move { render(&items, start, count).await }
    });
    let body = stream::iter([Ok(Bytes::from(head)), Ok(Bytes::from(first))])
        .chain(stream::iter(rest).buffered(2).map(|chunk| {
            chunk.map(Bytes::from).map_err(|e| {
                tracing::error!(error = %e, "a list's answer was cut short: an item could not be rendered");
                std::io::Error::other(e.to_string())
            })
        }))
        .chain(stream::iter([Ok(Bytes::from_static(TAIL))]));
    (StatusCode::OK, [(CONTENT_TYPE, "application/json")], Body::from_stream(body)).into_response()
}

/// The chunk of `items` from `start`, on a blocking thread.
async fn render(items: &Arc<JsonItems>, start: usize, count: usize) -> Result<Vec<u8>> {
    let (items, end) = (items.clone(), (start + CHUNK).min(count));
    tokio::task::spawn_blocking(move || items.render(start..end))
        .await
        .map_err(|e| Error::internal(format!("rendering a list failed: {e}")))?
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::apimachinery::options::{ListOptions, WriteOptions};
    use crate::resource::testing::Stack;
    use crate::resource::{Ref, Resources};
    use crate::storage::{keys, Op};

    fn widgets(name: &str) -> Ref {
        Ref::new("example.com", "v1", "widgets", "default", name)
    }

    /// Widgets w0000 to w1099, and a store to write behind their back.
    async fn filled() -> Stack {
        let schema = json!({"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}});
        let stack = Stack::start();
        stack
            .define(&json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": {"name": "widgets.example.com"},
                "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                         "versions": [{"name": "v1", "served": true, "storage": true, "schema": schema}]}}))
            .await;
        let resources = &stack.resources;
        let writers = (0..16).map(|writer| {
            let resources = resources.clone();
            tokio::spawn(async move {
                for i in (writer..1100).step_by(16) {
                    let obj = json!({"apiVersion": "example.com/v1", "kind": "Widget",
                                     "metadata": {"name": format!("w{i:04}")}, "spec": {"n": i}});
                    let body = serde_json::to_vec(&obj).unwrap();
                    resources.create(&widgets(""), &body, &WriteOptions::default()).await.unwrap();
                }
            })
        });
        for writer in writers.collect::<Vec<_>>() {
            writer.await.unwrap();
        }
        stack
    }

    async fn answer(resources: &Resources) -> (StatusCode, std::result::Result<Bytes, axum::Error>) {
        let page = resources.list_json_lazy(&widgets(""), &ListOptions::default()).await.unwrap();
        let response = respond("example.com/v1", "WidgetList", page).await;
        let status = response.status();
        (status, axum::body::to_bytes(response.into_body(), usize::MAX).await)
    }

    #[tokio::test]
    async fn a_streamed_list_is_the_whole_list_and_an_item_that_fails_cuts_it_short_or_fails_it() {
        let stack = filled().await;
        let (resources, store) = (&stack.resources, &stack.store);
        let (status, body) = answer(resources).await;
        let list: Value = serde_json::from_slice(&body.unwrap()).unwrap();
        assert_eq!(status, StatusCode::OK);
        let names: Vec<String> =
            list["items"].as_array().unwrap().iter().map(|o| o["metadata"]["name"].to_string()).collect();
        let expected: Vec<String> = (0..1100).map(|i| format!("\"w{i:04}\"")).collect();
        assert_eq!(names, expected, "every item, in order, across three chunks");
        let whole = resources.list(&widgets(""), &ListOptions::default()).await.unwrap();
        assert_eq!(list["items"], json!(whole.items), "the same objects the Value path lists");
        assert_eq!(list["metadata"]["resourceVersion"], whole.revision.to_string());

        // Bytes that are not an object, in the second chunk: the answer
        // has started, so its body breaks off.
        let broken = keys::resource_key("example.com", "widgets", "default", "w0700a");
        store.commit(vec![Op::create(broken, b"not json".to_vec())]).await.unwrap();
        let (status, body) = answer(resources).await;
        assert_eq!(status, StatusCode::OK);
        assert!(body.is_err(), "the body is cut short, not ended as if whole");

        // In the first chunk: a Status, before anything is sent.
        let broken = keys::resource_key("example.com", "widgets", "default", "w0001a");
        store.commit(vec![Op::create(broken, b"not json".to_vec())]).await.unwrap();
        let (status, body) = answer(resources).await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        let failed: Value = serde_json::from_slice(&body.unwrap()).unwrap();
        assert_eq!(failed["kind"], "Status", "{failed}");
    }
}
