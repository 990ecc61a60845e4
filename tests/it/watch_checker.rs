//! The watch checker: sixteen writers change widgets without pause while a
//! thousand watchers stay open on the same collection (as informers and
//! `kubectl get -w` would: most with a label selector nothing matches, some
//! reading every event), and probes list the collection, then watch it from
//! the list's resourceVersion, or write, then watch from the write's
//! answer, over gRPC and over HTTP. Every write of the test goes to that one
//! collection (the definition is written before the probes start), so every
//! revision after the probe's is one of its events: each probe must see
//! exactly rv+1, rv+2, ... — no gap, no duplicate, no reordering.
//!
//! The open watchers are what make the check bite: each committed batch
//! wakes all of them, so the store's publishing to watchers runs behind its
//! answers to readers and writers, as in a loaded server. A store that lets
//! a revision be read or answered before it is watchable loses events for a
//! watch started from it in that window (a watch from a revision inside a
//! batch the watchers have not been sent yet). The server runs on a runtime
//! of its own, as a separate process would, so the probes' round trips do
//! not queue behind the server's own work; a writing probe writes several
//! objects at once and watches from the first answer, which is then inside a
//! batch, as soon as it comes.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crdstore::pb::v1 as pb;
use serde_json::{json, Value};

use crate::support::{self, create_widget, patch_widget, register_widgets, widget, widgets, TestServer, WAIT};

const WRITERS: usize = 16;
/// Watchers open on the collection while probing (with the probes' own,
/// under the server's default limit of open watches).
const WATCHERS: usize = 960;
/// Every this many watchers, one reads every event; the rest select nothing.
const CONSUMING_EVERY: usize = 8;
/// gRPC watch streams per connection.
const STREAMS_PER_CHANNEL: usize = 96;
/// Probes running at once on each transport.
const PROBERS: usize = 8;
/// Probes each prober makes at most.
const PROBES: usize = 150;
/// Writes a writing probe makes at once.
const AT_ONCE: usize = 4;
/// Events each probe checks.
const EVENTS: usize = 6;
/// Probing stops after this, however many probes were made.
const BUDGET: Duration = Duration::from_secs(12);
const COLLECTION: &str = "/apis/example.com/v1/namespaces/default/widgets";

fn revision_of(obj: &Value) -> i64 {
    obj["metadata"]["resourceVersion"].as_str().and_then(|rv| rv.parse().ok()).expect("a numeric resourceVersion")
}

/// What one probe saw wrong: how it started, its revision and the revisions
/// that followed it.
type Miss = (&'static str, i64, Vec<i64>);

/// Checks the revisions a probe saw after `rv`.
fn check(how: &'static str, rv: i64, seen: Vec<i64>) -> Option<Miss> {
    let expected: Vec<i64> = (1..=seen.len() as i64).map(|i| rv + i).collect();
    (seen != expected || seen.len() < EVENTS).then_some((how, rv, seen))
}

fn watch_request(rv: &str, label_selector: &str) -> pb::WatchResourcesRequest {
    let options = pb::WatchOptions {
        resource_version: rv.to_string(),
        label_selector: label_selector.to_string(),
        ..Default::default()
    };
    pb::WatchResourcesRequest { r#ref: Some(widgets("default", "")), options: Some(options) }
}

/// Watches over gRPC from `rv` and checks the next events.
async fn grpc_watch_from(r: &mut support::Resources, how: &'static str, rv: i64) -> Option<Miss> {
    let mut stream = r.watch(watch_request(&rv.to_string(), "")).await.expect("watch").into_inner();
    let mut seen = Vec::new();
    while seen.len() < EVENTS {
        let event = tokio::time::timeout(WAIT, stream.message()).await.expect("events in time").expect("watch open");
        let Some(event) = event else { break };
        if event.r#type() != pb::EventType::Bookmark {
            seen.push(revision_of(&support::parse(&event.object)));
        }
    }
    check(how, rv, seen)
}

async fn grpc_list_probe(r: &mut support::Resources) -> Option<Miss> {
    let listed = r
        .list(pb::ListResourcesRequest { r#ref: Some(widgets("default", "")), options: None })
        .await
        .expect("list")
        .into_inner();
    let rv: i64 = listed.resource_version.parse().expect("list revision");
    grpc_watch_from(r, "gRPC list", rv).await
}

/// Writes to each of `names` at once (they tend to share a commit group),
/// then watches from the first answer, as soon as it comes: the other
/// writes are the events it must see next.
async fn grpc_write_probe(r: &support::Resources, names: &[String], n: usize) -> Option<Miss> {
    let mut writes = tokio::task::JoinSet::new();
    for name in names {
        let (mut r, name) = (r.clone(), name.clone());
        writes.spawn(async move {
            let patch = format!(r#"{{"spec": {{"p": {n}}}}}"#);
            revision_of(&patch_widget(&mut r, "default", &name, pb::PatchType::Merge, &patch).await.unwrap())
        });
    }
    let first = writes.join_next().await.expect("a write").expect("the write ran");
    let miss = grpc_watch_from(&mut r.clone(), "gRPC write", first).await;
    while let Some(write) = writes.join_next().await {
        write.expect("the write ran");
    }
    miss
}

/// Watches over HTTP from `rv` and checks the next events.
async fn http_watch_from(client: &reqwest::Client, base: &str, how: &'static str, rv: i64) -> Option<Miss> {
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
    check(how, rv, seen)
}

async fn http_list_probe(client: &reqwest::Client, base: &str) -> Option<Miss> {
    let listed: Value = client.get(format!("{base}{COLLECTION}")).send().await.unwrap().json().await.unwrap();
    http_watch_from(client, base, "HTTP list", revision_of(&listed)).await
}

/// As `grpc_write_probe`, over HTTP.
async fn http_write_probe(client: &reqwest::Client, base: &str, names: &[String], n: usize) -> Option<Miss> {
    let mut writes = tokio::task::JoinSet::new();
    for name in names {
        let (client, url) = (client.clone(), format!("{base}{COLLECTION}/{name}"));
        writes.spawn(async move {
            let response = client
                .patch(url)
                .header("content-type", "application/merge-patch+json")
                .body(format!(r#"{{"spec": {{"p": {n}}}}}"#))
                .send()
                .await
                .unwrap();
            let written: Value = response.error_for_status().unwrap().json().await.unwrap();
            revision_of(&written)
        });
    }
    let first = writes.join_next().await.expect("a write").expect("the write ran");
    let miss = http_watch_from(client, base, "HTTP write", first).await;
    while let Some(write) = writes.join_next().await {
        write.expect("the write ran");
    }
    miss
}

/// Worker threads of the server's runtime and of the clients'.
const SERVER_THREADS: usize = 2;
const CLIENT_THREADS: usize = 4;

#[test]
fn every_watch_sees_exactly_the_revisions_after_the_one_it_started_from() {
    let runtime = |threads| tokio::runtime::Builder::new_multi_thread().worker_threads(threads).enable_all().build();
    let (server, clients) = (runtime(SERVER_THREADS).unwrap(), runtime(CLIENT_THREADS).unwrap());
    let t = server.block_on(TestServer::start());
    let t = clients.block_on(check_watches(t));
    server.block_on(async move { drop(t) });
}

async fn check_watches(t: TestServer) -> TestServer {
    register_widgets(&t).await;
    let stop = Arc::new(AtomicBool::new(false));

    // The open watchers, before any write: those selecting nothing are held
    // open unread (the server still wakes each for every batch); the others
    // read every event until the probing is over.
    let started = std::time::Instant::now();
    let consumed = Arc::new(AtomicUsize::new(0));
    let mut opening = Vec::new();
    for first in (0..WATCHERS).step_by(STREAMS_PER_CHANNEL) {
        let mut r = t.resources().await;
        let (stop, consumed) = (stop.clone(), consumed.clone());
        opening.push(tokio::spawn(async move {
            let (mut idle, mut consumers) = (Vec::new(), Vec::new());
            for w in first..WATCHERS.min(first + STREAMS_PER_CHANNEL) {
                if w % CONSUMING_EVERY != 0 {
                    idle.push(r.watch(watch_request("", "checker=nothing")).await.expect("watch").into_inner());
                    continue;
                }
                let (mut r, stop, consumed) = (r.clone(), stop.clone(), consumed.clone());
                let mut stream = r.watch(watch_request("", "")).await.expect("watch").into_inner();
                consumers.push(tokio::spawn(async move {
                    while !stop.load(Ordering::Relaxed) {
                        match tokio::time::timeout(Duration::from_millis(200), stream.message()).await {
                            Ok(Ok(Some(_))) => {
                                consumed.fetch_add(1, Ordering::Relaxed);
                            }
                            // Ended (cut off as too slow, say): watch again,
                            // as an informer would.
                            Ok(_) => stream = r.watch(watch_request("", "")).await.expect("watch").into_inner(),
                            Err(_) => {}
                        }
                    }
                }));
            }
            (idle, consumers)
        }));
    }
    let (mut idle, mut consumers) = (Vec::new(), Vec::new());
    for opened in opening {
        let (i, c) = opened.await.unwrap();
        idle.extend(i);
        consumers.extend(c);
    }
    eprintln!("watch checker: {} watchers open in {:?}", idle.len() + consumers.len(), started.elapsed());

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
        let names: Vec<String> =
            if p % 4 >= 2 { (0..AT_ONCE).map(|k| format!("p{p}-{k}")).collect() } else { Vec::new() };
        for name in &names {
            create_widget(&mut r, "default", &widget(name, json!({}))).await.unwrap();
        }
        let (client, base) = (reqwest::Client::new(), base.clone());
        probers.push(tokio::spawn(async move {
            let (mut made, mut misses) = (0, Vec::new());
            while made < PROBES && tokio::time::Instant::now() < deadline {
                let miss = match p % 4 {
                    0 => grpc_list_probe(&mut r).await,
                    1 => http_list_probe(&client, &base).await,
                    2 => grpc_write_probe(&r, &names, made).await,
                    _ => http_write_probe(&client, &base, &names, made).await,
                };
                made += 1;
                misses.extend(miss);
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
    for consumer in consumers {
        consumer.await.unwrap();
    }
    drop(idle);
    let by = |how: &str| misses.iter().filter(|m| m.0 == how).count();
    eprintln!(
        "watch checker: {probes} probes, {} missed (gRPC list {}, HTTP list {}, gRPC write {}, HTTP write {}), \
         {writes} writes, {} events read by {} consuming watchers",
        misses.len(),
        by("gRPC list"),
        by("HTTP list"),
        by("gRPC write"),
        by("HTTP write"),
        consumed.load(Ordering::Relaxed),
        WATCHERS.div_ceil(CONSUMING_EVERY),
    );
    assert!(writes > 0 && probes >= PROBERS * 2, "the check ran: {probes} probes, {writes} writes");
    assert!(
        misses.is_empty(),
        "{} of {probes} probes did not see exactly the revisions after the one they started from \
         (how, rv, revisions seen): {:?}",
        misses.len(),
        &misses[..misses.len().min(10)]
    );
    let mut r = t.resources().await;
    let listed = r
        .list(pb::ListResourcesRequest { r#ref: Some(widgets("default", "")), options: None })
        .await
        .expect("the server still serves")
        .into_inner();
    assert_eq!(listed.items.len(), WRITERS + PROBERS * AT_ONCE, "one object per writer and AT_ONCE per writing prober");
    t
}
