//! The watch checker: sixteen writers change widgets without pause while
//! probes list the collection, then watch it from the list's
//! resourceVersion, over gRPC and over HTTP (and some watch from a write's
//! answer). Every write of the test goes to
//! that one collection (the definition is written before the probes start),
//! so every revision after the list's is one of its events: each probe must
//! see exactly rv+1, rv+2, ... — no gap, no duplicate, no reordering.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crdstore::pb::v1 as pb;
use serde_json::{json, Value};

use crate::support::{self, create_widget, patch_widget, register_widgets, widget, widgets, TestServer, WAIT};

const WRITERS: usize = 16;
/// Probes running at once on each transport.
const PROBERS: usize = 8;
/// Probes each prober makes at most.
const PROBES: usize = 120;
/// Events each probe checks.
const EVENTS: usize = 6;
/// Probing stops after this, however many probes were made.
const BUDGET: Duration = Duration::from_secs(12);
const COLLECTION: &str = "/apis/example.com/v1/namespaces/default/widgets";

fn revision_of(obj: &Value) -> i64 {
    obj["metadata"]["resourceVersion"].as_str().and_then(|rv| rv.parse().ok()).expect("a numeric resourceVersion")
}

/// What one probe saw wrong: the list's revision and the revisions that
/// followed it.
type Miss = (i64, Vec<i64>);

/// Checks the revisions a probe saw after `rv`.
fn check(rv: i64, seen: Vec<i64>) -> Option<Miss> {
    let expected: Vec<i64> = (1..=seen.len() as i64).map(|i| rv + i).collect();
    (seen != expected || seen.len() < EVENTS).then_some((rv, seen))
}

/// Watches over gRPC from `rv` and checks the next events.
async fn grpc_watch_from(r: &mut support::Resources, rv: i64) -> Option<Miss> {
    let options = pb::WatchOptions { resource_version: rv.to_string(), ..Default::default() };
    let request = pb::WatchResourcesRequest { r#ref: Some(widgets("default", "")), options: Some(options) };
    let mut stream = r.watch(request).await.expect("watch").into_inner();
    let mut seen = Vec::new();
    while seen.len() < EVENTS {
        let event = tokio::time::timeout(WAIT, stream.message()).await.expect("events in time").expect("watch open");
        let Some(event) = event else { break };
        if event.r#type() != pb::EventType::Bookmark {
            seen.push(revision_of(&support::parse(&event.object)));
        }
    }
    check(rv, seen)
}

async fn grpc_probe(r: &mut support::Resources) -> Option<Miss> {
    let listed = r
        .list(pb::ListResourcesRequest { r#ref: Some(widgets("default", "")), options: None })
        .await
        .expect("list")
        .into_inner();
    let rv: i64 = listed.resource_version.parse().expect("list revision");
    grpc_watch_from(r, rv).await
}

/// A write, then a watch from the write's answer.
async fn grpc_write_probe(r: &mut support::Resources, name: &str, n: u64) -> Option<Miss> {
    let patch = format!(r#"{{"spec": {{"p": {n}}}}}"#);
    let written = patch_widget(r, "default", name, pb::PatchType::Merge, &patch).await.unwrap();
    let rv = revision_of(&written);
    grpc_watch_from(r, rv).await
}

async fn http_probe(client: &reqwest::Client, base: &str) -> Option<Miss> {
    let listed: Value = client.get(format!("{base}{COLLECTION}")).send().await.unwrap().json().await.unwrap();
    let rv = revision_of(&listed);
    let mut response =
        client.get(format!("{base}{COLLECTION}?watch=true&resourceVersion={rv}")).send().await.expect("watch");
    assert_eq!(response.status(), reqwest::StatusCode::OK);
    let (mut buffer, mut seen) = (Vec::new(), Vec::new());
    while seen.len() < EVENTS {
        let chunk = tokio::time::timeout(WAIT, response.chunk()).await.expect("events in time").expect("watch open");
        let Some(chunk) = chunk else { break };
        buffer.extend_from_slice(&chunk);
        while let Some(end) = buffer.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buffer.drain(..=end).collect();
            let event: Value = serde_json::from_slice(&line).expect("one JSON event per line");
            assert_ne!(event["type"], "ERROR", "{event}");
            if event["type"] != "BOOKMARK" && seen.len() < EVENTS {
                seen.push(revision_of(&event["object"]));
            }
        }
    }
    check(rv, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_list_then_watch_sees_exactly_the_revisions_after_the_list() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let stop = Arc::new(AtomicBool::new(false));
    let mut writers = Vec::new();
    for i in 0..WRITERS {
        let mut r = t.resources().await;
        let stop = stop.clone();
        writers.push(tokio::spawn(async move {
            let name = format!("w{i}");
            create_widget(&mut r, "default", &widget(&name, json!({"n": 0}))).await.unwrap();
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let patch = format!(r#"{{"spec": {{"n": {n}}}}}"#);
                patch_widget(&mut r, "default", &name, pb::PatchType::Merge, &patch).await.unwrap();
            }
            n
        }));
    }
    let deadline = tokio::time::Instant::now() + BUDGET;
    let base = format!("http://{}", t.server().http_addr);
    let mut probers = Vec::new();
    for p in 0..PROBERS * 2 {
        let mut r = t.resources().await;
        let probe_name = format!("p{p}");
        if p % 4 == 2 {
            create_widget(&mut r, "default", &widget(&probe_name, json!({}))).await.unwrap();
        }
        let (client, base) = (reqwest::Client::new(), base.clone());
        probers.push(tokio::spawn(async move {
            let (mut made, mut misses) = (0, Vec::new());
            while made < PROBES && tokio::time::Instant::now() < deadline {
                let miss = match p % 4 {
                    0 => grpc_probe(&mut r).await,
                    2 => grpc_write_probe(&mut r, &probe_name, made as u64).await,
                    _ => http_probe(&client, &base).await,
                };
                made += 1;
                misses.extend(miss.map(|m| (if p % 2 == 0 { "gRPC" } else { "HTTP" }, m)));
            }
            (made, misses)
        }));
    }
    let (mut probes, mut misses) = (0, Vec::new());
    for prober in probers {
        let (made, missed) = prober.await.unwrap();
        probes += made;
        misses.extend(missed);
    }
    stop.store(true, Ordering::Relaxed);
    let mut writes = 0;
    for writer in writers {
        writes += writer.await.unwrap();
    }
    eprintln!("watch checker: {probes} probes, {} missed, {writes} writes", misses.len());
    assert!(writes > 0 && probes >= PROBERS * 2, "the check ran: {probes} probes, {writes} writes");
    assert!(
        misses.is_empty(),
        "{} of {probes} probes did not see exactly the revisions after the list (list rv, revisions seen): {:?}",
        misses.len(),
        &misses[..misses.len().min(10)]
    );
    let mut r = t.resources().await;
    let listed = r
        .list(pb::ListResourcesRequest { r#ref: Some(widgets("default", "")), options: None })
        .await
        .expect("the server still serves")
        .into_inner();
    assert_eq!(listed.items.len(), WRITERS + PROBERS / 2, "one object per writer and per writing prober");
}
