//! `cargo bench --bench resources`: custom-resource figures for 1 KB objects,
//! measured in-process through the domain (`Resources`, no gRPC framing):
//! durable creates/s at 64 concurrent clients, gets/s, listing 10,000
//! objects whole and paged by 500, and watch delivery latency (p50/p99)
//! with 1,000 watchers while writing 1,000 objects/s.
//!
//! Figures are printed, not asserted. `CRDSTORE_BENCH_SECONDS` sets the
//! measuring time of the rate figures (default 3).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crdstore::apimachinery::options::{ListOptions, WatchOptions, WriteOptions};
use crdstore::registry::Registry;
use crdstore::resource::{Ref, Resources};
use crdstore::storage::sled::{SledOptions, SledStore};
use crdstore::storage::Storage;
use crdstore::watch::stream::{EventType, WatchDefaults};
use serde_json::json;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn seconds() -> Duration {
    let secs = std::env::var("CRDSTORE_BENCH_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3.0);
    Duration::from_secs_f64(secs)
}

fn reference(namespace: &str, name: &str) -> Ref {
    Ref {
        group: "example.com".into(),
        version: "v1".into(),
        resource: "widgets".into(),
        namespace: namespace.into(),
        name: name.into(),
    }
}

/// A 1 KB Widget.
fn body(name: &str, extra: serde_json::Value) -> Vec<u8> {
    let obj = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name, "labels": {"app": "bench"}},
                     "spec": {"data": "x".repeat(900), "extra": extra}});
    serde_json::to_vec(&obj).expect("serialize")
}

struct Setup {
    resources: Arc<Resources>,
    /// Ends every watch, as a server shutdown does.
    stop: tokio::sync::watch::Sender<bool>,
    _dir: tempfile::TempDir,
}

async fn setup() -> Setup {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, background) = SledStore::open(dir.path(), SledOptions::default()).expect("open");
    tokio::spawn(background.run());
    let store: Arc<dyn Storage> = Arc::new(store);
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let registry = Registry::new(store.clone(), WatchDefaults::default(), stopped.clone());
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                 "versions": [{"name": "v1", "served": true, "storage": true,
                               "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}});
    registry.create(&serde_json::to_vec(&crd).expect("crd"), &WriteOptions::default()).await.expect("register");
    let resources = Arc::new(Resources::new(store, WatchDefaults::default(), stopped));
    tokio::spawn({
        let resources = resources.clone();
        async move { resources.track_definitions().await }
    });
    Setup { resources, stop, _dir: dir }
}

async fn creates(resources: &Arc<Resources>) -> f64 {
    let done = Arc::new(AtomicUsize::new(0));
    let deadline = Instant::now() + seconds();
    let start = Instant::now();
    let tasks: Vec<_> = (0..64)
        .map(|c| {
            let (resources, done) = (resources.clone(), done.clone());
            tokio::spawn(async move {
                let mut i = 0;
                while Instant::now() < deadline {
                    resources
                        .create(
                            &reference("load", ""),
                            &body(&format!("c{c}-{i}"), json!(null)),
                            &WriteOptions::default(),
                        )
                        .await
                        .expect("create");
                    done.fetch_add(1, Ordering::Relaxed);
                    i += 1;
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.expect("client");
    }
    done.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64()
}

async fn fill(resources: &Arc<Resources>, namespace: &str, n: usize) {
    let tasks: Vec<_> = (0..64)
        .map(|c| {
            let resources = resources.clone();
            let namespace = namespace.to_string();
            tokio::spawn(async move {
                for i in (0..n).skip(c).step_by(64) {
                    let name = format!("w{c:02}-{i:05}");
                    resources
                        .create(&reference(&namespace, ""), &body(&name, json!(null)), &WriteOptions::default())
                        .await
                        .expect("fill");
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.expect("filler");
    }
}

async fn gets(resources: &Arc<Resources>, namespace: &str, names: usize) -> f64 {
    let done = Arc::new(AtomicUsize::new(0));
    let deadline = Instant::now() + seconds();
    let start = Instant::now();
    let tasks: Vec<_> = (0..2)
        .map(|t| {
            let (resources, done, namespace) = (resources.clone(), done.clone(), namespace.to_string());
            tokio::spawn(async move {
                let mut i = t;
                while Instant::now() < deadline {
                    for _ in 0..256 {
                        let j = i % names;
                        let name = format!("w{:02}-{:05}", j % 64, j);
                        resources.get(&reference(&namespace, &name)).expect("get");
                        i += 7;
                    }
                    done.fetch_add(256, Ordering::Relaxed);
                    tokio::task::yield_now().await;
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.expect("reader");
    }
    done.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64()
}

async fn list_ms(resources: &Resources, namespace: &str, limit: i64) -> (f64, usize) {
    let start = Instant::now();
    let mut count = 0;
    let mut options = ListOptions { limit, ..Default::default() };
    loop {
        let page = resources.list(&reference(namespace, ""), &options).await.expect("list");
        count += page.items.len();
        if page.continue_token.is_empty() {
            break;
        }
        options.continue_token = page.continue_token;
    }
    (start.elapsed().as_secs_f64() * 1000.0, count)
}

/// Watch delivery latency with `watchers` watchers while writing
/// `per_second` objects/s for `seconds` s.
struct WatchFigures {
    /// p50 and p99 in ms from the acknowledged (durable) commit to receipt:
    /// negative when watchers get the event before the writer gets its
    /// answer, as they do once groups are published before they are
    /// answered.
    from_commit: (f64, f64),
    /// The share of deliveries that arrived before the writer's answer.
    before_ack: f64,
    /// p50 and p99 in ms from just before the create was sent to receipt
    /// (includes the durable commit itself).
    from_send: (f64, f64),
    delivered: usize,
    /// Watchers ended with an error (cut off for falling behind).
    cut_off: usize,
}

fn percentiles(mut micros: Vec<i64>) -> (f64, f64) {
    micros.sort_unstable();
    let pick = |q: f64| {
        micros.get(((micros.len() as f64 * q) as usize).min(micros.len().saturating_sub(1))).copied().unwrap_or(0)
    };
    (pick(0.50) as f64 / 1000.0, pick(0.99) as f64 / 1000.0)
}

async fn watch_latency(s: &Setup, watchers: usize, per_second: u64, seconds: u64) -> WatchFigures {
    let resources = &s.resources;
    let writes = (per_second * seconds) as usize;
    let cut_off = Arc::new(AtomicUsize::new(0));
    let origin = Instant::now();
    let acked: Arc<Vec<std::sync::atomic::AtomicU64>> = Arc::new((0..writes).map(|_| Default::default()).collect());
    let receipts = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut tasks = Vec::new();
    for _ in 0..watchers {
        let mut stream = resources.watch(&reference("watched", ""), WatchOptions::default()).await.expect("watch");
        let (receipts, cut_off) = (receipts.clone(), cut_off.clone());
        tasks.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            while let Some(item) = futures::StreamExt::next(&mut stream).await {
                let Ok(event) = item else {
                    cut_off.fetch_add(1, Ordering::Relaxed);
                    break;
                };
                if event.kind == EventType::Added {
                    let index = event.object.value["spec"]["extra"]["index"].as_u64().unwrap_or(0) as usize;
                    let sent = event.object.value["spec"]["extra"]["sent"].as_u64().unwrap_or(0);
                    mine.push((index, sent, origin.elapsed().as_micros() as u64));
                }
            }
            receipts.lock().expect("receipts").extend(mine);
        }));
    }
    let mut ticker = tokio::time::interval(Duration::from_micros(1_000_000 / per_second));
    let mut pending = Vec::new();
    for i in 0..writes {
        ticker.tick().await;
        let (resources, acked) = (resources.clone(), acked.clone());
        let sent = origin.elapsed().as_micros() as u64;
        pending.push(tokio::spawn(async move {
            let extra = json!({"index": i, "sent": sent});
            resources
                .create(&reference("watched", ""), &body(&format!("e{i}"), extra), &WriteOptions::default())
                .await
                .expect("write");
            acked[i].store(origin.elapsed().as_micros() as u64, Ordering::Relaxed);
        }));
    }
    for p in pending {
        p.await.expect("writer");
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    s.stop.send(true).expect("stop watches");
    for t in tasks {
        t.await.expect("watcher");
    }
    let receipts = std::mem::take(&mut *receipts.lock().expect("receipts"));
    let from_commit: Vec<i64> =
        receipts.iter().map(|(i, _, at)| *at as i64 - acked[*i].load(Ordering::Relaxed) as i64).collect();
    let before_ack = from_commit.iter().filter(|d| **d < 0).count() as f64 / from_commit.len().max(1) as f64;
    let from_send = receipts.iter().map(|(_, sent, at)| *at as i64 - *sent as i64).collect();
    WatchFigures {
        from_commit: percentiles(from_commit),
        before_ack,
        from_send: percentiles(from_send),
        delivered: receipts.len(),
        cut_off: cut_off.load(Ordering::Relaxed),
    }
}

#[tokio::main]
async fn main() {
    if std::env::args().any(|a| a == "--list") {
        println!("resources: bench");
        return;
    }
    let s = setup().await;
    let create_rate = creates(&s.resources).await;
    println!("durable creates/s, 64 clients (1 KB):   {create_rate:>10.0}   (target >= 10,000)");
    fill(&s.resources, "big", 10_000).await;
    let get_rate = gets(&s.resources, "big", 10_000).await;
    println!("gets/s:                                 {get_rate:>10.0}   (target >= 30,000)");
    let (whole, n) = list_ms(&s.resources, "big", 0).await;
    println!("list of {n} objects, whole:           {whole:>10.1} ms (target <= 100)");
    let (paged, n) = list_ms(&s.resources, "big", 500).await;
    println!("list of {n} objects, paged by 500:    {paged:>10.1} ms");
    let watchers = std::env::var("CRDSTORE_BENCH_WATCHERS").ok().and_then(|w| w.parse().ok()).unwrap_or(1000);
    if watchers == 0 {
        return;
    }
    let w = watch_latency(&s, watchers, 1000, 5).await;
    println!(
        "watch latency, {watchers} watchers, 1,000 writes/s for 5 s, commit to receipt: p50 {:.1} ms, p99 {:.1} ms \
         (target p99 <= 20 ms; {:.0}% delivered before the writer's answer)",
        w.from_commit.0,
        w.from_commit.1,
        w.before_ack * 100.0
    );
    println!(
        "  same, from just before the create is sent: p50 {:.1} ms, p99 {:.1} ms; {} of {} deliveries, {} watchers cut off",
        w.from_send.0,
        w.from_send.1,
        w.delivered,
        watchers * 5000,
        w.cut_off
    );
}
