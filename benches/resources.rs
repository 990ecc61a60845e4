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

use crdstore::registry::Registry;
use crdstore::resource::options::{ListOptions, WatchOptions, WriteOptions};
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
    _dir: tempfile::TempDir,
}

async fn setup() -> Setup {
    let dir = tempfile::tempdir().expect("tempdir");
    let store: Arc<dyn Storage> = Arc::new(SledStore::open(dir.path(), SledOptions::default()).expect("open"));
    let (_stop, stopped) = tokio::sync::watch::channel(false);
    std::mem::forget(_stop);
    let registry = Registry::new(store.clone(), WatchDefaults::default(), stopped.clone());
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                 "versions": [{"name": "v1", "served": true, "storage": true,
                               "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}});
    registry.create(&serde_json::to_vec(&crd).expect("crd"), &WriteOptions::default()).await.expect("register");
    let resources = Arc::new(Resources::new(store, WatchDefaults::default(), stopped));
    Setup { resources, _dir: dir }
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

/// p50 and p99 in ms of the time from just before a create is sent to its
/// ADDED event reaching each of `watchers` watchers.
async fn watch_latency(
    resources: &Arc<Resources>,
    watchers: usize,
    per_second: u64,
    seconds: u64,
) -> (f64, f64, usize) {
    let origin = Instant::now();
    let latencies = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut tasks = Vec::new();
    for _ in 0..watchers {
        let options = WatchOptions { resource_version: resources_current(resources), ..Default::default() };
        let mut stream = resources.watch(&reference("watched", ""), options).await.expect("watch");
        let latencies = latencies.clone();
        tasks.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            while let Some(Ok(event)) = stream.recv().await {
                if event.kind == EventType::Added {
                    let sent = event.object["spec"]["extra"].as_u64().unwrap_or(0);
                    mine.push(origin.elapsed().as_micros() as u64 - sent);
                }
            }
            latencies.lock().expect("latencies").extend(mine);
        }));
    }
    let mut ticker = tokio::time::interval(Duration::from_micros(1_000_000 / per_second));
    let writes = (per_second * seconds) as usize;
    let mut pending = Vec::new();
    for i in 0..writes {
        ticker.tick().await;
        let resources = resources.clone();
        let sent = origin.elapsed().as_micros() as u64;
        pending.push(tokio::spawn(async move {
            resources
                .create(&reference("watched", ""), &body(&format!("e{i}"), json!(sent)), &WriteOptions::default())
                .await
                .expect("write");
        }));
    }
    for p in pending {
        p.await.expect("writer");
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    drop(tasks);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut all = std::mem::take(&mut *latencies.lock().expect("latencies"));
    all.sort_unstable();
    let pick = |q: f64| {
        all.get(((all.len() as f64 * q) as usize).min(all.len().saturating_sub(1))).copied().unwrap_or(0) as f64
            / 1000.0
    };
    (pick(0.50), pick(0.99), all.len())
}

fn resources_current(_: &Resources) -> String {
    String::new()
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
    let (p50, p99, delivered) = watch_latency(&s.resources, watchers, 1000, 5).await;
    println!("watch latency, {watchers} watchers, 1,000 writes/s: p50 {p50:.1} ms, p99 {p99:.1} ms ({delivered} deliveries; target p99 <= 20 ms)");
}
