//! `cargo bench --bench conversion`: what conversion costs a list. 10,000
//! 1 KB Widgets stored at `v1`, listed whole (as the JSON the transports
//! send) at the storage version, and at `v2` through a conversion webhook
//! on loopback (HTTPS, the test webhook of `tests/it/conversion_webhook.rs`,
//! one review per list). The median of `CRDSTORE_BENCH_ROUNDS` (default 5)
//! lists each; figures are printed, not asserted. Issue 18's target: a
//! webhook list within 3x the storage-version list.
//!
//! The declarative line is a slot the lead fills when the declarative
//! engine is wired into the `Converter`: a second definition with
//! `strategy: Declarative` listed the same way (target: within 1.3x).

#[path = "../tests/it/conversion_webhook.rs"]
mod conversion_webhook;

use std::sync::Arc;
use std::time::Instant;

use crdstore::apimachinery::options::{ListOptions, WriteOptions};
use crdstore::registry::Registry;
use crdstore::resource::{Ref, Resources};
use crdstore::storage::sled::{SledOptions, SledStore};
use crdstore::storage::Storage;
use crdstore::watch::stream::WatchDefaults;
use serde_json::json;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const OBJECTS: usize = 10_000;

fn rounds() -> usize {
    std::env::var("CRDSTORE_BENCH_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(5).max(1)
}

fn reference(version: &str, name: &str) -> Ref {
    Ref {
        group: "example.com".into(),
        version: version.into(),
        resource: "widgets".into(),
        namespace: "bench".into(),
        name: name.into(),
    }
}

/// Registers Widgets (v1 storage, v2 served) converting as `conversion`
/// says, and fills them with 10,000 1 KB objects at v1.
async fn setup(conversion: serde_json::Value) -> (Arc<Resources>, Keep) {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, background) = SledStore::open(dir.path(), SledOptions::default()).expect("open");
    tokio::spawn(background.run());
    let store: Arc<dyn Storage> = Arc::new(store);
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let registry = Registry::new(store.clone(), WatchDefaults::default(), stopped.clone());
    let schema = json!({"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}});
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                 "versions": [{"name": "v1", "served": true, "storage": true, "schema": schema},
                              {"name": "v2", "served": true, "storage": false, "schema": schema}],
                 "conversion": conversion}});
    registry.create(&serde_json::to_vec(&crd).expect("crd"), &WriteOptions::default()).await.expect("register");
    let resources = Arc::new(Resources::new(store, WatchDefaults::default(), stopped));
    let mut tasks = Vec::new();
    for client in 0..16 {
        let resources = resources.clone();
        tasks.push(tokio::spawn(async move {
            for i in (client..OBJECTS).step_by(16) {
                let obj = json!({"apiVersion": "example.com/v1", "kind": "Widget",
                    "metadata": {"name": format!("w{i:05}"), "labels": {"app": "bench"}},
                    "spec": {"hostPort": format!("host-{i}:{}", 1000 + i), "replicas": 1, "data": "x".repeat(850)}});
                let body = serde_json::to_vec(&obj).expect("serialize");
                resources.create(&reference("v1", ""), &body, &WriteOptions::default()).await.expect("create");
            }
        }));
    }
    for task in tasks {
        task.await.expect("fill");
    }
    (resources, (stop, dir))
}

/// What must live while the resources are used: the stop signal and the
/// data directory.
type Keep = (tokio::sync::watch::Sender<bool>, tempfile::TempDir);

/// The median time of listing all objects at `version`, in milliseconds.
async fn list_ms(resources: &Resources, version: &str) -> f64 {
    let mut times = Vec::new();
    for _ in 0..rounds() {
        let start = Instant::now();
        let page = resources.list_json(&reference(version, ""), &ListOptions::default()).await.expect("list");
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(page.items.len(), OBJECTS);
    }
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

#[tokio::main]
async fn main() {
    if std::env::args().any(|a| a == "--list") {
        println!("conversion: bench");
        return;
    }
    let hook = conversion_webhook::Webhook::start().await;
    let (resources, _keep) = setup(hook.conversion(&["v1"])).await;
    let stored = list_ms(&resources, "v1").await;
    let before = hook.reviews();
    let webhook = list_ms(&resources, "v2").await;
    let reviews = (hook.reviews() - before) / rounds();
    println!("list of {OBJECTS} objects at the storage version:        {stored:>8.1} ms");
    println!(
        "list of {OBJECTS} objects through a webhook (loopback):  {webhook:>8.1} ms  ({:.2}x, {reviews} review per list; target <= 3x)",
        webhook / stored
    );
    // Where the webhook list's time goes: the page read as values at the
    // storage version, and the converter's call alone (one review).
    let served = resources.served("example.com", "v2", "widgets").expect("served");
    let values = resources.list(&reference("v1", ""), &ListOptions::default()).await.expect("list").items;
    let mut times = Vec::new();
    for _ in 0..rounds() {
        let start = Instant::now();
        let converted = served.converter.convert(values.clone(), "v2").await.expect("convert");
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(converted.len(), OBJECTS);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "  of which the review alone (serialise, HTTPS, webhook, parse, check): {:>8.1} ms",
        times[times.len() / 2]
    );
    // Declarative: the lead's slot. Register a second definition with
    // `{"strategy": "Declarative", ...}`, list it at v2 with `list_ms`, and
    // print it beside these (target <= 1.3x the storage-version list).
    println!("list of {OBJECTS} objects through declarative conversion: (not wired on this branch)");
}
