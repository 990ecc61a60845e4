//! `cargo bench --bench resources`: custom-resource figures for 1 KB objects,
//! measured in-process through the domain (`Resources`, no gRPC framing):
//! durable creates/s at 64 concurrent clients, gets/s, listing 10,000
//! objects whole and paged by 500 (as values, and as the JSON the
//! transports send), and watch delivery latency (p50/p99)
//! with 1,000 watchers while writing 1,000 objects/s.
//!
//! Then the same lists and gets over gRPC and HTTP against a server
//! in-process on loopback (`CRDSTORE_BENCH_TRANSPORTS=0` skips them): the
//! median of `CRDSTORE_BENCH_ROUNDS` (default 5) lists each.
//!
//! Figures are printed, not asserted. `CRDSTORE_BENCH_SECONDS` sets the
//! measuring time of the rate figures (default 3).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crdstore::apimachinery::options::{ListOptions, WatchOptions, WriteOptions};
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
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                 "versions": [{"name": "v1", "served": true, "storage": true,
                               "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}});
    let resources = Arc::new(Resources::new(store, WatchDefaults::default(), stopped));
    resources
        .create(
            &crdstore::resource::definitions::at(""),
            &serde_json::to_vec(&crd).expect("crd"),
            &WriteOptions::default(),
        )
        .await
        .expect("register");
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
                        resources.get(&reference(&namespace, &name), Default::default()).await.expect("get");
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

/// `CRDSTORE_BENCH_REPEATS`: how many more whole lists to time (and to
/// profile), default 1 (none).
fn repeats() -> usize {
    std::env::var("CRDSTORE_BENCH_REPEATS").ok().and_then(|s| s.parse().ok()).unwrap_or(1)
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

/// `list_ms` over `Resources::list_json`, the JSON the transports send.
async fn list_json_ms(resources: &Resources, namespace: &str, limit: i64) -> (f64, usize) {
    let start = Instant::now();
    let mut count = 0;
    let mut options = ListOptions { limit, ..Default::default() };
    loop {
        let page = resources.list_json(&reference(namespace, ""), &options).await.expect("list");
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
    let (whole, n) = list_json_ms(&s.resources, "big", 0).await;
    println!("list of {n} objects as JSON, whole:   {whole:>10.1} ms");
    let (paged, n) = list_json_ms(&s.resources, "big", 500).await;
    println!("list of {n} objects as JSON, by 500:  {paged:>10.1} ms");
    if repeats() > 1 {
        let mut ms: Vec<f64> = Vec::new();
        for _ in 0..repeats() {
            ms.push(list_json_ms(&s.resources, "big", 0).await.0);
        }
        ms.sort_by(f64::total_cmp);
        println!("list of {n} objects as JSON, whole, median of {}: {:>6.1} ms", ms.len(), ms[ms.len() / 2]);
    }
    if std::env::var("CRDSTORE_BENCH_TRANSPORTS").map_or(true, |v| v != "0") {
        transports::run().await;
    }
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

/// Lists and gets over gRPC and HTTP against a server in-process.
mod transports {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::Instant;

    use crdstore::pb::v1 as pb;
    use crdstore::pb::v1::custom_resource_definitions_client::CustomResourceDefinitionsClient;
    use crdstore::pb::v1::custom_resources_client::CustomResourcesClient;
    use crdstore::server::{Config, Server};
    use serde_json::json;
    use tonic::transport::Channel;

    fn rounds() -> usize {
        std::env::var("CRDSTORE_BENCH_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(5)
    }

    fn widgets(name: &str) -> pb::ResourceRef {
        pb::ResourceRef {
            group: "example.com".into(),
            version: "v1".into(),
            resource: "widgets".into(),
            namespace: "big".into(),
            name: name.into(),
        }
    }

    /// A client that takes a whole list of 10,000 in one message.
    fn resources_client(channel: Channel) -> CustomResourcesClient<Channel> {
        CustomResourcesClient::new(channel).max_decoding_message_size(256 << 20)
    }

    fn median(mut ms: Vec<f64>) -> f64 {
        ms.sort_by(f64::total_cmp);
        ms[ms.len() / 2]
    }

    async fn grpc_list(client: &mut CustomResourcesClient<Channel>, limit: i64) -> (f64, usize) {
        let start = Instant::now();
        let (mut count, mut token) = (0, String::new());
        loop {
            let options = pb::ListOptions { limit, continue_token: token, ..Default::default() };
            let page = client
                .list(pb::ListResourcesRequest { r#ref: Some(widgets("")), options: Some(options) })
                .await
                .expect("list")
                .into_inner();
            count += page.items.len();
            if page.continue_token.is_empty() {
                break;
            }
            token = page.continue_token;
        }
        (start.elapsed().as_secs_f64() * 1000.0, count)
    }

    /// What the client reads of a list: the items are scanned, not built.
    #[derive(serde::Deserialize)]
    struct ListHead {
        items: Vec<serde::de::IgnoredAny>,
        metadata: ListMeta,
    }

    #[derive(serde::Deserialize)]
    struct ListMeta {
        #[serde(rename = "continue", default)]
        continue_token: String,
    }

    async fn http_list(client: &reqwest::Client, base: &str, limit: i64) -> (f64, usize) {
        let start = Instant::now();
        let (mut count, mut token) = (0, String::new());
        loop {
            let mut url = format!("{base}/apis/example.com/v1/namespaces/big/widgets?limit={limit}");
            if !token.is_empty() {
                url += &format!("&continue={token}");
            }
            let body = client.get(&url).send().await.expect("list").bytes().await.expect("body");
            let list: ListHead = serde_json::from_slice(&body).expect("a list");
            count += list.items.len();
            token = list.metadata.continue_token;
            if token.is_empty() {
                break;
            }
        }
        (start.elapsed().as_secs_f64() * 1000.0, count)
    }

    /// Gets/s over gRPC with 64 concurrent clients on 8 connections.
    async fn grpc_gets(channels: &[Channel], names: usize) -> f64 {
        let done = Arc::new(AtomicUsize::new(0));
        let deadline = Instant::now() + super::seconds();
        let start = Instant::now();
        let tasks: Vec<_> = (0..64)
            .map(|t| {
                let mut client = resources_client(channels[t % channels.len()].clone());
                let done = done.clone();
                tokio::spawn(async move {
                    let mut i = t;
                    while Instant::now() < deadline {
                        let j = i % names;
                        let name = format!("w{:02}-{:05}", j % 64, j);
                        client
                            .get(pb::GetResourceRequest { r#ref: Some(widgets(&name)), ..Default::default() })
                            .await
                            .expect("get");
                        done.fetch_add(1, Ordering::Relaxed);
                        i += 7;
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await.expect("reader");
        }
        done.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64()
    }

    pub async fn run() {
        let dir = tempfile::tempdir().expect("tempdir");
        let server = Server::start(Config::ephemeral(dir.path().to_path_buf())).await.expect("server");
        let endpoint = format!("http://{}", server.grpc_addr);
        let mut definitions = CustomResourceDefinitionsClient::connect(endpoint.clone()).await.expect("connect");
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                     "versions": [{"name": "v1", "served": true, "storage": true,
                                   "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}});
        definitions
            .create(pb::CreateDefinitionRequest {
                definition: serde_json::to_vec(&crd).expect("crd"),
                ..Default::default()
            })
            .await
            .expect("register");
        let mut channels = Vec::new();
        for _ in 0..8 {
            channels.push(Channel::from_shared(endpoint.clone()).expect("uri").connect().await.expect("connect"));
        }
        // The definition is served once established; retry the first create until it is.
        let mut client = resources_client(channels[0].clone());
        let first = super::body("w00-00000", json!(null));
        while client
            .create(pb::CreateResourceRequest { r#ref: Some(widgets("")), object: first.clone(), ..Default::default() })
            .await
            .is_err()
        {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        let tasks: Vec<_> = (0..64)
            .map(|c| {
                let mut client = resources_client(channels[c % channels.len()].clone());
                tokio::spawn(async move {
                    for i in (0..10_000).skip(c).step_by(64).filter(|i| *i != 0) {
                        let object = super::body(&format!("w{c:02}-{i:05}"), json!(null));
                        client
                            .create(pb::CreateResourceRequest {
                                r#ref: Some(widgets("")),
                                object,
                                ..Default::default()
                            })
                            .await
                            .expect("fill");
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await.expect("filler");
        }
        let http = reqwest::Client::new();
        let base = format!("http://{}", server.http_addr);
        let (mut grpc_whole, mut grpc_paged, mut http_whole, mut http_paged) = (vec![], vec![], vec![], vec![]);
        let mut n = 0;
        for _ in 0..rounds() {
            let (ms, count) = grpc_list(&mut client, 0).await;
            grpc_whole.push(ms);
            n = count;
            grpc_paged.push(grpc_list(&mut client, 500).await.0);
            http_whole.push(http_list(&http, &base, 0).await.0);
            http_paged.push(http_list(&http, &base, 500).await.0);
        }
        println!("gRPC list of {n} objects, whole:      {:>10.1} ms (median of {})", median(grpc_whole), rounds());
        println!("gRPC list of {n} objects, by 500:     {:>10.1} ms", median(grpc_paged));
        println!("HTTP list of {n} objects, whole:      {:>10.1} ms (the client scans the JSON)", median(http_whole));
        println!("HTTP list of {n} objects, by 500:     {:>10.1} ms", median(http_paged));
        let rate = grpc_gets(&channels, 10_000).await;
        println!("gRPC gets/s, 64 clients:                {rate:>10.0}");
        drop((client, channels, definitions));
        server.shutdown().await.expect("shutdown");
    }
}
