//! `cargo run --release --example watch_load -- <grpc|http> [watchers] [writes/s] [seconds]`:
//! a real server in-process (on a runtime of its own, two workers, as a
//! separate process would be) with `watchers` watches over one transport,
//! while one client creates 1 KB objects at a fixed rate over gRPC. Prints
//! the share of events delivered, watchers cut off, the send-to-receipt
//! latency seen by a sample of watchers, and the write latency.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crdstore::pb::v1 as pb;
use crdstore::pb::v1::custom_resources_client::CustomResourcesClient;
use crdstore::server::{Config, Server};
use futures::StreamExt;
use serde_json::json;
use tonic::transport::Channel;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn widgets(name: &str) -> pb::ResourceRef {
    pb::ResourceRef {
        group: "example.com".into(),
        version: "v1".into(),
        resource: "widgets".into(),
        namespace: "default".into(),
        name: name.into(),
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() as f64 * p) as usize).min(sorted.len() - 1)]
}

/// The index in `e<index>` of an event line or object.
fn index_of(bytes: &[u8]) -> Option<usize> {
    let at = bytes.windows(9).position(|w| w == b"\"name\":\"e")? + 9;
    let end = bytes[at..].iter().position(|b| *b == b'"')?;
    std::str::from_utf8(&bytes[at..at + end]).ok()?.parse().ok()
}

fn memchr(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|b| *b == b'\n')
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let transport = args.get(1).cloned().unwrap_or_else(|| "grpc".into());
    let watchers: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let rate: u64 = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let seconds: u64 = args.get(4).and_then(|a| a.parse().ok()).unwrap_or(5);
    let dir = tempfile::tempdir().expect("tempdir");
    let server_rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("rt");
    let mut config = Config::ephemeral(dir.path().to_path_buf());
    config.max_watches = watchers + 16;
    let server = server_rt.block_on(Server::start(config)).expect("server");
    let (grpc, http) = (format!("http://{}", server.grpc_addr), format!("http://{}", server.http_addr));
    let client_rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("rt");
    client_rt.block_on(async move {
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                     "versions": [{"name": "v1", "served": true, "storage": true,
                                   "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}});
        let mut defs =
            pb::custom_resource_definitions_client::CustomResourceDefinitionsClient::connect(grpc.clone()).await.unwrap();
        defs.create(pb::CreateDefinitionRequest { definition: serde_json::to_vec(&crd).unwrap(), ..Default::default() })
            .await
            .expect("definition");
        tokio::time::sleep(Duration::from_millis(500)).await;
        let total = (rate * seconds) as usize;
        let sent: Arc<Vec<Mutex<Option<Instant>>>> = Arc::new((0..total).map(|_| Mutex::new(None)).collect());
        let received = Arc::new(AtomicUsize::new(0));
        let ended = Arc::new(AtomicUsize::new(0));
        let latencies = Arc::new(Mutex::new(Vec::new()));
        let http_client = reqwest::Client::builder().http1_only().pool_max_idle_per_host(watchers).build().unwrap();
        let mut channels = Vec::new();
        for _ in 0..watchers.div_ceil(100) {
            channels.push(Channel::from_shared(grpc.clone()).unwrap().connect().await.unwrap());
        }
        let mut tasks = Vec::new();
        for w in 0..watchers {
            let (received, ended, latencies, sent) = (received.clone(), ended.clone(), latencies.clone(), sent.clone());
            let sampled = w % 50 == 0;
            let note = move |bytes: &[u8]| {
                if sampled {
                    if let Some(at) = index_of(bytes).and_then(|i| *sent[i].lock().unwrap()) {
                        latencies.lock().unwrap().push(at.elapsed().as_secs_f64() * 1e3);
                    }
                }
            };
            if transport == "grpc" {
                let mut client = CustomResourcesClient::new(channels[w / 100].clone());
                let options = pb::WatchOptions { resource_version: "0".into(), send_initial_events: Some(false), ..Default::default() };
                let mut stream = client
                    .watch(pb::WatchResourcesRequest { r#ref: Some(widgets("")), options: Some(options) })
                    .await
                    .expect("watch")
                    .into_inner();
                tasks.push(tokio::spawn(async move {
                    while let Some(Ok(event)) = stream.next().await {
                        received.fetch_add(1, Ordering::Relaxed);
                        note(&event.object);
                    }
                    ended.fetch_add(1, Ordering::Relaxed);
                }));
            } else {
                let url = format!("{http}/apis/example.com/v1/namespaces/default/widgets?watch=true&resourceVersion=0&sendInitialEvents=false");
                let mut response = http_client.get(url).send().await.expect("watch");
                tasks.push(tokio::spawn(async move {
                    let mut partial = Vec::new();
                    while let Ok(Some(chunk)) = response.chunk().await {
                        partial.extend_from_slice(&chunk);
                        let mut start = 0;
                        while let Some(end) = memchr(&partial[start..]) {
                            received.fetch_add(1, Ordering::Relaxed);
                            note(&partial[start..start + end]);
                            start += end + 1;
                        }
                        partial.drain(..start);
                    }
                    ended.fetch_add(1, Ordering::Relaxed);
                }));
            }
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let writes = Arc::new(Mutex::new(Vec::new()));
        let mut ticker = tokio::time::interval(Duration::from_secs_f64(1.0 / rate as f64));
        let writer = CustomResourcesClient::new(Channel::from_shared(grpc.clone()).unwrap().connect().await.unwrap());
        let mut inflight = Vec::new();
        let data = "x".repeat(900);
        for i in 0..total {
            ticker.tick().await;
            let (mut writer, writes, sent) = (writer.clone(), writes.clone(), sent.clone());
            let object = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": format!("e{i}")}, "spec": {"data": data}});
            inflight.push(tokio::spawn(async move {
                let start = Instant::now();
                *sent[i].lock().unwrap() = Some(start);
                let req = pb::CreateResourceRequest { r#ref: Some(widgets("")), object: serde_json::to_vec(&object).unwrap(), options: None };
                writer.create(req).await.expect("create");
                writes.lock().unwrap().push(start.elapsed().as_secs_f64() * 1e3);
            }));
        }
        for t in inflight {
            t.await.unwrap();
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        while received.load(Ordering::Relaxed) < total * watchers && Instant::now() < deadline && ended.load(Ordering::Relaxed) < watchers {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let mut w = writes.lock().unwrap().clone();
        w.sort_by(f64::total_cmp);
        let mut l = latencies.lock().unwrap().clone();
        l.sort_by(f64::total_cmp);
        println!(
            "{transport}: {watchers} watchers, {rate} writes/s for {seconds} s: delivered {:.1}%, {} watches ended; \
             send-to-receipt p50 {:.1} ms p99 {:.1} ms; write p50 {:.1} ms p99 {:.1} ms",
            100.0 * received.load(Ordering::Relaxed) as f64 / (total * watchers) as f64,
            ended.load(Ordering::Relaxed),
            percentile(&l, 0.5),
            percentile(&l, 0.99),
            percentile(&w, 0.5),
            percentile(&w, 0.99),
        );
        std::process::exit(0);
    });
}
